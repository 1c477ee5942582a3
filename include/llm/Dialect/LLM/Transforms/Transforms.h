//===- Transforms.h - llm dialect rewrite patterns --------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Entry points to the llm dialect's rewrite patterns, for passes and pipelines
// that compose them.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_TRANSFORMS_TRANSFORMS_H
#define LLM_DIALECT_LLM_TRANSFORMS_TRANSFORMS_H

#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstdint>
#include <optional>

namespace mlir::llm {

/// Size policy of constant folding. Sizes count stored elements: a splat
/// constant stores 1 element whatever its shape.
struct ConstantFoldingOptions {
  /// Largest result that may be created.
  int64_t maxResultElements = 1 << 20;
  /// Largest ratio result size / total size of the constant operands.
  double maxGrowthFactor = 1.0;
};

/// Options of `llm-promote-contraction-inputs` (see its description).
struct PromoteContractionInputsOptions {
  /// Element types whose matmuls are promoted.
  bool f16 = true;
  bool bf16 = true;
  /// Smallest static number of lhs rows (elements / K) promoted.
  int64_t minRows = 2;
};

/// Rewrites each f16/bf16 `llm.matmul` of `func` by an `llm.constant`
/// weight, selected by `options`, into an f32 matmul of the widened
/// activation (`llm.cast`) and the weight widened at compile time, followed
/// by an `llm.cast` back to the half type (exact). Returns the number of
/// matmuls rewritten.
int64_t
promoteContractionInputs(FunctionOpInterface func,
                         const PromoteContractionInputsOptions &options);

/// Adds patterns that replace llm ops whose operands are all constants by
/// `llm.constant` ops holding their values (see `llm-fold-constants`).
void populateConstantFoldingPatterns(RewritePatternSet &patterns,
                                     const ConstantFoldingOptions &options);

/// Adds the rewrites that are wrong for NaN or infinite inputs and therefore
/// are not canonicalizations: `x * 0 -> 0` and `x - x -> 0` (the zero has the
/// result type).
void populateFastMathSimplificationPatterns(RewritePatternSet &patterns);

/// Adds the patterns of `llm-keep-last-logits` that move an
/// `llm.sequence_last` towards the inputs: through ops that compute each
/// position by itself (elementwise ops with broadcasting, layer_norm and
/// rms_norm over later axes, the rows of a matmul or dequant_matmul by a
/// rank-2 rhs) and reshapes that keep the axis, when the op has no other
/// user.
void populateSequenceLastSinkingPatterns(RewritePatternSet &patterns);

/// For each operand of `op`, the axis of the operand that holds axis `axis`
/// of `op`'s result, or std::nullopt when the operand does not vary along it
/// (absent after broadcast alignment, or of size 1 there). Failure when `op`
/// does not compute the positions along `axis` independently of each other:
/// the ops that do are the elementwise ops with numpy broadcasting, casts,
/// comparisons and selects; `layer_norm` and `rms_norm` along axes before
/// the normalized ones; `softmax` along the others; any axis of
/// `llm.transpose` (the operand's permuted one); the rows of an `llm.matmul`
/// (not `transpose_a`) or `llm.dequant_matmul` by a rank-2 rhs, and the
/// batch axes of an `llm.matmul` whose operands have the result's rank; the
/// query rows of `llm.attention`.
FailureOr<SmallVector<std::optional<int64_t>>>
getPositionwiseOperandAxes(Operation *op, int64_t axis);

/// Adds the pattern of `llm-recompose` that removes a flattening of rows
/// around ops that compute each row by itself (getPositionwiseOperandAxes):
/// `reshape(f(reshape(x) : [A, D]) : [A, N]) : [d..., N]` with
/// `d0 * ... * dk = A` becomes `f(reshape(x) : [d..., D]) : [d..., N]`, as
/// Hugging Face's Conv1D (`addmm` of `x.view(-1, D)`) and
/// `nn.MultiheadAttention`'s output projection export it. The rows keep
/// their order, so the values are unchanged; a batch of a dynamic sequence
/// is then never merged with the sequence.
void populateRowUnflatteningPatterns(RewritePatternSet &patterns);

/// Adds the patterns of `llm-recompose`, which rebuild `layer_norm`,
/// `rms_norm`, `gelu`, `silu` and `attention` from the elementwise chains,
/// reductions and matmuls exporters decompose them into (see the pass
/// description for the forms).
void populateRecompositionPatterns(RewritePatternSet &patterns);

/// Options of fusion-group formation (see `llm-fuse`).
struct FusionOptions {
  /// Largest cost (ops per element, see `getRecomputeCost`) of an
  /// elementwise producer duplicated into several consumer groups.
  int64_t maxRecomputeOps = 4;
  /// Most users such a producer may have.
  int64_t maxFanOut = 4;
  /// A norm group (layer_norm / rms_norm over the last dimension, static
  /// shapes, at most this many rows; 0: none) whose only user is the lhs of
  /// a matmul group joins that group: the matmul's outer tiles normalize
  /// their own rows (see llm-fuse).
  int64_t normPrologueMaxRows = 0;
};

/// Counters of `formFusionGroups`.
struct FusionStatistics {
  int64_t groups = 0;
  int64_t opsFused = 0;
  int64_t duplicated = 0;
  int64_t normPrologues = 0;
};

/// Adds the horizontal matmul fusion of `llm-fuse`: matmuls of one `lhs`
/// against 2-D constant weights become one matmul against the concatenated
/// weights (and concatenated constant biases) followed by `llm.slice`s. When
/// `numFused` is given, it is incremented by the number of matmuls replaced.
void populateHorizontalMatmulFusionPatterns(RewritePatternSet &patterns,
                                            int64_t *numFused = nullptr);

/// Cost rule of `llm-fuse`: ops per element of recomputing `op`, or
/// std::nullopt for ops that are never recomputed (reductions, norms,
/// softmax, matmul, attention, data movement). `broadcast_to`, `cast` and
/// `quant.scast` cost 0; `quantize`, `dequantize` and `requantize` cost 4.
std::optional<int64_t> getRecomputeCost(Operation *op);

/// Forms `llm.fusion_group` regions in `block` (anchors, epilogues,
/// prologues and the duplication cost rule of `llm-fuse`).
void formFusionGroups(RewriterBase &rewriter, Block &block,
                      const FusionOptions &options, FusionStatistics &stats);

/// Adds the quantize/dequantize merging of `llm-fold-quant`: per-tensor
/// quantize/dequantize moved through reshape, transpose, slice, broadcast_to
/// and concat so that pairs meet; `quantize(dequantize(q))` -> `q` (same
/// parameters) or `requantize(q)`; `matmul(x, dequantize(w))` ->
/// `dequant_matmul`; `matmul(dequantize(a), dequantize(w))` -> integer
/// matmul + dequantize; with `removeFakeQuant`, `dequantize(quantize(x))` ->
/// `x`.
void populateQuantFoldingPatterns(RewritePatternSet &patterns,
                                  bool removeFakeQuant);

/// Whether those patterns fold the weight-only `matmul(x, dequantize(w))`
/// into `dequant_matmul(x, w)`: `w` rank 2 with 8- or 4-bit storage
/// expressed in f32, per tensor, per output channel or in groups along K
/// (not per axis along K), `x` f32 and not transposed, and the lhs not a
/// dequantize (that pair becomes an integer matmul).
bool isFoldableWeightDequant(MatmulOp op);

/// Adds the patterns of `llm-optimize-layout`: constant `transpose` folded
/// at compile time, matmul weights stored in `layout` (KN: [.., K, N], no
/// `transpose_b`; NK: [.., N, K] with `transpose_b`), rhs transposes
/// absorbed into `transpose_b`, transposes sunk through elementwise ops and
/// composed. `weightsChanged` counts the weights rewritten; it must outlive
/// the pattern set.
/// Adds the layout-propagation patterns of llm-optimize-layout: transposes
/// and reshapes move past row-wise ops (matmuls by a 2-D weight, binary ops
/// with constants along the rows, slices) toward their uses, chains of
/// transposes and reshapes become at most reshape -> transpose -> reshape,
/// and an attention over merged [1, B*H, S, D] operands is split back into
/// [B, H, S, D] so that it can absorb head transposes. Shapes are static
/// or have the one dynamic sequence dimension (DimBounds.h).
/// With `unitsInTranspose`, a chain whose result is the permuted dims plus
/// unit dims ends in the transpose (`[1, S, H*D] -> [1, H, S, D]` becomes
/// reshape + transpose [0, 2, 1, 3], a head split llm.attention absorbs);
/// llm-optimize-layout adds it in a second round, once the transposes have
/// moved (in the first, it would stop a chain short of the transposes still
/// to come).
void populateLayoutPropagationPatterns(RewritePatternSet &patterns,
                                       bool unitsInTranspose = false);

/// Adds the patterns of llm-optimize-layout (see its description): constant
/// matmul weights stored in `layout`, transposes absorbed by matmul flags or
/// sunk until they cancel, and the layout propagation above. Counts the
/// constants rewritten into `weightsChanged`.
void populateOptimizeLayoutPatterns(RewritePatternSet &patterns,
                                    WeightLayout layout,
                                    int64_t &weightsChanged,
                                    bool unitsInTranspose = false);

/// The inverse of `llm-specialize-sequence`: `modules[i]` holds the same
/// program built for sequence length `lengths[i]` (e.g. an ONNX model
/// imported with its symbolic sequence dimension set to each length);
/// `lengths[0]` is the largest, the bound, and the others are distinct and
/// smaller. Rewrites `modules[0]` into one program for every length up to
/// the bound: a dimension equal to the length in every program becomes `?`
/// (the function arguments get `llm.dim_bounds` with `lengths[0]`), an
/// `llm.slice` limit equal to the length keeps the dimension whole, and a
/// constant whose value in each program is the leading block of its value
/// in `modules[0]` (position tables, causal masks) is read through
/// `llm.sequence_prefix`. Any other difference (an op, an attribute, a
/// dimension such as twice the length) is an error at the op that names it;
/// `modules[0]` is then left partly rewritten and must be dropped. The other
/// modules are only read.
LogicalResult generalizeSequenceLength(ArrayRef<ModuleOp> modules,
                                       ArrayRef<int64_t> lengths);

/// Rewrites `func`, a decoder built for an empty past (a "decoder with past"
/// export imported with the past length set to 0, its sequence dimension
/// dynamic), into the generation entry interface of docs/Generation.md (see
/// `llm-form-kv-cache` for the rules):
///   - each past argument (a float argument with a dimension of size 0)
///     becomes a cache argument (`llm.kv_cache`, the layout the attention
///     reads, the sequence bound's rows), in the same place and with the
///     same `llm.name`;
///   - each attention's keys and values are written into their cache by
///     `llm.kv_cache_update` at `past_length`, and the attention reads the
///     caches with `kv_length` = `total_length` (two new 0-d i64 arguments,
///     appended);
///   - the results that return the new keys/values (the present outputs)
///     are dropped;
///   - a table read by the new positions (`llm.sequence_prefix` on one axis)
///     is read at rows [past_length, past_length + S).
/// Errors at the op or argument that prevents it; `func` is then left
/// partly rewritten and must be dropped.
LogicalResult formKVCache(FunctionOpInterface func);

/// Checks `func`, the same decoder built for a past of one token (static
/// shapes, recomposed), for what `formKVCache` assumes of the past: each
/// argument named past* is used once, by `concat(past, new)`, which an
/// attention reads as its keys or values without a mask (causal aligned at
/// the end, or none) and which a result returns (the present output).
/// Errors at the op that breaks it: a model that ignores its past, or whose
/// causal mask is not aligned at the last key, computes differently once a
/// past exists.
LogicalResult checkDecoderWithPast(FunctionOpInterface func);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_TRANSFORMS_TRANSFORMS_H
