#!/usr/bin/env python3
# ===- make_model.py - small ONNX models for the importer tests ----------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Builds the ONNX models used by test/Target/ONNX with onnx.helper.

Usage: make_model.py NAME OUTPUT.onnx

Each builder returns a ModelProto; weights are random (seeded) so the tests
only depend on shapes and op structure. Run with /usr/bin/python3 (Debian's
python3-onnx 1.12, opset 17 at most).
"""

import math
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
rng = np.random.default_rng(0)


def init(name, shape, dtype=np.float32):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(dtype), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="llmc-tests")
    m.ir_version = 8
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def mlp():
    """MatMul + bias + Relu, then Gemm with alpha/beta/transB."""
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="fc1_bias"),
        helper.make_node("Relu", ["hb"], ["r"], name="act"),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], name="fc2",
                         alpha=0.5, beta=2.0, transB=1),
    ]
    return model(nodes, [vi("x", F, [4, 8])], [vi("y", F, [4, 3])],
                 [init("w1", [8, 16]), init("b1", [16]), init("w2", [3, 16]),
                  init("b2", [3])])


def elementwise():
    """Every elementwise op, constants as scalars and splats."""
    nodes = [
        helper.make_node("Constant", [], ["two"], value_float=2.0),
        helper.make_node("Sub", ["x", "y"], ["a"]),
        helper.make_node("Mul", ["a", "two"], ["b"]),
        helper.make_node("Div", ["b", "y"], ["c"]),
        helper.make_node("Pow", ["c", "two"], ["d"]),
        helper.make_node("Sqrt", ["d"], ["e"]),
        helper.make_node("Reciprocal", ["e"], ["f"]),
        helper.make_node("Neg", ["f"], ["g"]),
        helper.make_node("Exp", ["g"], ["h"]),
        helper.make_node("Log", ["h"], ["i"]),
        helper.make_node("Tanh", ["i"], ["j"]),
        helper.make_node("Erf", ["j"], ["k"]),
        helper.make_node("Sigmoid", ["k"], ["l"]),
        helper.make_node("Max", ["l", "x", "y"], ["m"]),
        helper.make_node("Min", ["m", "x"], ["n"]),
    ]
    return model(nodes, [vi("x", F, [2, 3]), vi("y", F, [3])],
                 [vi("n", F, [2, 3])])


def shape_plumbing():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, plus Range,
    ConstantOfShape, Equal, Where, Cast, Div on shapes: all folded."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["d0"], name="g0", axis=0),
        helper.make_node("Gather", ["s", "i1"], ["d1"], name="g1", axis=0),
        helper.make_node("Gather", ["s", "i2"], ["d2"], name="g2", axis=0),
        helper.make_node("Div", ["d2", "heads"], ["hd"], name="head_dim"),
        helper.make_node("Unsqueeze", ["d0", "ax0"], ["u0"]),
        helper.make_node("Unsqueeze", ["d1", "ax0"], ["u1"]),
        helper.make_node("Unsqueeze", ["hd", "ax0"], ["u3"]),
        helper.make_node("Concat", ["u0", "u1", "heads1", "u3"], ["newshape"],
                         axis=0),
        helper.make_node("Reshape", ["x", "newshape"], ["xr"], name="split_heads"),
        helper.make_node("Transpose", ["xr"], ["xt"], perm=[0, 2, 1, 3]),
        # Range / ConstantOfShape / Equal / Where / Cast on constants.
        helper.make_node("Range", ["zero", "d1", "one"], ["pos"]),
        helper.make_node("ConstantOfShape", ["u1"], ["ones"],
                         value=numpy_helper.from_array(np.array([1], np.int64))),
        helper.make_node("Less", ["pos", "four"], ["eq"]),
        helper.make_node("Where", ["eq", "pos", "ones"], ["w"]),
        helper.make_node("Cast", ["w"], ["wf"], to=F),
        helper.make_node("Unsqueeze", ["wf", "ax1"], ["wf2"]),
        helper.make_node("Unsqueeze", ["wf2", "ax0"], ["wf3"]),
        helper.make_node("Unsqueeze", ["wf3", "ax0"], ["wf4"]),
        helper.make_node("Mul", ["xt", "wf4"], ["y"], name="scale_by_pos"),
    ]
    inits = [ints("i0", 0), ints("i1", 1), ints("i2", 2), ints("heads", 4),
             ints("heads1", [4]), ints("ax0", [0]), ints("ax1", [1]),
             ints("zero", 0), ints("one", 1), ints("four", 4)]
    return model(nodes, [vi("x", F, [2, 8, 16])], [vi("y", F, [2, 4, 8, 4])],
                 inits, opset=13)


def norms():
    """LayerNormalization (opset 17), Softmax and reductions."""
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"],
                         name="ln", axis=-1, epsilon=1e-6),
        helper.make_node("Softmax", ["ln"], ["sm"], name="sm", axis=1),
        helper.make_node("ReduceMean", ["sm"], ["rm"], axes=[-1], keepdims=1),
        helper.make_node("ReduceMax", ["sm"], ["rx"], axes=[0, 2], keepdims=0),
        helper.make_node("ReduceSum", ["sm", "sum_axes"], ["rs"], keepdims=1),
        helper.make_node("ReduceSum", ["sm"], ["all"], keepdims=0),
    ]
    return model(nodes, [vi("x", F, [2, 4, 8])],
                 [vi("rm", F, [2, 4, 1]), vi("rx", F, [4]), vi("rs", F, [2, 1, 8]),
                  vi("all", F, [])],
                 [init("gamma", [8]), init("beta", [8]), ints("sum_axes", [1])])


def data_movement():
    """Slice (negative, clamped, strided), Split, Squeeze/Unsqueeze, Concat,
    Expand, Cast, Gather with a constant index on runtime data, Identity and
    Dropout."""
    nodes = [
        helper.make_node("Slice", ["x", "st", "en", "axes", "steps"], ["s1"],
                         name="slice_neg"),
        helper.make_node("Split", ["x", "split"], ["p0", "p1"], name="split",
                         axis=2),
        helper.make_node("Concat", ["p1", "p0"], ["c"], name="swap", axis=2),
        helper.make_node("Unsqueeze", ["c", "ax0"], ["u"]),
        helper.make_node("Squeeze", ["u", "ax0"], ["sq"]),
        helper.make_node("Expand", ["b", "eshape"], ["e"], name="expand"),
        helper.make_node("Cast", ["ids"], ["idsf"], to=F, name="cast"),
        helper.make_node("Gather", ["x", "last"], ["g"], name="take_last", axis=1),
        helper.make_node("Identity", ["g"], ["gi"]),
        helper.make_node("Dropout", ["gi"], ["gd"]),
    ]
    return model(nodes, [vi("x", F, [2, 6, 8]), vi("b", F, [1, 8]),
                         vi("ids", I64, [2, 6])],
                 [vi("s1", F, [2, 2, 3]), vi("sq", F, [2, 6, 8]),
                  vi("e", F, [2, 6, 8]), vi("idsf", F, [2, 6]),
                  vi("gd", F, [2, 8])],
                 [ints("st", [-5, 1]), ints("en", [-1, 100]),
                  ints("axes", [1, 2]), ints("steps", [2, 3]),
                  ints("split", [3, 5]), ints("ax0", [0]),
                  ints("eshape", [2, 6, 1]), ints("last", -1)], opset=13)


def slice_runtime():
    """Slice with positive steps on runtime data, clamped ends."""
    nodes = [helper.make_node("Slice", ["x", "st", "en", "axes", "steps"], ["y"],
                              name="slice_pos")]
    return model(nodes, [vi("x", F, [4, 10])], [vi("y", F, [4, 5])],
                 [ints("st", [-9]), ints("en", [1000]), ints("axes", [-1]),
                  ints("steps", [2])], opset=13)


def slice_negative():
    """Negative steps: folded on a constant; with `runtime`, also
    y[:, 3::-2] on runtime data (llm.slice + llm.reverse)."""
    nodes = [
        helper.make_node("Range", ["zero", "ten", "one"], ["r"]),
        helper.make_node("Slice", ["r", "st", "en", "axes", "steps"], ["rev"],
                         name="reverse_const"),
        helper.make_node("Cast", ["rev"], ["revf"], to=F),
        helper.make_node("Add", ["x", "revf"], ["y"], name="add_rev"),
    ]
    if len(sys.argv) > 3 and sys.argv[3] == "runtime":
        nodes.append(helper.make_node("Slice", ["y", "st2", "en", "axes2", "steps2"],
                                      ["z"], name="reverse_runtime"))
        out, shape = "z", [2, 2]
    else:
        out, shape = "y", [2, 4]
    return model(nodes, [vi("x", F, [2, 4])], [vi(out, F, shape)],
                 [ints("zero", 0), ints("ten", 10), ints("one", 1),
                  ints("st", [-1]), ints("en", [-100]), ints("axes", [0]),
                  ints("steps", [-3]), ints("st2", [3]), ints("axes2", [1]),
                  ints("steps2", [-2])], opset=13)


def embedding():
    """Token embedding: Gather on axis 0 of a 2-D table with runtime ids,
    plus positions from Range folded into a constant index."""
    nodes = [
        helper.make_node("Gather", ["wte", "input_ids"], ["tok"], name="wte_lookup"),
        helper.make_node("Shape", ["input_ids"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["seq"], axis=0),
        helper.make_node("Range", ["zero", "seq", "one"], ["pos"]),
        helper.make_node("Gather", ["wpe", "pos"], ["pe"], name="wpe_lookup"),
        helper.make_node("Add", ["tok", "pe"], ["h"]),
    ]
    return model(nodes, [vi("input_ids", I64, ["batch", "seq"])],
                 [vi("h", F, ["batch", "seq", 16])],
                 [init("wte", [50, 16]), init("wpe", [32, 16]), ints("zero", 0),
                  ints("one", 1)], opset=13)


def unsupported_op():
    nodes = [helper.make_node("Det", ["x"], ["y"], name="det")]
    return model(nodes, [vi("x", F, [3, 3])], [vi("y", F, [])])


def control_names():
    """Node names with control characters: Det (unsupported) named
    "de<newline>t", after a MatMul named "fc<ESC>[31m<tab>"."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc\x1b[31m\t"),
             helper.make_node("Det", ["h"], ["y"], name="de\nt")]
    return model(nodes, [vi("x", F, [3, 3])], [vi("y", F, [])],
                 [init("w", [3, 3])])


