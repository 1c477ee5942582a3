// RUN: llm-opt %s -llm-keep-last-logits -split-input-file -verify-diagnostics

// Errors of llm-keep-last-logits.

// expected-error @+1 {{llm-keep-last-logits: no function @main with a body}}
module {
  func.func @other(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
    return %x : tensor<1x4xf32>
  }
}

// -----

// expected-error @+1 {{llm-keep-last-logits: @main has no result (expected the logits first)}}
func.func @main(%x: tensor<1x4xf32>) {
  return
}

// -----

// expected-error @+1 {{llm-keep-last-logits: result #0 of @main is 'tensor<2x3x4x5xf32>'; expected the logits, tensor<BxSxV> (B and V static) or tensor<BxV>}}
func.func @main(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  return %x : tensor<2x3x4x5xf32>
}

// -----

// expected-error @+1 {{llm-keep-last-logits: result #0 of @main is 'tensor<1x?x?xf32>'; expected the logits, tensor<BxSxV> (B and V static) or tensor<BxV>}}
func.func @main(%x: tensor<1x?x?xf32> {llm.dim_bounds = array<i64: 1, 8, 8>}) -> tensor<1x?x?xf32> {
  return %x : tensor<1x?x?xf32>
}
