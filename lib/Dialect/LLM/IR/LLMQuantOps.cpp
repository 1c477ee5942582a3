//===- LLMQuantOps.cpp - llm quantization operations ----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifiers of the quantization ops
// (`llm.quantize`, `llm.dequantize`, `llm.requantize`, `llm.matmul_integer`)
// and the normalized view of upstream `quant` uniform types (LLMQuant.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::quant;

//===----------------------------------------------------------------------===//
// QuantParams
//===----------------------------------------------------------------------===//

bool mlir::llm::isUniformQuantType(Type t) {
  return isa<UniformQuantizedType, UniformQuantizedPerAxisType,
             UniformQuantizedSubChannelType>(t);
}

FailureOr<QuantParams>
mlir::llm::getQuantParams(Type elementType, ArrayRef<int64_t> shape,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&]() -> InFlightDiagnostic {
    return emitError ? emitError() : InFlightDiagnostic();
  };
  auto qt = dyn_cast<QuantizedType>(elementType);
  if (!qt || !isUniformQuantType(elementType)) {
    if (emitError)
      fail() << "expected a uniform quantized element type, got "
             << elementType;
    return failure();
  }
  QuantParams p;
  p.storageMin = qt.getStorageTypeMin();
  p.storageMax = qt.getStorageTypeMax();
  p.isSigned = qt.isSigned();
  p.storageWidth = qt.getStorageTypeIntegralWidth();
  p.storageType = qt.getStorageType();
  p.expressedType = qt.getExpressedType();
  int64_t rank = shape.size();
  p.paramShape.assign(rank, 1);
  // A zero point is a stored value (x = scale * (q - zero_point)), so it lies
  // in the storage range; upstream's type verifier does not check it.
  auto checkZeroPoints = [&]() -> LogicalResult {
    for (int64_t zp : p.zeroPoints) {
      if (zp >= p.storageMin && zp <= p.storageMax)
        continue;
      if (emitError)
        fail() << "zero point " << zp << " of " << elementType
               << " is outside the storage range [" << p.storageMin << ", "
               << p.storageMax << "]";
      return failure();
    }
    return success();
  };
  if (auto u = dyn_cast<UniformQuantizedType>(qt)) {
    p.scales.push_back(u.getScale());
    p.zeroPoints.push_back(u.getZeroPoint());
    if (failed(checkZeroPoints()))
      return failure();
    return p;
  }
  if (auto a = dyn_cast<UniformQuantizedPerAxisType>(qt)) {
    int64_t dim = a.getQuantizedDimension();
    int64_t n = a.getScales().size();
    if (dim < 0 || dim >= rank) {
      if (emitError)
        fail() << "quantized dimension " << dim << " of " << elementType
               << " is outside the rank " << rank;
      return failure();
    }
    if (!ShapedType::isDynamic(shape[dim]) && shape[dim] != n) {
      if (emitError)
        fail() << "per-axis type has " << n << " scales but dimension " << dim
               << " has size " << shape[dim];
      return failure();
    }
    p.paramShape[dim] = n;
    llvm::append_range(p.scales, a.getScales());
    llvm::append_range(p.zeroPoints, a.getZeroPoints());
    if (failed(checkZeroPoints()))
      return failure();
    return p;
  }
  auto s = cast<UniformQuantizedSubChannelType>(qt);
  auto scalesType = cast<ShapedType>(s.getScales().getType());
  if (scalesType.getRank() != rank) {
    if (emitError)
      fail() << "sub-channel scales of rank " << scalesType.getRank()
             << " do not fit a tensor of rank " << rank;
    return failure();
  }
  SmallVector<int64_t> blockSize(rank, 0);
  for (auto [dim, size] :
       llvm::zip(s.getQuantizedDimensions(), s.getBlockSizes()))
    if (dim >= 0 && dim < rank)
      blockSize[dim] = size;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = scalesType.getDimSize(d);
    // An unlisted dimension is one block (its scales dimension is 1).
    if (!blockSize[d] && n != 1) {
      if (emitError)
        fail() << "sub-channel scales have " << n << " entries along "
               << "dimension " << d
               << ", which has no block size (one block spans it)";
      return failure();
    }
    if (blockSize[d] &&
        (ShapedType::isDynamic(shape[d]) || shape[d] != n * blockSize[d])) {
      if (emitError)
        fail() << "sub-channel type has " << n << " blocks of " << blockSize[d]
               << " along dimension " << d << ", which has size " << shape[d];
      return failure();
    }
    p.paramShape[d] = n;
  }
  for (APFloat v : s.getScales().getValues<APFloat>())
    p.scales.push_back(v.convertToDouble());
  for (APInt v : s.getZeroPoints().getValues<APInt>())
    p.zeroPoints.push_back(p.isSigned ? v.getSExtValue() : v.getZExtValue());
  if (failed(checkZeroPoints()))
    return failure();
  return p;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

