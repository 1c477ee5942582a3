// A register tile must have three positive sizes.
//
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{register-tile=8,32}))" -verify-diagnostics -split-input-file
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{register-tile=8,0,1}))" -verify-diagnostics -split-input-file

// expected-error @+1 {{llm-tile-and-vectorize: register-tile must be three positive sizes [m, n, k]}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
