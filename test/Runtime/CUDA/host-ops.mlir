// The other host-side GPU ops, lowered by MLIR 22 and run through llmc's CUDA
// runtime over the fake driver (Inputs/FakeCUDADriver.c): checks that the
// arguments the lowered code passes (memref descriptors, element sizes, TMA
// enums and boxes, cluster sizes) reach the driver as intended.
// Inputs/host-ops-main.c calls each function.
//
// REQUIRES: cuda-toolkit
// The C programs are linked without the sanitizer runtime:
// UNSUPPORTED: asan
// RUN: mlir-opt %s --pass-pipeline="builtin.module(convert-nvgpu-to-nvvm,gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-to-llvm,gpu-module-to-binary{format=isa},convert-arith-to-llvm,convert-func-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts)" | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %cc -c -O1 -Wno-override-module %t.ll -o %t.o
// RUN: nm %t.o | FileCheck %s --check-prefix=OBJ
// OBJ-DAG: U mgpuEventCreate
// OBJ-DAG: U mgpuEventDestroy
// OBJ-DAG: U mgpuEventRecord
// OBJ-DAG: U mgpuLaunchClusterKernel
// OBJ-DAG: U mgpuMemHostRegisterMemRef
// OBJ-DAG: U mgpuMemHostUnregisterMemRef
// OBJ-DAG: U mgpuMemset16
// OBJ-DAG: U mgpuModuleLoadJIT
// OBJ-DAG: U mgpuStreamWaitEvent
// OBJ-DAG: U mgpuTensorMapEncodeTiledMemref
// RUN: %cc -I%llmc_src_root/include %S/Inputs/host-ops-main.c %t.o %llmc_cuda_runtime_static -o %t.exe
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 %t.exe 2>&1 | FileCheck %s

// CHECK: fake-cuda: cuModuleLoadDataEx(PTX, 3 options)

!desc = !nvgpu.tensormap.descriptor<tensor = memref<32x64xf16, 3>,
    swizzle = swizzle_128b, l2promo = none, oob = nan, interleave = none>
module attributes {gpu.container_module} {

// CHECK-LABEL: shared:
// CHECK-NEXT: fake-cuda: cuMemAllocManaged(4096, 1)
// CHECK-NEXT: shared: sizes 1024 strides 1 writable 1
func.func @shared() -> memref<1024xf32> attributes {llvm.emit_c_interface} {
  %m = gpu.alloc host_shared () : memref<1024xf32>
  return %m : memref<1024xf32>
}

// A 3x4 f32 memref at offset 2, passed unranked: 48 bytes.
// CHECK-LABEL: register:
// CHECK-NEXT: fake-cuda: cuMemHostRegister(48, 0)
// CHECK-NEXT: fake-cuda: cuMemHostUnregister
func.func @register(%h: memref<*xf32>) attributes {llvm.emit_c_interface} {
  gpu.host_register %h : memref<*xf32>
  gpu.host_unregister %h : memref<*xf32>
  return
}

// CHECK-LABEL: fork_join:
// CHECK-DAG: fake-cuda: cuMemAlloc(40)
// CHECK-DAG: fake-cuda: cuEventCreate(2)
// CHECK-DAG: fake-cuda: cuEventRecord
// CHECK-DAG: fake-cuda: cuStreamWaitEvent
// CHECK: fake-cuda: cuMemcpyAsync(40)
func.func @fork_join(%n: index) attributes {llvm.emit_c_interface} {
  %t0 = gpu.wait async
  %a, %ta = gpu.alloc async [%t0] (%n) : memref<?xf32>
  %t1 = gpu.wait async
  %b, %tb = gpu.alloc async [%t1] (%n) : memref<?xf32>
  %tj = gpu.wait async [%ta, %tb]
  %tc = gpu.memcpy async [%tj] %a, %b : memref<?xf32>, memref<?xf32>
  gpu.wait [%tc]
  return
}

// CHECK-LABEL: memset16:
// CHECK: fake-cuda: cuMemAlloc(14)
// CHECK-NEXT: fake-cuda: cuMemsetD16Async(0x3c00, 7)
func.func @memset16(%n: index) attributes {llvm.emit_c_interface} {
  %v = arith.constant 1.0 : f16
  %t0 = gpu.wait async
  %a, %ta = gpu.alloc async [%t0] (%n) : memref<?xf16>
  %tb = gpu.memset async [%ta] %a, %v : memref<?xf16>, f16
  gpu.wait [%tb]
  return
}

gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    gpu.func @f(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: cluster:
  // CHECK: fake-cuda: cuModuleGetFunction(f)
  // CHECK-NEXT: fake-cuda: cuLaunchKernelEx(grid 4,1,1 block 128,1,1 cluster 2,1,1 smem 0 params)
  func.func @cluster(%x: memref<16xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k::@f clusters in (%c2, %c1, %c1)
        blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%x : memref<16xf32>)
    gpu.wait [%t1]
    return
  }

// A 256x128 f16 tensor, box 32x64, 128-byte swizzle, NaN fill: the driver
// gets the innermost dimension first and byte strides.
// CHECK-LABEL: tma:
// CHECK-NEXT: fake-cuda: cuTensorMapEncodeTiled(type 6 rank 2 dims 128 256 strides 256 box 64 32 element strides 1 1, interleave 0 swizzle 3 l2 0 oob 1, address set)
// CHECK-NEXT: fake-cuda: cuMemAlloc(128)
// CHECK-NEXT: fake-cuda: cuMemcpyHtoD(128)
// CHECK-NEXT: tma: device descriptor set
func.func @tma(%d: memref<256x128xf16>) -> !llvm.ptr
    attributes {llvm.emit_c_interface} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %u = memref.cast %d : memref<256x128xf16> to memref<*xf16>
  %td = nvgpu.tma.create.descriptor %u box[%c32, %c64]
      : memref<*xf16> -> !desc
  %p = builtin.unrealized_conversion_cast %td : !desc to !llvm.ptr
  return %p : !llvm.ptr
}
}
// CHECK: done: error 0
