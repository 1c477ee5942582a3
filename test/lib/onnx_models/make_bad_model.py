#!/usr/bin/env python3
# ===- make_bad_model.py - corrupt ONNX models for the bad-input corpus ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Writes ONNX models whose tensors lie about their data (what a corrupt or
hostile file can say), for test/Target/ONNX/corrupt.test.

Usage: make_bad_model.py NAME OUTPUT.onnx

Each model is `y = Add(x, w)` with x: float[4] and the initializer w broken
as NAME says. The checker is not run (it would reject most of them).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def add_model(w):
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])], [w])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="llmc-tests")
    m.ir_version = 8
    return m


def raw(dims, nbytes):
    w = TensorProto(name="w", data_type=F, dims=dims)
    w.raw_data = b"\0" * nbytes
    return w


def external(location, offset=None, length=None, dims=(4,)):
    w = TensorProto(name="w", data_type=F, dims=list(dims))
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset),
                       ("length", length)):
        if value is not None:
            entry = w.external_data.add()
            entry.key, entry.value = key, str(value)
    return w


def build(name, out):
    if name == "overflow_dims":
        # 2^40 * 2^40 elements: the element count overflows int64.
        return add_model(raw([2**40, 2**40], 16))
    if name == "huge_dims":
        # 10^12 floats declared, 16 bytes present: must not allocate 4 TB.
        return add_model(raw([10**12], 16))
    if name == "short_raw":
        return add_model(raw([4], 12))
    if name == "short_float_data":
        w = TensorProto(name="w", data_type=F, dims=[4])
        w.float_data.extend([1.0, 2.0])
        return add_model(w)
    if name == "external_escape":
        return add_model(external("../../../../etc/passwd"))
    if name == "external_absolute":
        return add_model(external("/dev/zero"))
    if name == "external_offset_overflow":
        # 16 bytes at offset 2^63 - 8: offset + length used to overflow.
        with open(out + ".data", "wb") as f:
            f.write(np.arange(4, dtype=np.float32).tobytes())
        return add_model(external(os.path.basename(out) + ".data",
                                  offset=2**63 - 8, length=16))
    if name == "external_dir":
        os.makedirs(out + ".d", exist_ok=True)
        return add_model(external(os.path.basename(out) + ".d"))
    raise SystemExit(f"unknown model {name}")


def main():
    name, out = sys.argv[1], sys.argv[2]
    onnx.save_model(build(name, out), out)


if __name__ == "__main__":
    main()
