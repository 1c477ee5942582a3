#!/usr/bin/env python3
# ===- check_corpus.py - the export corpus: recomposed, fused, correct ----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Checks the models of export_corpus.py (transformer layers as Hugging Face
code and torch.nn built-ins write them) through llmc, one line per variant.

For each variant FAMILY:OPSET[:fold][:dyn] (torch.onnx.export at OPSET, with
do_constant_folding when `fold`, dynamic batch/sequence axes when `dyn`, the
importer then given them with --dim), the model is exported with 1 and with
2 layers and:

  1. imported (llm-translate --import-onnx) and recomposed
     (llm-opt --canonicalize --llm-recompose, as the pipeline's inliner
     canonicalizes first); the llm ops are counted. Every layer must
     come back as llmc's own ops (RECOMPOSED below: llm.attention once per
     layer, the family's norms, activations and RoPE) and no decomposed
     form may be left (llm.softmax, llm.reduce_mean, llm.pow, llm.sqrt,
     llm.erf, llm.tanh, llm.neg: LEFTOVERS);
  2. compiled (llmc compile --emit=mlir --report=json); kernels per layer is
     kernels(2 layers) - kernels(1 layer), at most MAX_KERNELS_PER_LAYER
     (max_kernels: 10 for hf_gemma2's four norms per layer), and
     the report's runtime_transposes (transposes of activations or weights
     left at run time) must be 0 in both;
  3. run (llmc run, 2 layers) on the inputs torch ran, every output compared
     with torch's: |llmc - torch| <= ATOL + RTOL * |torch| elementwise.

Prints `VARIANT: attention=.. <op>=.. kernels/layer=K transposes=0
max_err=E OK`, `VARIANT: FAIL: reason`, or `VARIANT: SKIP: reason` when
torch itself cannot export the model at that opset (torch 1.13 has no triu
below opset 14: nn.Transformer.generate_square_subsequent_mask), then
`N passed, N failed, N skipped`; exits 1 on any failure.

Usage: check_corpus.py BIN_DIR WORKDIR VARIANT... [--jobs N]
                       [--size D,HEADS,BATCH,SEQ]
       (VARIANT `all` expands to every family x opsets 13-17 x fold x dyn)
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_corpus  # noqa: E402
import torch  # noqa: E402

# Float32 results of the same math in another order: llmc fuses and
# reassociates (flash attention's online softmax, fused epilogues).
RTOL, ATOL = 1e-4, 1e-4

MAX_KERNELS_PER_LAYER = 8


def max_kernels(family):
    """The most kernels per layer allowed for `family`: MAX_KERNELS_PER_LAYER,
    plus 2 for Gemma 2, whose post-attention and post-MLP RMSNorms (4 norms
    per layer against LLaMA's 2) each reduce over a whole matmul output row
    and so start a kernel of their own (with its residual add). (GPT-NeoX's
    partial rotary, slice -> rope -> concat, is one llm.rope {rotary_dims}
    and its query and key ropes one kernel: 8, as LLaMA.)"""
    extra = {"hf_gemma2": 2}
    return MAX_KERNELS_PER_LAYER + extra.get(family, 0)

# Decomposed forms that must be gone after llm-recompose.
LEFTOVERS = ["softmax", "reduce_mean", "pow", "sqrt", "rsqrt", "erf", "tanh",
             "neg", "sigmoid"]


def recomposed(family, layers):
    """The fused ops (op -> count) that `layers` layers of `family` must
    recompose into (counted over the whole model)."""
    L = layers
    if family.startswith("hf_gpt2"):
        return {"attention": L, "layer_norm": 2 * L + 1, "gelu": L}
    if family == "hf_llama":
        return {"attention": L, "rms_norm": 2 * L + 1, "rope": 2 * L,
                "silu": L}
    if family == "hf_gemma2":
        # The final logits' soft-capping is an elementwise tanh of its own.
        return {"attention": L, "rms_norm": 4 * L + 1, "rope": 2 * L,
                "gelu": L, "tanh": 1}
    if family == "hf_neox":
        # Partial rotary: rope on the first quarter of each head.
        return {"attention": L, "layer_norm": 2 * L + 1, "rope": 2 * L,
                "gelu": L}
    if family == "bert":
        return {"attention": L, "layer_norm": 2 * L + 1, "gelu": L}
    if family == "bert_pool":
        # F.normalize's L2 norm of the pooled embedding: one llm.sqrt.
        return {"attention": L, "layer_norm": 2 * L + 1, "gelu": L,
                "sqrt": 1}
    if family.startswith("mha"):
        return {"attention": L, "layer_norm": L}
    if family.startswith("encoder"):
        want = {"attention": L, "layer_norm": 2 * L}
        if family == "encoder_gelu":
            want["gelu"] = L
        return want
    if family.startswith("sdpa"):
        return {"attention": L, "layer_norm": 2 * L, "gelu": L}
    if family == "bloom_left_pad":
        return {"attention": L, "layer_norm": 2 * L, "gelu": L}
    raise ValueError(family)


