//===- NormalizationToLinalg.cpp - reductions and norms to linalg ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowering of llm.reduce_sum / reduce_mean / reduce_max, llm.softmax,
// llm.layer_norm and llm.rms_norm to linalg on tensors (reductions into f32
// or f64 accumulators, see LLMToLinalg.cpp for the conventions).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::detail;

Value mlir::llm::detail::buildSoftmax(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<bool> reduced, Type outElemTy,
                                      bool guardMasked) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  Value mx =
      buildReduction(b, loc, x, reduced, {}, negInfF32(b),
                     [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::MaximumFOp::create(nb, l, a[0], a[1]);
                     });
  // Guarded form: `f(x)`, or 0 where x == -inf (exp(-inf - -inf) is NaN).
  auto guard = [guardMasked](OpBuilder &nb, Location l, Value v,
                             Value fx) -> Value {
    if (!guardMasked)
      return fx;
    Value ninf = arith::ConstantOp::create(nb, l, negInfF32(nb));
    Value excluded =
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, v, ninf);
    return arith::SelectOp::create(nb, l, excluded, f32Const(nb, l, 0.0), fx);
  };
  auto expShifted = [](OpBuilder &nb, Location l, Value v, Value m) -> Value {
    return math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, v, m));
  };
  Value sum = buildReduction(
      b, loc, x, reduced, ValueRange{mx}, b.getF32FloatAttr(0.0),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::AddFOp::create(
            nb, l, a[2], guard(nb, l, a[0], expShifted(nb, l, a[0], a[1])));
      });
  int64_t rank = type.getRank();
  AffineMap keptMap = keptDimsMap(ctx, reduced);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value init = createEmptyTensor(b, loc, type.getShape(), outElemTy);
  return buildGeneric(
      b, loc, type.getShape(), outElemTy, ValueRange{x, mx, sum},
      {b.getMultiDimIdentityMap(rank), keptMap, keptMap}, iters,
      b.getMultiDimIdentityMap(rank), init,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return guard(
            nb, l, a[0],
            arith::DivFOp::create(nb, l, expShifted(nb, l, a[0], a[1]), a[2]));
      });
}

namespace {

//===----------------------------------------------------------------------===//
// Reductions, softmax and normalizations
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max };

// llm.reduce_max %x {axes} -> linalg.generic (reduction iterators over axes,
//   f32 accumulator from linalg.fill) [-> generic: round to f16/bf16];
// llm.reduce_sum/mean %x {axes} -> linalg.generic (f64 accumulator) ->
//   generic (divide by the count for mean, round once to the result type);
//   [-> tensor.expand_shape for keepdims]. A reduced `?` (the sequence):
//   the loops run to its run-time length, a mean divides by
//   static count * length (tensor.dim -> f64).
template <typename OpTy, ReduceKind kind>
struct ReduceLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    // f64 and integers: ExactReduceLowering and OrderedReduceMaxLowering.
    if (!et.isF32() && !et.isF16() && !et.isBF16())
      return rewriter.notifyMatchFailure(op, "not f32, f16 or bf16");
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto it = cast<RankedTensorType>(input.getType());
    int64_t rank = it.getRank();
    SmallVector<bool> reduced = reducedDims(op.getAxes(), rank);
    // The element count of a mean: the static reduced sizes times, for each
    // reduced `?`, the run-time sequence length (DimBounds.h: every `?` is
    // that length), then an f64 value.
    int64_t count = 1;
    Value runtimeCount;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d])
        continue;
      if (!it.isDynamicDim(d)) {
        count *= it.getDimSize(d);
        continue;
      }
      if (kind != ReduceKind::Mean)
        continue;
      Value len = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          tensor::DimOp::create(rewriter, loc, input, d));
      len = arith::SIToFPOp::create(rewriter, loc, rewriter.getF64Type(), len);
      runtimeCount =
          runtimeCount ? arith::MulFOp::create(rewriter, loc, runtimeCount, len)
                       : len;
    }
    if (runtimeCount && count != 1)
      runtimeCount = arith::MulFOp::create(
          rewriter, loc, runtimeCount,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF64FloatAttr(double(count))));
    Value acc;
    if (kind == ReduceKind::Max) {
      acc =
          buildReduction(rewriter, loc, input, reduced, {}, negInfF32(rewriter),
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::MaximumFOp::create(b, l, a[0], a[1]);
                         });
      acc = convertTensorFromF32(rewriter, loc, acc, et);
    } else {
      // Sum and mean accumulate in f64 (see buildSumReduction).
      acc = buildSumReduction(
          rewriter, loc, input, reduced, {}, et,
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          kind == ReduceKind::Mean ? count : 1, runtimeCount);
    }
    if (op.getKeepdims() && cast<RankedTensorType>(acc.getType()) != type)
      acc = tensor::ExpandShapeOp::create(rewriter, loc, type, acc,
                                          groupsForInsertedDims(reduced));
    rewriter.replaceOp(op, acc);
    return success();
  }
};

