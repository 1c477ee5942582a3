// RUN: llm-opt %s --llm-lower-collectives -split-input-file -verify-diagnostics | FileCheck %s
// RUN: llm-opt %s --llm-lower-collectives --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --ownership-based-buffer-deallocation -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --check-prefix=BUF

// A sum all-reduce over the grid: from the tensor's buffer into a new
// buffer, both flattened, on MPI_COMM_WORLD; the grid is gone and the
// module names the MPI ABI.
// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK-NOT: shard.grid
// CHECK-LABEL: func.func @sum
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-DAG: %[[INF:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK-DAG: %[[OUTF:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK-DAG: %[[W:.*]] = mpi.comm_world : !mpi.comm
// CHECK: mpi.allreduce(%[[INF]], %[[OUTF]], MPI_SUM, %[[W]]) : memref<6xf32>, memref<6xf32>
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// Buffer deallocation accepts the call (its memory effects are llmc's
// external model) and frees the received buffer after its last use.
// BUF-LABEL: func.func @sum
// BUF: mpi.allreduce
// BUF: bufferization.dealloc
shard.grid @tp(shape = 2)
func.func @sum(%x: tensor<2x3xf32>) -> f32 {
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %y = tensor.extract %r[%c0, %c0] : tensor<2x3xf32>
  return %y : f32
}

// -----

// An f16 all-reduce sums in f32: extended before, rounded once after.
// CHECK-LABEL: func.func @half
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf
// CHECK: bufferization.to_buffer %[[W]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<4xf32>, memref<4xf32>
// CHECK: %[[S:.*]] = bufferization.to_tensor
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
// CHECK: arith.truncf
// CHECK: return %[[R]]
shard.grid @tp(shape = 2)
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<4xf16> -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

shard.grid @tp(shape = 2)
func.func @fp8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @below {{llm-lower-collectives: an all-reduce of 'f8E4M3FN' is not supported (MPI has no such datatype here; f16, bf16, f32, f64 and integers are)}}
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}

// -----

// A gather of a split result (logits split by vocabulary): this rank's part
// placed at MPI_Comm_rank * 8 into zeros, then summed over the ranks.
// CHECK-LABEL: func.func @gather
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16xf32>)
// CHECK: %[[RANK:.*]] = mpi.comm_rank(%{{.*}}) : i32
// CHECK: %[[I:.*]] = arith.index_cast %[[RANK]] : i32 to index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[P:.*]] = tensor.insert_slice %{{.*}} into %[[Z]][0, %[[OFF]]] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<1x16xf32>
// CHECK: bufferization.to_buffer %[[P]] read_only
// CHECK: mpi.allreduce
shard.grid @tp(shape = 2)
func.func @gather(%x: tensor<1x8xf32>) -> tensor<1x16xf32> {
  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 1 : tensor<1x8xf32> -> tensor<1x16xf32>
  return %g : tensor<1x16xf32>
}

// -----

// A 0-d tensor is summed as one element.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<f32> to memref<f32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<f32>
// CHECK-DAG: %[[INF:.*]] = memref.expand_shape %[[IN]] [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK-DAG: %[[OUTF:.*]] = memref.expand_shape %[[OUT]] [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK: mpi.allreduce(%[[INF]], %[[OUTF]], MPI_SUM, %{{.*}}) : memref<1xf32>, memref<1xf32>
shard.grid @tp(shape = 2)
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<f32> -> tensor<f32>
  return %r : tensor<f32>
}
