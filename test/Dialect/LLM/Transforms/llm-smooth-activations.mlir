// RUN: %python %S/Inputs/make_ranges.py smooth %t.json
// RUN: llm-opt %s --llm-smooth-activations="ranges=%t.json alpha=0.5" | FileCheck %s
// RUN: not llm-opt %s --llm-smooth-activations="ranges=%t.json alpha=0" 2>&1 | FileCheck %s --check-prefix=ALPHA
// RUN: not llm-opt %s --llm-smooth-activations 2>&1 | FileCheck %s --check-prefix=NORANGES
// RUN: %python %S/Inputs/make_ranges.py good %t.other.json
// RUN: not llm-opt %s --llm-smooth-activations="ranges=%t.other.json" 2>&1 | FileCheck %s --check-prefix=OTHER

// The layer norm's output has channel maxima [4, 1, 1, 0.25] (the table)
// and the weight's rows have max |w_j| = [1, 1, 4, 1]: with alpha 0.5,
// s_j = sqrt(max|X_j| / max|W_j|) = [2, 1, 0.5, 0.5]. The norm's scale and
// bias are divided by s, the weight's rows multiplied by it.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[G:.+]] = llm.constant dense<[5.000000e-01, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = llm.constant dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK: %[[N:.+]] = llm.layer_norm %arg0 scale %[[G]] bias %[[B]]
// CHECK: %[[W:.+]] = llm.constant dense<{{\[}}[2.000000e+00, -2.000000e+00], [1.000000e+00, 5.000000e-01], [2.000000e+00, -5.000000e-01], [5.000000e-01, 2.500000e-01]]> : tensor<4x2xf32>
// CHECK: llm.matmul %[[N]], %[[W]]
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %g = llm.constant dense<1.0> : tensor<4xf32>
  %b = llm.constant dense<0.5> : tensor<4xf32>
  %w = llm.constant dense<[[1.0, -1.0], [1.0, 0.5], [4.0, -1.0], [1.0, 0.5]]> : tensor<4x2xf32>
  %n = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = llm.matmul %n, %w : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
// ALPHA: error: llm-smooth-activations: alpha must be in (0, 1], got 0
// NORANGES: error: llm-smooth-activations: ranges=FILE is required
// OTHER: error: llm-smooth-activations: the calibration table does not match this module at t1
