//===- FoldQuant.cpp - merge quantize/dequantize pairs --------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-fold-quant`: quantize/dequantize pairs that
// exporters scatter around data movement and max-pooling-like selects
// (`llm.max`, `llm.reduce_max`, which then run on the quantized storage) are
// moved until they meet, then
// merged (`quantize(dequantize(q))` -> `q` or one `requantize`), and, only
// under the explicit `remove-fake-quant` option, `dequantize(quantize(x))`
// (fake quantization) is removed.
//
// Runtime quantized tensors may travel as their storage type between
// `quant.scast`s (as the ONNX importer emits them); the storage casts fold
// pairwise (`scast(scast(x)) -> x`, upstream folder) during the rewrite.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>
#include <type_traits>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFOLDQUANTPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// Data-movement ops that commute with an elementwise, per-tensor
/// quantize/dequantize: each result element is one of the operands'
/// elements.
bool isDataMovement(Operation *op) {
  return isa<ReshapeOp, TransposeOp, SliceOp, BroadcastToOp, ConcatOp,
             GatherOp>(op);
}

/// The operands whose elements data-movement `op` moves (all of them, but
/// only the input of a gather: its indices stay as they are).
SmallVector<unsigned> movedOperands(Operation *op) {
  if (isa<GatherOp>(op))
    return {0};
  return llvm::to_vector(llvm::seq<unsigned>(0, op->getNumOperands()));
}

/// True when `v` is an `OpTy` or data movement of one (transitively).
template <typename OpTy>
bool reaches(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto cast = dyn_cast_or_null<quant::StorageCastOp>(def))
    def = cast.getInput().getDefiningOp();
  if (!def)
    return false;
  if (isa<OpTy>(def))
    return true;
  return isDataMovement(def) &&
         llvm::any_of(movedOperands(def), [&](unsigned i) {
           return reaches<OpTy>(def->getOperand(i));
         });
}
bool reachesDequantize(Value v) { return reaches<DequantizeOp>(v); }

/// Clones data-movement `op` with its moved operands replaced by `moved`
/// (in order), with element type `elementType`.
Value cloneDataMovement(PatternRewriter &rewriter, Operation *op,
                        ValueRange moved, Type elementType) {
  Operation *clone = rewriter.clone(*op);
  for (auto [i, v] : llvm::zip_equal(movedOperands(op), moved))
    clone->setOperand(i, v);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  clone->getResult(0).setType(type.clone(elementType));
  return clone->getResult(0);
}

RankedTensorType withElement(Value v, Type elementType) {
  return cast<RankedTensorType>(v.getType()).clone(elementType);
}

// dequantize(scast(M(s0, s1, ...) : storage) : Q) -> M(dequantize(scast(s0) :
// Q), ...) for data movement M and a per-tensor Q; for a gather (which may pick
// a few rows of a large table), only when its input comes from a quantize that
// the dequantize then meets.
struct DequantizeThroughDataMovement : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto cast = op.getInput().getDefiningOp<quant::StorageCastOp>();
    if (!cast)
      return failure();
    Type qt = op.getInput().getType().getElementType();
    if (!isa<quant::UniformQuantizedType>(qt))
      return rewriter.notifyMatchFailure(op, "not per tensor");
    Operation *move = cast.getInput().getDefiningOp();
    if (!move || !isDataMovement(move))
      return failure();
    // llm data movement holds i8 (not i4) storage.
    if (!getElementTypeOrSelf(cast.getInput().getType()).isInteger(8))
      return failure();
    if (isa<GatherOp>(move) && !reaches<QuantizeOp>(move->getOperand(0)))
      return rewriter.notifyMatchFailure(op, "no quantize to meet");
    Type f = op.getType().getElementType();
    SmallVector<Value> deq;
    for (unsigned i : movedOperands(move)) {
      Value o = move->getOperand(i);
      Value q = quant::StorageCastOp::create(rewriter, op.getLoc(),
                                             withElement(o, qt), o);
      deq.push_back(DequantizeOp::create(rewriter, op.getLoc(),
                                         withElement(o, f), q, nullptr));
    }
    rewriter.replaceOp(op, cloneDataMovement(rewriter, move, deq, f));
    return success();
  }
};

