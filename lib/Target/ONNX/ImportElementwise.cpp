//===- ImportElementwise.cpp - ONNX elementwise ops -----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Add, Sub, Mul, Div, Pow, Max, Min, the unary math ops, comparisons,
// Where: folded on constants with numpy semantics, else `llm` ops.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

Value Importer::createBinary(StringRef opType, Location loc, Type type,
                             Value lhs, Value rhs) {
  if (opType == "Add")
    return AddOp::create(builder, loc, type, lhs, rhs);
  if (opType == "Sub")
    return SubOp::create(builder, loc, type, lhs, rhs);
  if (opType == "Mul")
    return MulOp::create(builder, loc, type, lhs, rhs);
  if (opType == "Div")
    return DivOp::create(builder, loc, type, lhs, rhs);
  if (opType == "Pow")
    return PowOp::create(builder, loc, type, lhs, rhs);
  if (opType == "Max")
    return MaxOp::create(builder, loc, type, lhs, rhs);
  assert(opType == "Min" && "unexpected binary op");
  return MinOp::create(builder, loc, type, lhs, rhs);
}

static double foldBinary(StringRef op, double a, double b) {
  if (op == "Add")
    return a + b;
  if (op == "Sub")
    return a - b;
  if (op == "Mul")
    return a * b;
  if (op == "Div")
    return a / b;
  if (op == "Mod")
    return std::fmod(a, b); // fmod=1, the only float Mod (checked)
  if (op == "Pow")
    return std::pow(a, b);
  if (op == "Max")
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

/// `op` on two integers of ONNX type `dtype` (ONNXIntegerMath.h: wrapping
/// Add/Sub/Mul/Pow, Div truncating toward zero, Mod with the sign of the
/// divisor or, with `fmod`, of the dividend). Narrower types are computed in
/// int64 (getInt sign- or zero-extends them) and wrap when stored; uint64
/// values are int64 bits, divided and compared as unsigned. nullopt: a
/// division or remainder by zero (0 to a negative power included).
static std::optional<int64_t> foldBinaryInt(StringRef op, int64_t a, int64_t b,
                                            int dtype, bool fmod) {
  using namespace llm::detail;
  bool u64 = dtype == TensorProto::UINT64;
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (op == "Add")
    return wrapAdd(a, b);
  if (op == "Sub")
    return wrapSub(a, b);
  if (op == "Mul")
    return wrapMul(a, b);
  if (op == "Div" || op == "Mod") {
    if (b == 0)
      return std::nullopt;
    if (u64)
      return static_cast<int64_t>(op == "Div" ? ua / ub : ua % ub);
    return op == "Div" ? truncDiv(a, b) : onnxMod(a, b, fmod);
  }
  if (op == "Pow")
    return intPow(a, b);
  if (op == "Max")
    return u64 ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b);
  return u64 ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b);
}

/// Elementwise evaluation of two constants with numpy broadcasting; the
/// result has `resultType` (Pow keeps the base's type).
static ConstTensor foldElementwise(
    const ConstTensor &a, const ConstTensor &b, ArrayRef<int64_t> outShape,
    int resultType,
    llvm::function_ref<void(ConstTensor &, int64_t, int64_t, int64_t)> fn) {
  ConstTensor out = ConstTensor::zeros(resultType, outShape);
  SmallVector<int64_t> sa = stridesOf(a.shape), sb = stridesOf(b.shape);
  forEachIndex(outShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    fn(out, flat, broadcastIndex(idx, a.shape, sa),
       broadcastIndex(idx, b.shape, sb));
  });
  return out;
}

