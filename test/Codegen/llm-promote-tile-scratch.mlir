// RUN: llm-opt %s --llm-promote-tile-scratch --split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-promote-tile-scratch="max-bytes=1024" --split-input-file | FileCheck %s --check-prefix=SMALL
// A negative limit is an error (it meant no limit).
// RUN: not llm-opt %s --llm-promote-tile-scratch="max-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0
// NEGOPT0: error: llm-promote-tile-scratch: max-bytes must be at least 0, got -1

// The static scratch of a tile (16 KiB, the bounded buffer that
// llm-bound-dynamic-allocs makes of a row tile's accumulator, read through a
// view) becomes a stack allocation of the iteration; the body runs in one
// alloca_scope, which releases it when the iteration ends.
// CHECK-LABEL: func.func @tile_scratch(
// CHECK:         scf.forall
// CHECK-NEXT:      memref.alloca_scope {
// CHECK:             %[[S:.+]] = memref.alloca() {alignment = 64 : i64} : memref<16384xi8>
// CHECK:             memref.view %[[S]]
// CHECK:             linalg.fill
// CHECK:             memref.copy
// CHECK:           }
// CHECK-NOT:     memref.alloc(
// SMALL-LABEL: func.func @tile_scratch(
// SMALL:         memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
// SMALL-NOT:     memref.alloca_scope
func.func @tile_scratch(%out: memref<64x128xf32>, %n: index) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  scf.forall (%i) = (0) to (64) step (32) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 32)>(%i)[%n]
    %raw = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
    %acc = memref.view %raw[%c0][%sz] : memref<16384xi8> to memref<?x128xf32>
    linalg.fill ins(%cst : f32) outs(%acc : memref<?x128xf32>)
    %t = memref.subview %out[%i, 0] [%sz, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %acc, %t : memref<?x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
  }
  return
}

// -----

// Left on the heap: a buffer above max-bytes, a dynamic one, one that leaves
// the iteration through a call, and an alloc outside any forall.
// CHECK-LABEL: func.func @not_promoted(
// CHECK:         memref.alloc() : memref<32xf32>
// CHECK:         scf.forall
// CHECK-NOT:       memref.alloca_scope
// CHECK:           memref.alloc() : memref<32768xf32>
// CHECK:           memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK:           memref.alloc() : memref<8xf32>
// CHECK:           call @keep
func.func private @keep(memref<8xf32>)
func.func @not_promoted(%n: index) {
  %cst = arith.constant 0.0 : f32
  %outside = memref.alloc() : memref<32xf32>
  linalg.fill ins(%cst : f32) outs(%outside : memref<32xf32>)
  scf.forall (%i) in (4) {
    %big = memref.alloc() : memref<32768xf32>
    linalg.fill ins(%cst : f32) outs(%big : memref<32768xf32>)
    %dyn = memref.alloc(%n) : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%dyn : memref<?xf32>)
    %kept = memref.alloc() : memref<8xf32>
    func.call @keep(%kept) : (memref<8xf32>) -> ()
  }
  return
}

// -----

// A forall of tensors (before bufferization) is left alone.
// CHECK-LABEL: func.func @tensor_forall(
// CHECK-NOT:     memref.alloca
func.func @tensor_forall(%t: tensor<64xf32>) -> tensor<64xf32> {
  %r = scf.forall (%i) = (0) to (64) step (32) shared_outs(%o = %t) -> (tensor<64xf32>) {
    %s = tensor.extract_slice %o[%i] [32] [1] : tensor<64xf32> to tensor<32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [32] [1] : tensor<32xf32> into tensor<64xf32>
    }
  }
  return %r : tensor<64xf32>
}
