#!/usr/bin/env python3
# ===- dynamic_rows.py - matmuls over a dynamic number of rows ------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Matmuls whose row count is the sequence length (llm.dim_bounds): x[?, K]
@ W[K, N] with W a constant (packed into strips at compile time) and with W
an argument, plus a bias + gelu epilogue and an f16 matmul by a constant
(run in f32: llm-promote-contraction-inputs counts a dynamic row count at
its bound), at many row counts so that every
remainder of the register tile (8 rows on AVX-512, 4 on AVX2) and of the
per-thread chunk occurs: the leftover rows run as static tiles of 4, 2 and 1
rows. Two entries take a batch of sequences, x[B, ?, K] (B * length rows,
collapsed into one dimension): `batched`, B = 3 with the bias + gelu
epilogue and a residual add (one fusion group tiled along the sequence),
and `batched_half`, B = 2 in f16 by an f16 argument weight (f32 sums
rounded to f16 after the rows are expanded back).

  gen DIR          writes DIR/rows.mlir and DIR/w.npy, DIR/b.npy and
                   DIR/x<M>.npy for each row count M.
  run LLMC DIR OUT THREADS OPTIONS
                   `llmc run` of each entry at each row count (extra
                   options OPTIONS, one string) into DIR/OUT/<entry><M>;
                   OUT `ref` runs them with --no-opt.
  check DIR OUT
                   compares each output in DIR/OUT with float64 numpy
                   (|err| <= 1e-5 sum_k |x w| + 1e-6, and the gelu's slope
                   (<= 1.13) times that plus 1e-6 for the epilogue, plus
                   half an f16 ulp (2^-11 |ref|) for the f16 entry) and with
                   the --no-opt output in DIR/ref (the same bound; one f16
                   ulp for the f16 entry, whose --no-opt matmul is not
                   promoted).
