#!/usr/bin/env python3
# ===- calibrate_check.py - llmc calibrate against numpy references -------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Inputs and checks for test/Integration/quant/calibrate.test.

  calibrate_check.py mlp DIR
      DIR/mlp.mlir: x[1,8,64] -> layer_norm -> matmul W1 [64,96] + b1 -> relu
      -> matmul W2 (stored [64,96], transpose_b) + b2; DIR/mlp_weights.npz;
      DIR/data.npz: 12 samples of x (one channel with outliers).
  calibrate_check.py check-mlp DIR REPORT.json X.npy OUT.npy
      The numpy reference of the ONNX QuantizeLinear / DequantizeLinear
      definitions at the places the report names (the layer norm's output
      and the relu's output, with the report's scales and zero points; the
      weights quantized per tensor, symmetric, as documented) against OUT
      (`llmc run` of the quantized model): every element within one
      quantization step of the second matmul's input (its scale times
      max|W2|), and the matmuls' integer accumulators exact.
  calibrate_check.py thresholds RANGES.json REPORT.json
      Each activation's range against a numpy implementation of the method
      on the recorded histogram: entropy (TensorRT's algorithm as NVIDIA's
      pytorch-quantization `_compute_amax_entropy` writes it), percentile,
      minmax.
  calibrate_check.py histogram RANGES.json KEY X.npz N
      The recorded histogram of KEY (an activation that is the model's input
      arg0) against numpy.histogram(|x|, 2048, (0, max|x|)) over the first N
      samples of X.npz (the calibration samples).
  calibrate_check.py cosine REPORT.json MIN
      Every output's cosine similarity >= MIN.
  calibrate_check.py lower-error BEFORE.json AFTER.json KEY
      KEY's held-out error in report AFTER is below the one in BEFORE.
  calibrate_check.py corrupt IN.npz OUT.npz
      IN.npz with one byte of its first member's data flipped.
  calibrate_check.py deep OUT.json
      A JSON file nested 50000 levels deep.
  calibrate_check.py nan-heldout IN.npz OUT.npz
      IN.npz's samples with a NaN in the last one (held out).
  calibrate_check.py json-null REPORT.json
      Loads the report with Python's json (fails on NaN literals written as
      nan) and prints the first output's cosine similarity.
  calibrate_check.py data-gpt2 OUT.npz N VOCAB SEQ
  calibrate_check.py data-llama OUT.npz N SEQ D
      Random token ids / activations (and positions 0..SEQ-1) for N samples.
