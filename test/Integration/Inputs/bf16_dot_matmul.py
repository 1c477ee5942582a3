#!/usr/bin/env python3
# ===- bf16_dot_matmul.py - matmuls on bf16 dot products ----------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Matmuls `x @ W` by constant weights on the bf16 dot-product kernel
(`dot_product = "bf16"`: AVX512-BF16 vdpbf16ps), and half-precision matmuls
on the f32 FMA kernels:

  demote.mlir   f32 models compiled with demote-contraction-inputs=bf16:
                the inputs are rounded to bf16 (nearest even), the products
                summed in f32. Shapes: decode rows (1, 3), odd K (7, 77),
                a 3-D lhs, N of one, two and four vectors of 16, W stored
                [N, K] (transpose_b), an epilogue (bias + gelu + residual;
                2-D and 3-D lhs), prefill sizes (130 x 768 @ 768 x 768), and
                decode rows whose lhs is a layer_norm / rms_norm of the input
                (the norm recomputed in each block of the kernel), and a
                dynamic number of rows (DYNAMIC: `?` with llm.dim_bounds,
                run at a length that leaves 8-, 4-, 2- and 1-row tiles).
  bf16.mlir     bf16 models (weights, activations and results bf16): the
                same kernel by default on AVX512-BF16 targets.
  amx.mlir      f32 models of at least 32 rows, demoted: the AMX kernel
                (dot_product = "amx_bf16") on AMX targets, or with
                emulate-amx (llm-emulate-amx) on AVX512-BF16 ones.
  amx_bf16.mlir a bf16 model on the AMX kernel.
  f16.mlir      an f16 model (the FMA kernel, f16 tiles extended to f32).

Reference (float64 numpy): the demoted inputs rounded to bf16 first (on a
host without AVX512-BF16 the matmuls stay f32 and the reference is the f32
one), then |got - ref| <= 1e-5 * sum_k |x w| + 1e-6; the bf16 / f16 results
are rounded to their type once more: + 2^-8 (bf16) or 2^-11 (f16) of |ref|.
The demoted results must also differ from the exact f32 product by more
than that tolerance somewhere (else the option did nothing).

  bf16_dot_matmul.py gen DIR             writes the models (KIND.mlir, and
                                         KIND_ENTRY.mlir with one function)
                                         and the inputs
  bf16_dot_matmul.py check LLMC DIR OUT KIND
      compares OUT/<entry>/out0.npy of the KIND models (demote, bf16, f16,
      amx, amx_bf16);
      whether the host has bf16 dot products is read from
      `LLMC --print-target`
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from llmc_model_text import literal  # noqa: E402

# entry, lhs shape, K, N, transpose_b, epilogue
DEMOTE = [
    ("decode1", (1, 64), 64, 64, False, False),
    ("decode3", (3, 48), 48, 16, False, False),
    ("odd_k", (5, 7), 7, 32, False, False),
    ("odd_k77", (13, 77), 77, 48, True, False),
    ("batch3d", (2, 9, 40), 40, 64, False, False),
    ("epilogue", (17, 96), 96, 256, False, True),
    ("epilogue3d", (2, 9, 40), 40, 256, False, True),
    ("prefill", (130, 768), 768, 768, True, False),
    # N not a multiple of 16: zero-padded columns, the result sliced.
    ("odd_n", (6, 64), 64, 72, False, False),
    ("lm_head", (1, 96), 96, 1001, True, False),
    # A norm prologue (NORM): x -> norm(x) before the matmul.
    ("norm_decode1", (1, 64), 64, 256, False, True),
    ("rms_decode4", (4, 96), 96, 256, True, False),
    # Dynamic rows (DYNAMIC), run at these lengths: 12-row tiles (N = 64)
    # then 8 + 2 + 1; 4 + 1; 16-row tiles (N = 48) then 4 + 2 + 1; a 3-D
    # lhs [1, ?, 40] with the epilogue.
    ("dyn_rows23", (23, 96), 96, 64, False, False),
    ("dyn_rows5", (5, 96), 96, 64, True, False),
    ("dyn_rows39", (39, 77), 77, 48, False, False),
    ("dyn_epilogue3d", (1, 11, 40), 40, 256, False, True),
    # One block of columns (N = 64): its loop kept (#llm.block_loop), the
    # epilogue and the decode step's norm prologue fused into it.
    ("epilogue64", (17, 96), 96, 64, False, True),
    ("norm_decode64", (1, 64), 64, 64, False, True),
    # N not a multiple of 16 with the epilogue fused (the last block's
    # width min(128, N - n0), its writes past N masked): two blocks of 128
    # (N = 200), and a dynamic sequence (N = 72, one block).
    ("epilogue200", (17, 96), 96, 200, False, True),
    ("dyn_epilogue72", (1, 11, 40), 40, 72, False, True),
]
# entry -> the norm of its lhs (scale g, and a bias b for layer_norm).
NORM = {"norm_decode1": "layer", "rms_decode4": "rms",
        "norm_decode64": "layer"}
