//===- Transforms.h - llm code generation transforms ------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The C++ entry points behind the codegen passes, usable from other drivers.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_TRANSFORMS_H
#define LLM_CODEGEN_TRANSFORMS_H

#include "llm/Codegen/TargetDescription.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include <functional>

namespace mlir::llm {

/// Knobs of the CPU tiling strategy beyond the target description.
struct CPUTilingOptions {
  /// Make outer tile loops `scf.forall` (else `scf.for`).
  bool parallel = true;
};

/// A matmul as the tile selection sees it: batch x [M, K] x [K, N], the
/// accumulator's element type, and the threads its outer loop is planned
/// for (1: serial).
struct MatmulProblem {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Type accType;
  int64_t threads = 1;
  /// M is the function's dynamic sequence and `m` its bound: the register
  /// tile's rows are the steps its remainder is peeled in, so they stay the
  /// target's.
  bool dynamicM = false;
};

/// The tiles of one matmul, each a size within the problem (no 0): the
/// register tile [regM, regN, regK] and the cache tile [cacheM, cacheN,
/// cacheK] (cacheN a multiple of regN or all of N, cacheK a divisor of K or
/// all of K).
struct MatmulTiles {
  int64_t regM, regN, regK;
  int64_t cacheM, cacheN, cacheK;

