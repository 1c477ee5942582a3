//===- ImportONNX.cpp - ONNX model to llm dialect importer ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the ONNX importer declared in ImportONNX.h.
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

#include "llm/Target/ONNX/ImportONNX.h"

#include "ONNXIntegerMath.h"
#include "ONNXShapeInference.h"
#include "ValidateONNX.h"

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::llm;

using onnx::TensorProto;

namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Size in bytes of one element of ONNX data type `dtype`; 0 if unsupported.
static int64_t elementSize(int dtype) {
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

static bool isFloatDType(int dtype) {
  return dtype == TensorProto::FLOAT || dtype == TensorProto::DOUBLE ||
         dtype == TensorProto::FLOAT16 || dtype == TensorProto::BFLOAT16;
}

static std::string dtypeName(int dtype) {
  if (TensorProto::DataType_IsValid(dtype))
    return TensorProto::DataType_Name(
        static_cast<TensorProto::DataType>(dtype));
  return "<" + std::to_string(dtype) + ">";
}

/// The MLIR element type the llm dialect uses for `dtype`; null when the
/// dialect cannot hold it at runtime.
static Type toMLIRType(int dtype, MLIRContext *ctx) {
  switch (dtype) {
  case TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
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
static int toONNXType(Type type) {
  if (type.isF32())
    return TensorProto::FLOAT;
  if (type.isF16())
    return TensorProto::FLOAT16;
  if (type.isBF16())
    return TensorProto::BFLOAT16;
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
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n = llm::detail::wrapMul(n, d);
  return n;
}

/// The product of `shape`'s dimensions; nullopt when it overflows int64 or a
/// dimension is negative.
static std::optional<int64_t> checkedProduct(ArrayRef<int64_t> shape) {
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
static bool shapeFits(ArrayRef<int64_t> shape, int64_t elemSize) {
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

static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = llm::detail::wrapMul(strides[i + 1], shape[i + 1]);
  return strides;
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") + std::to_string(d);
  return s + "]";
}

/// numpy broadcast of two shapes; nullopt when they do not broadcast.
static std::optional<SmallVector<int64_t>>
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
static int64_t broadcastIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> in,
                              ArrayRef<int64_t> inStrides) {
  int64_t off = idx.size() - in.size(), flat = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      flat += idx[i + off] * inStrides[i];
  return flat;
}

/// Calls `fn(multiIndex, flatIndex)` for every element of `shape` in
/// row-major order.
static void
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
  /// A runtime i8 value holding uint8 bits (ImportONNXQuant.inc).
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

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics
  //===--------------------------------------------------------------------===//

  Location fileLoc() { return FileLineColLoc::get(ctx, modelName, 0, 0); }

  /// `"<node name>"("<op type>")`, the location of every op of a node.
  Location nodeLoc(const onnx::NodeProto &node) {
    return NameLoc::get(StringAttr::get(ctx, nodeName(node)),
                        NameLoc::get(StringAttr::get(ctx, node.op_type())));
  }

  /// The location of diagnostics about a node: the model file first, so
  /// that the diagnostic handler prints "model.onnx:0:0: error: ...".
  Location nodeFileLoc(const onnx::NodeProto &node) {
    return FusedLoc::get(ctx, {fileLoc(), nodeLoc(node)});
  }

  std::string nodeName(const onnx::NodeProto &node) {
    if (!node.name().empty())
      return node.name();
    return node.op_type() + "_" + std::to_string(nodeIndex);
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
    diag << "ONNX node '" << nodeName(node) << "' (" << node.op_type()
         << ", opset " << opset << "): ";
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
  LogicalResult importConstant(const onnx::NodeProto &node);
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
  LogicalResult importExpand(const onnx::NodeProto &node);
  LogicalResult importCast(const onnx::NodeProto &node);
  LogicalResult importClip(const onnx::NodeProto &node);
  LogicalResult importTrilu(const onnx::NodeProto &node);
  // Quantization ops (ImportONNXQuant.inc).
  std::optional<LogicalResult> importQuantNode(const onnx::NodeProto &node);
  FailureOr<Type> quantType(const onnx::NodeProto &node,
                            const ConstTensor &scale,
                            const ConstTensor *zeroPoint, int storage,
                            int64_t axis, ArrayRef<int64_t> shape);
  FailureOr<Value> storageValue(const onnx::NodeProto &node, Entry &e);
  int quantDType(const Entry &e);

  /// Creates the binary llm op for `opType` (Add, Sub, ...).
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

} // namespace

//===----------------------------------------------------------------------===//
// Tensor data and constants
//===----------------------------------------------------------------------===//

/// The number of values in the typed field of `t` that holds its data type
/// (the fields readTensor reads).
static int64_t typedDataCount(const TensorProto &t) {
  switch (t.data_type()) {
  case TensorProto::FLOAT:
    return t.float_data_size();
  case TensorProto::DOUBLE:
    return t.double_data_size();
  case TensorProto::INT64:
    return t.int64_data_size();
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    return t.uint64_data_size();
  default: // float16/bfloat16 bits, bool and the narrow integers
    return t.int32_data_size();
  }
}

LogicalResult Importer::checkTensorData(const TensorProto &t, Location loc,
                                        const onnx::NodeProto *node,
                                        StringRef attrName) {
  // "tensor 'w' has ...", or for a node's attribute "ONNX node 'c'
  // (Constant, opset 17): tensor 'value' has ..." (value tensors are often
  // unnamed).
  auto error = [&]() {
    InFlightDiagnostic diag = node ? nodeError(*node) : emitError(loc);
    diag << "tensor '" << (t.name().empty() && node ? attrName.str() : t.name())
         << "'";
    return diag;
  };
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t es = elementSize(t.data_type());
  if (es == 0)
    return error() << " has unsupported data type " << dtypeName(t.data_type());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return error() << " has a negative dimension";
  // The size must not overflow, and the data must be there before the
  // buffer is allocated: a corrupt file can declare any dims.
  int64_t n = 1, nbytes = 0;
  bool overflow = !shapeFits(shape, es);
  for (int64_t d : shape)
    overflow |= llvm::MulOverflow(n, d, n);
  overflow |= llvm::MulOverflow(n, es, nbytes);
  if (overflow)
    return error() << " is too large: its size in bytes overflows int64";
  if (t.data_location() == TensorProto::EXTERNAL)
    return success(); // Checked when read (readTensor).
  if (t.has_raw_data()) {
    if (static_cast<int64_t>(t.raw_data().size()) != nbytes)
      return error() << " has " << t.raw_data().size()
                     << " bytes of raw data, expected " << nbytes;
    return success();
  }
  if (typedDataCount(t) != n)
    return error() << " has " << typedDataCount(t) << " values, expected " << n;
  return success();
}

FailureOr<ConstTensor> Importer::readTensor(const TensorProto &t,
                                            Location loc) {
  if (failed(checkTensorData(t, loc)))
    return failure();
  ConstTensor c;
  c.dtype = t.data_type();
  c.shape.assign(t.dims().begin(), t.dims().end());
  int64_t es = elementSize(c.dtype);
  int64_t n = product(c.shape), nbytes = n * es; // checked: no overflow
  std::shared_ptr<std::vector<char>> bytes;
  auto allocate = [&] {
    bytes = std::make_shared<std::vector<char>>(nbytes);
    c.bytes = bytes;
  };

  if (t.data_location() == TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset")
        offset = std::atoll(kv.value().c_str());
      else if (kv.key() == "length")
        length = std::atoll(kv.value().c_str());
    }
    // ONNX external data lives next to the model: a location must be a
    // relative path that stays inside the model's directory.
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                      llvm::sys::path::end(location)),
                     [](StringRef part) { return part == ".."; })) {
      emitError(loc) << "external data location '" << location
                     << "' of tensor '" << t.name()
                     << "' must be a relative path inside the model's "
                        "directory";
      return failure();
    }
    SmallString<256> path(externalDataDir);
    llvm::sys::path::append(path, location);
    auto it = externalFiles.find(path);
    if (it == externalFiles.end()) {
      FailureOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
          openExternalData(path, t.name(), loc);
      if (failed(buf))
        return failure();
      it = externalFiles.try_emplace(path, std::move(*buf)).first;
    }
    llvm::MemoryBuffer &file = *it->second;
    if (length < 0)
      length = nbytes;
    int64_t fileSize = static_cast<int64_t>(file.getBufferSize());
    if (length != nbytes || offset < 0 || offset > fileSize ||
        length > fileSize - offset) {
      emitError(loc) << "external data of tensor '" << t.name()
                     << "' is out of range or has the wrong size (offset "
                     << offset << ", length " << length << ", expected "
                     << nbytes << " bytes, file size " << file.getBufferSize()
                     << ")";
      return failure();
    }
    allocate();
    // An empty tensor has no storage: memcpy's pointers must not be null.
    if (nbytes)
      std::memcpy(bytes->data(), file.getBufferStart() + offset, nbytes);
    return c;
  }

  if (t.has_raw_data()) {
    allocate(); // The size was checked above.
    if (nbytes)
      std::memcpy(bytes->data(), t.raw_data().data(), nbytes);
    return c;
  }

  // Typed data: its count was checked against n (checkTensorData); the
  // checks below only guard the reads.
  auto checkCount = [&](int64_t count) -> LogicalResult {
    if (count != n)
      return failure();
    allocate();
    return success();
  };
  switch (c.dtype) {
  case TensorProto::FLOAT:
    if (failed(checkCount(t.float_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<float>(i, t.float_data(i));
    break;
  case TensorProto::DOUBLE:
    if (failed(checkCount(t.double_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<double>(i, t.double_data(i));
    break;
  case TensorProto::INT64:
    if (failed(checkCount(t.int64_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<int64_t>(i, t.int64_data(i));
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    if (failed(checkCount(t.uint64_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.setInt(i, static_cast<int64_t>(t.uint64_data(i)));
    break;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    // Stored as the raw 16-bit patterns in int32_data.
    if (failed(checkCount(t.int32_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<uint16_t>(i, static_cast<uint16_t>(t.int32_data(i)));
    break;
  default:
    if (failed(checkCount(t.int32_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.setInt(i, t.int32_data(i));
    break;
  }
  return c;
}

FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
Importer::openExternalData(StringRef path, StringRef tensor, Location loc) {
  namespace fs = llvm::sys::fs;
  auto cannotRead = [&](const Twine &why) {
    emitError(loc) << "cannot read external data file '" << path
                   << "' of tensor '" << tensor << "': " << why;
    return failure();
  };
  // Before opening: a FIFO would block the open, a device never end.
  fs::file_status st;
  if (std::error_code ec = fs::status(path, st))
    return cannotRead(ec.message());
  if (st.type() != fs::file_type::regular_file)
    return cannotRead("not a regular file");
  // The real path of the opened file (the kernel's, /proc/self/fd), so that
  // a link swapped after a check cannot lead outside.
  SmallString<256> dir, real;
  if (std::error_code ec =
          fs::real_path(externalDataDir.empty() ? "." : externalDataDir, dir))
    return cannotRead("the model's directory: " + ec.message());
  int fd;
  if (std::error_code ec = fs::openFileForRead(path, fd, fs::OF_None, &real))
    return cannotRead(ec.message());
  llvm::scope_exit closeFd([&] { fs::closeFile(fd); });
  if (real.empty() || !llvm::sys::path::is_absolute(real)) {
    SmallString<256> resolved;
    if (std::error_code ec = fs::real_path(path, resolved))
      return cannotRead(ec.message());
    real = resolved;
  }
  SmallString<256> prefix(dir);
  if (!prefix.ends_with(llvm::sys::path::get_separator()))
    prefix += llvm::sys::path::get_separator();
  if (!real.starts_with(prefix)) {
    emitError(loc) << "external data file '" << path << "' of tensor '"
                   << tensor << "' resolves to '" << real
                   << "', outside the model's directory '" << dir << "'";
    return failure();
  }
  // The opened file itself must still be a regular file.
  if (std::error_code ec = fs::status(fd, st))
    return cannotRead(ec.message());
  if (st.type() != fs::file_type::regular_file)
    return cannotRead("not a regular file");
  auto buf = llvm::MemoryBuffer::getOpenFile(fd, path, st.getSize(),
                                             /*RequiresNullTerminator=*/false);
  if (!buf)
    return cannotRead(buf.getError().message());
  return std::move(*buf);
}

/// Blob names must be bare identifiers in the textual IR.
static std::string sanitizeBlobName(StringRef name) {
  std::string s;
  for (char ch : name)
    s += (llvm::isAlnum(ch) || ch == '_' || ch == '.') ? ch : '_';
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    s = "_" + s;
  return s;
}

/// `v` (ConstTensor::getInt: a `width`-bit element sign- or zero-extended as
/// its ONNX type says) as a `width`-bit APInt: signed when negative, else
/// unsigned. As a signed value, true (1) does not fit 1 bit nor 255 (uint8)
/// 8 bits: APInt asserts (found by onnx-import-fuzzer on the Trilu mask).
static APInt toAPInt(unsigned width, int64_t v) {
  return APInt(width, static_cast<uint64_t>(v), /*isSigned=*/v < 0);
}

ElementsAttr Importer::constantAttr(const ConstTensor &t, StringRef blobName,
                                    bool forceResource) {
  Type elemType = toMLIRType(t.dtype, ctx);
  auto type = tensorType(t.shape, elemType);
  int64_t n = t.numel();
  // Scalars and splats of folded values stay readable inline literals; the
  // bool type has no compact resource layout, so it stays inline too. A
  // one-element initializer is inlined as well: a rank-0 `dense_resource`
  // global crashes MLIR 22's memref-to-LLVM lowering (ElementsAttr
  // iteration), and one element gains nothing from a blob.
  bool inlineIt = t.dtype == TensorProto::BOOL || n <= 1 ||
                  (!forceResource && t.isSplat());
  if (!inlineIt) {
    // The blob shares the tensor's bytes: no copy of the weights.
    std::shared_ptr<std::vector<char>> keep = t.bytes;
    AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        ArrayRef<char>(keep->data(), n * t.elemSize()), t.elemSize(),
        [keep](void *, size_t, size_t) {});
    return DenseResourceElementsAttr::get(type, sanitizeBlobName(blobName),
                                          std::move(blob));
  }
  if (n > 0 && t.isSplat()) {
    if (isa<FloatType>(elemType)) {
      APFloat f(t.getDouble(0));
      bool lost;
      f.convert(cast<FloatType>(elemType).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      return DenseElementsAttr::get(type, f);
    }
    return DenseElementsAttr::get(
        type, toAPInt(elemType.getIntOrFloatBitWidth(), t.getInt(0)));
  }
  if (isa<FloatType>(elemType)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(t.getDouble(i));
      bool lost;
      f.convert(cast<FloatType>(elemType).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(toAPInt(elemType.getIntOrFloatBitWidth(), t.getInt(i)));
  return DenseElementsAttr::get(type, values);
}

FailureOr<Value> Importer::materialize(const onnx::NodeProto &node, Entry &e) {
  if (e.value)
    return e.value;
  const ConstTensor &t = *e.constant;
  if (!toMLIRType(t.dtype, ctx)) {
    nodeError(node) << "constant '" << e.blobName << "' of type "
                    << dtypeName(t.dtype)
                    << " is used at runtime, but the llm dialect has no such "
                       "element type";
    return failure();
  }
  // One llm.constant per distinct constant: entries copied by Identity (or
  // shared initializers) share their bytes, inline literals are uniqued.
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(t.bytes.get())) +
                    ":" + std::to_string(t.dtype) + ":" + shapeStr(t.shape);
  auto cachedIt = materializedBytes.find(key);
  if (cachedIt != materializedBytes.end())
    return e.value = cachedIt->second.first;
  ElementsAttr attr = constantAttr(t, e.blobName, e.isInitializer);
  if (!isa<DenseResourceElementsAttr>(attr))
    if (Value cached = materializedAttrs.lookup(attr))
      return e.value = cached;
  e.value = ConstantOp::create(builder, nodeLoc(node), attr);
  // Keeping the bytes alive keeps their address from being reused as a key.
  materializedBytes[key] = {e.value, t.bytes};
  if (!isa<DenseResourceElementsAttr>(attr))
    materializedAttrs[attr] = e.value;
  return e.value;
}

FailureOr<Value> Importer::materializeAs(const onnx::NodeProto &node, Entry &e,
                                         int dtype) {
  if (e.value || !e.constant || e.constant->dtype == dtype)
    return materialize(node, e);
  Entry converted;
  converted.constant = e.constant->castTo(dtype);
  converted.blobName = e.blobName;
  return materialize(node, converted);
}

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
  StringRef op = node.op_type();
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

  if (allConst(ins)) {
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
  if (op == "Mod")
    return nodeError(node) << "Mod on runtime tensors is not supported (no "
                              "llm op; it is folded on constants)";

  // The element type comes from a runtime operand.
  int dtype = TensorProto::UNDEFINED;
  for (Entry *e : ins)
    if (!e->constant) {
      dtype = dtypeOf(*e);
      break;
    }
  if (dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
      dtype != TensorProto::BFLOAT16)
    return nodeError(node) << "elementwise " << op << " on runtime "
                           << dtypeName(dtype)
                           << " tensors is not supported (llm elementwise ops "
                              "take f32, f16 or bf16)";
  Location loc = nodeLoc(node);
  FailureOr<Value> acc = materializeAs(node, *ins[0], dtype);
  if (failed(acc))
    return failure();
  Value result = *acc;
  for (Entry *e : ArrayRef(ins).drop_front()) {
    FailureOr<Value> rhs = materializeAs(node, *e, dtype);
    if (failed(rhs))
      return failure();
    if (dtypeOf(*e) != dtype && !e->constant)
      return nodeError(node) << "operands have different element types";
    auto outShape = *broadcastShapes(shapeOf(result), shapeOf(*rhs));
    result = createBinary(op, loc, tensorType(outShape, elemTypeOf(result)),
                          result, *rhs);
  }
  setOutput(node, 0, result);
  return success();
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

// Neg/Sqrt/Reciprocal/Exp/Log/Tanh/Erf/Sigmoid/Relu (+ Floor/Ceil/Abs and
// Sin/Cos on constants only, e.g. rotary tables computed from static
// positions): folded on constants, one llm op otherwise.
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
  if (!isa<FloatType>(elemTypeOf(x)))
    return nodeError(node) << op << " on a runtime " << dtypeName(dtypeOf(**in))
                           << " tensor is not supported (llm ops take f32, "
                              "f16 or bf16)";
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
  // The element type comes from a runtime operand.
  int dtype = TensorProto::UNDEFINED;
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
  if (!allConst(ins)) {
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

//===----------------------------------------------------------------------===//
// Matmul, normalizations, reductions
//===----------------------------------------------------------------------===//

// MatMul(A, B) -> llm.matmul; 1-D operands are reshaped to [1, K] / [K, 1]
// and the added dimension is removed from the result (numpy.matmul).
// MatMul of two constants (numpy matmul semantics: rank-1 operands promoted,
// batch dimensions broadcast), evaluated in double and rounded to the
// operands' type, when the result has at most 2^20 elements and the product
// at most 2^24 multiply-adds (e.g. rotary frequencies inv_freq @ positions
// computed in the graph); else nullopt and the MatMul stays an op.
static std::optional<ConstTensor> foldConstMatMul(const ConstTensor &a,
                                                  const ConstTensor &b) {
  SmallVector<int64_t> sa(a.shape), sb(b.shape);
  if (sa.empty() || sb.empty())
    return std::nullopt;
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (k != sb[sb.size() - 2])
    return std::nullopt;
  auto batch =
      mlir::llm::broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (failed(batch))
    return std::nullopt;
  SmallVector<int64_t> dims(*batch);
  dims.append({m, n});
  std::optional<int64_t> outElems = checkedProduct(dims);
  dims.push_back(k);
  std::optional<int64_t> macs = checkedProduct(dims);
  if (!outElems || !macs || *outElems > (int64_t(1) << 20) ||
      *macs > (int64_t(1) << 24))
    return std::nullopt;
  int64_t nb = product(*batch);
  SmallVector<int64_t> outShape(*batch);
  outShape.push_back(m);
  outShape.push_back(n);
  ConstTensor out = ConstTensor::zeros(a.dtype, outShape);
  // Offset of batch element `bi` in an operand with batch dims `dims`
  // (right-aligned, size-1 dims broadcast).
  auto batchOffset = [&](ArrayRef<int64_t> dims, int64_t bi) {
    int64_t off = 0, stride = 1;
    int64_t rem = bi;
    for (int64_t d = batch->size() - 1, j = dims.size() - 1; d >= 0; --d, --j) {
      int64_t idx = rem % (*batch)[d];
      rem /= (*batch)[d];
      if (j >= 0) {
        if (dims[j] != 1)
          off += idx * stride;
        stride *= dims[j];
      }
    }
    return off;
  };
  ArrayRef<int64_t> ba = ArrayRef(sa).drop_back(2), bb = ArrayRef(sb).drop_back(2);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t oa = batchOffset(ba, bi) * m * k, ob = batchOffset(bb, bi) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a.getDouble(oa + i * k + p) * b.getDouble(ob + p * n + j);
        out.setDouble((bi * m + i) * n + j, acc);
      }
  }
  SmallVector<int64_t> finalShape(*batch);
  if (!vecA)
    finalShape.push_back(m);
  if (!vecB)
    finalShape.push_back(n);
  out.shape = finalShape;
  return out;
}

LogicalResult Importer::importMatMul(const onnx::NodeProto &node) {
  FailureOr<Entry *> a = required(node, 0), b = required(node, 1);
  if (failed(a) || failed(b))
    return failure();
  int dtype = dtypeOf(**a);
  if (!isFloatDType(dtype) || dtype == TensorProto::DOUBLE ||
      dtype != dtypeOf(**b))
    return nodeError(node) << "MatMul of " << dtypeName(dtypeOf(**a)) << " and "
                           << dtypeName(dtypeOf(**b))
                           << " is not supported (llm.matmul takes f32, f16 "
                              "or bf16 operands of one type)";
  if ((*a)->constant && (*b)->constant) {
    std::optional<ConstTensor> folded =
        foldConstMatMul(*(*a)->constant, *(*b)->constant);
    if (folded) {
      setOutput(node, 0, std::move(*folded));
      return success();
    }
  }
  FailureOr<Value> lhs = materialize(node, **a), rhs = materialize(node, **b);
  if (failed(lhs) || failed(rhs))
    return failure();
  Location loc = nodeLoc(node);
  SmallVector<int64_t> sa(shapeOf(*lhs)), sb(shapeOf(*rhs));
  if (sa.empty() || sb.empty())
    return nodeError(node) << "MatMul operands must have rank >= 1";
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2])
    return nodeError(node) << "contraction sizes differ: " << shapeStr(sa)
                           << " x " << shapeStr(sb);
  auto batch =
      broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (!batch)
    return nodeError(node) << "batch dimensions of " << shapeStr(sa) << " and "
                           << shapeStr(sb) << " do not broadcast";
  SmallVector<int64_t> outShape(*batch);
  outShape.push_back(sa[sa.size() - 2]);
  outShape.push_back(sb.back());
  Value l = reshape(loc, *lhs, sa), r = reshape(loc, *rhs, sb);
  Value mm =
      MatmulOp::create(builder, loc, tensorType(outShape, elemTypeOf(l)), l, r);
  SmallVector<int64_t> finalShape(*batch);
  if (!vecA)
    finalShape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    finalShape.push_back(sb.back());
  setOutput(node, 0, reshape(loc, mm, finalShape));
  return success();
}

// Gemm(A, B, C) = alpha * op(A) op(B) + beta * C
//   -> llm.matmul {transpose_a/b} [* alpha] [+ beta * C].
LogicalResult Importer::importGemm(const onnx::NodeProto &node) {
  FailureOr<Entry *> a = required(node, 0), b = required(node, 1);
  if (failed(a) || failed(b))
    return failure();
  Entry *c = input(node, 2);
  int dtype = dtypeOf(**a);
  if ((dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
       dtype != TensorProto::BFLOAT16) ||
      dtypeOf(**b) != dtype)
    return nodeError(node) << "Gemm of " << dtypeName(dtype)
                           << " is not supported";
  float alpha = floatAttr(node, "alpha", 1.0f);
  float beta = floatAttr(node, "beta", 1.0f);
  bool transA = intAttr(node, "transA", 0), transB = intAttr(node, "transB", 0);
  SmallVector<int64_t> sa = shapeOf(**a), sb = shapeOf(**b);
  if (sa.size() != 2 || sb.size() != 2)
    return nodeError(node) << "Gemm operands must be 2-D";
  int64_t m = transA ? sa[1] : sa[0], ka = transA ? sa[0] : sa[1];
  int64_t kb = transB ? sb[1] : sb[0], n = transB ? sb[0] : sb[1];
  if (ka != kb)
    return nodeError(node) << "contraction sizes differ (" << ka << " vs " << kb
                           << ")";
  FailureOr<Value> lhs = materialize(node, **a), rhs = materialize(node, **b);
  if (failed(lhs) || failed(rhs))
    return failure();
  Location loc = nodeLoc(node);
  Type elemType = elemTypeOf(*lhs);
  auto outType = tensorType({m, n}, elemType);
  Value result =
      MatmulOp::create(builder, loc, outType, *lhs, *rhs, transA, transB);
  auto scalar = [&](float v) -> Value {
    Entry e;
    e.constant = ConstTensor::zeros(dtype, {});
    e.constant->setDouble(0, v);
    e.blobName = "scalar";
    return *materialize(node, e);
  };
  if (alpha != 1.0f)
    result = MulOp::create(builder, loc, outType, result, scalar(alpha));
  if (c && beta != 0.0f) {
    auto bs = broadcastShapes({m, n}, shapeOf(*c));
    if (!bs || *bs != SmallVector<int64_t>{m, n})
      return nodeError(node)
             << "C of shape " << shapeStr(shapeOf(*c))
             << " does not broadcast to [" << m << "," << n << "]";
    Value cval;
    if (c->constant && beta != 1.0f) {
      // beta * C is folded for a constant C.
      Entry scaled;
      const ConstTensor &src = *c->constant;
      scaled.constant = ConstTensor::zeros(dtype, src.shape);
      for (int64_t i = 0, e = src.numel(); i < e; ++i)
        scaled.constant->setDouble(i, beta * src.getDouble(i));
      scaled.blobName = c->blobName;
      FailureOr<Value> cv = materialize(node, scaled);
      if (failed(cv))
        return failure();
      cval = *cv;
    } else {
      FailureOr<Value> cv = materializeAs(node, *c, dtype);
      if (failed(cv))
        return failure();
      cval = *cv;
      if (beta != 1.0f)
        cval = MulOp::create(builder, loc, cval.getType(), cval, scalar(beta));
    }
    result = AddOp::create(builder, loc, outType, result, cval);
  }
  setOutput(node, 0, result);
  return success();
}

// Softmax(axis) -> llm.softmax. Before opset 13 Softmax flattens to 2-D at
// `axis` (default 1); that is the same computation only for the last axis.
LogicalResult Importer::importSoftmax(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  StringRef op = node.op_type();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << op << " input must be f32, f16 or bf16";
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> axis =
      normAxis(node, intAttr(node, "axis", opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  if (opset < 13 && *axis != rank - 1)
    return nodeError(node) << op << " before opset 13 is only supported on "
                                    "the last axis";
  if (op == "LogSoftmax")
    setOutput(node, 0,
              LogSoftmaxOp::create(builder, nodeLoc(node), x->getType(), *x,
                                   *axis));
  else
    setOutput(node, 0,
              SoftmaxOp::create(builder, nodeLoc(node), x->getType(), *x,
                                *axis));
  return success();
}

FailureOr<Value> Importer::scalarConstant(const onnx::NodeProto &node,
                                          double value, int dtype) {
  Entry e;
  e.constant = ConstTensor::zeros(dtype, {});
  e.constant->setDouble(0, value);
  e.blobName = "scalar";
  return materialize(node, e);
}

// LayerNormalization's optional outputs, when used:
//   Mean = reduce_mean(x) over [axis, rank) (keepdims),
//   InvStdDev = rsqrt(reduce_mean((x - Mean)^2) + epsilon),
// both in the input's element type (ONNX's stash_type f32 for f32 inputs).
LogicalResult Importer::importLayerNormStats(const onnx::NodeProto &node,
                                             Value x, int64_t axis,
                                             float eps) {
  Location loc = nodeLoc(node);
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes, statShape(shape.take_front(axis));
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    statShape.push_back(1);
  }
  auto type = tensorType(statShape, elemTypeOf(x));
  Value mean = ReduceMeanOp::create(builder, loc, type, x, axes, true);
  Value diff = SubOp::create(builder, loc, x.getType(), x, mean);
  Value var = ReduceMeanOp::create(
      builder, loc, type, MulOp::create(builder, loc, x.getType(), diff, diff),
      axes, true);
  FailureOr<Value> epsV = scalarConstant(node, eps, toONNXType(elemTypeOf(x)));
  if (failed(epsV))
    return failure();
  Value inv = RsqrtOp::create(builder, loc, type,
                              AddOp::create(builder, loc, type, var, *epsV));
  setOutput(node, 1, mean);
  setOutput(node, 2, inv);
  return success();
}

// LayerNormalization(X, Scale, B) {axis, epsilon} -> llm.layer_norm (+ the
// Mean/InvStdDev outputs from importLayerNormStats when they are used).
LogicalResult Importer::importLayerNorm(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << "input must be f32, f16 or bf16";
  int dtype = dtypeOf(**in);
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  Value scale, bias;
  if (Entry *s = input(node, 1)) {
    FailureOr<Value> v = materializeAs(node, *s, dtype);
    if (failed(v))
      return failure();
    scale = *v;
  }
  if (Entry *b = input(node, 2)) {
    FailureOr<Value> v = materializeAs(node, *b, dtype);
    if (failed(v))
      return failure();
    bias = *v;
  }
  float eps = floatAttr(node, "epsilon", 1e-5f);
  setOutput(node, 0,
            LayerNormOp::create(builder, nodeLoc(node), x->getType(), *x, scale,
                                bias, builder.getI64IntegerAttr(*axis),
                                builder.getF32FloatAttr(eps)));
  bool statsUsed = false;
  for (int i = 1; i < node.output_size(); ++i)
    statsUsed |= !node.output(i).empty() && used.contains(node.output(i));
  if (statsUsed)
    return importLayerNormStats(node, *x, *axis, eps);
  return success();
}

// ReduceMean/ReduceMax/ReduceSum -> llm.reduce_*. Axes come from the `axes`
// attribute (ReduceSum before 13, the others before 18) or the second input;
// no axes reduce everything unless noop_with_empty_axes is set.
LogicalResult Importer::importReduce(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << op << " on a runtime " << dtypeName(dtypeOf(**in))
                           << " tensor is not supported (llm reductions take "
                              "f32, f16 or bf16)";
  SmallVector<int64_t> shape(shapeOf(*x));
  int64_t rank = shape.size();
  SmallVector<int64_t> axes;
  if (auto a = intsAttr(node, "axes")) {
    axes = *a;
  } else if (Entry *ax = input(node, 1)) {
    if (!ax->constant)
      return nodeError(node) << "input 'axes' must be a constant known at "
                                "import time";
    axes = ax->constant->toInts();
  }
  bool keepdims = intAttr(node, "keepdims", 1);
  if (axes.empty()) {
    if (intAttr(node, "noop_with_empty_axes", 0)) {
      setOutput(node, 0, *x);
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  llvm::SmallDenseSet<int64_t> reduced;
  for (int64_t &a : axes) {
    FailureOr<int64_t> n = normAxis(node, a, rank);
    if (failed(n))
      return failure();
    a = *n;
    if (!reduced.insert(a).second)
      return nodeError(node) << "repeated axis " << a;
  }
  llvm::sort(axes);
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.contains(i))
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  Location loc = nodeLoc(node);
  auto type = tensorType(outShape, elemTypeOf(*x));
  Value r;
  if (op == "ReduceMean") {
    r = ReduceMeanOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceMax") {
    r = ReduceMaxOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceMin") {
    r = ReduceMinOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceProd") {
    r = ReduceProdOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
    // sum(x * x) [-> sqrt]
    Value sq = MulOp::create(builder, loc, x->getType(), *x, *x);
    r = ReduceSumOp::create(builder, loc, type, sq, axes, keepdims);
    if (op == "ReduceL2")
      r = SqrtOp::create(builder, loc, type, r);
  } else if (op == "ReduceLogSum") {
    // log(sum(x))
    r = ReduceSumOp::create(builder, loc, type, *x, axes, keepdims);
    r = LogOp::create(builder, loc, type, r);
  } else if (op == "ReduceLogSumExp") {
    // m + log(sum(exp(x - m))), m = max(x) over the axes (keepdims), so that
    // exp cannot overflow.
    SmallVector<int64_t> keptShape;
    for (int64_t i = 0; i < rank; ++i)
      keptShape.push_back(reduced.contains(i) ? 1 : shape[i]);
    auto keptType = tensorType(keptShape, elemTypeOf(*x));
    Value m = ReduceMaxOp::create(builder, loc, keptType, *x, axes, true);
    Value e = ExpOp::create(
        builder, loc, x->getType(),
        SubOp::create(builder, loc, x->getType(), *x, m));
    r = LogOp::create(builder, loc, type,
                      ReduceSumOp::create(builder, loc, type, e, axes,
                                          keepdims));
    r = AddOp::create(builder, loc, type, r, reshape(loc, m, outShape));
  } else {
    r = ReduceSumOp::create(builder, loc, type, *x, axes, keepdims);
  }
  setOutput(node, 0, r);
  return success();
}

// ArgMax/ArgMin(x) {axis, keepdims, select_last_index} -> llm.argmax/argmin
// (int64 result).
LogicalResult Importer::importArgReduce(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << node.op_type() << " on a "
                           << dtypeName(dtypeOf(**in))
                           << " tensor is not supported (llm.argmax/argmin "
                              "take f32, f16 or bf16)";
  SmallVector<int64_t> shape(shapeOf(*x));
  int64_t rank = shape.size();
  if (rank == 0)
    return nodeError(node) << "input must have rank >= 1";
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  if (shape[*axis] == 0)
    return nodeError(node) << "reduced dimension " << *axis << " is empty";
  bool keepdims = intAttr(node, "keepdims", 1);
  bool last = intAttr(node, "select_last_index", 0);
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != *axis)
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  auto type = tensorType(outShape, builder.getI64Type());
  Location loc = nodeLoc(node);
  Value r;
  if (node.op_type() == "ArgMax")
    r = ArgMaxOp::create(builder, loc, type, *x, *axis, keepdims, last);
  else
    r = ArgMinOp::create(builder, loc, type, *x, *axis, keepdims, last);
  setOutput(node, 0, r);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Value Importer::slice(Location loc, Value v, ArrayRef<int64_t> starts,
                      ArrayRef<int64_t> limits, ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = shapeOf(v);
  SmallVector<int64_t> out;
  bool identity = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    // ceil((limit - start) / stride) for 0 <= start, limit <= dim.
    out.push_back(limits[d] <= starts[d]
                      ? 0
                      : (limits[d] - starts[d] - 1) / strides[d] + 1);
    identity &= starts[d] == 0 && limits[d] == shape[d] && strides[d] == 1;
  }
  if (identity)
    return v;
  return SliceOp::create(builder, loc, tensorType(out, elemTypeOf(v)), v,
                         starts, limits, strides);
}

// Transpose(perm) -> llm.transpose (folded on constants).
LogicalResult Importer::importTranspose(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  SmallVector<int64_t> perm;
  if (auto p = intsAttr(node, "perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return nodeError(node) << "perm has " << perm.size() << " entries for rank "
                           << rank;
  for (int64_t &p : perm) {
    if (p < 0)
      p += rank;
    if (p < 0 || p >= rank || seen[p])
      return nodeError(node) << "perm is not a permutation";
    seen[p] = true;
  }
  SmallVector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0,
              (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                int64_t flat = 0;
                for (int64_t i = 0; i < rank; ++i)
                  flat += idx[i] * strides[perm[i]];
                return flat;
              }));
    return success();
  }
  Value x = (*in)->value;
  setOutput(node, 0,
            TransposeOp::create(builder, nodeLoc(node),
                                tensorType(outShape, elemTypeOf(x)), x, perm));
  return success();
}

// Reshape / Squeeze / Unsqueeze / Flatten -> llm.reshape (a new shape over
// the same row-major data; constants just get the new shape).
LogicalResult Importer::importReshapeLike(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size(), numel = product(shape);
  SmallVector<int64_t> out;
  if (op == "Reshape") {
    FailureOr<const ConstTensor *> s = requiredConst(node, 1, "shape");
    if (failed(s))
      return failure();
    out = (*s)->toInts();
    bool allowZero = intAttr(node, "allowzero", 0);
    int64_t inferred = -1, known = 1;
    for (auto [i, d] : llvm::enumerate(out)) {
      if (d == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= rank)
          return nodeError(node)
                 << "shape entry " << i
                 << " is 0 (copy) but the input has rank " << rank;
        d = shape[i];
      }
      if (d == -1) {
        if (inferred >= 0)
          return nodeError(node) << "shape has more than one -1";
        inferred = i;
      } else if (d < 0) {
        return nodeError(node) << "invalid shape entry " << d;
      } else {
        // An overflow is no valid shape: it only fails the checks below.
        known = llm::detail::checkedMul(known, d).value_or(-1);
        if (known < 0)
          return nodeError(node)
                 << "cannot reshape " << shapeStr(shape) << " to "
                 << shapeStr(out) << " (its size overflows int64)";
      }
    }
    if (inferred >= 0) {
      if (known == 0 || numel % known != 0)
        return nodeError(node)
               << "cannot infer -1 in shape for " << numel << " elements";
      out[inferred] = numel / known;
    }
    if (checkedProduct(out) != numel)
      return nodeError(node)
             << "cannot reshape " << shapeStr(shape) << " to " << shapeStr(out);
  } else if (op == "Flatten") {
    // axis in [-rank, rank]; a negative one counts from rank (not rank + 1).
    int64_t a = intAttr(node, "axis", 1);
    if (a < -rank || a > rank)
      return nodeError(node) << "axis " << a << " is out of range for rank "
                             << rank << " (expected [" << -rank << ", "
                             << rank << "])";
    std::optional<int64_t> axis = a < 0 ? a + rank : a;
    int64_t outer = product(ArrayRef(shape).take_front(*axis));
    out = {outer, outer == 0 ? 0 : numel / outer};
  } else {
    SmallVector<int64_t> axes;
    if (auto a = intsAttr(node, "axes")) {
      axes = *a;
    } else if (Entry *ax = input(node, 1)) {
      if (!ax->constant)
        return nodeError(node) << "input 'axes' must be a constant known at "
                                  "import time";
      axes = ax->constant->toInts();
    } else if (op == "Unsqueeze") {
      return nodeError(node) << "Unsqueeze needs axes";
    }
    if (op == "Squeeze") {
      SmallVector<bool> drop(rank, false);
      if (axes.empty()) {
        for (int64_t i = 0; i < rank; ++i)
          drop[i] = shape[i] == 1;
      }
      for (int64_t a : axes) {
        FailureOr<int64_t> n = normAxis(node, a, rank);
        if (failed(n))
          return failure();
        if (shape[*n] != 1)
          return nodeError(node) << "cannot squeeze dimension " << *n
                                 << " of size " << shape[*n];
        drop[*n] = true;
      }
      for (int64_t i = 0; i < rank; ++i)
        if (!drop[i])
          out.push_back(shape[i]);
    } else {
      int64_t outRank = rank + axes.size();
      SmallVector<bool> isNew(outRank, false);
      for (int64_t a : axes) {
        FailureOr<int64_t> n = normAxis(node, a, outRank);
        if (failed(n))
          return failure();
        if (isNew[*n])
          return nodeError(node) << "repeated axis " << *n;
        isNew[*n] = true;
      }
      for (int64_t i = 0, j = 0; i < outRank; ++i)
        out.push_back(isNew[i] ? 1 : shape[j++]);
    }
  }
  if ((*in)->constant) {
    ConstTensor c = *(*in)->constant;
    c.shape = out;
    setOutput(node, 0, std::move(c));
    return success();
  }
  setOutput(node, 0, reshape(nodeLoc(node), (*in)->value, out));
  return success();
}

// Concat(axis) -> llm.concat (folded when every input is a constant).
LogicalResult Importer::importConcat(const onnx::NodeProto &node) {
  SmallVector<Entry *> ins;
  for (int i = 0; i < node.input_size(); ++i)
    if (Entry *e = input(node, i))
      ins.push_back(e);
  if (ins.empty())
    return nodeError(node) << "Concat needs inputs";
  SmallVector<int64_t> shape = shapeOf(*ins[0]);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int dtype = dtypeOf(*ins[0]);
  SmallVector<int64_t> outShape = shape;
  outShape[*axis] = 0;
  for (Entry *e : ins) {
    SmallVector<int64_t> s = shapeOf(*e);
    if (static_cast<int64_t>(s.size()) != rank || dtypeOf(*e) != dtype)
      return nodeError(node) << "inputs differ in rank or element type";
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && s[d] != shape[d])
        return nodeError(node) << "input shapes " << shapeStr(shape) << " and "
                               << shapeStr(s) << " differ off the axis";
    std::optional<int64_t> sum =
        llm::detail::checkedAdd(outShape[*axis], s[*axis]);
    if (!sum)
      return nodeError(node)
             << "the concatenated dimension " << *axis << " overflows int64";
    outShape[*axis] = *sum;
  }
  if (allConst(ins)) {
    // Source tensor and offset for each position along the axis.
    SmallVector<std::pair<const ConstTensor *, int64_t>> along;
    for (Entry *e : ins)
      for (int64_t i = 0; i < e->constant->shape[*axis]; ++i)
        along.push_back({&*e->constant, i});
    ConstTensor out = ConstTensor::zeros(dtype, outShape);
    int64_t es = out.elemSize();
    forEachIndex(outShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
      auto [src, off] = along[idx[*axis]];
      SmallVector<int64_t> st = stridesOf(src->shape);
      int64_t f = 0;
      for (int64_t d = 0; d < rank; ++d)
        f += (d == *axis ? off : idx[d]) * st[d];
      std::memcpy(out.bytes->data() + flat * es, src->ptr(f), es);
    });
    setOutput(node, 0, std::move(out));
    return success();
  }
  SmallVector<Value> vals;
  for (Entry *e : ins) {
    if (shapeOf(*e)[*axis] == 0)
      continue;
    FailureOr<Value> v = materialize(node, *e);
    if (failed(v))
      return failure();
    vals.push_back(*v);
  }
  if (vals.empty())
    return nodeError(node) << "all inputs are empty along the axis";
  Value r = vals.size() == 1
                ? vals[0]
                : ConcatOp::create(builder, nodeLoc(node),
                                   tensorType(outShape, elemTypeOf(vals[0])),
                                   vals, *axis)
                      .getResult();
  setOutput(node, 0, r);
  return success();
}

// Split(axis, split) -> one llm.slice per output.
LogicalResult Importer::importSplit(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes;
  if (auto s = intsAttr(node, "split")) {
    sizes = *s;
  } else if (Entry *s = input(node, 1)) {
    if (!s->constant)
      return nodeError(node) << "input 'split' must be a constant known at "
                                "import time";
    sizes = s->constant->toInts();
  } else {
    // num_outputs (opset 18) must name the outputs there are.
    int64_t n = intAttr(node, "num_outputs", node.output_size());
    if (n != node.output_size())
      return nodeError(node) << "num_outputs is " << n << " but the node has "
                             << node.output_size() << " outputs";
    int64_t dim = shape[*axis], chunk = dim / n + (dim % n != 0);
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  // The sum of the sizes, nullopt on a negative size or an overflow.
  std::optional<int64_t> total = 0;
  for (int64_t s : sizes)
    total = s < 0 || !total ? std::nullopt : llm::detail::checkedAdd(*total, s);
  if (static_cast<int>(sizes.size()) != node.output_size() ||
      total != shape[*axis])
    return nodeError(node) << "split sizes do not match dimension " << *axis
                           << " of size " << shape[*axis] << " and "
                           << node.output_size() << " outputs";
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> starts(rank, 0), limits(shape), strides(rank, 1);
    starts[*axis] = offset;
    limits[*axis] = offset + size;
    if ((*in)->constant) {
      SmallVector<int64_t> outShape(shape);
      outShape[*axis] = size;
      SmallVector<int64_t> st = stridesOf(shape);
      int64_t ax = *axis, off = offset;
      setOutput(node, i,
                (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                  int64_t f = 0;
                  for (int64_t d = 0; d < rank; ++d)
                    f += (idx[d] + (d == ax ? off : 0)) * st[d];
                  return f;
                }));
    } else {
      setOutput(node, i,
                slice(nodeLoc(node), (*in)->value, starts, limits, strides));
    }
    offset += size;
  }
  return success();
}

// Slice(data, starts, ends, axes, steps) with constant parameters, ONNX
// clamping rules: negative starts/ends count from the end, then clamp to
// [0, dim] (steps > 0) or [-1, dim - 1] (steps < 0). Runtime data needs
// positive steps (llm.slice); constants fold for any step.
LogicalResult Importer::importSlice(const onnx::NodeProto &node) {
  if (opset < 10)
    return nodeError(node) << "Slice before opset 10 is not supported";
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<const ConstTensor *> st = requiredConst(node, 1, "starts");
  if (failed(st))
    return failure();
  FailureOr<const ConstTensor *> en = requiredConst(node, 2, "ends");
  if (failed(en))
    return failure();
  SmallVector<int64_t> starts = (*st)->toInts(), ends = (*en)->toInts();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes, steps;
  if (Entry *a = input(node, 3)) {
    if (!a->constant)
      return nodeError(node) << "input 'axes' must be a constant known at "
                                "import time";
    axes = a->constant->toInts();
  } else {
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  }
  if (Entry *s = input(node, 4)) {
    if (!s->constant)
      return nodeError(node) << "input 'steps' must be a constant known at "
                                "import time";
    steps = s->constant->toInts();
  } else {
    steps.assign(starts.size(), 1);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return nodeError(node) << "starts/ends/axes/steps differ in length";
  SmallVector<int64_t> b(rank, 0), stride(rank, 1), outShape(shape);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> ax = normAxis(node, axes[i], rank);
    if (failed(ax))
      return failure();
    int64_t dim = shape[*ax], s = starts[i], e = ends[i], step = steps[i];
    if (step == 0)
      return nodeError(node) << "step 0 on axis " << *ax;
    if (s < 0)
      s += dim;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2)
      e += dim;
    // The count ceil(|e - s| / |step|) without overflow: |e - s| <= dim,
    // and |step| (INT64_MIN included) is taken as uint64.
    uint64_t mag = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      outShape[*ax] = e <= s ? 0 : int64_t(uint64_t(e - s - 1) / mag) + 1;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      outShape[*ax] = s <= e ? 0 : int64_t(uint64_t(s - e - 1) / mag) + 1;
    }
    b[*ax] = s;
    stride[*ax] = step;
  }
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0,
              (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                int64_t f = 0;
                for (int64_t d = 0; d < rank; ++d)
                  f += (b[d] + idx[d] * stride[d]) * strides[d];
                return f;
              }));
    return success();
  }
  // A negative step takes b, b + step, ..., (n elements): the same elements
  // as the positive-step slice from b + (n - 1) * step, reversed.
  SmallVector<int64_t> limits(rank), reversed;
  for (int64_t d = 0; d < rank; ++d) {
    if (stride[d] < 0) {
      // (n - 1) * -stride <= b: no overflow; with n <= 1 the stride is
      // unused (and may be INT64_MIN, which has no negation).
      int64_t n = outShape[d];
      int64_t lowest =
          n <= 1 ? (n == 0 ? 0 : b[d]) : b[d] + (n - 1) * stride[d];
      limits[d] = n == 0 ? 0 : b[d] + 1;
      b[d] = lowest;
      stride[d] = n <= 1 ? 1 : -stride[d];
      if (n > 1)
        reversed.push_back(d);
      continue;
    }
    if (outShape[d] <= 1)
      stride[d] = 1; // unused; a huge stride would only risk overflows
    limits[d] =
        outShape[d] == 0 ? b[d] : b[d] + (outShape[d] - 1) * stride[d] + 1;
  }
  Location loc = nodeLoc(node);
  Value r = slice(loc, (*in)->value, b, limits, stride);
  if (!reversed.empty())
    r = ReverseOp::create(builder, loc, r.getType(), r, reversed);
  setOutput(node, 0, r);
  return success();
}

// Gather(data, indices, axis):
//   * both constant: folded;
//   * constant indices on runtime data: llm.slice per index (+ concat and
//     reshape);
//   * runtime integer indices on a 2-D float table, axis 0: llm.embedding;
//   * other runtime indices: llm.gather.
LogicalResult Importer::importGather(const onnx::NodeProto &node) {
  FailureOr<Entry *> data = required(node, 0), idx = required(node, 1);
  if (failed(data) || failed(idx))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**data), ishape = shapeOf(**idx);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t dim = shape[*axis];
  SmallVector<int64_t> outShape(ArrayRef(shape).take_front(*axis));
  llvm::append_range(outShape, ishape);
  llvm::append_range(outShape, ArrayRef(shape).drop_front(*axis + 1));

  if ((*idx)->constant) {
    SmallVector<int64_t> indices = (*idx)->constant->toInts();
    for (int64_t &i : indices) {
      if (i < -dim || i >= dim)
        return nodeError(node) << "index " << i << " is out of range for "
                               << "dimension " << *axis << " of size " << dim;
      if (i < 0)
        i += dim;
    }
    if ((*data)->constant) {
      if (failed(checkShape(node, outShape)))
        return failure();
      SmallVector<int64_t> strides = stridesOf(shape);
      int64_t ir = ishape.size(), ax = *axis;
      SmallVector<int64_t> istrides = stridesOf(ishape);
      setOutput(
          node, 0, (*data)->constant->remap(outShape, [&](ArrayRef<int64_t> o) {
            int64_t f = 0, k = 0;
            for (int64_t d = 0; d < ir; ++d)
              k += o[ax + d] * istrides[d];
            for (int64_t d = 0; d < rank; ++d) {
              int64_t v = d < ax ? o[d] : d == ax ? indices[k] : o[d + ir - 1];
              f += v * strides[d];
            }
            return f;
          }));
      return success();
    }
    Location loc = nodeLoc(node);
    Value x = (*data)->value;
    SmallVector<Value> parts;
    for (int64_t i : indices) {
      SmallVector<int64_t> starts(rank, 0), limits(shape), strides(rank, 1);
      starts[*axis] = i;
      limits[*axis] = i + 1;
      parts.push_back(slice(loc, x, starts, limits, strides));
    }
    Value r;
    if (parts.empty())
      return nodeError(node) << "empty indices are not supported";
    if (parts.size() == 1) {
      r = parts[0];
    } else {
      SmallVector<int64_t> catShape(shape);
      catShape[*axis] = parts.size();
      r = ConcatOp::create(builder, loc, tensorType(catShape, elemTypeOf(x)),
                           parts, *axis);
    }
    setOutput(node, 0, reshape(loc, r, outShape));
    return success();
  }

  int idt = dtypeOf(**idx), ddt = dtypeOf(**data);
  if (idt != TensorProto::INT64 && idt != TensorProto::INT32)
    return nodeError(node) << "Gather indices must be int32 or int64, got "
                           << dtypeName(idt);
  if (dim == 0)
    return nodeError(node) << "Gather from an empty dimension " << *axis;
  FailureOr<Value> table = materialize(node, **data);
  if (failed(table))
    return failure();
  auto type = tensorType(outShape, elemTypeOf(*table));
  if (*axis == 0 && rank == 2 && isa<FloatType>(elemTypeOf(*table)) &&
      ddt != TensorProto::DOUBLE) {
    // The token-embedding lookup.
    setOutput(node, 0,
              EmbeddingOp::create(builder, nodeLoc(node), type, *table,
                                  (*idx)->value));
    return success();
  }
  setOutput(node, 0,
            GatherOp::create(builder, nodeLoc(node), type, *table,
                             (*idx)->value, *axis));
  return success();
}

// Shape(start, end): the static shape as an int64 constant.
LogicalResult Importer::importShape(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  int64_t start = intAttr(node, "start", 0), end = intAttr(node, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> dims(ArrayRef(shape).slice(start, end - start));
  setOutput(node, 0,
            ConstTensor::fromInts(dims, {static_cast<int64_t>(dims.size())}));
  return success();
}

// ConstantOfShape(shape) {value}: a constant filled with `value`.
LogicalResult Importer::importConstantOfShape(const onnx::NodeProto &node) {
  FailureOr<const ConstTensor *> s = requiredConst(node, 0, "shape");
  if (failed(s))
    return failure();
  SmallVector<int64_t> shape = (*s)->toInts();
  if (failed(checkShape(node, shape)))
    return failure();
  ConstTensor value = ConstTensor::zeros(TensorProto::FLOAT, {1});
  if (const onnx::AttributeProto *a = attr(node, "value")) {
    FailureOr<ConstTensor> v = readTensor(a->t(), nodeFileLoc(node));
    if (failed(v))
      return failure();
    if (v->numel() != 1)
      return nodeError(node) << "value must have one element";
    value = *v;
  }
  ConstTensor out = ConstTensor::zeros(value.dtype, shape);
  int64_t es = out.elemSize();
  for (int64_t i = 0, e = out.numel(); i < e; ++i)
    std::memcpy(out.bytes->data() + i * es, value.ptr(0), es);
  setOutput(node, 0, std::move(out));
  return success();
}

// Range(start, limit, delta): a 1-D constant.
LogicalResult Importer::importRange(const onnx::NodeProto &node) {
  FailureOr<const ConstTensor *> s = requiredConst(node, 0, "start");
  if (failed(s))
    return failure();
  FailureOr<const ConstTensor *> l = requiredConst(node, 1, "limit");
  if (failed(l))
    return failure();
  FailureOr<const ConstTensor *> d = requiredConst(node, 2, "delta");
  if (failed(d))
    return failure();
  for (const ConstTensor *t : {*s, *l, *d})
    if (t->numel() != 1)
      return nodeError(node) << "start, limit and delta must be scalars";
  int dtype = (*s)->dtype;
  if ((*l)->dtype != dtype || (*d)->dtype != dtype)
    return nodeError(node) << "start, limit and delta differ in type";
  int64_t n;
  if (isFloatDType(dtype)) {
    double start = (*s)->getDouble(0), limit = (*l)->getDouble(0),
           delta = (*d)->getDouble(0);
    if (delta == 0)
      return nodeError(node) << "delta is 0";
    double count = std::ceil((limit - start) / delta);
    if (!(count <= static_cast<double>(kMaxFoldedElements)))
      return nodeError(node)
             << "Range of " << count << " elements is too large to fold";
    n = count > 0 ? static_cast<int64_t>(count) : 0;
    ConstTensor out = ConstTensor::zeros(dtype, {n});
    for (int64_t i = 0; i < n; ++i)
      out.setDouble(i, start + i * delta);
    setOutput(node, 0, std::move(out));
    return success();
  }
  // Integers: the count max(ceil((limit - start) / delta), 0) exactly, in
  // uint64 (limit - start overflows int64 for far-apart bounds); every
  // element start + i * delta then lies between start and limit.
  int64_t start = (*s)->getInt(0), limit = (*l)->getInt(0),
          delta = (*d)->getInt(0);
  if (delta == 0)
    return nodeError(node) << "delta is 0";
  uint64_t count = 0;
  if (delta > 0 ? limit > start : limit < start) {
    uint64_t span = delta > 0 ? uint64_t(limit) - uint64_t(start)
                              : uint64_t(start) - uint64_t(limit);
    uint64_t mag = delta > 0 ? uint64_t(delta) : uint64_t(0) - uint64_t(delta);
    count = (span - 1) / mag + 1;
  }
  if (count > static_cast<uint64_t>(kMaxFoldedElements))
    return nodeError(node) << "Range of " << count
                           << " elements is too large to fold";
  n = static_cast<int64_t>(count);
  ConstTensor out = ConstTensor::zeros(dtype, {n});
  for (int64_t i = 0; i < n; ++i)
    out.setInt(i, llm::detail::wrapAdd(start, llm::detail::wrapMul(i, delta)));
  setOutput(node, 0, std::move(out));
  return success();
}

// Expand(input, shape): bidirectional broadcast -> llm.broadcast_to.
LogicalResult Importer::importExpand(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  FailureOr<const ConstTensor *> s = requiredConst(node, 1, "shape");
  if (failed(in) || failed(s))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  if (failed(checkShape(node, (*s)->toInts())))
    return failure();
  auto out = broadcastShapes(shape, (*s)->toInts());
  if (!out)
    return nodeError(node) << "cannot expand " << shapeStr(shape) << " to "
                           << shapeStr((*s)->toInts());
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0, (*in)->constant->remap(*out, [&](ArrayRef<int64_t> idx) {
      return broadcastIndex(idx, shape, strides);
    }));
    return success();
  }
  Value x = (*in)->value;
  if (*out == shape) {
    setOutput(node, 0, x);
    return success();
  }
  setOutput(node, 0,
            BroadcastToOp::create(builder, nodeLoc(node),
                                  tensorType(*out, elemTypeOf(x)), x));
  return success();
}

// Cast(to) -> llm.cast (folded on constants).
LogicalResult Importer::importCast(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int64_t toAttr = intAttr(node, "to", TensorProto::UNDEFINED);
  // (An int64 attribute: a value like 2^32 + 1 must not truncate to FLOAT.)
  if (toAttr < 0 || toAttr > INT_MAX ||
      !TensorProto::DataType_IsValid(static_cast<int>(toAttr)))
    return nodeError(node) << "Cast to data type " << toAttr
                           << " is not supported";
  int to = static_cast<int>(toAttr);
  if (elementSize(to) == 0)
    return nodeError(node) << "Cast to " << dtypeName(to)
                           << " is not supported";
  if ((*in)->constant) {
    setOutput(node, 0, (*in)->constant->castTo(to));
    return success();
  }
  Value x = (*in)->value;
  Type toType = toMLIRType(to, ctx);
  if (!toType)
    return nodeError(node) << "Cast of a runtime value to " << dtypeName(to)
                           << " is not supported by the llm dialect";
  if (toType == elemTypeOf(x)) {
    setOutput(node, 0, x);
    return success();
  }
  setOutput(node, 0,
            CastOp::create(builder, nodeLoc(node),
                           tensorType(shapeOf(x), toType), x));
  return success();
}

// Clip(x, min, max) = min(max(x, lo), hi) -> llm.max / llm.min (folded on
// constants). Before opset 11 the bounds are attributes.
LogicalResult Importer::importClip(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int dtype = dtypeOf(**in);
  auto bound = [&](int i, StringRef name) -> std::optional<Entry> {
    if (Entry *e = input(node, i))
      return *e;
    if (const onnx::AttributeProto *a = attr(node, name)) {
      Entry e;
      e.constant = ConstTensor::zeros(dtype, {});
      e.constant->setDouble(0, a->f());
      e.blobName = name.str();
      return e;
    }
    return std::nullopt;
  };
  std::optional<Entry> lo = bound(1, "min"), hi = bound(2, "max");
  bool intClip = false;
  if (!isFloatDType(dtype) || dtype == TensorProto::DOUBLE) {
    if (!(*in)->constant || (lo && !lo->constant) || (hi && !hi->constant)) {
      if (dtype == TensorProto::DOUBLE || !toMLIRType(dtype, ctx))
        return nodeError(node) << "Clip of a runtime " << dtypeName(dtype)
                               << " tensor is not supported";
      intClip = true;
    }
  }
  for (std::optional<Entry> *b : {&lo, &hi})
    if (*b && shapeOf(**b).size() != 0)
      return nodeError(node) << "Clip bounds must be scalars";
  if ((*in)->constant && (!lo || lo->constant) && (!hi || hi->constant)) {
    const ConstTensor &x = *(*in)->constant;
    ConstTensor out = ConstTensor::zeros(x.dtype, x.shape);
    for (int64_t i = 0, e = x.numel(); i < e; ++i) {
      if (isFloatDType(x.dtype)) {
        double v = x.getDouble(i);
        if (lo && v < lo->constant->getDouble(0))
          v = lo->constant->getDouble(0);
        if (hi && v > hi->constant->getDouble(0))
          v = hi->constant->getDouble(0);
        out.setDouble(i, v);
      } else {
        int64_t v = x.getInt(i);
        if (lo)
          v = std::max(v, lo->constant->getInt(0));
        if (hi)
          v = std::min(v, hi->constant->getInt(0));
        out.setInt(i, v);
      }
    }
    setOutput(node, 0, std::move(out));
    return success();
  }
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  Location loc = nodeLoc(node);
  Value r = *x;
  if (lo) {
    FailureOr<Value> v = materializeAs(node, *lo, dtype);
    if (failed(v))
      return failure();
    if (intClip) {
      // select(x < lo, lo, x)
      auto cmpType = tensorType(shapeOf(r), builder.getI1Type());
      Value below =
          CompareOp::create(builder, loc, cmpType, ComparePredicate::LT, r, *v);
      r = SelectOp::create(builder, loc, r.getType(), below, *v, r);
    } else {
      r = MaxOp::create(builder, loc, r.getType(), r, *v);
    }
  }
  if (hi) {
    FailureOr<Value> v = materializeAs(node, *hi, dtype);
    if (failed(v))
      return failure();
    if (intClip) {
      // select(x > hi, hi, x)
      auto cmpType = tensorType(shapeOf(r), builder.getI1Type());
      Value above =
          CompareOp::create(builder, loc, cmpType, ComparePredicate::GT, r, *v);
      r = SelectOp::create(builder, loc, r.getType(), above, *v, r);
    } else {
      r = MinOp::create(builder, loc, r.getType(), r, *v);
    }
  }
  setOutput(node, 0, r);
  return success();
}

// Trilu(x, k) {upper}: folded on constants (causal masks built with
// torch.triu/tril); on runtime data llm.select with a constant mask.
LogicalResult Importer::importTrilu(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int64_t k = 0;
  if (Entry *ke = input(node, 1)) {
    if (!ke->constant)
      return nodeError(node) << "input 'k' must be a constant known at "
                                "import time";
    if (ke->constant->numel() != 1)
      return nodeError(node) << "input 'k' must be a scalar";
    k = ke->constant->getInt(0);
  }
  bool upper = intAttr(node, "upper", 1);
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  if (rank < 2)
    return nodeError(node) << "Trilu needs rank >= 2";
  if (!(*in)->constant) {
    // Runtime data: select(mask, x, 0) with the [N, M] mask folded here.
    int64_t n = shape[rank - 2], m = shape[rank - 1];
    if (failed(checkShape(node, {n, m})))
      return failure();
    Entry mask;
    mask.constant = ConstTensor::zeros(TensorProto::BOOL, {n, m});
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        mask.constant->setInt(i * m + j, upper ? j - i >= k : j - i <= k);
    mask.blobName = "trilu_mask";
    int dtype = dtypeOf(**in);
    FailureOr<Value> maskV = materialize(node, mask);
    FailureOr<Value> zero = scalarConstant(node, 0.0, dtype);
    if (failed(maskV) || failed(zero))
      return failure();
    Value x = (*in)->value;
    setOutput(node, 0,
              SelectOp::create(builder, nodeLoc(node), x.getType(), *maskV, x,
                               *zero));
    return success();
  }
  const ConstTensor &x = *(*in)->constant;
  ConstTensor out = ConstTensor::zeros(x.dtype, x.shape);
  int64_t es = x.elemSize();
  forEachIndex(x.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t i = idx[rank - 2], j = idx[rank - 1];
    if (upper ? j - i >= k : j - i <= k)
      std::memcpy(out.bytes->data() + flat * es, x.ptr(flat), es);
  });
  setOutput(node, 0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::importConstant(const onnx::NodeProto &node) {
  if (node.attribute_size() != 1)
    return nodeError(node) << "Constant needs exactly one value attribute";
  const onnx::AttributeProto &a = node.attribute(0);
  ConstTensor c;
  if (a.name() == "value") {
    FailureOr<ConstTensor> t = readTensor(a.t(), nodeFileLoc(node));
    if (failed(t))
      return failure();
    c = std::move(*t);
  } else if (a.name() == "value_float") {
    c = ConstTensor::zeros(TensorProto::FLOAT, {});
    c.setDouble(0, a.f());
  } else if (a.name() == "value_floats") {
    c = ConstTensor::zeros(TensorProto::FLOAT, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      c.setDouble(i, a.floats(i));
  } else if (a.name() == "value_int") {
    c = ConstTensor::fromInts({a.i()}, {});
  } else if (a.name() == "value_ints") {
    c = ConstTensor::fromInts(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()),
        {a.ints_size()});
  } else {
    return nodeError(node) << "Constant attribute '" << a.name()
                           << "' is not supported";
  }
  setOutput(node, 0, std::move(c));
  return success();
}

/// The op types of the default domain that importNode handles, checked for
/// every node before any is imported.
static bool isSupportedOp(StringRef op) {
  static const llvm::StringSet<> ops = {
      "Constant", "Identity", "Dropout", "Add", "Sub", "Mul", "Div", "Mod",
      "Pow", "Max", "Min", "Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Tanh",
      "Erf", "Sigmoid", "Relu", "Floor", "Ceil", "Abs", "Sin", "Cos", "Equal",
      "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
      "Not", "Where", "MatMul", "Gemm", "Softmax", "LogSoftmax", "ArgMax",
      "ArgMin", "LayerNormalization", "ReduceMean", "ReduceMax", "ReduceSum",
      "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL2", "ReduceLogSum",
      "ReduceLogSumExp", "Transpose", "Reshape", "Squeeze", "Unsqueeze",
      "Flatten", "Concat", "Split", "Slice", "Gather", "Shape", "Size",
      "ConstantOfShape", "Range", "Expand", "Cast", "Clip", "Trilu",
      // ImportONNXQuant.inc
      "QuantizeLinear", "DequantizeLinear", "MatMulInteger", "QLinearMatMul"};
  return ops.contains(op);
}

/// The error for a node whose op the importer does not handle, if it is one.
LogicalResult Importer::checkSupported(const onnx::NodeProto &node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nodeError(node) << "ops of domain '" << node.domain()
                           << "' are not supported";
  if (!isSupportedOp(node.op_type()))
    return nodeError(node) << "unsupported op " << node.op_type();
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  if (failed(checkSupported(node)))
    return failure();
  for (int i = 0; i < node.input_size(); ++i)
    if (!node.input(i).empty() && !env.count(node.input(i)))
      return nodeError(node)
             << "input '" << node.input(i) << "' is not defined before its use";
  if (std::optional<LogicalResult> quantized = importQuantNode(node))
    return *quantized;
  if (op == "Constant")
    return importConstant(node);
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && node.output_size() > 1 && !node.output(1).empty() &&
        used.contains(node.output(1)))
      return nodeError(node) << "the Dropout mask output is not supported";
    // Dropout is the identity at inference; training mode is random.
    if (Entry *training = op == "Dropout" ? input(node, 2) : nullptr)
      if (!training->constant || training->constant->numel() != 1 ||
          training->constant->getInt(0))
        return nodeError(node) << "training-mode Dropout is not supported";
    FailureOr<Entry *> in = required(node, 0);
    if (failed(in))
      return failure();
    env[node.output(0)] = **in;
    return success();
  }
  if (llvm::is_contained(
          {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max", "Min"}, op))
    return importBinary(node);
  if (llvm::is_contained({"Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Tanh",
                          "Erf", "Sigmoid", "Relu", "Floor", "Ceil", "Abs",
                          "Sin", "Cos"},
                         op))
    return importUnary(node);
  if (llvm::is_contained({"Equal", "Less", "Greater", "LessOrEqual",
                          "GreaterOrEqual", "And", "Or", "Xor", "Not"},
                         op))
    return importCompare(node);
  if (op == "Where")
    return importWhere(node);
  if (op == "MatMul")
    return importMatMul(node);
  if (op == "Gemm")
    return importGemm(node);
  if (op == "Softmax" || op == "LogSoftmax")
    return importSoftmax(node);
  if (op == "ArgMax" || op == "ArgMin")
    return importArgReduce(node);
  if (op == "LayerNormalization")
    return importLayerNorm(node);
  if (llvm::is_contained({"ReduceMean", "ReduceMax", "ReduceSum", "ReduceMin",
                          "ReduceProd", "ReduceSumSquare", "ReduceL2",
                          "ReduceLogSum", "ReduceLogSumExp"},
                         op))
    return importReduce(node);
  if (op == "Transpose")
    return importTranspose(node);
  if (llvm::is_contained({"Reshape", "Squeeze", "Unsqueeze", "Flatten"}, op))
    return importReshapeLike(node);
  if (op == "Concat")
    return importConcat(node);
  if (op == "Split")
    return importSplit(node);
  if (op == "Slice")
    return importSlice(node);
  if (op == "Gather")
    return importGather(node);
  if (op == "Shape")
    return importShape(node);
  if (op == "Size") {
    FailureOr<Entry *> in = required(node, 0);
    if (failed(in))
      return failure();
    setOutput(node, 0, ConstTensor::fromInts({product(shapeOf(**in))}, {}));
    return success();
  }
  if (op == "ConstantOfShape")
    return importConstantOfShape(node);
  if (op == "Range")
    return importRange(node);
  if (op == "Expand")
    return importExpand(node);
  if (op == "Cast")
    return importCast(node);
  if (op == "Clip")
    return importClip(node);
  if (op == "Trilu")
    return importTrilu(node);
  return nodeError(node) << "unsupported op " << op;
}

#include "ImportONNXQuant.inc"

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

/// Checks that `g` is in SSA form and topological order, as ONNX shape
/// inference and the importer assume (libonnx's inference dereferences null
/// on a node input that nothing defines: found by onnx-import-fuzzer): every
/// non-empty node input is a graph input, an initializer, a value of an
/// enclosing graph (`outer`, for the bodies of If/Loop/Scan) or an output of
/// an earlier node, and no node output redefines a value; and every node has
/// as many inputs and outputs as its ONNX schema allows (the op handlers
/// index them: onnx-import-fuzzer found a Pow without outputs). Reports the
/// first violation at its node.
LogicalResult Importer::checkGraphStructure(const onnx::GraphProto &g,
                                            const llvm::StringSet<> &outer,
                                            bool top) {
  llvm::StringSet<> defined = outer;
  for (const onnx::ValueInfoProto &vi : g.input())
    defined.insert(vi.name());
  for (const TensorProto &t : g.initializer())
    defined.insert(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &node = g.node(i);
    if (top)
      nodeIndex = i;
    // The schema's input/output counts (optional trailing inputs may be
    // absent or empty); the op handlers index inputs and outputs freely.
    mlir::llm::detail::ONNXArity arity;
    if (mlir::llm::detail::getONNXArity(node.op_type(), opset, node.domain(),
                                        arity)) {
      auto inRange = [](int n, int lo, int hi) { return n >= lo && n <= hi; };
      if (!inRange(node.input_size(), arity.minInputs, arity.maxInputs))
        return nodeError(node)
               << "has " << node.input_size() << " inputs; ONNX "
               << node.op_type() << " takes " << arity.minInputs << " to "
               << arity.maxInputs;
      if (!inRange(node.output_size(), arity.minOutputs, arity.maxOutputs))
        return nodeError(node)
               << "has " << node.output_size() << " outputs; ONNX "
               << node.op_type() << " gives " << arity.minOutputs << " to "
               << arity.maxOutputs;
    }
    for (const std::string &in : node.input())
      if (!in.empty() && !defined.contains(in))
        return nodeError(node)
               << "input '" << in << "' is not defined before its use";
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g() && failed(checkGraphStructure(a.g(), defined, false)))
        return failure();
      for (const onnx::GraphProto &sub : a.graphs())
        if (failed(checkGraphStructure(sub, defined, false)))
          return failure();
    }
    for (const std::string &out : node.output())
      if (!out.empty() && !defined.insert(out).second)
        return nodeError(node) << "output '" << out
                               << "' redefines a value (an ONNX value has "
                                  "one definition)";
  }
  if (top)
    nodeIndex = 0;
  return success();
}

OwningOpRef<ModuleOp> Importer::import(onnx::ModelProto &model) {
  ctx->loadDialect<LLMDialect, func::FuncDialect>();
  Location loc = fileLoc();
  const onnx::GraphProto &g = model.graph();

  // Opset of the default domain.
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  if (opset < 11 || opset > 18) {
    emitError(loc) << "unsupported ONNX opset " << opset
                   << " (supported: 11 to 18)";
    return nullptr;
  }

  // One value per name among the graph inputs, initializers and outputs.
  if (failed(llm::detail::checkUniqueNames(g, loc)))
    return nullptr;

  // Initializers are import-time constants. An initializer named like a
  // graph input is that input's default value (IR version < 4): the input
  // is then a constant, not an argument.
  llvm::StringSet<> initNames;
  for (const TensorProto &t : g.initializer()) {
    FailureOr<ConstTensor> c = readTensor(t, loc);
    if (failed(c))
      return nullptr;
    Entry e;
    e.constant = std::move(*c);
    e.blobName = t.name();
    e.isInitializer = true;
    env[t.name()] = std::move(e);
    initNames.insert(t.name());
  }

  // Graph inputs: resolve every dimension, write it back so that shape
  // inference sees static shapes.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  onnx::GraphProto *mg = model.mutable_graph();
  for (onnx::ValueInfoProto &vi : *mg->mutable_input()) {
    if (initNames.contains(vi.name()))
      continue;
    if (!vi.type().has_tensor_type()) {
      emitError(loc) << "graph input '" << vi.name() << "' is not a tensor";
      return nullptr;
    }
    const onnx::TypeProto_Tensor &tt = vi.type().tensor_type();
    Type elemType = toMLIRType(tt.elem_type(), ctx);
    if (!elemType && tt.elem_type() == TensorProto::UINT8) {
      // uint8 bits in i8, for the quantization ops only.
      elemType = IntegerType::get(ctx, 8);
      uint8Inputs.insert(vi.name());
    }
    if (!elemType) {
      emitError(loc) << "graph input '" << vi.name()
                     << "' has unsupported element type "
                     << dtypeName(tt.elem_type());
      return nullptr;
    }
    if (!tt.has_shape()) {
      emitError(loc) << "graph input '" << vi.name() << "' has no shape";
      return nullptr;
    }
    SmallVector<int64_t> shape;
    auto *dims = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < dims->dim_size(); ++i) {
      onnx::TensorShapeProto_Dimension *d = dims->mutable_dim(i);
      std::string key = vi.name() + ":" + std::to_string(i);
      int64_t value = -1;
      if (options.dimValues.count(key))
        value = options.dimValues.lookup(key);
      else if (d->has_dim_param() && options.dimValues.count(d->dim_param()))
        value = options.dimValues.lookup(d->dim_param());
      else if (d->has_dim_value())
        value = d->dim_value();
      if (value < 0) {
        InFlightDiagnostic diag = emitError(loc);
        diag << "graph input '" << vi.name() << "' has dynamic dimension " << i;
        if (d->has_dim_param())
          diag << " ('" << d->dim_param() << "'); set it with --dim "
               << d->dim_param() << "=VALUE";
        else
          diag << "; set it with --dim " << key << "=VALUE";
        return nullptr;
      }
      d->clear_dim_param();
      d->set_dim_value(value);
      shape.push_back(value);
    }
    if (!shapeFits(shape, elementSize(tt.elem_type()))) {
      emitError(loc) << "graph input '" << vi.name() << "' of shape "
                     << shapeStr(shape)
                     << " is too large: its size in bytes overflows int64";
      return nullptr;
    }
    argTypes.push_back(RankedTensorType::get(shape, elemType));
    argNames.push_back(vi.name());
  }

  if (failed(checkGraphStructure(g, llvm::StringSet<>(), /*top=*/true)))
    return nullptr;
  // Attribute types against the op schemas, once for all handlers (which
  // read an attribute of another type as 0); unknown attributes are dropped.
  LogicalResult attrs = llm::detail::checkAttributes(
      *mg, opset,
      [&](const onnx::NodeProto &node, int index, DiagnosticSeverity sev) {
        nodeIndex = index;
        return nodeDiag(node, sev);
      });
  nodeIndex = 0;
  if (failed(attrs))
    return nullptr;
  // Up front, before any node is imported: every op is one the importer
  // handles, and every tensor attribute (Constant values) holds the data its
  // type and shape declare. (Both crashed libonnx's shape inference when it
  // ran before the import, onnx-import-fuzzer: a ConvTranspose of mismatched
  // ranks, a Range reading an int64 value held in int32_data.)
  for (const onnx::NodeProto &node : g.node()) {
    if (failed(checkSupported(node)))
      return nullptr;
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_t() &&
          failed(checkTensorData(a.t(), nodeFileLoc(node), &node, a.name())))
        return nullptr;
      for (const TensorProto &t : a.tensors())
        if (failed(checkTensorData(t, nodeFileLoc(node), &node, a.name())))
          return nullptr;
    }
    ++nodeIndex;
  }
  nodeIndex = 0;
  // Declared static output shapes are checked as well.
  for (const onnx::ValueInfoProto &vi : g.output()) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
      continue;
    SmallVector<int64_t> shape;
    bool isStatic = true;
    for (const auto &d : vi.type().tensor_type().shape().dim()) {
      isStatic &= d.has_dim_value();
      shape.push_back(d.dim_value());
    }
    if (isStatic)
      declaredShapes[vi.name()] = shape;
  }

  for (const onnx::NodeProto &node : g.node())
    for (const std::string &in : node.input())
      used.insert(in);
  for (const onnx::ValueInfoProto &vi : g.output())
    used.insert(vi.name());

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc, options.funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "llm.name", builder.getStringAttr(name));
    body->getArgument(i).setLoc(NameLoc::get(builder.getStringAttr(name), loc));
    env[name] = Entry{body->getArgument(i), std::nullopt, {}, false};
    env[name].unsignedBits = uint8Inputs.contains(name);
  }
  builder.setInsertionPointToEnd(body);

  for (const onnx::NodeProto &node : g.node()) {
    if (failed(importNode(node)))
      return nullptr;
    for (const std::string &out : node.output()) {
      auto it = env.find(out);
      if (out.empty() || it == env.end())
        continue;
      SmallVector<int64_t> ours = shapeOf(it->second);
      if (!shapeFits(ours, elementSize(dtypeOf(it->second)))) {
        nodeError(node) << "output '" << out << "' of shape " << shapeStr(ours)
                        << " is too large: its size in bytes overflows int64";
        return nullptr;
      }
    }
    ++nodeIndex;
  }

  // ONNX shape inference cross-checks the importer's static shapes. It runs
  // on the graph the importer has accepted, never before: libonnx's
  // inference functions trust their inputs (onnx-import-fuzzer: an axis of
  // INT32_MIN SEGVs LayerNormalization's inference; the op handlers check
  // their axes).
  if (options.runShapeInference) {
    std::string error;
    if (!mlir::llm::detail::inferONNXShapes(model, error))
      emitWarning(loc) << "ONNX shape inference failed: " << error;
    auto record = [&](const onnx::ValueInfoProto &vi) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
        return;
      SmallVector<int64_t> shape;
      for (const auto &d : vi.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value())
          return;
        shape.push_back(d.dim_value());
      }
      inferredShapes[vi.name()] = shape;
    };
    for (const onnx::ValueInfoProto &vi : g.value_info())
      record(vi);
  }
  // Our static shapes against the declared and the inferred ones, in node
  // order.
  nodeIndex = 0;
  for (const onnx::NodeProto &node : g.node()) {
    for (const std::string &out : node.output()) {
      auto it = env.find(out);
      if (out.empty() || it == env.end())
        continue;
      auto inf = inferredShapes.find(out);
      SmallVector<int64_t> ours = shapeOf(it->second);
      auto decl = declaredShapes.find(out);
      if (decl != declaredShapes.end() && ours != decl->second) {
        nodeError(node) << "output '" << out << "' has shape " << shapeStr(ours)
                        << " but the model declares " << shapeStr(decl->second);
        return nullptr;
      }
      if (inf != inferredShapes.end() && ours != inf->second) {
        nodeError(node) << "output '" << out << "' has shape " << shapeStr(ours)
                        << " but ONNX shape inference says "
                        << shapeStr(inf->second);
        return nullptr;
      }
    }
    ++nodeIndex;
  }

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  onnx::NodeProto outputNode;
  outputNode.set_name("graph outputs");
  outputNode.set_op_type("Output");
  for (const onnx::ValueInfoProto &vi : g.output()) {
    auto it = env.find(vi.name());
    if (it == env.end()) {
      emitError(loc) << "graph output '" << vi.name() << "' is never defined";
      return nullptr;
    }
    FailureOr<Value> v = materialize(outputNode, it->second);
    if (failed(v))
      return nullptr;
    results.push_back(*v);
    resultTypes.push_back(v->getType());
  }
  func::ReturnOp::create(builder, loc, results);
  func.setType(builder.getFunctionType(argTypes, resultTypes));
  for (auto [i, vi] : llvm::enumerate(g.output()))
    func.setResultAttr(i, "llm.name", builder.getStringAttr(vi.name()));

  // Drop ops whose results nobody uses (e.g. constants only needed to fold).
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(body->getOperations())))
    if (isOpTriviallyDead(&op))
      op.erase();

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

