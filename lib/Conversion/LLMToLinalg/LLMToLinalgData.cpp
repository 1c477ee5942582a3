//===- LLMToLinalgData.cpp - llm runtime-data ops to linalg ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lowering of `llm.compare`, the logical ops,
// `llm.select`, `llm.gather`, `llm.reverse`, `llm.log_softmax`,
// `llm.argmax`/`llm.argmin` and `llm.reduce_min`/`llm.reduce_prod` to
// `linalg.generic` on tensors (part of `convert-llm-to-linalg`). Every
// pattern requires static shapes, like the rest of the conversion.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::detail;

namespace {

/// Elementwise generic over the broadcast of `inputs` to `type`'s shape.
Value broadcastingGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                          ValueRange inputs, ScalarFn fn) {
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(b.getContext(), tensorTypeOf(in).getShape(),
                                type.getShape(), type.getRank()));
  return parallelGeneric(b, loc, type, inputs, maps, fn);
}

//===----------------------------------------------------------------------===//
// Comparisons, logical ops, select
//===----------------------------------------------------------------------===//

// llm.compare <p>, %a, %b -> linalg.generic (broadcasting maps)
//   { arith.cmpf <ordered p, une for ne> | arith.cmpi <signed p> }
struct CompareLowering : LLMLowering<CompareOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(CompareOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    ComparePredicate p = op.getPredicate();
    Value r = broadcastingGeneric(
        rewriter, op.getLoc(), op.getType(),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if (isa<FloatType>(a[0].getType())) {
            arith::CmpFPredicate fp;
            switch (p) {
            case ComparePredicate::EQ: fp = arith::CmpFPredicate::OEQ; break;
            case ComparePredicate::NE: fp = arith::CmpFPredicate::UNE; break;
            case ComparePredicate::LT: fp = arith::CmpFPredicate::OLT; break;
            case ComparePredicate::LE: fp = arith::CmpFPredicate::OLE; break;
            case ComparePredicate::GT: fp = arith::CmpFPredicate::OGT; break;
            case ComparePredicate::GE: fp = arith::CmpFPredicate::OGE; break;
            }
            return arith::CmpFOp::create(b, l, fp, a[0], a[1]);
          }
          arith::CmpIPredicate ip;
          switch (p) {
          case ComparePredicate::EQ: ip = arith::CmpIPredicate::eq; break;
          case ComparePredicate::NE: ip = arith::CmpIPredicate::ne; break;
          case ComparePredicate::LT: ip = arith::CmpIPredicate::slt; break;
          case ComparePredicate::LE: ip = arith::CmpIPredicate::sle; break;
          case ComparePredicate::GT: ip = arith::CmpIPredicate::sgt; break;
          case ComparePredicate::GE: ip = arith::CmpIPredicate::sge; break;
          }
          return arith::CmpIOp::create(b, l, ip, a[0], a[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.logical_{and,or,xor} %a, %b -> linalg.generic { arith.andi|ori|xori }
template <typename OpTy>
struct LogicalLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value r = broadcastingGeneric(
        rewriter, op.getLoc(), op.getType(),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if constexpr (std::is_same_v<OpTy, LogicalAndOp>)
            return arith::AndIOp::create(b, l, a[0], a[1]);
          else if constexpr (std::is_same_v<OpTy, LogicalOrOp>)
            return arith::OrIOp::create(b, l, a[0], a[1]);
          else
            return arith::XOrIOp::create(b, l, a[0], a[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.logical_not %a -> linalg.generic { arith.xori %a, true }
struct LogicalNotLowering : LLMLowering<LogicalNotOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(LogicalNotOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value r = broadcastingGeneric(
        rewriter, op.getLoc(), op.getType(), ValueRange{adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value one = arith::ConstantOp::create(
              b, l, b.getIntegerAttr(b.getI1Type(), 1));
          return arith::XOrIOp::create(b, l, a[0], one);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.select %c, %x, %y -> linalg.generic (broadcasting maps) { arith.select }
struct SelectLowering : LLMLowering<SelectOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(SelectOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value r = broadcastingGeneric(
        rewriter, op.getLoc(), op.getType(),
        ValueRange{adaptor.getCondition(), adaptor.getTrueValue(),
                   adaptor.getFalseValue()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gather and reverse
//===----------------------------------------------------------------------===//

// llm.gather %x, %idx {axis} -> the run-time range check of %idx
// (emitIndexRangeCheck), then linalg.generic over the result shape reading
//   %idx through the result dims [axis, axis + rank(idx)):
//   { k = idx < 0 ? idx + N : idx, clamped to [0, N-1];
//     tensor.extract %x[d_0 .. d_{axis-1}, k, d_{axis+rank(idx)} ..] }
struct GatherLowering : LLMLowering<GatherOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(GatherOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    RankedTensorType inType = tensorTypeOf(input), type = op.getType();
    int64_t inRank = inType.getRank(), rank = type.getRank();
    int64_t idxRank = tensorTypeOf(indices).getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + inRank : op.getAxis();
    int64_t size = inType.getDimSize(axis);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    emitIndexRangeCheck(rewriter, op, indices, size);
    Value r = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{indices},
        {AffineMap::get(rank, 0, idxExprs, ctx)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value k = wrapAndClampIndex(b, l, a[0], size);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(
              arith::IndexCastOp::create(b, l, b.getIndexType(), k));
          for (int64_t d = axis + 1; d < inRank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d + idxRank - 1));
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.gather_elements %x, %idx {axis} -> the run-time range check of %idx,
// then linalg.generic over the result (= %idx's) shape:
//   { k = idx < 0 ? idx + N : idx, clamped to [0, N-1];
//     tensor.extract %x[d_0 .. d_{axis-1}, k, d_{axis+1} ..] }
struct GatherElementsLowering : LLMLowering<GatherElementsOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(GatherElementsOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    RankedTensorType inType = tensorTypeOf(input), type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    int64_t size = inType.getDimSize(axis);
    emitIndexRangeCheck(rewriter, op, indices, size);
    Value r = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{indices},
        {AffineMap::getMultiDimIdentityMap(rank, ctx)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value k = wrapAndClampIndex(b, l, a[0], size);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(
                d == axis
                    ? Value(arith::IndexCastOp::create(b, l, b.getIndexType(), k))
                    : Value(linalg::IndexOp::create(b, l, d)));
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.reverse %x {dimensions} -> linalg.generic
//   { tensor.extract %x[.., N_d - 1 - d, ..] } (reversed dims only)
struct ReverseLowering : LLMLowering<ReverseOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ReverseOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    SmallVector<bool> reversed(rank, false);
    for (int64_t d : op.getDimensions())
      reversed[d] = true;
    Value r = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            if (reversed[d]) {
              Value last = arith::ConstantIndexOp::create(
                  b, l, type.getDimSize(d) - 1);
              i = arith::SubIOp::create(b, l, last, i);
            }
            coords.push_back(i);
          }
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions along an axis
//===----------------------------------------------------------------------===//

/// Reduces `input` over `axis` into tensors of the kept shape (the other
/// dimensions in order), one per `inits` entry; `fn` gets (x, accs...) with x
/// as stored and returns the new accumulators.
SmallVector<Value>
reduceAxis(OpBuilder &b, Location loc, Value input, int64_t axis,
           ArrayRef<TypedAttr> inits,
           function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
               fn) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorTypeOf(input);
  int64_t rank = type.getRank();
  SmallVector<bool> reduced = reducedDims({axis}, rank);
  SmallVector<int64_t> kept = keptShape(type.getShape(), reduced);
  AffineMap keptMap = keptDimsMap(ctx, reduced);
  SmallVector<Value> accs;
  SmallVector<Type> types;
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  for (TypedAttr init : inits) {
    Value empty = tensor::EmptyOp::create(b, loc, kept, init.getType());
    Value cst = arith::ConstantOp::create(b, loc, init);
    accs.push_back(
        linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty})
            .getResult(0));
    types.push_back(accs.back().getType());
    maps.push_back(keptMap);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, types, ValueRange{input}, accs, maps, reductionIterators(reduced),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, fn(nb, nl, args));
      });
  return SmallVector<Value>(generic.getResults().begin(),
                            generic.getResults().end());
}

/// Expands `v` (the kept shape) back to `type` (keepdims: a unit dimension
/// at `axis`), or returns it when it already has that type.
Value restoreAxis(OpBuilder &b, Location loc, Value v, RankedTensorType type,
                  int64_t axis) {
  if (v.getType() == type)
    return v;
  int64_t rank = type.getRank();
  if (rank == 1) // [] -> [1]
    return tensor::ExpandShapeOp::create(b, loc, type, v,
                                         ArrayRef<ReassociationIndices>{});
  // Group the unit dimension with its neighbour.
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis)
      continue;
    groups.push_back({d});
  }
  if (axis == 0)
    groups.front().insert(groups.front().begin(), 0);
  else
    groups[axis - 1].push_back(axis);
  return tensor::ExpandShapeOp::create(b, loc, type, v, groups);
}

Value toF32(OpBuilder &b, Location l, Value x) {
  if (x.getType().isF32())
    return x;
  return arith::ExtFOp::create(b, l, b.getF32Type(), x);
}

// llm.log_softmax %x {axis} -> m = max-reduce, s = sum-reduce exp(x - m),
//   y = x - m - log(s) (parallel), all in f32.
struct LogSoftmaxLowering : LLMLowering<LogSoftmaxOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(LogSoftmaxOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    auto f32 = rewriter.getF32Type();
    TypedAttr negInf = rewriter.getFloatAttr(
        f32, -std::numeric_limits<float>::infinity());
    Value mx = reduceAxis(rewriter, loc, x, axis, {negInf},
                          [](OpBuilder &b, Location l, ValueRange a) {
                            Value m = arith::MaximumFOp::create(
                                b, l, toF32(b, l, a[0]), a[1]);
                            return SmallVector<Value>{m};
                          })[0];
    // The max row is read alongside x in the sum and in the result.
    SmallVector<bool> reduced = reducedDims({axis}, rank);
    AffineMap keptMap = keptDimsMap(ctx, reduced);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<int64_t> kept(tensorTypeOf(mx).getShape());
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0));
    Value sumEmpty = tensor::EmptyOp::create(rewriter, loc, kept, f32);
    Value sumInit = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                           ValueRange{sumEmpty})
                        .getResult(0);
    SmallVector<utils::IteratorType> iters = reductionIterators(reduced);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{sumInit.getType()}, ValueRange{x, mx},
            ValueRange{sumInit}, {id, keptMap, keptMap}, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value e = math::ExpOp::create(
                  b, l, arith::SubFOp::create(b, l, toF32(b, l, a[0]), a[1]));
              Value acc = arith::AddFOp::create(b, l, a[2], e);
              linalg::YieldOp::create(b, l, acc);
            })
            .getResult(0);
    Type et = type.getElementType();
    Value r = parallelGeneric(
        rewriter, loc, type, ValueRange{x, mx, sum}, {id, keptMap, keptMap},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value y = arith::SubFOp::create(
              b, l, arith::SubFOp::create(b, l, toF32(b, l, a[0]), a[1]),
              math::LogOp::create(b, l, a[2]));
          if (et != y.getType())
            y = arith::TruncFOp::create(b, l, et, y);
          return y;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.argmax/argmin %x {axis, keepdims, select_last_index} ->
//   linalg.generic with two accumulators (best value, its i64 index):
//   take x at index i when x > best (x >= best with select_last_index)
//   [< / <= for argmin], -> expand_shape (keepdims). Floats compare in f32
//   from a NaN start, also taking x when best is NaN and x is not (an
//   all-NaN row gives 0); integers compare signed in their own type from
//   the type's lowest (highest) value, which only an equal x can tie, so
//   that index 0 stands for a row of that value.
template <typename OpTy, bool isMax>
struct ArgReduceLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    int64_t rank = tensorTypeOf(x).getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    bool last = op.getSelectLastIndex();
    auto intType = dyn_cast<IntegerType>(tensorTypeOf(x).getElementType());
    TypedAttr bestInit;
    if (intType) {
      unsigned width = intType.getWidth();
      bestInit = rewriter.getIntegerAttr(
          intType, isMax ? APInt::getSignedMinValue(width)
                         : APInt::getSignedMaxValue(width));
    } else {
      bestInit = rewriter.getFloatAttr(rewriter.getF32Type(),
                                       std::numeric_limits<float>::quiet_NaN());
    }
    TypedAttr zeroIdx = rewriter.getI64IntegerAttr(0);
    SmallVector<Value> res = reduceAxis(
        rewriter, loc, x, axis, {bestInit, zeroIdx},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value best = a[1], bestIdx = a[2];
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value v, take;
          if (intType) {
            v = a[0];
            arith::CmpIPredicate p = isMax ? (last ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sgt)
                                           : (last ? arith::CmpIPredicate::sle
                                                   : arith::CmpIPredicate::slt);
            take = arith::CmpIOp::create(b, l, p, v, best);
          } else {
            v = toF32(b, l, a[0]);
            arith::CmpFPredicate p = isMax ? (last ? arith::CmpFPredicate::OGE
                                                   : arith::CmpFPredicate::OGT)
                                           : (last ? arith::CmpFPredicate::OLE
                                                   : arith::CmpFPredicate::OLT);
            Value better = arith::CmpFOp::create(b, l, p, v, best);
            Value bestNan = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UNO, best, best);
            Value vNum =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, v, v);
            take = arith::OrIOp::create(
                b, l, better, arith::AndIOp::create(b, l, bestNan, vNum));
          }
          Value newBest = arith::SelectOp::create(b, l, take, v, best);
          Value newIdx = arith::SelectOp::create(b, l, take, i, bestIdx);
          return SmallVector<Value>{newBest, newIdx};
        });
    rewriter.replaceOp(op,
                       restoreAxis(rewriter, loc, res[1], op.getType(), axis));
    return success();
  }
};

