#!/usr/bin/python3
# ===- generate/past_kv.py - generation from an ONNX past-KV export ------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Token generation from one ONNX decoder exported with its past
(test/lib/onnx_models/export_past_kv.py, Hugging Face GPT-2 code, random
weights): llmc (`llmc.Generator` on the .onnx: the cached form, caches
updated in place), ONNX Runtime running the same graph in its usual loop
(presents fed back as the past; bench/generate/ort_generate.js, npm
onnxruntime-node) and torch eager running the module with its cache, at 1
and 2 threads, in one run. llmc also runs the int8 and int4 weight-only
versions (`llm-quantize-weights` on the imported model, per channel) and,
with --sparse, pruned versions run by the sparse kernels (`llm-prune-weights`
on the imported model: `2:4`, or `b16_75`, 16x16 blocks with 75% of them
zero; then `llmc.Generator(..., sparsify="auto")`, docs/Sparsity.md).

  bench/generate/past_kv.py                 GPT-2-small shape (12 layers,
                                            d 768, 12 heads, vocab 50257)
  bench/generate/past_kv.py --layers 2 --d 256 --heads 4 --vocab 4096  (quick)

Per thread count: the prefill time of --prompt tokens, decode tokens/s and
the median ms per token over --new tokens, for each system, --trials trials
in one process per system (the median trial counts; systems run one after
the other, not interleaved, because a GPT-2-small compile takes a minute);
the greedy ids of the f32 systems are compared. The weight-bandwidth bound:
bench/hw/hwlimits.c measures the read bandwidth (GB/s, best piece) in the
same run, and `bound = weight bytes / bandwidth` is what a decode step that
reads every weight once needs at least; the table gives llmc's decode time
over it. This is a benchmark, not a test: nothing here runs in lit.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "test", "lib", "onnx_models")


def prompt_ids(args):
  import numpy as np
  return [int(i) for i in np.random.default_rng(1).integers(0, args.vocab, size=args.prompt)]


