// RUN: not llm-opt %s --llm-optimize-layout="target=pentium" 2>&1 | FileCheck %s
// CHECK: llm-optimize-layout-invalid.mlir:3:1: error: llm-optimize-layout: unknown target 'pentium' (expected host, generic, avx2, avx512 or avx512-bf16)
func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  return %a : tensor<2x2xf32>
}
