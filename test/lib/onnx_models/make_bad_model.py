#!/usr/bin/env python3
# ===- make_bad_model.py - corrupt ONNX models for the bad-input corpus ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Writes ONNX models that a corrupt or hostile file can be, for the
bad-input tests of test/Target/ONNX (corrupt.test, errors.test,
integer-folding.test).

Usage: make_bad_model.py NAME OUTPUT.onnx

The tensor cases are `y = Add(x, w)` with x: float[4] and the initializer w
broken as NAME says; the others are built below, one per NAME. The checker
is not run (it would reject most of them).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
INT32_MIN = -2**31


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="llmc-tests")
    m.ir_version = 8
    return m


def vi(name, dtype, shape=None):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, values, dtype=np.int64):
    return helper.make_node(
        "Constant", [], [name], name=name,
        value=numpy_helper.from_array(np.array(values, dtype=dtype), name))


def int_fold():
    """Integer folds at the edges of int64 and int32 (ONNX definitions:
    wrap-around, Div truncating toward zero, Mod with the sign of the divisor
    or, with fmod=1, of the dividend). Div(INT64_MIN, -1) used to die of
    SIGFPE."""
    a = [INT64_MIN, 7, -7, 7, -7, INT64_MAX]
    b = [-1, 2, 2, -2, -2, 2]
    nodes = [const("a", a), const("b", b),
             const("a32", [INT32_MIN, 5], np.int32),
             const("b32", [-1, -3], np.int32)]
    outs = []
    for op, attrs in [("Div", {}), ("Mod", {}), ("Mod", {"fmod": 1}),
                      ("Mul", {}), ("Add", {}), ("Sub", {})]:
        name = op.lower() + ("_fmod" if attrs else "")
        nodes.append(helper.make_node(op, ["a", "b"], [name], name=name, **attrs))
        outs.append(vi(name, I64, [6]))
    for op in ["Neg", "Abs"]:
        nodes.append(helper.make_node(op, ["a"], [op.lower()], name=op.lower()))
        outs.append(vi(op.lower(), I64, [6]))
    for op in ["Div", "Mod", "Mul", "Neg"]:
        ins = ["a32"] if op == "Neg" else ["a32", "b32"]
        nodes.append(helper.make_node(op, ins, [op.lower() + "32"],
                                      name=op.lower() + "32"))
        outs.append(vi(op.lower() + "32", I32, [2]))
    # 3^41 wraps; a huge exponent is 64 squarings, not 2^62 multiplications.
    nodes += [const("base", [3, 3, -1, 2]),
              const("exp", [41, 2**62, INT64_MAX, -1]),
              helper.make_node("Pow", ["base", "exp"], ["pow"], name="pow")]
    outs.append(vi("pow", I64, [4]))
    return model(nodes, [], outs)


