# ONNX reduction nodes on a run-time int32 tensor x [3, 5] whose values
# (|x| < 50000) make x * x and the products overflow int32: ReduceSumSquare,
# ReduceL1, ReduceProd, ReduceMin, ReduceMax and ArgMin (select_last_index).
# `make DIR` writes DIR/r.onnx and DIR/x.npy; `check DIR OUT` compares
# `llmc run`'s OUT/<name>.npy with numpy in int32 (wrapping, as ONNX Runtime)
# and prints one line per output. Used by integer-reductions.test.
import sys

import numpy as np


def reference(x):
    return {
        "sumsq": (x * x).sum(1, dtype=np.int32),
        "l1": np.abs(x).sum(0, keepdims=True, dtype=np.int32),
        "prod": x.prod(1, dtype=np.int32),
        "mn": x.min(1),
        "mx": x.max(0, keepdims=True),
        "amin": (4 - np.argmin(x[:, ::-1], axis=1)).astype(np.int64),
    }


def make(d):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    x = np.random.default_rng(0).integers(-50000, 50000, (3, 5)).astype(np.int32)
    x[1, 1] = x[1, 3] = x[1].min()  # a tie for ArgMin's last index
    ref = reference(x)
    nodes = [
        h.make_node("ReduceSumSquare", ["x"], ["sumsq"], axes=[1], keepdims=0),
        h.make_node("ReduceL1", ["x"], ["l1"], axes=[0]),
        h.make_node("ReduceProd", ["x"], ["prod"], axes=[1], keepdims=0),
        h.make_node("ReduceMin", ["x"], ["mn"], axes=[1], keepdims=0),
        h.make_node("ReduceMax", ["x"], ["mx"], axes=[0]),
        h.make_node("ArgMin", ["x"], ["amin"], axis=1, keepdims=0,
                    select_last_index=1),
    ]
    outs = [h.make_tensor_value_info(
        k, T.INT64 if v.dtype == np.int64 else T.INT32, list(v.shape))
        for k, v in ref.items()]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.INT32, [3, 5])],
                     outs)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
              d + "/r.onnx")
    np.save(d + "/x.npy", x)


def check(d, out):
    x = np.load(d + "/x.npy")
    exact = ((x.astype(np.int64) ** 2).sum(1) != reference(x)["sumsq"]).any()
    print("sums overflow int32", bool(exact))
    for k, v in reference(x).items():
        got = np.load("%s/%s.npy" % (out, k))
        print(k, "exact", got.dtype == v.dtype and np.array_equal(got, v))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
