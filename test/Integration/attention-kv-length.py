# llm.attention with `kv_length` L: a key/value cache of capacity 40 of
# which only the first L rows are valid (the rows beyond hold garbage, here
# large values that would change every result if they were read). One
# module, compiled three ways and run at every L:
#   * `tiles`: the flash lowering with attention-tile=8,16 (Tk = 16: L = 16
#     is one full key tile, L = 19 a partial last tile, L = 5 < Tk, the
#     capacity 40 is not a multiple of 16, so its last tile is shifted back);
#   * `default`: the flash lowering with the host target's tile;
#   * `noopt`: --no-opt (the materialized lowering, the reference path).
# Outputs: Sq = 1 (decode) causal and not, Sq = 5 causal and not (GQA: 4
# query heads over 2 key/value heads), layout bshd with Sq = 5 causal and
# Sq = 1 not, and an i32 kv_length (Sq = 5 causal). L in {0, 1, 5, 16, 19,
# 40} and the clamped -3 (as 0) and 100 (as 40).
# Each result is checked against the float64 numpy reference
# (llmc_ref.attention with kv_length; f32 tolerance rtol 1e-5, atol 1e-6),
# and the flash results against the materialized ones (rtol 1e-5, atol 1e-6).
#
# RUN: %python_ext %s | FileCheck %s
#
# CHECK: L=0: 35 checks PASS
# CHECK: L=1: 35 checks PASS
# CHECK: L=5: 35 checks PASS
# CHECK: L=16: 35 checks PASS
# CHECK: L=19: 35 checks PASS
# CHECK: L=40: 35 checks PASS
# CHECK: L=-3: 35 checks PASS
# CHECK: L=100: 35 checks PASS
# CHECK: attention-kv-length: all checks passed

import sys

import numpy as np

import llmc
import llmc_ref

CAP = 40
MODULE = """
func.func @main(%q1: tensor<1x4x1x16xf32>, %q5: tensor<1x4x5x16xf32>,
                %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x8xf32>,
                %qb: tensor<1x5x4x16xf32>, %qb1: tensor<1x1x4x16xf32>,
                %kb: tensor<1x40x2x16xf32>, %vb: tensor<1x40x2x8xf32>,
                %len: tensor<i64>, %len32: tensor<i32>)
    -> (tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>, tensor<1x4x5x8xf32>,
        tensor<1x4x5x8xf32>, tensor<1x5x4x8xf32>, tensor<1x1x4x8xf32>,
        tensor<1x4x5x8xf32>) {
  %0 = llm.attention %q1, %k, %v kv_length %len {causal}
      : (tensor<1x4x1x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x8xf32>, tensor<i64>) -> tensor<1x4x1x8xf32>
  %1 = llm.attention %q1, %k, %v kv_length %len
      : (tensor<1x4x1x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x8xf32>, tensor<i64>) -> tensor<1x4x1x8xf32>
  %2 = llm.attention %q5, %k, %v kv_length %len {causal}
      : (tensor<1x4x5x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x8xf32>, tensor<i64>) -> tensor<1x4x5x8xf32>
  %3 = llm.attention %q5, %k, %v kv_length %len
      : (tensor<1x4x5x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x8xf32>, tensor<i64>) -> tensor<1x4x5x8xf32>
  %4 = llm.attention %qb, %kb, %vb kv_length %len {causal, layout = #llm.attention_layout<bshd>}
      : (tensor<1x5x4x16xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2x8xf32>, tensor<i64>) -> tensor<1x5x4x8xf32>
  %5 = llm.attention %qb1, %kb, %vb kv_length %len {layout = #llm.attention_layout<bshd>}
      : (tensor<1x1x4x16xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2x8xf32>, tensor<i64>) -> tensor<1x1x4x8xf32>
  %6 = llm.attention %q5, %k, %v kv_length %len32 {causal}
      : (tensor<1x4x5x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x8xf32>, tensor<i32>) -> tensor<1x4x5x8xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>, tensor<1x4x5x8xf32>,
      tensor<1x4x5x8xf32>, tensor<1x5x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x4x5x8xf32>
}
"""

rng = np.random.default_rng(18)


q1 = rng.standard_normal((1, 4, 1, 16)).astype(np.float32)
q5 = rng.standard_normal((1, 4, 5, 16)).astype(np.float32)
k = rng.standard_normal((1, 2, CAP, 16)).astype(np.float32)
v = rng.standard_normal((1, 2, CAP, 8)).astype(np.float32)
qb = rng.standard_normal((1, 5, 4, 16)).astype(np.float32)
qb1 = rng.standard_normal((1, 1, 4, 16)).astype(np.float32)
kb = rng.standard_normal((1, CAP, 2, 16)).astype(np.float32)
vb = rng.standard_normal((1, CAP, 2, 8)).astype(np.float32)

models = {
    "tiles": llmc.compile(MODULE, attention_tile=(8, 16)),
    "default": llmc.compile(MODULE),
    "noopt": llmc.compile(MODULE, no_opt=True),
}

ok = True
for length in (0, 1, 5, 16, 19, 40, -3, 100):
  # The rows at and beyond the valid prefix are garbage (large values).
  valid = min(max(length, 0), CAP)
  kk, vv, kkb, vvb = k.copy(), v.copy(), kb.copy(), vb.copy()
  kk[:, :, valid:] = 1e3 * np.sign(kk[:, :, valid:])
  vv[:, :, valid:] = -1e3
  kkb[:, valid:] = 1e3 * np.sign(kkb[:, valid:])
  vvb[:, valid:] = -1e3
  args = (q1, q5, kk, vv, qb, qb1, kkb, vvb, np.array(length, dtype=np.int64),
          np.array(length, dtype=np.int32))
  ref = llmc_ref.attention
  expected = [
      ref(q1, kk, vv, causal=True, kv_length=length),
      ref(q1, kk, vv, kv_length=length),
      ref(q5, kk, vv, causal=True, kv_length=length),
      ref(q5, kk, vv, kv_length=length),
      ref(qb, kkb, vvb, causal=True, kv_length=length, layout="bshd"),
      ref(qb1, kkb, vvb, kv_length=length, layout="bshd"),
      ref(q5, kk, vv, causal=True, kv_length=length),
  ]
  results = {name: m(*args) for name, m in models.items()}
  checks, failures = 0, []
  for name, outs in results.items():
    for i, (a, e) in enumerate(zip(outs, expected)):
      a64 = a.astype(np.float64)
      checks += 1
      if a.shape != e.shape or not np.all(np.abs(a64 - e) <= 1e-6 + 1e-5 * np.abs(e)):
        failures.append("%s out%d: max abs err %.3g" % (name, i, np.max(np.abs(a64 - e))))
      if name != "noopt":
        m = results["noopt"][i].astype(np.float64)
        checks += 1
        if not np.all(np.abs(a64 - m) <= 1e-6 + 1e-5 * np.abs(m)):
          failures.append("%s out%d vs noopt: max abs diff %.3g" % (name, i, np.max(np.abs(a64 - m))))
  # 7 outputs x 3 compiles against numpy, 7 x 2 flash against materialized.
  assert checks == 35
  if failures:
    ok = False
    print("L=%d: FAIL %s" % (length, "; ".join(failures)))
  else:
    print("L=%d: %d checks PASS" % (length, checks))
print("attention-kv-length: all checks passed" if ok else "attention-kv-length: FAILED")
sys.exit(0 if ok else 1)