// llm.reduce_sum / reduce_min / reduce_prod %x {axes} on i8, i32 or i64,
//   and reduce_sum on f64 -> linalg.fill (0 / the type's highest value / 1)
//   + linalg.generic (reduction iterators over the axes) { arith.addi |
//   arith.minsi | arith.muli | arith.addf } in the element type
//   [-> tensor.expand_shape for keepdims]. Integer sums and products wrap
//   modulo 2^bits (ONNX Runtime, numpy). Matched before the float lowerings
//   (benefit 2), which compute f32/f16/bf16 in f32 or f64.
template <typename OpTy>
struct ExactReduceLowering : LLMLowering<OpTy> {
  ExactReduceLowering(MLIRContext *ctx)
      : LLMLowering<OpTy>(ctx, /*benefit=*/2) {}
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  static constexpr bool isSum = std::is_same_v<OpTy, ReduceSumOp>;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type et = type.getElementType();
    auto intType = dyn_cast<IntegerType>(et);
    if (!intType && !(isSum && et.isF64()))
      return rewriter.notifyMatchFailure(op, "computed by the float lowering");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    int64_t rank = tensorTypeOf(input).getRank();
    SmallVector<bool> reduced = reducedDims(op.getAxes(), rank);
    TypedAttr init;
    if (!intType)
      init = rewriter.getFloatAttr(et, 0.0);
    else if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
      init = rewriter.getIntegerAttr(
          et, APInt::getSignedMaxValue(intType.getWidth()));
    else
      init = rewriter.getIntegerAttr(et, isSum ? 0 : 1);
    SmallVector<int64_t> kept =
        keptShape(tensorTypeOf(input).getShape(), reduced);
    Value acc = createFilled(rewriter, loc, kept, init);
    acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{acc.getType()}, ValueRange{input},
            ValueRange{acc},
            {rewriter.getMultiDimIdentityMap(rank), keptDimsMap(ctx, reduced)},
            reductionIterators(reduced),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value r;
              if (!intType)
                r = arith::AddFOp::create(b, l, a[1], a[0]);
              else if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
                r = arith::MinSIOp::create(b, l, a[1], a[0]);
              else if constexpr (isSum)
                r = arith::AddIOp::create(b, l, a[1], a[0]);
              else
                r = arith::MulIOp::create(b, l, a[1], a[0]);
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    if (acc.getType() != type)
      acc = tensor::ExpandShapeOp::create(rewriter, loc, type, acc,
                                          groupsForInsertedDims(reduced));
    rewriter.replaceOp(op, acc);
    return success();
  }
};