def nonzero_const():
    """NonZero of a 2-D constant, folded: indices [2, count] in row-major
    order, added (as f32) to a runtime input."""
    c = numpy_helper.from_array(np.array([[0, 1, 0], [2, 0, 3]], dtype=np.float32), "c")
    nodes = [
        helper.make_node("NonZero", ["c"], ["nz"], name="nz"),
        helper.make_node("Cast", ["nz"], ["nzf"], name="cast", to=F),
        helper.make_node("Add", ["x", "nzf"], ["y"], name="add"),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], [c])


def expand_const(n, out):
    """x [n, n] + Expand(c [n], [n, n]) + (a [n, 1] * b [1, n]) +
    Where(a > 0, b, c): constants that broadcast to n * n elements. Writes OUT and OUT.npz (input and
    numpy's output, for run_llm_ir.py)."""
    c = rng.standard_normal(n).astype(np.float32)
    a = rng.standard_normal((n, 1)).astype(np.float32)
    b = rng.standard_normal((1, n)).astype(np.float32)
    nodes = [
        helper.make_node("Expand", ["c", "shape"], ["ce"], name="expand"),
        helper.make_node("Add", ["x", "ce"], ["s"], name="add"),
        helper.make_node("Mul", ["a", "b"], ["ab"], name="outer"),
        helper.make_node("Add", ["s", "ab"], ["y"], name="add2"),
    ]
    # where(a > 0 [n, 1], b [1, n], c [n]): a select of constants to n x n.
    nodes += [
        helper.make_node("Greater", ["a", "zero"], ["pos"], name="pos"),
        helper.make_node("Where", ["pos", "b", "c"], ["w"], name="where"),
        helper.make_node("Add", ["y0", "w"], ["y"], name="add3"),
    ]
    nodes[3].output[0] = "y0"
    m = model(nodes, [vi("x", F, [n, n])], [vi("y", F, [n, n])],
              [numpy_helper.from_array(c, "c"), ints("shape", [n, n]),
               numpy_helper.from_array(a, "a"), numpy_helper.from_array(b, "b"),
               numpy_helper.from_array(np.array(0, dtype=np.float32), "zero")])
    onnx.save_model(m, out)
    x = rng.standard_normal((n, n)).astype(np.float32)
    y = x + c + a * b + np.where(a > 0, b, c)
    np.savez(out + ".npz", in0=x, out0=y.astype(np.float32))


def gather_const(n, out):
    """x [n, n] + Gather(T [8, n], idx [n]) (a constant table and constant
    indices whose result, n x n, stores far more than they do) +
    Gather(x, idx2 [n], axis 1) (a runtime tensor with n constant indices).
    Writes OUT and OUT.npz."""
    t = rng.standard_normal((8, n)).astype(np.float32)
    idx = (np.arange(n) * 5 % 8).astype(np.int64)
    idx2 = ((np.arange(n) * 7 + 3) % n).astype(np.int64)
    idx2[::5] -= n  # negative indices count from the end
    nodes = [
        helper.make_node("Gather", ["t", "idx"], ["g"], name="gather_const"),
        helper.make_node("Add", ["x", "g"], ["s"], name="add"),
        helper.make_node("Gather", ["x", "idx2"], ["g2"], name="gather_x", axis=1),
        helper.make_node("Add", ["s", "g2"], ["y"], name="add2"),
    ]
    m = model(nodes, [vi("x", F, [n, n])], [vi("y", F, [n, n])],
              [numpy_helper.from_array(t, "t"), numpy_helper.from_array(idx, "idx"),
               numpy_helper.from_array(idx2, "idx2")])
    onnx.save_model(m, out)
    x = rng.standard_normal((n, n)).astype(np.float32)
    y = x + t[idx] + x[:, idx2]
    np.savez(out + ".npz", in0=x, out0=y.astype(np.float32))


def gather_elements(out):
    """GatherElements: of runtime data (x [3, 4], constant indices [2, 4] with
    negative ones, axis 0) and of constants (folded, axis -1), added. Writes
    OUT and OUT.npz (input and numpy's output, for run_llm_ir.py)."""
    idx = np.array([[0, -1, 2, 1], [-3, 0, 1, 2]], dtype=np.int64)
    c = rng.standard_normal((2, 5)).astype(np.float32)
    cidx = np.array([[4, 0, -1, 2], [1, 1, 3, -5]], dtype=np.int64)
    nodes = [
        helper.make_node("GatherElements", ["x", "idx"], ["g"], name="ge", axis=0),
        helper.make_node("GatherElements", ["c", "cidx"], ["gc"], name="gec", axis=-1),
        helper.make_node("Add", ["g", "gc"], ["y"], name="add"),
    ]
    m = model(nodes, [vi("x", F, [3, 4])], [vi("y", F, [2, 4])],
              [numpy_helper.from_array(idx, "idx"), numpy_helper.from_array(c, "c"),
               numpy_helper.from_array(cidx, "cidx")])
    onnx.save_model(m, out)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    g = np.take_along_axis(x, np.where(idx < 0, idx + 3, idx), axis=0)
    gc = np.take_along_axis(c, np.where(cidx < 0, cidx + 5, cidx), axis=1)
    np.savez(out + ".npz", in0=x, out0=(g + gc).astype(np.float32))


