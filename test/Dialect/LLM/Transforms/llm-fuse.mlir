// RUN: llm-opt %s -llm-fuse -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-fuse="max-recompute-ops=0" -split-input-file | FileCheck %s --check-prefix=MAT
// RUN: llm-opt %s -llm-fuse="groups=false" -split-input-file | FileCheck %s --check-prefix=HONLY
// RUN: llm-opt %s -llm-fuse | FileCheck %s --check-prefix=STATS

// The figures of the whole file (one module without -split-input-file) in
// the compile report: 13 groups (2 of a lone norm); 18 ops fused besides the anchors
// (epilogues 3+1+2+1+1+1, prologues 1+2+2, duplicated 2+2); 2 producers duplicated; 7
// matmuls replaced by slices of 3 horizontally fused ones.
// STATS: module attributes {llm.report = {duplicated_producers = 2 : i64, fused_ops = 18 : i64, fusion_groups = 13 : i64, horizontally_fused_matmuls = 7 : i64}}

// Epilogue: matmul + bias + activation + residual add -> one group.
// add(gelu(add(matmul(x, w), b)), r) -> fusion_group { ... }
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: (%[[X:.*]]: tensor<16x32xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<64xf32>, %[[R:.*]]: tensor<16x64xf32>)
// CHECK-NEXT: %[[G:.*]] = llm.fusion_group : tensor<16x64xf32> {
// CHECK-NEXT:   %[[M:.*]] = llm.matmul %[[X]], %[[W]]
// CHECK-NEXT:   %[[A:.*]] = llm.add %[[M]], %[[B]]
// CHECK-NEXT:   %[[E:.*]] = llm.gelu %[[A]]
// CHECK-NEXT:   %[[S:.*]] = llm.add %[[E]], %[[R]]
// CHECK-NEXT:   llm.yield %[[S]] : tensor<16x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// HONLY-LABEL: func.func @epilogue
// HONLY-NOT: llm.fusion_group
func.func @epilogue(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>, %r: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %1 = llm.add %0, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %2 = llm.gelu %1 approximate <tanh> : tensor<16x64xf32>
  %3 = llm.add %2, %r : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %3 : tensor<16x64xf32>
}

// -----

