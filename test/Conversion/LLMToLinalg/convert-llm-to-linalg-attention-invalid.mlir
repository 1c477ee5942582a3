// Bad convert-llm-to-linalg options for the attention lowering are reported,
// not crashes.
// RUN: not llm-opt %s -convert-llm-to-linalg="attention=bogus" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not llm-opt %s -convert-llm-to-linalg="attention-tile=0,16" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not llm-opt %s -convert-llm-to-linalg="attention-tile=16" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: llm-opt %s -llm-select-lowering-config="target=sparc" -verify-diagnostics

// KIND: error: convert-llm-to-linalg: unknown attention lowering 'bogus' (expected flash, materialized or keep)
// TILE: error: convert-llm-to-linalg: attention-tile must be two positive sizes [query rows, key/value rows]

// The CPU target is read by llm-select-lowering-config, which reports an
// unknown one at the function.
// expected-error @+1 {{llm-select-lowering-config: unknown target 'sparc' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)}}
func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = llm.attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
