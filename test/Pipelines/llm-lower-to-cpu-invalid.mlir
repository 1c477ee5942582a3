// Bad pipeline options are reported at the function, not by a crash.
//
// RUN: not llm-opt %s --verify-each --llm-lower-to-cpu="target=sparc" -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="register-tile=8,0,1" -verify-diagnostics -split-input-file

// The first pass that reads the target (llm-select-lowering-config) reports it.
// TARGET: llm-lower-to-cpu-invalid.mlir:[[@LINE+2]]:1: error: llm-select-lowering-config: unknown target 'sparc' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)
// expected-error @+1 {{llm-tile-and-vectorize: register-tile must be three positive sizes}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
