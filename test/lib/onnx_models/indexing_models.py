#!/usr/bin/env python3
# ===- indexing_models.py - ONNX models of the indexing/sorting ops -------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""ONNX models of GatherND, ScatterND, ScatterElements, TopK, Einsum,
DynamicQuantizeLinear and Acos/Asin/Atan for test/Target/ONNX, with their
expected outputs computed here in numpy from the ONNX operator definitions
(not from llmc's reference).

Usage:
  indexing_models.py NAME DIR      writes DIR/NAME.onnx, DIR/<input>.npy for
                                   each graph input and DIR/NAME.npz with the
                                   expected outputs (by output name)
  indexing_models.py check DIR/NAME.npz OUTDIR [--rtol R] [--atol A]
                                   [--only OUT1,OUT2]
                                   compares OUTDIR/<output>.npy (llmc run's
                                   files) with the expected outputs; prints
                                   one line per output and ALL PASS or FAIL
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, D, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64
U8 = TensorProto.UINT8
rng = np.random.default_rng(20)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="llmc-tests")
    m.ir_version = 8
    return m


def wrap(idx, n):
    return np.where(idx < 0, idx + n, idx)


# --- GatherND / ScatterND / ScatterElements (ONNX reference loops) ---------


def gather_nd_ref(data, indices, batch_dims=0):
    b, m = batch_dims, indices.shape[-1]
    out = np.empty(indices.shape[:-1] + data.shape[b + m:], dtype=data.dtype)
    for u in np.ndindex(*indices.shape[:-1]):
        tup = tuple(int(wrap(k, data.shape[b + j]))
                    for j, k in enumerate(indices[u]))
        out[u] = data[tuple(u[:b]) + tup]
    return out


def scatter_nd_ref(data, indices, updates, reduction="none"):
    out = data.copy()
    for u in np.ndindex(*indices.shape[:-1]):
        at = tuple(int(wrap(k, data.shape[j])) for j, k in enumerate(indices[u]))
        if reduction == "add":
            out[at] = out[at] + updates[u]
        elif reduction == "mul":
            out[at] = out[at] * updates[u]
        else:
            out[at] = updates[u]
    return out


def scatter_elements_ref(data, indices, updates, axis, reduction="none"):
    out = data.copy()
    for u in np.ndindex(*indices.shape):
        at = list(u)
        at[axis] = int(wrap(indices[u], data.shape[axis]))
        at = tuple(at)
        if reduction == "add":
            out[at] += updates[u]
        elif reduction == "mul":
            out[at] *= updates[u]
        else:
            out[at] = updates[u]
    return out


def gather_scatter():
    """GatherND (plain and batch_dims 1, negative components), the KV-cache
    ScatterND (a decode step writing one position of a [1, 8, 4] cache),
    ScatterND with reduction add and repeated tuples, ScatterElements along
    axis 1 with negative indices and reduction mul. Every index tensor is a
    run-time input."""
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    gi = np.array([[0, -1], [1, 2], [-2, 0]], dtype=np.int64)        # [3, 2]
    bi = np.array([[2], [-3]], dtype=np.int64)                        # [2, 1]
    cache = rng.standard_normal((1, 8, 4)).astype(np.float32)
    pos = np.array([[[0, 5]]], dtype=np.int64)                        # [1, 1, 2]
    kv = rng.standard_normal((1, 1, 4)).astype(np.float32)
    acc = rng.standard_normal((4, 3)).astype(np.float32)
    ai = np.array([[1], [-1], [1]], dtype=np.int64)                   # [3, 1]
    au = rng.standard_normal((3, 3)).astype(np.float32)
    e = rng.standard_normal((3, 5)).astype(np.float32)
    ei = np.array([[0, -1], [2, 2], [-5, 4]], dtype=np.int64)         # [3, 2]
    eu = rng.standard_normal((3, 2)).astype(np.float32)
    inputs = dict(x=x, gi=gi, bi=bi, cache=cache, pos=pos, kv=kv, acc=acc,
                  ai=ai, au=au, e=e, ei=ei, eu=eu)
    nodes = [
        helper.make_node("GatherND", ["x", "gi"], ["g"], name="gnd"),
        helper.make_node("GatherND", ["x", "bi"], ["gb"], name="gnd_batch",
                         batch_dims=1),
        helper.make_node("ScatterND", ["cache", "pos", "kv"], ["c"],
                         name="kv_update"),
        helper.make_node("ScatterND", ["acc", "ai", "au"], ["a"], name="snd_add",
                         reduction="add"),
        helper.make_node("ScatterElements", ["e", "ei", "eu"], ["s"],
                         name="se_mul", axis=1, reduction="mul"),
    ]
    outputs = dict(
        g=gather_nd_ref(x, gi), gb=gather_nd_ref(x, bi, 1),
        c=scatter_nd_ref(cache, pos, kv), a=scatter_nd_ref(acc, ai, au, "add"),
        s=scatter_elements_ref(e, ei, eu, 1, "mul"))
    m = model(nodes, [vi(k, F if v.dtype == np.float32 else I64, list(v.shape))
                      for k, v in inputs.items()],
              [vi(k, F, list(v.shape)) for k, v in outputs.items()])
    return m, inputs, outputs


