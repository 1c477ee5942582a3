//===- LinalgBuilders.cpp - llm->linalg builders --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The builders declared in LinalgBuilders.h.
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

namespace mlir::llm::detail {

bool isLowPrecisionFloat(Type t) { return isa<Float16Type, BFloat16Type>(t); }

Value extToF32(OpBuilder &b, Location loc, Value v) {
  if (!isLowPrecisionFloat(v.getType()))
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value truncFromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type || !isLowPrecisionFloat(type))
    return v;
  return arith::TruncFOp::create(b, loc, type, v);
}

Value f32Const(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value capAttentionScore(OpBuilder &b, Location loc, Operation *attention,
                        Value s) {
  std::optional<APFloat> cap = cast<AttentionOp>(attention).getSoftcap();
  if (!cap)
    return s;
  Value c = f32Const(b, loc, cap->convertToDouble());
  Value t = math::TanhOp::create(b, loc, arith::DivFOp::create(b, loc, s, c));
  return arith::MulFOp::create(b, loc, t, c);
}

FloatAttr negInfF32(OpBuilder &b) {
  return b.getFloatAttr(b.getF32Type(),
                        APFloat::getInf(APFloat::IEEEsingle(), true));
}

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t p = 1;
  for (int64_t d : shape)
    p *= d;
  return p;
}

Value createFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   TypedAttr value, Value dynamicSize) {
  Value empty =
      dynamicSize
          ? tensor::EmptyOp::create(
                b, loc, shape, value.getType(),
                SmallVector<Value>(llvm::count_if(shape, ShapedType::isDynamic),
                                   dynamicSize))
                .getResult()
          : createEmptyTensor(b, loc, shape, value.getType());
  Value cst = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty})
      .getResult(0);
}

Value createZerosF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                     Value dynamicSize) {
  return createFilled(b, loc, shape, b.getF32FloatAttr(0.0), dynamicSize);
}

AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> iterShape, unsigned numDims) {
  unsigned offset = iterShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, d] : llvm::enumerate(operandShape)) {
    if (d == 1 && iterShape[offset + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + i, ctx));
  }
  return AffineMap::get(numDims, 0, exprs, ctx);
}

SmallVector<bool> reducedDims(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : axes)
    reduced[a < 0 ? a + rank : a] = true;
  return reduced;
}

SmallVector<utils::IteratorType> reductionIterators(ArrayRef<bool> reduced) {
  return llvm::map_to_vector(reduced, [](bool r) {
    return r ? utils::IteratorType::reduction : utils::IteratorType::parallel;
  });
}

AffineMap keptDimsMap(MLIRContext *ctx, ArrayRef<bool> reduced) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                               ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [d, r] : llvm::zip(shape, reduced))
    if (!r)
      kept.push_back(d);
  return kept;
}

Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type outElemTy, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps,
                   ArrayRef<utils::IteratorType> iterators, AffineMap outMap,
                   Value init, ScalarFn fn, bool promote) {
  assert(cast<RankedTensorType>(init.getType()).getShape() == shape &&
         "init must have the result shape");
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outMap);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        // Promote the inputs only: the output argument is either unused
        // (elementwise) or already an f32 accumulator (reductions).
        SmallVector<Value> vals;
        for (auto [i, a] : llvm::enumerate(args))
          vals.push_back(promote && i < inputs.size() ? extToF32(nb, nloc, a)
                                                      : a);
        Value r = fn(nb, nloc, vals);
        if (promote)
          r = truncFromF32(nb, nloc, r, outElemTy);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value wrapAndClampIndex(OpBuilder &b, Location l, Value k, int64_t size) {
  Type it = k.getType();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(it, v));
  };
  Value isNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, c(0));
  k = arith::SelectOp::create(b, l, isNeg,
                              arith::AddIOp::create(b, l, k, c(size)), k);
  return arith::MaxSIOp::create(
      b, l, arith::MinSIOp::create(b, l, k, c(size - 1)), c(0));
}

Value parallelGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange inputs, ArrayRef<AffineMap> maps,
                      ScalarFn fn) {
  SmallVector<AffineMap> all(maps);
  all.push_back(b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  Value init =
      createEmptyTensor(b, loc, type.getShape(), type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{init}, all, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl, fn(nb, nl, args.take_front(inputs.size())));
             })
      .getResult(0);
}

Value buildElementwise(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type outElemTy, ValueRange inputs, ScalarFn fn,
                       bool promote) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(ctx,
                                cast<RankedTensorType>(in.getType()).getShape(),
                                shape, shape.size()));
  SmallVector<utils::IteratorType> iters(shape.size(),
                                         utils::IteratorType::parallel);
  Value init = createEmptyTensor(b, loc, shape, outElemTy);
  return buildGeneric(b, loc, shape, outElemTy, inputs, maps, iters,
                      b.getMultiDimIdentityMap(shape.size()), init, fn,
                      promote);
}

Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<bool> reduced, ValueRange extras, TypedAttr init,
                     ScalarFn fn) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept = keptShape(type.getShape(), reduced);
  AffineMap keptMap = keptDimsMap(ctx, reduced);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(type.getRank())};
  SmallVector<Value> inputs{input};
  for (Value e : extras) {
    maps.push_back(keptMap);
    inputs.push_back(e);
  }
  SmallVector<utils::IteratorType> iters = reductionIterators(reduced);
  Value acc = createFilled(b, loc, kept, init);
  return buildGeneric(b, loc, kept, b.getF32Type(), inputs, maps, iters,
                      keptMap, acc, fn);
}

