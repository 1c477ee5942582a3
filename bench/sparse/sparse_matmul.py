#!/usr/bin/env python3
# ===- sparse_matmul.py - pruned weights: llmc's sparse kernels vs dense --===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# One f32 matmul y = x @ W^T with a pruned constant weight W [4096, 4096]
# (an ONNX MatMul with the initializer W^T [K, N]), for each pruning
# pattern (4x4 or 16x16 blocks with 50% / 75% of them zero: b4_50 ..
# b16_75; 1x4 or 1x16 row blocks: r4_75, r16_50, ...; 50% / 75%
# unstructured; exact 2:4) and shape (decode 1 x 4096, prefill 128 x 4096),
# run by:
#   * llmc sparse: `llmc run model.onnx --sparsify` (llm-sparsify-weights
#     chooses the format, docs/Sparsity.md; the chosen one is reported), or
#     `--sparsify=FORMAT` with --format FORMAT;
#   * llmc dense: the same model without --sparsify;
#   * ONNX Runtime (CPU EP, bench/ort/run.js): the same model, dense.
# One thread, pinned (taskset -c 0). llmc evicts the caches between calls
# (--evict-cache 128: the weights stream from memory, as in decode); ONNX
# Runtime cannot, but its 64 MB dense weight is twice this L3 (32 MiB on the
# EPYC VM), so it streams too. Median ms of --repeat calls after 10 warm-up
# calls, median over --trials processes per system, systems rotated per
# trial. Before timing, llmc sparse's and dense's outputs are checked
# against float64 numpy (max |error| <= 1e-4 of the largest |y|). The
# report's "efficiency" is the cost model's streaming efficiency measured:
# (stored bytes / dense bytes) x (dense ms / sparse ms), the bytes from
# llm-sparsify-weights' remark (1.00: the format streams its bytes as fast
# as the dense kernel streams the dense weight).
# With --quant int8 | int4 | int4g128 (bits, and a group size along K for
# sub-channel scales), llm-quantize-weights quantizes the imported model's
# weight (symmetric: pruned zeros stay zero levels) and llmc sparse and
# dense both run that `llm.dequant_matmul`; their outputs are checked
# against each other (the same bound) and ONNX Runtime runs the f32 model.
# With --quant w8a8 the model is the W8A8 QDQ form instead (as
# bench/quant/w8a8.py: u8 activations with a static scale, the pruned
# weight as s8 per column; llmc folds it into an `llm.matmul_integer`),
# which all three systems run (ONNX Runtime on its int8 kernels), checked
# against float64 numpy of the dequantized operands.
# Not a test; run it on an idle machine.
#
# Usage: /usr/bin/python3 bench/sparse/sparse_matmul.py [--build build]
#          [--shapes 1,128] [--patterns b4_50,...] [--format FORMAT]
#          [--repeat 50] [--trials 3] [--quant int4g128|w8a8] [--out FILE]
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from llmcbench import peers  # noqa: E402

ROOT = peers.ROOT
N = K = 4096
PATTERNS = ["b4_50", "b4_75", "b16_50", "b16_75", "u50", "u75", "nm24"]
# The goals (llmc sparse over llmc dense), where it states one.
GOALS = {(1, "b4_75"): 3.5, (1, "b16_75"): 3.5, (1, "b16_50"): 2.0,
         (1, "nm24"): 1.2, (128, "b16_75"): 3.5}