def activations(out):
    """LeakyRelu (alpha 0.3), HardSigmoid (alpha 0.4, beta 0.6), HardSwish,
    Sum (three inputs, broadcast), Mean (two inputs), ThresholdedRelu (alpha
    0.5), PRelu (slope [4]), ReduceL1 (axis 1) + CastLike of a runtime x
    [3, 4], plus LeakyRelu of a constant (folded), added. Writes OUT and
    OUT.npz."""
    c1 = rng.standard_normal(4).astype(np.float32)
    c2 = rng.standard_normal((3, 1)).astype(np.float32)
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["a"], name="leaky", alpha=0.3),
        helper.make_node("HardSigmoid", ["x"], ["b"], name="hsig", alpha=0.4, beta=0.6),
        helper.make_node("HardSwish", ["x"], ["c"], name="hswish"),
        helper.make_node("Sum", ["x", "c1", "c2"], ["d"], name="sum"),
        helper.make_node("Mean", ["x", "c1"], ["e"], name="mean"),
        helper.make_node("LeakyRelu", ["c2"], ["f"], name="leaky_const"),
        helper.make_node("ThresholdedRelu", ["x"], ["g"], name="thresholded", alpha=0.5),
        helper.make_node("PRelu", ["x", "c1"], ["p"], name="prelu"),
        helper.make_node("ReduceL1", ["x"], ["l1"], name="l1", axes=[1], keepdims=1),
        helper.make_node("CastLike", ["l1", "x"], ["l1c"], name="castlike"),
        helper.make_node("Sum", ["a", "b", "c", "d", "e", "f", "g", "p", "l1c"],
                         ["y"], name="total"),
    ]
    m = model(nodes, [vi("x", F, [3, 4])], [vi("y", F, [3, 4])],
              [numpy_helper.from_array(c1, "c1"), numpy_helper.from_array(c2, "c2")])
    onnx.save_model(m, out)
    x = rng.standard_normal((3, 4)).astype(np.float32) * 4
    x64 = x.astype(np.float64)
    a = np.where(x64 < 0, 0.3 * x64, x64)
    b = np.clip(0.4 * x64 + 0.6, 0, 1)
    c = x64 * np.clip(x64 / 6 + 0.5, 0, 1)
    d = x64 + c1 + c2
    e = (x64 + c1) / 2
    f = np.where(c2 < 0, 0.01 * c2, c2)
    g = np.where(x64 > 0.5, x64, 0)
    p = np.where(x64 < 0, c1 * x64, x64)
    l1 = np.abs(x64).sum(axis=1, keepdims=True)
    y = a + b + c + d + e + f + g + p + l1
    np.savez(out + ".npz", in0=x, out0=y.astype(np.float32))


def one_hot(out):
    """OneHot of runtime int64 ids [2, 3] (negative and out-of-range ones)
    at axis 1, depth 5, values [-1, 3]; plus OneHot of constant float
    indices (folded, truncated toward zero) at the last axis, added. Writes
    OUT and OUT.npz."""
    cidx = np.array([[0.0, 4.7, -1.2], [2.0, 9.0, -5.0]], dtype=np.float32)
    nodes = [
        helper.make_node("OneHot", ["ids", "depth", "values"], ["h"], name="oh", axis=1),
        helper.make_node("OneHot", ["cidx", "depth", "values"], ["hc"], name="ohc"),
        helper.make_node("Transpose", ["hc"], ["hct"], name="t", perm=[0, 2, 1]),
        helper.make_node("Add", ["h", "hct"], ["y"], name="add"),
    ]
    m = model(nodes, [vi("ids", I64, [2, 3])], [vi("y", F, [2, 5, 3])],
              [ints("depth", 5),
               numpy_helper.from_array(np.array([-1, 3], dtype=np.float32), "values"),
               numpy_helper.from_array(cidx, "cidx")])
    onnx.save_model(m, out)
    ids = np.array([[0, -1, 7], [4, -5, 2]], dtype=np.int64)

    def onehot(i, axis):
        i = np.trunc(i).astype(np.int64)
        i = np.where(i < 0, i + 5, i)
        h = (i[..., None] == np.arange(5)).astype(np.float32) * 4 - 1
        return np.moveaxis(h, -1, axis)
    y = onehot(ids, 1) + np.transpose(onehot(cidx, -1), (0, 2, 1))
    np.savez(out + ".npz", in0=ids, out0=y.astype(np.float32))


def misc_ops(out):
    """Tile (repeats [2, 1, 3]) of Shrink (bias 0.25, lambd 0.75) of a
    runtime x [2, 3, 1] with infinities, IsInf of x (both signs, and the
    positive ones only), and Tile of a constant (folded). Writes OUT and
    OUT.npz."""
    c = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    nodes = [
        helper.make_node("Shrink", ["x"], ["s"], name="shrink", bias=0.25, lambd=0.75),
        helper.make_node("Tile", ["s", "reps"], ["y"], name="tile"),
        helper.make_node("IsInf", ["x"], ["inf"], name="isinf"),
        helper.make_node("IsInf", ["x"], ["posinf"], name="isposinf", detect_negative=0),
        helper.make_node("Tile", ["c", "creps"], ["ct"], name="tile_const"),
        helper.make_node("Unsqueeze", ["ct", "zero"], ["ctu"], name="unsq"),
        helper.make_node("Add", ["y", "ctu"], ["y2"], name="add"),
    ]
    m = model(nodes, [vi("x", F, [2, 3, 1])],
              [vi("y2", F, [4, 3, 3]), vi("inf", TensorProto.BOOL, [2, 3, 1]),
               vi("posinf", TensorProto.BOOL, [2, 3, 1])],
              [ints("reps", [2, 1, 3]), numpy_helper.from_array(c, "c"),
               ints("creps", [3, 1]), ints("zero", [0])])
    onnx.save_model(m, out)
    x = np.array([[[0.5], [-2.0], [np.inf]], [[1.0], [-np.inf], [-0.7]]], dtype=np.float32)
    x64 = x.astype(np.float64)
    s = np.where(x64 < -0.75, x64 + 0.25, np.where(x64 > 0.75, x64 - 0.25, 0))
    y = np.tile(s, (2, 1, 3)) + np.tile(c, (3, 1))[None]
    np.savez(out + ".npz", in0=x, out0=y.astype(np.float32), out1=np.isinf(x),
             out2=np.isposinf(x))


