#!/usr/bin/env python3
# ===- onnx_max.py - ONNX QDQ around Max/ReduceMax vs numpy -------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""An ONNX graph in the form torch's fake-quant export takes around
torch.maximum and torch.amax (opset 13, uint8 activations):
QuantizeLinear -> DequantizeLinear -> Max / ReduceMax -> QuantizeLinear ->
DequantizeLinear. llm-fold-quant turns the selects into integer ones; the
outputs must equal numpy's evaluation of the ONNX definitions in graph
order bit-exactly (as f32).

  onnx_max.py gen DIR      writes DIR/max.onnx, DIR/x.npy, DIR/y.npy
  onnx_max.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

SHAPE = (4, 64)
S, Z = 0.05, 128


def inputs():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(SHAPE) * 3).astype(np.float32)
    y = (rng.standard_normal(SHAPE) * 3).astype(np.float32)
    x[0, :4] = [100.0, -100.0, 0.025, 0.075]   # saturation and ties
    return x, y


def gen(d):
    import onnx
    from onnx import TensorProto, helper
    x, y = inputs()
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "y.npy"), y)
    init = [helper.make_tensor("s", TensorProto.FLOAT, [], [S]),
            helper.make_tensor("z", TensorProto.UINT8, [], [Z])]

    def qdq(src, dst):
        return [helper.make_node("QuantizeLinear", [src, "s", "z"], [dst + "_q"]),
                helper.make_node("DequantizeLinear", [dst + "_q", "s", "z"], [dst])]

    nodes = (qdq("x", "xd") + qdq("y", "yd") +
             [helper.make_node("Max", ["xd", "yd"], ["m"])] + qdq("m", "max") +
             [helper.make_node("ReduceMax", ["xd"], ["r"], axes=[1],
                               keepdims=0)] + qdq("r", "reduce_max"))
    graph = helper.make_graph(
        nodes, "qdq_max",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("max", TensorProto.FLOAT, SHAPE),
         helper.make_tensor_value_info("reduce_max", TensorProto.FLOAT,
                                       SHAPE[:1])], init)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "max.onnx"))


def check(out):
    x, y = inputs()

    def qdq(v):
        return R.dequantize_linear(R.quantize_linear(v, S, Z, "u8"), S, Z)

    xd, yd = qdq(x), qdq(y)
    refs = {"max": qdq(np.maximum(xd, yd)), "reduce_max": qdq(xd.max(axis=1))}
    ok = True
    for name, exp in refs.items():
        got = np.load(os.path.join(out, name + ".npy"))
        assert np.unique(exp).size > 1, name
        same = got.dtype == np.float32 and np.array_equal(got, exp)
        print(f"{name}: {'exact' if same else 'DIFFERS'}")
        ok &= same
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[3]) else 1)
