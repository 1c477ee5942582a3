#===- random_graph.py - differential testing on random llm graphs --------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
"""Differential testing of llmc on random small llm graphs.

Generates random graphs of llm ops (elementwise binary ops with numpy
broadcasting, unary ops, matmul, softmax, layer_norm, rms_norm, reductions,
transpose, reshape, slice, concat, broadcast_to, casts), f32 or f16, and runs
them with `llmc run` under every pipeline configuration of CONFIGS (each
llm-lower-to-cpu option of include/llm/Pipelines/Pipelines.h switched off in
turn, other targets and tiles, and --no-opt), comparing every output with the
numpy evaluation of the same graph by llmc_ref (float64 per op, rounded to the
op's type like the spec says).

A batch of graphs becomes one module: graph K is the private function @gK and
@main calls all of them and returns all their outputs, so one `llmc run` per
configuration compiles and checks the whole batch (inlining puts the graphs
into one function; they share no values).

Tolerances (per output, against the float64-per-op reference):
  f32: |a - e| <= 1e-4 * |e| + 1e-4 * max(1, max|e|)
  f16: |a - e| <= 2e-2 * |e| + 2e-2 * max(1, max|e|)
The graphs chain up to ~8 ops including reductions of up to ~600 terms and
matmuls with K <= 64; the absolute floor scales with the output's magnitude
because values near 0 come out of cancellation.

A mismatch is shrunk to a minimal reproducer by a delta reducer over ops:
the failing output's backward slice is cut, op by op, by turning an op's
result into a new function input fed with the reference value, as long as
the single-config run still mismatches; the reproducer (.mlir and its .npy
inputs) is written to --repro-dir.

Usage:
  random_graph.py [--count N] [--batch B] [--seed S] [--f16-fraction F]
                  [--configs NAME,...] [--opt-level L] [--repro-dir DIR]
                  [--keep DIR] [--print]
llmc is found in $LLMC_TOOLS_DIR (lit sets it), else build/bin.
Exit code 0 when everything matched, 1 on a mismatch or an llmc failure.
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import llmc_ref as ref

# name -> extra llmc arguments.
CONFIGS = {
    "default": [],
    "no-optimize-graph": ["--pipeline-options=optimize-graph=false"],
    "no-fuse-elementwise": ["--pipeline-options=fuse-elementwise=false"],
    "no-vectorize": ["--pipeline-options=vectorize=false"],
    "no-parallel": ["--pipeline-options=parallel=false"],
    "generic-target": ["--pipeline-options=target=generic"],
    "threads3-tile": ["--pipeline-options=num-threads=3 register-tile=3,8,2"],
    "no-opt": ["--no-opt"],
}

DIMS = [1, 2, 3, 4, 5, 7, 8, 16, 33]
UNARY = ["neg", "relu", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh", "exp"]
BINARY = ["add", "sub", "mul", "max", "min"]


def ttype(shape, dtype):
  return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class Value:
  def __init__(self, name, shape, dtype, bound):
    self.name, self.shape, self.dtype, self.bound = name, tuple(shape), dtype, bound

  @property
  def type(self):
    return ttype(self.shape, self.dtype)


class Op:
  """One llm op: `kind`, operand Values, attributes, result Value. `mlir` is
  the op's text after `%result = `; `ref` evaluates it on numpy arrays."""

  def __init__(self, kind, operands, result, mlir, ref_fn):
    self.kind, self.operands, self.result = kind, operands, result
    self.mlir, self.ref = mlir, ref_fn


class Graph:
  def __init__(self, dtype):
    self.dtype = dtype
    self.inputs = []  # Values
    self.ops = []
    self.outputs = []
    self._n = 0

  def fresh(self, shape, dtype, bound):
    self._n += 1
    return Value(f"v{self._n}", shape, dtype, bound)

  def evaluate(self, feeds):
    """Values of every Value name, given the input arrays by name."""
    env = dict(feeds)
    for op in self.ops:
      env[op.result.name] = op.ref(*[env[v.name] for v in op.operands])
    return env

  def function(self, name, visibility="private"):
    args = ", ".join(f"%{v.name}: {v.type}" for v in self.inputs)
    results = ", ".join(v.type for v in self.outputs)
    lines = [f"func.func {visibility} @{name}({args}) -> ({results}) {{"]
    for op in self.ops:
      lines.append(f"  %{op.result.name} = {op.mlir}")
    outs = ", ".join(f"%{v.name}" for v in self.outputs)
    lines.append(f"  return {outs} : {results}")
    lines.append("}")
    return "\n".join(lines)