def worker(args):
  """Trials of one system in this process; prints one JSON line per trial."""
  prompt = prompt_ids(args)
  for _ in range(args.trials):
    if args.system == "llmc":
      sys.path.insert(0, os.path.join(args.build, "python_packages"))
      import llmc
      if not hasattr(worker, "gen"):
        opts = {"sparsify": args.sparsify} if args.sparsify else {}
        worker.gen = llmc.Generator(args.model, threads=args.threads, cache=False, **opts)
      t0 = time.perf_counter()
      tokens = worker.gen.generate(prompt, max_new_tokens=args.new, greedy=True)
      ids = [next(tokens)]
      prefill = time.perf_counter() - t0
      times = []
      while True:
        t = time.perf_counter()
        try:
          ids.append(next(tokens))
        except StopIteration:
          break
        times.append(time.perf_counter() - t)
    else:
      import torch
      sys.path.insert(0, MODELS)
      import export_corpus as ec
      import export_past_kv as epk
      torch.set_num_threads(args.threads)
      if not hasattr(worker, "model"):
        ec.set_size(args.d, args.heads, 1, args.max_pos // 2)
        ec.VOCAB = args.vocab
        worker.model, worker.kv = epk.build("gpt2", args.layers, args.scale)
      model, kv = worker.model, worker.kv
      with torch.inference_mode():
        past = epk.empty_past(args.layers, kv)
        t0 = time.perf_counter()
        res = model(torch.tensor([prompt]), *past)
        ids = [int(res[0][0, -1].argmax())]
        prefill = time.perf_counter() - t0
        times = []
        while len(ids) < args.new:
          t = time.perf_counter()
          res = model(torch.tensor([[ids[-1]]]), *res[1:])
          ids.append(int(res[0][0, -1].argmax()))
          times.append(time.perf_counter() - t)
    print(json.dumps({"prefill_ms": prefill * 1e3, "decode_ms": [t * 1e3 for t in times],
                      "ids": ids}), flush=True)


def run_trials(cmd, env):
  out = subprocess.run(cmd, capture_output=True, text=True, env=env)
  if out.returncode != 0:
    raise RuntimeError("%s failed: %s" % (cmd[:3], out.stderr[-2000:]))
  return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def summarize(trials):
  """The median trial by decode median: prefill ms, decode tok/s, median ms."""
  rows = []
  for t in trials:
    d = t["decode_ms"]
    rows.append((statistics.median(d), t["prefill_ms"], len(d) / (sum(d) / 1e3), t["ids"]))
  rows.sort(key=lambda r: r[0])
  med, prefill, tps, ids = rows[len(rows) // 2]
  return {"prefill_ms": prefill, "decode_tps": tps, "decode_ms": med, "ids": ids,
          "prefill_all": sorted(r[1] for r in rows)}


def bandwidth(threads, tmp):
  exe = os.path.join(tmp, "hwlimits")
  if not os.path.exists(exe):
    subprocess.run(["clang-22", "-O3", "-march=native", "-fopenmp", "-o", exe,
                    os.path.join(ROOT, "bench", "hw", "hwlimits.c")], check=True)
  env = dict(os.environ, OMP_NUM_THREADS=str(threads))
  out = subprocess.run([exe, "bw", "1024", "3"], capture_output=True, text=True, env=env,
                       check=True).stdout
  return max(float(line.split()[2]) for line in out.splitlines() if line.startswith("bw"))


def cpu_name():
  for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
      return line.split(":", 1)[1].strip()
  return "unknown CPU"


def main():
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--layers", type=int, default=12)
  p.add_argument("--d", type=int, default=768)
  p.add_argument("--heads", type=int, default=12)
  p.add_argument("--vocab", type=int, default=50257)
  p.add_argument("--max-pos", type=int, default=256, help="position table rows (the cache bound)")
  p.add_argument("--scale", type=float, default=4.0)
  p.add_argument("--prompt", type=int, default=128)
  p.add_argument("--new", type=int, default=64)
  p.add_argument("--trials", type=int, default=3)
  p.add_argument("--threads", default="1,2")
  p.add_argument("--quant", default="int8,int4", help="llmc weight-only variants ('' for none)")
  p.add_argument("--sparse", default="", help="llmc pruned + sparse variants: 2:4, b16_75, b4_75 ('' for none)")
  p.add_argument("--sparsify", default="", help=argparse.SUPPRESS)
  p.add_argument("--build", default=os.path.join(ROOT, "build"))
  p.add_argument("--out", help="also write the markdown table here")
  p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
  p.add_argument("--system", help=argparse.SUPPRESS)
  p.add_argument("--model", help=argparse.SUPPRESS)
  args = p.parse_args()
  if args.worker:
    args.threads = int(args.threads)
    return worker(args)

  tmp = tempfile.mkdtemp(prefix="llmc-pastkv-bench-")
  onnx_path = os.path.join(tmp, "gpt2_past.onnx")
  subprocess.run([sys.executable, os.path.join(MODELS, "export_past_kv.py"), "gpt2", onnx_path,
                  "--layers", str(args.layers), "--d", str(args.d), "--heads", str(args.heads),
                  "--vocab", str(args.vocab), "--max-pos", str(args.max_pos),
                  "--scale", str(args.scale)], check=True)
  # Weight bytes: the f32 initializers (every weight is read once per step).
  import onnx
  m = onnx.load(onnx_path)
  weight_bytes = sum(4 * int(__import__("numpy").prod(t.dims)) for t in m.graph.initializer
                     if t.data_type == onnx.TensorProto.FLOAT)
  variants = [("llmc f32", onnx_path)]
  bin_dir = os.path.join(args.build, "bin")
  for q in [v for v in args.quant.split(",") if v]:
    bits = q[3:]
    # MLIR bytecode: the text form of a GPT-2-small is 1.5 GB.
    mlir = os.path.join(tmp, "gpt2_past_%s.mlirbc" % q)
    imp = subprocess.Popen([os.path.join(bin_dir, "llm-translate"), "--import-onnx",
                            "--kv-cache", onnx_path], stdout=subprocess.PIPE)
    subprocess.run([os.path.join(bin_dir, "llm-opt"), "--llm-quantize-weights=bits=%s" % bits,
                    "--mlir-print-op-on-diagnostic=false", "--emit-bytecode", "-o", mlir],
                   stdin=imp.stdout, check=True, stderr=subprocess.DEVNULL)
    imp.stdout.close()
    if imp.wait() != 0:
      raise RuntimeError("llm-translate --kv-cache failed on " + onnx_path)
    variants.append(("llmc " + q, mlir))
  prune = {"2:4": "pattern=2:4", "b16_75": "pattern=16x16 density=0.25",
           "b4_75": "pattern=4x4 density=0.25"}
  for sp in [v for v in args.sparse.split(",") if v]:
    mlir = os.path.join(tmp, "gpt2_past_%s.mlirbc" % sp.replace(":", ""))
    imp = subprocess.Popen([os.path.join(bin_dir, "llm-translate"), "--import-onnx",
                            "--kv-cache", onnx_path], stdout=subprocess.PIPE)
    subprocess.run([os.path.join(bin_dir, "llm-opt"), "--llm-prune-weights=%s" % prune[sp],
                    "--mlir-print-op-on-diagnostic=false", "--emit-bytecode", "-o", mlir],
                   stdin=imp.stdout, check=True, stderr=subprocess.DEVNULL)
    imp.stdout.close()
    if imp.wait() != 0:
      raise RuntimeError("llm-translate --kv-cache failed on " + onnx_path)
    variants.append(("llmc pruned %s, sparse" % sp, mlir))
  prompt = ",".join(map(str, prompt_ids(args)))
  common = ["--layers", str(args.layers), "--d", str(args.d), "--heads", str(args.heads),
            "--vocab", str(args.vocab), "--max-pos", str(args.max_pos), "--scale", str(args.scale),
            "--prompt", str(args.prompt), "--new", str(args.new), "--trials", str(args.trials),
            "--build", args.build]
  results = {}
  for threads in [int(t) for t in args.threads.split(",")]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    res = {}
    for name, path in variants:
      sparse = ["--sparsify", "auto"] if "sparse" in name else []
      res[name] = summarize(run_trials([sys.executable, __file__, "--worker", "--system", "llmc",
                                        "--model", path, "--threads", str(threads)] + sparse
                                       + common, env))
    res["ONNX Runtime"] = summarize(run_trials(
        ["node", os.path.join(ROOT, "bench", "generate", "ort_generate.js"), onnx_path,
         str(threads), prompt, str(args.new), str(args.trials)], env))
    res["torch"] = summarize(run_trials([sys.executable, __file__, "--worker", "--system", "torch",
                                         "--threads", str(threads)] + common, env))
    res["bw"] = bandwidth(threads, tmp)
    results[threads] = res
    print(json.dumps({k: ({kk: vv for kk, vv in v.items() if kk != "ids"}
                          if isinstance(v, dict) else v) for k, v in res.items()}), file=sys.stderr)

  lines = ["# Generation from an ONNX past-KV export: llmc, ONNX Runtime, torch", "",
           "%s; %d layers, d %d, %d heads, vocab %d, cache %d positions; prompt %d tokens, "
           "%d new (greedy); weights %.1f MB f32; median of %d trials per system; %s." % (
               time.strftime("%Y-%m-%d"), args.layers, args.d, args.heads, args.vocab,
               args.max_pos, args.prompt, args.new, weight_bytes / 1e6, args.trials, cpu_name()), ""]
  for threads, res in results.items():
    bound_ms = weight_bytes / (res["bw"] * 1e9) * 1e3
    lines += ["## %d thread%s (read bandwidth %.1f GB/s: f32 weights need >= %.2f ms per step)" % (
        threads, "s" if threads > 1 else "", res["bw"], bound_ms), "",
        "| system | prefill ms | decode tok/s | median ms/token | decode vs ORT | ms/token over the f32 bound |",
        "|---|---|---|---|---|---|"]
    ort = res["ONNX Runtime"]
    for name in [v[0] for v in variants] + ["ONNX Runtime", "torch"]:
      r = res[name]
      lines.append("| %s | %.1f | %.1f | %.2f | %.2fx | %.2f |" % (
          name, r["prefill_ms"], r["decode_tps"], r["decode_ms"],
          r["decode_tps"] / ort["decode_tps"], r["decode_ms"] / bound_ms))
    def first_diff(a, b):
      return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    ids = {k: res[k]["ids"] for k in ("llmc f32", "ONNX Runtime", "torch")}
    diffs = ["%s / %s: %s" % (a, b, "equal" if first_diff(ids[a], ids[b]) is None
                               else "first differ at new token %d" % first_diff(ids[a], ids[b]))
             for a, b in (("llmc f32", "ONNX Runtime"), ("llmc f32", "torch"),
                          ("ONNX Runtime", "torch"))]
    lines += ["", "Greedy ids (f32): " + "; ".join(diffs) + ".", ""]
  text = "\n".join(lines)
  print(text)
  if args.out:
    with open(args.out, "w") as f:
      f.write(text + "\n")


if __name__ == "__main__":
  sys.exit(main())
