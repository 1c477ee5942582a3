# llmc.compile(..., target="cuda") and target="cuda-emulator" from Python.
# Without a GPU, "cuda" runs over the fake driver of test/Runtime/CUDA (host
# memory, no kernel executed: the outputs' shapes and types, not their
# values); "cuda-emulator" runs the same kernels on the CPU and must give
# the CPU's results. No driver at all: a ValueError naming the reason.
#
# REQUIRES: cuda-toolkit
# RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 %python %s ok | FileCheck %s --check-prefix=OK
# RUN: env LLMC_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 %python %s nodriver | FileCheck %s --check-prefix=NODRIVER
import sys

import numpy as np

import llmc

MODEL = """
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = llm.exp %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
"""

x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
if sys.argv[1] == "ok":
    gpu = llmc.compile(MODEL, target="cuda")
    out = gpu(x)
    # OK: cuda (4, 8) float32 off
    print("cuda", out.shape, out.dtype, gpu.cache_status)
    emulated = llmc.compile(MODEL, target="cuda-emulator", cache=False)
    ref = llmc.compile(MODEL, cache=False)(x)
    emu = emulated(x)
    # OK-NEXT: cuda-emulator matches the CPU: True
    print("cuda-emulator matches the CPU:",
          bool(np.allclose(emu, ref, rtol=1e-5, atol=1e-6)))
    # threads= (OpenMP threads) is a CPU option, named as such.
    try:
        llmc.compile(MODEL, target="cuda-emulator", threads=2, cache=False)
    except ValueError as e:
        # OK-NEXT: ValueError: the option threads applies to CPU targets (OpenMP threads), not target cuda-emulator
        print("ValueError:", e)
else:
    try:
        llmc.compile(MODEL, target="cuda")
    except ValueError as e:
        # NODRIVER: ValueError: {{.*}}--target cuda: no CUDA driver found (/nonexistent/libcuda.so.1 could not be loaded
        print("ValueError:", e)
