// llm-sparsify-weights on llm.dequant_matmul weights: the levels q - zp
// are measured (a u8 weight's zeros are its zero point), priced at one byte
// per stored level against the dense storage (1 byte for 8-bit, half for
// 4-bit); sub-channel (grouped) scales count in every format's bytes and
// rule out the formats whose stored units cross a group.
// RUN: llm-opt %s --llm-sparsify-weights 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// A forced format that does not take a weight's groups is an error at it;
// one that does is recorded.
// RUN: not llm-opt %s --llm-sparsify-weights=format=csr 2>&1 | FileCheck %s --check-prefix=CSR
// RUN: not llm-opt %s --llm-sparsify-weights=format=bsr16x16 2>&1 | FileCheck %s --check-prefix=BSR16
// RUN: llm-opt %s --llm-sparsify-weights=format=bsr1x4 2>/dev/null | FileCheck %s --check-prefix=BSR1X4
// CSR: error: loc("grouped"): llm-sparsify-weights: format=csr for a weight with sub-channel scales in groups of 4 along K: the sparse kernels take such scales with blocks whose columns divide the group, and with 2:4 for groups of a multiple of 32 (not CSR)
// BSR16: error: loc("grouped"): llm-sparsify-weights: format=bsr16x16 for a weight with sub-channel scales in groups of 4
// BSR1X4-COUNT-5: format = "bsr1x4"

// One 4x4 block of the four: BSR4, 18 bytes (16 levels + the 2-byte block
// column) of 64 (i8) or of 32 (i4, 1.58x estimated).
// CHECK-LABEL: func.func @i8_per_channel
// CHECK: llm.sparse_format = {bytes = 18 : i64, dense_bytes = 64 : i64, {{.*}}format = "bsr4x4"}
// REMARK: loc("i8"): llm-sparsify-weights: weight [N=8, K=8] density 0.250, {{.*}}: bsr4x4 (3.16x dense estimated, 18 of 64 bytes)
func.func @i8_per_channel(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[0, 0, 0, 0, 3, 4, 5, 6], [0, 0, 0, 0, 1, 1, 5, 6], [0, 0, 0, 0, 2, 2, 6, 3], [0, 0, 0, 0, 2, 5, 2, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x8xi8>
  %w = quant.scast %c : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<8x8x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}>>) -> tensor<1x8xf32> loc("i8")
  return %y : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @u8_zero_point
// CHECK: llm.sparse_format = {{.*}}format = "bsr4x4"
// REMARK: loc("u8"): llm-sparsify-weights: weight [N=8, K=8] density 0.250,
func.func @u8_zero_point(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[-128, -128, -128, -128, -125, -124, -123, -122], [-128, -128, -128, -128, -127, -127, -123, -122], [-128, -128, -128, -128, -126, -126, -122, -125], [-128, -128, -128, -128, -126, -123, -126, -125], [-128, -128, -128, -128, -128, -128, -128, -128], [-128, -128, -128, -128, -128, -128, -128, -128], [-128, -128, -128, -128, -128, -128, -128, -128], [-128, -128, -128, -128, -128, -128, -128, -128]]> : tensor<8x8xi8>
  %w = quant.scast %c : tensor<8x8xi8> to tensor<8x8x!quant.uniform<u8:f32, 0.5:128>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<8x8x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<1x8xf32> loc("u8")
  return %y : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @i4_per_channel
// CHECK: llm.sparse_format = {bytes = 18 : i64, dense_bytes = 32 : i64, {{.*}}format = "bsr4x4"}
// REMARK: loc("i4"): llm-sparsify-weights: {{.*}}: bsr4x4 (1.58x dense estimated, 18 of 32 bytes)
func.func @i4_per_channel(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[0, 0, 0, 0, 3, 4, 5, 6], [0, 0, 0, 0, 1, 1, 5, 6], [0, 0, 0, 0, 2, 2, 6, 3], [0, 0, 0, 0, 2, 5, 2, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x8xi4>
  %w = quant.scast %c : tensor<8x8xi4> to tensor<8x8x!quant.uniform<i4:f32:0, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<8x8x!quant.uniform<i4:f32:0, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}>>) -> tensor<1x8xf32> loc("i4")
  return %y : tensor<1x8xf32>
}

// Scales per group of 4 along K (16 f32 scales, 64 bytes in every format):
// the same 4x4 block as @i8_per_channel, 18 + 64 bytes of 64 + 64.
// CHECK-LABEL: func.func @grouped
// CHECK: llm.sparse_format = {bytes = 82 : i64, dense_bytes = 128 : i64, {{.*}}format = "bsr4x4"}
// REMARK: loc("grouped"): llm-sparsify-weights: weight [N=8, K=8] density 0.250, {{.*}}, scales in groups of 4: bsr4x4 (1.39x dense estimated, 82 of 128 bytes)
func.func @grouped(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[0, 0, 0, 0, 3, 4, 5, 6], [0, 0, 0, 0, 1, 1, 5, 6], [0, 0, 0, 0, 2, 2, 6, 3], [0, 0, 0, 0, 2, 5, 2, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x8xi8>
  %w = quant.scast %c : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<8x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}>>) -> tensor<1x8xf32> loc("grouped")
  return %y : tensor<1x8xf32>
}

// Four nonzeros in four 4x4 blocks of an [8, 16] weight ([K, N] layout)
// with groups of 8 along K (16 scales, 64 bytes). Without groups CSR would
// win (12 + 64 of 192 bytes: 1.77x); CSR's chunks cross groups, so 4x4
// blocks (4 x 18 + 64 bytes: 1.26x) are chosen.
// CHECK-LABEL: func.func @grouped_no_csr
// CHECK: llm.sparse_format = {bytes = 136 : i64, dense_bytes = 192 : i64, {{.*}}format = "bsr4x4"}
// REMARK: loc("grouped_no_csr"): llm-sparsify-weights: weight [N=8, K=16] density 0.031, {{.*}}, scales in groups of 8: bsr4x4 (1.26x dense estimated, 136 of 192 bytes)
func.func @grouped_no_csr(%x: tensor<1x16xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[9, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 7, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, -3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 5]]> : tensor<16x8xi8>
  %w = quant.scast %c : tensor<16x8xi8> to tensor<16x8x!quant.uniform<i8:f32:{0:8,1:1}, {{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25}}>>
  %y = llm.dequant_matmul %x, %w : (tensor<1x16xf32>, tensor<16x8x!quant.uniform<i8:f32:{0:8,1:1}, {{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25}}>>) -> tensor<1x8xf32> loc("grouped_no_csr")
  return %y : tensor<1x8xf32>
}
