//===- LLMOps.cpp - llm dialect operations --------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifiers and result-type inference of the llm
// dialect's operations. Folders live in LLMFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"
#include "llm/Dialect/LLM/IR/SliceColumns.h"

#include "LLMShapeUtils.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> mlir::llm::broadcastShapes(ArrayRef<int64_t> lhs,
                                                           ArrayRef<int64_t> rhs) {
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(lhs, rhs, result))
    return failure();
  return result;
}

FailureOr<int64_t> mlir::llm::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

std::string mlir::llm::detail::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return s;
}

LogicalResult mlir::llm::detail::inferBroadcastType(
    std::optional<Location> loc, StringRef name, ValueRange operands,
    Type elemTy, SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    auto b = broadcastShapes(shape, t.getShape());
    if (failed(b))
      return emitOptionalError(loc, "'llm.", name, "' operand shapes ",
                               formatShape(shape), " and ",
                               formatShape(t.getShape()), " do not broadcast");
    shape = *b;
  }
  inferred.push_back(RankedTensorType::get(shape, elemTy));
  return success();
}

namespace {
/// Prints a shape as `2x3x?` (`scalar` for rank 0) for diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape) {
  return llm::detail::formatShape(shape);
}

/// Prints a float attribute value the way it was written (`-0.5`, `1e-05`).
std::string floatStr(const APFloat &value) {
  SmallString<16> s;
  value.toString(s);
  return std::string(s);
}

/// The number of elements of a static shape, or nullopt when it overflows
/// int64.
std::optional<int64_t> checkedNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    std::optional<int64_t> next = llvm::checkedMul(n, d);
    if (!next)
      return std::nullopt;
    n = *next;
  }
  return n;
}

/// True when a statically known `from` shape can broadcast to `to`.
bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t off = to.size() - from.size();
  for (auto [i, d] : llvm::enumerate(from)) {
    int64_t t = to[off + i];
    if (d == 1 || ShapedType::isDynamic(d) || ShapedType::isDynamic(t))
      continue;
    if (d != t)
      return false;
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return emitOptionalError(loc, "'llm.constant' needs an elements attribute");
  inferred.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto resource = dyn_cast<DenseResourceElementsAttr>(getValue());
  if (!resource)
    return success();
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return emitOpError("dense_resource '")
           << resource.getRawHandle().getKey()
           << "' has no data (missing from the file's dialect_resources)";
  auto type = cast<RankedTensorType>(resource.getType());
  Type elementType = type.getElementType();
  std::optional<int64_t> count = checkedNumElements(type.getShape());
  if (!count || elementType.isInteger(1))
    return success(); // i1 blobs use a packed or byte layout; not checked.
  int64_t bytes = *count * (elementType.getIntOrFloatBitWidth() / 8);
  if (static_cast<int64_t>(blob->getData().size()) != bytes)
    return emitOpError("dense_resource '")
           << resource.getRawHandle().getKey() << "' holds "
           << blob->getData().size() << " bytes, but " << type << " needs "
           << bytes;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

static LogicalResult inferBinary(std::optional<Location> loc, StringRef name,
                                 Value lhs, Value rhs,
                                 SmallVectorImpl<Type> &inferred) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  if (lt.getElementType() != rt.getElementType())
    return emitOptionalError(loc, "'llm.", name,
                             "' operands have different element types (",
                             lt.getElementType(), " vs ", rt.getElementType(),
                             ")");
  return llm::detail::inferBroadcastType(loc, name, {lhs, rhs},
                                         lt.getElementType(), inferred);
}

#define LLM_BINARY_INFER(OP, NAME)                                             \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                           \
                                     std::optional<Location> loc,             \
                                     Adaptor adaptor,                         \
                                     SmallVectorImpl<Type> &inferred) {       \
    return inferBinary(loc, NAME, adaptor.getLhs(), adaptor.getRhs(),         \
                       inferred);                                             \
  }
