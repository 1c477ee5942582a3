//===- LLMToLinalg.cpp - lower llm to linalg on tensors -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the conversion of the llm dialect to linalg, tensor,
// arith and math on tensors.
//
// Conventions shared by all patterns:
// * shapes are static, except the sequence dimension of a function whose
//   arguments declare `llm.dim_bounds` (DimBounds.h): a `?` dimension is the
//   sequence length, `tensor.empty` gets it from `tensor.dim` of the bounded
//   argument, and the ops that cannot take it (checkDynamicShapes) are
//   reported before converting;
// * elementwise work is an all-parallel `linalg.generic` whose output map is
//   the identity and whose input maps broadcast with numpy rules (missing
//   leading dimensions are dropped, a size-1 dimension that broadcasts maps to
//   the constant 0), so `linalg-fuse-elementwise-ops` can fuse chains of them;
// * f16/bf16 values are extended to f32 inside the bodies and rounded back
//   when stored; reductions accumulate into f32 tensors.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"
#include "SparseMatmul.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir {
#define GEN_PASS_DEF_CONVERTLLMTOLINALGPASS
#include "llm/Conversion/Passes.h.inc"
} // namespace mlir

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// Computes the scalar result of a generic body from its (promoted) inputs.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

bool isLowPrecisionFloat(Type t) { return isa<Float16Type, BFloat16Type>(t); }

/// Extends an f16/bf16 scalar to f32; other values are returned unchanged.
Value extToF32(OpBuilder &b, Location loc, Value v) {
  if (!isLowPrecisionFloat(v.getType()))
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

/// Rounds an f32 scalar to `type` when `type` is f16/bf16.
Value truncFromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type || !isLowPrecisionFloat(type))
    return v;
  return arith::TruncFOp::create(b, loc, type, v);
}

Value f32Const(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
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

/// Returns `tensor.empty` of `shape` filled with `value` (`linalg.fill`).
Value createFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   TypedAttr value) {
  Value empty = createEmptyTensor(b, loc, shape, value.getType());
  Value cst = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty})
      .getResult(0);
}

Value createZerosF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return createFilled(b, loc, shape, b.getF32FloatAttr(0.0));
}

/// Numpy-broadcasting map from an iteration space to an operand: the operand's
/// dimensions are aligned with the trailing dimensions of `iterShape` (which
/// spans the first `iterShape.size()` of `numDims` loop dimensions); a size-1
/// operand dimension facing a larger one reads index 0.
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

/// Map from a `reduced.size()`-D iteration space to the dimensions that are
/// not reduced.
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