def topk():
    """TopK: the 3 largest along the last axis with ties (lower index first)
    and a NaN (larger than every number), the 2 smallest along axis 0 of an
    int64 tensor; K is an initializer."""
    x = np.array([[1.0, 3.0, 3.0, -2.0, 3.0, 0.5],
                  [np.nan, 2.0, 2.0, 7.0, -1.0, 2.0]], dtype=np.float32)
    y = np.array([[5, -1], [2, 2], [2, 9], [-7, 2]], dtype=np.int64)
    inputs = dict(x=x, y=y)
    nodes = [
        helper.make_node("TopK", ["x", "k3"], ["v", "i"], name="top3"),
        helper.make_node("TopK", ["y", "k2"], ["w", "j"], name="bottom2",
                         axis=0, largest=0),
    ]
    # ONNX's definition, ties by the lower index: a stable sort.
    def top(a, k, axis, largest):
        a = np.moveaxis(a, axis, -1)
        key = a.astype(np.float64)
        if largest:
            key = np.where(np.isnan(key), -np.inf, -key)
            order = np.argsort(key, axis=-1, kind="stable")
            # NaN first (as torch.topk): the stable partition by NaN-ness.
            nan = np.take_along_axis(np.isnan(a.astype(np.float64)), order, -1)
            order = np.take_along_axis(order, np.argsort(~nan, -1, kind="stable"), -1)
        else:
            order = np.argsort(key, axis=-1, kind="stable")
        idx = order[..., :k]
        return (np.moveaxis(np.take_along_axis(a, idx, -1), -1, axis),
                np.moveaxis(idx, -1, axis).astype(np.int64))
    v, i = top(x, 3, 1, True)
    w, j = top(y, 2, 0, False)
    outputs = dict(v=v, i=i, w=w, j=j)
    m = model(nodes, [vi("x", F, [2, 6]), vi("y", I64, [4, 2])],
              [vi("v", F, [2, 3]), vi("i", I64, [2, 3]), vi("w", I64, [2, 2]),
               vi("j", I64, [2, 2])],
              [numpy_helper.from_array(np.array([3], np.int64), "k3"),
               numpy_helper.from_array(np.array([2], np.int64), "k2")])
    return m, inputs, outputs


