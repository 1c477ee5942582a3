// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2}))" | FileCheck %s
// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2 parallel=false}))" | FileCheck %s --check-prefix=SERIAL
// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2 vectorize=false}))" | FileCheck %s --check-prefix=NOVEC

// 512^3 on avx512 with 2 threads: scf.forall over 64-row chunks with the
// fill fused in, N cache tiles of 256, 8x32x1 register tiles vectorized to
// vector.contract with the accumulator hoisted out of the K loop.
// CHECK-LABEL: func.func @matmul_512
// CHECK:       scf.forall (%[[I:.+]]) = (0) to (512) step (64)
// CHECK:         linalg.fill {{.*}} -> tensor<64x512xf32>
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C256:.+]] iter_args
// CHECK:           scf.for %{{.+}} step %[[C8:.+]] iter_args
// CHECK:             scf.for %{{.+}} step %[[C32:.+]] iter_args
// CHECK:               %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:               scf.for {{.*}} iter_args({{.*}}%[[VACC:.+]] = %[[ACC]]) -> ({{.*}}vector<8x32xf32>)
// CHECK:                 vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK:                 vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK:                 vector.contract {{.*}} %[[VACC]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:             vector.transfer_write
// CHECK:                 scf.yield
// CHECK:               vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK:       scf.forall.in_parallel
// CHECK-NOT:   linalg.matmul

// SERIAL-LABEL: func.func @matmul_512
// SERIAL-NOT:   scf.forall
// SERIAL:       scf.for
// SERIAL:       vector.contract
// SERIAL-NOT:   scf.forall

// NOVEC-LABEL: func.func @matmul_512
// NOVEC:       scf.forall
// NOVEC-NOT:   vector.
// NOVEC:       linalg.matmul ins({{.*}} : tensor<8x1xf32>, tensor<1x32xf32>) outs({{.*}} : tensor<8x32xf32>)
// NOVEC-NOT:   vector.
func.func @matmul_512(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// 67x45x33: 67 rows split 40 + 27 over the threads; the partial register
// tiles are peeled: full 8x32 and 8x13 tiles are vectorized, the M remainder
// stays a (dynamic) linalg.matmul.
// CHECK-LABEL: func.func @matmul_67x45x33
// CHECK:       scf.forall (%{{.+}}) = (0) to (67) step (40)
// CHECK-DAG:   vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-DAG:   vector.contract {{.*}} : vector<8x1xf32>, vector<1x13xf32> into vector<8x13xf32>
// CHECK:       linalg.matmul ins({{.*}} : tensor<?x1xf32>, tensor<1x?xf32>) outs({{.*}} : tensor<?x?xf32>)
func.func @matmul_67x45x33(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>) -> tensor<67x45xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x45xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

// -----

// One row: the parallel loop goes over N (two chunks of 64 columns).
// CHECK-LABEL: func.func @matvec
// CHECK:       scf.forall (%{{.+}}) = (0) to (128) step (64)
// CHECK:       vector.contract {{.*}} : vector<1x1xf32>, vector<1x32xf32> into vector<1x32xf32>
func.func @matvec(%a: tensor<1x256xf32>, %b: tensor<256x128xf32>, %c: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x256xf32>, tensor<256x128xf32>) outs(%c : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}

// -----

// batch_matmul: the parallel loop goes over the batch and M.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:       scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (4, 64) step (1, 32)
// CHECK:       vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
func.func @batch_matmul(%a: tensor<4x64x32xf32>, %b: tensor<4x32x64xf32>, %c: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x64x32xf32>, tensor<4x32x64xf32>) outs(%c : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}

// -----

// Big elementwise and row-reduction generics get a parallel outer loop (one
// chunk per thread); they are not vectorized here.
// CHECK-LABEL: func.func @elementwise_and_reduction
// CHECK:       scf.forall (%{{.+}}) = (0) to (256) step (128)
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<128x256xf32>)
// CHECK:       scf.forall (%{{.+}}) = (0) to (256) step (128)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-NOT:   vector.
// SERIAL-LABEL: func.func @elementwise_and_reduction
// SERIAL-NOT:   scf.forall
func.func @elementwise_and_reduction(%x: tensor<256x256xf32>, %o: tensor<256xf32>) -> (tensor<256x256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256x256xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<256x256xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x256xf32>) outs(%o : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %0, %1 : tensor<256x256xf32>, tensor<256xf32>
}

// -----

// Left alone: small ops (not worth a fork/join), dynamic shapes, reductions
// over the outer dimension.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:   scf.forall
// CHECK-NOT:   scf.for
// CHECK:       linalg.generic
// CHECK:       linalg.matmul ins({{.*}} : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
func.func @untouched(%s: tensor<8x8xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>,
                     %x: tensor<512x512xf32>, %o: tensor<512xf32>) -> (tensor<8x8xf32>, tensor<?x?xf32>, tensor<512xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%s : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %m = math.exp %out : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<512x512xf32>) outs(%o : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  return %0, %1, %2 : tensor<8x8xf32>, tensor<?x?xf32>, tensor<512xf32>
}

// -----

// transpose_b with enough rows: B [N, K] is first copied to [K, N] by a
// linalg.transpose (tiled 16x16 and vectorized), then the plain matmul is
// tiled as usual.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
// CHECK:       scf.forall
// CHECK:         vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:   linalg.matmul
// NOVEC-LABEL: func.func @matmul_transpose_b
// NOVEC:       linalg.transpose
// NOVEC-NOT:   vector.
func.func @matmul_transpose_b(%a: tensor<64x128xf32>, %bt: tensor<256x128xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : tensor<64x128xf32>, tensor<256x128xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A single row (decode step) keeps the [N, K] operand: a copy would cost more
// than the matvec itself.
// CHECK-LABEL: func.func @matvec_transpose_b
// CHECK-NOT:   linalg.transpose
// CHECK:       scf.forall
// CHECK:       vector.contract
func.func @matvec_transpose_b(%a: tensor<1x128xf32>, %bt: tensor<256x128xf32>, %c: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : tensor<1x128xf32>, tensor<256x128xf32>) outs(%c : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}
