//===- Passes.td - llm conversion passes -------------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_PASSES_TD
#define LLM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// LLMToLinalg
//===----------------------------------------------------------------------===//

def ConvertLLMToLinalgPass : Pass<"convert-llm-to-linalg"> {
  let summary = "Lower llm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every `llm` op into `linalg`, `tensor`, `arith` and `math` on
    tensors. The patterns (`populateLLMToLinalgConversionPatterns`):

    * `llm.constant` -> `arith.constant` (inline `dense` or `dense_resource`).
    * Elementwise ops, activations (`gelu` erf/tanh, `silu`, `sigmoid`, ...),
      `cast`, `broadcast_to` -> all-parallel `linalg.generic` with an identity
      output map and numpy-broadcasting input maps (missing leading dims are
      dropped, a size-1 dim that broadcasts reads index 0), so chains fuse with
      `linalg-fuse-elementwise-ops`. `cast` saturates float -> int (clamped in
      f32, NaN -> 0) and compares with 0 for `i1`.
    * `matmul` -> `linalg.matmul` when `rhs` is 2-D (leading dims of `lhs`
      collapsed into M, so weights stay 2-D), else `linalg.batch_matmul` over
      the collapsed broadcast batch dims; transposes are indexing maps; an f32
      accumulator from `linalg.fill`.
    * `reduce_sum/mean/max` -> reduction generics (+ `tensor.expand_shape`
      for `keepdims`); `softmax` -> max-reduce, sum of `exp(x - max)`,
      normalize; `layer_norm` -> sum, sum of squared deviations (biased
      variance), normalize with broadcast scale/bias; `rms_norm` -> sum of
      squares, normalize.
    * `rope` -> one generic over `x` viewed as `[..., 2, D/2]` (rotate_half)
      or `[..., D/2, 2]` (interleaved), angles computed in f32 from
      `linalg.index`; with `rotary_dims = R < D`, that generic over
      `x[..., :R]` (`tensor.extract_slice`) and a `tensor.concat` with
      `x[..., R:]`.
    * `attention` with `attention=flash` (default) -> one loop nest in the
      style of FlashAttention (Dao et al. 2022, arXiv:2205.14135) with the
      online softmax of Milakov & Gimelshein 2018 (arXiv:1805.02867): an
      `scf.forall` over (batch, query head, query tile) whose body runs an
      `scf.for` over key/value tiles carrying the running row max `m`, the
      running sum `l` and the f32 output accumulator, rescaled by
      `exp(m_old - m_new)`; no score tensor larger than one
      `[q_tile, kv_tile]` tile exists. Tile sizes come from the op's
      lowering configuration (`llm.lowering_config = {attention_tile =
      array<i64: Q, KV>}`), else from `attention-tile` ([32, 64]).
      Key/value head = query head / (Hq / Hkv). A last tile that is not full
      is shifted back to end at the sequence end (static tile shapes): the
      overlapping key columns are excluded again, the overlapping query rows
      are not stored twice. With `causal`, key tiles entirely above the
      diagonal of the query tile are skipped (dynamic trip count). Rows whose
      every key is excluded (causal with `Sq > Skv`, an all-false `i1` mask
      row, an all `-inf` float mask row) give 0, as in the materialized form
      and the numpy reference. With `kv_length` L the key/value loop runs to
      `ceil(L / kv_tile)` (computed at run time; with `causal` at most to
      the causal limit aligned at L) and the columns `>= L` are excluded. A
      dynamic query (and key/value) length: the tile counts are computed at
      run time and the last tile of a dynamic sequence is a zero-padded copy
      (its extra query rows are not stored, its extra key columns are
      excluded); a mask along a dynamic sequence is read in tiles with
      clamped indices (a mask with a dynamic batch or head dimension takes
      the materialized form).
    * `attention` with `attention=materialized` -> grouped-query attention
      without copying K/V: `q` reshaped to `[B*Hkv, G*Sq, D]`, `batch_matmul`
      for `Q K^T` and `P V`, scale, mask (float: added; `i1`: keep where true)
      (or `excluded_score` where an `i1` mask is false), causal and
      `kv_length` exclusion in one generic, a numerically stable softmax
      whose rows with every position dropped give 0 (the `[B, Hq, Sq, Skv]` score matrix is
      materialized).
    * `embedding` -> generic with `tensor.extract` from the table (negative
      ids + V, then clamped to `[0, V-1]`); `transpose` -> `linalg.transpose`;
      `reshape` -> `tensor.collapse_shape`/`expand_shape` (through 1-D when
      neither applies); `concat` -> `tensor.concat`; `slice` ->
      `tensor.extract_slice`.

    f16/bf16 values are computed in f32 inside the bodies and rounded back;
    reductions and matmuls accumulate in f32.

    Target independence: the pass reads no target description. The
    target's choices are per-op lowering configurations
    (`llm.lowering_config`, llm/Dialect/LLM/IR/LoweringConfig.h, verified by
    the llm dialect) that a target's codegen attaches beforehand
    (`llm-select-lowering-config` for the CPU) or a tuner writes:

    * `llm.attention`: `attention_tile = array<i64: Q, KV>`, the flash
      tile (default: `attention-tile`, [32, 64]); `padded_head_dims =
      array<i64: D', Dv'>`: the query and key tiles are zero-padded to D'
      columns and the value tiles and the accumulator to Dv' (`tensor.pad`
      marked `llm.vectorize_rows`), so that their rows are whole vectors;
      the scores and the Dv stored columns are unchanged (default: no
      padding).
    * `llm.dequant_matmul`: `dot_product = "bf16"` makes its 4-bit decode
      matvec use AVX512-BF16 dot products (default `"f32"`, the exact
      kernel); `streamed = true|false` gives the decode matvec kernels their
      streaming block shapes (fewer weight rows per block) or not (default:
      the weight has at least `streamed-weight-min-bytes` stored bytes,
      1 MiB); see docs/Quantization.md.
    * `llm.matmul` by a constant weight: `dot_product = "bf16"` runs it on
      bf16 dot products (`vdpbf16ps` register tiles), `"amx_bf16"` on AMX
      tiles (`amx.tile_mulf`, 2 x 2 accumulator tiles per 32 x 32 block;
      `llm-emulate-amx` runs them on CPUs without AMX); default `"f32"`.

    With `attention=keep`, `llm.attention` is left as it is and everything
    else is lowered; a later run of the pass lowers it. `llm-lower-to-nvvm`
    does so, so that the passes in between (linalg-fold-unit-extent-dims,
    which moves a destination that a generic reads to its inputs, and
    elementwise fusion) do not rewrite the flash lowering's loop nest,
    whose loop-carried tiles must stay updated in place.

    Errors: every llm op with a dynamically shaped operand or result is
    reported ("llm-to-linalg requires static shapes") and the pass fails; an
    unknown `attention` value, an `attention-tile` that is not two positive
    sizes or a negative `streamed-weight-min-bytes` fails the pass with a
    diagnostic on the module.
  }];
  let options = [
    Option<"attention", "attention", "std::string", /*default=*/"\"flash\"",
           "Lowering of llm.attention: 'flash' (one loop nest, online "
           "softmax over key/value tiles), 'materialized' (full score "
           "matrix) or 'keep' (left as it is, for a later run of the pass)">,
    ListOption<"attentionTile", "attention-tile", "int64_t",
               "Flash-attention tile [query rows, key/value rows] of an "
               "llm.attention without attention_tile in its "
               "llm.lowering_config (default: 32,64)">,
    Option<"streamedWeightMinBytes", "streamed-weight-min-bytes", "int64_t",
           /*default=*/"1048576",
           "Smallest weight (stored bytes) of a weight-only decode matvec "
           "without streamed in its llm.lowering_config that is assumed "
           "read from DRAM on every call, which takes the kernels' "
           "streaming block shapes (0: every weight)">,
    Option<"vectorKernels", "vector-kernels", "bool", /*default=*/"true",
           "Emit llmc's CPU vector-loop kernels where they apply (the "
           "exact f32 panels of llm.matmul_integer); false: the plain "
           "linalg contraction (llm-lower-to-nvvm, whose GPU kernels "
           "distribute linalg ops)">,
  ];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect",
  ];
}

#endif // LLM_CONVERSION_PASSES_TD
