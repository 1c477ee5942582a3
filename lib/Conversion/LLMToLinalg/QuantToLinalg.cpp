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

#include "QuantKernels.h"
#include "SparseMatmul.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
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
using mlir::llm::detail::readBytes;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool isFloat8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}
Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

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

/// Reinterprets a quantized tensor as its storage type (or back).
Value storageCast(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return quant::StorageCastOp::create(b, loc, to, v);
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

/// Scalar f32 from an f16/bf16/f32 value.
Value toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
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

/// Base of the quantization patterns: refuses dynamic shapes.
template <typename OpTy>
struct QuantLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    // Static shapes, or dynamic ones where checkDynamicShapes accepts them
    // (a weight-only matmul's rows), as for the other llm ops.
    if (failed(checkDynamicShapes(op, /*emit=*/false)))
      return rewriter.notifyMatchFailure(
          op, "llm-to-linalg requires static shapes");
    return lower(op, adaptor, rewriter);
  }

  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;
};

//===----------------------------------------------------------------------===//
// Quantize, dequantize, requantize
//===----------------------------------------------------------------------===//

// llm.quantize %x -> linalg.generic { saturate(roundeven(x / s) + z) } on the
//   storage type, quant.scast back to the quantized type;
// llm.quantize %x {scale} (FP8) -> generic { f32 -> FP8 bits } on i8,
//   arith.bitcast to the FP8 type.
struct QuantizeLowering : QuantLowering<QuantizeOp> {
  using QuantLowering::QuantLowering;
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
struct DequantizeLowering : QuantLowering<DequantizeOp> {
  using QuantLowering::QuantLowering;
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
struct RequantizeLowering : QuantLowering<RequantizeOp> {
  using QuantLowering::QuantLowering;
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
struct OrderedMaxLowering : QuantLowering<MaxOp> {
  OrderedMaxLowering(MLIRContext *ctx)
      : QuantLowering<MaxOp>(ctx, /*benefit=*/2) {}
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
struct OrderedReduceMaxLowering : QuantLowering<ReduceMaxOp> {
  OrderedReduceMaxLowering(MLIRContext *ctx)
      : QuantLowering<ReduceMaxOp>(ctx, /*benefit=*/2) {}
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
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : op.getAxes())
      reduced[a < 0 ? a + rank : a] = true;
    SmallVector<int64_t> kept;
    SmallVector<AffineExpr> keptExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(reduced[d] ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
      if (reduced[d])
        continue;
      kept.push_back(it.getDimSize(d));
      keptExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    Value input = storageCast(rewriter, loc, adaptor.getInput(),
                              it.clone(storage));
    Value init = tensor::EmptyOp::create(rewriter, loc, kept, storage);
    Value lo = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(storage, lowest));
    init = linalg::FillOp::create(rewriter, loc, lo, init).getResult(0);
    auto keptType = RankedTensorType::get(kept, storage);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{keptType}, ValueRange{input},
        ValueRange{init},
        SmallVector<AffineMap>{
            rewriter.getMultiDimIdentityMap(rank),
            AffineMap::get(rank, 0, keptExprs, rewriter.getContext())},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
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

FailureOr<Value> buildPanelDequantMatmul(OpBuilder &b, Location loc, Value x,
                                         Value wq, bool transposeB,
                                         const QuantParams &p,
                                         RankedTensorType resultType,
                                         bool integerAccumulate);

// llm.matmul_integer %a, %b [K, N] constant, 8-bit, static shapes,
//   dot_product = "i8" in its lowering config
//   -> buildInt8DotMatmul (vpdpbusd register tiles, exact i32);
// llm.matmul_integer %a, %b [K, N], 8-bit, static shapes
//   -> a' = f32(ext(a) - za) (exact), then buildPanelDequantMatmul's exact
//   integer panels (f32 panel matmuls of at most 256 terms, i32 sums);
// otherwise:
// llm.matmul_integer %a, %b -> linalg.generic over (batch..., m, n, k)
//   { acc + (ext(a) - za) * (ext(b) - zb[n]) } into an i32 zero fill; the
//   operands' batch dims broadcast through their maps.
struct MatmulIntegerLowering : QuantLowering<MatmulIntegerOp> {
  MatmulIntegerLowering(MLIRContext *ctx, bool vectorKernels)
      : QuantLowering(ctx), vectorKernels(vectorKernels) {}
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
    // 8-bit dot products where the target has them (a constant weight).
    if (getConfiguredInt8DotProduct(op).value_or(false)) {
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

//===----------------------------------------------------------------------===//
// Weight-only decode matvec (M = 1, weight [N, K])
//===----------------------------------------------------------------------===//

/// Elements of K per step of the matvec kernel.
constexpr int64_t kMatvecChunk = 32;
/// The matvec kernels' block shapes for a streamed weight (read from DRAM on
/// every call: `streamed` in the op's `llm.lowering_config`, else at least
/// `LLMToLinalgOptions::streamedWeightMinBytes`): fewer weight rows per block
/// than the cache-tuned shapes. Measured on the Zen 5 machine of bench/quant
/// (1x4096 @ 4096x4096, caches evicted before each call): int8 one row per
/// block with 64-element chunks, int4 (AVX512-BF16 kernel) two rows, against
/// four and eight cache-tuned; see bench/quant/results.md.
constexpr int64_t kStreamedMatvecChunk = 64;
constexpr int64_t kStreamedMatvecRows8 = 1;
constexpr int64_t kStreamedMatvecRows4 = 2;
/// ... and the int4 kernel's loop over chunks unrolled by 4 (cold 0.41 ->
/// 0.39 ms on the same shape, warm unchanged).
constexpr int64_t kStreamedMatvecUnroll4 = 4;
/// Most rows of x the matvec kernel takes (one unpacked weight chunk feeds
/// all of them; more would spill the R * M accumulators).
constexpr int64_t kMatvecMaxRows = 4;

/// The 4-bit storage values of a constant weight `[n, k]` (inline dense, or
/// a resource blob holding one element per byte), one per byte in [0, 15]:
/// unsigned nibbles as they are, signed ones biased to `q + 8` (the kernels
/// raise the zero point by 8). Fails for non-constant weights.
FailureOr<SmallVector<uint8_t>> readNibbles(Value w, int64_t n, int64_t k,
                                            bool isSigned) {
  auto cast = w.getDefiningOp<quant::StorageCastOp>();
  Attribute attr;
  if (!cast || !matchPattern(cast.getInput(), m_Constant(&attr)))
    return failure();
  SmallVector<uint8_t> values;
  values.reserve(n * k);
  uint8_t bias = isSigned ? 8 : 0;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(uint8_t(v.getZExtValue() & 0xF) ^ bias);
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || int64_t(blob->getData().size()) != n * k)
      return failure();
    for (char c : blob->getData())
      values.push_back((uint8_t(c) & 0xF) ^ bias);
  } else {
    return failure();
  }
  if (int64_t(values.size()) != n * k)
    return failure();
  return values;
}

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

/// The 4-bit values of a constant weight (see readNibbles), packed two per
/// byte in the f32 matvec kernel's internal layout: within each block of 32
/// elements of a row (`kMatvecChunk`), byte `j` (0..15) holds element `j`
/// in its low nibble and element `j + 16` in its high nibble (the llama.cpp
/// Q4 arrangement, not the ONNX int4 / GPTQ order of the imported data), so
/// that one 16-byte load gives two contiguous runs of 16 elements with one
/// AND and one shift and no interleaving. Fails for non-constant weights
/// and when `k` is not a multiple of 32.
FailureOr<SmallVector<char>> packNibbles(Value w, int64_t n, int64_t k,
                                         bool isSigned) {
  FailureOr<SmallVector<uint8_t>> values = readNibbles(w, n, k, isSigned);
  constexpr int64_t half = kMatvecChunk / 2;
  if (failed(values) || k % kMatvecChunk != 0)
    return failure();
  SmallVector<char> packed(n * k / 2);
  for (int64_t b = 0, e = n * k; b < e; b += kMatvecChunk)
    for (int64_t j = 0; j < half; ++j)
      packed[b / 2 + j] =
          char((*values)[b + j] | ((*values)[b + half + j] << 4));
  return packed;
}

/// Weight rows per block of a matvec kernel: the largest power of two that
/// divides N and is at most max(1, budget / M) (R * M accumulators).
int64_t getMatvecBlockRows(int64_t N, int64_t M, int64_t budget) {
  for (int64_t r = std::max<int64_t>(1, budget / M); r > 1; r /= 2)
    if (N % r == 0)
      return r;
  return 1;
}

/// A row-major `[N, rowSize]` array interleaved by blocks of `R` rows, for a
/// matvec kernel that walks `R` rows at a time: the result is
/// `[N / R, R * rowSize]`, with
///   out[blk][c * R * chunk + r * chunk + j] = in[blk * R + r][c * chunk + j]
/// so that one block reads its rows' chunk c as one contiguous run, and the
/// whole block as one sequential stream (R rows read side by side are R
/// streams a page apart, which the hardware prefetchers follow worse: 15.7
/// against 24.6 GB/s for 4 rows of 4 KiB on the Zen 4 machine of
/// bench/quant). `chunk` divides `rowSize`.
template <typename T>
SmallVector<T> interleaveRows(ArrayRef<T> in, int64_t N, int64_t rowSize,
                              int64_t R, int64_t chunk) {
  SmallVector<T> out(in.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < rowSize; c += chunk)
      std::memcpy(&out[(n / R) * R * rowSize + c * R + (n % R) * chunk],
                  &in[n * rowSize + c], chunk * sizeof(T));
  return out;
}

/// The start of a matvec kernel: an `scf.forall` over the N / R blocks of
/// `R` weight rows with an [M, N] f32 output; `b`'s insertion point is left
/// at the start of its body (the caller holds an InsertionGuard).
struct MatvecBlock {
  scf::ForallOp forall;
  /// The block's first weight row, and its R rows.
  Value n0;
  SmallVector<Value> rows;
  /// A zero accumulator of `accType`, and an i8 zero (transfer padding).
  Value zeroAcc, pad8;
};
MatvecBlock beginMatvec(OpBuilder &b, Location loc, int64_t M, int64_t N,
                        int64_t R, VectorType accType) {
  MatvecBlock blk;
  Value out =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, N}, b.getF32Type());
  blk.forall = scf::ForallOp::create(
      b, loc, SmallVector<OpFoldResult>{b.getIndexAttr(N / R)}, ValueRange{out},
      std::nullopt);
  b.setInsertionPointToStart(blk.forall.getBody());
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  blk.n0 = arith::MulIOp::create(b, loc, blk.forall.getInductionVar(0), idx(R));
  for (int64_t r = 0; r < R; ++r)
    blk.rows.push_back(
        r == 0 ? blk.n0
               : arith::AddIOp::create(b, loc, blk.n0, idx(r)).getResult());
  blk.zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0)));
  blk.pad8 =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getI8Type(), 0));
  return blk;
}

