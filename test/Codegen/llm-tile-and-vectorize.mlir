// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2 min-parallel-work=0}))" | FileCheck %s
// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2 min-parallel-work=0 parallel=false}))" | FileCheck %s --check-prefix=SERIAL
// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2 min-parallel-work=0 vectorize=false}))" | FileCheck %s --check-prefix=NOVEC

// 512x1536 @ 1536x512 on avx512 with 2 threads: B (3 MiB) packed at run
// time into 16 strips [1536, 32] (an scf.forall over 2 chunks of 8 strips,
// one vector row copied per step); scf.forall over 256-row chunks with the
// fill fused in, N cache tiles of 128, K cache tiles of 768 (a divisor of
// K), 8x32x1 register tiles reading one contiguous row of a strip per step
// of K, vectorized to vector.contract with the accumulator hoisted out of
// the K loop.
// CHECK-LABEL: func.func @matmul_512
// CHECK:       %[[EXP:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2]] output_shape [1536, 16, 32]
// CHECK:       %[[PACKED:.+]] = scf.forall (%[[S:.+]]) = (0) to (16) step (8) shared_outs
// CHECK:         %[[SRC:.+]] = tensor.extract_slice %[[EXP]][0, %[[S]], 0] [1536, 8, 32]
// CHECK:         scf.for %[[PS:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK:           scf.for %[[PK:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK:             %[[PROW:.+]] = tensor.extract_slice %[[SRC]][%[[PK]], %[[PS]], 0] [1, 1, 32]
// CHECK:             %[[PV:.+]] = vector.transfer_read %[[PROW]]{{.*}} : tensor<1x1x32xf32>, vector<1x1x32xf32>
// CHECK:             vector.transfer_write %[[PV]], {{.*}} : vector<1x1x32xf32>, tensor<1x1x32xf32>
// CHECK:       } {__llm_packed_rhs__ = 32 : i64}
// CHECK-NOT:   linalg.transpose
// CHECK:       scf.forall (%[[I:.+]]) = (0) to (512) step (256)
// CHECK:         linalg.fill {{.*}} -> tensor<256x512xf32>
// CHECK:         scf.for %[[N0:.+]] = %{{.+}} to %{{.+}} step %[[C128:.+]] iter_args
// CHECK:           scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %[[C768:.+]] iter_args
// CHECK:           scf.for %{{.+}} step %[[C8:.+]] iter_args
// CHECK:             scf.for %[[N1:.+]] = %{{.+}} step %[[C32:.+]] iter_args
// CHECK:               %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:               scf.for %[[K1:.+]] = {{.*}} iter_args({{.*}}%[[VACC:.+]] = %[[ACC]]) -> ({{.*}}vector<8x32xf32>)
// CHECK-DAG:             %[[K:.+]] = affine.apply #{{.+}}(%[[K1]], %[[K0]])
// CHECK-DAG:             %[[STRIP:.+]] = affine.apply #{{.+}}(%[[N1]], %[[N0]])
// CHECK:                 %[[ROW:.+]] = tensor.extract_slice %[[PACKED]][%[[STRIP]], %[[K]], 0] [1, 1, 32] [1, 1, 1] : tensor<16x1536x32xf32> to tensor<1x32xf32>
// CHECK:                 vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK:                 vector.transfer_read %[[ROW]]{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
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
func.func @matmul_512(%a: tensor<512x1536xf32>, %b: tensor<1536x512xf32>) -> tensor<512x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x1536xf32>, tensor<1536x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// 67x45x33: 67 rows split 40 + 27 over the threads, so a thread's chunk
// of rows is dynamic (min(40, 67 - i)): it runs as loops of static row
// tiles of 8, 4, 2 and 1 rows (each of the last three at most once), each
// with its columns peeled into 32- and 13-wide tiles, all vectorized; no
// tile is left dynamic (it would lower to scalar code).
// CHECK-LABEL: func.func @matmul_67x45x33
// CHECK:       scf.forall (%{{.+}}) = (0) to (67) step (40)
// CHECK:         %[[R8:.+]] = affine.apply
// CHECK:         scf.for %{{.+}} = %c0 to %[[R8]] step %c8
// CHECK-DAG:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-DAG:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x13xf32> into vector<8x13xf32>
// CHECK:         %[[R4:.+]] = affine.apply
// CHECK:         scf.for %{{.+}} = %[[R8]] to %[[R4]] step %c4
// CHECK-DAG:     vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// CHECK-DAG:     vector.contract {{.*}} : vector<4x1xf32>, vector<1x13xf32> into vector<4x13xf32>
// CHECK:         %[[R2:.+]] = affine.apply
// CHECK:         scf.for %{{.+}} = %[[R4]] to %[[R2]] step %c2
// CHECK-DAG:     vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
// CHECK-DAG:     vector.contract {{.*}} : vector<2x1xf32>, vector<1x13xf32> into vector<2x13xf32>
// CHECK:         scf.for %{{.+}} = %[[R2]] to %{{.+}} step %c1
// CHECK-DAG:     vector.contract {{.*}} : vector<1x1xf32>, vector<1x32xf32> into vector<1x32xf32>
// CHECK-DAG:     vector.contract {{.*}} : vector<1x1xf32>, vector<1x13xf32> into vector<1x13xf32>
// CHECK-NOT:     linalg.matmul
// CHECK:         scf.forall.in_parallel
func.func @matmul_67x45x33(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>) -> tensor<67x45xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x45xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

