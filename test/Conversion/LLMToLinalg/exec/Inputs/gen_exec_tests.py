#!/usr/bin/env python3
# ===- gen_exec_tests.py - numpy references for the lowering's exec tests -===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Writes the execution tests in the parent directory: each builds its inputs
# with arith.constant, applies llm ops, flattens and prints every result with
# printMemrefF32. The CHECK values are computed here, independently, with
# numpy in float64; each is matched to the digits that agree for every value
# within a relative tolerance of 1e-5 (so f32 rounding differences pass and
# a wrong lowering fails).
#
# Usage: /usr/bin/python3 gen_exec_tests.py  (rewrites ../*.mlir)
#
# ===----------------------------------------------------------------------===#

import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
RTOL, ATOL = 1e-5, 2e-6

RUNNER = ("mlir-runner -e main -entry-point-result=void \\\n"
          "// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils")
# Upstream linalg -> LLVM pipeline (lit.local.cfg), then llmc's pipeline.
RUN_UPSTREAM = ("// RUN: llm-opt %s --convert-llm-to-linalg | mlir-opt "
                "%linalg_to_llvm \\\n// RUN:   | " + RUNNER +
                " | FileCheck %s\n")
RUN_LLMC = ("// RUN: llm-opt %s --llm-lower-to-cpu | " + RUNNER +
            ",%omp_lib \\\n// RUN:   | FileCheck %s\n")