/// Builds a `linalg.generic` with the given input maps, iterator types and
/// one result of `shape` x `outElemTy` written through `outMap` into `init`
/// (an empty tensor or a filled accumulator). `fn` receives the block
/// arguments (inputs, then the output). With `promote`, f16/bf16 inputs reach
/// `fn` as f32 and an f32 result is rounded to `outElemTy`.
Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type outElemTy, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps,
                   ArrayRef<utils::IteratorType> iterators, AffineMap outMap,
                   Value init, ScalarFn fn, bool promote = true) {
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

/// All-parallel elementwise generic over `shape` whose inputs broadcast to it
/// with numpy rules. `fn` also receives the output's block argument last.
Value buildElementwise(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type outElemTy, ValueRange inputs, ScalarFn fn,
                       bool promote = true) {
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

/// Reduces `input` over the dimensions flagged in `reduced` into an f32
/// tensor of the kept dimensions, starting from `init`. `extras` are tensors
/// of the kept shape read alongside (e.g. the row max for a sum of exps).
/// `fn` gets (x, extras..., acc) with x promoted to f32.
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
  SmallVector<utils::IteratorType> iters;
  for (bool r : reduced)
    iters.push_back(r ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
  Value acc = createFilled(b, loc, kept, init);
  return buildGeneric(b, loc, kept, b.getF32Type(), inputs, maps, iters,
                      keptMap, acc, fn);
}

/// Sums `term(x, extras...)` over the dimensions flagged in `reduced` in an
/// f64 accumulator, divides the sum by `divisor` in f64 (for means) and rounds
/// it to `outElemTy` (via f32). `term` gets x (and the kept-shape `extras`)
/// promoted to f32 and returns an f32 value, which is widened before it is
/// added. Why f64: sequential f32 accumulation stops growing at 2^24
/// (16777216 + 1 == 16777216 in f32), so a sum of 2e7 ones gave 16777216, and
/// its rounding error (up to n * 2^-24 relative) made the mean of a constant
/// row differ from the constant. In f64 the sum of up to 2^29 f32 values of
/// one sign is exact to within f32 resolution, and the mean of a constant row
/// is the constant. Cost: one extf per element and f64 adds (same latency as
/// f32 adds on x86-64 and AArch64 for these scalar reduction loops).
Value buildSumReduction(OpBuilder &b, Location loc, Value input,
                        ArrayRef<bool> reduced, ValueRange extras,
                        Type outElemTy, ScalarFn term, int64_t divisor = 1) {
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
  SmallVector<utils::IteratorType> iters;
  for (bool r : reduced)
    iters.push_back(r ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
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
        if (divisor != 1)
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

/// Materializes the numpy broadcast of `v` to `shape`.
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

/// Rounds an f32 tensor to `elemTy` (no-op for f32).
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

/// Reshapes `v` to `type` (same element count): a collapse or expand
/// when the shapes allow one, otherwise a collapse to 1-D then an expand.
/// With a `?` (the sequence, checked by checkDynamicShapes: the static sizes
/// on each side of it keep their products) it goes through
/// [before, ?, after].
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

/// Converts scalar `x` to `to` with ONNX `Cast` semantics (see `llm.cast`):
/// float->float rounds to nearest even, float->int truncates and saturates
/// (NaN -> 0), int->float rounds to nearest, ->i1 compares with zero.
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

/// True when every tensor operand and result of `op` is statically shaped.
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

/// `1x?x64` (`?` for the dynamic dimension).
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + (isStaticDim(d) ? std::to_string(d) : "?");
  return s;
}

} // namespace

/// Checks that `op`, which has a dynamic (sequence) dimension, is one the
/// lowering handles with a `?` on that dimension; otherwise emits an error
/// (with `emit`) saying why and returns failure. Every `?` stands for the
/// function's sequence length (DimBounds.h), so reductions, norms and
/// reshapes must not fold the sequence into a count or another dimension.
LogicalResult mlir::llm::checkDynamicShapes(Operation *op, bool emit) {
  if (hasStaticShapes(op))
    return success();
  auto fail = [&](const Twine &why) {
    if (emit)
      op->emitError() << "llm-to-linalg: dynamic shapes: " << why;
    return failure();
  };
  if (!hasSequenceDim(op))
    return fail("the enclosing function declares no bounded sequence "
                "dimension (argument attribute llm.dim_bounds); only the "
                "sequence dimension may be dynamic");
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (isa<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaxOp, MinOp, NegOp, ExpOp,
          LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, ReciprocalOp, SigmoidOp, AbsOp,
          FloorOp, CeilOp, RoundOp, SinOp, CosOp, ReluOp, SiluOp, GeluOp,
          CastOp, SoftmaxOp, EmbeddingOp, TransposeOp, BroadcastToOp,
          SequencePrefixOp, SequenceLastOp, CompareOp, SelectOp, LogicalAndOp,
          LogicalOrOp, LogicalXorOp, LogicalNotOp>(op))
    return success();
  // Fusion groups carry their ops' types; the ops are checked themselves.
  if (isa<FusionGroupOp, YieldOp>(op))
    return success();
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    auto lt = shapeOf(mm.getLhs()), rt = shapeOf(mm.getRhs());
    if (rt.size() != 2 || !allStatic(rt) || mm.getTransposeA() ||
        !allStatic(lt.take_back(1)))
      return fail("llm.matmul takes a dynamic dimension only in the rows of "
                  "an untransposed lhs against a static 2-D rhs");
    if (getStaticProduct(lt.drop_back()) != 1)
      return fail("llm.matmul: the lhs rows other than the sequence must be "
                  "of size 1 (the rows are collapsed into one dimension); "
                  "for a batch above 1, compile with a static sequence "
                  "length (llmc --dim NAME=N)");
    return success();
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    auto shape = shapeOf(ln.getInput());
    int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + shape.size() : ln.getAxis();
    if (!allStatic(shape.drop_front(axis)))
      return fail("llm.layer_norm normalizes over a dynamic dimension");
    return success();
  }
  if (auto rms = dyn_cast<RmsNormOp>(op)) {
    if (!isStaticDim(shapeOf(rms.getInput()).back()))
      return fail("llm.rms_norm normalizes over a dynamic dimension");
    return success();
  }
  if (auto rope = dyn_cast<RopeOp>(op)) {
    if (!isStaticDim(shapeOf(rope.getInput()).back()))
      return fail("llm.rope: the rotated (last) dimension is dynamic");
    return success();
  }
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op)) {
    auto shape = shapeOf(op->getOperand(0));
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    for (int64_t a : axes.asArrayRef())
      if (!isStaticDim(shape[a < 0 ? a + shape.size() : a]))
        return fail("reduction over the dynamic (sequence) dimension");
    return success();
  }
  if (auto att = dyn_cast<AttentionOp>(op)) {
    auto q = shapeOf(att.getQuery()), k = shapeOf(att.getKey()),
         v = shapeOf(att.getValue());
    bool bshd = att.getLayout() == AttentionLayout::BSHD;
    unsigned h = bshd ? 2 : 1;
    if (!isStaticDim(q[0]) || !isStaticDim(q[h]) || !isStaticDim(q[3]) ||
        !isStaticDim(k[h]) || !isStaticDim(v[3]) || k[0] != q[0])
      return fail("llm.attention takes a dynamic dimension only as the "
                  "query/key sequence length");
    return success();
  }
  if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
    // A prefill's rows against a static weight (the dequantized panels).
    auto lt = shapeOf(dq.getLhs()), rt = shapeOf(dq.getRhs());
    if (rt.size() != 2 || !allStatic(rt) || !allStatic(lt.take_back(1)))
      return fail("llm.dequant_matmul takes a dynamic dimension only in the "
                  "rows of the lhs against a static 2-D weight");
    return success();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // Rows of a static table at run-time positions (llm-form-kv-cache's
    // position tables): the indices carry the sequence.
    if (!allStatic(shapeOf(gather.getInput())))
      return fail("llm.gather takes a dynamic dimension only in its indices "
                  "(the table must be static)");
    return success();
  }
  if (auto update = dyn_cast<KVCacheUpdateOp>(op)) {
    // The verifier keeps the cache static; the update's rows may be the
    // sequence.
    auto u = shapeOf(update.getUpdate());
    for (auto [d, size] : llvm::enumerate(u))
      if (!isStaticDim(size) && static_cast<int64_t>(d) != static_cast<int64_t>(update.getAxis()))
        return fail("llm.kv_cache_update takes a dynamic dimension only as "
                    "the number of new rows (along its axis)");
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(reshape.getInput().getType());
    auto dst = cast<RankedTensorType>(reshape.getType());
    auto count = [](ArrayRef<int64_t> s) {
      return llvm::count_if(s, [](int64_t d) { return !isStaticDim(d); });
    };
    // The static sizes before the `?` must keep their product, and those
    // after it theirs: the sequence stays one whole dimension.
    auto aroundSeq = [](ArrayRef<int64_t> s) {
      auto *it = llvm::find_if(s, [](int64_t d) { return !isStaticDim(d); });
      return std::make_pair(getStaticProduct(ArrayRef<int64_t>(s.begin(), it)),
                            getStaticProduct(ArrayRef<int64_t>(it, s.end())));
    };
    if (count(src.getShape()) != 1 || count(dst.getShape()) != 1 ||
        aroundSeq(src.getShape()) != aroundSeq(dst.getShape()))
      return fail("llm.reshape " + shapeStr(src.getShape()) + " -> " +
                  shapeStr(dst.getShape()) +
                  " must keep the sequence dimension as it is and only "
                  "regroup the static dimensions on each side of it");
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t axis = concat.getAxis() < 0 ? concat.getAxis() + type.getRank()
                                        : concat.getAxis();
    if (!isStaticDim(type.getDimSize(axis)))
      return fail("llm.concat along the dynamic (sequence) dimension");
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto in = shapeOf(slice.getInput());
    for (auto [d, size] : llvm::enumerate(in))
      if (!isStaticDim(size) &&
          (slice.getStarts()[d] != 0 || slice.getStrides()[d] != 1))
        return fail("llm.slice of the dynamic (sequence) dimension must keep "
                    "all of it (start 0, stride 1)");
    return success();
  }
  return fail("'" + op->getName().getStringRef() +
              "' does not support a dynamic dimension yet");
}

namespace {

/// Base of every pattern: refuses dynamic shapes that checkDynamicShapes
/// does not accept, then calls `lower`.
template <typename OpTy>
struct LLMLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkDynamicShapes(op, /*emit=*/false)))
      return rewriter.notifyMatchFailure(
          op, "llm-to-linalg: unsupported dynamic shape");
    return lower(op, adaptor, rewriter);
  }

  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;
};

RankedTensorType resultType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

// llm.constant V -> arith.constant V (inline dense or dense_resource).
struct ConstantLowering : LLMLowering<ConstantOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ConstantOp op, OpAdaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(Attribute(op.getValue()));
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(), value);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Integer operands (signless, signed arithmetic) take the arith integer ops;
// f16/bf16 arrive promoted to f32, f32 and f64 as they are.
bool isInt(Value v) { return isa<IntegerType>(v.getType()); }

Value intConst(OpBuilder &b, Location l, Type t, int64_t v) {
  return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
}

/// `y` where a division by it is defined and cannot trap, else 1: for
/// y == 0 (numpy gives 0) and y == -1 (INT_MIN / -1 overflows; x / -1 is
/// computed as -x by the callers).
Value safeDivisor(OpBuilder &b, Location l, Value y) {
  Type t = y.getType();
  Value isZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                       intConst(b, l, t, 0));
  Value isMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                           intConst(b, l, t, -1));
  Value special = arith::OrIOp::create(b, l, isZero, isMinusOne);
  return arith::SelectOp::create(b, l, special, intConst(b, l, t, 1), y);
}

