// RUN: llm-opt %s --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 register-tile=4,16,1 cache-tile=64,256,256 num-threads=2 min-parallel-work=0" --canonicalize --cse | FileCheck %s
// RUN: llm-opt %s --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 register-tile=4,16,1 cache-tile=64,256,256 num-threads=1" --canonicalize --cse | FileCheck %s --check-prefix=SERIAL --strict-whitespace

// A dynamic sequence (llm.dim_bounds) is tiled like a static one sized at the
// bound: the matmul group is one loop nest over the run-time rows, the full
// register tiles are vectorized and the rows left over run as static tiles
// of 2 and 1 rows (each at most once), vectorized too; a norm
// group is one row-tiled loop. The matmul is computed once (the reshape's
// size is not a query on the untiled matmul's result). The parallel
// chunk of rows follows the run-time length: min(16, roundUp(ceil(S / 2),
// 4)) rows (the chunk for the bound, 16 = 32 / 2, left one thread idle at
// lengths up to 16).

// CHECK: #[[CHUNK:.+]] = affine_map<()[s0] -> (16, ((s0 ceildiv 2) ceildiv 4) * 4)>
// CHECK-LABEL: func.func @matmul_bias_gelu
// CHECK: %[[S:.*]] = tensor.dim %arg0
// CHECK: %[[STEP:.*]] = affine.min #[[CHUNK]]()[%[[S]]]
// CHECK: scf.forall (%{{.*}}) = (0) to (%[[S]]) step (%[[STEP]])
// CHECK:   linalg.fill
// CHECK:   vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:   vector.contract {{.*}} : vector<2x1xf32>, vector<1x16xf32> into vector<2x16xf32>
// CHECK:   vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK:   linalg.generic
// CHECK:     math.tanh
// CHECK:   scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @matmul_bias_gelu(%x: tensor<1x?x64xf32> {llm.dim_bounds = array<i64: 1, 32, 64>}, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<1x?x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x?x64xf32>, tensor<64x64xf32>) -> tensor<1x?x64xf32>
  %1 = llm.add %0, %b : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %2 = llm.gelu %1 approximate <tanh> : tensor<1x?x64xf32>
  return %2 : tensor<1x?x64xf32>
}

// The residual add and the layer norm: one loop over row tiles of the
// run-time length (serial: at the bound, 64 x 256 points are below the
// target's parallel threshold).
// CHECK-LABEL: func.func @add_layer_norm
// CHECK: %[[S:.*]] = tensor.dim %arg0
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S]] step %c32
// CHECK-NOT: scf.for %{{.*}} = %{{.*}} to %[[S]]
// CHECK: return
func.func @add_layer_norm(%x: tensor<1x?x256xf32> {llm.dim_bounds = array<i64: 1, 64, 256>}, %r: tensor<1x?x256xf32> {llm.dim_bounds = array<i64: 1, 64, 256>}, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<1x?x256xf32> {
  %0 = llm.add %x, %r : (tensor<1x?x256xf32>, tensor<1x?x256xf32>) -> tensor<1x?x256xf32>
  %1 = llm.layer_norm %0 scale %g bias %b : (tensor<1x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<1x?x256xf32>
  return %1 : tensor<1x?x256xf32>
}

// The same for a batch of 2 sequences, [2, S, 256]: the group is tiled
// along the sequence (the batch by 1), one loop nest over (2, S).
// CHECK-LABEL: func.func @add_layer_norm_batch2
// CHECK: %[[S:.*]] = tensor.dim %arg0
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (2, %[[S]]) step (1, 32)
// CHECK-COUNT-4: linalg.generic {{.*}} : tensor<1x?x256xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @add_layer_norm_batch2(%x: tensor<2x?x256xf32> {llm.dim_bounds = array<i64: 2, 64, 256>}, %r: tensor<2x?x256xf32> {llm.dim_bounds = array<i64: 2, 64, 256>}, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<2x?x256xf32> {
  %0 = llm.add %x, %r : (tensor<2x?x256xf32>, tensor<2x?x256xf32>) -> tensor<2x?x256xf32>
  %1 = llm.layer_norm %0 scale %g bias %b : (tensor<2x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x?x256xf32>
  return %1 : tensor<2x?x256xf32>
}

// The projection of a Hugging Face GPT-2 import: the rows come from an
// embedding and a layer norm (its own group), the run-time length from the
// ids, and the weight is a constant stored [N, K] with a bias epilogue. The
// epilogue's loop bound is that length, not a tensor.dim of the untiled
// matmul, which kept that matmul alive as a second loop nest (every such
// matmul was computed twice).
// CHECK-LABEL: func.func @embedding_norm_matmul_bias
// CHECK: %[[S:.*]] = tensor.dim %arg0
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S]] step
// CHECK-NOT: linalg.matmul
// CHECK: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (%{{.*}})
// CHECK:   vector.contract
// CHECK:   arith.addf
// CHECK:   scf.forall.in_parallel
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.matmul
// CHECK: return
// Serial (one thread): the norm's row loop and one loop nest for the matmul
// and its bias, nothing else at the top level.
// SERIAL-LABEL: func.func @embedding_norm_matmul_bias
// SERIAL-COUNT-2: {{^}}    %{{[0-9a-z_]+}} = scf.for
// SERIAL-NOT: {{^}}    %{{[0-9a-z_]+}} = scf.for
// SERIAL: return
func.func @embedding_norm_matmul_bias(%ids: tensor<1x?xi64> {llm.dim_bounds = array<i64: 1, 32>}, %g: tensor<48xf32>, %bn: tensor<48xf32>) -> tensor<1x?x144xf32> {
  %e = llm.constant dense<0.125> : tensor<96x48xf32>
  %w = llm.constant dense<0.5> : tensor<144x48xf32>
  %b = llm.constant dense<0.25> : tensor<144xf32>
  %x = llm.embedding %e, %ids : (tensor<96x48xf32>, tensor<1x?xi64>) -> tensor<1x?x48xf32>
  %n = llm.layer_norm %x scale %g bias %bn : (tensor<1x?x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<1x?x48xf32>
  %0 = llm.matmul %n, %w {transpose_b} : (tensor<1x?x48xf32>, tensor<144x48xf32>) -> tensor<1x?x144xf32>
  %1 = llm.add %0, %b : (tensor<1x?x144xf32>, tensor<144xf32>) -> tensor<1x?x144xf32>
  return %1 : tensor<1x?x144xf32>
}
