#!/usr/bin/env python3
# ===- quant_ops.py - quantization ops vs the ONNX definitions -----------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Writes a model exercising llm.quantize/dequantize/requantize/
matmul_integer (every storage type and parameter layout) with its inputs, and
checks `llmc run`'s outputs against llmc_quant_ref (the ONNX definitions),
bit-exactly: integer outputs must be equal, dequantized outputs equal as f32.

  quant_ops.py gen DIR     writes DIR/model.mlir, DIR/x.npy, DIR/q.npy
  quant_ops.py check DIR   compares DIR/out/outK.npy; prints one line per case
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

# Inputs: x (4x64 f32, with exact rounding ties, out-of-range values, tiny
# values) and q (4x64 raw bytes, read as i8 or u8).
X_SHAPE = (4, 64)


def inputs():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(X_SHAPE) * 3).astype(np.float32)
    # Ties at scale 0.0625 (k + 1/2 steps), saturation, FP8 subnormals/max.
    x[0, :16] = np.array([0.03125, -0.03125, 0.09375, -0.09375, 0.15625,
                          -0.15625, 100, -100, 0, 7.96875, -8.03125, 1e-3,
                          -1e-3, 300.0, -1e5, 0.0078125], np.float32)
    q = rng.integers(0, 256, X_SHAPE).astype(np.uint8)
    return x, q


def t(et, shape=X_SHAPE):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + et + ">"


def per_axis(storage, axis, scales, zps):
    body = ", ".join(f"{s!r}:{z}" for s, z in zip(scales, zps))
    return f"!quant.uniform<{storage}:f32:{axis}, {{{body}}}>"


def blockwise(storage, dims, scales, zps):
    rows = ", ".join(
        "{" + ", ".join(f"{s!r}:{z}" for s, z in zip(sr, zr)) + "}"
        for sr, zr in zip(scales, zps))
    blocks = ",".join(f"{d}:{b}" for d, b in dims)
    return f"!quant.uniform<{storage}:f32:{{{blocks}}}, {{{rows}}}>"


def f32s(a):
    return [float(np.float32(v)) for v in a]


# Parameters of each case.
AX_S = f32s(np.linspace(0.05, 0.4, 4))
AX_Z = [128, 100, 0, 255]
BLK_S = [f32s(np.linspace(0.1, 0.8, 2) * (r + 1)) for r in range(4)]
BLK_Z = [[1, -2], [0, 3], [-8, 7], [2, 0]]
U4_S = [f32s([0.25, 0.5, 0.75, 1.0])] * 4
U4_Z = [[8, 0, 15, 3]] * 4


