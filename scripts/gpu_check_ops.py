#!/usr/bin/env python3
"""The op-family part of scripts/gpu-check.sh: every public function of the
integration tests, run on a real GPU and compared with the CPU.

  gpu_check_ops.py prepare LLMC DIR CHIP FILE.mlir...   (here: MLIR build)
  gpu_check_ops.py run DIR                               (on the GPU machine)

prepare, for each public function of each file: draws its inputs with numpy
(seeded by the function's name: floats uniform in [-1, 1), integers in
[0, 16), i1 0/1, as `llmc run` does), runs it with `llmc run --target cpu`
on them (the reference; a function that fails on the CPU is an error test and
is left out), and compiles it with `llmc compile --target cuda --emit=exe`.
A function the GPU path refuses ("not supported on the GPU"), or that the
stand-alone runner cannot feed (bf16 or dynamic arguments), is listed as
skipped with the reason; a compile failure of another kind is a failure.
Everything goes to DIR/ops (manifest.json, one program per function, its
inputs and the CPU results).

run executes each program on its inputs and compares every result with the
CPU's (`compare`: f32/f64 rtol 1e-4 + atol 1e-5 * max(1, max |expected|),
f16: 2e-3 + 1e-3 * the same scale; integers and booleans exactly), prints a line per function and a
summary, and exits 1 when any failed. Needs only python3 + numpy there.
"""

import hashlib
import json
import os
import re
import subprocess
import sys

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
          "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
          "i64": np.int64}


def functions(path):
    """(name, [argument type text]) of each public function of PATH."""
    text = open(path).read()
    out = []
    for m in re.finditer(r"^\s*func\.func\s+@([A-Za-z0-9_]+)\s*\(", text,
                         re.M):
        # The argument list: up to the parenthesis that closes the one
        # matched (attributes may hold parentheses of their own).
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = text[m.end():i - 1]
        out.append((m.group(1), re.findall(r"%\w+\s*:\s*(tensor<[^>]*>)",
                                           args)))
    return out


def draw(type_text, rng):
    """A numpy input for TYPE_TEXT (tensor<2x3xf32>), or a reason why not."""
    parts = type_text[len("tensor<"):-1].split("x")
    elem, dims = parts[-1], parts[:-1]
    if any(d == "?" for d in dims):
        return "a dynamic argument"
    if elem not in DTYPES:
        return "a %s argument" % elem
    shape = tuple(int(d) for d in dims)
    dtype = DTYPES[elem]
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 16, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def first_error(proc):
    for line in (proc.stderr + proc.stdout).splitlines():
        if "error" in line:
            return line.strip()
    return ((proc.stderr or proc.stdout).strip().splitlines() or ["?"])[-1]