Value binaryScalar(AddOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::AddIOp::create(b, l, x, y);
  return arith::AddFOp::create(b, l, x, y);
}
Value binaryScalar(SubOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::SubIOp::create(b, l, x, y);
  return arith::SubFOp::create(b, l, x, y);
}
Value binaryScalar(MulOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::MulIOp::create(b, l, x, y);
  return arith::MulFOp::create(b, l, x, y);
}
// Integers: y == 0 -> 0, y == -1 -> 0 - x (wraps for INT_MIN), else divsi.
Value binaryScalar(DivOp, OpBuilder &b, Location l, Value x, Value y) {
  if (!isInt(x))
    return arith::DivFOp::create(b, l, x, y);
  Type t = x.getType();
  Value zero = intConst(b, l, t, 0);
  Value q = arith::DivSIOp::create(b, l, x, safeDivisor(b, l, y));
  Value neg = arith::SubIOp::create(b, l, zero, x);
  Value isZero =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y, zero);
  Value isMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                           intConst(b, l, t, -1));
  return arith::SelectOp::create(
      b, l, isZero, zero, arith::SelectOp::create(b, l, isMinusOne, neg, q));
}
// Floats: fmod. Integers: y == 0 or y == -1 -> 0, else remsi.
Value binaryScalar(RemOp, OpBuilder &b, Location l, Value x, Value y) {
  if (!isInt(x))
    return arith::RemFOp::create(b, l, x, y);
  Type t = x.getType();
  Value one = intConst(b, l, t, 1);
  Value safe = safeDivisor(b, l, y);
  Value r = arith::RemSIOp::create(b, l, x, safe);
  Value special = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, safe,
                                        one);
  // safe == 1 also for y == 1, whose remainder is 0 as well.
  return arith::SelectOp::create(b, l, special, intConst(b, l, t, 0), r);
}
Value binaryScalar(PowOp, OpBuilder &b, Location l, Value x, Value y) {
  return math::PowFOp::create(b, l, x, y);
}
Value binaryScalar(MaxOp, OpBuilder &b, Location l, Value x, Value y) {
  return arith::MaximumFOp::create(b, l, x, y);
}
Value binaryScalar(MinOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::MinSIOp::create(b, l, x, y);
  return arith::MinimumFOp::create(b, l, x, y);
}