// Add/Sub/Mul/Div/Mod/Pow/Max/Min. Constants fold (floats in double;
// integers as ONNX defines them, foldBinaryInt: wrapping, Div truncating
// toward zero, a division by zero an error); otherwise one llm op per pair
// of operands (Max/Min are variadic), with constant operands converted to
// the runtime operand's float type. Mod has no llm op: constants only.
LogicalResult Importer::importBinary(const onnx::NodeProto &node) {
  // Sum and Mean are variadic Adds (Mean then divides: importMean).
  StringRef op = node.op_type() == "Sum" || node.op_type() == "Mean"
                     ? StringRef("Add")
                     : StringRef(node.op_type());
  SmallVector<Entry *> ins;
  for (int i = 0; i < node.input_size(); ++i)
    if (Entry *e = input(node, i))
      ins.push_back(e);
  if (ins.empty())
    return nodeError(node) << "expects at least one input";
  if (ins.size() == 1) {
    env[node.output(0)] = *ins[0];
    return success();
  }
  SmallVector<int64_t> shape = shapeOf(*ins[0]);
  for (Entry *e : ArrayRef(ins).drop_front()) {
    auto b = broadcastShapes(shape, shapeOf(*e));
    if (!b)
      return nodeError(node) << "operand shapes " << shapeStr(shape) << " and "
                             << shapeStr(shapeOf(*e)) << " do not broadcast";
    shape = *b;
  }

  // Mod: fmod=0 (the sign of the divisor) is integer-only in ONNX.
  bool fmod = false;
  if (op == "Mod") {
    int64_t f = intAttr(node, "fmod", 0);
    if (f != 0 && f != 1)
      return nodeError(node) << "fmod must be 0 or 1, got " << f;
    fmod = f;
    for (Entry *e : ins)
      if (isFloatDType(dtypeOf(*e)) && !fmod)
        return nodeError(node) << "Mod of " << dtypeName(dtypeOf(*e))
                               << " tensors needs fmod=1";
  }

  // Folded, unless floating-point operands would broadcast to a result that
  // stores much more than they do (worthFolding): then it is computed at
  // run time on the constants.
  bool fold = allConst(ins);
  if (fold && op != "Mod" &&
      llvm::all_of(ins, [](Entry *e) { return isFloatDType(dtypeOf(*e)); })) {
    SmallVector<const ConstTensor *> operands;
    for (Entry *e : ins)
      operands.push_back(&*e->constant);
    fold = worthFolding(operands, shape);
  }
  if (fold) {
    if (failed(checkShape(node, shape)))
      return failure();
    ConstTensor acc = *ins[0]->constant;
    for (Entry *e : ArrayRef(ins).drop_front()) {
      const ConstTensor &b = *e->constant;
      auto outShape = *broadcastShapes(acc.shape, b.shape);
      bool useFloat = isFloatDType(acc.dtype) || isFloatDType(b.dtype);
      // The first element without a value (an integer division by zero).
      std::optional<int64_t> undefinedAt;
      acc = foldElementwise(
          acc, b, outShape, acc.dtype,
          [&](ConstTensor &out, int64_t o, int64_t ia, int64_t ib) {
            if (useFloat) {
              out.setDouble(o,
                            foldBinary(op, acc.getDouble(ia), b.getDouble(ib)));
              return;
            }
            std::optional<int64_t> r = foldBinaryInt(
                op, acc.getInt(ia), b.getInt(ib), acc.dtype, fmod);
            if (!r && !undefinedAt)
              undefinedAt = o;
            out.setInt(o, r.value_or(0));
          });
      if (undefinedAt)
        return nodeError(node)
               << (op == "Div"   ? "integer division by zero"
                   : op == "Mod" ? "integer Mod by zero"
                                 : "integer 0 to a negative power")
               << " in the folded result (element " << *undefinedAt << ")";
    }
    setOutput(node, 0, std::move(acc));
    return success();
  }
  // The element type comes from a runtime operand (the first operand's
  // when all are constants that were not worth folding).
  int dtype = allConst(ins) ? dtypeOf(*ins[0]) : TensorProto::UNDEFINED;
  for (Entry *e : ins)
    if (!e->constant) {
      dtype = dtypeOf(*e);
      break;
    }
  // llm.pow takes f32/f16/bf16; the other ops also f64 and i8/i32/i64.
  bool isLowFloat = dtype == TensorProto::FLOAT ||
                    dtype == TensorProto::FLOAT16 ||
                    dtype == TensorProto::BFLOAT16;
  bool isArith = isLowFloat || dtype == TensorProto::DOUBLE ||
                 dtype == TensorProto::INT8 || dtype == TensorProto::INT32 ||
                 dtype == TensorProto::INT64;
  if (op == "Pow" ? !isLowFloat : !isArith)
    return nodeError(node) << "elementwise " << op << " on runtime "
                           << dtypeName(dtype)
                           << " tensors is not supported ("
                           << (op == "Pow" ? "llm.pow takes f32, f16 or bf16"
                                           : "llm arithmetic takes f32, f16, "
                                             "bf16, f64, i8, i32 or i64")
                           << ")";
  Location loc = nodeLoc(node);
  FailureOr<Value> acc = materializeAs(node, *ins[0], dtype);
  if (failed(acc))
    return failure();
  Value result = *acc;
  for (Entry *e : ArrayRef(ins).drop_front()) {
    FailureOr<Value> rhs = materializeAs(node, *e, dtype);
    if (failed(rhs))
      return failure();
    // Pow(float x, integer y): y converted to x's type (ONNX Pow takes
    // mixed types; the result has the base's type).
    if (op == "Pow" && !e->constant && isa<IntegerType>(elemTypeOf(*rhs)) &&
        !elemTypeOf(*rhs).isInteger(1))
      rhs = Value(CastOp::create(
          builder, loc, tensorType(shapeOf(*rhs), elemTypeOf(result)), *rhs));
    else if (dtypeOf(*e) != dtype && !e->constant)
      return nodeError(node) << "operands have different element types";
    auto outShape = *broadcastShapes(shapeOf(result), shapeOf(*rhs));
    Type type = tensorType(outShape, elemTypeOf(result));
    if (op == "Mod")
      result = createMod(loc, type, result, *rhs, fmod);
    else
      result = createBinary(op, loc, type, result, *rhs);
  }
  setOutput(node, 0, result);
  return success();
}

// Mod(a, b, fmod=1) -> llm.rem (the sign of a, C fmod).
// Mod(a, b, fmod=0) (integers: the sign of b, Python's %) ->
//   r = rem(a, b); select(r != 0 and (r < 0) != (b < 0), r + b, r).
Value Importer::createMod(Location loc, Type type, Value a, Value b,
                          bool fmod) {
  Value r = RemOp::create(builder, loc, type, a, b);
  if (fmod)
    return r;
  auto shapedType = cast<RankedTensorType>(type);
  Type i1 = builder.getI1Type();
  auto boolType = [&](Value v) {
    return tensorType(shapeOf(v), i1);
  };
  Value zero = ConstantOp::create(
      builder, loc,
      cast<DenseElementsAttr>(
          builder.getZeroAttr(tensorType({}, shapedType.getElementType()))));
  auto cmp = [&](ComparePredicate p, Value x) {
    return CompareOp::create(builder, loc, boolType(x), p, x, zero);
  };
  Value nonZero = cmp(ComparePredicate::NE, r);
  Value signsDiffer = LogicalXorOp::create(
      builder, loc, tensorType(shapedType.getShape(), i1),
      cmp(ComparePredicate::LT, r), cmp(ComparePredicate::LT, b));
  Value fix = LogicalAndOp::create(builder, loc,
                                   tensorType(shapedType.getShape(), i1),
                                   nonZero, signsDiffer);
  Value shifted = AddOp::create(builder, loc, type, r, b);
  return SelectOp::create(builder, loc, type, fix, shifted, r);
}