def expand(variants):
    out = []
    for v in variants:
        if v == "all":
            # Families interleaved, so that a partial run covers them all.
            for opset in range(13, 18):
                for fold in ("", ":fold"):
                    for dyn in ("", ":dyn"):
                        for fam in export_corpus.FAMILIES:
                            out.append("%s:%d%s%s" % (fam, opset, fold, dyn))
        else:
            out.append(v)
    return out


def parse(variant):
    parts = variant.split(":")
    family, opset = parts[0], int(parts[1])
    flags = set(parts[2:])
    if family not in export_corpus.FAMILIES or not flags <= {"fold", "dyn"}:
        raise ValueError("bad variant %r" % variant)
    return family, opset, "fold" in flags, "dyn" in flags


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def count_ops(text):
    return collections.Counter(re.findall(r"\bllm\.([a-z_0-9]+)\b", text))


def check(args):
    bindir, workdir, variant = args
    try:
        family, opset, fold, dyn = parse(variant)
    except ValueError as e:
        return variant, False, str(e)
    tag = variant.replace(":", "_")
    env = dict(os.environ, LLMC_CACHE="off")
    tool = lambda name: os.path.join(bindir, name)
    kernels, notes = {}, []
    for layers in (1, 2):
        path = os.path.join(workdir, "%s_L%d.onnx" % (tag, layers))
        try:
            dims = export_corpus.export(family, path, opset, fold, dyn, layers)
        except torch.onnx.errors.UnsupportedOperatorError as e:
            # Not a model llmc could see: torch itself cannot write it.
            return variant, None, "torch %s cannot export it at opset %d " \
                "(%s)" % (torch.__version__, opset, str(e).split(".")[0])
        dim_args = []
        for k, v in dims.items():
            dim_args += ["--dim", "%s=%d" % (k, v)]
        imp = run([tool("llm-translate"), "--import-onnx", path] + dim_args,
                  env=env)
        if imp.returncode:
            return variant, False, "import: " + imp.stderr.strip()[-300:]
        # Canonicalized first, as the pipeline's inliner does before
        # llm-recompose (GPT-NeoX's baddbmm adds zeros to its scores).
        rec = run([tool("llm-opt"), "--canonicalize", "--llm-recompose"],
                  input=imp.stdout, env=env)
        if rec.returncode:
            return variant, False, "recompose: " + rec.stderr.strip()[-300:]
        ops = count_ops(rec.stdout)
        for op, n in recomposed(family, layers).items():
            if ops[op] != n:
                return variant, False, "%d layer(s): %d llm.%s, expected %d" % (
                    layers, ops[op], op, n)
        want = recomposed(family, layers)
        left = ["llm.%s x%d" % (op, ops[op]) for op in LEFTOVERS
                if ops[op] > want.get(op, 0)]
        if left:
            return variant, False, "%d layer(s): not recomposed: %s" % (
                layers, ", ".join(left))
        if layers == 2:
            notes = ["%s=%d" % (op, ops[op])
                     for op in sorted(recomposed(family, layers))]
        # (The kernels are counted before LLVM: --emit=mlir skips codegen.)
        out = os.path.join(workdir, "%s_L%d.ll.mlir" % (tag, layers))
        comp = run([tool("llmc"), "compile", path, "-o", out, "--emit=mlir",
                    "--report=json", "--quiet"] + dim_args, env=env)
        if comp.returncode:
            return variant, False, "compile: " + comp.stderr.strip()[-300:]
        report = json.loads(comp.stdout)
        if report.get("runtime_transposes", 0):
            return variant, False, "%d layer(s): %d runtime transposes" % (
                layers, report["runtime_transposes"])
        kernels[layers] = report["kernels"]
    per_layer = kernels[2] - kernels[1]
    if per_layer > max_kernels(family):
        return variant, False, "%d kernels per layer (%d with 1 layer, %d " \
            "with 2), more than %d" % (per_layer, kernels[1], kernels[2],
                                      max_kernels(family))
    # Numerics: the 2-layer model against torch.
    ref = np.load(path + ".npz")
    import onnx
    model = onnx.load(path, load_external_data=False)
    init = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in init]
    outdir = os.path.join(workdir, tag + "_out")
    cmd = [tool("llmc"), "run", path, "--output-dir", outdir, "--quiet"]
    # One CPU thread (the GPU targets take no --threads).
    if not any(arg.startswith("--target=cuda") for arg in RUN_ARGS):
        cmd += ["--threads", "1"]
    cmd += dim_args + RUN_ARGS
    for i, name in enumerate(names):
        npy = os.path.join(workdir, "%s_in%d.npy" % (tag, i))
        np.save(npy, ref["in%d" % i])
        cmd += ["--input", "%s=%s" % (name, npy)]
    r = run(cmd, env=env)
    if r.returncode:
        return variant, False, "run: " + r.stderr.strip()[-300:]
    worst = 0.0
    for i, out in enumerate(model.graph.output):
        got = np.load(os.path.join(outdir, out.name + ".npy"))
        want = ref["out%d" % i]
        if got.shape != want.shape:
            return variant, False, "output %s: shape %s, torch %s" % (
                out.name, got.shape, want.shape)
        err = np.abs(got.astype(np.float64) - want)
        bound = ATOL + RTOL * np.abs(want)
        if not np.all(err <= bound):
            return variant, False, "output %s: max abs error %.3g over " \
                "rtol %g atol %g" % (out.name, err.max(), RTOL, ATOL)
        worst = max(worst, float(err.max()))
    return variant, True, "%s kernels/layer=%d transposes=0 max_err=%.1e" % (
        " ".join(notes), per_layer, worst)


