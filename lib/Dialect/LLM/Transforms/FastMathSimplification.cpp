//===- FastMathSimplification.cpp - NaN-unsafe llm rewrites ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the algebraic rewrites that assume finite, non-NaN
// values (IEEE gives NaN for `inf * 0`, `NaN * 0`, `inf - inf`, `NaN - NaN`).
// They are not canonicalizations; `llm-fold-constants{fast-math}` applies
// them.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

/// True when `v` is defined by a splat constant equal to zero (either sign).
bool isSplatZero(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return false;
  return attr.getSplatValue<APFloat>().isZero();
}

/// Replaces `op` by a +0 (or integer 0) splat constant of its result type.
void replaceByZero(Operation *op, PatternRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto zero = cast<DenseElementsAttr>(rewriter.getZeroAttr(type));
  rewriter.replaceOpWithNewOp<ConstantOp>(op, type, zero);
}

/// mul(x, 0) -> 0   (of the result type; wrong for x = NaN or inf)
struct MulByZero final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isSplatZero(op.getLhs()) && !isSplatZero(op.getRhs()))
      return rewriter.notifyMatchFailure(op, "no zero operand");
    replaceByZero(op, rewriter);
    return success();
  }
};

/// sub(x, x) -> 0   (of the result type; wrong for x = NaN or inf)
struct SubSelf final : OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLhs() != op.getRhs())
      return rewriter.notifyMatchFailure(op, "operands differ");
    replaceByZero(op, rewriter);
    return success();
  }
};

} // namespace

void mlir::llm::populateFastMathSimplificationPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MulByZero, SubSelf>(patterns.getContext());
  populateConstantReassociationPatterns(patterns);
}