static std::optional<double> foldUnary(StringRef op, double x) {
  if (op == "Neg")
    return -x;
  if (op == "Sqrt")
    return std::sqrt(x);
  if (op == "Reciprocal")
    return 1.0 / x;
  if (op == "Exp")
    return std::exp(x);
  if (op == "Log")
    return std::log(x);
  if (op == "Tanh")
    return std::tanh(x);
  if (op == "Erf")
    return std::erf(x);
  if (op == "Sigmoid")
    return 1.0 / (1.0 + std::exp(-x));
  if (op == "Relu")
    return x > 0 ? x : 0.0;
  if (op == "Floor")
    return std::floor(x);
  if (op == "Ceil")
    return std::ceil(x);
  if (op == "Abs")
    return std::fabs(x);
  if (op == "Sin")
    return std::sin(x);
  if (op == "Cos")
    return std::cos(x);
  if (op == "Acos")
    return std::acos(x);
  if (op == "Asin")
    return std::asin(x);
  if (op == "Atan")
    return std::atan(x);
  if (op == "Round") // halves to even
    return std::nearbyint(x);
  return std::nullopt;
}

/// The integer unary ops, exact in int64 (through double, Neg of 2^53 + 1
/// would round): Neg and Abs wrap (Abs and Neg of INT64_MIN are INT64_MIN),
/// Abs of an unsigned value is the value. nullopt for the other ops.
static std::optional<int64_t> foldUnaryInt(StringRef op, int64_t x, int dtype) {
  bool isUnsigned = dtype == TensorProto::UINT8 ||
                    dtype == TensorProto::UINT16 ||
                    dtype == TensorProto::UINT32 ||
                    dtype == TensorProto::UINT64 || dtype == TensorProto::BOOL;
  if (op == "Neg")
    return llm::detail::wrapNeg(x);
  if (op == "Abs")
    return isUnsigned ? x : llm::detail::wrapAbs(x);
  if (op == "Relu")
    return isUnsigned ? x : std::max<int64_t>(x, 0);
  if (op == "Floor" || op == "Ceil")
    return x;
  return std::nullopt;
}

// Neg/Sqrt/Reciprocal/Exp/Log/Tanh/Erf/Sigmoid/Relu/Floor/Ceil/Abs/Round/
// Sin/Cos/Acos/Asin/Atan: folded on constants (e.g. rotary tables computed
// from static positions), one llm op otherwise.
LogicalResult Importer::importUnary(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  if ((*in)->constant) {
    const ConstTensor &c = *(*in)->constant;
    ConstTensor out = ConstTensor::zeros(c.dtype, c.shape);
    for (int64_t i = 0, e = c.numel(); i < e; ++i) {
      if (isFloatDType(c.dtype))
        out.setDouble(i, *foldUnary(op, c.getDouble(i)));
      else if (std::optional<int64_t> r =
                   foldUnaryInt(op, c.getInt(i), c.dtype))
        out.setInt(i, *r);
      else // No integer form in ONNX (Sqrt, Exp, ...): through double.
        out.setDouble(i, *foldUnary(op, c.getDouble(i)));
    }
    setOutput(node, 0, std::move(out));
    return success();
  }
  Value x = (*in)->value;
  // Neg and Abs also take i8/i32/i64 (and f64: checkRuntimeF64 lets only
  // those two through).
  bool arith = op == "Neg" || op == "Abs";
  if (!isa<FloatType>(elemTypeOf(x)) &&
      !(arith && isa<IntegerType>(elemTypeOf(x)) &&
        !elemTypeOf(x).isInteger(1)))
    return nodeError(node) << op << " on runtime " << dtypeName(dtypeOf(**in))
                           << " tensors is not supported (llm ops take f32, "
                              "f16 or bf16"
                           << (arith ? "; llm.neg/abs also f64, i8, i32, i64"
                                     : "")
                           << ")";
  Location loc = nodeLoc(node);
  Type t = x.getType();
  Value r;
  if (op == "Neg")
    r = NegOp::create(builder, loc, t, x);
  else if (op == "Sqrt")
    r = SqrtOp::create(builder, loc, t, x);
  else if (op == "Reciprocal")
    r = ReciprocalOp::create(builder, loc, t, x);
  else if (op == "Exp")
    r = ExpOp::create(builder, loc, t, x);
  else if (op == "Log")
    r = LogOp::create(builder, loc, t, x);
  else if (op == "Tanh")
    r = TanhOp::create(builder, loc, t, x);
  else if (op == "Erf")
    r = ErfOp::create(builder, loc, t, x);
  else if (op == "Sigmoid")
    r = SigmoidOp::create(builder, loc, t, x);
  else if (op == "Relu")
    r = ReluOp::create(builder, loc, t, x);
  else if (op == "Abs")
    r = AbsOp::create(builder, loc, t, x);
  else if (op == "Floor")
    r = FloorOp::create(builder, loc, t, x);
  else if (op == "Ceil")
    r = CeilOp::create(builder, loc, t, x);
  else if (op == "Round")
    r = RoundOp::create(builder, loc, t, x);
  else if (op == "Sin")
    r = SinOp::create(builder, loc, t, x);
  else if (op == "Cos")
    r = CosOp::create(builder, loc, t, x);
  else if (op == "Acos")
    r = AcosOp::create(builder, loc, t, x);
  else if (op == "Asin")
    r = AsinOp::create(builder, loc, t, x);
  else if (op == "Atan")
    r = AtanOp::create(builder, loc, t, x);
  else
    return nodeError(node) << op
                           << " is only supported on constants (no llm op)";
  setOutput(node, 0, r);
  return success();
}

