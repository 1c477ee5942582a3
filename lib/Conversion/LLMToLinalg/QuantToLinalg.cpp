//===- QuantToLinalg.cpp - lower llm quantization ops to linalg -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lowering of `llm.quantize`, `llm.dequantize`,
// `llm.requantize` and `llm.matmul_integer` to linalg on tensors, and the
// erasure of quantized element types after the conversion.
//
// Quantized tensors are read and written through their storage type:
// `quant.scast` reinterprets a `tensor<Nx!quant.uniform<i8:f32, ...>>` as
// `tensor<Nxi8>` (no data movement). Per-axis and sub-channel parameters are
// constant tensors read with a broadcasting indexing map; a blocked
// dimension (sub-channel) is split with `tensor.expand_shape` into
// `[blocks, block_size]` so that every map stays a projected permutation
// (vectorizable, fusable). After the conversion, `eraseQuantizedTypes`
// replaces every quantized element type by its storage type (and FP8 by
// i8), so bufferization never sees them.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "QuantKernels.h"
#include "SparseMatmul.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::detail;

Value mlir::llm::detail::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value mlir::llm::detail::storageCast(OpBuilder &b, Location loc, Value v,
                                     Type to) {
  if (v.getType() == to)
    return v;
  return quant::StorageCastOp::create(b, loc, to, v);
}

Value mlir::llm::detail::toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool isFloat8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// A matmul result of static `type` with an empty contraction (K = 0): all
/// zeros (f32 or i32), as the empty sum is. The kernels divide by K and an
/// empty reduction crashed the CPU tiling, so it is filled directly.
Value zeroMatmulResult(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero =
      type.getElementType().isF32() ? f32Const(b, loc, 0) : i32Const(b, loc, 0);
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
      .getResult(0);
}

/// Storage tensor type of a quantized or FP8 tensor type.
RankedTensorType storageTensorType(RankedTensorType t) {
  Type et = t.getElementType();
  if (isFloat8(et))
    return t.clone(IntegerType::get(t.getContext(), 8));
  if (auto q = dyn_cast<quant::QuantizedType>(et))
    return t.clone(q.getStorageType());
  return t;
}

/// Integer storage value extended to i32 (sign or zero extension).
Value storageToI32(OpBuilder &b, Location loc, Value v, bool isSigned) {
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w == 32)
    return v;
  if (isSigned)
    return arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
}

/// `saturate(round_half_to_even(x / scale) + zp)` in f32, converted to the
/// storage type (ONNX QuantizeLinear). `zp` is i32.
Value quantizeScalar(OpBuilder &b, Location loc, Value x, Value scale, Value zp,
                     const QuantParams &p) {
  Value v = arith::DivFOp::create(b, loc, toF32(b, loc, x), scale);
  v = math::RoundEvenOp::create(b, loc, v);
  v = arith::AddFOp::create(
      b, loc, v, arith::SIToFPOp::create(b, loc, b.getF32Type(), zp));
  // maxnumf(NaN, lo) = lo: NaN saturates to the storage minimum.
  v = arith::MaxNumFOp::create(b, loc, v,
                               f32Const(b, loc, double(p.storageMin)));
  v = arith::MinNumFOp::create(b, loc, v,
                               f32Const(b, loc, double(p.storageMax)));
  if (p.isSigned)
    return arith::FPToSIOp::create(b, loc, p.storageType, v);
  return arith::FPToUIOp::create(b, loc, p.storageType, v);
}

/// `(q - zp) * scale` with an exact i32 subtraction and one f32 rounding
/// (ONNX DequantizeLinear), then rounded to `to`.
Value dequantizeScalar(OpBuilder &b, Location loc, Value q, Value scale,
                       Value zp, const QuantParams &p, Type to) {
  Value i =
      arith::SubIOp::create(b, loc, storageToI32(b, loc, q, p.isSigned), zp);
  Value f = arith::SIToFPOp::create(b, loc, b.getF32Type(), i);
  f = arith::MulFOp::create(b, loc, f, scale);
  if (to.isF32())
    return f;
  return arith::TruncFOp::create(b, loc, to, f);
}

/// Format of an FP8 type: mantissa bits, exponent bias, largest finite value.
struct Fp8Format {
  int mantissa, bias;
  double max;
};
Fp8Format fp8Format(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {3, 7, 448.0};
  return {2, 15, 57344.0};
}

/// f32 -> FP8 bits (i8), rounding to nearest even and saturating to the
/// largest finite value (ONNX `saturate = 1`); NaN -> 0x7F (a NaN in both
/// E4M3FN and E5M2). Normal values round their f32 mantissa with integer
/// arithmetic; values below the smallest normal are multiples of the
/// subnormal step and are rounded with `roundeven(a / step)`.
Value f32ToFp8Bits(OpBuilder &b, Location loc, Value v, Fp8Format f) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i32Const(b, loc, 24)),
      i32Const(b, loc, 0x80));
  Value a = math::AbsFOp::create(b, loc, v);
  Value c = arith::MinimumFOp::create(b, loc, a, f32Const(b, loc, f.max));
  // Subnormal: step 2^(1 - bias - mantissa).
  double invStep = std::ldexp(1.0, f.bias + f.mantissa - 1);
  Value sub = arith::FPToSIOp::create(
      b, loc, i32,
      math::RoundEvenOp::create(
          b, loc, arith::MulFOp::create(b, loc, c, f32Const(b, loc, invStep))));
  // Normal: round the f32 bits to `mantissa` bits (ties to even), rebias.
  int shift = 23 - f.mantissa;
  Value cb = arith::BitcastOp::create(b, loc, i32, c);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, cb, i32Const(b, loc, shift)),
      i32Const(b, loc, 1));
  Value rnd = arith::AddIOp::create(
      b, loc, cb,
      arith::AddIOp::create(b, loc, lsb,
                            i32Const(b, loc, (1 << (shift - 1)) - 1)));
  Value nrm = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rnd, i32Const(b, loc, shift)),
      i32Const(b, loc, (127 - f.bias) << f.mantissa));
  Value isSub =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, c,
                            f32Const(b, loc, std::ldexp(1.0, 1 - f.bias)));
  Value mag = arith::SelectOp::create(b, loc, isSub, sub, nrm);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  mag = arith::SelectOp::create(b, loc, isNan, i32Const(b, loc, 0x7F), mag);
  Value r = arith::OrIOp::create(b, loc, mag, sign);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), r);
}

