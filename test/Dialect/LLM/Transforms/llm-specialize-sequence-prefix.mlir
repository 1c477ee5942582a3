// RUN: llm-opt %s -llm-specialize-sequence="length=3 new-entry=s3" | FileCheck %s

// The prefix of a table becomes a static slice of the fixed length along its
// axes (the original keeps the dynamic form).

// CHECK-LABEL: func.func @main(
// CHECK: llm.sequence_prefix %{{.*}} {axes = array<i64: 1>} : (tensor<1x8x2xf32>) -> tensor<1x?x2xf32>
// CHECK-LABEL: func.func @s3(%arg0: tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
// CHECK: %[[T:.*]] = llm.constant
// CHECK: %[[P:.*]] = llm.slice %[[T]] {limits = array<i64: 1, 3, 2>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x8x2xf32>) -> tensor<1x3x2xf32>
// CHECK-NOT: llm.sequence_prefix
// CHECK: llm.add %arg0, %[[P]] : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
func.func @main(%x: tensor<1x?x2xf32> {llm.dim_bounds = array<i64: 1, 8, 2>}) -> tensor<1x?x2xf32> {
  %t = llm.constant dense<1.0> : tensor<1x8x2xf32>
  %p = llm.sequence_prefix %t {axes = array<i64: 1>} : (tensor<1x8x2xf32>) -> tensor<1x?x2xf32>
  %r = llm.add %x, %p : (tensor<1x?x2xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2xf32>
  return %r : tensor<1x?x2xf32>
}
