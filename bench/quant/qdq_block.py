#!/usr/bin/env python3
# ===- qdq_block.py - W8A8 QDQ transformer blocks: llmc against ORT ------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Static W8A8 quantization of whole blocks as ONNX Runtime's quantization
# tool writes it (QDQ format, per-tensor u8 activations with a zero point,
# per-channel symmetric s8 weights), from the bench workloads llama_block
# (LLaMA-style, GQA, RoPE, SwiGLU, d 512, seq 128) and gpt2_layer768
# (GPT-2-small-shaped layer, seq 128):
#   1. the f32 workload is exported by torch (bench/llmcbench/workloads.py);
#   2. a calibration pass in torch records each nn.Linear's input range
#      (forward hooks; min-max on the workload's input);
#   3. every MatMul whose second input is an initializer W [K, N] (torch's
#      exported Linear.weight^T) gets DequantizeLinear(QuantizeLinear(x))
#      on its activation, with the Linear's range (u8, scale (max - min) /
#      255, zero point round(-min / scale)), and DequantizeLinear(Wq, sw,
#      axis=1) for W (sw = max |W[:, n]| / 127, Wq = round(W / sw));
#   4. the QDQ model runs in llmc (int8: llm-fold-quant makes every such
#      matmul an llm.matmul_integer; on AVX512-VNNI the dot-product kernel)
#      and ONNX Runtime (its QDQ fusion, MLAS int8), and the f32 model in
#      both, in one run, interleaved.
# Check before timing: llmc's and ORT's int8 outputs agree within 2e-2 of
# the output's largest magnitude (the two place rounding differently:
# ORT requantizes in fused kernels), and both are within 0.1 of torch's
# f32 output relative to its largest magnitude (the quantization error);
# the f32 models within 1e-4 of torch. Times: median ms of --repeat calls
# after 10 warm-up calls, median over --trials processes per system
# (rotated), pinned with taskset to cores 0 .. T-1.
# Not a test; run it on an idle machine.
#
# With --calibrate METHOD (minmax, percentile, entropy), llmc quantizes the
# f32 model itself instead (`llmc calibrate`, docs/Calibration.md): 16
# seeded N(0, 1) samples of the workload's inputs, per-channel weights; the
# "llmc calibrated" row runs llmc's quantized .mlir, and the QDQ ONNX model
# for ONNX Runtime is written with llmc's chosen activation scales and
# zero points (from the --report=json, by MatMul node name) and the same
# weight rule, so both run the same quantized model. Workloads may then
# include decode768 (one token over 512 cached positions).
#
# Usage: /usr/bin/python3 bench/quant/qdq_block.py [--build build]
#          [--threads 1,2] [--repeat 50] [--trials 3]
#          [--workloads llama_block,gpt2_layer768] [--calibrate METHOD]
#          [--out FILE]
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
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "lib", "onnx_models"))

from llmcbench import peers, workloads  # noqa: E402


def calibrate(name, d):
    """Input ranges (min, max) of each nn.Linear of workload `name` on its
    input, keyed by the Linear's weight bytes (transposed, as exported)."""
    import torch
    m = workloads.build_module(name)
    m.load_state_dict(torch.load(os.path.join(d, "state.pt")))
    ranges = {}

    def hook(mod, inp, out):
        x = inp[0].detach()
        key = mod.weight.detach().t().contiguous().numpy().tobytes()
        lo, hi = ranges.get(key, (0.0, 0.0))
        ranges[key] = (min(lo, float(x.min())), max(hi, float(x.max())))

    for mod in m.modules():
        if isinstance(mod, torch.nn.Linear):
            mod.register_forward_hook(hook)
    w = workloads.WORKLOADS[name]
    args = tuple(torch.from_numpy(np.load(os.path.join(d, "in", i[0] + ".npy")))
                 for i in w["inputs"])
    with torch.no_grad():
        m(*args)
    return ranges