// Equal/Less/Greater/LessOrEqual/GreaterOrEqual/And/Or/Xor/Not: folded on
// constants; otherwise llm.compare (constant operands converted to the
// runtime operand's type) or llm.logical_* on i1 tensors.
LogicalResult Importer::importCompare(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  SmallVector<Entry *> ins;
  for (int i = 0; i < node.input_size(); ++i) {
    FailureOr<Entry *> e = required(node, i);
    if (failed(e))
      return failure();
    ins.push_back(*e);
  }
  if (!allConst(ins))
    return importRuntimeCompare(node, ins);
  if (op == "Not") {
    const ConstTensor &c = *ins[0]->constant;
    ConstTensor out = ConstTensor::zeros(TensorProto::BOOL, c.shape);
    for (int64_t i = 0, e = c.numel(); i < e; ++i)
      out.setInt(i, !c.getInt(i));
    setOutput(node, 0, std::move(out));
    return success();
  }
  if (ins.size() != 2)
    return nodeError(node) << "expects 2 inputs";
  const ConstTensor &a = *ins[0]->constant, &b = *ins[1]->constant;
  auto outShape = broadcastShapes(a.shape, b.shape);
  if (!outShape)
    return nodeError(node) << "operand shapes " << shapeStr(a.shape) << " and "
                           << shapeStr(b.shape) << " do not broadcast";
  if (failed(checkShape(node, *outShape)))
    return failure();
  bool useFloat = isFloatDType(a.dtype) || isFloatDType(b.dtype);
  // uint64 elements are int64 bits: ordered as unsigned (biased by 2^63).
  uint64_t bias = a.dtype == TensorProto::UINT64 ? uint64_t(1) << 63 : 0;
  ConstTensor out =
      foldElementwise(a, b, *outShape, TensorProto::BOOL,
                      [&](ConstTensor &o, int64_t i, int64_t ia, int64_t ib) {
                        double x = a.getDouble(ia), y = b.getDouble(ib);
                        int64_t xi = a.getInt(ia), yi = b.getInt(ib);
                        xi = static_cast<int64_t>(uint64_t(xi) ^ bias);
                        yi = static_cast<int64_t>(uint64_t(yi) ^ bias);
                        bool r;
                        if (op == "Equal")
                          r = useFloat ? x == y : xi == yi;
                        else if (op == "Less")
                          r = useFloat ? x < y : xi < yi;
                        else if (op == "Greater")
                          r = useFloat ? x > y : xi > yi;
                        else if (op == "LessOrEqual")
                          r = useFloat ? x <= y : xi <= yi;
                        else if (op == "GreaterOrEqual")
                          r = useFloat ? x >= y : xi >= yi;
                        else if (op == "And")
                          r = xi && yi;
                        else if (op == "Or")
                          r = xi || yi;
                        else
                          r = (xi != 0) != (yi != 0);
                        o.setInt(i, r);
                      });
  setOutput(node, 0, std::move(out));
  return success();
}

// The runtime case of importCompare: And/Or/Xor/Not need bool operands;
// comparisons take any llm element type (both operands the same).
LogicalResult Importer::importRuntimeCompare(const onnx::NodeProto &node,
                                             ArrayRef<Entry *> ins) {
  StringRef op = node.op_type();
  Location loc = nodeLoc(node);
  bool logical = llvm::is_contained({"And", "Or", "Xor", "Not"}, op);
  if (op == "Not" ? ins.size() != 1 : ins.size() != 2)
    return nodeError(node) << "expects " << (op == "Not" ? 1 : 2)
                           << " inputs";
  // The element type comes from a runtime operand (the first operand's
  // when all are constants that were not worth folding).
  int dtype = allConst(ins) ? dtypeOf(*ins[0]) : TensorProto::UNDEFINED;
  for (Entry *e : ins)
    if (!e->constant) {
      dtype = dtypeOf(*e);
      break;
    }
  if (logical && dtype != TensorProto::BOOL)
    return nodeError(node) << op << " on runtime " << dtypeName(dtype)
                           << " tensors is not supported (ONNX takes bool)";
  SmallVector<Value> vals;
  for (Entry *e : ins) {
    if (!e->constant && dtypeOf(*e) != dtype)
      return nodeError(node) << "operands have different element types ("
                             << dtypeName(dtype) << " vs "
                             << dtypeName(dtypeOf(*e)) << ")";
    FailureOr<Value> v = materializeAs(node, *e, dtype);
    if (failed(v))
      return failure();
    vals.push_back(*v);
  }
  if (op == "Not") {
    setOutput(node, 0,
              LogicalNotOp::create(builder, loc, vals[0].getType(), vals[0]));
    return success();
  }
  auto shape = broadcastShapes(shapeOf(vals[0]), shapeOf(vals[1]));
  if (!shape)
    return nodeError(node) << "operand shapes " << shapeStr(shapeOf(vals[0]))
                           << " and " << shapeStr(shapeOf(vals[1]))
                           << " do not broadcast";
  RankedTensorType type = tensorType(*shape, builder.getI1Type());
  Value r;
  if (op == "And")
    r = LogicalAndOp::create(builder, loc, type, vals[0], vals[1]);
  else if (op == "Or")
    r = LogicalOrOp::create(builder, loc, type, vals[0], vals[1]);
  else if (op == "Xor")
    r = LogicalXorOp::create(builder, loc, type, vals[0], vals[1]);
  else {
    ComparePredicate p = llvm::StringSwitch<ComparePredicate>(op)
                             .Case("Equal", ComparePredicate::EQ)
                             .Case("Less", ComparePredicate::LT)
                             .Case("LessOrEqual", ComparePredicate::LE)
                             .Case("Greater", ComparePredicate::GT)
                             .Default(ComparePredicate::GE);
    r = CompareOp::create(builder, loc, type, p, vals[0], vals[1]);
  }
  setOutput(node, 0, r);
  return success();
}

