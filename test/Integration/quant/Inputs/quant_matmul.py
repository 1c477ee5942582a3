#!/usr/bin/env python3
# ===- quant_matmul.py - quantized matmuls vs numpy and the unfused path --=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Weight-only (W8A16 per channel, W4A16 per group of 32 with zero points,
transposed [N, K] weights) and W8A8 (QDQ around a matmul) models. llm-fold-quant
(in llmc's default pipeline) turns them into `llm.dequant_matmul` and
`llm.matmul_integer`; `llmc run --no-opt` runs the unfused
dequantize + f32 matmul. Both are compared with a float64 numpy reference of
the ONNX definitions (rtol 1e-5, atol 1e-5: f32 accumulation over K = 64 of
values of magnitude ~10).

  quant_matmul.py gen DIR     writes DIR/model.mlir and DIR/x.npy
  quant_matmul.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

M, K, N = 4, 64, 16
RTOL, ATOL = 1e-5, 1e-5


def data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((M, K)).astype(np.float32)
    w8 = rng.integers(-128, 128, (K, N))
    s8 = (rng.random(N) * 0.02 + 0.005).astype(np.float32)
    w4 = rng.integers(-8, 8, (K, N))
    s4 = (rng.random((K // 32, N)) * 0.1 + 0.01).astype(np.float32)
    z4 = rng.integers(-2, 3, (K // 32, N))
    w8t = rng.integers(-128, 128, (N, K))
    return x, w8, s8, w4, s4, z4, w8t


def lit(a):
    return "[" + ", ".join(lit(v) for v in a) + "]" if np.ndim(a) else str(
        int(a))


def qtype_axis(storage, axis, scales, zps):
    return (f"!quant.uniform<{storage}:f32:{axis}, {{" + ", ".join(
        f"{float(s)!r}:{int(z)}" for s, z in zip(scales, zps)) + "}>")


def qtype_block(storage, scales, zps, block):
    rows = ", ".join("{" + ", ".join(f"{float(s)!r}:{int(z)}" for s, z in
                                     zip(sr, zr)) + "}"
                     for sr, zr in zip(scales, zps))
    return f"!quant.uniform<{storage}:f32:{{0:{block},1:1}}, {{{rows}}}>"


def gen(d):
    x, w8, s8, w4, s4, z4, w8t = data()
    np.save(os.path.join(d, "x.npy"), x)
    t8 = qtype_axis("i8", 1, s8, [0] * N)
    t4 = qtype_block("i4", s4, z4, 32)
    t8t = qtype_axis("i8", 0, s8, [0] * N)
    ta = "!quant.uniform<i8:f32, 0.03:2>"
    text = f"""func.func @main(%x: tensor<{M}x{K}xf32>) -> (tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>) {{
  %w8 = arith.constant dense<{lit(w8)}> : tensor<{K}x{N}xi8>
  %w8q = quant.scast %w8 : tensor<{K}x{N}xi8> to tensor<{K}x{N}x{t8}>
  %w8d = llm.dequantize %w8q : (tensor<{K}x{N}x{t8}>) -> tensor<{K}x{N}xf32>
  %y8 = llm.matmul %x, %w8d : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %w4 = arith.constant dense<{lit(w4)}> : tensor<{K}x{N}xi4>
  %w4q = quant.scast %w4 : tensor<{K}x{N}xi4> to tensor<{K}x{N}x{t4}>
  %w4d = llm.dequantize %w4q : (tensor<{K}x{N}x{t4}>) -> tensor<{K}x{N}xf32>
  %y4 = llm.matmul %x, %w4d : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %wt = arith.constant dense<{lit(w8t)}> : tensor<{N}x{K}xi8>
  %wtq = quant.scast %wt : tensor<{N}x{K}xi8> to tensor<{N}x{K}x{t8t}>
  %wtd = llm.dequantize %wtq : (tensor<{N}x{K}x{t8t}>) -> tensor<{N}x{K}xf32>
  %yt = llm.matmul %x, %wtd {{transpose_b}} : (tensor<{M}x{K}xf32>, tensor<{N}x{K}xf32>) -> tensor<{M}x{N}xf32>
  %xq = llm.quantize %x : (tensor<{M}x{K}xf32>) -> tensor<{M}x{K}x{ta}>
  %xd = llm.dequantize %xq : (tensor<{M}x{K}x{ta}>) -> tensor<{M}x{K}xf32>
  %y88 = llm.matmul %xd, %w8d : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %y8, %y4, %yt, %y88 : tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>
}}
"""
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d, out):
    x, w8, s8, w4, s4, z4, w8t = data()
    x64 = x.astype(np.float64)
    dq8 = R.dequantize_linear(w8, s8, 0, axis=1).astype(np.float64)
    dq4 = R.dequantize_linear(w4, s4, z4).astype(np.float64)
    dqt = R.dequantize_linear(w8t, s8, 0, axis=0).astype(np.float64)
    xq = R.dequantize_linear(R.quantize_linear(x, 0.03, 2, "i8"), 0.03, 2)
    refs = {"w8a16_per_channel": x64 @ dq8, "w4a16_group32_zp": x64 @ dq4,
            "w8a16_transposed": x64 @ dqt.T,
            "w8a8": xq.astype(np.float64) @ dq8}
    return R.check_outputs(out, refs,
                           lambda exp, i: ATOL + RTOL * np.abs(exp))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