/// A 256-entry f32 table of every FP8 bit pattern's value (exact: FP8 values
/// are representable in f32).
Value fp8Table(OpBuilder &b, Location loc, Type fp8) {
  const llvm::fltSemantics &sem = cast<FloatType>(fp8).getFloatSemantics();
  SmallVector<float> values;
  for (unsigned i = 0; i < 256; ++i) {
    APFloat x(sem, APInt(8, i));
    bool lost;
    x.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(x.convertToFloat());
  }
  auto type = RankedTensorType::get({256}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<float>(values)));
}

/// Builds an all-parallel generic over `input` (static shape) that gives the
/// body each element with its scale (f32) and zero point (i32), and returns
/// the result of element type `outElem` in `input`'s shape. Blocked
/// (sub-channel) dimensions are split into `[blocks, block_size]` around the
/// generic.
using QuantBodyFn =
    function_ref<Value(OpBuilder &, Location, Value x, Value s, Value z)>;
Value buildQuantElementwise(OpBuilder &b, Location loc, Value input,
                            const QuantParams &p, Type outElem,
                            QuantBodyFn fn) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> iterShape;
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> paramExprs;
  bool split = false;
  for (auto [d, n] : llvm::enumerate(p.paramShape)) {
    ReassociationIndices group{static_cast<int64_t>(iterShape.size())};
    if (n == 1) {
      paramExprs.push_back(getAffineConstantExpr(0, ctx));
      iterShape.push_back(shape[d]);
    } else if (n == shape[d]) {
      paramExprs.push_back(getAffineDimExpr(iterShape.size(), ctx));
      iterShape.push_back(shape[d]);
    } else {
      paramExprs.push_back(getAffineDimExpr(iterShape.size(), ctx));
      iterShape.push_back(n);
      iterShape.push_back(shape[d] / n);
      group.push_back(iterShape.size() - 1);
      split = true;
    }
    groups.push_back(group);
  }
  unsigned numDims = iterShape.size();
  Value x = input;
  if (split)
    x = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(iterShape, type.getElementType()), x,
        groups);

  SmallVector<Value> inputs{x};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(numDims)};
  if (!p.isPerTensor()) {
    auto st = RankedTensorType::get(p.paramShape, b.getF32Type());
    auto zt = RankedTensorType::get(p.paramShape, b.getI32Type());
    SmallVector<float> scales(p.scales.begin(), p.scales.end());
    SmallVector<int32_t> zps(p.zeroPoints.begin(), p.zeroPoints.end());
    inputs.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(st, ArrayRef<float>(scales))));
    inputs.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(zt, ArrayRef<int32_t>(zps))));
    AffineMap pm = AffineMap::get(numDims, 0, paramExprs, ctx);
    maps.push_back(pm);
    maps.push_back(pm);
  }
  maps.push_back(b.getMultiDimIdentityMap(numDims));
  Value init = tensor::EmptyOp::create(b, loc, iterShape, outElem);
  SmallVector<utils::IteratorType> iters(numDims,
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value s, z;
        if (p.isPerTensor()) {
          s = f32Const(nb, l, p.scales[0]);
          z = i32Const(nb, l, p.zeroPoints[0]);
        } else {
          s = args[1];
          z = args[2];
        }
        linalg::YieldOp::create(nb, l, fn(nb, l, args[0], s, z));
      });
  Value r = generic.getResult(0);
  if (split)
    r = tensor::CollapseShapeOp::create(b, loc, type.clone(outElem), r, groups);
  return r;
}

//===----------------------------------------------------------------------===//
// Quantize, dequantize, requantize
//===----------------------------------------------------------------------===//

// llm.quantize %x -> linalg.generic { saturate(roundeven(x / s) + z) } on the
//   storage type, quant.scast back to the quantized type;
// llm.quantize %x {scale} (FP8) -> generic { f32 -> FP8 bits } on i8,
//   arith.bitcast to the FP8 type.
struct QuantizeLowering : LLMLowering<QuantizeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(QuantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type et = type.getElementType();
    Value x = adaptor.getInput();
    if (isFloat8(et)) {
      QuantParams p;
      p.paramShape.assign(type.getRank(), 1);
      p.scales.push_back(op.getScaleAttr().getValueAsDouble());
      p.zeroPoints.push_back(0);
      Fp8Format f = fp8Format(et);
      Value r = buildQuantElementwise(
          rewriter, loc, x, p, rewriter.getI8Type(),
          [&](OpBuilder &b, Location l, Value v, Value s, Value) {
            return f32ToFp8Bits(
                b, l, arith::DivFOp::create(b, l, toF32(b, l, v), s), f);
          });
      rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, r);
      return success();
    }
    FailureOr<QuantParams> p = getQuantParams(et, type.getShape());
    if (failed(p))
      return failure();
    Value r = buildQuantElementwise(
        rewriter, loc, x, *p, p->storageType,
        [&](OpBuilder &b, Location l, Value v, Value s, Value z) {
          return quantizeScalar(b, l, v, s, z, *p);
        });
    rewriter.replaceOp(op, storageCast(rewriter, loc, r, type));
    return success();
  }
};

