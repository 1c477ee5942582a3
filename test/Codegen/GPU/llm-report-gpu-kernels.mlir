// RUN: llm-opt %s --llm-report-gpu-kernels --split-input-file | FileCheck %s

// A tile kernel: its subview of the weight counts as the whole weight
// (96x128xf32 = 49152 B), its workgroup buffer is shared memory (16x34xf32 =
// 2176 B) and no global traffic, a private alloca is no traffic, the bias
// global is read (512 B), the output both read and written (4096 B each).
// The second launch has a dynamic grid and reads a buffer of dynamic shape:
// -1 for both.
// CHECK-LABEL: module attributes {llm.report = {
// CHECK-SAME: gpu_kernels = [{block = array<i64: 256, 1, 1>, bytes_read = 53760 : i64, bytes_written = 4096 : i64, function = "f", grid = array<i64: 8, 1, 1>, name = "f_tiles_0", shared_bytes = 2176 : i64, strategy = {rows = 0 : i64, stages = 1 : i64, strategy = "tiles"}},
// CHECK-SAME: {block = array<i64: 32, 1, 1>, bytes_read = -1 : i64, bytes_written = 0 : i64, function = "f", grid = array<i64: -1, 1, 1>, name = "f_scalar_1", shared_bytes = 0 : i64, strategy = {rows = 0 : i64, stages = 0 : i64, strategy = "scalar"}}]
// CHECK-SAME: gpu_launches = 2 : i64, gpu_scalar_launches = 1 : i64
module {
  memref.global "private" constant @bias : memref<128xf32> = dense<1.0>
  func.func @f(%w: memref<96x128xf32>, %out: memref<8x128xf32>, %d: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
               module(@f_tiles_0) function(@f_tiles_0)
               workgroup(%tile : memref<16x34xf32, #gpu.address_space<workgroup>>) {
      %b = memref.get_global @bias : memref<128xf32>
      %sub = memref.subview %w[%bx, 0] [16, 128] [1, 1] : memref<96x128xf32> to memref<16x128xf32, strided<[128, 1], offset: ?>>
      %v = memref.load %sub[%c0, %tx] : memref<16x128xf32, strided<[128, 1], offset: ?>>
      memref.store %v, %tile[%c0, %c0] : memref<16x34xf32, #gpu.address_space<workgroup>>
      %p = memref.alloca() : memref<4xf32>
      memref.store %v, %p[%c0] : memref<4xf32>
      %bv = memref.load %b[%tx] : memref<128xf32>
      %o = memref.load %out[%bx, %tx] : memref<8x128xf32>
      %s = arith.addf %o, %bv : f32
      memref.store %s, %out[%bx, %tx] : memref<8x128xf32>
      gpu.terminator
    } {llm.gpu_strategy = {rows = 0 : i64, stages = 1 : i64, strategy = "tiles"}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               module(@f_scalar_1) function(@f_scalar_1) {
      %v = memref.load %d[%tx] : memref<?xf32>
      gpu.terminator
    } {llm.gpu_strategy = {rows = 0 : i64, stages = 0 : i64, strategy = "scalar"}}
    return
  }
}

// -----

// Without launches: an empty list and no launches.
// CHECK-LABEL: module attributes {llm.report = {gpu_kernels = [], gpu_launches = 0 : i64, gpu_scalar_launches = 0 : i64}}
module {
  func.func @g() {
    return
  }
}
