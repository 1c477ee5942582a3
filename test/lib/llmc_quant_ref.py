#===- llmc_quant_ref.py - numpy reference of the quantization ops ---------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
"""Numpy reference of llmc's quantization ops, written from the ONNX
operator definitions (onnx/docs/Operators.md, opsets 13-21), not from the
lowering:

  QuantizeLinear   y = saturate(round_half_to_even(x / y_scale) + y_zero_point)
  DequantizeLinear y = (x - x_zero_point) * x_scale
  MatMulInteger    y = (A - a_zero_point) @ (B - b_zero_point)   (int32)
  QLinearMatMul    y = saturate(round((A - za) @ (B - zb) * (sa * sb / sy)) + zy)

Scales and zero points are broadcast to the data with `expand`: a scalar
(per tensor), a 1-D array along `axis` (per axis), or an array of the data's
rank whose dimensions divide the data's (blockwise / sub-channel: each
element repeats over a block).
"""

import numpy as np

RANGES = {"i8": (-128, 127), "u8": (0, 255), "i4": (-8, 7), "u4": (0, 15)}


def expand(param, shape, axis=None):
    """Broadcasts per-tensor, per-axis or blockwise parameters to `shape`."""
    p = np.asarray(param)
    if p.ndim == 0 or p.size == 1:
        return np.broadcast_to(p.reshape(()), shape)
    if p.ndim == 1 and axis is not None:
        view = [1] * len(shape)
        view[axis] = p.shape[0]
        return np.broadcast_to(p.reshape(view), shape)
    assert p.ndim == len(shape), "blockwise parameters need the data's rank"
    for d, n in enumerate(p.shape):
        p = np.repeat(p, shape[d] // n, axis=d)
    return p


def quantize_linear(x, scale, zero_point, storage, axis=None):
    """ONNX QuantizeLinear in f32 (division, then np.rint = ties to even).
    Returns int64 values in the storage range."""
    x = np.asarray(x, np.float32)
    s = expand(np.asarray(scale, np.float32), x.shape, axis)
    z = expand(np.asarray(zero_point, np.int64), x.shape, axis)
    lo, hi = RANGES[storage]
    q = np.rint(x / s).astype(np.float64) + z
    return np.clip(np.nan_to_num(q, nan=lo), lo, hi).astype(np.int64)


def dequantize_linear(q, scale, zero_point, axis=None):
    """ONNX DequantizeLinear: exact int32 subtraction, one f32 product."""
    q = np.asarray(q, np.int64)
    s = expand(np.asarray(scale, np.float32), q.shape, axis)
    z = expand(np.asarray(zero_point, np.int64), q.shape, axis)
    return ((q - z).astype(np.int32).astype(np.float32) * s).astype(np.float32)


def matmul_integer(a, b, a_zero_point=0, b_zero_point=0):
    """ONNX MatMulInteger: (A - za) @ (B - zb) accumulated in int32 (b's zero
    point may be per output column)."""
    a = np.asarray(a, np.int64) - np.asarray(a_zero_point, np.int64)
    b = np.asarray(b, np.int64) - np.asarray(b_zero_point, np.int64)
    return np.matmul(a, b).astype(np.int32)


def qlinear_matmul(a, sa, za, b, sb, zb, sy, zy, storage):
    """ONNX QLinearMatMul as the ONNX reference implementation computes it:
    the int32 product times the f32 multiplier sa * sb / sy (in float64),
    rounded half to even, plus zy, saturated."""
    c = matmul_integer(a, b, za, zb).astype(np.float64)
    m = np.float32(np.float32(sa) * np.float32(sb)) / np.float32(sy)
    lo, hi = RANGES[storage]
    return np.clip(np.rint(c * np.float64(np.float32(m))) + zy, lo, hi).astype(
        np.int64)


# FP8 (OCP 8-bit floating point, E4M3FN and E5M2), decoded from the bit
# fields so that no float8 numpy type is needed.
FP8 = {"f8E4M3FN": (4, 3, 7, 448.0), "f8E5M2": (5, 2, 15, 57344.0)}


def fp8_values(fmt):
    """The value of each of the 256 bit patterns (NaN where it encodes NaN)."""
    e_bits, m_bits, bias, _ = FP8[fmt]
    out = np.empty(256, np.float64)
    for i in range(256):
        sign = -1.0 if i & 0x80 else 1.0
        e = (i >> m_bits) & ((1 << e_bits) - 1)
        m = i & ((1 << m_bits) - 1)
        if fmt == "f8E4M3FN" and e == 15 and m == 7:
            out[i] = np.nan
        elif fmt == "f8E5M2" and e == 31:
            out[i] = sign * np.inf if m == 0 else np.nan
        elif e == 0:
            out[i] = sign * m * 2.0 ** (1 - bias - m_bits)
        else:
            out[i] = sign * (1 + m / 2.0 ** m_bits) * 2.0 ** (e - bias)
    return out


def quantize_fp8(x, scale, fmt):
    """ONNX QuantizeLinear to FP8 with saturate=1: x / scale (f32) rounded to
    the nearest FP8 value, ties to the even mantissa, clamped to +-max.
    Returns the decoded (f64) values."""
    v = (np.asarray(x, np.float32) / np.float32(scale)).astype(np.float64)
    table = fp8_values(fmt)
    finite = np.where(np.isfinite(table))[0]
    vals = table[finite]
    out = np.empty(v.shape, np.float64)
    for idx, t in np.ndenumerate(v):
        if np.isnan(t):
            out[idx] = np.nan
            continue
        t = np.clip(t, -FP8[fmt][3], FP8[fmt][3])
        d = np.abs(vals - t)
        best = np.where(d == d.min())[0]
        # Ties: the even mantissa (lowest bit of the pattern clear).
        pick = [b for b in best if finite[b] % 2 == 0] or list(best)
        out[idx] = vals[pick[0]]
    return out


def check_outputs(out_dir, refs, bound):
    """Compare DIR/out<i>.npy with the i-th reference of `refs` (an ordered
    {name: expected} dict, computed in float64). `bound(expected, i)` gives
    the allowed |got - expected| per element. Prints one
    `name: max_abs_err=E PASS|FAIL` line per output; returns True when all
    pass (shape equal and every element within its bound)."""
    import os
    ok = True
    for i, (name, exp) in enumerate(refs.items()):
        got = np.load(os.path.join(out_dir, f"out{i}.npy")).astype(np.float64)
        err = np.abs(got - exp) if got.shape == exp.shape else np.array([np.inf])
        good = got.shape == exp.shape and bool(np.all(err <= bound(exp, i)))
        print(f"{name}: max_abs_err={err.max():.3g} "
              f"{'PASS' if good else 'FAIL'}")
        ok &= good
    return ok
