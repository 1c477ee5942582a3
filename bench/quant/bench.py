#!/usr/bin/env python3
# ===- bench.py - weight-only int8/int4 decode matvec vs f32 ---------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Times an MxK @ KxN matmul (default M = 1: a decode matvec, 1x4096 @
# 4096x4096; weights stored [N, K] as torch.nn.Linear does) compiled by llmc
# in one run, three ways:
#   f32   llm.matmul on an f32 weight (64 MiB)
#   int8  W8A16: i8 weight, per-output-channel scales (16 MiB)
#   int4  W4A16: i4 weight, groups of 128 along K with zero points
# The quantized models are written as dequantize + matmul; llmc's default
# pipeline (llm-fold-quant) turns them into llm.dequant_matmul, which reads
# the narrow weight and dequantizes it in the operand load. Weights are
# `dense_resource` constants; `llmc run --repeat` times the calls (median).
# The int4 weight is packed two per byte by the lowering (8 MiB).
#
# Each kind is timed two ways in the same run:
#   warm  calls back to back: whatever of the weight fits in the last-level
#         cache stays there between calls (this machine's L3 can hold all
#         of the 64 MiB f32 weight), so a warm call may beat DRAM bandwidth;
#   cold  `llmc run --evict-cache=MiB`: before each call (outside the timed
#         region) llmc reads a buffer of max(1024, 2 x L3) MiB (L3 from
#         `getconf LEVEL3_CACHE_SIZE`; --evict overrides), so every call
#         streams its weight from DRAM, as each layer of a multi-layer decode
#         does once per token.
# In the same run it measures the machine's memory read bandwidth
# (bench/hw/hwlimits.c, clang-22 -O3 -march=native) and, for M = 1 only,
# gives each kind's bandwidth bound (weight bytes / read bandwidth); with
# M > 1 (prefill shapes) it gives GFLOP/s instead. Every process runs pinned
# (`taskset -c 0`, one thread, as `bench/run --threads 1`; --threads N: N
# threads on cores 0 .. N - 1, and the read bandwidth on as many).
# Prints, and writes to bench/quant/results.md (--out), for each kind and
# mode: ms per call (median of --repeat calls, best of --trials processes),
# the weight bytes read per call, GB/s, the speed-up over f32 in the same
# mode and (M = 1) the fraction of the bandwidth bound. The goal (issue 6:
# int8 >= 3x, int4 >= 5x faster than f32) is judged cold; the warm figures
# are printed beside it. Outputs are checked against numpy
# (x @ dequantize(w)^T in float64) before a time is kept.
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/quant/bench.py [--build build] [--m 1]
#          [--k 4096] [--n 4096] [--repeat 50] [--trials 3] [--evict MiB] [--threads 1]
#          [--out FILE]
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


def model(kind, m, k, n, rng):
    w = rng.standard_normal((n, k)).astype(np.float32)
    if kind == "f32":
        body = (f"  %w = llm.constant dense_resource<w> : tensor<{n}x{k}xf32>\n"
                f"  %y = llm.matmul %x, %w {{transpose_b}} : (tensor<{m}x{k}xf32>, "
                f"tensor<{n}x{k}xf32>) -> tensor<{m}x{n}xf32>\n")
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
            f"  %y = llm.matmul %x, %w {{transpose_b}} : (tensor<{m}x{k}xf32>, "
            f"tensor<{n}x{k}xf32>) -> tensor<{m}x{n}xf32>\n")
    return body, blob(q), dq.astype(np.float64)


def cores(threads):
    """The taskset core list of `threads` threads: 0 .. threads - 1."""
    return "0" if threads == 1 else f"0-{threads - 1}"


def read_bandwidth(work, threads, reps=5):
    """Best read bandwidth (GB/s) of bench/hw/hwlimits.c on `threads` cores."""
    exe = os.path.join(work, "hwlimits")
    src = os.path.join(ROOT, "bench", "hw", "hwlimits.c")
    subprocess.run(["clang-22", "-O3", "-march=native", "-fopenmp", src, "-o",
                    exe], check=True)
    out = subprocess.run(["taskset", "-c", cores(threads), exe, "bw", "1024",
                          str(reps)],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ,
                                  OMP_NUM_THREADS=str(threads))).stdout
    return max(max(float(v) for v in line.split()[1:])
               for line in out.splitlines() if line.startswith("bw "))


