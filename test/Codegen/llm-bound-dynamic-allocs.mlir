// RUN: llm-opt %s -allow-unregistered-dialect --pass-pipeline="builtin.module(func.func(llm-bound-dynamic-allocs))" | FileCheck %s

// A dynamically sized alloc in a loop whose size has a constant bound (a row
// tile min(32, n - i)) becomes a static i8 buffer of the bound's bytes viewed
// with the run-time size; the others stay.

// CHECK-LABEL: func.func @row_tile
// CHECK: scf.for %[[I:.*]] =
// CHECK:   %[[R:.*]] = affine.min
// CHECK:   %[[RAW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
// CHECK:   %[[V:.*]] = memref.view %[[RAW]][%{{.*}}][%[[R]]] : memref<256xi8> to memref<1x?xf64>
// CHECK:   "test.use"(%[[V]])
// CHECK-NOT: memref.alloc(
func.func @row_tile(%n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %n step %c32 {
    %r = affine.min affine_map<(d0)[s0] -> (32, s0 - d0)>(%i)[%n]
    %a = memref.alloc(%r) {alignment = 64 : i64} : memref<1x?xf64>
    "test.use"(%a) : (memref<1x?xf64>) -> ()
  }
  return
}

// CHECK-LABEL: func.func @unbounded
// CHECK: memref.alloc(%arg0) : memref<?xf32>
// CHECK-LABEL: func.func @outside_loop
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @unbounded(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc(%n) : memref<?xf32>
    "test.use"(%a) : (memref<?xf32>) -> ()
  }
  return
}
func.func @outside_loop(%n: index) {
  %r = affine.min affine_map<()[s0] -> (32, s0)>()[%n]
  %a = memref.alloc(%r) : memref<?xf32>
  "test.use"(%a) : (memref<?xf32>) -> ()
  return
}
