// RUN: llm-opt %s -llm-emulate-amx -split-input-file -verify-diagnostics | FileCheck %s

// The tiles of an AMX kernel as vectors: zero, loads and stores of the two
// innermost dims, loop-carried accumulators, and the pair products as a
// contraction of A [16, 32] with B rearranged from [16 pairs, 16 x 2] to
// [32, 16].
// CHECK-DAG: #[[MA:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MB:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @tiles
// CHECK-NOT:     amx.
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16x16xf32>
// CHECK:         %[[ACC:.+]] = scf.for {{.*}} iter_args(%[[C:.+]] = %[[ZERO]]) -> (vector<16x16xf32>)
// CHECK:           %[[A:.+]] = vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<16x64xbf16>, vector<16x32xbf16>
// CHECK:           %[[B:.+]] = vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<2x32x32xbf16>, vector<16x32xbf16>
// CHECK:           %[[AF:.+]] = arith.extf %[[A]] : vector<16x32xbf16> to vector<16x32xf32>
// CHECK:           %[[BF:.+]] = arith.extf %[[B]] : vector<16x32xbf16> to vector<16x32xf32>
// CHECK:           %[[B3:.+]] = vector.shape_cast %[[BF]] : vector<16x32xf32> to vector<16x16x2xf32>
// CHECK:           %[[BT:.+]] = vector.transpose %[[B3]], [0, 2, 1] : vector<16x16x2xf32> to vector<16x2x16xf32>
// CHECK:           %[[B2:.+]] = vector.shape_cast %[[BT]] : vector<16x2x16xf32> to vector<32x16xf32>
// CHECK:           %[[R:.+]] = vector.contract {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %[[AF]], %[[B2]], %[[C]] : vector<16x32xf32>, vector<32x16xf32> into vector<16x16xf32>
// CHECK:           scf.yield %[[R]] : vector<16x16xf32>
// CHECK:         vector.transfer_write %[[ACC]], %{{.+}}[%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x16xf32>
func.func @tiles(%a: memref<16x64xbf16>, %b: memref<2x32x32xbf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = amx.tile_zero : !amx.tile<16x16xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (!amx.tile<16x16xf32>) {
    %k = arith.muli %i, %c2 : index
    %ta = amx.tile_load %a[%c0, %k] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
    %tb = amx.tile_load %b[%i, %c0, %c0] : memref<2x32x32xbf16> into !amx.tile<16x32xbf16>
    %n = amx.tile_mulf %ta, %tb, %acc : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
    scf.yield %n : !amx.tile<16x16xf32>
  }
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

// -----

// Integer tile products: u8 x s8 (tdpbusd) in i32, the rhs quads
// rearranged to [64, 16].
// CHECK-LABEL: func.func @muli
// CHECK:         %[[A:.+]] = vector.transfer_read {{.*}} : memref<16x64xi8>, vector<16x64xi8>
// CHECK:         %[[B:.+]] = vector.transfer_read {{.*}} : memref<16x64xi8>, vector<16x64xi8>
// CHECK:         %[[AI:.+]] = arith.extui %[[A]] : vector<16x64xi8> to vector<16x64xi32>
// CHECK:         %[[BI:.+]] = arith.extsi %[[B]] : vector<16x64xi8> to vector<16x64xi32>
// CHECK:         %[[B3:.+]] = vector.shape_cast %[[BI]] : vector<16x64xi32> to vector<16x16x4xi32>
// CHECK:         %[[BT:.+]] = vector.transpose %[[B3]], [0, 2, 1] : vector<16x16x4xi32> to vector<16x4x16xi32>
// CHECK:         %[[B2:.+]] = vector.shape_cast %[[BT]] : vector<16x4x16xi32> to vector<64x16xi32>
// CHECK:         vector.contract {{.*}} %[[AI]], %[[B2]], %{{.+}} : vector<16x64xi32>, vector<64x16xi32> into vector<16x16xi32>
func.func @muli(%a: memref<16x64xi8>, %b: memref<16x64xi8>, %c: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %ta = amx.tile_load %a[%c0, %c0] : memref<16x64xi8> into !amx.tile<16x64xi8>
  %tb = amx.tile_load %b[%c0, %c0] : memref<16x64xi8> into !amx.tile<16x64xi8>
  %z = amx.tile_zero : !amx.tile<16x16xi32>
  %r = amx.tile_muli %ta zext, %tb, %z : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xi32>, !amx.tile<16x16xi32>
  return
}

// -----

// Nor are explicit strides.
func.func @stride(%a: memref<1024xbf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{'amx.tile_load' op llm-emulate-amx: explicit strides are not emulated}}
  %ta = amx.tile_load %a[%c0], %c64 : memref<1024xbf16> into !amx.tile<16x32xbf16>
  %z = amx.tile_zero : !amx.tile<16x16xf32>
  %r = amx.tile_mulf %ta, %ta, %z : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

// -----

// Nor are tiles across a function boundary.
// expected-error @+1 {{'func.func' op llm-emulate-amx: tiles passed to or returned from a function are not emulated}}
func.func @tile_argument(%t: !amx.tile<16x16xf32>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  amx.tile_store %c[%c0, %c0], %t : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

// -----

// A tile larger than the memref it is loaded from.
func.func @too_small(%a: memref<16x16xbf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'amx.tile_load' op llm-emulate-amx: the tile does not fit in the memref's two innermost dimensions}}
  %ta = amx.tile_load %a[%c0, %c0] : memref<16x16xbf16> into !amx.tile<16x32xbf16>
  %z = amx.tile_zero : !amx.tile<16x16xf32>
  %r = amx.tile_mulf %ta, %ta, %z : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

// -----

// Code without AMX ops is left as it is.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    return
func.func @none() {
  return
}
