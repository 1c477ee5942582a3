# Cross-checks the numpy reference (test/lib/llmc_ref.py) against torch, an
# independent implementation, so that the integration tests' oracle is itself
# tested. Needs no llmc build.
#
# RUN: %python %s | FileCheck %s
# CHECK: reference-vs-torch: all {{[0-9]+}} checks passed

import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

import llmc_ref as ref

rng = np.random.default_rng(1234)
checks = 0
failed = []


def check(name, got, want, tol=1e-10):
  global checks
  checks += 1
  got = np.asarray(got, dtype=np.float64)
  want = np.asarray(want, dtype=np.float64)
  if got.shape != want.shape:
    failed.append(f"{name}: shape {got.shape} vs {want.shape}")
    return
  err = np.max(np.abs(got - want) / (1.0 + np.abs(want))) if got.size else 0.0
  if not err <= tol:
    failed.append(f"{name}: max error {err:.3g}")


def t(x):
  return torch.from_numpy(np.asarray(x, dtype=np.float64))


F64 = np.float64
x = rng.standard_normal((2, 3, 8))

# Unary ops and activations.
check("gelu", ref.gelu(x, dtype=F64), F.gelu(t(x)))
check("gelu_tanh", ref.gelu(x, "tanh", dtype=F64), F.gelu(t(x), approximate="tanh"))
check("silu", ref.silu(x, dtype=F64), F.silu(t(x)))
check("sigmoid", ref.sigmoid(x, dtype=F64), torch.sigmoid(t(x)))
check("erf", ref.erf(x, dtype=F64), torch.erf(t(x)))
check("relu", ref.relu(x, dtype=F64), torch.relu(t(x)))
check("rsqrt", ref.rsqrt(np.abs(x) + 0.1, dtype=F64), torch.rsqrt(t(np.abs(x) + 0.1)))
assert np.isnan(ref.max(np.array([np.nan, 1.0]), np.array([0.0, np.nan]))).all()
assert np.isnan(ref.min(np.array([np.nan, 1.0]), np.array([0.0, np.nan]))).all()

# Softmax and normalizations (layer_norm with axis != -1 too).
check("softmax", ref.softmax(x, axis=1, dtype=F64), torch.softmax(t(x), dim=1))
g, b = rng.standard_normal(8), rng.standard_normal(8)
check("layer_norm", ref.layer_norm(x, g, b, dtype=F64),
      F.layer_norm(t(x), (8,), t(g), t(b), eps=1e-5))
g2, b2 = rng.standard_normal((3, 8)), rng.standard_normal((3, 8))
check("layer_norm_axis1", ref.layer_norm(x, g2, b2, axis=1, dtype=F64),
      F.layer_norm(t(x), (3, 8), t(g2), t(b2), eps=1e-5), tol=1e-9)
w = rng.standard_normal(8)
check("rms_norm", ref.rms_norm(x, w, epsilon=1e-6, dtype=F64),
      t(x) * torch.rsqrt(t(x).pow(2).mean(-1, keepdim=True) + float(np.float32(1e-6))) * t(w))

# Matmul with transposes and batch broadcasting.
a, m = rng.standard_normal((2, 1, 4, 5)), rng.standard_normal((3, 6, 5))
check("matmul_tb", ref.matmul(a, m, transpose_b=True, dtype=F64),
      torch.matmul(t(a), t(m).transpose(-1, -2)))
check("matmul_ta", ref.matmul(np.swapaxes(a, -1, -2), np.swapaxes(m, -1, -2),
                              transpose_a=True, dtype=F64),
      torch.matmul(t(a), t(m).transpose(-1, -2)))

# Attention: MHA causal, GQA causal, float mask, bool mask, custom scale,
# decode-style Sq < Skv.
def torch_attn(q, k, v, mask=None, causal=False, scale=None):
  q, k, v = t(q), t(k), t(v)
  group = q.shape[1] // k.shape[1]
  k = k.repeat_interleave(group, dim=1)
  v = v.repeat_interleave(group, dim=1)
  s = (q @ k.transpose(-1, -2)) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
  if mask is not None:
    if mask.dtype == np.bool_:
      s = s.masked_fill(~torch.from_numpy(np.broadcast_to(mask, s.shape).copy()), -math.inf)
    else:
      s = s + t(mask)
  if causal:
    sq, skv = s.shape[-2], s.shape[-1]
    keep = torch.ones(sq, skv, dtype=torch.bool).tril(skv - sq)
    s = s.masked_fill(~keep, -math.inf)
  p = torch.softmax(s, dim=-1)
  p = torch.nan_to_num(p, nan=0.0)  # fully excluded rows -> 0
  return p @ v