// Negative: an intermediate with an extra user ends the epilogue there.
// add(matmul(x, w), b) with the add also returned -> group {matmul, add};
// the gelu stays outside.
// CHECK-LABEL: func.func @extra_user
// CHECK: %[[G:.*]] = llm.fusion_group : tensor<16x64xf32> {
// CHECK:   llm.matmul
// CHECK:   %[[A:.*]] = llm.add
// CHECK:   llm.yield %[[A]]
// CHECK: }
// CHECK: %[[E:.*]] = llm.gelu %[[G]]
// CHECK: return %[[E]], %[[G]]
func.func @extra_user(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %0 = llm.matmul %x, %w : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %1 = llm.add %0, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %2 = llm.gelu %1 : tensor<16x64xf32>
  return %2, %1 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: an elementwise user that broadcasts to a bigger shape is not an
// epilogue (the group would compute more than the matmul's tile).
// CHECK-LABEL: func.func @mismatched_shape
// CHECK-NOT: llm.fusion_group
// CHECK: llm.matmul
// CHECK: llm.add
func.func @mismatched_shape(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %r: tensor<4x16x64xf32>) -> tensor<4x16x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %1 = llm.add %0, %r : (tensor<16x64xf32>, tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  return %1 : tensor<4x16x64xf32>
}

// -----

// Norms and softmax take the elementwise ops around them.
// layer_norm(x + r) * 2 -> fusion_group { add, layer_norm, mul }
// CHECK-LABEL: func.func @norm_prologue_epilogue
// CHECK: llm.constant
// CHECK-NEXT: %[[G:.*]] = llm.fusion_group : tensor<8x64xf32> {
// CHECK-NEXT:   llm.add
// CHECK-NEXT:   llm.layer_norm
// CHECK-NEXT:   llm.mul
// CHECK-NEXT:   llm.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @norm_prologue_epilogue(%x: tensor<8x64xf32>, %r: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %c = llm.constant dense<2.0> : tensor<f32>
  %0 = llm.add %x, %r : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = llm.layer_norm %0 {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = llm.mul %1, %c : (tensor<8x64xf32>, tensor<f32>) -> tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

// -----

// softmax(s * c + mask) -> fusion_group { mul, add, softmax }
// CHECK-LABEL: func.func @softmax_prologue
// CHECK: llm.fusion_group : tensor<2x8x8xf32> {
// CHECK-NEXT: llm.mul
// CHECK-NEXT: llm.add
// CHECK-NEXT: llm.softmax
// CHECK-NEXT: llm.yield
func.func @softmax_prologue(%s: tensor<2x8x8xf32>, %mask: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
  %c = llm.constant dense<0.125> : tensor<f32>
  %0 = llm.mul %s, %c : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  %1 = llm.add %0, %mask : (tensor<2x8x8xf32>, tensor<8x8xf32>) -> tensor<2x8x8xf32>
  %2 = llm.softmax %1 {axis = -1 : i64} : tensor<2x8x8xf32>
  return %2 : tensor<2x8x8xf32>
}

// -----

// Cost rule: a cheap elementwise producer (cost 1 <= max-recompute-ops)
// shared by two groups is duplicated into both.
// rms_norm(x * c) and layer_norm(x * c) -> each group computes x * c itself.
// CHECK-LABEL: func.func @duplicate_cheap
// CHECK-NEXT: llm.constant
// CHECK-NEXT: llm.fusion_group
// CHECK-NEXT:   llm.mul
// CHECK-NEXT:   llm.rms_norm
// CHECK:      llm.fusion_group
// CHECK-NEXT:   llm.mul
// CHECK-NEXT:   llm.layer_norm
// With max-recompute-ops=0 it is materialized once, outside the groups (each
// norm is then a group of its own).
// MAT-LABEL: func.func @duplicate_cheap
// MAT-NEXT: llm.constant
// MAT-NEXT: %[[P:.*]] = llm.mul
// MAT-NEXT: llm.fusion_group
// MAT-NEXT:   llm.rms_norm %[[P]]
// MAT-NEXT:   llm.yield
// MAT-NEXT: }
// MAT-NEXT: llm.fusion_group
// MAT-NEXT:   llm.layer_norm %[[P]]
func.func @duplicate_cheap(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %c = llm.constant dense<2.0> : tensor<f32>
  %0 = llm.mul %x, %c : (tensor<8x64xf32>, tensor<f32>) -> tensor<8x64xf32>
  %1 = llm.rms_norm %0 {epsilon = 1.0e-5 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = llm.layer_norm %0 {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Cost rule: gelu costs 8 > max-recompute-ops (4): materialized once.
// CHECK-LABEL: func.func @materialize_expensive
// CHECK-NEXT: %[[P:.*]] = llm.gelu
// CHECK-NEXT: llm.fusion_group
// CHECK-NEXT:   llm.rms_norm %[[P]]
// CHECK-NEXT:   llm.yield
// CHECK-NEXT: }
// CHECK-NEXT: llm.fusion_group
// CHECK-NEXT:   llm.layer_norm %[[P]]
func.func @materialize_expensive(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = llm.gelu %x : tensor<8x64xf32>
  %1 = llm.rms_norm %0 {epsilon = 1.0e-5 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = llm.layer_norm %0 {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Cost rule: broadcasts (and casts) are always duplicated, whatever
// max-recompute-ops says.
// CHECK-LABEL: func.func @duplicate_broadcast
// CHECK: llm.fusion_group
// CHECK-NEXT: llm.broadcast_to
// CHECK-NEXT: llm.add
// CHECK-NEXT: llm.softmax
// CHECK: llm.fusion_group
// CHECK-NEXT: llm.broadcast_to
// CHECK-NEXT: llm.mul
// CHECK-NEXT: llm.softmax
// MAT-LABEL: func.func @duplicate_broadcast
// MAT-COUNT-2: llm.broadcast_to
func.func @duplicate_broadcast(%x: tensor<8x64xf32>, %v: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %b = llm.broadcast_to %v : (tensor<64xf32>) -> tensor<8x64xf32>
  %0 = llm.add %x, %b : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = llm.softmax %0 {axis = -1 : i64} : tensor<8x64xf32>
  %2 = llm.mul %x, %b : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %3 = llm.softmax %2 {axis = -1 : i64} : tensor<8x64xf32>
  return %1, %3 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Negative: a producer of a matmul's weights (rhs) is never pulled into the
// group (it would be recomputed for every tile).
// CHECK-LABEL: func.func @weights_not_fused
// CHECK: %[[T:.*]] = llm.mul %arg1
// CHECK-NEXT: llm.fusion_group
// CHECK-NEXT: llm.matmul %arg0, %[[T]]
func.func @weights_not_fused(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %c = llm.constant dense<2.0> : tensor<f32>
  %t = llm.mul %w, %c : (tensor<32x64xf32>, tensor<f32>) -> tensor<32x64xf32>
  %0 = llm.matmul %x, %t : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %1 = llm.add %0, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}

// -----

// Horizontal: Q, K, V projections of one x (+ their constant biases) become
// one matmul against the concatenated weights, then slices.
// matmul(x, Wq) + bq, matmul(x, Wk) + bk, matmul(x, Wv) + bv
//   -> y = matmul(x, Wq|Wk|Wv) + bq|bk|bv; slice(y, [0,2)), [2,4), [4,5)
// HONLY-LABEL: func.func @qkv
// HONLY-DAG: %[[W:.*]] = llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01]]> : tensor<2x5xf32>
// HONLY-DAG: %[[B:.*]] = llm.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01]> : tensor<5xf32>
// HONLY: %[[M:.*]] = llm.matmul %arg0, %[[W]] : (tensor<3x2xf32>, tensor<2x5xf32>) -> tensor<3x5xf32>
// HONLY: %[[Y:.*]] = llm.add %[[M]], %[[B]]
// HONLY: %[[Q:.*]] = llm.slice %[[Y]] {limits = array<i64: 3, 2>, starts = array<i64: 0, 0>, strides = array<i64: 1, 1>}
// HONLY: %[[K:.*]] = llm.slice %[[Y]] {limits = array<i64: 3, 4>, starts = array<i64: 0, 2>, strides = array<i64: 1, 1>}
// HONLY: %[[V:.*]] = llm.slice %[[Y]] {limits = array<i64: 3, 5>, starts = array<i64: 0, 4>, strides = array<i64: 1, 1>}
// HONLY-NOT: llm.matmul
// HONLY: return %[[Q]], %[[K]], %[[V]]
// With groups, the fused matmul + bias is one group:
// CHECK-LABEL: func.func @qkv
// CHECK: %[[G:.*]] = llm.fusion_group : tensor<3x5xf32> {
// CHECK-NEXT: llm.matmul
// CHECK-NEXT: llm.add
// CHECK-NEXT: llm.yield
// CHECK-COUNT-3: llm.slice %[[G]]
func.func @qkv(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x1xf32>) {
  %wq = llm.constant dense<[[1.0, 2.0], [6.0, 7.0]]> : tensor<2x2xf32>
  %wk = llm.constant dense<[[3.0, 4.0], [8.0, 9.0]]> : tensor<2x2xf32>
  %wv = llm.constant dense<[[5.0], [10.0]]> : tensor<2x1xf32>
  %bq = llm.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %bk = llm.constant dense<[0.3, 0.4]> : tensor<2xf32>
  %bv = llm.constant dense<[0.5]> : tensor<1xf32>
  %q0 = llm.matmul %x, %wq : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %q = llm.add %q0, %bq : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %k0 = llm.matmul %x, %wk : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %k = llm.add %k0, %bk : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %v0 = llm.matmul %x, %wv : (tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %v = llm.add %v0, %bv : (tensor<3x1xf32>, tensor<1xf32>) -> tensor<3x1xf32>
  return %q, %k, %v : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x1xf32>
}

// -----

// Horizontal, each projection rounded to f16 before its f16 bias (an f16
// model's matmuls run in f32 by llm-promote-contraction-inputs): the cast
// is taken along, before the bias, so that the slices stay views.
// cast(matmul(x, Wq)) + bq, cast(matmul(x, Wk)) + bk
//   -> y = cast(matmul(x, Wq|Wk)) + bq|bk; slices
// HONLY-LABEL: func.func @qk_rounded
// HONLY-DAG: %[[W:.*]] = llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// HONLY-DAG: %[[B:.*]] = llm.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf16>
// HONLY: %[[M:.*]] = llm.matmul %arg0, %[[W]] : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
// HONLY: %[[C:.*]] = llm.cast %[[M]] : (tensor<3x3xf32>) -> tensor<3x3xf16>
// HONLY: %[[Y:.*]] = llm.add %[[C]], %[[B]]
// HONLY-COUNT-2: llm.slice %[[Y]]
// HONLY-NOT: llm.cast
// HONLY-NOT: llm.matmul
// CHECK-LABEL: func.func @qk_rounded
// CHECK: %[[G:.*]] = llm.fusion_group : tensor<3x3xf16> {
// CHECK-NEXT: llm.matmul
// CHECK-NEXT: llm.cast
// CHECK-NEXT: llm.add
// CHECK-NEXT: llm.yield
// CHECK-COUNT-2: llm.slice %[[G]]
func.func @qk_rounded(%x: tensor<3x2xf32>) -> (tensor<3x2xf16>, tensor<3x1xf16>) {
  %wq = llm.constant dense<[[1.0, 2.0], [4.0, 5.0]]> : tensor<2x2xf32>
  %wk = llm.constant dense<[[3.0], [6.0]]> : tensor<2x1xf32>
  %bq = llm.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %bk = llm.constant dense<[3.0]> : tensor<1xf16>
  %q0 = llm.matmul %x, %wq : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %q1 = llm.cast %q0 : (tensor<3x2xf32>) -> tensor<3x2xf16>
  %q = llm.add %q1, %bq : (tensor<3x2xf16>, tensor<2xf16>) -> tensor<3x2xf16>
  %k0 = llm.matmul %x, %wk : (tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %k1 = llm.cast %k0 : (tensor<3x1xf32>) -> tensor<3x1xf16>
  %k = llm.add %k1, %bk : (tensor<3x1xf16>, tensor<1xf16>) -> tensor<3x1xf16>
  return %q, %k : tensor<3x2xf16>, tensor<3x1xf16>
}

// -----

// Horizontal with transpose_b weights [N, K] (concatenated along rows) and
// no bias.
// matmul(x, Wa^T), matmul(x, Wb^T) -> slices of matmul(x, [Wa; Wb]^T)
// HONLY-LABEL: func.func @transpose_b
// HONLY: %[[W:.*]] = llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// HONLY: llm.matmul %arg0, %[[W]] {transpose_b} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
// HONLY-COUNT-2: llm.slice
// HONLY-NOT: llm.matmul
func.func @transpose_b(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x1xf32>) {
  %wa = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wb = llm.constant dense<[[5.0, 6.0]]> : tensor<1x2xf32>
  %a = llm.matmul %x, %wa {transpose_b} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = llm.matmul %x, %wb {transpose_b} : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x1xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x1xf32>
}

// -----

// Negative: weights that are not constants are not concatenated.
// HONLY-LABEL: func.func @non_constant_weights
// HONLY-COUNT-2: llm.matmul
// HONLY-NOT: llm.slice
func.func @non_constant_weights(%x: tensor<4x2xf32>, %wa: tensor<2x3xf32>, %wb: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = llm.matmul %x, %wa : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = llm.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %a, %b : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Negative: different layouts (transpose_b on one only) are not fused.
// HONLY-LABEL: func.func @mixed_layouts
// HONLY-COUNT-2: llm.matmul
// HONLY-NOT: llm.slice
func.func @mixed_layouts(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wb = llm.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %a = llm.matmul %x, %wa : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = llm.matmul %x, %wb {transpose_b} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Horizontal: the query and key ropes of a fused projection (adjacent slices
// [0, 16) and [16, 24) of one tensor, the same positions, mode and theta)
// become one rope over [0, 24) split into 3 heads, then head slices.
// HONLY-LABEL: func.func @merge_ropes
// HONLY: %[[S:.*]] = llm.slice %arg0 {limits = array<i64: 1, 5, 24>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x24xf32>
// HONLY-NEXT: %[[H:.*]] = llm.reshape %[[S]] : (tensor<1x5x24xf32>) -> tensor<1x5x3x8xf32>
// HONLY-NEXT: %[[R:.*]] = llm.rope %[[H]], %arg1 {theta = 5.000000e+05 : f32} : (tensor<1x5x3x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x3x8xf32>
// HONLY-NEXT: %[[Q:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 5, 2, 8>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}
// HONLY-NEXT: %[[K:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 5, 3, 8>, starts = array<i64: 0, 0, 2, 0>, strides = array<i64: 1, 1, 1, 1>}
// HONLY-NOT: llm.rope
// HONLY: return %[[Q]], %[[K]]
func.func @merge_ropes(%x: tensor<1x5x32xf32>, %pos: tensor<1x5x1xi64>) -> (tensor<1x5x2x8xf32>, tensor<1x5x1x8xf32>) {
  %q = llm.slice %x {limits = array<i64: 1, 5, 16>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x16xf32>
  %k = llm.slice %x {limits = array<i64: 1, 5, 24>, starts = array<i64: 0, 0, 16>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x8xf32>
  %qh = llm.reshape %q : (tensor<1x5x16xf32>) -> tensor<1x5x2x8xf32>
  %kh = llm.reshape %k : (tensor<1x5x8xf32>) -> tensor<1x5x1x8xf32>
  %qr = llm.rope %qh, %pos {theta = 500000.0 : f32} : (tensor<1x5x2x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x2x8xf32>
  %kr = llm.rope %kh, %pos {theta = 500000.0 : f32} : (tensor<1x5x1x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x1x8xf32>
  return %qr, %kr : tensor<1x5x2x8xf32>, tensor<1x5x1x8xf32>
}

// -----

// The same with a dynamic sequence (bound 16): the slices take it whole
// (limit 16), and so do the merged slice and the head slices.
// HONLY-LABEL: func.func @merge_ropes_dynamic
// HONLY: %[[S:.*]] = llm.slice %arg0 {limits = array<i64: 1, 16, 24>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x32xf32>) -> tensor<1x?x24xf32>
// HONLY-NEXT: %[[H:.*]] = llm.reshape %[[S]] : (tensor<1x?x24xf32>) -> tensor<1x?x3x8xf32>
// HONLY-NEXT: %[[R:.*]] = llm.rope %[[H]], %arg1 : (tensor<1x?x3x8xf32>, tensor<1x?x1xi64>) -> tensor<1x?x3x8xf32>
// HONLY-NEXT: %[[Q:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 16, 2, 8>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x?x3x8xf32>) -> tensor<1x?x2x8xf32>
// HONLY-NEXT: %[[K:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 16, 3, 8>, starts = array<i64: 0, 0, 2, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x?x3x8xf32>) -> tensor<1x?x1x8xf32>
// HONLY-NOT: llm.rope
// HONLY: return %[[Q]], %[[K]]
func.func @merge_ropes_dynamic(%x: tensor<1x?x32xf32> {llm.dim_bounds = array<i64: 1, 16, 32>}, %pos: tensor<1x?x1xi64> {llm.dim_bounds = array<i64: 1, 16, 1>}) -> (tensor<1x?x2x8xf32>, tensor<1x?x1x8xf32>) {
  %q = llm.slice %x {limits = array<i64: 1, 16, 16>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x32xf32>) -> tensor<1x?x16xf32>
  %k = llm.slice %x {limits = array<i64: 1, 16, 24>, starts = array<i64: 0, 0, 16>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x32xf32>) -> tensor<1x?x8xf32>
  %qh = llm.reshape %q : (tensor<1x?x16xf32>) -> tensor<1x?x2x8xf32>
  %kh = llm.reshape %k : (tensor<1x?x8xf32>) -> tensor<1x?x1x8xf32>
  %qr = llm.rope %qh, %pos : (tensor<1x?x2x8xf32>, tensor<1x?x1xi64>) -> tensor<1x?x2x8xf32>
  %kr = llm.rope %kh, %pos : (tensor<1x?x1x8xf32>, tensor<1x?x1xi64>) -> tensor<1x?x1x8xf32>
  return %qr, %kr : tensor<1x?x2x8xf32>, tensor<1x?x1x8xf32>
}

// -----

// Near misses: ropes with different theta, or over slices that are not
// adjacent, stay two ropes.
// HONLY-LABEL: func.func @ropes_not_merged
// HONLY-COUNT-4: llm.rope
func.func @ropes_not_merged(%x: tensor<1x5x32xf32>, %pos: tensor<1x5x1xi64>) -> (tensor<1x5x2x8xf32>, tensor<1x5x1x8xf32>, tensor<1x5x1x8xf32>, tensor<1x5x1x8xf32>) {
  %q = llm.slice %x {limits = array<i64: 1, 5, 16>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x16xf32>
  %k = llm.slice %x {limits = array<i64: 1, 5, 24>, starts = array<i64: 0, 0, 16>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x8xf32>
  %qh = llm.reshape %q : (tensor<1x5x16xf32>) -> tensor<1x5x2x8xf32>
  %kh = llm.reshape %k : (tensor<1x5x8xf32>) -> tensor<1x5x1x8xf32>
  %qr = llm.rope %qh, %pos {theta = 10000.0 : f32} : (tensor<1x5x2x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x2x8xf32>
  %kr = llm.rope %kh, %pos {theta = 500000.0 : f32} : (tensor<1x5x1x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x1x8xf32>
  %a = llm.slice %x {limits = array<i64: 1, 5, 8>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x8xf32>
  %b = llm.slice %x {limits = array<i64: 1, 5, 32>, starts = array<i64: 0, 0, 24>, strides = array<i64: 1, 1, 1>} : (tensor<1x5x32xf32>) -> tensor<1x5x8xf32>
  %ah = llm.reshape %a : (tensor<1x5x8xf32>) -> tensor<1x5x1x8xf32>
  %bh = llm.reshape %b : (tensor<1x5x8xf32>) -> tensor<1x5x1x8xf32>
  %ar = llm.rope %ah, %pos : (tensor<1x5x1x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x1x8xf32>
  %br = llm.rope %bh, %pos : (tensor<1x5x1x8xf32>, tensor<1x5x1xi64>) -> tensor<1x5x1x8xf32>
  return %qr, %kr, %ar, %br : tensor<1x5x2x8xf32>, tensor<1x5x1x8xf32>, tensor<1x5x1x8xf32>, tensor<1x5x1x8xf32>
}

// -----

// Horizontal: the query and key ropes of a projection that holds each
// head's q, k and v side by side (GPT-NeoX's [.., H, 3D], here with partial
// rotary) become one rope over the columns [0, 32) viewed as [.., 2, 16]
// (positions with a unit dimension for the pair), then the pair's members.
// HONLY-LABEL: func.func @merge_column_ropes
// HONLY: %[[S:.*]] = llm.slice %arg0 {limits = array<i64: 1, 5, 3, 32>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x5x3x48xf32>) -> tensor<1x5x3x32xf32>
// HONLY-NEXT: %[[H:.*]] = llm.reshape %[[S]] : (tensor<1x5x3x32xf32>) -> tensor<1x5x3x2x16xf32>
// HONLY-NEXT: %[[P:.*]] = llm.reshape %arg1 : (tensor<5x1xi64>) -> tensor<5x1x1xi64>
// HONLY-NEXT: %[[R:.*]] = llm.rope %[[H]], %[[P]] {rotary_dims = 4 : i64} : (tensor<1x5x3x2x16xf32>, tensor<5x1x1xi64>) -> tensor<1x5x3x2x16xf32>
// HONLY-NEXT: %[[Q:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 5, 3, 1, 16>, starts = array<i64: 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1, 1>}
// HONLY-NEXT: %[[QR:.*]] = llm.reshape %[[Q]] : (tensor<1x5x3x1x16xf32>) -> tensor<1x5x3x16xf32>
// HONLY-NEXT: %[[K:.*]] = llm.slice %[[R]] {limits = array<i64: 1, 5, 3, 2, 16>, starts = array<i64: 0, 0, 0, 1, 0>, strides = array<i64: 1, 1, 1, 1, 1>}
// HONLY-NEXT: %[[KR:.*]] = llm.reshape %[[K]] : (tensor<1x5x3x1x16xf32>) -> tensor<1x5x3x16xf32>
// HONLY-NOT: llm.rope
// HONLY: return %[[QR]], %[[KR]]
func.func @merge_column_ropes(%x: tensor<1x5x3x48xf32>, %pos: tensor<5x1xi64>) -> (tensor<1x5x3x16xf32>, tensor<1x5x3x16xf32>) {
  %q = llm.slice %x {limits = array<i64: 1, 5, 3, 16>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x5x3x48xf32>) -> tensor<1x5x3x16xf32>
  %k = llm.slice %x {limits = array<i64: 1, 5, 3, 32>, starts = array<i64: 0, 0, 0, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x5x3x48xf32>) -> tensor<1x5x3x16xf32>
  %qr = llm.rope %q, %pos {rotary_dims = 4} : (tensor<1x5x3x16xf32>, tensor<5x1xi64>) -> tensor<1x5x3x16xf32>
  %kr = llm.rope %k, %pos {rotary_dims = 4} : (tensor<1x5x3x16xf32>, tensor<5x1xi64>) -> tensor<1x5x3x16xf32>
  return %qr, %kr : tensor<1x5x3x16xf32>, tensor<1x5x3x16xf32>
}

// -----

// Near misses: different rotary_dims, or columns with a gap between them,
// stay two ropes each.
// HONLY-LABEL: func.func @column_ropes_not_merged
// HONLY-COUNT-4: llm.rope
func.func @column_ropes_not_merged(%x: tensor<5x48xf32>, %pos: tensor<5xi64>) -> (tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x8xf32>, tensor<5x8xf32>) {
  %q = llm.slice %x {limits = array<i64: 5, 16>, starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<5x48xf32>) -> tensor<5x16xf32>
  %k = llm.slice %x {limits = array<i64: 5, 32>, starts = array<i64: 0, 16>, strides = array<i64: 1, 1>} : (tensor<5x48xf32>) -> tensor<5x16xf32>
  %qr = llm.rope %q, %pos {rotary_dims = 4} : (tensor<5x16xf32>, tensor<5xi64>) -> tensor<5x16xf32>
  %kr = llm.rope %k, %pos {rotary_dims = 8} : (tensor<5x16xf32>, tensor<5xi64>) -> tensor<5x16xf32>
  %a = llm.slice %x {limits = array<i64: 5, 40>, starts = array<i64: 0, 32>, strides = array<i64: 1, 1>} : (tensor<5x48xf32>) -> tensor<5x8xf32>
  %b = llm.slice %x {limits = array<i64: 5, 48>, starts = array<i64: 0, 40>, strides = array<i64: 1, 1>} : (tensor<5x48xf32>) -> tensor<5x8xf32>
  %c = llm.slice %x {limits = array<i64: 5, 8>, starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<5x48xf32>) -> tensor<5x8xf32>
  %ar = llm.rope %c, %pos : (tensor<5x8xf32>, tensor<5xi64>) -> tensor<5x8xf32>
  %br = llm.rope %b, %pos : (tensor<5x8xf32>, tensor<5xi64>) -> tensor<5x8xf32>
  return %qr, %kr, %ar, %br : tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x8xf32>, tensor<5x8xf32>
}
