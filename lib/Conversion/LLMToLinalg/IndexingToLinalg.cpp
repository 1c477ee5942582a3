//===- IndexingToLinalg.cpp - gather_nd, scatters, topk, ... to linalg ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lowering of the ops of LLMIndexingOps.td
// (`llm.gather_nd`, `llm.scatter_nd`, `llm.scatter_elements`, `llm.topk`,
// `llm.dynamic_quantize`), of the inverse trigonometric ops
// (`llm.acos`/`asin`/`atan`) and of the f64 `llm.reduce_sum` (part of
// `convert-llm-to-linalg`). Gathers are `linalg.generic`s; scatters and
// top-k, whose elements depend on earlier ones, are `scf.for` nests on
// tensors. Indices are checked at run time with `emitIndexRangeCheck`, as
// for `llm.gather`. Every pattern requires static shapes.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::llm;
using mlir::llm::detail::extToF32;
using mlir::llm::detail::indexConst;
using mlir::llm::detail::isLowPrecisionFloat;
using mlir::llm::detail::parallelGeneric;
using mlir::llm::detail::StaticLowering;
using mlir::llm::detail::tensorTypeOf;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value truncTo(OpBuilder &b, Location l, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return arith::TruncFOp::create(b, l, type, v);
}

/// wrapAndClampIndex(k, size) as an `index`.
Value wrapClampToIndex(OpBuilder &b, Location l, Value k, int64_t size) {
  return arith::IndexCastOp::create(
      b, l, b.getIndexType(), llm::detail::wrapAndClampIndex(b, l, k, size));
}

/// Component `j` of the last dimension of `indices` (shape [..., m]) as a
/// tensor of shape [..., 1], for its range check.
Value indexComponent(OpBuilder &b, Location l, Value indices, int64_t j) {
  RankedTensorType type = tensorTypeOf(indices);
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      strides(rank, b.getIndexAttr(1)), sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(d == rank - 1 ? 1 : type.getDimSize(d)));
  offsets.back() = b.getIndexAttr(j);
  return tensor::ExtractSliceOp::create(b, l, indices, offsets, sizes, strides);
}

/// combine(cur, update) of a scatter with `reduction` (not None): floats in
/// f32 for f16/bf16, integers signed and wrapping.
Value combine(OpBuilder &b, Location l, ScatterReduction reduction, Value cur,
              Value update) {
  Type et = cur.getType();
  if (isa<FloatType>(et)) {
    Value x = extToF32(b, l, cur), y = extToF32(b, l, update), r;
    switch (reduction) {
    case ScatterReduction::Add:
      r = arith::AddFOp::create(b, l, x, y);
      break;
    case ScatterReduction::Mul:
      r = arith::MulFOp::create(b, l, x, y);
      break;
    case ScatterReduction::Max:
      r = arith::MaximumFOp::create(b, l, x, y);
      break;
    case ScatterReduction::Min:
      r = arith::MinimumFOp::create(b, l, x, y);
      break;
    case ScatterReduction::None:
      return update;
    }
    return truncTo(b, l, r, et);
  }
  switch (reduction) {
  case ScatterReduction::Add:
    return arith::AddIOp::create(b, l, cur, update);
  case ScatterReduction::Mul:
    return arith::MulIOp::create(b, l, cur, update);
  case ScatterReduction::Max:
    return arith::MaxSIOp::create(b, l, cur, update);
  case ScatterReduction::Min:
    return arith::MinSIOp::create(b, l, cur, update);
  case ScatterReduction::None:
    break;
  }
  return update;
}

/// Loops over every index tuple of `shape` (row-major), threading `init`
/// through; `body` gets the induction variables and the current tensors and
/// returns the next ones. Returns the final tensors.
SmallVector<Value>
loopOver(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ValueRange init,
         function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                         ValueRange)>
             body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : shape) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, d));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, init,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange args) {
        return scf::ValueVector(body(nb, nl, ivs, args));
      });
  return SmallVector<Value>(nest.results);
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