// -----

// 37x360x200: a thread's chunk of rows is dynamic (min(24, 37 - i)) and so
// is the last 128-column cache tile of N (360 = 2 x 128 + 104): the rows
// run as 8-, 4-, 2- and 1-row pieces, and in each the columns as 32-wide
// register tiles, then at most one tile each of 16, 4 and 1 columns; every
// tile is static and vectorized (a dynamic one would lower to scalar code
// with gathers: a 37-token Llama layer of d 200 exported from torch ran
// 2.4x slower on two threads than on one).
// CHECK-LABEL: func.func @matmul_37x360x200
// CHECK:       scf.forall (%{{.+}}) = (0) to (37) step (24)
// CHECK:         scf.for %{{.+}} = %c0 to %c360 step %c128
// CHECK:           scf.for %{{.+}} = %c0 to %{{.+}} step %c8
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x4xf32> into vector<8x4xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x1xf32> into vector<8x1xf32>
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c4
// CHECK:             vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c1
// CHECK:             vector.contract {{.*}} : vector<1x1xf32>, vector<1x1xf32> into vector<1x1xf32>
// CHECK-NOT:     linalg.matmul
// CHECK:         scf.forall.in_parallel
func.func @matmul_37x360x200(%a: tensor<37x200xf32>, %b: tensor<200x360xf32>) -> tensor<37x360xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x360xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<37x360xf32>) -> tensor<37x360xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x200xf32>, tensor<200x360xf32>) outs(%f : tensor<37x360xf32>) -> tensor<37x360xf32>
  return %r : tensor<37x360xf32>
}

// -----

// 17 rows on 2 threads in 8-row tiles would be chunks of 16 and 1 rows; four
// 128-column chunks give each thread every row of 256 columns (and half of
// B) instead. (37 x 360 above keeps its rows: three column chunks would be
// 256 + 104.)
// CHECK-LABEL: func.func @matmul_17x512x64
// CHECK:       scf.forall (%{{.+}}) = (0) to (512) step (128)
// CHECK:         scf.for %{{.+}} = %c0 to %c16 step %c8
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:             vector.contract {{.*}} : vector<1x1xf32>, vector<1x32xf32> into vector<1x32xf32>
// CHECK:         scf.forall.in_parallel
func.func @matmul_17x512x64(%a: tensor<17x64xf32>, %b: tensor<64x512xf32>) -> tensor<17x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<17x512xf32>) -> tensor<17x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x64xf32>, tensor<64x512xf32>) outs(%f : tensor<17x512xf32>) -> tensor<17x512xf32>
  return %r : tensor<17x512xf32>
}

