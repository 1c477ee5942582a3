//===- ImportQuant.cpp - ONNX quantization ops ----------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Import of QuantizeLinear, DequantizeLinear (opsets 10-18, per tensor and
// per axis), MatMulInteger and QLinearMatMul.
//
// Runtime int8/uint8 tensors are plain `i8` storage tensors; each quantized
// op reinterprets them with `quant.scast` as the `!quant.uniform` type its
// scale and zero point describe (constants known at import time), so that a
// QuantizeLinear -> DequantizeLinear pair becomes
// `llm.dequantize(quant.scast(quant.scast(llm.quantize)))`, which folds to
// `llm.dequantize(llm.quantize)` when the parameters agree. uint8 bits held
// in i8 are tracked per value (`Entry::unsignedBits`) and only accepted by
// the quantization ops.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;


/// Builds the quantized element type for `scale`/`zeroPoint` (constants;
/// `zeroPoint` may be null = 0) with `storage` (INT8, UINT8 or INT32) applied
/// to a tensor of `shape`; a 1-D scale with more than one element quantizes
/// along `axis`.
FailureOr<Type> Importer::quantType(const onnx::NodeProto &node,
                                    const ConstTensor &scale,
                                    const ConstTensor *zeroPoint, int storage,
                                    int64_t axis, ArrayRef<int64_t> shape) {
  if (scale.dtype != TensorProto::FLOAT)
    return nodeError(node) << "scale of type " << dtypeName(scale.dtype)
                           << " is not supported (float only)";
  unsigned width = storage == TensorProto::INT32 ? 32 : 8;
  bool isSigned = storage != TensorProto::UINT8;
  if (storage != TensorProto::INT8 && storage != TensorProto::UINT8 &&
      storage != TensorProto::INT32)
    return nodeError(node) << "quantized type " << dtypeName(storage)
                           << " is not supported (int8, uint8, int32)";
  int64_t n = scale.numel();
  if (zeroPoint && zeroPoint->numel() != n)
    return nodeError(node) << "zero point has " << zeroPoint->numel()
                           << " elements but scale has " << n;
  auto zpAt = [&](int64_t i) -> int64_t {
    return zeroPoint ? zeroPoint->getInt(i) : 0;
  };
  for (int64_t i = 0; i < n; ++i)
    if (!(scale.getDouble(i) > 0) || !std::isfinite(scale.getDouble(i)))
      return nodeError(node) << "scale must be positive and finite, got "
                             << scale.getDouble(i);
  Type storageType = IntegerType::get(ctx, width);
  Type f32 = Float32Type::get(ctx);
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  int64_t lo = quant::QuantizedType::getDefaultMinimumForInteger(isSigned, width);
  int64_t hi = quant::QuantizedType::getDefaultMaximumForInteger(isSigned, width);
  if (n == 1 && scale.shape.size() <= 1)
    return Type(quant::UniformQuantizedType::get(
        flags, storageType, f32, scale.getDouble(0), zpAt(0), lo, hi));
  int64_t rank = shape.size();
  if (scale.shape.size() != 1)
    return nodeError(node) << "scale of shape " << shapeStr(scale.shape)
                           << " is not supported (a scalar or a 1-D tensor)";
  FailureOr<int64_t> a = normAxis(node, axis, rank);
  if (failed(a))
    return failure();
  if (shape[*a] != n)
    return nodeError(node) << "per-axis scale has " << n
                           << " elements but axis " << *a << " has size "
                           << shape[*a];
  SmallVector<double> scales;
  SmallVector<int64_t> zps;
  for (int64_t i = 0; i < n; ++i) {
    scales.push_back(scale.getDouble(i));
    zps.push_back(zpAt(i));
  }
  return Type(quant::UniformQuantizedPerAxisType::get(
      flags, storageType, f32, scales, zps, *a, lo, hi));
}

