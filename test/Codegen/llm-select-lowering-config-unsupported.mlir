// A configuration written by hand that asks for dot products the target
// lacks is an error at its op (the kernel would not run on that target).
// RUN: llm-opt %s -llm-select-lowering-config=target=avx2 -split-input-file -verify-diagnostics

func.func @bf16_on_avx2(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = llm.constant dense<0.3> : tensor<8x16xf32>
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "bf16" needs AVX512-BF16 dot products, which target 'avx2' lacks}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "bf16"}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @i8_on_avx2(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32> {
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "i8" needs 8-bit dot products (AVX512-VNNI or AVX-VNNI), which target 'avx2' lacks}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "i8"}} : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

// "f32" is always available.
func.func @f32_on_avx2(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = llm.constant dense<0.3> : tensor<8x16xf32>
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "f32"}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// AMX tiles on a target without them (avx2 here; znver5, with AVX512-BF16
// but no AMX, in llm-select-lowering-config-amx.mlir).
func.func @amx_on_avx2(%x: tensor<32x8xf32>) -> tensor<32x16xf32> {
  %w = llm.constant dense<0.3> : tensor<8x16xf32>
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "amx_bf16" needs AMX tiles with bf16 products (AMX-TILE and AMX-BF16), which target 'avx2' lacks}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

func.func @amx_i8_on_avx2(%a: tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x16xi32> {
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "amx_i8" needs AMX tiles with 8-bit products (AMX-TILE and AMX-INT8), which target 'avx2' lacks}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "amx_i8"}} : (tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x16xi32>
  return %y : tensor<32x16xi32>
}
