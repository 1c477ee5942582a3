# An ONNX model built with onnx.helper (MatMul + Add + Relu + Softmax, and a
# second output Tanh, with a symbolic batch dimension): llmc.import_onnx
# gives llm-dialect text, llmc.compile(path) and llmc.compile(text) run it and
# match numpy (float64 reference, rtol 1e-5 / atol 1e-6); inputs/outputs keep
# the graph's names.
# REQUIRES: onnx-python
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t | FileCheck %s

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import llmc

tmp = sys.argv[1]
rng = np.random.default_rng(1)
w = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["h"], name="matmul"),
     helper.make_node("Add", ["h", "B"], ["hb"], name="add"),
     helper.make_node("Relu", ["hb"], ["r"], name="relu"),
     helper.make_node("Softmax", ["r"], ["Y"], name="softmax", axis=-1),
     helper.make_node("Tanh", ["X"], ["Z"], name="tanh")],
    "tiny",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 3]),
     helper.make_tensor_value_info("Z", TensorProto.FLOAT, ["batch", 4])],
    [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
path = os.path.join(tmp, "tiny.onnx")
onnx.save(model, path)

x = rng.standard_normal((2, 4)).astype(np.float32)
h = np.maximum(x.astype(np.float64) @ w + b, 0)
e = np.exp(h - h.max(-1, keepdims=True))
ref_y = (e / e.sum(-1, keepdims=True)).astype(np.float32)
ref_z = np.tanh(x.astype(np.float64)).astype(np.float32)


def check(label, actual, expected, rtol=1e-5, atol=1e-6):
    err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    ok = (actual.shape == expected.shape and actual.dtype == expected.dtype
          and bool(np.all(err <= atol + rtol * np.abs(expected))))
    print("%s: %s %s max_abs_err=%.2e %s" % (label, actual.shape, actual.dtype,
                                             err.max(), "PASS" if ok else "FAIL"))


text = llmc.import_onnx(path, dims={"batch": 2})
print(text)
# CHECK-LABEL: func.func @main(
# CHECK-SAME: tensor<2x4xf32> {llm.name = "X"}) -> (tensor<2x3xf32> {llm.name = "Y"}, tensor<2x4xf32> {llm.name = "Z"})
# CHECK: llm.matmul
# CHECK: llm.softmax
# CHECK: llm.tanh

# The serialized model (bytes) imports to the same module.
assert llmc.import_onnx(model.SerializeToString(), dims={"batch": 2}) == text
print("bytes: same module")
# CHECK: bytes: same module
try:
    llmc.import_onnx(b"\x08\x07\x12\xff\xff not a model")
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
# CHECK: ValueError: <bytes>{{.*}}error: cannot parse '<bytes>' as an ONNX model

compiled = llmc.compile(path, dims={"batch": 2})
print(compiled)
# CHECK: <llmc.CompiledModel @main (X: f32[2x4]) -> (Y: f32[2x3], Z: f32[2x4])>
y, z = compiled(X=x)
check("onnx Y", y, ref_y)
check("onnx Z", z, ref_z)
# CHECK: onnx Y: (2, 3) float32 {{.*}} PASS
# CHECK: onnx Z: (2, 4) float32 {{.*}} PASS

# The imported text round-trips (weights as dense_resource blobs).
y2, z2 = llmc.compile(text, no_opt=True)(x)
check("text Y", y2, ref_y)
check("text Z", z2, ref_z)
# CHECK: text Y: (2, 3) float32 {{.*}} PASS
# CHECK: text Z: (2, 4) float32 {{.*}} PASS

# "batch:0"-style dims; a symbolic dimension without a value or a bound
# (the model has no position table to bound it) is an import error.
y3, _ = llmc.compile(path, dims="X:0=2")(x)
check("dims by index", y3, ref_y)
# CHECK: dims by index: (2, 3) float32 {{.*}} PASS
try:
    llmc.compile(path)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
# CHECK: ValueError: {{.*}}error: {{.*}}batch

# "<=N" keeps the symbolic dimension dynamic with bound N: one compiled model
# runs every batch size up to 8 (here the batch is the one dynamic size).
dyn = llmc.compile(path, dims={"batch": "<=8"})
for n in (1, 5):
    xn = rng.standard_normal((n, 4)).astype(np.float32)
    hn = np.maximum(xn.astype(np.float64) @ w + b, 0)
    en = np.exp(hn - hn.max(-1, keepdims=True))
    yn, zn = dyn(xn)
    check("dynamic batch %d Y" % n, yn, (en / en.sum(-1, keepdims=True)).astype(np.float32))
    check("dynamic batch %d Z" % n, zn, np.tanh(xn.astype(np.float64)).astype(np.float32))
# CHECK: dynamic batch 1 Y: (1, 3) float32 {{.*}} PASS
# CHECK: dynamic batch 1 Z: (1, 4) float32 {{.*}} PASS
# CHECK: dynamic batch 5 Y: (5, 3) float32 {{.*}} PASS
# CHECK: dynamic batch 5 Z: (5, 4) float32 {{.*}} PASS
# A batch of 2 over a dynamic sequence: one compiled model runs every
# length up to the bound (the matmul's rows are the batch times the length).
graph3 = helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["Y"], name="/layers.0/q/MatMul")],
    "batched", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, "seq", 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, "seq", 3])],
    [numpy_helper.from_array(w, "W")])
