#===- llmc_check.py - compare llmc outputs with the numpy reference ------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
"""Generates test inputs and checks `llmc run` outputs against `llmc_ref`.

Usage (run as `python -m llmc_check ...`, with test/lib on PYTHONPATH):

  gen DIR [--seed N] NAME=SPEC...
      Writes DIR/NAME.npy for each SPEC `SHAPExTYPE[:LO:HI]` or
      `SHAPExTYPE@EXPR`: TYPE is f32, f64, f16, bf16 (stored as f32 holding bf16
      values), i1, i8, i32, i64; SHAPE is `2x3` (or empty, `xf32`, for a
      scalar). Floats are standard normal, or uniform in [LO, HI); integers
      uniform in [LO, HI] (default [0, 9]); i1 true with probability 1/2.
      `@EXPR` evaluates a Python expression with `np` (e.g. `@np.arange(8)`).
      The generator is seeded by --seed (default 0) and the NAME.

  expr EXPR --arg NAME=PATH... --actual PATH [--dtype T] [--rtol R] [--atol A]
      Evaluates EXPR with the arrays bound to their names and the functions
      of `llmc_ref` in scope (e.g. `add(a, b)`, `matmul(a, b, transpose_b=1)`)
      and compares the result with the .npy at --actual.

  model MODEL.mlir --input NAME=PATH... --actual PATH [--rtol R] [--atol A]
      Runs the numpy reference of an example model made by
      examples/generate.py: reads the `// llmc-example: {json}` header and the
      weights from the `dialect_resources` blobs of MODEL.mlir, and compares
      with the .npy at --actual.

  generate MODEL.mlir --prompt-ids 1,2,3 --max-new-tokens N --actual FILE
      Greedy generation of a gpt2_decoder example in float64, recomputing
      the whole sequence at each step (no cache), compared token for token
      with the comma-separated ids in FILE (what `llmc generate` printed).

Comparison: element (a, e) passes when `|a - e| <= atol + rtol * |e|`, NaNs
must be at the same places, infinities must match exactly, and the shape and
dtype must equal the expected ones. Default tolerances by --dtype:

  f64   rtol 1e-12, atol 1e-15 (f64 arithmetic, one or two roundings)
  f32   rtol 1e-5, atol 1e-6   (1e-6 absolute floor: values near 0 that come
                                out of cancellation carry f32 rounding error
                                of the operands' magnitude, ~1e-7..1e-6)
  f16   rtol 2e-3, atol 1e-3   (2 ulp of f16: the reference is rounded to f16
                                once, the implementation rounds f32 -> f16)
  bf16  rtol 1.6e-2, atol 1e-2 (2 ulp of bf16)
  exact equality, NaN matching NaN (integers, booleans, data movement)
  model rtol 1e-4, atol 1e-4   (default for `model`: a whole model computed
                                in f32 against a float64 reference; chains of
                                ~20 ops with reductions up to 4d = 1024 long.
                                torch in f32 shows up to 2.7e-5 absolute error
                                on the default 2-layer gpt2_model logits)
  model-f16 rtol 1e-2, atol 1e-2 (default for `model` on an f16 example,
                                `"dtype": "f16"` in its header: every op
                                rounds to f16, ~5e-4 relative each, over the
                                same chains)

Output: one line `NAME: shape S dtype T max_abs_err=X max_rel_err=Y
(rtol=R atol=A) PASS|FAIL`; the exit code is 1 on mismatch, 2 on bad usage.
"""

import argparse
import json
import os
import re
import sys
import zlib

import numpy as np

import llmc_ref

TOLERANCES = {
    "f32": (1e-5, 1e-6),
    "f64": (1e-12, 1e-15),
    "f16": (2e-3, 1e-3),
    "bf16": (1.6e-2, 1e-2),
    "exact": (0.0, 0.0),
    "model": (1e-4, 1e-4),
    "model-f16": (1e-2, 1e-2),
}

NP_TYPES = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.float32, "i1": np.bool_,
    "i8": np.int8, "i32": np.int32, "i64": np.int64,
}

#===----------------------------------------------------------------------===#
# gen
#===----------------------------------------------------------------------===#


