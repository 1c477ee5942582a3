// emulate-amx runs the AMX kernels' tiles as vector code, and their
// fallback below 32 rows on the target's dot products: hand-written AMX
// configurations on a target without those dot products are still refused,
// with what is missing.
// RUN: llm-opt %s -llm-select-lowering-config="target=avx2 emulate-amx=true" -split-input-file -verify-diagnostics

func.func @amx_bf16(%x: tensor<31x8xf32>) -> tensor<31x16xf32> {
  %w = llm.constant dense<0.3> : tensor<8x16xf32>
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "amx_bf16" with emulate-amx needs AVX512-BF16 dot products, which target 'avx2' lacks}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<31x8xf32>, tensor<8x16xf32>) -> tensor<31x16xf32>
  return %y : tensor<31x16xf32>
}

// -----

func.func @amx_i8(%a: tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x16xi32> {
  // expected-error @+1 {{llm-select-lowering-config: dot_product = "amx_i8" with emulate-amx needs 8-bit dot products (AVX512-VNNI or AVX-VNNI), which target 'avx2' lacks}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "amx_i8"}} : (tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x16xi32>
  return %y : tensor<32x16xi32>
}
