// RUN: llm-opt %s -llm-select-gpu-lowering-config -split-input-file -verify-diagnostics | FileCheck %s
// RUN: llm-opt %s -llm-select-gpu-lowering-config="chip=sm_90a" -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not llm-opt %s -llm-select-gpu-lowering-config="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP

// Each llm.attention gets the largest flash tile whose workgroup buffers fit
// 7/8 of the chip's 48 KiB of static shared memory, and staged value tiles.
// Head dim 64 in f32: [32, 32] (about 37 KiB; [64, 32] would take 56 KiB).
// CHECK-LABEL: func.func @head_dim_64
// CHECK:         llm.attention {{.*}}llm.lowering_config = {attention_tile = array<i64: 32, 32>, stage_values = true}
func.func @head_dim_64(%q: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  %0 = llm.attention %q, %q, %q {causal} : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32>
  return %0 : tensor<1x4x128x64xf32>
}

// -----

// Head dim 128: [16, 16] in f32 ([16, 32]: 46.5 KiB); in f16 the key and
// value tiles take half: [16, 32].
// CHECK-LABEL: func.func @head_dim_128
// CHECK:         llm.attention {{.*}}attention_tile = array<i64: 16, 16>
// CHECK:         llm.attention {{.*}}attention_tile = array<i64: 16, 32>
func.func @head_dim_128(%q: tensor<1x2x64x128xf32>, %h: tensor<1x2x64x128xf16>) -> (tensor<1x2x64x128xf32>, tensor<1x2x64x128xf16>) {
  %0 = llm.attention %q, %q, %q : (tensor<1x2x64x128xf32>, tensor<1x2x64x128xf32>, tensor<1x2x64x128xf32>) -> tensor<1x2x64x128xf32>
  %1 = llm.attention %h, %h, %h : (tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>) -> tensor<1x2x64x128xf16>
  return %0, %1 : tensor<1x2x64x128xf32>, tensor<1x2x64x128xf16>
}

// -----

// A decode step (one query row, bshd): the query tile clamps to 1 row, so
// the first candidate fits; its 12 blocks are fewer than the chip's SMs, so
// its 8 key/value tiles run in 8 parts (flash-decoding). With 16 heads in a
// batch of 16 (256 blocks), the blocks are enough on every chip: no split.
// CHECK-LABEL: func.func @decode
// CHECK:         llm.attention {{.*}}attention_tile = array<i64: 64, 64>, kv_splits = 8 : i64, stage_values = true
// CHECK:         llm.attention
// CHECK-NOT:     kv_splits
// CHECK-SAME:    stage_values = true
func.func @decode(%q: tensor<1x1x12x64xf32>, %kv: tensor<1x512x12x64xf32>, %q8: tensor<16x1x16x64xf32>, %kv8: tensor<16x512x16x64xf32>) -> (tensor<1x1x12x64xf32>, tensor<16x1x16x64xf32>) {
  %0 = llm.attention %q, %kv, %kv {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x1x12x64xf32>, tensor<1x512x12x64xf32>, tensor<1x512x12x64xf32>) -> tensor<1x1x12x64xf32>
  %1 = llm.attention %q8, %kv8, %kv8 {causal, layout = #llm.attention_layout<bshd>} : (tensor<16x1x16x64xf32>, tensor<16x512x16x64xf32>, tensor<16x512x16x64xf32>) -> tensor<16x1x16x64xf32>
  return %0, %1 : tensor<1x1x12x64xf32>, tensor<16x1x16x64xf32>
}

// -----

// An op that already has a configuration keeps it.
// CHECK-LABEL: func.func @kept
// CHECK:         llm.lowering_config = {attention_tile = array<i64: 8, 8>}}
func.func @kept(%q: tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32> {
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {attention_tile = array<i64: 8, 8>}} : (tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32>
  return %0 : tensor<1x2x64x64xf32>
}

// CHIP: error: llm-select-gpu-lowering-config: unknown chip 'sm_70' (expected sm_80, sm_89 or sm_90a)
