// llmc run --target cuda: the model JIT-compiled for the CUDA device's chip
// and run through llmc's CUDA runtime (host code: inputs copied in, the
// kernels launched, results copied out). Without a GPU it runs over the
// fake driver of test/Runtime/CUDA (host memory, no kernel executed): this
// checks the JIT route's calls (one module load for the whole run, the
// launches of each call by the kernel names of the compile report, the
// copies), its outputs' shapes and its error
// path; the numbers of the same host code and kernels are checked on a GPU
// by scripts/gpu-check.sh (its --emit=exe programs).
//
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((64, 96), np.float32))"
//
// Three calls: the kernels (a fatbin for the fake device's sm_80) are loaded
// once, each call launches the model's 2 kernels (the compile report's
// gpu_launches) between the input copy and the result copy.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc run %s --target cuda --input arg0=%t/x.npy --output-dir %t/out --repeat 3 --no-cache 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE-COUNT-1: fake-cuda: cuModuleLoadData(fatbin)
// TRACE-NOT:     cuModuleLoadData
// TRACE:         fake-cuda: cuMemcpyAsync
// TRACE:         fake-cuda: cuModuleGetFunction(main_tiles_0)
// TRACE-NEXT:    fake-cuda: cuLaunchKernel(grid 8,1,1 block 256,1,1
// TRACE-NEXT:    fake-cuda: cuModuleGetFunction(main_rows_1)
// TRACE-NEXT:    fake-cuda: cuLaunchKernel(grid 64,1,1 block 128,1,1
// TRACE:         fake-cuda: cuMemcpyAsync
// TRACE-NOT:     cuModuleLoadData
// TRACE:         out0: tensor<64x128xf32>
// TRACE:         fake-cuda: cuModuleUnload
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc run %s --target cuda --input arg0=%t/x.npy --repeat 3 --no-cache 2>&1 | grep -c cuLaunchKernel | FileCheck %s --check-prefix=LAUNCHES
// (4 calls: one warm-up and 3 timed, 2 launches each.)
// LAUNCHES: 8
//
// Device buffers (the arena, the copies of x, w and the result) are
// allocated by the first call and reused by the next three (llmc's CUDA
// runtime keeps freed buffers for requests of the same size); without the
// cache every call allocates its 4.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc run %s --target cuda --input arg0=%t/x.npy --repeat 3 --no-cache 2>&1 | grep -c "cuMemAlloc(" | FileCheck %s --check-prefix=ALLOCS
// ALLOCS: {{^}}4{{$}}
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 LLMC_CUDA_MEMORY_CACHE=0 llmc run %s --target cuda --input arg0=%t/x.npy --repeat 3 --no-cache 2>&1 | grep -c "cuMemAlloc(" | FileCheck %s --check-prefix=NOCACHE
// NOCACHE: {{^}}16{{$}}
// The streams the host code creates and destroys in each call (one per run
// of asynchronous work) are kept by the runtime and reused: one stream for
// the 4 calls.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc run %s --target cuda --input arg0=%t/x.npy --repeat 3 --no-cache 2>&1 | grep -cE "cuStreamCreate|cuEventCreate|cuStreamDestroy" | FileCheck %s --check-prefix=STREAMS
// STREAMS: {{^}}1{{$}}
// RUN: %python -c "import numpy as np; a = np.load('%t/out/out0.npy'); print(a.shape, a.dtype)" | FileCheck %s --check-prefix=SHAPE
// SHAPE: (64, 128) float32
//
// A kernel failing on the device: the CUDA error, exit 1, no output file.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_FAIL=cuLaunchKernel FAKE_CUDA_FAIL_CODE=719 not llmc run %s --target cuda --input arg0=%t/x.npy --output-dir %t/out-fail --no-cache 2>&1 | FileCheck %s --check-prefix=LAUNCHFAIL
// The runtime does not print the message itself: llmc reports it once.
// LAUNCHFAIL-NOT: llmc CUDA runtime:
// LAUNCHFAIL: llmc: error: {{.*}}the CUDA device failed running the model: llmc CUDA runtime: {{.*}}cuLaunchKernel{{.*}}
// LAUNCHFAIL-NOT: llmc CUDA runtime:
// RUN: not test -e %t/out-fail/out0.npy
//
// The kernels do not load: the error when the model is loaded.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_FAIL=cuModuleLoadData FAKE_CUDA_FAIL_CODE=209 not llmc run %s --target cuda --input arg0=%t/x.npy --output-dir %t/out-fail --no-cache 2>&1 | FileCheck %s --check-prefix=LOADFAIL
// LOADFAIL-NOT: llmc CUDA runtime:
// LOADFAIL: error: {{.*}}the CUDA device failed loading the model: llmc CUDA runtime: {{.*}}cuModuleLoadData{{.*}}
// LOADFAIL-NOT: llmc CUDA runtime:
// RUN: not test -e %t/out-fail/out0.npy
//
// Where llmc's CUDA runtime is loaded from: $LLMC_CUDA_RUNTIME_LIBRARY when
// set; else first beside the installed binary (bin/../lib), then this
// build's. A copy of llmc in an installed layout whose lib/ holds a broken
// runtime shows that it is tried first.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_CUDA_RUNTIME_LIBRARY=%t/missing.so not llmc run %s --target cuda --input arg0=%t/x.npy --no-cache 2>&1 | FileCheck %s --check-prefix=RTENV
// RTENV: error: {{.*}}cannot load llmc's CUDA runtime '{{.*}}missing.so'
// A FIFO (dlopen would wait on it forever) and a relative path (taken from
// the working directory, not searched for on the library path).
// RUN: rm -f %t/fifo.so && mkfifo %t/fifo.so
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_CUDA_RUNTIME_LIBRARY=%t/fifo.so not llmc run %s --target cuda --input arg0=%t/x.npy --no-cache 2>&1 | FileCheck %s --check-prefix=RTFIFO
// RTFIFO: error: {{.*}}cannot load llmc's CUDA runtime '{{.*}}fifo.so': not a regular file
// RUN: cp %llmc_lib_dir/libllmc_cuda_runtime.so %t/rt.so
// RUN: cd %t && env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_CUDA_RUNTIME_LIBRARY=rt.so llmc run %s --target cuda --input arg0=%t/x.npy --no-cache | FileCheck %s --check-prefix=RTOK
// RUN: rm -rf %t/inst && mkdir -p %t/inst/bin %t/inst/lib
// RUN: cp %llmc_lib_dir/../bin/llmc %t/inst/bin/llmc
// RUN: echo "not a library" > %t/inst/lib/libllmc_cuda_runtime.so
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 not %t/inst/bin/llmc run %s --target cuda --input arg0=%t/x.npy --no-cache 2>&1 | FileCheck %s --check-prefix=RTINSTALLED
// RTINSTALLED: error: {{.*}}cannot load llmc's CUDA runtime '{{.*}}inst/bin/../lib/libllmc_cuda_runtime.so'
// RUN: cp %llmc_lib_dir/libllmc_cuda_runtime.so %t/inst/lib/libllmc_cuda_runtime.so
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 %t/inst/bin/llmc run %s --target cuda --input arg0=%t/x.npy --no-cache | FileCheck %s --check-prefix=RTOK
// RTOK: out0: tensor<64x128xf32>
//
// A device older than sm_80 is refused before compiling.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_COMPUTE_MAJOR=7 not llmc run %s --target cuda --input arg0=%t/x.npy --no-cache 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: --target cuda: device 0 (llmc fake GPU 0) has compute capability 7.0; llmc's kernels need 8.0 (sm_80) or newer

func.func @main(%x: tensor<64x96xf32>, %w: tensor<96x128xf32>) -> tensor<64x128xf32> {
  %0 = llm.matmul %x, %w : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  %1 = llm.softmax %0 {axis = -1 : i64} : tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}
