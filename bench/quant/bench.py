#!/usr/bin/env python3
# ===- bench.py - weight-only int8/int4 decode matvec vs f32 ---------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Times a 1xK @ KxN decode matvec (default 1x4096 @ 4096x4096, weights stored
# [N, K] as torch.nn.Linear does) compiled by llmc in one run, three ways:
#   f32   llm.matmul on an f32 weight (64 MiB)
#   int8  W8A16: i8 weight, per-output-channel scales (16 MiB)
#   int4  W4A16: i4 weight, groups of 128 along K with zero points
# The quantized models are written as dequantize + matmul; llmc's default
# pipeline (llm-fold-quant) turns them into llm.dequant_matmul, which reads
# the narrow weight and dequantizes it in the operand load. Weights are
# `dense_resource` constants; `llmc run --repeat` times the calls (median).
# The int4 weight is packed two per byte by the lowering (8 MiB). In the
# same run it measures the machine's memory read bandwidth
# (bench/hw/hwlimits.c, clang-22 -O3 -march=native) and gives each kind's
# bandwidth bound (weight bytes / read bandwidth). Every process runs pinned
# (`taskset -c 0`, one thread, as `bench/run --threads 1`).
# Prints, and writes to bench/quant/results.md (--out), ms per call (median
# of --repeat calls, best of --trials processes), the weight bytes read per
# call, GB/s, the speed-up over f32 and the fraction of the bandwidth bound
# (the goal: int8 >= 3x, int4 >= 5x faster than f32). Outputs are checked
# against numpy (x @ dequantize(w)^T in float64) before a time is kept.
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/quant/bench.py [--build build] [--k 4096]
#          [--n 4096] [--repeat 50] [--trials 3] [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def blob(arr):
    # dense_resource blobs: 4-byte alignment header, then little-endian data.
    return "0x04000000" + arr.tobytes().hex().upper()


