//===- ONNXImporter.h - The ONNX importer's shared state --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The private interface of the ONNX importer (ImportONNX.h is the public
// one), shared by its files, one per op family as in onnx-mlir:
//   ImportONNX.cpp          the model: graph checks, inputs, outputs, the
//                           node dispatch, the public entry points;
//   ImportTensorData.cpp    initializers, external data, constants and their
//                           materialization as `llm.constant`;
//   ImportElementwise.cpp   arithmetic, comparisons, Where, Cast, Clip;
//   ImportMath.cpp          MatMul, Gemm, Softmax, LayerNormalization,
//                           reductions;
//   ImportTensorOps.cpp     data movement and shape ops (Transpose, Reshape,
//                           Concat, Split, Slice, Gather, Shape, Range,
//                           Expand, Trilu, ...);
//   ImportQuant.cpp         QuantizeLinear, DequantizeLinear, MatMulInteger,
//                           QLinearMatMul.
//
// The importer walks the (topologically sorted) graph once. Every ONNX value
// is either
//   * a runtime value: an SSA value of ranked, statically shaped tensor type
//     produced by an `llm` op or a function argument, or
//   * an import-time constant (`ConstTensor`): initializers, `Constant` nodes
//     and everything computed from constants and static shapes (`Shape`,
//     `Gather`, `Concat`, `Range`, ...). Constants are evaluated in C++ with
//     numpy semantics and only become `llm.constant` ops when a runtime op
//     consumes them.
// Each node handler folds when all its inputs are constants it can evaluate
// and otherwise emits `llm` ops, computing the result type itself (shapes are
// always static) so that no builder can fail; the module is verified at the
// end.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_ONNXIMPORTER_H
#define LLM_LIB_TARGET_ONNX_ONNXIMPORTER_H

#include "ONNXIntegerMath.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::llm::onnx_import {

using onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Size in bytes of one element of ONNX data type `dtype`; 0 if unsupported.
inline int64_t elementSize(int dtype) {
  switch (dtype) {
  case TensorProto::BOOL:
  case TensorProto::INT8:
  case TensorProto::UINT8:
    return 1;
  case TensorProto::INT16:
  case TensorProto::UINT16:
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    return 2;
  case TensorProto::INT32:
  case TensorProto::UINT32:
  case TensorProto::FLOAT:
    return 4;
  case TensorProto::INT64:
  case TensorProto::UINT64:
  case TensorProto::DOUBLE:
    return 8;
  default:
    return 0;
  }
}

inline bool isFloatDType(int dtype) {
  return dtype == TensorProto::FLOAT || dtype == TensorProto::DOUBLE ||
         dtype == TensorProto::FLOAT16 || dtype == TensorProto::BFLOAT16;
}

inline std::string dtypeName(int dtype) {
  if (TensorProto::DataType_IsValid(dtype))
    return TensorProto::DataType_Name(
        static_cast<TensorProto::DataType>(dtype));
  return "<" + std::to_string(dtype) + ">";
}

/// The MLIR element type the llm dialect uses for `dtype`; null when the
/// dialect cannot hold it at runtime.
inline Type toMLIRType(int dtype, MLIRContext *ctx) {
  switch (dtype) {
  case TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  default:
    return {};
  }
}

/// Inverse of toMLIRType.
inline int toONNXType(Type type) {
  if (type.isF32())
    return TensorProto::FLOAT;
  if (type.isF16())
    return TensorProto::FLOAT16;
  if (type.isBF16())
    return TensorProto::BFLOAT16;
  if (type.isF64())
    return TensorProto::DOUBLE;
  if (type.isInteger(1))
    return TensorProto::BOOL;
  if (type.isInteger(8))
    return TensorProto::INT8;
  if (type.isInteger(32))
    return TensorProto::INT32;
  if (type.isInteger(64))
    return TensorProto::INT64;
  return TensorProto::UNDEFINED;
}

