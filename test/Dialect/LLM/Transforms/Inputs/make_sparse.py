#!/usr/bin/env python3
# ===- make_sparse.py - crafted sparse weights for llm-sparsify-weights --=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Writes OUT.mlir: one matmul x[1, 64] @ W per crafted weight W[N = 64,
K = 64] (stored [N, K], transpose_b), named by location: dense, u50 (50%
unstructured zeros), u75 (75%), nm24 (exactly 2 nonzeros per group of 4
along K), b16_50 (half the 16x16 blocks), b4_25 (a quarter of the 4x4
blocks), zero (all zero), and nm24_full (2:4 but also 25% of the groups
with 3 nonzeros: not exact)."""

import sys

import numpy as np

N = K = 64


def weights():
    rng = np.random.default_rng(3)
    w = {}
    w["dense"] = rng.standard_normal((N, K))
    m = rng.standard_normal((N, K))
    m[rng.random((N, K)) < 0.5] = 0
    w["u50"] = m
    m = rng.standard_normal((N, K))
    m[rng.random((N, K)) < 0.75] = 0
    w["u75"] = m
    m = rng.standard_normal((N, K)) + 3  # no accidental zeros
    for n in range(N):
        for g in range(0, K, 4):
            drop = rng.choice(4, 2, replace=False)
            m[n, g + drop] = 0
    w["nm24"] = m
    m2 = m.copy()
    m2[::4, 0:4] = 1.0  # some groups with 4 nonzeros
    w["nm24_full"] = m2
    m = rng.standard_normal((N, K)) + 3
    for bn in range(N // 16):
        for bk in range(K // 16):
            if (bn + bk) % 2:
                m[bn * 16:(bn + 1) * 16, bk * 16:(bk + 1) * 16] = 0
    w["b16_50"] = m
    m = rng.standard_normal((N, K)) + 3
    for bn in range(N // 4):
        for bk in range(K // 4):
            if (bn * 7 + bk * 3) % 4:
                m[bn * 4:(bn + 1) * 4, bk * 4:(bk + 1) * 4] = 0
    w["b4_25"] = m
    w["zero"] = np.zeros((N, K))
    return w


def main():
    out = sys.argv[1]
    lines = ["func.func @main(%x: tensor<1x64xf32>) -> (" +
             ", ".join(["tensor<1x64xf32>"] * len(weights())) + ") {"]
    results = []
    for name, w in weights().items():
        hexed = np.asarray(w, np.float32).tobytes().hex().upper()
        lines.append(f'  %{name}_w = llm.constant dense<"0x{hexed}"> : '
                     "tensor<64x64xf32>")
        lines.append(f"  %{name} = llm.matmul %x, %{name}_w {{transpose_b}} : "
                     "(tensor<1x64xf32>, tensor<64x64xf32>) -> "
                     f'tensor<1x64xf32> loc("{name}")')
        results.append(f"%{name}")
    lines.append("  return " + ", ".join(results) + " : " +
                 ", ".join(["tensor<1x64xf32>"] * len(results)))
    lines.append("}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
