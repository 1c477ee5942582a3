#!/usr/bin/env python3
# ===- quant_max.py - Q/DQ through max and reduce_max vs numpy ----------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Max-pooling-like selects between quantize/dequantize (as ONNX exporters
write DequantizeLinear -> Max/ReduceMax -> QuantizeLinear). llm-fold-quant
(llmc's default pipeline) moves the pairs so that the selects run on the
integer storage (`llm.max`/`llm.reduce_max` on quantized types); `llmc run
--no-opt` runs them in f32 between the unmoved quantize/dequantize. Both
must equal the numpy reference of the ONNX definitions applied in graph
order bit-exactly (integer outputs equal, f32 outputs equal as f32).

  quant_max.py gen DIR     writes DIR/model.mlir, DIR/x.npy, DIR/y.npy
  quant_max.py check DIR OUTDIR
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

SHAPE = (4, 64)
U8 = (0.5, 128)          # u8 activations (torch quint8 style)
I8 = (0.125, -3)         # i8, ties at k + 1/2 steps in x
AX_S = [float(np.float32(v)) for v in (0.05, 0.1, 0.2, 0.4)]
AX_Z = [128, 100, 0, 255]


def inputs():
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(SHAPE) * 4).astype(np.float32)
    y = (rng.standard_normal(SHAPE) * 4).astype(np.float32)
    # Saturation on both sides and equal elements.
    x[0, :6] = [1e3, -1e3, 0.0625, -0.0625, 70.0, -70.0]
    y[0, :6] = [-1e3, 1e3, 0.0625, 0.1875, 70.0, -80.0]
    return x, y


def t(et, shape=SHAPE):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + et + ">"


def gen(d):
    x, y = inputs()
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "y.npy"), y)
    u8 = f"!quant.uniform<u8:f32, {U8[0]!r}:{U8[1]}>"
    i8 = f"!quant.uniform<i8:f32, {I8[0]!r}:{I8[1]}>"
    ax = ("!quant.uniform<u8:f32:0, {" +
          ", ".join(f"{s!r}:{z}" for s, z in zip(AX_S, AX_Z)) + "}>")
    r4, r41 = (4,), (4, 1)
    text = f"""func.func @main(%x: {t('f32')}, %y: {t('f32')}) -> ({t('i8')}, {t('f32', r4)}, {t('f32', r41)}, {t('i8')}, {t('i8', r4)}) {{
  %xu = llm.quantize %x : ({t('f32')}) -> {t(u8)}
  %yu = llm.quantize %y : ({t('f32')}) -> {t(u8)}
  %xud = llm.dequantize %xu : ({t(u8)}) -> {t('f32')}
  %yud = llm.dequantize %yu : ({t(u8)}) -> {t('f32')}
  %m = llm.max %xud, %yud : ({t('f32')}, {t('f32')}) -> {t('f32')}
  %mq = llm.quantize %m : ({t('f32')}) -> {t(u8)}
  %o0 = quant.scast %mq : {t(u8)} to {t('i8')}
  %xi = llm.quantize %x : ({t('f32')}) -> {t(i8)}
  %xid = llm.dequantize %xi : ({t(i8)}) -> {t('f32')}
  %o1 = llm.reduce_max %xid {{axes = array<i64: 1>}} : ({t('f32')}) -> {t('f32', r4)}
  %xa = llm.quantize %x : ({t('f32')}) -> {t(ax)}
  %xad = llm.dequantize %xa : ({t(ax)}) -> {t('f32')}
  %o2 = llm.reduce_max %xad {{axes = array<i64: -1>, keepdims = true}} : ({t('f32')}) -> {t('f32', r41)}
  %mm = llm.max %xid, %y : ({t('f32')}, {t('f32')}) -> {t('f32')}
  %mmq = llm.quantize %mm : ({t('f32')}) -> {t(i8)}
  %o3 = quant.scast %mmq : {t(i8)} to {t('i8')}
  %rm = llm.reduce_max %xid {{axes = array<i64: 1>}} : ({t('f32')}) -> {t('f32', r4)}
  %rq = llm.quantize %rm : ({t('f32', r4)}) -> {t(u8, r4)}
  %o4 = quant.scast %rq : {t(u8, r4)} to {t('i8', r4)}
  return %o0, %o1, %o2, %o3, %o4 : {t('i8')}, {t('f32', r4)}, {t('f32', r41)}, {t('i8')}, {t('i8', r4)}
}}
"""
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def refs():
    x, y = inputs()
    q, dq = R.quantize_linear, R.dequantize_linear
    xu, yu = q(x, *U8, "u8"), q(y, *U8, "u8")
    m = np.maximum(dq(xu, *U8), dq(yu, *U8))
    xi = q(x, *I8, "i8")
    xid = dq(xi, *I8)
    xa = q(x, AX_S, AX_Z, "u8", axis=0)
    return {
        "max_u8": (q(m, *U8, "u8"), "u8"),
        "reduce_max_i8": (xid.max(axis=1), "f32"),
        "reduce_max_per_axis": (dq(xa, AX_S, AX_Z, axis=0).max(
            axis=-1, keepdims=True), "f32"),
        "max_mixed_i8": (q(np.maximum(xid, y), *I8, "i8"), "i8"),
        "reduce_max_requant_u8": (q(xid.max(axis=1), *U8, "u8"), "u8"),
    }


def check(out):
    ok = True
    for i, (name, (exp, kind)) in enumerate(refs().items()):
        got = np.load(os.path.join(out, f"out{i}.npy"))
        if kind == "u8":
            got = got.view(np.uint8)
        if kind == "f32":
            same = got.dtype == np.float32 and np.array_equal(
                got, exp.astype(np.float32))
        else:
            same = np.array_equal(got.astype(np.int64), exp)
        # A check that cannot pass vacuously: the reference must vary.
        assert np.unique(exp).size > 1, name
        print(f"{name}: {'exact' if same else 'DIFFERS'}")
        ok &= same
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[3]) else 1)
