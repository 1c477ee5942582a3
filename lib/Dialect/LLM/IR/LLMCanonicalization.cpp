//===- LLMCanonicalization.cpp - llm canonicalization patterns ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the canonicalization patterns of the llm dialect: the
// algebraic simplifications that create new operations (folders, which only
// return existing values, live in LLMFolds.cpp, together with the
// floating-point policy both files follow).
//
// Value-changing rewrites kept here, each within a few ulps of the original:
//  * `pow(x, 0.5) -> sqrt(x)` differs from C `powf` only for x = -0 (powf
//    gives +0, sqrt -0) and x = -inf (powf gives +inf, sqrt NaN);
//  * `x / sqrt(y) -> x * rsqrt(y)` and `1 / sqrt(y) -> rsqrt(y)` round twice
//    instead of once;
//  * merging scalar constants, `(x * c1) * c2 -> x * (c1 * c2)` and
//    `(x + c1) + c2 -> x + (c1 + c2)`, reassociates: the result rounds once
//    less, and may differ when `x * c1` overflows or `x + c1` cancels.
//
//===----------------------------------------------------------------------===//

#include "LLMFoldUtils.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SliceColumns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::llm;
using mlir::llm::detail::getSplatFloat;
using mlir::llm::detail::isSplatFloatValue;

namespace {

//===----------------------------------------------------------------------===//
// Identities that broadcast
//===----------------------------------------------------------------------===//

/// op(x, c) -> broadcast_to(x) when `c` is a splat identity of the binary op
/// (`add`/`sub` 0, `mul`/`div`/`pow` 1) whose shape makes the result larger
/// than `x` (the same-type case is a folder). For commutative ops the identity
/// may also be the left operand.
template <typename OpTy>
struct BroadcastingIdentity final : OpRewritePattern<OpTy> {
  BroadcastingIdentity(MLIRContext *ctx, double identity, bool commutative)
      : OpRewritePattern<OpTy>(ctx), identity(identity),
        commutative(commutative) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value x;
    if (isSplatFloatValue(op.getRhs(), identity))
      x = op.getLhs();
    else if (commutative && isSplatFloatValue(op.getLhs(), identity))
      x = op.getRhs();
    if (!x || x.getType() == op.getType())
      return rewriter.notifyMatchFailure(op, "no broadcasting identity");
    auto xType = cast<RankedTensorType>(x.getType());
    if (!xType.hasStaticShape() || !op.getType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    rewriter.replaceOpWithNewOp<BroadcastToOp>(op, op.getType(), x);
    return success();
  }

  double identity;
  bool commutative;
};

//===----------------------------------------------------------------------===//
// Merging scalar constants
//===----------------------------------------------------------------------===//

/// op(op(x, c1), c2) -> op(x, c1 op c2) for `add` and `mul`, where `c1` and
/// `c2` are splat constants. Not IEEE-exact (x * 1e30 * 1e30 overflows where
/// x * inf does not agree at x = 0; (x + 1e8) - 1e8 cancels differently), so
/// it is not a canonicalization: `populateConstantReassociationPatterns`
/// exposes it for `llm-fold-constants{fast-math}`.
///
/// Original description: `c1` and
/// `c2` are splat constants (of any shapes that broadcast). The merged
/// constant has the broadcast shape of `c1` and `c2`, so the result type is
/// unchanged.
template <typename OpTy>
struct MergeSplatConstants final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  /// Splits `op` into (non-constant operand, splat constant operand).
  static std::optional<std::pair<Value, Value>> split(OpTy op) {
    if (getSplatFloat(op.getRhs()) && !getSplatFloat(op.getLhs()))
      return std::make_pair(op.getLhs(), op.getRhs());
    if (getSplatFloat(op.getLhs()) && !getSplatFloat(op.getRhs()))
      return std::make_pair(op.getRhs(), op.getLhs());
    return std::nullopt;
  }

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto outer = split(op);
    if (!outer)
      return rewriter.notifyMatchFailure(op, "no splat constant operand");
    auto innerOp = outer->first.template getDefiningOp<OpTy>();
    if (!innerOp)
      return rewriter.notifyMatchFailure(op, "operand is not the same op");
    auto inner = split(innerOp);
    if (!inner)
      return rewriter.notifyMatchFailure(op, "inner op has no splat constant");
    Value x = inner->first, c1 = inner->second, c2 = outer->second;
    auto t1 = cast<RankedTensorType>(c1.getType());
    auto t2 = cast<RankedTensorType>(c2.getType());
    auto shape = broadcastShapes(t1.getShape(), t2.getShape());
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "constants do not broadcast");
    APFloat v = *getSplatFloat(c1);
    APFloat v2 = *getSplatFloat(c2);
    if constexpr (std::is_same_v<OpTy, AddOp>)
      v.add(v2, APFloat::rmNearestTiesToEven);
    else
      v.multiply(v2, APFloat::rmNearestTiesToEven);
    auto type = RankedTensorType::get(*shape, t1.getElementType());
    Value merged = ConstantOp::create(rewriter, op.getLoc(), type,
                                      DenseElementsAttr::get(type, v));
    auto newOp = OpTy::create(rewriter, op.getLoc(), x, merged);
    if (newOp.getType() != op.getType()) {
      // Cannot happen for well-typed input (broadcasting is associative);
      // stay safe rather than produce a type mismatch.
      rewriter.eraseOp(newOp);
      return rewriter.notifyMatchFailure(op, "result type would change");
    }
    rewriter.replaceOp(op, newOp.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

/// pow(x, 2) -> mul(x, x)
/// pow(x, 0.5) -> sqrt(x)
/// Only when `x` has the result type (a broadcasting exponent stays).
struct SimplifyPow final : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getLhs();
    if (x.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "exponent broadcasts");
    if (isSplatFloatValue(op.getRhs(), 2.0)) {
      rewriter.replaceOpWithNewOp<MulOp>(op, x, x);
      return success();
    }
    if (isSplatFloatValue(op.getRhs(), 0.5)) {
      rewriter.replaceOpWithNewOp<SqrtOp>(op, x);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "exponent is not 2 or 0.5");
  }
};