namespace {
bool isFloat8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Checks a quantized or FP8 element type `qt` against the float element
/// type `ft` and the optional FP8 `scale`.
LogicalResult verifyQuantSide(Operation *op, Type qt, Type ft,
                              ArrayRef<int64_t> shape,
                              std::optional<APFloat> scale, bool producing) {
  if (isFloat8(qt)) {
    if (!scale)
      return op->emitOpError("an FP8 ") << (producing ? "result" : "input")
                                        << " needs a `scale` attribute";
    if (!scale->isFiniteNonZero() || scale->isNegative())
      return op->emitOpError("scale must be positive and finite");
    return success();
  }
  if (scale)
    return op->emitOpError(
        "`scale` is only for FP8; quantized types carry their scales");
  FailureOr<QuantParams> p =
      getQuantParams(qt, shape, [&] { return op->emitOpError(); });
  if (failed(p))
    return failure();
  if (p->expressedType != ft)
    return op->emitOpError("expressed type ")
           << p->expressedType << " of " << qt
           << " differs from the float element type " << ft;
  if (producing && p->storageWidth > 8)
    return op->emitOpError("storage of ")
           << p->storageWidth
           << " bits is not supported as a quantization target (i8, u8, "
              "i4, u4)";
  for (double s : p->scales)
    if (!(s > 0) || std::isinf(s))
      return op->emitOpError("scales must be positive and finite");
  return success();
}
} // namespace

LogicalResult QuantizeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  return verifyQuantSide(
      *this, out.getElementType(), in.getElementType(), in.getShape(),
      getScaleAttr() ? std::optional(getScaleAttr().getValue()) : std::nullopt,
      /*producing=*/true);
}

LogicalResult DequantizeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  return verifyQuantSide(
      *this, in.getElementType(), out.getElementType(), in.getShape(),
      getScaleAttr() ? std::optional(getScaleAttr().getValue()) : std::nullopt,
      /*producing=*/false);
}

LogicalResult RequantizeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  auto qin = cast<QuantizedType>(in.getElementType());
  if (failed(verifyQuantSide(*this, in.getElementType(), qin.getExpressedType(),
                             in.getShape(), std::nullopt, /*producing=*/false)))
    return failure();
  return verifyQuantSide(*this, out.getElementType(), qin.getExpressedType(),
                         in.getShape(), std::nullopt, /*producing=*/true);
}

LogicalResult
MatmulIntegerOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
  auto error = [&](const Twine &msg) {
    return emitOptionalError(loc, "'llm.matmul_integer' op ", msg);
  };
  if (lt.getRank() < 2 || rt.getRank() < 2)
    return error("operands must have rank >= 2");
  int64_t k1 = lt.getShape().back(), k2 = rt.getDimSize(rt.getRank() - 2);
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return error("contraction sizes differ: " + Twine(k1) + " vs " + Twine(k2));
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(lt.getShape().drop_back(2), rt.getShape().drop_back(2));
  if (failed(batch))
    return error("batch dimensions do not broadcast");
  SmallVector<int64_t> shape = *batch;
  shape.push_back(lt.getDimSize(lt.getRank() - 2));
  shape.push_back(rt.getShape().back());
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult MatmulIntegerOp::verify() {
  auto lt = getLhs().getType(), rt = getRhs().getType();
  for (auto [name, t] :
       {std::pair<StringRef, RankedTensorType>{"lhs", lt}, {"rhs", rt}}) {
    Type et = t.getElementType();
    if (isa<UniformQuantizedSubChannelType>(et))
      return emitOpError(name) << " must not be sub-channel quantized";
    FailureOr<QuantParams> p =
        getQuantParams(et, t.getShape(), [&] { return emitOpError(); });
    if (failed(p))
      return failure();
    if (p->storageWidth > 8)
      return emitOpError(name) << " storage must be 8 bits or narrower";
  }
  if (!isa<UniformQuantizedType>(lt.getElementType()))
    return emitOpError("lhs must be quantized per tensor");
  if (auto a = dyn_cast<UniformQuantizedPerAxisType>(rt.getElementType()))
    if (a.getQuantizedDimension() != rt.getRank() - 1)
      return emitOpError("rhs may only be quantized per axis along its last "
                         "dimension (one zero point per output column)");
  return success();
}

