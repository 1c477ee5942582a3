//===- PromoteContractionInputs.cpp - f16/bf16 matmuls run in f32 ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-promote-contraction-inputs`: a half-precision
// matmul by a constant weight becomes an f32 matmul of the widened
// activation and a weight widened at compile time, followed by the rounding
// of its result. The rewrite is exact (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"
#include "llm/Support/Report.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <limits>

#define DEBUG_TYPE "llm-promote-contraction-inputs"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMPROMOTECONTRACTIONINPUTSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// The number of rows of `op`'s lhs (the product of its dimensions other
/// than K, saturating at INT64_MAX), a dynamic (sequence) dimension counted
/// at its declared bound (llm.dim_bounds: the rows a prefill of the longest
/// sequence has, the size the CPU tiles are chosen for too); std::nullopt
/// for a dynamic dimension without a bound.
static std::optional<int64_t> getRows(MatmulOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  int64_t rank = lhsType.getRank();
  int64_t kDim = op.getTransposeA() ? rank - 2 : rank - 1;
  int64_t rows = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == kDim)
      continue;
    int64_t size = lhsType.getDimSize(d);
    if (ShapedType::isDynamic(size)) {
      std::optional<int64_t> bound = getSequenceBound(op);
      if (!bound || *bound < 1)
        return std::nullopt;
      size = *bound;
    }
    if (size == 0)
      return 0;
    rows = rows > std::numeric_limits<int64_t>::max() / size
               ? std::numeric_limits<int64_t>::max()
               : rows * size;
  }
  return rows;
}

int64_t mlir::llm::promoteContractionInputs(
    FunctionOpInterface func, const PromoteContractionInputsOptions &options) {
  // Collected first: the rewrite adds matmuls of its own.
  SmallVector<MatmulOp> candidates;
  func.walk([&](MatmulOp op) {
    Type elem = getElementTypeOrSelf(op.getType());
    bool wanted =
        (elem.isF16() && options.f16) || (elem.isBF16() && options.bf16);
    if (!wanted || getElementTypeOrSelf(op.getLhs().getType()) != elem ||
        getElementTypeOrSelf(op.getRhs().getType()) != elem)
      return;
    auto cst = op.getRhs().getDefiningOp<ConstantOp>();
    std::optional<int64_t> rows = getRows(op);
    if (!cst || !rows || *rows < options.minRows)
      return;
    candidates.push_back(op);
  });

  // One widened weight per constant and one widened activation per value,
  // shared by the matmuls that read them. The weights are widened at
  // compile time; an activation (even a constant one, which
  // llm-fold-constants may fold later) by an llm.cast.
  llvm::DenseMap<Operation *, Value> widenedWeights;
  llvm::DenseMap<Value, Value> widenedActivations;
  IRRewriter rewriter(func.getContext());
  Type f32 = Float32Type::get(func.getContext());
  auto widenWeight = [&](ConstantOp cst) -> Value {
    if (Value w = widenedWeights.lookup(cst))
      return w;
    ElementsAttr value =
        convertFloatElements(cst.getValue(), rewriter.getF32Type());
    if (!value)
      return nullptr;
    rewriter.setInsertionPointAfter(cst);
    Value w = ConstantOp::create(rewriter, cst.getLoc(), value);
    widenedWeights[cst] = w;
    return w;
  };
  auto widenActivation = [&](Value v) -> Value {
    if (Value w = widenedActivations.lookup(v))
      return w;
    auto type = cast<RankedTensorType>(v.getType());
    rewriter.setInsertionPointAfterValue(v);
    Value w = CastOp::create(rewriter, v.getLoc(),
                             RankedTensorType::get(type.getShape(), f32), v);
    widenedActivations[v] = w;
    return w;
  };

  int64_t promoted = 0;
  for (MatmulOp op : candidates) {
    // A weight whose values cannot be read (a sparse<> literal) is left.
    Value rhs = widenWeight(op.getRhs().getDefiningOp<ConstantOp>());
    if (!rhs)
      continue;
    Value lhs = widenActivation(op.getLhs());
    rewriter.setInsertionPoint(op);
    auto matmul = MatmulOp::create(rewriter, op.getLoc(), lhs, rhs,
                                   op.getTransposeA(), op.getTransposeB());
    // Discardable attributes (a lowering configuration, names) carry over.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      matmul->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), matmul.getResult());
    ++promoted;
  }
  // The half-precision weights no other op reads (the map's keys are
  // constants, which the rewrite above never replaces).
  for (auto [cst, wide] : widenedWeights)
    if (cst->use_empty())
      rewriter.eraseOp(cst);
  return promoted;
}

namespace {

struct LLMPromoteContractionInputsPass
    : public llm::impl::LLMPromoteContractionInputsPassBase<
          LLMPromoteContractionInputsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    PromoteContractionInputsOptions options;
    options.minRows = minRows;
    if (!elementTypes.empty()) {
      options.f16 = options.bf16 = false;
      for (const std::string &name : elementTypes) {
        if (name == "f16") {
          options.f16 = true;
        } else if (name == "bf16") {
          options.bf16 = true;
        } else {
          emitError(module.getLoc())
              << "llm-promote-contraction-inputs: unknown "
                 "element type '"
              << name << "' (expected f16 or bf16)";
          return signalPassFailure();
        }
      }
    }
    if (minRows < 1) {
      emitError(module.getLoc())
          << "llm-promote-contraction-inputs: min-rows must "
             "be at least 1, got "
          << static_cast<int64_t>(minRows);
      return signalPassFailure();
    }
    int64_t promoted = 0;
    module.walk([&](FunctionOpInterface func) {
      promoted += promoteContractionInputs(func, options);
    });
    numPromoted += promoted;
    accumulateReportValue(module, "promoted_matmuls", promoted);
  }
};

} // namespace
