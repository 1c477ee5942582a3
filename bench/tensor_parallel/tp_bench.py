#!/usr/bin/env python3
# ===- tp_bench.py - tensor parallelism: 1 vs 2 ranks -------------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# A 12-layer GPT-2-shaped model (d 768, 12 heads, MLP 3072; vocab 512 by
# default, so that the replicated LM head does not hide the split layers:
# --vocab 50257 for GPT-2's) from examples/generate.py, as
#   * a decode step: 1 token (no KV cache: every weight is read once, the
#     memory-bound step that tensor parallelism splits), and
#   * a prefill of 128 tokens,
# run by `llmc run` in one process and by `mpirun -np 2 --bind-to core llmc
# run --tensor-parallel 2` (each rank on its own core, one thread each).
# Median ms of --repeat calls after 10 warm-up calls; median over --trials,
# 1-process and 2-rank runs alternating. The all-reduce share is the
# measured MPI_Allreduce time per call (allreduce.c, the same message size,
# 2 ranks) times the 2 calls per layer, over the 2-rank time. Before timing,
# the 2-rank output is checked against the 1-process one (max |error| <=
# 1e-4 of the largest |y|).
#
# The report also projects N ranks from the measured numbers (docs/
# TensorParallelism.md): per-rank compute t(N) = t1 * (r + (1 - r) / N), r the
# non-scaling share derived from the 2-rank run (the replicated ops, and
# what did not halve on this machine: the two cores share its memory
# bandwidth and L3), plus 2 L ring all-reduces
# of B = S * d * 4 bytes, each 2 (N - 1) (alpha + B / (N beta)) (Thakur et
# al. 2005), for the stated networks.
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/tensor_parallel/tp_bench.py [--build build]
#          [--layers 12] [--vocab 512] [--repeat 20] [--trials 3] [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from llmcbench import peers  # noqa: E402

ROOT = peers.ROOT
MPIRUN = ["mpirun", "-np", "2", "--bind-to", "core"]
# Networks for the projection: (name, one-way latency alpha in s,
# bandwidth beta in bytes/s).
NETWORKS = [("InfiniBand HDR 200 Gb/s", 2e-6, 25e9),
            ("100 GbE (RoCE)", 5e-6, 12.5e9),
            ("25 GbE (TCP)", 25e-6, 3.1e9)]


