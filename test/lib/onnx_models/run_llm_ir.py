#!/usr/bin/env python3
# ===- run_llm_ir.py - evaluate imported llm IR with the numpy reference --=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Runs the `func.func @main` printed by `llm-translate --import-onnx` with
the numpy reference of the llm dialect (test/lib/llmc_ref.py) and compares
its results with reference outputs (e.g. torch's), to check the importer's
semantics end to end, independently of the lowering.

Usage: run_llm_ir.py MODEL.mlir REF.npz [--rtol R] [--atol A]

REF.npz holds `in<i>` (the function's arguments, in order) and `out<i>`
(the expected results). Prints `max abs error <e> on output <i>` per result
and `OK`, or exits 1 naming the first mismatch. Only the textual forms the
importer emits are parsed.
"""

import argparse
import re
import sys

import numpy as np

import llmc_ref as ref

ELEM = {"f32": np.float32, "f16": np.float16, "i64": np.int64, "i32": np.int32,
        "i8": np.int8, "i1": np.bool_}


def parse_type(t):
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", t.strip())
    shape = [int(d) for d in m.group(1).split("x") if d]
    return shape, m.group(2)


def parse_attrs(text):
    attrs = {}
    for part in re.split(r",\s*(?![^<]*>)", text.strip()):
        if not part:
            continue
        if "=" not in part:
            attrs[part.strip()] = True
            continue
        k, v = [s.strip() for s in part.split("=", 1)]
        if v.startswith("array<"):
            body = v[len("array<i64:"):-1]
            attrs[k] = [int(x) for x in body.split(",") if x.strip()]
        elif v in ("true", "false"):
            attrs[k] = v == "true"
        else:
            num, _ = v.split(":")
            attrs[k] = float(num) if "." in num or "E" in num or "e" in num else int(num)
    return attrs


def evaluate(text, inputs):
    """Evaluates `func.func @main` of the textual module `text` on the list of
    numpy arrays `inputs`; returns the list of results."""
    blobs = {}
    for name, hexdata in re.findall(r"^\s*([\w.$]+): \"0x([0-9A-F]+)\"", text, re.M):
        blobs[name] = bytes.fromhex(hexdata)[4:]  # drop the alignment header

    env = {}
    sig = re.search(r"func\.func @main\((.*?)\)\s*->", text)
    args = re.findall(r"(%arg\d+): (tensor<[^>]*>)", sig.group(1))
    for (name, _), value in zip(args, inputs):
        env[name] = value

    for line in text.splitlines():
        line = line.strip()
        if line.startswith("return"):
            names = line[len("return"):].split(":")[0].split(",")
            return [env[n.strip()] for n in names if n.strip()]
        m = re.match(r"(%\d+) = llm\.(\w+) (.*)$", line)
        if not m:
            continue
        res, op, rest = m.groups()
        body, types = rest.rsplit(" : ", 1)
        rtype = types.split("->")[-1].strip() if "->" in types else types.strip()
        rshape, relem = parse_type(rtype)
        attrs = {}
        am = re.search(r"\{(.*)\}\s*$", body)
        if am and op != "constant":
            attrs = parse_attrs(am.group(1))
            body = body[:am.start()]
        if op == "constant":
            cm = re.match(r"dense_resource<([\w.$]+)>", body.strip())
            if cm:
                v = np.frombuffer(blobs[cm.group(1)], dtype=ELEM[relem]).reshape(rshape)
            else:
                lit = re.match(r"dense<(.*)>", body.strip()).group(1)
                lit = lit.replace("true", "1").replace("false", "0")
                # "0x..." (quoted: the raw storage) or 0x... (a float
                # given by its bits, e.g. inf).
                hm = re.fullmatch(r'"?0x([0-9A-F]*)"?', lit.strip())
                if hm:
                    # MLIR's hex form: the raw storage, i1 packed 8 to a
                    # byte (least significant bit first); one element for
                    # a splat.
                    raw = bytes.fromhex(hm.group(1))
                    if not lit.strip().startswith('"'):
                        raw = raw[::-1]  # the bits, most significant first
                    n = int(np.prod(rshape))
                    if relem == "i1":
                        bits = np.unpackbits(np.frombuffer(raw, np.uint8),
                                             bitorder="little").astype(np.bool_)
                        v = bits[:n] if len(bits) >= n else bits[:1]
                    else:
                        v = np.frombuffer(raw, dtype=ELEM[relem])
                    v = (v.reshape(rshape) if v.size == n
                         else np.broadcast_to(v[:1], rshape))
                elif not lit.strip():  # an empty tensor
                    v = np.zeros(rshape, dtype=ELEM[relem])
                else:
                    v = np.broadcast_to(np.array(eval(lit), dtype=ELEM[relem]), rshape)
            env[res] = np.array(v)
            continue
        ops = re.findall(r"%[\w]+", body)
        x = [env[o] for o in ops]
        if op == "layer_norm":
            named = dict(re.findall(r"(scale|bias) (%\w+)", body))
            r = ref.layer_norm(x[0], env.get(named.get("scale")),
                               env.get(named.get("bias")), axis=attrs.get("axis", -1),
                               epsilon=attrs.get("epsilon", 1e-5))
        elif op == "matmul":
            r = ref.matmul(x[0], x[1], attrs.get("transpose_a", False),
                           attrs.get("transpose_b", False))
        elif op == "softmax":
            r = ref.softmax(x[0], attrs.get("axis", -1))
        elif op == "compare":
            r = ref.compare(body.strip().split(",")[0].strip(), x[0], x[1])
        elif op == "gather":
            r = ref.gather(x[0], x[1], attrs.get("axis", 0))
        elif op == "gather_elements":
            r = ref.gather_elements(x[0], x[1], attrs.get("axis", 0))
        elif op == "reverse":
            r = ref.reverse(x[0], attrs["dimensions"])
        elif op == "log_softmax":
            r = ref.log_softmax(x[0], attrs.get("axis", -1))
        elif op in ("argmax", "argmin"):
            r = getattr(ref, op)(x[0], attrs.get("axis", 0),
                                 attrs.get("keepdims", True),
                                 attrs.get("select_last_index", False))
        elif op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                    "reduce_prod"):
            r = getattr(ref, op)(x[0], attrs["axes"], attrs.get("keepdims", False))
        elif op == "transpose":
            r = ref.transpose(x[0], attrs["permutation"])
        elif op == "reshape":
            r = ref.reshape(x[0], rshape)
        elif op == "broadcast_to":
            r = ref.broadcast_to(x[0], rshape)
        elif op == "concat":
            r = ref.concat(x, attrs["axis"])
        elif op == "slice":
            r = ref.slice(x[0], attrs["starts"], attrs["limits"], attrs["strides"])
        elif op == "embedding":
            r = ref.embedding(x[0], x[1])
        elif op == "cast":
            r = ref.cast(x[0], relem)
        elif op == "gelu":
            r = ref.gelu(x[0])
        else:
            r = getattr(ref, op)(*x)
        r = np.asarray(r)
        if list(r.shape) != rshape:
            raise ValueError("%s (llm.%s): reference shape %s, IR type %s" %
                             (res, op, list(r.shape), rshape))
        env[res] = r
    raise ValueError("no return found")


def compare(results, expected, rtol, atol, out=sys.stdout):
    """Prints the max abs error per result; returns True when all match."""
    ok = True
    for i, (r, exp) in enumerate(zip(results, expected)):
        r = np.asarray(r)
        err = float(np.max(np.abs(r.astype(np.float64) - exp))) if r.size else 0.0
        print("max abs error %.3g on output %d" % (err, i), file=out)
        if r.shape != exp.shape or not np.allclose(r, exp, rtol=rtol, atol=atol):
            print("MISMATCH on output %d" % i, file=out)
            ok = False
    return ok and len(results) == len(expected)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mlir")
    p.add_argument("ref")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    a = p.parse_args()
    data = np.load(a.ref)
    n_in = len([f for f in data.files if f.startswith("in")])
    n_out = len([f for f in data.files if f.startswith("out")])
    results = evaluate(open(a.mlir).read(), [data["in%d" % i] for i in range(n_in)])
    if not compare(results, [data["out%d" % i] for i in range(n_out)], a.rtol, a.atol):
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
