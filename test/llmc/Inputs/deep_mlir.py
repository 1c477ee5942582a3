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
#   spaced.mlir: tuple <tuple <...>> with a space before each `<`, 100000
#     deep;
#   minus.mlir: an affine map of 100000 unary minus signs in a row;
#   alias.mlir: an attribute of @main nested 20000 levels deep through
#     aliases (`#a1 = [#a0]`, ...), each line shallow;
#   loc.mlir: an op whose location nests 20000 call sites through aliases;
#   affine.mlir: an affine map nested 3000 levels ((d0 * s0 + ...) mod 7);
#   doubled.mlir: an argument type of 500 aliases tuple<!prev, !prev>
#     (500 levels, 2^500 elements written out);
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
write("spaced.mlir", "func.func @main(%x: " + "tuple <" * n + "i32" +
      ">" * n + ") {\n  return\n}\n")
write("minus.mlir", "#m = affine_map<(d0) -> (" + "- " * n + "d0)>\n"
      "func.func @main() attributes {m = #m} {\n  return\n}\n")
n = 20000
write("alias.mlir", "#a0 = [1]\n" +
      "".join("#a%d = [#a%d]\n" % (i, i - 1) for i in range(1, n)) +
      "func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> attributes "
      "{a = #a%d} {\n  return %%x : tensor<2xf32>\n}\n" % (n - 1))
write("loc.mlir", "#l0 = loc(\"x\":1:1)\n" +
      "".join("#l%d = loc(callsite(#l%d at \"y\":1:1))\n" % (i, i - 1)
              for i in range(1, n)) +
      "func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %%y = llm.add %%x, %%x : (tensor<2xf32>, tensor<2xf32>) -> "
      "tensor<2xf32> loc(#l%d)\n  return %%y : tensor<2xf32>\n}\n" % (n - 1))
e = "d0"
for _ in range(3000):
    e = "(d0 * s0 + %s) mod 7" % e
write("affine.mlir", "#m = affine_map<(d0)[s0] -> (%s)>\n"
      "func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> attributes "
      "{m = #m} {\n  return %%x : tensor<2xf32>\n}\n" % e)
write("doubled.mlir", "!t0 = i32\n" +
      "".join("!t%d = tuple<!t%d, !t%d>\n" % (i, i - 1, i - 1)
              for i in range(1, 500)) +
      "func.func @main(%x: tensor<2xf32>, %t: !t499) -> tensor<2xf32> {\n"
      "  return %x : tensor<2xf32>\n}\n")
write("ok.mlir", "// " + "(" * 5000 + "\n"
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32>"
      " attributes {s = \"" + "[" * 5000 + "\\\"\", a = " + "[" * 900 +
      "]" * 900 + "} {\n"
      "  %y = llm.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"
      " loc(\"" + "{" * 5000 + "\")\n"
      "  return %y : tensor<2xf32>\n}\n")
