// RUN: llm-opt %s --split-input-file --convert-llm-to-linalg -verify-diagnostics | FileCheck %s

// A recorded llm.sparse_format (hand-written, or from llm-sparsify-weights)
// that no kernel honours for any activation shape: a warning at the matmul
// saying why, and the dense kernel runs. The fallbacks by design (2:4 and
// CSR in prefill, 2:4 without AVX-512, row-form blocks past 40% fill in
// prefill) and "dense" stay silent.

// Row-form blocks of 5 x 32 (160 elements) exceed 4 vectors of 16 lanes;
// rows are not a multiple of 16 for the column form.
func.func @block_too_big(%x: tensor<1x32xf32>, %w: tensor<5x32xf32>) -> tensor<1x5xf32> {
  %c = llm.constant dense<1.0> : tensor<5x32xf32>
  // expected-warning @+1 {{llm.sparse_format 'bsr5x32' is not honoured: blocks of 5 x 32 are neither whole vectors of output channels (rows a multiple of 16) nor at most 64 elements; the dense kernel runs}}
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr5x32"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x32xf32>, tensor<5x32xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// -----

// 2:4 permutes 32 activation elements with vpermt2ps: AVX-512 only; on
// 256-bit vectors the dense kernel by design (llm-sparsify-weights chooses
// 2:4 for exact 2:4 weights on any CPU), without a warning.
func.func @two_four_ymm(%x: tensor<1x32xf32>) -> tensor<1x2xf32> {
  %c = llm.constant dense<[[1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0]]> : tensor<2x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "2:4"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<1x32xf32>, tensor<2x32xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// The same 2:4 weight in a 16-row prefill on AVX-512: the dense kernel by
// design, without a warning.
func.func @two_four_prefill(%x: tensor<16x32xf32>) -> tensor<16x2xf32> {
  %c = llm.constant dense<[[1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0, 0.0, 3.0, 0.0, 4.0]]> : tensor<2x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "2:4"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<16x32xf32>, tensor<2x32xf32>) -> tensor<16x2xf32>
  return %y : tensor<16x2xf32>
}

// -----

// A weight that is not a constant, and a transposed lhs.
func.func @not_constant(%x: tensor<1x32xf32>, %w: tensor<16x32xf32>) -> tensor<1x16xf32> {
  // expected-warning @+1 {{llm.sparse_format 'bsr16x16' is not honoured: the weight is not an llm.constant of rank 2; the dense kernel runs}}
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x32xf32>, tensor<16x32xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

func.func @transposed_lhs(%x: tensor<32x1xf32>) -> tensor<1x16xf32> {
  %c = llm.constant dense<1.0> : tensor<16x32xf32>
  // expected-warning @+1 {{llm.sparse_format 'bsr16x16' is not honoured: the lhs is transposed; the dense kernel runs}}
  %y = llm.matmul %x, %c {transpose_a, transpose_b, llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<32x1xf32>, tensor<16x32xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// "dense" recorded: nothing to say.
func.func @dense_recorded(%x: tensor<1x32xf32>) -> tensor<1x16xf32> {
  %c = llm.constant dense<1.0> : tensor<16x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "dense"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x32xf32>, tensor<16x32xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// Scales per group of 4 along K: a 16x16 block spans four groups, and CSR's
// chunks cross groups.
func.func @groups_bsr(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %q = llm.constant dense<1> : tensor<16x16xi8>
  %w = quant.scast %q : tensor<16x16xi8> to tensor<16x16x!quant.uniform<i8:f32:{0:1,1:4}, {{1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}}>>
  // expected-warning @+1 {{llm.sparse_format 'bsr16x16' is not honoured: format bsr16x16 does not take sub-channel scales in groups of 4 (blocks whose columns divide the group, or 2:4 with groups of a multiple of 32); the dense kernel runs}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x16xf32>, tensor<16x16x!quant.uniform<i8:f32:{0:1,1:4}, {{1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4.0}}>>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// u8 levels of 255 with zero point 0 do not fit the i8 storage.
func.func @levels_outside_i8(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %q = arith.constant dense<-1> : tensor<16x16xi8>
  %w = quant.scast %q : tensor<16x16xi8> to tensor<16x16x!quant.uniform<u8:f32, 0.5>>
  // expected-warning @+1 {{llm.sparse_format 'bsr16x16' is not honoured: its level q - zp = 255 lies outside [-128, 127] (the sparse kernels store the levels as i8); the dense kernel runs}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x16xf32>, tensor<16x16x!quant.uniform<u8:f32, 0.5>>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// FP8 weights have no sparse kernel.
func.func @fp8(%x: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3xf8E4M3FN>
  // expected-warning @+1 {{llm.sparse_format 'bsr4x4' is not honoured: no sparse kernel takes FP8 weights; the dense kernel runs}}
  %y = llm.dequant_matmul %x, %w {scale = 0.5 : f32, llm.sparse_format = {format = "bsr4x4"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x4xf32>, tensor<4x3xf8E4M3FN>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// W8A8: 4x4 blocks are not whole vectors of output channels for vpdpbusd.
func.func @w8a8_bsr4(%a: tensor<2x16x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<2x16xi32> {
  %q = llm.constant dense<1> : tensor<16x16xi8>
  %b = quant.scast %q : tensor<16x16xi8> to tensor<16x16x!quant.uniform<i8:f32, 1.0>>
  // expected-warning @+1 {{llm.sparse_format 'bsr4x4' is not honoured: the W8A8 kernel takes blocks whose rows are a multiple of 16 and whose columns are a multiple of 4 (bsr16x16); the dense kernel runs}}
  %y = llm.matmul_integer %a, %b {llm.sparse_format = {format = "bsr4x4"}, llm.lowering_config = {dot_product = "i8", vector_bits = 512 : i64}} : (tensor<2x16x!quant.uniform<u8:f32, 1.0:3>>, tensor<16x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

// The block shape is checked before the prefill fallbacks: 16 rows of a
// fully stored 5 x 32 weight still warn.
func.func @block_too_big_prefill(%x: tensor<16x32xf32>) -> tensor<16x5xf32> {
  %c = llm.constant dense<1.0> : tensor<5x32xf32>
  // expected-warning @+1 {{llm.sparse_format 'bsr5x32' is not honoured: blocks of 5 x 32 are neither whole vectors}}
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr5x32"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<16x32xf32>, tensor<5x32xf32>) -> tensor<16x5xf32>
  return %y : tensor<16x5xf32>
}

// An empty weight, and no CPU configuration (no vector_bits): nothing to
// say, as for any format.
func.func @empty_weight(%x: tensor<1x0xf32>) -> tensor<1x16xf32> {
  %c = llm.constant dense<> : tensor<16x0xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x0xf32>, tensor<16x0xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

func.func @empty_quantized_weight(%x: tensor<2x32xf32>) -> tensor<2x0xf32> {
  %c = arith.constant dense<1> : tensor<32x0xi8>
  %w = quant.scast %c : tensor<32x0xi8> to tensor<32x0x!quant.uniform<i8:f32, 0.5>>
  %y = llm.dequant_matmul %x, %w {llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<2x32xf32>, tensor<32x0x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x0xf32>
  return %y : tensor<2x0xf32>
}

func.func @fp8_unconfigured(%x: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3xf8E4M3FN>
  %y = llm.dequant_matmul %x, %w {scale = 0.5 : f32, llm.sparse_format = {format = "bsr4x4"}} : (tensor<1x4xf32>, tensor<4x3xf8E4M3FN>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// W8A8 on an AMX configuration (dot_product = "amx_i8", a prefill): the
// dense AMX kernel by design (its tiles outpace the skipped blocks), without
// a warning; "f32" (no 8-bit dot products) warns; no dot_product entry is
// silent.
// CHECK-LABEL: func.func @w8a8_amx
// CHECK-NOT: vpdpbusd
// CHECK: amx.
// CHECK-LABEL: func.func @w8a8_no_vnni
func.func @w8a8_amx(%a: tensor<40x32x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<40x16xi32> {
  %q = arith.constant dense<1> : tensor<32x16xi8>
  %b = quant.scast %q : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b {llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {dot_product = "amx_i8", vector_bits = 512 : i64}} : (tensor<40x32x!quant.uniform<u8:f32, 1.0:3>>, tensor<32x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<40x16xi32>
  return %y : tensor<40x16xi32>
}

func.func @w8a8_no_vnni(%a: tensor<4x32x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<4x16xi32> {
  %q = arith.constant dense<1> : tensor<32x16xi8>
  %b = quant.scast %q : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 1.0>>
  // expected-warning @+1 {{llm.sparse_format 'bsr16x16' is not honoured: the target has no 8-bit dot products (AVX512-VNNI or AVX-VNNI); the dense kernel runs}}
  %y = llm.matmul_integer %a, %b {llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {dot_product = "f32", vector_bits = 512 : i64}} : (tensor<4x32x!quant.uniform<u8:f32, 1.0:3>>, tensor<32x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x16xi32>
  return %y : tensor<4x16xi32>
}

func.func @w8a8_no_dot_entry(%a: tensor<4x32x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<4x16xi32> {
  %q = arith.constant dense<1> : tensor<32x16xi8>
  %b = quant.scast %q : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b {llm.sparse_format = {format = "bsr16x16"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<4x32x!quant.uniform<u8:f32, 1.0:3>>, tensor<32x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x16xi32>
  return %y : tensor<4x16xi32>
}