def einsum():
    """Einsum: f32 batched matmul and attention scores (llm.matmul), f32
    with an implicit output; f64 matmul, batch diagonal (with an ellipsis),
    a full sum and an outer product (mul + reduce_sum)."""
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    q = rng.standard_normal((1, 2, 3, 8)).astype(np.float32)
    k = rng.standard_normal((1, 2, 5, 8)).astype(np.float32)
    p = rng.standard_normal((3, 4))
    r = rng.standard_normal((4, 2))
    d = rng.standard_normal((2, 3, 3))
    u = rng.standard_normal((3,))
    inputs = dict(a=a, b=b, q=q, k=k, p=p, r=r, d=d, u=u)
    specs = [("ab", "bij,bjk->bik", ["a", "b"]),
             ("s", "bhqd,bhkd->bhqk", ["q", "k"]),
             ("imp", "bij,bjk", ["a", "b"]),
             ("pr", "ij,jk->ik", ["p", "r"]),
             ("diag", "...ii ->...i", ["d"]),
             ("tot", "ij->", ["p"]),
             ("outer", "i,j->ij", ["u", "u"])]
    nodes = [helper.make_node("Einsum", ins, [name], name=name, equation=eq)
             for name, eq, ins in specs]
    outputs = {name: np.einsum(eq.replace(" ", ""), *[inputs[i] for i in ins])
               for name, eq, ins in specs}
    first_input = {name: ins[0] for name, _, ins in specs}
    outputs = {n: np.asarray(v, dtype=inputs[first_input[n]].dtype)
               for n, v in outputs.items()}
    m = model(nodes, [vi(n, F if v.dtype == np.float32 else D, list(v.shape))
                      for n, v in inputs.items()],
              [vi(n, F if v.dtype == np.float32 else D, list(v.shape))
               for n, v in outputs.items()])
    return m, inputs, outputs


def dynamic_quantize():
    """DynamicQuantizeLinear of a tensor with negative and positive values
    (values on .5 boundaries of x / scale included), and of an all-positive
    one (x_min clamped to 0: zero point 0)."""
    x = rng.uniform(-3.0, 5.0, (3, 8)).astype(np.float32)
    x[0, 0], x[0, 1] = -3.0, 5.0
    pos = rng.uniform(0.5, 2.0, (6,)).astype(np.float32)
    inputs = dict(x=x, pos=pos)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "ys", "yz"],
                         name="dq"),
        helper.make_node("DynamicQuantizeLinear", ["pos"], ["p", "ps", "pz"],
                         name="dq_pos"),
    ]

    def dql(v):  # the ONNX reference implementation, in f32
        lo = np.minimum(0, np.min(v)).astype(np.float32)
        hi = np.maximum(0, np.max(v)).astype(np.float32)
        scale = np.float32((hi - lo) / np.float32(255))
        zp = np.clip(np.rint(np.float32(0) - lo / scale), 0, 255)
        y = np.clip(np.rint(v / scale) + zp, 0, 255)
        return y.astype(np.uint8), np.array(scale, np.float32), np.array(zp, np.uint8)
    # The expanded form's pieces: QuantizeLinear with a scale computed at
    # run time (max |x| / 127) and no zero point (uint8, zero point 0: the
    # negative values saturate to 0), and with the uint8 zero point from a
    # run-time Cast.
    nodes += [
        helper.make_node("ReduceMax", ["x"], ["mx"], name="mx", keepdims=0),
        helper.make_node("Div", ["mx", "c127"], ["rs"], name="rs"),
        helper.make_node("QuantizeLinear", ["x", "rs"], ["rq"], name="rq"),
        helper.make_node("Cast", ["c9"], ["z9f"], name="z9f", to=F),
        helper.make_node("Add", ["z9f", "mx"], ["z9a"], name="z9a"),
        helper.make_node("Sub", ["z9a", "mx"], ["z9s"], name="z9s"),
        helper.make_node("Round", ["z9s"], ["z9r"], name="z9r"),
        helper.make_node("Cast", ["z9r"], ["z9"], name="z9", to=U8),
        helper.make_node("QuantizeLinear", ["x", "rs", "z9"], ["rz"], name="rz"),
    ]
    y, ys, yz = dql(x)
    p, ps, pz = dql(pos)
    rs = np.float32(np.max(x) / np.float32(127))
    rq = np.clip(np.rint(x / rs), 0, 255).astype(np.uint8)
    rz = np.clip(np.rint(x / rs) + 9, 0, 255).astype(np.uint8)
    outputs = dict(y=y, ys=ys, yz=yz, p=p, ps=ps, pz=pz, rq=rq, z9=np.array(9, np.uint8), rz=rz)
    m = model(nodes, [vi("x", F, [3, 8]), vi("pos", F, [6])],
              [vi("y", U8, [3, 8]), vi("ys", F, []), vi("yz", U8, []),
               vi("p", U8, [6]), vi("ps", F, []), vi("pz", U8, []),
               vi("rq", U8, [3, 8]), vi("z9", U8, []), vi("rz", U8, [3, 8])],
              [numpy_helper.from_array(np.array(127, np.float32), "c127"),
               numpy_helper.from_array(np.array(9, np.int64), "c9")])
    return m, inputs, outputs