// llm.reduce_min / llm.reduce_prod %x {axes} -> linalg.generic (reduction
//   iterators over axes, f32 accumulator: +inf / 1) [-> truncf]
//   [-> tensor.expand_shape for keepdims].
template <typename OpTy, bool isMin>
struct MinProdReduceLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "integers: ExactReduceLowering");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType inType = tensorTypeOf(x);
    int64_t rank = inType.getRank();
    SmallVector<bool> reduced = reducedDims(op.getAxes(), rank);
    SmallVector<int64_t> kept = keptShape(inType.getShape(), reduced);
    auto f32 = rewriter.getF32Type();
    TypedAttr init =
        isMin ? rewriter.getFloatAttr(f32, std::numeric_limits<float>::infinity())
              : rewriter.getFloatAttr(f32, 1.0);
    // (A kept `?` is the sequence length; a reduced one bounds the loop.)
    Value acc = createFilled(rewriter, loc, kept, init);
    Type et = type.getElementType();
    acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{acc.getType()}, ValueRange{x},
            ValueRange{acc},
            {rewriter.getMultiDimIdentityMap(rank), keptDimsMap(ctx, reduced)},
            reductionIterators(reduced),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value v = toF32(b, l, a[0]);
              Value r = isMin ? Value(arith::MinimumFOp::create(b, l, v, a[1]))
                              : Value(arith::MulFOp::create(b, l, v, a[1]));
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    auto keptType = RankedTensorType::get(kept, et);
    if (et != f32)
      acc = parallelGeneric(
          rewriter, loc, keptType, ValueRange{acc},
          {rewriter.getMultiDimIdentityMap(kept.size())},
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::TruncFOp::create(b, l, et, a[0]);
          });
    if (acc.getType() != type) {
      // keepdims: each unit dimension joins the next kept one.
      acc = tensor::ExpandShapeOp::create(rewriter, loc, type, acc,
                                           groupsForInsertedDims(reduced));
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void mlir::llm::populateLLMToLinalgDataPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      CompareLowering, LogicalLowering<LogicalAndOp>,
      LogicalLowering<LogicalOrOp>, LogicalLowering<LogicalXorOp>,
      LogicalNotLowering, SelectLowering, GatherLowering,
      GatherElementsLowering, ReverseLowering, LogSoftmaxLowering,
      ArgReduceLowering<ArgMaxOp, true>, ArgReduceLowering<ArgMinOp, false>,
      MinProdReduceLowering<ReduceMinOp, true>,
      MinProdReduceLowering<ReduceProdOp, false>,
      ExactReduceLowering<ReduceSumOp>, ExactReduceLowering<ReduceMinOp>,
      ExactReduceLowering<ReduceProdOp>>(ctx);
  populateIndexingToLinalgPatterns(patterns);
  populateSequenceOpsToLinalgPatterns(patterns);
}
