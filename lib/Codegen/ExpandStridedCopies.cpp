//===- ExpandStridedCopies.cpp - Strided memref.copy as loops -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-expand-strided-copies`: memref.copy between
// non-contiguous static views becomes linalg.copy (vectorizable loops)
// instead of a call to the runtime's element-by-element `memrefCopy`.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMEXPANDSTRIDEDCOPIESPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {
struct LLMExpandStridedCopiesPass
    : public llm::impl::LLMExpandStridedCopiesPassBase<
          LLMExpandStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      auto src = dyn_cast<MemRefType>(op.getSource().getType());
      auto dst = dyn_cast<MemRefType>(op.getTarget().getType());
      if (!src || !dst || !src.hasStaticShape() || !dst.hasStaticShape() ||
          src.getRank() == 0)
        return;
      if (memref::isStaticShapeAndContiguousRowMajor(src) &&
          memref::isStaticShapeAndContiguousRowMajor(dst))
        return;
      copies.push_back(op);
    });
    // memref.copy(src, dst) with a strided src or dst
    //   -> linalg.copy ins(src) outs(dst).
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp op : copies) {
      rewriter.setInsertionPoint(op);
      linalg::CopyOp::create(rewriter, op.getLoc(), op.getSource(),
                             op.getTarget());
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