/// The number of elements of `shape`. Every value's shape is checked when it
/// is defined (shapeFits: the product of its dimensions, zeros taken
/// as 1, times its element size fits in int64), so that products and
/// strides of a value's dimensions cannot overflow; shapes computed from
/// untrusted data (a Reshape's shape input, ...) go through checkedProduct.
/// Computed wrapping around, so that even a shape nobody checked is no
/// undefined behaviour.
inline int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n = llm::detail::wrapMul(n, d);
  return n;
}

/// The product of `shape`'s dimensions; nullopt when it overflows int64 or a
/// dimension is negative.
inline std::optional<int64_t> checkedProduct(ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return std::nullopt;
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d == 0)
      return 0;
    std::optional<int64_t> m = llm::detail::checkedMul(n, d);
    overflow |= !m;
    n = m.value_or(1);
  }
  if (overflow)
    return std::nullopt;
  return n;
}

/// Whether a value of `shape` with `elemSize`-byte elements is one the
/// importer can compute with: no negative dimension, and the product of the
/// dimensions (zeros taken as 1, so that every stride and every product of
/// some of the dimensions fits too) times the element size fits in int64.
/// Checked for every initializer, graph input and node output.
inline bool shapeFits(ArrayRef<int64_t> shape, int64_t elemSize) {
  int64_t n = std::max<int64_t>(elemSize, 1);
  for (int64_t d : shape) {
    std::optional<int64_t> m =
        d < 0 ? std::nullopt
              : llm::detail::checkedMul(n, std::max<int64_t>(d, 1));
    if (!m)
      return false;
    n = *m;
  }
  return true;
}

inline SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = llm::detail::wrapMul(strides[i + 1], shape[i + 1]);
  return strides;
}

inline std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") + std::to_string(d);
  return s + "]";
}

/// numpy broadcast of two shapes; nullopt when they do not broadcast.
inline std::optional<SmallVector<int64_t>>
broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Flat index into a tensor of shape `in` (broadcast to `out`) for the
/// multi-index `idx` of the output.
inline int64_t broadcastIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> in,
                              ArrayRef<int64_t> inStrides) {
  int64_t off = idx.size() - in.size(), flat = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      flat += idx[i + off] * inStrides[i];
  return flat;
}