// llm.<binary> %a, %b -> linalg.generic (parallel; broadcasting input maps)
//   { arith/math op on f32 }
template <typename OpTy>
struct BinaryLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value r = buildElementwise(rewriter, op.getLoc(), type.getShape(),
                               type.getElementType(),
                               ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                               [&](OpBuilder &b, Location loc, ValueRange a) {
                                 return binaryScalar(op, b, loc, a[0], a[1]);
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

Value sigmoidScalar(OpBuilder &b, Location l, Value x) {
  Value one = f32Const(b, l, 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

Value unaryScalar(NegOp, OpBuilder &b, Location l, Value x) {
  if (isInt(x)) // 0 - x, wrapping
    return arith::SubIOp::create(b, l, intConst(b, l, x.getType(), 0), x);
  return arith::NegFOp::create(b, l, x);
}
Value unaryScalar(ExpOp, OpBuilder &b, Location l, Value x) {
  return math::ExpOp::create(b, l, x);
}
Value unaryScalar(LogOp, OpBuilder &b, Location l, Value x) {
  return math::LogOp::create(b, l, x);
}
Value unaryScalar(TanhOp, OpBuilder &b, Location l, Value x) {
  return math::TanhOp::create(b, l, x);
}
Value unaryScalar(ErfOp, OpBuilder &b, Location l, Value x) {
  return math::ErfOp::create(b, l, x);
}
Value unaryScalar(SqrtOp, OpBuilder &b, Location l, Value x) {
  return math::SqrtOp::create(b, l, x);
}
Value unaryScalar(AbsOp, OpBuilder &b, Location l, Value x) {
  if (isInt(x)) // |INT_MIN| = INT_MIN (llvm.abs without poison)
    return math::AbsIOp::create(b, l, x);
  return math::AbsFOp::create(b, l, x);
}
Value unaryScalar(FloorOp, OpBuilder &b, Location l, Value x) {
  return math::FloorOp::create(b, l, x);
}
Value unaryScalar(CeilOp, OpBuilder &b, Location l, Value x) {
  return math::CeilOp::create(b, l, x);
}
Value unaryScalar(RoundOp, OpBuilder &b, Location l, Value x) {
  return math::RoundEvenOp::create(b, l, x);
}
Value unaryScalar(SinOp, OpBuilder &b, Location l, Value x) {
  return math::SinOp::create(b, l, x);
}
Value unaryScalar(CosOp, OpBuilder &b, Location l, Value x) {
  return math::CosOp::create(b, l, x);
}
Value unaryScalar(RsqrtOp, OpBuilder &b, Location l, Value x) {
  return math::RsqrtOp::create(b, l, x);
}
Value unaryScalar(ReciprocalOp, OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(b, l, f32Const(b, l, 1.0), x);
}
Value unaryScalar(SigmoidOp, OpBuilder &b, Location l, Value x) {
  return sigmoidScalar(b, l, x);
}
Value unaryScalar(ReluOp, OpBuilder &b, Location l, Value x) {
  return arith::MaximumFOp::create(b, l, x, f32Const(b, l, 0.0));
}
Value unaryScalar(SiluOp, OpBuilder &b, Location l, Value x) {
  return arith::MulFOp::create(b, l, x, sigmoidScalar(b, l, x));
}
// gelu(x)      = 0.5 x (1 + erf(x / sqrt(2)))
// gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Value unaryScalar(GeluOp op, OpBuilder &b, Location l, Value x) {
  Value half = f32Const(b, l, 0.5), one = f32Const(b, l, 1.0);
  Value inner;
  if (op.getApproximate() == GeluApproximation::Tanh) {
    Value x3 =
        arith::MulFOp::create(b, l, x, arith::MulFOp::create(b, l, x, x));
    Value poly = arith::AddFOp::create(
        b, l, x, arith::MulFOp::create(b, l, f32Const(b, l, 0.044715), x3));
    inner = math::TanhOp::create(
        b, l,
        arith::MulFOp::create(b, l, f32Const(b, l, std::sqrt(2.0 / M_PI)),
                              poly));
  } else {
    inner = math::ErfOp::create(
        b, l, arith::MulFOp::create(b, l, x, f32Const(b, l, M_SQRT1_2)));
  }
  Value hx = arith::MulFOp::create(b, l, half, x);
  return arith::MulFOp::create(b, l, hx,
                               arith::AddFOp::create(b, l, one, inner));
}

// llm.<unary> %x -> linalg.generic (parallel, identity maps) { f(x) in f32 }
template <typename OpTy>
struct UnaryLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value r =
        buildElementwise(rewriter, op.getLoc(), type.getShape(),
                         type.getElementType(), ValueRange{adaptor.getInput()},
                         [&](OpBuilder &b, Location loc, ValueRange a) {
                           return unaryScalar(op, b, loc, a[0]);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.cast %x : A -> B -> linalg.generic (parallel) { convertScalar A -> B }
struct CastLowering : LLMLowering<CastOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(CastOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Type to = type.getElementType();
    if (adaptor.getInput().getType() == type) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value r = buildElementwise(
        rewriter, op.getLoc(), type.getShape(), to,
        ValueRange{adaptor.getInput()},
        [&](OpBuilder &b, Location loc, ValueRange a) {
          return convertScalar(b, loc, a[0], to);
        },
        /*promote=*/false);
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// llm.matmul A[..., M, K], W[K, N] -> collapse A to [(...)M, K];
//   linalg.matmul (f32 accumulator, transposes as indexing maps); expand back.
// llm.matmul A[b..., M, K], B[b..., K, N] -> broadcast batch dims (only when
//   they differ), collapse them to one; linalg.batch_matmul; expand back.
struct MatmulLowering : LLMLowering<MatmulOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(MatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    int64_t lr = lt.getRank(), rr = rt.getRank(), outRank = type.getRank();
    int64_t m = type.getDimSize(outRank - 2), n = type.getDimSize(outRank - 1);

    // A constant weight in a sparse format (llm-sparsify-weights): llmc's
    // loops over its packed nonzeros.
    if (FailureOr<Value> sparse =
            llm::detail::lowerSparseMatmul(rewriter, op, lhs);
        succeeded(sparse)) {
      Value r = convertTensorFromF32(rewriter, loc, *sparse, et);
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, type));
      return success();
    }

    // A constant weight on bf16 dot products (dot_product = "bf16").
    if (FailureOr<Value> dot =
            llm::detail::lowerBF16DotMatmul(rewriter, op, lhs);
        succeeded(dot)) {
      rewriter.replaceOp(op, convertTensorFromF32(rewriter, loc, *dot, et));
      return success();
    }

    AffineExpr d0, d1, d2, d3;
    Value acc;
    if (rr == 2 && (lr == 2 || !ta)) {
      Value lhs2 = lhs;
      int64_t rows = allStatic(type.getShape().drop_back())
                         ? product(type.getShape().drop_back())
                         : ShapedType::kDynamic;
      if (lr > 2) {
        SmallVector<ReassociationIndices> re{
            llvm::to_vector(llvm::seq<int64_t>(0, lr - 1)), {lr - 1}};
        lhs2 = tensor::CollapseShapeOp::create(rewriter, loc, lhs, re);
      }
      // Dynamic rows (the sequence): a matmul with a dynamic M, which
      // llm-tile-and-vectorize tiles like a static one sized at the bound
      // (full register tiles vectorized, the partial last one peeled).
      Value init = createZerosF32(rewriter, loc, {rows, n});
      auto mm =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{lhs2, rhs}, ValueRange{init});
      if (ta || tb) {
        bindDims(ctx, d0, d1, d2); // (m, n, k)
        AffineMap lm = AffineMap::get(3, 0, {ta ? d2 : d0, ta ? d0 : d2}, ctx);
        AffineMap rm = AffineMap::get(3, 0, {tb ? d1 : d2, tb ? d2 : d1}, ctx);
        AffineMap om = AffineMap::get(3, 0, {d0, d1}, ctx);
        mm.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr({lm, rm, om}));
      }
      acc = mm.getResult(0);
    } else {
      ArrayRef<int64_t> batch = type.getShape().drop_back(2);
      int64_t nb = batch.size();
      // A 2-D operand that is not transposed is read through a map without
      // the batch dim (no copy; batch_matmul accepts no other broadcast
      // map); other operands are broadcast to the full batch shape when
      // theirs differs, then their batch dims are collapsed into one.
      bool lhsBcast = lr == 2 && !ta, rhsBcast = rr == 2 && !tb;
      auto prepare = [&](Value v, RankedTensorType t, bool bcast) -> Value {
        if (bcast)
          return v;
        SmallVector<int64_t> full(batch);
        llvm::append_range(full, t.getShape().take_back(2));
        v = broadcastTo(rewriter, loc, v, full);
        if (nb == 1)
          return v;
        SmallVector<ReassociationIndices> re{
            llvm::to_vector(llvm::seq<int64_t>(0, nb)), {nb}, {nb + 1}};
        return tensor::CollapseShapeOp::create(rewriter, loc, v, re);
      };
      Value l3 = prepare(lhs, lt, lhsBcast), r3 = prepare(rhs, rt, rhsBcast);
      Value init = createZerosF32(rewriter, loc, {product(batch), m, n});
      auto bmm = linalg::BatchMatmulOp::create(
          rewriter, loc, TypeRange{init.getType()}, ValueRange{l3, r3},
          ValueRange{init});
      if (ta || tb || lhsBcast || rhsBcast) {
        bindDims(ctx, d0, d1, d2, d3); // (b, m, n, k)
        SmallVector<AffineExpr> le{ta ? d3 : d1, ta ? d1 : d3};
        SmallVector<AffineExpr> re{tb ? d2 : d3, tb ? d3 : d2};
        if (!lhsBcast)
          le.insert(le.begin(), d0);
        if (!rhsBcast)
          re.insert(re.begin(), d0);
        AffineMap om = AffineMap::get(4, 0, {d0, d1, d2}, ctx);
        bmm.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
            {AffineMap::get(4, 0, le, ctx), AffineMap::get(4, 0, re, ctx),
             om}));
      }
      acc = bmm.getResult(0);
    }
    Value r = convertTensorFromF32(rewriter, loc, acc, et);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions, softmax and normalizations
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max };

