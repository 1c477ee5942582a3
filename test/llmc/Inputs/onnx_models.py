#!/usr/bin/env python3
"""ONNX models and numpy checks for the llmc ONNX tests (test/llmc/onnx.test).

  onnx_models.py make NAME OUT.onnx
      mlp:   y = Relu(x @ w + b), x: [4, 8] f32, y: [4, 16] f32; also writes
             OUT.onnx.npz with w and b.
      multi: inputs 'a' [batch, 3] (symbolic batch) and 'b' [1, 3]; outputs
             'sum/out' = a + b (its name has a '/') and 'prod' = a * b.
  onnx_models.py check-mlp Y.npy X.npy MODEL.onnx.npz
      compares y with numpy (rtol 1e-5); prints "mlp OK".
  onnx_models.py check-torch OUT.npy MODEL.onnx.npz [ATOL]
      compares with torch's saved output out0 (max abs diff <= ATOL, default
      1e-4); prints "torch OK".
"""

import sys

import numpy as np


def make(name, out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    F = TensorProto.FLOAT
    rng = np.random.default_rng(0)
    if name == "mlp":
        w = rng.standard_normal((8, 16)).astype(np.float32)
        b = rng.standard_normal(16).astype(np.float32)
        nodes = [
            helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
            helper.make_node("Add", ["h", "b"], ["hb"], name="bias"),
            helper.make_node("Relu", ["hb"], ["y"], name="act"),
        ]
        graph = helper.make_graph(
            nodes, "mlp", [helper.make_tensor_value_info("x", F, [4, 8])],
            [helper.make_tensor_value_info("y", F, [4, 16])],
            [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        np.savez(out + ".npz", w=w, b=b)
    elif name == "multi":
        nodes = [
            helper.make_node("Add", ["a", "b"], ["sum/out"], name="add"),
            helper.make_node("Mul", ["a", "b"], ["prod"], name="mul"),
        ]
        graph = helper.make_graph(
            nodes, "multi",
            [helper.make_tensor_value_info("a", F, ["batch", 3]),
             helper.make_tensor_value_info("b", F, [1, 3])],
            [helper.make_tensor_value_info("sum/out", F, ["batch", 3]),
             helper.make_tensor_value_info("prod", F, ["batch", 3])])
    else:
        sys.exit("unknown model " + name)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="llmc-tests")
    m.ir_version = 8
    onnx.save_model(m, out)


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2], sys.argv[3])
    elif cmd == "check-mlp":
        y, x = np.load(sys.argv[2]), np.load(sys.argv[3])
        ref = np.load(sys.argv[4])
        want = np.maximum(x.astype(np.float64) @ ref["w"] + ref["b"], 0)
        assert y.dtype == np.float32 and y.shape == want.shape, (y.dtype,
                                                                 y.shape)
        if not np.allclose(y, want, rtol=1e-5, atol=1e-6):
            sys.exit("mismatch: max abs diff %g" % np.abs(y - want).max())
        print("mlp OK")
    elif cmd == "check-torch":
        got = np.load(sys.argv[2])
        want = np.load(sys.argv[3])["out0"]
        atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-4
        assert got.shape == want.shape, (got.shape, want.shape)
        diff = float(np.abs(got.astype(np.float64) - want).max())
        if not diff <= atol:
            sys.exit("mismatch: max abs diff %g > %g" % (diff, atol))
        print("torch OK (max abs diff %.3g)" % diff)
    elif cmd == "save-npz-input":
        # save-npz-input MODEL.onnx.npz KEY OUT.npy
        np.save(sys.argv[4], np.load(sys.argv[2])[sys.argv[3]])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