#===----------------------------------------------------------------------===#
# Generation
#===----------------------------------------------------------------------===#


def broadcast_shape(a, b):
  n = max(len(a), len(b))
  a = (1,) * (n - len(a)) + tuple(a)
  b = (1,) * (n - len(b)) + tuple(b)
  return tuple(x if y == 1 else y for x, y in zip(a, b))


class Generator:
  def __init__(self, rng, dtype):
    self.rng = rng
    self.g = Graph(dtype)
    self.values = []  # candidates for operands
    self.used = set()

  def choice(self, seq):
    return seq[self.rng.integers(len(seq))]

  def new_input(self, shape):
    v = self.g.fresh(shape, self.g.dtype, 1.0)
    v.name = f"in{len(self.g.inputs)}_" + v.name
    self.g.inputs.append(v)
    if shape:  # Rank-0 inputs are operands of the op they were made for only.
      self.values.append(v)
    return v

  def random_shape(self, rank=None):
    rank = self.rng.integers(1, 4) if rank is None else rank
    return tuple(int(self.choice(DIMS)) for _ in range(rank))

  def compatible_shape(self, shape):
    """A shape that broadcasts with `shape` (suffix, some dims set to 1)."""
    k = int(self.rng.integers(0, len(shape) + 1))
    suffix = list(shape[len(shape) - k:])
    for i in range(len(suffix)):
      if self.rng.random() < 0.3:
        suffix[i] = 1
    if self.rng.random() < 0.2 and len(shape) < 3:
      suffix = [int(self.choice([1, 2]))] + suffix if len(shape) == k else suffix
    return tuple(suffix)

  def add(self, kind, operands, shape, bound, mlir, ref_fn, dtype=None):
    r = self.g.fresh(shape, dtype or self.g.dtype, bound)
    op = Op(kind, operands, r, mlir, ref_fn)
    self.g.ops.append(op)
    for v in operands:
      self.used.add(v.name)
    if shape:  # Rank-0 results are outputs only.
      self.values.append(r)
    return r

  def pick(self, pred=lambda v: True):
    cands = [v for v in self.values if pred(v)]
    # Prefer recent values: longer chains.
    if not cands:
      return None
    w = np.arange(1, len(cands) + 1, dtype=np.float64) ** 2
    return cands[int(self.rng.choice(len(cands), p=w / w.sum()))]

  def gen_op(self):
    r = self.rng.random()
    if r < 0.25:
      return self.gen_binary()
    if r < 0.40:
      return self.gen_unary()
    if r < 0.52:
      return self.gen_matmul()
    if r < 0.62:
      return self.gen_norm()
    if r < 0.72:
      return self.gen_reduce()
    return self.gen_movement()

  def gen_binary(self):
    a = self.pick()
    kind = self.choice(BINARY)
    if self.rng.random() < 0.5:
      others = [v for v in self.values
                if v is not a and _broadcastable(a.shape, v.shape)]
      b = self.choice(others) if others else self.new_input(self.compatible_shape(a.shape))
    else:
      b = self.new_input(self.compatible_shape(a.shape))
    if self.rng.random() < 0.5:
      a, b = b, a
    shape = broadcast_shape(a.shape, b.shape)
    bound = {"add": a.bound + b.bound, "sub": a.bound + b.bound,
             "mul": a.bound * b.bound}.get(kind, max(a.bound, b.bound))
    fn = getattr(ref, kind)
    return self.add(kind, [a, b], shape, bound,
                    f"llm.{kind} %{a.name}, %{b.name} : ({a.type}, {b.type}) -> {ttype(shape, self.g.dtype)}",
                    lambda x, y: fn(x, y))

  def gen_unary(self):
    kind = self.choice(UNARY)
    if kind == "exp":
      a = self.pick(lambda v: v.bound <= 4)
      if a is None:
        kind = "tanh"
    if kind != "exp":
      a = self.pick()
    bound = {"tanh": 1.0, "sigmoid": 1.0, "exp": math.exp(a.bound)}.get(kind, a.bound)
    if kind == "gelu_tanh":
      return self.add("gelu", [a], a.shape, bound,
                      f"llm.gelu %{a.name} approximate <tanh> : {a.type}",
                      lambda x: ref.gelu(x, approximate="tanh"))
    fn = getattr(ref, kind)
    return self.add(kind, [a], a.shape, bound, f"llm.{kind} %{a.name} : {a.type}",
                    lambda x: fn(x))

  def gen_matmul(self):
    a = self.pick(lambda v: len(v.shape) >= 2 and v.bound <= 8)
    if a is None:
      a = self.new_input(self.random_shape(int(self.rng.integers(2, 4))))
    k = a.shape[-1]
    n = int(self.choice([1, 3, 8, 16, 32, 64]))
    tb = bool(self.rng.random() < 0.5)
    w = self.new_input((n, k) if tb else (k, n))
    shape = a.shape[:-1] + (n,)
    attr = " {transpose_b}" if tb else ""
    return self.add("matmul", [a, w], shape, a.bound * k,
                    f"llm.matmul %{a.name}, %{w.name}{attr} : ({a.type}, {w.type}) -> {ttype(shape, self.g.dtype)}",
                    lambda x, y: ref.matmul(x, y, transpose_b=tb))

  def gen_norm(self):
    a = self.pick()
    kind = self.choice(["softmax", "layer_norm", "rms_norm"])
    rank = len(a.shape)
    if kind == "softmax":
      axis = int(self.rng.integers(-rank, rank))
      return self.add("softmax", [a], a.shape, 1.0,
                      f"llm.softmax %{a.name} {{axis = {axis} : i64}} : {a.type}",
                      lambda x: ref.softmax(x, axis=axis))
    if kind == "layer_norm":
      axis = int(self.rng.integers(0, rank))
      tail = a.shape[axis:]
      n = int(np.prod(tail))
      # A constant row has variance 0: keep it, eps makes it well defined.
      use_scale = self.rng.random() < 0.6
      ops = [a]
      text = f"llm.layer_norm %{a.name}"
      types = [a.type]
      if use_scale:
        g = self.new_input(tail)
        b = self.new_input(tail)
        ops += [g, b]
        text += f" scale %{g.name} bias %{b.name}"
        types += [g.type, b.type]
      text += f" {{axis = {axis} : i64, epsilon = 1.0e-05 : f32}} : ({', '.join(types)}) -> {a.type}"
      bound = math.sqrt(n) * (2.0 if use_scale else 1.0)
      if use_scale:
        return self.add("layer_norm", ops, a.shape, bound, text,
                        lambda x, s, b: ref.layer_norm(x, s, b, axis=axis))
      return self.add("layer_norm", ops, a.shape, bound, text,
                      lambda x: ref.layer_norm(x, axis=axis))
    d = a.shape[-1]
    if self.rng.random() < 0.5:
      w = self.new_input((d,))
      return self.add("rms_norm", [a, w], a.shape, math.sqrt(d),
                      f"llm.rms_norm %{a.name} weight %{w.name} {{epsilon = 1.0e-06 : f32}} : ({a.type}, {w.type}) -> {a.type}",
                      lambda x, y: ref.rms_norm(x, y))
    return self.add("rms_norm", [a], a.shape, math.sqrt(d),
                    f"llm.rms_norm %{a.name} : ({a.type}) -> {a.type}",
                    lambda x: ref.rms_norm(x))

  def gen_reduce(self):
    a = self.pick()
    kind = self.choice(["reduce_sum", "reduce_mean", "reduce_max"])
    rank = len(a.shape)
    axes = sorted(set(int(x) for x in self.rng.integers(0, rank, size=int(self.rng.integers(1, rank + 1)))))
    keep = bool(self.rng.random() < 0.5)
    shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape)) if keep else \
        tuple(d for i, d in enumerate(a.shape) if i not in axes)
    count = int(np.prod([a.shape[i] for i in axes]))
    bound = a.bound * (count if kind == "reduce_sum" else 1)
    axes_txt = ", ".join(str(x) for x in axes)
    keep_txt = ", keepdims = true" if keep else ""
    fn = getattr(ref, kind)
    return self.add(kind, [a], shape, bound,
                    f"llm.{kind} %{a.name} {{axes = array<i64: {axes_txt}>{keep_txt}}} : ({a.type}) -> {ttype(shape, self.g.dtype)}",
                    lambda x: fn(x, axes, keepdims=keep))

  def gen_movement(self):
    a = self.pick()
    kind = self.choice(["transpose", "reshape", "slice", "concat", "broadcast_to", "cast"])
    rank = len(a.shape)
    t = self.g.dtype
    if kind == "transpose" and rank >= 2:
      perm = [int(x) for x in self.rng.permutation(rank)]
      shape = tuple(a.shape[p] for p in perm)
      return self.add("transpose", [a], shape, a.bound,
                      f"llm.transpose %{a.name} {{permutation = array<i64: {', '.join(map(str, perm))}>}} : ({a.type}) -> {ttype(shape, t)}",
                      lambda x: ref.transpose(x, perm))
    if kind == "reshape":
      n = int(np.prod(a.shape))
      if rank >= 2 and self.rng.random() < 0.5:
        i = int(self.rng.integers(0, rank - 1))
        shape = a.shape[:i] + (a.shape[i] * a.shape[i + 1],) + a.shape[i + 2:]
      else:
        divs = [d for d in range(1, n + 1) if n % d == 0]
        d = int(self.choice(divs))
        shape = (d, n // d)
      return self.add("reshape", [a], shape, a.bound,
                      f"llm.reshape %{a.name} : ({a.type}) -> {ttype(shape, t)}",
                      lambda x: ref.reshape(x, shape))
    if kind == "slice":
      starts, limits, strides = [], [], []
      for d in a.shape:
        s = int(self.rng.integers(0, d))
        l = int(self.rng.integers(s + 1, d + 1))
        st = int(self.rng.integers(1, 3))
        starts.append(s); limits.append(l); strides.append(st)
      shape = tuple((l - s + st - 1) // st for s, l, st in zip(starts, limits, strides))
      j = lambda xs: ", ".join(map(str, xs))
      return self.add("slice", [a], shape, a.bound,
                      f"llm.slice %{a.name} {{starts = array<i64: {j(starts)}>, limits = array<i64: {j(limits)}>, strides = array<i64: {j(strides)}>}} : ({a.type}) -> {ttype(shape, t)}",
                      lambda x: ref.slice(x, starts, limits, strides))
    if kind == "concat":
      axis = int(self.rng.integers(0, rank))
      others = [v for v in self.values if len(v.shape) == rank and all(
          v.shape[i] == a.shape[i] for i in range(rank) if i != axis)]
      b = self.choice(others)
      shape = tuple(a.shape[i] + (b.shape[i] if i == axis else 0) for i in range(rank))
      return self.add("concat", [a, b], shape, max(a.bound, b.bound),
                      f"llm.concat %{a.name}, %{b.name} {{axis = {axis} : i64}} : ({a.type}, {b.type}) -> {ttype(shape, t)}",
                      lambda x, y: ref.concat([x, y], axis))
    if kind == "broadcast_to":
      shape = tuple(int(self.choice([2, 3])) if d == 1 else d for d in a.shape)
      if len(shape) < 3:
        shape = (int(self.choice([1, 2, 3])),) + shape
      return self.add("broadcast_to", [a], shape, a.bound,
                      f"llm.broadcast_to %{a.name} : ({a.type}) -> {ttype(shape, t)}",
                      lambda x: ref.broadcast_to(x, shape))
    # Round trip through the other float type (f32 -> f16 -> f32 rounds;
    # f16 -> f32 -> f16 is exact).
    other = "f16" if t == "f32" else "f32"
    if t == "f32" and a.bound > 6e4:
      return self.gen_unary()
    mid = self.add("cast", [a], a.shape, a.bound,
                   f"llm.cast %{a.name} : ({a.type}) -> {ttype(a.shape, other)}",
                   lambda x: ref.cast(x, other), dtype=other)
    if mid in self.values:  # Operands of other ops must have the graph type.
      self.values.remove(mid)
    return self.add("cast", [mid], a.shape, a.bound,
                    f"llm.cast %{mid.name} : ({mid.type}) -> {a.type}",
                    lambda x: ref.cast(x, t))


def _broadcastable(a, b):
  for x, y in zip(reversed(a), reversed(b)):
    if x != y and x != 1 and y != 1:
      return False
  return True


def generate(rng, dtype, num_ops=None):
  gen = Generator(rng, dtype)
  gen.new_input(gen.random_shape())
  num_ops = num_ops or int(rng.integers(2, 9))
  for _ in range(num_ops):
    gen.gen_op()
  g = gen.g
  # Outputs: every op result nothing else reads (at least the last).
  g.outputs = [op.result for op in g.ops if op.result.name not in gen.used]
  return g


#===----------------------------------------------------------------------===#
# Running and comparing
#===----------------------------------------------------------------------===#


def tolerance(dtype):
  return (1e-4, 1e-4) if dtype == "f32" else (2e-2, 2e-2)


def compare(actual, expected, dtype):
  """None when `actual` matches `expected`, else a one-line reason."""
  actual = np.asarray(actual)
  expected = np.asarray(expected)
  if actual.shape != expected.shape:
    return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  rtol, atol = tolerance(dtype)
  finite = np.isfinite(e)
  scale = max(1.0, float(np.max(np.abs(e[finite]))) if finite.any() else 1.0)
  with np.errstate(invalid="ignore"):
    bad = ~((np.abs(a - e) <= rtol * np.abs(e) + atol * scale) |
            (np.isnan(a) & np.isnan(e)) | (a == e))
  if not bad.any():
    return None
  idx = tuple(int(i) for i in np.argwhere(bad)[0])
  err = float(np.nanmax(np.where(bad, np.abs(a - e), 0)))
  return (f"{int(bad.sum())} of {bad.size} elements differ, max abs err "
          f"{err:.3g}; at {list(idx)}: actual {a[idx]!r} expected {e[idx]!r}")


def make_inputs(rng, graphs):
  feeds = []
  for g in graphs:
    f = {}
    for v in g.inputs:
      x = rng.uniform(-1.0, 1.0, size=v.shape)
      f[v.name] = x.astype(np.float32 if v.dtype == "f32" else np.float16)
    feeds.append(f)
  return feeds


def batch_module(graphs):
  parts = []
  args, res_types, calls, rets = [], [], [], []
  k = 0
  for gi, g in enumerate(graphs):
    parts.append(g.function(f"g{gi}"))
    names = []
    for v in g.inputs:
      args.append(f"%a{k}: {v.type}")
      names.append(f"%a{k}")
      k += 1
    outs = [f"%r{gi}_{j}" for j in range(len(g.outputs))]
    types = [v.type for v in g.outputs]
    res_types += types
    rets += outs
    arg_types = ", ".join(v.type for v in g.inputs)
    lhs = ", ".join(outs)
    calls.append(f"  {lhs} = func.call @g{gi}({', '.join(names)}) : ({arg_types}) -> ({', '.join(types)})")
  main = [f"func.func @main({', '.join(args)}) -> ({', '.join(res_types)}) {{"]
  main += calls
  main.append(f"  return {', '.join(rets)} : {', '.join(res_types)}")
  main.append("}")
  return "\n\n".join(parts + ["\n".join(main)]) + "\n"


def llmc_path():
  tools = os.environ.get("LLMC_TOOLS_DIR")
  if not tools:
    tools = os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin")
  return os.path.join(tools, "llmc")


OPT_LEVEL = ["--opt-level=0"]


def run_llmc(workdir, module_text, feeds_flat, config):
  """Runs `llmc run` on the module; returns (list of outputs, error)."""
  model = os.path.join(workdir, "model.mlir")
  with open(model, "w") as f:
    f.write(module_text)
  cmd = [llmc_path(), "run", model]
  for k, x in enumerate(feeds_flat):
    path = os.path.join(workdir, f"arg{k}.npy")
    np.save(path, x)
    cmd += ["--input", f"arg{k}={path}"]
  outdir = os.path.join(workdir, "out-" + config)
  shutil.rmtree(outdir, ignore_errors=True)
  cmd += ["--output-dir", outdir] + CONFIGS[config] + OPT_LEVEL
  p = subprocess.run(cmd, capture_output=True, text=True)
  if p.returncode != 0:
    return None, f"llmc exited with {p.returncode}: {p.stderr.strip()[-2000:]}"
  outs = []
  k = 0
  while os.path.exists(os.path.join(outdir, f"out{k}.npy")):
    outs.append(np.load(os.path.join(outdir, f"out{k}.npy")))
    k += 1
  return outs, None


def check_batch(workdir, graphs, feeds, configs, log):
  """Runs the batch under each config; returns a list of failures
  (graph index or None, output index, config, reason)."""
  text = batch_module(graphs)
  flat = [f[v.name] for g, f in zip(graphs, feeds) for v in g.inputs]
  expected = []
  for g, f in zip(graphs, feeds):
    env = g.evaluate(f)
    expected.append([env[v.name] for v in g.outputs])
  failures = []
  for config in configs:
    outs, err = run_llmc(workdir, text, flat, config)
    if err:
      failures.append((None, None, config, err))
      continue
    k = 0
    for gi, g in enumerate(graphs):
      for j, v in enumerate(g.outputs):
        reason = compare(outs[k], expected[gi][j], v.dtype) if k < len(outs) else "missing output"
        if reason:
          failures.append((gi, j, config, reason))
        k += 1
  return failures


#===----------------------------------------------------------------------===#
# Reduction
#===----------------------------------------------------------------------===#


def slice_graph(g, output):
  """The ops `output` depends on, as a new Graph with that single output."""
  needed = {output.name}
  ops = []
  for op in reversed(g.ops):
    if op.result.name in needed:
      ops.append(op)
      needed.update(v.name for v in op.operands)
  ops.reverse()
  h = Graph(g.dtype)
  h.inputs = [v for v in g.inputs if v.name in needed]
  h.ops = ops
  h.outputs = [output]
  return h


def cut(g, op_index, env):
  """`g` with op `op_index` replaced by an input fed with its reference
  value; returns (graph, feeds) restricted to what the output needs."""
  op = g.ops[op_index]
  h = Graph(g.dtype)
  h.inputs = list(g.inputs) + [op.result]
  h.ops = [o for i, o in enumerate(g.ops) if i != op_index]
  h.outputs = list(g.outputs)
  h = slice_graph(h, h.outputs[0])
  # slice_graph keeps only needed inputs, the cut result among them.
  keep = {v.name for v in h.inputs}
  h.inputs = [v for v in g.inputs + [op.result] if v.name in keep]
  return h, {v.name: env[v.name] for v in h.inputs}


def still_fails(workdir, g, feeds, config):
  fails = check_batch(workdir, [g], [feeds], [config], None)
  return any(f[0] is not None for f in fails)


def reduce_failure(workdir, g, feeds, output_index, config):
  """Delta reduction: cut ops of the failing output's slice into inputs while
  the mismatch persists. Returns (graph, feeds)."""
  g = slice_graph(g, g.outputs[output_index])
  feeds = {v.name: feeds[v.name] for v in g.inputs}
  progress = True
  while progress and len(g.ops) > 1:
    progress = False
    env = g.evaluate(feeds)
    for i in range(len(g.ops) - 1):  # never the output's own op
      h, hf = cut(g, i, env)
      if still_fails(workdir, h, hf, config):
        g, feeds, progress = h, hf, True
        break
  return g, feeds


def write_repro(repro_dir, name, g, feeds, config, reason):
  os.makedirs(repro_dir, exist_ok=True)
  path = os.path.join(repro_dir, name + ".mlir")
  with open(path, "w") as f:
    f.write(f"// Reproducer: {reason}\n// config: {config} ({' '.join(CONFIGS[config])})\n")
    for k, v in enumerate(g.inputs):
      np.save(os.path.join(repro_dir, f"{name}.arg{k}.npy"), feeds[v.name])
      f.write(f"// arg{k}: {name}.arg{k}.npy\n")
    f.write(g.function("main", visibility="").replace("func.func  @", "func.func @") + "\n")
  return path


#===----------------------------------------------------------------------===#
# Driver
#===----------------------------------------------------------------------===#


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--count", type=int, default=30, help="graphs in all")
  p.add_argument("--batch", type=int, default=30, help="graphs per module")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--f16-fraction", type=float, default=0.2)
  p.add_argument("--configs", default=",".join(CONFIGS))
  p.add_argument("--repro-dir", default="difftest-repro")
  p.add_argument("--keep", help="keep the work files in this directory")
  p.add_argument("--opt-level", type=int, default=0,
                 help="LLVM optimization level of every run (default 0: the "
                      "llm/MLIR stages under test do not depend on it, and "
                      "O3 of a whole batch costs ~5x the compile time)")
  p.add_argument("--print", action="store_true", help="print the first batch module and exit")
  args = p.parse_args(argv)
  configs = args.configs.split(",")
  OPT_LEVEL[:] = [f"--opt-level={args.opt_level}"]
  for c in configs:
    if c not in CONFIGS:
      p.error(f"unknown config {c!r}; known: {', '.join(CONFIGS)}")

  rng = np.random.default_rng(args.seed)
  workdir = args.keep or tempfile.mkdtemp(prefix="llmc-difftest-")
  os.makedirs(workdir, exist_ok=True)
  total_graphs = total_cmp = 0
  ops_seen = {}
  failures_all = []
  try:
    for start in range(0, args.count, args.batch):
      n = min(args.batch, args.count - start)
      graphs = [generate(rng, "f16" if rng.random() < args.f16_fraction else "f32")
                for _ in range(n)]
      if args.print:
        print(batch_module(graphs))
        return 0
      feeds = make_inputs(rng, graphs)
      for g in graphs:
        for op in g.ops:
          ops_seen[op.kind] = ops_seen.get(op.kind, 0) + 1
      failures = check_batch(workdir, graphs, feeds, configs, None)
      total_graphs += n
      total_cmp += sum(len(g.outputs) for g in graphs) * len(configs)
      for gi, oi, config, reason in failures:
        if gi is None:
          print(f"FAIL batch at graph {start}: config {config}: {reason}")
          failures_all.append((None, config))
          continue
        g = graphs[gi]
        print(f"FAIL graph {start + gi} output {oi} ({g.outputs[oi].type}) config {config}: {reason}")
        failures_all.append((start + gi, config))
      # Shrink the first failure of each graph.
      shrunk = set()
      for gi, oi, config, reason in failures:
        if gi is None or gi in shrunk:
          continue
        shrunk.add(gi)
        rg, rf = reduce_failure(workdir, graphs[gi], feeds[gi], oi, config)
        path = write_repro(args.repro_dir, f"seed{args.seed}-graph{start + gi}", rg, rf, config, reason)
        print(f"  reduced to {len(rg.ops)} op(s): {path}")
        print("  " + rg.function("main", visibility="").replace("\n", "\n  "))
  finally:
    if not args.keep:
      shutil.rmtree(workdir, ignore_errors=True)
  kinds = ", ".join(f"{k} {v}" for k, v in sorted(ops_seen.items()))
  print(f"ops: {kinds}")
  status = "FAIL" if failures_all else "PASS"
  print(f"random-graphs: seed {args.seed}: {total_graphs} graphs x {len(configs)} configs, "
        f"{total_cmp} output comparisons, {len(failures_all)} mismatches: {status}")
  return 1 if failures_all else 0


if __name__ == "__main__":
  sys.exit(main())
