#!/usr/bin/env python3
# ===- quant_prefill.py - weight-only matmuls with many rows vs numpy -----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Weight-only matmuls with more rows of x than the decode kernels take
(prefill): x[M, K] @ dequantize(w) with w stored [N, K] (transpose_b, as
torch.nn.Linear) or [K, N]; i8/u8/i4/u4, per tensor, per channel and in
groups along K, with and without zero points, inline and dense_resource
constants, and runtime (function argument) 8-bit weights. llm.dequant_matmul
lowers them with dequantized panels (QuantToLinalg.cpp,
buildPanelDequantMatmul; the runtime [N, K] weight keeps the generic
contraction). K = 512 is two panels of 256; N = 160 is two blocks of 80,
N = 200 two of 100, N = 48 one. Every output is compared with a float64
numpy reference of the ONNX definitions: |got - exp| <= 1e-5 + 1e-5 |exp| +
1e-6 sum_k |x| |dq(w)| (f32 accumulation over K = 512 in another order).

  quant_prefill.py gen DIR [--inline]  writes DIR/model.mlir, DIR/x.npy,
                                       DIR/w<i>.npy (runtime weights)
                                       (--inline: no dense_resource, which
                                       the unfused path cannot lower for i4)
                                       (--dynamic: x is [?, K] with the
                                       bound 16 (a prefill of any length),
                                       every 2-D constant-weight case on all
                                       M rows of x)
  quant_prefill.py check DIR OUTDIR [--dynamic]
