#!/usr/bin/env python3
# ===- quant_edge_shapes.py - quantized matmuls at the edges of the shapes -=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Quantized matmuls that none of the fast kernels take, against numpy:

  * an empty contraction (K = 0): llm.dequant_matmul with one row of x (the
    matvec kernel divided by K: SIGFPE), with 9 rows and a 4-bit weight, and
    llm.matmul_integer, 2-D and batched (the generic contraction crashed the
    CPU tiling). The result is all zeros, as numpy's empty sum;
  * 4-bit dense_resource weights (one element per byte) with an odd K or an
    odd group size, which the packed panels and the matvec kernels do not
    take: the generic contraction could not lower the 4-bit resource ("no
    known conversion for innermost element type");
  * a prime K (257, 1031) with 9 rows: the dequantized panels take one
    panel of all of K (no divisor of K near 256).

Each output is compared with the float64 numpy reference of the ONNX
definitions: |got - exp| <= 1e-5 + 1e-5 |exp| + 1e-6 sum_k |x| |dq(w)|;
integer outputs bit-exact.

  quant_edge_shapes.py gen DIR         writes DIR/model.mlir, DIR/arg<i>.npy
  quant_edge_shapes.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

RANGES = R.RANGES


def weight_cases():
    """name, storage, n, k, group (0: per channel, -1: per tensor), weight
    stored [N, K], rows of x, dense_resource."""
    return [("k0_i8_channel_m1", "i8", 16, 0, 0, True, 1, False),
            ("k0_u4_tensor_m9_kn", "u4", 16, 0, -1, False, 9, False),
            ("i4_resource_k33_m6", "i4", 48, 33, -1, True, 6, True),
            ("i4_resource_k33_m1", "i4", 16, 33, 0, True, 1, True),
            ("u4_resource_group3_kn_m9", "u4", 16, 48, 3, False, 9, True),
            ("i8_prime_k257_m9", "i8", 32, 257, 0, True, 9, False),
            ("u8_prime_k1031_kn_m9", "u8", 32, 1031, -1, False, 9, False)]


def int_cases():
    """name, a shape, b shape (K = 0)."""
    return [("k0_matmul_integer", (3, 0), (0, 40)),
            ("k0_matmul_integer_batched", (2, 3, 0), (2, 0, 5))]


def weight(case, rng):
    name, st, n, k, g, tb, m, res = case
    lo, hi = RANGES[st]
    q = rng.integers(lo, hi + 1, (n, k))  # [N, K]
    groups = 1 if g <= 0 else k // g
    chans = 1 if g < 0 else n
    s = (rng.random((chans, groups)) * 0.05 + 0.01).astype(np.float32)
    z = rng.integers(lo, hi + 1, (chans, groups))
    return q, s, z


def qtype(st, g, tb, s, z):
    if g < 0:
        return f"!quant.uniform<{st}:f32, {float(s[0, 0])!r}:{int(z[0, 0])}>"
    if g == 0:
        return (f"!quant.uniform<{st}:f32:{0 if tb else 1}, {{" + ", ".join(
            f"{float(a)!r}:{int(b)}" for a, b in zip(s[:, 0], z[:, 0])) + "}>")
    # Grouped along K: blocks {kdim: g}, parameters laid out as the weight.
    if tb:
        rows, blocks = zip(s, z), f"{{0:1,1:{g}}}"
    else:
        rows, blocks = zip(s.T, z.T), f"{{0:{g},1:1}}"
    text = ", ".join("{" + ", ".join(f"{float(a)!r}:{int(b)}"
                                     for a, b in zip(sr, zr)) + "}"
                     for sr, zr in rows)
    return f"!quant.uniform<{st}:f32:{blocks}, {{{text}}}>"


def dims(shape):
    return "x".join(str(d) for d in shape)


def storage_bits(q, st):
    """Signless storage values (u8/u4 as their bit patterns)."""
    wide = st in ("i8", "u8")
    return np.where(q > (127 if wide else 7), q - (256 if wide else 16), q)


def gen(d):
    rng = np.random.default_rng(29)
    args, body, rets, types, blobs = [], [], [], [], []
    for case in weight_cases():
        name, st, n, k, g, tb, m, res = case
        i = len(args)
        q, s, z = weight(case, rng)
        x = rng.standard_normal((m, k)).astype(np.float32)
        np.save(os.path.join(d, f"arg{i}.npy"), x)
        args.append(f"%x{i}: tensor<{m}x{k}xf32>")
        sto = "i8" if st in ("i8", "u8") else "i4"
        w = storage_bits(q if tb else q.T, st)
        ws = dims(w.shape)
        qt = qtype(st, g, tb, s, z)
        if res:
            blobs.append(f"      w{i}: \"0x04000000" +
                         w.astype(np.int8).tobytes().hex().upper() + "\"")
            cst = f"dense_resource<w{i}>"
        elif w.size == 0:
            cst = "dense<0>"
        else:
            cst = "dense<" + str(w.tolist()) + ">"
        yt = f"tensor<{m}x{n}xf32>"
        attr = " {transpose_b}" if tb else ""
        body.append(
            f"  %c{i} = arith.constant {cst} : tensor<{ws}x{sto}>\n"
            f"  %q{i} = quant.scast %c{i} : tensor<{ws}x{sto}> to "
            f"tensor<{ws}x{qt}>\n"
            f"  %y{i} = llm.dequant_matmul %x{i}, %q{i}{attr} : "
            f"(tensor<{m}x{k}xf32>, tensor<{ws}x{qt}>) -> {yt}\n")
        rets.append(f"%y{i}")
        types.append(yt)
    for name, ash, bsh in int_cases():
        i = len(args)
        np.save(os.path.join(d, f"arg{i}.npy"), np.zeros(ash, np.int8))
        np.save(os.path.join(d, f"arg{i + 1}.npy"), np.zeros(bsh, np.int8))
        ta = f"tensor<{dims(ash)}x!quant.uniform<u8:f32, 1.0:255>>"
        tb = f"tensor<{dims(bsh)}x!quant.uniform<i8:f32, 1.0:-128>>"
        args += [f"%a{i}: tensor<{dims(ash)}xi8>", f"%b{i}: tensor<{dims(bsh)}xi8>"]
        yt = f"tensor<{dims(ash[:-1] + bsh[-1:])}xi32>"
        body.append(
            f"  %qa{i} = quant.scast %a{i} : tensor<{dims(ash)}xi8> to {ta}\n"
            f"  %qb{i} = quant.scast %b{i} : tensor<{dims(bsh)}xi8> to {tb}\n"
            f"  %y{i} = llm.matmul_integer %qa{i}, %qb{i} : ({ta}, {tb}) -> "
            f"{yt}\n")
        rets.append(f"%y{i}")
        types.append(yt)
    text = (f"func.func @main({', '.join(args)}) -> ({', '.join(types)}) {{\n"
            + "".join(body) +
            f"  return {', '.join(rets)} : {', '.join(types)}\n}}\n")
    if blobs:
        text += ("{-#\n  dialect_resources: {\n    builtin: {\n" +
                 ",\n".join(blobs) + "\n    }\n  }\n#-}\n")
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        f.write(" ".join(f"--input arg{j}={os.path.join(d, f'arg{j}.npy')}"
                         for j in range(i + 2)))


def check(d, out):
    rng = np.random.default_rng(29)
    ok, j, a = True, 0, 0
    for case in weight_cases():
        name, st, n, k, g, tb, m, res = case
        q, s, z = weight(case, rng)
        rng.standard_normal((m, k))  # x, as gen draws it
        x = np.load(os.path.join(d, f"arg{a}.npy")).astype(np.float64)
        G = max(k, 1) if g <= 0 else g
        sf = np.repeat(np.broadcast_to(s, (n, s.shape[1])), G, axis=1)[:, :k]
        zf = np.repeat(np.broadcast_to(z, (n, z.shape[1])), G, axis=1)[:, :k]
        # (K = 0: an empty [N, 0] weight, whose product is all zeros.)
        dq = (R.dequantize_linear(q, sf, zf).astype(np.float64) if k else
              np.zeros((n, 0)))
        exp = x @ dq.T
        bound = 1e-5 + 1e-5 * np.abs(exp) + 1e-6 * (np.abs(x) @ np.abs(dq).T)
        got = np.load(os.path.join(out, f"out{j}.npy")).astype(np.float64)
        good = got.shape == exp.shape and bool(np.all(np.abs(got - exp) <= bound))
        err = np.abs(got - exp).max(initial=0) if got.shape == exp.shape else np.inf
        print(f"{name}: max_abs_err={err:.3g} {'PASS' if good else 'FAIL'}")
        ok &= good
        j, a = j + 1, a + 1
    for name, ash, bsh in int_cases():
        exp = R.matmul_integer(np.zeros(ash), np.zeros(bsh), 255, -128)
        got = np.load(os.path.join(out, f"out{j}.npy"))
        good = (got.dtype == np.int32 and got.shape == exp.shape and
                bool(np.array_equal(got, exp)))
        print(f"{name}: shape={list(got.shape)} {'EXACT' if good else 'FAIL'}")
        ok &= good
        j, a = j + 1, a + 2
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