  bool operator==(const MatmulTiles &o) const {
    return regM == o.regM && regN == o.regN && regK == o.regK &&
           cacheM == o.cacheM && cacheN == o.cacheN && cacheK == o.cacheK;
  }
};

/// The tiles `target` gives `problem` by default (its heuristics): the
/// register and cache tiles of the target (its matvec ones when M has fewer
/// rows than the register tile: all rows in one tile, wide along N, narrowed
/// so that each thread gets a tile; its tail register tile for one thread
/// and a static M that the regular tile would leave a ragged last tile,
/// CPUTargetDescription::matmulTailRegisterTile), normalized.
MatmulTiles selectMatmulTiles(const CPUTargetDescription &target,
                              const MatmulProblem &problem);

/// Requested tiles (a tuning cache's, an option's) made valid for
/// `problem`: register sizes clamped to the problem; cache sizes 0 or
/// beyond the problem mean the whole dimension; cacheN rounded down to a
/// multiple of regN; cacheK the largest divisor of K in [cacheK / 2, cacheK]
/// that is a multiple of regK, else all of K (a partial K tile would keep
/// the register tiles from vectorizing). Idempotent.
MatmulTiles normalizeMatmulTiles(ArrayRef<int64_t> registerTile,
                                 ArrayRef<int64_t> cacheTile,
                                 const MatmulProblem &problem);

/// Decides whether a producer is fused into a tile loop.
using ProducerFilter = std::function<bool(Operation *)>;

/// Tiles `op` (linalg.matmul or linalg.batch_matmul on static-shaped
/// tensors) for `target`, replacing it: a parallel (or serial) outer loop
/// over M (batch, or N when M is small) with the `linalg.fill` of its
/// accumulator fused in, an N cache-tile loop, then register-tile loops
/// [m, n, k] (K innermost) whose partial last iterations are peeled. The
/// tiles are the op's `llm.lowering_config` (register_tile, cache_tile;
/// normalizeMatmulTiles) when it has one, else selectMatmulTiles. The
/// full register tiles are marked for `vectorizeRegisterTiles`.
/// Failure (IR untouched) when the op is not one of those or is dynamic.
///
/// With an `epilogue` (an all-parallel linalg op over the matmul's parallel
/// dims [b,] m, n that consumes its result, e.g. bias + activation +
/// residual), the epilogue is the root of the outer loop and of the N
/// cache-tile loop, with the matmul fused into both: the epilogue runs on
/// each cache tile right after the matmul computed it, in the same loop
/// nest. `fuseProducer` admits further producers into the outer loop (the
/// other ops of a fusion group).
LogicalResult tileMatmulForCPU(RewriterBase &rewriter, linalg::LinalgOp op,
                               const CPUTargetDescription &target,
                               const CPUTilingOptions &options,
                               TilingInterface epilogue = nullptr,
                               const ProducerFilter &fuseProducer = nullptr);

/// Lowers an `llm.fusion_group` whose ops are linalg on tensors (after
/// convert-llm-to-linalg) to one loop nest, then inlines it: reshapes
/// between the group's ops are folded away by collapsing dimensions; the
/// root (producer of the yielded value) is tiled and every other op of the
/// group fused into its tile loop: with `tileMatmulForCPU` when the group
/// holds a matmul whose result the root consumes (epilogue) or when the
/// matmul is the root (prologue), else over the root's first parallel
/// dimension of size >= 2, in chunks of about 32 KiB of rows and at most
/// ceil(size / threads) (at least two tiles). Ops that cannot be fused stay
/// as ops of their own after the region is inlined. Fails only for IR the
/// function cannot handle at all (the group is still inlined).
LogicalResult lowerFusionGroupForCPU(RewriterBase &rewriter, Operation *group,
                                     const CPUTargetDescription &target,
                                     const CPUTilingOptions &options);

/// Fuses into each `scf.forall` under `root` marked `llm.fuse_consumers`
/// (the block loops of convert-llm-to-linalg's dot-product kernels) its
/// elementwise consumers (bias, activation, residual, the W8A8 rescale and
/// requantize, the rounding of a bf16 result), one at a time (at most 8)
/// while the loop's result has a single such user in the same block whose
/// other operands can be computed before the loop (upstream
/// `scf::tileAndFuseConsumer`): each block's epilogue runs on the block
/// right after it is computed. A result reshaped to a rank-3 [b, s, N]
/// first gets its epilogue collapsed to [M, N]. The markers are removed;
/// returns the number of consumers fused.
int64_t fuseConsumersIntoBlockLoops(RewriterBase &rewriter, Operation *root);

/// Makes `generic` read `input` from `narrow`, a value of the same shape
/// whose float element type is narrower (an f16 / bf16 copy of an f32
/// operand), in place: the input's block argument takes the narrow type and
/// is widened back (`arith.extf`) at the start of the body, so the rest of
/// the body is unchanged. Returns the widened value.
Value readInputWidened(RewriterBase &rewriter, linalg::GenericOp generic,
                       OpOperand *input, Value narrow);

/// Producer fusion into a block loop that reads its input whole in each
/// iteration (`llm.fuse_producers`: the bf16 dot-product kernel of at most
/// 16 rows) inside a fusion group:
///   x' = norm(x) ; forall blocks { ... x' ... }
///     -> forall blocks { x' = norm(x) ; ... x' ... }
/// The ops in the loop's block that compute the values its body reads,
/// transitively, as far as `mayRecompute` accepts them (the group's linalg
/// ops other than contractions and transposes), with the tensor.empty and
/// reshapes between them, are cloned at the start of the body, so that each
/// block recomputes them (a decode step's norm: M x K work beside the
/// block's M x K x 128 dot products) and they are no kernel of their own;
/// the originals die with their last use. Other values stay captured.
void fuseProducersIntoBlockLoop(RewriterBase &rewriter, scf::ForallOp loop,
                                const ProducerFilter &mayRecompute);

/// Tiles a static 2-D `linalg.transpose` into square tiles of one vector
/// length of its element type (`target`), peels the partial tiles and marks
/// the full ones for `vectorizeRegisterTiles`. Failure (IR untouched)
/// when the op is dynamic, not 2-D or smaller than one tile.
LogicalResult tileTransposeForCPU(RewriterBase &rewriter,
                                  linalg::TransposeOp op,
                                  const CPUTargetDescription &target);

/// Rewrites a static 2-D `tensor.pad` [R, C] -> [R, C + h] that pads only
/// the end of each row (low padding 0, high [0, h]) with a constant into an
/// scf.for over the R rows, each one `vector.transfer_read` of C + h
/// elements (out of bounds past C: the padding value, a masked load) and
/// one in-bounds `vector.transfer_write`. Failure (IR untouched) for any
/// other pad, or elements narrower than a byte.
LogicalResult vectorizePadRows(RewriterBase &rewriter, tensor::PadOp op);

/// Rewrites a static f32 row reduction `op` [R, C] -> [R] (maps (i, j) ->
/// (i, j) and (i) -> (i), iterators [parallel, reduction]) whose body
/// combines the element and the accumulator with one arith.maximumf,
/// arith.maxnumf or arith.addf into an scf.for over the R rows, each one
/// vector read of the row and one `vector.reduction` into the row's
/// accumulator. The max is a `maxnumf` with nnan and nsz (NaN and the sign
/// of zero are not kept), the sum reassociated: for reductions whose
/// consumers allow that (flash attention's row max and row sum). Failure
/// (IR untouched) for any other op.
LogicalResult vectorizeRowReductions(RewriterBase &rewriter,
                                     linalg::GenericOp op);

/// Vectorizes (`linalg::vectorize`; matmuls to `vector.contract`) the
/// register tiles marked by `tileMatmulForCPU`/`tileTransposeForCPU` under
/// `root` that have static shapes
/// (canonicalize first so that peeled tiles fold to static sizes); the
/// others are unmarked and left scalar. `numVectorized` counts the tiles
/// vectorized.
LogicalResult vectorizeRegisterTiles(RewriterBase &rewriter, Operation *root,
                                     int64_t &numVectorized);

/// Gives a static-shaped linalg op an `scf.forall` over its outermost
/// dimension of size > 1 (leading unit dimensions, e.g. a batch of 1, are
/// skipped; that dimension must be parallel), split into about one chunk
/// per thread, when the iteration space has at least
/// `target.minParallelElements` points. Failure when the op does not qualify.
LogicalResult parallelizeOuterDimension(RewriterBase &rewriter,
                                        linalg::LinalgOp op,
                                        const CPUTargetDescription &target);

/// Patterns lowering vector ops (masks, contractions as outer products,
/// transfers with permutation maps, multi-reductions, transposes,
/// broadcasts, shape casts) towards the 1-D ops convert-vector-to-llvm takes.
void populateLLMLowerVectorsPatterns(RewritePatternSet &patterns);

/// Tiles a static matmul that already sits inside a loop nest (marked with
/// `kVectorizeInPlaceAttr`) into register tiles of `target` with scf.for
/// loops (K innermost), peels partial tiles and marks the full ones for
/// `vectorizeRegisterTiles`. Fails on other ops.
LogicalResult tileMatmulInPlaceForCPU(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      const CPUTargetDescription &target);

/// Upper bound of a dynamic size `size` (an index value) in `func`, when it
/// is an affine function of the function's dynamic argument dimensions (the
/// sequence length, DimBounds.h): upstream's ValueBoundsConstraintSet gives
/// `size` as a map of those dimensions, which all equal one value n in
/// [1, bound] at run time (llm-guard-dim-bounds asserts it at entry), and the
/// largest value of the map over that range is the bound of `size`. Returns
/// std::nullopt otherwise. Used by llm-plan-memory (top-level buffers) and
/// llm-bound-dynamic-allocs (buffers in loops).
std::optional<int64_t> getSequenceSizeBound(FunctionOpInterface func,
                                            Value size);

} // namespace mlir::llm

#endif // LLM_CODEGEN_TRANSFORMS_H
