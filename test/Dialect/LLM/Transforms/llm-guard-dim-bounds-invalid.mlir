// RUN: llm-opt %s -llm-guard-dim-bounds -split-input-file -verify-diagnostics

// expected-error @+1 {{argument #1 of @no_bound: dimension 0 of 'tensor<?xi64>' is dynamic but has no declared upper bound; add the argument attribute {llm.dim_bounds = array<i64: ...>}}}
func.func @no_bound(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 1, 8>}, %p: tensor<?xi64>) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}

// -----

// A function that declares no bound is left alone (a dynamic llm op in it
// is reported by convert-llm-to-linalg).
func.func @no_bounds_at_all(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{argument #0 of @wrong_rank: 'llm.dim_bounds' has 1 entries for a rank-2 argument}}
func.func @wrong_rank(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 8>}) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}

// -----

// expected-error @+1 {{argument #0 of @static_mismatch: 'llm.dim_bounds' entry 0 is 2 but the dimension is static with size 1}}
func.func @static_mismatch(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 2, 8>}) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}

// -----

// expected-error @+1 {{argument #0 of @zero_bound: the bound of dynamic dimension 1 must be at least 1, got 0}}
func.func @zero_bound(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 1, 0>}) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}

// -----

// expected-error @+1 {{argument #1 of @two_bounds: dynamic dimension 0 declares bound 16 but dimension 1 of argument #0 declares 8 (llmc supports one symbolic dimension}}
func.func @two_bounds(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 1, 8>}, %p: tensor<?xi64> {llm.dim_bounds = array<i64: 16>}) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}

// -----

// expected-error @+1 {{argument #0 of @not_array: 'llm.dim_bounds' must be an array<i64: ...> with one bound per dimension}}
func.func @not_array(%x: tensor<1x?xf32> {llm.dim_bounds = 8 : i64}) -> tensor<1x?xf32> {
  return %x : tensor<1x?xf32>
}
