// RUN: llm-opt %s --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 register-tile=4,16,1 cache-tile=64,256,256 num-threads=2 min-parallel-work=0" --canonicalize --cse | FileCheck %s
// RUN: llm-opt %s --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 register-tile=4,16,1 cache-tile=64,256,256 num-threads=2 min-parallel-work=0" --canonicalize --cse | FileCheck %s --check-prefix=NOFUSE

// Each llm.fusion_group (from llm-fuse) becomes one loop nest: the root is
// tiled and the rest of the group fused into its tile loop. Without llm-fuse
// the epilogue and the norm's reductions are loop nests of their own.

// fusion_group { gelu(matmul(x, w) + b) } -> scf.forall over M chunks whose
// body computes the matmul tile (vectorized) and then the epilogue on it.
// CHECK-LABEL: func.func @matmul_bias_gelu
// CHECK-NOT: linalg.
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (16)
// CHECK:   linalg.fill
// CHECK:   vector.contract
// CHECK:   linalg.generic
// CHECK:     math.tanh
// CHECK:   scf.forall.in_parallel
// CHECK-NOT: linalg.
// CHECK: return
// NOFUSE-LABEL: func.func @matmul_bias_gelu
// NOFUSE: scf.forall
// NOFUSE: vector.contract
// NOFUSE: scf.forall.in_parallel
// NOFUSE: linalg.generic
// NOFUSE: math.tanh
// NOFUSE: return
func.func @matmul_bias_gelu(%x: tensor<1x32x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<1x32x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x32x64xf32>, tensor<64x64xf32>) -> tensor<1x32x64xf32>
  %1 = llm.add %0, %b : (tensor<1x32x64xf32>, tensor<64xf32>) -> tensor<1x32x64xf32>
  %2 = llm.gelu %1 approximate <tanh> : tensor<1x32x64xf32>
  return %2 : tensor<1x32x64xf32>
}

// N (512) above the cache tile (256): the epilogue (residual add) runs on
// each 16x256 cache tile inside the N loop, right after the tile's matmul.
// CHECK-LABEL: func.func @cache_tiles
// CHECK-NOT: linalg.
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (16)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C256:.*]] iter_args
// CHECK:     linalg.fill {{.*}} -> tensor<16x256xf32>
// CHECK:     vector.contract
// CHECK:     linalg.generic
// CHECK:     } -> tensor<16x256xf32>
// CHECK:     scf.yield
// CHECK:   scf.forall.in_parallel
// CHECK-NOT: linalg.
// CHECK: return
func.func @cache_tiles(%x: tensor<32x64xf32>, %w: tensor<64x512xf32>, %r: tensor<32x512xf32>) -> tensor<32x512xf32> {
  %0 = llm.matmul %x, %w : (tensor<32x64xf32>, tensor<64x512xf32>) -> tensor<32x512xf32>
  %1 = llm.add %0, %r : (tensor<32x512xf32>, tensor<32x512xf32>) -> tensor<32x512xf32>
  return %1 : tensor<32x512xf32>
}

// fusion_group { layer_norm } -> one loop over row blocks computing the
// sums, the variances and the normalization of its rows. The group (2048
// points, no matmul) is below the target's minParallelElements (32768): a
// serial scf.for rather than an scf.forall (the fork/join would cost more).
// CHECK-LABEL: func.func @layer_norm
// CHECK-NOT: linalg.
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   linalg.fill
// CHECK:   linalg.generic {{.*}}"reduction"
// CHECK:   linalg.generic {{.*}}"reduction"
// CHECK:   linalg.generic
// CHECK:     math.rsqrt
// CHECK:   scf.yield
// CHECK-NOT: linalg.
// CHECK: return
// NOFUSE-LABEL: func.func @layer_norm
// NOFUSE-NOT: scf.forall
// NOFUSE: linalg.generic {{.*}}"reduction"
// NOFUSE: return
func.func @layer_norm(%x: tensor<1x32x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<1x32x64xf32> {
  %0 = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x32x64xf32>
  return %0 : tensor<1x32x64xf32>
}

// A decode step's matmul: x[1, 1, K] x w[K, N] + b. The lowering collapses x
// to [1, K] and expands the [1, N] result back; canonicalization writes that
// expand_shape as [[0], [1, 2]] (N grouped with a unit dimension), whose
// folding into the epilogue would need the bias to index the unit dimension
// too. The group lowering regroups it as [[0, 1], [2]], so the epilogue
// (bias + gelu) still joins the matmul's loop: one scf.forall, split along
// N over the two threads.
// CHECK-LABEL: func.func @decode_bias_gelu
// CHECK-NOT: linalg.
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK:   linalg.fill
// CHECK:   vector.contract
// CHECK-NOT: scf.forall
// CHECK:   linalg.generic
// CHECK:     math.tanh
// CHECK:   scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK-NOT: linalg.
// CHECK: return
func.func @decode_bias_gelu(%x: tensor<1x1x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<1x1x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x1x64xf32>, tensor<64x64xf32>) -> tensor<1x1x64xf32>
  %1 = llm.add %0, %b : (tensor<1x1x64xf32>, tensor<64xf32>) -> tensor<1x1x64xf32>
  %2 = llm.gelu %1 approximate <tanh> : tensor<1x1x64xf32>
  return %2 : tensor<1x1x64xf32>
}
