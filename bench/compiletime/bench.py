#!/usr/bin/env python3
# ===- bench.py - llmc compile time against the graph size ---------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Compile time of llmc, stage by stage, as the graph grows (issue 23).

Models (made in WORKDIR, default bench/results/tmp/compiletime):
  * chainN: a chain of N ONNX Relu nodes on a [4, 64] f32 input (the issue's
    sweep), N in --sizes (default 500,2000,8000,20000);
  * gpt2_small: a 12-layer GPT-2-small (d 768, 12 heads, vocab 50257, 124M
    parameters, seeded random weights) exported from torch, prefill of
    --seq positions (default 64).

Each model is compiled with `llmc compile MODEL -o OBJ --emit=obj
--mlir-timing` (and with --no-opt), pinned to one core (taskset -c 0),
--trials times (default 3); the table gives the median wall time of the
whole process and the median of each compile stage that llmc reports
(importing, lowering, translating to LLVM IR, LLVM IR optimization, LLVM
codegen, writing the outputs). For GPT-2-small it also times `llmc run
--no-cache` (compile + JIT load + one call), a second `llmc run` hitting the
compile cache (the whole process, and the hit's own stages: hashing the
model, checking and loading the entry), and, when bench/node_modules has onnxruntime-node (bench/
setup.sh), ONNX Runtime's session creation for the same file.

Goals (issue 23): a 20000-node chain under 10 s with and without --no-opt,
GPT-2-small under 5 s on one core; a cached start under 1 s.

