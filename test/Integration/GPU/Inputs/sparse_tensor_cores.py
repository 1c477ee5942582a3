#!/usr/bin/env python3
# ===- sparse_tensor_cores.py - 2:4 weights on mma.sp against numpy -----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Matmuls of tensor-core shapes (M and N multiples of 64, K of 32) whose
constant weight is 2:4 along K (groups with 2, 1 or no nonzeros; all-zero
output channels), which `llmc --target cuda --sparsify` runs on the sparse
tensor cores (mma.sp m16n8k32, the weight packed at compile time): f16
weights in both layouts ([K, N], and [N, K] with transpose_b) with a bias,
bf16 with a batch dim, an f32 one that `demote-contraction-inputs=bf16`
rounds, one weight read by two matmuls (packed once), and a weight that is
not 2:4 (stays on mma.sync).

  sparse_tensor_cores.py gen DIR   writes DIR/model.mlir, DIR/arg<i>.npy
                                   and DIR/inputs.txt
  sparse_tensor_cores.py check DIR SPARSE_OUT DENSE_OUT
                                   compares the --sparsify run with float64
                                   numpy and with the dense run
  sparse_tensor_cores.py python DIR
                                   the same model through Python's
                                   llmc.compile(target="cuda-emulator",
                                   sparsify="auto"), checked against numpy

The model runs with demote-contraction-inputs=bf16, so numpy rounds the f32
case's inputs to bf16 (nearest even) and the other inputs are exact in
their type. Each output is the f32 sum of exact products, rounded once to
the output type: |out - numpy| <= u |numpy| + 1e-6 S with S = sum_k |x||w|
(f32 reordering) and u the output's unit roundoff (f16 2^-11, f32 0); the
sparse and the dense runs agree within twice that.
"""

import os
import sys

import numpy as np

from llmc_model_text import literal, main_func, write_inputs

# name, activation rows (M last), N, K, transpose_b, dtype, pattern, bias
CASES = [
    ("f16_kn_bias", (128,), 192, 96, False, "f16", "nm24", True),
    ("f16_nk", (64,), 128, 64, True, "f16", "nm24", False),
    ("bf16_batch", (2, 64), 128, 64, False, "bf16", "nm24", False),
    ("f16_zero_channels", (64,), 64, 128, False, "f16", "nm24zero", False),
    ("f32_demoted", (128,), 64, 64, False, "f32", "nm24", False),
    ("f16_shared", (64,), 192, 96, False, "f16", "same:0", False),
    ("f16_not24", (64,), 64, 64, True, "f16", "dense", False),
]


def bf16(a):
    """`a` (float32) rounded to bf16 (nearest even), as float32."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def pruned(pattern, n, k, rng):
    """W[N, K]: values with few mantissa bits (exact in f16 and bf16)."""
    w = rng.integers(-16, 17, (n, k)) / 8.0
    w = np.where(w == 0, 0.125, w)
    if pattern == "dense":
        return w
    out = np.zeros((n, k))
    for r in range(n):
        if pattern == "nm24zero" and r % 5 == 2:
            continue  # an all-zero output channel
        for g in range(0, k, 4):
            keep = rng.choice(4, rng.choice([0, 1, 2, 2, 2]), replace=False)
            out[r, g + keep] = w[r, g + keep]
    return out


def dims(shape):
    return "x".join(str(d) for d in shape)


def data(seed=5):
    rng = np.random.default_rng(seed)
    out = []
    for case in CASES:
        name, lead, n, k, tb, dt, pattern, bias = case
        if pattern.startswith("same:"):
            w = out[int(pattern[5:])][1]
        else:
            w = pruned(pattern, n, k, rng)
        np_t = np.float16 if dt == "f16" else np.float32
        x = rng.standard_normal(lead + (k,)).astype(np_t)
        b = rng.standard_normal(n).astype(np_t) if bias else None
        out.append((case, w, x, b))
    return out