/// Ends a matvec kernel's `scf.forall` over blocks of `R` weight rows
/// (`n0`: the block's first row): one horizontal sum of each vector
/// accumulator `acc[r * M + m]` (weight row r, x row m), the [M, R] tile
/// stored into the forall's [M, N] output, which is reshaped to
/// `resultType` (the leading dimensions of x, all 1 but the product M, and
/// N). The insertion point is after the kernel's loop in the forall body.
Value finishMatvec(OpBuilder &b, Location loc, scf::ForallOp forall, Value n0,
                   ValueRange acc, int64_t M, int64_t R,
                   RankedTensorType resultType) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tile =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, R}, b.getF32Type());
  for (int64_t m = 0; m < M; ++m) {
    SmallVector<Value> results;
    for (int64_t r = 0; r < R; ++r)
      results.push_back(vector::ReductionOp::create(
          b, loc, vector::CombiningKind::ADD, acc[r * M + m]));
    Value rv = vector::FromElementsOp::create(
        b, loc, VectorType::get({R}, b.getF32Type()), results);
    tile = vector::TransferWriteOp::create(b, loc, rv, tile,
                                           ValueRange{idx(m), idx(0)},
                                           ArrayRef<bool>{true})
               .getResult();
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{b.getIndexAttr(0), n0},
      SmallVector<OpFoldResult>{b.getIndexAttr(M), b.getIndexAttr(R)},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  b.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (resultType.getRank() == 2)
    return result;
  // [M, N] -> the result shape: the leading dimensions of x (all 1 but the
  // product M) and N.
  int64_t rank = resultType.getRank();
  if (rank == 1)
    return tensor::CollapseShapeOp::create(
               b, loc, resultType, result,
               SmallVector<ReassociationIndices>{{0, 1}})
        .getResult();
  SmallVector<ReassociationIndices> re{
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}};
  return tensor::ExpandShapeOp::create(b, loc, resultType, result, re)
      .getResult();
}

