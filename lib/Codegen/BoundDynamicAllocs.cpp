//===- BoundDynamicAllocs.cpp - Static sizes for tile scratch buffers -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-bound-dynamic-allocs`: a dynamically sized
// memref.alloc inside a loop (the scratch of a row tile of a dynamic
// sequence, whose last tile is partial) becomes a static buffer of its
// constant upper bound, viewed with the run-time sizes, so that it is
// hoisted, promoted to the stack or planned as a static tile's scratch is
// instead of being a malloc per iteration.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMBOUNDDYNAMICALLOCSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMBoundDynamicAllocsPass
    : public llm::impl::LLMBoundDynamicAllocsPassBase<
          LLMBoundDynamicAllocsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](memref::AllocOp op) {
      MemRefType type = op.getType();
      if (!type.hasStaticShape() && type.getLayout().isIdentity() &&
          type.getElementType().isIntOrFloat() &&
          op->getParentOfType<LoopLikeOpInterface>())
        allocs.push_back(op);
    });
    // memref.alloc(%s...) : memref<..x?x..xT>   (%s <= B constant)
    //   -> %raw = memref.alloc() : memref<(product of the bounds * bytes)xi8>
    //      memref.view %raw[0][%s...] : memref<..x?x..xT>
    for (memref::AllocOp op : allocs) {
      MemRefType type = op.getType();
      int64_t elements = 1;
      bool bounded = true;
      unsigned next = 0;
      for (int64_t size : type.getShape()) {
        if (!ShapedType::isDynamic(size)) {
          elements *= size;
          continue;
        }
        Value v = op.getDynamicSizes()[next++];
        // A constant bound (a row tile), else the bound of a size that
        // follows the sequence length (a whole [S, N] accumulator).
        FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
            presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(v),
            /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (failed(ub) || *ub < 0) {
          std::optional<int64_t> seqBound = llm::getSequenceSizeBound(
              cast<FunctionOpInterface>(getOperation().getOperation()), v);
          if (!seqBound) {
            bounded = false;
            break;
          }
          ub = *seqBound;
        }
        elements *= *ub;
      }
      if (!bounded)
        continue;
      int64_t bytes =
          elements * static_cast<int64_t>(llvm::divideCeil(
                         type.getElementType().getIntOrFloatBitWidth(), 8));
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto rawType =
          MemRefType::get({std::max<int64_t>(bytes, 1)}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace());
      auto raw =
          memref::AllocOp::create(b, loc, rawType, op.getAlignmentAttr());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      auto view =
          memref::ViewOp::create(b, loc, type, raw, zero, op.getDynamicSizes());
      op.replaceAllUsesWith(view.getResult());
      op.erase();
      ++numBounded;
    }
  }
};

} // namespace