// llm.reduce_max %x {axes} -> linalg.generic (reduction iterators over axes,
//   f32 accumulator from linalg.fill) [-> generic: round to f16/bf16];
// llm.reduce_sum/mean %x {axes} -> linalg.generic (f64 accumulator) ->
//   generic (divide by the count for mean, round once to the result type);
//   [-> tensor.expand_shape for keepdims].
template <typename OpTy, ReduceKind kind>
struct ReduceLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto it = cast<RankedTensorType>(input.getType());
    RankedTensorType type = resultType(op);
    int64_t rank = it.getRank();
    SmallVector<bool> reduced(rank, false);
    int64_t count = 1;
    for (int64_t a : op.getAxes()) {
      int64_t axis = a < 0 ? a + rank : a;
      reduced[axis] = true;
      count *= it.getDimSize(axis);
    }
    Type et = type.getElementType();
    Value acc;
    if (kind == ReduceKind::Max) {
      acc = buildReduction(rewriter, loc, input, reduced, {},
                           negInfF32(rewriter),
                           [](OpBuilder &b, Location l, ValueRange a) -> Value {
                             return arith::MaximumFOp::create(b, l, a[0], a[1]);
                           });
      acc = convertTensorFromF32(rewriter, loc, acc, et);
    } else {
      // Sum and mean accumulate in f64 (see buildSumReduction).
      acc = buildSumReduction(
          rewriter, loc, input, reduced, {}, et,
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          kind == ReduceKind::Mean ? count : 1);
    }
    if (op.getKeepdims() && cast<RankedTensorType>(acc.getType()) != type)
      acc = tensor::ExpandShapeOp::create(rewriter, loc, type, acc,
                                          groupsForInsertedDims(reduced));
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// Numerically stable softmax of `x` along the dimensions flagged in
/// `reduced`: max-reduce, sum of exp(x - max), then exp(x - max) / sum. Values
/// equal to -inf (excluded positions) get weight 0 and a row whose values are
/// all -inf yields 0, not NaN, when `guardMasked`.
Value buildSoftmax(OpBuilder &b, Location loc, Value x, ArrayRef<bool> reduced,
                   Type outElemTy, bool guardMasked) {
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

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

// llm.rope %x[..., D], %pos -> expand x to [..., 2, D/2] (rotate_half) or
//   [..., D/2, 2] (interleaved); linalg.generic reading both halves of each
//   pair through constant-index maps; collapse back. The angle is
//   pos * inv_freq[i] in f32, inv_freq[i] = theta^(-2i/D) a tensor<D/2xf32>
//   constant computed here (in double, rounded to f32). With constant
//   positions (the usual arange of a prefill) the generic reads cos and sin
//   from two constant tables of shape pos.shape x [D/2] (f32 angle, cos/sin
//   evaluated in double and rounded), so no transcendental runs per element;
//   otherwise it evaluates cos/sin of the f32 angle per element.
struct RopeLowering : LLMLowering<RopeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(RopeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput(), pos = adaptor.getPositions();
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    int64_t rank = type.getRank();
    int64_t d = type.getDimSize(rank - 1), half = d / 2;
    bool interleaved = op.getMode() == RopeMode::Interleaved;

    // Iteration space: rows (rank - 1 dims), then the pair dims.
    SmallVector<int64_t> shape(type.getShape().drop_back());
    ArrayRef<int64_t> rows = type.getShape().drop_back();
    unsigned pDim = interleaved ? rank : rank - 1; // which member of the pair
    unsigned iDim = interleaved ? rank - 1 : rank; // pair index i < D/2
    if (interleaved) {
      shape.push_back(half);
      shape.push_back(2);
    } else {
      shape.push_back(2);
      shape.push_back(half);
    }
    auto expandedType = RankedTensorType::get(shape, et);
    SmallVector<ReassociationIndices> re;
    for (int64_t i = 0; i < rank - 1; ++i)
      re.push_back({i});
    re.push_back({rank - 1, rank});
    Value xe =
        tensor::ExpandShapeOp::create(rewriter, loc, expandedType, x, re);

    unsigned numDims = rank + 1;
    auto memberMap = [&](int64_t member) {
      SmallVector<AffineExpr> exprs;
      for (unsigned i = 0; i < numDims; ++i)
        exprs.push_back(i == pDim ? getAffineConstantExpr(member, ctx)
                                  : getAffineDimExpr(i, ctx));
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    AffineMap posMap = broadcastMap(
        ctx, cast<RankedTensorType>(pos.getType()).getShape(), rows, numDims);
    SmallVector<utils::IteratorType> iters(numDims,
                                           utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, shape, et);
    float theta = op.getTheta().convertToFloat();
    SmallVector<float> invFreq(half);
    for (int64_t i = 0; i < half; ++i)
      invFreq[i] = static_cast<float>(
          std::pow(static_cast<double>(theta), -2.0 * double(i) / double(d)));
    auto f32 = rewriter.getF32Type();
    auto invFreqType = RankedTensorType::get({half}, f32);
    // Map from the iteration space to a [half] or pos.shape x [half] table.
    auto tableMap = [&](bool withPos) {
      SmallVector<AffineExpr> exprs;
      if (withPos)
        llvm::append_range(exprs, posMap.getResults());
      exprs.push_back(getAffineDimExpr(iDim, ctx));
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    Value r;
    auto rotate = [&](OpBuilder &b, Location l, Value u, Value v, Value c,
                      Value s) -> Value {
      Value first =
          arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, u, c),
                                arith::MulFOp::create(b, l, v, s));
      Value second =
          arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, v, c),
                                arith::MulFOp::create(b, l, u, s));
      Value isFirst = arith::CmpIOp::create(
          b, l, arith::CmpIPredicate::eq, linalg::IndexOp::create(b, l, pDim),
          indexConst(b, l, 0));
      return arith::SelectOp::create(b, l, isFirst, first, second);
    };
    // Constant positions, also through llm.reshape (llm-optimize-layout
    // reshapes [S] to [S, 1] when it moves a head split past the rope).
    DenseIntElementsAttr posValues;
    auto posType = cast<RankedTensorType>(pos.getType());
    Value posSource = op.getPositions();
    while (auto reshape = posSource.getDefiningOp<ReshapeOp>())
      posSource = reshape.getInput();
    constexpr int64_t kMaxTableElements = int64_t(1) << 20;
    if (matchPattern(posSource, m_Constant(&posValues)) &&
        posType.hasStaticShape() &&
        posType.getNumElements() * half <= kMaxTableElements) {
      SmallVector<float> cosTable, sinTable;
      cosTable.reserve(posType.getNumElements() * half);
      sinTable.reserve(posType.getNumElements() * half);
      for (const APInt &p : posValues.getValues<APInt>()) {
        float fp = static_cast<float>(p.getSExtValue());
        for (int64_t i = 0; i < half; ++i) {
          double angle = static_cast<double>(fp * invFreq[i]);
          cosTable.push_back(static_cast<float>(std::cos(angle)));
          sinTable.push_back(static_cast<float>(std::sin(angle)));
        }
      }
      SmallVector<int64_t> tableShape(posType.getShape());
      tableShape.push_back(half);
      auto tableType = RankedTensorType::get(tableShape, f32);
      Value cosT = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(tableType, ArrayRef<float>(cosTable)));
      Value sinT = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(tableType, ArrayRef<float>(sinTable)));
      r = buildGeneric(
          rewriter, loc, shape, et, ValueRange{xe, xe, cosT, sinT},
          {memberMap(0), memberMap(1), tableMap(true), tableMap(true)}, iters,
          rewriter.getMultiDimIdentityMap(numDims), init,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return rotate(b, l, a[0], a[1], a[2], a[3]);
          });
    } else {
      Value freqs = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(invFreqType, ArrayRef<float>(invFreq)));
      r = buildGeneric(
          rewriter, loc, shape, et, ValueRange{xe, xe, pos, freqs},
          {memberMap(0), memberMap(1), posMap, tableMap(false)}, iters,
          rewriter.getMultiDimIdentityMap(numDims), init,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value p = arith::SIToFPOp::create(b, l, b.getF32Type(), a[2]);
            Value angle = arith::MulFOp::create(b, l, p, a[3]);
            Value c = math::CosOp::create(b, l, angle);
            Value s = math::SinOp::create(b, l, angle);
            return rotate(b, l, a[0], a[1], c, s);
          });
    }
    rewriter.replaceOp(
        op, tensor::CollapseShapeOp::create(rewriter, loc, type, r, re));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// llm.attention q[B,Hq,Sq,D], k[B,Hkv,Skv,D], v[B,Hkv,Skv,Dv] ->
