// RUN: llm-opt %s --llm-lower-shard="rank=1" -split-input-file -verify-diagnostics | FileCheck %s

// Rank 1's slice of a replicated weight is a constant of its own (rank 1's
// columns 3..5); of a runtime value, a static llm.slice. The process index
// is the constant 1; the all-reduce stays.
// CHECK-LABEL: func.func @rank1
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[A:.*]]: tensor<2x6xf32>)
// CHECK: %[[S:.*]] = llm.constant dense<{{\[\[}}3.000000e+00, 4.000000e+00, 5.000000e+00], {{.*}}> : tensor<4x3xf32>
// CHECK: %[[M:.*]] = llm.matmul %[[X]], %[[S]]
// CHECK: shard.all_reduce %[[M]] on @tp
// CHECK: llm.slice %[[A]] {limits = array<i64: 2, 6>, starts = array<i64: 0, 3>, strides = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: return
shard.grid @tp(shape = 2)
func.func @rank1(%x: tensor<2x4xf32>, %a: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, index) {
  %w = llm.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]> : tensor<4x6xf32>
  %s = shard.all_slice %w on @tp grid_axes = [0] slice_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
  %m = llm.matmul %x, %s : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = shard.all_reduce %m on @tp grid_axes = [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  %as = shard.all_slice %a on @tp grid_axes = [0] slice_axis = 1 : tensor<2x6xf32> -> tensor<2x3xf32>
  %i = shard.process_linear_index on @tp : index
  return %r, %as, %i : tensor<2x3xf32>, tensor<2x3xf32>, index
}

// -----

// expected-error @below {{llm-lower-shard: rank 1 is outside the grid's [0, 1)}}
shard.grid @one(shape = 1)

// -----

shard.grid @tp(shape = 2)
func.func @exchange(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{llm-lower-shard: 'shard.all_to_all' is not supported (llm-shard plans only slices of replicated values, all-reduces and gathers of results)}}
  %g = shard.all_to_all %x on @tp grid_axes = [0] split_axis = 0 concat_axis = 0 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

// A dense_resource weight's slice is a resource of its own: the rank's
// object holds only its part.
// CHECK-LABEL: func.func @resource
// CHECK: llm.constant dense_resource<w_rank1> : tensor<2x2xf32>
// Columns 2..3 of [[1, 2, 3, 4], [5, 6, 7, 8]]: 3, 4, 7, 8 (after the
// blob's 8-byte alignment word).
// CHECK: w_rank1: "0x0800000000004040000080400000E04000000041"
shard.grid @tp(shape = 2)
func.func @resource() -> tensor<2x2xf32> {
  %w = llm.constant dense_resource<w> : tensor<2x4xf32>
  %s = shard.all_slice %w on @tp grid_axes = [0] slice_axis = 1 : tensor<2x4xf32> -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}