path3 = os.path.join(tmp, "batched.onnx")
onnx.save(helper.make_model(graph3, opset_imports=[helper.make_opsetid("", 17)]),
          path3)
batched = llmc.compile(path3, dims={"seq": "<=8"})
for n in (1, 8):
    xn = rng.standard_normal((2, n, 4)).astype(np.float32)
    yn = batched(xn)
    check("batch 2 seq %d" % n, yn, (xn.astype(np.float64) @ w).astype(np.float32))
# CHECK: batch 2 seq 1: (2, 1, 3) float32 {{.*}} PASS
# CHECK: batch 2 seq 8: (2, 8, 3) float32 {{.*}} PASS

# A max over the dynamic sequence (max pooling) compiles once and runs at
# each length, against numpy.
graph4 = helper.make_graph(
    [helper.make_node("ReduceMax", ["X"], ["Y"], name="/pool/ReduceMax",
                      axes=[1], keepdims=1)],
    "pooled", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, "seq", 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 1, 4])])
path4 = os.path.join(tmp, "pooled.onnx")
onnx.save(helper.make_model(graph4, opset_imports=[helper.make_opsetid("", 17)]),
          path4)
pooled = llmc.compile(path4, dims={"seq": "<=8"})
for n in (1, 8):
    xn = rng.standard_normal((2, n, 4)).astype(np.float32)
    check("max pool seq %d" % n, pooled(xn), xn.max(1, keepdims=True))
# CHECK: max pool seq 1: (2, 1, 4) float32 {{.*}} PASS
# CHECK: max pool seq 8: (2, 1, 4) float32 {{.*}} PASS

# A pass's error names the ONNX node of the op it is about, as llmc's do
# (not the raw location "node"("OpType")): an argmax over the dynamic
# sequence, which the lowering refuses.
graph5 = helper.make_graph(
    [helper.make_node("ArgMax", ["X"], ["Y"], name="/pick/ArgMax", axis=1,
                      keepdims=0)],
    "picked", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, "seq", 4])],
    [helper.make_tensor_value_info("Y", TensorProto.INT64, [2, 4])])
path5 = os.path.join(tmp, "picked.onnx")
onnx.save(helper.make_model(graph5, opset_imports=[helper.make_opsetid("", 17)]),
          path5)
try:
    llmc.compile(path5, dims={"seq": "<=8"})
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
# CHECK: ValueError: ONNX node '/pick/ArgMax' (ArgMax): llm-to-linalg: dynamic shapes: 'llm.argmax' does not support a dynamic dimension yet
for bad in ({"batch": "<=0"}, {"batch": 2.5}):
    try:
        llmc.compile(path, dims=bad)
    except ValueError as e:
        print("bad dims:", str(e).splitlines()[0])
# CHECK: bad dims: {{.*}}invalid dimension setting 'batch<=0' (expected NAME<=VALUE with VALUE >= 1)
# CHECK: bad dims: dims['batch'] must be an int or '<=N', got 2.5
