// Bad pipeline options are reported at the function, not by a crash.
//
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=sparc" -verify-diagnostics -split-input-file
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="register-tile=8,0,1" -verify-diagnostics -split-input-file

// expected-error @+1 {{llm-tile-and-vectorize:}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