LLM_BINARY_INFER(AddOp, "add")
LLM_BINARY_INFER(SubOp, "sub")
LLM_BINARY_INFER(MulOp, "mul")
LLM_BINARY_INFER(DivOp, "div")
LLM_BINARY_INFER(RemOp, "rem")
LLM_BINARY_INFER(PowOp, "pow")
LLM_BINARY_INFER(MaxOp, "max")
LLM_BINARY_INFER(MinOp, "min")
#undef LLM_BINARY_INFER

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lt = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rt = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lt.getRank() < 2 || rt.getRank() < 2)
    return emitOptionalError(loc, "'llm.matmul' operands must have rank >= 2, "
                                  "got ",
                             lt.getRank(), " and ", rt.getRank());
  if (lt.getElementType() != rt.getElementType())
    return emitOptionalError(loc,
                             "'llm.matmul' operands have different element "
                             "types (",
                             lt.getElementType(), " vs ", rt.getElementType(),
                             ")");
  ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
  int64_t lr = ls.size(), rr = rs.size();
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  int64_t m = ta ? ls[lr - 1] : ls[lr - 2];
  int64_t kl = ta ? ls[lr - 2] : ls[lr - 1];
  int64_t kr = tb ? rs[rr - 1] : rs[rr - 2];
  int64_t n = tb ? rs[rr - 2] : rs[rr - 1];
  if (!ShapedType::isDynamic(kl) && !ShapedType::isDynamic(kr) && kl != kr)
    return emitOptionalError(loc, "'llm.matmul' contraction sizes differ: lhs ",
                             shapeStr(ls), " has K = ", kl, ", rhs ",
                             shapeStr(rs), " has K = ", kr);
  auto batch = broadcastShapes(ls.drop_back(2), rs.drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc, "'llm.matmul' batch dimensions of ",
                             shapeStr(ls), " and ", shapeStr(rs),
                             " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  shape.push_back(m);
  shape.push_back(n);
  inferred.push_back(RankedTensorType::get(shape, lt.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalizations and softmax
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (failed(normalizeAxis(getAxis(), rank)))
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << rank << " (expected [" << -rank << ", "
                                << rank << "))";
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto type = getInput().getType();
  int64_t rank = type.getRank();
  auto axis = normalizeAxis(getAxis(), rank);
  if (failed(axis))
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << rank << " (expected [" << -rank << ", "
                                << rank << "))";
  if (!(getEpsilon().convertToFloat() >= 0)) // also rejects NaN
    return emitOpError("epsilon must be a number >= 0, got ") << floatStr(getEpsilon());
  ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
  for (auto [name, v] : {std::pair<StringRef, Value>{"scale", getScale()},
                         std::pair<StringRef, Value>{"bias", getBias()}}) {
    if (!v)
      continue;
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != type.getElementType())
      return emitOpError() << name << " element type " << t.getElementType()
                           << " differs from the input's "
                           << type.getElementType();
    if (!broadcastsTo(t.getShape(), normalized))
      return emitOpError() << name << " shape " << shapeStr(t.getShape())
                           << " does not broadcast to the normalized shape "
                           << shapeStr(normalized);
  }
  return success();
}

LogicalResult RmsNormOp::verify() {
  auto type = getInput().getType();
  if (type.getRank() == 0)
    return emitOpError("input must have rank >= 1");
  if (!(getEpsilon().convertToFloat() >= 0)) // also rejects NaN
    return emitOpError("epsilon must be a number >= 0, got ") << floatStr(getEpsilon());
  if (Value w = getWeight()) {
    auto t = cast<RankedTensorType>(w.getType());
    if (t.getElementType() != type.getElementType())
      return emitOpError() << "weight element type " << t.getElementType()
                           << " differs from the input's "
                           << type.getElementType();
    int64_t d = type.getShape().back();
    if (t.getRank() != 1 ||
        (!ShapedType::isDynamic(d) && !ShapedType::isDynamic(t.getDimSize(0)) &&
         t.getDimSize(0) != d))
      return emitOpError() << "weight must have shape " << shapeStr({d})
                           << " (the last input dimension), got "
                           << shapeStr(t.getShape());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::verify() {
  auto type = getInput().getType();
  if (type.getRank() < 1)
    return emitOpError("input must have rank >= 1");
  int64_t d = type.getShape().back();
  if (!ShapedType::isDynamic(d) && d % 2 != 0)
    return emitOpError("last dimension (head size) must be even, got ") << d;
  auto pos = getPositions().getType();
  ArrayRef<int64_t> rows = type.getShape().drop_back();
  if (!broadcastsTo(pos.getShape(), rows))
    return emitOpError() << "positions shape " << shapeStr(pos.getShape())
                         << " does not broadcast to the input's leading shape "
                         << shapeStr(rows);
  if (!(getTheta().convertToFloat() > 0)) // also rejects NaN
    return emitOpError("theta must be a number > 0, got ") << floatStr(getTheta());
  if (std::optional<int64_t> r = getRotaryDims()) {
    if (*r < 2 || *r % 2 != 0)
      return emitOpError("rotary_dims must be even and >= 2, got ") << *r;
    if (ShapedType::isDynamic(d))
      return emitOpError("rotary_dims needs a static last dimension");
    if (*r > d)
      return emitOpError("rotary_dims ")
             << *r << " exceeds the last dimension (head size) " << d;
  }
  return success();
}

int64_t RopeOp::getRotatedDims() {
  if (std::optional<int64_t> r = getRotaryDims())
    return *r;
  return getInput().getType().getShape().back();
}

bool RopeOp::isPartial() {
  std::optional<int64_t> r = getRotaryDims();
  return r && *r != getInput().getType().getShape().back();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto q = cast<RankedTensorType>(adaptor.getQuery().getType());
  auto v = cast<RankedTensorType>(adaptor.getValue().getType());
  if (q.getRank() != 4 || v.getRank() != 4)
    return emitOptionalError(loc, "'llm.attention' query and value must have "
                                  "rank 4");
  // [B, Hq, Sq, Dv] in layout bhsd, [B, Sq, Hq, Dv] in layout bshd.
  inferred.push_back(RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), v.getDimSize(3)},
      q.getElementType()));
  return success();
}

