#!/usr/bin/env python3
# ===- sweep.py - shape sweep: llmc against ONNX Runtime, no cliffs -------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Issue 22's cliff hunt: single-op ONNX models over the shapes users bring
# rather than the ones llmc was tuned on, each timed in llmc and in ONNX
# Runtime in one run:
#   matmul     x[M, K] @ W[K, N] (W an initializer): prefill, tiny,
#              tall-skinny, short-wide, dimensions that are not a multiple
#              of the vector width, decode matvecs (M = 1), 8-15 rows
#              (batched decode, short prompts); --matmuls replaces the list;
#   attention  softmax(Q K^T / sqrt(D)) V on [1, H, S, D] inputs written as
#              torch.nn.functional.scaled_dot_product_attention's
#              decomposition (MatMul, Mul, Softmax, MatMul; llmc recomposes
#              it into llm.attention), head dims 15, 40, 64, 80, 96, 100,
#              112, 120, 128, 256.
# Every output is checked against numpy (float64) before its time is kept:
# |y - ref| <= 1e-4 (max |ref| + |ref|). Times: median ms of --repeat calls
# after 10 warm-up calls, the median over --trials processes per system
# (the system order alternating), pinned with taskset to cores 0 .. T-1.
# ratio = llmc / ORT (< 1: llmc faster); the goal is <= 1.2 everywhere.
# With --tune, each case is also tuned first (`llmc tune --threads T` into a
# tuning cache of its own, pinned like the timed runs) and timed a third way,
# llmc with that cache ("tuned"); the goal after tuning is <= 1.0.
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/sweep/sweep.py [--build build]
#          [--threads 1,2] [--repeat 50] [--trials 3] [--only SUBSTR]
#          [--matmuls MxKxN,...] [--tune] [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from llmcbench import peers  # noqa: E402

MATMULS = [
    # (M, K, N)
    (128, 768, 768), (128, 768, 3072), (512, 1024, 1024),
    (100, 100, 100), (7, 13, 17), (16, 16, 16), (33, 65, 129),
    (128, 1000, 1000), (4096, 64, 64), (64, 4096, 64), (2048, 32, 256),
    (1, 4096, 4096), (1, 1000, 3000), (1, 768, 50257), (4, 4096, 4096),
    (8, 4096, 4096), (12, 1024, 1000), (15, 768, 3072),
]
HEAD_DIMS = [15, 40, 64, 80, 96, 100, 112, 120, 128, 256]
ATTENTION_HEADS, ATTENTION_SEQ = 8, 128


def save(d, name, nodes, inputs, outputs, inits, feeds):
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
              os.path.join(d, "model.onnx"))
    for k, v in feeds.items():
        np.save(os.path.join(d, "in", k + ".npy"), v)
    with open(os.path.join(d, "meta.json"), "w") as fh:
        json.dump({"inputs": list(feeds), "outputs": ["y"]}, fh)