def quantize_graph(src, dst, ranges, by_node=None):
    """Writes the QDQ form of the ONNX model `src` to `dst`; returns the
    number of matmuls quantized. `ranges`: (min, max) by weight bytes; or
    `by_node`: (scale, zero point, storage "u8"|"i8") by MatMul node name
    (llmc calibrate's choice)."""
    model = onnx.load(src)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, count = [], 0
    for node in g.node:
        w = inits.get(node.input[1]) if node.op_type == "MatMul" else None
        arr = numpy_helper.to_array(w) if w is not None else None
        known = (node.name in by_node) if by_node is not None else (
            arr is not None and arr.tobytes() in ranges)
        if arr is None or arr.ndim != 2 or arr.dtype != np.float32 or \
                not known:
            nodes.append(node)
            continue
        if by_node is not None:
            scale, zero, storage = by_node[node.name]
            sx = np.float32(scale)
            zx = (np.uint8 if storage == "u8" else np.int8)(zero)
        else:
            lo, hi = ranges[arr.tobytes()]
            lo, hi = min(lo, 0.0), max(hi, 0.0)
            sx = np.float32(max(hi - lo, 1e-8) / 255)
            zx = np.uint8(np.clip(np.rint(-lo / sx), 0, 255))
        sw = (np.maximum(np.abs(arr).max(axis=0), 1e-8) / 127).astype(np.float32)
        wq = np.clip(np.rint(arr / sw), -127, 127).astype(np.int8)
        p = f"q{count}_"
        g.initializer.extend([
            numpy_helper.from_array(np.array(sx), p + "sx"),
            numpy_helper.from_array(np.array(zx), p + "zx"),
            numpy_helper.from_array(wq, p + "wq"),
            numpy_helper.from_array(sw, p + "sw")])
        nodes += [
            helper.make_node("QuantizeLinear", [node.input[0], p + "sx",
                                                p + "zx"], [p + "xq"]),
            helper.make_node("DequantizeLinear", [p + "xq", p + "sx",
                                                  p + "zx"], [p + "xd"]),
            helper.make_node("DequantizeLinear", [p + "wq", p + "sw"],
                             [p + "wd"], axis=1),
            helper.make_node("MatMul", [p + "xd", p + "wd"], list(node.output),
                             name=node.name)]
        count += 1
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    if model.opset_import[0].version < 13:
        model.opset_import[0].version = 13
    onnx.save(model, dst)
    return count


def llmc_calibrate(llmc, d, method, out_mlir):
    """`llmc calibrate` of the workload's f32 model on 16 seeded N(0, 1)
    samples of its inputs; returns the MatMul node name -> (scale, zero
    point, storage) map of the report."""
    meta = json.load(open(os.path.join(d, "meta.json")))
    rng = np.random.default_rng(7)
    arrays = {}
    for n in meta["inputs"]:
        x = np.load(os.path.join(d, "in", n + ".npy"))
        arrays[n] = rng.standard_normal((16,) + x.shape).astype(x.dtype)
    data = os.path.join(d, "calib.npz")
    np.savez(data, **arrays)
    report = os.path.join(d, "calib.json")
    cmd = (f"{llmc} calibrate {os.path.join(d, 'model.onnx')} --data {data} "
           f"--method {method} --per-channel-weights --report=json --quiet "
           f"-o {out_mlir} > {report}")
    if os.system(cmd) != 0:
        sys.exit("llmc calibrate failed: " + cmd)
    rep = json.load(open(report))
    by_node = {}
    for a in rep["activations"]:
        for m in a["matmuls"]:
            by_node[m] = (a["scale"], a["zero_point"], a["storage"])
    cos = min(o["cosine_similarity"] for o in rep["outputs"])
    return by_node, cos


