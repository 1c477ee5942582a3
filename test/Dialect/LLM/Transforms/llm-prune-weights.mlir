// RUN: llm-opt %s --llm-prune-weights="pattern=2:4" | FileCheck %s --check-prefix=NM
// RUN: llm-opt %s --llm-prune-weights="pattern=unstructured density=0.25" | FileCheck %s --check-prefix=UNSTR
// RUN: llm-opt %s --llm-prune-weights="pattern=1x4 density=0.5" | FileCheck %s --check-prefix=BLOCK
// RUN: llm-opt %s --llm-prune-weights="pattern=2:4" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: not llm-opt %s --llm-prune-weights="pattern=5:4" 2>&1 | FileCheck %s --check-prefix=BADNM
// RUN: not llm-opt %s --llm-prune-weights="pattern=blocks" 2>&1 | FileCheck %s --check-prefix=BADNM
// RUN: not llm-opt %s --llm-prune-weights="pattern=4x4 density=0" 2>&1 | FileCheck %s --check-prefix=DENSITY
// A block or group longer than the weight is the whole weight along that
// dimension (a block of 2^63 - 1 rows overflowed the block count and crashed):
// the same result as the weight's own sizes (N = 2, K = 8).
// RUN: llm-opt %s --llm-prune-weights="pattern=9223372036854775807x2 density=0.5" -o %t.huge-rows.mlir
// RUN: llm-opt %s --llm-prune-weights="pattern=2x2 density=0.5" -o %t.rows.mlir
// RUN: diff %t.huge-rows.mlir %t.rows.mlir
// RUN: llm-opt %s --llm-prune-weights="pattern=1x9223372036854775807 density=0.5" -o %t.huge-cols.mlir
// RUN: llm-opt %s --llm-prune-weights="pattern=1x8 density=0.5" -o %t.cols.mlir
// RUN: diff %t.huge-cols.mlir %t.cols.mlir
// RUN: llm-opt %s --llm-prune-weights="pattern=1:9223372036854775807" -o %t.huge-m.mlir
// RUN: llm-opt %s --llm-prune-weights="pattern=1:8" -o %t.m.mlir
// RUN: diff %t.huge-m.mlir %t.m.mlir

// W is stored [K = 8, N = 2]: channel 0 is [1, -5, 3, 2, 0.5, 0.1, -7, 4]
// along K, channel 1 all ones.
// 2:4 keeps the two largest |w| of each group of 4 along K (ties: the lower
// k): channel 0 [0, -5, 3, 0, 0, 0, -7, 4], channel 1 [1, 1, 0, 0, 1, 1, 0, 0].
// NM: llm.constant dense<{{\[}}[0.000000e+00, 1.000000e+00], [-5.000000e+00, 1.000000e+00], [3.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00], [-7.000000e+00, 0.000000e+00], [4.000000e+00, 0.000000e+00]]> : tensor<8x2xf32>
// The 4 largest of the 16 |w|: -7, -5, 4, 3.
// UNSTR: llm.constant dense<{{\[}}[0.000000e+00, 0.000000e+00], [-5.000000e+00, 0.000000e+00], [3.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [-7.000000e+00, 0.000000e+00], [4.000000e+00, 0.000000e+00]]> : tensor<8x2xf32>
// 1x4 blocks of W[N, K] by L1 norm: channel 0's two blocks (11, 11.6) beat
// channel 1's (4, 4).
// BLOCK: llm.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [-5.000000e+00, 0.000000e+00], [3.000000e+00, 0.000000e+00], [2.000000e+00, 0.000000e+00], [5.000000e-01, 0.000000e+00], [1.000000e-01, 0.000000e+00], [-7.000000e+00, 0.000000e+00], [4.000000e+00, 0.000000e+00]]> : tensor<8x2xf32>
// REMARK: remark: llm-prune-weights: 1 weights pruned to 2:4 (8 of 16 elements zero), max abs error 2.000000e+00, RMS error 7.6075{{[0-9]+}}e-01
// BADNM: error: llm-prune-weights: unknown pattern
// DENSITY: error: llm-prune-weights: density must be in (0, 1], got 0
func.func @main(%x: tensor<3x8xf32>) -> tensor<3x2xf32> {
  %w = llm.constant dense<[[1.0, 1.0], [-5.0, 1.0], [3.0, 1.0], [2.0, 1.0], [0.5, 1.0], [0.1, 1.0], [-7.0, 1.0], [4.0, 1.0]]> : tensor<8x2xf32>
  %y = llm.matmul %x, %w : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
