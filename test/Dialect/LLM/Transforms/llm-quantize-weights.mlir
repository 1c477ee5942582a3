// RUN: llm-opt %s -llm-quantize-weights | FileCheck %s
// RUN: llm-opt %s -llm-quantize-weights="bits=4 group-size=2 symmetric=false" | FileCheck %s --check-prefix=INT4
// RUN: llm-opt %s -llm-quantize-weights -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: llm-opt %s -llm-quantize-weights -llm-fold-quant | FileCheck %s --check-prefix=FUSED
// RUN: not llm-opt %s -llm-quantize-weights=bits=3 -o %t.mlir 2>&1 | FileCheck %s --check-prefix=BITS

// int8 per output channel, symmetric: s_n = max|w[:, n]| / 127, no ties:
// column 0: 127 * [1, -0.25, 0.75, 0] = [127, -31.75, 95.25, 0];
// column 1: 63.5 * [-0.5, 2, 0.25, -1.5] = [-31.75, 127, 15.875, -95.25].
// The weight, stored [K, N], is stored [N, K] (one row per output channel,
// the decode kernels' layout) and the matmul takes transpose_b.
// CHECK-LABEL: func.func @weights
// CHECK:         %[[C:.+]] = arith.constant dense<{{\[\[}}127, -32, 95, 0], [-32, 127, 16, -95]]> : tensor<2x4xi8>
// CHECK:         %[[Q:.+]] = quant.scast %[[C]] : tensor<2x4xi8> to tensor<2x4x!quant.uniform<i8:f32:0, {0.0078740157{{[0-9]*}},0.015748031{{[0-9]*}}}>>
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]]
// CHECK:         llm.matmul %arg0, %[[D]] {transpose_b}
// A non-constant weight is left alone.
// CHECK:         llm.matmul %arg0, %arg1
// INT4-LABEL: func.func @weights
// INT4:         arith.constant dense<{{.*}}> : tensor<2x4xi4>
// INT4:         quant.scast %{{.+}} : tensor<2x4xi4> to tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{.*}}>>
// REMARK: remark: llm-quantize-weights: 1 weights (8 elements) to int8, max abs error {{[0-9.e-]+}}, RMS error {{[0-9.e-]+}}
// FUSED: llm.dequant_matmul %arg0, %{{.+}} {transpose_b} : (tensor<3x4xf32>, tensor<2x4x!quant.uniform<i8:f32:0
// BITS: error: llm-quantize-weights: bits must be 8 or 4
func.func @weights(%x: tensor<3x4xf32>, %v: tensor<4x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = llm.constant dense<[[1.0, -0.5], [-0.25, 2.0], [0.75, 0.25], [0.0, -1.5]]> : tensor<4x2xf32>
  %y = llm.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = llm.matmul %x, %v : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
