//===- LinalgBuilders.h - llm->linalg builders ------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to the llm-to-linalg lowering: the linalg builders (numpy
// broadcasting maps, elementwise and reduction generics, reshapes, ONNX
// casts) and the pattern base that the files of convert-llm-to-linalg share,
// and the population of the op families that live in files of their own.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LLMTOLINALG_LINALGBUILDERS_H
#define LIB_CONVERSION_LLMTOLINALG_LINALGBUILDERS_H

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Transforms/DialectConversion.h"

#include <string>

namespace mlir::llm::detail {

/// Computes the scalar result of a generic body from its (promoted) inputs.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Whether `t` is f16 or bf16 (the types computed in f32).
bool isLowPrecisionFloat(Type t);

/// Extends an f16/bf16 scalar to f32; other values are returned unchanged.
Value extToF32(OpBuilder &b, Location loc, Value v);

/// Rounds an f32 scalar to `type` when `type` is f16/bf16.
Value truncFromF32(OpBuilder &b, Location loc, Value v, Type type);

/// An f32 `arith.constant` of `value`.
Value f32Const(OpBuilder &b, Location loc, double value);

/// The f32 attribute -inf (the identity of a max reduction).
FloatAttr negInfF32(OpBuilder &b);

/// An `llm.attention`'s scaled f32 score `s` capped by the op's `softcap`
/// `c`: `c * tanh(s / c)`; `s` itself when the op has none. Both attention
/// lowerings apply it before the mask.
Value capAttentionScore(OpBuilder &b, Location loc, Operation *attention,
                        Value s);

/// An `arith.constant` of index `value`.
Value indexConst(OpBuilder &b, Location loc, int64_t value);

/// The product of the static sizes `shape` (1 for rank 0).
int64_t product(ArrayRef<int64_t> shape);

/// Returns `tensor.empty` of `shape` filled with `value` (`linalg.fill`).
/// Its dynamic sizes are the sequence length (createEmptyTensor), or
/// `dynamicSize` for every `?` when given.
Value createFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   TypedAttr value, Value dynamicSize = {});

/// An f32 tensor of `shape` filled with 0 (dynamic sizes as createFilled's).
Value createZerosF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                     Value dynamicSize = {});

/// Numpy-broadcasting map from an iteration space to an operand: the operand's
/// dimensions are aligned with the trailing dimensions of `iterShape` (which
/// spans the first `iterShape.size()` of `numDims` loop dimensions); a size-1
/// operand dimension facing a larger one reads index 0.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> iterShape, unsigned numDims);

/// The dimensions of a rank-`rank` tensor that a reduction over `axes`
/// removes: flag d is set when d or d - rank is in `axes`. The axes must be
/// in [-rank, rank) (the reduction ops' verifiers check it).
SmallVector<bool> reducedDims(ArrayRef<int64_t> axes, int64_t rank);

/// The iterator types of a reduction's loop nest: `reduction` for the
/// flagged dimensions, `parallel` for the others.
SmallVector<utils::IteratorType> reductionIterators(ArrayRef<bool> reduced);

/// Map from a `reduced.size()`-D iteration space to the dimensions that are
/// not reduced.
AffineMap keptDimsMap(MLIRContext *ctx, ArrayRef<bool> reduced);

/// The sizes of `shape` whose dimensions are not flagged in `reduced`.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape, ArrayRef<bool> reduced);

/// The type of `v`, a ranked tensor.
inline RankedTensorType tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// An index `k` (an integer scalar) into a dimension of `size` as the
/// gather and scatter ops read it: a negative one counts from the end
/// (k + size), then it is clamped to [0, size - 1] (the run-time range
/// check reports the out-of-range ones; the clamp keeps the access in
/// bounds meanwhile). Same type as `k`.
Value wrapAndClampIndex(OpBuilder &b, Location l, Value k, int64_t size);

/// A parallel `linalg.generic` producing a tensor of `type` from `inputs`
/// (each read through `maps`); `fn` gets the input scalars (not the
/// output's) and returns the result's. A `?` in `type` is the function's
/// sequence length (createEmptyTensor, DimBounds.h).
Value parallelGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange inputs, ArrayRef<AffineMap> maps, ScalarFn fn);

/// Builds a `linalg.generic` with the given input maps, iterator types and
/// one result of `shape` x `outElemTy` written through `outMap` into `init`
/// (an empty tensor or a filled accumulator). `fn` receives the block
/// arguments (inputs, then the output). With `promote`, f16/bf16 inputs reach
/// `fn` as f32 and an f32 result is rounded to `outElemTy`.
Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type outElemTy, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps,
                   ArrayRef<utils::IteratorType> iterators, AffineMap outMap,
                   Value init, ScalarFn fn, bool promote = true);

/// All-parallel elementwise generic over `shape` whose inputs broadcast to it
/// with numpy rules. `fn` also receives the output's block argument last.
Value buildElementwise(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type outElemTy, ValueRange inputs, ScalarFn fn,
                       bool promote = true);