/// `x[M, K] @ dequantize(w)^T` for a weight stored `[N, K]` (transpose_b)
/// and 1 <= M <= kMatvecMaxRows rows of x (decode, or a short prefill):
/// a parallel loop over blocks of `R` weight rows; per block, a loop over the
/// quantization groups along K and, inside, over chunks of 32 elements of K:
/// the weight chunk is one vector load of the storage bytes (16 bytes of
/// packed nibbles for 4-bit weights, in packNibbles' layout: zero-extended
/// to i32 lanes, the low nibbles (`& 15`) are elements 0..15 of the chunk
/// and the high nibbles (`>> 4`) elements 16..31, each matched with a plain
/// load of x), converted to f32 in registers and multiplied with x into an
/// f32 vector accumulator per weight row and row of x (each unpacked weight
/// chunk is reused by the M rows of x, never stored). The zero point and
/// scale apply once per
/// group: `sum_k x (q - z) s = s (sum_k x q - z sum_k x)`, with `sum_k x`
/// (per lane) accumulated once for all rows (neither when every stored
/// zero point is 0: symmetric 8-bit weights); signed nibbles are stored as
/// `q + 8` and their zero point raised by 8, so the inner loop is
/// zero-extension, and/shift, conversion and FMA only. One horizontal sum
/// per row ends the block. Returns failure when the shape or
/// layout does not fit (the caller then emits the generic contraction).
FailureOr<Value> buildDequantMatvec(OpBuilder &b, Location loc, Value x,
                                    Value wq, const QuantParams &p,
                                    RankedTensorType resultType,
                                    bool streamed) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  int64_t N = wt.getDimSize(0), K = wt.getDimSize(1);
  if (xt.getRank() < 1 || xt.getShape().back() != K ||
      !xt.getElementType().isF32())
    return failure();
  // Rows of x (a decode step, or a few rows of a prefill): each weight chunk
  // is unpacked once for all of them.
  int64_t M = xt.getNumElements() / K;
  if (M < 1 || M > kMatvecMaxRows)
    return failure();
  int64_t kb = p.paramShape[1], nParams = p.paramShape[0];
  int64_t G = K / kb, C = kMatvecChunk;
  // A streamed 8-bit weight: one row per block, with chunks of 64 elements
  // (4 accumulator registers per row of x) for one or two rows of x when
  // the groups allow.
  bool streamed8 = streamed && p.storageWidth == 8;
  if (streamed8 && M <= 2 && K % kStreamedMatvecChunk == 0 &&
      G % kStreamedMatvecChunk == 0)
    C = kStreamedMatvecChunk;
  if (K % C != 0 || G % C != 0 || (p.storageWidth != 8 && p.storageWidth != 4))
    return failure();
  bool packed4 = p.storageWidth == 4;
  // Weight rows per block: 8 for 4-bit weights (one vector<16xf32>
  // accumulator each; the x chunk's loads are shared by more rows), 4 for
  // 8-bit ones (vector<32xf32> accumulators: 2 registers each), divided by
  // the rows of x (R * M accumulators).
  int64_t R = getMatvecBlockRows(
      N, M, packed4 ? 8 : (streamed8 ? kStreamedMatvecRows8 : 4));
  // A constant weight is interleaved by blocks of R rows (interleaveRows:
  // [N / R, R * row bytes], chunk by chunk); a runtime 8-bit one is read
  // [N, K] as it is.
  Value w;
  bool blocked = true;
  int64_t chunkBytes = packed4 ? C / 2 : C, rowBytes = packed4 ? K / 2 : K;
  SmallVector<char> bytes;
  if (packed4) {
    FailureOr<SmallVector<char>> packed = packNibbles(wq, N, K, p.isSigned);
    if (failed(packed))
      return failure();
    bytes = std::move(*packed);
  } else if (FailureOr<SmallVector<uint8_t>> v = readBytes(wq, N * K);
             succeeded(v)) {
    bytes.assign(v->begin(), v->end());
  } else {
    blocked = false;
    w = storageCast(b, loc, wq, RankedTensorType::get({N, K}, p.storageType));
  }
  if (blocked)
    w = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::getFromRawBuffer(
            RankedTensorType::get({N / R, R * rowBytes}, b.getI8Type()),
            ArrayRef<char>(interleaveRows<char>(bytes, N, rowBytes, R,
                                                chunkBytes))));
  // x as a [M * K] vector source.
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()))};
  Value x1 = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({M * K}, b.getF32Type()), x, all);
  // Scales and zero points (as f32: small integers, exact) per [n, group].
  // Signed nibbles are stored as `q + 8` (packNibbles): their zero points
  // are raised by 8.
  double zShift = packed4 && p.isSigned ? 8.0 : 0.0;
  // Symmetric weights (every stored zero point 0, as int8 weights usually
  // are): no zero-point term, so no per-lane sums of x either.
  bool hasZeros = zShift != 0.0 || llvm::any_of(p.zeroPoints, [](int64_t z) {
                    return z != 0;
                  });
  Value scales, zeros;
  // Per-row parameters are interleaved like the weight: [N / R, kb * R].
  bool blockedParams = nParams != 1;
  if (!p.isPerTensor()) {
    auto st = blockedParams
                  ? RankedTensorType::get({N / R, kb * R}, b.getF32Type())
                  : RankedTensorType::get(p.paramShape, b.getF32Type());
    SmallVector<float> s(p.scales.begin(), p.scales.end());
    SmallVector<float> z;
    for (int64_t v : p.zeroPoints)
      z.push_back(float(v + zShift));
    if (blockedParams) {
      s = interleaveRows<float>(s, N, kb, R, 1);
      z = interleaveRows<float>(z, N, kb, R, 1);
    }
    scales = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(st, ArrayRef<float>(s)));
    if (hasZeros)
      zeros = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(st, ArrayRef<float>(z)));
  }

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  int64_t lanes = packed4 ? C / 2 : C;
  auto accType = VectorType::get({lanes}, b.getF32Type());
  OpBuilder::InsertionGuard guard(b);
  MatvecBlock blk = beginMatvec(b, loc, M, N, R, accType);
  scf::ForallOp forall = blk.forall;
  Value n0 = blk.n0, zeroAcc = blk.zeroAcc, pad8 = blk.pad8;
  SmallVector<Value> rows = blk.rows;
  Value padF = f32Const(b, loc, 0.0);
  Value block = forall.getInductionVar(0);
  // The weight bytes of row r of the block at byte offset `kb` of the row:
  // [n0 + r, kb], or in the interleaved layout [block, kb * R + r * chunk].
  auto weightAt = [&](OpBuilder &wb, Location l, int64_t r,
                      Value kByte) -> SmallVector<Value> {
    if (!blocked)
      return {rows[r], kByte};
    Value off = arith::MulIOp::create(wb, l, kByte, idx(wb, R));
    if (r)
      off = arith::AddIOp::create(wb, l, off, idx(wb, r * chunkBytes));
    return {block, off};
  };

  // Accumulator of weight row r and x row m: r * M + m; per-lane sums of x
  // row m (for the zero points): R * M + m.
  auto groups = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, kb), idx(b, 1),
      SmallVector<Value>(R * M, zeroAcc),
      [&](OpBuilder &gb, Location l, Value g, ValueRange totals) {
        // The group's scale and zero point per row.
        SmallVector<Value> s(R), z(R);
        for (int64_t r = 0; r < R; ++r) {
          if (p.isPerTensor()) {
            s[r] = f32Const(gb, l, p.scales[0]);
            if (hasZeros)
              z[r] = f32Const(gb, l, double(p.zeroPoints[0]) + zShift);
            continue;
          }
          Value pg = kb == 1 ? idx(gb, 0) : g;
          SmallVector<Value> at{idx(gb, 0), pg};
          if (blockedParams) {
            // [block, g * R + r]
            Value off = arith::MulIOp::create(gb, l, pg, idx(gb, R));
            at = {block, arith::AddIOp::create(gb, l, off, idx(gb, r))};
          }
          s[r] = tensor::ExtractOp::create(gb, l, scales, at);
          if (hasZeros)
            z[r] = tensor::ExtractOp::create(gb, l, zeros, at);
        }
        Value gk0 = arith::MulIOp::create(gb, l, g, idx(gb, G));
        auto chunks = scf::ForOp::create(
            gb, l, idx(gb, 0), idx(gb, G), idx(gb, C),
            SmallVector<Value>(R * M + (hasZeros ? M : 0), zeroAcc),
            [&](OpBuilder &cb, Location cl, Value kc, ValueRange sums) {
              Value k = arith::AddIOp::create(cb, cl, gk0, kc);
              // x[k, k + lanes) (and, for packed nibbles, the high half
              // x[k + 16, k + 32)).
              auto xvt = VectorType::get({lanes}, cb.getF32Type());
              SmallVector<Value> xe(M), xo(M), xsum(M);
              for (int64_t m = 0; m < M; ++m) {
                Value km = m == 0 ? k
                                  : arith::AddIOp::create(cb, cl, k,
                                                          idx(cb, m * K))
                                        .getResult();
                xe[m] = vector::TransferReadOp::create(
                    cb, cl, xvt, x1, ValueRange{km}, padF,
                    ArrayRef<bool>{true});
                if (packed4)
                  xo[m] = vector::TransferReadOp::create(
                      cb, cl, xvt, x1,
                      ValueRange{
                          arith::AddIOp::create(cb, cl, km, idx(cb, lanes))},
                      padF, ArrayRef<bool>{true});
                // sum_k x per lane, for the zero points.
                if (!hasZeros)
                  continue;
                xsum[m] = arith::AddFOp::create(cb, cl, sums[R * M + m], xe[m]);
                if (packed4)
                  xsum[m] = arith::AddFOp::create(cb, cl, xsum[m], xo[m]);
              }
              auto toF32 = [&](Value v) -> Value {
                auto vt = VectorType::get({lanes}, cb.getF32Type());
                // Nibbles are in [0, 15] as i32: a signed conversion.
                if (p.isSigned || packed4)
                  return arith::SIToFPOp::create(cb, cl, vt, v);
                return arith::UIToFPOp::create(cb, cl, vt, v);
              };
              SmallVector<Value> next(R * M);
              for (int64_t r = 0; r < R; ++r) {
                if (!packed4) {
                  Value wv = vector::TransferReadOp::create(
                      cb, cl, VectorType::get({C}, cb.getI8Type()), w,
                      weightAt(cb, cl, r, k), pad8, ArrayRef<bool>{true});
                  Value wf = toF32(wv);
                  for (int64_t m = 0; m < M; ++m)
                    next[r * M + m] = vector::FMAOp::create(
                        cb, cl, xe[m], wf, sums[r * M + m]);
                } else {
                  auto bt = VectorType::get({C / 2}, cb.getI8Type());
                  Value kp = arith::DivUIOp::create(cb, cl, k, idx(cb, 2));
                  Value bv = vector::TransferReadOp::create(
                      cb, cl, bt, w, weightAt(cb, cl, r, kp), pad8,
                      ArrayRef<bool>{true});
                  auto it = VectorType::get({C / 2}, cb.getI32Type());
                  Value wv = arith::ExtUIOp::create(cb, cl, it, bv);
                  auto splat = [&](int64_t v) -> Value {
                    return arith::ConstantOp::create(
                        cb, cl,
                        DenseElementsAttr::get(
                            it, cb.getIntegerAttr(cb.getI32Type(), v)));
                  };
                  Value lo = arith::AndIOp::create(cb, cl, wv, splat(0xF));
                  Value hi = arith::ShRUIOp::create(cb, cl, wv, splat(4));
                  Value lf = toF32(lo), hf = toF32(hi);
                  for (int64_t m = 0; m < M; ++m) {
                    Value acc = vector::FMAOp::create(cb, cl, xe[m], lf,
                                                      sums[r * M + m]);
                    next[r * M + m] =
                        vector::FMAOp::create(cb, cl, xo[m], hf, acc);
                  }
                }
              }
              if (hasZeros)
                next.append(xsum);
              scf::YieldOp::create(cb, cl, next);
            });
        SmallVector<Value> next;
        for (int64_t r = 0; r < R; ++r) {
          // total += s * sum(x q) - s * z * sum(x)
          Value sr = vector::BroadcastOp::create(gb, l, accType, s[r]);
          Value szr;
          if (hasZeros)
            szr = vector::BroadcastOp::create(
                gb, l, accType,
                arith::NegFOp::create(
                    gb, l, arith::MulFOp::create(gb, l, s[r], z[r])));
          for (int64_t m = 0; m < M; ++m) {
            Value t = vector::FMAOp::create(
                gb, l, sr, chunks.getResult(r * M + m), totals[r * M + m]);
            next.push_back(hasZeros ? vector::FMAOp::create(
                                          gb, l, szr,
                                          chunks.getResult(R * M + m), t)
                                          .getResult()
                                    : t);
          }
        }
        scf::YieldOp::create(gb, l, next);
      });
  return finishMatvec(b, loc, forall, n0, groups.getResults(), M, R,
                      resultType);
}

