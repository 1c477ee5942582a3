// RUN: llm-opt %s --llm-lower-shard="rank=1" -split-input-file -verify-diagnostics | FileCheck %s

// Rank 1's slice of a replicated weight is a static llm.slice; the process
// index is the constant 1; the all-reduce stays.
// CHECK-LABEL: func.func @rank1
// CHECK: %[[W:.*]] = llm.constant dense<{{.*}}> : tensor<4x6xf32>
// CHECK: %[[S:.*]] = llm.slice %[[W]] {limits = array<i64: 4, 6>, starts = array<i64: 0, 3>, strides = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
// CHECK: %[[M:.*]] = llm.matmul %{{.*}}, %[[S]]
// CHECK: shard.all_reduce %[[M]] on @tp
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: return %{{.*}}, %[[C1]]
shard.grid @tp(shape = 2)
func.func @rank1(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, index) {
  %w = llm.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]> : tensor<4x6xf32>
  %s = shard.all_slice %w on @tp grid_axes = [0] slice_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
  %m = llm.matmul %x, %s : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = shard.all_reduce %m on @tp grid_axes = [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  %i = shard.process_linear_index on @tp : index
  return %r, %i : tensor<2x3xf32>, index
}

// -----

// expected-error @below {{llm-lower-shard: rank 1 is outside the grid's [0, 1)}}
shard.grid @one(shape = 1)

// -----

shard.grid @tp(shape = 2)
func.func @gather(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{llm-lower-shard: 'shard.all_gather' is not supported (llm-shard plans only slices of replicated values and all-reduces)}}
  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
