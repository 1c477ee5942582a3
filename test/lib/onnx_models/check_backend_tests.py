#!/usr/bin/env python3
# ===- check_backend_tests.py - importer vs ONNX's backend node tests -----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Imports every ONNX backend node test model (Debian libonnx-testdata,
/usr/share/libonnx-testdata/data/node/*/model.onnx) with llm-translate and
checks that

  * the importer never crashes: every run exits 0 (imported) or 1 (a
    diagnostic), and
  * every imported model computes the test's expected outputs
    (test_data_set_0) when evaluated with the numpy reference of the llm ops.

Integer graph inputs (shapes, axes, starts/ends, indices, ...) are bound to
their test values by turning them into initializers first: the importer needs
shape plumbing to be constant, which it always is in exported LLMs.

Usage: check_backend_tests.py LLM_TRANSLATE [--filter REGEX] [--data DIR]
                              [--workdir DIR]
Prints a summary (`imported: N`, `matched: M`, ...) and every failure;
exits 1 on a crash or a mismatch.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

import run_llm_ir

# The harness cannot compare bfloat16 (numpy has no such type; ONNX stores it
# as raw uint16 bits).
# Imported but not evaluated: bfloat16 data; quant.scast (MatMulInteger),
# which the numpy reference of the llm ops does not model
# (onnx-node-conformance.test runs those compiled).
SKIP_NUMERICS = ("BFLOAT16", "test_matmulinteger")


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--filter", default="", help="regex on the test name")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--workdir", default=".")
    ap.add_argument("--verbose", action="store_true",
                    help="print the diagnostic of each rejected model")
    a = ap.parse_args()
    tool = a.tool
    models = [m for m in sorted(glob.glob(os.path.join(a.data, "*", "model.onnx")))
              if re.search(a.filter, os.path.basename(os.path.dirname(m)))]
    imported = rejected = matched = skipped = unreadable = 0
    bad = []
    for path in models:
        name = os.path.basename(os.path.dirname(path))
        ds = os.path.join(os.path.dirname(path), "test_data_set_0")
        m = onnx.load(path, load_external_data=False)
        inits = {t.name for t in m.graph.initializer}
        graph_inputs = [i for i in m.graph.input if i.name not in inits]
        try:
            values = [load_pb(os.path.join(ds, "input_%d.pb" % i))
                      for i in range(len(graph_inputs))]
            expected = [load_pb(os.path.join(ds, "output_%d.pb" % i))
                        for i in range(len(m.graph.output))]
        except Exception:  # noqa: BLE001 (sequence/optional test data)
            values = expected = None
        if values is None:
            # Not tensor test data: only check that the import fails cleanly.
            unreadable += 1
            p = subprocess.run([tool, "--import-onnx", path], capture_output=True,
                               text=True, timeout=60)
            if p.returncode == 0:
                bad.append("%s: imported a model with non-tensor inputs" % name)
            elif p.returncode != 1 or "error:" not in p.stderr:
                bad.append("%s: exit code %d" % (name, p.returncode))
            continue
        # Bind integer inputs as initializers.
        inputs = []
        for vi, value in zip(graph_inputs, values):
            if np.issubdtype(value.dtype, np.integer):
                m.graph.initializer.append(numpy_helper.from_array(value, vi.name))
                m.graph.input.remove(vi)
            else:
                inputs.append(value)
        bound = os.path.join(a.workdir, "bound.onnx")
        onnx.save(m, bound)
        p = subprocess.run([tool, "--import-onnx", bound], capture_output=True,
                           text=True, timeout=60)
        if p.returncode == 1:
            rejected += 1
            if a.verbose:
                lines = [l for l in p.stderr.splitlines() if "error:" in l]
                print("rejected %s: %s" % (name, lines[0].split("error: ", 1)[-1]
                                           if lines else "?"))
            if "error:" not in p.stderr:
                bad.append("%s: exit 1 without a diagnostic" % name)
            continue
        if p.returncode != 0:
            bad.append("%s: exit code %d (crash)" % (name, p.returncode))
            continue
        imported += 1
        if any(s in name for s in SKIP_NUMERICS):
            skipped += 1
            continue
        try:
            results = run_llm_ir.evaluate(p.stdout, inputs)
        except Exception as e:  # noqa: BLE001 (report and go on)
            bad.append("%s: evaluation failed: %s" % (name, e))
            continue
        log = open(os.devnull, "w")
        if run_llm_ir.compare(results, expected, 1e-3, 1e-4, out=log):
            matched += 1
        else:
            bad.append("%s: results differ from the test's outputs" % name)
    print("models: %d" % len(models))
    print("imported: %d" % imported)
    print("rejected with a diagnostic: %d" % rejected)
    print("matched: %d (numerics skipped: %d)" % (matched, skipped))
    if unreadable:
        print("non-tensor test data (rejected, not bound): %d" % unreadable)
    for b in bad:
        print("FAILED " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