// quantize(M(x0, x1, ...)) : Q -> scast(M(scast(quantize(x0) : Q), ...)) when
// some xi is a dequantize (possibly through more data movement), for data
// movement M and a per-tensor Q.
struct QuantizeThroughDataMovement : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto qt =
        dyn_cast<quant::UniformQuantizedType>(op.getType().getElementType());
    if (!qt)
      return rewriter.notifyMatchFailure(op, "not per tensor");
    Operation *move = op.getInput().getDefiningOp();
    if (!move || !isDataMovement(move))
      return failure();
    if (!reachesDequantize(op.getInput()))
      return rewriter.notifyMatchFailure(op, "no dequantize to meet");
    Type storage = qt.getStorageType();
    if (!storage.isInteger(8))
      return rewriter.notifyMatchFailure(op, "llm data movement holds i8");
    SmallVector<Value> bits;
    for (unsigned i : movedOperands(move)) {
      Value o = move->getOperand(i);
      Value q = QuantizeOp::create(rewriter, op.getLoc(), withElement(o, qt), o,
                                   nullptr);
      bits.push_back(quant::StorageCastOp::create(rewriter, op.getLoc(),
                                                  withElement(o, storage), q));
    }
    Value moved = cloneDataMovement(rewriter, move, bits, storage);
    rewriter.replaceOpWithNewOp<quant::StorageCastOp>(op, op.getType(), moved);
    return success();
  }
};

/// True when `t` is a per-tensor or per-axis quantized type (the ones
/// `llm.max`/`llm.reduce_max` order by storage value).
bool isOrderedQuant(Type t) {
  return isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(
      t);
}

// max(dequantize(a), dequantize(b)) -> dequantize(max(a, b)) when a and b
// have the same quantized type (same parameters, per tensor; per axis
// without broadcasting). Exact: quant scales are positive (the quant
// dialect's verifier rejects others), so `(q - z) * s` rounded to f32 is
// non-decreasing in q and the max picks the same element either way.
struct DequantizeThroughMax : OpRewritePattern<MaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxOp op,
                                PatternRewriter &rewriter) const override {
    auto da = op.getLhs().getDefiningOp<DequantizeOp>();
    auto db = op.getRhs().getDefiningOp<DequantizeOp>();
    if (!da || !db || da.getScaleAttr() || db.getScaleAttr())
      return failure();
    Type qt = da.getInput().getType().getElementType();
    if (qt != db.getInput().getType().getElementType())
      return rewriter.notifyMatchFailure(op, "different quantized types");
    if (!isOrderedQuant(qt))
      return rewriter.notifyMatchFailure(op, "not per tensor or per axis");
    if (isa<quant::UniformQuantizedPerAxisType>(qt) &&
        (op.getLhs().getType() != op.getType() ||
         op.getRhs().getType() != op.getType()))
      return rewriter.notifyMatchFailure(op, "per-axis operands broadcast");
    Value max = MaxOp::create(rewriter, op.getLoc(), da.getInput(),
                              db.getInput());
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getType(), max, nullptr);
    return success();
  }
};

// reduce_max(dequantize(q)) -> dequantize(reduce_max(q)) for a per-tensor q,
// or a per-axis q whose quantized dimension is not reduced (its scale is
// then the same along each reduced line). Exact (see DequantizeThroughMax);
// not when a reduced dimension is empty (the float maximum of nothing is
// -inf, no quantized value).
struct DequantizeThroughReduceMax : OpRewritePattern<ReduceMaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMaxOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dq || dq.getScaleAttr())
      return failure();
    auto it = dq.getInput().getType();
    Type qt = it.getElementType();
    if (!isOrderedQuant(qt))
      return rewriter.notifyMatchFailure(op, "not per tensor or per axis");
    int64_t rank = it.getRank();
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : op.getAxes()) {
      int64_t d = a < 0 ? a + rank : a;
      reduced[d] = true;
      if (it.getDimSize(d) == 0)
        return rewriter.notifyMatchFailure(op, "empty reduction");
    }
    if (failed(reducedElementType(qt, reduced, op.getKeepdims())))
      return rewriter.notifyMatchFailure(op, "reduces the quantized axis");
    Value max = ReduceMaxOp::create(rewriter, op.getLoc(), dq.getInput(),
                                    op.getAxes(), op.getKeepdims());
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getType(), max, nullptr);
    return success();
  }
};

