// llmc run --target cuda on a model with run-time index checks: the
// kernels record a failed check in a device copy of the status, which each
// call fills from the host status before its first kernel and copies back
// (32 bytes) after its last one (llm-forward-gpu-index-status), where llmc
// reads it as on the CPU. Over the fake driver no kernel runs, so this
// checks the copies' places; run-index-checks.mlir checks the errors
// through the CUDA-kernel emulator, whose kernels do run.
//
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/ids.npy', np.array([[0, 3, 5]], np.int64))"
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc run %s --target cuda --input arg0=%t/ids.npy --repeat 1 --warmup 0 --no-cache 2>&1 | FileCheck %s
// One call: the ids copied in (24 bytes); the status copied in (32 bytes);
// the kernels (the check's reduction and its scalar record; the lookup);
// once they are done, the status copied out; then the result (96 bytes).
// CHECK:      fake-cuda: cuMemcpyAsync(24)
// CHECK-NOT:  cuMemcpyAsync
// CHECK:      fake-cuda: cuMemAlloc(32)
// CHECK-NEXT: fake-cuda: cuMemcpyAsync(32)
// CHECK:      fake-cuda: cuModuleGetFunction(main_rows_0)
// CHECK:      fake-cuda: cuModuleGetFunction(main_scalar_1)
// CHECK:      fake-cuda: cuModuleGetFunction(main_flat_2)
// CHECK-NEXT: fake-cuda: cuLaunchKernel
// CHECK-NEXT: fake-cuda: cuStreamSynchronize
// CHECK-NEXT: fake-cuda: cuMemcpyAsync(32)
// CHECK:      fake-cuda: cuMemcpyAsync(96)
// CHECK:      out0: tensor<1x3x8xf32>

func.func @main(%ids: tensor<1x3xi64>) -> tensor<1x3x8xf32> {
  %t = llm.constant dense<0.5> : tensor<16x8xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x3xi64>) -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}
