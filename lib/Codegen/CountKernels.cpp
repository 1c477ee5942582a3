//===- CountKernels.cpp - llm-count-kernels -------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-count-kernels`, which records the number of
// top-level loop nests (kernels) and the bytes of intermediates they write in
// the compile report (`llm.report`).
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMCOUNTKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// True for ops that become a loop nest of their own.
static bool isKernel(Operation *op) {
  return isa<scf::ForallOp, scf::ForOp, scf::ParallelOp, linalg::LinalgOp,
             tensor::InsertSliceOp, tensor::ConcatOp, tensor::PadOp,
             tensor::GenerateOp>(op);
}

/// True if `v` is returned by a func.return, directly or through reshapes.
static bool reachesReturn(Value v) {
  for (Operation *user : v.getUsers()) {
    if (isa<func::ReturnOp>(user))
      return true;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
        reachesReturn(user->getResult(0)))
      return true;
  }
  return false;
}

namespace {
struct LLMCountKernelsPass
    : llm::impl::LLMCountKernelsPassBase<LLMCountKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t kernels = 0, bytes = 0;
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      std::optional<int64_t> bound;
      if (!func.getBody().empty() && !func.getBody().front().empty())
        bound = llm::getSequenceBound(&func.getBody().front().front());
      for (Block &block : func.getBody())
        for (Operation &op : block) {
          if (!isKernel(&op))
            continue;
          ++kernels;
          for (Value r : op.getResults()) {
            auto type = dyn_cast<RankedTensorType>(r.getType());
            // A dynamic (sequence) dimension counts at its declared bound.
            if (!type || reachesReturn(r) || (!type.hasStaticShape() && !bound))
              continue;
            int64_t elements = 1;
            for (int64_t d : type.getShape())
              elements *= ShapedType::isDynamic(d) ? *bound : d;
            int64_t bits = type.getElementType().isIntOrFloat()
                               ? type.getElementTypeBitWidth()
                               : 64;
            bytes += elements * ((bits + 7) / 8);
          }
        }
    });
    numKernels += kernels;
    llm::recordReportValue(getOperation(), "kernels", kernels);
    llm::recordReportValue(getOperation(), "intermediate_bytes", bytes);
  }
};
} // namespace
