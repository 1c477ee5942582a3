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
    * `attention` -> grouped-query attention without copying K/V: `q` reshaped
      to `[B*Hkv, G*Sq, D]`, `batch_matmul` for `Q K^T` and `P V`, scale,
      mask (float: added; `i1`: keep where true) and causal exclusion in one
      generic, a numerically stable softmax whose fully masked rows give 0.
    * `embedding` -> generic with `tensor.extract` from the table (negative
      ids + V, then clamped to `[0, V-1]`); `transpose` -> `linalg.transpose`;
      `reshape` -> `tensor.collapse_shape`/`expand_shape` (through 1-D when
      neither applies); `concat` -> `tensor.concat`; `slice` ->
      `tensor.extract_slice`.

    f16/bf16 values are computed in f32 inside the bodies and rounded back;
    reductions and matmuls accumulate in f32.

    Errors: every llm op with a dynamically shaped operand or result is
    reported ("llm-to-linalg requires static shapes") and the pass fails.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // LLM_CONVERSION_PASSES_TD