Value buildSumReduction(OpBuilder &b, Location loc, Value input,
                        ArrayRef<bool> reduced, ValueRange extras,
                        Type outElemTy, ScalarFn term, int64_t divisor,
                        Value runtimeDivisor) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept = keptShape(type.getShape(), reduced);
  AffineMap keptMap = keptDimsMap(ctx, reduced);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(type.getRank())};
  SmallVector<Value> inputs{input};
  for (Value e : extras) {
    maps.push_back(keptMap);
    inputs.push_back(e);
  }
  SmallVector<utils::IteratorType> iters = reductionIterators(reduced);
  Type f64 = b.getF64Type();
  Value acc = createFilled(b, loc, kept, b.getF64FloatAttr(0.0));
  size_t numInputs = inputs.size();
  Value sum = buildGeneric(
      b, loc, kept, f64, inputs, maps, iters, keptMap, acc,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        SmallVector<Value> promoted;
        for (Value v : a.take_front(numInputs))
          promoted.push_back(extToF32(nb, l, v));
        Value t = arith::ExtFOp::create(nb, l, f64, term(nb, l, promoted));
        // reassoc: LLVM may split the sum over vector lanes; reordering
        // f64 additions of f32 terms changes the sum only by f64 rounding,
        // far below the f32 resolution of the result.
        return arith::AddFOp::create(nb, l, a.back(), t,
                                     arith::FastMathFlags::reassoc);
      },
      /*promote=*/false);
  return buildElementwise(
      b, loc, kept, outElemTy, ValueRange{sum},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = a[0];
        if (runtimeDivisor)
          v = arith::DivFOp::create(nb, l, v, runtimeDivisor);
        else if (divisor != 1)
          v = arith::DivFOp::create(
              nb, l, v,
              arith::ConstantOp::create(nb, l,
                                        nb.getF64FloatAttr(double(divisor))));
        // f64 -> f32 -> f16/bf16: LLVM's f64 -> f16 needs a libgcc helper.
        v = arith::TruncFOp::create(nb, l, nb.getF32Type(), v);
        return truncFromF32(nb, l, v, outElemTy);
      },
      /*promote=*/false);
}

Value broadcastTo(OpBuilder &b, Location loc, Value v,
                  ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return buildElementwise(
      b, loc, shape, type.getElementType(), ValueRange{v},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; },
      /*promote=*/false);
}

Value convertTensorFromF32(OpBuilder &b, Location loc, Value v, Type elemTy) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elemTy)
    return v;
  return buildElementwise(
      b, loc, type.getShape(), elemTy, ValueRange{v},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// The reassociation that collapses `shape` (one `?`) into
/// [static sizes before the `?` (when any), ?, static sizes after it (when
/// any)], and that collapsed shape.
static std::pair<SmallVector<ReassociationIndices>, SmallVector<int64_t>>
aroundSequence(ArrayRef<int64_t> shape) {
  int64_t seq = llvm::find_if(shape, ShapedType::isDynamic) - shape.begin();
  int64_t rank = shape.size();
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> collapsed;
  if (seq > 0) {
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, seq)));
    collapsed.push_back(product(shape.take_front(seq)));
  }
  groups.push_back({seq});
  collapsed.push_back(ShapedType::kDynamic);
  if (seq + 1 < rank) {
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(seq + 1, rank)));
    collapsed.push_back(product(shape.drop_front(seq + 1)));
  }
  return {groups, collapsed};
}

