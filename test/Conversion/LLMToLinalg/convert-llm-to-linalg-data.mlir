// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// Structure of the lowering of the ops on runtime data (LLMToLinalgData.cpp):
// broadcasting maps, predicates, index wrapping/clamping, reduction
// iterators. Values are checked in test/Integration/runtime-data.mlir.

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @compare_float
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK:   arith.cmpf ole, %{{.+}}, %{{.+}} : f32
// CHECK:   linalg.yield %{{.+}} : i1
func.func @compare_float(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = llm.compare le, %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// ne on floats is unordered (true for NaN); integers compare signed.
// CHECK-LABEL: func.func @compare_kinds
// CHECK: arith.cmpf une
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi eq
func.func @compare_kinds(%a: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = llm.compare ne, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = llm.compare lt, %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %2 = llm.compare eq, %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @logical
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: arith.xori %{{.+}}, %[[TRUE]] : i1
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = llm.logical_and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = llm.logical_or %0, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = llm.logical_xor %1, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = llm.logical_not %2 : tensor<4xi1>
  return %3 : tensor<4xi1>
}

// -----

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @select
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ROW]], #[[ID]]]
// CHECK:   arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
func.func @select(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = llm.select %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Indices read through the result dims of the gathered axis; a negative
// index is wrapped (+ 4), then clamped into [0, 3].
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gather
//  CHECK-SAME: (%[[X:.+]]: tensor<5x4xf32>, %[[I:.+]]: tensor<2xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<2xi32>)
// CHECK:   ^bb0(%[[K:.+]]: i32, %{{.+}}: f32):
// CHECK:   %[[NEG:.+]] = arith.cmpi slt, %[[K]], %{{.+}} : i32
// CHECK:   %[[C4:.+]] = arith.constant 4 : i32
// CHECK:   %[[W:.+]] = arith.addi %[[K]], %[[C4]]
// CHECK:   %[[SEL:.+]] = arith.select %[[NEG]], %[[W]], %[[K]]
// CHECK:   %[[C3:.+]] = arith.constant 3 : i32
// CHECK:   %[[MIN:.+]] = arith.minsi %[[SEL]], %[[C3]]
// CHECK:   %[[MAX:.+]] = arith.maxsi %[[MIN]], %{{.+}}
// CHECK:   %[[ROW:.+]] = linalg.index 0 : index
// CHECK:   %[[COL:.+]] = arith.index_cast %[[MAX]] : i32 to index
// CHECK:   tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<5x4xf32>
func.func @gather(%a: tensor<5x4xf32>, %i: tensor<2xi32>) -> tensor<5x2xf32> {
  %0 = llm.gather %a, %i {axis = 1 : i64} : (tensor<5x4xf32>, tensor<2xi32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// The index of gather_elements replaces the coordinate on the axis only.
// (The first generic is the run-time range check of the indices.)
// CHECK-LABEL: func.func @gather_elements
//  CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[I:.+]]: tensor<2x4xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[I]] : tensor<2x4xi64>)
// CHECK: ^bb0(%[[K:.+]]: i64
// CHECK:   arith.cmpi slt, %[[K]]
// CHECK:   %[[MAX:.+]] = arith.maxsi
// CHECK:   %[[ROW:.+]] = arith.index_cast %[[MAX]] : i64 to index
// CHECK:   %[[COL:.+]] = linalg.index 1 : index
// CHECK:   tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
func.func @gather_elements(%a: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = llm.gather_elements %a, %i : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @reverse
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: linalg.generic
// CHECK:   %[[I:.+]] = linalg.index 0 : index
// CHECK:   %[[J:.+]] = linalg.index 1 : index
// CHECK:   %[[C2:.+]] = arith.constant 2 : index
// CHECK:   %[[R:.+]] = arith.subi %[[C2]], %[[J]] : index
// CHECK:   tensor.extract %[[X]][%[[I]], %[[R]]] : tensor<2x3xf32>
func.func @reverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = llm.reverse %x {dimensions = array<i64: 1>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// max-reduce, sum of exp(x - max), then x - max - log(sum); f16 computed in
// f32 and truncated at the end.
// CHECK-LABEL: func.func @log_softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.extf %{{.+}} : f16 to f32
// CHECK:   arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:   arith.subf
// CHECK:   math.log
// CHECK:   arith.subf
// CHECK:   arith.truncf %{{.+}} : f32 to f16
func.func @log_softmax(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = llm.log_softmax %x {axis = -1 : i64} : tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// Two accumulators (value from NaN, index from 0); ties take the later index
// with select_last_index (oge); the kept dimension is re-inserted.
// CHECK-LABEL: func.func @argmax_last
// CHECK: %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK: linalg.fill ins(%[[NAN]] : f32)
// CHECK: %[[GEN:.+]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.cmpf oge
// CHECK:   arith.cmpf uno
// CHECK:   linalg.yield %{{.+}}, %{{.+}} : f32, i64
// CHECK: tensor.expand_shape %[[GEN]]#1 {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
func.func @argmax_last(%a: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %0 = llm.argmax %a {axis = 1 : i64, select_last_index} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// argmin takes a strictly smaller value (olt): the first index among ties.
// CHECK-LABEL: func.func @argmin_first
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:   arith.cmpf olt
// CHECK-NOT: tensor.expand_shape
func.func @argmin_first(%a: tensor<3xf32>) -> tensor<i64> {
  %0 = llm.argmin %a {keepdims = false} : (tensor<3xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @reduce_min_prod
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:   arith.minimumf
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.mulf
// CHECK: tensor.expand_shape
func.func @reduce_min_prod(%a: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2x1xf32>) {
  %0 = llm.reduce_min %a {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %1 = llm.reduce_prod %a {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x1xf32>
}

// -----

// Integers reduce in their own type (ExactReduceLowering): sums and products
// wrap (arith.addi / arith.muli from 0 / 1), minima are signed from the
// type's highest value; nothing goes through floats.
// CHECK-LABEL: func.func @reduce_integers
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%[[ZERO]] : i64)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.addi
// CHECK: %[[MAX:.+]] = arith.constant 127 : i8
// CHECK: linalg.fill ins(%[[MAX]] : i8)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:   arith.minsi
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: linalg.fill ins(%[[ONE]] : i32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.muli
// CHECK: tensor.expand_shape
// CHECK-NOT: arith.sitofp
func.func @reduce_integers(%a: tensor<2x3xi64>, %b: tensor<2x3xi8>, %c: tensor<2x3xi32>) -> (tensor<2xi64>, tensor<3xi8>, tensor<2x1xi32>) {
  %0 = llm.reduce_sum %a {axes = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  %1 = llm.reduce_min %b {axes = array<i64: 0>} : (tensor<2x3xi8>) -> tensor<3xi8>
  %2 = llm.reduce_prod %c {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return %0, %1, %2 : tensor<2xi64>, tensor<3xi8>, tensor<2x1xi32>
}

// -----

// Integer argmax compares signed in the element type from the type's lowest
// value (no f32 conversion, which would merge i64 values above 2^24).
// CHECK-LABEL: func.func @argmax_integer
// CHECK: %[[LOW:.+]] = arith.constant -9223372036854775808 : i64
// CHECK: linalg.fill ins(%[[LOW]] : i64)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.cmpi sgt
// CHECK-NOT: arith.cmpf
// CHECK:   linalg.yield %{{.+}}, %{{.+}} : i64, i64
func.func @argmax_integer(%a: tensor<2x3xi64>) -> tensor<2xi64> {
  %0 = llm.argmax %a {axis = 1 : i64, keepdims = false} : (tensor<2x3xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
