#!/usr/bin/env python3
# ===- bench.py - f32 matmul: llm-lower-to-cpu vs numpy/OpenBLAS -----------===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
#
# Times an MxNxK f32 matmul compiled by `llm-opt --llm-lower-to-cpu` and run
# by mlir-runner (-O3 JIT, rtclock around a repeat loop, one warm-up call)
# against numpy's matmul (OpenBLAS when libopenblas0-pthread is installed)
# in the same run, on 1 thread (parallel=false vs OPENBLAS_NUM_THREADS=1) and
# on all threads (OpenMP vs OpenBLAS threads). Prints ms per call, GFLOP/s
# and the ratio llmc/OpenBLAS (< 1 means llmc is faster). Not a test.
#
# The compiled function allocates its result on every call. On this VM a
# page fault is very expensive and glibc returns freed megabyte buffers to
# the kernel, so by default the JIT runs with MALLOC_TRIM_THRESHOLD_ /
# MALLOC_MMAP_THRESHOLD_ raised (glibc keeps and reuses the memory, as
# numpy's allocator cache does); --no-malloc-keep measures without that.
#
# Usage: /usr/bin/python3 bench/matmul/bench.py [--build build-cpu]
#          [--size 512] [--reps 50] [--trials 5] [--target host]
#          [--threads N] [--no-malloc-keep]
#
# ===----------------------------------------------------------------------===#

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLVM = "/usr/lib/llvm-22"

MLIR = """
func.func private @rtclock() -> f64
func.func @matmul(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> attributes {{no_inline}} {{
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) outs(%f : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
func.func @main() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {REPS} : index
  %one = arith.constant 1.0 : f32
  %ea = tensor.empty() : tensor<{M}x{K}xf32>
  %a = linalg.fill ins(%one : f32) outs(%ea : tensor<{M}x{K}xf32>) -> tensor<{M}x{K}xf32>
  %eb = tensor.empty() : tensor<{K}x{N}xf32>
  %b = linalg.fill ins(%one : f32) outs(%eb : tensor<{K}x{N}xf32>) -> tensor<{K}x{N}xf32>
  %w = call @matmul(%a, %b) : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %w0 = tensor.extract %w[%c0, %c0] : tensor<{M}x{N}xf32>
  scf.for %t = %c0 to %c{TRIALS} step %c1 {{
    %t0 = func.call @rtclock() : () -> f64
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %w0) -> f32 {{
      %r = func.call @matmul(%a, %b) : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
      %x = tensor.extract %r[%c0, %c0] : tensor<{M}x{N}xf32>
      %y = arith.addf %acc, %x : f32
      scf.yield %y : f32
    }}
    %t1 = func.call @rtclock() : () -> f64
    %dt = arith.subf %t1, %t0 : f64
    vector.print str "time "
    vector.print %dt : f64
    vector.print str "check "
    vector.print %s : f32
  }}
  return
}}
"""


def run_llmc(args, parallel, threads):
    src = MLIR.format(M=args.size, N=args.size, K=args.size, REPS=args.reps,
                      TRIALS=args.trials)
    # Materialize the trial count constant.
    src = src.replace("scf.for %t = %c0 to %c{} step".format(args.trials),
                      "%ctrials = arith.constant {} : index\n  scf.for %t = %c0 to %ctrials step".format(args.trials))
    with tempfile.TemporaryDirectory() as tmp:
        inp = os.path.join(tmp, "mm.mlir")
        out = os.path.join(tmp, "mm.llvm.mlir")
        with open(inp, "w") as f:
            f.write(src)
        opt = os.path.join(ROOT, args.build, "bin", "llm-opt")
        subprocess.run([opt, inp, "--llm-lower-to-cpu=parallel={} target={}".format(
            "true" if parallel else "false", args.target), "-o", out], check=True)
        libs = [LLVM + "/lib/libmlir_runner_utils.so",
                LLVM + "/lib/libmlir_c_runner_utils.so"]
        if parallel:
            libs.append(LLVM + "/lib/libomp.so")
        env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                   OMP_WAIT_POLICY="PASSIVE")
        if args.malloc_keep:
            env.update(MALLOC_TRIM_THRESHOLD_="2000000000",
                       MALLOC_MMAP_THRESHOLD_="2000000000")
        res = subprocess.run([LLVM + "/bin/mlir-runner", "-O3", out, "-e", "main",
                              "-entry-point-result=void",
                              "-shared-libs=" + ",".join(libs)],
                             check=True, capture_output=True, text=True, env=env)
    times = [float(x) for x in re.findall(r"time\s*([0-9.e+-]+)", res.stdout)]
    checks = [float(x) for x in re.findall(r"check\s*([0-9.e+-]+)", res.stdout)]
    expect = args.size * (args.reps + 1)
    if not checks or any(abs(c - expect) > 1e-3 * expect for c in checks):
        sys.exit("llmc result check failed: %s (expected %s)" % (checks, expect))
    return min(times) / args.reps


def run_numpy(args, threads):
    code = """
import time, numpy as np
n = {n}
a = np.ones((n, n), np.float32)
for _ in range(3): a @ a
best = 1e9
for _ in range({trials}):
    t = time.perf_counter()
    for _ in range({reps}): a @ a
    best = min(best, (time.perf_counter() - t) / {reps})
print(best)
""".format(n=args.size, trials=args.trials, reps=args.reps)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="PASSIVE")
    res = subprocess.run(["/usr/bin/python3", "-c", code], check=True,
                         capture_output=True, text=True, env=env)
    return float(res.stdout.strip())


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", default="build-cpu")
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--target", default="host")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--no-malloc-keep", dest="malloc_keep",
                   action="store_false",
                   help="let glibc return freed buffers to the kernel")
    args = p.parse_args()
    flop = 2.0 * args.size ** 3
    print("f32 matmul {0}x{0}x{0}, best of {1} trials x {2} calls".format(
        args.size, args.trials, args.reps), flush=True)
    for threads, parallel in [(1, False), (args.threads, True)]:
        t_llmc = run_llmc(args, parallel, threads)
        t_np = run_numpy(args, threads)
        print("{} thread(s): llmc {:.3f} ms ({:.1f} GFLOP/s)  numpy/OpenBLAS "
              "{:.3f} ms ({:.1f} GFLOP/s)  ratio llmc/OpenBLAS {:.2f}".format(
                  threads, t_llmc * 1e3, flop / t_llmc / 1e9, t_np * 1e3,
                  flop / t_np / 1e9, t_llmc / t_np))


if __name__ == "__main__":
    main()
