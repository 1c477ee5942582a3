//===- CacheToLinalg.cpp - llm.kv_cache_update to tensor ------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lowering of the sequence-length ops of
// LLMCacheOps.td: the key/value cache update to a `tensor.insert_slice` at a
// run-time offset, which one-shot bufferization writes in place into the
// cache's buffer, and the sequence prefix of a table and the last position
// of a value to `tensor.extract_slice`s (views).
//
//===----------------------------------------------------------------------===//

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

// llm.kv_cache_update %cache, %update, %pos {axis = a} ->
//   p = clamp(index_cast(tensor.extract %pos[]), 0, M - S)
//   tensor.insert_slice %update into %cache[0, .., p (at a), .., 0]
//                                         [update sizes] [1, .., 1]
// where M = cache.shape[a] and S = dim(%update, a) (run time when dynamic).
struct KVCacheUpdateLowering : OpConversionPattern<KVCacheUpdateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(KVCacheUpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cache = adaptor.getCache(), update = adaptor.getUpdate();
    auto cacheType = cast<RankedTensorType>(cache.getType());
    auto updateType = cast<RankedTensorType>(update.getType());
    if (!cacheType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic cache shape");
    int64_t axis = op.getAxis();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };

    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < updateType.getRank(); ++d) {
      if (updateType.isDynamicDim(d))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, update, d).getResult());
      else
        sizes.push_back(rewriter.getIndexAttr(updateType.getDimSize(d)));
    }
    // The last valid position, M - S.
    int64_t m = cacheType.getDimSize(axis);
    Value last = updateType.isDynamicDim(axis)
                     ? arith::SubIOp::create(rewriter, loc, index(m),
                                             getValueOrCreateConstantIndexOp(
                                                 rewriter, loc, sizes[axis]))
                           .getResult()
                     : index(m - updateType.getDimSize(axis));
    Value raw = tensor::ExtractOp::create(rewriter, loc, adaptor.getPosition(),
                                          ValueRange{});
    // A write that would end past the cache is a run-time error (the status
    // of the index checks: "llm.kv_cache_update at ...: index P+S-1 is out
    // of range [-M, M)"); the position is clamped meanwhile, so nothing is
    // written outside the cache.
    Type it = raw.getType();
    Value rowsInt = arith::IndexCastOp::create(
        rewriter, loc, it,
        getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]));
    Value lastRow = arith::SubIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, raw, rowsInt),
        arith::ConstantOp::create(rewriter, loc,
                                  rewriter.getIntegerAttr(it, 1)));
    emitIndexRangeCheck(
        rewriter, op,
        tensor::FromElementsOp::create(
            rewriter, loc, RankedTensorType::get({}, it), ValueRange{lastRow}),
        m);
    Value pos =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), raw);
    pos = arith::MinSIOp::create(rewriter, loc, pos, last);
    pos = arith::MaxSIOp::create(rewriter, loc, pos, index(0));

    SmallVector<OpFoldResult> offsets(cacheType.getRank(),
                                      rewriter.getIndexAttr(0));
    offsets[axis] = pos;
    SmallVector<OpFoldResult> strides(cacheType.getRank(),
                                      rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, update, cache,
                                                       offsets, sizes, strides);
    return success();
  }
};

// llm.sequence_prefix %t {axes} ->
//   tensor.extract_slice %t[0, ..][S (on axes) or the size, ..][1, ..]
// with S the function's sequence length (the verifier checked S's bound
// against the table).
struct SequencePrefixLowering : OpConversionPattern<SequencePrefixOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SequencePrefixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    Value length = getSequenceLength(rewriter, loc);
    if (!length)
      return rewriter.notifyMatchFailure(op, "no sequence dimension");
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
    for (int64_t a : op.getAxes())
      sizes[a] = length;
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, cast<RankedTensorType>(op.getType()), adaptor.getInput(), offsets,
        sizes, strides);
    return success();
  }
};

// llm.sequence_last %x {axis = a} ->
//   tensor.extract_slice %x[0, .., n - 1 (at a), .., 0][sizes, 1 at a][1, ..]
// with n = dim(%x, a) (run time when dynamic).
struct SequenceLastLowering : OpConversionPattern<SequenceLastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SequenceLastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t axis = op.getAxis();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    OpFoldResult n = sizes[axis];
    if (auto size = getConstantIntValue(n)) {
      offsets[axis] = rewriter.getIndexAttr(*size - 1);
    } else {
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      offsets[axis] =
          arith::SubIOp::create(rewriter, loc, cast<Value>(n), one).getResult();
    }
    sizes[axis] = rewriter.getIndexAttr(1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, cast<RankedTensorType>(op.getType()), input, offsets, sizes,
        strides);
    return success();
  }
};

} // namespace

void mlir::llm::populateSequenceOpsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<KVCacheUpdateLowering, SequencePrefixLowering, SequenceLastLowering>(
          patterns.getContext());
}