def prepare(llmc, root, chip, files):
    base = os.path.join(root, "ops")
    os.makedirs(base, exist_ok=True)
    manifest = []
    for path in files:
        for func, types in functions(path):
            tag = "%s:%s" % (os.path.basename(path), func)
            key = tag.replace(".mlir:", "__")
            entry = {"tag": tag, "key": key}
            seed = int(hashlib.sha256(tag.encode()).hexdigest()[:8], 16)
            rng = np.random.default_rng(seed)
            inputs = [draw(t, rng) for t in types]
            bad = [x for x in inputs if isinstance(x, str)]
            if bad:
                entry["skip"] = "the runner is given %s" % bad[0]
                manifest.append(entry)
                continue
            work = os.path.join(base, key)
            os.makedirs(os.path.join(work, "ref"), exist_ok=True)
            names = []
            for i, x in enumerate(inputs):
                names.append("arg%d.npy" % i)
                np.save(os.path.join(work, names[-1]), x)
            cpu = run([llmc, "run", path, "--entry", func, "--no-cache",
                       "--quiet", "--output-dir", os.path.join(work, "ref")] +
                      ["--input=arg%d=%s" % (i, os.path.join(work, n))
                       for i, n in enumerate(names)])
            if cpu.returncode != 0:
                # Functions that fail on the CPU are error tests.
                subprocess.run(["rm", "-rf", work])
                continue
            exe = run([llmc, "compile", path, "--entry", func, "--target",
                       "cuda", "--chip", chip, "--emit=exe", "-o",
                       os.path.join(work, "model.exe"), "--quiet"])
            if exe.returncode != 0:
                err = first_error(exe)
                subprocess.run(["rm", "-rf", work])
                if "not supported on the GPU" in err or "bf16" in err:
                    entry["skip"] = err
                else:
                    entry["compile_error"] = err
                manifest.append(entry)
                continue
            subprocess.run(["strip", os.path.join(work, "model.exe")])
            entry["inputs"] = names
            manifest.append(entry)
    with open(os.path.join(base, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    ready = sum(1 for e in manifest if "inputs" in e)
    print("ops: %d functions ready, %d skipped, %d failed to compile" %
          (ready, sum(1 for e in manifest if "skip" in e),
           sum(1 for e in manifest if "compile_error" in e)))


def compare(ref_dir, out_dir):
    """None when every .npy result of REF_DIR is in OUT_DIR with the same
    shape and dtype and close enough, else the first problem as text: floats
    within rtol 1e-4 + atol 1e-5 * max(1, max |expected|) (f32, f64; the
    GPU's reductions add in another order), 2e-3 + 1e-3 * the same scale for
    f16/bf16; integers and booleans exactly. test/lib/gpu_emulator_check.py
    uses it too."""
    names = sorted(f for f in os.listdir(ref_dir) if f.endswith(".npy"))
    if not names:
        return "no results"
    for name in names:
        a = np.load(os.path.join(ref_dir, name))
        path = os.path.join(out_dir, name)
        if not os.path.exists(path):
            return "%s missing" % name
        b = np.load(path)
        if a.shape != b.shape or a.dtype != b.dtype:
            return "%s: %s %s vs %s %s" % (name, a.shape, a.dtype, b.shape,
                                          b.dtype)
        if a.dtype.kind in "fc":
            rtol, atol = (1e-4, 1e-5) if a.dtype in (np.float32,
                                                     np.float64) else \
                (2e-3, 1e-3)
            finite = np.abs(a[np.isfinite(a)])
            atol *= max(1.0, float(finite.max()) if finite.size else 1.0)
            if not np.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
                err = np.nanmax(np.abs(b.astype(np.float64) - a))
                return "%s: max |diff| %.3g" % (name, err)
        elif not np.array_equal(a, b):
            return "%s: %d elements differ" % (name, int(np.sum(a != b)))
    return None


def run_all(root):
    base = os.path.join(root, "ops")
    manifest = json.load(open(os.path.join(base, "manifest.json")))
    counts = {"PASS": 0, "SKIP": 0, "FAIL": 0}
    for e in manifest:
        if "skip" in e:
            print("SKIP: %s: %s" % (e["tag"], e["skip"]))
            counts["SKIP"] += 1
            continue
        if "compile_error" in e:
            print("FAIL: %s: did not compile: %s" % (e["tag"],
                                                    e["compile_error"]))
            counts["FAIL"] += 1
            continue
        work = os.path.join(base, e["key"])
        out = os.path.join(work, "gpu")
        os.makedirs(out, exist_ok=True)
        try:
            p = subprocess.run(
                [os.path.join(work, "model.exe"), "--repeat", "1",
                 "--output-dir", out] + [os.path.join(work, n)
                                         for n in e["inputs"]],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=60)
            problem = None if p.returncode == 0 else \
                "exit %d: %s" % (p.returncode, p.stdout.strip()[-300:])
        except subprocess.TimeoutExpired:
            problem = "timed out (60 s)"
        if problem is None:
            problem = compare(os.path.join(work, "ref"), out)
        status = "PASS" if problem is None else "FAIL"
        counts[status] += 1
        print("%s: %s%s" % (status, e["tag"],
                            "" if problem is None else ": " + problem))
    print("ops: %d functions: %d passed, %d skipped, %d failed" %
          (len(manifest), counts["PASS"], counts["SKIP"], counts["FAIL"]))
    return 1 if counts["FAIL"] else 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        return run_all(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
