#!/usr/bin/env python3
# ===- quant_matmul_integer.py - llm.matmul_integer vs numpy, bit-exact ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""llm.matmul_integer (ONNX MatMulInteger: sum_k (a - za) (b - zb[n]) in
i32) on the exact f32 panels of its CPU lowering (QuantToLinalg.cpp: f32
panel matmuls of at most 256 terms, summed in i32), against numpy's int64
result, bit-exact. Cases:
  extreme  u8 a = 255 (za = 0) against i8 b = -128 (zb = 127): every term
           is -65025 and the 1024-term sums (-66.6M) are far beyond f32's
           exact integers (2^24): only the per-panel split keeps them exact;
  random   i8 a (za = -3) x u8 b with a zero point per column, K = 600
           (panels of 200), N = 200 (blocks of 100), 9 rows;
  rank3    u8 a [2, 5, 96] x i8 b [96, 48] (per-tensor zb = -1).

With --const the weights b are constants of the model (hex dense
literals) rather than inputs: the CPU lowering then takes the 8-bit
dot-product kernel where the target has one (dot_product = "i8",
Int8DotMatmul.cpp: vpdpbusd register tiles, u8 x s8, a signed a shifted to
u8 and an unsigned b to s8), with these cases besides:
  decode   u8 a [1, 256] x i8 b [256, 128] (zb = 0: no row sums; 64-column
           tiles);
  rows11   i8 a [11, 64] (za = 5) x u8 b [64, 48] per column (16-column
           tiles, 8 + 3 rows);
  k_odd    u8 a [3, 30] x i8 b [30, 32] (K not a multiple of 4: the f32
           panels);
  n_odd    u8 a [3, 64] x i8 b [64, 40] (N not a multiple of 16: the f32
           panels);
  n_prime  u8 a [5, 64] x i8 b [64, 131] (N prime, above the panel block of
           128 channels: a block loop and a last block of 3).

With --amx (constant weights), W8A8 prefills for the AMX kernel
(dot_product = "amx_i8", AMXMatmul.cpp: tdpbusd tiles) instead:
  amx_extreme  the extreme case at 32 rows;
  amx_random   i8 a [37, 600] x u8 b [600, 200] per column (a row remainder
               of 5; K padded to 640, N to 224: the zero-point terms of the
               padded columns read 0);
  amx_rank3    u8 a [2, 20, 96] x i8 b [96, 48] (40 rows);
  amx_odd      u8 a [33, 30] x i8 b [30, 131] (K = 30, which the vpdpbusd
               kernel does not take; N prime).

With --sparse (constant weights), pruned weights (16x16 blocks of W[N, K]
at the zero point) with `llm.sparse_format = {format = "bsr16x16"}` on
the matmul, for the sparse W8A8 kernel (SparseMatmul.cpp,
lowerSparseMatmulInteger: vpdpbusd over the nonzero blocks of the levels
b - zb); DIR/model_dense.mlir is the same model without the formats:
  sp_decode   u8 a [1, 256] (za = 3) x i8 b [256, 128], 75% of the blocks
              pruned;
  sp_rows11   i8 a [11, 64] (za = 5) x u8 b [64, 48] with a zero point per
              column (levels b - zb[n] within [-128, 127]);
  sp_odd      u8 a [5, 30] x i8 b [30, 131] (K and N padded to 32 and 144);
  sp_rank3    u8 a [2, 9, 96] x i8 b [96, 48] (18 rows: two tiles of 8 and
              one of 2);
  sp_zero     an all-zero-point weight (no block stored);
  sp_full     every block stored;
  sp_extreme  a = 255 against b = -128 with zb = 127: levels of -255 do not
              fit i8, so the dense kernel runs (the same exact result).

  quant_matmul_integer.py gen DIR [--const | --amx | --sparse]
                              writes DIR/model.mlir, DIR/a<i>.npy (and
                              DIR/b<i>.npy)
  quant_matmul_integer.py check DIR OUTDIR [--const | --amx | --sparse]
