#!/usr/bin/python3
# ===- bench.py - the export corpus: llmc against ONNX Runtime ------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""The export corpus (test/lib/onnx_models/export_corpus.py: transformer
layers as Hugging Face code and torch.nn built-ins write them) timed in llmc
and in ONNX Runtime (issue 20).

For each family (default: all of export_corpus.FAMILIES) the model is
exported by torch.onnx.export at --opset (default 14), static shapes, no
constant folding, with 1 layer and with --layers (default 2), at the
generator's default sizes (d 48, 3 heads of 16, batch 2, seq 7, vocab 96)
or those of --size D,HEADS,BATCH,SEQ (export_corpus.set_size). Then:

  1. structure: `llmc compile MODEL -o MODEL.o --emit=obj --report=json
     --quiet` (pinned to core 0) for both; kernels per layer is
     kernels(L layers) - kernels(1 layer) over L - 1, and the report's
     runtime_transposes of both are listed;
  2. output check: the first trial of each system (llmc and ONNX Runtime, on
     the L-layer model) writes its outputs, which must match torch's
     elementwise, |y - torch| <= ATOL + RTOL * |torch| (RTOL = ATOL = 1e-4,
     as check_corpus.py); a system that fails (non-zero exit or a mismatch)
     gets no time, and the table says why;
  3. time: the harness of bench/run (its `trial`, `pinning`, `Runner`):
     `llmc run MODEL --input ... --threads T --repeat R --warmup W` (prints
     the median and min call time) and `node bench/ort/run.js` (ONNX Runtime
     1.30 CPU EP, intraOpNumThreads T, interOpNumThreads 1, sequential, all
     graph optimizations), each under `taskset -c 0..T-1` with
     OMP/OPENBLAS/MKL_NUM_THREADS = T. A system's time is the median over
     --trials trials of each trial's median call; trials are interleaved:
     trial k runs every family and system (system order rotated each
     trial) before trial k + 1 starts, so drifts in machine load hit all.

The llmc binary is copied from --build at the start (a rebuild in the tree
during the run does not mix two compilers), and its compile cache is a fresh
directory of the work dir (the first llmc trial of a family JIT-compiles, the
others hit the cache; compile time is never inside a call time).

Writes bench/results/corpus-<UTC date>_<HHMM>.md (or --out), and the raw
figures as JSON in the work dir.

Usage: bench/corpus/bench.py [--families hf_gpt2,bert] [--threads 1,2]
           [--trials N] [--repeat N] [--warmup N] [--layers L] [--opset N]
           [--build DIR] [--work DIR] [--out FILE.md]
