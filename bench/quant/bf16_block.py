#!/usr/bin/env python3
# ===- bf16_block.py - f32 blocks on bf16 dot products: llmc against ORT --===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# The torch-exported f32 bench workloads (bench/llmcbench/workloads.py:
# gpt2_layer768, llama_block, decode768) compiled three ways in one run:
#   llmc bf16  llmc with --pipeline-options=demote-contraction-inputs=bf16:
#              the matmuls by constant weights round their inputs to bf16
#              (weights at compile time) and sum in f32 on AVX512-BF16
#              vdpbf16ps (docs/Design.md, "bf16 matmuls on AVX512-BF16");
#   llmc f32   the default, exact f32;
#   ORT f32    ONNX Runtime 1.30 (CPU EP, all graph optimizations).
# Check before timing: both f32 outputs within 1e-4 of torch's f32 output
# relative to its largest magnitude, the bf16 one within 2e-2 (bf16 keeps 8
# significant bits). Times: median ms of --repeat calls after 10 warm-up
# calls, median over --trials processes per system (rotated), pinned with
# taskset to cores 0 .. T-1. On a CPU without AVX512-BF16 the option is a
# warning and "llmc bf16" runs f32 (`llmc --print-target` says which).
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/quant/bf16_block.py [--build build]
#          [--threads 1,2] [--repeat 50] [--trials 3]
#          [--workloads gpt2_layer768,llama_block,decode768] [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)

from llmcbench import peers, workloads  # noqa: E402
from qdq_block import run  # noqa: E402

DEMOTE = "--pipeline-options=demote-contraction-inputs=bf16"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--workloads", default="gpt2_layer768,llama_block,decode768")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    threads = [int(t) for t in a.threads.split(",")]
    limits = {"llmc bf16": 2e-2, "llmc f32": 1e-4, "ORT f32": 1e-4}
    rows = []
    work = tempfile.mkdtemp(prefix="llmc-bf16-")
    try:
        for name in a.workloads.split(","):
            d = os.path.join(work, name)
            workloads.export(name, d)
            model = os.path.join(d, "model.onnx")
            meta = json.load(open(os.path.join(d, "meta.json")))
            ref = np.load(os.path.join(d, "ref", meta["outputs"][0] + ".npy"))
            scale = float(np.abs(ref).max())
            systems = [("llmc bf16", "llmc", (DEMOTE,)), ("llmc f32", "llmc", ()),
                       ("ORT f32", "ort", ())]
            for t in threads:
                times = {s[0]: [] for s in systems}
                errs = {}
                for trial in range(a.trials):
                    k = trial % len(systems)
                    for sname, how, extra in systems[k:] + systems[:k]:
                        out = os.path.join(d, "out", sname.replace(" ", "_"))
                        ms, y = run(how, d, model, t, a.repeat, out, llmc, extra)
                        times[sname].append(ms)
                        errs[sname] = float(np.abs(y - ref).max()) / scale
                bad = {s: e for s, e in errs.items() if e > limits[s]}
                if bad:
                    sys.exit(f"{name}: outputs off torch's: {errs}")
                med = {s: float(np.median(v)) for s, v in times.items()}
                rows.append((name, t, med, errs))
                print(f"{name} T{t}: " + ", ".join(
                    f"{s} {v:.4f}" for s, v in med.items()) +
                    f"; rel err bf16 {errs['llmc bf16']:.3g}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# f32 blocks on bf16 dot products: llmc against ONNX Runtime",
        "",
        f"Run {stamp:%Y-%m-%dT%H:%MZ} on {peers.cpu_name()} ({os.cpu_count()} "
        f"cores), `bench/quant/bf16_block.py --threads {a.threads} --repeat "
        f"{a.repeat} --trials {a.trials}`. ms per call (median of the "
        "trials' medians). llmc bf16: the f32 ONNX model compiled with "
        "`demote-contraction-inputs=bf16` (matmul inputs rounded to bf16, "
        "f32 sums, vdpbf16ps); llmc f32 and ORT f32: exact f32. rel err: "
        "max |y - torch f32| / max |torch f32|.",
        "",
        "| workload | threads | llmc bf16 | llmc f32 | ORT f32 | bf16 vs "
        "llmc f32 | bf16 vs ORT f32 | rel err bf16 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t, med, errs in rows:
        lines.append(
            f"| {name} | {t} | {med['llmc bf16']:.4f} | {med['llmc f32']:.4f} "
            f"| {med['ORT f32']:.4f} | "
            f"{med['llmc f32'] / med['llmc bf16']:.2f}x | "
            f"{med['ORT f32'] / med['llmc bf16']:.2f}x | "
            f"{errs['llmc bf16']:.3g} |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
