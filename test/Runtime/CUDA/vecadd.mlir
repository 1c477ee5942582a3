// A hand-written GPU host program (gpu.alloc, gpu.memset, gpu.memcpy,
// gpu.launch) lowered the way llmc lowers for CUDA (explicit pass list of
// ../shared/gpu/nvvm-probe.md, sm_80 fatbin), compiled to an object and
// linked with a C main (Inputs/vecadd-main.c) against llmc's CUDA runtime.
//
// REQUIRES: cuda-toolkit
// The C programs are linked without the sanitizer runtime:
// UNSUPPORTED: asan
// RUN: mlir-opt %s --pass-pipeline="builtin.module(gpu-kernel-outlining,func.func(gpu-async-region),convert-nvgpu-to-nvvm,convert-vector-to-scf,convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,expand-strided-metadata,nvvm-attach-target{chip=sm_80 O=3},lower-affine,convert-arith-to-llvm,convert-index-to-llvm{index-bitwidth=64},canonicalize,cse,gpu.module(convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),gpu-to-llvm,gpu-module-to-binary{format=fatbin toolkit=%cuda_toolkit},convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts)" -o %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o %t.ll
// RUN: %cc -c -O1 -Wno-override-module %t.ll -o %t.o
//
// The lowered host code calls the runtime, and nothing else of CUDA:
// RUN: nm %t.o | FileCheck %s --check-prefix=OBJ
// OBJ-DAG: U mgpuLaunchKernel
// OBJ-DAG: U mgpuMemAlloc
// OBJ-DAG: U mgpuMemFree
// OBJ-DAG: U mgpuMemcpy
// OBJ-DAG: U mgpuMemset32
// OBJ-DAG: U mgpuModuleGetFunction
// OBJ-DAG: U mgpuModuleLoad
// OBJ-DAG: U mgpuModuleUnload
// OBJ-DAG: U mgpuStreamCreate
// OBJ-DAG: U mgpuStreamDestroy
// OBJ-DAG: U mgpuStreamSynchronize
// OBJ-NOT: U cu
//
// Linked against the shared and the static runtime (an undefined mgpu*
// would fail the link); statically linked, no mgpu* is left undefined; the
// programs need no libcuda (dlopen at run time) and, statically linked, no
// C++ runtime either.
// RUN: %cc -I%llmc_src_root/include %S/Inputs/vecadd-main.c %t.o -L%llmc_lib_dir -lllmc_cuda_runtime -Wl,-rpath,%llmc_lib_dir -o %t.exe
// RUN: %cc -I%llmc_src_root/include %S/Inputs/vecadd-main.c %t.o %llmc_cuda_runtime_static -o %t-static.exe
// RUN: nm -u %t-static.exe | FileCheck %s --check-prefix=UNDEF
// UNDEF-NOT: mgpu
// UNDEF-NOT: cu{{[A-Z]}}
// RUN: llvm-readelf -d %t.exe | FileCheck %s --check-prefix=NEEDED-SHARED
// NEEDED-SHARED-NOT: libcuda
// NEEDED-SHARED: NEEDED{{.*}}libllmc_cuda_runtime.so
// NEEDED-SHARED-NOT: libcuda
//
// The shared runtime defines all 21 functions MLIR 22.1.8's lowering
// declares (../shared/gpu/nvvm-probe.md Q5), and depends on libc alone.
// RUN: nm -D --defined-only %llmc_cuda_runtime | FileCheck %s --check-prefix=RUNTIME
// RUNTIME-DAG: T mgpuEventCreate
// RUNTIME-DAG: T mgpuEventDestroy
// RUNTIME-DAG: T mgpuEventRecord
// RUNTIME-DAG: T mgpuLaunchClusterKernel
// RUNTIME-DAG: T mgpuLaunchKernel
// RUNTIME-DAG: T mgpuMemAlloc
// RUNTIME-DAG: T mgpuMemFree
// RUNTIME-DAG: T mgpuMemHostRegisterMemRef
// RUNTIME-DAG: T mgpuMemHostUnregisterMemRef
// RUNTIME-DAG: T mgpuMemcpy
// RUNTIME-DAG: T mgpuMemset16
// RUNTIME-DAG: T mgpuMemset32
// RUNTIME-DAG: T mgpuModuleGetFunction
// RUNTIME-DAG: T mgpuModuleLoad
// RUNTIME-DAG: T mgpuModuleLoadJIT
// RUNTIME-DAG: T mgpuModuleUnload
// RUNTIME-DAG: T mgpuStreamCreate
// RUNTIME-DAG: T mgpuStreamDestroy
// RUNTIME-DAG: T mgpuStreamSynchronize
// RUNTIME-DAG: T mgpuStreamWaitEvent
// RUNTIME-DAG: T mgpuTensorMapEncodeTiledMemref
// RUNTIME-NOT: {{ _ZN}}
// RUN: llvm-readelf -d %llmc_cuda_runtime | FileCheck %s --check-prefix=RUNTIME-NEEDED
// RUNTIME-NEEDED-NOT: libcuda
// RUNTIME-NEEDED-NOT: libstdc++
// RUNTIME-NEEDED: NEEDED{{.*}}libc.so.6
// RUNTIME-NEEDED-NOT: libcuda
// RUNTIME-NEEDED-NOT: libstdc++
// RUN: llvm-readelf -d %t-static.exe | FileCheck %s --check-prefix=NEEDED
// NEEDED-NOT: libcuda
// NEEDED-NOT: libstdc++
// NEEDED: NEEDED{{.*}}libc.so.6
// NEEDED-NOT: libcuda
//
// Without a driver the program says so and fails (the module constructor
// records the error; main() checks llmcCudaSynchronize()):
// RUN: %if cuda-driver %{ %t.exe | FileCheck %s --check-prefix=GPU %} %else %{ not %t.exe 2>&1 | FileCheck %s --check-prefix=NODRIVER %}
// RUN: %if cuda-driver %{ %t-static.exe | FileCheck %s --check-prefix=GPU %} %else %{ not %t-static.exe 2>&1 | FileCheck %s --check-prefix=NODRIVER %}
// NODRIVER: llmc CUDA runtime: no CUDA driver found (libcuda.so.1 could not be loaded: {{.*}})
// NODRIVER-NEXT: vecadd: llmc CUDA runtime: no CUDA driver found
// NODRIVER-NOT: c =
// GPU: c = 0 101 202 303 404 505 606 707 808 909 1010 1111 1212 1313 1414 1515
// GPU-NEXT: ok
//
// The toolkit's stub libcuda is no driver either:
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%cuda_toolkit/lib64/stubs/libcuda.so not %t.exe 2>&1 | FileCheck %s --check-prefix=STUB
// STUB: llmc CUDA runtime: cuInit failed: CUDA_ERROR_STUB_LIBRARY
// STUB-NOT: lacks
// (so it has every required driver function under the runtime's names; the
// optional ones too:)
// RUN: nm -D --defined-only %cuda_toolkit/lib64/stubs/libcuda.so | FileCheck %s --check-prefix=STUB-SYMS
// STUB-SYMS-DAG: T cuLaunchKernelEx{{$}}
// STUB-SYMS-DAG: T cuTensorMapEncodeTiled{{$}}
//
// With the fake driver (Inputs/FakeCUDADriver.c: host memory, kernels not
// run), the driver calls the lowered code makes through the runtime:
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 %t.exe 2>&1 | FileCheck %s --check-prefix=FAKE
// FAKE: fake-cuda: cuInit(0)
// FAKE: fake-cuda: cuDeviceGet(0)
// FAKE: fake-cuda: cuDevicePrimaryCtxRetain(0)
// FAKE: fake-cuda: cuModuleLoadData(fatbin)
// FAKE: fake-cuda: cuStreamCreate(1)
// FAKE: fake-cuda: cuMemAlloc(64)
// FAKE: fake-cuda: cuMemcpyAsync(64)
// FAKE: fake-cuda: cuMemsetD32Async(0x3f800000, 16)
// FAKE: fake-cuda: cuModuleGetFunction(vecadd_kernel)
// FAKE-NEXT: fake-cuda: cuLaunchKernel(grid 4,1,1 block 4,1,1 smem 0 params)
// FAKE: fake-cuda: cuMemcpyAsync(64)
// FAKE-NEXT: fake-cuda: cuStreamSynchronize
// The freed buffer is kept for reuse by llmc's CUDA runtime (its memory
// cache), not returned to the driver.
// FAKE-NOT: cuMemFree
// The stream is kept for reuse too (its destroy makes no driver call).
// FAKE-NOT: cuStreamDestroy
// The kernel did not run: c keeps the value of the memset (1.0).
// FAKE: c = 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
// FAKE: fake-cuda: cuModuleUnload
//
// A failing driver call: one clear line, the error is kept, later calls do
// nothing, the program fails.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_FAIL=cuModuleLoadData FAKE_CUDA_FAIL_CODE=209 FAKE_CUDA_TRACE=1 not %t.exe 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: fake-cuda: cuModuleLoadData(fatbin)
// FAIL-NEXT: llmc CUDA runtime: mgpuModuleLoad: cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU (fake CUDA driver error)
// FAIL-NOT: fake-cuda: cuLaunchKernel
// FAIL: vecadd: llmc CUDA runtime: mgpuModuleLoad: cuModuleLoadData failed
// FAIL-NOT: c =
//
// The same program with PTX (format=isa) is JIT-compiled at load through
// mgpuModuleLoadJIT.
// RUN: mlir-opt %s --pass-pipeline="builtin.module(gpu-kernel-outlining,func.func(gpu-async-region),convert-nvgpu-to-nvvm,convert-vector-to-scf,convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,expand-strided-metadata,nvvm-attach-target{chip=sm_80 O=3},lower-affine,convert-arith-to-llvm,convert-index-to-llvm{index-bitwidth=64},canonicalize,cse,gpu.module(convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),gpu-to-llvm,gpu-module-to-binary{format=isa},convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts)" | mlir-translate --mlir-to-llvmir -o %t-isa.ll
// RUN: %cc -c -O1 -Wno-override-module %t-isa.ll -o %t-isa.o
// RUN: %cc -I%llmc_src_root/include %S/Inputs/vecadd-main.c %t-isa.o %llmc_cuda_runtime_static -o %t-isa.exe
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 %t-isa.exe 2>&1 | FileCheck %s --check-prefix=ISA
// ISA: fake-cuda: cuModuleLoadDataEx(PTX, 3 options)
// ISA: fake-cuda: cuLaunchKernel(grid 4,1,1 block 4,1,1 smem 0 params)
//
// LLMC_CUDA_ABORT_ON_ERROR=1 aborts after the message.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_FAIL=cuMemAlloc FAKE_CUDA_FAIL_CODE=2 LLMC_CUDA_ABORT_ON_ERROR=1 not --crash %t.exe 2>&1 | FileCheck %s --check-prefix=ABORT
// ABORT: llmc CUDA runtime: mgpuMemAlloc: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY
// ABORT-NEXT: llmc CUDA runtime: aborting (LLMC_CUDA_ABORT_ON_ERROR)
//
// LLMC_CUDA_DEVICE selects the device, and is checked.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_DEVICES=2 LLMC_CUDA_DEVICE=1 FAKE_CUDA_TRACE=1 %t.exe 2>&1 | FileCheck %s --check-prefix=DEV1
// DEV1: fake-cuda: cuDeviceGet(1)
// DEV1: c = 1 1
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_CUDA_DEVICE=1 not %t.exe 2>&1 | FileCheck %s --check-prefix=BADDEV
// BADDEV: llmc CUDA runtime: CUDA device 1 selected (LLMC_CUDA_DEVICE) but the driver reports 1 device(s) (counting from 0)
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_DEVICES=0 not %t.exe 2>&1 | FileCheck %s --check-prefix=NODEV
// NODEV: llmc CUDA runtime: no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE

module attributes {gpu.container_module} {
  func.func @vecadd(%a: memref<16xf32>, %b: memref<16xf32>,
                    %c: memref<16xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    %da = gpu.alloc () : memref<16xf32>
    %db = gpu.alloc () : memref<16xf32>
    %dc = gpu.alloc () : memref<16xf32>
    gpu.memcpy %da, %a : memref<16xf32>, memref<16xf32>
    gpu.memcpy %db, %b : memref<16xf32>, memref<16xf32>
    gpu.memset %dc, %one : memref<16xf32>, f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %x = memref.load %da[%i] : memref<16xf32>
      %y = memref.load %db[%i] : memref<16xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %dc[%i] : memref<16xf32>
      gpu.terminator
    }
    gpu.memcpy %c, %dc : memref<16xf32>, memref<16xf32>
    gpu.dealloc %da : memref<16xf32>
    gpu.dealloc %db : memref<16xf32>
    gpu.dealloc %dc : memref<16xf32>
    return
  }
}