// Where(cond, x, y): folded on constants, otherwise llm.select (constant
// operands converted to the runtime value's type).
LogicalResult Importer::importWhere(const onnx::NodeProto &node) {
  SmallVector<Entry *> ins;
  for (int i = 0; i < 3; ++i) {
    FailureOr<Entry *> e = required(node, i);
    if (failed(e))
      return failure();
    ins.push_back(*e);
  }
  // Folded on constants, unless float X and Y would broadcast to a result
  // that stores much more than the constants (worthFolding): then a select
  // at run time.
  bool fold = allConst(ins);
  if (fold && isFloatDType(ins[1]->constant->dtype)) {
    auto s = broadcastShapes(ins[0]->constant->shape, ins[1]->constant->shape);
    if (s)
      s = broadcastShapes(*s, ins[2]->constant->shape);
    if (s)
      fold = worthFolding({&*ins[0]->constant, &*ins[1]->constant,
                           &*ins[2]->constant},
                          *s);
  }
  if (!fold) {
    // Masked attention scores, torch's masked_fill(~mask, -inf): a constant
    // condition, one runtime float operand s and a constant that is -inf
    // everywhere -> s + where(c, 0, -inf) (or where(c, -inf, 0)), a constant
    // additive mask: exact, as s + 0 = s and s + -inf = -inf for finite s
    // (llm-recompose then reads it as an attention mask).
    Entry *cond = ins[0];
    bool runtimeIsX = !ins[1]->constant;
    Entry *runtime = runtimeIsX ? ins[1] : ins[2];
    Entry *fill = runtimeIsX ? ins[2] : ins[1];
    auto allNegInf = [](const ConstTensor &t) {
      if (!isFloatDType(t.dtype))
        return false;
      for (int64_t i = 0, e = product(t.shape); i < e; ++i) {
        double v = t.getDouble(i);
        if (!(std::isinf(v) && v < 0))
          return false;
      }
      return true;
    };
    int dtype = dtypeOf(*runtime);
    bool maskedFill = !(!cond->constant || runtime->constant || !fill->constant ||
        !allNegInf(*fill->constant) ||
        (dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
         dtype != TensorProto::BFLOAT16));
    if (maskedFill) {
      const ConstTensor &c = *cond->constant, &f = *fill->constant;
      auto maskShape = broadcastShapes(c.shape, f.shape);
      auto outShape = maskShape ? broadcastShapes(*maskShape, shapeOf(*runtime))
                                : std::nullopt;
      if (!outShape)
        return nodeError(node) << "operand shapes do not broadcast";
      if (failed(checkShape(node, *maskShape)))
        return failure();
      SmallVector<int64_t> sc = stridesOf(c.shape);
      ConstTensor mask = ConstTensor::zeros(dtype, *maskShape);
      double ninf = -std::numeric_limits<double>::infinity();
      forEachIndex(*maskShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
        bool take = c.getInt(broadcastIndex(idx, c.shape, sc));
        mask.setDouble(flat, take == runtimeIsX ? 0.0 : ninf);
      });
      Entry maskEntry;
      maskEntry.constant = std::move(mask);
      FailureOr<Value> s = materialize(node, *runtime);
      FailureOr<Value> m = materialize(node, maskEntry);
      if (failed(s) || failed(m))
        return failure();
      setOutput(node, 0,
                createBinary("Add", nodeLoc(node),
                             tensorType(*outShape, elemTypeOf(*s)), *s, *m));
      return success();
    }
    // General select on runtime data.
    if (dtypeOf(*ins[0]) != TensorProto::BOOL)
      return nodeError(node) << "condition must be bool, got "
                             << dtypeName(dtypeOf(*ins[0]));
    dtype = !ins[1]->constant ? dtypeOf(*ins[1])
            : !ins[2]->constant ? dtypeOf(*ins[2])
                                : dtypeOf(*ins[1]);
    SmallVector<Value> vals;
    for (auto [i, e] : llvm::enumerate(ins)) {
      if (i > 0 && !e->constant && dtypeOf(*e) != dtype)
        return nodeError(node) << "X and Y have different element types";
      FailureOr<Value> v =
          i == 0 ? materialize(node, *e) : materializeAs(node, *e, dtype);
      if (failed(v))
        return failure();
      vals.push_back(*v);
    }
    auto shape = broadcastShapes(shapeOf(vals[0]), shapeOf(vals[1]));
    if (shape)
      shape = broadcastShapes(*shape, shapeOf(vals[2]));
    if (!shape)
      return nodeError(node) << "operand shapes do not broadcast";
    setOutput(node, 0,
              SelectOp::create(builder, nodeLoc(node),
                               tensorType(*shape, elemTypeOf(vals[1])),
                               vals[0], vals[1], vals[2]));
    return success();
  }
  const ConstTensor &c = *ins[0]->constant, &x = *ins[1]->constant,
                    &y = *ins[2]->constant;
  auto s = broadcastShapes(c.shape, x.shape);
  if (s)
    s = broadcastShapes(*s, y.shape);
  if (!s)
    return nodeError(node) << "operand shapes do not broadcast";
  if (x.dtype != y.dtype)
    return nodeError(node) << "X and Y have different element types ("
                           << dtypeName(x.dtype) << " vs " << dtypeName(y.dtype)
                           << ")";
  if (failed(checkShape(node, *s)))
    return failure();
  SmallVector<int64_t> sc = stridesOf(c.shape), sx = stridesOf(x.shape),
                       sy = stridesOf(y.shape);
  ConstTensor out = ConstTensor::zeros(x.dtype, *s);
  int64_t es = out.elemSize();
  forEachIndex(*s, [&](ArrayRef<int64_t> idx, int64_t flat) {
    bool take = c.getInt(broadcastIndex(idx, c.shape, sc));
    const char *src = take ? x.ptr(broadcastIndex(idx, x.shape, sx))
                           : y.ptr(broadcastIndex(idx, y.shape, sy));
    std::memcpy(out.bytes->data() + flat * es, src, es);
  });
  setOutput(node, 0, std::move(out));
  return success();
}


