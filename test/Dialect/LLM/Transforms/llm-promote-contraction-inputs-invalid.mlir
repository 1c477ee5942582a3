// RUN: not llm-opt %s --llm-promote-contraction-inputs="element-types=f16,f32" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not llm-opt %s --llm-promote-contraction-inputs="min-rows=0" 2>&1 | FileCheck %s --check-prefix=ROWS

// TYPE: error: llm-promote-contraction-inputs: unknown element type 'f32' (expected f16 or bf16)
// ROWS: error: llm-promote-contraction-inputs: min-rows must be at least 1, got 0
func.func @f(%a: tensor<16x2xf16>) -> tensor<16x2xf16> {
  %w = llm.constant dense<1.0> : tensor<2x2xf16>
  %0 = llm.matmul %a, %w : (tensor<16x2xf16>, tensor<2x2xf16>) -> tensor<16x2xf16>
  return %0 : tensor<16x2xf16>
}
