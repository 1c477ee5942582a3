// RUN: llm-opt %s --llm-shard="ranks=3" -split-input-file -verify-diagnostics

// Two heads cannot be split over three ranks: the error names the heads.
func.func @heads(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %wq = llm.constant dense<0.1> : tensor<8x8xf32>
  %q0 = llm.matmul %x, %wq : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  // expected-error @below {{llm-shard: cannot split the 2 heads of this reshape (dimension 2 of tensor<1x4x2x4xf32>) over 3 ranks: 2 is not a multiple of 3}}
  %q1 = llm.reshape %q0 : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
  %q = llm.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
  %a = llm.attention %q, %q, %q {causal} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x2x4xf32>
  %a2 = llm.reshape %a1 : (tensor<1x4x2x4xf32>) -> tensor<1x4x8xf32>
  %wo = llm.constant dense<0.4> : tensor<8x8xf32>
  %o = llm.matmul %a2, %wo : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  return %o : tensor<1x4x8xf32>
}

// -----

// An MLP width of 8 over three ranks.
func.func @mlp(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w1 = llm.constant dense<0.5> : tensor<8x8xf32>
  // expected-error @below {{llm-shard: cannot split the 8 output columns of this column-parallel matmul (dimension 2 of tensor<1x4x8xf32>) over 3 ranks: 8 is not a multiple of 3}}
  %h = llm.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %g = llm.gelu %h approximate <tanh> : tensor<1x4x8xf32>
  %w2 = llm.constant dense<0.25> : tensor<8x8xf32>
  %y = llm.matmul %g, %w2 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// A module sharded before is not planned again.
// expected-error @below {{llm-shard: the module is already sharded ('shard.grid'); run llm-shard on the unsharded model}}
shard.grid @tp(shape = 2)
func.func @sharded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %y = shard.shard %x to %s : tensor<4xf32>
  return %y : tensor<4xf32>
}
