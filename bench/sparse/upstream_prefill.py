#!/usr/bin/env python3
# ===- upstream_prefill.py - prefill: MLIR's sparsifier vs llmc's loops ---===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# The measurement behind the choice of prefill kernel for sparse weights
# (issue 19, docs/Sparsity.md): 128 x 4096 @ 4096 x 4096 f32 with a pruned
# weight, one thread, by
#   * upstream: MLIR 22's sparsifier in the form where it is fast
#     (../shared/sparsity/sparsity-probe.md, section 2.2): Y^T = W X^T as a
#     linalg.generic with the batch loop innermost, W in a sparse_tensor
#     encoding (BSR 16x16 or 4x4, or CSR; 32-bit positions and coordinates),
#     `--sparse-assembler --sparsifier="enable-runtime-library=false vl=16
#     enable-index-optimizations=true reassociate-fp-reductions=true"`,
#     clang -O3 -march=native, called through its C interface with the
#     packed arrays (pos, crd, values) built here; only the kernel is timed
#     (the transposes of X and Y it needs are not counted, in its favour);
#   * llmc sparse / dense: `llmc run model.onnx [--sparsify=FORMAT]` on the
#     same weight (the format forced to the upstream one), as
#     sparse_matmul.py runs it.
# Both evict the caches (128 MiB) between calls; median of --repeat calls
# after 3 warm-up calls, median over --trials rounds, systems rotated.
# Every result is checked against float64 numpy (max |error| <= 1e-4 of the
# largest |y|). Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/sparse/upstream_prefill.py [--build build]
#          [--patterns b16_75,b16_50,b4_75,u75] [--repeat 10] [--trials 3]
#          [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import ctypes
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sparse_matmul as sm  # noqa: E402
from llmcbench import peers  # noqa: E402

ROWS = 128
N, K = sm.N, sm.K
LLVM = "/usr/lib/llvm-22/bin"
# pattern prefix -> (llmc format, upstream encoding's level map, block)
FORMATS = {
    "b16": ("bsr16x16", "(i floordiv 16 : dense, j floordiv 16 : compressed, "
            "i mod 16 : dense, j mod 16 : dense)", 16),
    "b4": ("bsr4x4", "(i floordiv 4 : dense, j floordiv 4 : compressed, "
           "i mod 4 : dense, j mod 4 : dense)", 4),
    "u": ("csr", "(i : dense, j : compressed)", 1),
}

KERNEL = """#W = #sparse_tensor.encoding<{{ map = (i, j) -> {levels},
  posWidth = 32, crdWidth = 32 }}>
#mmT = [affine_map<(m, b, k) -> (m, k)>, affine_map<(m, b, k) -> (k, b)>,
        affine_map<(m, b, k) -> (m, b)>]
func.func @mmT(%W: tensor<{n}x{k}xf32, #W>, %XT: tensor<{k}x{b}xf32>)
    -> tensor<{n}x{b}xf32> attributes {{llvm.emit_c_interface}} {{
  %f0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{b}xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<{n}x{b}xf32>)
      -> tensor<{n}x{b}xf32>
  %y = linalg.generic {{indexing_maps = #mmT,
      iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%W, %XT : tensor<{n}x{k}xf32, #W>, tensor<{k}x{b}xf32>)
      outs(%z : tensor<{n}x{b}xf32>) {{
  ^bb0(%w: f32, %a: f32, %acc: f32):
    %p = arith.mulf %w, %a : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{n}x{b}xf32>
  return %y : tensor<{n}x{b}xf32>
}}
"""


def memref(rank):
    class MemRef(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p),
                    ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return MemRef


MemRef1, MemRef2 = memref(1), memref(2)


def descriptor(a):
    """A memref descriptor of the C-contiguous numpy array `a` (kept alive
    by the caller)."""
    d = (MemRef1 if a.ndim == 1 else MemRef2)()
    d.allocated = d.aligned = a.ctypes.data
    d.offset = 0
    for i, (s, st) in enumerate(zip(a.shape, a.strides)):
        d.sizes[i] = s
        d.strides[i] = st // a.itemsize
    return d


def pack(w, block):
    """(pos, crd, values) of `w` [N, K] in the encoding's order: blocks of
    `block` x `block` (row-major inside a block) by block rows, a block
    stored when any element is nonzero; block 1 is CSR."""
    nb, kb = N // block, K // block
    blocks = w.reshape(nb, block, kb, block).transpose(0, 2, 1, 3)
    keep = np.abs(blocks).reshape(nb, kb, -1).max(axis=2) > 0
    pos = np.zeros(nb + 1, np.int32)
    pos[1:] = np.cumsum(keep.sum(axis=1))
    rows, cols = np.nonzero(keep)
    crd = cols.astype(np.int32)
    values = np.ascontiguousarray(blocks[rows, cols].reshape(-1),
                                  dtype=np.float32)
    return pos, crd, values


