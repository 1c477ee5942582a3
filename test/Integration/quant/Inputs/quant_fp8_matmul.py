#!/usr/bin/env python3
# ===- quant_fp8_matmul.py - FP8 matmuls vs numpy -----------------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""FP8 matmuls with per-tensor scales: an E4M3FN weight [K, N] with an f32
activation; an E5M2 weight stored [N, K] (transpose_b); both operands FP8
(the activation quantized to E4M3FN in the model, as an FP8 QDQ export
does). llm-fold-quant turns them into `llm.dequant_matmul {scale}` (the
conversion in the operand load); `llmc run --no-opt` runs dequantize +
f32 matmul. Both match a float64 numpy reference: FP8 values decoded
exactly (test/lib/llmc_quant_ref.py), times the scale (rtol 1e-5, atol
1e-5: f32 accumulation over K = 32).

  quant_fp8_matmul.py gen DIR     writes DIR/model.mlir and DIR/x.npy
  quant_fp8_matmul.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

M, K, N = 3, 32, 8
RTOL, ATOL = 1e-5, 1e-5
SW8, SW5, SA = 0.05, 0.002, 0.01


def data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((M, K)).astype(np.float32)
    # Weights: FP8 values (decoded) drawn from each format's finite values.
    t4 = R.fp8_values("f8E4M3FN")
    t5 = R.fp8_values("f8E5M2")
    v4 = t4[np.isfinite(t4) & (np.abs(t4) <= 64)]
    v5 = t5[np.isfinite(t5) & (np.abs(t5) <= 512)]
    w4 = rng.choice(v4, (K, N))
    w5 = rng.choice(v5, (N, K))
    return x, w4, w5


def lit(a):
    return "[" + ", ".join(lit(v) for v in a) + "]" if np.ndim(a) else repr(
        float(a))


def gen(d):
    x, w4, w5 = data()
    np.save(os.path.join(d, "x.npy"), x)
    text = f"""func.func @main(%x: tensor<{M}x{K}xf32>) -> (tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>) {{
  %c4 = arith.constant dense<{lit(w4)}> : tensor<{K}x{N}xf8E4M3FN>
  %w4 = llm.dequantize %c4 {{scale = {SW8} : f32}} : (tensor<{K}x{N}xf8E4M3FN>) -> tensor<{K}x{N}xf32>
  %y4 = llm.matmul %x, %w4 : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %c5 = arith.constant dense<{lit(w5)}> : tensor<{N}x{K}xf8E5M2>
  %w5 = llm.dequantize %c5 {{scale = {SW5} : f32}} : (tensor<{N}x{K}xf8E5M2>) -> tensor<{N}x{K}xf32>
  %y5 = llm.matmul %x, %w5 {{transpose_b}} : (tensor<{M}x{K}xf32>, tensor<{N}x{K}xf32>) -> tensor<{M}x{N}xf32>
  %xq = llm.quantize %x {{scale = {SA} : f32}} : (tensor<{M}x{K}xf32>) -> tensor<{M}x{K}xf8E4M3FN>
  %xd = llm.dequantize %xq {{scale = {SA} : f32}} : (tensor<{M}x{K}xf8E4M3FN>) -> tensor<{M}x{K}xf32>
  %yaa = llm.matmul %xd, %w4 : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %y4, %y5, %yaa : tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>
}}
"""
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d, out):
    x, w4, w5 = data()
    x64 = x.astype(np.float64)
    dw4 = (w4.astype(np.float32) * np.float32(SW8)).astype(np.float64)
    dw5 = (w5.astype(np.float32) * np.float32(SW5)).astype(np.float64)
    xa = (R.quantize_fp8(x, SA, "f8E4M3FN").astype(np.float32) *
          np.float32(SA)).astype(np.float64)
    refs = {"fp8_e4m3_weight": x64 @ dw4,
            "fp8_e5m2_weight_transposed": x64 @ dw5.T,
            "fp8_e4m3_both": xa @ dw4}
    return R.check_outputs(out, refs,
                           lambda exp, i: ATOL + RTOL * np.abs(exp))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
