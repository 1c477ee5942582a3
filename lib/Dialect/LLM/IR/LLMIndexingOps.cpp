//===- LLMIndexingOps.cpp - llm gather_nd, scatters, topk -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifiers of the ops of LLMIndexingOps.td:
// `llm.gather_nd`, `llm.scatter_nd`, `llm.scatter_elements` and `llm.topk`
// (`llm.dynamic_quantize` is checked by its types alone).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::llm;

/// `[a, b, c]` for a diagnostic (`?` for a dynamic size).
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

/// Static sizes that differ (a dynamic one matches anything).
static bool sizesDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

static bool shapesDiffer(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return true;
  for (auto [x, y] : llvm::zip(a, b))
    if (sizesDiffer(x, y))
      return true;
  return false;
}

/// A reduction other than `none` needs arithmetic (not i1).
static LogicalResult verifyReduction(Operation *op, ScatterReduction r,
                                     Type elementType) {
  if (r != ScatterReduction::None && elementType.isInteger(1))
    return op->emitOpError("reduction '")
           << stringifyScatterReduction(r) << "' is not defined on i1";
  return success();
}

/// Every dimension of `input` that an index tuple of `m` components selects
/// (`[first, first + m)`) must have elements.
static LogicalResult verifyIndexedDims(Operation *op, RankedTensorType input,
                                       int64_t first, int64_t m) {
  for (int64_t d = first; d < first + m; ++d)
    if (input.getDimSize(d) == 0)
      return op->emitOpError("indexed dimension ")
             << d << " is empty: no index can be looked up";
  return success();
}

//===----------------------------------------------------------------------===//
// GatherNDOp
//===----------------------------------------------------------------------===//

LogicalResult GatherNDOp::verify() {
  auto input = getInput().getType();
  auto indices = getIndices().getType();
  int64_t r = input.getRank(), q = indices.getRank();
  int64_t b = static_cast<int64_t>(getBatchDims());
  if (r == 0 || q == 0)
    return emitOpError("input and indices must have rank >= 1 (got ")
           << r << " and " << q << ")";
  if (b < 0 || b >= std::min(r, q))
    return emitOpError("batch_dims ")
           << b << " must lie in [0, " << std::min(r, q)
           << ") (less than both ranks)";
  for (int64_t d = 0; d < b; ++d)
    if (sizesDiffer(input.getDimSize(d), indices.getDimSize(d)))
      return emitOpError("batch dimension ")
             << d << " differs: " << input.getDimSize(d) << " in the input, "
             << indices.getDimSize(d) << " in the indices";
  int64_t m = indices.getShape().back();
  if (ShapedType::isDynamic(m) || m < 1 || m > r - b)
    return emitOpError("index tuples of ")
           << (ShapedType::isDynamic(m) ? std::string("?") : std::to_string(m))
           << " components for an input of rank " << r << " with " << b
           << " batch dimensions (expected 1 to " << r - b << ")";
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, input.getShape().drop_front(b + m));
  if (shapesDiffer(getResult().getType().getShape(), expected))
    return emitOpError("result shape ")
           << shapeString(getResult().getType().getShape())
           << " differs from indices.shape[:-1] + input.shape[batch_dims + "
              "m:] = "
           << shapeString(expected);
  return verifyIndexedDims(*this, input, b, m);
}

//===----------------------------------------------------------------------===//
// ScatterNDOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::verify() {
  auto input = getInput().getType();
  auto indices = getIndices().getType();
  int64_t r = input.getRank(), q = indices.getRank();
  if (r == 0 || q == 0)
    return emitOpError("input and indices must have rank >= 1 (got ")
           << r << " and " << q << ")";
  int64_t m = indices.getShape().back();
  if (ShapedType::isDynamic(m) || m < 1 || m > r)
    return emitOpError("index tuples of ")
           << (ShapedType::isDynamic(m) ? std::string("?") : std::to_string(m))
           << " components for an input of rank " << r << " (expected 1 to "
           << r << ")";
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, input.getShape().drop_front(m));
  if (shapesDiffer(getUpdates().getType().getShape(), expected))
    return emitOpError("updates of shape ")
           << shapeString(getUpdates().getType().getShape())
           << "; expected indices.shape[:-1] + input.shape[m:] = "
           << shapeString(expected);
  if (failed(verifyReduction(*this, getReduction(), input.getElementType())))
    return failure();
  return verifyIndexedDims(*this, input, 0, m);
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  auto input = getInput().getType();
  auto indices = getIndices().getType();
  auto updates = getUpdates().getType();
  int64_t r = input.getRank();
  if (r == 0)
    return emitOpError("input must have rank >= 1");
  if (indices.getRank() != r)
    return emitOpError("indices of rank ")
           << indices.getRank() << " for an input of rank " << r
           << " (the ranks must be equal)";
  if (shapesDiffer(indices.getShape(), updates.getShape()))
    return emitOpError("indices of shape ")
           << shapeString(indices.getShape()) << " and updates of shape "
           << shapeString(updates.getShape()) << " differ";
  FailureOr<int64_t> axis = normalizeAxis(getAxis(), r);
  if (failed(axis))
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << r << " (expected ["
           << -r << ", " << r << "))";
  for (int64_t d = 0; d < r; ++d)
    if (d != *axis && !ShapedType::isDynamic(updates.getDimSize(d)) &&
        !ShapedType::isDynamic(input.getDimSize(d)) &&
        updates.getDimSize(d) > input.getDimSize(d))
      return emitOpError("updates dimension ")
             << d << " (" << updates.getDimSize(d)
             << ") is larger than the input's (" << input.getDimSize(d) << ")";
  if (failed(verifyReduction(*this, getReduction(), input.getElementType())))
    return failure();
  return verifyIndexedDims(*this, input, *axis, 1);
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::verify() {
  auto input = getInput().getType();
  int64_t r = input.getRank();
  if (r == 0)
    return emitOpError("input must have rank >= 1");
  FailureOr<int64_t> axis = normalizeAxis(getAxis(), r);
  if (failed(axis))
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << r << " (expected ["
           << -r << ", " << r << "))";
  int64_t k = static_cast<int64_t>(getK());
  int64_t n = input.getDimSize(*axis);
  if (k < 0 || (!ShapedType::isDynamic(n) && k > n))
    return emitOpError("k = ")
           << k << " is out of range for dimension " << *axis << " of size "
           << n << " (expected 0 <= k <= size)";
  SmallVector<int64_t> expected(input.getShape());
  expected[*axis] = k;
  if (getValues().getType().getElementType() != input.getElementType())
    return emitOpError("values of element type ")
           << getValues().getType().getElementType()
           << " for an input of element type " << input.getElementType();
  for (Value v : {getValues(), getIndices()})
    if (shapesDiffer(cast<RankedTensorType>(v.getType()).getShape(), expected))
      return emitOpError("result shape ")
             << shapeString(cast<RankedTensorType>(v.getType()).getShape())
             << " differs from the input's with k at axis "
             << shapeString(expected);
  return success();
}
