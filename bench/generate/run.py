#!/usr/bin/python3
# ===- generate/run.py - token generation: llmc against torch ---------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Token generation speed: llmc's GenerationSession (llmc.Generator) against
torch running the same GPT-2-style model with a key/value cache, on the same
weights (examples/generate.py gpt2_decoder), at 1 and 2 threads, in one run.

  bench/generate/run.py                       GPT-2-small shape (12 layers, d 768)
  bench/generate/run.py --layers 2 --d 256 --vocab 4096 --max-seq 256   (quick)

For each thread count it reports the prefill time of --prompt tokens and the
decode speed (tokens/s, median ms per token) over --new tokens, for llmc and
torch (eager, torch.inference_mode, a preallocated cache written in place, the
same arithmetic: both compute the logits of every prompt position in prefill,
as the example model and ONNX exports do), and the llmc/torch ratios; it also checks that both produce
the same greedy ids. Each system runs in its own process (so that thread
settings do not leak), --trials times, interleaved; the median trial counts.
This is a benchmark, not a test: nothing here runs in lit.
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


def worker(args):
  """One trial of one system; prints a JSON line."""
  import numpy as np
  sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
  import llmc_check
  prompt = list(np.random.default_rng(1).integers(0, args.vocab, size=args.prompt))
  prompt = [int(i) for i in prompt]
  if args.system == "llmc":
    sys.path.insert(0, os.path.join(args.build, "python_packages"))
    import llmc
    gen = llmc.Generator(args.model, threads=args.threads, cache=False)
    t0 = time.perf_counter()
    tokens = gen.generate(prompt, max_new_tokens=args.new)
    first = next(tokens)
    prefill = time.perf_counter() - t0
    ids, times = [first], []
    while True:
      t = time.perf_counter()
      try:
        ids.append(next(tokens))
      except StopIteration:
        break
      times.append(time.perf_counter() - t)
  else:
    import torch
    torch.set_num_threads(args.threads)
    config, w = llmc_check.read_example(args.model)
    W = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    L, H, d, M = config["layers"], config["heads"], config["d"], config["max_seq"]
    hd = d // H
    kc = [torch.zeros(1, H, M, hd) for _ in range(L)]
    vc = [torch.zeros(1, H, M, hd) for _ in range(L)]
    F = torch.nn.functional

    def forward(ids, past):
      s = len(ids)
      x = W["wte"][torch.tensor(ids)] + W["wpe"][past:past + s]
      x = x[None]
      for i in range(L):
        g = lambda n: W[f"h{i}_{n}"]
        h = F.layer_norm(x, (d,), g("ln1_g"), g("ln1_b"), 1e-5)
        qkv = h @ g("w_qkv") + g("b_qkv")
        q, k, v = qkv.split(d, dim=-1)
        q, k, v = (t.view(1, s, H, hd).transpose(1, 2) for t in (q, k, v))
        kc[i][:, :, past:past + s] = k
        vc[i][:, :, past:past + s] = v
        keys, vals = kc[i][:, :, :past + s], vc[i][:, :, :past + s]
        mask = torch.ones(s, past + s, dtype=torch.bool).tril(past)
        # (Debian 12's torch 1.13 has no F.scaled_dot_product_attention.)
        scores = (q @ keys.transpose(-1, -2)) * (hd ** -0.5)
        a = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ vals
        a = a.transpose(1, 2).reshape(1, s, d)
        x = x + (a @ g("w_proj") + g("b_proj"))
        h = F.layer_norm(x, (d,), g("ln2_g"), g("ln2_b"), 1e-5)
        f = F.gelu(h @ g("w_fc") + g("b_fc"), approximate="tanh")
        x = x + (f @ g("w_out") + g("b_out"))
      x = F.layer_norm(x, (d,), W["lnf_g"], W["lnf_b"], 1e-5)
      # The logits of every new position, as the llmc model (and an ONNX
      # export) computes them; generation uses the last.
      return (x[0] @ W["wte"].T)[-1]

    with torch.inference_mode():
      t0 = time.perf_counter()
      logits = forward(prompt, 0)
      ids = [int(torch.argmax(logits))]
      prefill = time.perf_counter() - t0
      times = []
      pos = len(prompt)
      while len(ids) < args.new:
        t = time.perf_counter()
        logits = forward([ids[-1]], pos)
        pos += 1
        ids.append(int(torch.argmax(logits)))
        times.append(time.perf_counter() - t)
  print(json.dumps({"prefill_ms": prefill * 1e3, "decode_ms": statistics.median(times) * 1e3,
                    "decode_tps": len(times) / sum(times), "ids": ids}))


