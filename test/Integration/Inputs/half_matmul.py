#!/usr/bin/env python3
# ===- half_matmul.py - f16/bf16 matmuls promoted to f32 -----------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Half-precision matmuls by constant weights, which llm-lower-to-cpu runs in
f32 (llm-promote-contraction-inputs: the weight widened at compile time, the
activation by a cast fused into the kernel, the result rounded once), and
f32 matmuls of 8-15 rows (their constant weight packed into strips like a
bigger matmul's).

  gen DIR      writes f16.mlir, bf16.mlir, f32.mlir and the inputs
               DIR/<entry>_<arg>.npy.
  run LLMC DIR KIND THREADS OPTIONS
               runs every entry of DIR/KIND.mlir with `llmc run` (extra
               options OPTIONS, one string) into DIR/opt<THREADS>/<entry>,
               and with --no-opt into DIR/ref<THREADS>/<entry>.
  check DIR OPT REF KIND
               compares OPT/<entry>/out*.npy (the optimized pipeline) with
               REF/<entry>/out*.npy (llmc --no-opt: the matmuls in their own
               types, unpromoted) and both with float64 numpy over the same
               half-precision inputs.

Tolerances: the sums are f32 in both paths (|err| <= 1e-5 sum_k |x w| +
1e-6 against float64), then one rounding to the result type (half an ulp:
2^-11 |ref| for f16, 2^-8 for bf16). The optimized and reference results may
round a different f32 sum: they must agree within one ulp of the result type
(2^-10 |ref| f16, 2^-7 bf16) plus the f32 tolerance. The epilogue's gelu
(slope <= 1.13) and its adds round in the result type too.
"""

import os
import shlex

import numpy as np

import llmc_ref  # test/lib: the numpy reference of the llm ops
from llmc_model_text import literal  # test/lib
import llmc_subcommands  # test/lib

# entry, lhs shape, K, N, transpose_b, epilogue (bias + gelu + residual),
# number of sibling matmuls of the same activation.
F16 = [
    ("prefill", (40, 96), 96, 64, False, False, 1),
    ("tb3d", (2, 9, 48), 48, 40, True, False, 1),
    ("siblings", (24, 64), 64, 64, False, False, 3),
    ("epilogue", (20, 64), 64, 48, False, True, 1),
    ("two_rows", (2, 128), 128, 96, False, False, 1),
    ("decode", (1, 96), 96, 64, False, False, 1),
    # A generation model's prefill and decode entries reading one weight.
    ("gen_prefill", (16, 72), 72, 80, False, False, 1),
    ("gen_decode", (1, 72), 72, 80, False, False, 1),
]
BF16 = [("bf_prefill", (37, 96), 96, 80, True, False, 1)]
F32 = [
    ("rows8", (8, 256), 256, 1000, False, False, 1),
    ("rows12", (12, 200), 200, 1000, False, False, 1),
    ("rows15", (15, 64), 64, 130, False, False, 1),
]
KINDS = {"f16": F16, "bf16": BF16, "f32": F32}
NPTYPE = {"f16": np.float16, "bf16": np.float32, "f32": np.float32}
ULP = {"f16": 2.0**-11, "bf16": 2.0**-8, "f32": 2.0**-24}


def rounded(a, kind):
    """`a` rounded to the element type of `kind`, as float32."""
    return llmc_ref.round_to(a, kind).astype(np.float32)


def data(entry, lhs, k, n, tb, siblings, kind):
    rng = np.random.default_rng(sum(map(ord, entry)))
    x = rounded(rng.uniform(-1, 1, lhs), kind)
    # The gen_* entries share their weights (drawn from one seed).
    wrng = np.random.default_rng(7) if entry.startswith("gen_") else rng
    ws = [rounded(wrng.uniform(-1, 1, (n, k) if tb else (k, n)), kind)
          for _ in range(siblings)]
    bias = rounded(rng.uniform(-1, 1, (n,)), kind)
    res = rounded(rng.uniform(-1, 1, lhs[:-1] + (n,)), kind)
    return x, ws, bias, res


def ty(shape, et):
    return "tensor<" + "x".join(map(str, shape)) + "x" + et + ">"


def gen(d):
    os.makedirs(d, exist_ok=True)
    for kind, cases in KINDS.items():
        funcs = []
        for entry, lhs, k, n, tb, epi, sib in cases:
            x, ws, bias, res = data(entry, lhs, k, n, tb, sib, kind)
            out = lhs[:-1] + (n,)
            args = [f"%x: {ty(lhs, kind)}"] + ([f"%r: {ty(out, kind)}"] if epi else [])
            attr = " {transpose_b}" if tb else ""
            body, results = [], []
            for i, w in enumerate(ws):
                body += [f"  %w{i} = llm.constant {literal(w)} : {ty(w.shape, kind)}",
                         f"  %y{i} = llm.matmul %x, %w{i}{attr} : ({ty(lhs, kind)}, "
                         f"{ty(w.shape, kind)}) -> {ty(out, kind)}"]
                results.append(f"%y{i}")
            if epi:
                body += [f"  %b = llm.constant {literal(bias)} : {ty((n,), kind)}",
                         f"  %yb = llm.add %y0, %b : ({ty(out, kind)}, {ty((n,), kind)}) -> {ty(out, kind)}",
                         f"  %g = llm.gelu %yb : {ty(out, kind)}",
                         f"  %o = llm.add %g, %r : ({ty(out, kind)}, {ty(out, kind)}) -> {ty(out, kind)}"]
                results = ["%o"]
            types = ", ".join([ty(out, kind)] * len(results))
            funcs.append(f"func.func @{entry}({', '.join(args)}) -> ({types}) {{\n"
                         + "\n".join(body)
                         + f"\n  return {', '.join(results)} : {types}\n}}\n")
            np.save(os.path.join(d, f"{entry}_x.npy"), x.astype(NPTYPE[kind]))
            if epi:
                np.save(os.path.join(d, f"{entry}_r.npy"), res.astype(NPTYPE[kind]))
        with open(os.path.join(d, f"{kind}.mlir"), "w") as f:
            f.write("\n".join(funcs))


def check(d, optdir, refdir, kind):
    ok = True
    ulp = ULP[kind]
    for entry, lhs, k, n, tb, epi, sib in KINDS[kind]:
        x, ws, bias, res = data(entry, lhs, k, n, tb, sib, kind)
        xd = x.astype(np.float64)
        outs = []
        for w in ws:
            wk = (w.T if tb else w).astype(np.float64)
            ref = xd @ wk
            tol = 1e-5 * (np.abs(xd) @ np.abs(wk)) + 1e-6
            if epi:
                biased = ref + bias
                g = llmc_ref.gelu(biased, dtype="f64")
                tol = (1.13 * (tol + ulp * (np.abs(ref) + np.abs(biased)))
                       + ulp * np.abs(g))
                ref = g + res
            outs.append((ref, tol + ulp * np.abs(ref)))
        for i, (ref, tol) in enumerate(outs):
            got = np.load(os.path.join(optdir, entry, f"out{i}.npy")).astype(np.float64)
            base = np.load(os.path.join(refdir, entry, f"out{i}.npy")).astype(np.float64)
            err = np.abs(got - ref)
            agree = np.abs(got - base)
            agree_tol = tol + 2 * ulp * np.abs(ref)
            good = (got.shape == ref.shape == base.shape
                    and bool(np.all(err <= tol)) and bool(np.all(agree <= agree_tol))
                    and bool(np.all(np.abs(base - ref) <= tol)))
            print(f"{entry} out{i}: shape {list(got.shape)} max_err={err.max():.3g} "
                  f"max_tol={tol.max():.3g} max_vs_no_opt={agree.max():.3g}"
                  + (" PASS" if good else " FAIL"))
            ok = ok and good
    return 0 if ok else 1


def run(llmc, d, kind, threads, options):
    for entry, lhs, k, n, tb, epi, sib in KINDS[kind]:
        inputs = ["--input", f"arg0={d}/{entry}_x.npy"]
        if epi:
            inputs += ["--input", f"arg1={d}/{entry}_r.npy"]
        for sub, extra in (("opt", []), ("ref", ["--no-opt"])):
            if not llmc_subcommands.run_llmc(
                    llmc, f"{d}/{kind}.mlir", entry, threads,
                    f"{d}/{sub}{threads}/{entry}",
                    inputs + shlex.split(options) + extra):
                return 1
    return 0


if __name__ == "__main__":
    llmc_subcommands.main(__doc__, gen, run, check)
