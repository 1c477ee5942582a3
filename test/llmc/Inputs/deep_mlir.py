# ===- deep_mlir.py - MLIR text nested deeply, and a model that is not ---===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Usage: deep_mlir.py DIR. Writes
#   array.mlir: an array attribute nested 200000 levels deep;
#   tuple.mlir: an argument type tuple<() -> tuple<() -> ...>> 100000 deep
#     (the `>` of each `->` closes nothing);
#   ok.mlir: a valid model whose string attribute, comment and location
#     hold 5000 unmatched brackets each, and whose arrays nest 900 deep.
#
# ===----------------------------------------------------------------------===#

import os
import sys

d = sys.argv[1]


def write(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


n = 200000
write("array.mlir", "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32>"
      " attributes {a = " + "[" * n + "]" * n + "} {\n"
      "  return %x : tensor<2xf32>\n}\n")
n = 100000
write("tuple.mlir", "func.func @main(%x: " + "tuple<() -> " * n + "i32" +
      ">" * n + ") {\n  return\n}\n")
write("ok.mlir", "// " + "(" * 5000 + "\n"
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32>"
      " attributes {s = \"" + "[" * 5000 + "\\\"\", a = " + "[" * 900 +
      "]" * 900 + "} {\n"
      "  %y = llm.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"
      " loc(\"" + "{" * 5000 + "\")\n"
      "  return %y : tensor<2xf32>\n}\n")