/// Reduces `input` over the dimensions flagged in `reduced` into an f32
/// tensor of the kept dimensions, starting from `init`. `extras` are tensors
/// of the kept shape read alongside (e.g. the row max for a sum of exps).
/// `fn` gets (x, extras..., acc) with x promoted to f32.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<bool> reduced, ValueRange extras, TypedAttr init,
                     ScalarFn fn);

/// Sums `term(x, extras...)` over the dimensions flagged in `reduced` in an
/// f64 accumulator, divides the sum by `divisor` in f64 (for means) and rounds
/// it to `outElemTy` (via f32). `term` gets x (and the kept-shape `extras`)
/// promoted to f32 and returns an f32 value, which is widened before it is
/// added. Why f64: sequential f32 accumulation stops growing at 2^24
/// (16777216 + 1 == 16777216 in f32), so a sum of 2e7 ones gave 16777216, and
/// its rounding error (up to n * 2^-24 relative) made the mean of a constant
/// row differ from the constant. In f64 the sum of up to 2^29 f32 values of
/// one sign is exact to within f32 resolution, and the mean of a constant row
/// is the constant. Cost: one extf per element and f64 adds (same latency as
/// f32 adds on x86-64 and AArch64 for these scalar reduction loops).
///
/// `runtimeDivisor` (an f64 scalar defined outside the reduction), when
/// given, replaces `divisor`: a mean over the run-time sequence length.
Value buildSumReduction(OpBuilder &b, Location loc, Value input,
                        ArrayRef<bool> reduced, ValueRange extras,
                        Type outElemTy, ScalarFn term, int64_t divisor = 1,
                        Value runtimeDivisor = {});

/// Materializes the numpy broadcast of `v` to `shape`.
Value broadcastTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape);

/// Rounds an f32 tensor to `elemTy` (no-op for f32).
Value convertTensorFromF32(OpBuilder &b, Location loc, Value v, Type elemTy);

/// Reshapes `v` to `type` (same element count): a collapse or expand
/// when the shapes allow one, otherwise a collapse to 1-D then an expand.
/// With a `?` (the sequence, checked by checkDynamicShapes: the static sizes
/// on each side of it keep their products) it goes through
/// [before, ?, after].
Value reshapeTo(OpBuilder &b, Location loc, Value v, RankedTensorType type);

/// Converts scalar `x` to `to` with ONNX `Cast` semantics (see `llm.cast`):
/// float->float rounds to nearest even, float->int truncates and saturates
/// (NaN -> 0), int->float rounds to nearest, ->i1 compares with zero.
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to);

/// True when every tensor operand and result of `op` is statically shaped.
bool hasStaticShapes(Operation *op);

/// Whether the size `d` is static.
bool isStaticDim(int64_t d);

/// Whether every size of `shape` is static.
bool allStatic(ArrayRef<int64_t> shape);

/// `1x?x64` (`?` for the dynamic dimension).
std::string shapeStr(ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Pattern base
//===----------------------------------------------------------------------===//

/// Base of every pattern: refuses dynamic shapes that checkDynamicShapes
/// does not accept, then calls `lower`.
template <typename OpTy>
struct LLMLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkDynamicShapes(op, /*emit=*/false)))
      return rewriter.notifyMatchFailure(
          op, "llm-to-linalg: unsupported dynamic shape");
    return lower(op, adaptor, rewriter);
  }

  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;
};

/// Base of the patterns that take static shapes only (the indexing ops,
/// DynamicQuantizeLinear, the f64 ops): refuses every dynamic shape (the
/// pass reports the op), then calls `lower`.
template <typename OpTy>
struct StaticLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(
          op, "llm-to-linalg requires static shapes");
    return lower(op, adaptor, rewriter);
  }

  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;
};

/// The type of `op`'s first result, a ranked tensor.
inline RankedTensorType resultType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

//===----------------------------------------------------------------------===//
// Op families in files of their own
//===----------------------------------------------------------------------===//

/// Numerically stable softmax of `x` along the dimensions flagged in
/// `reduced`: max-reduce, sum of exp(x - max), then exp(x - max) / sum. Values
/// equal to -inf (excluded positions) get weight 0 and a row whose values are
/// all -inf yields 0, not NaN, when `guardMasked`. The result has
/// element type `outElemTy` (NormalizationToLinalg.cpp).
Value buildSoftmax(OpBuilder &b, Location loc, Value x, ArrayRef<bool> reduced,
                   Type outElemTy, bool guardMasked);

/// The patterns of llm.reduce_sum / reduce_mean / reduce_max, llm.softmax,
/// llm.layer_norm and llm.rms_norm (NormalizationToLinalg.cpp).
void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns);

/// The patterns of llm.rope and of llm.attention with the materialized score
/// matrix (AttentionToLinalg.cpp); with `dynamicOnly`, the attention pattern
/// takes only what the flash lowering refuses (a dynamic sequence).
void populateAttentionToLinalgPatterns(RewritePatternSet &patterns,
                                       bool dynamicOnly);

} // namespace mlir::llm::detail

#endif // LIB_CONVERSION_LLMTOLINALG_LINALGBUILDERS_H
