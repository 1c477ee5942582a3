# ===- compile_target.py - llmc.compile(MODEL, target=NAME) --------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Compiles MODEL with the Python package for a CPU target; prints the
ValueError's message (and exits 1) when it is refused, else "compiled"."""

import sys

import llmc

try:
    llmc.compile(sys.argv[1], target=sys.argv[2])
except ValueError as e:
    print("ValueError:", e)
    sys.exit(1)
print("compiled")