def model():
    args, body, rets, types = [], [], [], []
    for i, ((name, lead, n, k, tb, dt, pattern, bias), w, x,
            b) in enumerate(data()):
        io = "f16" if dt == "f16" else "f32"
        xt = f"tensor<{dims(lead + (k,))}x{io}>"
        yt = f"tensor<{dims(lead + (n,))}x{io}>"
        args.append(f"%x{i}: {xt}")
        wshape = (n, k) if tb else (k, n)
        attr = " {transpose_b}" if tb else ""
        loc = f'loc("{name}")'
        if pattern.startswith("same:"):
            wv = f"%w{pattern[5:]}"
            wt = f"tensor<{dims(wshape)}x{dt}>"
        else:
            wv = f"%w{i}"
            wt = f"tensor<{dims(wshape)}x{dt}>"
            body.append(f"  %w{i} = llm.constant {literal(w if tb else w.T)} "
                        f": {wt} {loc}\n")
        xin = f"%x{i}"
        if dt == "bf16":
            # numpy has no bf16: f32 in and out, rounded inside.
            bt = f"tensor<{dims(lead + (k,))}xbf16>"
            body.append(f"  %xb{i} = llm.cast %x{i} : ({xt}) -> {bt}\n")
            xin, xt_mm, yt_mm = f"%xb{i}", bt, f"tensor<{dims(lead + (n,))}xbf16>"
        else:
            xt_mm, yt_mm = xt, yt
        body.append(f"  %y{i} = llm.matmul {xin}, {wv}{attr} : ({xt_mm}, "
                    f"{wt}) -> {yt_mm} {loc}\n")
        result = f"%y{i}"
        if dt == "bf16":
            body.append(f"  %yf{i} = llm.cast %y{i} : ({yt_mm}) -> {yt}\n")
            result = f"%yf{i}"
        if bias:
            bt = f"tensor<{n}x{io}>"
            body.append(f"  %b{i} = llm.constant {literal(b)} : {bt}\n"
                        f"  %s{i} = llm.add {result}, %b{i} : ({yt}, {bt}) -> "
                        f"{yt}\n")
            result = f"%s{i}"
        rets.append(result)
        types.append(yt)
    return main_func(args, body, rets, types)


def gen(d):
    write_inputs(d, [x for (_, _, x, _) in data()])
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(model())


def reference(case, w, x, b):
    """float64 numpy's result of `case` and its error bound."""
    name, lead, n, k, tb, dt, pattern, bias = case
    xf = x.astype(np.float64)
    if dt in ("bf16", "f32"):
        xf = bf16(x).astype(np.float64)
    wf = w.astype(np.float64)
    exp = xf @ wf.T
    s = np.abs(xf) @ np.abs(wf).T
    u = 0.0
    if dt == "bf16":  # the matmul's result is bf16
        u = 2.0 ** -8
    elif dt == "f16":
        u = 2.0 ** -11
    if bias:
        exp = (exp.astype(np.float16 if dt == "f16" else np.float32)
               .astype(np.float64) + b.astype(np.float64))
        s = s + np.abs(b.astype(np.float64))
        u *= 2  # rounded twice
    return exp, u * np.abs(exp) + 1e-6 * s + 1e-6


def check_python(d):
    import llmc
    with open(os.path.join(d, "model.mlir")) as f:
        text = f.read()
    model = llmc.compile(text, target="cuda-emulator", sparsify="auto",
                         demote_contraction_inputs="bf16", cache=False)
    outs = model(*[x for (_, _, x, _) in data()])
    ok = True
    for (case, w, x, b), got in zip(data(), outs):
        exp, bound = reference(case, w, x, b)
        good = bool(np.all(np.abs(got.astype(np.float64) - exp) <= bound))
        print(f"python {case[0]}: {'PASS' if good else 'FAIL'}")
        ok &= good
    sys.exit(0 if ok else 1)


def check(d, sparse_dir, dense_dir):
    ok = True
    for i, ((name, lead, n, k, tb, dt, pattern, bias), w, x,
            b) in enumerate(data()):
        exp, bound = reference(CASES[i], w, x, b)
        got = np.load(os.path.join(sparse_dir, f"out{i}.npy"))
        dense = np.load(os.path.join(dense_dir, f"out{i}.npy"))
        g64, d64 = got.astype(np.float64), dense.astype(np.float64)
        good = (got.shape == exp.shape and got.dtype == dense.dtype and
                bool(np.all(np.abs(g64 - exp) <= bound)) and
                bool(np.all(np.abs(g64 - d64) <= 2 * bound)))
        worst = (float(np.max(np.abs(g64 - exp) / bound))
                 if got.shape == exp.shape else float("inf"))
        print(f"{name} ({dt}): shape={list(got.shape)} "
              f"error/bound={worst:.3f} {'PASS' if good else 'FAIL'}")
        ok &= good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        check(*sys.argv[2:5])
    elif sys.argv[1] == "python":
        check_python(sys.argv[2])
    else:
        sys.exit("usage: sparse_tensor_cores.py gen DIR | "
                 "check DIR SPARSE_OUT DENSE_OUT | python DIR")