// llm.gather_nd %x, %idx {batch_dims = b} -> one run-time range check per
// index component j (emitIndexRangeCheck of %idx[..., j] against
// x.shape[b + j]), then linalg.generic over the result shape:
//   { k_j = wrap-and-clamp(tensor.extract %idx[d_0 .. d_(q-2), j]);
//     tensor.extract %x[d_0 .. d_(b-1), k_0 .. k_(m-1), d_(q-1) ..] }
struct GatherNDLowering : StaticLowering<GatherNDOp> {
  using StaticLowering::StaticLowering;
  LogicalResult lower(GatherNDOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    RankedTensorType inType = tensorTypeOf(input), type = op.getType();
    int64_t q = tensorTypeOf(indices).getRank(), r = inType.getRank();
    int64_t b = static_cast<int64_t>(op.getBatchDims());
    int64_t m = tensorTypeOf(indices).getShape().back();
    for (int64_t j = 0; j < m; ++j)
      emitIndexRangeCheck(rewriter, op,
                          indexComponent(rewriter, loc, indices, j),
                          inType.getDimSize(b + j));
    Value result = parallelGeneric(
        rewriter, loc, type, ValueRange{}, {},
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          SmallVector<Value> idxCoords;
          for (int64_t d = 0; d < q - 1; ++d)
            idxCoords.push_back(linalg::IndexOp::create(nb, l, d));
          SmallVector<Value> coords;
          for (int64_t d = 0; d < b; ++d)
            coords.push_back(linalg::IndexOp::create(nb, l, d));
          for (int64_t j = 0; j < m; ++j) {
            SmallVector<Value> at(idxCoords);
            at.push_back(indexConst(nb, l, j));
            Value k = tensor::ExtractOp::create(nb, l, indices, at);
            coords.push_back(
                wrapClampToIndex(nb, l, k, inType.getDimSize(b + j)));
          }
          for (int64_t d = b + m; d < r; ++d)
            coords.push_back(linalg::IndexOp::create(nb, l, q - 1 + d - b - m));
          return tensor::ExtractOp::create(nb, l, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// llm.scatter_nd %x, %idx, %u {reduction} -> the run-time range checks of
// each index component, then an scf.for nest over %u's shape [U.., R..]
// carrying the result (initially %x):
//   { k_j = wrap-and-clamp(%idx[U.., j]);
//     out[k_0 .. k_(m-1), R..] = combine(out[same], %u[U.., R..]) }
struct ScatterNDLowering : StaticLowering<ScatterNDOp> {
  using StaticLowering::StaticLowering;
  LogicalResult lower(ScatterNDOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    RankedTensorType inType = tensorTypeOf(input);
    int64_t q = tensorTypeOf(indices).getRank();
    int64_t m = tensorTypeOf(indices).getShape().back();
    ScatterReduction reduction = op.getReduction();
    for (int64_t j = 0; j < m; ++j)
      emitIndexRangeCheck(rewriter, op,
                          indexComponent(rewriter, loc, indices, j),
                          inType.getDimSize(j));
    SmallVector<Value> out = loopOver(
        rewriter, loc, tensorTypeOf(updates).getShape(), ValueRange{input},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> SmallVector<Value> {
          SmallVector<Value> coords;
          for (int64_t j = 0; j < m; ++j) {
            SmallVector<Value> at(ivs.take_front(q - 1));
            at.push_back(indexConst(b, l, j));
            Value k = tensor::ExtractOp::create(b, l, indices, at);
            coords.push_back(wrapClampToIndex(b, l, k, inType.getDimSize(j)));
          }
          llvm::append_range(coords, ivs.drop_front(q - 1));
          Value u = tensor::ExtractOp::create(b, l, updates, ivs);
          if (reduction != ScatterReduction::None)
            u = combine(b, l, reduction,
                        tensor::ExtractOp::create(b, l, args[0], coords), u);
          return {tensor::InsertOp::create(b, l, u, args[0], coords)};
        });
    rewriter.replaceOp(op, out[0]);
    return success();
  }
};

// llm.scatter_elements %x, %idx, %u {axis, reduction} -> the run-time range
// check of %idx, then an scf.for nest over %u's shape carrying the result
// (initially %x):
//   { k = wrap-and-clamp(%idx[i..]);
//     out[i_0 .. k (at axis) .. i_(r-1)] = combine(out[same], %u[i..]) }
struct ScatterElementsLowering : StaticLowering<ScatterElementsOp> {
  using StaticLowering::StaticLowering;
  LogicalResult lower(ScatterElementsOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    RankedTensorType inType = tensorTypeOf(input);
    int64_t rank = inType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    int64_t size = inType.getDimSize(axis);
    ScatterReduction reduction = op.getReduction();
    emitIndexRangeCheck(rewriter, op, indices, size);
    SmallVector<Value> out = loopOver(
        rewriter, loc, tensorTypeOf(updates).getShape(), ValueRange{input},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> SmallVector<Value> {
          SmallVector<Value> coords(ivs);
          coords[axis] = wrapClampToIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ivs), size);
          Value u = tensor::ExtractOp::create(b, l, updates, ivs);
          if (reduction != ScatterReduction::None)
            u = combine(b, l, reduction,
                        tensor::ExtractOp::create(b, l, args[0], coords), u);
          return {tensor::InsertOp::create(b, l, u, args[0], coords)};
        });
    rewriter.replaceOp(op, out[0]);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Top-k
//===----------------------------------------------------------------------===//

/// Whether `a` comes before `b` in top-k order: larger first (smaller first
/// when !largest), NaN counting as the largest value.
Value precedes(OpBuilder &b, Location l, Value x, Value y, bool largest) {
  if (isa<IntegerType>(x.getType()))
    return arith::CmpIOp::create(
        b, l, largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        x, y);
  Value xNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  Value yNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, y, y);
  Value ordered = arith::CmpFOp::create(
      b, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x,
      y);
  // largest: x is NaN and y is not; smallest: y is NaN and x is not.
  Value nanFirst =
      largest ? arith::AndIOp::create(
                    b, l, xNan,
                    arith::XOrIOp::create(
                        b, l, yNan, arith::ConstantIntOp::create(b, l, 1, 1)))
              : arith::AndIOp::create(
                    b, l, yNan,
                    arith::XOrIOp::create(
                        b, l, xNan, arith::ConstantIntOp::create(b, l, 1, 1)));
  return arith::OrIOp::create(b, l, ordered, nanFirst);
}

/// Whether `x` and `y` tie in top-k order (equal, or both NaN).
Value ties(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<IntegerType>(x.getType()))
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, y);
  Value eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x, y);
  Value bothNan = arith::AndIOp::create(
      b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x),
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, y, y));
  return arith::OrIOp::create(b, l, eq, bothNan);
}

