"""Small ONNX models with a symbolic sequence dimension, for
dynamic-sequence.test: python3 dynamic_models.py OUT_DIR writes them;
python3 dynamic_models.py OUT_DIR --check LLMC runs pos.onnx and mask.onnx,
each compiled once for every length, at lengths 1, 5 and 16 through
`llmc run` and compares with numpy (exact: the ops are an add and a select).

  pos.onnx      y = x + wpe[arange(S)] (x [1, 'seq', 4]; wpe [16, 4]: the
                model's bound is 16)
  mask.onnx     y = where(tril(ones(16, 16))[:S, :S], x, -inf) (x [1, 'seq',
                'seq']: a causal mask sliced from a buffer)
  twice.onnx    y = concat(x, x + wpe[arange(S)]) along the sequence: a
                dimension of 2 S
  nobound.onnx  y = relu(x): no table tells the largest length
  twosym.onnx   x ['batch', 'seq', 4] + wpe[arange(S)]: two symbols
  thresh.onnx   x + wpe[arange(S)] + where(S > 4, 0, 1): behaviour that
                changes with the length
  cls.onnx      x[:, 0] + wpe[0]: a fixed position of the sequence
"""
import os
import sys

import numpy as np
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import onnx


def const(name, value):
    return h.make_node("Constant", [], [name],
                       value=nh.from_array(np.asarray(value), name))


def positions(x="x", axis=1):
    """Nodes computing wpe[arange(S)] for the length S of `x`'s `axis`."""
    return [
        h.make_node("Shape", [x], ["shape"]),
        const("axis", np.array(axis, np.int64)),
        h.make_node("Gather", ["shape", "axis"], ["len"]),
        const("zero", np.array(0, np.int64)),
        const("one", np.array(1, np.int64)),
        h.make_node("Range", ["zero", "len", "one"], ["ids"], name="positions"),
        h.make_node("Gather", ["wpe", "ids"], ["pe"], name="pos_embed"),
    ]


def model(nodes, inputs, out_shape, inits):
    g = h.make_graph(nodes, "g", inputs,
                     [h.make_tensor_value_info("y", T.FLOAT, out_shape)],
                     inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)])


def check(out, llmc):
    """Runs pos.onnx and mask.onnx at several lengths; prints one line each."""
    import subprocess
    wpe = nh.to_array(onnx.load(os.path.join(out, "pos.onnx")).graph
                      .initializer[0])
    rng = np.random.default_rng(1)
    ok = True
    for name in ["pos", "mask"]:
        for s in [1, 5, 16]:
            shape = (1, s, 4) if name == "pos" else (1, s, s)
            x = rng.standard_normal(shape).astype(np.float32)
            if name == "pos":
                want = x + wpe[:s]
            else:
                want = np.where(np.tril(np.ones((s, s), bool)), x, -np.inf)
            xin = os.path.join(out, "%s_x%d.npy" % (name, s))
            np.save(xin, x)
            res = os.path.join(out, "%s_out%d" % (name, s))
            r = subprocess.run([llmc, "run", os.path.join(out, name + ".onnx"),
                                "--input", "x=" + xin, "--output-dir", res,
                                "--quiet"], capture_output=True, text=True)
            if r.returncode:
                print("%s S=%d FAILED: %s" % (name, s, r.stderr.strip()))
                ok = False
                continue
            got = np.load(os.path.join(res, "y.npy"))
            good = got.shape == want.shape and np.array_equal(got, want)
            print("%s S=%d shape=%s %s" % (name, s, "x".join(map(str, got.shape)),
                                          "OK" if good else "MISMATCH"))
            ok &= good
    return ok


def main():
    out = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        sys.exit(0 if check(out, sys.argv[3]) else 1)
    rng = np.random.default_rng(0)
    wpe = nh.from_array(rng.standard_normal((16, 4)).astype(np.float32),
                        "wpe")
    x = h.make_tensor_value_info("x", T.FLOAT, [1, "seq", 4])
    onnx.save(model(positions() + [h.make_node("Add", ["x", "pe"], ["y"])],
                    [x], [1, "seq", 4], [wpe]),
              os.path.join(out, "pos.onnx"))

    xm = h.make_tensor_value_info("x", T.FLOAT, [1, "seq", "seq"])
    buf = nh.from_array(np.tril(np.ones((16, 16), bool)), "bias")
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        const("i1", np.array([1], np.int64)),
        const("i2", np.array([2], np.int64)),
        h.make_node("Slice", ["shape", "i1", "i2"], ["len"]),
        const("z2", np.array([0, 0], np.int64)),
        h.make_node("Concat", ["len", "len"], ["ends"], axis=0),
        h.make_node("Slice", ["bias", "z2", "ends"], ["keep"], name="causal"),
        const("ninf", np.array(-np.inf, np.float32)),
        h.make_node("Where", ["keep", "x", "ninf"], ["y"]),
    ]
    onnx.save(model(nodes, [xm], [1, "seq", "seq"], [buf]),
              os.path.join(out, "mask.onnx"))

    nodes = positions() + [
        h.make_node("Add", ["x", "pe"], ["xp"]),
        h.make_node("Concat", ["x", "xp"], ["y"], axis=1, name="doubled"),
    ]
    onnx.save(model(nodes, [x], [1, "seq2", 4], [wpe]),
              os.path.join(out, "twice.onnx"))

    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [x], [1, "seq", 4],
                    []),
              os.path.join(out, "nobound.onnx"))

    # A node the importer warns about (an attribute Relu does not have).
    onnx.save(model([h.make_node("Relu", ["x"], ["y"], name="r", bogus=3)],
                    [x], [1, "seq", 4], []),
              os.path.join(out, "badattr.onnx"))

    nodes = positions() + [
        h.make_node("Add", ["x", "pe"], ["xp"]),
        const("four", np.array(4, np.int64)),
        h.make_node("Greater", ["len", "four"], ["long"], name="is_long"),
        const("f0", np.array(0.0, np.float32)),
        const("f1", np.array(1.0, np.float32)),
        h.make_node("Where", ["long", "f0", "f1"], ["extra"], name="pick"),
        h.make_node("Add", ["xp", "extra"], ["y"]),
    ]
    onnx.save(model(nodes, [x], [1, "seq", 4], [wpe]),
              os.path.join(out, "thresh.onnx"))

    nodes = positions() + [
        h.make_node("Add", ["x", "pe"], ["xp"]),
        const("first", np.array(0, np.int64)),
        h.make_node("Gather", ["xp", "first"], ["y"], axis=1, name="cls"),
    ]
    onnx.save(model(nodes, [x], [1, 4], [wpe]),
              os.path.join(out, "cls.onnx"))

    # Scores [S, S] reshaped (attention weights kept whole).
    nodes = positions() + [
        h.make_node("Add", ["x", "pe"], ["xp"]),
        h.make_node("Transpose", ["xp"], ["xt"], perm=[0, 2, 1]),
        h.make_node("MatMul", ["xp", "xt"], ["s"]),
        const("axis1", np.array([1], np.int64)),
        h.make_node("Unsqueeze", ["s", "axis1"], ["y"], name="heads"),
    ]
    onnx.save(model(nodes, [x], [1, 1, "seq", "seq"], [wpe]),
              os.path.join(out, "scores.onnx"))

    xb = h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 4])
    onnx.save(model(positions() + [h.make_node("Add", ["x", "pe"], ["y"])],
                    [xb], ["batch", "seq", 4], [wpe]),
              os.path.join(out, "twosym.onnx"))


if __name__ == "__main__":
    main()
