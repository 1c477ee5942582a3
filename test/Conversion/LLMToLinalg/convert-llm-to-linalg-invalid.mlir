// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file -verify-diagnostics

// Dynamic shapes are reported on each offending op and fail the pass (no
// crash, no partial rewrite).

func.func @dynamic_add(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{llm-to-linalg requires static shapes}}
  %0 = llm.add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @dynamic_matmul(%a: tensor<?x8xf32>, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  // expected-error @+1 {{llm-to-linalg requires static shapes}}
  %0 = llm.matmul %a, %w : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Every dynamic op is reported, static ones are not.
func.func @dynamic_chain(%x: tensor<2x?xf32>, %y: tensor<2x8xf32>) -> (tensor<2x?xf32>, tensor<2x8xf32>) {
  // expected-error @+1 {{llm-to-linalg requires static shapes}}
  %0 = llm.softmax %x : tensor<2x?xf32>
  %1 = llm.exp %y : tensor<2x8xf32>
  // expected-error @+1 {{llm-to-linalg requires static shapes}}
  %2 = llm.neg %0 : tensor<2x?xf32>
  return %2, %1 : tensor<2x?xf32>, tensor<2x8xf32>
}

// -----

func.func @dynamic_attention(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  // expected-error @+1 {{llm-to-linalg requires static shapes}}
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}