// Mean(x_1, ..., x_n) = Sum(x_1, ..., x_n) / n, with broadcasting: folded on
// constants, else llm.add ... then llm.div by the constant n.
LogicalResult Importer::importMean(const onnx::NodeProto &node) {
  int n = 0;
  for (int i = 0; i < node.input_size(); ++i)
    n += input(node, i) != nullptr;
  if (failed(importBinary(node)))
    return failure();
  Entry &sum = env[node.output(0)];
  if (sum.constant) {
    const ConstTensor &c = *sum.constant;
    setOutput(node, 0, c.map(c.dtype, [&](double v) { return v / n; }));
    return success();
  }
  FailureOr<Value> count = scalarConstant(node, n, dtypeOf(sum));
  if (failed(count))
    return failure();
  Value s = sum.value;
  setOutput(node, 0,
            DivOp::create(builder, nodeLoc(node), s.getType(), s, *count));
  return success();
}

// LeakyRelu {alpha = 0.01}: x < 0 ? alpha * x : x; ThresholdedRelu {alpha =
// 1}: x > alpha ? x : 0; HardSigmoid {alpha = 0.2,
// beta = 0.5}: max(0, min(1, alpha * x + beta)); HardSwish: x *
// HardSigmoid(x) with alpha = 1/6, beta = 0.5 (the ONNX definitions).
// Folded on constants, else llm.compare/select/mul/add/min/max with scalar
// constants.
LogicalResult Importer::importActivation(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  bool leaky = op == "LeakyRelu", swish = op == "HardSwish",
       thresholded = op == "ThresholdedRelu";
  double alpha = leaky ? floatAttr(node, "alpha", 0.01f)
                 : swish ? 1.0 / 6
                 : thresholded ? floatAttr(node, "alpha", 1.0f)
                               : floatAttr(node, "alpha", 0.2f);
  double beta = swish ? 0.5 : floatAttr(node, "beta", 0.5f);
  auto fold = [&](double x) {
    if (leaky)
      return x < 0 ? alpha * x : x;
    if (thresholded)
      return x > alpha ? x : 0.0;
    double h = std::max(0.0, std::min(1.0, alpha * x + beta));
    return swish ? x * h : h;
  };
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype))
    return nodeError(node) << op << " takes a float tensor, got "
                           << dtypeName(dtype);
  if ((*in)->constant) {
    const ConstTensor &c = *(*in)->constant;
    setOutput(node, 0, c.map(c.dtype, fold));
    return success();
  }
  Value x = (*in)->value;
  Location loc = nodeLoc(node);
  Type t = x.getType();
  auto scalar = [&](double v) { return scalarConstant(node, v, dtype); };
  FailureOr<Value> a = scalar(alpha);
  if (failed(a))
    return failure();
  if (thresholded) {
    FailureOr<Value> zero = scalar(0);
    if (failed(zero))
      return failure();
    Value above = CompareOp::create(
        builder, loc, tensorType(shapeOf(x), builder.getI1Type()),
        ComparePredicate::GT, x, *a);
    setOutput(node, 0, SelectOp::create(builder, loc, t, above, x, *zero));
    return success();
  }
  Value ax = MulOp::create(builder, loc, t, x, *a);
  if (leaky) {
    FailureOr<Value> zero = scalar(0);
    if (failed(zero))
      return failure();
    Value neg = CompareOp::create(
        builder, loc, tensorType(shapeOf(x), builder.getI1Type()),
        ComparePredicate::LT, x, *zero);
    setOutput(node, 0, SelectOp::create(builder, loc, t, neg, ax, x));
    return success();
  }
  FailureOr<Value> b = scalar(beta), one = scalar(1), zero = scalar(0);
  if (failed(b) || failed(one) || failed(zero))
    return failure();
  Value h = AddOp::create(builder, loc, t, ax, *b);
  h = MinOp::create(builder, loc, t, h, *one);
  h = MaxOp::create(builder, loc, t, h, *zero);
  setOutput(node, 0, swish ? MulOp::create(builder, loc, t, x, h) : h);
  return success();
}

// PRelu(x, slope) = x < 0 ? slope * x : x, slope broadcast to x (folded on
// constants, else llm.compare/mul/select).
LogicalResult Importer::importPRelu(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0), sl = required(node, 1);
  if (failed(in) || failed(sl))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  auto out = broadcastShapes(shape, shapeOf(**sl));
  if (!out || *out != shape)
    return nodeError(node) << "slope of shape " << shapeStr(shapeOf(**sl))
                           << " does not broadcast to x of shape "
                           << shapeStr(shape);
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype))
    return nodeError(node) << "PRelu takes a float tensor, got "
                           << dtypeName(dtype);
  if ((*in)->constant && (*sl)->constant) {
    const ConstTensor &x = *(*in)->constant, &s = *(*sl)->constant;
    ConstTensor r = foldElementwise(
        x, s, shape, x.dtype,
        [&](ConstTensor &o, int64_t k, int64_t ia, int64_t ib) {
          double v = x.getDouble(ia);
          o.setDouble(k, v < 0 ? s.getDouble(ib) * v : v);
        });
    setOutput(node, 0, std::move(r));
    return success();
  }
  Location loc = nodeLoc(node);
  FailureOr<Value> x = materialize(node, **in);
  FailureOr<Value> s = materializeAs(node, **sl, dtype);
  FailureOr<Value> zero = scalarConstant(node, 0, dtype);
  if (failed(x) || failed(s) || failed(zero))
    return failure();
  Type t = x->getType();
  Value neg = CompareOp::create(builder, loc,
                                tensorType(shape, builder.getI1Type()),
                                ComparePredicate::LT, *x, *zero);
  Value scaled = MulOp::create(builder, loc, t, *x, *s);
  setOutput(node, 0, SelectOp::create(builder, loc, t, neg, scaled, *x));
  return success();
}

