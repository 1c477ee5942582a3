// RUN: llm-opt %s --split-input-file -llm-quantize-weights -verify-diagnostics

// A NaN or Inf weight has no integer level: an error on the matmul (it used
// to be quantized to finite levels with only an "RMS error nan" remark).
func.func @nan_weight(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %w = llm.constant dense<[[1.0, -0.5], [0x7FC00000, 2.0], [0.75, 0.25], [0.0, -1.5]]> : tensor<4x2xf32>
  // expected-error @+1 {{llm-quantize-weights: the weight holds a non-finite value (nan at flat index 2 of 'tensor<4x2xf32>'), which int8 cannot represent}}
  %y = llm.matmul %x, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @inf_weight(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %w = llm.constant dense<[[1.0, -0.5], [0.5, 2.0], [0.75, 0xFF800000], [0.0, -1.5]]> : tensor<4x2xf32>
  // expected-error @+1 {{llm-quantize-weights: the weight holds a non-finite value (-inf at flat index 5 of 'tensor<4x2xf32>'), which int8 cannot represent}}
  %y = llm.matmul %x, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