LogicalResult
DequantMatmulOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lt.getRank() < 2 || rt.getRank() != 2)
    return emitOptionalError(loc, "'llm.dequant_matmul' op lhs must have rank "
                                  ">= 2 and rhs rank 2");
  bool tb = adaptor.getTransposeB();
  int64_t k = lt.getShape().back(), kr = rt.getDimSize(tb ? 1 : 0);
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(kr) && k != kr)
    return emitOptionalError(loc,
                             "'llm.dequant_matmul' op contraction sizes "
                             "differ: ",
                             k, " vs ", kr);
  SmallVector<int64_t> shape(lt.getShape().drop_back());
  shape.push_back(rt.getDimSize(tb ? 0 : 1));
  inferred.push_back(RankedTensorType::get(shape, lt.getElementType()));
  return success();
}

LogicalResult DequantMatmulOp::verify() {
  auto lt = getLhs().getType(), rt = getRhs().getType();
  if (!lt.getElementType().isF32())
    return emitOpError("lhs must be f32");
  if (isa<Float8E4M3FNType, Float8E5M2Type>(rt.getElementType())) {
    if (!getScaleAttr())
      return emitOpError("an FP8 rhs requires a scale");
    if (!(getScaleAttr().getValueAsDouble() > 0.0))
      return emitOpError("scale must be positive");
    return success();
  }
  if (getScaleAttr())
    return emitOpError("scale is only for an FP8 rhs (a quantized rhs "
                       "carries its parameters in its type)");
  FailureOr<QuantParams> p = getQuantParams(rt.getElementType(), rt.getShape(),
                                            [&] { return emitOpError(); });
  if (failed(p))
    return failure();
  if (!p->expressedType.isF32())
    return emitOpError("rhs must have the expressed type f32");
  if (p->storageWidth > 8)
    return emitOpError("rhs storage must be 8 bits or narrower");
  int64_t kDim = getTransposeB() ? 1 : 0, nDim = 1 - kDim;
  int64_t nParams = p->paramShape[nDim];
  if (nParams != 1 && nParams != rt.getDimSize(nDim))
    return emitOpError("rhs blocks along N must be single columns (per "
                       "output channel)");
  if (auto a = dyn_cast<UniformQuantizedPerAxisType>(rt.getElementType()))
    if (a.getQuantizedDimension() == kDim)
      return emitOpError("rhs may not be quantized per axis along K");
  return success();
}

//===----------------------------------------------------------------------===//
// Max and reduce_max on quantized values
//===----------------------------------------------------------------------===//

FailureOr<Type>
mlir::llm::reducedElementType(Type elementType, ArrayRef<bool> reduced,
                              bool keepdims,
                              function_ref<InFlightDiagnostic()> emitError) {
  auto axis = dyn_cast<UniformQuantizedPerAxisType>(elementType);
  if (!axis)
    return elementType;
  int32_t d = axis.getQuantizedDimension();
  if (d < 0 || d >= static_cast<int64_t>(reduced.size()) || reduced[d]) {
    if (emitError)
      emitError() << "reduces the quantized dimension " << d
                  << " of its per-axis input";
    return failure();
  }
  int32_t renumbered = d;
  if (!keepdims)
    renumbered -= llvm::count(reduced.take_front(d), true);
  if (renumbered == d)
    return elementType;
  return Type(UniformQuantizedPerAxisType::get(
      axis.getFlags(), axis.getStorageType(), axis.getExpressedType(),
      axis.getScales(), axis.getZeroPoints(), renumbered,
      axis.getStorageTypeMin(), axis.getStorageTypeMax()));
}

LogicalResult MaxOp::verify() {
  Type et = getType().getElementType();
  if (auto axis = dyn_cast<UniformQuantizedPerAxisType>(et)) {
    if (getLhs().getType() != getType() || getRhs().getType() != getType())
      return emitOpError("per-axis quantized operands must not broadcast "
                         "(operand and result types must be equal)");
    if (failed(getQuantParams(et, getType().getShape(),
                              [&] { return emitOpError(); })))
      return failure();
  }
  return success();
}

LogicalResult ReduceMaxOp::verify() {
  // A per-axis input's parameters must match its quantized dimension (the
  // result type, renumbered, is checked by the type inference).
  RankedTensorType it = getInput().getType();
  if (isa<UniformQuantizedPerAxisType>(it.getElementType()) &&
      failed(getQuantParams(it.getElementType(), it.getShape(),
                            [&] { return emitOpError(); })))
    return failure();
  return success();
}

FailureOr<SmallVector<uint8_t>> mlir::llm::readStorageBytes(Value w,
                                                            int64_t count) {
  auto cast = w.getDefiningOp<quant::StorageCastOp>();
  Attribute attr;
  if (!cast || !matchPattern(cast.getInput(), m_Constant(&attr)))
    return failure();
  SmallVector<uint8_t> values;
  values.reserve(count);
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(uint8_t(v.getZExtValue()));
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return failure();
    for (char c : blob->getData())
      values.push_back(uint8_t(c));
  } else {
    return failure();
  }
  if (int64_t(values.size()) != count)
    return failure();
  return values;
}
