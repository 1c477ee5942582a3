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

  quant_matmul_integer.py gen DIR     writes DIR/model.mlir, DIR/a<i>.npy,
                                      DIR/b<i>.npy
  quant_matmul_integer.py check DIR OUTDIR
"""

import os
import sys

import numpy as np


def cases():
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


def gen(d):
    args, body, rets, types = [], [], [], []
    for i, (name, sa, za, a, sb, zb, b) in enumerate(cases()):
        np.save(os.path.join(d, f"a{i}.npy"), bits(a))
        np.save(os.path.join(d, f"b{i}.npy"), bits(b))
        ta = qtype(sa, [za])
        tb = qtype(sb, zb, None if len(zb) == 1 else 1)
        args += [f"%a{i}: tensor<{dims(a.shape)}xi8>",
                 f"%b{i}: tensor<{dims(b.shape)}xi8>"]
        rt = f"tensor<{dims(a.shape[:-1] + b.shape[-1:])}xi32>"
        body.append(
            f"  %qa{i} = quant.scast %a{i} : tensor<{dims(a.shape)}xi8> to "
            f"tensor<{dims(a.shape)}x{ta}>\n"
            f"  %qb{i} = quant.scast %b{i} : tensor<{dims(b.shape)}xi8> to "
            f"tensor<{dims(b.shape)}x{tb}>\n"
            f"  %y{i} = llm.matmul_integer %qa{i}, %qb{i} : "
            f"(tensor<{dims(a.shape)}x{ta}>, tensor<{dims(b.shape)}x{tb}>) "
            f"-> {rt}\n")
        rets.append(f"%y{i}")
        types.append(rt)
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(f"func.func @main({', '.join(args)}) -> ({', '.join(types)})"
                f" {{\n" + "".join(body) +
                f"  return {', '.join(rets)} : {', '.join(types)}\n}}\n")


def check(d, out):
    ok = True
    for i, (name, sa, za, a, sb, zb, b) in enumerate(cases()):
        exp = (a.astype(np.int64) - za) @ (b.astype(np.int64) -
                                           np.asarray(zb, np.int64))
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
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
