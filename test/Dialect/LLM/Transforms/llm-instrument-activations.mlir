// RUN: llm-opt %s --llm-instrument-activations --split-input-file -verify-diagnostics | FileCheck %s

// The activations read by the norm, the matmuls (lhs; an activation rhs
// too) and the attention are returned after the results, each once, in walk
// order; constants are not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32> {llm.name = "calibration:t0"}, tensor<4x8xf32> {llm.name = "calibration:t1"}, tensor<4x8xf32> {llm.name = "calibration:t2"}, tensor<4x4xf32> {llm.name = "calibration:t3"})
// CHECK-SAME: llm.calibration_points = [{key = "t0", name = "norm:input", op = "llm.layer_norm", type = "tensor<4x8xf32>"}, {key = "t1", name = "fc:lhs", op = "llm.matmul", type = "tensor<4x8xf32>"}, {key = "t2", name = "scores:rhs", op = "llm.matmul", type = "tensor<4x8xf32>"}, {key = "t3", name = "out:lhs", op = "llm.matmul", type = "tensor<4x4xf32>"}]
// CHECK: %[[N:.+]] = llm.layer_norm %[[X]]
// CHECK: %[[H:.+]] = llm.matmul %[[N]]
// CHECK: %[[S:.+]] = llm.matmul %[[N]], %[[H]]
// CHECK: return %{{.+}}, %[[X]], %[[N]], %[[H]], %[[S]] :
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = llm.constant dense<0.5> : tensor<8x8xf32>
  %n = llm.layer_norm %x : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("norm")
  %h = llm.matmul %n, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("fc")
  %s = llm.matmul %n, %h {transpose_b} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32> loc("scores")
  %o = llm.matmul %s, %h : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc("out")
  return %o : tensor<4x8xf32>
}

// -----

// A module whose entry reads no activation gets no extra result.
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<4xf32>
// CHECK-SAME: llm.calibration_points = []
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = llm.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{llm-instrument-activations: no function @main with a body}}
module {
  func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{llm-instrument-activations: @main is instrumented already}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {llm.calibration_points = []} {
  return %x : tensor<4xf32>
}