def int_div_zero():
    """Shape math dividing by zero: Reshape(x, Shape(x) / [1, 0])."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             const("d", [1, 0]),
             helper.make_node("Div", ["s", "d"], ["q"], name="div"),
             helper.make_node("Reshape", ["x", "q"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 6])], [vi("y", F)])


def int_mod_zero():
    nodes = [const("a", [5, 6]), const("b", [3, 0]),
             helper.make_node("Mod", ["a", "b"], ["y"], name="mod")]
    return model(nodes, [], [vi("y", I64, [2])])


def int_pow_zero():
    nodes = [const("a", [0]), const("b", [-1]),
             helper.make_node("Pow", ["a", "b"], ["y"], name="pow")]
    return model(nodes, [], [vi("y", I64, [1])])


def slice_extreme_steps():
    """Slice with steps INT64_MIN and INT64_MAX: one element each (the count
    arithmetic used to overflow)."""
    nodes = [const("starts", [4, 1]), const("ends", [INT64_MIN, INT64_MAX]),
             const("axes", [0, 1]), const("steps", [INT64_MIN, INT64_MAX]),
             helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"],
                              ["y"], name="slice")]
    return model(nodes, [vi("x", F, [5, 3])], [vi("y", F, [1, 1])])


def range_extreme():
    """Range over all of int64: 2^64 - 1 elements, refused with the exact
    count (limit - start overflows int64)."""
    nodes = [helper.make_node("Constant", [], ["s"], value=numpy_helper.from_array(
                 np.array(INT64_MIN, np.int64), "s")),
             helper.make_node("Constant", [], ["l"], value=numpy_helper.from_array(
                 np.array(INT64_MAX, np.int64), "l")),
             helper.make_node("Constant", [], ["d"], value=numpy_helper.from_array(
                 np.array(1, np.int64), "d")),
             helper.make_node("Range", ["s", "l", "d"], ["y"], name="range")]
    return model(nodes, [], [vi("y", I64)])


def reshape_overflow():
    """An empty tensor reshaped to [2^40, 2^40, 0]: its element count is 0
    but its strides overflow int64."""
    nodes = [const("shape", [2**40, 2**40, 0]),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape",
                              allowzero=1)]
    return model(nodes, [vi("x", F, [0])], [vi("y", F)])


def input_overflow():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [vi("x", F, [2**40, 2**40])], [vi("y", F)])


def split_num_outputs():
    nodes = [helper.make_node("Split", ["x"], ["a", "b"], name="split",
                              num_outputs=0)]
    return model(nodes, [vi("x", F, [4])], [vi("a", F), vi("b", F)], opset=18)


def convtranspose_rank():
    """onnx-import-fuzzer: ConvTranspose with a rank-2 X and a rank-3 W made
    libonnx's shape inference SEGV; ops the importer does not handle are now
    refused before shape inference runs."""
    nodes = [helper.make_node("ConvTranspose", ["X", "W"], ["Y"])]
    return model(nodes, [vi("X", F, [1, 1]), vi("W", F, [1, 2, 3])],
                 [vi("Y", F, [1, 2, 5])], opset=11)


def range_misplaced_value():
    """onnx-import-fuzzer: an INT64 Constant whose value sits in int32_data
    (int64_data empty) made libonnx's Range inference read past the empty
    field (SEGV); tensor attributes are now checked before shape
    inference."""
    start = TensorProto(name="", data_type=I64)
    start.int32_data.append(-1)
    nodes = [helper.make_node("Constant", [], ["s"], name="start", value=start),
             const("l", 5), const("d", 2),
             helper.make_node("Range", ["s", "l", "d"], ["y"], name="range")]
    return model(nodes, [], [vi("y", I64)], opset=13)


def layernorm_axis_min():
    """onnx-import-fuzzer: LayerNormalization with axis INT32_MIN made
    libonnx's inference index the shape with a negative axis (SEGV); ONNX
    shape inference now runs after the import, whose handlers check axes."""
    node = helper.make_node("LayerNormalization", ["X", "W", "B"],
                            ["Y", "Mean", "InvStdDev"], axis=INT32_MIN)
    xs = [vi(n, F, [2, 3, 4, 5]) for n in ["X", "W", "B"]]
    return model([node], xs, [vi("Y", F), vi("Mean", F), vi("InvStdDev", F)])


def relu_attr(name, value, attr_type=None):
    """Relu/Gemm/... helpers for the attribute cases."""
    a = helper.make_attribute(name, value)
    if attr_type is not None:
        a.type = attr_type
    return a


def attr_model(op, inputs, attrs, out_shape, inits=(), opset=17, name=None):
    node = helper.make_node(op, [i[0] for i in inputs], ["y"],
                            name=name or op.lower())
    node.attribute.extend(attrs)
    return model([node], [vi(n, F, s) for n, s in inputs],
                 [vi("y", F, out_shape)], inits, opset)


def gemm_inputs():
    return [("a", [2, 3]), ("b", [3, 4])]


def build_attr(name):
    """Attributes whose type is not the schema's: read as 0 before."""
    if name == "gemm_alpha_string":  # alpha="2": used to give all zeros
        return attr_model("Gemm", gemm_inputs(), [relu_attr("alpha", "2")],
                          [2, 4])
    if name == "gemm_alpha_int":
        return attr_model("Gemm", gemm_inputs(), [relu_attr("alpha", 2)], [2, 4])
    if name == "softmax_axis_string":
        return attr_model("Softmax", [("x", [2, 3])],
                          [relu_attr("axis", "hello")], [2, 3])
    if name == "gather_axis_float":
        node = helper.make_node("Gather", ["x", "i"], ["y"], name="gather",
                                axis=1.7)
        return model([node], [vi("x", F, [2, 3]), vi("i", I64, [2])],
                     [vi("y", F)])
    if name == "attr_mislabeled":
        # Declared FLOAT, holding only a string: f() reads 0.0.
        a = onnx.AttributeProto(name="alpha", type=onnx.AttributeProto.FLOAT,
                                s=b"2")
        return attr_model("Gemm", gemm_inputs(), [a], [2, 4])
    if name == "attr_twice":
        return attr_model("Gemm", gemm_inputs(),
                          [relu_attr("alpha", 2.0), relu_attr("alpha", 3.0)],
                          [2, 4])
    if name == "attr_missing":
        node = helper.make_node("Cast", ["x"], ["y"], name="cast")
        return model([node], [vi("x", F, [2])], [vi("y", F)])
    if name == "attr_unknown":
        # An attribute Relu does not have, and Clip's min/max attributes at
        # opset 17 (inputs since opset 11): warned about and ignored.
        relu = helper.make_node("Relu", ["x"], ["r"], name="relu", foo=1)
        clip = helper.make_node("Clip", ["r"], ["y"], name="clip", min=0.5)
        return model([relu, clip], [vi("x", F, [2])], [vi("y", F, [2])])
    return None