//   q' = reshape q to [B*Hkv, G*Sq, D] (G = Hq/Hkv; expand + collapse, no
//   copy of K/V); s = linalg.batch_matmul(q', k'^T) (f32);
//   view s as [B,Hkv,G,Sq,Skv]; logits = s*scale (+ mask | mask ? : -inf)
//   (causal: -inf where j > i + Skv - Sq); softmax over Skv with masked
//   entries and fully masked rows giving 0; o = batch_matmul(p, v');
//   reshape o back to [B,Hq,Sq,Dv].
// Layout bshd: q, k, v are first transposed to [B,H,S,D] (linalg.transpose)
//   and the result back to [B,Sq,Hq,Dv] (the reference path; the flash
//   lowering reads the bshd tiles in place).
struct AttentionLowering : LLMLowering<AttentionOp> {
  /// With `dynamicOnly` (next to the flash lowering) the pattern lowers only
  /// the attention that the flash lowering refuses
  /// (isFlashAttentionLowerable).
  AttentionLowering(MLIRContext *ctx, bool dynamicOnly)
      : LLMLowering(ctx), dynamicOnly(dynamicOnly) {}
  bool dynamicOnly;
  LogicalResult lower(AttentionOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    if (dynamicOnly && isFlashAttentionLowerable(op))
      return rewriter.notifyMatchFailure(op, "the flash lowering takes it");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    bool bshd = op.getLayout() == AttentionLayout::BSHD;
    auto swapHeads = [&](Value x) -> Value {
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(t.getShape());
      std::swap(shape[1], shape[2]);
      Value init =
          createEmptyTensor(rewriter, loc, shape, t.getElementType());
      return linalg::TransposeOp::create(rewriter, loc, x, init,
                                         ArrayRef<int64_t>{0, 2, 1, 3})
          .getResult()[0];
    };
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    if (bshd) {
      q = swapHeads(q);
      k = swapHeads(k);
      v = swapHeads(v);
    }
    Value mask = adaptor.getMask();
    auto qt = cast<RankedTensorType>(q.getType());
    auto kt = cast<RankedTensorType>(k.getType());
    auto vt = cast<RankedTensorType>(v.getType());
    RankedTensorType type = resultType(op);
    if (bshd) {
      SmallVector<int64_t> shape(type.getShape());
      std::swap(shape[1], shape[2]);
      type = RankedTensorType::get(shape, type.getElementType());
    }
    Type et = type.getElementType();
    int64_t bsz = qt.getDimSize(0), hq = qt.getDimSize(1),
            sq = qt.getDimSize(2), dh = qt.getDimSize(3);
    int64_t hkv = kt.getDimSize(1), skv = kt.getDimSize(2),
            dv = vt.getDimSize(3);
    int64_t g = hq / hkv, bh = bsz * hkv,
            rows = isStaticDim(sq) ? g * sq : ShapedType::kDynamic;
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(double(dh));

    // Heads of one group are contiguous: [B,Hq,Sq,D] is [B,Hkv,G,Sq,D].
    Value q5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({bsz, hkv, g, sq, dh}, et), q,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value q3 = tensor::CollapseShapeOp::create(
        rewriter, loc, q5, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value k3 = tensor::CollapseShapeOp::create(
        rewriter, loc, k, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    Value v3 = tensor::CollapseShapeOp::create(
        rewriter, loc, v, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});

    // [bh, rows, n] f32 zeros; a dynamic `rows` is G * Sq (q3's rows), a
    // dynamic `n` the key/value sequence.
    // The sizes come from the function's sequence length where it has one
    // (affine in the bounded argument dimension, as the memory plan needs).
    Value seqLen = (ShapedType::isDynamic(sq) || ShapedType::isDynamic(skv))
                       ? getSequenceLength(rewriter, loc)
                       : Value();
    auto zeros3 = [&](int64_t n, Value dynN) -> Value {
      SmallVector<Value> dyn;
      if (ShapedType::isDynamic(rows))
        dyn.push_back(
            seqLen ? arith::MulIOp::create(rewriter, loc, seqLen,
                                           indexConst(rewriter, loc, g))
                         .getResult()
                   : tensor::DimOp::create(rewriter, loc, q3, 1).getResult());
      if (ShapedType::isDynamic(n))
        dyn.push_back(dynN);
      Value empty = tensor::EmptyOp::create(rewriter, loc, {bh, rows, n},
                                            rewriter.getF32Type(), dyn);
      return linalg::FillOp::create(rewriter, loc,
                                    ValueRange{f32Const(rewriter, loc, 0.0)},
                                    ValueRange{empty})
          .getResult(0);
    };
    AffineExpr d0, d1, d2, d3, d4;
    bindDims(ctx, d0, d1, d2, d3); // (b, m, n, k)
    Value kvRows; // A dynamic Skv.
    if (ShapedType::isDynamic(skv))
      kvRows = seqLen ? seqLen : tensor::DimOp::create(rewriter, loc, k3, 1);
    Value sInit = zeros3(skv, kvRows);
    auto qk =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{sInit.getType()},
                                      ValueRange{q3, k3}, ValueRange{sInit});
    qk.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
        {AffineMap::get(4, 0, {d0, d1, d3}, ctx),
         AffineMap::get(4, 0, {d0, d2, d3}, ctx),
         AffineMap::get(4, 0, {d0, d1, d2}, ctx)}));
    SmallVector<int64_t> s5Shape{bsz, hkv, g, sq, skv};
    Value s5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(s5Shape, rewriter.getF32Type()),
        qk.getResult(0), ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});

    // Logits with scale, mask and causal exclusion, in the 5-D view
    // (d0 = b, d1 = kv head, d2 = group member, d3 = i, d4 = j).
    bindDims(ctx, d0, d1, d2, d3, d4);
    SmallVector<Value> inputs{s5};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(5)};
    bool boolMask = false;
    if (mask) {
      auto mt = cast<RankedTensorType>(mask.getType());
      boolMask = mt.getElementType().isInteger(1);
      int64_t full[4] = {bsz, hq, sq, skv};
      AffineExpr headExpr = g == 1 ? d1 : hkv == 1 ? d2 : d1 * g + d2;
      AffineExpr fullExprs[4] = {d0, headExpr, d3, d4};
      SmallVector<AffineExpr> exprs;
      int64_t off = 4 - mt.getRank();
      for (auto [i, md] : llvm::enumerate(mt.getShape())) {
        if (md == 1 && full[off + i] != 1)
          exprs.push_back(getAffineConstantExpr(0, ctx));
        else
          exprs.push_back(fullExprs[off + i]);
      }
      inputs.push_back(mask);
      maps.push_back(AffineMap::get(5, 0, exprs, ctx));
    }
    // kv_length L, clamped to [0, Skv] in the body: positions j >= L are
    // excluded, and `causal` aligns at L (limit i + L - Sq). The scores are
    // still computed over the whole [Sq, Skv] (this is the reference path;
    // the flash lowering visits ceil(L / Tk) tiles only).
    Value kvLength = adaptor.getKvLength();
    int kvIndex = -1;
    if (kvLength) {
      kvIndex = inputs.size();
      inputs.push_back(kvLength);
      maps.push_back(AffineMap::get(5, 0, {}, ctx));
    }
    bool causal = op.getCausal();
    // Run-time Sq and Skv where dynamic (used by the causal limit and the
    // clamp of L).
    Value sqV, skvV;
    if (ShapedType::isDynamic(sq) && causal)
      sqV = tensor::DimOp::create(rewriter, loc, q, 2);
    if (ShapedType::isDynamic(skv) && (causal || kvLength))
      skvV = tensor::DimOp::create(rewriter, loc, k, 2);
    SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
    Value lInit =
        createEmptyTensor(rewriter, loc, s5Shape, rewriter.getF32Type());
    Value logits = buildGeneric(
        rewriter, loc, s5Shape, rewriter.getF32Type(), inputs, maps, iters,
        rewriter.getMultiDimIdentityMap(5), lInit,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value val = arith::MulFOp::create(b, l, a[0], f32Const(b, l, scale));
          Value ninf;
          if ((mask && boolMask) || causal || kvLength)
            ninf = arith::ConstantOp::create(b, l, negInfF32(b));
          if (mask && !boolMask)
            val = arith::AddFOp::create(b, l, val, a[1]);
          if (mask && boolMask)
            val = arith::SelectOp::create(b, l, a[1], val, ninf);
          auto sizeOf = [&](Value v, int64_t c) -> Value {
            return v ? v : indexConst(b, l, c);
          };
          Value len; // Lc = clamp(L, 0, Skv)
          if (kvLength) {
            Value raw =
                arith::IndexCastOp::create(b, l, b.getIndexType(), a[kvIndex]);
            len = arith::MaxSIOp::create(
                b, l, arith::MinSIOp::create(b, l, raw, sizeOf(skvV, skv)),
                indexConst(b, l, 0));
            Value j = linalg::IndexOp::create(b, l, 4);
            Value keep =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, len);
            val = arith::SelectOp::create(b, l, keep, val, ninf);
          }
          if (causal) {
            Value i = linalg::IndexOp::create(b, l, 3);
            Value j = linalg::IndexOp::create(b, l, 4);
            Value limit;
            if (!len && !ShapedType::isDynamic(sq) &&
                !ShapedType::isDynamic(skv))
              limit = skv == sq ? i
                                : arith::AddIOp::create(
                                      b, l, i, indexConst(b, l, skv - sq))
                                      .getResult();
            else if (!len && skv == sq) // Both the one dynamic sequence.
              limit = i;
            else
              limit = arith::AddIOp::create(
                  b, l, i,
                  arith::SubIOp::create(b, l, len ? len : sizeOf(skvV, skv),
                                        sizeOf(sqV, sq)));
            Value keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle,
                                               j, limit);
            val = arith::SelectOp::create(b, l, keep, val, ninf);
          }
          return val;
        });
    SmallVector<bool> reduced{false, false, false, false, true};
    Value p = buildSoftmax(rewriter, loc, logits, reduced,
                           rewriter.getF32Type(), /*guardMasked=*/true);
    Value p3 = tensor::CollapseShapeOp::create(
        rewriter, loc, p, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value oInit = zeros3(dv, Value());
    Value o =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{oInit.getType()},
                                      ValueRange{p3, v3}, ValueRange{oInit})
            .getResult(0);
    o = convertTensorFromF32(rewriter, loc, o, et);
    Value o5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({bsz, hkv, g, sq, dv}, et), o,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, type, o5,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    rewriter.replaceOp(op, bshd ? swapHeads(result) : result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Embedding and data movement
//===----------------------------------------------------------------------===//

// llm.embedding %table[V, D], %ids -> the run-time range check of %ids
// (emitIndexRangeCheck), then linalg.generic over ids.shape + [D]
//   { id < 0 ? id + V : id, clamped to [0, V-1];
//     tensor.extract %table[id, linalg.index(last)] }
struct EmbeddingLowering : LLMLowering<EmbeddingOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(EmbeddingOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value table = adaptor.getTable(), ids = adaptor.getIds();
    RankedTensorType type = resultType(op);
    int64_t rank = type.getRank();
    int64_t vocab = cast<RankedTensorType>(table.getType()).getDimSize(0);
    SmallVector<AffineExpr> idExprs;
    for (int64_t i = 0; i < rank - 1; ++i)
      idExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    emitIndexRangeCheck(rewriter, op, ids, vocab);
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                         type.getElementType());
    Value r = buildGeneric(
        rewriter, loc, type.getShape(), type.getElementType(), ValueRange{ids},
        {AffineMap::get(rank, 0, idExprs, ctx)}, iters,
        rewriter.getMultiDimIdentityMap(rank), init,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value id = a[0];
          Type it = id.getType();
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getIntegerAttr(it, v));
          };
          Value isNeg =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, id, c(0));
          id = arith::SelectOp::create(
              b, l, isNeg, arith::AddIOp::create(b, l, id, c(vocab)), id);
          id = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, id, c(vocab - 1)), c(0));
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        },
        /*promote=*/false);
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.transpose %x {permutation} -> linalg.transpose
struct TransposeLowering : LLMLowering<TransposeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(TransposeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value init = createEmptyTensor(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto t = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

// llm.reshape %x -> tensor.collapse_shape | tensor.expand_shape
//   | collapse to 1-D + expand
struct ReshapeLowering : LLMLowering<ReshapeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ReshapeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), adaptor.getInput(),
                                     resultType(op)));
    return success();
  }
};

