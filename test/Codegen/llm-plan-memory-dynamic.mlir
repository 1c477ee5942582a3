// llm-plan-memory with a dynamic sequence length: a buffer whose size is the
// bounded argument dimension (llm.dim_bounds, 1 <= n <= 16) gets a slot
// sized for the bound, and a view of its run-time size.
//
// RUN: llm-opt %s --llm-plan-memory=verify --split-input-file | FileCheck %s

// Rows n <= 16 of 8 f32: 512 bytes at the bound. %c, copied into the
// out-param as its last use, becomes the out-param (the copy disappears).
// %a and %b are live together; %d ([2 * n] f32, an affine map of n: 128
// bytes at the bound) takes %a's slot. Arena 1024 = the live bound; naive
// 2 * 512 + 128.
// CHECK: module attributes {llm.report = {arena_bytes = 1024 : i64, live_bound_bytes = 1024 : i64, naive_bytes = 1152 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[X:.+]]: memref<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %[[OUT:.+]]: memref<?x8xf32>)
// CHECK:         %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1024xi8>
// CHECK:         %[[N:.+]] = memref.dim %[[X]], %c0
// CHECK-NOT:     memref.alloc
// CHECK:         %[[A:.+]] = memref.view %[[ARENA]][%c0{{.*}}][%[[N]]] : memref<1024xi8> to memref<?x8xf32>
// CHECK:         %[[B:.+]] = memref.view %[[ARENA]][%c512{{.*}}][%[[N]]] : memref<1024xi8> to memref<?x8xf32>
// CHECK:         memref.copy %[[B]], %[[OUT]]
// CHECK:         %[[D:.+]] = memref.view %[[ARENA]][%c0{{.*}}][%{{.+}}] : memref<1024xi8> to memref<?xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[D]] : memref<?xf32>)
// CHECK-NOT:     memref.copy
func.func @rows(%x: memref<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %out: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %a = memref.alloc(%n) : memref<?x8xf32>
  memref.copy %x, %a : memref<?x8xf32> to memref<?x8xf32>
  %b = memref.alloc(%n) : memref<?x8xf32>
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  %c = memref.alloc(%n) : memref<?x8xf32>
  memref.copy %b, %c : memref<?x8xf32> to memref<?x8xf32>
  %n2 = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%n]
  %d = memref.alloc(%n2) : memref<?xf32>
  %f = arith.constant 0.0 : f32
  linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)
  memref.copy %c, %out : memref<?x8xf32> to memref<?x8xf32>
  return
}

// -----

// A dynamic size that does not derive from a bounded argument dimension is
// not planned: the alloc stays.
// CHECK-LABEL: func.func @unbounded(
// CHECK:         memref.alloc(%{{.+}}) : memref<?xf32>
func.func @unbounded(%x: memref<?xf32>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A result buffer whose size is not the sequence length itself (2 * n) is
// not forwarded into the out-param: it is planned and copied.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    %{{.+}}: memref<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %[[OUT:.+]]: memref<?x4xf32>)
// CHECK:         %[[V:.+]] = memref.view
// CHECK:         memref.copy %[[V]], %[[OUT]]
func.func @twice(%x: memref<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %n2 = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%n]
  %a = memref.alloc(%n2) : memref<?x4xf32>
  %f = arith.constant 0.0 : f32
  linalg.fill ins(%f : f32) outs(%a : memref<?x4xf32>)
  memref.copy %a, %out : memref<?x4xf32> to memref<?x4xf32>
  return
}
