#!/usr/bin/env python3
# ===- dynamic_kernels.py - kernels of a dynamic compile against static ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Compiles MODEL.onnx twice with `llmc compile --report=json` (batch 1,
or B with --batch=B): the sequence dynamic (--dim-bound seq=N) and static
(--dim seq=N), and prints per model whether the kernel counts are equal and
both runtime transpose counts.

  dynamic_kernels.py LLMC DIR N [--batch=B] MODEL...
"""

import json
import os
import subprocess
import sys


def report(llmc, model, out, batch, extra):
    r = subprocess.run([llmc, "compile", model, "--dim", "batch=%d" % batch,
                        "--emit=mlir", "-o", out, "--report=json"] + extra,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("llmc compile failed: " + r.stderr)
    return json.loads(r.stdout)


def main():
    llmc, d, n = sys.argv[1], sys.argv[2], sys.argv[3]
    names, batch = sys.argv[4:], 1
    if names and names[0].startswith("--batch="):
        batch = int(names[0].split("=", 1)[1])
        names = names[1:]
    for name in names:
        model = os.path.join(d, name + ".onnx")
        out = os.path.join(d, name + ".kernels.mlir")
        dyn = report(llmc, model, out, batch, ["--dim-bound", "seq=" + n])
        static = report(llmc, model, out, batch, ["--dim", "seq=" + n])
        print("%s: kernels %d dynamic, %d static: %s; transposes %d dynamic, "
              "%d static" % (name, dyn["kernels"], static["kernels"],
                             "same" if dyn["kernels"] == static["kernels"]
                             else "DIFFERENT", dyn["runtime_transposes"],
                             static["runtime_transposes"]))


if __name__ == "__main__":
    main()