def build_names(name):
    """Names that identify more than one value."""
    relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    w = numpy_helper.from_array(np.ones(4, np.float32), "w")
    if name == "dup_input":
        # `--input x=...` bound one x; the graph read the other.
        return model([relu], [vi("x", F, [4]), vi("x", F, [4])], [vi("y", F, [4])])
    if name == "dup_initializer":
        w2 = numpy_helper.from_array(np.zeros(4, np.float32), "w")
        return model([add], [vi("x", F, [4])], [vi("y", F, [4])], [w, w2])
    if name == "dup_output":
        return model([relu], [vi("x", F, [4])], [vi("y", F, [4]), vi("y", F, [4])])
    if name == "input_default":
        # IR version 3: an initializer named like a graph input is its
        # default value; the input is then a constant, not an argument.
        m = model([add], [vi("x", F, [4]), vi("w", F, [4])], [vi("y", F, [4])],
                  [w])
        m.ir_version = 3
        return m
    return None


def external_file(location, length=16):
    """y = Add(x, w), w's 16 bytes in external file `location` (which the
    test creates: a link, a FIFO, a device)."""
    return add_model(external(location, offset=0, length=length))


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
    if name.startswith("external_file:"):
        return external_file(name.split(":", 1)[1])
    builders = {f.__name__: f for f in [
        int_fold, int_div_zero, int_mod_zero, int_pow_zero, slice_extreme_steps,
        range_extreme, reshape_overflow, input_overflow, split_num_outputs,
        convtranspose_rank, range_misplaced_value, layernorm_axis_min]}
    if name in builders:
        return builders[name]()
    m = build_attr(name) or build_names(name)
    if m is not None:
        return m
    raise SystemExit(f"unknown model {name}")


def main():
    name, out = sys.argv[1], sys.argv[2]
    onnx.save_model(build(name, out), out)


if __name__ == "__main__":
    main()
