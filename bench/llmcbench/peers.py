# ===- peers.py - one timed llmc / ONNX Runtime process, shared by benches -=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Helpers of the single-purpose benchmarks (bench/quant/w8a8.py,
bench/quant/qdq_block.py, bench/sweep/sweep.py): one pinned process of
`llmc run --repeat` or of bench/ort/run.js, its median ms per call, and the
report's CPU name."""

import json
import os
import platform
import re
import subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ORT_MODULE = os.path.join(ROOT, "bench", "node_modules", "onnxruntime-node")


def cpu_name():
    """The CPU's model name (/proc/cpuinfo), for the report."""
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def pinned(threads):
    """taskset prefix: cores 0 .. threads - 1."""
    return ["taskset", "-c", f"0-{threads - 1}"]


def llmc_run(llmc, model, inputs, threads, repeat, out, extra=()):
    """`llmc run MODEL` with `inputs` ({name: .npy path}), 10 warm-up and
    `repeat` timed calls on `threads` pinned cores, outputs into `out`.
    Returns (median ms, "") or (None, the last line of its error)."""
    cmd = pinned(threads) + [llmc, "run", model, "--threads", str(threads),
                             "--repeat", str(repeat), "--warmup", "10",
                             "--output-dir", out] + list(extra)
    for name, path in inputs.items():
        cmd += ["--input", f"{name}={path}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"time: median ([0-9.]+) ms", r.stdout + r.stderr)
    if r.returncode or not m:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    return float(m.group(1)), ""


def ort_run(workdir, threads, repeat, out):
    """bench/ort/run.js on WORKDIR (meta.json, model.onnx, in/*.npy): 10
    warm-up and `repeat` timed calls, outputs into `out`. Returns (median
    ms, "") or (None, the last line of its error)."""
    os.makedirs(out, exist_ok=True)
    cmd = pinned(threads) + ["node", os.path.join(ROOT, "bench", "ort",
                                                  "run.js"),
                             workdir, str(threads), "10", str(repeat), out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    times = json.loads(r.stdout.strip().splitlines()[-1])["times_ms"]
    return float(np.median(times)), ""


def write_report(text, out):
    """Prints the report and writes it to `out` (when given)."""
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text)
