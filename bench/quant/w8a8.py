#!/usr/bin/env python3
# ===- w8a8.py - W8A8 QDQ matmuls: llmc against ONNX Runtime -------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Static-quantization (W8A8) matmuls as ONNX exports write them:
#   Y = DequantizeLinear(QuantizeLinear(X, sx, zx: uint8))
#       @ DequantizeLinear(W: int8 [K, N] initializer, sw per column, axis 1)
# (the QDQ form of ONNX Runtime's quantization tool and of torch's static
# post-training quantization: u8 activations with a zero point, symmetric
# s8 weights), and the same matmul in f32 on the dequantized weight, at
# prefill and decode shapes. Timed in one run, interleaved:
#   llmc int8        llmc run on the QDQ model (llm-fold-quant makes it an
#                    llm.matmul_integer; on this CPU's target, the 8-bit
#                    dot-product kernel where it has AVX512-VNNI)
#   llmc int8 f32-panels  the same with --pipeline-options=target=avx512
#                    (the exact f32 panels the dot-product kernel replaced)
#   llmc f32         llmc run on the f32 model
#   ORT int8 / f32   ONNX Runtime (bench/ort/run.js, all graph
#                    optimizations: its QDQ fusion to MatMulIntegerToFloat /
#                    QLinearMatMul on MLAS's int8 kernels)
# Every output is checked before its time is kept: |y - ref| <= 1e-4 (1 +
# |ref|), ref = the float64 numpy product of the dequantized operands (the
# ONNX definitions; llmc's integer matmul is exact, its rescale one f32
# rounding), or of x and the dequantized weight for the f32 model. Times: median ms of --repeat calls after 10 warm-up calls, the
# median over --trials processes per system (systems rotated per trial), one
# or more threads pinned with taskset to cores 0 .. T-1.
# Not a test; run it on an idle machine.
#
# With --target NAME, llmc compiles for that CPU target (e.g. alderlake:
# AVX2 with AVX-VNNI, the 256-bit dot-product kernel; it must run here) and
# its f32-panels row uses --panels-target (default avx512; avx2 for an AVX2
# target).
# Usage: /usr/bin/python3 bench/quant/w8a8.py [--build build] [--threads 1,2]
#          [--repeat 100] [--trials 3] [--shapes MxKxN,...] [--target NAME]
#          [--panels-target NAME] [--out FILE]
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
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from llmcbench import peers  # noqa: E402
SHAPES = "128x768x3072,128x3072x768,128x768x768,512x768x768,1x768x3072,1x4096x4096"