// -----

// One row: the parallel loop goes over N (two chunks of 64 columns), each a
// small-M register tile of 64 columns (narrowed from 256 so that both
// threads get one) under K cache tiles of 16 rows, B read in place.
// CHECK-LABEL: func.func @matvec
// CHECK-NOT:   linalg.transpose
// CHECK:       scf.forall (%{{.+}}) = (0) to (128) step (64)
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C16:.+]] iter_args
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[C16]] step %{{.+}} iter_args
// CHECK:             vector.contract {{.*}} : vector<1x1xf32>, vector<1x64xf32> into vector<1x64xf32>
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

// A leading unit dimension (batch 1) is skipped: the parallel loop goes over
// the first dimension of size > 1 (RoPE over [1, H, S, 2, D/2]).
// CHECK-LABEL: func.func @unit_batch
// CHECK:       scf.forall (%{{.+}}) = (0) to (8) step (4)
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<1x4x128x64xf32>)
// SERIAL-LABEL: func.func @unit_batch
// SERIAL-NOT:   scf.forall
func.func @unit_batch(%x: tensor<1x8x128x64xf32>) -> tensor<1x8x128x64xf32> {
  %e = tensor.empty() : tensor<1x8x128x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x128x64xf32>) outs(%e : tensor<1x8x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x8x128x64xf32>
  return %0 : tensor<1x8x128x64xf32>
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

// -----

// A constant B (w[k, n] = 64 k + n, but w[0, 0] = 0.1, which no 16-bit
// float holds exactly, so that B stays f32: see
// llm-tile-and-vectorize-narrow.mlir) is packed at compile time into strips
// [2, 4, 32]: strip 0 holds columns 0-31 of each row (0.1 = 0x3DCCCCCD, 1,
// ..., 31, then 64.0 = 0x42800000 at element 32, 128.0 = 0x43000000 at
// element 64), strip 1 columns 32-63 (32.0 = 0x42000000 at element 128);
// printed as little-endian hex. The register tiles read rows of the strips.
// CHECK-LABEL: func.func @matmul_const_packed
// CHECK:       %[[PACKED:.+]] = arith.constant dense<"0xCDCCCC3D0000803F{{(([0-9A-F]{8}){30})}}00008042{{(([0-9A-F]{8}){31})}}00000043{{(([0-9A-F]{8}){63})}}00000042{{(([0-9A-F]{8}){127})}}"> : tensor<2x4x32xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       scf.forall
// CHECK:         tensor.extract_slice %[[PACKED]][%{{.+}}, %{{.+}}, 0] [1, 1, 32] [1, 1, 1] : tensor<2x4x32xf32> to tensor<1x32xf32>
// CHECK:         vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @matmul_const_packed(%a: tensor<16x4xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %w = arith.constant dense<[[0.1, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0], [128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0, 144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0, 156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0, 168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0, 180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0], [192.0, 193.0, 194.0, 195.0, 196.0, 197.0, 198.0, 199.0, 200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 209.0, 210.0, 211.0, 212.0, 213.0, 214.0, 215.0, 216.0, 217.0, 218.0, 219.0, 220.0, 221.0, 222.0, 223.0, 224.0, 225.0, 226.0, 227.0, 228.0, 229.0, 230.0, 231.0, 232.0, 233.0, 234.0, 235.0, 236.0, 237.0, 238.0, 239.0, 240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0, 248.0, 249.0, 250.0, 251.0, 252.0, 253.0, 254.0, 255.0]]> : tensor<4x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<16x4xf32>, tensor<4x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// N = 120 on avx512 (32-column register tiles, 16 lanes): three full tiles,
// then the 24-column remainder as a 16-column tile and an 8-column tile
// (linalg::splitOp), each vectorized; never a 24-wide vector.
// CHECK-LABEL: func.func @matmul_n120
// CHECK-NOT:     vector<8x24xf32>
// CHECK-DAG:     vector.contract {{.*}} into vector<8x32xf32>
// CHECK-DAG:     vector.contract {{.*}} into vector<8x16xf32>
// CHECK-DAG:     vector.contract {{.*}} into vector<8x8xf32>
// CHECK-NOT:     vector<8x24xf32>
// CHECK:         return
func.func @matmul_n120(%a: tensor<64x64xf32>, %b: tensor<64x120xf32>) -> tensor<64x120xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x120xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x120xf32>) -> tensor<64x120xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x120xf32>) outs(%f : tensor<64x120xf32>) -> tensor<64x120xf32>
  return %0 : tensor<64x120xf32>
}

