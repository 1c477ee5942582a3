// The integer matmul on 8-bit dot products (llm.matmul_integer with
// dot_product = "i8" in its llm.lowering_config, which
// llm-select-lowering-config writes on AVX512-VNNI targets): a constant
// weight is packed at compile time and each register tile accumulates
// vpdpbusd (u8 x s8, four elements of K per i32 lane) over K. Without the
// configuration (or with "f32") the exact f32 panels.
// RUN: llm-opt %s -llm-select-lowering-config=target=avx512-bf16 -convert-llm-to-linalg -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-select-lowering-config=target=avx512 -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=F32 --implicit-check-not=vpdpbusd
// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=F32 --implicit-check-not=vpdpbusd
// AVX-VNNI (target=alderlake: AVX2 with AVX-VNNI, vector_bits = 256): the
// same kernel on 8-lane ymm accumulators, `{vex} vpdpbusd` on ymm0-15.
// RUN: llm-opt %s -llm-select-lowering-config=target=alderlake -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=YMM

// u8 a (za = 3) x i8 b[k, n] = k (zb = 0): the weight packed [N / 16, K / 4
// * 16 * 4] (16-column tiles: N = 16), step q of K holding bytes
// b[4q .. 4q + 3, c] for each column c; the constant term -za * sum_k b =
// -3 * 28 per column; zb = 0: no row sums of a. Two rows: one tile of 2 x 16.
// CHECK-LABEL: func.func @u8_i8
// CHECK-DAG:     arith.constant dense<"0x0001020300010203000102030001020300010203000102030001020300010203000102030001020300010203000102030001020300010203000102030001020304050607040506070405060704050607040506070405060704050607040506070405060704050607040506070405060704050607040506070405060704050607"> : tensor<1x128xi8>
// CHECK-DAG:     arith.constant dense<-84> : tensor<16xi32>
// CHECK:         scf.forall (%[[J:.+]]) in (1) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x16xi32>)
// CHECK:           %[[TILE:.+]] = tensor.extract_slice %[[OUT]][0, %{{.+}}] [2, 16] [1, 1]
// CHECK:           scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x128xi8>, vector<64xi8>
// CHECK:             vector.transfer_read {{.*}} : tensor<2x8xi8>, vector<4xi8>
// CHECK:             vector.bitcast {{.*}} : vector<4xi8> to vector<1xi32>
// CHECK:             vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK:             llvm.inline_asm "vpdpbusd $3, $2, $0", "=v,0,v,v"
// CHECK-COUNT-2:     vector.transfer_write {{.*}} : vector<16xi32>, tensor<2x16xi32>
// CHECK:           tensor.parallel_insert_slice
// CHECK:         } {llm.fuse_consumers, mapping = [#llm.block_loop]}
// CHECK-NOT:     linalg.generic
// CHECK:         return
// F32-LABEL: func.func @u8_i8
// F32:         linalg.matmul {llm.vectorize_in_place}
// YMM-LABEL: func.func @u8_i8
// YMM:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x16xi32>)
// YMM:           scf.for {{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// YMM:             vector.transfer_read {{.*}} : tensor<1x128xi8>, vector<32xi8>
// YMM:             vector.broadcast {{.*}} : i32 to vector<8xi32>
// YMM:             llvm.inline_asm "{vex} vpdpbusd $3, $2, $0", "=x,0,x,x"
func.func @u8_i8(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<2x16xi32> {
  %w = llm.constant dense<[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5], [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]]> : tensor<8x16xi8>
  %b = quant.scast %w : tensor<8x16xi8> to tensor<8x16x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

// i8 a (za = -1) x u8 b = 130 everywhere with zb = 128: a is shifted to u8
// (xor 0x80, za' = 127), b to s8 (b' = 2, zb' = 0) -- no row sums; the
// constant term is -127 * 2 * 8 = -2032. 32 columns: 32-column tiles (two
// accumulators per row).
// CHECK-LABEL: func.func @i8_u8
// CHECK:         arith.constant dense<-2032> : tensor<32xi32>
// CHECK:         linalg.generic
// CHECK:           arith.xori
// CHECK:         arith.constant dense<2> : tensor<1x256xi8>
// CHECK:         scf.forall (%{{.+}}) in (1)
// CHECK:           scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-2:     llvm.inline_asm "vpdpbusd $3, $2, $0"
// CHECK:         } {llm.fuse_consumers, mapping = [#llm.block_loop]}
func.func @i8_u8(%a: tensor<1x8x!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<1x32xi32> {
  %w = llm.constant dense<-126> : tensor<8x32xi8>
  %b = quant.scast %w : tensor<8x32xi8> to tensor<8x32x!quant.uniform<u8:f32, 1.0:128>>
  %y = llm.matmul_integer %a, %b : (tensor<1x8x!quant.uniform<i8:f32, 1.0:-1>>, tensor<8x32x!quant.uniform<u8:f32, 1.0:128>>) -> tensor<1x32xi32>
  return %y : tensor<1x32xi32>
}

// -----

// Per-column weight zero points that are not 0: the row sums of a (an i32
// reduction over K) and zb' per column, subtracted in the epilogue.
// CHECK-LABEL: func.func @row_sums
// CHECK:         %[[RS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.extui {{.*}} : i8 to i32
// CHECK:         scf.forall
// CHECK:           llvm.inline_asm "vpdpbusd
// CHECK:           tensor.extract %[[RS]]
// CHECK:           arith.muli {{.*}} : vector<16xi32>
// CHECK:           arith.subi {{.*}} : vector<16xi32>
func.func @row_sums(%a: tensor<3x4x!quant.uniform<u8:f32, 1.0>>) -> tensor<3x16xi32> {
  %w = llm.constant dense<1> : tensor<4x16xi8>
  %b = quant.scast %w : tensor<4x16xi8> to tensor<4x16x!quant.uniform<i8:f32:1, {1.0:1, 1.0:2, 1.0:3, 1.0:4, 1.0:5, 1.0:6, 1.0:7, 1.0:8, 1.0:9, 1.0:10, 1.0:11, 1.0:12, 1.0:13, 1.0:14, 1.0:15, 1.0:16}>>
  %y = llm.matmul_integer %a, %b : (tensor<3x4x!quant.uniform<u8:f32, 1.0>>, tensor<4x16x!quant.uniform<i8:f32:1, {1.0:1, 1.0:2, 1.0:3, 1.0:4, 1.0:5, 1.0:6, 1.0:7, 1.0:8, 1.0:9, 1.0:10, 1.0:11, 1.0:12, 1.0:13, 1.0:14, 1.0:15, 1.0:16}>>) -> tensor<3x16xi32>
  return %y : tensor<3x16xi32>
}

// -----

// What the dot-product kernel does not take falls back to the f32 panels:
// N not a multiple of 16, K not a multiple of 4, a weight that is not a
// constant.
// CHECK-LABEL: func.func @fallbacks
// CHECK-NOT:     vpdpbusd
// CHECK-COUNT-3: linalg.matmul {llm.vectorize_in_place}
// CHECK-NOT:     vpdpbusd
// CHECK:         return
func.func @fallbacks(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0>>, %a6: tensor<2x6x!quant.uniform<u8:f32, 1.0>>, %r: tensor<8x16xi8>) -> (tensor<2x40xi32>, tensor<2x16xi32>, tensor<2x16xi32>) {
  %w = llm.constant dense<1> : tensor<8x40xi8>
  %b = quant.scast %w : tensor<8x40xi8> to tensor<8x40x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b : (tensor<2x8x!quant.uniform<u8:f32, 1.0>>, tensor<8x40x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x40xi32>
  %w6 = llm.constant dense<1> : tensor<6x16xi8>
  %b6 = quant.scast %w6 : tensor<6x16xi8> to tensor<6x16x!quant.uniform<i8:f32, 1.0>>
  %y6 = llm.matmul_integer %a6, %b6 : (tensor<2x6x!quant.uniform<u8:f32, 1.0>>, tensor<6x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  %br = quant.scast %r : tensor<8x16xi8> to tensor<8x16x!quant.uniform<i8:f32, 1.0>>
  %yr = llm.matmul_integer %a, %br : (tensor<2x8x!quant.uniform<u8:f32, 1.0>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y, %y6, %yr : tensor<2x40xi32>, tensor<2x16xi32>, tensor<2x16xi32>
}

// -----

// N = 256 with 32-column register tiles: blocks of 128 columns (four
// register tile columns each) for the parallel loop, so that the fused
// epilogue writes rows of 128 columns.
// CHECK-LABEL: func.func @blocks
// CHECK:         scf.forall (%{{.+}}) in (2) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<8x256xi32>)
// CHECK:           tensor.extract_slice %[[OUT]][0, %{{.+}}] [8, 128] [1, 1]
// CHECK:           %[[C128:.+]] = arith.constant 128 : index
// CHECK:           %[[C32:.+]] = arith.constant 32 : index
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[C128]] step %[[C32]]
// CHECK:             scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-16:      llvm.inline_asm "vpdpbusd
// CHECK:           tensor.parallel_insert_slice {{.*}} [8, 128] [1, 1]
func.func @blocks(%a: tensor<8x8x!quant.uniform<u8:f32, 1.0>>) -> tensor<8x256xi32> {
  %w = llm.constant dense<3> : tensor<8x256xi8>
  %b = quant.scast %w : tensor<8x256xi8> to tensor<8x256x!quant.uniform<i8:f32, 1.0>>
  %y = llm.matmul_integer %a, %b : (tensor<8x8x!quant.uniform<u8:f32, 1.0>>, tensor<8x256x!quant.uniform<i8:f32, 1.0>>) -> tensor<8x256xi32>
  return %y : tensor<8x256xi32>
}