// llm.dequantize %q -> quant.scast to storage; linalg.generic
//   { (q - z) * s }; FP8: arith.bitcast to i8, generic { table[q] * s }.
struct DequantizeLowering : LLMLowering<DequantizeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(DequantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type et = inType.getElementType(), out = op.getType().getElementType();
    if (isFloat8(et)) {
      QuantParams p;
      p.paramShape.assign(inType.getRank(), 1);
      p.scales.push_back(op.getScaleAttr().getValueAsDouble());
      p.zeroPoints.push_back(0);
      Value bits = arith::BitcastOp::create(
          rewriter, loc, storageTensorType(inType), adaptor.getInput());
      Value table = fp8Table(rewriter, loc, et);
      Value r = buildQuantElementwise(
          rewriter, loc, bits, p, out,
          [&](OpBuilder &b, Location l, Value q, Value s, Value) -> Value {
            Value idx = arith::IndexCastUIOp::create(b, l, b.getIndexType(), q);
            Value v = tensor::ExtractOp::create(b, l, table, idx);
            v = arith::MulFOp::create(b, l, v, s);
            if (out.isF32())
              return v;
            return arith::TruncFOp::create(b, l, out, v);
          });
      rewriter.replaceOp(op, r);
      return success();
    }
    FailureOr<QuantParams> p = getQuantParams(et, inType.getShape());
    if (failed(p))
      return failure();
    Value q = storageCast(rewriter, loc, adaptor.getInput(),
                          storageTensorType(inType));
    Value r = buildQuantElementwise(
        rewriter, loc, q, *p, out,
        [&](OpBuilder &b, Location l, Value v, Value s, Value z) {
          return dequantizeScalar(b, l, v, s, z, *p, out);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.requantize %q -> llm.quantize(llm.dequantize(%q)) in f32: one generic
//   when both sides are per tensor, else the two lowerings.
struct RequantizeLowering : LLMLowering<RequantizeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(RequantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    RankedTensorType type = op.getType();
    FailureOr<QuantParams> pin =
        getQuantParams(inType.getElementType(), inType.getShape());
    FailureOr<QuantParams> pout =
        getQuantParams(type.getElementType(), type.getShape());
    if (failed(pin) || failed(pout))
      return failure();
    Value q = storageCast(rewriter, loc, adaptor.getInput(),
                          storageTensorType(inType));
    Value r;
    if (pin->storageWidth == 32 && pin->isPerTensor() && pout->isPerTensor()) {
      // An integer matmul accumulator: one product with the f32 multiplier
      // s_in / s_out, evaluated in f64 and rounded once, as the ONNX
      // QLinearMatMul reference computes it.
      float mult = float(float(pin->scales[0]) / float(pout->scales[0]));
      r = buildQuantElementwise(
          rewriter, loc, q, *pin, pout->storageType,
          [&](OpBuilder &b, Location l, Value v, Value, Value z) -> Value {
            Type f64 = b.getF64Type();
            auto c64 = [&](double x) -> Value {
              return arith::ConstantOp::create(b, l, b.getF64FloatAttr(x));
            };
            Value d = arith::SIToFPOp::create(
                b, l, f64, arith::SubIOp::create(b, l, v, z));
            d = math::RoundEvenOp::create(
                b, l, arith::MulFOp::create(b, l, d, c64(double(mult))));
            d = arith::AddFOp::create(b, l, d,
                                      c64(double(pout->zeroPoints[0])));
            d = arith::MaxNumFOp::create(b, l, d,
                                         c64(double(pout->storageMin)));
            d = arith::MinNumFOp::create(b, l, d,
                                         c64(double(pout->storageMax)));
            if (pout->isSigned)
              return arith::FPToSIOp::create(b, l, pout->storageType, d);
            return arith::FPToUIOp::create(b, l, pout->storageType, d);
          });
    } else if (pout->isPerTensor()) {
      // Input parameters through the generic, output ones as constants.
      r = buildQuantElementwise(
          rewriter, loc, q, *pin, pout->storageType,
          [&](OpBuilder &b, Location l, Value v, Value s, Value z) {
            Value f = dequantizeScalar(b, l, v, s, z, *pin, b.getF32Type());
            return quantizeScalar(b, l, f, f32Const(b, l, pout->scales[0]),
                                  i32Const(b, l, pout->zeroPoints[0]), *pout);
          });
    } else {
      Value f = buildQuantElementwise(
          rewriter, loc, q, *pin, rewriter.getF32Type(),
          [&](OpBuilder &b, Location l, Value v, Value s, Value z) {
            return dequantizeScalar(b, l, v, s, z, *pin, b.getF32Type());
          });
      r = buildQuantElementwise(
          rewriter, loc, f, *pout, pout->storageType,
          [&](OpBuilder &b, Location l, Value v, Value s, Value z) {
            return quantizeScalar(b, l, v, s, z, *pout);
          });
    }
    rewriter.replaceOp(op, storageCast(rewriter, loc, r, type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Max and reduce_max on integers and quantized values
//===----------------------------------------------------------------------===//

/// Storage element type of an integer or quantized element type and whether
/// it compares signed (signless integers do).
std::pair<Type, bool> orderedStorage(Type et) {
  if (auto q = dyn_cast<quant::QuantizedType>(et))
    return {q.getStorageType(), q.isSigned()};
  return {et, true};
}

Value maxScalar(OpBuilder &b, Location loc, Value x, Value y, bool isSigned) {
  if (isSigned)
    return arith::MaxSIOp::create(b, loc, x, y);
  return arith::MaxUIOp::create(b, loc, x, y);
}

// llm.max %a, %b (integer or quantized) -> quant.scast to the storage type;
//   linalg.generic (broadcasting input maps) { arith.maxsi | arith.maxui };
//   quant.scast back. Floats take the generic lowering (LLMToLinalg.cpp).
struct OrderedMaxLowering : LLMLowering<MaxOp> {
  OrderedMaxLowering(MLIRContext *ctx)
      : LLMLowering<MaxOp>(ctx, /*benefit=*/2) {}
  LogicalResult lower(MaxOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "float max");
    std::pair<Type, bool> ordered = orderedStorage(type.getElementType());
    Type storage = ordered.first;
    bool isSigned = ordered.second;
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    for (Value v : {adaptor.getLhs(), adaptor.getRhs()}) {
      auto t = cast<RankedTensorType>(v.getType());
      ins.push_back(storageCast(rewriter, loc, v, t.clone(storage)));
      // numpy broadcasting: trailing dimensions aligned, size 1 repeated.
      SmallVector<AffineExpr> exprs;
      int64_t offset = rank - t.getRank();
      for (int64_t d = 0; d < t.getRank(); ++d)
        exprs.push_back(t.getDimSize(d) == 1 &&
                                type.getDimSize(d + offset) != 1
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(d + offset));
      maps.push_back(AffineMap::get(rank, 0, exprs, rewriter.getContext()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), storage);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type.clone(storage)}, ins, ValueRange{init},
        maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, maxScalar(b, l, a[0], a[1], isSigned));
        });
    rewriter.replaceOp(op,
                       storageCast(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

// llm.reduce_max %x {axes} (integer or quantized) -> quant.scast to the
//   storage type; linalg.fill (the storage minimum); linalg.generic
//   (reduction iterators over axes) { arith.maxsi | arith.maxui }
//   [-> tensor.expand_shape for keepdims]; quant.scast back.
struct OrderedReduceMaxLowering : LLMLowering<ReduceMaxOp> {
  OrderedReduceMaxLowering(MLIRContext *ctx)
      : LLMLowering<ReduceMaxOp>(ctx, /*benefit=*/2) {}
  LogicalResult lower(ReduceMaxOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "float reduce_max");
    Location loc = op.getLoc();
    auto it = cast<RankedTensorType>(op.getInput().getType());
    Type et = it.getElementType();
    std::pair<Type, bool> ordered = orderedStorage(et);
    Type storage = ordered.first;
    bool isSigned = ordered.second;
    unsigned width = storage.getIntOrFloatBitWidth();
    APInt lowest = isSigned ? APInt::getSignedMinValue(width)
                            : APInt::getMinValue(width);
    if (auto q = dyn_cast<quant::QuantizedType>(et))
      lowest = APInt(width, q.getStorageTypeMin(), /*isSigned=*/true);
    int64_t rank = it.getRank();
    SmallVector<bool> reduced = reducedDims(op.getAxes(), rank);
    SmallVector<int64_t> kept = keptShape(it.getShape(), reduced);
    Value input = storageCast(rewriter, loc, adaptor.getInput(),
                              it.clone(storage));
    // (A kept `?` is the sequence length, DimBounds.h.)
    Value init = createEmptyTensor(rewriter, loc, kept, storage);
    Value lo = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(storage, lowest));
    init = linalg::FillOp::create(rewriter, loc, lo, init).getResult(0);
    auto keptType = RankedTensorType::get(kept, storage);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{keptType}, ValueRange{input}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank),
                               keptDimsMap(rewriter.getContext(), reduced)},
        reductionIterators(reduced),
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, maxScalar(b, l, a[0], a[1], isSigned));
        });
    Value r = generic.getResult(0);
    auto storageType = type.clone(storage);
    if (keptType != storageType) {
      // keepdims: each kept dimension with the reduced ones around it (the
      // leading reduced dimensions join the first group).
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t d = 0; d < rank; ++d) {
        if (reduced[d] && !groups.empty()) {
          groups.back().push_back(d);
          continue;
        }
        pending.push_back(d);
        if (!reduced[d]) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      r = tensor::ExpandShapeOp::create(rewriter, loc, storageType, r, groups);
    }
    rewriter.replaceOp(op, storageCast(rewriter, loc, r, type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Integer matmul
//===----------------------------------------------------------------------===//

// llm.matmul_integer %a, %b [K, N] constant with a sparse llm.sparse_format
//   (bsr16x16), dot_product = "i8" or "amx_i8"
//   -> lowerSparseMatmulInteger (vpdpbusd over the nonzero blocks);
// llm.matmul_integer %a, %b [K, N] constant, 8-bit, static shapes,
//   dot_product = "amx_i8" in its lowering config, at least 32 rows
//   -> buildAMXInt8Matmul (tdpbusd tiles, exact i32);
//   dot_product = "i8" (or "amx_i8" with fewer rows)
//   -> buildInt8DotMatmul (vpdpbusd register tiles, exact i32);
// llm.matmul_integer %a, %b [K, N], 8-bit, static shapes
//   -> a' = f32(ext(a) - za) (exact), then buildPanelDequantMatmul's exact
//   integer panels (f32 panel matmuls of at most 256 terms, i32 sums);
// otherwise:
// llm.matmul_integer %a, %b -> linalg.generic over (batch..., m, n, k)
//   { acc + (ext(a) - za) * (ext(b) - zb[n]) } into an i32 zero fill; the
//   operands' batch dims broadcast through their maps.
struct MatmulIntegerLowering : LLMLowering<MatmulIntegerOp> {
  MatmulIntegerLowering(MLIRContext *ctx, bool vectorKernels)
      : LLMLowering(ctx), vectorKernels(vectorKernels) {}
  /// LLMToLinalgOptions::vectorKernels: the exact f32 panels may be used.
  bool vectorKernels;
  LogicalResult lower(MatmulIntegerOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
    RankedTensorType type = op.getType();
    FailureOr<QuantParams> pa =
        getQuantParams(lt.getElementType(), lt.getShape());
    FailureOr<QuantParams> pb =
        getQuantParams(rt.getElementType(), rt.getShape());
    if (failed(pa) || failed(pb))
      return failure();
    // (A - za) @ (B - zb) with K = 0 -> zeros.
    if (lt.getShape().back() == 0) {
      rewriter.replaceOp(op, zeroMatmulResult(rewriter, loc, type));
      return success();
    }
    Value a =
        storageCast(rewriter, loc, adaptor.getLhs(), storageTensorType(lt));
    // A pruned weight stored sparse (llm-sparsify-weights).
    std::string whyDense;
    if (FailureOr<Value> r = llm::detail::lowerSparseMatmulInteger(
            rewriter, op, a, *pa, whyDense);
        succeeded(r)) {
      rewriter.replaceOp(op, *r);
      return success();
    }
    llm::detail::warnSparseFallback(op, whyDense);
    // AMX tiles where the target has them (a prefill; other shapes take the
    // AVX512-VNNI dot products, which every AMX-INT8 CPU has).
    bool amx = getConfiguredAMXInt8DotProduct(op).value_or(false);
    if (amx) {
      if (FailureOr<Value> r = llm::detail::buildAMXInt8Matmul(
              rewriter, loc, a, *pa, adaptor.getRhs(), *pb, type);
          succeeded(r)) {
        rewriter.replaceOp(op, *r);
        return success();
      }
    }
    // 8-bit dot products where the target has them (a constant weight).
    if (amx || getConfiguredInt8DotProduct(op).value_or(false)) {
      if (FailureOr<Value> r = llm::detail::buildInt8DotMatmul(
              rewriter, loc, a, *pa, adaptor.getRhs(), *pb, type,
              getConfiguredVectorBits(op).value_or(512));
          succeeded(r)) {
        rewriter.replaceOp(op, *r);
        return success();
      }
    }
    // The exact f32 panels (CPU vector loops); without vector kernels (the
    // GPU kernels distribute linalg ops) the integer contraction below.
    if (vectorKernels && rt.getRank() == 2 && lt.hasStaticShape() &&
        rt.hasStaticShape() && pa->storageWidth == 8 && pb->storageWidth == 8 &&
        pa->isPerTensor()) {
      auto ft = RankedTensorType::get(lt.getShape(), rewriter.getF32Type());
      AffineMap id = rewriter.getMultiDimIdentityMap(lt.getRank());
      auto shifted = linalg::GenericOp::create(
          rewriter, loc, TypeRange{ft}, ValueRange{a},
          ValueRange{tensor::EmptyOp::create(rewriter, loc, lt.getShape(),
                                             rewriter.getF32Type())},
          SmallVector<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(lt.getRank(),
                                           utils::IteratorType::parallel),
          [&](OpBuilder &bb, Location l, ValueRange args) {
            Value v = arith::SubIOp::create(
                bb, l, storageToI32(bb, l, args[0], pa->isSigned),
                i32Const(bb, l, pa->zeroPoints[0]));
            linalg::YieldOp::create(
                bb, l,
                ValueRange{
                    arith::SIToFPOp::create(bb, l, bb.getF32Type(), v)});
          });
      FailureOr<Value> r = buildPanelDequantMatmul(
          rewriter, loc, shifted.getResult(0), adaptor.getRhs(),
          /*transposeB=*/false, *pb, type, /*integerAccumulate=*/true);
      if (succeeded(r)) {
        rewriter.replaceOp(op, *r);
        return success();
      }
      rewriter.eraseOp(shifted);
    }
    Value b =
        storageCast(rewriter, loc, adaptor.getRhs(), storageTensorType(rt));
    int64_t outRank = type.getRank(), nb = outRank - 2;
    unsigned numDims = outRank + 1; // batch..., m, n, k
    AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
               k = getAffineDimExpr(nb + 2, ctx);
    auto operandMap = [&](RankedTensorType t, AffineExpr r0, AffineExpr r1) {
      SmallVector<AffineExpr> e;
      int64_t tb = t.getRank() - 2, off = nb - tb;
      for (int64_t i = 0; i < tb; ++i)
        e.push_back(t.getDimSize(i) == 1 && type.getDimSize(off + i) != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(off + i, ctx));
      e.push_back(r0);
      e.push_back(r1);
      return AffineMap::get(numDims, 0, e, ctx);
    };
    SmallVector<Value> inputs{a, b};
    SmallVector<AffineMap> maps{operandMap(lt, m, k), operandMap(rt, k, n)};
    if (!pb->isPerTensor()) {
      SmallVector<int32_t> zps(pb->zeroPoints.begin(), pb->zeroPoints.end());
      auto zt =
          RankedTensorType::get({int64_t(zps.size())}, rewriter.getI32Type());
      inputs.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(zt, ArrayRef<int32_t>(zps))));
      maps.push_back(AffineMap::get(numDims, 0, {n}, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < outRank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    maps.push_back(AffineMap::get(numDims, 0, outExprs, ctx));
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          rewriter.getI32Type());
    Value zero = i32Const(rewriter, loc, 0);
    Value init = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                        ValueRange{empty})
                     .getResult(0);
    SmallVector<utils::IteratorType> iters(numDims,
                                           utils::IteratorType::parallel);
    iters.back() = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iters,
        [&](OpBuilder &bb, Location l, ValueRange args) {
          Value za = i32Const(bb, l, pa->zeroPoints[0]);
          Value zb =
              pb->isPerTensor() ? i32Const(bb, l, pb->zeroPoints[0]) : args[2];
          Value x = arith::SubIOp::create(
              bb, l, storageToI32(bb, l, args[0], pa->isSigned), za);
          Value y = arith::SubIOp::create(
              bb, l, storageToI32(bb, l, args[1], pb->isSigned), zb);
          Value acc = args.back();
          linalg::YieldOp::create(
              bb, l,
              ValueRange{arith::AddIOp::create(
                  bb, l, acc, arith::MulIOp::create(bb, l, x, y))});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

Value mlir::llm::detail::collapseRows(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  if (rank == 2)
    return v;
  return tensor::CollapseShapeOp::create(
      b, loc, v,
      SmallVector<ReassociationIndices>{
          llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}});
}

Value mlir::llm::detail::expandRows(OpBuilder &b, Location loc, Value r,
                                    RankedTensorType resultType) {
  if (resultType.getRank() == 2)
    return r;
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, r,
      SmallVector<ReassociationIndices>{
          llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank() - 1)),
          {resultType.getRank() - 1}});
}

namespace {

//===----------------------------------------------------------------------===//
// Weight-only matmul
//===----------------------------------------------------------------------===//

// llm.dequant_matmul %x, %w [N, K], up to kMatvecMaxRows rows of x
//   -> the matvec kernels (buildDequantMatvecBF16, buildDequantMatvec);
// llm.dequant_matmul %x, %w, other integer weights
//   -> dequantized panels (buildPanelDequantMatmul);
// otherwise (FP8, runtime [N, K] or 4-bit weights, dynamic shapes):
// llm.dequant_matmul %x, %w -> linalg.generic over (m, n, k), or
//   (m, n, kb, kg) when the scales are grouped along K (x viewed as
//   [M, K/G, G], w as [K/G, G, N]): { acc + x * ((ext(w) - z) * s) } with the
//   storage weight and the parameter tensors as inputs, so the weight is
//   dequantized in the contraction's operand load, never materialized.
struct DequantMatmulLowering : LLMLowering<DequantMatmulOp> {
  DequantMatmulLowering(MLIRContext *ctx, int64_t streamedWeightMinBytes)
      : LLMLowering(ctx), streamedWeightMinBytes(streamedWeightMinBytes) {}
  /// Without a `streamed` entry in the op's lowering configuration, a weight
  /// of at least this many stored bytes is taken as streamed.
  int64_t streamedWeightMinBytes;

  // FP8 weight: generic over (m, n, k) { acc + x * (table[bits(w)] * s) }
  // reading the weight's bits (i8), the 256-entry FP8 -> f32 table and the
  // per-tensor scale: the conversion is in the operand load.
  LogicalResult lowerFloat8(DequantMatmulOp op, OpAdaptor adaptor,
                            ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
    RankedTensorType type = op.getType();
    bool tb = op.getTransposeB();
    int64_t N = rt.getDimSize(tb ? 0 : 1);
    int64_t rows = 1;
    for (int64_t d : lt.getShape().drop_back())
      rows *= d;
    // FP8 weights with a dynamic number of rows: not lowered yet.
    if (!lt.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "FP8 weights with a dynamic number of rows");
    Value x = llm::detail::collapseRows(rewriter, loc, adaptor.getLhs());
    Value table = fp8Table(rewriter, loc, rt.getElementType());
    Value bits = arith::BitcastOp::create(rewriter, loc, storageTensorType(rt),
                                          adaptor.getRhs());
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps{AffineMap::get(3, 0, {m, k}, ctx),
                                AffineMap::get(3, 0,
                                               tb ? ArrayRef<AffineExpr>{n, k}
                                                  : ArrayRef<AffineExpr>{k, n},
                                               ctx),
                                AffineMap::get(3, 0, {m, n}, ctx)};
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{rows, N}, rewriter.getF32Type());
    Value init = linalg::FillOp::create(rewriter, loc,
                                        ValueRange{f32Const(rewriter, loc, 0)},
                                        ValueRange{empty})
                     .getResult(0);
    double scale = op.getScaleAttr().getValueAsDouble();
    SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel,
                                           utils::IteratorType::reduction};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{x, bits},
        ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value idx =
              arith::IndexCastUIOp::create(b, l, b.getIndexType(), args[1]);
          Value w = tensor::ExtractOp::create(b, l, table, idx);
          w = arith::MulFOp::create(b, l, w, f32Const(b, l, scale));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::AddFOp::create(
                  b, l, args[2], arith::MulFOp::create(b, l, args[0], w))});
        });
    Value r =
        llm::detail::expandRows(rewriter, loc, generic.getResult(0), type);
    rewriter.replaceOp(op, r);
    return success();
  }

  LogicalResult lower(DequantMatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
    RankedTensorType type = op.getType();
    // x @ dequantize(w) with K = 0 -> zeros.
    if (lt.getShape().back() == 0) {
      rewriter.replaceOp(op, zeroMatmulResult(rewriter, loc, type));
      return success();
    }
    if (isFloat8(rt.getElementType())) {
      llm::detail::warnSparseFallback(op, "no sparse kernel takes FP8 weights");
      return lowerFloat8(op, adaptor, rewriter);
    }
    // A pruned weight in a sparse format (llm-sparsify-weights): llmc's
    // loops over its packed nonzero levels, scaled per channel.
    std::string whyDense;
    if (FailureOr<Value> sparse = llm::detail::lowerSparseDequantMatmul(
            rewriter, op, adaptor.getLhs(), whyDense);
        succeeded(sparse)) {
      rewriter.replaceOp(op,
                         llm::detail::expandRows(rewriter, loc, *sparse, type));
      return success();
    }
    llm::detail::warnSparseFallback(op, whyDense);
    FailureOr<QuantParams> p =
        getQuantParams(rt.getElementType(), rt.getShape());
    if (failed(p))
      return failure();
    bool tb = op.getTransposeB();
    int64_t kDim = tb ? 1 : 0, nDim = 1 - kDim;
    int64_t K = rt.getDimSize(kDim), N = rt.getDimSize(nDim);
    int64_t rows = 1;
    for (int64_t d : lt.getShape().drop_back())
      rows *= d;
    bool dynamicRows = !lt.hasStaticShape();
    // Decode (one row of x, or up to kMatvecMaxRows, weight [N, K]): the
    // vectorized matvec kernel.
    if (!dynamicRows && rows <= kMatvecMaxRows && tb &&
        lt.getElementType().isF32()) {
      FailureOr<Value> r = failure();
      // Streamed from DRAM on every call (the streaming block shapes): as
      // the op's lowering configuration says, else when the weight's stored
      // bytes are at least streamedWeightMinBytes.
      bool streamed = getConfiguredStreamed(op).value_or(
          N * K * int64_t(p->storageWidth) / 8 >= streamedWeightMinBytes);
      // The 4-bit matvec uses the bf16 dot-product kernel where it fits, when
      // the op's lowering configuration asks for it (dot_product = "bf16").
      bool bf16DotProduct = getConfiguredBF16DotProduct(op).value_or(false);
      if (bf16DotProduct && p->storageWidth == 4)
        r = buildDequantMatvecBF16(rewriter, loc, adaptor.getLhs(),
                                   adaptor.getRhs(), *p, type, streamed);
      if (failed(r))
        r = buildDequantMatvec(rewriter, loc, adaptor.getLhs(),
                               adaptor.getRhs(), *p, type, streamed);
      if (succeeded(r)) {
        rewriter.replaceOp(op, *r);
        return success();
      }
    }
    // More rows (prefill), or a weight stored [K, N]: panels.
    if (FailureOr<Value> r = buildPanelDequantMatmul(
            rewriter, loc, adaptor.getLhs(), adaptor.getRhs(), tb, *p, type,
            /*integerAccumulate=*/false);
        succeeded(r)) {
      rewriter.replaceOp(op, *r);
      return success();
    }
    // A dynamic number of rows (a prefill) where the panels do not apply
    // (weights getPanelStorage does not take): the generic contraction over
    // the rows read at run time.
    if (dynamicRows)
      rows = ShapedType::kDynamic;
    Value x = llm::detail::collapseRows(rewriter, loc, adaptor.getLhs());
    Value w =
        storageCast(rewriter, loc, adaptor.getRhs(), storageTensorType(rt));
    // A 4-bit dense_resource constant (one element per byte, which LLVM
    // cannot lower as i4 elements) -> the same values as an inline i4 dense
    // constant (odd K or odd groups, which the panels do not take).
    DenseResourceElementsAttr resource;
    if (auto cast = adaptor.getRhs().getDefiningOp<quant::StorageCastOp>();
        cast && p->storageWidth == 4 &&
        matchPattern(cast.getInput(), m_Constant(&resource))) {
      FailureOr<SmallVector<uint8_t>> v =
          readNibbles(adaptor.getRhs(), rt.getDimSize(0), rt.getDimSize(1),
                      /*isSigned=*/false);
      if (succeeded(v)) {
        SmallVector<APInt> bits;
        for (uint8_t nibble : *v)
          bits.push_back(APInt(4, nibble));
        w = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(storageTensorType(rt), bits));
      }
    }
    int64_t kb = p->paramShape[kDim];
    bool split = kb != 1 && kb != K;
    int64_t g = split ? K / kb : K;
    unsigned numDims = split ? 4 : 3;
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx);
    AffineExpr k0 = getAffineDimExpr(2, ctx);
    AffineExpr k1 = split ? getAffineDimExpr(3, ctx) : AffineExpr();
    Type storage = p->storageType;
    SmallVector<AffineExpr> xe{m}, we;
    if (split) {
      x = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rows, kb, g}, lt.getElementType()), x,
          SmallVector<ReassociationIndices>{{0}, {1, 2}});
      xe.append({k0, k1});
      if (tb) {
        w = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get({N, kb, g}, storage), w,
            SmallVector<ReassociationIndices>{{0}, {1, 2}});
        we = {n, k0, k1};
      } else {
        w = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get({kb, g, N}, storage), w,
            SmallVector<ReassociationIndices>{{0, 1}, {2}});
        we = {k0, k1, n};
      }
    } else {
      xe.push_back(k0);
      we = tb ? SmallVector<AffineExpr>{n, k0} : SmallVector<AffineExpr>{k0, n};
    }
    SmallVector<Value> inputs{x, w};
    SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, xe, ctx),
                                AffineMap::get(numDims, 0, we, ctx)};
    if (!p->isPerTensor()) {
      SmallVector<AffineExpr> pe(2);
      pe[kDim] = kb == 1 ? getAffineConstantExpr(0, ctx) : k0;
      pe[nDim] = p->paramShape[nDim] == 1 ? getAffineConstantExpr(0, ctx) : n;
      auto st = RankedTensorType::get(p->paramShape, rewriter.getF32Type());
      auto zt = RankedTensorType::get(p->paramShape, rewriter.getI32Type());
      SmallVector<float> scales(p->scales.begin(), p->scales.end());
      SmallVector<int32_t> zps(p->zeroPoints.begin(), p->zeroPoints.end());
      inputs.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(st, ArrayRef<float>(scales))));
      inputs.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(zt, ArrayRef<int32_t>(zps))));
      AffineMap pm = AffineMap::get(numDims, 0, pe, ctx);
      maps.append({pm, pm});
    }
    maps.push_back(AffineMap::get(numDims, 0, {m, n}, ctx));
    SmallVector<Value> dynSizes;
    if (dynamicRows)
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, x, 0));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows, N},
                                rewriter.getF32Type(), dynSizes);
    Value init = linalg::FillOp::create(rewriter, loc,
                                        ValueRange{f32Const(rewriter, loc, 0)},
                                        ValueRange{empty})
                     .getResult(0);
    SmallVector<utils::IteratorType> iters(numDims,
                                           utils::IteratorType::reduction);
    iters[0] = iters[1] = utils::IteratorType::parallel;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value s = p->isPerTensor() ? f32Const(b, l, p->scales[0]) : args[2];
          Value z =
              p->isPerTensor() ? i32Const(b, l, p->zeroPoints[0]) : args[3];
          Value dw = dequantizeScalar(b, l, args[1], s, z, *p, b.getF32Type());
          Value acc = args.back();
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::AddFOp::create(
                  b, l, acc, arith::MulFOp::create(b, l, args[0], dw))});
        });
    Value r =
        llm::detail::expandRows(rewriter, loc, generic.getResult(0), type);
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// API
//===----------------------------------------------------------------------===//