/// Elements of K per step of the bf16 matvec kernel: four planes of 32.
constexpr int64_t kBF16Chunk = 128;

/// The bf16 bits of a small integer (exact for |v| < 256).
static uint16_t bf16Bits(int v) {
  float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return uint16_t(u >> 16);
}

/// `x[M, K] @ dequantize(w)^T` for a constant 4-bit weight stored `[N, K]`
/// and 1 <= M <= kMatvecMaxRows rows of x, on targets with AVX512-BF16 dot
/// products and AVX512-BW word permutes (`dot_product = "bf16"` in the op's
/// `llm.lowering_config`):
///  * the weight is packed in this kernel's layout: within each chunk of
///    128 elements of a row, 16-bit word `i` (0..31, bytes 2i and 2i + 1)
///    holds element `32p + i` in bits [4p, 4p + 4) (p = 0..3), storage
///    values as readNibbles gives them (signed ones as `q + 8`);
///  * plane p of a chunk is `vpermw(table_z, word >> 4p)` (AVX512-BW
///    `vpermw` as `llvm.inline_asm`; it reads the
///    low 5 bits of each index): a vector<32xbf16> of `q - z` for the
///    elements 32p..32p+31, from the 32-entry table of the group's zero
///    point `z` (`table_z[j] = bf16((j & 15) - z)`: small integers, exact),
///    so the zero point costs nothing in the loop;
///  * x is split once per call into two bf16 terms, `hi = bf16(x)` and
///    `lo = bf16(x - hi)` (round to nearest even: 16 significant bits,
///    |x - hi - lo| <= 2^-16 |x|), and each plane is multiplied with both by
///    `vdpbf16ps` (`x86vector.avx512.dot`: products of bf16 pairs, exact in
///    f32, accumulated in f32);
///  * each group's sum is scaled once: `total += s * sum_k x (q - z)`.
/// The error against the f32 kernel is at most 2^-16 sum_k |x| |q - z| s
/// (plus the f32 rounding both have). Groups of 32 or 64 elements, or
/// multiples of 128 (per channel included); K a multiple of 128; zero
/// points in [0, 15] after the signed bias. Returns failure when the shape
/// or the parameters do not fit (the caller then uses the f32 kernel).
FailureOr<Value> buildDequantMatvecBF16(OpBuilder &b, Location loc, Value x,
                                        Value wq, const QuantParams &p,
                                        RankedTensorType resultType,
                                        bool streamed) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  int64_t N = wt.getDimSize(0), K = wt.getDimSize(1);
  if (p.storageWidth != 4 || xt.getRank() < 1 || xt.getShape().back() != K ||
      !xt.getElementType().isF32() || K % kBF16Chunk != 0)
    return failure();
  int64_t M = xt.getNumElements() / K;
  if (M < 1 || M > kMatvecMaxRows)
    return failure();
  int64_t kb = p.paramShape[1], nParams = p.paramShape[0];
  int64_t G = K / kb;
  if (G % 32 != 0 || (kBF16Chunk % G != 0 && G % kBF16Chunk != 0))
    return failure();
  // Zero points as table rows (signed nibbles are stored as q + 8).
  int64_t zShift = p.isSigned ? 8 : 0;
  SmallVector<int8_t> zRows;
  for (int64_t z : p.zeroPoints) {
    if (z + zShift < 0 || z + zShift > 15)
      return failure();
    zRows.push_back(int8_t(z + zShift));
  }
  FailureOr<SmallVector<uint8_t>> values = readNibbles(wq, N, K, p.isSigned);
  if (failed(values))
    return failure();
  SmallVector<char> bytes(N * K / 2);
  for (int64_t row = 0; row < N; ++row)
    for (int64_t c = 0; c < K; c += kBF16Chunk)
      for (int64_t i = 0; i < 32; ++i) {
        const uint8_t *v = values->data() + row * K + c;
        uint16_t word = uint16_t(v[i] | (v[32 + i] << 4) | (v[64 + i] << 8) |
                                 (v[96 + i] << 12));
        char *out = bytes.data() + (row * K + c) / 2 + 2 * i;
        out[0] = char(word & 0xFF);
        out[1] = char(word >> 8);
      }
  Type i16 = b.getI16Type(), f32 = b.getF32Type();
  Type bf16 = b.getBF16Type();
  // Rows per block: R * M accumulators of one register each (8 at most).
  // The weight and its per-row parameters are interleaved by blocks of R
  // rows (interleaveRows), chunk by chunk: one sequential stream per block.
  int64_t R =
      getMatvecBlockRows(N, M, streamed ? kStreamedMatvecRows4 : 8);
  constexpr int64_t chunkBytes = kBF16Chunk / 2;
  Value w = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get({N / R, R * K / 2}, b.getI8Type()),
          ArrayRef<char>(
              interleaveRows<char>(bytes, N, K / 2, R, chunkBytes))));
  SmallVector<uint16_t> tableBits;
  for (int z = 0; z < 16; ++z)
    for (int j = 0; j < 32; ++j)
      tableBits.push_back(bf16Bits((j & 15) - z));
  Value tables = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({16, 32}, i16),
                             ArrayRef<uint16_t>(tableBits)));
  Value scales, zeros;
  bool blockedParams = nParams != 1;
  if (!p.isPerTensor()) {
    SmallVector<float> sv(p.scales.begin(), p.scales.end());
    SmallVector<int8_t> zv(zRows);
    SmallVector<int64_t> shape(p.paramShape);
    if (blockedParams) {
      sv = interleaveRows<float>(sv, N, kb, R, 1);
      zv = interleaveRows<int8_t>(zv, N, kb, R, 1);
      shape = {N / R, kb * R};
    }
    scales = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, f32),
                               ArrayRef<float>(sv)));
    zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, b.getI8Type()),
                               ArrayRef<int8_t>(zv)));
  }

  // x as [M * K] and its two bf16 terms.
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()))};
  auto flat = RankedTensorType::get({M * K}, f32);
  Value x1 = tensor::CollapseShapeOp::create(b, loc, flat, x, all);
  auto planeType = RankedTensorType::get({M * K}, bf16);
  Value planeInit = tensor::EmptyOp::create(b, loc, planeType.getShape(), bf16);
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto split = linalg::GenericOp::create(
      b, loc, TypeRange{planeType, planeType}, ValueRange{x1},
      ValueRange{planeInit, planeInit}, SmallVector<AffineMap>(3, id),
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &gb, Location l, ValueRange args) {
        // hi = bf16(x), lo = bf16(x - hi)
        Value hi = arith::TruncFOp::create(gb, l, bf16, args[0]);
        Value rest = arith::SubFOp::create(
            gb, l, args[0], arith::ExtFOp::create(gb, l, f32, hi));
        Value lo = arith::TruncFOp::create(gb, l, bf16, rest);
        linalg::YieldOp::create(gb, l, ValueRange{hi, lo});
      });
  Value xh = split.getResult(0), xl = split.getResult(1);

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto accType = VectorType::get({16}, f32);
  auto wordsType = VectorType::get({32}, i16);
  auto bfType = VectorType::get({32}, bf16);
  OpBuilder::InsertionGuard guard(b);
  MatvecBlock blk = beginMatvec(b, loc, M, N, R, accType);
  scf::ForallOp forall = blk.forall;
  Value n0 = blk.n0, zeroAcc = blk.zeroAcc, pad8 = blk.pad8;
  SmallVector<Value> rows = blk.rows;
  Value pad16 = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i16, 0));
  Value padBF = arith::ConstantOp::create(b, loc, b.getFloatAttr(bf16, 0.0));
  // AT&T operand order: $0 = table[$1 & 31] with $2 the table.
  StringAttr permw = b.getStringAttr("vpermw $2, $1, $0");
  // Elements per segment of a chunk that one scale covers, and segments.
  int64_t segLen = std::min(G, kBF16Chunk), segs = kBF16Chunk / segLen;

  auto chunks = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, K / kBF16Chunk), idx(b, 1),
      SmallVector<Value>(R * M, zeroAcc),
      [&](OpBuilder &cb, Location l, Value c, ValueRange totals) {
        Value k0 = arith::MulIOp::create(cb, l, c, idx(cb, kBF16Chunk));
        Value kp = arith::MulIOp::create(cb, l, c, idx(cb, kBF16Chunk / 2));
        // The x terms of the chunk, per row of x and plane.
        SmallVector<Value> xhv(M * 4), xlv(M * 4);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t q = 0; q < 4; ++q) {
            Value off =
                arith::AddIOp::create(cb, l, k0, idx(cb, m * K + 32 * q));
            xhv[m * 4 + q] = vector::TransferReadOp::create(
                cb, l, bfType, xh, ValueRange{off}, padBF,
                ArrayRef<bool>{true});
            xlv[m * 4 + q] = vector::TransferReadOp::create(
                cb, l, bfType, xl, ValueRange{off}, padBF,
                ArrayRef<bool>{true});
          }
        SmallVector<Value> next(totals.begin(), totals.end());
        for (int64_t r = 0; r < R; ++r) {
          // [block, kp * R + r * chunkBytes]
          Value off = arith::MulIOp::create(cb, l, kp, idx(cb, R));
          if (r)
            off = arith::AddIOp::create(cb, l, off, idx(cb, r * chunkBytes));
          Value bytesV = vector::TransferReadOp::create(
              cb, l, VectorType::get({chunkBytes}, cb.getI8Type()), w,
              ValueRange{forall.getInductionVar(0), off}, pad8,
              ArrayRef<bool>{true});
          Value words = vector::BitCastOp::create(cb, l, wordsType, bytesV);
          for (int64_t sg = 0; sg < segs; ++sg) {
            // The segment's group: c / (G / 128) for groups of 128 or more,
            // c * (128 / G) + sg for smaller ones.
            Value g =
                G >= kBF16Chunk
                    ? arith::DivUIOp::create(cb, l, c, idx(cb, G / kBF16Chunk))
                          .getResult()
                    : arith::AddIOp::create(
                          cb, l, arith::MulIOp::create(cb, l, c, idx(cb, segs)),
                          idx(cb, sg))
                          .getResult();
            Value s, table;
            if (p.isPerTensor()) {
              s = f32Const(cb, l, p.scales[0]);
              table = vector::TransferReadOp::create(
                  cb, l, wordsType, tables,
                  ValueRange{idx(cb, zRows[0]), idx(cb, 0)}, pad16,
                  ArrayRef<bool>{true});
            } else {
              Value pg = kb == 1 ? idx(cb, 0) : g;
              SmallVector<Value> at{idx(cb, 0), pg};
              if (blockedParams) {
                // [block, g * R + r]
                Value po = arith::MulIOp::create(cb, l, pg, idx(cb, R));
                at = {forall.getInductionVar(0),
                      arith::AddIOp::create(cb, l, po, idx(cb, r))};
              }
              s = tensor::ExtractOp::create(cb, l, scales, at);
              Value z = tensor::ExtractOp::create(cb, l, zeros, at);
              z = arith::IndexCastOp::create(cb, l, cb.getIndexType(), z);
              table = vector::TransferReadOp::create(
                  cb, l, wordsType, tables, ValueRange{z, idx(cb, 0)}, pad16,
                  ArrayRef<bool>{true});
            }
            SmallVector<Value> acc(M, zeroAcc);
            for (int64_t q = sg * segLen / 32; q < (sg + 1) * segLen / 32;
                 ++q) {
              Value index = words;
              if (q > 0)
                index = arith::ShRUIOp::create(
                    cb, l, words,
                    arith::ConstantOp::create(
                        cb, l,
                        DenseElementsAttr::get(wordsType,
                                               cb.getIntegerAttr(i16, 4 * q))));
              // vpermw: table[index & 31] per word. Inline assembly without
              // side effects (no memory effects, unlike llvm.call_intrinsic,
              // which bufferization's deallocation refuses).
              Value qz =
                  LLVM::InlineAsmOp::create(
                      cb, l, wordsType, ValueRange{index, table}, permw,
                      cb.getStringAttr("=v,v,v"), /*has_side_effects=*/nullptr,
                      /*is_align_stack=*/nullptr,
                      LLVM::TailCallKindAttr::get(cb.getContext(),
                                                  LLVM::TailCallKind::None),
                      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
                      .getResult(0);
              Value qb = arith::BitcastOp::create(cb, l, bfType, qz);
              for (int64_t m = 0; m < M; ++m) {
                acc[m] = x86vector::DotBF16Op::create(cb, l, acc[m], qb,
                                                      xhv[m * 4 + q]);
                acc[m] = x86vector::DotBF16Op::create(cb, l, acc[m], qb,
                                                      xlv[m * 4 + q]);
              }
            }
            Value sv = vector::BroadcastOp::create(cb, l, accType, s);
            for (int64_t m = 0; m < M; ++m)
              next[r * M + m] =
                  vector::FMAOp::create(cb, l, sv, acc[m], next[r * M + m]);
          }
        }
        scf::YieldOp::create(cb, l, next);
      });
  Value result = finishMatvec(b, loc, forall, n0, chunks.getResults(), M, R,
                              resultType);
  // A streamed weight: the chunk loop unrolled by 4 when its trip count is a
  // multiple of 4 (more loads of the weight stream issued ahead of their dot
  // products; measured faster cold). Done once the loop's results have
  // their uses; unrolling only copies the body, so a failure leaves the loop
  // as it is.
  if (streamed && (K / kBF16Chunk) % kStreamedMatvecUnroll4 == 0)
    (void)loopUnrollByFactor(chunks, kStreamedMatvecUnroll4);
  return result;
}