//===----------------------------------------------------------------------===//
// Reciprocal square roots
//===----------------------------------------------------------------------===//

/// div(1, sqrt(y)) -> rsqrt(y)   (when y has the result type)
/// div(x, sqrt(y)) -> mul(x, rsqrt(y))
struct DivBySqrt final : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto sqrt = op.getRhs().getDefiningOp<SqrtOp>();
    if (!sqrt)
      return rewriter.notifyMatchFailure(op, "divisor is not a sqrt");
    Value y = sqrt.getInput();
    auto rsqrt = RsqrtOp::create(rewriter, sqrt.getLoc(), y);
    if (isSplatFloatValue(op.getLhs(), 1.0) && y.getType() == op.getType()) {
      rewriter.replaceOp(op, rsqrt.getResult());
      return success();
    }
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), rsqrt.getResult());
    return success();
  }
};

/// reciprocal(sqrt(y)) -> rsqrt(y)
struct ReciprocalOfSqrt final : OpRewritePattern<ReciprocalOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReciprocalOp op,
                                PatternRewriter &rewriter) const override {
    auto sqrt = op.getInput().getDefiningOp<SqrtOp>();
    if (!sqrt)
      return rewriter.notifyMatchFailure(op, "operand is not a sqrt");
    rewriter.replaceOpWithNewOp<RsqrtOp>(op, sqrt.getInput());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// layer_norm(x, scale = 1, bias = b) -> layer_norm(x, bias = b)
/// layer_norm(x, scale = s, bias = 0) -> layer_norm(x, scale = s)
/// The splat operand is dropped in place (its shape only broadcasts to the
/// normalized shape, so the result type does not depend on it).
struct DropTrivialLayerNormAffine final : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    bool dropScale = op.getScale() && isSplatFloatValue(op.getScale(), 1.0);
    bool dropBias = op.getBias() && isSplatFloatValue(op.getBias(), 0.0);
    if (!dropScale && !dropBias)
      return rewriter.notifyMatchFailure(op, "no unit scale or zero bias");
    rewriter.modifyOpInPlace(op, [&] {
      if (dropScale)
        op.getScaleMutable().clear();
      if (dropBias)
        op.getBiasMutable().clear();
    });
    return success();
  }
};

/// rms_norm(x, weight = 1) -> rms_norm(x)
struct DropUnitRmsNormWeight final : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getWeight() || !isSplatFloatValue(op.getWeight(), 1.0))
      return rewriter.notifyMatchFailure(op, "no unit weight");
    rewriter.modifyOpInPlace(op, [&] { op.getWeightMutable().clear(); });
    return success();
  }
};