/// The runtime storage (i8/i32) value of an int8/uint8/int32 input; uint8
/// constants are materialized as i8 holding the same bits.
FailureOr<Value> Importer::storageValue(const onnx::NodeProto &node,
                                        Entry &e) {
  if (e.value || !e.constant || e.constant->dtype != TensorProto::UINT8)
    return materialize(node, e);
  Entry bits = e;
  bits.constant->dtype = TensorProto::INT8;
  return materialize(node, bits);
}

// QuantizeLinear(x, y_scale, y_zero_point) with a per-tensor scale (and
// zero point) computed at run time, as DynamicQuantizeLinear's expanded
// form writes it: no `!quant.uniform` type can hold the parameters, so the
// ONNX formula is emitted on the values,
//   q = clamp(round(x / scale) + zp, qmin, qmax)   (f32, half to even)
// with zp read from its i8 storage (uint8 bits: + 256 when negative),
// then converted to the i8 storage (through i32, keeping uint8 bits).
LogicalResult Importer::importRuntimeQuantizeLinear(
    const onnx::NodeProto &node) {
  FailureOr<Entry *> x = required(node, 0), scale = required(node, 1);
  if (failed(x) || failed(scale))
    return failure();
  Entry *zp = input(node, 2);
  if (dtypeOf(**x) != TensorProto::FLOAT ||
      dtypeOf(**scale) != TensorProto::FLOAT)
    return nodeError(node) << "QuantizeLinear with a run-time scale needs "
                              "FLOAT input and scale";
  if (product(shapeOf(**scale)) != 1 || (zp && product(shapeOf(*zp)) != 1))
    return nodeError(node) << "QuantizeLinear with a run-time scale is "
                              "supported per tensor only (scale of shape "
                           << shapeStr(shapeOf(**scale)) << ")";
  int storage = zp ? runtimeDType(*zp) : TensorProto::UINT8;
  if (storage != TensorProto::UINT8 && storage != TensorProto::INT8)
    return nodeError(node) << "QuantizeLinear with a run-time scale to "
                           << dtypeName(storage)
                           << " is not supported (int8, uint8)";
  bool isUnsigned = storage == TensorProto::UINT8;
  Location loc = nodeLoc(node);
  SmallVector<int64_t> shape = shapeOf(**x);
  Type f32 = builder.getF32Type(), i32 = builder.getI32Type();
  auto scalar = [&](double v, int dtype) {
    return splatConstant(node, v, dtype, {});
  };
  FailureOr<Value> xv = materialize(node, **x);
  FailureOr<Value> sv = materialize(node, **scale);
  if (failed(xv) || failed(sv))
    return failure();
  Value s = reshape(loc, *sv, {});
  Value zpf;
  if (zp) {
    FailureOr<Value> zv = storageValue(node, *zp);
    if (failed(zv))
      return failure();
    Value z = reshape(loc, *zv, {});
    z = CastOp::create(builder, loc, tensorType({}, i32), z);
    if (isUnsigned) {
      FailureOr<Value> zero = scalar(0, TensorProto::INT32),
                       wrap = scalar(256, TensorProto::INT32);
      if (failed(zero) || failed(wrap))
        return failure();
      Value neg = CompareOp::create(builder, loc,
                                    tensorType({}, builder.getI1Type()),
                                    ComparePredicate::LT, z, *zero);
      Value up = AddOp::create(builder, loc, z.getType(), z, *wrap);
      z = SelectOp::create(builder, loc, z.getType(), neg, up, z);
    }
    zpf = CastOp::create(builder, loc, tensorType({}, f32), z);
  }
  FailureOr<Value> lo = scalar(isUnsigned ? 0 : -128, TensorProto::FLOAT),
                   hi = scalar(isUnsigned ? 255 : 127, TensorProto::FLOAT);
  if (failed(lo) || failed(hi))
    return failure();
  Type ft = tensorType(shape, f32);
  Value q = DivOp::create(builder, loc, ft, *xv, s);
  q = RoundOp::create(builder, loc, ft, q);
  if (zpf)
    q = AddOp::create(builder, loc, ft, q, zpf);
  q = MaxOp::create(builder, loc, ft, q, *lo);
  q = MinOp::create(builder, loc, ft, q, *hi);
  q = CastOp::create(builder, loc, tensorType(shape, i32), q);
  q = CastOp::create(builder, loc, tensorType(shape, builder.getI8Type()), q);
  setOutput(node, 0, q);
  if (node.output_size() > 0 && !node.output(0).empty())
    env[node.output(0)].unsignedBits = isUnsigned;
  return success();
}