// IsInf(x) {detect_negative = 1, detect_positive = 1}: x == +inf / x == -inf
// (i1), folded on constants, else llm.compare (and llm.logical_or).
LogicalResult Importer::importIsInf(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  bool neg = intAttr(node, "detect_negative", 1) != 0,
       pos = intAttr(node, "detect_positive", 1) != 0;
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype))
    return nodeError(node) << "IsInf takes a float tensor, got "
                           << dtypeName(dtype);
  SmallVector<int64_t> shape = shapeOf(**in);
  if ((*in)->constant) {
    setOutput(node, 0, (*in)->constant->map(TensorProto::BOOL, [&](double v) {
      return std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
    }));
    return success();
  }
  Location loc = nodeLoc(node);
  Value x = (*in)->value;
  auto maskType = tensorType(shape, builder.getI1Type());
  double inf = std::numeric_limits<double>::infinity();
  auto equals = [&](double v) -> FailureOr<Value> {
    FailureOr<Value> c = scalarConstant(node, v, dtype);
    if (failed(c))
      return failure();
    return Value(CompareOp::create(builder, loc, maskType, ComparePredicate::EQ,
                                   x, *c));
  };
  Value r;
  if (pos || neg) {
    FailureOr<Value> a = equals(pos ? inf : -inf);
    if (failed(a))
      return failure();
    r = *a;
    if (pos && neg) {
      FailureOr<Value> b = equals(-inf);
      if (failed(b))
        return failure();
      r = LogicalOrOp::create(builder, loc, maskType, r, *b);
    }
  } else {
    Entry none;
    none.constant = ConstTensor::zeros(TensorProto::BOOL, shape);
    FailureOr<Value> z = materialize(node, none);
    if (failed(z))
      return failure();
    r = *z;
  }
  setOutput(node, 0, r);
  return success();
}

// Shrink(x) {bias = 0, lambd = 0.5}: x < -lambd ? x + bias : x > lambd ?
// x - bias : 0, folded on constants, else llm.compare/select/add/sub.
LogicalResult Importer::importShrink(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  double bias = floatAttr(node, "bias", 0.0f),
         lambd = floatAttr(node, "lambd", 0.5f);
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype))
    return nodeError(node) << "Shrink of " << dtypeName(dtype)
                           << " tensors is not supported (float only)";
  if ((*in)->constant) {
    const ConstTensor &c = *(*in)->constant;
    setOutput(node, 0, c.map(c.dtype, [&](double v) {
      return v < -lambd ? v + bias : v > lambd ? v - bias : 0.0;
    }));
    return success();
  }
  Location loc = nodeLoc(node);
  Value x = (*in)->value;
  Type t = x.getType();
  auto maskType = tensorType(shapeOf(x), builder.getI1Type());
  FailureOr<Value> lo = scalarConstant(node, -lambd, dtype),
                   hi = scalarConstant(node, lambd, dtype),
                   b = scalarConstant(node, bias, dtype),
                   zero = scalarConstant(node, 0, dtype);
  if (failed(lo) || failed(hi) || failed(b) || failed(zero))
    return failure();
  Value below = CompareOp::create(builder, loc, maskType, ComparePredicate::LT,
                                  x, *lo);
  Value above = CompareOp::create(builder, loc, maskType, ComparePredicate::GT,
                                  x, *hi);
  Value upper = SelectOp::create(builder, loc, t, above,
                                 SubOp::create(builder, loc, t, x, *b), *zero);
  setOutput(node, 0,
            SelectOp::create(builder, loc, t, below,
                             AddOp::create(builder, loc, t, x, *b), upper));
  return success();
}

