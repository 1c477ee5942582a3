// RUN: llm-opt %s --split-input-file --llm-sparsify-weights 2>&1 | FileCheck %s
// RUN: llm-opt %s --split-input-file --llm-fold-quant --llm-sparsify-weights 2>&1 | FileCheck %s --check-prefix=FOLDED

// When no weight qualifies, the warning advises llm-fold-quant only for a
// constant 8- or 4-bit weight behind llm.dequantize, which folding turns
// into an llm.dequant_matmul weight; not for a weight that is an argument,
// an FP8 weight (no sparse kernel), 16-bit storage or a transposed lhs (not
// folded).

// CHECK: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense; a quantized weight reaches a matmul through llm.dequantize: run --llm-fold-quant first
// FOLDED: remark: llm-sparsify-weights: weight [N=16, K=32]
func.func @constant_i8(%x: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %c = arith.constant dense<0> : tensor<32x16xi8>
  %q = quant.scast %c : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 0.5>>
  %w = llm.dequantize %q : (tensor<32x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
// FOLDED: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
func.func @argument_weight(%x: tensor<4x32xf32>, %q: tensor<32x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x16xf32> {
  %w = llm.dequantize %q : (tensor<32x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
// FOLDED: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
func.func @fp8_weight(%x: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %c = arith.constant dense<1.0> : tensor<32x16xf8E4M3FN>
  %w = llm.dequantize %c {scale = 0.5 : f32} : (tensor<32x16xf8E4M3FN>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
// FOLDED: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
func.func @i16_weight(%x: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %c = arith.constant dense<0> : tensor<32x16xi16>
  %q = quant.scast %c : tensor<32x16xi16> to tensor<32x16x!quant.uniform<i16:f32, 0.5>>
  %w = llm.dequantize %q : (tensor<32x16x!quant.uniform<i16:f32, 0.5>>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A layout llm-fold-quant does not fold (transposed lhs): no advice.

// CHECK: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
// FOLDED: warning: llm-sparsify-weights: {{.*}} so every matmul runs dense{{$}}
func.func @transposed_lhs(%x: tensor<32x4xf32>) -> tensor<4x16xf32> {
  %c = arith.constant dense<0> : tensor<32x16xi8>
  %q = quant.scast %c : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 0.5>>
  %w = llm.dequantize %q : (tensor<32x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w {transpose_a} : (tensor<32x4xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