def model(kind, k, n, rng):
    w = rng.standard_normal((n, k)).astype(np.float32)
    if kind == "f32":
        body = (f"  %w = llm.constant dense_resource<w> : tensor<{n}x{k}xf32>\n"
                f"  %y = llm.matmul %x, %w {{transpose_b}} : (tensor<1x{k}xf32>, "
                f"tensor<{n}x{k}xf32>) -> tensor<1x{n}xf32>\n")
        return body, blob(w), w.astype(np.float64)
    if kind == "int8":
        s = np.abs(w).max(axis=1) / 127
        q = np.clip(np.rint(w / s[:, None]), -128, 127).astype(np.int8)
        qt = ("!quant.uniform<i8:f32:0, {" + ", ".join(
            repr(float(v)) for v in s) + "}>")
        et = "i8"
        dq = (q.astype(np.float32) * s[:, None].astype(np.float32))
    else:
        g = 128
        wg = w.reshape(n, k // g, g)
        lo, hi = wg.min(axis=2), wg.max(axis=2)
        s = np.maximum(hi - lo, 1e-6) / 15
        z = np.clip(np.rint(-lo / s) - 8, -8, 7).astype(np.int64)
        q = np.clip(np.rint(wg / s[:, :, None]) + z[:, :, None], -8, 7)
        dq = ((q - z[:, :, None]).astype(np.float32) *
              s[:, :, None].astype(np.float32)).reshape(n, k)
        q = q.reshape(n, k).astype(np.int8)
        rows = ", ".join("{" + ", ".join(
            f"{float(a)!r}:{int(b)}" for a, b in zip(sr, zr)) + "}"
            for sr, zr in zip(s, z))
        qt = f"!quant.uniform<i4:f32:{{0:1,1:{g}}}, {{{rows}}}>"
        et = "i4"
    body = (f"  %c = arith.constant dense_resource<w> : tensor<{n}x{k}x{et}>\n"
            f"  %q = quant.scast %c : tensor<{n}x{k}x{et}> to "
            f"tensor<{n}x{k}x{qt}>\n"
            f"  %w = llm.dequantize %q : (tensor<{n}x{k}x{qt}>) -> "
            f"tensor<{n}x{k}xf32>\n"
            f"  %y = llm.matmul %x, %w {{transpose_b}} : (tensor<1x{k}xf32>, "
            f"tensor<{n}x{k}xf32>) -> tensor<1x{n}xf32>\n")
    return body, blob(q), dq.astype(np.float64)


def read_bandwidth(work, reps=5):
    """Best single-core read bandwidth (GB/s) of bench/hw/hwlimits.c."""
    exe = os.path.join(work, "hwlimits")
    src = os.path.join(ROOT, "bench", "hw", "hwlimits.c")
    subprocess.run(["clang-22", "-O3", "-march=native", "-fopenmp", src, "-o",
                    exe], check=True)
    out = subprocess.run(["taskset", "-c", "0", exe, "bw", "1024", str(reps)],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    return max(max(float(v) for v in line.split()[1:])
               for line in out.splitlines() if line.startswith("bw "))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results.md"))
    args = ap.parse_args()
    llmc = os.path.join(args.build, "bin", "llmc")
    rng = np.random.default_rng(0)
    results = {}
    with tempfile.TemporaryDirectory() as d:
        bw = read_bandwidth(d)
        x = rng.standard_normal((1, args.k)).astype(np.float32)
        np.save(os.path.join(d, "x.npy"), x)
        for kind in ("f32", "int8", "int4"):
            body, data, dq = model(kind, args.k, args.n, rng)
            text = (f"func.func @main(%x: tensor<1x{args.k}xf32>) -> "
                    f"tensor<1x{args.n}xf32> {{\n{body}"
                    f"  return %y : tensor<1x{args.n}xf32>\n}}\n"
                    "{-#\n  dialect_resources: {\n    builtin: {\n"
                    f"      w: \"{data}\"\n    }}\n  }}\n#-}}\n")
            path = os.path.join(d, kind + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            ref = x.astype(np.float64) @ dq.T
            times = []
            for trial in range(args.trials):
                outdir = os.path.join(d, f"{kind}{trial}")
                out = subprocess.run(
                    ["taskset", "-c", "0", llmc, "run", path, "--threads", "1",
                     "--input", "arg0=" + os.path.join(d, "x.npy"),
                     "--output-dir", outdir, "--repeat", str(args.repeat)],
                    capture_output=True, text=True)
                m = re.search(r"time: median ([0-9.]+) ms", out.stdout)
                if out.returncode != 0 or not m:
                    print(f"{kind}: failed\n{out.stdout}{out.stderr}")
                    return 1
                y = np.load(os.path.join(outdir, "out0.npy")).astype(np.float64)
                err = np.abs(y - ref).max()
                if err > 1e-4 * max(np.abs(ref).max(), 1):
                    print(f"{kind}: wrong output (max abs err {err:.3g})")
                    return 1
                times.append(float(m.group(1)))
            results[kind] = min(times)
    nbytes = {"f32": 4, "int8": 1, "int4": 0.5}
    lines = [
        f"Weight-only decode matvec 1x{args.k} @ {args.k}x{args.n} (weight "
        f"stored [N, K]), llmc, 1 thread (`taskset -c 0`), "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
        f"{platform.node()}: median of {args.repeat} calls, best of "
        f"{args.trials} processes. Read bandwidth measured in the same run "
        f"(bench/hw/hwlimits.c, best 16 MiB piece of a 1 GiB array): "
        f"{bw:.1f} GB/s.",
        "",
        "| weight | bytes read | ms/call | GB/s of weights | vs f32 | "
        "bandwidth bound (ms) | % of bound |",
        "|---|---|---|---|---|---|---|"]
    for kind, ms in results.items():
        gb = args.k * args.n * nbytes[kind] / 1e9
        bound = gb / bw * 1e3
        lines.append(
            f"| {kind} | {gb * 1e3 / 1.048576:.1f} MiB | {ms:.3f} | "
            f"{gb / (ms / 1e3):.1f} | {results['f32'] / ms:.2f}x | "
            f"{bound:.3f} | {100 * bound / ms:.0f}% |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