// -----

// A decode-shaped matmul with 3 rows: one register tile holds all 3 rows
// (B is read once, not once per row) and 64 columns (the 256 matvec
// accumulator lanes shared by the rows, rounded down to a power of two of
// vectors: a [3, 80] tile lowers through element inserts).
// CHECK-LABEL: func.func @matvec_rows3
// CHECK-NOT:     vector<1x256xf32>
// CHECK:         vector.contract {{.*}} : vector<3x1xf32>, vector<1x64xf32> into vector<3x64xf32>
// CHECK-NOT:     vector<3x80xf32>
// CHECK:         return
func.func @matvec_rows3(%a: tensor<3x512xf32>, %b: tensor<512x512xf32>) -> tensor<3x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x512xf32>) -> tensor<3x512xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x512xf32>, tensor<512x512xf32>) outs(%f : tensor<3x512xf32>) -> tensor<3x512xf32>
  return %0 : tensor<3x512xf32>
}

// -----

// A matmul below the target's parallel threshold (16 x 16 x 16 = 4096
// multiply-adds < 2^21) gets a serial outer loop: a fork/join would cost
// more than the work. Run with the target's threshold (the RUN lines above
// set it to 0 to show the parallel structure on small shapes).
// RUN: llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=2}))" | FileCheck %s --check-prefix=THRESHOLD
// THRESHOLD-LABEL: func.func @tiny_serial
// THRESHOLD-NOT:   scf.forall
// THRESHOLD:       vector.contract
// THRESHOLD-NOT:   scf.forall
// THRESHOLD:       return
// RUN: not llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 min-parallel-work=-2}))" 2>&1 | FileCheck %s --check-prefix=BADWORK
// BADWORK: error: llm-tile-and-vectorize: min-parallel-work must be -1 (the target's) or a number of multiply-adds
// RUN: not llm-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=-3}))" 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// RUN: not llm-opt %s -split-input-file --llm-lower-to-cpu="num-threads=2000" 2>&1 | FileCheck %s --check-prefix=BADTHREADS2000
// BADTHREADS: error: llm-tile-and-vectorize: num-threads must be in [0, 1024] (0: the target's), got -3
// BADTHREADS2000: error: llm-tile-and-vectorize: num-threads must be in [0, 1024] (0: the target's), got 2000
func.func @tiny_serial(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// A decode-shaped matvec by a constant B reads B from [N / 32, K, 32]
// strips (the width of the avx512 matmul register tile), the layout the
// matmuls of more rows pack the same weight into, so that the prefill and
// decode entries of a generation model share one copy; one register tile
// of 32 columns per strip, K uncut. (A B that is an argument keeps its
// [K, N] rows.)
// CHECK-LABEL: func.func @decode_const_rhs
// CHECK: %[[P:.+]] = arith.constant dense_resource<w_pack_packed32> : tensor<2x8x32xf32>
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}}
// CHECK: tensor.extract_slice %[[P]][%{{.+}}, %[[K]], 0] [1, 1, 32] [1, 1, 1] : tensor<2x8x32xf32> to tensor<1x32xf32>
// CHECK: vector.contract
func.func @decode_const_rhs(%x: tensor<1x8xf32>) -> tensor<1x64xf32> {
  %w = arith.constant dense_resource<w_pack> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x8xf32>, tensor<8x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w_pack: "0x04000000000000000AD7233C0AD7A33C8FC2F53C0AD7233DCCCC4C3D8FC2753D295C8F3D0AD7A33DEB51B83DCCCCCC3DAE47E13D8FC2F53DB81E053E295C0F3E9999193E0AD7233E7B142E3EEB51383E5C8F423ECCCC4C3E3D0A573EAE47613E1E856B3E8FC2753E0000803EB81E853E703D8A3E295C8F3EE17A943E9999993E52B89E3E0AD7A33EC2F5A83E7B14AE3E3333B33EEB51B83EA470BD3E5C8FC23E14AEC73ECCCCCC3E85EBD13E3D0AD73EF528DC3EAE47E13E6666E63E1E85EB3ED7A3F03E8FC2F53E47E1FA3E0000003F5C8F023FB81E053F14AE073F703D0A3FCDCC0C3F295C0F3F85EB113FE17A143F3D0A173F9999193FF6281C3F52B81E3FAE47213F0AD7233F6666263FC2F5283F1E852B3F7B142E3FD7A3303F3333333F8FC2353FEB51383F47E13A3FA4703D3F0000403F5C8F423FB81E453F14AE473F703D4A3FCCCC4C3F295C4F3F85EB513FE17A543F3D0A573F9999593FF5285C3F52B85E3FAE47613F0AD7633F6666663FC2F5683F1E856B3F7B146E3FD7A3703F3333733F8FC2753FEB51783F47E17A3FA3707D3F0000803FAE47813F5C8F823F0AD7833FB81E853F6666863F14AE873FC2F5883F703D8A3F1F858B3FCDCC8C3F7B148E3F295C8F3FD7A3903F85EB913F3333933FE17A943F8FC2953F3D0A973FEB51983F9999993F47E19A3FF6289C3FA4709D3F52B89E3F0000A03FAE47A13F5C8FA23F0AD7A33FB81EA53F6666A63F14AEA73FC2F5A83F703DAA3F1E85AB3FCDCCAC3F7B14AE3F295CAF3FD7A3B03F85EBB13F3333B33FE17AB43F8FC2B53F3D0AB73FEB51B83F9999B93F47E1BA3FF528BC3FA470BD3F52B8BE3F0000C03FAE47C13F5C8FC23F0AD7C33FB81EC53F6666C63F14AEC73FC2F5C83F703DCA3F1E85CB3FCCCCCC3F7B14CE3F295CCF3FD7A3D03F85EBD13F3333D33FE17AD43F8FC2D53F3D0AD73FEB51D83F9999D93F47E1DA3FF528DC3FA470DD3F52B8DE3F0000E03FAE47E13F5C8FE23F0AD7E33FB81EE53F6666E63F14AEE73FC2F5E83F703DEA3F1E85EB3FCCCCEC3F7B14EE3F295CEF3FD7A3F03F85EBF13F3333F33FE17AF43F8FC2F53F3D0AF73FEB51F83F9999F93F47E1FA3FF528FC3FA370FD3F52B8FE3F00000040D7A30040AE47014085EB01405C8F0240333303400AD70340E17A0440B81E05408FC20540666606403D0A074014AE0740EB510840C2F5084099990940703D0A4047E10A401F850B40F6280C40CDCC0C40A4700D407B140E4052B80E40295C0F4000001040D7A31040AE47114085EB11405C8F1240333313400AD71340E17A1440B81E15408FC21540666616403D0A174014AE1740EB511840C2F5184099991940703D1A4047E11A401E851B40F6281C40CDCC1C40A4701D407B141E4052B81E40295C1F4000002040D7A32040AE47214085EB21405C8F2240333323400AD72340E17A2440B81E25408FC22540666626403D0A274014AE2740EB512840C2F5284099992940703D2A4047E12A401E852B40F6282C40CDCC2C40A4702D407B142E4052B82E40295C2F4000003040D7A33040AE47314085EB31405C8F3240333333400AD73340E17A3440B81E35408FC23540666636403D0A374014AE3740EB513840C2F5384099993940703D3A4047E13A401E853B40F5283C40CDCC3C40A4703D407B143E4052B83E40295C3F4000004040D7A34040AE47414085EB41405C8F4240333343400AD74340E17A4440B81E45408FC24540666646403D0A474014AE4740EB514840C2F5484099994940703D4A4047E14A401E854B40F5284C40CCCC4C40A4704D407B144E4052B84E40295C4F4000005040D7A35040AE47514085EB51405C8F5240333353400AD75340E17A5440B81E55408FC25540666656403D0A574014AE5740EB515840C2F5584099995940703D5A4047E15A401E855B40F5285C40CCCC5C40A4705D407B145E4052B85E40295C5F4000006040D7A36040AE47614085EB61405C8F6240333363400AD76340E17A6440B81E65408FC26540666666403D0A674014AE6740EB516840C2F5684099996940703D6A4047E16A401E856B40F5286C40CCCC6C40A3706D407B146E4052B86E40295C6F4000007040D7A37040AE47714085EB71405C8F7240333373400AD77340E17A7440B81E75408FC27540666676403D0A774014AE7740EB517840C2F5784099997940703D7A4047E17A401E857B40F5287C40CCCC7C40A3707D407B147E4052B87E40295C7F4000008040EB518040D7A38040C2F58040AE4781409999814085EB8140703D82405C8F824047E18240333383401F8583400AD78340F6288440E17A8440CDCC8440B81E8540A47085408FC285407B1486406666864052B886403D0A8740295C874014AE874000008840EB518840D7A38840C2F58840AE4789409999894085EB8940703D8A405C8F8A4047E18A4033338B401F858B400AD78B40F6288C40E17A8C40CDCC8C40B81E8D40A4708D408FC28D407B148E4066668E4052B88E403D0A8F40295C8F4014AE8F4000009040EB519040D7A39040C2F59040AE4791409999914085EB9140703D92405C8F924047E19240333393401F8593400AD79340F6289440E17A9440CDCC9440B81E9540A47095408FC295407B1496406666964052B896403D0A9740295C974014AE974000009840EB519840D7A39840C2F59840AE4799409999994085EB9940703D9A405C8F9A4047E19A4033339B401E859B400AD79B40F6289C40E17A9C40CDCC9C40B81E9D40A4709D408FC29D407B149E4066669E4052B89E403D0A9F40295C9F4014AE9F400000A040EB51A040D7A3A040C2F5A040AE47A1409999A14085EBA140703DA2405C8FA24047E1A2403333A3401E85A340"
    }
  }
#-}

// -----

// A mixed-precision matmul (f16 inputs, f32 accumulator, as an f16 model's
// matmul lowers): the register tile's generic vectorization becomes one
// f32 vector.contract per step of K of the extended A column [8 x 1] and B
// row [1 x 32] (reduction-to-contract, broadcasts and casts sunk), which
// lowers to broadcast + FMA, instead of a multi_reduction over [8 x 32 x 1]
// products (one scalar multiply each).
// SERIAL-LABEL: func.func @matmul_f16_tile
// SERIAL:         scf.for
// SERIAL:           vector.transfer_read {{.*}} : tensor<8x1xf16>, vector<8x1xf16>
// SERIAL:           vector.transfer_read {{.*}} : tensor<1x32xf16>, vector<1x32xf16>
// SERIAL:           arith.extf {{.*}} : vector<8x1xf16> to vector<8x1xf32>
// SERIAL:           arith.extf {{.*}} : vector<1x32xf16> to vector<1x32xf32>
// SERIAL:           vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// SERIAL-NOT:     vector.multi_reduction
// SERIAL:         return
func.func @matmul_f16_tile(%a: tensor<16x64xf16>, %b: tensor<64x64xf16>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x64xf16>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