//===----------------------------------------------------------------------===//
// Weight-only matmul with more rows (prefill): dequantized panels
//===----------------------------------------------------------------------===//

/// Output channels (N) per block of buildPanelDequantMatmul (one block per
/// parallel iteration).
constexpr int64_t kPanelN = 128;
/// Elements of K per dequantized panel ([kPanelK, kPanelN] f32: 128 KiB).
constexpr int64_t kPanelK = 256;
/// The deepest single panel taken when K has no divisor near kPanelK
/// ([kMaxPanelK, kPanelN] f32: 2 MiB).
constexpr int64_t kMaxPanelK = 4096;

/// A static block size for `size` elements: `size` itself when it is at
/// most `limit`; else the largest multiple of `step` that divides `size`
/// and is at most `limit`; else the largest divisor of `size` in
/// [limit / 4, limit]; else 0 (none).
int64_t getPanelSize(int64_t size, int64_t limit, int64_t step) {
  if (size <= limit)
    return size;
  for (int64_t s = limit / step * step; s >= step; s -= step)
    if (size % s == 0)
      return s;
  for (int64_t s = limit; s >= std::max<int64_t>(limit / 4, 1); --s)
    if (size % s == 0)
      return s;
  return 0;
}

/// The storage of a weight as the panel kernel reads it: `[K, N]` bytes
/// (rows of N output channels), or for 4-bit weights `[K / 2, N]` bytes
/// with element `2i` of K in the low nibble of row `i` and element `2i + 1`
/// in the high nibble (signed nibbles biased to `q + 8`, see readNibbles).
/// An 8-bit weight stored `[K, N]` is read as it is; other constant weights
/// are rearranged at compile time (transposed when stored `[N, K]`). Fails
/// otherwise (runtime weights stored `[N, K]`, runtime 4-bit weights).
FailureOr<Value> getPanelStorage(OpBuilder &b, Location loc, Value wq,
                                 int64_t K, int64_t N, bool transposeB,
                                 const QuantParams &p) {
  auto at = [&](ArrayRef<uint8_t> v, int64_t k, int64_t n) {
    return transposeB ? v[n * K + k] : v[k * N + n];
  };
  SmallVector<char> out;
  int64_t rows = K;
  if (p.storageWidth == 4) {
    FailureOr<SmallVector<uint8_t>> v = readNibbles(wq, transposeB ? N : K,
                                                    transposeB ? K : N,
                                                    p.isSigned);
    if (failed(v) || K % 2)
      return failure();
    rows = K / 2;
    out.resize(rows * N);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t n = 0; n < N; ++n)
        out[i * N + n] =
            char(at(*v, 2 * i, n) | (at(*v, 2 * i + 1, n) << 4));
  } else if (p.storageWidth == 8) {
    // A [K, N] weight: its storage as it is.
    if (!transposeB)
      return storageCast(b, loc, wq,
                         RankedTensorType::get({K, N}, p.storageType));
    FailureOr<SmallVector<uint8_t>> v = readBytes(wq, K * N);
    if (failed(v))
      return failure();
    out.resize(K * N);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        out[k * N + n] = char(at(*v, k, n));
  } else {
    return failure();
  }
  auto t = RankedTensorType::get({rows, N}, b.getI8Type());
  return arith::ConstantOp::create(
             b, loc, DenseElementsAttr::getFromRawBuffer(t, ArrayRef<char>(out)))
      .getResult();
}

