// llm.matmul by a constant weight on AMX tiles (dot_product = "amx_bf16" in
// its llm.lowering_config, which llm-select-lowering-config writes for bf16
// prefill matmuls of at least 32 static rows on AMX-BF16 targets): the
// weight rounded to bf16 and packed at compile time in AMX's pair layout,
// one 32-column panel after the other ([Np / 32 * Kp / 2, 64]: row q of a
// panel holds w[2q, c], w[2q + 1, c] for its columns c; K and N padded to 32
// with zeros), read by the tiles through a read-only buffer; per block of
// the scf.forall, 32 rows of the activation rounded to bf16 into a [32, Kp]
// scratch (rows past M zero), and per panel a 2 x 2 block of f32
// accumulator tiles carried over K, 32 at a time, stored into a [32, 32]
// scratch whose rows below M are copied into the output ([M, N]: with N
// padded, the last block is min(nb, N - n0) columns wide and its writes are
// masked, so the result needs no slice and its consumers fuse).
// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// K = 3, N = 16 (padded to 32 columns), w[k, n] = 16 k + n; hex bf16 pairs:
// 0 16 | 1 17 | 2 18 ..., 16 zero pairs (the padded columns), then
// 32 0 | 33 0 | ...
// CHECK-LABEL: func.func @odd_k
// CHECK:         %[[W:.+]] = arith.constant dense<"0x00008041803F884100409041404098418040A041A040A841C040B041E040B8410041C0411041C8412041D0413041D8414041E0415041E8416041F0417041F841{{0+}}42000004420000084200000C42{{[0-9A-F]*}}"> : tensor<16x64xbf16>
// CHECK:         %[[WBUF:.+]] = bufferization.to_buffer %[[W]] read_only : tensor<16x64xbf16> to memref<16x64xbf16>
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<32x16xf32>)
// CHECK:           %[[A:.+]] = memref.alloc() : memref<32x32xbf16>
// CHECK:           %[[C:.+]] = memref.alloc() : memref<32x32xf32>
// CHECK:           arith.minsi
// CHECK:           scf.if
// CHECK:             vector.transfer_read {{.*}} : tensor<32x3xf32>, vector<16xf32>
// CHECK:             arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK:             vector.store {{.*}}, %[[A]]
// CHECK:           } else {
// CHECK:             vector.store {{.*}}, %[[A]]
// CHECK:           amx.tile_zero : !amx.tile<16x16xf32>
// CHECK:           scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK:             amx.tile_load %[[A]][%{{.+}}, %{{.+}}] : memref<32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[A]][%{{.+}}, %{{.+}}] : memref<32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[WBUF]][%{{.+}}, %{{.+}}] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[WBUF]][%{{.+}}, %{{.+}}] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-4:     amx.tile_mulf {{.*}} : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
// CHECK-COUNT-4:   amx.tile_store %[[C]]
// CHECK:           vector.load %[[C]]
// N padded: the block min(32, 16 - n0) columns wide, the writes masked
// (in_bounds false), the result [32, 16] itself, marked for consumer fusion.
// CHECK:           vector.transfer_write {{.*}} : vector<16xf32>, tensor<32x?xf32>
// CHECK:           tensor.parallel_insert_slice {{.*}} [32, %{{.+}}] [1, 1] : tensor<32x?xf32> into tensor<32x16xf32>
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = false, mapping = [#llm.block_loop]}
// CHECK-NOT:     tensor.extract_slice
func.func @odd_k(%x: tensor<32x3xf32>) -> tensor<32x16xf32> {
  %w = llm.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0]]> : tensor<3x16xf32>
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<32x3xf32>, tensor<3x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// A bf16 model, W [N, K] (transpose_b), a 3-D lhs of 40 rows and N = 64
// (two panels in one block): the activation read as it is, the block loop
// marked for consumer fusion, the f32 result rounded to bf16 after it.
// CHECK-LABEL: func.func @bf16_nk
// CHECK:         arith.constant {{.*}} : tensor<64x64xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         scf.forall (%{{.+}}) in (1)
// CHECK:           vector.transfer_read {{.*}} : tensor<40x64xbf16>, vector<16xbf16>
// CHECK:           amx.tile_mulf
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = false, mapping = [#llm.block_loop]}
// CHECK:         tensor.expand_shape
// CHECK:         arith.truncf {{.*}} : f32 to bf16
func.func @bf16_nk(%x: tensor<2x20x64xbf16>) -> tensor<2x20x64xbf16> {
  %w = llm.constant dense<0.5> : tensor<64x64xbf16>
  %y = llm.matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<2x20x64xbf16>, tensor<64x64xbf16>) -> tensor<2x20x64xbf16>
  return %y : tensor<2x20x64xbf16>
}

// -----

// Fewer than 32 rows (a configuration written for another shape): the
// AVX512-BF16 dot-product kernel.
// CHECK-LABEL: func.func @rows8
// CHECK-NOT:     amx.
// CHECK:         x86vector.avx512.dot
// CHECK-NOT:     amx.
// CHECK:         return
func.func @rows8(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %w = llm.constant dense<0.5> : tensor<32x32xf32>
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// llm.matmul_integer (W8A8) on AMX-INT8 tiles (dot_product = "amx_i8"): b'
// (s8) packed in AMX's quad layout, [Np / 32 * Kp / 4, 128] bytes (K = 8
// padded to 64: 16 rows of quads per panel), w[k, n] = k: row 0 holds the
// quads 0 1 2 3 of the 16 columns, then the padded columns' zeros, row 1
// 4 5 6 7; u8 a' copied into the [32, 64] scratch; tdpbusd (a zero-
// extended, b signed); the zero-point term -za' sum_k b' = -3 * 28 read per
// column (masked: N = 16 is padded to 32) as the rows are copied out.
// CHECK-LABEL: func.func @w8a8
// CHECK-DAG:     arith.constant dense<-84> : tensor<16xi32>
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<"0x00010203000102030001020300010203{{(00010203)+}}{{0+}}04050607040506070405060704050607{{[0-9A-F]*}}"> : tensor<16x128xi8>
// CHECK:         bufferization.to_buffer %[[W]] read_only : tensor<16x128xi8> to memref<16x128xi8>
// CHECK:         scf.forall
// CHECK:           memref.alloc() : memref<32x64xi8>
// CHECK:           memref.alloc() : memref<32x32xi32>
// CHECK:           vector.transfer_read {{.*}} : tensor<32x8xi8>, vector<16xi8>
// CHECK:           amx.tile_zero : !amx.tile<16x16xi32>
// CHECK-COUNT-4:   amx.tile_muli %{{.+}} zext, %{{.+}}, %{{.+}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK-COUNT-4:   amx.tile_store
// CHECK:           vector.load {{.*}} : memref<32x32xi32>, vector<16xi32>
// CHECK:           vector.transfer_read {{.*}} : tensor<16xi32>, vector<16xi32>
// CHECK:           arith.addi {{.*}} : vector<16xi32>
// CHECK:         } {llm.fuse_consumers, llm.fuse_producers = false, mapping = [#llm.block_loop]}
// CHECK-NOT:     tensor.extract_slice
func.func @w8a8(%a: tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<32x16xi32> {
  %w = llm.constant dense<[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5], [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]]> : tensor<8x16xi8>
  %b = quant.scast %w : tensor<8x16xi8> to tensor<8x16x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "amx_i8"}} : (tensor<32x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<32x16xi32>
  return %y : tensor<32x16xi32>
}
