#!/usr/bin/env python3
# ===- make_ranges.py - crafted calibration tables for lit tests ---------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Writes calibration tables (docs/Calibration.md) for
llm-quantize-activations.mlir: `make_ranges.py KIND OUT.json`.

  good       t0: tensor<4x8xf32> read by llm.matmul, min -1.5, max 2.5, |x|
             histogram over [0, 2.5]: 1000 elements in bin 0..799 evenly, 10
             in bin 2047 (an outlier); t1: tensor<4x16xf32> read by
             llm.matmul, min 0, max 6.35, all in bin 1000.
  othertype  as good, but t0 recorded as tensor<2x8xf32>.
  missing    only t0.
  badhist    t0's histogram has 3 bins.
  badhistmax t0's hist_max is not max(-min, max).
  badcount   t0's count differs from its histogram's sum.
  smooth     for llm-smooth-activations.mlir: t0 (x, tensor<2x4xf32>, read by
             llm.layer_norm) and t1 (its output, read by llm.matmul) with
             channel maxima [4, 1, 1, 0.25].
"""

import json
import sys

BINS = 2048


def tensor(key, typ, lo, hi, hist):
    return {"key": key, "name": key + "-name", "op": "llm.matmul",
            "type": typ, "min": lo, "max": hi,
            "count": int(sum(hist)), "non_finite": 0,
            "hist_max": max(-lo, hi), "histogram": hist,
            "channel_absmax": []}


def main():
    kind, out = sys.argv[1], sys.argv[2]
    h0 = [0] * BINS
    for b in range(800):
        h0[b] = 1000 // 800 + (1 if b < 1000 % 800 else 0)
    h0[BINS - 1] = 10
    h1 = [0] * BINS
    h1[1000] = 64
    if kind == "smooth":
        s0 = tensor("t0", "tensor<2x4xf32>", -1.0, 1.0, h1)
        s0["op"] = "llm.layer_norm"
        s1 = tensor("t1", "tensor<2x4xf32>", -4.0, 4.0, h1)
        s1["channel_absmax"] = [4.0, 1.0, 1.0, 0.25]
        with open(out, "w") as f:
            json.dump({"llmc_calibration": 1, "entry": "main", "samples": 1,
                       "tensors": [s0, s1]}, f)
        return
    t0 = tensor("t0", "tensor<4x8xf32>", -1.5, 2.5, h0)
    t1 = tensor("t1", "tensor<4x16xf32>", 0.0, 6.35, h1)
    if kind == "othertype":
        t0["type"] = "tensor<2x8xf32>"
    if kind == "badhist":
        t0["histogram"] = [1, 2, 3]
    if kind == "badhistmax":
        t0["hist_max"] = 0.0
    if kind == "badcount":
        t0["count"] = 6144
    tensors = [t0] if kind == "missing" else [t0, t1]
    with open(out, "w") as f:
        json.dump({"llmc_calibration": 1, "entry": "main", "samples": 1,
                   "tensors": tensors}, f)


if __name__ == "__main__":
    main()
