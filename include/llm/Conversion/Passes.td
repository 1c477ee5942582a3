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
      `linalg.index`.
    * `attention` with `attention=flash` (default) -> one loop nest in the
      style of FlashAttention (Dao et al. 2022, arXiv:2205.14135) with the
      online softmax of Milakov & Gimelshein 2018 (arXiv:1805.02867): an
      `scf.forall` over (batch, query head, query tile) whose body runs an
      `scf.for` over key/value tiles carrying the running row max `m`, the
      running sum `l` and the f32 output accumulator, rescaled by
      `exp(m_old - m_new)`; no score tensor larger than one
      `[q_tile, kv_tile]` tile exists. Tile sizes come from the CPU target
      description (`attentionTile`, see `target`) or `attention-tile`.
      Key/value head = query head / (Hq / Hkv). A last tile that is not full
      is shifted back to end at the sequence end (static tile shapes): the
      overlapping key columns are excluded again, the overlapping query rows
      are not stored twice. With `causal`, key tiles entirely above the
      diagonal of the query tile are skipped (dynamic trip count). Rows whose
      every key is excluded (causal with `Sq > Skv`, an all-false `i1` mask
      row, an all `-inf` float mask row) give 0, as in the materialized form
      and the numpy reference.
    * `attention` with `attention=materialized` -> grouped-query attention
      without copying K/V: `q` reshaped to `[B*Hkv, G*Sq, D]`, `batch_matmul`
      for `Q K^T` and `P V`, scale, mask (float: added; `i1`: keep where true)
      and causal exclusion in one generic, a numerically stable softmax whose
      fully masked rows give 0 (the `[B, Hq, Sq, Skv]` score matrix is
      materialized).
    * `embedding` -> generic with `tensor.extract` from the table (negative
      ids + V, then clamped to `[0, V-1]`); `transpose` -> `linalg.transpose`;
      `reshape` -> `tensor.collapse_shape`/`expand_shape` (through 1-D when
      neither applies); `concat` -> `tensor.concat`; `slice` ->
      `tensor.extract_slice`.

    f16/bf16 values are computed in f32 inside the bodies and rounded back;
    reductions and matmuls accumulate in f32.

    Errors: every llm op with a dynamically shaped operand or result is
    reported ("llm-to-linalg requires static shapes") and the pass fails; an
    unknown `attention` value or an `attention-tile` that is not two positive
    sizes fails the pass with a diagnostic on the module; an unknown `target`
    is reported at the first op that reads it (`llm.attention` with
    `attention=flash`, for its tile, or `llm.dequant_matmul`, whose 4-bit
    decode matvec uses AVX512-BF16 dot products on targets that have them,
    and whose decode matvec kernels take streaming block shapes (fewer
    weight rows per block) for weights of at least the target's
    `streamedWeightMinBytes` (or `streamed-weight-min-bytes`): see
    docs/Quantization.md). A `streamed-weight-min-bytes` below -1 fails the
    pass with a diagnostic on the module.
  }];
  let options = [
    Option<"attention", "attention", "std::string", /*default=*/"\"flash\"",
           "Lowering of llm.attention: 'flash' (one loop nest, online "
           "softmax over key/value tiles) or 'materialized' (full score "
           "matrix)">,
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "CPU target description giving the flash-attention tile and the "
           "int4 matvec kernel: 'host', 'generic', 'avx2', 'avx512' or "
           "'avx512-bf16'">,
    ListOption<"attentionTile", "attention-tile", "int64_t",
               "Flash-attention tile [query rows, key/value rows] (default: "
               "the target's)">,
    Option<"streamedWeightMinBytes", "streamed-weight-min-bytes", "int64_t",
           /*default=*/"-1",
           "Smallest weight (stored bytes) of a weight-only decode matvec "
           "assumed read from DRAM on every call, which takes the kernels' "
           "streaming block shapes (-1: the target's; 0: every weight)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect",
  ];
}

#endif // LLM_CONVERSION_PASSES_TD
