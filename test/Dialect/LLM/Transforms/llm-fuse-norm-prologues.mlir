// RUN: llm-opt %s -llm-fuse="norm-prologue-max-rows=16" -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-fuse -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: not llm-opt %s -llm-fuse="norm-prologue-max-rows=-1" -split-input-file 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: error: llm-fuse: max-recompute-ops, max-fan-out and norm-prologue-max-rows must be >= 0

// A decode step's layer_norm read only by the matmul: one group
// {layer_norm, matmul, bias add}. Without the option the norm is a group of
// its own.
// CHECK-LABEL: func.func @decode_layer_norm
// CHECK:       %[[G:.+]] = llm.fusion_group : tensor<1x1x96xf32> {
// CHECK-NEXT:    llm.layer_norm
// CHECK-NEXT:    llm.matmul
// CHECK-NEXT:    llm.add
// CHECK-NEXT:    llm.yield
// CHECK-NOT:   llm.fusion_group
// CHECK:       return %[[G]]
// OFF-LABEL:   func.func @decode_layer_norm
// OFF:         llm.fusion_group : tensor<1x1x32xf32> {
// OFF-NEXT:      llm.layer_norm
// OFF-NEXT:      llm.yield
// OFF:         llm.fusion_group : tensor<1x1x96xf32> {
// OFF-NEXT:      llm.matmul
func.func @decode_layer_norm(%x: tensor<1x1x32xf32>) -> tensor<1x1x96xf32> {
  %w = llm.constant dense<0.5> : tensor<32x96xf32>
  %b = llm.constant dense<0.25> : tensor<96xf32>
  %n = llm.layer_norm %x {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
  %m = llm.matmul %n, %w : (tensor<1x1x32xf32>, tensor<32x96xf32>) -> tensor<1x1x96xf32>
  %y = llm.add %m, %b : (tensor<1x1x96xf32>, tensor<96xf32>) -> tensor<1x1x96xf32>
  return %y : tensor<1x1x96xf32>
}

// -----

// rms_norm with its epilogue (a scale) before a matmul alone: the matmul
// becomes a group {rms_norm, mul, matmul}.
// CHECK-LABEL: func.func @decode_rms_norm
// CHECK:       llm.fusion_group : tensor<2x64xf32> {
// CHECK-NEXT:    llm.rms_norm
// CHECK-NEXT:    llm.mul
// CHECK-NEXT:    llm.matmul
// CHECK-NEXT:    llm.yield
func.func @decode_rms_norm(%x: tensor<2x32xf32>, %s: tensor<2x32xf32>) -> tensor<2x64xf32> {
  %w = llm.constant dense<0.5> : tensor<32x64xf32>
  %n = llm.rms_norm %x {epsilon = 1.0e-5 : f32} : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %k = llm.mul %n, %s : (tensor<2x32xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
  %m = llm.matmul %k, %w : (tensor<2x32xf32>, tensor<32x64xf32>) -> tensor<2x64xf32>
  return %m : tensor<2x64xf32>
}

// -----

// Not merged: more rows than the option (a prefill); a norm with a second
// user; a norm over two dimensions; a norm read as the matmul's rhs.
// CHECK-LABEL: func.func @not_merged
// CHECK-COUNT-4: llm.fusion_group : tensor<{{[0-9x]+}}xf32> {
// CHECK-NEXT:      llm.layer_norm
// CHECK-NEXT:      llm.yield
func.func @not_merged(%x: tensor<32x32xf32>, %y: tensor<1x32xf32>, %z: tensor<2x4x8xf32>, %r: tensor<1x32xf32>)
    -> (tensor<32x64xf32>, tensor<1x64xf32>, tensor<1x32xf32>, tensor<2x4x16xf32>, tensor<1x32xf32>) {
  %w = llm.constant dense<0.5> : tensor<32x64xf32>
  %w8 = llm.constant dense<0.5> : tensor<8x16xf32>
  %n0 = llm.layer_norm %x {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %m0 = llm.matmul %n0, %w : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %n1 = llm.layer_norm %y {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x32xf32>) -> tensor<1x32xf32>
  %m1 = llm.matmul %n1, %w : (tensor<1x32xf32>, tensor<32x64xf32>) -> tensor<1x64xf32>
  %n2 = llm.layer_norm %z {axis = -2 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %m2 = llm.matmul %n2, %w8 : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %n3 = llm.layer_norm %r {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x32xf32>) -> tensor<1x32xf32>
  %wt = llm.constant dense<0.5> : tensor<32x1xf32>
  %m3 = llm.matmul %wt, %n3 : (tensor<32x1xf32>, tensor<1x32xf32>) -> tensor<32x32xf32>
  %s3 = llm.slice %m3 {starts = array<i64: 0, 0>, limits = array<i64: 1, 32>, strides = array<i64: 1, 1>} : (tensor<32x32xf32>) -> tensor<1x32xf32>
  return %m0, %m1, %n1, %m2, %s3 : tensor<32x64xf32>, tensor<1x64xf32>, tensor<1x32xf32>, tensor<2x4x16xf32>, tensor<1x32xf32>
}