"""

import os
import shlex

import numpy as np

import llmc_ref  # test/lib: the numpy reference of the llm ops
from llmc_model_text import literal  # test/lib
import llmc_subcommands  # test/lib

K, N, BOUND = 40, 45, 64
# 8-row tiles plus: 1 = 1, 6 = 4 + 2, 7 = 4 + 2 + 1, 15 = 8 + 4 + 2 + 1;
# on 2 threads 33 rows are chunks of 24 and 9; 64: no remainder.
ROWS = [1, 6, 7, 15, 33, 64]
ENTRIES = ["const_w", "arg_w", "epilogue", "half", "batched", "batched_half"]
# The batch of the batched entries, and their lengths (B * length rows
# leave remainders of the tiles all the same).
BATCH = {"batched": 3, "batched_half": 2}
BATCH_ROWS = [1, 7, 33]


def rows_of(entry):
    return BATCH_ROWS if entry in BATCH else ROWS


def data():
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    b = rng.uniform(-1, 1, (N,)).astype(np.float32)
    xs = {m: rng.uniform(-1, 1, (m, K)).astype(np.float32) for m in ROWS}
    return w, b, xs


def batched(entry, m):
    """The lhs of a batched entry at length m: [B, m, K] (f32)."""
    rng = np.random.default_rng(100 + 10 * m + BATCH[entry])
    return rng.uniform(-1, 1, (BATCH[entry], m, K)).astype(np.float32)


def inputs_of(entry, x):
    """The lhs `entry` reads: f16 for the half-precision entries."""
    return x.astype(np.float16) if entry in ("half", "batched_half") else x


def gen(d):
    os.makedirs(d, exist_ok=True)
    w, b, xs = data()
    x = f"tensor<?x{K}xf32> {{llm.dim_bounds = array<i64: {BOUND}, {K}>}}"
    y = f"tensor<?x{N}xf32>"
    wt = f"tensor<{K}x{N}xf32>"
    mm = f"(tensor<?x{K}xf32>, {wt}) -> {y}"
    xh = f"tensor<?x{K}xf16> {{llm.dim_bounds = array<i64: {BOUND}, {K}>}}"
    yh = f"tensor<?x{N}xf16>"
    wh = f"tensor<{K}x{N}xf16>"
    text = f"""func.func @const_w(%x: {x}) -> {y} {{
  %w = llm.constant {literal(w)} : {wt}
  %y = llm.matmul %x, %w : {mm}
  return %y : {y}
}}
func.func @arg_w(%x: {x}, %w: {wt}) -> {y} {{
  %y = llm.matmul %x, %w : {mm}
  return %y : {y}
}}
func.func @epilogue(%x: {x}) -> {y} {{
  %w = llm.constant {literal(w)} : {wt}
  %b = llm.constant {literal(b)} : tensor<{N}xf32>
  %y = llm.matmul %x, %w : {mm}
  %yb = llm.add %y, %b : ({y}, tensor<{N}xf32>) -> {y}
  %g = llm.gelu %yb : {y}
  return %g : {y}
}}
func.func @half(%x: {xh}) -> {yh} {{
  %w = llm.constant {literal(w.astype(np.float16))} : {wh}
  %y = llm.matmul %x, %w : (tensor<?x{K}xf16>, {wh}) -> {yh}
  return %y : {yh}
}}
func.func @batched(%x: tensor<3x?x{K}xf32> {{llm.dim_bounds = array<i64: 3, {BOUND}, {K}>}}) -> tensor<3x?x{N}xf32> {{
  %w = llm.constant {literal(w)} : {wt}
  %b = llm.constant {literal(b)} : tensor<{N}xf32>
  %y = llm.matmul %x, %w : (tensor<3x?x{K}xf32>, {wt}) -> tensor<3x?x{N}xf32>
  %yb = llm.add %y, %b : (tensor<3x?x{N}xf32>, tensor<{N}xf32>) -> tensor<3x?x{N}xf32>
  %g = llm.gelu %yb : tensor<3x?x{N}xf32>
  %r = llm.add %g, %yb : (tensor<3x?x{N}xf32>, tensor<3x?x{N}xf32>) -> tensor<3x?x{N}xf32>
  return %r : tensor<3x?x{N}xf32>
}}
func.func @batched_half(%x: tensor<2x?x{K}xf16> {{llm.dim_bounds = array<i64: 2, {BOUND}, {K}>}}, %w: {wh}) -> tensor<2x?x{N}xf16> {{
  %y = llm.matmul %x, %w : (tensor<2x?x{K}xf16>, {wh}) -> tensor<2x?x{N}xf16>
  return %y : tensor<2x?x{N}xf16>
}}
"""
    with open(os.path.join(d, "rows.mlir"), "w") as f:
        f.write(text)
    np.save(os.path.join(d, "w.npy"), w)
    np.save(os.path.join(d, "wh.npy"), w.astype(np.float16))
    for m, xm in xs.items():
        np.save(os.path.join(d, f"x{m}.npy"), xm)
        np.save(os.path.join(d, f"h{m}.npy"), inputs_of("half", xm))
        for entry in BATCH:
            if m not in BATCH_ROWS:
                continue
            np.save(os.path.join(d, f"{entry}{m}.npy"),
                    inputs_of(entry, batched(entry, m)))


def run(llmc, d, out, threads, options):
    extra = ["--no-opt"] if out == "ref" else []
    for entry in ENTRIES:
        for m in rows_of(entry):
            x = {"half": "h", "batched": entry,
                 "batched_half": entry}.get(entry, "x")
            inputs = ["--input", f"arg0={d}/{x}{m}.npy"]
            if entry == "arg_w":
                inputs += ["--input", f"arg1={d}/w.npy"]
            if entry == "batched_half":
                inputs += ["--input", f"arg1={d}/wh.npy"]
            if not llmc_subcommands.run_llmc(
                    llmc, f"{d}/rows.mlir", entry, threads,
                    f"{d}/{out}/{entry}{m}",
                    inputs + shlex.split(options) + extra):
                return 1
    return 0


def check(d, out):
    w, b, xs = data()
    ok = True
    for entry in ENTRIES:
        worst_err, worst_agree, good = 0.0, 0.0, True
        for m in rows_of(entry):
            x = batched(entry, m) if entry in BATCH else xs[m]
            xd = inputs_of(entry, x).astype(np.float64)
            we = inputs_of(entry, w).astype(np.float64)
            ref = xd @ we
            tol = 1e-5 * (np.abs(xd) @ np.abs(we)) + 1e-6
            agree_tol = tol
            if entry == "epilogue":
                ref = llmc_ref.gelu(ref + b, dtype="f64")
                tol = agree_tol = 1.13 * tol + 1e-6
            if entry == "batched":
                # gelu(y) + y: slope <= 2.13.
                yb = ref + b
                ref = llmc_ref.gelu(yb, dtype="f64") + yb
                tol = agree_tol = 2.13 * tol + 1e-6
            if entry in ("half", "batched_half"):
                # One rounding to f16 (half an ulp, 2^-11 |ref|); the f32 sums
                # of the two paths may round to neighbouring f16 values.
                agree_tol = tol + 2.0**-10 * np.abs(ref)
                tol = tol + 2.0**-11 * np.abs(ref)
            got = np.load(os.path.join(d, out, f"{entry}{m}",
                                       "out0.npy")).astype(np.float64)
            base = np.load(os.path.join(d, "ref", f"{entry}{m}",
                                        "out0.npy")).astype(np.float64)
            if got.shape != ref.shape or base.shape != ref.shape:
                print(f"{entry} rows {m}: shape {list(got.shape)} FAIL")
                good = False
                continue
            err, agree = np.abs(got - ref), np.abs(got - base)
            worst_err = max(worst_err, float((err / tol).max()))
            worst_agree = max(worst_agree, float((agree / agree_tol).max()))
            if not (np.all(err <= tol) and np.all(agree <= agree_tol)):
                print(f"{entry} rows {m}: max_err={err.max():.3g} "
                      f"max_vs_no_opt={agree.max():.3g} FAIL")
                good = False
        rows = rows_of(entry)
        print(f"{entry}: rows {rows[0]}..{rows[-1]} ({len(rows)} lengths) "
              f"err/tol={worst_err:.3g} vs_no_opt/tol={worst_agree:.3g}"
              + (" PASS" if good else " FAIL"))
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    llmc_subcommands.main(__doc__, gen, run, check)
