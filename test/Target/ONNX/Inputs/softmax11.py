#!/usr/bin/env python3
"""Writes OUT.onnx at OPSET (7 to 12): y = Softmax(x) + LogSoftmax(x), both
at axis 1 of x [2, 3, 4], and OUT.onnx.npz with x and numpy's result under
the Softmax-11 definition (x flattened to [2, 12] at the axis).

Usage: softmax11.py OUT.onnx OPSET
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper

out, opset = sys.argv[1], int(sys.argv[2])
nodes = [helper.make_node("Softmax", ["x"], ["s"], name="sm", axis=1),
         helper.make_node("LogSoftmax", ["x"], ["l"], name="lsm", axis=1),
         helper.make_node("Add", ["s", "l"], ["y"], name="add")]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [2, 3, 4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
m.ir_version = 5
onnx.save(m, out)
x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
f = x.reshape(2, 12).astype(np.float64)
e = np.exp(f - f.max(axis=1, keepdims=True))
soft = e / e.sum(axis=1, keepdims=True)
y = (soft + np.log(soft)).reshape(2, 3, 4)
np.savez(out + ".npz", in0=x, out0=y.astype(np.float32))
