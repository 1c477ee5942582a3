# Checks the numpy reference of the example blocks (llmc_ref.gpt2_block,
# gpt2_model, llama_block) against torch implementations written separately
# here, on models made by examples/generate.py and read back from their
# dialect_resources blobs by llmc_check.read_example. Also shows that a
# correct float32 implementation (torch in f32) passes the default `model`
# tolerance of llmc_check, i.e. the integration tests can pass. No llmc needed.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 16 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_model --d 32 --heads 2 --seq 8 --layers 2 --vocab 50 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py llama_block --d 64 --heads 4 --kv-heads 2 --seq 16 --ffn 96 --pos-offset 5 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py llama_block --d 64 --heads 4 --kv-heads 1 --seq 16 --rope-mode interleaved --name llama_il --out-dir %t
# RUN: %python %s %t | FileCheck %s
# CHECK: gpt2_block f64 PASS
# CHECK: gpt2_block f32 PASS
# CHECK: gpt2_model f64 PASS
# CHECK: gpt2_model f32 PASS
# CHECK: llama_block f64 PASS
# CHECK: llama_block f32 PASS
# CHECK: llama_il f64 PASS
# CHECK: llama_il f32 PASS

import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

import llmc_check

d = sys.argv[1]


def heads(x, n):
  b, s, dm = x.shape
  return x.view(b, s, n, dm // n).transpose(1, 2)


def merge(x):
  b, n, s, hd = x.shape
  return x.transpose(1, 2).reshape(b, s, n * hd)


def causal_attn(q, k, v):
  g = q.shape[1] // k.shape[1]
  k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
  s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
  n = s.shape[-1]
  s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), -math.inf)
  return torch.softmax(s, -1) @ v


def gpt2_block(x, w, nh, p=""):
  dm = x.shape[-1]
  h = F.layer_norm(x, (dm,), w[p + "ln1_g"], w[p + "ln1_b"], 1e-5)
  q, k, v = (h @ w[p + "w_qkv"] + w[p + "b_qkv"]).split(dm, -1)
  x = x + merge(causal_attn(heads(q, nh), heads(k, nh), heads(v, nh))) @ w[p + "w_proj"] + w[p + "b_proj"]
  h = F.layer_norm(x, (dm,), w[p + "ln2_g"], w[p + "ln2_b"], 1e-5)
  return x + F.gelu(h @ w[p + "w_fc"] + w[p + "b_fc"], approximate="tanh") @ w[p + "w_out"] + w[p + "b_out"]


def rope(x, pos, mode, theta):
  hd = x.shape[-1]
  inv = (theta ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)).float()
  ang = (pos.float()[:, None] * inv[None]).to(x.dtype)  # angles in f32
  c, s = ang.cos(), ang.sin()
  if mode == "rotate_half":
    c, s = torch.cat([c, c], -1), torch.cat([s, s], -1)
    return x * c + torch.cat([-x[..., hd // 2:], x[..., :hd // 2]], -1) * s
  u, v = x[..., 0::2], x[..., 1::2]
  return torch.stack([u * c - v * s, v * c + u * s], -1).flatten(-2)


def llama_block(x, pos, w, cfg):
  def rms(t, g):
    return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6) * g
  h = rms(x, w["attn_norm"])
  q = rope(heads(h @ w["wq"], cfg["heads"]), pos, cfg["rope_mode"], cfg["theta"])
  k = rope(heads(h @ w["wk"], cfg["kv_heads"]), pos, cfg["rope_mode"], cfg["theta"])
  v = heads(h @ w["wv"], cfg["kv_heads"])
  x = x + merge(causal_attn(q, k, v)) @ w["wo"]
  h = rms(x, w["mlp_norm"])
  return x + (F.silu(h @ w["w_gate"]) * (h @ w["w_up"])) @ w["w_down"]


def run_torch(cfg, w, inputs, dtype):
  w = {k: torch.from_numpy(np.asarray(v, dtype=np.float64)).to(dtype) for k, v in w.items()}
  kind = cfg["kind"]
  if kind == "gpt2_block":
    return gpt2_block(torch.from_numpy(inputs[0]).to(dtype), w, cfg["heads"])
  if kind == "gpt2_model":
    ids = torch.from_numpy(inputs[0])
    x = w["wte"][ids] + w["wpe"][: ids.shape[1]][None]
    for i in range(cfg["layers"]):
      x = gpt2_block(x, w, cfg["heads"], f"h{i}_")
    x = F.layer_norm(x, (x.shape[-1],), w["lnf_g"], w["lnf_b"], 1e-5)
    return x @ w["wte"].T
  return llama_block(torch.from_numpy(inputs[0]).to(dtype), torch.from_numpy(inputs[1]), w, cfg)


for stem in sys.argv[2:] or ["gpt2_block", "gpt2_model", "llama_block", "llama_il"]:
  path = os.path.join(d, stem)
  cfg, w = llmc_check.read_example(path + ".mlir")
  n = 2 if cfg["kind"] == "llama_block" else 1
  inputs = [np.load(f"{path}.arg{i}.npy") for i in range(n)]
  ref = llmc_check.run_reference(cfg, w, {f"arg{i}": x for i, x in enumerate(inputs)})
  for name, dtype, tol in [("f64", torch.float64, (1e-9, 1e-9)), ("f32", torch.float32, None)]:
    got = run_torch(cfg, w, inputs, dtype).numpy()
    rtol, atol = tol or llmc_check.TOLERANCES["model"]
    want = ref if dtype == torch.float64 else ref.astype(np.float32)
    ok = llmc_check.compare(f"{stem} {name}", got, want, rtol, atol)
    print(f"{stem} {name} {'PASS' if ok else 'FAIL'}")