def pruned(pattern, rng):
    w = rng.standard_normal((N, K)).astype(np.float32)
    if pattern.startswith("u"):
        return np.where(rng.random((N, K)) < 1 - int(pattern[1:]) / 100, w, 0)
    if pattern == "nm24":
        keep = np.argsort(rng.random((N, K // 4, 4)), axis=2)[:, :, :2]
        mask = np.zeros((N, K // 4, 4), bool)
        np.put_along_axis(mask, keep, True, axis=2)
        return np.where(mask.reshape(N, K), w, 0)
    b = int(pattern[1:pattern.index("_")])
    zero = int(pattern.split("_")[1]) / 100
    rows = 1 if pattern.startswith("r") else b  # r: 1 x b row blocks
    keep = rng.random((N // rows, K // b)) >= zero
    return w * np.kron(keep, np.ones((rows, b), np.float32))


def write_model(d, rows, w):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "wt"], ["y"])], "sparse_matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, N])],
        [numpy_helper.from_array(np.ascontiguousarray(w.T), "wt")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.save(model, os.path.join(d, "model.onnx"))
    x = np.random.default_rng(rows).standard_normal((rows, K)).astype(np.float32)
    np.save(os.path.join(d, "in", "x.npy"), x)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"inputs": ["x"], "outputs": ["y"]}, f)
    return x


def write_w8a8_model(d, rows, w):
    """The W8A8 QDQ model of x @ W^T (W pruned): x and the float64
    reference of the dequantized operands."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    x = np.random.default_rng(rows).standard_normal((rows, K)).astype(
        np.float32)
    sx, zx = np.float32(np.abs(x).max() * 2 / 255), np.uint8(128)
    sw = (np.abs(w).max(axis=1) / 127).astype(np.float32)
    sw[sw == 0] = 1
    wq = np.clip(np.rint(w.T / sw), -127, 127).astype(np.int8)  # [K, N]
    xd = (np.clip(np.rint(x / sx) + zx, 0, 255) - float(zx)) * float(sx)
    ref = xd @ (wq.astype(np.float64) * sw.astype(np.float64))
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "sw"], ["wd"], axis=1),
        helper.make_node("MatMul", ["xd", "wd"], ["y"])]
    inits = [numpy_helper.from_array(np.array(sx, np.float32), "sx"),
             numpy_helper.from_array(np.array(zx, np.uint8), "zx"),
             numpy_helper.from_array(wq, "w"),
             numpy_helper.from_array(sw, "sw")]
    graph = helper.make_graph(
        nodes, "sparse_w8a8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, N])],
        inits)
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(d, "model.onnx"))
    np.save(os.path.join(d, "in", "x.npy"), x)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"inputs": ["x"], "outputs": ["y"]}, f)
    return x, ref


def quantize_model(build, d, spec):
    """d/model.onnx imported and its weight quantized by spec (int8, int4,
    int4g128): the path of the MLIR bytecode."""
    bits, _, group = spec[3:].partition("g")
    out = os.path.join(d, "model_%s.mlirbc" % spec)
    imp = subprocess.Popen([os.path.join(build, "bin", "llm-translate"),
                            "--import-onnx", os.path.join(d, "model.onnx")],
                           stdout=subprocess.PIPE)
    subprocess.run([os.path.join(build, "bin", "llm-opt"),
                    "--llm-quantize-weights=bits=%s group-size=%s" %
                    (bits, group or 0), "--emit-bytecode", "-o", out],
                   stdin=imp.stdout, check=True)
    imp.stdout.close()
    if imp.wait():
        sys.exit("llm-translate --import-onnx failed")
    return out


def llmc_run(llmc, d, repeat, out, sparse, model=None):
    """(median ms, chosen format or "dense", stored / dense bytes) of one
    pinned llmc process; `sparse`: False, True (auto) or a format; `model`:
    another model than d/model.onnx."""
    cmd = peers.pinned(1) + [
        llmc, "run", model or os.path.join(d, "model.onnx"), "--threads", "1",
        "--repeat", str(repeat), "--warmup", "10", "--evict-cache", "128",
        "--output-dir", out, "--input", "x=" + os.path.join(d, "in", "x.npy")]
    if sparse:
        cmd.append("--sparsify" if sparse is True else "--sparsify=" + sparse)
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, LLMC_CACHE="off"))
    m = re.search(r"time: median ([0-9.]+) ms", r.stdout + r.stderr)
    if r.returncode or not m:
        sys.exit(f"llmc failed: {r.stderr[-2000:]}")
    fmt = re.search(r"llm-sparsify-weights: .*: (\S+) \(.*, ([0-9]+) of "
                    r"([0-9]+) bytes\)", r.stderr)
    if not fmt:
        return float(m.group(1)), "dense", 1.0
    return (float(m.group(1)), fmt.group(1),
            int(fmt.group(2)) / int(fmt.group(3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--shapes", default="1,128", help="rows of x")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--format", default=None,
                    help="force this sparse format (default: chosen)")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--quant", default=None,
                    help="int8, int4 or int4gG: run llmc on the quantized "
                    "weight (groups of G along K); w8a8: the QDQ model")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    llmc = os.path.join(a.build, "bin", "llmc")
    work = tempfile.mkdtemp(prefix="llmc-sparse-bench-")
    rows_out = []
    try:
        for rows in [int(s) for s in a.shapes.split(",")]:
            for pattern in a.patterns.split(","):
                d = os.path.join(work, f"{rows}_{pattern}")
                w = pruned(pattern, np.random.default_rng(7))
                qmodel = None
                if a.quant == "w8a8":
                    x, ref = write_w8a8_model(d, rows, w)
                else:
                    x = write_model(d, rows, w)
                    ref = x.astype(np.float64) @ w.T.astype(np.float64)
                if a.quant and a.quant != "w8a8":
                    # The reference: llmc's dense kernel on the quantized
                    # weight.
                    qmodel = quantize_model(a.build, d, a.quant)
                    qref = os.path.join(d, "out", "qref")
                    llmc_run(llmc, d, 1, qref, False, qmodel)
                    ref = np.load(os.path.join(qref, "out0.npy")).astype(
                        np.float64)
                density = float(np.count_nonzero(w)) / w.size
                del w
                systems = ["llmc sparse", "llmc dense", "ORT dense"]
                times = {s: [] for s in systems}
                fmt, byteRatio = "?", 1.0
                repeat = a.repeat if rows == 1 else max(5, a.repeat // 5)
                for trial in range(a.trials):
                    k = trial % len(systems)
                    for s in systems[k:] + systems[:k]:
                        out = os.path.join(d, "out", s.replace(" ", "_"))
                        if s == "ORT dense":
                            ms, err = peers.ort_run(d, 1, repeat, out)
                            if ms is None:
                                sys.exit("ONNX Runtime failed: " + err)
                        else:
                            ms, f, ratio = llmc_run(
                                llmc, d, repeat, out,
                                (a.format or True) if s == "llmc sparse"
                                else False, qmodel)
                            if s == "llmc sparse":
                                fmt, byteRatio = f, ratio
                            got = np.load(os.path.join(
                                out, "out0.npy" if qmodel else "y.npy"))
                            e = float(np.abs(got - ref).max() /
                                      np.abs(ref).max())
                            if e > 1e-4:
                                sys.exit(f"{s} {rows} {pattern}: error {e}")
                        times[s].append(ms)
                med = {s: float(np.median(v)) for s, v in times.items()}
                rows_out.append((rows, pattern, density, fmt, byteRatio, med))
                print(json.dumps({"rows": rows, "pattern": pattern,
                                  "format": fmt, "bytes": byteRatio, **med}),
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        "# Pruned weights: llmc's sparse kernels against dense", "",
        f"{datetime.date.today()}; {peers.cpu_name()}; one thread "
        f"(taskset -c 0); y = x @ W^T, W [{N}, {K}] f32 pruned"
        f"{'; W8A8 QDQ model (u8 x, s8 W per column), every system' if a.quant == 'w8a8' else '; llmc runs it quantized by llm-quantize-weights (' + a.quant + '), ONNX Runtime in f32' if a.quant else ''}; llmc evicts "
        "the caches between calls; median of "
        f"{a.trials} processes x {a.repeat} calls (prefill: "
        f"{max(5, a.repeat // 5)}). 'format' is llm-sparsify-weights' "
        f"choice{' (forced: --sparsify=' + a.format + ')' if a.format else ''}"
        "; efficiency = stored / dense bytes x dense ms / sparse ms (the "
        "cost model's streaming efficiency); with 128 rows, 2:4 and CSR, and 4x4 / 1x4 / 1x16 blocks with "
        "more than 40% of the blocks kept, run the dense kernel "
        "(lib/Conversion/LLMToLinalg/SparseMatmul.h), so those rows compare "
        "dense with dense.", "",
        "| x rows | pattern | density | format | stored / dense bytes | "
        "llmc sparse ms | llmc dense ms | ORT dense ms | vs llmc dense | "
        "vs ORT dense | efficiency | goal |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for rows, pattern, density, fmt, ratio, med in rows_out:
        goal = GOALS.get((rows, pattern))
        s, dn, o = med["llmc sparse"], med["llmc dense"], med["ORT dense"]
        lines.append(
            f"| {rows} | {pattern} | {density:.3f} | {fmt} | {ratio:.3f} | "
            f"{s:.3f} | {dn:.3f} | {o:.3f} | {dn / s:.2f}x | {o / s:.2f}x | "
            f"{ratio * dn / s:.2f} | "
            f"{'>= %.1fx' % goal if goal else '>= 1 (never slower)'} |")
    peers.write_report("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