def parse_spec(spec):
  """`2x3xf32[:lo:hi]` or `2x3xf32@expr` -> (shape, type, lo, hi, expr)."""
  expr = None
  if "@" in spec:
    spec, expr = spec.split("@", 1)
  parts = spec.split(":")
  dims = parts[0].split("x")
  ty = dims[-1]
  if ty not in NP_TYPES:
    raise ValueError(f"unknown element type '{ty}' in '{spec}'")
  shape = tuple(int(d) for d in dims[:-1] if d != "")
  lo = hi = None
  if len(parts) == 3:
    lo, hi = float(parts[1]), float(parts[2])
  elif len(parts) != 1:
    raise ValueError(f"bad range in '{spec}' (want TYPE:LO:HI)")
  return shape, ty, lo, hi, expr


def make_input(name, spec, seed):
  shape, ty, lo, hi, expr = parse_spec(spec)
  if expr is not None:
    value = np.asarray(eval(expr, {"np": np}))  # noqa: S307 (test helper)
    value = np.broadcast_to(value, shape) if shape else value
    value = np.asarray(value, order="C").astype(NP_TYPES[ty])  # 0-d stays 0-d
  else:
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    if ty == "i1":
      value = rng.random(shape) < 0.5
    elif ty.startswith("i"):
      lo = 0 if lo is None else int(lo)
      hi = 9 if hi is None else int(hi)
      value = rng.integers(lo, hi, size=shape, endpoint=True).astype(NP_TYPES[ty])
    elif lo is not None:
      value = rng.uniform(lo, hi, size=shape)
    else:
      value = rng.standard_normal(shape)
    value = np.asarray(value).astype(NP_TYPES[ty])
  if ty == "bf16":
    value = llmc_ref.to_bf16(value)
  return value


def cmd_gen(args):
  os.makedirs(args.dir, exist_ok=True)
  for item in args.specs:
    name, spec = split_binding(item)
    np.save(os.path.join(args.dir, name + ".npy"), make_input(name, spec, args.seed))
  return 0


#===----------------------------------------------------------------------===#
# Comparison
#===----------------------------------------------------------------------===#


def compare(name, actual, expected, rtol, atol, exact=False):
  """Prints the error summary line; returns True on match."""
  actual = np.asarray(actual)
  expected = np.asarray(expected)
  head = f"{name}: shape {list(actual.shape)} dtype {actual.dtype}"
  if actual.shape != expected.shape:
    print(f"{head}: expected shape {list(expected.shape)} FAIL")
    return False
  if actual.dtype != expected.dtype:
    print(f"{head}: expected dtype {expected.dtype} FAIL")
    return False
  if exact or actual.dtype.kind in "biu":
    bad = int(np.sum(actual != expected)) if actual.dtype.kind in "biu" else int(
        np.sum(~((actual == expected) | (np.isnan(actual) & np.isnan(expected)))))
    print(f"{head} mismatches={bad} (exact) {'PASS' if bad == 0 else 'FAIL'}")
    if bad:
      show_mismatches(actual, expected, actual != expected)
    return bad == 0
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  nan_ok = np.isnan(a) == np.isnan(e)
  inf_e = np.isinf(e)
  inf_ok = ~(inf_e | np.isinf(a)) | (a == e)
  finite = np.isfinite(a) & np.isfinite(e)
  diff = np.where(finite, np.abs(a - e), 0.0)
  rel = np.where(finite, diff / np.maximum(np.abs(e), np.finfo(np.float64).tiny), 0.0)
  within = diff <= atol + rtol * np.abs(np.where(finite, e, 0.0))
  ok_mask = nan_ok & inf_ok & within
  ok = bool(ok_mask.all())
  max_abs = float(diff.max()) if diff.size else 0.0
  max_rel = float(np.where(np.abs(e) > atol, rel, 0.0).max()) if rel.size else 0.0
  print(f"{head} max_abs_err={max_abs:.3e} max_rel_err={max_rel:.3e} "
        f"(rtol={rtol:g} atol={atol:g}) {'PASS' if ok else 'FAIL'}")
  if not ok:
    show_mismatches(actual, expected, ~ok_mask)
  return ok