void mlir::llm::populateQuantToLinalgConversionPatterns(
    RewritePatternSet &patterns, const LLMToLinalgOptions &options) {
  patterns.add<QuantizeLowering, DequantizeLowering, RequantizeLowering,
               OrderedMaxLowering, OrderedReduceMaxLowering>(
      patterns.getContext());
  patterns.add<MatmulIntegerLowering>(patterns.getContext(),
                                      options.vectorKernels);
  patterns.add<DequantMatmulLowering>(patterns.getContext(),
                                      options.streamedWeightMinBytes);
}

/// The storage type standing for `t` after quantized types are erased.
static Type eraseElement(Type t) {
  if (auto q = dyn_cast<quant::QuantizedType>(t))
    return q.getStorageType();
  if (isFloat8(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

static Type eraseType(Type t) {
  if (auto st = dyn_cast<ShapedType>(t))
    if (st.hasRank() || isa<TensorType>(st))
      return st.clone(eraseElement(st.getElementType()));
  if (auto ft = dyn_cast<FunctionType>(t)) {
    SmallVector<Type> ins, outs;
    for (Type i : ft.getInputs())
      ins.push_back(eraseType(i));
    for (Type o : ft.getResults())
      outs.push_back(eraseType(o));
    return FunctionType::get(t.getContext(), ins, outs);
  }
  return eraseElement(t);
}

void mlir::llm::eraseQuantizedTypes(Operation *root) {
  SmallVector<Operation *> casts;
  root->walk([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      fn.setFunctionTypeAttr(TypeAttr::get(eraseType(fn.getFunctionType())));
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (BlockArgument arg : blk.getArguments())
          arg.setType(eraseType(arg.getType()));
    for (Value v : op->getResults())
      v.setType(eraseType(v.getType()));
    // FP8 constants hold their bits as i8 (the same bytes).
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
          dense && isFloat8(dense.getElementType()))
        c.setValueAttr(dense.bitcast(IntegerType::get(op->getContext(), 8)));
    if (isa<quant::StorageCastOp>(op))
      casts.push_back(op);
    else if (isa<arith::BitcastOp>(op))
      casts.push_back(op);
  });
  for (Operation *op : casts) {
    if (op->getOperand(0).getType() != op->getResult(0).getType())
      continue;
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
}
