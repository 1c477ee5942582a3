// A cache tile must have three non-negative sizes (0: the whole dimension).
//
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{cache-tile=64,256}))" -verify-diagnostics -split-input-file
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{cache-tile=64,-1,256}))" -verify-diagnostics -split-input-file

// expected-error @+1 {{llm-tile-and-vectorize: cache-tile must be three non-negative sizes [m, n, k]}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
