// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// Structure of the lowering of IndexingToLinalg.cpp: gather_nd's per-
// component range checks and index reads, the scatter and top-k loop nests,
// dynamic_quantize's min/max reduction and saturation, the inverse
// trigonometric ops and the f64 sum. Values are checked in
// test/Integration/indexing.mlir.

// One range check per index component (its own bound), then a generic that
// reads both components of the row's index tuple.
// CHECK-LABEL: module attributes {llm.index_checks = ["llm.gather_nd at {{.*}}", "llm.gather_nd at {{.*}}"]}
// CHECK-LABEL: func.func @gather_nd
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<5x2xi64>)
// CHECK: tensor.extract_slice %[[I]][0, 0] [5, 1] [1, 1]
// CHECK: arith.cmpi sge, %{{.*}}, %c2_i64
// CHECK: tensor.extract_slice %[[I]][0, 1] [5, 1] [1, 1]
// CHECK: arith.cmpi sge, %{{.*}}, %c3_i64
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:   %[[ROW:.+]] = linalg.index 0 : index
// CHECK:   tensor.extract %[[I]][%[[ROW]], %c0{{.*}}] : tensor<5x2xi64>
// CHECK:   %[[K0:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:   tensor.extract %[[I]][%[[ROW]], %c1{{.*}}] : tensor<5x2xi64>
// CHECK:   %[[K1:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:   %[[COL:.+]] = linalg.index 1 : index
// CHECK:   tensor.extract %[[X]][%[[K0]], %[[K1]], %[[COL]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x4xf32> {
  %0 = llm.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// The KV-cache update: a loop nest over the updates [1, 1, 64] carrying the
// cache; no reduction: the update is inserted as it is.
// CHECK-LABEL: func.func @scatter_nd
//  CHECK-SAME: (%[[C:.+]]: tensor<1x16x64xf32>, %[[P:.+]]: tensor<1x1x2xi64>, %[[U:.+]]: tensor<1x1x64xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[C]])
// CHECK:   scf.for
// CHECK:     scf.for %[[D:.+]] = {{.*}} iter_args(%[[OUT:.+]] = %{{.*}})
// CHECK:       tensor.extract %[[P]]
// CHECK:       tensor.extract %[[P]]
// CHECK:       %[[V:.+]] = tensor.extract %[[U]]
// CHECK-NOT:   arith.addf
// CHECK:       tensor.insert %[[V]] into %[[OUT]]
func.func @scatter_nd(%c: tensor<1x16x64xf32>, %p: tensor<1x1x2xi64>, %u: tensor<1x1x64xf32>) -> tensor<1x16x64xf32> {
  %0 = llm.scatter_nd %c, %p, %u : (tensor<1x16x64xf32>, tensor<1x1x2xi64>, tensor<1x1x64xf32>) -> tensor<1x16x64xf32>
  return %0 : tensor<1x16x64xf32>
}

// -----

// ScatterElements with reduction: the element it lands on is read and
// combined (f16 in f32).
// CHECK-LABEL: func.func @scatter_elements_max
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     tensor.extract
// CHECK:     tensor.extract
// CHECK:     arith.extf %{{.*}} : f16 to f32
// CHECK:     arith.maximumf
// CHECK:     arith.truncf
// CHECK:     tensor.insert
func.func @scatter_elements_max(%x: tensor<3x5xf16>, %i: tensor<3x2xi32>, %u: tensor<3x2xf16>) -> tensor<3x5xf16> {
  %0 = llm.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #llm.scatter_reduction<max>} : (tensor<3x5xf16>, tensor<3x2xi32>, tensor<3x2xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

// Top-k: rows, then k picks, each a scan of the row.
// CHECK-LABEL: func.func @topk
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     scf.for {{.*}} = %c0{{.*}} to %c3 step
// CHECK:       scf.for {{.*}} = %c0{{.*}} to %c6 step
// CHECK:         arith.cmpf uno
// CHECK:         arith.cmpf ogt
// CHECK:         scf.yield
// CHECK:       tensor.insert
// CHECK:       tensor.insert
func.func @topk(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = llm.topk %x {k = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func.func @dynamic_quantize
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// CHECK:   arith.minnumf
// CHECK:   arith.maxnumf
// CHECK: %[[SCALE:.+]] = arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK: math.roundeven
// CHECK: linalg.generic
// CHECK:   arith.divf %{{.*}}, %[[SCALE]] : f32
// CHECK:   math.roundeven
// CHECK:   arith.maxnumf
// CHECK:   arith.minnumf
// CHECK:   arith.fptoui %{{.*}} : f32 to i8
// CHECK: tensor.from_elements %[[SCALE]] : tensor<f32>
func.func @dynamic_quantize(%x: tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>) {
  %q, %s, %z = llm.dynamic_quantize %x : (tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>)
  return %q, %s, %z : tensor<3x4xi8>, tensor<f32>, tensor<i8>
}

// -----

// CHECK-LABEL: func.func @inverse_trig
// CHECK: math.acos %{{.*}} : f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.asin %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: math.atan %{{.*}} : f32
func.func @inverse_trig(%x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>) {
  %0 = llm.acos %x : tensor<4xf32>
  %1 = llm.asin %h : tensor<4xbf16>
  %2 = llm.atan %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>
}

// -----

// The f64 sum accumulates in f64 (no f32 rounding), keepdims by expand_shape.
// CHECK-LABEL: func.func @reduce_sum_f64
// CHECK: linalg.fill ins(%{{.*}} : f64)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: arith.truncf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf64> into tensor<2x1xf64>
func.func @reduce_sum_f64(%x: tensor<2x3xf64>) -> tensor<2x1xf64> {
  %0 = llm.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf64>) -> tensor<2x1xf64>
  return %0 : tensor<2x1xf64>
}
