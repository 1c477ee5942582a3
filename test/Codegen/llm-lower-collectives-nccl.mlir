// llm-lower-collectives{library=nccl}: the all-reduces of a GPU rank's
// program as calls of llmc's CUDA runtime (NCCL on device buffers).
// RUN: llm-opt %s --llm-lower-collectives=library=nccl -split-input-file -verify-diagnostics | FileCheck %s
// After one-shot bufferization the call reads and writes plain buffers.
// RUN: llm-opt %s --llm-lower-collectives=library=nccl --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=BUF
// RUN: not llm-opt %s --llm-lower-collectives=library=gloo -split-input-file 2>&1 | FileCheck %s --check-prefix=LIB
// LIB: error: llm-lower-collectives: unknown collective library 'gloo' (expected mpi or nccl)

// A sum all-reduce: the tensor's buffer and a new one, cast to unranked
// memrefs, passed to llmcCudaAllReduceSum_f32 with the grid's size; no MPI
// and no MPI ABI on the module.
// CHECK-NOT: dlti.map
// CHECK: func.func private @llmcCudaAllReduceSum_f32(memref<*xf32>, memref<*xf32>, i32)
// CHECK-NOT: shard.grid
// CHECK-LABEL: func.func @sum
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-DAG: %[[INU:.*]] = memref.cast %[[IN]] : memref<2x3xf32> to memref<*xf32>
// CHECK-DAG: %[[OUTU:.*]] = memref.cast %[[OUT]] : memref<2x3xf32> to memref<*xf32>
// CHECK-DAG: %[[N:.*]] = arith.constant 4 : i32
// CHECK: call @llmcCudaAllReduceSum_f32(%[[INU]], %[[OUTU]], %[[N]])
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: mpi.
// BUF-LABEL: func.func @sum
// BUF: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// BUF: %[[OUTU:.*]] = memref.cast %[[OUT]] : memref<2x3xf32> to memref<*xf32>
// BUF: call @llmcCudaAllReduceSum_f32(%{{.*}}, %[[OUTU]], %{{.*}}) : (memref<*xf32>, memref<*xf32>, i32) -> ()
// BUF: memref.load %[[OUT]][
shard.grid @tp(shape = 4)
func.func @sum(%x: tensor<2x3xf32>) -> f32 {
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %y = tensor.extract %r[%c0, %c0] : tensor<2x3xf32>
  return %y : f32
}

// -----

// NCCL sums bf16 itself: no conversion to f32 (unlike MPI); one declaration
// for the two calls.
// CHECK-COUNT-1: func.func private @llmcCudaAllReduceSum_bf16(memref<*xbf16>, memref<*xbf16>, i32)
// CHECK-LABEL: func.func @half
// CHECK-NOT: linalg.generic
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<4xbf16> to memref<4xbf16>
// CHECK: call @llmcCudaAllReduceSum_bf16
// CHECK: call @llmcCudaAllReduceSum_bf16
shard.grid @tp(shape = 2)
func.func @half(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  %s = shard.all_reduce %r on @tp grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}

// -----

// Integers of 8, 32 and 64 bits have NCCL types.
// CHECK-DAG: func.func private @llmcCudaAllReduceSum_i8(
// CHECK-DAG: func.func private @llmcCudaAllReduceSum_i32(
// CHECK-DAG: func.func private @llmcCudaAllReduceSum_i64(
shard.grid @tp(shape = 2)
func.func @ints(%a: tensor<4xi8>, %b: tensor<4xi32>, %c: tensor<4xi64>) -> (tensor<4xi8>, tensor<4xi32>, tensor<4xi64>) {
  %ra = shard.all_reduce %a on @tp grid_axes = [0] : tensor<4xi8> -> tensor<4xi8>
  %rb = shard.all_reduce %b on @tp grid_axes = [0] : tensor<4xi32> -> tensor<4xi32>
  %rc = shard.all_reduce %c on @tp grid_axes = [0] : tensor<4xi64> -> tensor<4xi64>
  return %ra, %rb, %rc : tensor<4xi8>, tensor<4xi32>, tensor<4xi64>
}

// -----

shard.grid @tp(shape = 2)
func.func @i16(%x: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error @below {{llm-lower-collectives: an NCCL all-reduce of 'i16' is not supported (f16, bf16, f32, f64, i8, i32 and i64 are)}}
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<4xi16> -> tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

shard.grid @tp(shape = 2)
func.func @fp8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @below {{llm-lower-collectives: an NCCL all-reduce of 'f8E4M3FN' is not supported}}
  %r = shard.all_reduce %x on @tp grid_axes = [0] : tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}

// -----

// A gather of a split result: this rank's part placed at
// llmcCudaGetTensorParallelRank() * 8 into zeros, then summed.
// CHECK: func.func private @llmcCudaGetTensorParallelRank() -> i32
// CHECK-LABEL: func.func @gather
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16xf32>)
// CHECK: %[[RANK:.*]] = call @llmcCudaGetTensorParallelRank() : () -> i32
// CHECK: %[[I:.*]] = arith.index_cast %[[RANK]] : i32 to index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[P:.*]] = tensor.insert_slice %{{.*}} into %[[Z]][0, %[[OFF]]] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<1x16xf32>
// CHECK: bufferization.to_buffer %[[P]] read_only
// CHECK: call @llmcCudaAllReduceSum_f32
shard.grid @tp(shape = 2)
func.func @gather(%x: tensor<1x8xf32>) -> tensor<1x16xf32> {
  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 1 : tensor<1x8xf32> -> tensor<1x16xf32>
  return %g : tensor<1x16xf32>
}

// -----

// all_reduce over no grid axes -> its input (no call).
// CHECK-LABEL: func.func @no_axes
// CHECK-NOT: call
// CHECK: return %arg0
shard.grid @tp(shape = 2)
func.func @no_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @tp grid_axes = [] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The calls pass the grid's size as an i32: it must fit, and be known.
// expected-error @below {{llm-lower-collectives: the grid's size must be a static number of ranks in [1, 2^31), got 4294967298}}
shard.grid @big(shape = 4294967298)
func.func @f_big(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @big grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @below {{llm-lower-collectives: the grid's size must be a static number of ranks in [1, 2^31), got ?}}
shard.grid @dyn(shape = ?)
func.func @f_dyn(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @dyn grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