def ty(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def lit(a):
    if a.ndim == 0:
        return fmt(a.item())
    return "[" + ", ".join(lit(x) for x in a) + "]"


def fmt(x):
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return repr(float(x))


def g6(x):
    s = "%.6g" % x
    return "0" if s == "-0" else s


def pattern(x):
    """FileCheck text matching printMemrefF32's rendering of any value
    within tolerance of x."""
    if x == int(x) and abs(x) < 1e5:
        # Exact small integers print without a fraction ("2", "-3").
        return str(int(x))
    tol = ATOL + RTOL * abs(x)
    cands = [g6(x), g6(x - tol), g6(x + tol)]
    prefix = os.path.commonprefix(cands)
    if prefix == cands[0]:
        return prefix
    # Keep whole characters; the rest may be any digits (and an exponent).
    rest = "{{[0-9]*}}" if "." in prefix else "{{[0-9]*(\\.[0-9]*)?}}"
    if "e" in cands[0]:
        rest = rest[:-2] + "(e[+-][0-9]+)?}}"
    if prefix in ("", "-"):
        return "{{-?[0-9.e+-]+}}"
    return prefix + rest


class Test:
    def __init__(self, name, summary, llmc_pipeline=True, note=None):
        self.name, self.summary = name, summary
        self.llmc_pipeline, self.note = llmc_pipeline, note
        self.body, self.checks, self.n = [], [], 0

    def const(self, a, et="f32"):
        self.n += 1
        v = f"%c{self.n}"
        self.body.append(f"  {v} = arith.constant dense<{lit(a)}> : "
                         f"{ty(a.shape, et)}")
        return v

    def op(self, text, ref, et="f32", comment=None):
        """`text` is the llm op (with `{r}` for its result); prints it."""
        self.n += 1
        r = f"%r{self.n}"
        if comment:
            self.body.append(f"  // {comment}")
        self.body.append("  " + text.replace("{r}", r))
        ref = np.asarray(ref, dtype=np.float64)
        if et != "f32":
            c = f"%f{self.n}"
            self.body.append(f"  {c} = llm.cast {r} : ({ty(ref.shape, et)}) "
                             f"-> {ty(ref.shape)}")
            r = c
        flat = f"%flat{self.n}"
        u = f"%u{self.n}"
        self.body.append(f"  {flat} = llm.reshape {r} : ({ty(ref.shape)}) -> "
                         f"{ty([ref.size])}")
        self.body.append(f"  {u} = tensor.cast {flat} : {ty([ref.size])} to "
                         "tensor<*xf32>")
        self.body.append(f"  call @printMemrefF32({u}) : (tensor<*xf32>) -> ()")
        self.checks.append(f"// CHECK: sizes = [{ref.size}]")
        rows = ref.reshape(-1, ref.shape[-1]) if ref.ndim else ref.reshape(1, 1)
        for i, row in enumerate(rows):
            pats = ", ".join(pattern(x) for x in row)
            if i == 0:
                self.checks.append("// CHECK-NEXT: {{\\[}}" + pats +
                                   ("]" if len(rows) == 1 else ","))
            else:
                end = "]" if i == len(rows) - 1 else ","
                self.checks.append("// CHECK-SAME: " + pats + end)

    def write(self):
        path = os.path.join(OUT, self.name + ".mlir")
        with open(path, "w") as f:
            f.write(RUN_UPSTREAM)
            if self.llmc_pipeline:
                f.write(RUN_LLMC)
            if self.note:
                f.write("//\n// " + self.note + "\n")
            f.write(f"//\n// {self.summary}\n")
            f.write("// Generated by Inputs/gen_exec_tests.py; the CHECK values "
                    "were computed\n// independently with numpy (float64) and "
                    "match to ~1e-5 relative.\n\n")
            f.write("func.func private @printMemrefF32(tensor<*xf32>)\n\n")
            f.write("func.func @main() {\n")
            f.write("\n".join(self.body))
            f.write("\n  return\n}\n\n")
            f.write("\n".join(self.checks) + "\n")


rng = np.random.default_rng(7)


def rnd(*shape, scale=1.0):
    # Values with 3 decimals: exactly what the textual constant says.
    return np.round(rng.uniform(-1, 1, size=shape) * scale, 3)


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


# ---------------------------------------------------------------- matmul
t = Test("matmul", "llm.matmul: [B,M,K]x[K,N] (collapsed into linalg.matmul), "
         "transpose_a/transpose_b, batched with broadcast batch dims, f16.")
a, w = rnd(2, 3, 4), rnd(4, 5)
ca, cw = t.const(a), t.const(w)
t.op(f"{{r}} = llm.matmul {ca}, {cw} : ({ty(a.shape)}, {ty(w.shape)}) -> "
     f"{ty([2, 3, 5])}", a @ w)
b = rnd(5, 4)
cb = t.const(b)
t.op(f"{{r}} = llm.matmul {ca}, {cb} {{transpose_b}} : ({ty(a.shape)}, "
     f"{ty(b.shape)}) -> {ty([2, 3, 5])}", a @ b.T)
at = rnd(4, 3)
cat = t.const(at)
t.op(f"{{r}} = llm.matmul {cat}, {cw} {{transpose_a}} : ({ty(at.shape)}, "
     f"{ty(w.shape)}) -> {ty([3, 5])}", at.T @ w)
a3t = rnd(2, 4, 3)
ca3t = t.const(a3t)
t.op(f"{{r}} = llm.matmul {ca3t}, {cb} {{transpose_a, transpose_b}} : "
     f"({ty(a3t.shape)}, {ty(b.shape)}) -> {ty([2, 3, 5])}",
     np.swapaxes(a3t, -1, -2) @ b.T)
x4, y4 = rnd(2, 1, 3, 4), rnd(3, 4, 2)
cx4, cy4 = t.const(x4), t.const(y4)
t.op(f"{{r}} = llm.matmul {cx4}, {cy4} : ({ty(x4.shape)}, {ty(y4.shape)}) -> "
     f"{ty([2, 3, 3, 2])}", x4 @ y4, comment="batch dims [2,1] x [3] -> [2,3]")
l2, rb = rnd(3, 4), rnd(2, 4, 5)
cl2, crb = t.const(l2), t.const(rb)
t.op(f"{{r}} = llm.matmul {cl2}, {crb} : ({ty(l2.shape)}, {ty(rb.shape)}) -> "
     f"{ty([2, 3, 5])}", l2 @ rb, comment="2-D lhs read through a map "
     "without the batch dim")
h1, h2 = rnd(3, 4), rnd(4, 2)


def f16_matmul(x, y):
    # f16 operands, f32 (here f64) accumulation, result rounded to f16.
    return np.asarray(np.asarray(x, np.float16).astype(np.float64) @
                      np.asarray(y, np.float16).astype(np.float64), np.float16)


ch1, ch2 = t.const(h1, "f16"), t.const(h2, "f16")
t.op(f"{{r}} = llm.matmul {ch1}, {ch2} : ({ty(h1.shape, 'f16')}, "
     f"{ty(h2.shape, 'f16')}) -> {ty([3, 2], 'f16')}", f16_matmul(h1, h2),
     et="f16")
t.write()

t = Test("matmul-f16-batched", "llm.matmul on f16 with batch dims "
         "(linalg.batch_matmul, f32 accumulator).", llmc_pipeline=False,
         note="Only the upstream pipeline for now: llm-lower-to-cpu leaves a "
         "vector.contract\n// for a mixed f16/f32 linalg.batch_matmul.")
h1, h2 = rnd(2, 3, 4), rnd(2, 4, 2)
ch1, ch2 = t.const(h1, "f16"), t.const(h2, "f16")
t.op(f"{{r}} = llm.matmul {ch1}, {ch2} : ({ty(h1.shape, 'f16')}, "
     f"{ty(h2.shape, 'f16')}) -> {ty([2, 3, 2], 'f16')}", f16_matmul(h1, h2),
     et="f16")
t.write()

# ---------------------------------------------------------------- data movement
t = Test("data-movement", "llm.transpose, llm.concat, llm.slice, "
         "llm.broadcast_to, llm.reshape (neither collapse nor expand), "
         "llm.reduce_sum/max, saturating llm.cast.")
x = rnd(2, 3, 4)
cx = t.const(x)
t.op(f"{{r}} = llm.transpose {cx} {{permutation = array<i64: 2, 0, 1>}} : "
     f"({ty(x.shape)}) -> {ty([4, 2, 3])}", np.transpose(x, (2, 0, 1)))
y = rnd(2, 2, 4)
cy = t.const(y)
t.op(f"{{r}} = llm.concat {cx}, {cy} {{axis = -2 : i64}} : ({ty(x.shape)}, "
     f"{ty(y.shape)}) -> {ty([2, 5, 4])}", np.concatenate([x, y], axis=-2))
t.op(f"{{r}} = llm.slice {cx} {{starts = array<i64: 1, 0, 1>, limits = "
     f"array<i64: 2, 3, 4>, strides = array<i64: 1, 2, 2>}} : ({ty(x.shape)}) "
     f"-> {ty([1, 2, 2])}", x[1:2, 0:3:2, 1:4:2])
b = rnd(3, 1)
cb = t.const(b)
t.op(f"{{r}} = llm.broadcast_to {cb} : ({ty(b.shape)}) -> {ty([2, 3, 4])}",
     np.broadcast_to(b, (2, 3, 4)))
t.op(f"{{r}} = llm.reshape {cx} : ({ty(x.shape)}) -> {ty([3, 8])}",
     x.reshape(3, 8))
t.op(f"{{r}} = llm.reduce_sum {cx} {{axes = array<i64: 0, 2>, keepdims = "
     f"true}} : ({ty(x.shape)}) -> {ty([1, 3, 1])}",
     x.sum(axis=(0, 2), keepdims=True))
t.op(f"{{r}} = llm.reduce_max {cx} {{axes = array<i64: 1>}} : ({ty(x.shape)}) "
     f"-> {ty([2, 4])}", x.max(axis=1))
big = np.array([3.0e9, -3.0e9, 2.7, -2.7, 1.0e10, 0.5])
cbig = t.const(big)
n = t.n + 1
t.body.append(f"  %i{n} = llm.cast {cbig} : ({ty(big.shape)}) -> "
              f"{ty(big.shape, 'i32')}")
sat = np.array([2147483520.0, -2147483648.0, 2, -2, 2147483520.0, 0])
t.op(f"{{r}} = llm.cast %i{n} : ({ty(big.shape, 'i32')}) -> {ty(big.shape)}",
     sat, comment="f32 -> i32 saturates (clamped in f32), truncates to zero")
t.write()

# ---------------------------------------------------------------- softmax
def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


t = Test("softmax", "llm.softmax along the last and the first axis, with "
         "large logits (numerical stability).")
x = rnd(2, 3, 4, scale=3.0)
x[0, 0] += 100.0
cx = t.const(x)
t.op(f"{{r}} = llm.softmax {cx} {{axis = -1 : i64}} : {ty(x.shape)}",
     softmax(x, -1))
t.op(f"{{r}} = llm.softmax {cx} {{axis = 0 : i64}} : {ty(x.shape)}",
     softmax(x, 0))
xh = rnd(2, 5, scale=4.0)
cxh = t.const(xh, "f16")
xh16 = np.asarray(xh, np.float16).astype(np.float64)
t.op(f"{{r}} = llm.softmax {cxh} : {ty(xh.shape, 'f16')}",
     np.asarray(softmax(xh16, -1), np.float16), et="f16",
     comment="f16 in, f32 inside, rounded to f16")
t.write()

# ---------------------------------------------------------------- norms
t = Test("norms", "llm.layer_norm (last axis, two trailing axes, no "
         "scale/bias) and llm.rms_norm (with and without weight).")
x = rnd(2, 3, 4, scale=2.0)
g, bb = rnd(4), rnd(4)
cx, cg, cbb = t.const(x), t.const(g), t.const(bb)


def layer_norm(x, axis, eps, s=None, b=None):
    axes = tuple(range(axis, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    if s is not None:
        y = y * s
    if b is not None:
        y = y + b
    return y


t.op(f"{{r}} = llm.layer_norm {cx} scale {cg} bias {cbb} "
     f"{{axis = -1 : i64, epsilon = 1.0e-05 : f32}} : ({ty(x.shape)}, "
     f"{ty(g.shape)}, {ty(bb.shape)}) -> {ty(x.shape)}",
     layer_norm(x, 2, f32(1e-5), g, bb))
g2 = rnd(3, 4)
cg2 = t.const(g2)
t.op(f"{{r}} = llm.layer_norm {cx} scale {cg2} {{axis = 1 : i64, "
     f"epsilon = 1.0e-02 : f32}} : ({ty(x.shape)}, {ty(g2.shape)}) -> "
     f"{ty(x.shape)}", layer_norm(x, 1, f32(1e-2), g2))
t.op(f"{{r}} = llm.layer_norm {cx} : ({ty(x.shape)}) -> {ty(x.shape)}",
     layer_norm(x, 2, f32(1e-5)))
w = rnd(4)
cw = t.const(w)
rms = x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + f32(1e-6))
t.op(f"{{r}} = llm.rms_norm {cx} weight {cw} {{epsilon = 1.0e-06 : f32}} : "
     f"({ty(x.shape)}, {ty(w.shape)}) -> {ty(x.shape)}", rms * w)
t.op(f"{{r}} = llm.rms_norm {cx} : ({ty(x.shape)}) -> {ty(x.shape)}", rms)
t.write()

# ---------------------------------------------------------------- rope
def rope(x, pos, theta, interleaved):
    d = x.shape[-1]
    inv = theta ** (-2.0 * np.arange(d // 2) / d)
    ang = np.asarray(pos, np.float64)[..., None] * inv  # [..., D/2]
    c, s = np.cos(ang), np.sin(ang)
    y = np.empty_like(x)
    if interleaved:
        u, v = x[..., 0::2], x[..., 1::2]
        y[..., 0::2] = u * c - v * s
        y[..., 1::2] = v * c + u * s
    else:
        u, v = x[..., : d // 2], x[..., d // 2:]
        y[..., : d // 2] = u * c - v * s
        y[..., d // 2:] = v * c + u * s
    return y


t = Test("rope", "llm.rope, rotate_half and interleaved, positions "
         "broadcast over heads ([S]) and given per batch ([B,1,S]).")
x = rnd(2, 2, 3, 8)
pos = np.array([0, 5, 17])
cx, cp = t.const(x), t.const(pos, "i64")
t.op(f"{{r}} = llm.rope {cx}, {cp} {{theta = 10000.0 : f32}} : "
     f"({ty(x.shape)}, {ty(pos.shape, 'i64')}) -> {ty(x.shape)}",
     rope(x, np.broadcast_to(pos, (2, 2, 3)), 10000.0, False))
pos2 = np.array([[[3, 4, 5]], [[100, 101, 102]]], dtype=np.int32)
cp2 = t.const(pos2, "i32")
t.op(f"{{r}} = llm.rope {cx}, {cp2} mode <interleaved> {{theta = 500.0 : f32}}"
     f" : ({ty(x.shape)}, {ty(pos2.shape, 'i32')}) -> {ty(x.shape)}",
     rope(x, np.broadcast_to(pos2, (2, 2, 3)), 500.0, True))
t.write()

# ---------------------------------------------------------------- attention
def attention(q, k, v, scale=None, mask=None, causal=False):
    b, hq, sq, d = q.shape
    hkv, skv = k.shape[1], k.shape[2]
    grp = hq // hkv
    k = np.repeat(k, grp, axis=1)
    v = np.repeat(v, grp, axis=1)
    s = (q @ np.swapaxes(k, -1, -2)) * (scale if scale else 1 / math.sqrt(d))
    keep = np.ones(s.shape, bool)
    if mask is not None:
        if mask.dtype == bool:
            keep &= np.broadcast_to(mask, s.shape)
        else:
            s = s + mask
    if causal:
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        keep &= j <= i + skv - sq
    s = np.where(keep, s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.where(keep, np.exp(s - np.where(np.isinf(mx), 0, mx)), 0.0)
    den = e.sum(-1, keepdims=True)
    p = np.where(den > 0, e / np.where(den > 0, den, 1), 0.0)
    return p @ v


t = Test("attention", "llm.attention: causal grouped-query attention "
         "(Hq = 4, Hkv = 2), a decode step (Sq < Skv), an i1 mask with a fully "
         "masked row (-> 0), a float mask with an explicit scale.")
q, k, v = rnd(1, 4, 3, 4), rnd(1, 2, 3, 4), rnd(1, 2, 3, 2)
cq, ck, cv = t.const(q), t.const(k), t.const(v)
t.op(f"{{r}} = llm.attention {cq}, {ck}, {cv} {{causal}} : ({ty(q.shape)}, "
     f"{ty(k.shape)}, {ty(v.shape)}) -> {ty([1, 4, 3, 2])}",
     attention(q, k, v, causal=True), comment="causal GQA")
q1 = rnd(1, 4, 1, 4)
cq1 = t.const(q1)
t.op(f"{{r}} = llm.attention {cq1}, {ck}, {cv} {{causal}} : ({ty(q1.shape)}, "
     f"{ty(k.shape)}, {ty(v.shape)}) -> {ty([1, 4, 1, 2])}",
     attention(q1, k, v, causal=True),
     comment="decode step: the last query row sees the whole cache")
bm = np.array([[[True, False, True], [False, False, False],
                [True, True, False]]])
cbm = t.const(bm, "i1")
t.op(f"{{r}} = llm.attention {cq}, {ck}, {cv} mask {cbm} : ({ty(q.shape)}, "
     f"{ty(k.shape)}, {ty(v.shape)}, {ty(bm.shape, 'i1')}) -> "
     f"{ty([1, 4, 3, 2])}", attention(q, k, v, mask=bm),
     comment="i1 mask [1,3,3] (broadcast over heads); row 1 fully masked")
fm = rnd(1, 4, 1, 3)
cfm = t.const(fm)
t.op(f"{{r}} = llm.attention {cq}, {ck}, {cv} mask {cfm} {{causal, "
     f"scale = 0.25 : f32}} : ({ty(q.shape)}, {ty(k.shape)}, {ty(v.shape)}, "
     f"{ty(fm.shape)}) -> {ty([1, 4, 3, 2])}",
     attention(q, k, v, scale=0.25, mask=fm, causal=True),
     comment="float mask per head [1,4,1,3], causal, scale 0.25")
t.write()

# ---------------------------------------------------------------- embedding
t = Test("embedding", "llm.embedding with i64 and i32 ids, negative ids "
         "(counted from the end) and out-of-range ids (clamped).")
tab = rnd(5, 3)
ids = np.array([[0, 4, -1], [-5, 7, -9]])
ct, ci = t.const(tab), t.const(ids, "i64")


def embed(tab, ids):
    vv = tab.shape[0]
    i = np.where(ids < 0, ids + vv, ids)
    return tab[np.clip(i, 0, vv - 1)]


t.op(f"{{r}} = llm.embedding {ct}, {ci} : ({ty(tab.shape)}, "
     f"{ty(ids.shape, 'i64')}) -> {ty([2, 3, 3])}", embed(tab, ids))
ids32 = np.array([2, 3, 1, 1], dtype=np.int32)
ci32 = t.const(ids32, "i32")
t.op(f"{{r}} = llm.embedding {ct}, {ci32} : ({ty(tab.shape)}, "
     f"{ty(ids32.shape, 'i32')}) -> {ty([4, 3])}", embed(tab, ids32))
t.write()

# ---------------------------------------------------------------- activations
t = Test("activations", "llm.gelu (erf and tanh forms), llm.silu, "
         "llm.sigmoid, a broadcasting llm.add and llm.reduce_mean.",
         llmc_pipeline=False,
         note="Only the upstream pipeline for now: llm-lower-to-cpu does not "
         "lower math.erf yet\n// (it needs convert-math-to-libm after "
         "convert-math-to-llvm).")
x = np.round(np.linspace(-4, 4, 12), 3).reshape(3, 4)
cx = t.const(x)
erf = np.vectorize(math.erf)
t.op(f"{{r}} = llm.gelu {cx} : {ty(x.shape)}",
     0.5 * x * (1 + erf(x / math.sqrt(2))))
t.op(f"{{r}} = llm.gelu {cx} approximate <tanh> : {ty(x.shape)}",
     0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                            (x + 0.044715 * x ** 3))))
t.op(f"{{r}} = llm.silu {cx} : {ty(x.shape)}", x / (1 + np.exp(-x)))
t.op(f"{{r}} = llm.sigmoid {cx} : {ty(x.shape)}", 1 / (1 + np.exp(-x)))
col = rnd(3, 1)
ccol = t.const(col)
t.op(f"{{r}} = llm.add {cx}, {ccol} : ({ty(x.shape)}, {ty(col.shape)}) -> "
     f"{ty(x.shape)}", x + col)
t.op(f"{{r}} = llm.reduce_mean {cx} {{axes = array<i64: 1>, keepdims = true}}"
     f" : ({ty(x.shape)}) -> {ty([3, 1])}", x.mean(axis=1, keepdims=True))
t.write()