/// Calls `fn(multiIndex, flatIndex)` for every element of `shape` in
/// row-major order.
inline void
forEachIndex(ArrayRef<int64_t> shape,
             llvm::function_ref<void(ArrayRef<int64_t>, int64_t)> fn) {
  int64_t n = product(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(idx, flat);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// ConstTensor: an import-time constant
//===----------------------------------------------------------------------===//

/// A tensor known at import time, stored as little-endian bytes in its ONNX
/// data type (bool and f16/bf16 included) and shared between copies.
struct ConstTensor {
  int dtype = TensorProto::UNDEFINED;
  SmallVector<int64_t> shape;
  std::shared_ptr<std::vector<char>> bytes;

  int64_t numel() const { return product(shape); }
  int64_t elemSize() const { return elementSize(dtype); }
  const char *ptr(int64_t i) const { return bytes->data() + i * elemSize(); }

  static ConstTensor zeros(int dtype, ArrayRef<int64_t> shape) {
    ConstTensor t;
    t.dtype = dtype;
    t.shape.assign(shape.begin(), shape.end());
    t.bytes = std::make_shared<std::vector<char>>(
        std::max<int64_t>(product(shape) * elementSize(dtype), 0), 0);
    return t;
  }

  template <typename T>
  T load(int64_t i) const {
    T v;
    std::memcpy(&v, ptr(i), sizeof(T));
    return v;
  }
  template <typename T>
  void store(int64_t i, T v) {
    std::memcpy(bytes->data() + i * elemSize(), &v, sizeof(T));
  }

  /// Element `i` as a double (integers and bools converted).
  double getDouble(int64_t i) const {
    switch (dtype) {
    case TensorProto::FLOAT:
      return load<float>(i);
    case TensorProto::DOUBLE:
      return load<double>(i);
    case TensorProto::FLOAT16: {
      APFloat f(APFloat::IEEEhalf(), APInt(16, load<uint16_t>(i)));
      bool lost;
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return f.convertToDouble();
    }
    case TensorProto::BFLOAT16: {
      uint32_t bits = static_cast<uint32_t>(load<uint16_t>(i)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case TensorProto::UINT64:
      return static_cast<double>(load<uint64_t>(i));
    default:
      return static_cast<double>(getInt(i));
    }
  }

  /// Element `i` as an int64 (floats truncated toward zero and saturated,
  /// NaN as 0; uint64 as its two's complement bits).
  int64_t getInt(int64_t i) const {
    switch (dtype) {
    case TensorProto::BOOL:
      return load<uint8_t>(i) != 0;
    case TensorProto::INT8:
      return load<int8_t>(i);
    case TensorProto::UINT8:
      return load<uint8_t>(i);
    case TensorProto::INT16:
      return load<int16_t>(i);
    case TensorProto::UINT16:
      return load<uint16_t>(i);
    case TensorProto::INT32:
      return load<int32_t>(i);
    case TensorProto::UINT32:
      return load<uint32_t>(i);
    case TensorProto::INT64:
      return load<int64_t>(i);
    case TensorProto::UINT64:
      return static_cast<int64_t>(load<uint64_t>(i));
    default:
      return llm::detail::doubleToInt64(getDouble(i));
    }
  }

  void setDouble(int64_t i, double v) {
    switch (dtype) {
    case TensorProto::FLOAT:
      return store<float>(i, static_cast<float>(v));
    case TensorProto::DOUBLE:
      return store<double>(i, v);
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: {
      APFloat f(v);
      bool lost;
      f.convert(dtype == TensorProto::FLOAT16 ? APFloat::IEEEhalf()
                                              : APFloat::BFloat(),
                APFloat::rmNearestTiesToEven, &lost);
      return store<uint16_t>(
          i, static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue()));
    }
    case TensorProto::BOOL:
      return store<uint8_t>(i, v != 0);
    case TensorProto::UINT64:
      return store<uint64_t>(i, llm::detail::doubleToUInt64(v));
    default:
      // Out-of-range values saturate to int64, then wrap to the type's width
      // (ONNX leaves them undefined; C++ conversions would be UB).
      return setInt(i, llm::detail::doubleToInt64(v));
    }
  }

  void setInt(int64_t i, int64_t v) {
    switch (dtype) {
    case TensorProto::BOOL:
      return store<uint8_t>(i, v != 0);
    case TensorProto::INT8:
    case TensorProto::UINT8:
      return store<int8_t>(i, static_cast<int8_t>(v));
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return store<int16_t>(i, static_cast<int16_t>(v));
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return store<int32_t>(i, static_cast<int32_t>(v));
    case TensorProto::INT64:
    case TensorProto::UINT64:
      return store<int64_t>(i, v);
    default:
      return setDouble(i, static_cast<double>(v));
    }
  }

  SmallVector<int64_t> toInts() const {
    SmallVector<int64_t> v;
    for (int64_t i = 0, e = numel(); i < e; ++i)
      v.push_back(getInt(i));
    return v;
  }

  static ConstTensor fromInts(ArrayRef<int64_t> values,
                              ArrayRef<int64_t> shape) {
    ConstTensor t = zeros(TensorProto::INT64, shape);
    for (auto [i, v] : llvm::enumerate(values))
      t.setInt(i, v);
    return t;
  }

  /// A tensor of shape `outShape` whose element `i` is element
  /// `srcIndex(multiIndex)` of this one (all data movement ops).
  ConstTensor
  remap(ArrayRef<int64_t> outShape,
        llvm::function_ref<int64_t(ArrayRef<int64_t>)> srcIndex) const {
    ConstTensor out = zeros(dtype, outShape);
    int64_t es = elemSize();
    forEachIndex(outShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
      std::memcpy(out.bytes->data() + flat * es, ptr(srcIndex(idx)), es);
    });
    return out;
  }

  /// A tensor of this shape and type `to` whose element `i` is
  /// `fn(getDouble(i))` (the folds of elementwise float functions; a bool
  /// result is nonzero).
  ConstTensor map(int to, llvm::function_ref<double(double)> fn) const {
    ConstTensor out = zeros(to, shape);
    for (int64_t i = 0, e = numel(); i < e; ++i)
      out.setDouble(i, fn(getDouble(i)));
    return out;
  }

  /// This tensor converted to `to` (ONNX Cast semantics).
  ConstTensor castTo(int to) const {
    if (to == dtype)
      return *this;
    ConstTensor out = zeros(to, shape);
    bool fromFloat = isFloatDType(dtype), toFloat = isFloatDType(to);
    for (int64_t i = 0, e = numel(); i < e; ++i) {
      if (toFloat || to == TensorProto::BOOL)
        out.setDouble(i, getDouble(i));
      else if (fromFloat)
        out.setInt(i, getInt(i));
      else
        out.setInt(i, getInt(i));
    }
    return out;
  }

  bool isSplat() const {
    int64_t n = numel(), es = elemSize();
    for (int64_t i = 1; i < n; ++i)
      if (std::memcmp(ptr(0), ptr(i), es) != 0)
        return false;
    return true;
  }
};

/// An ONNX value during import: a runtime SSA value, an import-time constant,
/// or both (a constant that was already materialized).
struct Entry {
  Value value;
  std::optional<ConstTensor> constant;
  /// Name of the blob when the constant is materialized as a resource.
  std::string blobName;
  /// Whether the constant is an initializer (always a `dense_resource`).
  bool isInitializer = false;
  /// A runtime i8 value holding uint8 bits (ImportQuant.cpp).
  bool unsignedBits = false;
};

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

class Importer {
public:
  Importer(MLIRContext *ctx, const ImportOptions &options, StringRef modelName,
           StringRef externalDataDir)
      : ctx(ctx), options(options), builder(ctx), modelName(modelName.str()),
        externalDataDir(externalDataDir.str()) {}

  OwningOpRef<ModuleOp> import(onnx::ModelProto &model);
  LogicalResult checkGraphStructure(const onnx::GraphProto &g,
                                    const llvm::StringSet<> &outer, bool top);
  LogicalResult checkModelUpFront(onnx::ModelProto &model, Location loc);

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics
  //===--------------------------------------------------------------------===//

  Location fileLoc() { return FileLineColLoc::get(ctx, modelName, 0, 0); }

  /// `"<node name>"("<op type>")`, the location of every op of a node.
  Location nodeLoc(const onnx::NodeProto &node) {
    return NameLoc::get(
        StringAttr::get(ctx, nodeName(node)),
        NameLoc::get(StringAttr::get(ctx, printable(node.op_type()))));
  }

  /// `s` with its control characters escaped (`\n`, `\r`, `\t`, else
  /// `\xHH`), so that a name from the model keeps a diagnostic on one line
  /// and sends no terminal escape sequence; other bytes (UTF-8) as they are.
  static std::string printable(llvm::StringRef s) {
    std::string out;
    for (unsigned char c : s) {
      if (c >= 0x20 && c != 0x7f) {
        out += char(c);
        continue;
      }
      switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\x" + llvm::utohexstr(c, /*LowerCase=*/true, /*Width=*/2);
      }
    }
    return out;
  }

  /// The location of diagnostics about a node: the model file first, so
  /// that the diagnostic handler prints "model.onnx:0:0: error: ...".
  Location nodeFileLoc(const onnx::NodeProto &node) {
    return FusedLoc::get(ctx, {fileLoc(), nodeLoc(node)});
  }

  /// The node's name (control characters escaped, see printable), or
  /// `<op type>_<index>` for a node without one.
  std::string nodeName(const onnx::NodeProto &node) {
    if (!node.name().empty())
      return printable(node.name());
    return printable(node.op_type()) + "_" + std::to_string(nodeIndex);
  }

  /// An error about the current node; the message starts with the node's
  /// name, op type and opset.
  InFlightDiagnostic nodeError(const onnx::NodeProto &node) {
    return nodeDiag(node, DiagnosticSeverity::Error);
  }
  InFlightDiagnostic nodeDiag(const onnx::NodeProto &node,
                              DiagnosticSeverity severity) {
    Location loc = nodeFileLoc(node);
    InFlightDiagnostic diag = severity == DiagnosticSeverity::Error
                                  ? emitError(loc)
                                  : emitWarning(loc);
    diag << "ONNX node '" << nodeName(node) << "' ("
         << printable(node.op_type()) << ", opset "
         << (declaredOpset ? declaredOpset : opset);
    if (declaredOpset)
      diag << " converted to " << opset;
    diag << "): ";
    return diag;
  }

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// Input `i` of `node`; null when absent (optional input left empty).
  Entry *input(const onnx::NodeProto &node, int i) {
    if (i >= node.input_size() || node.input(i).empty())
      return nullptr;
    auto it = env.find(node.input(i));
    return it == env.end() ? nullptr : &it->second;
  }

  /// Input `i`, which must be present.
  FailureOr<Entry *> required(const onnx::NodeProto &node, int i) {
    if (Entry *e = input(node, i))
      return e;
    nodeError(node) << "missing input " << i;
    return failure();
  }

  /// Input `i` as an import-time constant (`what` names it in the error).
  FailureOr<const ConstTensor *> requiredConst(const onnx::NodeProto &node,
                                               int i, StringRef what) {
    FailureOr<Entry *> e = required(node, i);
    if (failed(e))
      return failure();
    if (!(*e)->constant) {
      nodeError(node) << "input '" << what
                      << "' must be a constant known at import time";
      return failure();
    }
    return &*(*e)->constant;
  }

  static SmallVector<int64_t> shapeOf(const Entry &e) {
    if (e.constant)
      return e.constant->shape;
    return SmallVector<int64_t>(
        cast<RankedTensorType>(e.value.getType()).getShape());
  }
  static int dtypeOf(const Entry &e) {
    if (e.constant)
      return e.constant->dtype;
    return toONNXType(
        cast<RankedTensorType>(e.value.getType()).getElementType());
  }
  /// The ONNX data type `e` holds at run time: UINT8 for uint8 bits kept
  /// in i8 (Entry::unsignedBits), else dtypeOf.
  static int runtimeDType(const Entry &e) {
    return e.unsignedBits ? TensorProto::UINT8 : dtypeOf(e);
  }
  static std::string runtimeDTypeName(const Entry &e) {
    return dtypeName(runtimeDType(e));
  }
  /// Whether `e` is int8, int32 or int64 (signed order) at run time.
  static bool isSignedIntDType(const Entry &e) {
    int d = runtimeDType(e);
    return d == TensorProto::INT8 || d == TensorProto::INT32 ||
           d == TensorProto::INT64;
  }
  static bool allConst(ArrayRef<Entry *> entries) {
    return llvm::all_of(entries, [](Entry *e) { return e->constant; });
  }

  /// The runtime value of `e`, creating an `llm.constant` for a constant.
  FailureOr<Value> materialize(const onnx::NodeProto &node, Entry &e);
  /// Like materialize, converting a constant to `dtype` first.
  FailureOr<Value> materializeAs(const onnx::NodeProto &node, Entry &e,
                                 int dtype);
  ElementsAttr constantAttr(const ConstTensor &t, StringRef blobName,
                            bool forceResource);

  void setOutput(const onnx::NodeProto &node, int i, Value v) {
    if (i < node.output_size() && !node.output(i).empty())
      env[node.output(i)] = Entry{v, std::nullopt, {}, false};
  }
  void setOutput(const onnx::NodeProto &node, int i, ConstTensor t) {
    if (i < node.output_size() && !node.output(i).empty()) {
      Entry e;
      e.constant = std::move(t);
      e.blobName = node.output(i);
      env[node.output(i)] = std::move(e);
    }
  }

  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type elemType) {
    return RankedTensorType::get(shape, elemType);
  }
  static Type elemTypeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }

  /// `llm.reshape` to `shape` (no op when the shape is unchanged).
  Value reshape(Location loc, Value v, ArrayRef<int64_t> shape) {
    if (shapeOf(v) == shape)
      return v;
    return ReshapeOp::create(builder, loc, tensorType(shape, elemTypeOf(v)), v);
  }

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  static const onnx::AttributeProto *attr(const onnx::NodeProto &node,
                                          StringRef name) {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  static int64_t intAttr(const onnx::NodeProto &node, StringRef name,
                         int64_t dflt) {
    const onnx::AttributeProto *a = attr(node, name);
    return a ? a->i() : dflt;
  }
  static float floatAttr(const onnx::NodeProto &node, StringRef name,
                         float dflt) {
    const onnx::AttributeProto *a = attr(node, name);
    return a ? a->f() : dflt;
  }
  static std::optional<SmallVector<int64_t>>
  intsAttr(const onnx::NodeProto &node, StringRef name) {
    const onnx::AttributeProto *a = attr(node, name);
    if (!a)
      return std::nullopt;
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  }

  /// Normalizes `axis` into [0, rank); fails with an error on the node.
  FailureOr<int64_t> normAxis(const onnx::NodeProto &node, int64_t axis,
                              int64_t rank) {
    // [-rank, rank - 1]: no axis of a rank-0 tensor (the handlers index the
    // shape with it; onnx-import-fuzzer found Split of a scalar).
    if (axis < -rank || axis >= rank) {
      nodeError(node) << "axis " << axis << " is out of range for rank "
                      << rank;
      return failure();
    }
    return axis < 0 ? axis + rank : axis;
  }

  //===--------------------------------------------------------------------===//
  // Tensor data
  //===--------------------------------------------------------------------===//

  FailureOr<ConstTensor> readTensor(const TensorProto &t, Location loc);
  /// Checks that `t`'s declared type and shape agree with the data it holds
  /// (raw bytes or typed values; external data is checked when read).
  /// Errors are reported at `loc`, or at `node` for its attribute
  /// `attrName`.
  LogicalResult checkTensorData(const TensorProto &t, Location loc,
                                const onnx::NodeProto *node = nullptr,
                                StringRef attrName = {});
  /// Opens the external data file `path` of tensor `tensor`: a regular file
  /// whose real path (all symbolic links resolved) lies inside the model's
  /// real directory.
  FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
  openExternalData(StringRef path, StringRef tensor, Location loc);

  /// Folded constants are capped at this many elements (import-time memory).
  static constexpr int64_t kMaxFoldedElements = int64_t(1) << 28;

  /// Results of at most this many elements are always folded.
  static constexpr int64_t kAlwaysFoldElements = 65536;
  /// Gather of a runtime tensor with at most this many constant indices
  /// becomes one slice per index; with more, a runtime gather.
  static constexpr size_t kMaxSlicedGatherIndices = 16;

  /// The size policy of llm-fold-constants, for the ops that have a runtime
  /// form (Expand, floating-point arithmetic): a result of `shape` computed
  /// from the constants `operands` is folded when it has at most
  /// kAlwaysFoldElements elements, when every operand is a splat (the result
  /// is one too, stored as one value), or when it stores no more elements
  /// than the operands together. Otherwise the op is emitted on the
  /// materialized constants: a broadcast of a constant stays a broadcast (a
  /// 16 KB constant expanded to 4096x4096 would store 64 MB in the module
  /// and the object).
  static bool worthFolding(ArrayRef<const ConstTensor *> operands,
                           ArrayRef<int64_t> shape) {
    if (product(shape) <= kAlwaysFoldElements)
      return true;
    int64_t stored = 0;
    bool allSplat = true;
    for (const ConstTensor *c : operands) {
      bool splat = c->isSplat();
      allSplat &= splat;
      stored += splat ? 1 : c->numel();
    }
    return allSplat || product(shape) <= stored;
  }

  /// Checks that `shape` (a constant shape input) is non-negative and not
  /// absurdly large.
  LogicalResult checkShape(const onnx::NodeProto &node,
                           ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d < 0)
        return nodeError(node)
               << "negative dimension in shape " << shapeStr(shape);
      n = d == 0
              ? 0
              : (n > kMaxFoldedElements / d ? kMaxFoldedElements + 1 : n * d);
    }
    if (n > kMaxFoldedElements)
      return nodeError(node) << "shape " << shapeStr(shape)
                             << " is too large to fold at import time";
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Node handlers
  //===--------------------------------------------------------------------===//

  LogicalResult checkSupported(const onnx::NodeProto &node);
  LogicalResult importNode(const onnx::NodeProto &node);
  LogicalResult checkRuntimeF64(const onnx::NodeProto &node);
  LogicalResult importConstant(const onnx::NodeProto &node);
  LogicalResult importIf(const onnx::NodeProto &node);
  LogicalResult importBinary(const onnx::NodeProto &node);
  LogicalResult importUnary(const onnx::NodeProto &node);
  LogicalResult importCompare(const onnx::NodeProto &node);
  LogicalResult importWhere(const onnx::NodeProto &node);
  LogicalResult importRuntimeCompare(const onnx::NodeProto &node,
                                     ArrayRef<Entry *> ins);
  LogicalResult importArgReduce(const onnx::NodeProto &node);
  LogicalResult importLayerNormStats(const onnx::NodeProto &node, Value x,
                                     int64_t axis, float eps);
  /// A rank-0 constant `value` of ONNX type `dtype` as a runtime value.
  FailureOr<Value> scalarConstant(const onnx::NodeProto &node, double value,
                                  int dtype);
  LogicalResult importMatMul(const onnx::NodeProto &node);
  LogicalResult importGemm(const onnx::NodeProto &node);
  LogicalResult importSoftmax(const onnx::NodeProto &node);
  LogicalResult importLayerNorm(const onnx::NodeProto &node);
  LogicalResult importReduce(const onnx::NodeProto &node);
  LogicalResult importTranspose(const onnx::NodeProto &node);
  LogicalResult importReshapeLike(const onnx::NodeProto &node);
  LogicalResult importConcat(const onnx::NodeProto &node);
  LogicalResult importSplit(const onnx::NodeProto &node);
  LogicalResult importSlice(const onnx::NodeProto &node);
  LogicalResult importGather(const onnx::NodeProto &node);
  LogicalResult importShape(const onnx::NodeProto &node);
  LogicalResult importConstantOfShape(const onnx::NodeProto &node);
  LogicalResult importRange(const onnx::NodeProto &node);
  LogicalResult importNonZero(const onnx::NodeProto &node);
  LogicalResult importGatherElements(const onnx::NodeProto &node);
  // ImportIndexing.cpp
  LogicalResult importGatherND(const onnx::NodeProto &node);
  LogicalResult importScatter(const onnx::NodeProto &node);
  LogicalResult importTopK(const onnx::NodeProto &node);
  LogicalResult importDynamicQuantizeLinear(const onnx::NodeProto &node);
  LogicalResult importEinsum(const onnx::NodeProto &node);
  LogicalResult importMean(const onnx::NodeProto &node);
  LogicalResult importOneHot(const onnx::NodeProto &node);
  LogicalResult importActivation(const onnx::NodeProto &node);
  LogicalResult importPRelu(const onnx::NodeProto &node);
  LogicalResult importIsInf(const onnx::NodeProto &node);
  LogicalResult importShrink(const onnx::NodeProto &node);
  LogicalResult importMathExpr(const onnx::NodeProto &node);
  LogicalResult importHardmax(const onnx::NodeProto &node);
  /// Softmax, LogSoftmax and Hardmax before opset 13 coerce their input to
  /// 2-D at `axis` ([d0 * ... * d(axis-1), d(axis) * ... * d(rank-1)]) and
  /// compute along the second dimension (the ONNX Softmax-11 definition).
  /// Returns the value to compute on and the axis to compute along: `x` and
  /// `axis` themselves from opset 13 on, or when `axis` is the last one.
  std::pair<Value, int64_t> coerceTo2D(Location loc, Value x, int64_t axis);
  /// The constant `offset`, `offset + 1`, ..., `offset + n - 1` of ONNX
  /// type `dtype` along `axis` of a rank-`rank` shape that is 1 elsewhere
  /// (the positions one-hot comparisons test against), materialized.
  FailureOr<Value> positionsAlong(const onnx::NodeProto &node, int64_t rank,
                                  int64_t axis, int64_t n, int dtype,
                                  int64_t offset = 0);
  LogicalResult importTile(const onnx::NodeProto &node);
  LogicalResult importExpand(const onnx::NodeProto &node);
  LogicalResult importCast(const onnx::NodeProto &node);
  LogicalResult importClip(const onnx::NodeProto &node);
  LogicalResult importTrilu(const onnx::NodeProto &node);
  // ImportNN.cpp
  FailureOr<Value> splatConstant(const onnx::NodeProto &node, double value,
                                 int dtype, ArrayRef<int64_t> shape);
  LogicalResult checkFloatInput(const onnx::NodeProto &node, Entry &e,
                                int64_t minRank);
  LogicalResult importConv(const onnx::NodeProto &node);
  LogicalResult importGlobalPool(const onnx::NodeProto &node);
  LogicalResult importNormalization(const onnx::NodeProto &node);
  LogicalResult importDepthSpace(const onnx::NodeProto &node);
  LogicalResult importPad(const onnx::NodeProto &node);
  LogicalResult importEyeLike(const onnx::NodeProto &node);
  LogicalResult importCumSum(const onnx::NodeProto &node);
  LogicalResult importLoss(const onnx::NodeProto &node);
  // Quantization ops (ImportQuant.cpp).
  std::optional<LogicalResult> importQuantNode(const onnx::NodeProto &node);
  FailureOr<Type> quantType(const onnx::NodeProto &node,
                            const ConstTensor &scale,
                            const ConstTensor *zeroPoint, int storage,
                            int64_t axis, ArrayRef<int64_t> shape);
  FailureOr<Value> storageValue(const onnx::NodeProto &node, Entry &e);
  LogicalResult importRuntimeQuantizeLinear(const onnx::NodeProto &node);

  /// Creates the binary llm op for `opType` (Add, Sub, ...).
  Value createMod(Location loc, Type type, Value a, Value b, bool fmod);
  Value createBinary(StringRef opType, Location loc, Type type, Value lhs,
                     Value rhs);
  /// A runtime slice of `v` (static, positive strides).
  Value slice(Location loc, Value v, ArrayRef<int64_t> starts,
              ArrayRef<int64_t> limits, ArrayRef<int64_t> strides);

  MLIRContext *ctx;
  const ImportOptions &options;
  OpBuilder builder;
  std::string modelName;
  std::string externalDataDir;
  int64_t opset = 0;
  /// The opset the model declares, when the version converter raised it to
  /// `opset` (0 otherwise); diagnostics name both.
  int64_t declaredOpset = 0;
  int nodeIndex = 0;
  llvm::StringMap<Entry> env;
  /// Names consumed by some node or graph output.
  llvm::StringSet<> used;
  /// Graph inputs of type uint8 (held as i8).
  llvm::StringSet<> uint8Inputs;
  /// Static shapes from ONNX shape inference, to cross-check ours.
  llvm::StringMap<SmallVector<int64_t>> inferredShapes;
  /// Static shapes the model declares for its graph outputs.
  llvm::StringMap<SmallVector<int64_t>> declaredShapes;
  /// Constants already materialized, by bytes identity and by attribute.
  llvm::StringMap<std::pair<Value, std::shared_ptr<std::vector<char>>>>
      materializedBytes;
  llvm::DenseMap<Attribute, Value> materializedAttrs;
  /// External data files, read once.
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> externalFiles;
};

} // namespace mlir::llm::onnx_import

#endif // LLM_LIB_TARGET_ONNX_ONNXIMPORTER_H
