// Bad options are reported at the function (the pass fails, no crash).
//
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=pentium}))" -verify-diagnostics

// expected-error @+1 {{llm-tile-and-vectorize: unknown target 'pentium' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
