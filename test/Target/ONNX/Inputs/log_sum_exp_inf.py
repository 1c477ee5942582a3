"""ReduceLogSumExp over rows holding infinities (reduce-log-sum-exp.test).

make DIR: writes DIR/lse.onnx (ReduceLogSumExp over axis 1, keepdims 0, of
an f32 input [5, 6] and of an f16 input [5, 6]) and DIR/x.npy, DIR/h.npy:
rows of all -inf, one +inf among finite values, -inf among finite values,
large finite values (a max-free exp would overflow) and ordinary values.
check DIR OUT: compares OUT/y.npy and OUT/yh.npy with numpy in float64
(scipy.special.logsumexp's definition: the max taken out, an infinite max
as 0): infinities must match exactly, finite values within 1e-6 relative
(f32) and 2e-3 (f16).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def rows(dtype):
    inf = np.inf
    x = np.array([
        [-inf] * 6,
        [1.0, 2.0, inf, -3.0, 0.5, 4.0],
        [-inf, 1.0, -inf, 2.0, 0.0, -inf],
        [80.0, 85.0, 90.0, 60.0, 88.0, 89.5],
        [0.1, -0.2, 0.3, -0.4, 0.5, -0.6],
    ])
    if dtype == np.float16:
        x[3] = [8.0, 8.5, 9.0, 6.0, 8.8, 8.95]
    return x.astype(dtype)


def reference(x):
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    m[~np.isfinite(m)] = 0.0
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - m).sum(axis=1)) + m[:, 0]


def make(d):
    nodes = [
        helper.make_node("ReduceLogSumExp", ["x"], ["y"], axes=[1], keepdims=0),
        helper.make_node("ReduceLogSumExp", ["h"], ["yh"], axes=[1], keepdims=0),
    ]
    g = helper.make_graph(
        nodes, "lse",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 6]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT16, [5, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5]),
         helper.make_tensor_value_info("yh", TensorProto.FLOAT16, [5])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(d, "lse.onnx"))
    np.save(os.path.join(d, "x.npy"), rows(np.float32))
    np.save(os.path.join(d, "h.npy"), rows(np.float16))


def check(d, out):
    for name, src, tol in (("y", "x", 1e-6), ("yh", "h", 2e-3)):
        got = np.load(os.path.join(out, name + ".npy")).astype(np.float64)
        want = reference(np.load(os.path.join(d, src + ".npy")))
        inf_ok = bool(np.array_equal(np.isinf(got), np.isinf(want)) and
                      np.array_equal(got[np.isinf(got)], want[np.isinf(want)]))
        fin = np.isfinite(want)
        fin_ok = bool(np.all(np.isfinite(got[fin])) and np.all(
            np.abs(got[fin] - want[fin]) <= tol * (1 + np.abs(want[fin]))))
        print("%s: %s infinities %s finite %s" % (
            name, " ".join("%.6g" % v for v in got), inf_ok, fin_ok))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