def inverse_trig():
    """Acos, Asin, Atan over their whole domain: +-1, 0, -0, values near
    +-1, |x| > 1 (NaN), NaN, +-inf (Atan: +-pi/2)."""
    x = np.array([-1.0, -0.9999999, -0.5, -0.0, 0.0, 1e-8, 0.3, 0.7071068,
                  0.9999999, 1.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 0.25],
                 dtype=np.float32)
    inputs = dict(x=x)
    nodes = [helper.make_node(op, ["x"], [op.lower()], name=op.lower())
             for op in ("Acos", "Asin", "Atan")]
    with np.errstate(invalid="ignore"):
        outputs = dict(acos=np.arccos(x), asin=np.arcsin(x), atan=np.arctan(x))
    m = model(nodes, [vi("x", F, [16])],
              [vi(n, F, [16]) for n in outputs])
    return m, inputs, outputs


BUILDERS = dict(gather_scatter=gather_scatter, topk=topk, einsum=einsum,
                dynamic_quantize=dynamic_quantize, inverse_trig=inverse_trig)


def check(npz, outdir, rtol, atol, only=None):
    want = np.load(npz)
    ok = True
    for name in want.files:
        if only and name not in only:
            continue
        got = np.load(os.path.join(outdir, name + ".npy"))
        exp = want[name]
        if exp.dtype == np.uint8 and got.dtype == np.int8:
            got = got.view(np.uint8)  # llmc's uint8 in i8 storage
        same = got.dtype == exp.dtype and got.shape == exp.shape and \
            np.allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
        err = float(np.nanmax(np.abs(got.astype(np.float64) - exp))) \
            if got.shape == exp.shape and exp.size and not np.isnan(got).all() else 0.0
        print("%s: %s %s max abs error %.3g %s" % (
            name, got.dtype, list(got.shape), err, "PASS" if same else "FAIL"))
        ok &= same
    print("ALL PASS" if ok else "FAIL")
    return 0 if ok else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        p = argparse.ArgumentParser()
        p.add_argument("cmd")
        p.add_argument("npz")
        p.add_argument("outdir")
        p.add_argument("--rtol", type=float, default=1e-6)
        p.add_argument("--atol", type=float, default=0.0)
        p.add_argument("--only", default="",
                       help="comma-separated outputs to compare (default all)")
        a = p.parse_args()
        only = [n for n in a.only.split(",") if n]
        sys.exit(check(a.npz, a.outdir, a.rtol, a.atol, only))
    name, out = sys.argv[1], sys.argv[2]
    m, inputs, outputs = BUILDERS[name]()
    onnx.checker.check_model(m)
    os.makedirs(out, exist_ok=True)
    onnx.save_model(m, os.path.join(out, name + ".onnx"))
    for k, v in inputs.items():
        np.save(os.path.join(out, k + ".npy"), v)
    np.savez(os.path.join(out, name + ".npz"), **outputs)


if __name__ == "__main__":
    main()