"""

import os
import sys

import numpy as np

import llmc_quant_ref as R

K, M = 512, 12


def cases():
    rng = np.random.default_rng(17)
    out = []
    # name, storage, n, group (0: per channel, -1: per tensor), zero points,
    # weight stored [N, K], "const" / "resource" / "arg", x shape
    for name, storage, n, g, zp, tb, kind, xs in [
            ("i8_channel_nk", "i8", 160, 0, False, True, "const", (9, K)),
            ("u8_tensor_zp_nk", "u8", 48, -1, True, True, "const", (9, K)),
            ("i8_group64_zp_nk_resource", "i8", 200, 64, True, True,
             "resource", (9, K)),
            ("i4_group32_zp_nk", "i4", 160, 32, True, True, "const", (9, K)),
            ("i4_group128_nk_resource", "i4", 48, 128, False, True,
             "resource", (9, K)),
            ("u4_channel_zp_nk_rank3", "u4", 48, 0, True, True, "const",
             (3, 4, K)),
            ("i8_channel_kn", "i8", 160, 0, True, False, "const", (9, K)),
            ("i4_group32_zp_kn", "i4", 48, 32, True, False, "const", (9, K)),
            ("i8_channel_kn_arg", "i8", 48, 0, True, False, "arg", (9, K)),
            ("i8_channel_nk_arg", "i8", 48, 0, False, True, "arg", (2, K)),
            ("i8_channel_kn_m2", "i8", 48, 0, True, False, "const", (2, K)),
            # N = 131 (prime, > 128) has no panel size: a block of 128
            # channels and a last block of 3.
            ("i8_channel_n131_nk", "i8", 131, 0, False, True, "const", (9, K)),
            ("i4_group64_zp_n131_nk", "i4", 131, 64, True, True, "const",
             (9, K))]:
        lo, hi = {"i8": (-128, 127), "u8": (0, 255), "i4": (-8, 7),
                  "u4": (0, 15)}[storage]
        q = rng.integers(lo, hi + 1, (n, K) if tb else (K, n))
        groups = 1 if g <= 0 else K // g
        chans = 1 if g < 0 else n
        s = (rng.random((chans, groups)) * 0.05 + 0.01).astype(np.float32)
        z = (rng.integers(lo + 2, hi - 1, (chans, groups)) if zp else
             np.zeros((chans, groups), np.int64))
        out.append((name, storage, n, g, tb, kind, xs, q, s, z))
    return out


def qtype(storage, g, tb, s, z):
    """The quant type of a weight with scales s[n, group] / zero points."""
    if g < 0:
        return f"!quant.uniform<{storage}:f32, {float(s[0, 0])!r}:{int(z[0, 0])}>"
    nd = 0 if tb else 1
    if g == 0:
        return (f"!quant.uniform<{storage}:f32:{nd}, {{" + ", ".join(
            f"{float(a)!r}:{int(b)}" for a, b in zip(s[:, 0], z[:, 0])) + "}>")
    if tb:
        rows = [[(s[i, j], z[i, j]) for j in range(s.shape[1])]
                for i in range(s.shape[0])]
        blocks = f"{{0:1,1:{g}}}"
    else:
        rows = [[(s[i, j], z[i, j]) for i in range(s.shape[0])]
                for j in range(s.shape[1])]
        blocks = f"{{0:{g},1:1}}"
    text = ", ".join("{" + ", ".join(f"{float(a)!r}:{int(b)}" for a, b in r)
                     + "}" for r in rows)
    return f"!quant.uniform<{storage}:f32:{blocks}, {{{text}}}>"


def lit(a):
    return "[" + ", ".join(lit(v) for v in a) + "]" if np.ndim(a) else str(
        int(a))


def dims(shape):
    return "x".join(str(d) for d in shape)


def selected(dynamic):
    """The cases of a run: every one, or (dynamic) those with a constant
    weight and a 2-D x, which then take all M rows."""
    if not dynamic:
        return cases()
    return [c[:6] + ((M, K),) + c[7:] for c in cases()
            if c[5] != "arg" and len(c[6]) == 2]


def gen(d, inline=False, dynamic=False):
    rng = np.random.default_rng(5)
    np.save(os.path.join(d, "x.npy"),
            rng.standard_normal((M, K)).astype(np.float32))
    xarg = (f"%x: tensor<?x{K}xf32> {{llm.dim_bounds = array<i64: 16, {K}>}}"
            if dynamic else f"%x: tensor<{M}x{K}xf32>")
    args, body, rets, types, blobs = [xarg], [], [], [], []
    for i, (name, storage, n, g, tb, kind, xs, q, s, z) in enumerate(
            selected(dynamic)):
        st = "i8" if storage in ("i8", "u8") else "i4"
        qt = qtype(storage, g, tb, s, z)
        ws = q.shape
        # u8/u4 values are written as their signless bit patterns.
        bits = np.where(q > (127 if st == "i8" else 7),
                        q - (256 if st == "i8" else 16), q)
        if kind == "arg":
            np.save(os.path.join(d, f"w{i}.npy"), bits.astype(np.int8))
            args.append(f"%c{i}: tensor<{dims(ws)}x{st}>")
        else:
            if kind == "resource" and not inline:
                data = "0x04000000" + bits.astype(np.int8).tobytes().hex().upper()
                blobs.append(f"      w{i}: \"{data}\"")
                cst = f"dense_resource<w{i}>"
            else:
                cst = f"dense<{lit(bits)}>"
            body.append(f"  %c{i} = arith.constant {cst} : "
                        f"tensor<{dims(ws)}x{st}>\n")
        body.append(
            f"  %q{i} = quant.scast %c{i} : tensor<{dims(ws)}x{st}> to "
            f"tensor<{dims(ws)}x{qt}>\n"
            f"  %w{i} = llm.dequantize %q{i} : (tensor<{dims(ws)}x{qt}>) -> "
            f"tensor<{dims(ws)}xf32>\n")
        if dynamic:
            ys = f"?x{n}"
            attr = " {transpose_b}" if tb else ""
            body.append(
                f"  %y{i} = llm.matmul %x, %w{i}{attr} : (tensor<?x{K}xf32>,"
                f" tensor<{dims(ws)}xf32>) -> tensor<{ys}xf32>\n")
            rets.append(f"%y{i}")
            types.append(f"tensor<{ys}xf32>")
            continue
        rows = int(np.prod(xs[:-1]))
        body.append(
            f"  %s{i} = llm.slice %x {{starts = array<i64: 0, 0>, "
            f"limits = array<i64: {rows}, {K}>, strides = array<i64: 1, 1>}}"
            f" : (tensor<{M}x{K}xf32>) -> tensor<{rows}x{K}xf32>\n"
            f"  %x{i} = llm.reshape %s{i} : (tensor<{rows}x{K}xf32>) -> "
            f"tensor<{dims(xs)}xf32>\n")
        ys = xs[:-1] + (n,)
        attr = " {transpose_b}" if tb else ""
        body.append(
            f"  %y{i} = llm.matmul %x{i}, %w{i}{attr} : (tensor<{dims(xs)}xf32>,"
            f" tensor<{dims(ws)}xf32>) -> tensor<{dims(ys)}xf32>\n")
        rets.append(f"%y{i}")
        types.append(f"tensor<{dims(ys)}xf32>")
    text = (f"func.func @main({', '.join(args)}) -> ({', '.join(types)}) {{\n"
            + "".join(body) +
            f"  return {', '.join(rets)} : {', '.join(types)}\n}}\n")
    if blobs:
        text += ("{-#\n  dialect_resources: {\n    builtin: {\n" +
                 ",\n".join(blobs) + "\n    }\n  }\n#-}\n")
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(text)


def check(d, out, dynamic=False):
    x = np.load(os.path.join(d, "x.npy")).astype(np.float64)
    ok = True
    for i, (name, storage, n, g, tb, kind, xs, q, s, z) in enumerate(
            selected(dynamic)):
        G = K if g <= 0 else g
        qn = q if tb else q.T  # [n, K]
        sf = np.repeat(np.broadcast_to(s, (n, s.shape[1])), G, axis=1)
        zf = np.repeat(np.broadcast_to(z, (n, z.shape[1])), G, axis=1)
        dq = R.dequantize_linear(qn, sf, zf).astype(np.float64)
        rows = int(np.prod(xs[:-1]))
        exp = (x[:rows] @ dq.T).reshape(xs[:-1] + (n,))
        mag = (np.abs(x[:rows]) @ np.abs(dq).T).reshape(exp.shape)
        bound = 1e-5 + 1e-5 * np.abs(exp) + 1e-6 * mag
        got = np.load(os.path.join(out, f"out{i}.npy")).astype(np.float64)
        good = got.shape == exp.shape and bool(
            np.all(np.abs(got - exp) <= bound))
        err = np.abs(got - exp).max() if got.shape == exp.shape else np.inf
        print(f"{name}: max_abs_err={err:.3g} {'PASS' if good else 'FAIL'}")
        ok &= good
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], inline="--inline" in sys.argv[3:],
            dynamic="--dynamic" in sys.argv[3:])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3],
                            dynamic="--dynamic" in sys.argv[4:]) else 1)