def math_exprs(out):
    """Sinh, Cosh, Asinh, Atanh, Sign, Elu (alpha 0.7), Celu (alpha 1.3) of
    a runtime x [2, 4] in (-1, 1) (zeros included), Acosh of 1 + x^2 + 0.5,
    summed; IsNaN of a runtime z with NaNs; Sign of a constant (folded);
    Hardmax of a runtime t [2, 3, 2] along axis 1, with ties.
    Writes OUT and OUT.npz."""
    k = np.array([-2.0, 0.0, 3.0], dtype=np.float32)
    nodes = [
        helper.make_node("Sinh", ["x"], ["a"]),
        helper.make_node("Cosh", ["x"], ["b"]),
        helper.make_node("Asinh", ["x"], ["c"]),
        helper.make_node("Atanh", ["x"], ["d"]),
        helper.make_node("Sign", ["x"], ["e"]),
        helper.make_node("Elu", ["x"], ["f"], alpha=0.7),
        helper.make_node("Celu", ["x"], ["g"], alpha=1.3),
        helper.make_node("Mul", ["x", "x"], ["xx"]),
        helper.make_node("Add", ["xx", "onehalf"], ["xx1"]),
        helper.make_node("Acosh", ["xx1"], ["h"]),
        helper.make_node("Sign", ["k"], ["ks"]),
        helper.make_node("ReduceSum", ["ks"], ["kss"], keepdims=0),
        helper.make_node("Sum", ["a", "b", "c", "d", "e", "f", "g", "h", "kss"], ["y"]),
        helper.make_node("IsNaN", ["z"], ["nan"]),
        helper.make_node("Hardmax", ["t"], ["hm"], axis=1),
    ]
    m = model(nodes, [vi("x", F, [2, 4]), vi("z", F, [3]), vi("t", F, [2, 3, 2])],
              [vi("y", F, [2, 4]), vi("nan", TensorProto.BOOL, [3]),
               vi("hm", F, [2, 3, 2])],
              [numpy_helper.from_array(np.array(1.5, dtype=np.float32), "onehalf"),
               numpy_helper.from_array(k, "k")])
    onnx.save_model(m, out)
    x = np.array([[-0.9, -0.3, 0.0, 0.2], [0.5, -0.6, 0.85, 0.0]], dtype=np.float32)
    z = np.array([1.0, np.nan, -np.inf], dtype=np.float32)
    x64 = x.astype(np.float64)
    y = (np.sinh(x64) + np.cosh(x64) + np.arcsinh(x64) + np.arctanh(x64) +
         np.sign(x64) + np.where(x64 < 0, 0.7 * np.expm1(x64), x64) +
         np.maximum(0, x64) + np.minimum(0, 1.3 * np.expm1(x64 / 1.3)) +
         np.arccosh(x64 * x64 + 1.5) + np.sign(k).sum())
    # Hardmax along axis 1, ties (the first maximum wins) included.
    t = np.array([[[1, 5], [3, 5], [3, 0]], [[-1, 2], [-1, 7], [-2, 7]]], dtype=np.float32)
    hm = (np.arange(3)[None, :, None] == t.argmax(axis=1)[:, None, :]).astype(np.float32)
    np.savez(out + ".npz", in0=x, in1=z, in2=t, out0=y.astype(np.float32),
             out1=np.isnan(z), out2=hm)


def math_extremes(out):
    """Asinh of w [6] (|w| up to 1e20, where w^2 overflows f32), Acosh of
    |w| + 1, Sign of z with NaN and infinities. Writes OUT and OUT.npz."""
    nodes = [
        helper.make_node("Asinh", ["w"], ["asw"]),
        helper.make_node("Abs", ["w"], ["aw"]),
        helper.make_node("Add", ["aw", "one"], ["aw1"]),
        helper.make_node("Acosh", ["aw1"], ["acw"]),
        helper.make_node("Sign", ["z"], ["sz"]),
    ]
    m = model(nodes, [vi("w", F, [6]), vi("z", F, [4])],
              [vi("asw", F, [6]), vi("acw", F, [6]), vi("sz", F, [4])],
              [numpy_helper.from_array(np.array(1.0, np.float32), "one")])
    onnx.save_model(m, out)
    w = np.array([-1e20, 1e20, 2e4, -9999.0, -3.0, 0.5], dtype=np.float32)
    z = np.array([1.0, np.nan, -np.inf, 0.0], dtype=np.float32)
    w64 = w.astype(np.float64)
    np.savez(out + ".npz", in0=w, in1=z,
             out0=np.arcsinh(w64).astype(np.float32),
             out1=np.arccosh(np.abs(w64) + 1).astype(np.float32),
             out2=np.sign(z))


def reduce_opset18(out):
    """Opset 18 reductions with `axes` as an input: ReduceMean over [-1]
    (keepdims), ReduceMax over [0, 2] (no keepdims), ReduceL2 and
    ReduceSumSquare with empty axes and noop_with_empty_axes (no axis
    reduced: |x| and x * x, as the ONNX reference computes since
    onnx/onnx#7394). Writes OUT and OUT.npz."""
    nodes = [
        helper.make_node("ReduceMean", ["x", "ax_last"], ["m"], keepdims=1),
        helper.make_node("ReduceMax", ["x", "ax_02"], ["mx"], keepdims=0),
        helper.make_node("ReduceL2", ["x", "ax_none"], ["l2"],
                         noop_with_empty_axes=1),
        helper.make_node("ReduceSumSquare", ["x", "ax_none"], ["sq"],
                         noop_with_empty_axes=1),
    ]
    m = model(nodes, [vi("x", F, [2, 3, 4])],
              [vi("m", F, [2, 3, 1]), vi("mx", F, [3]), vi("l2", F, [2, 3, 4]),
               vi("sq", F, [2, 3, 4])],
              [ints("ax_last", [-1]), ints("ax_02", [0, 2]),
               numpy_helper.from_array(np.zeros(0, np.int64), "ax_none")],
              opset=18)
    onnx.save_model(m, out)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.savez(out + ".npz", in0=x, out0=x.mean(-1, keepdims=True),
             out1=x.max(axis=(0, 2)), out2=np.abs(x), out3=x * x)


def if_const(out):
    """If nodes whose conditions are known at import: one from a shape
    comparison (`Shape(x)[1] == 3`, as torch exports squeeze of a dynamic
    axis) taking its then branch (Relu of x, reading the outer x, and a
    nested If on a constant false taking its else branch: x * 2), one on a
    constant false taking its else branch (Neg). Writes OUT and OUT.npz."""
    inner = helper.make_node(
        "If", ["false"], ["t2"], name="inner",
        then_branch=helper.make_graph(
            [helper.make_node("Neg", ["x"], ["n0"], name="n0")], "t_then", [],
            [vi("n0", F, [2, 3])]),
        else_branch=helper.make_graph(
            [helper.make_node("Mul", ["x", "two"], ["m0"], name="m0")],
            "t_else", [], [vi("m0", F, [2, 3])]))
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"), inner,
         helper.make_node("Add", ["r", "t2"], ["t_out"], name="t_add")],
        "then", [], [vi("t_out", F, [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["e_out"], name="sig")],
        "else", [], [vi("e_out", F, [2, 3])])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "one"], ["d1"], name="dim1", axis=0),
        helper.make_node("Equal", ["d1", "three"], ["c"], name="is3"),
        helper.make_node("If", ["c"], ["y0"], name="if_shape",
                         then_branch=then_g, else_branch=else_g),
        helper.make_node("If", ["false"], ["y1"], name="if_false",
                         then_branch=helper.make_graph(
                             [helper.make_node("Relu", ["y0"], ["a"], name="a")],
                             "t", [], [vi("a", F, [2, 3])]),
                         else_branch=helper.make_graph(
                             [helper.make_node("Neg", ["y0"], ["b"], name="b")],
                             "e", [], [vi("b", F, [2, 3])])),
    ]
    m = model(nodes, [vi("x", F, [2, 3])], [vi("y1", F, [2, 3])],
              [ints("one", 1), ints("three", 3),
               numpy_helper.from_array(np.array(False), "false"),
               numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    onnx.save_model(m, out)
    x = np.array([[-1.5, 0.5, 2.0], [3.0, -0.25, 0.0]], dtype=np.float32)
    y = -(np.maximum(x, 0) + x * 2)
    np.savez(out + ".npz", in0=x, out0=y.astype(np.float32))


def if_runtime():
    """If on a condition computed from a graph input at run time."""
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Less", ["s", "zero"], ["c"], name="neg_sum"),
        helper.make_node("If", ["c"], ["y"], name="branch",
                         then_branch=helper.make_graph(
                             [helper.make_node("Neg", ["x"], ["a"], name="a")],
                             "t", [], [vi("a", F, [4])]),
                         else_branch=helper.make_graph(
                             [helper.make_node("Relu", ["x"], ["b"], name="b")],
                             "e", [], [vi("b", F, [4])])),
    ]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])],
                 [numpy_helper.from_array(np.array(0, np.float32), "zero")])