Value reshapeTo(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  auto src = cast<RankedTensorType>(v.getType());
  if (src.getShape() == type.getShape())
    return v;
  int64_t srcRank = src.getRank(), dstRank = type.getRank();
  if (!src.hasStaticShape() && !getReassociationIndicesForReshape(src, type)) {
    auto [srcGroups, mid] = aroundSequence(src.getShape());
    auto [dstGroups, dstMid] = aroundSequence(type.getShape());
    auto midType = RankedTensorType::get(mid, src.getElementType());
    Value m = v;
    if (midType != src)
      m = tensor::CollapseShapeOp::create(b, loc, midType, v, srcGroups);
    // The two sides may differ by a unit group around the `?` (no static
    // size before it on one side, a product of 1 on the other):
    // [?, 256] -> [1, ?, 256].
    auto dstMidType = RankedTensorType::get(dstMid, src.getElementType());
    if (dstMidType != midType) {
      std::optional<SmallVector<ReassociationIndices>> re =
          getReassociationIndicesForReshape(midType, dstMidType);
      if (!re)
        return {};
      if (midType.getRank() > dstMidType.getRank())
        m = tensor::CollapseShapeOp::create(b, loc, dstMidType, m, *re);
      else
        m = tensor::ExpandShapeOp::create(b, loc, dstMidType, m, *re);
    }
    if (dstMidType == type)
      return m;
    return tensor::ExpandShapeOp::create(b, loc, type, m, dstGroups);
  }
  if (dstRank == 0) // [1, ..., 1] -> []
    return tensor::CollapseShapeOp::create(b, loc, type, v,
                                           ArrayRef<ReassociationIndices>{});
  if (srcRank == 0) // [] -> [1, ..., 1]
    return tensor::ExpandShapeOp::create(b, loc, type, v,
                                         ArrayRef<ReassociationIndices>{});
  if (srcRank > dstRank) {
    if (auto re = getReassociationIndicesForReshape(src, type))
      return tensor::CollapseShapeOp::create(b, loc, type, v, *re);
  } else if (srcRank < dstRank) {
    if (auto re = getReassociationIndicesForReshape(src, type))
      return tensor::ExpandShapeOp::create(b, loc, type, v, *re);
  }
  // Through 1-D: `[a, b, ...] -> [N] -> [c, d, ...]`.
  int64_t n = product(src.getShape());
  auto flatType = RankedTensorType::get({n}, src.getElementType());
  Value flat = v;
  if (srcRank > 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc, flatType, v,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, srcRank))});
  if (dstRank == 1)
    return flat;
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat,
      ArrayRef<ReassociationIndices>{
          llvm::to_vector(llvm::seq<int64_t>(0, dstRank))});
}

Value convertScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  auto toI = dyn_cast<IntegerType>(to);
  auto fromI = dyn_cast<IntegerType>(from);
  if (fromF && toF) {
    if (fromF.getWidth() == toF.getWidth()) // f16 <-> bf16
      return arith::TruncFOp::create(b, loc, to, extToF32(b, loc, x));
    if (fromF.getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    // f64 -> f16/bf16 through f32 (LLVM's direct f64 -> f16 needs a libgcc
    // helper the JIT does not link): a double rounding, which differs from
    // the direct one only on ties the first rounding creates.
    if (fromF.isF64() && isLowPrecisionFloat(to))
      x = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  if (fromF && toI) {
    if (toI.getWidth() == 1) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    }
    // Saturate in f32 (f64 for an f64 input) first: the bounds are the
    // widest values of that type inside the integer range (2^31-1 is not an
    // f32; rounding toward zero gives 2147483520), so fptosi never sees an
    // out-of-range value; inputs at or above 2^(w-1) are then mapped to the
    // integer maximum.
    Value xf = extToF32(b, loc, x);
    auto ct = cast<FloatType>(xf.getType());
    unsigned w = toI.getWidth();
    APFloat hi(ct.getFloatSemantics()), lo(ct.getFloatSemantics());
    (void)hi.convertFromAPInt(APInt::getSignedMaxValue(w), /*isSigned=*/true,
                              APFloat::rmTowardZero);
    (void)lo.convertFromAPInt(APInt::getSignedMinValue(w), /*isSigned=*/true,
                              APFloat::rmTowardZero);
    Value hiC = arith::ConstantOp::create(b, loc, b.getFloatAttr(ct, hi));
    Value loC = arith::ConstantOp::create(b, loc, b.getFloatAttr(ct, lo));
    Value clamped = arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, xf, loC), hiC);
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, xf, xf);
    Value asInt = arith::FPToSIOp::create(b, loc, to, clamped);
    // Values >= 2^(w-1) (exact in f32 and f64) saturate to the integer
    // maximum, which the clamp above cannot represent.
    APFloat pow2(ct.getFloatSemantics());
    (void)pow2.convertFromAPInt(APInt::getOneBitSet(w + 1, w - 1),
                                /*isSigned=*/false, APFloat::rmTowardZero);
    Value pow2C = arith::ConstantOp::create(b, loc, b.getFloatAttr(ct, pow2));
    Value isBig =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, xf, pow2C);
    Value maxC = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(to, APInt::getSignedMaxValue(w)));
    asInt = arith::SelectOp::create(b, loc, isBig, maxC, asInt);
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, 0));
    return arith::SelectOp::create(b, loc, isNan, zero, asInt);
  }
  if (fromI && toF) {
    if (fromI.getWidth() == 1)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  // Integer to integer.
  if (toI.getWidth() == 1) {
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromI.getWidth() == 1)
    return arith::ExtUIOp::create(b, loc, to, x);
  if (fromI.getWidth() < toI.getWidth())
    return arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

bool hasStaticShapes(Operation *op) {
  auto isStatic = [](Type t) {
    auto st = dyn_cast<ShapedType>(t);
    return !st || st.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

bool isStaticDim(int64_t d) { return !ShapedType::isDynamic(d); }

bool allStatic(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, isStaticDim);
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + (isStaticDim(d) ? std::to_string(d) : "?");
  return s;
}

} // namespace mlir::llm::detail
