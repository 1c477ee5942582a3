#!/usr/bin/env python3
# ===- onnx_node_tests.py - ONNX quantization node tests through llmc ----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Runs ONNX's backend node tests of QuantizeLinear, DequantizeLinear,
MatMulInteger and QLinearMatMul (Debian libonnx-testdata) through
`llmc run` and compares with the tests' expected outputs, exactly.

Opset-10 models are stamped opset 13 (the importer reads 11-18; these ops
did not change). The importer needs scales and zero points known at import time (as every
exported QDQ model has them); these tests feed them as graph inputs, so they
are turned into initializers from test_data_set_0 first. uint8 data is
passed as int8 .npy holding the same bits (llmc keeps uint8 in i8 storage)
and outputs are compared bit for bit in the expected dtype.

Usage: onnx_node_tests.py LLMC WORKDIR [--data DIR]
Prints `NAME: exact` or `NAME: MISMATCH ...` per test; exits 1 on failure.
"""

import argparse
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

TESTS = ["test_quantizelinear", "test_quantizelinear_axis",
         "test_dequantizelinear", "test_dequantizelinear_axis",
         "test_matmulinteger", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D"]
# Runtime (data) inputs; every other input becomes an initializer.
DATA = {"x", "A", "B", "a", "b"}


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llmc")
    ap.add_argument("workdir")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    args = ap.parse_args()
    ok = True
    for name in TESTS:
        src = os.path.join(args.data, name)
        model = onnx.load(os.path.join(src, "model.onnx"))
        inputs = [load_pb(p) for p in sorted(
            glob.glob(os.path.join(src, "test_data_set_0", "input_*.pb")))]
        outputs = [load_pb(p) for p in sorted(
            glob.glob(os.path.join(src, "test_data_set_0", "output_*.pb")))]
        wd = os.path.join(args.workdir, name)
        os.makedirs(wd, exist_ok=True)
        cmd = [args.llmc, "run", os.path.join(wd, "model.onnx"),
               "--output-dir", os.path.join(wd, "out")]
        keep = []
        for vi, t in zip(list(model.graph.input), inputs):
            arr = numpy_helper.to_array(t)
            if vi.name in DATA:
                keep.append(vi)
                path = os.path.join(wd, vi.name + ".npy")
                np.save(path, arr.view(np.int8) if arr.dtype == np.uint8
                        else arr)
                cmd += ["--input", f"{vi.name}={path}"]
            else:
                model.graph.initializer.append(
                    numpy_helper.from_array(arr, vi.name))
        # MatMulInteger/QLinearMatMul tests are opset 10 (the ops are the
        # same through opset 18); the importer reads opsets 11-18.
        for o in model.opset_import:
            if o.domain in ("", "ai.onnx") and o.version < 11:
                o.version = 13
        del model.graph.input[:]
        model.graph.input.extend(keep)
        onnx.save(model, os.path.join(wd, "model.onnx"))
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name}: FAILED to run\n{run.stdout}{run.stderr}")
            ok = False
            continue
        for vo, t in zip(model.graph.output, outputs):
            exp = numpy_helper.to_array(t)
            got = np.load(os.path.join(wd, "out", vo.name + ".npy"))
            if exp.dtype == np.uint8 and got.dtype == np.int8:
                got = got.view(np.uint8)
            good = got.dtype == exp.dtype and np.array_equal(got, exp)
            print(f"{name}: {'exact' if good else 'MISMATCH'}"
                  + ("" if good else f"\n  got {got}\n  expected {exp}"))
            ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