Usage: bench/compiletime/bench.py [--build DIR] [--sizes 500,2000]
                                  [--trials N] [--seq N] [--out FILE.md]
                                  [--skip-gpt2]
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAGE_RE = re.compile(r"^\s+([0-9.]+) s \(\s*[0-9.]+%\)\s+(.+)$")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def make_chain(n, path):
    import onnx
    from onnx import TensorProto, helper
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        nodes.append(helper.make_node("Relu", [prev], [out], name="relu%d" % i))
        prev = out
    graph = helper.make_graph(
        nodes, "chain%d" % n,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_gpt2_small(path, seq):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    sys.path.insert(0, os.path.join(ROOT, "test", "lib", "onnx_models"))
    import torch
    from llmcbench import workloads
    gpt2 = workloads._modules()["GPT2"]
    torch.manual_seed(0)
    model = gpt2(50257, 768, 12, 12, seq).eval()
    ids = torch.zeros(1, seq, dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(model, (ids,), path, opset_version=17,
                          input_names=["ids"], output_names=["logits"],
                          do_constant_folding=True)


def timed(cmd, env=None):
    """Runs `cmd` pinned to core 0; returns (wall seconds, stderr)."""
    start = time.perf_counter()
    proc = subprocess.run(["taskset", "-c", "0"] + cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr))
    return wall, proc.stderr


def stages_of(stderr):
    stages, on = {}, False
    for line in stderr.splitlines():
        if line.startswith("===- llmc compile stages"):
            on = True
            continue
        m = STAGE_RE.match(line) if on else None
        if m and m.group(2) != "total":
            stages[m.group(2)] = float(m.group(1))
    return stages


def compile_row(llmc, model, obj, extra, trials):
    walls, runs = [], []
    for _ in range(trials):
        # A new output each time: a replaced file's pages are freed only by
        # the final rename, so replacing a 650 MB object writes into fresh
        # memory, which on these VMs costs about twice as much to touch
        # first (the compile then measures the hypervisor, not llmc).
        if os.path.exists(obj):
            os.remove(obj)
        wall, err = timed([llmc, "compile", model, "-o", obj, "--emit=obj",
                           "--mlir-timing"] + extra)
        walls.append(wall)
        runs.append(stages_of(err))
    names = list(runs[0])
    return statistics.median(walls), {n: statistics.median(r.get(n, 0) for r in runs)
                                      for n in names}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="500,2000,8000,20000")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--workdir", default=os.path.join(ROOT, "bench", "results", "tmp",
                                                      "compiletime"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip-gpt2", action="store_true")
    args = ap.parse_args()
    llmc = os.path.join(args.build, "bin", "llmc")
    if not os.access(llmc, os.X_OK):
        sys.exit("no llmc at %s (build with scripts/build.sh or give --build)" % llmc)
    os.makedirs(args.workdir, exist_ok=True)
    obj = os.path.join(args.workdir, "out.o")

    models = []
    for n in [int(s) for s in args.sizes.split(",") if s]:
        path = os.path.join(args.workdir, "chain%d.onnx" % n)
        if not os.path.exists(path):
            make_chain(n, path)
        models.append(("chain%d" % n, path))
    gpt2 = os.path.join(args.workdir, "gpt2_small_seq%d.onnx" % args.seq)
    if not args.skip_gpt2:
        if not os.path.exists(gpt2):
            make_gpt2_small(gpt2, args.seq)
        models.append(("gpt2_small", gpt2))

    rows = []
    # The disk as a peer: writing an object as large as GPT-2-small's (650
    # MB) to a new file, from memory, in one write (these VMs take 0.2 to
    # 1.9 s for it, depending on the pages the kernel gives the new file).
    disk = None
    if not args.skip_gpt2:
        size = os.path.getsize(gpt2)
        data = bytearray(size)
        data[::4096] = b"\1" * len(data[::4096])
        walls = []
        for _ in range(args.trials):
            if os.path.exists(obj):
                os.remove(obj)
            start = time.perf_counter()
            with open(obj, "wb") as f:
                f.write(data)
            walls.append(time.perf_counter() - start)
        del data
        disk = (size, statistics.median(walls))
    for name, path in models:
        for mode, extra in (("opt", []), ("--no-opt", ["--no-opt"])):
            wall, stages = compile_row(llmc, path, obj, extra, args.trials)
            rows.append((name, mode, wall, stages))
            print("%-12s %-8s %7.2f s  %s" % (name, mode, wall, "  ".join(
                "%s %.2f" % (k, v) for k, v in stages.items())), flush=True)

    extra_lines = []
    if not args.skip_gpt2:
        cache = tempfile.mkdtemp(prefix="llmc-bench-cache-")
        env = dict(os.environ, LLMC_CACHE="on", LLMC_CACHE_DIR=cache)
        try:
            cold = statistics.median(timed([llmc, "run", gpt2, "--no-cache"])[0]
                                     for _ in range(args.trials))
            timed([llmc, "run", gpt2], env)  # populates the cache
            hits = [timed([llmc, "run", gpt2, "--mlir-timing"], env)
                    for _ in range(args.trials)]
            warm = statistics.median(wall for wall, _ in hits)
            ready = statistics.median(sum(stages_of(err).values())
                                      for _, err in hits)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        extra_lines.append("| gpt2_small `llmc run --no-cache` (compile, load, one call) | %.2f s |" % cold)
        extra_lines.append("| gpt2_small `llmc run`, compile cache hit (load, one call) | %.2f s |" % warm)
        extra_lines.append("| gpt2_small compile cache hit: hashing the model + checking and loading the entry | %.2f s |" % ready)
        ort = os.path.join(ROOT, "bench", "node_modules", "onnxruntime-node")
        if os.path.isdir(ort) and shutil.which("node"):
            loads = []
            for _ in range(args.trials):
                proc = subprocess.run(["taskset", "-c", "0", "node",
                                       os.path.join(ROOT, "bench", "compiletime", "ort_load.js"),
                                       gpt2, "1"], capture_output=True, text=True)
                if proc.returncode == 0:
                    loads.append(json.loads(proc.stdout.strip().splitlines()[-1])["load_s"])
            if loads:
                extra_lines.append("| gpt2_small ONNX Runtime 1.30 session creation (1 thread) | %.2f s |"
                                   % statistics.median(loads))
        for line in extra_lines:
            print(line)

    stamp = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    names = []
    for _, _, _, stages in rows:
        for n in stages:
            if n not in names:
                names.append(n)
    out = ["# llmc compile time (bench/compiletime/bench.py)", "",
           "%s, %s, one core (taskset -c 0), median of %d trials; load average %.1f at start." %
           (stamp, cpu_name(), args.trials, os.getloadavg()[0]), "",
           "| model | mode | total (s) | " + " | ".join(names) + " |",
           "|---|---|---:|" + "---:|" * len(names)]
    for name, mode, wall, stages in rows:
        out.append("| %s | %s | %.2f | %s |" % (name, mode, wall, " | ".join(
            "%.2f" % stages.get(n, 0) for n in names)))
    if extra_lines:
        out += ["", "| GPT-2-small start | time |", "|---|---:|"] + extra_lines
    if disk:
        out += ["", "Peer in the same run: Python writing %d MB (the size of the GPT-2-small "
                "model) to a new file on the same disk: %.2f s." % (disk[0] >> 20, disk[1])]
    text = "\n".join(out) + "\n"
    path = args.out or os.path.join(ROOT, "bench", "results",
                                    "compiletime-%s.md" % datetime.datetime.utcnow().strftime("%Y-%m-%d_%H%M"))
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path)


if __name__ == "__main__":
    main()
