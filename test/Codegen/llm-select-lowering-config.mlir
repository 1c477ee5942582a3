// RUN: llm-opt %s -llm-select-lowering-config=target=avx512-bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: llm-opt %s -llm-select-lowering-config=target=avx512 -split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: llm-opt %s -llm-select-lowering-config=target=avx2 -split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: llm-opt %s -llm-select-lowering-config=target=alderlake -split-input-file | FileCheck %s --check-prefix=ADL
// RUN: llm-opt %s -llm-select-lowering-config=target=generic -split-input-file | FileCheck %s --check-prefix=GENERIC
// RUN: llm-opt %s -llm-select-lowering-config="target=generic attention-tile=8,16 streamed-weight-min-bytes=32" -split-input-file | FileCheck %s --check-prefix=OVERRIDE
// RUN: llm-opt %s -llm-select-lowering-config="target=avx512-bf16 streamed-weight-min-bytes=33" -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: llm-opt %s -llm-select-lowering-config="target=avx512-bf16 demote-contraction-inputs=bf16" -split-input-file | FileCheck %s --check-prefix=DEMOTE
// RUN: llm-opt %s -llm-select-lowering-config="target=avx512-bf16 pad-attention-head-dims=false" -split-input-file | FileCheck %s --check-prefix=NOPAD

// The CPU target description's choices for the lowering of llm ops, recorded
// on each op as llm.lowering_config (the attribute round-trips: the output is
// parsed and verified again by FileCheck's input, llm-opt's output verifier).