def if_bad_const():
    """An If whose taken branch holds a Constant declaring 100 values and
    holding 1: refused up front, naming the Constant node."""
    bad = TensorProto()
    bad.data_type = F
    bad.dims.extend([100])
    bad.float_data.extend([1.0])
    branch = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], name="bad_k", value=bad),
         helper.make_node("Add", ["x", "k"], ["r"], name="r")],
        "then", [], [vi("r", F, [4])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["n"], name="n")],
                              "else", [], [vi("n", F, [4])])
    nodes = [helper.make_node("If", ["yes"], ["y"], name="branch",
                              then_branch=branch, else_branch=other)]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])],
                 [numpy_helper.from_array(np.array(True), "yes")])


def integer_arith(out):
    """Shape and position-id math on runtime integer tensors and f64: int64
    pos [1, 6] + offset, - 1, * 3, / 2 (Div truncates toward zero), Mod 5
    (fmod=0: the sign of the divisor) and Mod -4 (fmod=1: of the dividend),
    Neg and Abs; int32 Max/Min of runtime a, b [2, 3] with broadcasting;
    f64: Cast of a float x [4] to DOUBLE, Div and Mod (fmod=1) by a runtime
    double d, Max, Cast back to FLOAT. Writes OUT and OUT.npz."""
    i64 = lambda v: numpy_helper.from_array(np.array(v, dtype=np.int64))
    nodes = [
        helper.make_node("Add", ["pos", "offset"], ["p1"]),
        helper.make_node("Sub", ["p1", "one"], ["p2"]),
        helper.make_node("Mul", ["p2", "three"], ["p3"]),
        helper.make_node("Div", ["p3", "two"], ["p4"]),
        helper.make_node("Mod", ["p4", "five"], ["m5"]),
        helper.make_node("Mod", ["p4", "minus4"], ["m4"], fmod=1),
        helper.make_node("Neg", ["m4"], ["nm4"]),
        helper.make_node("Abs", ["p4"], ["ap4"]),
        helper.make_node("Concat", ["m5", "nm4", "ap4"], ["ids"], axis=0),
        helper.make_node("Max", ["a", "b"], ["mx"]),
        helper.make_node("Min", ["a", "b", "mx"], ["mn"]),
        helper.make_node("Concat", ["mx", "mn"], ["ab"], axis=0),
        helper.make_node("Cast", ["x"], ["xd"], to=TensorProto.DOUBLE),
        helper.make_node("Div", ["xd", "d"], ["q"]),
        helper.make_node("Mod", ["xd", "d"], ["r"], fmod=1),
        helper.make_node("Max", ["q", "r"], ["qr"]),
        helper.make_node("Cast", ["qr"], ["qf"], to=F),
        # Position ids from an attention mask: CumSum(mask, 1) - 1; and an
        # exclusive reverse CumSum of the doubles.
        helper.make_node("CumSum", ["mask", "axis1"], ["cs"]),
        helper.make_node("Sub", ["cs", "one"], ["posids"]),
        helper.make_node("CumSum", ["d", "axis0"], ["csd"], exclusive=1, reverse=1),
    ]
    inits = []
    for name, v in [("one", 1), ("three", 3), ("two", 2), ("five", 5),
                    ("minus4", -4), ("axis1", 1), ("axis0", 0)]:
        t = i64(v)
        t.name = name
        inits.append(t)
    m = model(nodes,
              [vi("pos", I64, [1, 6]), vi("offset", I64, [1]),
               vi("a", TensorProto.INT32, [2, 3]), vi("b", TensorProto.INT32, [3]),
               vi("x", F, [4]), vi("d", TensorProto.DOUBLE, [4]),
               vi("mask", I64, [2, 7])],
              [vi("ids", I64, [3, 6]), vi("ab", TensorProto.INT32, [4, 3]),
               vi("qr", TensorProto.DOUBLE, [4]), vi("qf", F, [4]),
               vi("posids", I64, [2, 7]), vi("csd", TensorProto.DOUBLE, [4])],
              inits)
    onnx.save_model(m, out)
    pos = np.array([[0, 1, 2, 3, 4, 5]], dtype=np.int64)
    offset = np.array([-4], dtype=np.int64)
    a = np.array([[-7, 0, 9], [3, -2, 5]], dtype=np.int32)
    b = np.array([2, -1, 6], dtype=np.int32)
    x = np.array([7.5, -7.5, 1.0, 1e-3], dtype=np.float32)
    d = np.array([2.0, 2.0, 3.0, -7.0], dtype=np.float64)
    # The expected values in Python integers: C-style truncating division,
    # Python's % (sign of the divisor) and math.fmod (sign of the dividend).
    p3 = [(int(v) - 4 - 1) * 3 for v in pos[0]]
    p4 = [int(v / 2) for v in p3]  # |v| < 2^53: exact; truncates
    m5 = [v % 5 for v in p4]
    m4 = [int(math.fmod(v, -4)) for v in p4]
    ids = np.array([m5, [-v for v in m4], [abs(v) for v in p4]], dtype=np.int64)
    mx = np.maximum(a, b)
    ab = np.concatenate([mx, np.minimum(np.minimum(a, b), mx)], axis=0)
    xd = x.astype(np.float64)
    qr = np.maximum(xd / d, np.fmod(xd, d))
    mask = np.array([[0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 1]], dtype=np.int64)
    posids = np.cumsum(mask, axis=1) - 1
    csd = np.array([d[i + 1:].sum() for i in range(4)], dtype=np.float64)
    np.savez(out + ".npz", pos=pos, offset=offset, a=a, b=b, x=x, d=d,
             mask=mask, ids=ids, ab=ab, qr=qr, qf=qr.astype(np.float32),
             posids=posids, csd=csd)


