//===- LLMDataOps.cpp - llm ops on runtime data ---------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifiers, result-type inference and folders of
// the ops that compute on runtime data beyond arithmetic: `llm.compare`, the
// logical ops, `llm.select`, `llm.gather`, `llm.reverse`, `llm.log_softmax`,
// `llm.argmax`/`llm.argmin` and the `reduce_min`/`reduce_prod` reductions.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "LLMShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::llm;

using llm::detail::inferBroadcastType;

//===----------------------------------------------------------------------===//
// CompareOp and logical ops
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Type lt = getElementTypeOrSelf(adaptor.getLhs().getType());
  Type rt = getElementTypeOrSelf(adaptor.getRhs().getType());
  if (lt != rt)
    return emitOptionalError(loc, "'llm.compare' operands have different "
                                  "element types (",
                             lt, " vs ", rt, ")");
  return inferBroadcastType(loc, "compare",
                            {adaptor.getLhs(), adaptor.getRhs()},
                            IntegerType::get(ctx, 1), inferred);
}

#define LLM_LOGICAL_INFER(OP, NAME)                                            \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,          \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBroadcastType(loc, NAME, {adaptor.getLhs(), adaptor.getRhs()}, \
                              IntegerType::get(ctx, 1), inferred);             \
  }
LLM_LOGICAL_INFER(LogicalAndOp, "logical_and")
LLM_LOGICAL_INFER(LogicalOrOp, "logical_or")
LLM_LOGICAL_INFER(LogicalXorOp, "logical_xor")
#undef LLM_LOGICAL_INFER

// logical_not(logical_not(x)) -> x
OpFoldResult LogicalNotOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<LogicalNotOp>())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Type tt = getElementTypeOrSelf(adaptor.getTrueValue().getType());
  Type ft = getElementTypeOrSelf(adaptor.getFalseValue().getType());
  if (tt != ft)
    return emitOptionalError(loc, "'llm.select' values have different element "
                                  "types (",
                             tt, " vs ", ft, ")");
  return inferBroadcastType(
      loc, "select",
      {adaptor.getCondition(), adaptor.getTrueValue(), adaptor.getFalseValue()},
      tt, inferred);
}

// select(splat true, x, y) -> x; select(splat false, x, y) -> y;
// select(c, x, x) -> x   (only when the chosen operand has the result type)
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto same = [&](Value v) -> OpFoldResult {
    if (v.getType() == getType())
      return v;
    return {};
  };
  if (getTrueValue() == getFalseValue())
    return same(getTrueValue());
  if (auto cond = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition()))
    return same(cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue());
  return {};
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return emitOptionalError(loc, "'llm.gather' input must have rank >= 1");
  FailureOr<int64_t> axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return emitOptionalError(loc, "'llm.gather' axis ", adaptor.getAxis(),
                             " is out of range for rank ", rank,
                             " (expected [", -rank, ", ", rank, "))");
  if (type.getDimSize(*axis) == 0)
    return emitOptionalError(loc, "'llm.gather' gathered dimension ", *axis,
                             " is empty: no index can be looked up");
  SmallVector<int64_t> shape(type.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, type.getShape().drop_front(*axis + 1));
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return emitOptionalError(loc,
                             "'llm.gather_elements' input must have rank >= 1");
  if (indices.getRank() != rank)
    return emitOptionalError(loc, "'llm.gather_elements' indices of rank ",
                             indices.getRank(), " for an input of rank ", rank,
                             " (the ranks must be equal)");
  FailureOr<int64_t> axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return emitOptionalError(loc, "'llm.gather_elements' axis ",
                             adaptor.getAxis(), " is out of range for rank ",
                             rank, " (expected [", -rank, ", ", rank, "))");
  if (type.getDimSize(*axis) == 0)
    return emitOptionalError(loc, "'llm.gather_elements' gathered dimension ",
                             *axis, " is empty: no index can be looked up");
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && indices.getDimSize(d) > type.getDimSize(d))
      return emitOptionalError(
          loc, "'llm.gather_elements' indices dimension ", d, " (",
          indices.getDimSize(d), ") is larger than the input's (",
          type.getDimSize(d), ")");
  inferred.push_back(
      RankedTensorType::get(indices.getShape(), type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseOp
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::verify() {
  int64_t rank = getInput().getType().getRank();
  llvm::SmallBitVector seen(rank);
  for (int64_t d : getDimensions()) {
    if (d < 0 || d >= rank)
      return emitOpError("dimension ")
             << d << " is out of range for rank " << rank << " (expected [0, "
             << rank << "))";
    if (seen.test(d))
      return emitOpError("dimension ") << d << " is repeated";
    seen.set(d);
  }
  return success();
}

// reverse(x, dims) -> x   when every reversed dimension has size 1 (or none)
OpFoldResult ReverseOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (llvm::all_of(getDimensions(), [&](int64_t d) { return shape[d] == 1; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// LogSoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult LogSoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (failed(normalizeAxis(getAxis(), rank)))
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << rank << " (expected [" << -rank << ", "
                                << rank << "))";
  return success();
}

//===----------------------------------------------------------------------===//
// ArgMaxOp / ArgMinOp
//===----------------------------------------------------------------------===//

static LogicalResult inferArgReduce(MLIRContext *ctx,
                                    std::optional<Location> loc,
                                    StringRef name, Value input, int64_t axis,
                                    bool keepdims,
                                    SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return emitOptionalError(loc, "'llm.", name, "' input must have rank >= 1");
  FailureOr<int64_t> a = normalizeAxis(axis, rank);
  if (failed(a))
    return emitOptionalError(loc, "'llm.", name, "' axis ", axis,
                             " is out of range for rank ", rank,
                             " (expected [", -rank, ", ", rank, "))");
  if (type.getDimSize(*a) == 0)
    return emitOptionalError(loc, "'llm.", name, "' reduced dimension ", *a,
                             " is empty");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != *a)
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(ctx, loc, "argmax", adaptor.getInput(),
                        adaptor.getAxis(), adaptor.getKeepdims(), inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(ctx, loc, "argmin", adaptor.getInput(),
                        adaptor.getAxis(), adaptor.getKeepdims(), inferred);
}
