// RUN: llm-opt %s --llm-merge-gpu-modules --split-input-file | FileCheck %s

// Two outlined kernels with a copy each of the weight they read: one
// module, kernels renamed after their modules, one copy of the weight, the
// launches retargeted.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         gpu.module @llm_kernels
// CHECK-COUNT-1:   memref.global "private" constant @w
// CHECK-DAG:       gpu.func @f_kernel() kernel
// CHECK-DAG:       gpu.func @f_kernel_0() kernel
// CHECK-NOT:     gpu.module
// CHECK:         gpu.launch_func @llm_kernels::@f_kernel blocks
// CHECK:         gpu.launch_func @llm_kernels::@f_kernel_0 blocks
module attributes {gpu.container_module} {
  gpu.module @f_kernel {
    memref.global "private" constant @w : memref<4xf32> = dense<1.0>
    gpu.func @f_kernel() kernel {
      %w = memref.get_global @w : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    memref.global "private" constant @w : memref<4xf32> = dense<1.0>
    gpu.func @f_kernel() kernel {
      %w = memref.get_global @w : memref<4xf32>
      gpu.return
    }
  }
  func.func @f() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// One kernel module: nothing moves, but its workgroup buffers get 16-byte
// alignment (128-bit vector loads of the matmul tiles), one already set
// keeps its own.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         gpu.module @g_kernel
// CHECK:           gpu.func @g_kernel() workgroup(%{{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
module attributes {gpu.container_module} {
  gpu.module @g_kernel {
    gpu.func @g_kernel() workgroup(%a : memref<16x68xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}, %b : memref<8xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
