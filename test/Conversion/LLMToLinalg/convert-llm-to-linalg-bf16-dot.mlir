// llm.matmul by a constant weight on bf16 dot products (dot_product = "bf16"
// in its llm.lowering_config, which llm-select-lowering-config writes for
// bf16 matmuls, and for f32 ones with demote-contraction-inputs=bf16, on
// AVX512-BF16 targets): the weight rounded to bf16 and packed at compile
// time into [N / nr, ceil(K / 2) * nr * 2] (pair q of K, column c: w[2q, c],
// w[2q + 1, c]; an odd K ends with zeros), and each register tile
// accumulating x86vector.avx512.dot (vdpbf16ps) over the pairs of K, under an
// scf.forall marked for consumer fusion and for producer fusion (true with
// at most 16 rows: each block reads every row); an f32 activation is rounded to
// bf16 inside the loop, 16 elements at a time, into a [rows, 2 ceil(K / 2)]
// scratch per row tile.
// Without the configuration, with "f32", or where the kernel does not apply
// (N not a multiple of 16): linalg.matmul.
// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// K = 3 (odd), N = 16: one 16-column tile; w[k, n] = 16 k + n.
// CHECK-LABEL: func.func @odd_k
// CHECK-DAG:     arith.constant dense<{{\[\[}}0.000000e+00, 1.600000e+01, 1.000000e+00, 1.700000e+01, 2.000000e+00, 1.800000e+01, {{.*}}, 1.500000e+01, 3.100000e+01, 3.200000e+01, 0.000000e+00, 3.300000e+01, 0.000000e+00, {{.*}}, 4.700000e+01, 0.000000e+00]]> : tensor<1x64xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x16xf32>)
// CHECK:           tensor.empty() : tensor<2x4xbf16>
// CHECK:           vector.transfer_read {{.*}} : tensor<2x3xf32>, vector<16xf32>
// CHECK:           arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK:           vector.transfer_write {{.*}} : vector<16xbf16>, tensor<2x4xbf16>
// CHECK:           scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x64xbf16>, vector<32xbf16>
// CHECK:             vector.transfer_read {{.*}} : tensor<2x4xbf16>, vector<2xbf16>
// CHECK:             vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK:             vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK:             x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-2:     vector.transfer_write {{.*}} : vector<16xf32>, tensor<2x16xf32>
// CHECK:           tensor.parallel_insert_slice
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = true, mapping = [#llm.block_loop]}
// CHECK-NOT:     linalg.matmul
// CHECK:         return
func.func @odd_k(%x: tensor<2x3xf32>) -> tensor<2x16xf32> {
  %w = llm.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0]]> : tensor<3x16xf32>
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x3xf32>, tensor<3x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// A bf16 model, W stored [N, K] (transpose_b) with w[n, k] = n: pair q of
// column c holds (c, c) (hex: bf16 0, 0, 1, 1, 2, 2, 3, 3, ...). The bf16 activation is read as it is (no rounding
// kernel), the f32 result is rounded to bf16 after the kernel. One row and
// N = 64: a 64-column register tile (four accumulators).
// CHECK-LABEL: func.func @bf16_nk
// CHECK-DAG:     arith.constant dense<"0x00000000803F803F00400040404040408040804{{[0-9A-F]*}}"> : tensor<1x128xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4:     x86vector.avx512.dot
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = true, mapping = [#llm.block_loop]}
// CHECK:         linalg.generic
// CHECK:           arith.truncf {{.*}} : f32 to bf16
// CHECK:         return
func.func @bf16_nk(%x: tensor<1x2xbf16>) -> tensor<1x64xbf16> {
  %w = llm.constant dense<[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0], [6.0, 6.0], [7.0, 7.0], [8.0, 8.0], [9.0, 9.0], [10.0, 10.0], [11.0, 11.0], [12.0, 12.0], [13.0, 13.0], [14.0, 14.0], [15.0, 15.0], [16.0, 16.0], [17.0, 17.0], [18.0, 18.0], [19.0, 19.0], [20.0, 20.0], [21.0, 21.0], [22.0, 22.0], [23.0, 23.0], [24.0, 24.0], [25.0, 25.0], [26.0, 26.0], [27.0, 27.0], [28.0, 28.0], [29.0, 29.0], [30.0, 30.0], [31.0, 31.0], [32.0, 32.0], [33.0, 33.0], [34.0, 34.0], [35.0, 35.0], [36.0, 36.0], [37.0, 37.0], [38.0, 38.0], [39.0, 39.0], [40.0, 40.0], [41.0, 41.0], [42.0, 42.0], [43.0, 43.0], [44.0, 44.0], [45.0, 45.0], [46.0, 46.0], [47.0, 47.0], [48.0, 48.0], [49.0, 49.0], [50.0, 50.0], [51.0, 51.0], [52.0, 52.0], [53.0, 53.0], [54.0, 54.0], [55.0, 55.0], [56.0, 56.0], [57.0, 57.0], [58.0, 58.0], [59.0, 59.0], [60.0, 60.0], [61.0, 61.0], [62.0, 62.0], [63.0, 63.0]]> : tensor<64x2xbf16>
  %y = llm.matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "bf16"}} : (tensor<1x2xbf16>, tensor<64x2xbf16>) -> tensor<1x64xbf16>
  return %y : tensor<1x64xbf16>
}

// -----

// 17 rows (more than a decode step's): no producer recomputed per block.
// CHECK-LABEL: func.func @rows17
// CHECK:         scf.forall
// CHECK:           x86vector.avx512.dot
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = false, mapping = [#llm.block_loop]}
// CHECK-NEXT:    return
func.func @rows17(%x: tensor<17x4xf32>) -> tensor<17x16xf32> {
  %w = llm.constant dense<0.5> : tensor<4x16xf32>
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "bf16"}} : (tensor<17x4xf32>, tensor<4x16xf32>) -> tensor<17x16xf32>
  return %y : tensor<17x16xf32>
}

// -----

// "f32", no configuration, N = 12 (below one vector of 16; a larger N that
// is not a multiple of 16 is zero-padded) and a weight that is not a
// constant: the f32 matmul.
// CHECK-LABEL: func.func @not_taken
// CHECK-NOT:     x86vector.avx512.dot
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT:     x86vector.avx512.dot
// CHECK:         return
func.func @not_taken(%x: tensor<2x8xf32>, %v: tensor<8x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x12xf32>, tensor<2x16xf32>) {
  %w = llm.constant dense<1.0> : tensor<8x16xf32>
  %0 = llm.matmul %x, %w {llm.lowering_config = {dot_product = "f32"}} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %1 = llm.matmul %x, %w : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %w12 = llm.constant dense<1.0> : tensor<8x12xf32>
  %2 = llm.matmul %x, %w12 {llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xf32>, tensor<8x12xf32>) -> tensor<2x12xf32>
  %3 = llm.matmul %x, %v {llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  return %0, %1, %2, %3 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x12xf32>, tensor<2x16xf32>
}