def export(work, m, k, n, rng):
    """Writes work/{int8,f32}/{model.onnx,meta.json,in/x.npy}; returns the
    reference outputs (float64) of the two models by kind."""
    x = rng.standard_normal((m, k)).astype(np.float32)
    sx, zx = np.float32(np.abs(x).max() * 2 / 255), np.uint8(128)
    w = rng.integers(-127, 128, (k, n)).astype(np.int8)
    sw = (rng.random(n) * 0.01 + 0.005).astype(np.float32)
    xq = np.clip(np.rint(x / sx) + zx, 0, 255)
    xd = (xq - float(zx)) * float(sx)
    wd = w.astype(np.float64) * sw.astype(np.float64)
    refs = {"int8": xd @ wd, "f32": x.astype(np.float64) @ wd}
    q = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "sw"], ["wd"], axis=1),
        helper.make_node("MatMul", ["xd", "wd"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array(sx, np.float32), "sx"),
             numpy_helper.from_array(np.array(zx, np.uint8), "zx"),
             numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(sw, "sw")]
    f = [helper.make_node("MatMul", ["x", "wf"], ["y"])]
    finits = [numpy_helper.from_array((w.astype(np.float32) * sw), "wf")]
    for kind, nodes, ins in (("int8", q, inits), ("f32", f, finits)):
        d = os.path.join(work, kind)
        os.makedirs(os.path.join(d, "in"), exist_ok=True)
        g = helper.make_graph(
            nodes, kind, [helper.make_tensor_value_info(
                "x", TensorProto.FLOAT, [m, k])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
            ins)
        onnx.save(helper.make_model(
            g, opset_imports=[helper.make_opsetid("", 13)]),
            os.path.join(d, "model.onnx"))
        np.save(os.path.join(d, "in", "x.npy"), x)
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump({"inputs": ["x"], "outputs": ["y"]}, fh)
    return refs


def check(y, ref):
    err = np.abs(y.astype(np.float64) - ref)
    tol = 1e-4 * (np.abs(ref).max() + np.abs(ref))
    return bool((err <= tol).all()), float(err.max())


def timed(name, ms_err):
    ms, err = ms_err
    if ms is None:
        sys.exit(f"{name} failed: {err}")
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--target", default=None)
    ap.add_argument("--panels-target", default="avx512")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    if not os.path.exists(peers.ORT_MODULE):
        sys.exit("ONNX Runtime is missing: run bench/setup.sh")
    threads = [int(t) for t in a.threads.split(",")]
    shapes = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",")]
    target = ["--target", a.target] if a.target else []
    systems = [("llmc int8", "int8", ["llmc", target]),
               ("llmc int8 f32-panels", "int8",
                ["llmc", ["--target", a.panels_target]]),
               ("llmc f32", "f32", ["llmc", target]),
               ("ORT int8", "int8", ["ort"]),
               ("ORT f32", "f32", ["ort"])]
    rng = np.random.default_rng(0)
    rows = []
    work = tempfile.mkdtemp(prefix="llmc-w8a8-")
    try:
        for (m, k, n) in shapes:
            d = os.path.join(work, f"{m}x{k}x{n}")
            refs = export(d, m, k, n, rng)
            for t in threads:
                times = {s[0]: [] for s in systems}
                errs = {}
                for trial in range(a.trials):
                    order = systems[trial % len(systems):] + \
                        systems[:trial % len(systems)]
                    for name, kind, how in order:
                        out = os.path.join(d, "out", name.replace(" ", "_"))
                        wd = os.path.join(d, kind)
                        if how[0] == "llmc":
                            ms = timed(name, peers.llmc_run(
                                llmc, os.path.join(wd, "model.onnx"),
                                {"x": os.path.join(wd, "in", "x.npy")}, t,
                                a.repeat, out, how[1]))
                        else:
                            ms = timed(name, peers.ort_run(wd, t, a.repeat,
                                                           out))
                        y = np.load(os.path.join(out, "y.npy"))
                        ok, err = check(y, refs[kind])
                        if not ok:
                            sys.exit(f"{name} {m}x{k}x{n}: wrong output "
                                     f"(max abs err {err:.3g})")
                        errs[name] = err
                        times[name].append(ms)
                med = {s: float(np.median(v)) for s, v in times.items()}
                rows.append((f"{m}x{k}x{n}", t, med, errs))
                print(f"{m}x{k}x{n} T{t}: " + ", ".join(
                    f"{s} {v:.4f}" for s, v in med.items()), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# W8A8 QDQ matmuls: llmc against ONNX Runtime",
        "",
        f"Run {stamp:%Y-%m-%dT%H:%MZ} on {peers.cpu_name()} "
        f"({os.cpu_count()} cores), `bench/quant/w8a8.py --threads "
        f"{a.threads} --repeat {a.repeat} --trials {a.trials}"
        + (f" --target {a.target}" if a.target else "")
        + f" --panels-target {a.panels_target}`. ms per call "
        "(median of the trials' medians); every output checked against the "
        "float64 reference of the ONNX definitions first. Speed-up = ORT "
        "int8 time / llmc int8 time.",
        "",
        "| M x K x N | threads | llmc int8 | llmc int8 f32-panels | llmc f32 "
        "| ORT int8 | ORT f32 | llmc int8 vs ORT int8 | llmc int8 vs llmc "
        "f32 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for shape, t, med, _ in rows:
        lines.append(
            f"| {shape} | {t} | {med['llmc int8']:.4f} | "
            f"{med['llmc int8 f32-panels']:.4f} | {med['llmc f32']:.4f} | "
            f"{med['ORT int8']:.4f} | {med['ORT f32']:.4f} | "
            f"{med['ORT int8'] / med['llmc int8']:.2f}x | "
            f"{med['llmc f32'] / med['llmc int8']:.2f}x |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