// llm.concat %a, %b {axis} -> tensor.concat dim(axis) (inputs empty along
// the axis dropped; an empty result -> tensor.empty)
struct ConcatLowering : LLMLowering<ConcatOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ConcatOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    int64_t axis =
        op.getAxis() < 0 ? op.getAxis() + type.getRank() : op.getAxis();
    // Inputs of size 0 along the axis contribute nothing (tensor.concat would
    // address them at an out-of-bounds offset).
    SmallVector<Value> inputs;
    for (Value v : adaptor.getInputs())
      if (cast<RankedTensorType>(v.getType()).getDimSize(axis) != 0)
        inputs.push_back(v);
    if (inputs.empty() || (type.hasStaticShape() && type.getNumElements() == 0)) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, inputs.front());
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, uint64_t(axis),
                                                  inputs);
    return success();
  }
};

// llm.slice %x {starts, limits, strides} -> tensor.extract_slice (an empty
// result -> tensor.empty)
struct SliceLowering : LLMLowering<SliceOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(SliceOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    // An empty slice may start at the end of a dimension, which
    // tensor.extract_slice rejects as out of bounds: it has no data anyway.
    if (type.hasStaticShape() && type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    // A dynamic (sequence) dimension is kept whole (checkDynamicShapes).
    SmallVector<OpFoldResult> sizes;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      sizes.push_back(isStaticDim(size)
                          ? OpFoldResult(rewriter.getIndexAttr(size))
                          : OpFoldResult(tensor::DimOp::create(
                                rewriter, op.getLoc(), adaptor.getInput(),
                                int64_t(d))
                                             .getResult()));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(),
        getAsIndexOpFoldResult(rewriter.getContext(), op.getStarts()),
        sizes,
        getAsIndexOpFoldResult(rewriter.getContext(), op.getStrides()));
    return success();
  }
};

// llm.broadcast_to %x -> linalg.generic (parallel, broadcasting input map)
struct BroadcastToLowering : LLMLowering<BroadcastToOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(BroadcastToOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       broadcastTo(rewriter, op.getLoc(), adaptor.getInput(),
                                   resultType(op).getShape()));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Pattern population and pass
//===----------------------------------------------------------------------===//

SmallVector<ReassociationIndices>
mlir::llm::groupsForInsertedDims(ArrayRef<bool> isUnit) {
  // Each run of unit dims joins the next kept dim; trailing ones the last.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices current;
  for (auto [i, u] : llvm::enumerate(isUnit)) {
    current.push_back(i);
    if (!u) {
      groups.push_back(current);
      current.clear();
    }
  }
  if (!current.empty() && !groups.empty())
    llvm::append_range(groups.back(), current);
  return groups;
}

