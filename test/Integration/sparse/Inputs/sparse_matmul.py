#!/usr/bin/env python3
# ===- sparse_matmul.py - sparse weight kernels against the dense path ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Matmuls with pruned constant weights, each in a sparse format
(`llm.sparse_format` written on the matmul, as llm-sparsify-weights does),
at the edges of the kernels' shapes: one row (decode) and several, K not a
multiple of the block (padded), N not a multiple of the block rows, a 3-D
activation, both weight layouts ([K, N] and [N, K] with transpose_b), an
all-zero weight, a fully dense one in BSR, f16 weights and activations, and
a bias + gelu epilogue (fused into the kernel's block loop); and
`llm.dequant_matmul` weights (i8 and i4 per channel, u8 with a zero point)
whose levels are stored as i8 and scaled per channel, and with sub-channel
scales (`i4g32`: groups of 32 along K; u8 with a zero point per group)
multiplied into the stored values in registers.

  sparse_matmul.py gen DIR       writes DIR/sparse.mlir (the formats),
                                 DIR/dense.mlir (the same model without
                                 them), DIR/arg<i>.npy and DIR/inputs.txt
  sparse_matmul.py check DIR SPARSE_OUT DENSE_OUT
                                 compares both runs with each other and
                                 with float64 numpy

f32 outputs: |sparse - dense| and |sparse - numpy| <= 1e-6 + 2e-6 S, with
S = sum_k |x| |w| (the bound of a sum reordered in f32). f16 outputs: the
f32 sum is rounded once to f16, so within one f16 ulp of each other and of
numpy: <= 2^-10 |y| + 1e-3 S 2^-10 (inputs already f16).
"""

import os
import sys

import numpy as np

from llmc_model_text import literal, main_func, write_inputs

# name, format, activation shape (K last), N, K, transpose_b, dtype,
# pattern, epilogue
CASES = [
    ("bsr16_decode", "bsr16x16", (1, 1), 96, 128, True, "f32", "b16", False),
    ("bsr16_edge", "bsr16x16", (3,), 100, 70, False, "f32", "b16", False),
    ("bsr16_rows20_gelu", "bsr16x16", (20,), 64, 96, True, "f32", "b16",
     True),
    # 23 rows: an 8-row tile pair, then one tile each of 4, 2 and 1 rows; 47
    # rows: five 8-row tiles (the interleaved copy of the activation), then
    # one each of 4, 2 and 1 rows; 70 rows (3-D) with N and K padded: eight
    # interleaved tiles, then one each of 4 and 2 rows; 32, 33, 40 and 64
    # rows of a full, an f16, an i8 and an all-zero weight: whole tiles.
    ("bsr16_rows23", "bsr16x16", (23,), 48, 64, True, "f32", "b16", False),
    ("bsr16_rows47", "bsr16x16", (47,), 48, 64, True, "f32", "b16", False),
    ("bsr16_rows70_gelu", "bsr16x16", (2, 35), 100, 70, False, "f32", "b16",
     True),
    ("bsr4_decode_k66", "bsr4x4", (1,), 64, 66, True, "f32", "b4", False),
    ("bsr4_rows18", "bsr4x4", (2, 9), 48, 64, False, "f32", "b4", False),
    ("bsr1x4", "bsr1x4", (2,), 40, 64, True, "f32", "b1x4", False),
    ("bsr1x16_n33", "bsr1x16", (1,), 33, 80, False, "f32", "b1x16", False),
    ("csr_decode", "csr", (1,), 50, 77, True, "f32", "u25", False),
    ("csr_rows8", "csr", (8,), 32, 64, False, "f32", "u25", True),
    ("nm24_decode", "2:4", (1,), 64, 96, True, "f32", "nm24", False),
    ("nm24_k44", "2:4", (4,), 24, 44, False, "f32", "nm24", False),
    ("zero_bsr4", "bsr4x4", (2,), 32, 32, True, "f32", "zero", False),
    ("full_bsr16", "bsr16x16", (4,), 32, 48, True, "f32", "full", False),
    ("full_bsr16_rows32", "bsr16x16", (32,), 32, 48, True, "f32", "full",
     False),
    ("zero_bsr16_rows64", "bsr16x16", (64,), 32, 32, True, "f32", "zero",
     False),
    ("f16_bsr16", "bsr16x16", (2,), 64, 64, True, "f16", "b16", False),
    ("f16_bsr16_rows33", "bsr16x16", (33,), 48, 64, True, "f16", "b16", False),
    ("f16_nm24", "2:4", (1,), 32, 64, True, "f16", "nm24", False),
    ("f16_csr", "csr", (1,), 16, 64, False, "f16", "u25", False),
    # llm.dequant_matmul: the levels q - zp stored as i8, scaled per channel.
    ("i8_bsr16_decode", "bsr16x16", (1,), 64, 96, True, "i8", "b16", False),
    ("i8_bsr16_rows40", "bsr16x16", (40,), 64, 96, True, "i8", "b16", False),
    ("u8_zp_bsr4", "bsr4x4", (3,), 32, 64, False, "u8", "b4", False),
    ("i4_csr", "csr", (1,), 24, 64, True, "i4", "u25", False),
    ("i8_nm24_gelu", "2:4", (2,), 32, 64, True, "i8", "nm24", True),
    # Sub-channel scales (groups along K): BSR blocks and 2:4 chunks lie in
    # one group; 37 rows take the interleaved prefill tiles; N = 34 and 33
    # pad the block rows; an all-zero and a fully dense weight.
    ("i4g32_bsr16_decode", "bsr16x16", (1,), 64, 128, True, "i4g32", "b16",
     False),
    ("i8g16_bsr16_rows37_gelu", "bsr16x16", (37,), 48, 96, False, "i8g16",
     "b16", True),
    ("u8g8_bsr4_n34", "bsr4x4", (3,), 34, 64, True, "u8g8", "b4", False),
    ("i4g16_bsr1x16_n33", "bsr1x16", (2,), 33, 64, False, "i4g16", "b1x16",
     False),
    ("i8g64_nm24", "2:4", (1,), 32, 128, True, "i8g64", "nm24", False),
    ("i4g32_nm24_rows4", "2:4", (4,), 24, 96, False, "i4g32", "nm24", False),
    ("i8g32_zero_bsr16", "bsr16x16", (2,), 32, 64, True, "i8g32", "zero",
     False),
    ("i8g16_full_bsr4", "bsr4x4", (5,), 16, 48, False, "i8g16", "full",
     False),
]
QUANT = ("i8", "u8", "i4")


def quant_kind(dt):
    """(storage, group size or 0) of a quantized dtype, else None."""
    base, _, group = dt.partition("g")
    return (base, int(group or 0)) if base in QUANT else None


def pruned(pattern, n, k, rng):
    """W[N, K] with the pattern's zeros."""
    w = rng.standard_normal((n, k))
    if pattern == "zero":
        return np.zeros((n, k))
    if pattern == "full":
        return w + np.sign(w) * 0.1  # no zeros
    if pattern == "u25":
        return np.where(rng.random((n, k)) < 0.25, w, 0.0)
    if pattern == "nm24":
        out = np.zeros((n, k))
        for r in range(n):
            for g in range(0, k, 4):
                width = min(4, k - g)
                # 2 kept, some groups 1 or 0 (padded by the packing).
                keep = rng.choice(width, min(width, rng.choice([0, 1, 2, 2, 2])),
                                  replace=False)
                out[r, g + keep] = w[r, g + keep]
        return out
    rows, cols = {"b16": (16, 16), "b4": (4, 4), "b1x4": (1, 4),
                  "b1x16": (1, 16)}[pattern]
    keep = rng.random(((n + rows - 1) // rows, (k + cols - 1) // cols)) < 0.3
    mask = np.kron(keep, np.ones((rows, cols)))[:n, :k]
    return w * mask


def dims(shape):
    return "x".join(str(d) for d in shape)


def data(seed=11):
    rng = np.random.default_rng(seed)
    out = []
    for case in CASES:
        name, fmt, lead, n, k, tb, dt, pattern, epi = case
        np_t = np.float16 if dt == "f16" else np.float32
        w = pruned(pattern, n, k, rng)
        if quant_kind(dt):
            # Levels q - zp in the storage's range, scales per channel
            # (u8: one scale and zero point 128 for the tensor), or per
            # group ([N, K / group]; u8: zero points 108..148 per group).
            base, group = quant_kind(dt)
            top = 7 if base == "i4" else 100
            w = np.clip(np.round(w * top / 3), -top, top)
            shape = (n, k // group) if group else (
                1 if base == "u8" else n)
            scales = (rng.random(shape) * 0.02 + 0.01)
            zps = rng.integers(108, 149, shape) if base == "u8" and group \
                else None
            w = (w, scales.astype(np.float32), zps)
            np_t = np.float32
        else:
            w = w.astype(np_t)
        x = rng.standard_normal(lead + (k,)).astype(np_t)
        b = rng.standard_normal(n).astype(np_t) if epi else None
        out.append((case, w, x, b))
    return out


def quant_weight(i, name, dt, tb, w, wshape):
    """The constant and quant.scast of a quantized weight; its type."""
    levels, scales, zps = w
    base, group = quant_kind(dt)
    stored = levels if tb else levels.T
    zp = 128 if base == "u8" else 0
    sto = "i4" if base == "i4" else "i8"
    if group:
        # Sub-channel: blocks of one channel by `group` elements of K, the
        # scales (and zero points) nested in the storage's layout.
        zp = zps if zps is not None else np.zeros(scales.shape, np.int64)
        params = [[f"{float(s)!r}:{int(z)}" for s, z in zip(rs, rz)]
                  for rs, rz in zip(scales, zp)]
        if not tb:
            params = [list(col) for col in zip(*params)]
            zp_full = np.repeat(zp.T, group, axis=0)
        else:
            zp_full = np.repeat(zp, group, axis=1)
        blocks = "{0:1,1:%d}" % group if tb else "{0:%d,1:1}" % group
        qt = (f"!quant.uniform<{base}:f32:{blocks}, {{" +
              ", ".join("{" + ", ".join(r) + "}" for r in params) + "}>")
        bits = stored + zp_full
        bits = np.where(bits > 127, bits - 256, bits)  # signless storage
    elif base == "u8":
        qt = f"!quant.uniform<u8:f32, {float(scales[0])!r}:{zp}>"
        bits = stored + zp
        bits = np.where(bits > 127, bits - 256, bits)  # signless storage
    else:
        qt = (f"!quant.uniform<{dt}:f32:{0 if tb else 1}, {{" +
              ", ".join(f"{float(v)!r}" for v in scales) + "}>")
        bits = stored
    ct = f"tensor<{dims(wshape)}x{sto}>"
    wt = f"tensor<{dims(wshape)}x{qt}>"
    text = (f"  %c{i} = arith.constant dense<{bits.astype(int).tolist()}> : "
            f"{ct} loc(\"{name}\")\n"
            f"  %w{i} = quant.scast %c{i} : {ct} to {wt}\n")
    return text, wt


def dequantized(dt, w):
    """W[N, K] in float64."""
    if quant_kind(dt):
        levels, scales, _ = w
        group = quant_kind(dt)[1]
        if group:
            return np.repeat(scales.astype(np.float64), group, axis=1) * levels
        return scales.astype(np.float64)[:, None] * levels
    return w.astype(np.float64)


def model(with_formats):
    args, body, rets, types = [], [], [], []
    for i, ((name, fmt, lead, n, k, tb, dt, pattern, epi), w, x,
            b) in enumerate(data()):
        ft = "f32" if quant_kind(dt) else dt
        xt = f"tensor<{dims(lead + (k,))}x{ft}>"
        wshape = (n, k) if tb else (k, n)
        yt = f"tensor<{dims(lead + (n,))}x{ft}>"
        attrs = ["transpose_b"] if tb else []
        if with_formats:
            attrs.append(f'llm.sparse_format = {{format = "{fmt}"}}')
        attr = " {" + ", ".join(attrs) + "}" if attrs else ""
        args.append(f"%x{i}: {xt}")
        if quant_kind(dt):
            text, wt = quant_weight(i, name, dt, tb, w, wshape)
            body.append(text +
                        f"  %y{i} = llm.dequant_matmul %x{i}, %w{i}{attr} : "
                        f"({xt}, {wt}) -> {yt} loc(\"{name}\")\n")
        else:
            wt = f"tensor<{dims(wshape)}x{dt}>"
            body.append(f"  %w{i} = llm.constant {literal(w if tb else w.T)} "
                        f": {wt} loc(\"{name}\")\n"
                        f"  %y{i} = llm.matmul %x{i}, %w{i}{attr} : ({xt}, "
                        f"{wt}) -> {yt} loc(\"{name}\")\n")
        result = f"%y{i}"
        if epi:
            bt = f"tensor<{n}x{ft}>"
            body.append(f"  %b{i} = llm.constant {literal(b)} : {bt}\n"
                        f"  %s{i} = llm.add %y{i}, %b{i} : ({yt}, {bt}) -> "
                        f"{yt}\n"
                        f"  %g{i} = llm.gelu %s{i} : {yt}\n")
            result = f"%g{i}"
        rets.append(result)
        types.append(yt)
    return main_func(args, body, rets, types)


def gen(d):
    write_inputs(d, [x for (_, _, x, _) in data()])
    with open(os.path.join(d, "sparse.mlir"), "w") as f:
        f.write(model(True))
    with open(os.path.join(d, "dense.mlir"), "w") as f:
        f.write(model(False))


def gelu(v):
    from math import erf
    return 0.5 * v * (1 + np.vectorize(erf)(v / np.sqrt(2)))


def check(d, sparse_dir, dense_dir):
    ok = True
    for i, ((name, fmt, lead, n, k, tb, dt, pattern, epi), w, x,
            b) in enumerate(data()):
        xf, wf = x.astype(np.float64), dequantized(dt, w)
        exp = xf @ wf.T
        s = np.abs(xf) @ np.abs(wf).T
        if epi:
            exp = gelu(exp + b.astype(np.float64))
        got = np.load(os.path.join(sparse_dir, f"out{i}.npy"))
        dense = np.load(os.path.join(dense_dir, f"out{i}.npy"))
        if dt == "f16":
            bound = 2.0 ** -10 * np.abs(exp) + 1e-3 * s * 2.0 ** -10 + 1e-6
        else:
            bound = 1e-6 + 2e-6 * s
        if epi:  # gelu's slope is at most 1.13; its f32 polynomial ~1e-6
            bound = 1.2 * bound + 2e-6
        g64, d64 = got.astype(np.float64), dense.astype(np.float64)
        good = (got.shape == exp.shape and got.dtype == dense.dtype and
                bool(np.all(np.abs(g64 - d64) <= bound)) and
                bool(np.all(np.abs(g64 - exp) <= bound)))
        worst = float(np.max(np.abs(g64 - exp) / bound)) if got.shape == \
            exp.shape else float("inf")
        print(f"{name} ({fmt}, {dt}): shape={list(got.shape)} "
              f"error/bound={worst:.3f} {'PASS' if good else 'FAIL'}")
        ok &= good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        check(*sys.argv[2:5])
    else:
        sys.exit("usage: sparse_matmul.py gen DIR | check DIR SPARSE DENSE")