/// `x[..., K] @ dequantize(w)` for an integer weight `w` (8-bit, or 4-bit
/// constant) and any static number of rows of x (the prefill form; decode
/// rows take the matvec kernels), without a dequantized copy of the weight:
///
///   scf.forall over blocks of nc output channels (nc = kPanelN or a
///                                                  divisor of N; when N
///                                                  has none, the last
///                                                  N % kPanelN channels are
///                                                  one block after it):
///     C[rows, nc] = 0
///     scf.for over panels of kc elements of K (kc = kPanelK or a divisor):
///       panel[kc, nc] = dequantize(w[k0 : k0 + kc, n0 : n0 + nc])
///       C += x[:, k0 : k0 + kc] @ panel   (llm.vectorize_in_place)
///     out[:, n0 : n0 + nc] = C
///
/// The panel is dequantized with vector ops, one row of nc channels at a
/// time (ONNX DequantizeLinear: `(q - z) * s`, an exact i32 subtraction and
/// one f32 rounding, as llm.dequantize), from the storage that
/// getPanelStorage lays out `[K, N]`; it stays in the L2 cache and feeds
/// every row of x, so the dequantization costs O(K N) against the matmul's
/// O(rows K N). llm-tile-and-vectorize turns the panel matmul into the f32
/// register tiles of any matmul (the panel's rows are the contiguous
/// `[K, nr]` strips they read). Returns failure (changing nothing) for
/// dynamic shapes and weights that getPanelStorage does not take.
///
/// With `integerAccumulate` (llm.matmul_integer): x holds small integers
/// (`a - za`, as f32), the panels hold `q - z` (no scale) and the result is
/// i32: each panel's matmul starts from zero and is added to an i32
/// accumulator. Exact: every term is below 255 * 255 < 2^16 in magnitude
/// and a panel sums at most 256 of them (kc <= kPanelK), so every partial
/// sum is an integer below 2^24, which f32 holds exactly whatever the
/// summation order.
FailureOr<Value> buildPanelDequantMatmul(OpBuilder &b, Location loc, Value x,
                                         Value wq, bool transposeB,
                                         const QuantParams &p,
                                         RankedTensorType resultType,
                                         bool integerAccumulate) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  // The rows of x may be the dynamic sequence (a prefill), not K.
  if (!xt.getElementType().isF32() || xt.getRank() < 2 ||
      xt.isDynamicDim(xt.getRank() - 1) || wt.getRank() != 2 ||
      !wt.hasStaticShape())
    return failure();
  bool dynamicRows = !xt.hasStaticShape();
  if (dynamicRows && integerAccumulate)
    return failure();
  int64_t kDim = transposeB ? 1 : 0, nDim = 1 - kDim;
  int64_t K = wt.getDimSize(kDim), N = wt.getDimSize(nDim);
  // Static rows, or 1 as a placeholder for the checks below when dynamic.
  int64_t rows =
      dynamicRows ? 1 : xt.getNumElements() / std::max<int64_t>(K, 1);
  bool packed4 = p.storageWidth == 4;
  // Blocks of N: a divisor of N, else kPanelN and a narrower last block.
  int64_t nc = getPanelSize(N, kPanelN, 16);
  if (nc == 0)
    nc = kPanelN;
  int64_t kc = getPanelSize(K, kPanelK, packed4 ? 2 : 1);
  // K without a divisor near kPanelK (a prime K would make one-row panels,
  // each a matmul of depth 1): one panel of all of K up to kMaxPanelK (the
  // integer panels must stay at most kPanelK deep to be exact).
  if (kc > 0 && 4 * kc < kPanelK && !integerAccumulate && K <= kMaxPanelK &&
      !(packed4 && K % 2))
    kc = K;
  if (integerAccumulate && (packed4 || p.storageWidth != 8))
    return failure();
  if (xt.getShape().back() != K || K == 0 || N == 0 || rows == 0 ||
      nc == 0 || kc == 0 ||
      (packed4 && (kc % 2 || (K / p.paramShape[kDim]) % 2)))
    return failure();
  FailureOr<Value> storage = getPanelStorage(b, loc, wq, K, N, transposeB, p);
  if (failed(storage))
    return failure();
  Value w = *storage;
  // Groups along K (1: per channel or per tensor), parameters along N (1 or
  // N): scales and zero points laid out [kb, N or 1]. Nibbles biased to
  // `q + 8` get their zero points raised by 8.
  int64_t kb = p.paramShape[kDim], nParams = p.paramShape[nDim];
  int64_t G = K / kb;
  int64_t zShift = packed4 && p.isSigned ? 8 : 0;
  SmallVector<float> s(kb * nParams);
  SmallVector<int32_t> z(kb * nParams);
  for (int64_t g = 0; g < kb; ++g)
    for (int64_t n = 0; n < nParams; ++n) {
      int64_t i = transposeB ? n * kb + g : g * nParams + n;
      s[g * nParams + n] =
          integerAccumulate ? 1.0f : float(p.scales[p.isPerTensor() ? 0 : i]);
      z[g * nParams + n] = int32_t(p.zeroPoints[p.isPerTensor() ? 0 : i] +
                                   zShift);
    }
  auto pt = RankedTensorType::get({kb, nParams}, b.getF32Type());
  Value scales = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(pt, ArrayRef<float>(s)));
  Value zeros = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(pt.clone(b.getI32Type()), ArrayRef<int32_t>(z)));

  // x as [rows, K].
  Value x2 = llm::detail::collapseRows(b, loc, x);
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  // The number of rows: static, or read from x at run time.
  OpFoldResult rowCount = ofr(rows);
  if (dynamicRows)
    rowCount = tensor::DimOp::create(b, loc, x2, 0).getResult();
  auto rowsEmpty = [&](OpBuilder &eb, Location l, int64_t cols, Type elem) {
    if (!dynamicRows)
      return tensor::EmptyOp::create(eb, l, ArrayRef<int64_t>{rows, cols},
                                     elem);
    return tensor::EmptyOp::create(
        eb, l, ArrayRef<int64_t>{ShapedType::kDynamic, cols}, elem,
        ValueRange{getValueOrCreateConstantIndexOp(eb, l, rowCount)});
  };
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  OpBuilder::InsertionGuard guard(b);
  Type accElem = integerAccumulate ? i32 : f32;
  // C[rows, width] of the block of `width` output channels at n0, built at
  // b's insertion point: the loop over the panels of K.
  auto buildBlock = [&](Value n0, int64_t width) -> Value {
    auto rowType = VectorType::get({width}, f32);
    auto rowI32 = VectorType::get({width}, i32);
    auto rowI8 = VectorType::get({width}, b.getI8Type());
    auto zeroFill = [&](OpBuilder &fb, Location l, Type elem) {
      Value e = rowsEmpty(fb, l, width, elem);
      Value zero = elem.isF32() ? f32Const(fb, l, 0) : i32Const(fb, l, 0);
      return linalg::FillOp::create(fb, l, ValueRange{zero}, ValueRange{e})
          .getResult(0);
    };
    Value acc = zeroFill(b, loc, accElem);
    Value pad8 =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getI8Type(), 0));
    Value padF = f32Const(b, loc, 0);
    Value padI = i32Const(b, loc, 0);
    auto panels = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, K), idx(b, kc), ValueRange{acc},
        [&](OpBuilder &pb, Location l, Value k0, ValueRange accs) {
          // The row of scales and zero points of element k of K, over the
          // block's channels (broadcast when they do not vary along N).
          auto params = [&](OpBuilder &rb, Value k) -> std::pair<Value, Value> {
            Value g =
                kb == 1
                    ? idx(rb, 0)
                    : arith::DivUIOp::create(rb, l, k, idx(rb, G)).getResult();
            if (nParams == 1) {
              Value sv = tensor::ExtractOp::create(rb, l, scales,
                                                   ValueRange{g, idx(rb, 0)});
              Value zv = tensor::ExtractOp::create(rb, l, zeros,
                                                   ValueRange{g, idx(rb, 0)});
              return {vector::BroadcastOp::create(rb, l, rowType, sv),
                      vector::BroadcastOp::create(rb, l, rowI32, zv)};
            }
            return {vector::TransferReadOp::create(rb, l, rowType, scales,
                                                   ValueRange{g, n0}, padF,
                                                   ArrayRef<bool>{true}),
                    vector::TransferReadOp::create(rb, l, rowI32, zeros,
                                                   ValueRange{g, n0}, padI,
                                                   ArrayRef<bool>{true})};
          };
          // A panel inside one group (or per channel / per tensor): its
          // parameters once, outside the row loop.
          std::optional<std::pair<Value, Value>> panelParams;
          if (kb == 1 || G % kc == 0)
            panelParams = params(pb, k0);
          // (q - z) * s on a row of the block's channels (q as i32).
          auto dequant = [&](OpBuilder &rb, Value q, Value k) {
            auto [sv, zv] = panelParams ? *panelParams : params(rb, k);
            Value d = arith::SubIOp::create(rb, l, q, zv);
            return arith::MulFOp::create(
                rb, l, arith::SIToFPOp::create(rb, l, rowType, d), sv);
          };
          Value panel0 =
              tensor::EmptyOp::create(pb, l, ArrayRef<int64_t>{kc, width}, f32);
          int64_t step = packed4 ? 2 : 1;
          auto fill = scf::ForOp::create(
              pb, l, idx(pb, 0), idx(pb, kc / step), idx(pb, 1),
              ValueRange{panel0},
              [&](OpBuilder &rb, Location, Value r, ValueRange panel) {
                Value k = arith::AddIOp::create(
                    rb, l, k0,
                    packed4 ? arith::MulIOp::create(rb, l, r, idx(rb, 2))
                                  .getResult()
                            : r);
                Value wrow = packed4
                                 ? arith::DivUIOp::create(rb, l, k, idx(rb, 2))
                                       .getResult()
                                 : k;
                Value bytes = vector::TransferReadOp::create(
                    rb, l, rowI8, w, ValueRange{wrow, n0}, pad8,
                    ArrayRef<bool>{true});
                Value prow = packed4
                                 ? arith::MulIOp::create(rb, l, r, idx(rb, 2))
                                       .getResult()
                                 : r;
                Value next = panel[0];
                if (!packed4) {
                  Value q = p.isSigned
                                ? arith::ExtSIOp::create(rb, l, rowI32, bytes)
                                      .getResult()
                                : arith::ExtUIOp::create(rb, l, rowI32, bytes)
                                      .getResult();
                  next = vector::TransferWriteOp::create(
                             rb, l, dequant(rb, q, k), next,
                             ValueRange{prow, idx(rb, 0)}, ArrayRef<bool>{true})
                             .getResult();
                } else {
                  // Elements 2i and 2i + 1 (one group: G is even).
                  Value wv = arith::ExtUIOp::create(rb, l, rowI32, bytes);
                  auto splat = [&](int64_t v) -> Value {
                    return arith::ConstantOp::create(
                        rb, l,
                        DenseElementsAttr::get(rowI32,
                                               rb.getIntegerAttr(i32, v)));
                  };
                  Value lo = arith::AndIOp::create(rb, l, wv, splat(0xF));
                  Value hi = arith::ShRUIOp::create(rb, l, wv, splat(4));
                  next = vector::TransferWriteOp::create(
                             rb, l, dequant(rb, lo, k), next,
                             ValueRange{prow, idx(rb, 0)}, ArrayRef<bool>{true})
                             .getResult();
                  Value prow1 = arith::AddIOp::create(rb, l, prow, idx(rb, 1));
                  next =
                      vector::TransferWriteOp::create(
                          rb, l, dequant(rb, hi, k), next,
                          ValueRange{prow1, idx(rb, 0)}, ArrayRef<bool>{true})
                          .getResult();
                }
                scf::YieldOp::create(rb, l, next);
              });
          Value xs = tensor::ExtractSliceOp::create(
              pb, l, x2, SmallVector<OpFoldResult>{pb.getIndexAttr(0), k0},
              SmallVector<OpFoldResult>{rowCount, pb.getIndexAttr(kc)}, unit);
          Value init = integerAccumulate ? zeroFill(pb, l, f32) : accs[0];
          auto mm = linalg::MatmulOp::create(pb, l, TypeRange{init.getType()},
                                             ValueRange{xs, fill.getResult(0)},
                                             ValueRange{init});
          mm->setAttr(kVectorizeInPlaceAttr, pb.getUnitAttr());
          if (!integerAccumulate) {
            scf::YieldOp::create(pb, l, mm->getResult(0));
            return;
          }
          // acc (i32) += the panel's exact f32 sums, one row at a time.
          auto add = scf::ForOp::create(
              pb, l, idx(pb, 0), idx(pb, rows), idx(pb, 1), ValueRange{accs[0]},
              [&](OpBuilder &ab, Location, Value m, ValueRange a) {
                Value c = vector::TransferReadOp::create(
                    ab, l, rowType, mm->getResult(0), ValueRange{m, idx(ab, 0)},
                    padF, ArrayRef<bool>{true});
                Value t = vector::TransferReadOp::create(
                    ab, l, rowI32, a[0], ValueRange{m, idx(ab, 0)}, padI,
                    ArrayRef<bool>{true});
                t = arith::AddIOp::create(
                    ab, l, t, arith::FPToSIOp::create(ab, l, rowI32, c));
                scf::YieldOp::create(
                    ab, l,
                    vector::TransferWriteOp::create(ab, l, t, a[0],
                                                    ValueRange{m, idx(ab, 0)},
                                                    ArrayRef<bool>{true})
                        .getResult());
              });
          scf::YieldOp::create(pb, l, add.getResult(0));
        });
    return panels.getResult(0);
  };

  // N without a panel divisor (a 50257-token LM head): blocks of kPanelN
  // channels in the parallel loop, and the last N % kPanelN channels as one
  // narrower block after it.
  int64_t blocks = N / nc, tail = N - blocks * nc;
  Value out = rowsEmpty(b, loc, N, accElem);
  auto forall =
      scf::ForallOp::create(b, loc, SmallVector<OpFoldResult>{ofr(blocks)},
                            ValueRange{out}, std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  Value n0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nc));
  Value block = buildBlock(n0, nc);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, block, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), n0},
      SmallVector<OpFoldResult>{rowCount, ofr(nc)}, unit);
  b.setInsertionPointAfter(forall);
  if (tail) {
    Value last = buildBlock(idx(b, blocks * nc), tail);
    Value result = tensor::InsertSliceOp::create(
        b, loc, last, forall.getResult(0),
        SmallVector<OpFoldResult>{ofr(0), ofr(blocks * nc)},
        SmallVector<OpFoldResult>{rowCount, ofr(tail)}, unit);
    return llm::detail::expandRows(b, loc, result, resultType);
  }
  // Elementwise consumers (bias, activation, the W8A8 rescale and
  // requantize) are fused into the block loop by llm-tile-and-vectorize.
  forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  b.setInsertionPointAfter(forall);
  return llm::detail::expandRows(b, loc, forall.getResult(0), resultType);
}

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
struct DequantMatmulLowering : QuantLowering<DequantMatmulOp> {
  DequantMatmulLowering(MLIRContext *ctx, int64_t streamedWeightMinBytes)
      : QuantLowering(ctx), streamedWeightMinBytes(streamedWeightMinBytes) {}
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
    if (isFloat8(rt.getElementType()))
      return lowerFloat8(op, adaptor, rewriter);
    // A pruned weight in a sparse format (llm-sparsify-weights): llmc's
    // loops over its packed nonzero levels, scaled per channel.
    if (FailureOr<Value> sparse = llm::detail::lowerSparseDequantMatmul(
            rewriter, op, adaptor.getLhs());
        succeeded(sparse)) {
      rewriter.replaceOp(op,
                         llm::detail::expandRows(rewriter, loc, *sparse, type));
      return success();
    }
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