// quantize(max(x, y)) : Q -> max(quantize(x) : Q, quantize(y) : Q) and
// quantize(reduce_max(x)) : Q -> reduce_max(quantize(x) : Q) for a
// per-tensor Q, when an operand is a dequantize (possibly through data
// movement) that the new quantize then meets. Exact for non-NaN values:
// quantize (division by a positive scale, round half to even, saturation)
// is non-decreasing, so it commutes with max. A NaN (which the float max
// propagates and quantize sends to the storage minimum, ONNX leaving it
// undefined) is dropped by the moved form.
template <typename OpTy>
struct QuantizeThroughMax : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern<QuantizeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto max = op.getInput().getDefiningOp<OpTy>();
    if (!max || op.getScaleAttr())
      return failure();
    auto qt =
        dyn_cast<quant::UniformQuantizedType>(op.getType().getElementType());
    if (!qt)
      return rewriter.notifyMatchFailure(op, "not per tensor");
    if (!llvm::any_of(max->getOperands(), reachesDequantize))
      return rewriter.notifyMatchFailure(op, "no dequantize to meet");
    if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) {
      auto it = max.getInput().getType();
      for (int64_t a : max.getAxes())
        if (it.getDimSize(a < 0 ? a + it.getRank() : a) == 0)
          return rewriter.notifyMatchFailure(op, "empty reduction");
    }
    SmallVector<Value> quantized;
    for (Value o : max->getOperands())
      quantized.push_back(QuantizeOp::create(rewriter, op.getLoc(),
                                             withElement(o, qt), o, nullptr));
    Operation *clone = rewriter.clone(*max);
    clone->setOperands(quantized);
    clone->getResult(0).setType(op.getType());
    rewriter.replaceOp(op, clone->getResult(0));
    return success();
  }
};

// quantize(dequantize(q)) -> q (same parameters: exact, since (q - z) * s
// rounded to f32 and divided by s rounds back to q - z);
// quantize(dequantize(q)) -> requantize(q) (different parameters).
struct MergeDequantizeQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dq || dq.getScaleAttr() || op.getScaleAttr())
      return failure();
    Value q = dq.getInput();
    if (q.getType() == op.getType()) {
      rewriter.replaceOp(op, q);
      return success();
    }
    // Requantize computes dequantize-then-quantize in f32 only for storage
    // of 8 bits or less (i32 accumulators are rescaled in f64).
    auto in = cast<quant::QuantizedType>(
        cast<RankedTensorType>(q.getType()).getElementType());
    if (in.getStorageTypeIntegralWidth() > 8)
      return rewriter.notifyMatchFailure(op, "wide input storage");
    rewriter.replaceOpWithNewOp<RequantizeOp>(op, op.getType(), q);
    return success();
  }
};

// dequantize(quantize(x)) -> x (removes the rounding: only under the
// explicit remove-fake-quant option).
struct RemoveFakeQuant : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto q = op.getInput().getDefiningOp<QuantizeOp>();
    if (!q || q.getInput().getType() != op.getType() ||
        q.getScaleAttr() != op.getScaleAttr())
      return failure();
    rewriter.replaceOp(op, q.getInput());
    return success();
  }
};

} // namespace

bool mlir::llm::isFoldableWeightDequant(MatmulOp op) {
  auto dq = op.getRhs().getDefiningOp<DequantizeOp>();
  if (!dq || dq.getScaleAttr() || op.getTransposeA() ||
      op.getRhs().getType().getRank() != 2 ||
      op.getLhs().getDefiningOp<DequantizeOp>() ||
      !op.getLhs().getType().getElementType().isF32())
    return false;
  auto wt = cast<RankedTensorType>(dq.getInput().getType());
  FailureOr<QuantParams> p = getQuantParams(wt.getElementType(), wt.getShape());
  int64_t kDim = op.getTransposeB() ? 1 : 0, nDim = 1 - kDim;
  if (failed(p) || !p->expressedType.isF32() || p->storageWidth > 8 ||
      (p->paramShape[nDim] != 1 && p->paramShape[nDim] != wt.getDimSize(nDim)))
    return false;
  // Per axis along K.
  if (auto a =
          dyn_cast<quant::UniformQuantizedPerAxisType>(wt.getElementType()))
    return a.getQuantizedDimension() != kDim;
  return true;
}