def cases():
    """(name, mlir lines producing %<name> and its result type, check)."""
    out = []
    tq8 = "!quant.uniform<i8:f32, 0.0625:-3>"
    out.append(("q_i8", [
        f"%q_i8_q = llm.quantize %x : ({t('f32')}) -> {t(tq8)}",
        f"%q_i8 = quant.scast %q_i8_q : {t(tq8)} to {t('i8')}"], t("i8"),
        lambda x, q: R.quantize_linear(x, 0.0625, -3, "i8")))
    tu8 = "!quant.uniform<u8:f32, 0.5:128>"
    out.append(("q_u8", [
        f"%q_u8_q = llm.quantize %x : ({t('f32')}) -> {t(tu8)}",
        f"%q_u8 = quant.scast %q_u8_q : {t(tu8)} to {t('i8')}"], t("i8"),
        lambda x, q: R.quantize_linear(x, 0.5, 128, "u8")))
    tax = per_axis("u8", 0, AX_S, AX_Z)
    out.append(("q_axis", [
        f"%q_axis_q = llm.quantize %x : ({t('f32')}) -> {t(tax)}",
        f"%q_axis = quant.scast %q_axis_q : {t(tax)} to {t('i8')}"], t("i8"),
        lambda x, q: R.quantize_linear(x, AX_S, AX_Z, "u8", axis=0)))
    tnar = "!quant.uniform<i8<-127:127>:f32, 0.0625>"
    out.append(("q_narrow", [
        f"%q_narrow_q = llm.quantize %x : ({t('f32')}) -> {t(tnar)}",
        f"%q_narrow = quant.scast %q_narrow_q : {t(tnar)} to {t('i8')}"],
        t("i8"), lambda x, q: np.maximum(R.quantize_linear(x, 0.0625, 0, "i8"),
                                         -127)))
    # i4 / u4 blockwise (groups of 32 and 16 along the last dim): quantize
    # then dequantize (the 4-bit storage has no .npy form).
    tb4 = blockwise("i4", [(0, 1), (1, 32)], BLK_S, BLK_Z)
    out.append(("qdq_i4_g32", [
        f"%qdq_i4_g32_q = llm.quantize %x : ({t('f32')}) -> {t(tb4)}",
        f"%qdq_i4_g32 = llm.dequantize %qdq_i4_g32_q : ({t(tb4)}) -> {t('f32')}"],
        t("f32"), lambda x, q: R.dequantize_linear(
            R.quantize_linear(x, BLK_S, BLK_Z, "i4"), BLK_S, BLK_Z)))
    tu4 = blockwise("u4", [(0, 1), (1, 16)], U4_S, U4_Z)
    out.append(("qdq_u4_g16", [
        f"%qdq_u4_g16_q = llm.quantize %x : ({t('f32')}) -> {t(tu4)}",
        f"%qdq_u4_g16 = llm.dequantize %qdq_u4_g16_q : ({t(tu4)}) -> {t('f32')}"],
        t("f32"), lambda x, q: R.dequantize_linear(
            R.quantize_linear(x, U4_S, U4_Z, "u4"), U4_S, U4_Z)))
    # Dequantize raw bytes: i8 per tensor, u8 per axis 0.
    ti = "!quant.uniform<i8:f32, 0.125:5>"
    out.append(("dq_i8", [
        f"%dq_i8_q = quant.scast %q : {t('i8')} to {t(ti)}",
        f"%dq_i8 = llm.dequantize %dq_i8_q : ({t(ti)}) -> {t('f32')}"],
        t("f32"), lambda x, q: R.dequantize_linear(q.view(np.int8), 0.125, 5)))
    out.append(("dq_axis", [
        f"%dq_axis_q = quant.scast %q : {t('i8')} to {t(tax)}",
        f"%dq_axis = llm.dequantize %dq_axis_q : ({t(tax)}) -> {t('f32')}"],
        t("f32"), lambda x, q: R.dequantize_linear(q, AX_S, AX_Z, axis=0)))
    # Requantize u8 per tensor -> i8 per tensor, and per axis -> i8.
    out.append(("rq", [
        f"%rq_in = quant.scast %q : {t('i8')} to {t(tu8)}",
        f"%rq_q = llm.requantize %rq_in : ({t(tu8)}) -> {t(tq8)}",
        f"%rq = quant.scast %rq_q : {t(tq8)} to {t('i8')}"], t("i8"),
        lambda x, q: R.quantize_linear(R.dequantize_linear(q, 0.5, 128),
                                       0.0625, -3, "i8")))
    out.append(("rq_axis", [
        f"%rq_axis_in = quant.scast %q : {t('i8')} to {t(tax)}",
        f"%rq_axis_q = llm.requantize %rq_axis_in : ({t(tax)}) -> {t(tq8)}",
        f"%rq_axis = quant.scast %rq_axis_q : {t(tq8)} to {t('i8')}"], t("i8"),
        lambda x, q: R.quantize_linear(
            R.dequantize_linear(q, AX_S, AX_Z, axis=0), 0.0625, -3, "i8")))
    # Integer matmul: u8 (zp 100) x i8 (per-column zps) and batched x i8.
    tw = per_axis("i8", 1, [1.0] * 4, [0, 1, -2, 3])
    ta = "!quant.uniform<u8:f32, 1.0:100>"
    out.append(("mmi", [
        f"%mmi_a = quant.scast %q : {t('i8')} to {t(ta)}",
        f"%mmi_w = quant.scast %x_i8 : {t('i8', (64, 4))} to {t(tw, (64, 4))}",
        f"%mmi = llm.matmul_integer %mmi_a, %mmi_w : ({t(ta)}, {t(tw, (64, 4))})"
        f" -> {t('i32', (4, 4))}"], t("i32", (4, 4)),
        lambda x, q: R.matmul_integer(q, W8().astype(np.int64), 100,
                                      np.array([0, 1, -2, 3]))))
    tb = "!quant.uniform<i8:f32, 1.0:-1>"
    out.append(("mmi_batch", [
        f"%mmi_b_a = llm.reshape %q_i8 : ({t('i8')}) -> {t('i8', (2, 2, 64))}",
        f"%mmi_b_aq = quant.scast %mmi_b_a : {t('i8', (2, 2, 64))} to "
        f"{t(tq8, (2, 2, 64))}",
        f"%mmi_b_w = quant.scast %x_i8 : {t('i8', (64, 4))} to {t(tb, (64, 4))}",
        f"%mmi_batch = llm.matmul_integer %mmi_b_aq, %mmi_b_w : "
        f"({t(tq8, (2, 2, 64))}, {t(tb, (64, 4))}) -> {t('i32', (2, 2, 4))}"],
        t("i32", (2, 2, 4)),
        lambda x, q: R.matmul_integer(
            R.quantize_linear(x, 0.0625, -3, "i8").reshape(2, 2, 64), W8(), -3,
            -1)))
    # QLinearMatMul form: accumulator viewed with sa*sb, requantized to u8.
    tacc = "!quant.uniform<i32:f32, 0.0078125>"
    out.append(("qlmm", [
        f"%qlmm_acc = quant.scast %mmi : {t('i32', (4, 4))} to {t(tacc, (4, 4))}",
        f"%qlmm_q = llm.requantize %qlmm_acc : ({t(tacc, (4, 4))}) -> "
        f"{t('!quant.uniform<u8:f32, 0.3:7>', (4, 4))}",
        f"%qlmm = quant.scast %qlmm_q : {t('!quant.uniform<u8:f32, 0.3:7>', (4, 4))}"
        f" to {t('i8', (4, 4))}"], t("i8", (4, 4)),
        lambda x, q: np.clip(np.rint(
            R.matmul_integer(q, W8(), 100, np.array([0, 1, -2, 3])).astype(
                np.float64) * np.float64(np.float32(0.0078125) /
                                         np.float32(0.3))) + 7, 0, 255)))
    # FP8 round trips with scales that reach saturation and subnormals.
    for fmt, scale in (("f8E4M3FN", 0.01), ("f8E5M2", 0.001)):
        n = "fp8_" + fmt[2:].lower()
        out.append((n, [
            f"%{n}_q = llm.quantize %x {{scale = {scale} : f32}} : "
            f"({t('f32')}) -> {t(fmt)}",
            f"%{n} = llm.dequantize %{n}_q {{scale = {scale} : f32}} : "
            f"({t(fmt)}) -> {t('f32')}"], t("f32"),
            lambda x, q, fmt=fmt, scale=scale: (R.quantize_fp8(
                x, scale, fmt) * np.float32(scale)).astype(np.float32)))
    return out


