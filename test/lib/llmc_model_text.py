# ===- llmc_model_text.py - llm-dialect models written by test scripts ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""What the test generators that write a multi-output `@main` share: a
numpy array as a `dense<...>` literal, the function around the body lines,
and the inputs as `arg<i>.npy` files with an `inputs.txt` of `--input`
flags (for `llmc run MODEL @DIR/inputs.txt`)."""

import os

import numpy as np


def literal(a):
    """`a` as `dense<[...]>` (float64 values, shortest exact form)."""
    return "dense<" + np.array2string(
        np.asarray(a, np.float64), separator=",", threshold=1 << 30,
        max_line_width=1 << 30, floatmode="unique").replace("\n", "") + ">"


def main_func(args, body, results, types):
    """`func.func @main(args) -> (types)` holding the `body` lines and
    returning `results`."""
    return (f"func.func @main({', '.join(args)}) -> ({', '.join(types)}) {{\n"
            + "".join(body) +
            f"  return {', '.join(results)} : {', '.join(types)}\n}}\n")


def write_inputs(d, xs):
    """Saves `xs` as DIR/arg<i>.npy and writes DIR/inputs.txt."""
    for i, x in enumerate(xs):
        np.save(os.path.join(d, f"arg{i}.npy"), x)
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        f.write(" ".join(f"--input arg{i}={os.path.join(d, f'arg{i}.npy')}"
                         for i in range(len(xs))))
