//===- LLMCacheOps.cpp - llm key/value cache ops --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifiers of `llm.kv_cache_update` and
// `llm.sequence_prefix`, and the type inference, folder and
// canonicalization of `llm.sequence_last` (LLMCacheOps.td).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::llm;

LogicalResult KVCacheUpdateOp::verify() {
  auto cache = cast<RankedTensorType>(getCache().getType());
  auto update = cast<RankedTensorType>(getUpdate().getType());
  int64_t rank = cache.getRank();
  if (update.getRank() != rank)
    return emitOpError("update has rank ")
           << update.getRank() << " but the cache has rank " << rank;
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range [0, " << rank
                                << ") for a cache of rank " << rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t c = cache.getDimSize(d), u = update.getDimSize(d);
    if (ShapedType::isDynamic(c))
      return emitOpError("cache dimension ")
             << d << " is dynamic: the cache is preallocated with a static "
             << "shape (its sequence dimension is the largest length)";
    if (ShapedType::isDynamic(u))
      continue;
    if (d == axis && u > c)
      return emitOpError("update has ") << u << " rows along axis " << axis
                                        << " but the cache holds only " << c;
    if (d != axis && u != c)
      return emitOpError("update dimension ")
             << d << " is " << u << " but the cache's is " << c
             << " (only the axis " << axis << " sizes may differ)";
  }
  // A dynamic number of new rows is the function's sequence length: its
  // declared bound must fit in the cache.
  if (update.isDynamicDim(axis)) {
    if (auto func = (*this)->getParentOfType<FunctionOpInterface>()) {
      FailureOr<std::optional<SequenceDim>> seq =
          getSequenceDim(func, /*emitErrors=*/false);
      if (succeeded(seq) && *seq && (*seq)->bound > cache.getDimSize(axis))
        return emitOpError("the cache holds ")
               << cache.getDimSize(axis) << " rows along axis " << axis
               << " but the sequence bound (llm.dim_bounds) is "
               << (*seq)->bound
               << ": a prompt of that length would not fit; give the cache "
                  "at least the bound's rows";
    }
  }
  return success();
}

LogicalResult SequencePrefixOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t rank = in.getRank();
  if (!in.hasStaticShape())
    return emitOpError("input must have a static shape, got ") << in;
  if (out.getRank() != rank)
    return emitOpError("result has rank ")
           << out.getRank() << " but the input has rank " << rank;
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError("needs at least one axis");
  SmallVector<bool> onAxis(rank, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= rank)
      return emitOpError("axis ")
             << a << " is out of range [0, " << rank << ")";
    if (onAxis[a])
      return emitOpError("axis ") << a << " is repeated";
    onAxis[a] = true;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (onAxis[d] != out.isDynamicDim(d) ||
        (!onAxis[d] && out.getDimSize(d) != in.getDimSize(d)))
      return emitOpError("result type ")
             << out << " must be the input's shape " << in
             << " with '?' exactly on the axes";
  }
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (!func)
    return success();
  FailureOr<std::optional<SequenceDim>> seq =
      getSequenceDim(func, /*emitErrors=*/false);
  if (failed(seq) || !*seq)
    return emitOpError("needs a function with a dynamic sequence dimension "
                       "(llm.dim_bounds): the prefix length is that "
                       "dimension");
  for (int64_t a : axes)
    if ((*seq)->bound > in.getDimSize(a))
      return emitOpError("the sequence bound (llm.dim_bounds) is ")
             << (*seq)->bound << " but the input has only " << in.getDimSize(a)
             << " entries along axis " << a;
  return success();
}

LogicalResult
SequenceLastOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  int64_t rank = type.getRank();
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "'llm.sequence_last' axis ", axis,
                             " is out of range [0, ", rank, ")");
  if (type.getDimSize(axis) == 0)
    return emitOptionalError(loc, "'llm.sequence_last' axis ", axis,
                             " has size 0: there is no last entry");
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = 1;
  inferred.push_back(type.clone(shape));
  return success();
}

// sequence_last(x) -> x when x has one entry along the axis.
OpFoldResult SequenceLastOp::fold(FoldAdaptor) {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.getDimSize(getAxis()) == 1 && type == getType())
    return getInput();
  return {};
}

namespace {
// sequence_last(x) -> slice(x, [n - 1, n)) on the axis, n static.
struct StaticSequenceLastToSlice : OpRewritePattern<SequenceLastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SequenceLastOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    int64_t n = type.getDimSize(axis);
    if (ShapedType::isDynamic(n) || n <= 1)
      return failure();
    int64_t rank = type.getRank();
    SmallVector<int64_t> starts(rank, 0), limits(type.getShape()),
        strides(rank, 1);
    starts[axis] = n - 1;
    // A slice keeps the other (dynamic) dimensions whole; their limit is
    // not read (llm.slice).
    for (int64_t d = 0; d < rank; ++d)
      if (ShapedType::isDynamic(limits[d]))
        limits[d] = 1;
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getInput(), starts, limits,
                                         strides);
    return success();
  }
};
} // namespace

void SequenceLastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *ctx) {
  results.add<StaticSequenceLastToSlice>(ctx);
}
