// RUN: llm-opt %s --llm-form-gpu-kernels --split-input-file --verify-diagnostics | FileCheck %s

// A fusion group becomes one kernel loop: one iteration mapped to
// #gpu.block<x>, results inserted whole into its shared_outs.
// CHECK-LABEL: func.func @group
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.*]] = scf.forall (%{{.*}}) in (1) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<4x8xf32>)
// CHECK:           linalg.generic
// CHECK:           linalg.generic
// CHECK:           scf.forall.in_parallel
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[O]][0, 0] [4, 8] [1, 1]
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK-NOT:     llm.fusion_group
// CHECK:         return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @group(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.fusion_group : tensor<4x8xf32> {
    %e = tensor.empty() : tensor<4x8xf32>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %in : f32
      linalg.yield %m : f32
    } -> tensor<4x8xf32>
    %e2 = tensor.empty() : tensor<4x8xf32>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    llm.yield %b : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A lone matmul is a kernel of its own, with the fill of its destination
// inside (a destination filled outside would be privatized by
// bufferization).
// CHECK-LABEL: func.func @lone_matmul
// CHECK:         scf.forall
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      linalg.matmul
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK-NOT:     scf.forall
func.func @lone_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// -----

// Data movement at the ends of a group (head split / merge) runs outside
// its kernel: the transpose of the input becomes a kernel before it, the
// reshape of the result follows it.
// CHECK-LABEL: func.func @peeled
// CHECK:         linalg.transpose
// CHECK:         %[[K:.*]] = scf.forall
// CHECK-NOT:       linalg.transpose
// CHECK-NOT:       tensor.expand_shape
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK:         %[[X:.*]] = tensor.expand_shape %[[K]]
// CHECK:         return %[[X]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @peeled(%x: tensor<8x4xf32>) -> tensor<1x4x8xf32> {
  %0 = llm.fusion_group : tensor<1x4x8xf32> {
    %e = tensor.empty() : tensor<4x8xf32>
    %t = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
    %e2 = tensor.empty() : tensor<4x8xf32>
    %b = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%t : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    %r = tensor.expand_shape %b [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf32> into tensor<1x4x8xf32>
    llm.yield %r : tensor<1x4x8xf32>
  }
  return %0 : tensor<1x4x8xf32>
}

// -----

func.func @dynamic(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  // expected-error@+1 {{llm-form-gpu-kernels: a GPU kernel result must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
