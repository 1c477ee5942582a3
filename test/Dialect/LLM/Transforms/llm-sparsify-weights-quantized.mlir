// llm-sparsify-weights on llm.dequant_matmul weights: the levels q - zp
// are measured (a u8 weight's zeros are its zero point), priced at one byte
// per stored level against the dense storage (1 byte for 8-bit, half for
// 4-bit); sub-channel (grouped) scales are not taken.
// RUN: llm-opt %s --llm-sparsify-weights 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

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

// Scales per group of 4 along K: not measured (no attribute).
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: llm.sparse_format
// CHECK: return
func.func @grouped(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[0, 0, 0, 0, 3, 4, 5, 6], [0, 0, 0, 0, 1, 1, 5, 6], [0, 0, 0, 0, 2, 2, 6, 3], [0, 0, 0, 0, 2, 5, 2, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x8xi8>
  %w = quant.scast %c : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<8x8x!quant.uniform<i8:f32:{0:1,1:4}, {{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}>>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