def main():
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--layers", type=int, default=12)
  p.add_argument("--d", type=int, default=768)
  p.add_argument("--heads", type=int, default=12)
  p.add_argument("--vocab", type=int, default=50257)
  p.add_argument("--max-seq", type=int, default=256)
  p.add_argument("--prompt", type=int, default=128)
  p.add_argument("--new", type=int, default=64)
  p.add_argument("--trials", type=int, default=3)
  p.add_argument("--threads", default="1,2")
  p.add_argument("--build", default=os.path.join(ROOT, "build"))
  p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
  p.add_argument("--system", help=argparse.SUPPRESS)
  p.add_argument("--model", help=argparse.SUPPRESS)
  args = p.parse_args()
  if args.worker:
    args.threads = int(args.threads)
    return worker(args)
  tmp = tempfile.mkdtemp(prefix="llmc-generate-bench-")
  subprocess.run([sys.executable, os.path.join(ROOT, "examples", "generate.py"), "gpt2_decoder",
                  "--d", str(args.d), "--heads", str(args.heads), "--layers", str(args.layers),
                  "--vocab", str(args.vocab), "--max-seq", str(args.max_seq), "--out-dir", tmp],
                 check=True, stdout=subprocess.DEVNULL)
  model = os.path.join(tmp, "gpt2_decoder.mlir")
  cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
  print(f"CPU: {cpu}; model: {args.layers} layers, d {args.d}, {args.heads} heads, vocab {args.vocab}, "
        f"cache {args.max_seq}; prompt {args.prompt}, {args.new} new tokens; {args.trials} trials")
  env = dict(os.environ, PYTHONPATH="/usr/lib/python3/dist-packages")
  for threads in args.threads.split(","):
    runs = {"llmc": [], "torch": []}
    for _ in range(args.trials):
      for system in runs:
        out = subprocess.run([sys.executable, __file__, "--worker", "--system", system, "--model", model,
                              "--threads", threads, "--prompt", str(args.prompt), "--new", str(args.new),
                              "--vocab", str(args.vocab), "--build", args.build],
                             check=True, capture_output=True, text=True, env=dict(env, OMP_NUM_THREADS=threads))
        runs[system].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {s: {k: statistics.median(r[k] for r in rs) for k in ("prefill_ms", "decode_ms", "decode_tps")}
           for s, rs in runs.items()}
    same = runs["llmc"][0]["ids"] == runs["torch"][0]["ids"]
    print(f"threads {threads}: prefill llmc {med['llmc']['prefill_ms']:.1f} ms, torch "
          f"{med['torch']['prefill_ms']:.1f} ms (torch/llmc {med['torch']['prefill_ms'] / med['llmc']['prefill_ms']:.2f}x); "
          f"decode llmc {med['llmc']['decode_tps']:.1f} tok/s ({med['llmc']['decode_ms']:.2f} ms), torch "
          f"{med['torch']['decode_tps']:.1f} tok/s ({med['torch']['decode_ms']:.2f} ms) "
          f"(llmc/torch {med['llmc']['decode_tps'] / med['torch']['decode_tps']:.2f}x); same greedy ids: {same}")


if __name__ == "__main__":
  sys.exit(main())