def _conv_ref(x, w, b, strides, pads, dilations, group):
    """Direct convolution in float64 (N-D, NCHW), the definition of ONNX Conv."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    sp = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[d], pads[sp + d]) for d in range(sp)])
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    k = w.shape[2:]
    out = [(x.shape[2 + d] - ((k[d] - 1) * dilations[d] + 1)) // strides[d] + 1
           for d in range(sp)]
    y = np.zeros([n, m] + out)
    mg = m // group
    for o in np.ndindex(*out):
        for kk in np.ndindex(*k):
            idx = tuple(o[d] * strides[d] + kk[d] * dilations[d] for d in range(sp))
            patch = x[(slice(None), slice(None)) + idx]  # [N, C]
            for g in range(group):
                wg = w[g * mg:(g + 1) * mg][(slice(None), slice(None)) + kk]
                y[(slice(None), slice(g * mg, (g + 1) * mg)) + o] += (
                    patch[:, g * cg:(g + 1) * cg] @ wg.T)
    return y + b.reshape([1, m] + [1] * sp)


def nn_ops(out):
    """Conv 1-D (strides 2, asymmetric pads, dilation 2, 2 groups, bias),
    Conv 2-D patch embedding (stride == kernel 2x2, no bias) and 2-D 3x3
    with pads 1; GlobalAveragePool, GlobalMaxPool, BatchNormalization,
    InstanceNormalization, MeanVarianceNormalization; Pad constant (with a
    negative pad), edge and reflect; DepthToSpace (DCR, CRD), SpaceToDepth;
    EyeLike (k=1, int64); Selu, Softsign, Softplus, Tan. Writes OUT and
    OUT.npz (expected values from direct float64 definitions)."""
    r = np.random.default_rng(7)
    f = lambda *s: r.standard_normal(s).astype(np.float32)
    a = f(2, 4, 9)            # 1-D conv input
    w1 = f(6, 2, 3)
    b1 = f(6)
    img = f(1, 3, 6, 6)
    w2 = f(5, 3, 2, 2)
    w3 = f(4, 3, 3, 3)
    scale, bias, mean = f(3), f(3), f(3)
    var = np.abs(f(3)) + 0.5
    dts = f(1, 8, 2, 3)
    t = np.array([[-2.0, -0.5, 0.0, 0.3, 1.5, 25.0]], dtype=np.float32)
    F32 = lambda n, s: vi(n, F, s)
    nodes = [
        helper.make_node("Conv", ["a", "w1", "b1"], ["c1"], strides=[2],
                         pads=[1, 2], dilations=[2], group=2),
        helper.make_node("Conv", ["img", "w2"], ["c2"], strides=[2, 2],
                         kernel_shape=[2, 2]),
        helper.make_node("Conv", ["img", "w3"], ["c3"], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["img"], ["gap"]),
        helper.make_node("GlobalMaxPool", ["img"], ["gmp"]),
        helper.make_node("BatchNormalization", ["img", "scale", "bias", "mean", "var"],
                         ["bn"], epsilon=1e-3),
        helper.make_node("InstanceNormalization", ["img", "scale", "bias"], ["inorm"]),
        helper.make_node("MeanVarianceNormalization", ["img"], ["mvn"]),
        helper.make_node("Pad", ["img", "pads_c", "pad_value"], ["pc"]),
        helper.make_node("Pad", ["img", "pads_e"], ["pe"], mode="edge"),
        helper.make_node("Pad", ["img", "pads_e"], ["pr"], mode="reflect"),
        helper.make_node("DepthToSpace", ["dts"], ["d2s"], blocksize=2),
        helper.make_node("DepthToSpace", ["dts"], ["d2s_crd"], blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["img"], ["s2d"], blocksize=2),
        helper.make_node("Reshape", ["w1", "shape_2d"], ["w1_2d"]),
        helper.make_node("EyeLike", ["w1_2d"], ["eye"], k=1, dtype=TensorProto.INT64),
        helper.make_node("Selu", ["t"], ["selu"]),
        helper.make_node("Softsign", ["t"], ["softsign"]),
        helper.make_node("Softplus", ["t"], ["softplus"]),
        helper.make_node("Tan", ["t"], ["tan"]),
    ]
    inits = [numpy_helper.from_array(np.array([0, 0, 1, -1, 0, 0, 2, 0], np.int64), "pads_c"),
             numpy_helper.from_array(np.array(1.5, np.float32), "pad_value"),
             numpy_helper.from_array(np.array([0, 0, 2, 1, 0, 0, 1, 2], np.int64), "pads_e"),
             numpy_helper.from_array(np.array([6, 6], np.int64), "shape_2d")]
    outs = ["c1", "c2", "c3", "gap", "gmp", "bn", "inorm", "mvn", "pc", "pe",
            "pr", "d2s", "d2s_crd", "s2d", "eye", "selu", "softsign",
            "softplus", "tan"]
    OUT_SHAPES = [[2, 6, 4], [1, 5, 3, 3], [1, 4, 6, 6], [1, 3, 1, 1],
                  [1, 3, 1, 1]] + [[1, 3, 6, 6]] * 3 + [
                  [1, 3, 9, 5], [1, 3, 9, 9], [1, 3, 9, 9], [1, 2, 4, 6],
                  [1, 2, 4, 6], [1, 12, 3, 3], [6, 6]] + [[1, 6]] * 4
    m = model(nodes,
              [F32("a", [2, 4, 9]), F32("w1", [6, 2, 3]), F32("b1", [6]),
               F32("img", [1, 3, 6, 6]), F32("w2", [5, 3, 2, 2]),
               F32("w3", [4, 3, 3, 3]), F32("scale", [3]), F32("bias", [3]),
               F32("mean", [3]), F32("var", [3]), F32("dts", [1, 8, 2, 3]),
               F32("t", [1, 6])],
              [vi(o, I64 if o == "eye" else F, list(shape))
               for o, shape in zip(outs, OUT_SHAPES)], inits)
    onnx.save_model(m, out)
    x64 = img.astype(np.float64)
    c = lambda v: v.reshape(1, 3, 1, 1).astype(np.float64)
    mu = x64.mean(axis=(2, 3), keepdims=True)
    sd = np.sqrt(((x64 - mu) ** 2).mean(axis=(2, 3), keepdims=True) + 1e-5)
    mu3 = x64.mean(axis=(0, 2, 3), keepdims=True)
    sd3 = np.sqrt(((x64 - mu3) ** 2).mean(axis=(0, 2, 3), keepdims=True))
    pc = np.pad(x64, [(0, 0), (0, 0), (1, 2), (0, 0)], constant_values=1.5)[:, :, :, 1:]
    d = dts.astype(np.float64)
    d2s = d.reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    d2s_crd = d.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    s2d = x64.reshape(1, 3, 3, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 12, 3, 3)
    t64 = t.astype(np.float64)
    alpha, gamma = 1.67326319217681884765625, 1.05070102214813232421875
    expected = {
        "c1": _conv_ref(a, w1, b1, [2], [1, 2], [2], 2),
        "c2": _conv_ref(img, w2, np.zeros(5), [2, 2], [0, 0, 0, 0], [1, 1], 1),
        "c3": _conv_ref(img, w3, np.zeros(4), [1, 1], [1, 1, 1, 1], [1, 1], 1),
        "gap": x64.mean(axis=(2, 3), keepdims=True),
        "gmp": x64.max(axis=(2, 3), keepdims=True),
        "bn": (x64 - c(mean)) / np.sqrt(c(var) + 1e-3) * c(scale) + c(bias),
        "inorm": (x64 - mu) / sd * c(scale) + c(bias),
        "mvn": (x64 - mu3) / (sd3 + 1e-9),
        "pc": pc,
        "pe": np.pad(x64, [(0, 0), (0, 0), (2, 1), (1, 2)], mode="edge"),
        "pr": np.pad(x64, [(0, 0), (0, 0), (2, 1), (1, 2)], mode="reflect"),
        "d2s": d2s, "d2s_crd": d2s_crd, "s2d": s2d,
        "eye": np.eye(6, 6, k=1, dtype=np.int64),
        "selu": gamma * np.where(t64 > 0, t64, alpha * np.expm1(t64)),
        "softsign": t64 / (1 + np.abs(t64)),
        "softplus": np.log1p(np.exp(t64)),
        "tan": np.tan(t64),
    }
    np.savez(out + ".npz", a=a, w1=w1, b1=b1, img=img, w2=w2, w3=w3,
             scale=scale, bias=bias, mean=mean, var=var, dts=dts, t=t,
             **{"out_" + k: v for k, v in expected.items()})


def losses(out):
    """NegativeLogLikelihoodLoss (mean with weights and ignore_index; none
    on [N, C, D]) and SoftmaxCrossEntropyLoss (sum, with its log_prob
    output); Pow of a float base by a runtime int64 exponent. Writes OUT and
    OUT.npz (expected values in float64)."""
    r = np.random.default_rng(11)
    x = r.standard_normal((3, 5)).astype(np.float32)
    t = np.array([1, 4, 2], dtype=np.int64)  # 2 is ignored
    w = np.abs(r.standard_normal(5)).astype(np.float32) + 0.1
    x3 = r.standard_normal((2, 4, 3)).astype(np.float32)
    t3 = np.array([[0, 3, 1], [2, 2, 0]], dtype=np.int32)
    e = np.array([0, 1, 2, 3], dtype=np.int64)
    nodes = [
        helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["nll"],
                         reduction="mean", ignore_index=2),
        helper.make_node("NegativeLogLikelihoodLoss", ["x3", "t3"], ["nll3"],
                         reduction="none"),
        helper.make_node("SoftmaxCrossEntropyLoss", ["x3", "t3"], ["sce", "logp"],
                         reduction="sum"),
        helper.make_node("Pow", ["base", "e"], ["pw"]),
    ]
    m = model(nodes,
              [vi("x", F, [3, 5]), vi("t", I64, [3]), vi("w", F, [5]),
               vi("x3", F, [2, 4, 3]), vi("t3", TensorProto.INT32, [2, 3]),
               vi("base", F, [4]), vi("e", I64, [4])],
              [vi("nll", F, []), vi("nll3", F, [2, 3]), vi("sce", F, []),
               vi("logp", F, [2, 4, 3]), vi("pw", F, [4])])
    onnx.save_model(m, out)
    x64, w64, x364 = x.astype(np.float64), w.astype(np.float64), x3.astype(np.float64)
    keep = t != 2
    wt = np.where(keep, w64[np.where(keep, t, 0)], 0.0)
    picked = x64[np.arange(3), np.where(keep, t, 0)]
    nll = (-picked * wt).sum() / wt.sum()
    nll3 = -np.take_along_axis(x364, t3[:, None, :].astype(np.int64), axis=1)[:, 0, :]
    logp = x364 - x364.max(axis=1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
    sce = -np.take_along_axis(logp, t3[:, None, :].astype(np.int64), axis=1).sum()
    base = np.array([1.5, -2.0, 0.5, 3.0], dtype=np.float32)
    np.savez(out + ".npz", x=x, t=t, w=w, x3=x3, t3=t3, base=base, e=e,
             out_nll=nll, out_nll3=nll3, out_sce=sce, out_logp=logp,
             out_pw=base.astype(np.float64) ** e)


def runtime_nonzero():
    """NonZero of a runtime tensor: a shape that depends on the values."""
    nodes = [helper.make_node("NonZero", ["x"], ["y"], name="nz")]
    return model(nodes, [vi("x", F, [4])], [vi("y", I64, [1, None])])


def runtime_where():
    nodes = [
        helper.make_node("Less", ["x", "zero"], ["c"], name="is_neg"),
        helper.make_node("Where", ["c", "zero", "x"], ["y"], name="clip"),
    ]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])],
                 [numpy_helper.from_array(np.array(0, np.float32), "zero")])


def const_cond_where():
    """Where with a constant condition but a runtime branch."""
    nodes = [helper.make_node("Where", ["mask", "x", "neg"], ["y"], name="mask_fill")]
    return model(nodes, [vi("x", F, [4, 4])], [vi("y", F, [4, 4])],
                 [numpy_helper.from_array(np.tril(np.ones((4, 4), bool)), "mask"),
                  numpy_helper.from_array(np.array(-1e4, np.float32), "neg")])


def dequantize():
    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dq")]
    return model(nodes, [vi("q", TensorProto.INT8, [4])], [vi("y", F, [4])],
                 [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                  numpy_helper.from_array(np.array(0, np.int8), "z")], opset=13)


def gather_axis1_runtime():
    nodes = [helper.make_node("Gather", ["x", "i"], ["y"], name="g", axis=1)]
    return model(nodes, [vi("x", F, [4, 5]), vi("i", I64, [3])],
                 [vi("y", F, [4, 3])])


def gather_float_indices():
    nodes = [helper.make_node("Gather", ["x", "i"], ["y"], name="g", axis=1)]
    return model(nodes, [vi("x", F, [4, 5]), vi("i", F, [3])],
                 [vi("y", F, [4, 3])])


def and_float():
    """And on float tensors: invalid ONNX (bool only), rejected by name."""
    nodes = [helper.make_node("And", ["x", "x"], ["y"], name="and")]
    return model(nodes, [vi("x", F, [4])], [vi("y", TensorProto.BOOL, [4])])


def runtime_logic():
    """Comparisons, logical ops, Where, ArgMax and LogSoftmax on runtime data:
    a masked log-softmax over the positions where lo <= x < hi, and the
    arg-max of the result."""
    nodes = [
        helper.make_node("GreaterOrEqual", ["x", "lo"], ["ge"], name="ge"),
        helper.make_node("Less", ["x", "hi"], ["lt"], name="lt"),
        helper.make_node("And", ["ge", "lt"], ["inside"], name="and"),
        helper.make_node("Not", ["inside"], ["outside"], name="not"),
        helper.make_node("Where", ["outside", "neg", "x"], ["masked"], name="where"),
        helper.make_node("LogSoftmax", ["masked"], ["logp"], name="logsm", axis=-1),
        helper.make_node("ArgMax", ["logp"], ["best"], name="argmax", axis=-1,
                         keepdims=0),
        helper.make_node("Equal", ["best", "target"], ["hit"], name="eq"),
    ]
    return model(nodes, [vi("x", F, [2, 6]), vi("target", I64, [2])],
                 [vi("logp", F, [2, 6]), vi("best", I64, [2]),
                  vi("hit", TensorProto.BOOL, [2])],
                 [numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
                  numpy_helper.from_array(np.array(0.5, np.float32), "hi"),
                  numpy_helper.from_array(np.array(-1e4, np.float32), "neg")])


def double_input():
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    return model(nodes, [vi("x", TensorProto.DOUBLE, [4])],
                 [vi("y", TensorProto.DOUBLE, [4])])


def old_opset():
    """Opset 6: older than the version converter's range (7 to 10)."""
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])], opset=6)


