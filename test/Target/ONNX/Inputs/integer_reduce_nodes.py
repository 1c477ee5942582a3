# ONNX reduction nodes on a run-time int32 tensor x [3, 5] whose values
# (|x| < 50000) make x * x and the products overflow int32: ReduceSumSquare,
# ReduceL1, ReduceProd, ReduceMin, ReduceMax and ArgMin (select_last_index).
# `make DIR` writes DIR/r.onnx and DIR/x.npy; `check DIR OUT` compares
# `llmc run`'s OUT/<name>.npy with numpy in int32 (wrapping, as ONNX Runtime)
# and prints one line per output. Used by integer-reductions.test.
#
# `make_const DIR` writes DIR/c.onnx and DIR/f.npy: the same reductions of an
# int32 initializer (folded at import), a ReduceSumSquare with
# noop_with_empty_axes (opset 18: x * x elementwise), and shape arithmetic as
# exporters write a flatten: Reshape(f, Concat(Shape(f)[:1],
# ReduceProd(Shape(f)[1:]))), which needs the product at import time.
# `check_const DIR OUT` compares OUT's outputs with numpy.
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


def const_values():
    return np.random.default_rng(1).integers(-50000, 50000, (3, 5)).astype(
        np.int32)


def make_const(d):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    c = const_values()
    ref = reference(c)
    del ref["amin"]
    # Opset 18: the axes are an input (initializers ax0 and ax1).
    nodes = [
        h.make_node("ReduceSumSquare", ["c", "ax1"], ["sumsq_c"], keepdims=0),
        h.make_node("ReduceL1", ["c", "ax0"], ["l1_c"]),
        h.make_node("ReduceProd", ["c", "ax1"], ["prod_c"], keepdims=0),
        h.make_node("ReduceMin", ["c", "ax1"], ["mn_c"], keepdims=0),
        h.make_node("ReduceMax", ["c", "ax0"], ["mx_c"]),
        h.make_node("ReduceSumSquare", ["c"], ["noop_c"],
                    noop_with_empty_axes=1),
        h.make_node("Shape", ["f"], ["s"]),
        h.make_node("Slice", ["s", "one", "three"], ["tail"]),
        h.make_node("Slice", ["s", "zero", "one"], ["head"]),
        h.make_node("ReduceProd", ["tail"], ["n"], keepdims=1),
        h.make_node("Concat", ["head", "n"], ["shape"], axis=0),
        h.make_node("Reshape", ["f", "shape"], ["flat"], name="flatten"),
    ]
    inits = [h.make_tensor("c", T.INT32, c.shape, c.flatten().tolist())]
    for name, v in (("zero", 0), ("one", 1), ("three", 3), ("ax0", 0),
                    ("ax1", 1)):
        inits.append(h.make_tensor(name, T.INT64, [1], [v]))
    outs = [h.make_tensor_value_info(k + "_c", T.INT32, list(v.shape))
            for k, v in ref.items()]
    outs.append(h.make_tensor_value_info("noop_c", T.INT32, [3, 5]))
    outs.append(h.make_tensor_value_info("flat", T.FLOAT, [2, 12]))
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("f", T.FLOAT, [2, 3, 4])],
                     outs, initializer=inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]),
              d + "/c.onnx")
    np.save(d + "/f.npy",
            np.random.default_rng(2).standard_normal((2, 3, 4)).astype(
                np.float32))


def check_const(d, out):
    c = const_values()
    ref = reference(c)
    del ref["amin"]
    ref["noop"] = c * c
    for k, v in ref.items():
        got = np.load("%s/%s_c.npy" % (out, k))
        print(k, "const exact", got.dtype == v.dtype and np.array_equal(got, v))
    f = np.load(d + "/f.npy")
    got = np.load(out + "/flat.npy")
    print("flat exact", got.shape == (2, 12) and np.array_equal(got,
                                                               f.reshape(2, 12)))


U64 = np.array([[2**64 - 1, 5, 2**63], [7, 2**63 + 3, 1]], dtype=np.uint64)


def make_u64(d):
    """uint64 initializer U64 (values at and above 2^63, which int64 bits
    would order as negative) reduced over axis 1 by Max, Min, Sum and L1,
    each cast to int64 for the output (llm has no uint64 tensors)."""
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    nodes, outs = [], []
    for op in ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceL1"):
        nodes.append(h.make_node(op, ["u", "ax1"], [op + "_u"], keepdims=0))
        nodes.append(h.make_node("Cast", [op + "_u"], [op], to=T.INT64))
        outs.append(h.make_tensor_value_info(op, T.INT64, [2]))
    nodes.append(h.make_node("Add", ["x", "ReduceMax"], ["xs"]))
    outs.append(h.make_tensor_value_info("xs", T.INT64, [2]))
    inits = [h.make_tensor("u", T.UINT64, [2, 3], U64.flatten().tolist()),
             h.make_tensor("ax1", T.INT64, [1], [1])]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.INT64, [2])],
                     outs, initializer=inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]),
              d + "/u64.onnx")
    np.save(d + "/xi.npy", np.array([1, 2], dtype=np.int64))


def check_u64(out):
    ref = {"ReduceMax": U64.max(1), "ReduceMin": U64.min(1),
           "ReduceSum": U64.sum(1, dtype=np.uint64),
           "ReduceL1": U64.sum(1, dtype=np.uint64)}
    for k, v in ref.items():
        got = np.load("%s/%s.npy" % (out, k))
        print(k, "u64 exact", np.array_equal(got, v.astype(np.int64)))


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
    elif sys.argv[1] == "make_const":
        make_const(sys.argv[2])
    elif sys.argv[1] == "make_u64":
        make_u64(sys.argv[2])
    elif sys.argv[1] == "check_u64":
        check_u64(sys.argv[2])
    elif sys.argv[1] == "check_const":
        check_const(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2], sys.argv[3])