def l3_mib():
    """L3 size in MiB from getconf (rounded up; 0 if it says nothing)."""
    try:
        l3 = int(subprocess.run(["getconf", "LEVEL3_CACHE_SIZE"],
                                capture_output=True, text=True).stdout)
    except ValueError:
        l3 = 0
    return -(-l3 // (1 << 20))


def time_call(llmc, path, xfile, outdir, repeat, evict, threads):
    """Median ms of one `llmc run` process (None if it failed)."""
    cmd = ["taskset", "-c", cores(threads), llmc, "run", path, "--threads",
           str(threads),
           "--input", "arg0=" + xfile, "--output-dir", outdir,
           "--repeat", str(repeat)]
    if evict:
        cmd.append(f"--evict-cache={evict}")
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"time: median ([0-9.]+) ms, min [0-9.]+ ms \(.*\)$",
                  out.stdout, re.M)
    said_evicted = m and f"caches evicted: {evict} MiB" in m.group(0)
    if out.returncode != 0 or not m or bool(evict) != bool(said_evicted):
        print(f"{path}: failed\n{out.stdout}{out.stderr}")
        return None
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--m", type=int, default=1,
                    help="rows of x (1: decode; more: prefill)")
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--evict", type=int, default=None,
                    help="MiB read before each cold call (default: "
                    "max(1024, 2 x L3))")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads, pinned to cores 0 .. N - 1 (default 1)")
    ap.add_argument("--out", default=os.path.join(HERE, "results.md"))
    args = ap.parse_args()
    if args.m < 1 or args.k % 128 or args.n < 1:
        ap.error("--m and --n must be >= 1 and --k a multiple of 128")
    if not 1 <= args.threads <= (os.cpu_count() or 1):
        ap.error(f"--threads must be in [1, {os.cpu_count()}]")
    llmc = os.path.join(args.build, "bin", "llmc")
    l3 = l3_mib()
    evict = args.evict if args.evict is not None else max(1024, 2 * l3)
    modes = {"warm": 0, "cold": evict}
    rng = np.random.default_rng(0)
    results = {}
    with tempfile.TemporaryDirectory() as d:
        bw = read_bandwidth(d, args.threads)
        x = rng.standard_normal((args.m, args.k)).astype(np.float32)
        xfile = os.path.join(d, "x.npy")
        np.save(xfile, x)
        kinds = ("f32", "int8", "int4")
        paths, refs = {}, {}
        for kind in kinds:
            body, data, dq = model(kind, args.m, args.k, args.n, rng)
            text = (f"func.func @main(%x: tensor<{args.m}x{args.k}xf32>) -> "
                    f"tensor<{args.m}x{args.n}xf32> {{\n{body}"
                    f"  return %y : tensor<{args.m}x{args.n}xf32>\n}}\n"
                    "{-#\n  dialect_resources: {\n    builtin: {\n"
                    f"      w: \"{data}\"\n    }}\n  }}\n#-}}\n")
            paths[kind] = os.path.join(d, kind + ".mlir")
            with open(paths[kind], "w") as f:
                f.write(text)
            refs[kind] = x.astype(np.float64) @ dq.T
        # Trials outermost, the kinds interleaved within each: the machine's
        # speed drifts over minutes, and each kind's best process then comes
        # from the same stretches of time as the others'.
        times = {kind: {mode: [] for mode in modes} for kind in kinds}
        for trial in range(args.trials):
            for kind in kinds:
                for mode, mib in modes.items():
                    outdir = os.path.join(d, f"{kind}{trial}{mode}")
                    ms = time_call(llmc, paths[kind], xfile, outdir,
                                   args.repeat, mib, args.threads)
                    if ms is None:
                        return 1
                    y = np.load(os.path.join(outdir, "out0.npy")).astype(
                        np.float64)
                    ref = refs[kind]
                    err = np.abs(y - ref).max()
                    if err > 1e-4 * max(np.abs(ref).max(), 1):
                        print(f"{kind} {mode}: wrong output "
                              f"(max abs err {err:.3g})")
                        return 1
                    times[kind][mode].append(ms)
        for kind in kinds:
            results[kind] = {mode: min(t) for mode, t in times[kind].items()}
    nbytes = {"f32": 4, "int8": 1, "int4": 0.5}
    decode = args.m == 1
    lines = [
        f"Weight-only {'decode matvec' if decode else 'matmul'} "
        f"{args.m}x{args.k} @ {args.k}x{args.n} (weight "
        f"stored [N, K]), llmc, {args.threads} thread"
        f"{'s' if args.threads > 1 else ''} (`taskset -c {cores(args.threads)}`), "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
        f"{platform.node()}: median of {args.repeat} calls, best of "
        f"{args.trials} processes; warm: calls back to back, cold: "
        f"`llmc run --evict-cache={evict}` ({evict} MiB read before each "
        f"call, outside the timed region; L3 {l3} MiB by getconf). Read bandwidth measured in the "
        f"same run (bench/hw/hwlimits.c, best 16 MiB piece of a 1 GiB "
        f"array): {bw:.1f} GB/s.",
        ""]
    if decode:
        lines += [
            "| weight | bytes read | ms/call warm | ms/call cold | "
            "GB/s warm | GB/s cold | vs f32 warm | vs f32 cold | "
            "bandwidth bound (ms) | % of bound warm | % of bound cold |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    else:
        lines += [
            "| weight | bytes read | ms/call warm | ms/call cold | "
            "GFLOP/s warm | GFLOP/s cold | vs f32 warm | vs f32 cold |",
            "|---|---|---|---|---|---|---|---|"]
    flop = 2 * args.m * args.k * args.n
    for kind, r in results.items():
        gb = args.k * args.n * nbytes[kind] / 1e9
        bound = gb / bw * 1e3
        row = [kind, f"{gb * 1e3 / 1.048576:.1f} MiB",
               f"{r['warm']:.3f}", f"{r['cold']:.3f}"]
        per_s = (gb if decode else flop / 1e9)
        row += [f"{per_s / (r[mode] / 1e3):.1f}" for mode in modes]
        row += [f"{results['f32'][mode] / r[mode]:.2f}x" for mode in modes]
        if decode:
            row.append(f"{bound:.3f}")
            row += [f"{100 * bound / r[mode]:.0f}%" for mode in modes]
        lines.append("| " + " | ".join(row) + " |")
    if decode:
        def verdict(kind, goal, mode):
            ratio = results["f32"][mode] / results[kind][mode]
            return (f"{kind} {ratio:.2f}x (goal >= {goal}x: "
                    f"{'met' if ratio >= goal else 'not met'})")
        lines += [
            "",
            "Goal (issue 6), judged cold (every call streams its weight "
            "from DRAM, as each layer of a multi-layer decode does): "
            + ", ".join(verdict(k, g, "cold") for k, g in
                        (("int8", 3), ("int4", 5)))
            + ". Warm (weights left in the caches between calls), for "
            "comparison: "
            + ", ".join(verdict(k, g, "warm") for k, g in
                        (("int8", 3), ("int4", 5))) + "."]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