namespace {

// matmul(x, dequantize(w)) -> dequant_matmul(x, w) (weight-only: the
// weight is dequantized in the matmul's operand load);
// matmul(x, dequantize(w) {scale}) -> dequant_matmul(x, w) {scale} (FP8 w,
// x possibly an FP8 dequantize too).
struct FuseWeightDequantIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getRhs().getDefiningOp<DequantizeOp>();
    if (dq && dq.getScaleAttr()) {
      if (op.getTransposeA() || op.getRhs().getType().getRank() != 2 ||
          !op.getLhs().getType().getElementType().isF32())
        return rewriter.notifyMatchFailure(op, "FP8 layout not supported");
      rewriter.replaceOpWithNewOp<DequantMatmulOp>(
          op, op.getLhs(), dq.getInput(), op.getTransposeB(),
          dq.getScaleAttr());
      return success();
    }
    if (!isFoldableWeightDequant(op))
      return rewriter.notifyMatchFailure(op, "weight layout not supported");
    rewriter.replaceOpWithNewOp<DequantMatmulOp>(op, op.getLhs(), dq.getInput(),
                                                 op.getTransposeB(),
                                                 /*scale=*/nullptr);
    return success();
  }
};

// matmul(dequantize(a), dequantize(w)) -> dequantize(scast(matmul_integer(a,
// w)) : !quant.uniform<i32:f32, sa * sb>) (W8A8: i8 x i8 -> i32, the rescale
// is the dequantize epilogue; per-axis w along N gives per-axis sa * sb_n).
struct IntegerMatmulFromQDQ : OpRewritePattern<MatmulOp> {
  IntegerMatmulFromQDQ(MLIRContext *ctx)
      : OpRewritePattern<MatmulOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto da = op.getLhs().getDefiningOp<DequantizeOp>();
    auto dw = op.getRhs().getDefiningOp<DequantizeOp>();
    if (!da || !dw || da.getScaleAttr() || dw.getScaleAttr() ||
        op.getTransposeA() || op.getTransposeB() ||
        !op.getType().getElementType().isF32())
      return failure();
    auto qa = dyn_cast<quant::UniformQuantizedType>(
        da.getInput().getType().getElementType());
    Type wt = dw.getInput().getType().getElementType();
    if (!qa)
      return rewriter.notifyMatchFailure(op, "activation not per tensor");
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    int64_t lo = std::numeric_limits<int32_t>::min(),
            hi = std::numeric_limits<int32_t>::max();
    RankedTensorType type = op.getType();
    Type accType;
    if (auto qw = dyn_cast<quant::UniformQuantizedType>(wt)) {
      accType = quant::UniformQuantizedType::get(
          quant::QuantizationFlags::Signed, i32, f32,
          double(float(qa.getScale()) * float(qw.getScale())), 0, lo, hi);
    } else if (auto qw = dyn_cast<quant::UniformQuantizedPerAxisType>(wt)) {
      if (qw.getQuantizedDimension() != dw.getType().getRank() - 1)
        return rewriter.notifyMatchFailure(op, "weight not per column");
      SmallVector<double> scales;
      for (double s : qw.getScales())
        scales.push_back(double(float(qa.getScale()) * float(s)));
      SmallVector<int64_t> zeros(scales.size(), 0);
      accType = quant::UniformQuantizedPerAxisType::get(
          quant::QuantizationFlags::Signed, i32, f32, scales, zeros,
          type.getRank() - 1, lo, hi);
    } else {
      return rewriter.notifyMatchFailure(op, "weight not per tensor/column");
    }
    if (cast<quant::QuantizedType>(qa).getStorageTypeIntegralWidth() > 8 ||
        cast<quant::QuantizedType>(wt).getStorageTypeIntegralWidth() > 8)
      return rewriter.notifyMatchFailure(op, "wide storage");
    auto mm = MatmulIntegerOp::create(rewriter, op.getLoc(), da.getInput(),
                                      dw.getInput());
    Value acc = quant::StorageCastOp::create(
        rewriter, op.getLoc(), mm.getType().clone(accType), mm.getResult());
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, type, acc, nullptr);
    return success();
  }
};

struct LLMFoldQuantPass final
    : mlir::llm::impl::LLMFoldQuantPassBase<LLMFoldQuantPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantFoldingPatterns(patterns, removeFakeQuant);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::llm::populateQuantFoldingPatterns(RewritePatternSet &patterns,
                                             bool removeFakeQuant) {
  patterns.add<DequantizeThroughDataMovement, QuantizeThroughDataMovement,
               MergeDequantizeQuantize, FuseWeightDequantIntoMatmul,
               IntegerMatmulFromQDQ, DequantizeThroughMax,
               DequantizeThroughReduceMax, QuantizeThroughMax<MaxOp>,
               QuantizeThroughMax<ReduceMaxOp>>(patterns.getContext());
  if (removeFakeQuant)
    patterns.add<RemoveFakeQuant>(patterns.getContext());
}
