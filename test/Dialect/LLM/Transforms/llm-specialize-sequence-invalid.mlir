// RUN: llm-opt %s -llm-specialize-sequence -split-input-file -verify-diagnostics

// Errors of llm-specialize-sequence.

// expected-error @+1 {{llm-specialize-sequence: @main has no dynamic sequence dimension}}
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  return %x : tensor<1x4xf32>
}

// -----

// expected-error @+1 {{llm-specialize-sequence: no function @main with a body}}
module {
  func.func @other(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
    return %x : tensor<1x4xf32>
  }
}
