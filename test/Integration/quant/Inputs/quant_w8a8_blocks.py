#!/usr/bin/env python3
# ===- quant_w8a8_blocks.py - W8A8 QDQ matmul + epilogue over many blocks --=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""A W8A8 QDQ matmul (x per tensor, w per output column) with a bias, a relu
and a requantized output, N = 300 output columns: llm-fold-quant makes it
llm.matmul_integer, lowered to the exact integer panels in three blocks of
100 columns, and llm-tile-and-vectorize fuses the epilogue (rescale, bias,
relu, quantize, dequantize) into the block loop. The output is compared
with a float64 numpy reference of the ONNX definitions (exact integer
accumulators, then the epilogue): it must lie within one output
quantization step (0.05; a rescaled value within f32 rounding of a rounding
tie may round either way), and at least 99% of the elements must be exact.

  quant_w8a8_blocks.py gen DIR       writes DIR/model.mlir, DIR/x.npy
  quant_w8a8_blocks.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

M, K, N = 5, 96, 300
SX, ZX = 0.03, 2
SY, ZY = 0.05, -5


def data():
    rng = np.random.default_rng(31)
    x = (rng.standard_normal((M, K)) * 2).astype(np.float32)
    w = rng.integers(-128, 128, (K, N))
    sw = (rng.random(N) * 0.02 + 0.005).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return x, w, sw, b


def gen(d):
    x, w, sw, b = data()
    np.save(os.path.join(d, "x.npy"), x)
    tw = ("!quant.uniform<i8:f32:1, {" +
          ", ".join(f"{float(s)!r}" for s in sw) + "}>")
    tx = f"!quant.uniform<i8:f32, {SX}:{ZX}>"
    ty = f"!quant.uniform<i8:f32, {SY}:{ZY}>"
    lit = "[" + ", ".join("[" + ", ".join(str(int(v)) for v in r) + "]"
                          for r in w) + "]"
    blit = "[" + ", ".join(repr(float(v)) for v in b) + "]"
    text = f"""func.func @main(%x: tensor<{M}x{K}xf32>) -> tensor<{M}x{N}xf32> {{
  %w = arith.constant dense<{lit}> : tensor<{K}x{N}xi8>
  %b = llm.constant dense<{blit}> : tensor<{N}xf32>
  %wq = quant.scast %w : tensor<{K}x{N}xi8> to tensor<{K}x{N}x{tw}>
  %wd = llm.dequantize %wq : (tensor<{K}x{N}x{tw}>) -> tensor<{K}x{N}xf32>
  %xq = llm.quantize %x : (tensor<{M}x{K}xf32>) -> tensor<{M}x{K}x{tx}>
  %xd = llm.dequantize %xq : (tensor<{M}x{K}x{tx}>) -> tensor<{M}x{K}xf32>
  %y = llm.matmul %xd, %wd : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %yb = llm.add %y, %b : (tensor<{M}x{N}xf32>, tensor<{N}xf32>) -> tensor<{M}x{N}xf32>
  %yr = llm.relu %yb : tensor<{M}x{N}xf32>
  %yq = llm.quantize %yr : (tensor<{M}x{N}xf32>) -> tensor<{M}x{N}x{ty}>
  %yd = llm.dequantize %yq : (tensor<{M}x{N}x{ty}>) -> tensor<{M}x{N}xf32>
  return %yd : tensor<{M}x{N}xf32>
}}
"""
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d, out):
    x, w, sw, b = data()
    xq = R.quantize_linear(x, SX, ZX, "i8").astype(np.int64)
    acc = (xq - ZX) @ w.astype(np.int64)  # exact
    y = acc * (np.float64(SX) * sw.astype(np.float64)) + b
    y = np.maximum(y, 0)
    exp = (np.clip(np.rint(y / SY) + ZY, -128, 127) - ZY) * SY
    got = np.load(os.path.join(out, "out0.npy")).astype(np.float64)
    err = np.abs(got - exp)
    exact = float(np.mean(err < 1e-6))
    good = (got.shape == exp.shape and bool(np.all(err <= SY * 1.0001))
            and exact >= 0.99)
    print(f"w8a8_blocks: max_abs_err={err.max():.3g} exact={exact:.4f} "
          f"{'PASS' if good else 'FAIL'}")
    return good


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