def W8():
    return np.arange(64 * 4).reshape(64, 4).astype(np.int64) % 256 - 128


def gen(d):
    x, q = inputs()
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "q.npy"), q.view(np.int8))
    cs = cases()
    w8 = "[" + ", ".join(
        "[" + ", ".join(str(v) for v in row) + "]" for row in W8()) + "]"
    lines = [f"  %x_i8 = llm.constant dense<{w8}> : {t('i8', (64, 4))}"]
    for _, body, _, _ in cs:
        lines += ["  " + line for line in body]
    names = ", ".join("%" + c[0] for c in cs)
    types = ", ".join(c[2] for c in cs)
    text = (f"func.func @main(%x: {t('f32')}, %q: {t('i8')}) -> ({types}) {{\n"
            + "\n".join(lines) + f"\n  return {names} : {types}\n}}\n")
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d):
    x, q = inputs()
    ok = True
    for i, (name, _, _, ref) in enumerate(cases()):
        got = np.load(os.path.join(d, "out", f"out{i}.npy"))
        exp = np.asarray(ref(x, q))
        if got.dtype == np.int8 and exp.max() > 127:
            got = got.view(np.uint8)
        if got.dtype.kind == "f":
            good = got.dtype == np.float32 and np.array_equal(
                got, exp.astype(np.float32), equal_nan=True)
        else:
            good = np.array_equal(got.astype(np.int64), exp.astype(np.int64))
        nbad = int(np.sum(got.astype(np.float64) != exp.astype(np.float64)))
        print(f"{name}: {'exact' if good else 'MISMATCH'} "
              f"({got.size} values, {nbad} differ)")
        ok &= good
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2]) else 1)
