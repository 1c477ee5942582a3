// RUN: llm-opt %s -llm-guard-dim-bounds -split-input-file | FileCheck %s

// Each dynamic dimension is asserted at entry to lie in [1, bound]; the
// second one must also equal the first (one sequence length).

// CHECK-LABEL: func.func @two_inputs
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 32, 8>}, %[[P:.+]]: tensor<?xi64> {llm.dim_bounds = array<i64: 32>})
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK: %[[B:.+]] = arith.constant 32 : index
// CHECK: %[[GE:.+]] = arith.cmpi sge, %[[N]], %[[ONE]]
// CHECK: %[[LE:.+]] = arith.cmpi sle, %[[N]], %[[B]]
// CHECK: %[[OK:.+]] = arith.andi %[[GE]], %[[LE]]
// CHECK: cf.assert %[[OK]], "llmc: @two_inputs: dimension 1 of argument #0 is outside [1, 32] (its declared bound, llm.dim_bounds)"
// CHECK: %[[M:.+]] = tensor.dim %[[P]], %{{.+}}
// CHECK: cf.assert %{{.+}}, "llmc: @two_inputs: dimension 0 of argument #1 is outside [1, 32] (its declared bound, llm.dim_bounds)"
// CHECK: %[[SAME:.+]] = arith.cmpi eq, %[[M]], %[[N]]
// CHECK: cf.assert %[[SAME]], "llmc: @two_inputs: dimension 0 of argument #1 differs from dimension 1 of argument #0 (every dynamic dimension is the one sequence length)"
// CHECK: llm.rope
func.func @two_inputs(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 32, 8>}, %p: tensor<?xi64> {llm.dim_bounds = array<i64: 32>}) -> tensor<1x?x8xf32> {
  %0 = llm.rope %x, %p {theta = 1.0e4 : f32} : (tensor<1x?x8xf32>, tensor<?xi64>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

// -----

// Static functions are left alone.
// CHECK-LABEL: func.func @static
// CHECK-NOT: cf.assert
func.func @static(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