# Extra arguments of the numerics' `llmc run` (--run-arg), e.g.
# --target=cuda-emulator to run the GPU kernels on the CPU.
RUN_ARGS = []


def check_in_subprocess(bindir, workdir, variants, jobs, size=None):
    """Runs `check` for each variant in its own process (`--one`), `jobs` at
    a time; a process that dies is a failure of its variant. Yields
    (variant, ok, message) in the order of `variants` as they finish."""
    pending = list(enumerate(variants))
    running = []
    while pending or running:
        while pending and len(running) < jobs:
            i, v = pending.pop(0)
            proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), bindir, workdir,
                 v, "--one"] + (["--size", size] if size else []) +
                ["--run-arg=" + arg for arg in RUN_ARGS],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                universal_newlines=True,
                env=dict(os.environ, OMP_NUM_THREADS="1"))
            running.append((i, v, proc))
        i, v, proc = running.pop(0)
        out, err = proc.communicate()
        try:
            ok, msg = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            ok, msg = False, "checker process exited with %d: %s" % (
                proc.returncode, err.strip()[-300:])
        yield v, ok, msg


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bindir")
    p.add_argument("workdir")
    p.add_argument("variants", nargs="+")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--one", action="store_true",
                   help="check one variant, print [ok, message] as JSON")
    p.add_argument("--size", metavar="D,HEADS,BATCH,SEQ",
                   help="model sizes (export_corpus.set_size)")
    p.add_argument("--run-arg", action="append", default=[],
                   help="an extra argument of the numerics' `llmc run` "
                   "(repeatable), e.g. --run-arg=--target=cuda-emulator")
    a = p.parse_args()
    RUN_ARGS.extend(a.run_arg)
    os.makedirs(a.workdir, exist_ok=True)
    if a.size:
        export_corpus.set_size(*[int(v) for v in a.size.split(",")])
    if a.one:
        _, ok, msg = check((a.bindir, a.workdir, a.variants[0]))
        print(json.dumps([ok, msg]))
        return 0
    variants = expand(a.variants)
    results = check_in_subprocess(a.bindir, a.workdir, variants,
                                  max(1, a.jobs), a.size)
    passed = failed = skipped = 0
    for variant, ok, msg in results:
        if ok is None:
            print("%s: SKIP: %s" % (variant, msg))
            skipped += 1
        elif ok:
            print("%s: %s OK" % (variant, msg))
            passed += 1
        else:
            print("%s: FAIL: %s" % (variant, msg))
            failed += 1
        sys.stdout.flush()
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