void mlir::llm::populateLLMToLinalgConversionPatterns(
    RewritePatternSet &patterns, const LLMToLinalgOptions &options) {
  MLIRContext *ctx = patterns.getContext();
  // A dynamic sequence length always takes the materialized lowering (the
  // flash lowering's tiles are static).
  if (options.flashAttention)
    populateFlashAttentionLoweringPatterns(patterns, options.attentionQueryTile,
                                           options.attentionKeyTile);
  patterns.add<AttentionLowering>(ctx, /*dynamicOnly=*/options.flashAttention);
  patterns
      .add<ConstantLowering, CastLowering, MatmulLowering, SoftmaxLowering,
           LayerNormLowering, RmsNormLowering, RopeLowering, EmbeddingLowering, TransposeLowering, ReshapeLowering,
           ConcatLowering, SliceLowering, BroadcastToLowering>(ctx);
  patterns
      .add<BinaryLowering<AddOp>, BinaryLowering<SubOp>, BinaryLowering<MulOp>,
           BinaryLowering<DivOp>, BinaryLowering<RemOp>,
           BinaryLowering<PowOp>, BinaryLowering<MaxOp>,
           BinaryLowering<MinOp>>(ctx);
  patterns
      .add<UnaryLowering<NegOp>, UnaryLowering<ExpOp>, UnaryLowering<LogOp>,
           UnaryLowering<TanhOp>, UnaryLowering<ErfOp>, UnaryLowering<SqrtOp>,
           UnaryLowering<RsqrtOp>, UnaryLowering<ReciprocalOp>,
           UnaryLowering<SigmoidOp>, UnaryLowering<ReluOp>,
           UnaryLowering<SiluOp>, UnaryLowering<GeluOp>, UnaryLowering<AbsOp>,
           UnaryLowering<FloorOp>, UnaryLowering<CeilOp>,
           UnaryLowering<RoundOp>, UnaryLowering<SinOp>,
           UnaryLowering<CosOp>>(ctx);
  patterns.add<ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>>(ctx);
  populateLLMToLinalgDataPatterns(patterns);
}

namespace {
/// Largest tensor llm-to-linalg lowers, in bytes: 2^47 (128 TiB), the user
/// address space of x86-64 and AArch64 with 48-bit virtual addresses. Larger
/// tensors can never be allocated, and a size that overflows int64 would wrap
/// to a small allocation (the lowered code then wrote out of bounds, and
/// huge constants crashed the translation to LLVM IR).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 47;
/// Largest `llm.constant`, in bytes: 2^31 (2 GiB). Constants become global
/// data of the compiled code, which the small code model addresses with
/// 32-bit offsets; LLVM materializes even a splat element by element (a
/// 24 TiB splat aborted with "LLVM ERROR: out of memory").
constexpr int64_t kMaxConstantBytes = int64_t(1) << 31;

/// Emits an error on `op` and returns failure when one of its (static)
/// operand or result tensor types is larger than kMaxTensorBytes (an
/// `llm.constant` result: kMaxConstantBytes).
LogicalResult checkTensorSizes(Operation *op) {
  auto check = [&](Type t, StringRef what, unsigned index) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape())
      return success();
    Type et = type.getElementType();
    int64_t bytes =
        et.isIntOrFloat()
            ? std::max<int64_t>(1, llvm::divideCeil(et.getIntOrFloatBitWidth(),
                                                    8))
            : 8;
    bool overflow = false;
    for (int64_t d : type.getShape())
      overflow |= llvm::MulOverflow(bytes, d, bytes);
    bool isConstant = isa<ConstantOp>(op);
    int64_t limit = isConstant ? kMaxConstantBytes : kMaxTensorBytes;
    if (!overflow && bytes <= limit)
      return success();
    InFlightDiagnostic diag = op->emitOpError()
                              << what << " #" << index << " type " << type
                              << " is too large: ";
    if (overflow)
      diag << "its size in bytes overflows int64";
    else
      diag << bytes << " bytes";
    if (isConstant)
      diag << " (llm-to-linalg lowers constants of at most 2^31 bytes, 2 "
              "GiB)";
    else
      diag << " (llm-to-linalg lowers tensors of at most 2^47 bytes, 128 "
              "TiB)";
    return failure();
  };
  // Operands made by llm ops are checked (once) as those ops' results.
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (!isa_and_nonnull<LLMDialect>(
            v.getDefiningOp() ? v.getDefiningOp()->getDialect() : nullptr) &&
        failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

struct ConvertLLMToLinalgPass
    : impl::ConvertLLMToLinalgPassBase<ConvertLLMToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    // Report every dynamically shaped or oversized llm op up front, with
    // its location.
    bool dynamic = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_nonnull<LLMDialect>(op->getDialect()))
        return;
      if (failed(checkDynamicShapes(op, /*emit=*/true))) {
        dynamic = true;
      } else if (failed(checkTensorSizes(op))) {
        dynamic = true;
      }
    });
    if (dynamic)
      return signalPassFailure();

    LLMToLinalgOptions options;
    if (attention != "flash" && attention != "materialized" &&
        attention != "keep") {
      getOperation()->emitError()
          << "convert-llm-to-linalg: unknown attention lowering '" << attention
          << "' (expected flash, materialized or keep)";
      return signalPassFailure();
    }
    options.flashAttention = attention == "flash";
    options.vectorKernels = vectorKernels;
    // The target's choices come from each op's `llm.lowering_config`
    // (LoweringConfig.h, llm-select-lowering-config); these options are the
    // neutral defaults of the ops without one.
    SmallVector<int64_t> tile{options.attentionQueryTile,
                              options.attentionKeyTile};
    if (!attentionTile.empty())
      tile.assign(attentionTile.begin(), attentionTile.end());
    if (tile.size() != 2 || tile[0] <= 0 || tile[1] <= 0) {
      getOperation()->emitError()
          << "convert-llm-to-linalg: attention-tile must be two positive "
             "sizes [query rows, key/value rows]";
      return signalPassFailure();
    }
    options.attentionQueryTile = tile[0];
    options.attentionKeyTile = tile[1];
    if (streamedWeightMinBytes < 0) {
      getOperation()->emitError()
          << "convert-llm-to-linalg: streamed-weight-min-bytes must be a "
             "size in bytes, got "
          << static_cast<int64_t>(streamedWeightMinBytes);
      return signalPassFailure();
    }
    options.streamedWeightMinBytes = streamedWeightMinBytes;

    ConversionTarget target(getContext());
    target.addIllegalDialect<LLMDialect>();
    // Fusion groups stay; their ops are lowered in place (see llm-fuse).
    target.addLegalOp<FusionGroupOp, YieldOp>();
    if (attention == "keep")
      target.addLegalOp<AttentionOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateLLMToLinalgConversionPatterns(patterns, options);
    populateQuantToLinalgConversionPatterns(patterns, options);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    if (failed(finalizeIndexChecks(getOperation())))
      return signalPassFailure();
    eraseQuantizedTypes(getOperation());
  }
};
} // namespace
