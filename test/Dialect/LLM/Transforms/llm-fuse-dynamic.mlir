// RUN: llm-opt %s -llm-fuse | FileCheck %s

// With a dynamic sequence (llm.dim_bounds) the groups and the horizontal
// matmul fusion are formed as for static shapes; the slices of the fused
// matmul keep the sequence whole with the bound (16) as its limit.

// CHECK-LABEL: func.func @qkv_and_mlp
// CHECK: %[[QKV:.*]] = llm.fusion_group : tensor<1x?x24xf32> {
// CHECK:   llm.matmul %{{.*}} : (tensor<1x?x8xf32>, tensor<8x24xf32>) -> tensor<1x?x24xf32>
// CHECK:   llm.add
// CHECK: llm.slice %[[QKV]] {limits = array<i64: 1, 16, 8>, starts = array<i64: 0, 0, 0>
// CHECK: llm.slice %[[QKV]] {limits = array<i64: 1, 16, 16>, starts = array<i64: 0, 0, 8>
// CHECK: llm.slice %[[QKV]] {limits = array<i64: 1, 16, 24>, starts = array<i64: 0, 0, 16>
// CHECK: llm.fusion_group : tensor<1x?x8xf32> {
// CHECK:   llm.layer_norm
// CHECK: llm.fusion_group : tensor<1x?x32xf32> {
// CHECK:   llm.matmul
// CHECK:   llm.gelu
func.func @qkv_and_mlp(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}, %g: tensor<8xf32>) -> (tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x32xf32>) {
  %wq = llm.constant dense<1.0> : tensor<8x8xf32>
  %wk = llm.constant dense<2.0> : tensor<8x8xf32>
  %wv = llm.constant dense<3.0> : tensor<8x8xf32>
  %bq = llm.constant dense<0.5> : tensor<8xf32>
  %bk = llm.constant dense<0.25> : tensor<8xf32>
  %bv = llm.constant dense<0.125> : tensor<8xf32>
  %w1 = llm.constant dense<0.1> : tensor<8x32xf32>
  %q0 = llm.matmul %x, %wq : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %q = llm.add %q0, %bq : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  %k0 = llm.matmul %x, %wk : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %k = llm.add %k0, %bk : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  %v0 = llm.matmul %x, %wv : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %v = llm.add %v0, %bv : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  %n = llm.layer_norm %v scale %g : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  %h = llm.matmul %n, %w1 : (tensor<1x?x8xf32>, tensor<8x32xf32>) -> tensor<1x?x32xf32>
  %a = llm.gelu %h : tensor<1x?x32xf32>
  return %q, %k, %n, %a : tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x32xf32>
}
