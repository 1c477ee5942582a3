//===- ExpandStridedCopies.cpp - Strided memref.copy as loops -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-expand-strided-copies`: memref.copy between
// non-contiguous views (static, or with the dynamic sequence dimension)
// becomes linalg.copy (vectorizable loops)
// instead of a call to the runtime's element-by-element `memrefCopy`; a
// large copy is split over its outermost dimension into an scf.forall so
// that the threads share it.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Support/PassOptions.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "parallel-min-bytes",
                                           parallelMinBytes)))
      return signalPassFailure();
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      auto src = dyn_cast<MemRefType>(op.getSource().getType());
      auto dst = dyn_cast<MemRefType>(op.getTarget().getType());
      if (!src || !dst || src.getRank() == 0)
        return;
      // A dynamic (sequence) shape: contiguous identity layouts are one
      // memcpy already; strided views would call memrefCopy.
      if (!src.hasStaticShape() || !dst.hasStaticShape()) {
        if (src.getLayout().isIdentity() && dst.getLayout().isIdentity())
          return;
        copies.push_back(op);
        return;
      }
      if (memref::isStaticShapeAndContiguousRowMajor(src) &&
          memref::isStaticShapeAndContiguousRowMajor(dst))
        return;
      copies.push_back(op);
    });
    // memref.copy(src, dst) with a strided src or dst
    //   -> linalg.copy ins(src) outs(dst)
    // and, when it moves at least parallelMinBytes outside any parallel loop,
    // with d the outermost dimension of size n > 1:
    //   -> scf.forall (%i) in (n) {
    //        linalg.copy ins(subview(src)[.., %i, ..]) outs(subview(dst)...)
    //      }
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp op : copies) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value src = op.getSource(), dst = op.getTarget();
      auto srcType = cast<MemRefType>(src.getType());
      Type elemType = srcType.getElementType();
      int64_t bytes =
          elemType.isIntOrFloat() && srcType.hasStaticShape()
              ? srcType.getNumElements() *
                    llvm::divideCeil(elemType.getIntOrFloatBitWidth(), 8)
              : 0;
      ArrayRef<int64_t> shape = srcType.getShape();
      const auto *outer =
          llvm::find_if(shape, [](int64_t size) { return size > 1; });
      bool inParallelLoop =
          op->getParentOfType<scf::ForallOp>() ||
          op->getParentOfType<scf::ParallelOp>();
      if (parallelMinBytes <= 0 || bytes < parallelMinBytes ||
          outer == shape.end() || inParallelLoop) {
        linalg::CopyOp::create(rewriter, loc, src, dst);
        rewriter.eraseOp(op);
        continue;
      }
      int64_t dim = outer - shape.begin();
      auto forall = scf::ForallOp::create(
          rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(*outer)},
          ValueRange{}, std::nullopt);
      rewriter.setInsertionPointToStart(forall.getBody());
      Value iv = forall.getInductionVars().front();
      SmallVector<OpFoldResult> offsets(shape.size(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(shape.size(),
                                               rewriter.getIndexAttr(1));
      for (int64_t size : shape)
        sizes.push_back(rewriter.getIndexAttr(size));
      offsets[dim] = iv;
      sizes[dim] = rewriter.getIndexAttr(1);
      Value srcSlice =
          memref::SubViewOp::create(rewriter, loc, src, offsets, sizes, strides);
      Value dstSlice =
          memref::SubViewOp::create(rewriter, loc, dst, offsets, sizes, strides);
      linalg::CopyOp::create(rewriter, loc, srcSlice, dstSlice);
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