Run with /usr/bin/python3 and PYTHONPATH=/usr/lib/python3/dist-packages
(Debian's torch 1.13, onnx 1.12, numpy); bench/setup.sh installs
onnxruntime-node when bench/node_modules lacks it.
"""

import argparse
import datetime
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
CORPUS = os.path.join(ROOT, "test", "lib", "onnx_models")
sys.path.insert(0, BENCH)
sys.path.insert(0, CORPUS)

from llmcbench import stats  # noqa: E402


def _load_bench_run():
    """bench/run (a script without .py) as a module: its trial(), pinning(),
    Runner, base_env() and host_info() are the ones used here."""
    path = os.path.join(BENCH, "run")
    loader = importlib.machinery.SourceFileLoader("llmc_bench_run", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


benchrun = _load_bench_run()

RTOL, ATOL = 1e-4, 1e-4  # as test/lib/onnx_models/check_corpus.py
SYSTEMS = ["llmc", "ort"]
NAMES = {"llmc": "llmc", "ort": "ONNX Runtime"}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ===---------------------------------------------------------------------=== #
# Export and compile
# ===---------------------------------------------------------------------=== #


# Model sizes (d, heads, batch, seq) for export_corpus.set_size, or None for
# the generator's defaults.
SIZE = None


def size_text():
    if not SIZE:
        return ("at the generator's default sizes: d 48, 3 heads of 16 (hf_llama 6 "
                "query / 2 KV heads of 8), MLP 2-4x d, batch 2, seq 7, vocab 96: "
                "overhead-dominated calls of ~0.1 ms, which measure per-call and "
                "per-kernel overhead more than arithmetic throughput.")
    d, h, b, t = SIZE
    return ("at d %d, %d heads of %d (hf_llama %d query / %d KV heads), MLP 2-4x d, "
            "batch %d, seq %d, vocab %d (export_corpus.set_size)." % (
                d, h, d // h, 2 * h, max(1, h // 2), b, t, 2 * d))


def export_family(family, layers, opset, wdir):
    """Exports `family` with `layers` layers into wdir in bench/run's layout
    (model.onnx, in/<input>.npy, ref/<output>.npy, meta.json); returns the
    meta dict."""
    import numpy as np
    import onnx
    import export_corpus
    shutil.rmtree(wdir, ignore_errors=True)
    os.makedirs(os.path.join(wdir, "in"))
    os.makedirs(os.path.join(wdir, "ref"))
    path = os.path.join(wdir, "model.onnx")
    if SIZE:
        export_corpus.set_size(*SIZE)
    export_corpus.export(family, path, opset, False, False, layers)
    model = onnx.load(path, load_external_data=False)
    init = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in init]
    outputs = [o.name for o in model.graph.output]
    ref = np.load(path + ".npz")
    for i, n in enumerate(inputs):
        np.save(os.path.join(wdir, "in", n + ".npy"), ref["in%d" % i])
    for i, n in enumerate(outputs):
        np.save(os.path.join(wdir, "ref", n + ".npy"), ref["out%d" % i])
    meta = dict(family=family, layers=layers, opset=opset, inputs=inputs,
                outputs=outputs,
                input_shapes={n: list(ref["in%d" % i].shape) + [str(ref["in%d" % i].dtype)]
                              for i, n in enumerate(inputs)},
                nodes=len(model.graph.node))
    with open(os.path.join(wdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def compile_report(runner, llmc, wdir):
    """`llmc compile --emit=obj --report=json --quiet` on core 0: the report
    dict plus wall_s, or dict(error=...)."""
    cpus, env = benchrun.pinning("llmc", 1)
    cmd = ["taskset", "-c", cpus, llmc, "compile", os.path.join(wdir, "model.onnx"),
           "-o", os.path.join(wdir, "model.o"), "--emit=obj", "--report=json",
           "--quiet"]
    rc, out, err, wall, _ = runner.run(cmd, env, timeout=600)
    if rc:
        tail = (err.strip() or out.strip()).splitlines()[-3:]
        return dict(error="compile exit %d: %s" % (rc, " | ".join(tail)))
    try:
        rep = json.loads(out[out.index("{"):out.rindex("}") + 1])
    except ValueError:
        return dict(error="compile: no JSON report in output")
    rep["wall_s"] = wall
    return rep


# ===---------------------------------------------------------------------=== #
# Output check
# ===---------------------------------------------------------------------=== #


def check_outputs(outdir, refdir, names):
    """Elementwise |y - ref| <= ATOL + RTOL * |ref| for every output.
    Returns (ok, max_abs_err, message)."""
    import numpy as np
    worst = 0.0
    for n in names:
        p = os.path.join(outdir, n + ".npy")
        if not os.path.isfile(p):
            return False, float("inf"), "output '%s' missing" % n
        y = np.load(p)
        r = np.load(os.path.join(refdir, n + ".npy"))
        if tuple(y.shape) != tuple(r.shape):
            return False, float("inf"), "output '%s': shape %s, torch %s" % (
                n, tuple(y.shape), tuple(r.shape))
        y = y.astype(np.float64)
        r = r.astype(np.float64)
        if not np.all(np.isfinite(y) == np.isfinite(r)):
            return False, float("inf"), "output '%s': non-finite values" % n
        fin = np.isfinite(r)
        err = np.abs(y[fin] - r[fin])
        e = float(err.max()) if err.size else 0.0
        worst = max(worst, e)
        if not np.all(err <= ATOL + RTOL * np.abs(r[fin])):
            return False, worst, "output '%s': max abs error %.3g over rtol %g atol %g" % (
                n, e, RTOL, ATOL)
    return True, worst, "ok"


def self_test():
    """The output check on synthetic data; returns a list of failures."""
    import tempfile
    import numpy as np
    fails = []
    with tempfile.TemporaryDirectory() as d:
        ref, out = os.path.join(d, "ref"), os.path.join(d, "out")
        os.makedirs(ref)
        os.makedirs(out)
        r = np.linspace(-10, 10, 100, dtype=np.float32).reshape(10, 10)
        np.save(os.path.join(ref, "y.npy"), r)
        for what, y, want in (("exact", r, True),
                              ("within rtol", r * (1 + 5e-5), True),
                              ("over rtol", r * (1 + 5e-3), False),
                              ("shape", r.reshape(100), False)):
            np.save(os.path.join(out, "y.npy"), y)
            ok = check_outputs(out, ref, ["y"])[0]
            if ok != want:
                fails.append("check_outputs: " + what)
        os.remove(os.path.join(out, "y.npy"))
        if check_outputs(out, ref, ["y"])[0]:
            fails.append("check_outputs: missing output")
    return fails


# ===---------------------------------------------------------------------=== #
# Report
# ===---------------------------------------------------------------------=== #


def fmt_ms(e):
    if not e or "median_ms" not in e:
        return "-"
    return "%.4f (%.4f-%.4f) [%.4f]" % (e["median_ms"], e["min_ms"], e["max_ms"],
                                        e["best_call_ms"])


def status_of(e):
    """'ok', or why the system has no time."""
    if "error" in e:
        return "error"
    if not e.get("check", {}).get("ok"):
        return "wrong output"
    return "ok"


def ratio(fam, t):
    s = fam["time"].get(str(t), {})
    l, o = s.get("llmc", {}), s.get("ort", {})
    if "median_ms" in l and "median_ms" in o:
        return o["median_ms"] / l["median_ms"], o["best_call_ms"] / l["best_call_ms"]
    return None, None


def geomean(xs):
    import math
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def render(res):
    s = res["settings"]
    L = s["layers"]
    lines = ["# Export corpus: llmc against ONNX Runtime", ""]
    lines.append(
        "Run %s on %s (%d cores, %.1f GiB), llmc %s (binary sha256 %s, built %s), "
        "LLVM %s, ONNX Runtime %s (node %s), torch %s. Threads: %s." % (
            res["date"], res["host"]["cpu"], res["host"]["cores"],
            res["host"]["mem_gib"], res["versions"].get("llmc_commit", "?"),
            res["llmc_sha256"][:12], res["llmc_mtime"], res["versions"].get("llvm", "?"),
            res.get("ort_version", "?"), res["versions"].get("node", "?"),
            res.get("torch_version", "?"), ", ".join(map(str, s["threads"]))))
    lines.append("")
    lo = res["load"]
    lines.append("Machine load during the run (1-minute load average, %d cores): "
                 "%.1f to %.1f. Wall time of the run: %.0f s." % (
                     lo["cores"], lo["min"], lo["max"], res["wall_s"]))
    lines.append("")
    lines.append(
        "Models: `test/lib/onnx_models/export_corpus.py` families, torch.onnx.export "
        "(torch 1.13) at opset %d, static shapes, no constant folding, %d layers "
        "(and 1 layer for the kernel count), %s" % (s["opset"], L, size_text()))
    lines.append("")
    lines.append(
        "Method: `llmc compile --emit=obj --report=json` (core 0) gives kernels and "
        "runtime transposes; kernels/layer = (kernels with %d layers - kernels with "
        "1 layer) / %d. Times are ms per call: the median over %d interleaved trials "
        "(one process each; every family and system per trial, the system order "
        "rotated) of each trial's median of %d calls after %d warm-up calls, with "
        "the min-max of the trial medians and [the fastest single call]. llmc: "
        "`llmc run --threads T --repeat --warmup` (JIT, compile time excluded); "
        "ONNX Runtime: `bench/ort/run.js` (CPU EP, intraOpNumThreads T, "
        "interOpNumThreads 1, sequential, all graph optimizations; ONNX Runtime's "
        "own time per call, from its profiler's model_run events, which leaves out "
        "onnxruntime-node's overhead). Both under `taskset -c 0..T-1`. Before any "
        "time is kept, the first trial's outputs of each system are checked against "
        "torch's elementwise, |y - torch| <= %g + %g |torch|; a system that fails "
        "gets no time. Speedup = ORT time / llmc time (> 1: llmc faster), from the "
        "medians and [from the fastest calls]." % (
            L, L - 1, s["trials"], s["repeat"], s["warmup"], ATOL, RTOL))
    lines.append("")
    ts = s["threads"]
    head = "| family | kernels/layer | runtime transposes |"
    rule = "|---|---:|---:|"
    for t in ts:
        head += " llmc ms %dT | ORT ms %dT | speedup %dT |" % (t, t, t)
        rule += "---:|---:|---:|"
    lines += ["## Summary", "", head, rule]
    notes = []
    for name, fam in res["families"].items():
        c1, c2 = fam["compile"].get("1", {}), fam["compile"].get(str(L), {})
        if "kernels" in c1 and "kernels" in c2:
            kpl = (c2["kernels"] - c1["kernels"]) / (L - 1)
            kpl = ("%d" % kpl) if kpl == int(kpl) else "%.1f" % kpl
        else:
            kpl = "compile failed"
        tr = "/".join(str(c.get("runtime_transposes", "?")) for c in (c1, c2)
                      if "error" not in c) or "-"
        row = "| %s | %s | %s |" % (name, kpl, tr)
        for t in ts:
            st = fam["time"].get(str(t), {})
            cells = []
            for sysn in SYSTEMS:
                e = st.get(sysn, {})
                if "median_ms" in e:
                    cells.append("%.4f" % e["median_ms"])
                else:
                    cells.append("**%s**" % (status_of(e) if e else "not run"))
            r, rb = ratio(fam, t)
            cells.append("%.2fx [%.2fx]" % (r, rb) if r else "-")
            row += " " + " | ".join(cells) + " |"
        lines.append(row)
        for c in (c1, c2):
            if "error" in c:
                notes.append("- %s: %s" % (name, c["error"]))
        for t in ts:
            for sysn in SYSTEMS:
                e = fam["time"].get(str(t), {}).get(sysn, {})
                if "error" in e:
                    notes.append("- %s %dT %s: %s" % (name, t, NAMES[sysn], e["error"]))
                elif e.get("check") and not e["check"]["ok"]:
                    notes.append("- %s %dT %s: wrong output: %s" % (
                        name, t, NAMES[sysn], e["check"]["message"]))
    geo = []
    for t in ts:
        rs = [ratio(f, t) for f in res["families"].values()]
        g, gb = geomean([r[0] for r in rs]), geomean([r[1] for r in rs])
        n = len([r for r in rs if r[0]])
        if g:
            geo.append("%dT: %.2fx [%.2fx] over %d families" % (t, g, gb, n))
    lines.append("")
    lines.append("Kernels/layer: `kernels` of the %d-layer model minus that of the "
                 "1-layer model; runtime transposes: 1-layer/%d-layer." % (L, L))
    if geo:
        lines.append("Geometric mean of the speedups: " + "; ".join(geo) + ".")
    if notes:
        lines += ["", "Failures (no time kept):", ""] + notes
    lines += ["", "## Details", "",
              "| family | threads | llmc ms | ORT ms | llmc max abs err | "
              "ORT max abs err |", "|---|---:|---:|---:|---:|---:|"]
    for name, fam in res["families"].items():
        for t in ts:
            st = fam["time"].get(str(t), {})
            errs = []
            for sysn in SYSTEMS:
                ch = st.get(sysn, {}).get("check")
                errs.append("%.1e" % ch["max_abs_err"] if ch and ch.get("max_abs_err")
                            not in (None, float("inf")) else "-")
            lines.append("| %s | %d | %s | %s | %s | %s |" % (
                name, t, fmt_ms(st.get("llmc")), fmt_ms(st.get("ort")), errs[0], errs[1]))
    lines += ["", "Compile (`llmc compile --emit=obj`, core 0, wall s; kernels with 1 "
              "and %d layers; ONNX nodes of the %d-layer graph):" % (L, L), "",
              "| family | ONNX nodes | kernels 1L | kernels %dL | compile s %dL |" % (L, L),
              "|---|---:|---:|---:|---:|"]
    for name, fam in res["families"].items():
        c1, c2 = fam["compile"].get("1", {}), fam["compile"].get(str(L), {})
        lines.append("| %s | %s | %s | %s | %s |" % (
            name, fam.get("nodes", "-"), c1.get("kernels", "-"), c2.get("kernels", "-"),
            "%.2f" % c2["wall_s"] if "wall_s" in c2 else "-"))
    lines += ["", "Command: `%s`" % res["command"], ""]
    return "\n".join(lines)


# ===---------------------------------------------------------------------=== #
# Main
# ===---------------------------------------------------------------------=== #


def parse_args():
    import export_corpus
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--families", default=",".join(export_corpus.FAMILIES),
                   help="comma-separated (default all)")
    p.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    p.add_argument("--trials", type=int, default=5, help="trials (default 5)")
    p.add_argument("--repeat", type=int, default=200,
                   help="timed calls per trial (default 200)")
    p.add_argument("--warmup", type=int, default=20,
                   help="untimed calls per trial (default 20)")
    p.add_argument("--layers", type=int, default=2, help="layers (default 2; >= 2)")
    p.add_argument("--opset", type=int, default=14, help="opset (default 14)")
    p.add_argument("--size", metavar="D,HEADS,BATCH,SEQ",
                   help="model sizes (export_corpus.set_size; default the "
                        "generator's 48,3,2,7)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="llmc build directory (default build/; never built here)")
    p.add_argument("--work", default=os.path.join(BENCH, "results", "tmp", "corpus"),
                   help="scratch dir (default bench/results/tmp/corpus, git-ignored)")
    p.add_argument("--out", help="results markdown (default "
                                 "bench/results/corpus-<UTC date>_<HHMM>.md)")
    p.add_argument("--timeout", type=int, default=300, help="seconds per process")
    p.add_argument("--self-test", action="store_true",
                   help="check the output check and exit")
    a = p.parse_args()
    a.families = [f for f in a.families.split(",") if f]
    bad = [f for f in a.families if f not in export_corpus.FAMILIES]
    if bad:
        p.error("unknown families %s (known: %s)" % (
            ", ".join(bad), ", ".join(export_corpus.FAMILIES)))
    a.threads = [int(x) for x in a.threads.split(",") if x]
    if not a.threads or any(t < 1 or t > (os.cpu_count() or 1) for t in a.threads):
        p.error("--threads: each in [1, %d]" % os.cpu_count())
    if a.layers < 2 or a.trials < 1 or a.repeat < 1 or a.warmup < 0:
        p.error("--layers >= 2, --trials >= 1, --repeat >= 1, --warmup >= 0")
    if a.size:
        global SIZE
        try:
            SIZE = tuple(int(v) for v in a.size.split(","))
            if len(SIZE) != 4:
                raise ValueError("four sizes")
            export_corpus.set_size(*SIZE)
        except ValueError as e:
            p.error("--size D,HEADS,BATCH,SEQ: %s" % e)
    return a


def main():
    args = parse_args()
    if args.self_test:
        fails = self_test()
        for f in fails:
            print("self-test FAILED: " + f)
        print("self-test: %s" % ("FAILED" if fails else "all checks passed"))
        return 1 if fails else 0
    t_start = time.perf_counter()
    started = datetime.datetime.now(datetime.timezone.utc)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)

    # Peers: onnxruntime-node (bench/setup.sh installs it); never builds llmc.
    if not os.path.isfile(os.path.join(BENCH, "node_modules", "onnxruntime-node",
                                       "package.json")):
        log("bench/corpus: onnxruntime-node missing; running bench/setup.sh")
        if subprocess.call([os.path.join(BENCH, "setup.sh")]) != 0:
            sys.exit("bench/corpus: bench/setup.sh failed")
    src = os.path.join(os.path.abspath(args.build), "bin", "llmc")
    if not os.path.isfile(src):
        sys.exit("bench/corpus: %s missing (build llmc first: scripts/build.sh)" % src)
    # A private copy of the compiler and a fresh compile cache.
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    llmc = os.path.join(bindir, "llmc")
    shutil.copy2(src, llmc)
    with open(llmc, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(src), datetime.timezone.utc)
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = benchrun.base_env(None)
    env["LLMC_CACHE_DIR"] = cache
    env.pop("LLMC_CACHE", None)
    runner = benchrun.Runner(False, env)
    # bench/run's trial() reads args.llmc, args.warmup, args.timeout.
    targs = argparse.Namespace(llmc=llmc, warmup=args.warmup, timeout=args.timeout)

    import torch
    res = dict(date=started.strftime("%Y-%m-%dT%H:%M:%SZ"), host=benchrun.host_info(),
               llmc_sha256=sha, llmc_mtime=mtime.strftime("%Y-%m-%dT%H:%M:%SZ"),
               torch_version=torch.__version__,
               command=" ".join(["bench/corpus/bench.py"] + sys.argv[1:]),
               settings=dict(threads=args.threads, trials=args.trials,
                             repeat=args.repeat, warmup=args.warmup,
                             layers=args.layers, opset=args.opset, rtol=RTOL, atol=ATOL,
                             pinning={str(t): {s: benchrun.pinning(s, t)
                                               for s in SYSTEMS} for t in args.threads}),
               families={})
    res["versions"] = benchrun.versions(argparse.Namespace(llmc=llmc), env)
    loads = [os.getloadavg()]
    L = args.layers

    # 1. Export and compile (1 and L layers).
    for fam in args.families:
        entry = dict(compile={}, time={})
        res["families"][fam] = entry
        for layers in (1, L):
            wdir = os.path.join(work, fam, "L%d" % layers)
            try:
                meta = export_family(fam, layers, args.opset, wdir)
            except Exception as e:  # noqa: BLE001 - recorded, not hidden
                entry["compile"][str(layers)] = dict(error="export: %s" % e)
                continue
            if layers == L:
                entry["meta"] = meta
                entry["nodes"] = meta["nodes"]
            entry["compile"][str(layers)] = compile_report(runner, llmc, wdir)
        c1, c2 = entry["compile"]["1"], entry["compile"][str(L)]
        log("bench/corpus: %s: kernels %s / %s, transposes %s / %s%s" % (
            fam, c1.get("kernels", "-"), c2.get("kernels", "-"),
            c1.get("runtime_transposes", "-"), c2.get("runtime_transposes", "-"),
            "".join("; " + c["error"] for c in (c1, c2) if "error" in c)))
    loads.append(os.getloadavg())

    # 2. Check and time: trial k covers every family, thread count and system.
    runs = {}  # (fam, t, sys) -> dict(trial_medians, best_calls, ...)
    active = []
    for fam in args.families:
        if "meta" not in res["families"][fam]:
            continue
        for t in args.threads:
            for s in SYSTEMS:
                runs[(fam, t, s)] = dict(trial_medians=[], best_calls=[])
                active.append((fam, t, s))
    for k in range(args.trials):
        for fam in args.families:
            entry = res["families"][fam]
            if "meta" not in entry:
                continue
            wdir = os.path.join(work, fam, "L%d" % L)
            for t in args.threads:
                order = SYSTEMS[k % 2:] + SYSTEMS[:k % 2]
                for s in order:
                    key = (fam, t, s)
                    if key not in active:
                        continue
                    r = runs[key]
                    outdir = os.path.join(work, "out", fam, str(t), s) if k == 0 else None
                    if outdir:
                        shutil.rmtree(outdir, ignore_errors=True)
                    tr = benchrun.trial(targs, runner, s, entry["meta"], wdir, t,
                                        args.repeat, outdir)
                    if "error" in tr:
                        r["error"] = tr["error"]
                        active.remove(key)
                        log("bench/corpus: %s %dT %s: %s" % (fam, t, s, tr["error"]))
                        continue
                    if tr.get("info"):
                        r["info"] = tr["info"]
                    if k == 0:
                        ok, err, msg = check_outputs(outdir, os.path.join(wdir, "ref"),
                                                     entry["meta"]["outputs"])
                        r["check"] = dict(ok=ok, max_abs_err=err, message=msg)
                        if not ok:
                            active.remove(key)
                            log("bench/corpus: %s %dT %s: output check FAILED: %s" % (
                                fam, t, s, msg))
                            continue
                    r["trial_medians"].append(tr["median_ms"])
                    r["best_calls"].append(tr["best_ms"])
        loads.append(os.getloadavg())
        log("bench/corpus: trial %d/%d done (%.0f s, load %.1f)" % (
            k + 1, args.trials, time.perf_counter() - t_start, os.getloadavg()[0]))
    for (fam, t, s), r in runs.items():
        e = {x: v for x, v in r.items() if x in ("error", "check", "info")}
        if "error" not in r and r.get("check", {}).get("ok"):
            e.update(stats.summarize(r["trial_medians"], r["best_calls"]))
            e["trial_medians"] = r["trial_medians"]
        res["families"][fam]["time"].setdefault(str(t), {})[s] = e
        if s == "ort" and r.get("info", {}).get("onnxruntime"):
            res["ort_version"] = r["info"]["onnxruntime"]
    res["load"] = dict(samples_1min=[round(x[0], 2) for x in loads],
                       min=min(x[0] for x in loads), max=max(x[0] for x in loads),
                       cores=os.cpu_count())
    res["wall_s"] = time.perf_counter() - t_start

    stem = started.strftime("corpus-%Y-%m-%d_%H%M")
    out = args.out or os.path.join(BENCH, "results", stem + ".md")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(os.path.join(work, stem + ".json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    md = render(res)
    with open(out, "w") as f:
        f.write(md)
    print(md)
    log("bench/corpus: wrote %s (raw: %s)" % (os.path.relpath(out, ROOT),
                                               os.path.join(work, stem + ".json")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
