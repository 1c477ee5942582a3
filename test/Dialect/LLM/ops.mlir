// RUN: llm-opt %s | llm-opt | FileCheck %s
// RUN: llm-opt %s --mlir-print-op-generic | llm-opt | FileCheck %s

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: llm.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = llm.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func @gelu
func.func @gelu(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: llm.gelu %{{.*}} : tensor<4xf32>
  %0 = llm.gelu %a : tensor<4xf32>
  // CHECK: llm.gelu %{{.*}} approximate <tanh> : tensor<4xf32>
  %1 = llm.gelu %0 approximate <tanh> : tensor<4xf32>
  return %1 : tensor<4xf32>
}
