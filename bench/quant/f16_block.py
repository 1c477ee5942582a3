#!/usr/bin/env python3
# ===- f16_block.py - f16 models: llmc against ONNX Runtime ---------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# The torch-exported bench workloads (bench/llmcbench/workloads.py:
# gpt2_layer768, llama_block, decode768) in float16 (bench/llmcbench/half.py:
# every float tensor of the exported f32 model in f16, inputs included, as
# model.half() exports), timed four ways in one run:
#   llmc f16       the default: matmuls by constant weights of 2 rows or
#                  more run in f32 on weights widened at compile time
#                  (llm-promote-contraction-inputs; exact);
#   llmc f16 old   --pipeline-options=promote-contraction-min-rows=0: the
#                  f16 matmuls on the f32 tiles, both operands converted at
#                  each step of K (llmc before the promotion);
#   ORT f16        ONNX Runtime 1.30 on the same f16 model (its CPU provider
#                  inserts casts to f32 around the nodes it has no f16
#                  kernel for);
#   llmc f32       the f32 model, for scale.
# Check before timing: every output within 3e-2 of torch's f32 output
# relative to its largest magnitude (f16 keeps 11 significant bits; the
# f32 one within 1e-4), and the two llmc f16 outputs within one f16 ulp of
# each other. Times: median ms of --repeat calls after 10 warm-up calls,
# median over --trials processes per system (rotated), pinned with taskset
# to cores 0 .. T-1. Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/quant/f16_block.py [--build build]
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

from llmcbench import half, peers, workloads  # noqa: E402
from qdq_block import run  # noqa: E402

OLD = "--pipeline-options=promote-contraction-min-rows=0"


def half_workload(d, d16):
    """The f16 copy of the exported workload `d` in `d16` (model, inputs,
    meta)."""
    os.makedirs(os.path.join(d16, "in"), exist_ok=True)
    halved = half.to_float16(os.path.join(d, "model.onnx"),
                             os.path.join(d16, "model.onnx"))
    meta = json.load(open(os.path.join(d, "meta.json")))
    for name in meta["inputs"]:
        x = np.load(os.path.join(d, "in", name + ".npy"))
        np.save(os.path.join(d16, "in", name + ".npy"),
                x.astype(np.float16) if name in halved else x)
    shutil.copy(os.path.join(d, "meta.json"), d16)


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
    limits = {"llmc f16": 3e-2, "llmc f16 old": 3e-2, "ORT f16": 3e-2,
              "llmc f32": 1e-4}
    rows = []
    work = tempfile.mkdtemp(prefix="llmc-f16-")
    try:
        for name in a.workloads.split(","):
            d = os.path.join(work, name)
            workloads.export(name, d)
            d16 = os.path.join(work, name + "_f16")
            half_workload(d, d16)
            m16 = os.path.join(d16, "model.onnx")
            meta = json.load(open(os.path.join(d, "meta.json")))
            ref = np.load(os.path.join(d, "ref", meta["outputs"][0] + ".npy"))
            scale = float(np.abs(ref).max())
            systems = [("llmc f16", "llmc", d16, m16, ()),
                       ("llmc f16 old", "llmc", d16, m16, (OLD,)),
                       ("ORT f16", "ort", d16, m16, ()),
                       ("llmc f32", "llmc", d, os.path.join(d, "model.onnx"), ())]
            for t in threads:
                times = {s[0]: [] for s in systems}
                errs, outs = {}, {}
                for trial in range(a.trials):
                    k = trial % len(systems)
                    for sname, how, wd, model, extra in systems[k:] + systems[:k]:
                        out = os.path.join(wd, "out", sname.replace(" ", "_"))
                        ms, y = run(how, wd, model, t, a.repeat, out, llmc, extra)
                        times[sname].append(ms)
                        y = y.astype(np.float64)
                        outs[sname] = y
                        errs[sname] = float(np.abs(y - ref).max()) / scale
                bad = {s: e for s, e in errs.items() if e > limits[s]}
                if bad:
                    sys.exit(f"{name}: outputs off torch's: {errs}")
                # Promotion is exact up to the order of the f32 sums: one
                # f16 ulp (2^-10 relative) between the two llmc f16 runs.
                a16, o16 = outs["llmc f16"], outs["llmc f16 old"]
                if np.any(np.abs(a16 - o16) > 2.0**-10 * np.abs(o16) + 1e-7):
                    sys.exit(f"{name}: promoted and unpromoted f16 differ by "
                             f"{np.abs(a16 - o16).max():.3g}")
                med = {s: float(np.median(v)) for s, v in times.items()}
                rows.append((name, t, med, errs))
                print(f"{name} T{t}: " + ", ".join(
                    f"{s} {v:.4f}" for s, v in med.items()) +
                    f"; rel err f16 {errs['llmc f16']:.3g}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# f16 models: llmc against ONNX Runtime",
        "",
        f"Run {stamp:%Y-%m-%dT%H:%MZ} on {peers.cpu_name()} ({os.cpu_count()} "
        f"cores), `bench/quant/f16_block.py --threads {a.threads} --repeat "
        f"{a.repeat} --trials {a.trials}`. ms per call (median of the "
        "trials' medians). The torch-exported f32 workloads converted to f16 "
        "(bench/llmcbench/half.py). llmc f16: the default (matmuls run in f32 "
        "on weights widened at compile time); llmc f16 old: "
        "`promote-contraction-min-rows=0` (f16 operands converted at each "
        "step); ORT f16: ONNX Runtime on the f16 model; llmc f32: the f32 "
        "model. rel err: max |y - torch f32| / max |torch f32|.",
        "",
        "| workload | threads | llmc f16 | llmc f16 old | ORT f16 | llmc f32 "
        "| f16 vs old | f16 vs ORT f16 | rel err f16 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t, med, errs in rows:
        lines.append(
            f"| {name} | {t} | {med['llmc f16']:.4f} | {med['llmc f16 old']:.4f} "
            f"| {med['ORT f16']:.4f} | {med['llmc f32']:.4f} | "
            f"{med['llmc f16 old'] / med['llmc f16']:.2f}x | "
            f"{med['ORT f16'] / med['llmc f16']:.2f}x | "
            f"{errs['llmc f16']:.3g} |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