def upsample_opset8():
    """Upsample (opset 7 to 9), which llmc does not import."""
    nodes = [helper.make_node("Upsample", ["x"], ["y"], name="up",
                              scales=[1.0, 2.0])]
    m = model(nodes, [vi("x", F, [2, 4])], [vi("y", F, [2, 8])], opset=8)
    m.ir_version = 4
    return m


def old_opset_undefined_output():
    """Opset 7, a graph output nothing defines (SEGV'd libonnx's IR import in
    the version converter, found by onnx-import-fuzzer)."""
    nodes = [helper.make_node("Or", ["x", "y"], ["o1"])]
    B = TensorProto.BOOL
    m = model(nodes, [vi("x", B, [4]), vi("y", B, [4])], [vi("or", B, [4])],
              opset=7)
    m.ir_version = 3
    return m


def old_opset_graph_attribute():
    """Opset 9, a Relu carrying a graph attribute (the converter would
    import the subgraph)."""
    body = helper.make_graph([helper.make_node("Relu", ["a"], ["b"])], "body",
                             [vi("a", F, [4])], [vi("b", F, [4])])
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    node.attribute.append(helper.make_attribute("body", body))
    m = model([node], [vi("x", F, [4])], [vi("y", F, [4])], opset=9)
    m.ir_version = 5
    return m


def old_opset_huge_dim():
    """Opset 9, an input dimension of 2^32 + 5 (libonnx's IR would keep 5)."""
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    m = model(nodes, [vi("x", F, [2**32 + 5, 1])], [vi("y", F, None)], opset=9)
    m.ir_version = 5
    return m


def two_default_opsets():
    """The default domain imported twice, at opsets 13 and 9."""
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [vi("x", F, [4])], [vi("y", F, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("ai.onnx", 9)])
    m.ir_version = 8
    return m