LogicalResult AttentionOp::verify() {
  auto qType = getQuery().getType(), kType = getKey().getType(),
       vType = getValue().getType();
  bool bshd = getLayout() == AttentionLayout::BSHD;
  if (qType.getRank() != 4 || kType.getRank() != 4 || vType.getRank() != 4)
    return emitOpError("query, key and value must have rank 4 (")
           << (bshd ? "[B, S, H, D]" : "[B, H, S, D]") << "), got ranks "
           << qType.getRank() << ", " << kType.getRank() << ", "
           << vType.getRank();
  if (qType.getElementType() != kType.getElementType() ||
      qType.getElementType() != vType.getElementType())
    return emitOpError("query, key and value must have one element type");
  // The checks below read shapes in the [B, H, S, D] order.
  struct BHSDView {
    SmallVector<int64_t, 4> shape;
    Type elementType;
    int64_t getDimSize(unsigned i) const { return shape[i]; }
    ArrayRef<int64_t> getShape() const { return shape; }
    Type getElementType() const { return elementType; }
  };
  auto view = [&](RankedTensorType t) {
    BHSDView r{SmallVector<int64_t, 4>(t.getShape()), t.getElementType()};
    if (bshd)
      std::swap(r.shape[1], r.shape[2]);
    return r;
  };
  BHSDView q = view(qType), k = view(kType), v = view(vType);
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (mismatch(q.getDimSize(0), k.getDimSize(0)) ||
      mismatch(q.getDimSize(0), v.getDimSize(0)))
    return emitOpError("batch sizes differ: query ")
           << shapeStr(q.getShape()) << ", key " << shapeStr(k.getShape())
           << ", value " << shapeStr(v.getShape());
  if (mismatch(q.getDimSize(3), k.getDimSize(3)))
    return emitOpError("query and key head sizes differ: ")
           << q.getDimSize(3) << " vs " << k.getDimSize(3);
  if (mismatch(k.getDimSize(1), v.getDimSize(1)))
    return emitOpError("key and value head counts differ: ")
           << k.getDimSize(1) << " vs " << v.getDimSize(1);
  if (mismatch(k.getDimSize(2), v.getDimSize(2)))
    return emitOpError("key and value sequence lengths differ: ")
           << k.getDimSize(2) << " vs " << v.getDimSize(2);
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
      (hkv == 0 || hq % hkv != 0))
    return emitOpError("query heads (")
           << hq << ") must be a multiple of key/value heads (" << hkv << ")";
  if (Value m = getMask()) {
    auto mt = cast<RankedTensorType>(m.getType());
    if (!mt.getElementType().isInteger(1) &&
        mt.getElementType() != q.getElementType())
      return emitOpError("a floating-point mask must have the query's element "
                         "type ")
             << q.getElementType() << ", got " << mt.getElementType();
    SmallVector<int64_t> scores = {q.getDimSize(0), hq, q.getDimSize(2),
                                   k.getDimSize(2)};
    if (!broadcastsTo(mt.getShape(), scores))
      return emitOpError("mask shape ")
             << shapeStr(mt.getShape())
             << " does not broadcast to the score shape " << shapeStr(scores);
  }
  if (Value len = getKvLength()) {
    auto lt = cast<RankedTensorType>(len.getType());
    if (lt.getRank() != 0)
      return emitOpError("kv_length must be a 0-d tensor (tensor<i64> or "
                         "tensor<i32>), got ")
             << lt;
  }
  if (auto s = getScaleAttr(); s && !std::isfinite(s.getValueAsDouble()))
    return emitOpError("scale must be finite");
  if (FloatAttr e = getExcludedScoreAttr()) {
    if (!std::isfinite(e.getValueAsDouble()))
      return emitOpError("excluded_score must be finite (without it, the "
                         "excluded positions are dropped)");
    Value m = getMask();
    if (!m ||
        !cast<RankedTensorType>(m.getType()).getElementType().isInteger(1))
      return emitOpError("excluded_score needs an i1 mask (the score of the "
                         "positions it excludes)");
  }
  if (FloatAttr c = getSoftcapAttr()) {
    double cap = c.getValueAsDouble();
    if (!std::isfinite(cap) || cap <= 0)
      return emitOpError("softcap must be finite and positive (the scores "
                         "are capped to (-softcap, softcap)), got ")
             << cap;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto table = cast<RankedTensorType>(adaptor.getTable().getType());
  auto ids = cast<RankedTensorType>(adaptor.getIds().getType());
  if (table.getRank() != 2)
    return emitOptionalError(loc, "'llm.embedding' table must have rank 2 "
                                  "([V, D]), got rank ",
                             table.getRank());
  if (table.getDimSize(0) == 0)
    return emitOptionalError(loc, "'llm.embedding' table has no rows (V = 0): "
                                  "no id can be looked up");
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = type.getRank();
  llvm::SmallBitVector seen(rank);
  bool ok = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!ok || p < 0 || p >= rank || seen.test(p)) {
      ok = false;
      break;
    }
    seen.set(p);
  }
  if (!ok) {
    std::string s;
    llvm::raw_string_ostream os(s);
    llvm::interleaveComma(perm, os);
    return emitOptionalError(loc, "'llm.transpose' permutation [", s,
                             "] is not a permutation of [0, ", rank, ")");
  }
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (!in.hasStaticShape() || !out.hasStaticShape()) {
    // A dynamic (sequence) dimension is carried through unchanged: one `?`
    // on each side, the static sizes around it with equal products.
    auto numDynamic = [](ArrayRef<int64_t> shape) {
      return llvm::count_if(shape, ShapedType::isDynamic);
    };
    auto staticCount = [](ArrayRef<int64_t> shape) {
      int64_t n = 1;
      for (int64_t d : shape)
        if (!ShapedType::isDynamic(d) && llvm::MulOverflow(n, d, n))
          return int64_t(-1);
      return n;
    };
    if (numDynamic(in.getShape()) != 1 || numDynamic(out.getShape()) != 1 ||
        staticCount(in.getShape()) != staticCount(out.getShape()))
      return emitOpError("with a dynamic dimension, both shapes need exactly "
                         "one '?' and equal products of their static sizes, "
                         "got ")
             << shapeStr(in.getShape()) << " -> " << shapeStr(out.getShape());
    return success();
  }
  std::optional<int64_t> inCount = checkedNumElements(in.getShape());
  std::optional<int64_t> outCount = checkedNumElements(out.getShape());
  if (!inCount || !outCount)
    return emitOpError("element count of ")
           << shapeStr(inCount ? out.getShape() : in.getShape())
           << " overflows int64";
  if (*inCount != *outCount)
    return emitOpError("element counts differ: ")
           << shapeStr(in.getShape()) << " has " << *inCount << ", "
           << shapeStr(out.getShape()) << " has " << *outCount;
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "'llm.concat' needs at least one input");
  auto first = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = first.getRank();
  auto axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return emitOptionalError(loc, "'llm.concat' axis ", adaptor.getAxis(),
                             " is out of range for rank ", rank);
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, v] : llvm::enumerate(inputs.drop_front())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != first.getElementType() || t.getRank() != rank)
      return emitOptionalError(loc, "'llm.concat' input ", i + 1, " (",
                               t, ") differs in rank or element type from "
                               "input 0 (",
                               first, ")");
    for (int64_t d = 0; d < rank; ++d) {
      int64_t a = shape[d], b = t.getDimSize(d);
      if (d == *axis) {
        if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b)) {
          shape[d] = ShapedType::kDynamic;
        } else if (std::optional<int64_t> sum = llvm::checkedAdd(a, b)) {
          shape[d] = *sum;
        } else {
          return emitOptionalError(loc, "'llm.concat' size along axis ", *axis,
                                   " overflows int64");
        }
        continue;
      }
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOptionalError(loc, "'llm.concat' input ", i + 1,
                                 " has size ", b, " in dimension ", d,
                                 ", input 0 has ", a);
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