def show_mismatches(actual, expected, bad, limit=5):
  idx = np.argwhere(bad)
  print(f"  {len(idx)} of {actual.size} elements differ; first ones:")
  for i in idx[:limit]:
    t = tuple(int(v) for v in i)
    print(f"    at {list(t)}: actual {actual[t]!r} expected {expected[t]!r}")


def split_binding(item):
  if "=" not in item:
    raise ValueError(f"expected NAME=VALUE, got '{item}'")
  return item.split("=", 1)


def load(path):
  try:
    return np.load(path, allow_pickle=False)
  except (OSError, ValueError) as err:
    raise ValueError(f"cannot read '{path}': {err}")


def tolerances(args, default):
  rtol, atol = TOLERANCES[default]
  if args.rtol is not None:
    rtol = args.rtol
  if args.atol is not None:
    atol = args.atol
  return rtol, atol


def cmd_expr(args):
  env = {k: getattr(llmc_ref, k) for k in dir(llmc_ref) if not k.startswith("_")}
  env["np"] = np
  for item in args.arg:
    name, path = split_binding(item)
    env[name] = load(path)
  expected = eval(args.expr, env)  # noqa: S307 (test helper)
  actual = load(args.actual)
  rtol, atol = tolerances(args, args.dtype)
  name = args.name or os.path.basename(args.actual)
  return 0 if compare(name, actual, expected, rtol, atol, args.dtype == "exact") else 1


#===----------------------------------------------------------------------===#
# Example models: header, resources, reference
#===----------------------------------------------------------------------===#

_HEADER = re.compile(r"^// llmc-example: (\{.*\})\s*$", re.M)
_CONST = re.compile(r"dense_resource<([A-Za-z0-9_.]+)>\s*:\s*tensor<([0-9x]*)(f32|f16|bf16)>")
_BLOB = re.compile(r'^\s*"?([A-Za-z0-9_.]+)"?\s*:\s*"0x([0-9A-Fa-f]+)"', re.M)


def read_example(path):
  """Returns (config dict, {name: weight array}) of an examples/ model. The
  blobs are decoded from the hex text: 4 bytes of alignment (little-endian)
  followed by the raw little-endian elements."""
  with open(path) as f:
    text = f.read()
  m = _HEADER.search(text)
  if not m:
    raise ValueError(f"{path}: no '// llmc-example: {{...}}' header")
  config = json.loads(m.group(1))
  start = text.find("{-#")
  if start < 0:
    raise ValueError(f"{path}: no dialect_resources section")
  blobs = {n: bytes.fromhex(h) for n, h in _BLOB.findall(text[start:])}
  weights = {}
  for name, dims, ty in _CONST.findall(text[:start]):
    shape = tuple(int(d) for d in dims.split("x") if d)
    raw = blobs[name][4:]
    if ty == "bf16":
      arr = llmc_ref.from_bf16_bits(np.frombuffer(raw, dtype="<u2"))
    else:
      arr = np.frombuffer(raw, dtype={"f32": "<f4", "f16": "<f2"}[ty])
    if arr.size != int(np.prod(shape)):
      raise ValueError(f"{path}: blob '{name}' has {arr.size} elements, type wants {shape}")
    weights[name] = arr.reshape(shape)
  return config, weights


def run_reference(config, weights, inputs):
  """The float64 reference output of an example model."""
  kind = config["kind"]
  if kind == "gpt2_block":
    return llmc_ref.gpt2_block(inputs["arg0"], weights, config["heads"], eps=config["eps"])
  if kind == "gpt2_model":
    return llmc_ref.gpt2_model(inputs["arg0"], weights, config["heads"], config["layers"],
                               eps=config["eps"])
  if kind == "llama_block":
    return llmc_ref.llama_block(inputs["arg0"], inputs["arg1"], weights, config["heads"],
                                config["kv_heads"], eps=config["eps"], theta=config["theta"],
                                mode=config["rope_mode"])
  raise ValueError(f"unknown example kind '{kind}'")


