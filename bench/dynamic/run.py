#!/usr/bin/python3
# ===- dynamic/run.py - dynamic sequence against static, same model ------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""The cost of keeping the sequence dimension dynamic (issue 18: "within 10%
of the static path"): the export corpus models (test/lib/onnx_models/
export_corpus.py, torch.onnx.export with dynamic batch/sequence axes), each
compiled twice by llmc from the same .onnx file, static (`--dim seq=S`) and
dynamic with the bound S (`--dim-bound seq=S`), and timed at length S with
`llmc run --repeat` (JIT, compile time excluded), --trials interleaved trials
(one process each, the order alternating); the median trial counts. The
outputs of both are compared first (|a - b| <= 1e-5 + 1e-5 |b|).

  PYTHONPATH=/usr/lib/python3/dist-packages bench/dynamic/run.py
  bench/dynamic/run.py --families hf_gpt2,bert --seq 128 --threads 2
  bench/dynamic/run.py --batch 4 (a batch of sequences, pinned: --dim batch=4)

Writes a Markdown table to stdout (and --out FILE): per family the static
and dynamic medians (ms), the ratio dynamic / static, and the min-max over
the trials. This is a benchmark, not a test: nothing here runs in lit.
"""

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "lib", "onnx_models"))


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run(llmc, model, opts, inputs, outdir, repeat, threads, batch):
    cmd = [llmc, "run", model, "--dim", "batch=%d" % batch,
           "--threads", str(threads),
           "--repeat", str(repeat), "--output-dir", outdir] + opts
    for name, path in inputs:
        cmd += ["--input", "%s=%s" % (name, path)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("llmc failed: %s\n%s" % (" ".join(cmd), r.stderr))
    m = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
    if not m:
        sys.exit("no time in llmc's output:\n" + r.stdout + r.stderr)
    return float(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--families", default="hf_gpt2,hf_llama,bert,encoder_kpm")
    p.add_argument("--d", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--repeat", type=int, default=200)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out")
    a = p.parse_args()

    import numpy as np
    import torch
    import export_corpus as ec

    llmc = os.path.join(a.build, "bin", "llmc")
    work = tempfile.mkdtemp(prefix="llmc-dynamic-")
    rows = []
    for family in a.families.split(","):
        ec.set_size(a.d, a.heads, a.batch, a.seq)
        model = os.path.join(work, family + ".onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ec.export(family, model, 14, False, True, a.layers)
        ref = np.load(model + ".npz")
        m, args, names, outs, dyn = ec.build(family, a.layers)
        inputs = []
        for i, name in enumerate(names):
            path = os.path.join(work, "%s_in%d.npy" % (family, i))
            np.save(path, ref["in%d" % i])
            inputs.append((name, path))
        syms = sorted({s for axes in dyn.values() for s in axes.values()
                       if s != "batch"})
        static = ["--dim", ",".join("%s=%d" % (s, a.seq) for s in syms)]
        dynamic = ["--dim-bound", ",".join("%s=%d" % (s, a.seq) for s in syms)]
        # The outputs agree before anything is timed.
        got = {}
        for tag, opts in (("static", static), ("dynamic", dynamic)):
            out = os.path.join(work, "%s_%s" % (family, tag))
            run(llmc, model, opts, inputs, out, 1, a.threads, a.batch)
            got[tag] = np.load(os.path.join(out, outs[0] + ".npy"))
        if not np.all(np.abs(got["dynamic"] - got["static"]) <=
                      1e-5 + 1e-5 * np.abs(got["static"])):
            sys.exit("%s: dynamic and static outputs differ" % family)
        times = {"static": [], "dynamic": []}
        for t in range(a.trials):
            order = ("static", "dynamic") if t % 2 == 0 else ("dynamic", "static")
            for tag in order:
                opts = static if tag == "static" else dynamic
                times[tag].append(run(llmc, model, opts, inputs,
                                      os.path.join(work, "t"), a.repeat,
                                      a.threads, a.batch))
        s, d = (statistics.median(times[k]) for k in ("static", "dynamic"))
        rows.append((family, s, min(times["static"]), max(times["static"]),
                     d, min(times["dynamic"]), max(times["dynamic"]), d / s))
        print("%s: static %.4f ms, dynamic %.4f ms, %.2fx" % (
            family, s, d, d / s), file=sys.stderr, flush=True)

    lines = [
        "# Dynamic sequence against static: the same ONNX export",
        "",
        "%s, %d thread(s); models d %d, %d heads, %d layers, batch %d, "
        "sequence %d (the dynamic compile's bound); median of %d interleaved "
        "trials of `llmc run --repeat %d` (each trial's median), min-max over "
        "the trials." % (cpu_name(), a.threads, a.d, a.heads, a.layers,
                         a.batch, a.seq, a.trials, a.repeat),
        "",
        "| family | static ms | dynamic ms | dynamic / static |",
        "|---|---:|---:|---:|",
    ]
    for f, s, smin, smax, d, dmin, dmax, r in rows:
        lines.append("| %s | %.4f (%.4f-%.4f) | %.4f (%.4f-%.4f) | %.2fx |" %
                     (f, s, smin, smax, d, dmin, dmax, r))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
