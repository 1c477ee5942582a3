#!/usr/bin/env python3
"""Helpers for the llmc CLI tests: write (possibly broken) .npy files and
compare llmc outputs to numpy.

  npytool.py save PATH --dtype D --shape 2,3 [--values arange|random:SEED]
                       [--version 1|2|3] [--fortran] [--big-endian]
                       [--truncate N] [--bad-magic]
  npytool.py check OUT.npy EXPR IN0.npy [IN1.npy ...] [--rtol R] [--atol A]
      EXPR is a numpy expression of a0, a1, ... (the inputs, np = numpy,
      gelu and softmax in float64);
      prints "match <dtype> <shape>" or exits 1 with the max difference.
"""
import argparse
import sys

import numpy as np


def make_values(dtype, shape, spec):
    n = int(np.prod(shape)) if shape else 1
    if spec == "arange":
        v = np.arange(n, dtype=np.float64) * 0.25 - 1.0
        if np.dtype(dtype).kind in "iub":
            v = np.arange(n) % 7 - 3
            if np.dtype(dtype).kind == "b":
                v = np.arange(n) % 3 == 0
    else:
        seed = int(spec.split(":")[1])
        rng = np.random.default_rng(seed)
        if np.dtype(dtype).kind == "b":
            v = rng.integers(0, 2, n).astype(bool)
        elif np.dtype(dtype).kind in "iu":
            v = rng.integers(-5, 6, n)
        else:
            v = rng.uniform(-1, 1, n)
    return np.asarray(v).astype(dtype).reshape(shape)


def cmd_save(args):
    shape = tuple(int(s) for s in args.shape.split(",")) if args.shape else ()
    arr = make_values(args.dtype, shape, args.values)
    if args.big_endian:
        arr = arr.astype(arr.dtype.newbyteorder(">"))
    if args.fortran:
        arr = np.asfortranarray(arr)
    with open(args.path, "wb") as f:
        version = (args.version, 0)
        header = np.lib.format.header_data_from_array_1_0(arr)
        np.lib.format._write_array_header(f, header, version)
        if args.fortran:
            f.write(arr.T.tobytes())
        else:
            f.write(arr.tobytes())
    data = open(args.path, "rb").read()
    if args.truncate:
        data = data[: len(data) - args.truncate]
    if args.bad_magic:
        data = b"\x93NUMPZ" + data[6:]
    with open(args.path, "wb") as f:
        f.write(data)


def gelu(x):
    """Exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))), in float64."""
    import math
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def cmd_check(args):
    out = np.load(args.out)
    env = {"np": np, "gelu": gelu, "softmax": softmax}
    for i, p in enumerate(args.inputs):
        env["a%d" % i] = np.load(p)
    ref = np.asarray(eval(args.expr, env))
    if out.shape != ref.shape:
        print("shape mismatch: got %s, expected %s" % (out.shape, ref.shape))
        return 1
    if out.dtype != ref.dtype and not args.any_dtype:
        print("dtype mismatch: got %s, expected %s" % (out.dtype, ref.dtype))
        return 1
    if not np.allclose(out.astype(np.float64), ref.astype(np.float64),
                       rtol=args.rtol, atol=args.atol):
        diff = np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64)))
        print("value mismatch: max abs diff %g" % diff)
        return 1
    print("match %s %s" % (out.dtype, "x".join(map(str, out.shape))))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("path")
    s.add_argument("--dtype", default="float32")
    s.add_argument("--shape", default="")
    s.add_argument("--values", default="arange")
    s.add_argument("--version", type=int, default=1)
    s.add_argument("--fortran", action="store_true")
    s.add_argument("--big-endian", action="store_true")
    s.add_argument("--truncate", type=int, default=0)
    s.add_argument("--bad-magic", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("out")
    c.add_argument("expr")
    c.add_argument("inputs", nargs="*")
    c.add_argument("--rtol", type=float, default=1e-5)
    c.add_argument("--atol", type=float, default=1e-6)
    c.add_argument("--any-dtype", action="store_true")
    args = p.parse_args()
    if args.cmd == "save":
        cmd_save(args)
        return 0
    return cmd_check(args)


if __name__ == "__main__":
    sys.exit(main())