// Every target: the flash-attention tile [64, 64] (the target's attentionTile).
// BF16-LABEL: func.func @attention
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// AVX2-LABEL: func.func @attention
// AVX2: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// GENERIC-LABEL: func.func @attention
// GENERIC: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// OVERRIDE-LABEL: func.func @attention
// OVERRIDE: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 8, 16>}}
func.func @attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = llm.attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// padded_head_dims: a head dim whose remainder r of the f32 lanes is not a
// power of two is padded to whole vectors (r = 15 on 16 lanes: 4 narrower
// operations per row, against 1 padded); a power-of-two remainder is not
// (r = 8: one ymm operation). D = 15, Dv = 30: 16 lanes (AVX-512) r = 15 and
// 14 -> [16, 32]; 8 lanes (AVX2) r = 7 and 6 -> [16, 32]; 4 lanes (generic)
// r = 3 and 2 -> [16, 30]. D = Dv = 40 (r = 8, 0, 0) is never padded, nor
// D = Dv = 5 (r = 5, but 11 added columns, more than 5 / 8). An attention
// configured already (a tuning cache's tile) gets the entry too;
// pad-attention-head-dims=false adds none.
// BF16-LABEL: func.func @attention_padded
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>, padded_head_dims = array<i64: 16, 32>}}
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 32, 32>, padded_head_dims = array<i64: 16, 32>}}
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}} : (tensor<1x2x8x5xf32>
// AVX2-LABEL: func.func @attention_padded
// AVX2: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>, padded_head_dims = array<i64: 16, 32>}}
// AVX2: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// GENERIC-LABEL: func.func @attention_padded
// GENERIC: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>, padded_head_dims = array<i64: 16, 30>}}
// GENERIC: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// GENERIC: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 32, 32>, padded_head_dims = array<i64: 16, 30>}}
// GENERIC: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}} : (tensor<1x2x8x5xf32>
// NOPAD-LABEL: func.func @attention_padded
// NOPAD: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// NOPAD: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// NOPAD: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 32, 32>}}
// NOPAD-NOT: padded_head_dims
func.func @attention_padded(%q: tensor<1x2x8x15xf32>, %v: tensor<1x2x8x30xf32>, %q40: tensor<1x2x8x40xf32>, %q5: tensor<1x2x8x5xf32>)
    -> (tensor<1x2x8x30xf32>, tensor<1x2x8x40xf32>, tensor<1x2x8x30xf32>, tensor<1x2x8x5xf32>) {
  %0 = llm.attention %q, %q, %v : (tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>, tensor<1x2x8x30xf32>) -> tensor<1x2x8x30xf32>
  %1 = llm.attention %q40, %q40, %q40 : (tensor<1x2x8x40xf32>, tensor<1x2x8x40xf32>, tensor<1x2x8x40xf32>) -> tensor<1x2x8x40xf32>
  %2 = llm.attention %q, %q, %v {llm.lowering_config = {attention_tile = array<i64: 32, 32>}} : (tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>, tensor<1x2x8x30xf32>) -> tensor<1x2x8x30xf32>
  %3 = llm.attention %q5, %q5, %q5 : (tensor<1x2x8x5xf32>, tensor<1x2x8x5xf32>, tensor<1x2x8x5xf32>) -> tensor<1x2x8x5xf32>
  return %0, %1, %2, %3 : tensor<1x2x8x30xf32>, tensor<1x2x8x40xf32>, tensor<1x2x8x30xf32>, tensor<1x2x8x5xf32>
}

// -----

// dot_product: bf16 on AVX512-BF16 only. streamed: the weight's stored bytes
// (4 x 8 int8 = 32) against the target's streamedWeightMinBytes (1 MiB) or
// the override (32: streamed; 33: not).
// BF16-LABEL: func.func @dequant_matmul
// BF16: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "bf16", streamed = false}, transpose_b}
// AVX512-LABEL: func.func @dequant_matmul
// AVX512: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "f32", streamed = false}, transpose_b}
// AVX2-LABEL: func.func @dequant_matmul
// AVX2: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "f32", streamed = false}, transpose_b}
// OVERRIDE-LABEL: func.func @dequant_matmul
// OVERRIDE: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "f32", streamed = true}, transpose_b}
// SMALL-LABEL: func.func @dequant_matmul
// SMALL: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "bf16", streamed = false}, transpose_b}
func.func @dequant_matmul(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// int4: 4 x 16 elements of 4 bits = 32 bytes.
// OVERRIDE-LABEL: func.func @dequant_matmul_i4
// OVERRIDE: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "f32", streamed = true}, transpose_b}
// SMALL-LABEL: func.func @dequant_matmul_i4
// SMALL: llm.dequant_matmul {{.*}}{llm.lowering_config = {dot_product = "bf16", streamed = false}, transpose_b}
func.func @dequant_matmul_i4(%x: tensor<1x16xf32>, %w: tensor<4x16x!quant.uniform<i4:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x16xf32>, tensor<4x16x!quant.uniform<i4:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// dot_product of the integer matmul: i8 where the target has AVX512-VNNI
// (every AVX512-BF16 CPU has it; vector_bits 512) or AVX-VNNI (an AVX2 CPU
// such as Alder Lake; vector_bits 256), else f32.
// BF16-LABEL: func.func @matmul_integer
// BF16: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "i8", vector_bits = 512 : i64}}
// ADL-LABEL: func.func @matmul_integer
// ADL: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "i8", vector_bits = 256 : i64}}
// AVX512-LABEL: func.func @matmul_integer
// AVX512: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "f32"}}
// AVX2-LABEL: func.func @matmul_integer
// AVX2: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "f32"}}
// GENERIC-LABEL: func.func @matmul_integer
// GENERIC: llm.matmul_integer {{.*}}{llm.lowering_config = {dot_product = "f32"}}
func.func @matmul_integer(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32> {
  %y = llm.matmul_integer %a, %b : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

// An op that already has a configuration (a tuner's) keeps it; ops inside a
// fusion group are configured too; other ops get none.
// BF16-LABEL: func.func @kept_and_nested
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 4, 4>}}
// BF16: llm.fusion_group
// BF16: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 64, 64>}}
// BF16-NOT: llm.lowering_config
// BF16: return
func.func @kept_and_nested(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = llm.attention %q, %k, %v {llm.lowering_config = {attention_tile = array<i64: 4, 4>}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %1 = llm.fusion_group : tensor<1x2x8x16xf32> {
    %2 = llm.attention %0, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    llm.yield %2 : tensor<1x2x8x16xf32>
  }
  %3 = llm.add %1, %q : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %3 : tensor<1x2x8x16xf32>
}

// -----

// llm.matmul by a constant weight (N >= 16, K static; the rows may be
// dynamic): dot_product = "bf16" where the target has AVX512-BF16 and the
// inputs are bf16, or f32 with demote-contraction-inputs=bf16 (an N of 24
// too: its columns are zero-padded to 32). An f32 matmul without the
// option, a weight that is not a constant and an lhs of dynamic K get no
// configuration.
// BF16-LABEL: func.func @matmul_dot_bf16
// BF16: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xbf16>, tensor<8x16xbf16>)
// BF16: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}, transpose_b} : (tensor<2x3x8xbf16>, tensor<32x8xbf16>)
// BF16-NOT: llm.lowering_config
// BF16: return
// AVX512-LABEL: func.func @matmul_dot_bf16
// AVX512-NOT: llm.lowering_config
// AVX512: return
// DEMOTE-LABEL: func.func @matmul_dot_bf16
// DEMOTE: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xbf16>, tensor<8x16xbf16>)
// DEMOTE: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}, transpose_b} : (tensor<2x3x8xbf16>, tensor<32x8xbf16>)
// DEMOTE: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xf32>, tensor<8x16xf32>)
// DEMOTE: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xf32>, tensor<8x24xf32>)
// DEMOTE: llm.matmul {{.*}}{llm.lowering_config = {dot_product = "bf16"}} : (tensor<?x8xf32>, tensor<8x16xf32>)
// DEMOTE-NOT: llm.lowering_config
// DEMOTE: return
func.func @matmul_dot_bf16(%a: tensor<2x8xbf16>, %a3: tensor<2x3x8xbf16>, %x: tensor<2x8xf32>, %wx: tensor<8x16xf32>, %xd: tensor<?x8xf32>, %xk: tensor<2x?xf32>) -> (tensor<2x16xbf16>, tensor<2x3x32xbf16>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x24xf32>, tensor<?x16xf32>, tensor<2x16xf32>) {
  %w = llm.constant dense<1.0> : tensor<8x16xbf16>
  %0 = llm.matmul %a, %w : (tensor<2x8xbf16>, tensor<8x16xbf16>) -> tensor<2x16xbf16>
  %wt = llm.constant dense<1.0> : tensor<32x8xbf16>
  %1 = llm.matmul %a3, %wt {transpose_b} : (tensor<2x3x8xbf16>, tensor<32x8xbf16>) -> tensor<2x3x32xbf16>
  %wf = llm.constant dense<1.0> : tensor<8x16xf32>
  %2 = llm.matmul %x, %wf : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %3 = llm.matmul %x, %wx : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %w24 = llm.constant dense<1.0> : tensor<8x24xf32>
  %4 = llm.matmul %x, %w24 : (tensor<2x8xf32>, tensor<8x24xf32>) -> tensor<2x24xf32>
  %5 = llm.matmul %xd, %wf : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %6 = llm.matmul %xk, %wf : (tensor<2x?xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x16xbf16>, tensor<2x3x32xbf16>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x24xf32>, tensor<?x16xf32>, tensor<2x16xf32>
}
