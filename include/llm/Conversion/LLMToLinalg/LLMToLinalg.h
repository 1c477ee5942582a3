//===- LLMToLinalg.h - llm to linalg conversion -----------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
#define LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>

namespace mlir {
class OpBuilder;
class Operation;
class Value;
class RewritePatternSet;
class TypeConverter;
namespace llm {

/// Choices of the llm -> linalg lowering. The target's choices are read from
/// each op's `llm.lowering_config` (llm/Dialect/LLM/IR/LoweringConfig.h);
/// the sizes here are the target-neutral defaults of ops without one.
struct LLMToLinalgOptions {
  /// `llm.attention` as one flash-attention loop nest (true) or with the
  /// materialized [B, Hq, Sq, Skv] score matrix (false).
  bool flashAttention = true;
  /// Flash-attention tile: query rows and key/value rows per step (> 0;
  /// clamped to the sequence lengths), for an `llm.attention` without
  /// `attention_tile` in its lowering configuration.
  int64_t attentionQueryTile = 32;
  int64_t attentionKeyTile = 64;
  /// A weight-only decode matvec without `streamed` in its lowering
  /// configuration whose weight has at least this many stored bytes is
  /// assumed to read it from DRAM on every call, and takes the kernels'
  /// streaming block shapes.
  int64_t streamedWeightMinBytes = 1 << 20;
  /// Whether llmc's CPU vector-loop kernels may be emitted where they apply
  /// (the exact f32 panels of `llm.matmul_integer`); false: the plain
  /// linalg contraction (the GPU pipeline).
  bool vectorKernels = true;
};

/// Checks an llm op for `convert-llm-to-linalg` when it has a dynamic
/// dimension: the function around it must declare a bounded sequence
/// dimension (`llm.dim_bounds`, llm/Dialect/LLM/IR/DimBounds.h) and the op
/// must be one that takes the sequence as a `?` dimension (elementwise ops,
/// casts, softmax, embedding, transpose, broadcast_to; matmul with the
/// sequence in the lhs rows and a static 2-D rhs; layer_norm/rms_norm/rope
/// and reductions over static dimensions; attention with the sequence as
/// its query and/or key/value length; reshapes that keep the sequence
/// dimension; concat
/// and slice that keep it whole). Statically shaped ops always pass. On
/// failure emits an error at the op (with `emit`) naming the reason.
LogicalResult checkDynamicShapes(Operation *op, bool emit);

/// Populates `patterns` with the rewrites that lower every llm op to
/// linalg/tensor/arith/math/scf on tensors (see `convert-llm-to-linalg`).
void populateLLMToLinalgConversionPatterns(
    RewritePatternSet &patterns,
    const LLMToLinalgOptions &options = LLMToLinalgOptions());

/// Populates `patterns` with the flash-attention lowering of
/// `llm.attention` alone: one `scf.forall` over (batch, query head, query
/// tile) with an `scf.for` over key/value tiles and an online softmax (see
/// `convert-llm-to-linalg`). `queryTile` and `keyTile` are the tile sizes in
/// rows (> 0).
void populateFlashAttentionLoweringPatterns(RewritePatternSet &patterns,
                                            int64_t queryTile,
                                            int64_t keyTile);

/// Whether the flash-attention lowering takes `op` (an `llm.attention`):
/// static shapes, or a dynamic query and/or key/value sequence length (with
/// a mask, if any, that is static and size 1 along each dynamic sequence),
/// and no empty dimension. The materialized lowering next to it takes the
/// others.
bool isFlashAttentionLowerable(Operation *op);

/// Populates `patterns` with the lowerings of the ops on runtime data
/// (`llm.compare`, logical ops, `llm.select`, `llm.gather`, `llm.reverse`,
/// `llm.log_softmax`, `llm.argmax`/`argmin`, `llm.reduce_min`/`reduce_prod`);
/// part of populateLLMToLinalgConversionPatterns.
void populateLLMToLinalgDataPatterns(RewritePatternSet &patterns);

/// Populates `patterns` with the lowerings of the indexing ops
/// (`llm.gather_nd`, `llm.scatter_nd`, `llm.scatter_elements`), `llm.topk`,
/// `llm.dynamic_quantize`, `llm.acos`/`asin`/`atan` and the f64
/// `llm.reduce_sum` (lib/Conversion/LLMToLinalg/IndexingToLinalg.cpp); part
/// of populateLLMToLinalgDataPatterns.
void populateIndexingToLinalgPatterns(RewritePatternSet &patterns);

/// Populates `patterns` with the lowering of the sequence-length ops
/// (LLMCacheOps.td): `llm.kv_cache_update` to a `tensor.insert_slice` at the
/// (clamped) run-time position, written in place by bufferization when the
/// cache is an `llm.kv_cache` argument, and `llm.sequence_prefix` to a
/// `tensor.extract_slice` of the function's sequence length; part of
/// populateLLMToLinalgDataPatterns.
void populateSequenceOpsToLinalgPatterns(RewritePatternSet &patterns);

/// Populates `patterns` with the lowering of the quantization ops
/// (`llm.quantize`, `dequantize`, `requantize`, `matmul_integer`) to linalg
/// generics on the storage types, with `quant.scast` (or `arith.bitcast` for
/// FP8) at the boundary with quantized tensors (lib/.../QuantToLinalg.cpp),
/// and of `llm.dequant_matmul` (decode matvec kernels; the op's lowering
/// configuration selects the bf16 dot-product form of the 4-bit one and the
/// streaming block shapes, `options` gives the default of the latter).
void populateQuantToLinalgConversionPatterns(
    RewritePatternSet &patterns,
    const LLMToLinalgOptions &options = LLMToLinalgOptions());

/// Replaces every quantized element type (`!quant.uniform...`) under `root`
/// by its storage type (i8, i4, i32...) and FP8 types by i8, in function
/// signatures, block arguments and results, then removes the storage casts
/// this makes trivial. Run after the llm ops are lowered: the bits are
/// unchanged, only their type.
void eraseQuantizedTypes(Operation *root);

/// Reassociation that groups each run of unit (`isUnit`) dimensions with the
/// next kept dimension (trailing units join the last group): the
/// `tensor.expand_shape` from a reduction's kept shape back to its keepdims
/// shape. Empty when no dimension is kept.
SmallVector<ReassociationIndices> groupsForInsertedDims(ArrayRef<bool> isUnit);

//===----------------------------------------------------------------------===//
// Run-time index checks
//===----------------------------------------------------------------------===//

/// The status that compiled code with index checks writes: a public
/// `memref.global @__llmc_status : memref<4xi64>`, zero until a check fails;
/// then [check number (1-based), the offending index, the dimension's
/// size, 0]. Only the first failure of a call is kept. The runtime
/// (CompiledModel::invoke) zeroes it before each call and turns a failure
/// into an error naming the op; objects from `llmc compile --emit=obj`
/// export it under this name for C callers.
inline constexpr llvm::StringLiteral kIndexCheckStatusName = "__llmc_status";
inline constexpr int64_t kIndexCheckStatusSize = 4;
/// The module attribute listing the checks, in number order: an array of
/// strings `"<op name> at <file:line:col | 'ONNX node'>"`.
inline constexpr llvm::StringLiteral kIndexChecksAttrName = "llm.index_checks";

/// Emits, at `b`'s insertion point, the run-time check of `op`'s integer
/// `indices` (any shape) against a dimension of `size` rows: valid indices
/// lie in [-size, size) (negative ones count from the end, as in ONNX
/// Gather). The indices are reduced to their minimum and maximum; when one
/// is out of range, the status (kIndexCheckStatusName) records the check,
/// the offending index (the maximum if too large, else the minimum) and
/// `size`. The op's own lowering still clamps, so no out-of-bounds read
/// happens before the caller sees the error. Checks are numbered by
/// `finalizeIndexChecks`.
void emitIndexRangeCheck(OpBuilder &b, Operation *op, Value indices,
                         int64_t size);

/// Numbers the checks that `emitIndexRangeCheck` emitted under `root` in
/// program order, records their descriptions in `root`'s
/// kIndexChecksAttrName and creates the status global in `root`. Fails
/// (with an error) when `root` is not a symbol table or the status name is
/// taken by another symbol.
LogicalResult finalizeIndexChecks(Operation *root);

} // namespace llm
} // namespace mlir

#endif // LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