def matmul_case(d, m, k, n, rng):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
    save(d, "matmul", [helper.make_node("MatMul", ["x", "w"], ["y"])],
         [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
         [numpy_helper.from_array(w, "w")], {"x": x})
    return x.astype(np.float64) @ w.astype(np.float64)


def attention_case(d, dh, rng):
    h, s = ATTENTION_HEADS, ATTENTION_SEQ
    q, k, v = (rng.standard_normal((1, h, s, dh)).astype(np.float32)
               for _ in range(3))
    scale = np.array(1.0 / math.sqrt(dh), np.float32)
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
        helper.make_node("Softmax", ["ss"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    shape = [1, h, s, dh]
    save(d, "attention", nodes,
         [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
          for n in ("q", "k", "v")],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
         [numpy_helper.from_array(scale, "scale")], {"q": q, "k": k, "v": v})
    sc = (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64)
          ) * float(scale)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ v.astype(np.float64)


def check(y, ref):
    err = np.abs(y.astype(np.float64) - ref)
    tol = 1e-4 * (np.abs(ref).max() + np.abs(ref))
    return bool(y.shape == ref.shape and (err <= tol).all()), float(err.max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--matmuls", default="",
                    help="matmul shapes MxKxN,... instead of the built-in list")
    ap.add_argument("--tune", action="store_true",
                    help="also time llmc after `llmc tune` (tuned)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    if not os.path.exists(peers.ORT_MODULE):
        sys.exit("ONNX Runtime is missing: run bench/setup.sh")
    target = subprocess.run([llmc, "--print-target"], capture_output=True,
                            text=True).stdout.splitlines()[:2]
    threads = [int(t) for t in a.threads.split(",")]
    matmuls = ([tuple(int(v) for v in s.split("x"))
                for s in a.matmuls.split(",")] if a.matmuls else MATMULS)
    cases = [(f"matmul {m}x{k}x{n}", lambda d, r, s=(m, k, n):
              matmul_case(d, *s, r)) for (m, k, n) in matmuls]
    cases += [(f"attention D={dh} (H {ATTENTION_HEADS}, S {ATTENTION_SEQ})",
               lambda d, r, dh=dh: attention_case(d, dh, r))
              for dh in HEAD_DIMS]
    cases = [c for c in cases if a.only in c[0]]
    rng = np.random.default_rng(0)
    rows = []
    work = tempfile.mkdtemp(prefix="llmc-sweep-")
    try:
        for i, (name, make) in enumerate(cases):
            d = os.path.join(work, str(i))
            ref = make(d, rng)
            for t in threads:
                systems = ["llmc", "ORT"] + (["tuned"] if a.tune else [])
                times = {s: [] for s in systems}
                note = ""
                cache = os.path.join(d, f"tuning-{t}.json")
                if a.tune:
                    r = subprocess.run(
                        peers.pinned(t) + [llmc, "tune",
                                           os.path.join(d, "model.onnx"),
                                           "--tuning-cache", cache,
                                           "--threads", str(t), "--quiet"],
                        capture_output=True, text=True)
                    if r.returncode:
                        note += "tune failed: " + (r.stderr.strip().splitlines()
                                                   or ["?"])[-1] + "; "
                        systems.remove("tuned")
                        del times["tuned"]
                for trial in range(a.trials):
                    order = systems if trial % 2 == 0 else systems[::-1]
                    for system in order:
                        out = os.path.join(d, "out", system)
                        if system in ("llmc", "tuned"):
                            meta = json.load(open(os.path.join(d, "meta.json")))
                            extra = (["--tuning-cache", cache]
                                     if system == "tuned" else [])
                            ms, err = peers.llmc_run(
                                llmc, os.path.join(d, "model.onnx"),
                                {n: os.path.join(d, "in", n + ".npy")
                                 for n in meta["inputs"]}, t, a.repeat, out,
                                extra)
                        else:
                            ms, err = peers.ort_run(d, t, a.repeat, out)
                        if ms is None:
                            note += f"{system} failed: {err}; "
                            times[system] = None
                            continue
                        y = np.load(os.path.join(out, "y.npy"))
                        ok, e = check(y, ref)
                        if not ok:
                            note += f"{system} wrong (max err {e:.3g}); "
                            times[system] = None
                            continue
                        if times[system] is not None:
                            times[system].append(ms)
                    if any(v is None for v in times.values()):
                        break
                med = {s: (float(np.median(v)) if v else None)
                       for s, v in times.items()}
                rows.append((name, t, med, note.strip()))
                ratio = (f"{med['llmc'] / med['ORT']:.2f}"
                         if med["llmc"] and med["ORT"] else "-")
                tuned = (f" tuned {med['tuned']}" if med.get("tuned") else "")
                print(f"{name} T{t}: llmc {med['llmc']} ORT {med['ORT']} "
                      f"ratio {ratio}{tuned} {note}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# Shape sweep: llmc against ONNX Runtime",
        "",
        f"Run {stamp:%Y-%m-%dT%H:%MZ} on {peers.cpu_name()} ({os.cpu_count()} "
        f"cores; llmc target: {'; '.join(s.split(':', 1)[1].strip() for s in target)}), "
        f"`bench/sweep/sweep.py --threads {a.threads} --repeat {a.repeat} "
        f"--trials {a.trials}{' --tune' if a.tune else ''}`. ms per call "
        "(median of the trials' medians), outputs checked against numpy "
        "first. ratio = llmc / ORT (< 1: llmc faster; the goal is <= 1.2)"
        + ("; tuned = llmc with the tiles `llmc tune --threads T` chose for "
           "the case (goal <= 1.0)" if a.tune else "") + ". f32 throughout.",
        "",
        ("| case | threads | llmc ms | tuned ms | ORT ms | ratio | tuned "
         "ratio | note |" if a.tune else
         "| case | threads | llmc ms | ORT ms | ratio | note |"),
        ("|---|---:|---:|---:|---:|---:|---:|---|" if a.tune else
         "|---|---:|---:|---:|---:|---|"),
    ]
    worst, worstTuned = {}, {}
    fmt = lambda v: f"{v:.4f}" if v else "-"
    for name, t, med, note in rows:
        r = med["llmc"] / med["ORT"] if med["llmc"] and med["ORT"] else None
        if r is not None:
            worst[t] = max(worst.get(t, 0), r)
        rt = (med["tuned"] / med["ORT"]
              if med.get("tuned") and med["ORT"] else None)
        if rt is not None:
            worstTuned[t] = max(worstTuned.get(t, 0), rt)
        if a.tune:
            lines.append(f"| {name} | {t} | {fmt(med['llmc'])} | "
                         f"{fmt(med.get('tuned'))} | {fmt(med['ORT'])} | "
                         f"{f'{r:.2f}' if r else '-'} | "
                         f"{f'{rt:.2f}' if rt else '-'} | {note} |")
        else:
            lines.append(f"| {name} | {t} | {fmt(med['llmc'])} | "
                         f"{fmt(med['ORT'])} | {f'{r:.2f}' if r else '-'} | "
                         f"{note} |")
    lines.append("")
    plural = lambda t: f"{t} thread{'s' if t > 1 else ''}"
    lines.append("Worst ratio: " + ", ".join(
        f"{w:.2f} at {plural(t)}" for t, w in sorted(worst.items())) + ".")
    if a.tune:
        lines.append("Worst ratio after tuning: " + ", ".join(
            f"{w:.2f} at {plural(t)}" for t, w in sorted(worstTuned.items()))
            + ".")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
