#!/usr/bin/env python3
#===- generate.py - write the llm-dialect example models -----------------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
"""Writes the example models of examples/ in the `llm` dialect.

Each model is a `func.func @main` whose weights are `llm.constant
dense_resource<NAME>` tensors; the blobs live in the file's
`{-# dialect_resources: { builtin: { NAME: "0x..." } } #-}` section (hex
text: the 4-byte little-endian alignment, then the raw little-endian
elements). Weights and sample inputs come from numpy with a fixed seed, so the
output is reproducible. The first line of each file is a
`// llmc-example: {json}` header with the hyperparameters, which the test
helper `test/lib/llmc_check.py model` reads to run its numpy reference.

Kinds:
  gpt2_block   x[1,S,d] -> LN -> QKV matmul (+bias) -> split heads -> causal
               attention -> merge heads -> proj (+bias) -> residual -> LN ->
               matmul, gelu(tanh), matmul -> residual.   Inputs: arg0 = x.
  gpt2_model   ids[1,S] (i64) -> wte/wpe embeddings -> N gpt2 blocks -> final
               LN -> tied lm_head (matmul {transpose_b} against wte) ->
               logits[1,S,V].                            Inputs: arg0 = ids.
  gpt2_decoder gpt2_model for generation (docs/Generation.md): the S new ids
               and their positions (S <= --max-seq), past/total lengths and a
               key and a value cache per layer ([1, M, H, hd], llm.kv_cache),
               written by llm.kv_cache_update and read by bshd attention with
               kv_length; logits[1,S,V]. Run with `llmc generate`.
  llama_block  x[1,S,d], positions[S] (i64) -> RMSNorm -> q/k/v projections
               (Hkv < Hq, GQA) -> RoPE on q, k -> causal attention -> o-proj
               -> residual -> RMSNorm -> SwiGLU (down(silu(gate) * up)) ->
               residual.                                 Inputs: arg0, arg1.

Usage:
  generate.py                      # the default examples, into examples/
  generate.py llama_block --d 64 --heads 4 --kv-heads 2 --seq 16 --out-dir DIR
Writes DIR/KIND.mlir and DIR/KIND.argN.npy (override the file stem with
--name).
"""

import argparse
import json
import os
import sys

import numpy as np

#===----------------------------------------------------------------------===#
# MLIR text emission
#===----------------------------------------------------------------------===#


class Seq(int):
  """The sequence length of a --dynamic-seq model: an int that types print
  as `?` (shapes built from it keep it)."""


def ttype(shape, ety):
  return "tensor<" + "".join("?x" if isinstance(d, Seq) else f"{d}x" for d in shape) + ety + ">"


def broadcast_shapes(a, b):
  """numpy broadcasting that keeps a Seq dimension."""
  n = max(len(a), len(b))
  a = (1,) * (n - len(a)) + tuple(a)
  b = (1,) * (n - len(b)) + tuple(b)
  return tuple(x if isinstance(x, Seq) else y if isinstance(y, Seq) else (y if x == 1 else x)
               for x, y in zip(a, b))


def bf16_bytes(a):
  """float32 -> bfloat16 little-endian bytes (round to nearest even)."""
  u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
  return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")).tobytes()