def cmd_model(args):
  config, weights = read_example(args.model)
  inputs = {}
  for item in args.input:
    name, path = split_binding(item)
    inputs[name] = load(path)
  expected = run_reference(config, weights, inputs)
  actual = load(args.actual)
  expected = llmc_ref.round_to(expected, llmc_ref.dtype_of(actual) if actual.dtype.kind == "f"
                               else "f32")
  # f16 weights and activations: the whole model in f16 against the float64
  # reference, as test/Integration/gpt2-block.test checks it.
  rtol, atol = tolerances(args, "model-f16" if config.get("dtype") == "f16"
                          else "model")
  name = args.name or config["kind"]
  return 0 if compare(name, actual, expected, rtol, atol) else 1


def cmd_generate(args):
  """Greedy generation of a gpt2_decoder example in float64 without a cache:
  each step recomputes the whole sequence with llmc_ref.gpt2_model (so the
  key/value cache of the compiled model is checked against a computation
  that has none). Compares with the comma-separated ids in --actual: PASS
  when equal; otherwise names the first differing step and the reference's
  margin between its two best logits there (a margin near float32 rounding
  would make a difference a tie, not a bug)."""
  config, weights = read_example(args.model)
  if config["kind"] != "gpt2_decoder":
    raise ValueError(f"{args.model}: generate needs a gpt2_decoder example, not {config['kind']}")
  ids = [int(x) for x in args.prompt_ids.split(",")]
  with open(args.actual) as f:
    actual = [int(x) for x in f.read().strip().split(",") if x.strip()]
  expected, margins = [], []
  for _ in range(args.max_new_tokens):
    logits = llmc_ref.gpt2_model(np.array([ids + expected]), weights, config["heads"],
                                 config["layers"], eps=config["eps"])[0, -1]
    top2 = np.sort(logits)[-2:]
    margins.append(float(top2[1] - top2[0]))
    expected.append(int(np.argmax(logits)))
    if len(ids) + len(expected) >= config["max_seq"]:
      break
  distinct = len(set(expected))
  if actual == expected:
    print(f"generate: {len(expected)} ids equal ({distinct} distinct; smallest top-2 logit "
          f"margin {min(margins):.3g}) PASS")
    return 0
  first = next((i for i, (a, e) in enumerate(zip(actual, expected)) if a != e),
               min(len(actual), len(expected)))
  print(f"generate: FAIL: {len(actual)} ids, expected {len(expected)}; first difference at new "
        f"token {first} (reference margin there "
        f"{margins[first] if first < len(margins) else float('nan'):.3g})")
  print(f"  actual:   {actual}")
  print(f"  expected: {expected}")
  return 1


#===----------------------------------------------------------------------===#
# Command line
#===----------------------------------------------------------------------===#


def main(argv=None):
  p = argparse.ArgumentParser(prog="llmc_check", description=__doc__.split("\n")[0])
  sub = p.add_subparsers(dest="cmd", required=True)
  g = sub.add_parser("gen", help="write seeded inputs")
  g.add_argument("dir")
  g.add_argument("specs", nargs="+", metavar="NAME=SPEC")
  g.add_argument("--seed", type=int, default=0)
  for name in ("expr", "model"):
    c = sub.add_parser(name)
    if name == "expr":
      c.add_argument("expr")
      c.add_argument("--arg", action="append", default=[], metavar="NAME=PATH")
      c.add_argument("--dtype", choices=["f32", "f64", "f16", "bf16", "exact"], default="f32")
    else:
      c.add_argument("model")
      c.add_argument("--input", action="append", default=[], metavar="NAME=PATH")
    c.add_argument("--actual", required=True)
    c.add_argument("--rtol", type=float)
    c.add_argument("--atol", type=float)
    c.add_argument("--name", help="label printed in the result line")
  c = sub.add_parser("generate", help="greedy ids of a gpt2_decoder example vs numpy")
  c.add_argument("model")
  c.add_argument("--prompt-ids", required=True)
  c.add_argument("--max-new-tokens", type=int, required=True)
  c.add_argument("--actual", required=True, help="file with the comma-separated ids")
  args = p.parse_args(argv)
  try:
    return {"gen": cmd_gen, "expr": cmd_expr, "model": cmd_model,
            "generate": cmd_generate}[args.cmd](args)
  except (ValueError, KeyError) as err:
    print(f"llmc_check: error: {err}", file=sys.stderr)
    return 2


if __name__ == "__main__":
  sys.exit(main())