q = rng.standard_normal((2, 4, 6, 8))
k = rng.standard_normal((2, 2, 6, 8))
v = rng.standard_normal((2, 2, 6, 5))
check("attn_gqa_causal", ref.attention(q, k, v, causal=True, dtype=F64),
      torch_attn(q, k, v, causal=True))
fm = rng.standard_normal((1, 1, 6, 6))
check("attn_float_mask", ref.attention(q, k, v, mask=fm, scale=0.3, dtype=F64),
      torch_attn(q, k, v, mask=fm, scale=float(np.float32(0.3))))
bm = rng.random((2, 1, 6, 6)) > 0.4
bm[0, 0, 2, :] = False  # one fully excluded row -> 0
out = ref.attention(q, k, v, mask=bm, dtype=F64)
check("attn_bool_mask", out, torch_attn(q, k, v, mask=bm))
assert np.all(out[0, :, 2, :] == 0.0)
kd, vd = rng.standard_normal((2, 2, 9, 8)), rng.standard_normal((2, 2, 9, 5))
check("attn_decode_causal", ref.attention(q[:, :, :2], kd, vd, causal=True, dtype=F64),
      torch_attn(q[:, :, :2], kd, vd, causal=True))
# Sq > Skv with causal: the first rows see nothing -> 0.
out = ref.attention(q, kd[:, :, :3], vd[:, :, :3], causal=True, dtype=F64)
check("attn_causal_empty_rows", out, torch_attn(q, kd[:, :, :3], vd[:, :, :3], causal=True))
assert np.all(out[:, :, :3] == 0.0)

# RoPE: rotate_half (HF LLaMA) and interleaved (Meta LLaMA, complex form).
xr = rng.standard_normal((1, 2, 5, 8))
pos = np.array([0, 1, 2, 7, 30])
ang = torch.from_numpy(ref.rope_angles(pos, 8).astype(np.float64))  # [5, 4]
cos = torch.cat([ang.cos(), ang.cos()], -1)
sin = torch.cat([ang.sin(), ang.sin()], -1)
rot = torch.cat([-t(xr)[..., 4:], t(xr)[..., :4]], -1)
check("rope_rotate_half", ref.rope(xr, pos, dtype=F64), t(xr) * cos + rot * sin)
xc = torch.view_as_complex(t(xr).reshape(1, 2, 5, 4, 2).contiguous())
want = torch.view_as_real(xc * torch.polar(torch.ones_like(ang), ang)).reshape(1, 2, 5, 8)
check("rope_interleaved", ref.rope(xr, pos, "interleaved", dtype=F64), want)
inv = 1.0 / (10000.0 ** (torch.arange(0, 8, 2, dtype=torch.float64) / 8))
check("rope_angles", ref.rope_angles(pos, 8), torch.outer(t(pos), inv), tol=1e-6)

# Embedding (negative and out-of-range ids), reductions, data movement.
tab = rng.standard_normal((10, 3))
ids = np.array([[0, 9, -1, -10, 3, -9]])
check("embedding", ref.embedding(tab, ids), tab[[[0, 9, 9, 0, 3, 1]]])
# An id outside [-V, V) is an error (the compiled code reports it at run
# time), as torch's embedding raises.
for bad in ([[12]], [[-11]]):
  checks += 1
  try:
    ref.embedding(tab, np.array(bad))
    failed.append(f"embedding{bad}: no error")
  except ValueError:
    pass
  try:
    F.embedding(torch.tensor(bad), t(tab))
    failed.append(f"torch embedding{bad}: no error")
  except (IndexError, RuntimeError):
    pass
check("reduce_mean_keep", ref.reduce_mean(x, [0, -1], keepdims=True, dtype=F64),
      t(x).mean(dim=(0, 2), keepdim=True))
check("reduce_max", ref.reduce_max(x, [1], dtype=F64), t(x).amax(dim=1))
check("slice", ref.slice(x, [0, 1, 1], [2, 3, 8], [1, 1, 3]), t(x)[:, 1:3, 1:8:3])

# bf16 rounding against torch's conversion (RNE).
vals = rng.standard_normal(10000).astype(np.float32) * 100
check("bf16", ref.to_bf16(vals), torch.from_numpy(vals).to(torch.bfloat16).to(torch.float32),
      tol=0.0)
check("f32_to_i32_sat", ref.cast(np.array([3.7, -3.7, 1e10, -1e10], np.float32), "i32"),
      [3, -3, 2**31 - 1, -(2**31)], tol=0.0)

if failed:
  print("reference-vs-torch: FAILED")
  for f in failed:
    print("  " + f)
  sys.exit(1)
print(f"reference-vs-torch: all {checks} checks passed")