// attention(transpose(q, P), transpose(k, P), transpose(v, P)) {bhsd}
//   -> transpose(attention(q, k, v) {bshd}, P),   P = [0, 2, 1, 3]
// The head split of a [B, S, H, D] projection is absorbed into attention's
// operand layout; the result transpose composes with the head merge that
// usually follows (transpose(transpose(x, P), P) folds to x).
struct AbsorbAttentionHeadTransposes final : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLayout() != AttentionLayout::BHSD)
      return rewriter.notifyMatchFailure(op, "not in layout bhsd");
    static constexpr int64_t kSwap[] = {0, 2, 1, 3};
    SmallVector<Value, 3> operands;
    for (Value operand : {op.getQuery(), op.getKey(), op.getValue()}) {
      auto t = operand.getDefiningOp<TransposeOp>();
      if (!t || t.getPermutation() != ArrayRef<int64_t>(kSwap))
        return rewriter.notifyMatchFailure(
            op, "query, key and value are not all head-split transposes");
      operands.push_back(t.getInput());
    }
    auto type = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[1], shape[2]);
    auto bshdType = RankedTensorType::get(shape, type.getElementType());
    // The mask is in score order and kv_length a scalar: both unchanged.
    auto attention = AttentionOp::create(
        rewriter, op.getLoc(), bshdType, operands[0], operands[1], operands[2],
        op.getMask(), op.getKvLength(), op.getCausalAttr(), op.getScaleAttr(),
        AttentionLayoutAttr::get(op.getContext(), AttentionLayout::BSHD),
        op.getExcludedScoreAttr(), op.getSoftcapAttr());
    // Discardable attributes (a lowering configuration) carry over.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      attention->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, type, attention.getResult(), rewriter.getDenseI64ArrayAttr(kSwap));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Rotary position embedding
//===----------------------------------------------------------------------===//

/// True when `slice` takes the last-dimension columns [lo, hi) of every row
/// of `x` (getSlicedColumns).
static bool takesColumns(SliceOp slice, Value x, int64_t lo, int64_t hi) {
  return slice && slice.getInput() == x &&
         getSlicedColumns(slice) == std::make_pair(lo, hi);
}

/// concat(rope(x[..., :R]), x[..., R:], axis = -1) -> rope(x) {rotary_dims = R}
/// Partial rotary as Hugging Face writes it (GPT-NeoX, Phi, StableLM): the
/// rotated and the passed columns of one tensor, joined again. The inner
/// rope's own rotary_dims (a partial rotation of the slice) carries over.
/// The rope must have no other user (it would be computed twice).
struct FusePartialRope final : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    if (op.getInputs().size() != 2 ||
        (op.getAxis() != rank - 1 && op.getAxis() != -1))
      return rewriter.notifyMatchFailure(op, "not two inputs on the last axis");
    auto rope = op.getInputs()[0].getDefiningOp<RopeOp>();
    if (!rope || !rope->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a single-use rope first");
    auto rotated = rope.getInput().getDefiningOp<SliceOp>();
    auto passed = op.getInputs()[1].getDefiningOp<SliceOp>();
    if (!rotated || !passed)
      return rewriter.notifyMatchFailure(op, "not two slices");
    Value x = rotated.getInput();
    int64_t r = rope.getType().getShape().back();
    int64_t d = type.getShape().back();
    if (x.getType() != type || ShapedType::isDynamic(d) ||
        !takesColumns(rotated, x, 0, r) || !takesColumns(passed, x, r, d))
      return rewriter.notifyMatchFailure(op, "not the columns of one tensor");
    rewriter.replaceOpWithNewOp<RopeOp>(
        op, type, x, rope.getPositions(), rope.getModeAttr(),
        rope.getThetaAttr(), rewriter.getI64IntegerAttr(rope.getRotatedDims()));
    return success();
  }
};

/// rope(x) {rotary_dims = D} -> rope(x), D the last dimension (the whole
/// head rotates: the attribute is left out).
struct DropFullRotaryDims final : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getRotaryDims() || op.isPartial())
      return rewriter.notifyMatchFailure(op, "no rotary_dims, or partial");
    rewriter.modifyOpInPlace(op, [&] { op.removeRotaryDimsAttr(); });
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<BroadcastingIdentity<AddOp>>(context, 0.0, /*commutative=*/true);
}

void SubOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<BroadcastingIdentity<SubOp>>(context, 0.0,
                                           /*commutative=*/false);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<BroadcastingIdentity<MulOp>>(context, 1.0, /*commutative=*/true);
}

void DivOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<BroadcastingIdentity<DivOp>>(context, 1.0,
                                           /*commutative=*/false);
  results.add<DivBySqrt>(context);
}

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<BroadcastingIdentity<PowOp>>(context, 1.0,
                                           /*commutative=*/false);
  results.add<SimplifyPow>(context);
}

void ReciprocalOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ReciprocalOfSqrt>(context);
}

void LayerNormOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<DropTrivialLayerNormAffine>(context);
}

void RmsNormOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<DropUnitRmsNormWeight>(context);
}

void ConcatOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FusePartialRope>(context);
}

void RopeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<DropFullRotaryDims>(context);
}

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<AbsorbAttentionHeadTransposes>(context);
}

void mlir::llm::populateConstantReassociationPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MergeSplatConstants<AddOp>, MergeSplatConstants<MulOp>>(
      patterns.getContext());
}