// Elementwise functions without an llm op of their own, written with llm
// ops (the ONNX definitions; folded on constants):
//   Sinh = (e^x - e^-x) / 2, Cosh = (e^x + e^-x) / 2,
//   Asinh = sign(x) log(|x| + sqrt(x^2 + 1)) (odd: no cancellation for x < 0),
//   Acosh = log(x + sqrt(x^2 - 1)) (both log(|x|) + log(2) for large |x|,
//   where x^2 would overflow), Atanh = log((1 + x) / (1 - x)) / 2,
//   Sign = x > 0 ? 1 : x < 0 ? -1 : 0 (NaN for NaN), IsNaN = x != x,
//   Elu {alpha = 1} = x < 0 ? alpha (e^x - 1) : x,
//   Celu {alpha = 1} = max(0, x) + min(0, alpha (e^(x / alpha) - 1)),
//   Selu {alpha, gamma} = gamma (x > 0 ? x : alpha (e^x - 1)),
//   Softsign = x / (1 + |x|), Tan = sin(x) / cos(x),
//   Softplus = log(e^x + 1) = max(x, 0) + log(1 + e^-|x|) (no overflow).
LogicalResult Importer::importMathExpr(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype))
    return nodeError(node) << op << " of a " << dtypeName(dtype)
                           << " tensor is not supported (float only)";
  // Selu's defaults are ONNX's float constants.
  double alpha = floatAttr(node, "alpha",
                           op == "Selu" ? 1.67326319217681884765625f : 1.0f);
  double gamma = floatAttr(node, "gamma", 1.05070102214813232421875f);
  auto fold = [&](double x) -> double {
    if (op == "Selu")
      return gamma * (x > 0 ? x : alpha * std::expm1(x));
    if (op == "Softsign")
      return x / (1 + std::fabs(x));
    if (op == "Softplus")
      return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    if (op == "Tan")
      return std::tan(x);
    if (op == "Sinh")
      return std::sinh(x);
    if (op == "Cosh")
      return std::cosh(x);
    if (op == "Asinh")
      return std::asinh(x);
    if (op == "Acosh")
      return std::acosh(x);
    if (op == "Atanh")
      return std::atanh(x);
    if (op == "Sign")
      return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    if (op == "IsNaN")
      return std::isnan(x);
    if (op == "Elu")
      return x < 0 ? alpha * std::expm1(x) : x;
    return std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
  };
  bool isNaN = op == "IsNaN";
  SmallVector<int64_t> shape = shapeOf(**in);
  if ((*in)->constant) {
    const ConstTensor &c = *(*in)->constant;
    setOutput(node, 0, c.map(isNaN ? TensorProto::BOOL : c.dtype, fold));
    return success();
  }
  Location loc = nodeLoc(node);
  Value x = (*in)->value;
  Type t = x.getType();
  auto maskType = tensorType(shape, builder.getI1Type());
  if (isNaN) {
    setOutput(node, 0,
              CompareOp::create(builder, loc, maskType, ComparePredicate::NE,
                                x, x));
    return success();
  }
  auto c = [&](double v) -> Value {
    FailureOr<Value> r = scalarConstant(node, v, dtype);
    return succeeded(r) ? *r : Value();
  };
  Value one = c(1), zero = c(0), half = c(0.5), a = c(alpha);
  if (!one || !zero || !half || !a)
    return failure();
  auto exp = [&](Value v) -> Value {
    return ExpOp::create(builder, loc, t, v);
  };
  auto neg = [&](Value v) -> Value {
    return NegOp::create(builder, loc, t, v);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return MulOp::create(builder, loc, t, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return AddOp::create(builder, loc, t, l, r);
  };
  auto sub = [&](Value l, Value r) -> Value {
    return SubOp::create(builder, loc, t, l, r);
  };
  auto cmp = [&](ComparePredicate p, Value l, Value r) -> Value {
    return CompareOp::create(builder, loc, maskType, p, l, r);
  };
  auto select = [&](Value m, Value l, Value r) -> Value {
    return SelectOp::create(builder, loc, t, m, l, r);
  };
  Value r;
  if (op == "Selu") {
    Value g = c(gamma);
    if (!g)
      return failure();
    r = mul(g, select(cmp(ComparePredicate::GT, x, zero), x,
                      mul(a, sub(exp(x), one))));
  } else if (op == "Softsign") {
    Value ax = AbsOp::create(builder, loc, t, x);
    r = DivOp::create(builder, loc, t, x, add(one, ax));
  } else if (op == "Softplus") {
    // ln(e^x + 1) = max(x, 0) + ln(1 + e^-|x|): no overflow for large x.
    Value ax = AbsOp::create(builder, loc, t, x);
    r = add(MaxOp::create(builder, loc, t, x, zero),
            LogOp::create(builder, loc, t, add(one, exp(neg(ax)))));
  } else if (op == "Tan") {
    r = DivOp::create(builder, loc, t, SinOp::create(builder, loc, t, x),
                      CosOp::create(builder, loc, t, x));
  } else if (op == "Sinh" || op == "Cosh") {
    Value e = exp(x), en = exp(neg(x));
    r = mul(op == "Sinh" ? sub(e, en) : add(e, en), half);
  } else if (op == "Asinh" || op == "Acosh") {
    // Beyond `large`, x^2 would overflow (f16 past 256): there
    // log(x + sqrt(x^2 +- 1)) = log(x) + log(2) + O(1 / x^2), with the
    // O(1 / x^2) term below the type's precision (f32: 2.5e-9 at 1e4; f16
    // and bf16: 6e-5 at 64).
    Value large = c(dtype == TensorProto::FLOAT ? 1e4 : 64.0),
          ln2 = c(std::log(2.0));
    if (!large || !ln2)
      return failure();
    bool asinh = op == "Asinh";
    Value ax = asinh ? MaxOp::create(builder, loc, t, x, neg(x)) : x;
    Value direct = LogOp::create(
        builder, loc, t,
        add(ax, SqrtOp::create(builder, loc, t,
                               asinh ? add(mul(x, x), one)
                                     : sub(mul(x, x), one))));
    Value asymptotic = add(LogOp::create(builder, loc, t, ax), ln2);
    Value mag = select(cmp(ComparePredicate::GT, ax, large), asymptotic,
                       direct);
    r = asinh ? select(cmp(ComparePredicate::LT, x, zero), neg(mag), mag)
              : mag;
  } else if (op == "Atanh") {
    r = mul(LogOp::create(builder, loc, t,
                          DivOp::create(builder, loc, t, add(one, x),
                                        sub(one, x))),
            half);
  } else if (op == "Sign") {
    Value minusOne = c(-1);
    if (!minusOne)
      return failure();
    // Sign(NaN) is NaN.
    r = select(cmp(ComparePredicate::NE, x, x), x,
               select(cmp(ComparePredicate::GT, x, zero), one,
                      select(cmp(ComparePredicate::LT, x, zero), minusOne,
                             zero)));
  } else if (op == "Elu") {
    r = select(cmp(ComparePredicate::LT, x, zero), mul(a, sub(exp(x), one)),
               x);
  } else { // Celu
    Value e = mul(a, sub(exp(DivOp::create(builder, loc, t, x, a)), one));
    r = add(MaxOp::create(builder, loc, t, x, zero),
            MinOp::create(builder, loc, t, e, zero));
  }
  setOutput(node, 0, r);
  return success();
}
