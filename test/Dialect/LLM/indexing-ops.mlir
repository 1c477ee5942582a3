// RUN: llm-opt %s | llm-opt | FileCheck %s
// RUN: llm-opt %s --mlir-print-op-generic | llm-opt | FileCheck %s
// RUN: llm-opt %s --emit-bytecode | llm-opt | FileCheck %s

// Round trip of the ops of LLMIndexingOps.td and llm.acos/asin/atan (custom
// and generic forms, bytecode); defaults are elided.

// CHECK-LABEL: func.func @gather_nd
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<5x2xi64>, %j: tensor<2x1xi32>) -> (tensor<5x4xf32>, tensor<2x4xf32>) {
  // CHECK: llm.gather_nd %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  %0 = llm.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  // CHECK: llm.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  %1 = llm.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @scatters
func.func @scatters(%c: tensor<1x16x64xf32>, %p: tensor<1x1x2xi64>, %kv: tensor<1x1x64xf32>,
                    %x: tensor<3x5xi64>, %i: tensor<3x2xi64>, %u: tensor<3x2xi64>) -> (tensor<1x16x64xf32>, tensor<3x5xi64>, tensor<3x5xi64>) {
  // CHECK: llm.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x16x64xf32>, tensor<1x1x2xi64>, tensor<1x1x64xf32>) -> tensor<1x16x64xf32>
  %0 = llm.scatter_nd %c, %p, %kv : (tensor<1x16x64xf32>, tensor<1x1x2xi64>, tensor<1x1x64xf32>) -> tensor<1x16x64xf32>
  // CHECK: llm.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = #llm.scatter_reduction<max>} : (tensor<3x5xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x5xi64>
  %1 = llm.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #llm.scatter_reduction<max>} : (tensor<3x5xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x5xi64>
  // CHECK: llm.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x5xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x5xi64>
  %2 = llm.scatter_elements %x, %i, %u {reduction = #llm.scatter_reduction<none>} : (tensor<3x5xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x5xi64>
  return %0, %1, %2 : tensor<1x16x64xf32>, tensor<3x5xi64>, tensor<3x5xi64>
}

// CHECK-LABEL: func.func @topk
func.func @topk(%x: tensor<1x50xf32>, %y: tensor<6x2xi32>) -> (tensor<1x4xf32>, tensor<1x4xi64>, tensor<3x2xi32>, tensor<3x2xi64>) {
  // CHECK: llm.topk %{{.*}} {k = 4 : i64} : (tensor<1x50xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>)
  %v, %i = llm.topk %x {k = 4 : i64} : (tensor<1x50xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>)
  // CHECK: llm.topk %{{.*}} {axis = 0 : i64, k = 3 : i64, largest = false} : (tensor<6x2xi32>) -> (tensor<3x2xi32>, tensor<3x2xi64>)
  %w, %j = llm.topk %y {k = 3 : i64, axis = 0 : i64, largest = false} : (tensor<6x2xi32>) -> (tensor<3x2xi32>, tensor<3x2xi64>)
  return %v, %i, %w, %j : tensor<1x4xf32>, tensor<1x4xi64>, tensor<3x2xi32>, tensor<3x2xi64>
}

// CHECK-LABEL: func.func @dynamic_quantize
func.func @dynamic_quantize(%x: tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>) {
  // CHECK: llm.dynamic_quantize %{{.*}} : (tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>)
  %q, %s, %z = llm.dynamic_quantize %x : (tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>)
  return %q, %s, %z : tensor<3x4xi8>, tensor<f32>, tensor<i8>
}

// CHECK-LABEL: func.func @inverse_trig
func.func @inverse_trig(%x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>) {
  // CHECK: llm.acos %{{.*}} : tensor<4xf32>
  %0 = llm.acos %x : tensor<4xf32>
  // CHECK: llm.asin %{{.*}} : tensor<4xf32>
  %1 = llm.asin %x : tensor<4xf32>
  // CHECK: llm.atan %{{.*}} : tensor<4xbf16>
  %2 = llm.atan %h : tensor<4xbf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @reduce_sum_f64
func.func @reduce_sum_f64(%x: tensor<2x3xf64>) -> tensor<2x1xf64> {
  // CHECK: llm.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf64>) -> tensor<2x1xf64>
  %0 = llm.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf64>) -> tensor<2x1xf64>
  return %0 : tensor<2x1xf64>
}