// llm.topk %x {k, axis, largest} -> an scf.for nest over every row (the
// result shape with 1 at axis) carrying (values, indices), in which
//   scf.for j in [0, k) carrying the previous pick (pv, pi = -1 at first):
//     scf.for i in [0, n) carrying the best candidate (bv, bi = -1):
//       candidate: pi = -1, or (pv, pi) precedes (x_i, i) in the order
//         (value order, NaN largest; ties: lower index first);
//       take it when bi = -1 or x_i precedes bv (a tie keeps the lower bi)
//     values[.., j, ..] = bv, indices[.., j, ..] = bi; (pv, pi) = (bv, bi)
struct TopKLowering : StaticLowering<TopKOp> {
  using StaticLowering::StaticLowering;
  LogicalResult lower(TopKOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType inType = tensorTypeOf(input);
    RankedTensorType valuesType = op.getValues().getType();
    RankedTensorType indicesType = op.getIndices().getType();
    int64_t rank = inType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    int64_t n = inType.getDimSize(axis);
    int64_t k = static_cast<int64_t>(op.getK());
    bool largest = op.getLargest();
    Type et = inType.getElementType();
    Type i64 = rewriter.getI64Type();
    Value values =
        tensor::EmptyOp::create(rewriter, loc, valuesType.getShape(), et);
    Value indices =
        tensor::EmptyOp::create(rewriter, loc, indicesType.getShape(), i64);
    SmallVector<int64_t> rows(inType.getShape());
    rows[axis] = 1;
    Value zeroValue =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(et));
    Value minusOne = arith::ConstantIntOp::create(rewriter, loc, -1, 64);
    SmallVector<Value> out = loopOver(
        rewriter, loc, rows, ValueRange{values, indices},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> SmallVector<Value> {
          auto at = [&](Value i) {
            SmallVector<Value> coords(ivs);
            coords[axis] = i;
            return coords;
          };
          auto picks = scf::ForOp::create(
              b, l, indexConst(b, l, 0), indexConst(b, l, k),
              indexConst(b, l, 1),
              ValueRange{args[0], args[1], zeroValue, minusOne},
              [&](OpBuilder &jb, Location jl, Value j, ValueRange jargs) {
                Value pv = extToF32(jb, jl, jargs[2]), pi = jargs[3];
                Value noPrev = arith::CmpIOp::create(
                    jb, jl, arith::CmpIPredicate::eq, pi, minusOne);
                auto scan = scf::ForOp::create(
                    jb, jl, indexConst(jb, jl, 0), indexConst(jb, jl, n),
                    indexConst(jb, jl, 1), ValueRange{zeroValue, minusOne},
                    [&](OpBuilder &ib, Location il, Value i, ValueRange iargs) {
                      Value raw =
                          tensor::ExtractOp::create(ib, il, input, at(i));
                      Value v = extToF32(ib, il, raw);
                      Value i64i = arith::IndexCastOp::create(ib, il, i64, i);
                      // (pv, pi) strictly before (v, i).
                      Value after = arith::OrIOp::create(
                          ib, il, precedes(ib, il, pv, v, largest),
                          arith::AndIOp::create(
                              ib, il, ties(ib, il, pv, v),
                              arith::CmpIOp::create(ib, il,
                                                    arith::CmpIPredicate::sgt,
                                                    i64i, pi)));
                      Value candidate =
                          arith::OrIOp::create(ib, il, noPrev, after);
                      Value bi = iargs[1];
                      Value noBest = arith::CmpIOp::create(
                          ib, il, arith::CmpIPredicate::eq, bi, minusOne);
                      Value better = arith::OrIOp::create(
                          ib, il, noBest,
                          precedes(ib, il, v, extToF32(ib, il, iargs[0]),
                                   largest));
                      Value take =
                          arith::AndIOp::create(ib, il, candidate, better);
                      scf::YieldOp::create(
                          ib, il,
                          ValueRange{
                              arith::SelectOp::create(ib, il, take, raw,
                                                      iargs[0]),
                              arith::SelectOp::create(ib, il, take, i64i, bi)});
                    });
                Value bv = scan.getResult(0), bi = scan.getResult(1);
                Value vals =
                    tensor::InsertOp::create(jb, jl, bv, jargs[0], at(j));
                Value idxs =
                    tensor::InsertOp::create(jb, jl, bi, jargs[1], at(j));
                scf::YieldOp::create(jb, jl, ValueRange{vals, idxs, bv, bi});
              });
          return {picks.getResult(0), picks.getResult(1)};
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Dynamic quantization
//===----------------------------------------------------------------------===//

// llm.dynamic_quantize %x -> a linalg.generic reducing %x to
// (min(0, min x), max(0, max x)) (minnumf/maxnumf: NaN ignored), then
//   scale = (max - min) / 255, zp = sat(roundeven(0 - min / scale)),
//   q = sat(roundeven(x / scale) + zp) (linalg.generic),
// with sat(v) = minnumf(maxnumf(v, 0), 255) (NaN -> 0) and the results
// converted with fptoui to i8 (uint8 bits).
struct DynamicQuantizeLowering : StaticLowering<DynamicQuantizeOp> {
  using StaticLowering::StaticLowering;
  LogicalResult lower(DynamicQuantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType type = tensorTypeOf(x);
    int64_t rank = type.getRank();
    Type f32 = rewriter.getF32Type(), i8 = rewriter.getI8Type();
    auto f = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
    };
    auto scalarType = RankedTensorType::get({}, f32);
    auto zeroScalar = [&]() -> Value {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{}, f32);
      return linalg::FillOp::create(rewriter, loc, f(rewriter, loc, 0.0), empty)
          .getResult(0);
    };
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, {}, ctx),
                                   AffineMap::get(rank, 0, {}, ctx)};
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::reduction);
    auto minMax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalarType, scalarType}, ValueRange{x},
        ValueRange{zeroScalar(), zeroScalar()}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::MinNumFOp::create(b, l, a[0], a[1]),
                         arith::MaxNumFOp::create(b, l, a[0], a[2])});
        });
    Value lo = tensor::ExtractOp::create(rewriter, loc, minMax.getResult(0),
                                         ValueRange{});
    Value hi = tensor::ExtractOp::create(rewriter, loc, minMax.getResult(1),
                                         ValueRange{});
    auto saturate = [&](OpBuilder &b, Location l, Value v) -> Value {
      v = arith::MaxNumFOp::create(b, l, v, f(b, l, 0.0));
      return arith::MinNumFOp::create(b, l, v, f(b, l, 255.0));
    };
    Value scale = arith::DivFOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, hi, lo),
        f(rewriter, loc, 255.0));
    Value zp =
        saturate(rewriter, loc,
                 math::RoundEvenOp::create(
                     rewriter, loc,
                     arith::SubFOp::create(
                         rewriter, loc, f(rewriter, loc, 0.0),
                         arith::DivFOp::create(rewriter, loc, lo, scale))));
    Value q = parallelGeneric(
        rewriter, loc, op.getResult().getType(), ValueRange{x},
        {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, a[0], scale));
          v = saturate(b, l, arith::AddFOp::create(b, l, v, zp));
          return arith::FPToUIOp::create(b, l, i8, v);
        });
    Value scaleTensor = tensor::FromElementsOp::create(
        rewriter, loc, scalarType, ValueRange{scale});
    Value zpTensor = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, i8),
        ValueRange{arith::FPToUIOp::create(rewriter, loc, i8, zp)});
    rewriter.replaceOp(op, ValueRange{q, scaleTensor, zpTensor});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Inverse trigonometric functions, f64 sums
//===----------------------------------------------------------------------===//

// llm.acos / asin / atan %x -> linalg.generic { math.acos / asin / atan }
// (f16/bf16 computed in f32).
template <typename OpTy, typename MathOp>
struct InverseTrigLowering : StaticLowering<OpTy> {
  using StaticLowering<OpTy>::StaticLowering;
  using OpAdaptor = typename StaticLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value r = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{adaptor.getInput()},
        {rewriter.getMultiDimIdentityMap(type.getRank())},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = MathOp::create(b, l, extToF32(b, l, a[0]));
          return truncTo(b, l, v, type.getElementType());
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::llm::populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GatherNDLowering, ScatterNDLowering, ScatterElementsLowering,
               TopKLowering, DynamicQuantizeLowering,
               InverseTrigLowering<AcosOp, math::AcosOp>,
               InverseTrigLowering<AsinOp, math::AsinOp>,
               InverseTrigLowering<AtanOp, math::AtanOp>>(ctx);
}
