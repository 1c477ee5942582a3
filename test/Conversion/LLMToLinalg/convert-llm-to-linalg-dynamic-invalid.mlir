// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file -verify-diagnostics

// Ops that cannot take the dynamic sequence dimension are reported, with the
// reason, and fail the pass (no crash, no partial rewrite).

// (A float reduction over the sequence lowers: convert-llm-to-linalg-dynamic.)
func.func @int_reduce_over_seq(%x: tensor<1x?x8xi32> {llm.dim_bounds = array<i64: 1, 16, 8>}) -> tensor<1x8xi32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: reduction of i32 elements over the dynamic (sequence) dimension (only f32, f16 and bf16 reductions take one)}}
  %0 = llm.reduce_sum %x {axes = array<i64: 1>} : (tensor<1x?x8xi32>) -> tensor<1x8xi32>
  return %0 : tensor<1x8xi32>
}

// -----

func.func @reshape_moves_seq(%x: tensor<2x?xf32> {llm.dim_bounds = array<i64: 2, 16>}) -> tensor<?x2xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: llm.reshape 2x? -> ?x2 must keep the sequence dimension as it is and only regroup the static dimensions on each side of it}}
  %0 = llm.reshape %x : (tensor<2x?xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @concat_seq(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}) -> tensor<1x?x8xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: llm.concat along the dynamic (sequence) dimension}}
  %0 = llm.concat %x, %x {axis = 1 : i64} : (tensor<1x?x8xf32>, tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

// -----

func.func @matmul_seq_reduction(%p: tensor<4x?xf32> {llm.dim_bounds = array<i64: 4, 16>}, %v: tensor<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}) -> tensor<4x8xf32> {
  // expected-error @+1 {{llm.matmul takes a dynamic dimension only in the rows of an untransposed lhs against a static 2-D rhs}}
  %0 = llm.matmul %p, %v : (tensor<4x?xf32>, tensor<?x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_seq(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}) -> tensor<1x?x8xf32> {
  // expected-error @+1 {{llm.slice of the dynamic (sequence) dimension must keep all of it}}
  %0 = llm.slice %x {starts = array<i64: 0, 1, 0>, limits = array<i64: 1, 16, 8>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

// -----

func.func @data_op(%x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 1, 16>}) -> tensor<1x?xf32> {
  // expected-error @+1 {{'llm.reverse' does not support a dynamic dimension yet}}
  %0 = llm.reverse %x {dimensions = array<i64: 0>} : tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

func.func @gather_dynamic_table(%t: tensor<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %i: tensor<2xi64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: llm.gather takes a dynamic dimension only in its indices (the table must be static)}}
  %0 = llm.gather %t, %i : (tensor<?x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Two `?` in the lhs rows: the rows are collapsed into one dimension and
// only one `?` can be expanded back.
func.func @matmul_two_seq_rows(%x: tensor<?x?x8xf32> {llm.dim_bounds = array<i64: 16, 16, 8>}) -> tensor<?x?x4xf32> {
  %w = llm.constant dense<1.0> : tensor<8x4xf32>
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: llm.matmul takes at most one dynamic dimension in the lhs rows (they are collapsed into one), got ?x?x8}}
  %0 = llm.matmul %x, %w : (tensor<?x?x8xf32>, tensor<8x4xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

func.func @dequant_matmul_two_seq_rows(%x: tensor<?x?x128xf32> {llm.dim_bounds = array<i64: 16, 16, 128>}, %q: tensor<8x128x!quant.uniform<i4:f32, 0.5:1>>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: llm.dequant_matmul takes at most one dynamic dimension in the lhs rows (they are collapsed into one), got ?x?x128}}
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<?x?x128xf32>, tensor<8x128x!quant.uniform<i4:f32, 0.5:1>>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
