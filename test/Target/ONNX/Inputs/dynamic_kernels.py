#!/usr/bin/env python3
# ===- dynamic_kernels.py - kernels of a dynamic compile against static ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Compiles MODEL.onnx twice with `llmc compile --report=json` (batch 1):
the sequence dynamic (--dim-bound seq=N) and static (--dim seq=N), and
prints per model whether the kernel counts are equal and both runtime
transpose counts.

  dynamic_kernels.py LLMC DIR N MODEL...
"""

import json
import os
import subprocess
import sys


def report(llmc, model, out, extra):
    r = subprocess.run([llmc, "compile", model, "--dim", "batch=1",
                        "--emit=mlir", "-o", out, "--report=json"] + extra,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("llmc compile failed: " + r.stderr)
    return json.loads(r.stdout)


def main():
    llmc, d, n = sys.argv[1], sys.argv[2], sys.argv[3]
    for name in sys.argv[4:]:
        model = os.path.join(d, name + ".onnx")
        out = os.path.join(d, name + ".kernels.mlir")
        dyn = report(llmc, model, out, ["--dim-bound", "seq=" + n])
        static = report(llmc, model, out, ["--dim", "seq=" + n])
        print("%s: kernels %d dynamic, %d static: %s; transposes %d dynamic, "
              "%d static" % (name, dyn["kernels"], static["kernels"],
                             "same" if dyn["kernels"] == static["kernels"]
                             else "DIFFERENT", dyn["runtime_transposes"],
                             static["runtime_transposes"]))


if __name__ == "__main__":
    main()