def mpi_env():
    env = dict(os.environ)
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def run(cmd, ranks):
    """Median ms of one `llmc run` (`ranks` = 1 or 2), or exits."""
    prefix = MPIRUN if ranks == 2 else ["taskset", "-c", "0"]
    r = subprocess.run(prefix + cmd, capture_output=True, text=True,
                       env=mpi_env())
    m = re.search(r"time: median ([0-9.]+) ms", r.stdout)
    if r.returncode or not m:
        sys.exit(f"failed ({ranks} ranks): {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return float(m.group(1))


def allreduce_us(binary, count):
    r = subprocess.run(MPIRUN + [binary, str(count), "2000"],
                       capture_output=True, text=True, env=mpi_env())
    m = re.search(r"median ([0-9.]+) us", r.stdout)
    if r.returncode or not m:
        sys.exit(f"allreduce benchmark failed:\n{r.stderr[-2000:]}")
    return float(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--d", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--ffn", type=int, default=3072)
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--prefill", type=int, default=128)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--out")
    a = p.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    if not shutil.which("mpirun") or not shutil.which("mpicc"):
        sys.exit("needs mpirun and mpicc (apt install openmpi-bin libopenmpi-dev)")

    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "allreduce")
        subprocess.run(["mpicc", "-O2", "-o", binary,
                        os.path.join(ROOT, "bench", "tensor_parallel",
                                     "allreduce.c")], check=True)
        rows = []
        for name, seq in (("decode (1 token)", 1),
                          (f"prefill ({a.prefill} tokens)", a.prefill)):
            stem = f"m{seq}"
            subprocess.run([sys.executable,
                            os.path.join(ROOT, "examples", "generate.py"),
                            "gpt2_model", "--d", str(a.d), "--heads",
                            str(a.heads), "--layers", str(a.layers), "--ffn",
                            str(a.ffn), "--vocab", str(a.vocab), "--seq",
                            str(seq), "--name", stem, "--out-dir", tmp],
                           check=True, capture_output=True)
            model = os.path.join(tmp, stem + ".mlir")
            base = [llmc, "run", model, "--input",
                    f"arg0={os.path.join(tmp, stem + '.arg0.npy')}",
                    "--threads", "1", "--warmup", "10"]
            # Correctness first: 2 ranks against 1 process.
            one, two = os.path.join(tmp, "one"), os.path.join(tmp, "two")
            run(base + ["--repeat", "1", "--output-dir", one], 1)
            run(base + ["--repeat", "1", "--output-dir", two,
                        "--tensor-parallel", "2"], 2)
            y1 = np.load(os.path.join(one, "out0.npy"))
            y2 = np.load(os.path.join(two, "out0.npy"))
            err = float(np.abs(y1 - y2).max() / np.abs(y1).max())
            if err > 1e-4:
                sys.exit(f"{name}: 2 ranks differ from 1 process: {err:.2e}")
            t1, t2 = [], []
            for _ in range(a.trials):
                t1.append(run(base + ["--repeat", str(a.repeat)], 1))
                t2.append(run(base + ["--repeat", str(a.repeat),
                                      "--tensor-parallel", "2"], 2))
            ar = allreduce_us(binary, seq * a.d)
            rows.append((name, seq, float(np.median(t1)),
                         float(np.median(t2)), ar, err))

    calls = 2 * a.layers
    lines = [
        f"# Tensor parallelism: 1 process vs 2 ranks",
        "",
        f"{datetime.date.today()}; {peers.cpu_name()}; "
        f"{a.layers} layers, d {a.d}, {a.heads} heads, MLP {a.ffn}, "
        f"vocab {a.vocab} (LM head and embeddings replicated); one thread "
        f"per process, each rank on its own core (mpirun --bind-to core, "
        f"OpenMPI shared memory). Median of {a.repeat} calls after 10 "
        f"warm-up, median of {a.trials} trials. "
        "`bench/tensor_parallel/tp_bench.py`.",
        "",
        "| workload | 1 process ms | 2 ranks ms | speedup | all-reduce "
        "us/call (2 ranks) | all-reduce share | non-scaling share r | "
        "max rel. diff |",
        "|---|---|---|---|---|---|---|---|",
    ]
    projections = []
    for name, seq, t1, t2, ar, err in rows:
        comm = calls * ar / 1e3
        share = comm / t2
        # t2 - comm = t1 (r + (1 - r) / 2)  =>  r = 2 (t2 - comm) / t1 - 1
        r = min(max(2 * (t2 - comm) / t1 - 1, 0.0), 1.0)
        lines.append(f"| {name} | {t1:.2f} | {t2:.2f} | {t1 / t2:.2f}x | "
                     f"{ar:.1f} | {100 * share:.1f}% | {r:.2f} | "
                     f"{err:.1e} |")
        nbytes = seq * a.d * 4
        for net, alpha, beta in NETWORKS:
            cells = []
            for n in (2, 4, 8):
                compute = t1 * (r + (1 - r) / n)
                allreduce = calls * 2 * (n - 1) * (alpha + nbytes /
                                                   (n * beta)) * 1e3
                cells.append(f"{t1 / (compute + allreduce):.2f}x")
            projections.append(f"| {name} | {net} | " + " | ".join(cells) +
                               " |")
    lines += [
        "",
        "Projected speedup over 1 process for N ranks on N nodes, from the "
        "measured 1-process time and replicated share r and a ring "
        "all-reduce of S x d x 4 bytes per call, 2 calls per layer "
        "(alpha: latency, beta: bandwidth per link: HDR 2 us / 25 GB/s, "
        "100 GbE 5 us / 12.5 GB/s, 25 GbE 25 us / 3.1 GB/s; "
        "docs/TensorParallelism.md):",
        "",
        "| workload | network | N = 2 | N = 4 | N = 8 |",
        "|---|---|---|---|---|",
    ] + projections
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