def run(system, d, model, threads, repeat, out, llmc, extra=()):
    """One timed process of `system` ("llmc" or "ort") on `model` (`extra`:
    more `llmc run` arguments); returns (median ms, the first output)."""
    meta = json.load(open(os.path.join(d, "meta.json")))
    if system == "llmc":
        ms, err = peers.llmc_run(
            llmc, model, {n: os.path.join(d, "in", n + ".npy")
                          for n in meta["inputs"]}, threads, repeat, out,
            extra)
    else:
        # bench/ort/run.js reads WORKDIR/model.onnx: a directory per model.
        wd = os.path.join(out, "wd")
        os.makedirs(wd, exist_ok=True)
        for f in ("meta.json", "in"):
            if not os.path.exists(os.path.join(wd, f)):
                os.symlink(os.path.join(d, f), os.path.join(wd, f))
        shutil.copy(model, os.path.join(wd, "model.onnx"))
        ms, err = peers.ort_run(wd, threads, repeat, out)
    if ms is None:
        sys.exit(f"{system} failed on {model}: {err}")
    path = os.path.join(out, meta["outputs"][0] + ".npy")
    if not os.path.exists(path):  # llmc run on .mlir names results outN
        path = os.path.join(out, "out0.npy")
    return ms, np.load(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--workloads", default="llama_block,gpt2_layer768")
    ap.add_argument("--calibrate", default=None,
                    help="minmax, percentile or entropy: llmc calibrate "
                         "quantizes the models (see above)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    threads = [int(t) for t in a.threads.split(",")]
    rows = []
    work = tempfile.mkdtemp(prefix="llmc-qdq-")
    try:
        for name in a.workloads.split(","):
            d = os.path.join(work, name)
            workloads.export(name, d)
            f32 = os.path.join(d, "model.onnx")
            q = os.path.join(d, "model_qdq.onnx")
            if a.calibrate:
                qm = os.path.join(d, "model_q.mlir")
                by_node, cos = llmc_calibrate(llmc, d, a.calibrate, qm)
                count = quantize_graph(f32, q, None, by_node)
                print(f"{name}: llmc calibrate ({a.calibrate}) quantized "
                      f"{count} matmuls, held-out cosine {cos:.5f}",
                      flush=True)
            else:
                count = quantize_graph(f32, q, calibrate(name, d))
            meta = json.load(open(os.path.join(d, "meta.json")))
            ref = np.load(os.path.join(d, "ref", meta["outputs"][0] + ".npy"))
            scale = float(np.abs(ref).max())
            systems = [("llmc int8", "llmc", qm if a.calibrate else q),
                       ("ORT int8", "ort", q),
                       ("llmc f32", "llmc", f32), ("ORT f32", "ort", f32)]
            for t in threads:
                times = {s[0]: [] for s in systems}
                outs = {}
                for trial in range(a.trials):
                    k = trial % len(systems)
                    for sname, how, model in systems[k:] + systems[:k]:
                        out = os.path.join(d, "out", sname.replace(" ", "_"))
                        ms, y = run(how, d, model, t, a.repeat, out, llmc)
                        times[sname].append(ms)
                        outs[sname] = y
                errs = {s: float(np.abs(outs[s] - ref).max()) / scale
                        for s in outs}
                agree = float(np.abs(outs["llmc int8"] - outs["ORT int8"]
                                     ).max()) / scale
                ok = (agree <= 2e-2 and errs["llmc int8"] <= 0.1 and
                      errs["ORT int8"] <= 0.1 and errs["llmc f32"] <= 1e-4 and
                      errs["ORT f32"] <= 1e-4)
                if not ok:
                    sys.exit(f"{name}: outputs disagree: {errs}, llmc vs ORT "
                             f"int8 {agree:.3g}")
                med = {s: float(np.median(v)) for s, v in times.items()}
                rows.append((name, count, t, med, errs, agree))
                print(f"{name} ({count} matmuls) T{t}: " + ", ".join(
                    f"{s} {v:.4f}" for s, v in med.items()) +
                    f"; rel err int8 llmc {errs['llmc int8']:.3g} ORT "
                    f"{errs['ORT int8']:.3g}, llmc vs ORT {agree:.3g}",
                    flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# W8A8 QDQ blocks: llmc against ONNX Runtime",
        "",
        f"Run {stamp:%Y-%m-%dT%H:%MZ} on {peers.cpu_name()} ({os.cpu_count()} "
        f"cores), `bench/quant/qdq_block.py --threads {a.threads} --repeat "
        f"{a.repeat} --trials {a.trials}" +
        (f" --calibrate {a.calibrate}" if a.calibrate else "") +
        "`. ms per call (median of the trials' medians). " +
        ("The quantized models: `llmc calibrate --method "
         f"{a.calibrate} --per-channel-weights` on 16 seeded N(0, 1) "
         "samples (llmc int8: its .mlir); ORT int8 runs the QDQ ONNX model "
         "written with llmc's activation scales and the same per-channel "
         "s8 weights. " if a.calibrate else
         "The QDQ models: the torch-exported f32 workload "
         "with every Linear's MatMul quantized (u8 per-tensor activations "
         "calibrated min-max in torch, s8 per-channel weights), as ONNX "
         "Runtime's quantization tool writes them. ") +
        "rel err: max |y - torch f32| / max |torch f32|.",
        "",
        "| workload | threads | llmc int8 | ORT int8 | llmc f32 | ORT f32 | "
        "llmc int8 vs ORT int8 | llmc int8 vs llmc f32 | rel err llmc / ORT "
        "int8 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, count, t, med, errs, agree in rows:
        lines.append(
            f"| {name} ({count} matmuls) | {t} | {med['llmc int8']:.4f} | "
            f"{med['ORT int8']:.4f} | {med['llmc f32']:.4f} | "
            f"{med['ORT f32']:.4f} | "
            f"{med['ORT int8'] / med['llmc int8']:.2f}x | "
            f"{med['llmc f32'] / med['llmc int8']:.2f}x | "
            f"{errs['llmc int8']:.3g} / {errs['ORT int8']:.3g} |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
