# Reductions over the dynamic sequence dimension (sentence-transformers'
# mean pooling exported with a dynamic sequence axis reduces over it): one
# module compiled ONCE with a `?` sequence of bound 16 runs lengths 1, 5 and
# 16, optimized and with the reference lowering (no_opt), and every result
# is compared with float64 numpy: |llmc - numpy| <= 1e-5 + 1e-5 |numpy|
# (f32: the sums accumulate in f64 and round once), 2e-3 relative for the
# f16 mean (its inputs and result are f16).
#   masked sum   sum_s x[b, s, :] * m[b, s, 0]           (a fused producer)
#   mean         mean_s x, keepdims                      (divides by the
#                                                         run-time length)
#   max          max_s x
#   mean of all  mean over (s, hidden): 24 * length elements
#   f16 mean     mean_s of an f16 input
#   min, prod    min_s x, prod_s of values near 1 (f32 accumulators)
# and integer reductions over the hidden size that keep the sequence (an
# i32 max, keepdims, and an i64 sum): exact.
#
# RUN: %python_ext %s | FileCheck %s
# CHECK: opt len 1: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: opt len 5: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: opt len 16: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: no_opt len 1: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: no_opt len 5: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: no_opt len 16: masked sum {{.*}} PASS, mean {{.*}} PASS, max {{.*}} PASS, mean of all {{.*}} PASS, f16 mean {{.*}} PASS, min {{.*}} PASS, prod {{.*}} PASS
# CHECK: int len 1: i32 max exact PASS, i64 sum exact PASS
# CHECK: int len 5: i32 max exact PASS, i64 sum exact PASS
# CHECK: int len 16: i32 max exact PASS, i64 sum exact PASS
# CHECK: reduce-dynamic-seq: all checks passed

import sys

import numpy as np

import llmc

MODULE = """
func.func @main(%x: tensor<2x?x24xf32> {llm.dim_bounds = array<i64: 2, 16, 24>},
                %m: tensor<2x?x1xf32> {llm.dim_bounds = array<i64: 2, 16, 1>},
                %h: tensor<2x?x24xf16> {llm.dim_bounds = array<i64: 2, 16, 24>})
    -> (tensor<2x24xf32>, tensor<2x1x24xf32>, tensor<2x24xf32>, tensor<2xf32>,
        tensor<2x24xf16>, tensor<2x24xf32>, tensor<2x24xf32>) {
  %p = llm.mul %x, %m : (tensor<2x?x24xf32>, tensor<2x?x1xf32>) -> tensor<2x?x24xf32>
  %s = llm.reduce_sum %p {axes = array<i64: 1>} : (tensor<2x?x24xf32>) -> tensor<2x24xf32>
  %mean = llm.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x?x24xf32>) -> tensor<2x1x24xf32>
  %mx = llm.reduce_max %x {axes = array<i64: 1>} : (tensor<2x?x24xf32>) -> tensor<2x24xf32>
  %all = llm.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x?x24xf32>) -> tensor<2xf32>
  %hm = llm.reduce_mean %h {axes = array<i64: 1>} : (tensor<2x?x24xf16>) -> tensor<2x24xf16>
  %mn = llm.reduce_min %x {axes = array<i64: 1>} : (tensor<2x?x24xf32>) -> tensor<2x24xf32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %eps = llm.constant dense<0.05> : tensor<f32>
  %sx = llm.mul %x, %eps : (tensor<2x?x24xf32>, tensor<f32>) -> tensor<2x?x24xf32>
  %nx = llm.add %sx, %one : (tensor<2x?x24xf32>, tensor<f32>) -> tensor<2x?x24xf32>
  %pr = llm.reduce_prod %nx {axes = array<i64: 1>} : (tensor<2x?x24xf32>) -> tensor<2x24xf32>
  return %s, %mean, %mx, %all, %hm, %mn, %pr : tensor<2x24xf32>, tensor<2x1x24xf32>, tensor<2x24xf32>, tensor<2xf32>, tensor<2x24xf16>, tensor<2x24xf32>, tensor<2x24xf32>
}
"""


def close(got, want, rtol, atol):
    err = np.abs(got.astype(np.float64) - want)
    good = got.shape == want.shape and bool(
        np.all(err <= atol + rtol * np.abs(want)))
    return "%.1e %s" % (float(err.max()), "PASS" if good else "FAIL"), good


rng = np.random.default_rng(7)
ok = True
for mode in ("opt", "no_opt"):
    model = llmc.compile(MODULE, no_opt=(mode == "no_opt"), cache=False)
    for length in (1, 5, 16):
        x = rng.standard_normal((2, length, 24)).astype(np.float32)
        m = (rng.random((2, length, 1)) < 0.7).astype(np.float32)
        h = rng.standard_normal((2, length, 24)).astype(np.float16)
        s, mean, mx, alls, hm, mn, pr = model(x, m, h)
        x64, h64 = x.astype(np.float64), h.astype(np.float64)
        checks = [
            ("masked sum", s, (x64 * m).sum(1), 1e-5, 1e-5),
            ("mean", mean, x64.mean(1, keepdims=True), 1e-5, 1e-5),
            ("max", mx, x64.max(1), 0, 0),
            ("mean of all", alls, x64.mean((1, 2)), 1e-5, 1e-5),
            ("f16 mean", hm, h64.mean(1), 2e-3, 2e-3),
            ("min", mn, x64.min(1), 0, 0),
            # x * 0.05 + 1 rounds in f32 before the product (16 factors).
            ("prod", pr, (x * np.float32(0.05) + np.float32(1)).astype(
                np.float64).prod(1), 2e-6, 2e-6),
        ]
        parts = []
        for name, got, want, rtol, atol in checks:
            text, good = close(got, want, rtol, atol)
            ok &= good
            parts.append("%s %s" % (name, text))
        print("%s len %d: %s" % (mode, length, ", ".join(parts)))
INT_MODULE = """
func.func @main(%a: tensor<2x?x4xi32> {llm.dim_bounds = array<i64: 2, 16, 4>},
                %b: tensor<2x?x4xi64> {llm.dim_bounds = array<i64: 2, 16, 4>})
    -> (tensor<2x?x1xi32>, tensor<2x?xi64>) {
  %mx = llm.reduce_max %a {axes = array<i64: 2>, keepdims = true} : (tensor<2x?x4xi32>) -> tensor<2x?x1xi32>
  %s = llm.reduce_sum %b {axes = array<i64: -1>} : (tensor<2x?x4xi64>) -> tensor<2x?xi64>
  return %mx, %s : tensor<2x?x1xi32>, tensor<2x?xi64>
}
"""
ints = llmc.compile(INT_MODULE, cache=False)
for length in (1, 5, 16):
    a = rng.integers(-2**31, 2**31 - 1, (2, length, 4), dtype=np.int32)
    b = rng.integers(-2**40, 2**40, (2, length, 4), dtype=np.int64)
    mx, s = ints(a, b)
    parts = []
    for name, got, want in (("i32 max", mx, a.max(2, keepdims=True)),
                            ("i64 sum", s, b.sum(2))):
        good = got.dtype == want.dtype and np.array_equal(got, want)
        ok &= good
        parts.append("%s exact %s" % (name, "PASS" if good else "FAIL"))
    print("int len %d: %s" % (length, ", ".join(parts)))
print("reduce-dynamic-seq: all checks passed" if ok else
      "reduce-dynamic-seq: FAILED")
sys.exit(0 if ok else 1)
