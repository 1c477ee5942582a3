// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-lower-vectors))" | FileCheck %s

// After bufferization: the accumulator read/write pair of the K loop is
// hoisted (it stays in registers), the contraction becomes one FMA per row
// of the tile (broadcast of A[i, k] times the row of B).
// CHECK-LABEL: func.func @register_tile(
// CHECK-SAME:  %[[A:.+]]: memref<8x64xf32>, %[[B:.+]]: memref<64x32xf32>, %[[C:.+]]: memref<8x32xf32>
// CHECK:       %[[ACC:.+]] = vector.transfer_read %[[C]]
// CHECK:       %[[RES:.+]] = scf.for {{.*}} iter_args(%[[V:.+]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     vector.transfer_write
// CHECK:         scf.yield
// CHECK:       vector.transfer_write %[[RES]], %[[C]]
#mapA = affine_map<(m, n, k) -> (m, k)>
#mapB = affine_map<(m, n, k) -> (k, n)>
#mapC = affine_map<(m, n, k) -> (m, n)>
func.func @register_tile(%a: memref<8x64xf32>, %b: memref<64x32xf32>, %c: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c64 step %c1 {
    %va = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<8x64xf32>, vector<8x1xf32>
    %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x32xf32>, vector<1x32xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %r = vector.contract {indexing_maps = [#mapA, #mapB, #mapC], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  return
}