"""

import os
import sys

import numpy as np


def amx_cases():
    """W8A8 prefills for the AMX kernel (dot_product = "amx_i8": at least 32
    rows; K and N padded to 64 and 32 in its tiles)."""
    rng = np.random.default_rng(29)
    out = []
    a = np.full((32, 1024), 255)
    b = np.full((1024, 64), -128)
    out.append(("amx_extreme", "u8", 0, a, "i8", [127] * 64, b))
    a = rng.integers(-128, 128, (37, 600))
    b = rng.integers(0, 256, (600, 200))
    out.append(("amx_random", "i8", -3, a, "u8",
                list(rng.integers(0, 256, 200)), b))
    a = rng.integers(0, 256, (2, 20, 96))
    b = rng.integers(-128, 128, (96, 48))
    out.append(("amx_rank3", "u8", 7, a, "i8", [-1], b))
    a = rng.integers(0, 256, (33, 30))
    b = rng.integers(-128, 128, (30, 131))
    out.append(("amx_odd", "u8", 9, a, "i8", [0], b))
    return out


def pruned(b, zb, keep, rng):
    """b [K, N] with the 16x16 blocks of W[N, K] = b^T set to their zero
    point, each kept with probability `keep`."""
    k, n = b.shape
    blocks = rng.random(((k + 15) // 16, (n + 15) // 16)) < keep
    mask = np.kron(blocks, np.ones((16, 16), bool))[:k, :n]
    return np.where(mask, b, np.broadcast_to(np.asarray(zb), b.shape))


def sparse_cases():
    """Pruned constant weights in BSR 16x16 (the sparse W8A8 kernel)."""
    rng = np.random.default_rng(31)
    out = []
    a = rng.integers(0, 256, (1, 256))
    b = pruned(rng.integers(-128, 128, (256, 128)), 0, 0.25, rng)
    out.append(("sp_decode", "u8", 3, a, "i8", [0], b))
    a = rng.integers(-128, 128, (11, 64))
    zb = rng.integers(64, 192, 48)
    b = pruned(np.clip(zb + rng.integers(-100, 100, (64, 48)), 0, 255), zb,
               0.4, rng)
    out.append(("sp_rows11", "i8", 5, a, "u8", list(zb), b))
    a = rng.integers(0, 256, (5, 30))
    b = pruned(rng.integers(-120, 120, (30, 131)), -2, 0.5, rng)
    out.append(("sp_odd", "u8", 9, a, "i8", [-2], b))
    a = rng.integers(0, 256, (2, 9, 96))
    b = pruned(rng.integers(-128, 128, (96, 48)), 0, 0.3, rng)
    out.append(("sp_rank3", "u8", 7, a, "i8", [0], b))
    a = rng.integers(-128, 128, (3, 64))
    out.append(("sp_zero", "i8", -4, a, "i8", [6], np.full((64, 32), 6)))
    a = rng.integers(0, 256, (4, 48))
    b = rng.integers(-127, 128, (48, 32))
    out.append(("sp_full", "u8", 0, a, "i8", [0], np.where(b == 0, 1, b)))
    a = np.full((2, 256), 255)
    b = pruned(np.full((256, 32), -128), 127, 0.5, rng)
    out.append(("sp_extreme", "u8", 0, a, "i8", [127], b))
    return out


def cases(const=False, amx=False, sparse=False):
    if amx:
        return amx_cases()
    if sparse:
        return sparse_cases()
    rng = np.random.default_rng(23)
    out = []
    a = np.full((4, 1024), 255)
    b = np.full((1024, 64), -128)
    out.append(("extreme", "u8", 0, a, "i8", [127] * 64, b))
    a = rng.integers(-128, 128, (9, 600))
    zb = rng.integers(0, 256, 200)
    b = rng.integers(0, 256, (600, 200))
    out.append(("random", "i8", -3, a, "u8", list(zb), b))
    a = rng.integers(0, 256, (2, 5, 96))
    b = rng.integers(-128, 128, (96, 48))
    out.append(("rank3", "u8", 7, a, "i8", [-1], b))
    if not const:
        return out
    a = rng.integers(0, 256, (1, 256))
    b = rng.integers(-128, 128, (256, 128))
    out.append(("decode", "u8", 3, a, "i8", [0], b))
    a = rng.integers(-128, 128, (11, 64))
    b = rng.integers(0, 256, (64, 48))
    out.append(("rows11", "i8", 5, a, "u8", list(rng.integers(0, 256, 48)), b))
    a = rng.integers(0, 256, (3, 30))
    b = rng.integers(-128, 128, (30, 32))
    out.append(("k_odd", "u8", 9, a, "i8", [2], b))
    a = rng.integers(0, 256, (3, 64))
    b = rng.integers(-128, 128, (64, 40))
    out.append(("n_odd", "u8", 1, a, "i8", [0], b))
    a = rng.integers(0, 256, (5, 64))
    b = rng.integers(-128, 128, (64, 131))
    out.append(("n_prime", "u8", 4, a, "i8", [-2], b))
    return out


def qtype(storage, zps, axis=None):
    if axis is None:
        return f"!quant.uniform<{storage}:f32, 1.0:{int(zps[0])}>"
    return (f"!quant.uniform<{storage}:f32:{axis}, {{" +
            ", ".join(f"1.0:{int(z)}" for z in zps) + "}>")


def dims(shape):
    return "x".join(str(d) for d in shape)


def bits(v):
    """int8 view of u8/i8 values."""
    return np.where(v > 127, v - 256, v).astype(np.int8)


def gen(d, const, amx=False, sparse=False):
    for formats in ([True, False] if sparse else [False]):
        write_model(d, const, amx, sparse, formats)


def write_model(d, const, amx, sparse, formats):
    args, body, rets, types = [], [], [], []
    attr = ' {llm.sparse_format = {format = "bsr16x16"}}' if formats else ""
    for i, (name, sa, za, a, sb, zb, b) in enumerate(
            cases(const, amx, sparse)):
        np.save(os.path.join(d, f"a{i}.npy"), bits(a))
        ta = qtype(sa, [za])
        tb = qtype(sb, zb, None if len(zb) == 1 else 1)
        args.append(f"%a{i}: tensor<{dims(a.shape)}xi8>")
        if const:
            body.append(f'  %b{i} = llm.constant dense<"0x'
                        f'{bits(b).tobytes().hex().upper()}"> : '
                        f"tensor<{dims(b.shape)}xi8>\n")
        else:
            np.save(os.path.join(d, f"b{i}.npy"), bits(b))
            args.append(f"%b{i}: tensor<{dims(b.shape)}xi8>")
        rt = f"tensor<{dims(a.shape[:-1] + b.shape[-1:])}xi32>"
        body.append(
            f"  %qa{i} = quant.scast %a{i} : tensor<{dims(a.shape)}xi8> to "
            f"tensor<{dims(a.shape)}x{ta}>\n"
            f"  %qb{i} = quant.scast %b{i} : tensor<{dims(b.shape)}xi8> to "
            f"tensor<{dims(b.shape)}x{tb}>\n"
            f"  %y{i} = llm.matmul_integer %qa{i}, %qb{i}{attr} : "
            f"(tensor<{dims(a.shape)}x{ta}>, tensor<{dims(b.shape)}x{tb}>) "
            f"-> {rt}\n")
        rets.append(f"%y{i}")
        types.append(rt)
    name = "model_dense.mlir" if sparse and not formats else "model.mlir"
    with open(os.path.join(d, name), "w") as f:
        f.write(f"func.func @main({', '.join(args)}) -> ({', '.join(types)})"
                f" {{\n" + "".join(body) +
                f"  return {', '.join(rets)} : {', '.join(types)}\n}}\n")


def check(d, out, const, amx=False, sparse=False):
    ok = True
    for i, (name, sa, za, a, sb, zb, b) in enumerate(
            cases(const, amx, sparse)):
        exp = (a.astype(np.int64) - za) @ (b.astype(np.int64) -
                                           np.asarray(zb, np.int64))
        # i32 accumulation wraps (as the ONNX MatMulInteger reference in
        # i32).
        exp = (exp + 2**31) % 2**32 - 2**31
        got = np.load(os.path.join(out, f"out{i}.npy"))
        good = got.dtype == np.int32 and got.shape == exp.shape and bool(
            np.array_equal(got.astype(np.int64), exp))
        diff = (int(np.abs(got.astype(np.int64) - exp).max())
                if got.shape == exp.shape else -1)
        print(f"{name}: min={int(exp.min())} max_abs_diff={diff} "
              f"{'EXACT' if good else 'FAIL'}")
        ok &= good
    return ok


if __name__ == "__main__":
    amx = "--amx" in sys.argv
    sparse = "--sparse" in sys.argv
    const = "--const" in sys.argv or amx or sparse
    argv = [x for x in sys.argv if x not in ("--const", "--amx", "--sparse")]
    if argv[1] == "gen":
        gen(argv[2], const, amx, sparse)
    else:
        sys.exit(0 if check(argv[2], argv[3], const, amx, sparse) else 1)
