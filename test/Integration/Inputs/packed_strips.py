#!/usr/bin/env python3
# ===- packed_strips.py - matmuls by constants of partial strips --------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Matmuls `x @ W` by constant weights W[K, N] whose N is not a multiple of
the AVX-512 strip width (32): the compiler packs W at compile time into
ceil(N / 32) strips [K, 32], the last one zero-padded, and both the decode
matvecs (1 row) and the prefill matmuls (many rows, static or a dynamic
sequence) read the strips, the columns past the last whole strip as tiles of
whole vectors and a last partial one. N = 81 (remainder 17 = 16 + 1),
80 (remainder 16, one vector), 1000 (remainder 8, less than a vector), 50
(one strip and 18 columns). The weights are `dense_resource` blobs, as an
imported model holds them.

Compared with a float64 numpy reference: |got - ref| <= 1e-5 * sum_k |x w|
+ 1e-6 (f32 accumulation over K <= 96 in another order than the
reference); a column read from the wrong strip or the padding gives errors
of order sum_k |x w|.

  packed_strips.py gen DIR          writes DIR/model.mlir and the inputs
  packed_strips.py check DIR OUT    compares OUT/out*.npy of the entries
                                    decode, prefill and prefill_dyn
"""

import os
import sys

import numpy as np

# name, K, N
WEIGHTS = [("w81", 64, 81), ("w80", 64, 80), ("w1000", 96, 1000), ("w50", 64, 50)]
ROWS = 37  # rows of the prefill inputs
BOUND = 48  # the dynamic sequence's bound


def weights():
    rng = np.random.default_rng(5)
    return {name: rng.uniform(-1, 1, (k, n)).astype(np.float32) for name, k, n in WEIGHTS}


def inputs():
    rng = np.random.default_rng(6)
    out = {}
    for name, k, _ in WEIGHTS:
        out["x_" + name] = rng.uniform(-1, 1, (1, k)).astype(np.float32)
        out["xm_" + name] = rng.uniform(-1, 1, (ROWS, k)).astype(np.float32)
    return out


def blob(a):
    # dense_resource hex: a little-endian u32 alignment, then the bytes.
    return "0x04000000" + a.tobytes().hex().upper()


def gen(d):
    w = weights()
    lines = []
    for entry, rows in [("decode", "1"), ("prefill", str(ROWS))]:
        args = ", ".join("%%x%d: tensor<%sx%dxf32>" % (i, rows, k) for i, (_, k, _) in enumerate(WEIGHTS))
        rets = ", ".join("tensor<%sx%dxf32>" % (rows, n) for _, _, n in WEIGHTS)
        lines.append("func.func @%s(%s) -> (%s) {" % (entry, args, rets))
        for i, (name, k, n) in enumerate(WEIGHTS):
            lines.append("  %%w%d = arith.constant dense_resource<%s> : tensor<%dx%dxf32>" % (i, name, k, n))
            lines.append("  %%r%d = llm.matmul %%x%d, %%w%d : (tensor<%sx%dxf32>, tensor<%dx%dxf32>) -> tensor<%sx%dxf32>"
                         % (i, i, i, rows, k, k, n, rows, n))
        lines.append("  return %s : %s" % (", ".join("%%r%d" % i for i in range(len(WEIGHTS))), rets))
        lines.append("}")
    # A prefill over a dynamic sequence (llm.dim_bounds): the rows are tiled
    # for the bound, the loops run to the run-time length.
    _, k, n = WEIGHTS[0]
    lines.append("func.func @prefill_dyn(%%x: tensor<1x?x%dxf32> {llm.dim_bounds = array<i64: 1, %d, %d>}) -> tensor<1x?x%dxf32> {"
                 % (k, BOUND, k, n))
    lines.append("  %%w = arith.constant dense_resource<w81> : tensor<%dx%dxf32>" % (k, n))
    lines.append("  %%r = llm.matmul %%x, %%w : (tensor<1x?x%dxf32>, tensor<%dx%dxf32>) -> tensor<1x?x%dxf32>" % (k, k, n, n))
    lines.append("  return %%r : tensor<1x?x%dxf32>" % n)
    lines.append("}")
    lines.append("{-#\n  dialect_resources: {\n    builtin: {")
    lines.append(",\n".join('      %s: "%s"' % (name, blob(w[name])) for name, _, _ in WEIGHTS))
    lines.append("    }\n  }\n#-}")
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for name, a in inputs().items():
        np.save(os.path.join(d, name + ".npy"), a)
    np.save(os.path.join(d, "x_dyn.npy"), inputs()["xm_w81"][None])


def compare(label, got, x, w):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = x64 @ w64
    bound = 1e-5 * (np.abs(x64) @ np.abs(w64)) + 1e-6
    ok = got.shape == ref.shape and bool(np.all(np.abs(got - ref) <= bound))
    err = float(np.max(np.abs(got - ref))) if got.shape == ref.shape else float("inf")
    print("%s: shape %s max abs err %.3g %s" % (label, list(got.shape), err, "PASS" if ok else "FAIL"))
    return ok


def check(d, out):
    w, x = weights(), inputs()
    ok = True
    for entry, prefix in [("decode", "x_"), ("prefill", "xm_")]:
        for i, (name, _, _) in enumerate(WEIGHTS):
            got = np.load(os.path.join(out, entry, "out%d.npy" % i))
            ok &= compare("%s_%s" % (entry, name), got, x[prefix + name], w[name])
    got = np.load(os.path.join(out, "prefill_dyn", "out0.npy"))
    ok &= compare("prefill_dyn_w81", got[0], x["xm_w81"], w["w81"])
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