class Emitter:
  """Builds the body of one function: each method appends an op and returns
  (ssa name, shape)."""

  def __init__(self, ety):
    self.ety = ety
    self.lines = []
    self.resources = {}  # name -> hex blob
    self.count = 0

  def t(self, shape, ety=None):
    return ttype(shape, ety or self.ety)

  def fresh(self):
    self.count += 1
    return f"%{self.count - 1}"

  def emit(self, text, shape):
    name = self.fresh()
    self.lines.append(f"    {name} = {text}")
    return name, shape

  def weight(self, name, value):
    """A dense_resource constant holding `value` (float64/32 numpy array)."""
    value = np.asarray(value, dtype=np.float32)
    if self.ety == "f32":
      raw, align = value.astype("<f4").tobytes(), 4
    elif self.ety == "f16":
      raw, align = value.astype("<f2").tobytes(), 2
    else:
      raw, align = bf16_bytes(value), 2
    self.resources[name] = "0x" + align.to_bytes(4, "little").hex().upper() + raw.hex().upper()
    v, _ = self.emit(f"llm.constant dense_resource<{name}> : {self.t(value.shape)}", value.shape)
    return v, value.shape

  def binary(self, op, a, b):
    shape = broadcast_shapes(a[1], b[1])
    return self.emit(f"llm.{op} {a[0]}, {b[0]} : ({self.t(a[1])}, {self.t(b[1])}) -> "
                     f"{self.t(shape)}", shape)

  def unary(self, op, a, attrs=""):
    return self.emit(f"llm.{op} {a[0]}{attrs} : {self.t(a[1])}", a[1])

  def matmul(self, a, b, transpose_b=False):
    n = b[1][-2] if transpose_b else b[1][-1]
    shape = a[1][:-1] + (n,)
    attr = " {transpose_b}" if transpose_b else ""
    return self.emit(f"llm.matmul {a[0]}, {b[0]}{attr} : ({self.t(a[1])}, {self.t(b[1])}) -> "
                     f"{self.t(shape)}", shape)

  def layer_norm(self, x, g, b, eps):
    return self.emit(
        f"llm.layer_norm {x[0]} scale {g[0]} bias {b[0]} {{axis = -1 : i64, epsilon = {eps:e} : f32}}"
        f" : ({self.t(x[1])}, {self.t(g[1])}, {self.t(b[1])}) -> {self.t(x[1])}", x[1])

  def rms_norm(self, x, w, eps):
    return self.emit(f"llm.rms_norm {x[0]} weight {w[0]} {{epsilon = {eps:e} : f32}} : "
                     f"({self.t(x[1])}, {self.t(w[1])}) -> {self.t(x[1])}", x[1])

  def reshape(self, x, shape):
    return self.emit(f"llm.reshape {x[0]} : ({self.t(x[1])}) -> {self.t(shape)}", tuple(shape))

  def transpose(self, x, perm):
    shape = tuple(x[1][p] for p in perm)
    return self.emit(f"llm.transpose {x[0]} {{permutation = array<i64: {', '.join(map(str, perm))}>}}"
                     f" : ({self.t(x[1])}) -> {self.t(shape)}", shape)

  def slice_last(self, x, start, stop):
    starts = [0] * (len(x[1]) - 1) + [start]
    limits = list(x[1][:-1]) + [stop]
    strides = [1] * len(x[1])
    shape = tuple(x[1][:-1]) + (stop - start,)
    fmt = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"
    return self.emit(f"llm.slice {x[0]} {{starts = {fmt(starts)}, limits = {fmt(limits)}, "
                     f"strides = {fmt(strides)}}} : ({self.t(x[1])}) -> {self.t(shape)}", shape)

  def attention(self, q, k, v):
    shape = q[1][:-1] + (v[1][-1],)
    return self.emit(f"llm.attention {q[0]}, {k[0]}, {v[0]} {{causal}} : ({self.t(q[1])}, "
                     f"{self.t(k[1])}, {self.t(v[1])}) -> {self.t(shape)}", shape)

  def kv_cache_update(self, cache, update, pos, axis):
    return self.emit(f"llm.kv_cache_update {cache[0]}, {update[0]}, {pos[0]} {{axis = {axis} : i64}} : "
                     f"({self.t(cache[1])}, {self.t(update[1])}, {self.t((), 'i64')}) -> "
                     f"{self.t(cache[1])}", cache[1])

  def attention_cached(self, q, k, v, kv_length):
    """bshd attention of q [B, S, H, hd] over the caches k, v [B, M, H, hd],
    reading their first kv_length rows (causal, aligned at the end)."""
    shape = q[1][:-1] + (v[1][-1],)
    return self.emit(f"llm.attention {q[0]}, {k[0]}, {v[0]} kv_length {kv_length[0]} "
                     f"{{causal, layout = #llm.attention_layout<bshd>}} : ({self.t(q[1])}, "
                     f"{self.t(k[1])}, {self.t(v[1])}, {self.t((), 'i64')}) -> {self.t(shape)}", shape)

  def rope(self, x, pos, mode, theta):
    mode_txt = "" if mode == "rotate_half" else f" mode <{mode}>"
    return self.emit(f"llm.rope {x[0]}, {pos[0]}{mode_txt} {{theta = {theta:e} : f32}} : "
                     f"({self.t(x[1])}, {self.t(pos[1], 'i64')}) -> {self.t(x[1])}", x[1])

  def embedding(self, table, ids):
    shape = tuple(ids[1]) + (table[1][1],)
    return self.emit(f"llm.embedding {table[0]}, {ids[0]} : ({self.t(table[1])}, "
                     f"{self.t(ids[1], 'i64')}) -> {self.t(shape)}", shape)

  def arange(self, n):
    vals = ", ".join(str(i) for i in range(n))
    return self.emit(f"llm.constant dense<[{vals}]> : {self.t((n,), 'i64')}", (n,))

  def heads(self, x, n):
    """[1, S, n*hd] -> [1, n, S, hd]."""
    b, s, d = x[1]
    return self.transpose(self.reshape(x, (b, s, n, d // n)), (0, 2, 1, 3))

  def merge(self, x):
    """[1, n, S, hd] -> [1, S, n*hd]."""
    b, n, s, hd = x[1]
    return self.reshape(self.transpose(x, (0, 2, 1, 3)), (b, s, n * hd))

  def module(self, header, args, results, seq_bound=None):
    def attrs(arg):
      s, extra = arg[0], list(arg[2:])
      if any(isinstance(d, Seq) for d in s):
        extra.insert(0, "llm.dim_bounds = array<i64: " + ", ".join(
            str(seq_bound if isinstance(d, Seq) else d) for d in s) + ">")
      return " {" + ", ".join(extra) + "}" if extra else ""
    arg_txt = ", ".join(f"%arg{i}: {self.t(a[0], a[1])}{attrs(a)}" for i, a in enumerate(args))
    res_txt = ", ".join(self.t(r[1]) for r in results)
    out = [f"// llmc-example: {json.dumps(header, sort_keys=True)}",
           "// Generated by examples/generate.py; do not edit. Regenerate with:",
           "//   " + header["command"],
           "module {",
           f"  func.func @main({arg_txt}) -> ({res_txt}) {{"]
    out += self.lines
    out.append(f"    return {', '.join(r[0] for r in results)} : {res_txt}")
    out += ["  }", "}", "", "{-#", "  dialect_resources: {", "    builtin: {"]
    items = list(self.resources.items())
    for i, (name, blob) in enumerate(items):
      out.append(f'      {name}: "{blob}"' + ("," if i + 1 < len(items) else ""))
    out += ["    }", "  }", "#-}", ""]
    return "\n".join(out)


#===----------------------------------------------------------------------===#
# Models
#===----------------------------------------------------------------------===#


def init_weights(rng, shapes):
  """Seeded weights: matrices ~ N(0, 1/fan_in) so activations stay O(1);
  norm gains 1 + 0.1 N(0, 1); biases 0.1 N(0, 1); embeddings N(0, 1)."""
  w = {}
  for name, (shape, kind) in shapes.items():
    if kind == "matrix":
      w[name] = rng.standard_normal(shape) / np.sqrt(shape[0])
    elif kind == "gain":
      w[name] = 1.0 + 0.1 * rng.standard_normal(shape)
    elif kind == "bias":
      w[name] = 0.1 * rng.standard_normal(shape)
    else:
      w[name] = rng.standard_normal(shape)
  return {k: v.astype(np.float32) for k, v in w.items()}


def gpt2_block_shapes(d, prefix=""):
  return {
      prefix + "ln1_g": ((d,), "gain"), prefix + "ln1_b": ((d,), "bias"),
      prefix + "w_qkv": ((d, 3 * d), "matrix"), prefix + "b_qkv": ((3 * d,), "bias"),
      prefix + "w_proj": ((d, d), "matrix"), prefix + "b_proj": ((d,), "bias"),
      prefix + "ln2_g": ((d,), "gain"), prefix + "ln2_b": ((d,), "bias"),
      prefix + "w_fc": ((d, 4 * d), "matrix"), prefix + "b_fc": ((4 * d,), "bias"),
      prefix + "w_out": ((4 * d, d), "matrix"), prefix + "b_out": ((d,), "bias"),
  }


def emit_gpt2_block(e, x, w, heads, eps, prefix=""):
  c = lambda n: e.weight(prefix + n, w[prefix + n])
  d = x[1][-1]
  h = e.layer_norm(x, c("ln1_g"), c("ln1_b"), eps)
  qkv = e.binary("add", e.matmul(h, c("w_qkv")), c("b_qkv"))
  q = e.heads(e.slice_last(qkv, 0, d), heads)
  k = e.heads(e.slice_last(qkv, d, 2 * d), heads)
  v = e.heads(e.slice_last(qkv, 2 * d, 3 * d), heads)
  a = e.merge(e.attention(q, k, v))
  x = e.binary("add", x, e.binary("add", e.matmul(a, c("w_proj")), c("b_proj")))
  h = e.layer_norm(x, c("ln2_g"), c("ln2_b"), eps)
  f = e.unary("gelu", e.binary("add", e.matmul(h, c("w_fc")), c("b_fc")), " approximate <tanh>")
  return e.binary("add", x, e.binary("add", e.matmul(f, c("w_out")), c("b_out")))


def emit_gpt2_decoder_block(e, x, w, heads, eps, caches, past, total, prefix=""):
  """A gpt2 block whose attention reads the key/value caches (bshd, [1, M, H,
  hd]) after writing the new rows at `past`."""
  c = lambda n: e.weight(prefix + n, w[prefix + n])
  b, s, d = x[1]
  hd = d // heads
  h = e.layer_norm(x, c("ln1_g"), c("ln1_b"), eps)
  qkv = e.binary("add", e.matmul(h, c("w_qkv")), c("b_qkv"))
  split = lambda t: e.reshape(t, (b, s, heads, hd))
  q = split(e.slice_last(qkv, 0, d))
  k = e.kv_cache_update(caches[0], split(e.slice_last(qkv, d, 2 * d)), past, 1)
  v = e.kv_cache_update(caches[1], split(e.slice_last(qkv, 2 * d, 3 * d)), past, 1)
  a = e.reshape(e.attention_cached(q, k, v, total), (b, s, d))
  x = e.binary("add", x, e.binary("add", e.matmul(a, c("w_proj")), c("b_proj")))
  h = e.layer_norm(x, c("ln2_g"), c("ln2_b"), eps)
  f = e.unary("gelu", e.binary("add", e.matmul(h, c("w_fc")), c("b_fc")), " approximate <tanh>")
  return e.binary("add", x, e.binary("add", e.matmul(f, c("w_out")), c("b_out")))


def gpt2_weights(rng, a, positions):
  shapes = {"wte": ((a.vocab, a.d), "embed"), "wpe": ((positions, a.d), "embed"),
            "lnf_g": ((a.d,), "gain"), "lnf_b": ((a.d,), "bias")}
  for i in range(a.layers):
    shapes.update(gpt2_block_shapes(a.d, f"h{i}_"))
  w = init_weights(rng, shapes)
  w["wte"] *= 0.5  # keep the tied logits moderate
  w["wpe"] *= 0.1
  return w


def build(kind, a):
  """Returns (mlir text, [input arrays])."""
  rng = np.random.default_rng(a.seed)
  e = Emitter(a.dtype)
  s, d = a.seq, a.d
  header = {"kind": kind, "d": d, "seq": s, "heads": a.heads, "dtype": a.dtype, "seed": a.seed}
  if a.dynamic_seq:
    if kind in ("gpt2_model", "gpt2_decoder"):
      raise ValueError("--dynamic-seq: gpt2_model has constant positions of the sequence length")
    header["seq_bound"] = a.dynamic_seq
    s = Seq(s)
  if kind == "gpt2_block":
    header["eps"] = 1e-5
    w = init_weights(rng, gpt2_block_shapes(d))
    x = ((1, s, d), a.dtype)
    out = emit_gpt2_block(e, ("%arg0", (1, s, d)), w, a.heads, 1e-5)
    inputs = [rng.standard_normal((1, s, d))]
    args = [x]
  elif kind == "gpt2_model":
    header.update(eps=1e-5, layers=a.layers, vocab=a.vocab)
    w = gpt2_weights(rng, a, s)
    wte = e.weight("wte", w["wte"])
    x = e.binary("add", e.embedding(wte, ("%arg0", (1, s))),
                 e.embedding(e.weight("wpe", w["wpe"]), e.arange(s)))
    for i in range(a.layers):
      x = emit_gpt2_block(e, x, w, a.heads, 1e-5, prefix=f"h{i}_")
    x = e.layer_norm(x, e.weight("lnf_g", w["lnf_g"]), e.weight("lnf_b", w["lnf_b"]), 1e-5)
    out = e.matmul(x, wte, transpose_b=True)
    inputs = [rng.integers(0, a.vocab, size=(1, s)).astype(np.int64)]
    args = [((1, s), "i64")]
  elif kind == "gpt2_decoder":
    # The generation entry interface (docs/Generation.md): ids and positions
    # of the S new tokens (S <= M = --max-seq), the past and total lengths,
    # then a key and a value cache per layer.
    m = a.max_seq
    header.update(eps=1e-5, layers=a.layers, vocab=a.vocab, max_seq=m, seq_bound=m)
    s = Seq(s)
    w = gpt2_weights(rng, a, m)
    # Smaller token and larger position embeddings than gpt2_model: with the
    # tied head, the last token's own embedding would otherwise win every
    # step and greedy decoding would repeat one token (which checks little).
    w["wte"] *= 0.4
    w["wpe"] *= 10.0
    hd = d // a.heads
    cache = (1, m, a.heads, hd)
    args = [((1, s), "i64", 'llm.name = "input_ids"'), ((1, s), "i64", 'llm.name = "position_ids"'),
            ((), "i64", 'llm.name = "past_length"'), ((), "i64", 'llm.name = "total_length"')]
    for i in range(a.layers):
      args += [(cache, a.dtype, "llm.kv_cache", f'llm.name = "past.{i}.key"'),
               (cache, a.dtype, "llm.kv_cache", f'llm.name = "past.{i}.value"')]
    wte = e.weight("wte", w["wte"])
    x = e.binary("add", e.embedding(wte, ("%arg0", (1, s))),
                 e.embedding(e.weight("wpe", w["wpe"]), ("%arg1", (1, s))))
    past, total = ("%arg2", ()), ("%arg3", ())
    for i in range(a.layers):
      caches = ((f"%arg{4 + 2 * i}", cache), (f"%arg{5 + 2 * i}", cache))
      x = emit_gpt2_decoder_block(e, x, w, a.heads, 1e-5, caches, past, total, prefix=f"h{i}_")
    x = e.layer_norm(x, e.weight("lnf_g", w["lnf_g"]), e.weight("lnf_b", w["lnf_b"]), 1e-5)
    out = e.matmul(x, wte, transpose_b=True)
    inputs = []
    header["command"] = "python3 examples/generate.py " + " ".join(a.argv)
    return e.module(header, args, [out], seq_bound=m), inputs
  elif kind == "llama_block":
    hd = d // a.heads
    kvd = a.kv_heads * hd
    ffn = a.ffn or 2 * d
    header.update(eps=1e-6, kv_heads=a.kv_heads, ffn=ffn, theta=a.theta, rope_mode=a.rope_mode)
    w = init_weights(rng, {
        "attn_norm": ((d,), "gain"), "wq": ((d, d), "matrix"), "wk": ((d, kvd), "matrix"),
        "wv": ((d, kvd), "matrix"), "wo": ((d, d), "matrix"), "mlp_norm": ((d,), "gain"),
        "w_gate": ((d, ffn), "matrix"), "w_up": ((d, ffn), "matrix"),
        "w_down": ((ffn, d), "matrix")})
    c = lambda n: e.weight(n, w[n])
    x, pos = ("%arg0", (1, s, d)), ("%arg1", (s,))
    h = e.rms_norm(x, c("attn_norm"), 1e-6)
    q = e.rope(e.heads(e.matmul(h, c("wq")), a.heads), pos, a.rope_mode, a.theta)
    k = e.rope(e.heads(e.matmul(h, c("wk")), a.kv_heads), pos, a.rope_mode, a.theta)
    v = e.heads(e.matmul(h, c("wv")), a.kv_heads)
    x = e.binary("add", x, e.matmul(e.merge(e.attention(q, k, v)), c("wo")))
    h = e.rms_norm(x, c("mlp_norm"), 1e-6)
    g = e.unary("silu", e.matmul(h, c("w_gate")))
    m = e.binary("mul", g, e.matmul(h, c("w_up")))
    out = e.binary("add", x, e.matmul(m, c("w_down")))
    # Positions offset by a.pos_offset (a chunk in the middle of a sequence).
    inputs = [rng.standard_normal((1, s, d)), np.arange(s, dtype=np.int64) + a.pos_offset]
    args = [((1, s, d), a.dtype), ((s,), "i64")]
  else:
    raise ValueError(kind)
  header["command"] = "python3 examples/generate.py " + " ".join(a.argv)
  inputs = [cast_input(i, a.dtype) for i in inputs]
  return e.module(header, args, [out], seq_bound=a.dynamic_seq), inputs


def cast_input(x, dtype):
  if x.dtype.kind != "f":
    return x
  if dtype == "f16":
    return x.astype(np.float16)
  if dtype == "bf16":
    raise ValueError("bf16 example inputs cannot be stored in .npy; use f32 or f16")
  return x.astype(np.float32)


DEFAULTS = {
    # Per kind; options not listed default to kv_heads 1, layers 1, vocab 64, ffn 2 d.
    "gpt2_block": dict(d=256, heads=4, seq=64),
    "gpt2_model": dict(d=256, heads=4, seq=64, layers=2, vocab=512),
    "llama_block": dict(d=256, heads=4, kv_heads=2, seq=64),  # ffn = 2 d
    "gpt2_decoder": dict(d=256, heads=4, seq=8, layers=2, vocab=512),  # max_seq 64
}


def main(argv=None):
  argv = sys.argv[1:] if argv is None else argv
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("kind", nargs="?", choices=list(DEFAULTS) + ["all"], default="all")
  p.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
  p.add_argument("--name", help="file stem (default: the kind)")
  p.add_argument("--d", type=int)
  p.add_argument("--heads", type=int)
  p.add_argument("--kv-heads", type=int)
  p.add_argument("--seq", type=int)
  p.add_argument("--layers", type=int)
  p.add_argument("--vocab", type=int)
  p.add_argument("--ffn", type=int)
  p.add_argument("--theta", type=float, default=10000.0)
  p.add_argument("--rope-mode", choices=["rotate_half", "interleaved"], default="rotate_half")
  p.add_argument("--pos-offset", type=int, default=0, help="first position (llama_block)")
  p.add_argument("--max-seq", type=int, default=64,
                 help="gpt2_decoder: positions of the key/value cache and the position table")
  p.add_argument("--dtype", choices=["f32", "f16"], default="f32")
  p.add_argument("--seed", type=int, default=2024)
  p.add_argument("--dynamic-seq", type=int, metavar="BOUND",
                 help="make the sequence dimension dynamic (`?`) with this declared upper bound "
                      "(llm.dim_bounds); --seq then only sets the length of the example inputs "
                      "(gpt2_block, llama_block)")
  a = p.parse_args(argv)
  kinds = list(DEFAULTS) if a.kind == "all" else [a.kind]
  if a.name and len(kinds) > 1:
    p.error("--name needs a single kind")
  os.makedirs(a.out_dir, exist_ok=True)
  for kind in kinds:
    ka = argparse.Namespace(**vars(a))
    for key, val in dict(DEFAULTS[kind], kv_heads=1, layers=1, vocab=64, ffn=None).items():
      if getattr(ka, key) is None:
        setattr(ka, key, DEFAULTS[kind].get(key, val))
    if ka.d % ka.heads or (kind == "llama_block" and (ka.heads % ka.kv_heads or (ka.d // ka.heads) % 2)):
      p.error(f"{kind}: d must divide into heads (and heads into kv-heads, head dim even)")
    # The regeneration command recorded in the header: the kind and the
    # options, without --out-dir (so the text does not depend on where it is
    # written).
    rest, skip = [], False
    for x in argv:
      if skip or x in list(DEFAULTS) + ["all"] or x.startswith("--out-dir="):
        skip = False
        continue
      if x == "--out-dir":
        skip = True
        continue
      rest.append(x)
    ka.argv = [kind] + rest
    text, inputs = build(kind, ka)
    stem = os.path.join(a.out_dir, a.name or kind)
    with open(stem + ".mlir", "w") as f:
      f.write(text)
    for i, x in enumerate(inputs):
      np.save(f"{stem}.arg{i}.npy", x)
    print(f"wrote {stem}.mlir ({len(text) / 1e6:.1f} MB) and {len(inputs)} input(s)")
  return 0


if __name__ == "__main__":
  sys.exit(main())
