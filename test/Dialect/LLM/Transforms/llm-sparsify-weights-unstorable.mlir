// Quantized weights that the sparse formats cannot hold, and W8A8 weights
// (llm.matmul_integer), whose sparse kernel takes bsr16x16 only.
// RUN: llm-opt %s --split-input-file --llm-sparsify-weights 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not llm-opt %s --split-input-file --llm-sparsify-weights=format=bsr16x16 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not llm-opt %s --split-input-file --llm-sparsify-weights=format=bsr4x4 2>&1 | FileCheck %s --check-prefix=FORCED4

// A u8 weight with zero point 0 and a stored 255: its level q - zp = 255
// does not fit the i8 the sparse kernels store, so it stays dense (a remark
// says why; no attribute), and a forced format is an error at it.
// CHECK-LABEL: func.func @level_out_of_range
// CHECK-NOT: llm.sparse_format
// CHECK: return
// REMARK: loc("u8_255"): llm-sparsify-weights: weight [N=2, K=8] stays dense: its level q - zp = 255 lies outside [-128, 127] (the sparse kernels store the levels as i8)
// FORCED: error: loc("u8_255"): llm-sparsify-weights: format=bsr16x16 for a weight [N={{[0-9]+}}, K={{[0-9]+}}] that cannot be stored sparse: its level q - zp = 255 lies outside [-128, 127]
// FORCED4: error: loc("u8_255"): llm-sparsify-weights: format=bsr4x4 for a weight [N={{[0-9]+}}, K={{[0-9]+}}] that cannot be stored sparse: its level q - zp = 255
func.func @level_out_of_range(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[0, 0, 0, 0, 0, 0, 0, -1], [0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x8xi8>
  %w = quant.scast %c : tensor<2x8xi8> to tensor<2x8x!quant.uniform<u8:f32, 0.5:0>>
  %y = llm.dequant_matmul %x, %w {transpose_b} : (tensor<1x8xf32>, tensor<2x8x!quant.uniform<u8:f32, 0.5:0>>) -> tensor<1x2xf32> loc("u8_255")
  return %y : tensor<1x2xf32>
}

// -----

// W8A8: one 16x16 block of two along K (levels b - zb, zb = 1); bsr16x16
// (258 of 512 bytes at the 16x16 kernel's efficiency on levels, 0.76:
// 1.51x), the only format its kernel takes: forcing 4x4 is an error.
// CHECK-LABEL: func.func @w8a8
// CHECK: llm.sparse_format = {bytes = 258 : i64, dense_bytes = 512 : i64, {{.*}}format = "bsr16x16"}
// REMARK: loc("w8a8"): llm-sparsify-weights: weight [N=16, K=32] density {{.*}}: bsr16x16 (1.51x dense estimated, 258 of 512 bytes)
// FORCED4: error: loc("w8a8"): llm-sparsify-weights: format=bsr4x4 for the weight [N=16, K=32] of an llm.matmul_integer: its sparse kernel takes bsr16x16 only
func.func @w8a8(%a: tensor<1x32x!quant.uniform<u8:f32, 1.0:3>>) -> tensor<1x16xi32> {
  %c = arith.constant dense<[[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [-4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2], [3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0], [2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2], [-1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4], [-3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3], [4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2], [2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1], [0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3], [-2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4], [-4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2], [3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0], [2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2], [-1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4], [-3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3], [4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1, 0, 2], [2, 3, 4, -4, -3, -2, -1, 0, 2, 2, 3, 4, -4, -3, -2, -1]]> : tensor<32x16xi8>
  %w = quant.scast %c : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 1.0:1>>
  %y = llm.matmul_integer %a, %w : (tensor<1x32x!quant.uniform<u8:f32, 1.0:3>>, tensor<32x16x!quant.uniform<i8:f32, 1.0:1>>) -> tensor<1x16xi32> loc("w8a8")
  return %y : tensor<1x16xi32>
}
