// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of llm.sequence_prefix (LLMCacheOps.td).

func.func @no_axes(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op needs at least one axis}}
  %0 = llm.sequence_prefix %t {axes = array<i64>} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @axis_range(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op axis 1 is out of range [0, 1)}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 1>} : (tensor<8xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @repeated(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8x8xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op axis 0 is repeated}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0, 0>} : (tensor<8x8xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @dynamic_input(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}) {
  // expected-error @+1 {{'llm.sequence_prefix' op input must have a static shape, got 'tensor<?xf32>'}}
  %0 = llm.sequence_prefix %x {axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op result type 'tensor<?x?xf32>' must be the input's shape 'tensor<8x4xf32>' with '?' exactly on the axes}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @rank(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op result has rank 1 but the input has rank 2}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @no_sequence(%t: tensor<8x4xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op needs a function with a dynamic sequence dimension (llm.dim_bounds)}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @bound_exceeds_table(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 16>}, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op the sequence bound (llm.dim_bounds) is 16 but the input has only 8 entries along axis 0}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @element_type(%x: tensor<?xf32> {llm.dim_bounds = array<i64: 8>}, %t: tensor<8xf32>) {
  // expected-error @+1 {{'llm.sequence_prefix' op failed to verify that all of {input, result} have same element type}}
  %0 = llm.sequence_prefix %t {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<?xi32>
  return
}
