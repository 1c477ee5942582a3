// llmc compile --target cuda --emit=exe|shared: programs that need only libc
// and, at run time, the CUDA driver. Without a GPU they run over the fake
// driver of test/Runtime/CUDA (host memory, no kernels executed), which
// checks the runner's input/output handling, the copies and the error path;
// the numbers are checked on a GPU by scripts/gpu-check.sh.
//
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: llmc compile %s --entry scale --target cuda --chip sm_80 --emit=exe -o %t/scale.exe --quiet
// RUN: llmc compile %s --entry scale --target cuda --chip sm_80 --emit=shared -o %t/scale.so --quiet
//
// Only libc: the driver is loaded at run time.
// RUN: %python -c "import subprocess, sys; out = subprocess.run(['ldd', sys.argv[1]], capture_output=True, text=True).stdout; print('cuda' in out, 'libLLVM' in out, 'libMLIR' in out)" %t/scale.exe | FileCheck %s --check-prefix=DEPS
// DEPS: False False False
// RUN: nm -D %t/scale.so | FileCheck %s --check-prefix=SYMS
// SYMS-DAG: T _mlir_ciface_scale
// SYMS-DAG: T _mlir_ciface_scale_host
//
// No driver: one message, exit 1, no output file.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%t/missing.so not %t/scale.exe --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: llmc CUDA runtime: no CUDA driver found
// NODRIVER: error: the model failed on the GPU
// RUN: not test -e %t/out/out0.npy
// A FIFO as the driver: refused (dlopen would wait on it forever).
// RUN: rm -f %t/fifo.so && mkfifo %t/fifo.so
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%t/fifo.so not %t/scale.exe --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=FIFODRIVER
// FIFODRIVER: llmc CUDA runtime: no CUDA driver found ({{.*}}fifo.so is not a regular file)
//
// The fake driver: inputs read, results written with the right shape.
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((4, 8), np.float32))"
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 %t/scale.exe %t/x.npy --output-dir %t/out --repeat 2 | FileCheck %s --check-prefix=FAKE
// FAKE: out0: sum=
// FAKE: time: median {{.*}} ms (2 runs after 1 warm-up
// RUN: %python -c "import numpy as np; a = np.load('%t/out/out0.npy'); print(a.shape, a.dtype)" | FileCheck %s --check-prefix=SHAPE
// SHAPE: (4, 8) float32
//
// A wrong input: the runner names the expected shape.
// RUN: %python -c "import numpy as np; np.save('%t/bad.npy', np.ones((8, 4), np.float32))"
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 not %t/scale.exe %t/bad.npy 2>&1 | FileCheck %s --check-prefix=BADSHAPE
// BADSHAPE: error: {{.*}}bad.npy: expected shape (4, 8)
//
// The pipeline option format=bin: the program embeds the cubin alone (no
// fatbin, whose PTX part can be large: weights are module globals), and
// still runs (and makes its --output-dir); --emit=fatbin refuses it.
// RUN: llmc compile %s --entry scale --target cuda --chip sm_80 --emit=exe -o %t/scale-bin.exe --quiet --pipeline-options=format=bin
// RUN: %python -c "import sys; print([open(p, 'rb').read().count(b'\x50\xed\x55\xba') > 0 for p in sys.argv[1:]])" %t/scale.exe %t/scale-bin.exe | FileCheck %s --check-prefix=FATBIN
// FATBIN: [True, False]
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 %t/scale-bin.exe %t/x.npy --output-dir %t/out-bin --repeat 2 | FileCheck %s --check-prefix=FAKE
// RUN: test -f %t/out-bin/out0.npy
// RUN: not llmc compile %s --entry scale --target cuda --chip sm_80 --emit=fatbin -o %t/scale.fatbin --pipeline-options=format=bin 2>&1 | FileCheck %s --check-prefix=BINFATBIN
// BINFATBIN: llmc: error: --emit=fatbin writes a fatbin; the pipeline option format=bin makes a bin object (use --emit=obj, exe or shared for it)
// RUN: not test -e %t/scale.fatbin

//
// A model with run-time index checks: the runner zeroes the status
// `__llmc_status` (defined by the model's object; a model without checks
// leaves the runner's weak reference null) before each call and fails after
// a call that recorded an out-of-range index. Over the fake driver no
// kernel records one; scripts/gpu-check.sh checks the failure on a GPU.
// RUN: llmc compile %s --entry lookup --target cuda --chip sm_80 --emit=exe -o %t/lookup.exe --quiet
// RUN: nm %t/lookup.exe | FileCheck %s --check-prefix=STATUS
// STATUS: {{[BD]}} __llmc_status
// RUN: nm %t/scale.exe | FileCheck %s --check-prefix=NOSTATUS
// NOSTATUS: w __llmc_status
// RUN: %python -c "import numpy as np; np.save('%t/ids.npy', np.array([[0, 3, 5, 15]], np.int64))"
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 %t/lookup.exe %t/ids.npy --repeat 2 | FileCheck %s --check-prefix=FAKE
func.func @scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @lookup(%ids: tensor<1x4xi64>) -> tensor<1x4x8xf32> {
  %t = llm.constant dense<0.5> : tensor<16x8xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}