bool mlir::llm::parseDimSpec(StringRef spec, ImportOptions &options,
                             std::string &error) {
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    auto [name, value] = part.split('=');
    int64_t v;
    if (name.trim().empty() || value.trim().getAsInteger(10, v) || v < 0) {
      error = ("invalid dimension setting '" + part +
               "' (expected NAME=VALUE with VALUE >= 0)")
                  .str();
      return false;
    }
    options.dimValues[name.trim()] = v;
  }
  return true;
}

OwningOpRef<ModuleOp> mlir::llm::importONNXModel(llvm::MemoryBufferRef buffer,
                                                 StringRef externalDataDir,
                                                 MLIRContext *ctx,
                                                 const ImportOptions &options) {
  Location loc = FileLineColLoc::get(ctx, buffer.getBufferIdentifier(), 0, 0);
  onnx::ModelProto model;
  if (buffer.getBufferSize() > static_cast<size_t>(INT_MAX)) {
    emitError(loc) << "ONNX model is larger than 2 GiB; store the weights as "
                      "external data";
    return nullptr;
  }
  if (!model.ParseFromArray(buffer.getBufferStart(),
                            static_cast<int>(buffer.getBufferSize()))) {
    emitError(loc) << "cannot parse '" << buffer.getBufferIdentifier()
                   << "' as an ONNX model (truncated or not an ONNX file)";
    return nullptr;
  }
  if (!model.has_graph() || model.opset_import_size() == 0) {
    emitError(loc) << "'" << buffer.getBufferIdentifier()
                   << "' is not an ONNX model (no graph or no opset_import)";
    return nullptr;
  }
  Importer importer(ctx, options, buffer.getBufferIdentifier(),
                    externalDataDir);
  return importer.import(model);
}

OwningOpRef<ModuleOp> mlir::llm::importONNXModel(StringRef path,
                                                 MLIRContext *ctx,
                                                 const ImportOptions &options) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot open '" << path << "': " << buf.getError().message();
    return nullptr;
  }
  return importONNXModel((*buf)->getMemBufferRef(),
                         llvm::sys::path::parent_path(path), ctx, options);
}
