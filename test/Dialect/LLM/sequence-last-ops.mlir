// RUN: llm-opt %s | FileCheck %s
// RUN: llm-opt %s | llm-opt | FileCheck %s

// llm.sequence_last (LLMCacheOps.td): the last entry along an axis, kept as
// size 1; round trip of the op's forms.

// CHECK-LABEL: func.func @dynamic
// CHECK: llm.sequence_last %{{.*}} {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
func.func @dynamic(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 16, 4>}) -> tensor<1x1x4xf32> {
  %0 = llm.sequence_last %x {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// Any element type, a static axis.
// CHECK-LABEL: func.func @static_i64
// CHECK: llm.sequence_last %{{.*}} {axis = 0 : i64} : (tensor<6x3xi64>) -> tensor<1x3xi64>
func.func @static_i64(%x: tensor<6x3xi64>) -> tensor<1x3xi64> {
  %0 = llm.sequence_last %x {axis = 0 : i64} : (tensor<6x3xi64>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}