EPS = 1e-5
BF16 = [
    ("bf_decode", (1, 64), 64, 32, False, False),
    ("bf_prefill", (37, 96), 96, 80, True, False),
    ("bf_epilogue", (20, 64), 64, 48, False, True),
    ("bf_dyn_rows13", (13, 64), 64, 32, False, False),
]
# Entries whose rows are dynamic (the sequence), at most BOUND.
DYNAMIC = {"dyn_rows23", "dyn_rows5", "dyn_rows39", "dyn_epilogue3d",
           "dyn_epilogue72",
           "bf_dyn_rows13"}
BOUND = 64
F16 = [("f16_prefill", (40, 96), 96, 64, False, False)]
# The AMX kernel (dot_product = "amx_bf16": at least 32 static rows), f32
# models demoted to bf16: one row block and panel; a row remainder with N
# padded to 96 and W [N, K]; K padded (77 -> 96); a 3-D lhs with the
# epilogue fused over two blocks of 128 columns; a prefill; N = 1001 padded
# to 1024.
AMX = [
    ("amx_rows32", (32, 64), 64, 32, False, False),
    ("amx_rows37", (37, 96), 96, 80, True, False),
    ("amx_odd_k", (40, 77), 77, 64, False, False),
    ("amx_3d", (2, 20, 40), 40, 256, False, True),
    ("amx_prefill", (130, 768), 768, 768, True, False),
    ("amx_wide", (33, 32), 32, 1001, False, False),
]
# A bf16 model on the AMX kernel: N = 48 padded to 64, the epilogue after
# the slice.
AMX_BF16 = [("amx_bf_epilogue", (64, 96), 96, 48, False, True)]