std::optional<std::pair<int64_t, int64_t>>
mlir::llm::getSlicedColumns(SliceOp slice) {
  auto type = cast<RankedTensorType>(slice.getInput().getType());
  int64_t rank = type.getRank();
  if (rank < 1 || type.isDynamicDim(rank - 1))
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d) {
    if (slice.getStrides()[d] != 1)
      return std::nullopt;
    if (d + 1 < rank &&
        (slice.getStarts()[d] != 0 ||
         (!type.isDynamicDim(d) && slice.getLimits()[d] != type.getDimSize(d))))
      return std::nullopt;
  }
  return std::make_pair(slice.getStarts()[rank - 1],
                        slice.getLimits()[rank - 1]);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), limits = adaptor.getLimits(),
                    strides = adaptor.getStrides();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(limits.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitOptionalError(loc, "'llm.slice' needs one start, limit and "
                                  "stride per dimension (rank ",
                             rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    if (strides[d] < 1)
      return emitOptionalError(loc, "'llm.slice' stride ", strides[d],
                               " in dimension ", d, " must be >= 1");
    if (starts[d] < 0 || starts[d] > limits[d] ||
        (!ShapedType::isDynamic(size) && limits[d] > size))
      return emitOptionalError(loc, "'llm.slice' range [", starts[d], ", ",
                               limits[d], ") in dimension ", d,
                               " is not within [0, ", size, "]");
    // A dynamic (sequence) dimension stays dynamic; its limit is not known
    // here (convert-llm-to-linalg takes it whole: start 0, stride 1).
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // ceil((limit - start) / stride), written so that it cannot overflow.
    int64_t extent = limits[d] - starts[d];
    shape.push_back(extent == 0 ? 0 : (extent - 1) / strides[d] + 1);
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (!broadcastsTo(in.getShape(), out.getShape()))
    return emitOpError("input shape ")
           << shapeStr(in.getShape()) << " does not broadcast to "
           << shapeStr(out.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> loc, StringRef name,
                                 Value input, ArrayRef<int64_t> axes,
                                 bool keepdims,
                                 SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, rank);
    if (failed(axis))
      return emitOptionalError(loc, "'llm.", name, "' axis ", a,
                               " is out of range for rank ", rank);
    if (reduced.test(*axis))
      return emitOptionalError(loc, "'llm.", name, "' axis ", a,
                               " is repeated");
    reduced.set(*axis);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced.test(d))
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  // A per-axis quantized element type (llm.reduce_max) is renumbered.
  SmallVector<bool> flags(rank);
  for (int64_t d = 0; d < rank; ++d)
    flags[d] = reduced.test(d);
  auto emit = [&]() -> InFlightDiagnostic {
    return mlir::emitError(*loc) << "'llm." << name << "' op ";
  };
  FailureOr<Type> et = reducedElementType(
      type.getElementType(), flags, keepdims,
      loc ? function_ref<InFlightDiagnostic()>(emit) : nullptr);
  if (failed(et))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, *et));
  return success();
}

#define LLM_REDUCE_INFER(OP, NAME)                                             \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                           \
                                     std::optional<Location> loc,             \
                                     Adaptor adaptor,                         \
                                     SmallVectorImpl<Type> &inferred) {       \
    return inferReduce(loc, NAME, adaptor.getInput(), adaptor.getAxes(),      \
                       adaptor.getKeepdims(), inferred);                      \
  }
LLM_REDUCE_INFER(ReduceSumOp, "reduce_sum")
LLM_REDUCE_INFER(ReduceMeanOp, "reduce_mean")
LLM_REDUCE_INFER(ReduceMaxOp, "reduce_max")
LLM_REDUCE_INFER(ReduceMinOp, "reduce_min")
LLM_REDUCE_INFER(ReduceProdOp, "reduce_prod")
#undef LLM_REDUCE_INFER

#define GET_OP_CLASSES
#include "llm/Dialect/LLM/IR/LLMOps.cpp.inc"
