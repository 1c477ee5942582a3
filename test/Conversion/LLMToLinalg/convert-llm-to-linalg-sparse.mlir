// RUN: llm-opt %s --split-input-file --convert-llm-to-linalg --canonicalize --cse | FileCheck %s

// llm.matmul with a constant weight in a sparse format (llm.sparse_format,
// from llm-sparsify-weights) and the kernels' vector width (vector_bits,
// from llm-select-lowering-config) -> llmc's loops over the packed
// nonzeros (SparseMatmul.cpp); otherwise, or where the kernel does not pay,
// the dense linalg.matmul.

// CHECK-LABEL: func.func @bsr_columns
// Column form (8 rows = the 8 lanes of vector_bits 256): block row 0 holds
// block column 1, block row 1 both; each 8x2 block is stored column-major.
// CHECK-DAG: arith.constant dense<[0, 1, 3]> : tensor<3xi32>
// CHECK-DAG: arith.constant dense<[1, 0, 1]> : tensor<3xi16>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 3.000000e+00, 5.000000e+00, {{.*}}]> : tensor<48xf32>
// CHECK: scf.for
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<48xf32>, vector<8xf32>
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x4xf32>
// CHECK: vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8xf32>, tensor<2x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @bsr_columns(%x: tensor<2x4xf32>) -> tensor<2x16xf32> {
  %w = llm.constant dense<[[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1.0,5.0,9.0,13.0,17.0,21.0,25.0,29.0],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,2.0,6.0,10.0,14.0,18.0,22.0,26.0,30.0],[1.0,3.0,5.0,7.0,9.0,11.0,13.0,15.0,3.0,7.0,11.0,15.0,19.0,23.0,27.0,31.0],[2.0,4.0,6.0,8.0,10.0,12.0,14.0,16.0,4.0,8.0,12.0,16.0,20.0,24.0,28.0,32.0]]> : tensor<4x16xf32>
  %y = llm.matmul %x, %w {llm.sparse_format = {format = "bsr8x2"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// CHECK-LABEL: func.func @bsr_columns_many_rows
// Two full tiles of 8 rows: the activation is interleaved once as
// [tiles, K, 8], and each block prefetches the slice of the tile that the
// next stored block of its row (the last one: itself) reads, 8 x 2 f32 in
// one cache line.
// CHECK: %[[PACKED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[PACKED]] read_only : tensor<2x4x8xf32> to memref<2x4x8xf32>
// CHECK: scf.for %[[J:[a-z0-9_]+]] = {{.*}} -> (vector<8xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[NEXT]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[CLAMPED]]] : tensor<3xi16>
// CHECK: memref.prefetch %[[BUF]][%{{.*}}, %{{.*}}, %{{.*}}], read, locality<3>, data : memref<2x4x8xf32>
// CHECK-NOT: memref.prefetch
// CHECK: tensor.extract %[[PACKED]]
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @bsr_columns_many_rows(%x: tensor<16x4xf32>) -> tensor<16x16xf32> {
  %w = llm.constant dense<[[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1.0,5.0,9.0,13.0,17.0,21.0,25.0,29.0],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,2.0,6.0,10.0,14.0,18.0,22.0,26.0,30.0],[1.0,3.0,5.0,7.0,9.0,11.0,13.0,15.0,3.0,7.0,11.0,15.0,19.0,23.0,27.0,31.0],[2.0,4.0,6.0,8.0,10.0,12.0,14.0,16.0,4.0,8.0,12.0,16.0,20.0,24.0,28.0,32.0]]> : tensor<4x16xf32>
  %y = llm.matmul %x, %w {llm.sparse_format = {format = "bsr8x2"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<16x4xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @bsr_rows_padded_k
// Row form: a 2x2 block is one vector<4>, times the activation's 2
// elements repeated, then one reduction per row of the block; K = 3 is
// padded to 4 with zeros.
// CHECK: %[[PAD:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [3, 3] [1, 1] : tensor<3x3xf32> into tensor<3x4xf32>
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<8xf32>, vector<4xf32>
// CHECK: vector.transfer_read %[[PAD]]{{.*}} : tensor<3x4xf32>, vector<2xf32>
// CHECK: vector.broadcast {{.*}} : vector<2xf32> to vector<2x2xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK: vector.extract_strided_slice {{.*}} {offsets = [2], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
// CHECK: vector.reduction <add>, {{.*}} : vector<2xf32> into f32
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @bsr_rows_padded_k(%x: tensor<3x3xf32>) -> tensor<3x4xf32> {
  %w = llm.constant dense<[[1.0,3.0,0.0,0.0],[2.0,4.0,0.0,0.0],[0.0,0.0,5.0,6.0]]> : tensor<3x4xf32>
  %y = llm.matmul %x, %w {llm.sparse_format = {format = "bsr2x2"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @csr
// CSR, chunks of 8 (the lanes), padded at the row's last column.
// CHECK-DAG: arith.constant dense<[0, 1, 2]> : tensor<3xi32>
// CHECK-DAG: arith.constant dense<[1, 5, 5, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 7, 7]> : tensor<16xi16>
// CHECK: arith.extui {{.*}} : vector<8xi16> to vector<8xi32>
// CHECK: vector.gather %{{.*}}[%{{.*}}, %{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : tensor<2x8xf32>, vector<8xi32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: vector.reduction <add>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @csr(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %w = llm.constant dense<[[0.0,1.0,0.0,0.0,0.0,2.0,0.0,0.0],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,3.0]]> : tensor<2x8xf32>
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "csr"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @two_four
// 2:4: two stored elements per group of 4; the group holding only column 5
// is padded with an explicit zero at lane 4, the empty groups with zeros.
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00, 3.000000e+00, 0.000000e+00, {{.*}}, 4.000000e+00, 5.000000e+00]> : tensor<16xf32>
// CHECK-DAG: arith.constant dense<[0, 2, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 30, 31]> : tensor<16xi8>
// CHECK: llvm.inline_asm "vpermt2ps $3, $2, $0", "=v,0,v,v" {{.*}} : (vector<16xf32>, vector<16xi32>, vector<16xf32>) -> vector<16xf32>
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @two_four(%x: tensor<1x32xf32>) -> tensor<1x1xf32> {
  %w = llm.constant dense<[[1.0,0.0,2.0,0.0,0.0,3.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,4.0,5.0]]> : tensor<1x32xf32>
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "2:4"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @csr_many_rows
// More than 8 rows: CSR's gathers lose to the dense kernel.
// CHECK: linalg.matmul
func.func @csr_many_rows(%x: tensor<9x8xf32>) -> tensor<9x2xf32> {
  %w = llm.constant dense<[[0.0,1.0,0.0,0.0,0.0,2.0,0.0,0.0],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,3.0]]> : tensor<2x8xf32>
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "csr"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<9x8xf32>, tensor<2x8xf32>) -> tensor<9x2xf32>
  return %y : tensor<9x2xf32>
}

// -----

// CHECK-LABEL: func.func @no_vector_bits
// No vector_bits (a target without the sparse kernels): dense.
// CHECK: linalg.matmul
func.func @no_vector_bits(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %w = llm.constant dense<[[0.0,1.0,0.0,0.0,0.0,2.0,0.0,0.0],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,3.0]]> : tensor<2x8xf32>
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "csr"}} : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @two_four_avx2
// 2:4 needs AVX-512 (vpermt2ps): dense with 256-bit vectors.
// CHECK-NOT: llvm.inline_asm
// CHECK: linalg.matmul
func.func @two_four_avx2(%x: tensor<1x32xf32>) -> tensor<1x1xf32> {
  %w = llm.constant dense<[[1.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0]]> : tensor<1x32xf32>
  %y = llm.matmul %x, %w {transpose_b, llm.sparse_format = {format = "2:4"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_bsr_columns
// llm.dequant_matmul with scales per group of 2 along K (s[n, g] = n % 8 +
// 1 + g / 2): the i8 levels packed as for a float weight, the scales as
// [groups, N] (a block's 8 channels contiguous), one scale vector read per
// block and multiplied into each widened column; no scaling after the sums.
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 1.000000e+00, {{.*}}, 8.000000e+00, 1.500000e+00, 2.500000e+00, {{.*}}, 8.500000e+00]> : tensor<32xf32>
// CHECK-DAG: arith.constant dense<[1, 0, 1]> : tensor<3xi16>
// CHECK: scf.for
// CHECK: %[[S:.*]] = vector.transfer_read {{.*}} : tensor<32xf32>, vector<8xf32>
// CHECK: %[[L:.*]] = vector.transfer_read {{.*}} : tensor<48xi8>, vector<8xi8>
// CHECK: %[[F:.*]] = arith.sitofp %[[L]] : vector<8xi8> to vector<8xf32>
// CHECK: %[[W:.*]] = arith.mulf %[[F]], %[[S]] : vector<8xf32>
// CHECK: vector.fma %[[W]], {{.*}} : vector<8xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @grouped_bsr_columns(%x: tensor<1x4xf32>) -> tensor<1x16xf32> {
  %c = arith.constant dense<[[0, 0, 1, 2], [0, 0, 3, 4], [0, 0, 5, 6], [0, 0, 7, 8], [0, 0, 9, 10], [0, 0, 11, 12], [0, 0, 13, 14], [0, 0, 15, 16], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16], [17, 18, 19, 20], [21, 22, 23, 24], [25, 26, 27, 28], [29, 30, 31, 32]]> : tensor<16x4xi8>
  %w = quant.scast %c : tensor<16x4xi8> to tensor<16x4x!quant.uniform<i8:f32:{0:1,1:2}, {{1.0, 1.5}, {2.0, 2.5}, {3.0, 3.5}, {4.0, 4.5}, {5.0, 5.5}, {6.0, 6.5}, {7.0, 7.5}, {8.0, 8.5}, {1.0, 1.5}, {2.0, 2.5}, {3.0, 3.5}, {4.0, 4.5}, {5.0, 5.5}, {6.0, 6.5}, {7.0, 7.5}, {8.0, 8.5}}>>
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.sparse_format = {format = "bsr8x2"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<1x4xf32>, tensor<16x4x!quant.uniform<i8:f32:{0:1,1:2}, {{1.0, 1.5}, {2.0, 2.5}, {3.0, 3.5}, {4.0, 4.5}, {5.0, 5.5}, {6.0, 6.5}, {7.0, 7.5}, {8.0, 8.5}, {1.0, 1.5}, {2.0, 2.5}, {3.0, 3.5}, {4.0, 4.5}, {5.0, 5.5}, {6.0, 6.5}, {7.0, 7.5}, {8.0, 8.5}}>>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_bsr_rows
// Row form (2x2 blocks, 512-bit vectors) with groups of 2: the block row's
// 2 scales ([groups, N]: s[0, 0], s[1, 0] at 0 and 1) repeated over the
// block's 2 columns by one shuffle.
// CHECK: arith.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: scf.for
// CHECK: %[[S:.*]] = vector.transfer_read {{.*}} : tensor<4xf32>, vector<2xf32>
// CHECK: %[[S4:.*]] = vector.shuffle %[[S]], %[[S]] [0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: arith.mulf %{{.*}}, %[[S4]] : vector<4xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @grouped_bsr_rows(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %c = arith.constant dense<[[1, 3], [2, 4], [0, 0], [0, 0]]> : tensor<4x2xi8>
  %w = quant.scast %c : tensor<4x2xi8> to tensor<4x2x!quant.uniform<i8:f32:{0:2,1:1}, {{0.5, 0.25}, {1.0, 2.0}}>>
  %y = llm.dequant_matmul %x, %w {llm.sparse_format = {format = "bsr2x2"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<3x4xf32>, tensor<4x2x!quant.uniform<i8:f32:{0:2,1:1}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_two_four
// 2:4 with groups of 64 (a chunk of 32 columns lies in one): the chunk's
// scale, from [groups, N] = [2, 1], broadcast and multiplied into its 16
// values.
// CHECK: arith.constant dense<[2.500000e-01, 5.000000e-01]> : tensor<2xf32>
// CHECK: scf.for
// CHECK: %[[S:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<2xf32>
// CHECK: %[[B:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK: arith.mulf %{{.*}}, %[[B]] : vector<16xf32>
// CHECK: llvm.inline_asm "vpermt2ps
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @grouped_two_four(%x: tensor<1x128xf32>) -> tensor<1x1xf32> {
  %c = arith.constant dense<[[1, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8]]> : tensor<1x128xi8>
  %w = quant.scast %c : tensor<1x128xi8> to tensor<1x128x!quant.uniform<i8:f32:{0:1,1:64}, {{0.25, 0.5}}>>
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.sparse_format = {format = "2:4"}, llm.lowering_config = {vector_bits = 512 : i64}} : (tensor<1x128xf32>, tensor<1x128x!quant.uniform<i8:f32:{0:1,1:64}, {{0.25, 0.5}}>>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_csr
// CSR's chunks cross the groups (of 4): the dense lowering (dequantized
// panels and a linalg.matmul; no packed 16-bit columns).
// CHECK-NOT: tensor<{{[0-9]+}}xi16>
// CHECK-NOT: vector.gather
// CHECK: linalg.matmul
// CHECK: return
func.func @grouped_csr(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[0, 1, 0, 0, 0, 2, 0, 0], [0, 0, 0, 0, 0, 0, 0, 3]]> : tensor<2x8xi8>
  %w = quant.scast %c : tensor<2x8xi8> to tensor<2x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.25}, {1.0, 2.0}}>>
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.sparse_format = {format = "csr"}, llm.lowering_config = {vector_bits = 256 : i64}} : (tensor<1x8xf32>, tensor<2x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