"""

import json
import os
import sys
from collections import Counter

import numpy as np

import llmc_quant_ref as R

BINS = 2048


def f32_dense(a):
    """An MLIR dense<"0x..."> literal of a float32 array."""
    return 'dense<"0x%s">' % np.asarray(a, np.float32).tobytes().hex().upper()


def mlp(out):
    rng = np.random.default_rng(5)
    g = (1 + 0.1 * rng.standard_normal(64)).astype(np.float32)
    be = (0.1 * rng.standard_normal(64)).astype(np.float32)
    w1 = (rng.standard_normal((64, 96)) / 8).astype(np.float32)
    b1 = (0.1 * rng.standard_normal(96)).astype(np.float32)
    w2 = (rng.standard_normal((64, 96)) / 10).astype(np.float32)
    b2 = (0.1 * rng.standard_normal(64)).astype(np.float32)
    np.savez(os.path.join(out, "mlp_weights.npz"), g=g, be=be, w1=w1, b1=b1,
             w2=w2, b2=b2)
    text = f"""func.func @main(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {{
  %g = llm.constant {f32_dense(g)} : tensor<64xf32>
  %be = llm.constant {f32_dense(be)} : tensor<64xf32>
  %w1 = llm.constant {f32_dense(w1)} : tensor<64x96xf32>
  %b1 = llm.constant {f32_dense(b1)} : tensor<96xf32>
  %w2 = llm.constant {f32_dense(w2)} : tensor<64x96xf32>
  %b2 = llm.constant {f32_dense(b2)} : tensor<64xf32>
  %n = llm.layer_norm %x scale %g bias %be {{axis = -1 : i64, epsilon = 1.0e-05 : f32}} : (tensor<1x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
  %h = llm.matmul %n, %w1 : (tensor<1x8x64xf32>, tensor<64x96xf32>) -> tensor<1x8x96xf32>
  %hb = llm.add %h, %b1 : (tensor<1x8x96xf32>, tensor<96xf32>) -> tensor<1x8x96xf32>
  %a = llm.relu %hb : tensor<1x8x96xf32>
  %o = llm.matmul %a, %w2 {{transpose_b}} : (tensor<1x8x96xf32>, tensor<64x96xf32>) -> tensor<1x8x64xf32>
  %r = llm.add %o, %b2 : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
  return %r : tensor<1x8x64xf32>
}}
"""
    with open(os.path.join(out, "mlp.mlir"), "w") as f:
        f.write(text)
    x = rng.standard_normal((12, 1, 8, 64)).astype(np.float32)
    x[:, :, :, 3] *= 20  # an outlier channel
    np.savez(os.path.join(out, "data.npz"), arg0=x)
    np.save(os.path.join(out, "x.npy"), x[-1])


def by_name(report, suffix):
    for a in report["activations"]:
        if a["name"].endswith(suffix) and a["name"].count(":") >= 1:
            yield a


def act_params(a):
    return np.float32(a["scale"]), a["zero_point"], a["storage"]


def quant_weight(w):
    """Per tensor, symmetric: s = f32(max|w| / 127), q = clip(rint(w / s))."""
    s = np.float32(np.abs(w).max() / 127.0)
    q = R.quantize_linear(w, s, 0, "i8")
    return q, s


def check_mlp(d, report_path, x_path, out_path):
    with open(report_path) as f:
        report = json.load(f)
    wts = np.load(os.path.join(d, "mlp_weights.npz"))
    acts = report["activations"]
    assert len(acts) == 2 and report["quantized_matmuls"] == 2, acts
    assert not report["per_channel_weights"]
    # In the order of the model: the layer norm's output, the relu's output.
    a1, a2 = acts
    x = np.load(x_path).astype(np.float64)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    n = ((x - mu) / np.sqrt(var + 1e-5) * wts["g"] + wts["be"]).astype(
        np.float32)
    s1, z1, st1 = act_params(a1)
    q1 = R.quantize_linear(n, s1, z1, st1)
    qw1, sw1 = quant_weight(wts["w1"])
    acc1 = R.matmul_integer(q1, qw1, z1, 0)
    h = (acc1.astype(np.float32) * np.float32(s1 * sw1)).astype(np.float32)
    a = np.maximum(h + wts["b1"], 0).astype(np.float32)
    s2, z2, st2 = act_params(a2)
    q2 = R.quantize_linear(a, s2, z2, st2)
    w2 = wts["w2"].T.copy()  # [K, N]
    qw2, sw2 = quant_weight(w2)
    acc2 = R.matmul_integer(q2, qw2, z2, 0)
    ref = (acc2.astype(np.float32) * np.float32(s2 * sw2) + wts["b2"]).astype(
        np.float32)
    out = np.load(out_path)
    step = float(s2) * float(np.abs(w2).max())
    err = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    exact = np.mean(err <= 1e-5 * (1 + np.abs(ref)))
    ok = err.max() <= step + 1e-5 and exact >= 0.95
    print("mlp qdq: max abs err %.3g (one step %.3g), %.1f%% within f32 "
          "rounding %s" % (err.max(), step, 100 * exact,
                           "PASS" if ok else "FAIL"))
    return 0 if ok else 1


def entropy_threshold(hist, width, num_quantized_bins=128, start_bin=128):
    """NVIDIA pytorch-quantization's _compute_amax_entropy (stride 1)."""
    bins = np.asarray(hist, np.float64)
    nbins = len(bins)
    total = bins.sum()
    divergences, arguments = [], []
    new_density_counts = np.zeros(nbins, dtype=np.float64)
    for i in range(start_bin, nbins + 1):
        new_density_counts.fill(0)
        space = np.linspace(0, i, num=num_quantized_bins + 1)
        digitized_space = np.digitize(range(i), space) - 1
        digitized_space[bins[:i] == 0] = -1
        for idx, digitized in enumerate(digitized_space):
            if digitized != -1:
                new_density_counts[digitized] += bins[idx]
        counter = Counter(digitized_space)
        for key, val in counter.items():
            if key != -1:
                new_density_counts[key] = new_density_counts[key] / val
        new_density = np.zeros(i, dtype=np.float64)
        for idx, digitized in enumerate(digitized_space):
            if digitized != -1:
                new_density[idx] = new_density_counts[digitized]
        reference_density = np.array(bins[:len(digitized_space)])
        reference_density[-1] += np.sum(bins[i:])
        assert abs(reference_density.sum() - total) < 1e-6 * max(total, 1)
        p = reference_density / reference_density.sum()
        q = new_density / new_density.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            mask = p > 0
            if np.any(q[mask] == 0):
                ent = np.inf
            else:
                ent = np.sum(p[mask] * np.log(p[mask] / q[mask]))
        divergences.append(ent)
        arguments.append(i)
    divergences = np.array(divergences)
    last_argmin = len(divergences) - 1 - np.argmin(divergences[::-1])
    return arguments[last_argmin] * width


def thresholds(ranges_path, report_path):
    with open(ranges_path) as f:
        table = {t["key"]: t for t in json.load(f)["tensors"]}
    with open(report_path) as f:
        report = json.load(f)
    method = report["method"]
    bad = 0
    for a in report["activations"]:
        t = table[a["key"]]
        absmax = max(-t["min"], t["max"])
        width = t["hist_max"] / BINS
        hist = np.asarray(t["histogram"], np.float64)
        if method == "entropy":
            want = min(entropy_threshold(hist, width), absmax)
        elif method == "percentile":
            c = np.cumsum(hist)
            k = int(np.argmax(c >= hist.sum() * report["percentile"] / 100.0))
            want = min((k + 1) * width, absmax)
        else:
            want = max(t["max"], 0.0)
        got = a["hi"]
        ok = abs(got - want) <= 1e-9 * max(abs(want), 1e-30)
        if method == "minmax":
            ok = ok and abs(a["lo"] - min(t["min"], 0.0)) <= 1e-12
        print("%s %s: threshold %.9g, numpy %.9g %s" %
              (method, a["key"], got, want, "PASS" if ok else "FAIL"))
        bad += not ok
    return 1 if bad or not report["activations"] else 0


def histogram(ranges_path, key, npz, count):
    with open(ranges_path) as f:
        t = {t["key"]: t for t in json.load(f)["tensors"]}[key]
    x = np.load(npz)["arg0"]
    a = np.abs(x[:count].astype(np.float64))
    want, _ = np.histogram(a, BINS, (0, a.max()))
    ok = (np.array_equal(np.asarray(t["histogram"]), want) and
          t["hist_max"] == a.max())
    print("histogram %s: %s" % (key, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


def cosine(report_path, minimum):
    with open(report_path) as f:
        report = json.load(f)
    bad = 0
    for o in report["outputs"]:
        ok = o["cosine_similarity"] >= minimum
        print("%s: cosine %.6f (>= %s) %s" % (o["name"], o["cosine_similarity"],
                                              minimum, "PASS" if ok else "FAIL"))
        bad += not ok
    return 1 if bad else 0


def lower_error(before_path, after_path, key):
    errs = []
    for path in (before_path, after_path):
        with open(path) as f:
            acts = {a["key"]: a for a in json.load(f)["activations"]}
        errs.append(acts[key]["heldout_relative_rms_error"])
    ok = errs[1] < errs[0]
    print("%s: error %.4f -> %.4f %s" % (key, errs[0], errs[1],
                                          "PASS" if ok else "FAIL"))
    return 0 if ok else 1


def main(argv):
    cmd = argv[1]
    if cmd == "mlp":
        mlp(argv[2])
        return 0
    if cmd == "check-mlp":
        return check_mlp(*argv[2:6])
    if cmd == "thresholds":
        return thresholds(argv[2], argv[3])
    if cmd == "histogram":
        return histogram(argv[2], argv[3], argv[4], int(argv[5]))
    if cmd == "corrupt":
        b = bytearray(open(argv[2], "rb").read())
        i = b.find(b"NUMPY")
        b[i + 1000] ^= 0x7F
        open(argv[3], "wb").write(bytes(b))
        return 0
    if cmd == "deep":
        with open(argv[2], "w") as f:
            f.write('{"llmc_calibration": 1, "x": ' + "[" * 50000 +
                    "]" * 50000 + "}")
        return 0
    if cmd == "nan-heldout":
        x = np.load(argv[2])["arg0"].copy()
        x[-1, 0, 0, 0] = np.nan
        np.savez(argv[3], arg0=x)
        return 0
    if cmd == "json-null":
        with open(argv[2]) as f:
            report = json.load(f)
        print("cosine_similarity:", report["outputs"][0]["cosine_similarity"])
        return 0
    if cmd == "lower-error":
        return lower_error(argv[2], argv[3], argv[4])
    if cmd == "cosine":
        return cosine(argv[2], float(argv[3]))
    rng = np.random.default_rng(11)
    if cmd == "data-gpt2":
        n, vocab, seq = map(int, argv[3:6])
        np.savez(argv[2], arg0=rng.integers(0, vocab, (n, 1, seq)))
        return 0
    if cmd == "data-llama":
        n, seq, d = map(int, argv[3:6])
        np.savez(argv[2],
                 arg0=rng.standard_normal((n, 1, seq, d)).astype(np.float32),
                 arg1=np.tile(np.arange(seq, dtype=np.int64), (n, 1)))
        return 0
    print("unknown command " + cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
