#!/usr/bin/env python3
# ===- quant_matvec.py - weight-only decode matvecs vs numpy ------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Weight-only decode matvecs `x[1, K] @ dequantize(w)^T` with the weight
stored [N, K] (torch.nn.Linear's layout), the shape that
`llm.dequant_matmul`'s vectorized matvec kernel handles (one row of x,
`transpose_b`): i8 per output channel, u8 per tensor with a zero point, i8
in groups of 64 with zero points, i4 in groups of 32 with zero points
(inline constant), i4 in groups of 64 from a `dense_resource` blob (one
element per byte, as a user writes it), u4 in groups of 128 with zero
points, and an N of 6 (blocks of 2 rows); and a few rows of x (2, 3, 4:
a short prefill, where each unpacked weight chunk feeds every row; i8
symmetric with 2 rows and i8 in groups of 32, for the streaming block
shapes' 64- and 32-element chunks). 4-bit
constants are packed two per byte by the lowering. Compared with a float64 numpy reference of the
ONNX definitions (rtol 1e-5, atol 1e-5 + 1e-6 * sum|x| |dq(w)|: f32
accumulation over K = 256 in a different order than the reference; with
--bf16, for the 4-bit cases, + 2^-16 * sum|x| |dq(w)|: the AVX512-BF16
kernel carries x as two bf16 terms, |x - hi - lo| <= 2^-16 |x|).

  quant_matvec.py gen DIR [--inline]  writes DIR/model.mlir, DIR/x.npy
                                      (1 row) and DIR/xm.npy (4 rows)
                                      (--inline: no dense_resource, which
                                      the unfused path cannot lower for i4)
  quant_matvec.py check DIR OUTDIR [--bf16]
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

# K (a multiple of 128) from QUANT_MATVEC_K: 1024 gives the 4-bit kernel a
# chunk loop of 8 steps, which the streaming shapes unroll by 4.
K, N = int(os.environ.get("QUANT_MATVEC_K", "256")), 12
XM = 4  # rows of the multi-row input


def cases():
    rng = np.random.default_rng(11)
    out = []
    # name, storage, lo, hi, n, group (0: per channel, -1: per tensor), zp,
    # rows of x
    for name, storage, lo, hi, n, g, zp, m in [
            ("i8_per_channel", "i8", -128, 127, N, 0, False, 1),
            ("u8_per_tensor_zp", "u8", 0, 255, N, -1, True, 1),
            ("i8_group64_zp", "i8", -128, 127, N, 64, True, 1),
            ("i4_group32_zp", "i4", -8, 7, N, 32, True, 1),
            ("i4_group64_resource", "i4", -8, 7, N, 64, False, 1),
            ("u4_group128_zp", "u4", 0, 15, N, 128, True, 1),
            ("i8_n6", "i8", -128, 127, 6, 0, True, 1),
            ("i4_group32_zp_m3", "i4", -8, 7, N, 32, True, 3),
            ("u4_group64_zp_m2", "u4", 0, 15, N, 64, True, 2),
            ("i8_group64_zp_m4", "i8", -128, 127, N, 64, True, 4),
            ("i8_per_channel_m2", "i8", -128, 127, N, 0, False, 2),
            ("i8_group32_zp", "i8", -128, 127, N, 32, True, 1)]:
        q = rng.integers(lo, hi + 1, (n, K))
        groups = 1 if g <= 0 else K // g
        rows = 1 if g < 0 else n
        s = (rng.random((rows, groups)) * 0.05 + 0.01).astype(np.float32)
        z = (rng.integers(lo + 2, hi - 1, (rows, groups)) if zp else
             np.zeros((rows, groups), np.int64))
        out.append((name, storage, n, g, q, s, z, m))
    return out


def qtype(storage, n, g, s, z):
    if g < 0:
        return f"!quant.uniform<{storage}:f32, {float(s[0, 0])!r}:{int(z[0, 0])}>"
    if g == 0:
        return (f"!quant.uniform<{storage}:f32:0, {{" + ", ".join(
            f"{float(a)!r}:{int(b)}" for a, b in zip(s[:, 0], z[:, 0])) + "}>")
    rows = ", ".join("{" + ", ".join(f"{float(a)!r}:{int(b)}"
                                     for a, b in zip(sr, zr)) + "}"
                     for sr, zr in zip(s, z))
    return f"!quant.uniform<{storage}:f32:{{0:1,1:{g}}}, {{{rows}}}>"


def lit(a):
    return "[" + ", ".join(lit(v) for v in a) + "]" if np.ndim(a) else str(
        int(a))


def gen(d, inline=False):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, K)).astype(np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "xm.npy"),
            rng.standard_normal((XM, K)).astype(np.float32))
    body, rets, types, blobs = [], [], [], []
    for i, (name, storage, n, g, q, s, z, m) in enumerate(cases()):
        st = "i8" if storage in ("i8", "u8") else "i4"
        qt = qtype(storage, n, g, s, z)
        if name.endswith("resource") and not inline:
            data = "0x04000000" + q.astype(np.int8).tobytes().hex().upper()
            blobs.append(f"      w{i}: \"{data}\"")
            cst = f"dense_resource<w{i}>"
        else:
            # u8/u4 constants are written as their signless bit patterns.
            bits = np.where(q > (127 if st == "i8" else 7),
                            q - (256 if st == "i8" else 16), q)
            cst = f"dense<{lit(bits)}>"
        body.append(
            f"  %c{i} = arith.constant {cst} : tensor<{n}x{K}x{st}>\n"
            f"  %q{i} = quant.scast %c{i} : tensor<{n}x{K}x{st}> to "
            f"tensor<{n}x{K}x{qt}>\n"
            f"  %w{i} = llm.dequantize %q{i} : (tensor<{n}x{K}x{qt}>) -> "
            f"tensor<{n}x{K}xf32>\n")
        xv = "%x"
        if m > 1:
            xv = f"%x{i}"
            body.append(
                f"  {xv} = llm.slice %xm {{starts = array<i64: 0, 0>, "
                f"limits = array<i64: {m}, {K}>, strides = array<i64: 1, 1>}}"
                f" : (tensor<{XM}x{K}xf32>) -> tensor<{m}x{K}xf32>\n")
        body.append(
            f"  %y{i} = llm.matmul {xv}, %w{i} {{transpose_b}} : "
            f"(tensor<{m}x{K}xf32>, tensor<{n}x{K}xf32>) -> tensor<{m}x{n}xf32>\n")
        rets.append(f"%y{i}")
        types.append(f"tensor<{m}x{n}xf32>")
    text = (f"func.func @main(%x: tensor<1x{K}xf32>, %xm: tensor<{XM}x{K}xf32>)"
            f" -> ({', '.join(types)}) {{\n"
            + "".join(body) +
            f"  return {', '.join(rets)} : {', '.join(types)}\n}}\n")
    if blobs:
        text += ("{-#\n  dialect_resources: {\n    builtin: {\n" +
                 ",\n".join(blobs) + "\n    }\n  }\n#-}\n")
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d, out, bf16=False):
    x1 = np.load(os.path.join(d, "x.npy")).astype(np.float64)
    xm = np.load(os.path.join(d, "xm.npy")).astype(np.float64)
    ok = True
    for i, (name, storage, n, g, q, s, z, m) in enumerate(cases()):
        x = x1 if m == 1 else xm[:m]
        G = K if g <= 0 else g
        sf = np.repeat(np.broadcast_to(s, (n, s.shape[1])), G, axis=1)
        zf = np.repeat(np.broadcast_to(z, (n, z.shape[1])), G, axis=1)
        dq = R.dequantize_linear(q, sf, zf).astype(np.float64)
        exp = x @ dq.T
        rel = 1e-6 + (2.0**-16 if bf16 and storage in ("i4", "u4") else 0.0)
        bound = 1e-5 + 1e-5 * np.abs(exp) + rel * (np.abs(x) @ np.abs(dq).T)
        got = np.load(os.path.join(out, f"out{i}.npy")).astype(np.float64)
        err = np.abs(got - exp)
        good = got.shape == exp.shape and bool(np.all(err <= bound))
        print(f"{name}: max_abs_err={err.max():.3g} "
              f"{'PASS' if good else 'FAIL'}")
        ok &= good
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], inline=sys.argv[3:] == ["--inline"])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3],
                            bf16=sys.argv[4:] == ["--bf16"]) else 1)
