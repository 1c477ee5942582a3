#!/usr/bin/env python3
"""Checks llmc's CUDA kernels without a GPU.

For every public function of each llm-dialect file given:
  * runs it with `llmc run --target cpu` and `llmc run --target
    cuda-emulator` (the kernels of llm-lower-to-nvvm executed on the CPU by
    llm-emulate-gpu-kernels) on the same seeded inputs and compares every
    result: floats within rtol 1e-4 + atol 1e-5 * max(1, max |expected|)
    (f32 and f64; the block reductions add in another order), 2e-3 + 1e-3 *
    max(1, max |expected|) for f16/bf16 results, integers and booleans
    exactly;
  * with --ptxas DIR (a CUDA toolkit), compiles it with `llmc compile
    --target cuda --emit=ptx` for each --chip and runs DIR/bin/ptxas on the
    PTX;
  * --gpu-arg ARG (repeatable) is added to the GPU runs and compiles (e.g.
    `--gpu-arg=--pipeline-options=attention=materialized`).

Prints one line per function (PASS, FAIL with the reason, or UNSUPPORTED
with the compiler's message when the GPU path refuses the function) and a
summary `N functions: P passed, U unsupported, F failed`; exits 1 when any
failed.
"""

import argparse
import os
import re
import sys
import tempfile

# The comparison (and its tolerances) and the process helpers are the GPU
# check's: one definition in scripts/gpu_check_ops.py, which travels alone to
# the GPU machine.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
from gpu_check_ops import compare, first_error, run  # noqa: E402


def public_functions(path):
    text = open(path).read()
    return [m.group(1) for m in re.finditer(
        r"^\s*func\.func\s+@([A-Za-z0-9_]+)\s*\(", text, re.M)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("llmc")
    p.add_argument("workdir")
    p.add_argument("files", nargs="+")
    p.add_argument("--ptxas", default="")
    p.add_argument("--chip", action="append", default=[])
    p.add_argument("--gpu-arg", action="append", default=[],
                   help="extra argument of the GPU runs and compiles "
                        "(e.g. --gpu-arg=--pipeline-options=...)")
    args = p.parse_args()
    chips = args.chip or ["sm_80", "sm_90a"]
    counts = {"PASS": 0, "UNSUPPORTED": 0, "FAIL": 0}
    for path in args.files:
        for func in public_functions(path):
            tag = "%s:%s" % (os.path.basename(path), func)
            work = tempfile.mkdtemp(dir=args.workdir)
            cpu_dir, gpu_dir = os.path.join(work, "cpu"), os.path.join(work,
                                                                       "gpu")
            common = [args.llmc, "run", path, "--entry", func, "--no-cache",
                      "--quiet"]
            cpu = run(common + ["--output-dir", cpu_dir])
            if cpu.returncode != 0:
                # Functions that fail on the CPU are error tests.
                continue
            gpu = run(common + ["--target", "cuda-emulator", "--output-dir",
                                gpu_dir] + args.gpu_arg)
            if gpu.returncode != 0:
                err = first_error(gpu)
                status = "UNSUPPORTED" if "not supported on the GPU" in err \
                    else "FAIL"
                print("%s: %s: %s" % (status, tag, err))
                counts[status] += 1
                continue
            problem = compare(cpu_dir, gpu_dir)
            if problem is None and args.ptxas:
                for chip in chips:
                    ptx = os.path.join(work, chip + ".ptx")
                    c = run([args.llmc, "compile", path, "--entry", func,
                             "--target", "cuda", "--chip", chip,
                             "--emit=ptx", "-o", ptx, "--quiet"] +
                            args.gpu_arg)
                    if c.returncode != 0:
                        problem = "compile %s: %s" % (chip, first_error(c))
                        break
                    a = run([os.path.join(args.ptxas, "bin", "ptxas"),
                             "-arch=" + chip, ptx, "-o", os.devnull])
                    if a.returncode != 0:
                        problem = "ptxas %s: %s" % (chip, first_error(a))
                        break
            if problem is None:
                print("PASS: %s" % tag)
                counts["PASS"] += 1
            else:
                print("FAIL: %s: %s" % (tag, problem))
                counts["FAIL"] += 1
    total = sum(counts.values())
    print("%d functions: %d passed, %d unsupported, %d failed" %
          (total, counts["PASS"], counts["UNSUPPORTED"], counts["FAIL"]))
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
