#!/usr/bin/env python3
# ===- run_lowered.py - run an llm-lower-to-cpu'd module natively --------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Translates a module lowered by `llm-opt --llm-lower-to-cpu` (LLVM dialect,
`@main` with `llvm.emit_c_interface`, tensor results as trailing memref
out-params) to LLVM IR, builds a shared library with clang and calls
`_mlir_ciface_main` through ctypes on the inputs of REF.npz, comparing the
results with its `out<i>` arrays.

Usage: run_lowered.py LOWERED.mlir REF.npz WORKDIR [--rtol R] [--atol A]

Needs mlir-translate and clang from /usr/lib/llvm-22/bin.
"""

import argparse
import ctypes
import os
import subprocess
import sys

import numpy as np

BIN = "/usr/lib/llvm-22/bin"


def descriptor(arr):
    """A ranked memref descriptor (ctypes struct) viewing `arr`."""
    rank = arr.ndim

    class Desc(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * max(rank, 1)),
                    ("strides", ctypes.c_int64 * max(rank, 1))]
    d = Desc()
    d.allocated = d.aligned = arr.ctypes.data
    d.offset = 0
    for i in range(rank):
        d.sizes[i] = arr.shape[i]
        d.strides[i] = arr.strides[i] // arr.itemsize
    return d


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mlir")
    p.add_argument("ref")
    p.add_argument("workdir")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    a = p.parse_args()
    ll = os.path.join(a.workdir, "model.ll")
    so = os.path.join(a.workdir, "model.so")
    subprocess.check_call([os.path.join(BIN, "mlir-translate"), "--mlir-to-llvmir",
                           a.mlir, "-o", ll])
    libdir = "/usr/lib/llvm-22/lib"
    # Parallel loops call the OpenMP runtime, copies call memrefCopy.
    omp = ["-lomp"] if os.path.exists(os.path.join(libdir, "libomp.so")) else []
    omp += ["-L" + libdir, "-lmlir_c_runner_utils", "-Wl,-rpath," + libdir]
    subprocess.check_call([os.path.join(BIN, "clang"), "-shared", "-fPIC", "-O2",
                           "-Wno-override-module", ll, "-o", so] + omp)
    lib = ctypes.CDLL(so)
    data = np.load(a.ref)
    ins = [np.ascontiguousarray(data["in%d" % i]) for i in range(len(data.files))
           if "in%d" % i in data.files]
    exp = [data["out%d" % i] for i in range(len(data.files)) if "out%d" % i in data.files]
    outs = [np.zeros_like(e, dtype=e.dtype) for e in exp]
    descs = [descriptor(x) for x in ins + outs]
    fn = lib._mlir_ciface_main
    fn.restype = None
    fn(*[ctypes.byref(d) for d in descs])
    ok = True
    for i, (r, e) in enumerate(zip(outs, exp)):
        err = float(np.max(np.abs(r.astype(np.float64) - e))) if r.size else 0.0
        print("max abs error %.3g on output %d" % (err, i))
        if not np.allclose(r, e, rtol=a.rtol, atol=a.atol):
            print("MISMATCH on output %d" % i)
            ok = False
    if not ok:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
