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

// -----

// A materialized attention's group (QK^T, its scale, the softmax's row max
// and normalization, PV) is split at its tiled matmuls (M, N >= 32): QK^T
// with the fill of its destination and its point-local scale; the softmax
// rows; PV with its fill. The values crossing kernels are their results.
// (With a head dim below 32, PV is no tile and stays with the softmax.)
// CHECK-LABEL: func.func @attention_split
// CHECK:         %[[S:.*]] = scf.forall
// CHECK:           tensor.empty
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      linalg.batch_matmul
// CHECK-NEXT:      tensor.empty
// CHECK-NEXT:      linalg.generic
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK:         %[[P:.*]] = scf.forall
// CHECK:           linalg.fill
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[S]] :
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} ins(%[[S]],
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK:         %[[O:.*]] = scf.forall
// CHECK:           tensor.empty
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      linalg.batch_matmul ins(%[[P]],
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK-NOT:     scf.forall
// CHECK:         return %[[O]]
#qk_q = affine_map<(b, m, n, k) -> (b, m, k)>
#qk_k = affine_map<(b, m, n, k) -> (b, n, k)>
#qk_s = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention_split(%q: tensor<2x64x32xf32>, %k: tensor<2x64x32xf32>, %v: tensor<2x64x32xf32>) -> tensor<2x64x32xf32> {
  %0 = llm.fusion_group : tensor<2x64x32xf32> {
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %scale = arith.constant 0.25 : f32
    %e0 = tensor.empty() : tensor<2x64x64xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
    %s = linalg.batch_matmul indexing_maps = [#qk_q, #qk_k, #qk_s]
        ins(%q, %k : tensor<2x64x32xf32>, tensor<2x64x32xf32>) outs(%f0 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
    %e1 = tensor.empty() : tensor<2x64x64xf32>
    %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%s : tensor<2x64x64xf32>) outs(%e1 : tensor<2x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %scale : f32
      linalg.yield %m : f32
    } -> tensor<2x64x64xf32>
    %e2 = tensor.empty() : tensor<2x64xf32>
    %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x64xf32>) -> tensor<2x64xf32>
    %mx = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%ss : tensor<2x64x64xf32>) outs(%f2 : tensor<2x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %out : f32
      linalg.yield %m : f32
    } -> tensor<2x64xf32>
    %e3 = tensor.empty() : tensor<2x64x64xf32>
    %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ss, %mx : tensor<2x64x64xf32>, tensor<2x64xf32>) outs(%e3 : tensor<2x64x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %d = arith.subf %in, %in2 : f32
      %x = math.exp %d : f32
      linalg.yield %x : f32
    } -> tensor<2x64x64xf32>
    %e4 = tensor.empty() : tensor<2x64x32xf32>
    %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    %o = linalg.batch_matmul ins(%p, %v : tensor<2x64x64xf32>, tensor<2x64x32xf32>) outs(%f4 : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    llm.yield %o : tensor<2x64x32xf32>
  }
  return %0 : tensor<2x64x32xf32>
}

// -----

// Row reductions over a [32, 64, 64] space have the loop shape of a batched
// matmul but are none (a max, no A and B operands): no split, one kernel.
// CHECK-LABEL: func.func @reductions_no_split
// CHECK-COUNT-1: scf.forall (
// CHECK-NOT:     scf.forall (
#id3r = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3r = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reductions_no_split(%s: tensor<32x64x64xf32>) -> tensor<32x64xf32> {
  %0 = llm.fusion_group : tensor<32x64xf32> {
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<32x64xf32>
    %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %mx = linalg.generic {indexing_maps = [#id3r, #row3r], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s : tensor<32x64x64xf32>) outs(%f : tensor<32x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %out : f32
      linalg.yield %m : f32
    } -> tensor<32x64xf32>
    %e2 = tensor.empty() : tensor<32x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
    %sum = linalg.generic {indexing_maps = [#id3r, #row3r, #row3r], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %mx : tensor<32x64x64xf32>, tensor<32x64xf32>) outs(%f2 : tensor<32x64xf32>) {
    ^bb0(%in: f32, %m: f32, %out: f32):
      %d = arith.subf %in, %m : f32
      %x = math.exp %d : f32
      %a = arith.addf %out, %x : f32
      linalg.yield %a : f32
    } -> tensor<32x64xf32>
    llm.yield %sum : tensor<32x64xf32>
  }
  return %0 : tensor<32x64xf32>
}

// -----

// A tiled loop nest (the flash-attention lowering) is a kernel of its own,
// marked as it is (each iteration a block): the scalar code only it uses
// (a length read from a 0-d tensor) moves into it, and the generic whose
// destination linalg-fold-unit-extent-dims moved to its inputs (the
// running maximum `m' = max(m, r)`) writes the loop's carried value in
// place again.
// CHECK-LABEL: func.func @block_loop
// CHECK-NOT:     tensor.extract
// CHECK:         %[[R:.*]] = scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:           %[[L:.*]] = tensor.extract %arg1[]
// CHECK-NEXT:      arith.index_cast %[[L]]
// CHECK:           scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}})
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %[[M]] : tensor<8xf32>, tensor<8xf32>) outs(%[[M]] : tensor<8xf32>)
// CHECK:         } {llm.gpu_block_loop, llm.gpu_kernel, mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT:     scf.forall
// CHECK:         return %[[R]]
#id1 = affine_map<(d0) -> (d0)>
func.func @block_loop(%x: tensor<4x8xf32>, %len: tensor<i64>) -> tensor<4x8xf32> {
  %0 = llm.fusion_group : tensor<4x8xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ninf = arith.constant 0xFF800000 : f32
    %l = tensor.extract %len[] : tensor<i64>
    %n = arith.index_cast %l : i64 to index
    %e = tensor.empty() : tensor<4x8xf32>
    %r = scf.forall (%i) in (4) shared_outs(%out = %e) -> (tensor<4x8xf32>) {
      %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
      %e0 = tensor.empty() : tensor<8xf32>
      %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
      %m = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %m0) -> (tensor<8xf32>) {
        %e1 = tensor.empty() : tensor<8xf32>
        %next = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
            ins(%row, %acc : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
        ^bb0(%a: f32, %b: f32, %o: f32):
          %mx = arith.maximumf %a, %b : f32
          linalg.yield %mx : f32
        } -> tensor<8xf32>
        scf.yield %next : tensor<8xf32>
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %m into %out[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
      }
    }
    llm.yield %r : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}
