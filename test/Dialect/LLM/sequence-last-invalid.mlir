// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of llm.sequence_last (LLMCacheOps.td).

func.func @axis_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.sequence_last' axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'llm.sequence_last' op failed to infer returned types}}
  %0 = llm.sequence_last %x {axis = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @negative_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.sequence_last' axis -1 is out of range [0, 2)}}
  // expected-error @+1 {{'llm.sequence_last' op failed to infer returned types}}
  %0 = llm.sequence_last %x {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @empty(%x: tensor<0x8xf32>) {
  // expected-error @+2 {{'llm.sequence_last' axis 0 has size 0: there is no last entry}}
  // expected-error @+1 {{'llm.sequence_last' op failed to infer returned types}}
  %0 = llm.sequence_last %x {axis = 0 : i64} : (tensor<0x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @result_type(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.sequence_last' op inferred type(s) 'tensor<1x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'llm.sequence_last' op failed to infer returned types}}
  %0 = llm.sequence_last %x {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
