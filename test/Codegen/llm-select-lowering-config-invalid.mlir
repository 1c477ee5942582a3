// Bad options are reported (the pass fails, no crash): an unknown target at
// each function, bad overrides at the module.
//
// RUN: llm-opt %s -llm-select-lowering-config=target=pentium -verify-diagnostics
// RUN: not llm-opt %s -llm-select-lowering-config=attention-tile=0,16 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not llm-opt %s -llm-select-lowering-config=attention-tile=16 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not llm-opt %s -llm-select-lowering-config=streamed-weight-min-bytes=-2 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not llm-opt %s -llm-select-lowering-config=demote-contraction-inputs=f16 2>&1 | FileCheck %s --check-prefix=DEMOTE
// A target without AVX512-BF16: a warning, and the pass succeeds.
// RUN: llm-opt %s -llm-select-lowering-config="target=avx2 demote-contraction-inputs=bf16" 2>&1 | FileCheck %s --check-prefix=NOBF16

// TILE: error: llm-select-lowering-config: attention-tile must be two positive sizes [query rows, key/value rows]
// DEMOTE: error: llm-select-lowering-config: demote-contraction-inputs must be empty or 'bf16' (the only dot products of CPU targets with a rounded input type), got 'f16'
// NOBF16: warning: llm-select-lowering-config: demote-contraction-inputs=bf16 has no effect on target 'avx2', which has no bf16 dot products (AVX512-BF16); f32 matmuls stay f32
// NOBF16: func.func @f
// STREAM: error: llm-select-lowering-config: streamed-weight-min-bytes must be -1 (the target's) or a size in bytes, got -2

// expected-error @+1 {{llm-select-lowering-config: unknown target 'pentium' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)}}
func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = llm.attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