// llm.softmax %x {axis} -> max-reduce generic, sum-of-exp generic, parallel
//   normalize generic (all accumulating in f32).
struct SoftmaxLowering : LLMLowering<SoftmaxOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(SoftmaxOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<bool> reduced(rank, false);
    reduced[axis] = true;
    rewriter.replaceOp(op,
                       buildSoftmax(rewriter, op.getLoc(), adaptor.getInput(),
                                    reduced, type.getElementType(),
                                    /*guardMasked=*/false));
    return success();
  }
};

// llm.layer_norm %x scale %g bias %b {axis, epsilon} ->
//   m = sum(x) / N, v = sum((x - m)^2) / N (reductions over [axis, rank),
//   accumulated in f64), y = (x - m) * rsqrt(v + eps) * g + b (parallel; g, b
//   broadcast).
struct LayerNormLowering : LLMLowering<LayerNormOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(LayerNormOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType type = resultType(op);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<bool> reduced(rank, false);
    for (int64_t d = axis; d < rank; ++d)
      reduced[d] = true;
    int64_t n = product(type.getShape().drop_front(axis));
    double eps = op.getEpsilon().convertToDouble();

    // Mean and biased variance, each summed in f64 and divided by N there.
    Type f32 = rewriter.getF32Type();
    Value mean = buildSumReduction(
        rewriter, loc, x, reduced, {}, f32,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; }, n);
    Value var = buildSumReduction(
        rewriter, loc, x, reduced, ValueRange{mean}, f32,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value c = arith::SubFOp::create(b, l, a[0], a[1]);
          return arith::MulFOp::create(b, l, c, c);
        },
        n);

    AffineMap keptMap = keptDimsMap(ctx, reduced);
    SmallVector<Value> inputs{x, mean, var};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), keptMap,
                                keptMap};
    Value scale = adaptor.getScale(), bias = adaptor.getBias();
    for (Value v : {scale, bias}) {
      if (!v)
        continue;
      inputs.push_back(v);
      maps.push_back(
          broadcastMap(ctx, cast<RankedTensorType>(v.getType()).getShape(),
                       type.getShape(), rank));
    }
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                   type.getElementType());
    Value y = buildGeneric(
        rewriter, loc, type.getShape(), type.getElementType(), inputs, maps,
        iters, rewriter.getMultiDimIdentityMap(rank), init,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value rstd = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, a[2], f32Const(b, l, eps)));
          Value r = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], a[1]), rstd);
          unsigned next = 3;
          if (scale)
            r = arith::MulFOp::create(b, l, r, a[next++]);
          if (bias)
            r = arith::AddFOp::create(b, l, r, a[next++]);
          return r;
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

// llm.rms_norm %x weight %w {epsilon} -> ms = sum(x^2) / D over the last
//   dim (accumulated in f64); y = x * rsqrt(ms + eps) * w (parallel).
struct RmsNormLowering : LLMLowering<RmsNormOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(RmsNormOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType type = resultType(op);
    int64_t rank = type.getRank();
    SmallVector<bool> reduced(rank, false);
    reduced[rank - 1] = true;
    double eps = op.getEpsilon().convertToDouble();
    // Mean square, summed in f64 and divided by D there.
    Value ss = buildSumReduction(
        rewriter, loc, x, reduced, {}, rewriter.getF32Type(),
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::MulFOp::create(b, l, a[0], a[0]);
        },
        type.getDimSize(rank - 1));
    SmallVector<Value> inputs{x, ss};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank),
                                keptDimsMap(ctx, reduced)};
    Value w = adaptor.getWeight();
    if (w) {
      inputs.push_back(w);
      maps.push_back(
          broadcastMap(ctx, cast<RankedTensorType>(w.getType()).getShape(),
                       type.getShape(), rank));
    }
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                   type.getElementType());
    Value y = buildGeneric(
        rewriter, loc, type.getShape(), type.getElementType(), inputs, maps,
        iters, rewriter.getMultiDimIdentityMap(rank), init,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value r = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, a[1], f32Const(b, l, eps)));
          Value out = arith::MulFOp::create(b, l, a[0], r);
          if (w)
            out = arith::MulFOp::create(b, l, out, a[2]);
          return out;
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::llm::detail::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering, LayerNormLowering, RmsNormLowering,
               ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>>(
      patterns.getContext());
}