def old_opset_mlp(opset, out):
    """An MLP written with the opset-7-to-10 forms of its ops, which libonnx's
    version converter rewrites for opset 11: Slice with starts/ends/axes
    attributes (up to opset 9), Clip with min/max attributes, Unsqueeze/Squeeze with axes
    attributes, Dropout with a ratio attribute (opset 7+), Softmax on a 2-D
    input; the first weight is a Constant node, not an initializer. Writes
    OUT and OUT.npz (input and numpy's outputs, for run_llm_ir.py)."""
    w1 = rng.standard_normal((6, 16)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = rng.standard_normal((16, 5)).astype(np.float32)
    # Slice takes its bounds as attributes up to opset 9, as inputs from 10.
    slice_inits = []
    if opset < 10:
        slice_node = helper.make_node("Slice", ["x"], ["xs"], name="slice",
                                      starts=[1], ends=[7], axes=[1])
    else:
        slice_node = helper.make_node("Slice", ["x", "starts", "ends", "axes"],
                                      ["xs"], name="slice")
        slice_inits = [ints("starts", [1]), ints("ends", [7]), ints("axes", [1])]
    nodes = [
        slice_node,
        helper.make_node("Constant", [], ["w1"], name="w1_const",
                         value=numpy_helper.from_array(w1, "w1")),
        helper.make_node("MatMul", ["xs", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="fc1_bias"),
        helper.make_node("Clip", ["hb"], ["hc"], name="clip", min=-1.5, max=2.0),
        helper.make_node("Dropout", ["hc"], ["hd"], name="dropout", ratio=0.3),
        helper.make_node("Unsqueeze", ["hd"], ["hu"], name="unsq", axes=[0]),
        helper.make_node("Squeeze", ["hu"], ["hq"], name="sq", axes=[0]),
        helper.make_node("MatMul", ["hq", "w2"], ["logits"], name="fc2"),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    m = model(nodes, [vi("x", F, [3, 8])], [vi("y", F, [3, 5])],
              [numpy_helper.from_array(b1, "b1"),
               numpy_helper.from_array(w2, "w2")] + slice_inits, opset=opset)
    m.ir_version = 4 if opset < 9 else 5
    onnx.save_model(m, out)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    h = np.clip(x[:, 1:7].astype(np.float64) @ w1 + b1, -1.5, 2.0)
    logits = h @ w2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.savez(out + ".npz", in0=x, out0=(e / e.sum(axis=1, keepdims=True)).astype(np.float32))


def matmul_bad():
    """Contraction sizes that differ: a clear error, not a crash."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 5])],
                 [init("w", [4, 5])])


def gemm_runtime_c():
    """Gemm with a runtime C and alpha != beta (distinct scalar constants)."""
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm",
                              alpha=0.25, beta=0.35, transA=1)]
    return model(nodes, [vi("a", F, [4, 3]), vi("b", F, [4, 5]), vi("c", F, [1, 5])],
                 [vi("y", F, [3, 5])])


def training_dropout():
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"],
                              name="drop")]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])],
                 [numpy_helper.from_array(np.array(0.5, np.float32), "ratio"),
                  numpy_helper.from_array(np.array(True), "training")])


def bad_output_shape():
    """The model declares a wrong static output shape."""
    nodes = [helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[1, 0])]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


def undefined_input():
    """A node reads a value nothing defines, and its output redefines the
    graph input (onnx-import-fuzzer: libonnx's shape inference dereferenced
    null on it)."""
    nodes = [helper.make_node("Shape", ["x"], ["y"], end=10)]
    return model(nodes, [vi("y", F, [3, 4, 5])], [vi("y", I64, [3])])


def redefined_value():
    """Two nodes define the same value."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r1"),
             helper.make_node("Neg", ["x"], ["y"], name="r2")]
    return model(nodes, [vi("x", F, [4])], [vi("y", F, [4])])


def wrong_arity():
    """Pow with one input (onnx-import-fuzzer: the importer indexed a
    missing input/output)."""
    nodes = [helper.make_node("Pow", ["x"], ["y"], name="pow")]
    return model(nodes, [vi("x", F, [3])], [vi("y", F, [3])])


def no_output():
    """Relu with no output."""
    nodes = [helper.make_node("Relu", ["x"], [], name="relu")]
    return model(nodes, [vi("x", F, [3])], [vi("x", F, [3])])


def split_scalar():
    """Split of a rank-0 tensor: no axis exists (onnx-import-fuzzer: the
    importer indexed the empty shape)."""
    nodes = [helper.make_node("Split", ["x"], ["y"], name="split")]
    return model(nodes, [vi("x", I64, [])], [vi("y", I64, [])])


def qkv():
    """Three MatMuls of one input (an attention's q, k and v projections),
    which llm-fuse merges into one matmul."""
    nodes = [helper.make_node("MatMul", ["x", "w" + n], [n], name=n)
             for n in "qkv"]
    return model(nodes, [vi("x", F, [4, 32])],
                 [vi(n, F, [4, 16]) for n in "qkv"],
                 [init("w" + n, [32, 16]) for n in "qkv"])


def matmul_vec():
    """MatMul with 1-D operands (numpy semantics)."""
    nodes = [helper.make_node("MatMul", ["v", "w"], ["y"], name="vec_mat"),
             helper.make_node("MatMul", ["w2", "y"], ["z"], name="mat_vec")]
    return model(nodes, [vi("v", F, [3])], [vi("z", F, [2])],
                 [init("w", [3, 5]), init("w2", [2, 5])])


BUILDERS = {f.__name__: f for f in [
    mlp, upsample_opset8, runtime_nonzero, nonzero_const, if_runtime, if_bad_const,
    old_opset_undefined_output, old_opset_graph_attribute, old_opset_huge_dim,
    two_default_opsets, elementwise, shape_plumbing, norms, data_movement, slice_runtime,
    slice_negative,
    embedding, unsupported_op, control_names, runtime_where, const_cond_where, dequantize,
    gather_axis1_runtime, double_input, old_opset, matmul_bad, matmul_vec,
    bad_output_shape, gemm_runtime_c, qkv, training_dropout, gather_float_indices,
    and_float, runtime_logic, undefined_input, redefined_value, wrong_arity,
    no_output, split_scalar]}


def external(path):
    """mlp() with its weights in an external data file next to the model."""
    from onnx.external_data_helper import convert_model_to_external_data
    import os
    m = mlp()
    convert_model_to_external_data(m, all_tensors_to_one_file=True,
                                   location=os.path.basename(path) + ".data",
                                   size_threshold=0)
    onnx.save_model(m, path)


def main():
    name, out = sys.argv[1], sys.argv[2]
    if name == "external":
        external(out)
        return
    if name == "math_exprs":
        math_exprs(out)
        return
    if name == "misc_ops":
        misc_ops(out)
        return
    if name == "one_hot":
        one_hot(out)
        return
    if name == "math_extremes":
        math_extremes(out)
        return
    if name == "reduce_opset18":
        reduce_opset18(out)
        return
    if name == "if_const":
        if_const(out)
        return
    if name == "losses":
        losses(out)
        return
    if name == "nn_ops":
        nn_ops(out)
        return
    if name == "integer_arith":
        integer_arith(out)
        return
    if name == "activations":
        activations(out)
        return
    if name == "gather_elements":
        gather_elements(out)
        return
    if name.startswith("gather_const"):  # gather_constN: N x N
        gather_const(int(name[len("gather_const"):]), out)
        return
    if name.startswith("expand_const"):  # expand_constN: N x N
        expand_const(int(name[len("expand_const"):]), out)
        return
    if name.startswith("old_opset_mlp"):  # old_opset_mlp7 .. old_opset_mlp10
        old_opset_mlp(int(name[len("old_opset_mlp"):]), out)
        return
    m = BUILDERS[name]()
    onnx.save_model(m, out)


if __name__ == "__main__":
    main()
