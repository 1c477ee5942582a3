// RUN: llm-opt %s --split-input-file --verify-diagnostics --llm-sparsify-weights | FileCheck %s
// RUN: llm-opt %s --split-input-file --verify-diagnostics --llm-sparsify-weights="format=bsr16x16" | FileCheck %s

// Sparsity asked for, but no matmul has a weight that can be stored sparse:
// one warning, at the function of the first matmul (for an imported model,
// the model file rather than one node), and every matmul stays dense (no
// llm.sparse_format). A weight that is a function input:

// CHECK-LABEL: func.func @weight_is_an_input
// CHECK-NOT: llm.sparse_format
// expected-warning @+1 {{no matmul has a weight to store sparse (a constant rank-2 f32, f16 or bf16 rhs, the lhs not transposed; or an 8- or 4-bit quantized rhs), so every matmul runs dense}}
func.func @weight_is_an_input(%x: tensor<40x32xf32>, %w: tensor<32x32xf32>) -> tensor<40x32xf32> {
  %y = llm.matmul %x, %w : (tensor<40x32xf32>, tensor<32x32xf32>) -> tensor<40x32xf32>
  return %y : tensor<40x32xf32>
}

// -----

// A constant lhs (the operand read transposed is not a weight):

// CHECK-LABEL: func.func @transposed_lhs
// CHECK-NOT: llm.sparse_format
// expected-warning @+1 {{llm-sparsify-weights: format=}}
func.func @transposed_lhs(%x: tensor<32x4xf32>) -> tensor<32x4xf32> {
  %w = llm.constant dense<0.0> : tensor<32x32xf32>
  %y = llm.matmul %w, %x {transpose_a} : (tensor<32x32xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
  return %y : tensor<32x4xf32>
}

// -----

// A model without matmuls: nothing to say.

// CHECK-LABEL: func.func @no_matmul
func.func @no_matmul(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = llm.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A quantized weight still behind llm.dequantize (llm-quantize-weights'
// output before llm-fold-quant folds the pair into llm.dequant_matmul): the
// warning says to fuse first.

// CHECK-LABEL: func.func @unfused_dequantize
// CHECK-NOT: llm.sparse_format
// expected-warning @+1 {{so every matmul runs dense; a quantized weight reaches a matmul through llm.dequantize: run --llm-fold-quant first, as llm-lower-to-cpu and `llmc run --sparsify` do}}
func.func @unfused_dequantize(%x: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %c = arith.constant dense<0> : tensor<32x16xi8>
  %q = quant.scast %c : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 0.5>>
  %w = llm.dequantize %q : (tensor<32x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<32x16xf32>
  %y = llm.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
