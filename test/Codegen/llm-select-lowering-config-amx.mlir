// The bf16 prefill matmuls take AMX tiles (dot_product = "amx_bf16") on
// targets with AMX-BF16, or with emulate-amx; decode rows, dynamic rows and
// targets without AMX keep the AVX512-BF16 dot products.
// RUN: llm-opt %s -llm-select-lowering-config="target=sapphirerapids demote-contraction-inputs=bf16" -split-input-file | FileCheck %s --check-prefix=SPR
// RUN: not llm-opt %s -llm-select-lowering-config="target=znver5 demote-contraction-inputs=bf16" -split-input-file 2>/dev/null | FileCheck %s --check-prefix=ZEN5
// RUN: llm-opt %s -llm-select-lowering-config="target=znver5 demote-contraction-inputs=bf16 emulate-amx=true" -split-input-file | FileCheck %s --check-prefix=SPR
// RUN: llm-opt %s -llm-select-lowering-config="target=sapphirerapids" -split-input-file | FileCheck %s --check-prefix=NODEMOTE
// RUN: not llm-opt %s -llm-select-lowering-config="target=znver5" -split-input-file 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: llm-opt %s -llm-select-lowering-config="target=znver5 emulate-amx=true" -split-input-file | FileCheck %s --check-prefix=EMULATED

// SPR-LABEL: func.func @prefill
// SPR: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<32x8xbf16>, tensor<8x16xbf16>)
// SPR: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "amx_bf16"}, transpose_b} : (tensor<2x16x8xbf16>, tensor<48x8xbf16>)
// SPR: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<40x8xf32>, tensor<8x16xf32>)
// 31 rows, dynamic rows: the AVX512-BF16 kernel.
// SPR: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<31x8xbf16>, tensor<8x16xbf16>)
// SPR: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<?x8xbf16>, tensor<8x16xbf16>)

// ZEN5-LABEL: func.func @prefill
// ZEN5-NOT: amx_bf16
// ZEN5-COUNT-5: {llm.lowering_config = {dot_product = "bf16"}

// Without demote-contraction-inputs the f32 matmul stays exact.
// NODEMOTE-LABEL: func.func @prefill
// NODEMOTE-COUNT-2: {dot_product = "amx_bf16"}
// NODEMOTE: llm.matmul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<40x8xf32>, tensor<8x16xf32>)
func.func @prefill(%a: tensor<32x8xbf16>, %a3: tensor<2x16x8xbf16>, %x: tensor<40x8xf32>, %a31: tensor<31x8xbf16>, %ad: tensor<?x8xbf16>) -> (tensor<32x16xbf16>, tensor<2x16x48xbf16>, tensor<40x16xf32>, tensor<31x16xbf16>, tensor<?x16xbf16>) {
  %w = llm.constant dense<1.0> : tensor<8x16xbf16>
  %0 = llm.matmul %a, %w : (tensor<32x8xbf16>, tensor<8x16xbf16>) -> tensor<32x16xbf16>
  %wt = llm.constant dense<1.0> : tensor<48x8xbf16>
  %1 = llm.matmul %a3, %wt {transpose_b} : (tensor<2x16x8xbf16>, tensor<48x8xbf16>) -> tensor<2x16x48xbf16>
  %wx = llm.constant dense<0.5> : tensor<8x16xf32>
  %2 = llm.matmul %x, %wx : (tensor<40x8xf32>, tensor<8x16xf32>) -> tensor<40x16xf32>
  %3 = llm.matmul %a31, %w : (tensor<31x8xbf16>, tensor<8x16xbf16>) -> tensor<31x16xbf16>
  %4 = llm.matmul %ad, %w : (tensor<?x8xbf16>, tensor<8x16xbf16>) -> tensor<?x16xbf16>
  return %0, %1, %2, %3, %4 : tensor<32x16xbf16>, tensor<2x16x48xbf16>, tensor<40x16xf32>, tensor<31x16xbf16>, tensor<?x16xbf16>
}

// -----

// A hand-written AMX configuration: refused on a target without AMX, kept
// with emulate-amx.
// REFUSED: error: llm-select-lowering-config: dot_product = "amx_bf16" needs AMX tiles with bf16 products (AMX-TILE and AMX-BF16), which target 'avx512-bf16' lacks
// EMULATED-LABEL: func.func @configured
// EMULATED: {llm.lowering_config = {dot_product = "amx_bf16"}}
func.func @configured(%a: tensor<32x8xbf16>) -> tensor<32x16xbf16> {
  %w = llm.constant dense<1.0> : tensor<8x16xbf16>
  %0 = llm.matmul %a, %w {llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<32x8xbf16>, tensor<8x16xbf16>) -> tensor<32x16xbf16>
  return %0 : tensor<32x16xbf16>
}

// -----

// W8A8 prefills take AMX-INT8 tiles the same way (dot_product = "amx_i8"),
// decode rows the vpdpbusd kernel.
// SPR-LABEL: func.func @w8a8
// SPR: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "amx_i8", vector_bits = 512 : i64}} : (tensor<32x64x!quant.uniform
// SPR: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "i8", vector_bits = 512 : i64}} : (tensor<4x64x!quant.uniform
// ZEN5-LABEL: func.func @w8a8
// ZEN5-NOT: amx_i8
// ZEN5-COUNT-2: dot_product = "i8"
func.func @w8a8(%a: tensor<32x64x!quant.uniform<u8:f32, 1.0:3>>, %d: tensor<4x64x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<64x32x!quant.uniform<i8:f32, 1.0>>) -> (tensor<32x32xi32>, tensor<4x32xi32>) {
  %0 = llm.matmul_integer %a, %b : (tensor<32x64x!quant.uniform<u8:f32, 1.0:3>>, tensor<64x32x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x32xi32>
  %1 = llm.matmul_integer %d, %b : (tensor<4x64x!quant.uniform<u8:f32, 1.0:3>>, tensor<64x32x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x32xi32>
  return %0, %1 : tensor<32x32xi32>, tensor<4x32xi32>
}