std::optional<LogicalResult>
Importer::importQuantNode(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  bool isQuantOp = op == "QuantizeLinear" || op == "DequantizeLinear" ||
                   op == "MatMulInteger" || op == "QLinearMatMul";
  if (op == "Cast" || op == "Identity") {
    // Exporters cast a QuantizeLinear output to its own type (uint8): the
    // identity on the bits.
    Entry *in = input(node, 0);
    if (in && in->unsignedBits &&
        (op == "Identity" || intAttr(node, "to", 0) == TensorProto::UINT8)) {
      setOutput(node, 0, in->value);
      if (node.output_size() > 0 && !node.output(0).empty())
        env[node.output(0)].unsignedBits = true;
      return success();
    }
  }
  if (op == "Clip") {
    // QuantizeLinear -> Clip(lo, hi) -> DequantizeLinear, as fake-quant
    // exports with a narrowed range (quant_min/quant_max) produce it: the
    // clip narrows the quantize's saturation range, since
    // clip(saturate(v), lo, hi) = saturate_[lo, hi](v).
    Entry *in = input(node, 0);
    auto cast = in && in->value
                    ? in->value.getDefiningOp<quant::StorageCastOp>()
                    : nullptr;
    auto q = cast ? cast.getInput().getDefiningOp<QuantizeOp>() : nullptr;
    if (q && opset >= 11) {
      Entry *lo = input(node, 1), *hi = input(node, 2);
      if ((lo && !lo->constant) || (hi && !hi->constant))
        return LogicalResult(nodeError(node)
                             << "Clip of a quantized tensor needs constant "
                                "bounds");
      auto qt = cast_or_null<quant::UniformQuantizedType>(
          q.getType().getElementType());
      if (!qt)
        return LogicalResult(nodeError(node)
                             << "Clip of a per-axis quantized tensor is "
                                "not supported");
      int64_t qmin = qt.getStorageTypeMin(), qmax = qt.getStorageTypeMax();
      if (lo)
        qmin = std::max(qmin, lo->constant->getInt(0));
      if (hi)
        qmax = std::min(qmax, hi->constant->getInt(0));
      if (qmin > qmax)
        return LogicalResult(nodeError(node) << "empty Clip range");
      auto narrowed = quant::UniformQuantizedType::get(
          qt.getFlags(), qt.getStorageType(), qt.getExpressedType(),
          qt.getScale(), qt.getZeroPoint(), qmin, qmax);
      Value nq = QuantizeOp::create(builder, nodeLoc(node),
                                    q.getType().clone(narrowed), q.getInput(),
                                    nullptr);
      bool isUnsigned = in->unsignedBits;
      setOutput(node, 0,
                quant::StorageCastOp::create(builder, nodeLoc(node),
                                             cast.getType(), nq)
                    .getResult());
      if (node.output_size() > 0 && !node.output(0).empty())
        env[node.output(0)].unsignedBits = isUnsigned;
      return success();
    }
  }
  if (!isQuantOp) {
    for (int i = 0; i < node.input_size(); ++i)
      if (Entry *e = input(node, i); e && e->unsignedBits)
        return LogicalResult(
            nodeError(node)
            << "input '" << node.input(i)
            << "' is a runtime uint8 tensor, which only DequantizeLinear, "
               "MatMulInteger and QLinearMatMul accept");
    return std::nullopt;
  }
  Location loc = nodeLoc(node);
  if (op == "QuantizeLinear") {
    if (Entry *s = input(node, 1); s && !s->constant)
      return importRuntimeQuantizeLinear(node);
    FailureOr<Entry *> x = required(node, 0);
    FailureOr<const ConstTensor *> scale = requiredConst(node, 1, "y_scale");
    if (failed(x) || failed(scale))
      return failure();
    const ConstTensor *zp = nullptr;
    if (Entry *z = input(node, 2)) {
      if (!z->constant)
        return LogicalResult(nodeError(node) << "input 'y_zero_point' must "
                                                "be a constant known at "
                                                "import time");
      zp = &*z->constant;
    }
    if (dtypeOf(**x) != TensorProto::FLOAT)
      return LogicalResult(nodeError(node)
                           << "QuantizeLinear of " << dtypeName(dtypeOf(**x))
                           << " is not supported (float only)");
    FailureOr<Value> xv = materialize(node, **x);
    if (failed(xv))
      return failure();
    SmallVector<int64_t> shape = shapeOf(**x);
    int storage = zp ? zp->dtype : TensorProto::UINT8;
    if (storage == TensorProto::INT32)
      return LogicalResult(nodeError(node)
                           << "QuantizeLinear to int32 is not supported");
    FailureOr<Type> qt =
        quantType(node, **scale, zp, storage, intAttr(node, "axis", 1), shape);
    if (failed(qt))
      return failure();
    Value q =
        QuantizeOp::create(builder, loc, tensorType(shape, *qt), *xv, nullptr);
    Value bits = quant::StorageCastOp::create(
        builder, loc, tensorType(shape, builder.getI8Type()), q);
    setOutput(node, 0, bits);
    if (node.output_size() > 0 && !node.output(0).empty())
      env[node.output(0)].unsignedBits = storage == TensorProto::UINT8;
    return success();
  }
  if (op == "DequantizeLinear") {
    FailureOr<Entry *> x = required(node, 0);
    FailureOr<const ConstTensor *> scale = requiredConst(node, 1, "x_scale");
    if (failed(x) || failed(scale))
      return failure();
    const ConstTensor *zp = nullptr;
    if (Entry *z = input(node, 2)) {
      if (!z->constant)
        return LogicalResult(nodeError(node) << "input 'x_zero_point' must "
                                                "be a constant known at "
                                                "import time");
      zp = &*z->constant;
    }
    int storage = zp ? zp->dtype : runtimeDType(**x);
    SmallVector<int64_t> shape = shapeOf(**x);
    FailureOr<Type> qt =
        quantType(node, **scale, zp, storage, intAttr(node, "axis", 1), shape);
    if (failed(qt))
      return failure();
    FailureOr<Value> xv = storageValue(node, **x);
    if (failed(xv))
      return failure();
    if (elemTypeOf(*xv) != cast<quant::QuantizedType>(*qt).getStorageType())
      return LogicalResult(nodeError(node)
                           << "input of type " << elemTypeOf(*xv)
                           << " does not match the zero point's type "
                           << dtypeName(storage));
    Value q = quant::StorageCastOp::create(builder, loc,
                                           tensorType(shape, *qt), *xv);
    setOutput(node, 0,
              DequantizeOp::create(builder, loc,
                                   tensorType(shape, builder.getF32Type()), q,
                                   nullptr)
                  .getResult());
    return success();
  }

  // MatMulInteger(A, B, a_zero_point?, b_zero_point?) and
  // QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
  bool qlinear = op == "QLinearMatMul";
  int ai = 0, bi = qlinear ? 3 : 1;
  FailureOr<Entry *> a = required(node, ai), b = required(node, bi);
  if (failed(a) || failed(b))
    return failure();
  ConstTensor one = ConstTensor::zeros(TensorProto::FLOAT, {});
  one.store<float>(0, 1.0f);
  auto operand = [&](Entry &e, int scaleIdx, int zpIdx, bool isRhs,
                     const ConstTensor *&scaleOut) -> FailureOr<Value> {
    const ConstTensor *zp = nullptr;
    if (Entry *z = input(node, zpIdx)) {
      if (!z->constant) {
        nodeError(node) << "zero points must be constants known at import "
                           "time";
        return failure();
      }
      zp = &*z->constant;
    }
    scaleOut = &one;
    if (scaleIdx >= 0) {
      FailureOr<const ConstTensor *> s =
          requiredConst(node, scaleIdx, "scale");
      if (failed(s))
        return failure();
      scaleOut = *s;
      if (scaleOut->numel() != 1) {
        nodeError(node) << "per-column scales are not supported";
        return failure();
      }
    }
    SmallVector<int64_t> shape = shapeOf(e);
    if (shape.size() < 2) {
      nodeError(node) << "operands of rank < 2 are not supported";
      return failure();
    }
    int storage = zp ? zp->dtype : runtimeDType(e);
    // A per-column zero point of B: a per-axis type along its last dim.
    ConstTensor scales = *scaleOut;
    if (zp && zp->numel() > 1) {
      if (!isRhs || zp->shape.size() != 1) {
        nodeError(node) << "only B may have per-column zero points";
        return failure();
      }
      scales = ConstTensor::zeros(TensorProto::FLOAT, {zp->numel()});
      for (int64_t i = 0; i < zp->numel(); ++i)
        scales.store<float>(i, float(scaleOut->getDouble(0)));
    }
    FailureOr<Type> qt = quantType(node, scales, zp, storage,
                                   int64_t(shape.size()) - 1, shape);
    if (failed(qt))
      return failure();
    FailureOr<Value> v = storageValue(node, e);
    if (failed(v))
      return failure();
    if (elemTypeOf(*v) != builder.getI8Type()) {
      nodeError(node) << "operands must be int8 or uint8";
      return failure();
    }
    return Value(quant::StorageCastOp::create(builder, loc,
                                              tensorType(shape, *qt), *v));
  };
  const ConstTensor *sa, *sb;
  FailureOr<Value> av = operand(**a, qlinear ? 1 : -1, qlinear ? 2 : 2, false,
                                sa);
  if (failed(av))
    return failure();
  FailureOr<Value> bv =
      operand(**b, qlinear ? 4 : -1, qlinear ? 5 : 3, true, sb);
  if (failed(bv))
    return failure();
  auto mm = MatmulIntegerOp::create(builder, loc, *av, *bv);
  if (!qlinear) {
    setOutput(node, 0, mm.getResult());
    return success();
  }
  FailureOr<const ConstTensor *> sy = requiredConst(node, 6, "y_scale");
  if (failed(sy))
    return failure();
  const ConstTensor *zy = nullptr;
  if (Entry *z = input(node, 7); z && z->constant)
    zy = &*z->constant;
  else if (z)
    return LogicalResult(nodeError(node) << "input 'y_zero_point' must be a "
                                            "constant known at import time");
  SmallVector<int64_t> shape(mm.getType().getShape());
  // The accumulator's scale is the f32 product sa * sb (ONNX computes it in
  // the scales' type).
  ConstTensor accScale = ConstTensor::zeros(TensorProto::FLOAT, {});
  accScale.store<float>(0, float(sa->getDouble(0)) * float(sb->getDouble(0)));
  FailureOr<Type> accType =
      quantType(node, accScale, nullptr, TensorProto::INT32, 0, shape);
  int storage = zy ? zy->dtype : TensorProto::UINT8;
  FailureOr<Type> yType = quantType(node, **sy, zy, storage, 0, shape);
  if (failed(accType) || failed(yType))
    return failure();
  Value acc = quant::StorageCastOp::create(
      builder, loc, tensorType(shape, *accType), mm.getResult());
  Value y = RequantizeOp::create(builder, loc, tensorType(shape, *yType), acc);
  setOutput(node, 0,
            quant::StorageCastOp::create(
                builder, loc, tensorType(shape, builder.getI8Type()), y)
                .getResult());
  if (node.output_size() > 0 && !node.output(0).empty())
    env[node.output(0)].unsignedBits = storage == TensorProto::UINT8;
  return success();
}