def build_kernel(work, levels):
    src = os.path.join(work, "k.mlir")
    with open(src, "w") as f:
        f.write(KERNEL.format(levels=levels, n=N, k=K, b=ROWS))
    ll, so = os.path.join(work, "k.ll"), os.path.join(work, "k.so")
    lowered = subprocess.run(
        [f"{LLVM}/mlir-opt", src, "--sparse-assembler",
         "--sparsifier=enable-runtime-library=false vl=16 "
         "enable-index-optimizations=true reassociate-fp-reductions=true"],
        capture_output=True, text=True, check=True).stdout
    subprocess.run([f"{LLVM}/mlir-translate", "--mlir-to-llvmir", "-o", ll],
                   input=lowered, text=True, check=True)
    subprocess.run([f"{LLVM}/clang", "-O3", "-march=native", "-shared",
                    "-fPIC", "-o", so, ll], check=True)
    return ctypes.CDLL(so)


def time_upstream(lib, w, block, xt, repeat):
    pos, crd, values = pack(w, block)
    args = [descriptor(a) for a in (pos, crd, values, xt)]
    fn = lib._mlir_ciface_mmT
    evict = np.empty(128 << 20, np.uint8)
    times, out = [], None
    for i in range(3 + repeat):
        evict[::64] += 1
        res = MemRef2()
        t0 = time.perf_counter()
        fn(ctypes.byref(res), *[ctypes.byref(a) for a in args])
        dt = time.perf_counter() - t0
        buf = (ctypes.c_float * (N * ROWS)).from_address(res.aligned)
        out = np.frombuffer(buf, np.float32).reshape(N, ROWS).copy()
        if i >= 3:
            times.append(dt * 1e3)
    return float(np.median(times)), out.T


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(peers.ROOT, "build"))
    ap.add_argument("--patterns", default="b16_75,b16_50,b4_75,u75")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    os.sched_setaffinity(0, {0})  # the upstream kernel runs in-process
    work = tempfile.mkdtemp(prefix="llmc-upstream-prefill-")
    rows_out = []
    try:
        for pattern in a.patterns.split(","):
            fmt, levels, block = FORMATS[
                "u" if pattern.startswith("u") else pattern.split("_")[0]]
            d = os.path.join(work, pattern)
            w = sm.pruned(pattern, np.random.default_rng(7))
            x = sm.write_model(d, ROWS, w)
            ref = x.astype(np.float64) @ w.T.astype(np.float64)
            lib = build_kernel(d, levels)
            xt = np.ascontiguousarray(x.T)
            systems = ["upstream", "llmc sparse", "llmc dense"]
            times = {s: [] for s in systems}
            for trial in range(a.trials):
                k = trial % len(systems)
                for s in systems[k:] + systems[:k]:
                    out = os.path.join(d, "out", s.replace(" ", "_"))
                    if s == "upstream":
                        ms, got = time_upstream(lib, w, block, xt, a.repeat)
                    else:
                        ms, _, _ = sm.llmc_run(
                            llmc, d, a.repeat, out,
                            fmt if s == "llmc sparse" else False)
                        got = np.load(os.path.join(out, "y.npy"))
                    e = float(np.abs(got - ref).max() / np.abs(ref).max())
                    if e > 1e-4:
                        sys.exit(f"{s} {pattern}: error {e}")
                    times[s].append(ms)
            med = {s: float(np.median(v)) for s, v in times.items()}
            density = float(np.count_nonzero(w)) / w.size
            rows_out.append((pattern, density, fmt, med))
            print(pattern, fmt, med, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        "# Prefill with sparse weights: MLIR's sparsifier against llmc's "
        "loops", "",
        f"{datetime.date.today()}; {peers.cpu_name()}; one thread; "
        f"y = x @ W^T, x [{ROWS}, {K}], W [{N}, {K}] f32 pruned; caches "
        "evicted between calls; median of "
        f"{a.trials} rounds x {a.repeat} calls. upstream: MLIR 22's "
        "sparsifier, Y^T = W X^T (the kernel alone, without the "
        "transposes it needs); llmc sparse: the same format forced "
        "(`--sparsify=FORMAT`; CSR at 128 rows runs llmc's dense kernel, "
        "its rule for CSR beyond 8 rows); "
        "bench/sparse/upstream_prefill.py.", "",
        "| pattern | density | format | upstream ms | llmc sparse ms | "
        "llmc dense ms | upstream vs llmc dense | llmc sparse vs llmc dense "
        "| llmc sparse vs upstream |",
        "|---|---|---|---|---|---|---|---|---|"]
    for pattern, density, fmt, med in rows_out:
        u, s, dn = med["upstream"], med["llmc sparse"], med["llmc dense"]
        lines.append(
            f"| {pattern} | {density:.3f} | {fmt} | {u:.3f} | {s:.3f} | "
            f"{dn:.3f} | {dn / u:.2f}x | {dn / s:.2f}x | {u / s:.2f}x |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
