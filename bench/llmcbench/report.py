# ===- report.py - derived figures, markdown table, chart, README ---------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Turns bench/run's raw result into derived figures (achieved GFLOP/s and
GB/s, roofline, speedups, goals) and writes <stem>.json, <stem>.md and
<stem>.png; update_readme() puts the latest table and chart into
bench/README.md between the `bench:latest` markers."""

import json
import math
import os
import re

from . import stats

LABELS = {"llmc": "llmc", "ort": "ONNX Runtime", "torch": "torch eager",
          "torchscript": "TorchScript (freeze+opt)", "numpy": "numpy (OpenBLAS)"}
PEERS = ["ort", "torch", "torchscript", "numpy"]
README_BEGIN = "<!-- bench:latest:begin -->"
README_END = "<!-- bench:latest:end -->"


def derive(result):
    """Adds per-system GFLOP/s, GB/s, % of roofline and llmc's speedups, and
    the goals of issue 7, to `result` in place."""
    goals = []
    # T threads can always do what fewer threads do (the others idle), so a
    # roof is at least the roof measured at any lower thread count (on a
    # loaded machine two threads rarely run undisturbed at the same time).
    for t, hw in result["hw"].items():
        lower = [h for u, h in result["hw"].items() if int(u) <= int(t)]
        hw["read_roof"] = max(h["read_gbs"]["best"] for h in lower)
        hw["fma_roof"] = max(h["fma_gflops"]["best"] for h in lower)
    for name, w in result["workloads"].items():
        meta = w["meta"]
        for t, tr in w["threads"].items():
            hw = result["hw"][t]
            peak, bw = hw["fma_roof"], hw["read_roof"]
            roof_ms, bound = stats.roofline(meta["flops"], meta["bytes"], peak, bw)
            tr["roofline_ms"], tr["bound"] = roof_ms, bound
            syss = tr["systems"]
            for s, e in syss.items():
                if "median_ms" not in e:
                    continue
                e["gflops"], e["gbs"] = stats.achieved(meta["flops"], meta["bytes"],
                                                       e["median_ms"])
                e["roofline_frac"] = roof_ms / e["median_ms"]
                e["roofline_frac_best"] = roof_ms / e["best_call_ms"]
            l = syss.get("llmc", {}).get("median_ms")
            lb = syss.get("llmc", {}).get("best_call_ms")
            tr["llmc_speedup"] = {p: stats.speedup(syss[p].get("median_ms"), l)
                                  for p in PEERS if p in syss}
            tr["llmc_speedup_best"] = {p: stats.speedup(syss[p].get("best_call_ms"), lb)
                                       for p in PEERS if p in syss}
            # Goals (issue 7).
            if meta["kind"] == "model":
                sp = tr["llmc_speedup"].get("ort")
                goals.append(dict(goal="faster than ONNX Runtime", workload=name,
                                  threads=int(t), value=sp,
                                  text=_fmt_x(sp) + " ORT's speed (best calls: %s)"
                                  % _fmt_x(tr["llmc_speedup_best"].get("ort")),
                                  met=sp is not None and sp > 1.0))
            if name == "matvec4096" and l:
                frac = syss["llmc"]["gbs"] / bw
                fb = meta["bytes"] / (syss["llmc"]["best_call_ms"] * 1e-3) / 1e9 / bw
                goals.append(dict(goal=">= 85% of read bandwidth", workload=name,
                                  threads=int(t), value=frac,
                                  text="%.0f%% of %.1f GB/s (best call: %.0f%%)" % (
                                      100 * frac, bw, 100 * fb),
                                  met=frac >= 0.85))
            if meta["kind"] == "matmul":
                sp = tr["llmc_speedup"].get("numpy")
                goals.append(dict(goal="within 10% of OpenBLAS", workload=name,
                                  threads=int(t), value=sp,
                                  text=_fmt_x(sp) + " OpenBLAS's speed (best calls: %s)"
                                  % _fmt_x(tr["llmc_speedup_best"].get("numpy")),
                                  met=sp is not None and sp >= 1 / 1.1))
    result["goals"] = goals


def _fmt_x(x):
    return "-" if x is None else "%.2fx" % x


def _fmt_ms(e):
    if "median_ms" not in e:
        if "error" in e:
            return "error"
        if not e.get("check", {}).get("ok", True):
            return "wrong output"
        return "-"
    m = e["median_ms"]
    prec = 3 if m < 10 else (2 if m < 100 else 1)
    return "%.*f (%.*f-%.*f) [%.*f]" % (prec, m, prec, e["min_ms"], prec, e["max_ms"],
                                        prec, e["best_call_ms"])


def _fmt_bytes(b):
    if b is None:
        return "-"
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= div:
            return "%.1f %s" % (b / div, unit)
    return "%d B" % b


def markdown(result):
    """The results as markdown (tables and notes)."""
    L = []
    host, load = result["host"], result.get("load", {})
    v = result.get("versions", {})
    L.append("Run %s on %s (%d cores, %.0f GiB), llmc %s (LLVM %s), ONNX Runtime %s, "
             "torch %s, numpy %s, OpenBLAS core %s.%s" % (
                 result["date"], host["cpu"], host["cores"], host["mem_gib"],
                 v.get("llmc_commit", "?"), v.get("llvm", "?"), _info(result, "ort",
                                                                       "onnxruntime"),
                 _info(result, "torch", "torch"), _info(result, "numpy", "numpy"),
                 v.get("openblas_core", "?"),
                 " **Quick (smoke) run: few calls, figures not meaningful.**"
                 if result.get("quick") else ""))
    if result.get("partial"):
        L.append("")
        L.append("**Partial run: the run stopped before its last workload; the "
                 "workloads below are the ones it finished.**")
    L.append("")
    if load:
        L.append("Machine load during the run (1-minute load average, %d cores): "
                 "%.1f to %.1f.%s" % (load["cores"], load["min"], load["max"],
                                      " **The machine was shared and overloaded: every "
                                      "system's times are inflated and noisy; compare "
                                      "systems within this run only.**"
                                      if load["max"] > load["cores"] else ""))
        L.append("")
    s = result["settings"]
    L.append("Time per call in ms: median over %d trials of each trial's median of "
             "%d calls (after %d warm-up calls), with the min-max of the trial medians "
             "and [the fastest single call]. "
             "Every output was checked against torch eager (max|y-ref| <= %g * "
             "max(|ref|, 1)) before its time was kept.%s" % (
                 s["trials"], s["repeat"], s["warmup"], s["check_tol"],
                 " ONNX Runtime's calls are timed twice, by the JavaScript "
                 "clock and by its own profiler, and the smaller median is "
                 "kept (bench/ort/profile.js)." if s.get("ort_timer") ==
                 "min(js, profiler)" else ""))
    L.append("")
    syss = [x for x in ["llmc"] + PEERS if x in s["systems"]]
    L.append("| workload | threads | " + " | ".join(LABELS[x] for x in syss) +
             " | roofline (bound) |")
    L.append("|---|---:|" + "---:|" * len(syss) + "---:|")
    for name, w in result["workloads"].items():
        for t, tr in w["threads"].items():
            cells = [_fmt_ms(tr["systems"].get(x, {})) if x in tr["systems"] else "n/a"
                     for x in syss]
            L.append("| %s | %s | %s | %.3f (%s) |" % (name, t, " | ".join(cells),
                                                       tr["roofline_ms"], tr["bound"]))
    L.append("")
    L.append("llmc against the limits and its peers (speedup = peer time / llmc time; "
             "> 1 means llmc is faster), from the medians and [from the fastest calls; "
             "on a loaded machine a short call either runs undisturbed or loses a "
             "time slice, so the fastest call is the steadier figure]:")
    L.append("")
    peers = [p for p in PEERS if p in s["systems"]]
    L.append("| workload | threads | llmc GFLOP/s | llmc GB/s | llmc % of roofline | "
             "best peer % of roofline | " +
             " | ".join("vs " + LABELS[p] for p in peers) + " |")
    L.append("|---|---:|---:|---:|---:|---:|" + "---:|" * len(peers))
    for name, w in result["workloads"].items():
        for t, tr in w["threads"].items():
            e = tr["systems"].get("llmc", {})
            fr = [tr["systems"][p] for p in peers if p in tr["systems"]
                  and "roofline_frac" in tr["systems"][p]]
            best_peer = ("%.1f%% [%.1f%%]" % (
                100 * max(x["roofline_frac"] for x in fr),
                100 * max(x["roofline_frac_best"] for x in fr)) if fr else "-")
            if "median_ms" in e:
                lc = "%.1f | %.1f | %.1f%% [%.1f%%]" % (
                    e["gflops"], e["gbs"], 100 * e["roofline_frac"],
                    100 * e["roofline_frac_best"])
            else:
                lc = "- | - | -"
            L.append("| %s | %s | %s | %s | %s |" % (
                name, t, lc, best_peer,
                " | ".join("%s [%s]" % (_fmt_x(tr["llmc_speedup"].get(p)),
                                        _fmt_x(tr["llmc_speedup_best"].get(p)))
                           if p in tr["llmc_speedup"] else "n/a" for p in peers)))
    L.append("")
    L.append("Hardware limits measured in this run (bench/hw/hwlimits.c, clang -O3 "
             "-march=native, pinned like the workloads): the read of a 1 GiB array "
             "in 16 MiB pieces and the f32 FMA peak in 1 ms bursts; medians over the "
             "reps of the whole rep's rate and of its fastest piece or burst (on a "
             "shared machine a piece either runs undisturbed or loses a time slice; "
             "for FMA, the higher of that and the rate per CPU second of the "
             "threads); the roof is the best rate seen at this or a lower thread "
             "count.")
    L.append("")
    L.append("| threads | read GB/s, whole | read GB/s, fastest piece | roof GB/s | "
             "FMA GFLOP/s, whole | FMA GFLOP/s, fastest burst | roof GFLOP/s |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|")
    for t, h in result["hw"].items():
        b, f = h["read_gbs"], h["fma_gflops"]
        L.append("| %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f |" % (
            t, b["whole_median"], b["piece_median"], h["read_roof"], f["whole_median"],
            f["piece_median"], h["fma_roof"]))
    over = sorted({"%s %sT %s" % (n, t, LABELS[sn])
                   for n, w in result["workloads"].items()
                   for t, tr in w["threads"].items()
                   for sn, e in tr["systems"].items()
                   if e.get("roofline_frac_best", 0) > 1.0})
    if over:
        L.append("")
        L.append("Above the roofline (fastest call): %s. The measured roof is then "
                 "too low (a disturbed measurement), not the system faster than the "
                 "machine." % ", ".join(over))
    L.append("")
    L.append("Workloads (FLOPs: 2MNK per MatMul/Gemm plus one per output element of "
             "other compute nodes; bytes: weights + inputs + outputs, once) and llmc "
             "compile (`llmc compile --emit=obj`, one core; wall time and CPU time; "
             "report keys from `--report=json` when this llmc has them):")
    L.append("")
    L.append("| workload | description | GFLOP | MB | compile wall s | compile CPU s | "
             "kernels | kernels/layer | arena | live-set bound |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, w in result["workloads"].items():
        m, c = w["meta"], w.get("llmc_compile", {})
        rep = c.get("report") or {}
        k = rep.get("kernels")
        kpl = ("%.1f" % (k / m["layers"]) if k is not None and m["layers"] else "-")
        L.append("| %s | %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |" % (
            name, m["desc"], m["flops"] / 1e9, m["bytes"] / 1e6,
            "%.2f" % c["wall_s"] if "wall_s" in c else "error",
            "%.2f" % c["cpu_s"] if "cpu_s" in c else "-",
            k if k is not None else "-", kpl,
            _fmt_bytes(rep.get("arena_bytes")), _fmt_bytes(rep.get("live_bound_bytes"))))
    L.append("")
    L.append("Goals (issue 7):")
    L.append("")
    for g in result["goals"]:
        L.append("- %s %s, %d thread(s): %s — %s" % (
            "[x]" if g["met"] else "[ ]", g["workload"], g["threads"], g["goal"],
            g["text"]))
    errs = []
    for name, w in result["workloads"].items():
        for t, tr in w["threads"].items():
            for sname, e in tr["systems"].items():
                if "error" in e:
                    errs.append("%s %sT %s: %s" % (name, t, sname, e["error"]))
                elif not e.get("check", {}).get("ok", True):
                    errs.append("%s %sT %s: output check failed: %s" % (
                        name, t, sname, e["check"]["message"]))
    if errs:
        L.append("")
        L.append("Not timed:")
        L.append("")
        L.extend("- " + x for x in errs)
    return "\n".join(L) + "\n"


def _info(result, system, key):
    for w in result["workloads"].values():
        for tr in w["threads"].values():
            v = tr["systems"].get(system, {}).get("info", {}).get(key)
            if v:
                return v
    return "?"


def chart(result, path):
    """One panel per thread count: time per call (log scale) for each
    workload and system, min-max whiskers, the roofline as a black tick."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    threads = result["settings"]["threads"]
    syss = [x for x in ["llmc"] + PEERS if x in result["settings"]["systems"]]
    names = list(result["workloads"])
    fig, axes = plt.subplots(1, len(threads), figsize=(6.5 * len(threads), 4.8),
                             squeeze=False)
    width = 0.8 / len(syss)
    colors = {"llmc": "#d62728", "ort": "#1f77b4", "torch": "#ff7f0e",
              "torchscript": "#2ca02c", "numpy": "#9467bd"}
    for ax, t in zip(axes[0], threads):
        for i, s in enumerate(syss):
            xs, ys, lo, hi = [], [], [], []
            for j, n in enumerate(names):
                e = result["workloads"][n]["threads"][str(t)]["systems"].get(s, {})
                if "median_ms" in e:
                    xs.append(j + (i - (len(syss) - 1) / 2) * width)
                    ys.append(e["median_ms"])
                    lo.append(e["median_ms"] - e["min_ms"])
                    hi.append(e["max_ms"] - e["median_ms"])
            ax.bar(xs, ys, width, yerr=[lo, hi], label=LABELS[s], color=colors[s],
                   capsize=2, error_kw=dict(lw=0.8))
        for j, n in enumerate(names):
            r = result["workloads"][n]["threads"][str(t)]["roofline_ms"]
            ax.hlines(r, j - 0.45, j + 0.45, colors="black", linewidth=1.5,
                      label="roofline" if j == 0 else None)
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("ms per call (log)")
        ax.set_title("%d thread(s)" % t)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    load = result.get("load", {})
    fig.suptitle("llmc vs peers, %s (load %.1f-%.1f on %d cores)" % (
        result["date"][:10], load.get("min", 0), load.get("max", 0),
        load.get("cores", 0)), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write(result, outdir, stem):
    paths = [os.path.join(outdir, stem + ext) for ext in (".json", ".md", ".png")]
    with open(paths[0], "w") as f:
        json.dump(result, f, indent=1, default=_nan_safe)
    with open(paths[1], "w") as f:
        f.write(markdown(result))
    try:
        chart(result, paths[2])
    except ImportError:
        paths.pop()
    return paths


def _nan_safe(x):
    return None if isinstance(x, float) and math.isnan(x) else str(x)


def update_readme(readme, paths):
    """Replaces the text between the bench:latest markers with the new table
    and chart (paths relative to the README)."""
    with open(readme) as f:
        text = f.read()
    md = [p for p in paths if p.endswith(".md")][0]
    with open(md) as f:
        table = f.read()
    rel = lambda p: os.path.relpath(p, os.path.dirname(readme))
    body = "Latest full run: [%s](%s)" % (rel(md), rel(md))
    pngs = [p for p in paths if p.endswith(".png")]
    if pngs:
        body += "\n\n![llmc vs peers](%s)" % rel(pngs[0])
    body += "\n\n" + table
    new, n = re.subn(re.escape(README_BEGIN) + ".*?" + re.escape(README_END),
                     lambda _: README_BEGIN + "\n" + body + README_END, text,
                     flags=re.S)
    if n != 1:
        raise SystemExit("bench: %s lacks the %s ... %s markers" % (
            readme, README_BEGIN, README_END))
    with open(readme, "w") as f:
        f.write(new)


def self_test():
    """Derives and renders a synthetic two-workload result; returns failures."""
    fails = []
    sysd = lambda med: dict(median_ms=med, min_ms=med * 0.9, max_ms=med * 1.2,
                            best_call_ms=med * 0.8, trials=3, check=dict(ok=True))
    result = dict(
        date="2000-01-01T00:00:00Z", quick=False,
        host=dict(cpu="test", cores=2, mem_gib=1.0),
        settings=dict(threads=[1], systems=["llmc", "ort", "numpy"], trials=3,
                      repeat=5, warmup=1, check_tol=stats.CHECK_TOL),
        hw={"1": dict(read_gbs=dict(best=10.0, whole_median=5.0, piece_median=9.0),
                      fma_gflops=dict(best=100.0, whole_median=50.0,
                                      piece_median=90.0))},
        load=dict(min=1.0, max=3.0, cores=2),
        workloads={
            "m": dict(meta=dict(desc="model", kind="model", layers=2, flops=1e9,
                                bytes=1e6),
                      llmc_compile=dict(wall_s=1.0, cpu_s=0.5,
                                        report=dict(kernels=8, arena_bytes=2048)),
                      threads={"1": dict(systems=dict(
                          llmc=sysd(20.0), ort=sysd(10.0),
                          numpy=dict(check=dict(ok=False, message="bad")))) }),
            "matvec4096": dict(
                meta=dict(desc="mv", kind="decode", layers=0, flops=1e6, bytes=1e8),
                llmc_compile=dict(error=["x"]),
                threads={"1": dict(systems=dict(llmc=sysd(11.0), ort=sysd(10.0),
                                                numpy=dict(error="exit 1")))}),
        })
    derive(result)
    tr = result["workloads"]["m"]["threads"]["1"]

    def expect(cond, what):
        if not cond:
            fails.append(what)

    expect(abs(tr["roofline_ms"] - 10.0) < 1e-9 and tr["bound"] == "compute",
           "derive roofline")
    expect(abs(tr["llmc_speedup"]["ort"] - 0.5) < 1e-9, "derive speedup")
    expect(tr["llmc_speedup"]["numpy"] is None, "no speedup without a time")
    expect(abs(tr["llmc_speedup_best"]["ort"] - 0.5) < 1e-9, "derive best speedup")
    expect("| m | 1 | 50.0 | 0.1 | 50.0% [62.5%] | 100.0% [125.0%] | 0.50x [0.50x] |"
           in md if (md := markdown(result)) else False, "markdown llmc row")
    g = {(x["workload"], x["goal"]): x for x in result["goals"]}
    expect(not g[("m", "faster than ONNX Runtime")]["met"], "goal ORT not met")
    mv = g[("matvec4096", ">= 85% of read bandwidth")]
    expect(mv["met"] and abs(mv["value"] - (1e8 / 11e-3 / 1e9) / 10.0) < 1e-9,
           "goal bandwidth met at 91%")
    md = markdown(result)
    expect("| m | 1 | 20.00 (18.00-24.00) [16.00] | 10.00 (9.00-12.00) [8.00] | "
           "wrong output |"
           in md, "markdown time row")
    expect("| 2.0 KiB |" in md and "| 8 | 4.0 |" in md, "markdown report keys")
    expect("matvec4096 1T numpy: exit 1" in md, "markdown lists untimed systems")
    expect("Above the roofline (fastest call): m 1T ONNX Runtime, matvec4096 1T "
           "ONNX Runtime, matvec4096 1T llmc." in md,
           "markdown flags rates above the roof")
    return fails