def to_bf16(a):
    """float32 -> the nearest bf16 (ties to even), as float32."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


def cases(kind):
    return {"demote": DEMOTE, "bf16": BF16, "f16": F16, "amx": AMX,
            "amx_bf16": AMX_BF16}[kind]


def data(entry, lhs, k, n, tb):
    rng = np.random.default_rng(sum(map(ord, entry)))
    x = rng.uniform(-1, 1, lhs).astype(np.float32)
    w = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, (n,)).astype(np.float32)
    res = rng.uniform(-1, 1, lhs[:-1] + (n,)).astype(np.float32)
    return x, w, bias, res


def norm_params(entry, k):
    rng = np.random.default_rng(sum(map(ord, entry)) + 1)
    return (rng.uniform(0.5, 1.5, (k,)).astype(np.float32),
            rng.uniform(-0.5, 0.5, (k,)).astype(np.float32))


def normalize(entry, x, k):
    """The norm prologue of `entry` in float64 (x unchanged without one)."""
    if entry not in NORM:
        return x.astype(np.float64)
    g, b = (a.astype(np.float64) for a in norm_params(entry, k))
    xd = x.astype(np.float64)
    if NORM[entry] == "layer":
        c = xd - xd.mean(-1, keepdims=True)
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + EPS) * g + b
    return xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + EPS) * g


def near_bf16_tie(v):
    """Elements of float32 `v` within 1e-5 (relative) of a bf16 rounding
    tie: the kernel's f32 norm and the float64 reference may round them to
    different bf16 neighbours."""
    lo = (np.asarray(v, np.float32).view(np.uint32) & 0xFFFF0000)
    mid = (lo | 0x8000).view(np.float32).astype(np.float64)
    return np.abs(v.astype(np.float64) - mid) <= 1e-5 * np.abs(v)


def ty(shape, et):
    return "tensor<" + "x".join(map(str, shape)) + "x" + et + ">"


def dyn(shape):
    """`shape` with its rows dimension (second to last) dynamic."""
    return shape[:-2] + ("?",) + shape[-1:]


def bounded(shape, et):
    """An argument type of dynamic rows, with their bound."""
    bounds = ", ".join(map(str, shape[:-2] + (BOUND,) + shape[-1:]))
    return f"{ty(dyn(shape), et)} {{llm.dim_bounds = array<i64: {bounds}>}}"


def gen(d):
    os.makedirs(d, exist_ok=True)
    for kind, et in (("demote", "f32"), ("bf16", "bf16"), ("f16", "f16"),
                     ("amx", "f32"), ("amx_bf16", "bf16")):
        funcs = []
        for entry, lhs, k, n, tb, epi in cases(kind):
            x, w, bias, res = data(entry, lhs, k, n, tb)
            if et == "bf16":
                x, w, bias, res = map(to_bf16, (x, w, bias, res))
            if et == "f16":
                x, w, bias, res = (a.astype(np.float16) for a in (x, w, bias, res))
            out = lhs[:-1] + (n,)
            args = [f"%x: {ty(lhs, et)}"] + ([f"%r: {ty(out, et)}"] if epi else [])
            if entry in DYNAMIC:
                args = [f"%x: {bounded(lhs, et)}"] + (
                    [f"%r: {bounded(out, et)}"] if epi else [])
                lhs, out = dyn(lhs), dyn(out)
            attr = " {transpose_b}" if tb else ""
            body, a = [], "%x"
            if entry in NORM:
                g, b = norm_params(entry, k)
                body.append(f"  %g0 = llm.constant {literal(g)} : {ty((k,), et)}")
                if NORM[entry] == "layer":
                    body += [f"  %b0 = llm.constant {literal(b)} : {ty((k,), et)}",
                             f"  %xn = llm.layer_norm %x scale %g0 bias %b0 {{axis = -1 : i64, epsilon = {EPS:.1e} : f32}} : ({ty(lhs, et)}, {ty((k,), et)}, {ty((k,), et)}) -> {ty(lhs, et)}"]
                else:
                    body.append(f"  %xn = llm.rms_norm %x weight %g0 {{epsilon = {EPS:.1e} : f32}} : ({ty(lhs, et)}, {ty((k,), et)}) -> {ty(lhs, et)}")
                a = "%xn"
            body += [f"  %w = llm.constant {literal(w.astype(np.float32))} : {ty(w.shape, et)}",
                     f"  %y = llm.matmul {a}, %w{attr} : ({ty(lhs, et)}, {ty(w.shape, et)}) -> {ty(out, et)}"]
            result = "%y"
            if epi:
                body += [f"  %b = llm.constant {literal(bias.astype(np.float32))} : {ty((n,), et)}",
                         f"  %yb = llm.add %y, %b : ({ty(out, et)}, {ty((n,), et)}) -> {ty(out, et)}",
                         f"  %g = llm.gelu %yb : {ty(out, et)}",
                         f"  %o = llm.add %g, %r : ({ty(out, et)}, {ty(out, et)}) -> {ty(out, et)}"]
                result = "%o"
            funcs.append(f"func.func @{entry}({', '.join(args)}) -> {ty(out, et)} {{\n"
                         + "\n".join(body) + f"\n  return {result} : {ty(out, et)}\n}}\n")
            # Each function also in a module of its own (its kernel count).
            with open(os.path.join(d, f"{kind}_{entry}.mlir"), "w") as f:
                f.write(funcs[-1])
            npt = np.float16 if et == "f16" else np.float32
            np.save(os.path.join(d, f"{entry}_x.npy"), x.astype(npt))
            if epi:
                np.save(os.path.join(d, f"{entry}_r.npy"), res.astype(npt))
        with open(os.path.join(d, f"{kind}.mlir"), "w") as f:
            f.write("\n".join(funcs))


def gelu(v):
    from math import erf
    return 0.5 * v * (1.0 + np.vectorize(erf)(v / np.sqrt(2.0)))


def check(d, outdir, kind, bf16_dot):
    ok = True
    for entry, lhs, k, n, tb, epi in cases(kind):
        x, w, bias, res = data(entry, lhs, k, n, tb)
        if kind in ("bf16", "amx_bf16"):
            x, w, bias, res = map(to_bf16, (x, w, bias, res))
        if kind == "f16":
            x, w, bias, res = (a.astype(np.float16).astype(np.float32)
                               for a in (x, w, bias, res))
        wk = (w.T if tb else w).astype(np.float64)
        xd = normalize(entry, x, k)
        exact = xd @ wk
        demoted = kind in ("demote", "amx") and bf16_dot
        slack = 0.0
        if demoted:
            x32 = xd.astype(np.float32)
            if entry in NORM:
                # The kernel's f32 norm may round to the other bf16
                # neighbour next to a tie: one bf16 ulp of those elements.
                slack = (np.where(near_bf16_tie(x32), 2.0**-8 * np.abs(xd),
                                  0.0) @ np.abs(wk))
            xd, wk = to_bf16(x32).astype(np.float64), to_bf16(wk.astype(np.float32)).astype(np.float64)
        ref = xd @ wk
        tol = 1e-5 * (np.abs(xd) @ np.abs(wk)) + 1e-6 + slack
        # One rounding to the result type (bf16 / f16): 2 half-ulps.
        ulp = {"bf16": 2.0**-8, "amx_bf16": 2.0**-8,
               "f16": 2.0**-11}.get(kind, 0.0)
        if epi:
            # gelu's slope is below 1.13: the errors before it pass scaled by
            # at most that; the bias, gelu and residual add f32 rounding, and
            # in a bf16 model each op may round its result to bf16.
            mm, biased = ref, ref + bias
            g = gelu(biased)
            ref = g + res
            exact = gelu(exact + bias) + res
            tol = (1.13 * (tol + ulp * (np.abs(mm) + np.abs(biased)))
                   + ulp * np.abs(g) + 1e-6 * (np.abs(ref) + 1))
        tol = tol + ulp * np.abs(ref)
        got = np.load(os.path.join(outdir, entry, "out0.npy")).astype(np.float64)
        err = np.abs(got - ref)
        good = got.shape == ref.shape and bool(np.all(err <= tol))
        line = (f"{entry}: shape {list(got.shape)} max_abs_err={err.max():.3g} "
                f"max_tol={tol.max():.3g}")
        if demoted:
            # Non-vacuous: the exact f32 product is out of tolerance somewhere.
            moved = bool(np.any(np.abs(got - exact) > tol))
            line += f" demoted={'yes' if moved else 'no'}"
            good = good and moved
        print(line + (" PASS" if good else " FAIL"))
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) == 6 and sys.argv[1] == "check":
        target = subprocess.run([sys.argv[2], "--print-target"], check=True,
                                capture_output=True, text=True).stdout
        bf16_dot = "bf16 matmul bf16 (vdpbf16ps)" in target
        print(f"host bf16 dot products: {'yes' if bf16_dot else 'no'}")
        sys.exit(check(sys.argv[3], sys.argv[4], sys.argv[5], bf16_dot))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
