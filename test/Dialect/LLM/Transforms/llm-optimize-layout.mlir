// RUN: llm-opt %s --llm-optimize-layout="target=avx2" -split-input-file | FileCheck %s

// A transpose_b weight [N, K] = [3, 2] becomes a [K, N] constant (KN, the
// CPU kernel's layout), transposed at compile time.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 1 : i64}}
// CHECK-LABEL: func.func @weight_kn(
// CHECK-SAME:    %[[A:.+]]: tensor<4x2xf32>)
// CHECK:         %[[W:.+]] = llm.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK:         llm.matmul %[[A]], %[[W]] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT:     transpose_b
func.func @weight_kn(%a: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %w = llm.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %0 = llm.matmul %a, %w {transpose_b} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A dense_resource weight gets a new blob holding the transposed bytes
// (w = [[1, 2], [3, 4]] -> [[1, 3], [2, 4]]); a batched weight [2, N, K]
// transposes its last two dimensions; a splat stays a splat.
// CHECK-LABEL: func.func @weight_resource(
// CHECK-DAG:     %[[W:.+]] = llm.constant dense_resource<w_kn> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.+]] = llm.constant dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]], {{\[}}[5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-DAG:     %[[S:.+]] = llm.constant dense<5.000000e-01> : tensor<2x4xf32>
// CHECK:         llm.matmul %{{.+}}, %[[W]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK:         llm.matmul %{{.+}}, %[[B]] : (tensor<2x3x2xf32>, tensor<2x2x2xf32>) -> tensor<2x3x2xf32>
// CHECK:         llm.matmul %{{.+}}, %[[S]] : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK:         w_kn: "0x040000000000803F0000404000000040
// CHECK-SAME:    00008040"
func.func @weight_resource(%a: tensor<3x2xf32>, %b: tensor<2x3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>) {
  %w = llm.constant dense_resource<w> : tensor<2x2xf32>
  %0 = llm.matmul %a, %w {transpose_b} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %bw = llm.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %1 = llm.matmul %b, %bw {transpose_b} : (tensor<2x3x2xf32>, tensor<2x2x2xf32>) -> tensor<2x3x2xf32>
  %s = llm.constant dense<0.5> : tensor<4x2xf32>
  %2 = llm.matmul %a, %s {transpose_b} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// transpose(constant) is evaluated at compile time, whatever its size.
// CHECK-LABEL: func.func @transpose_constant(
// CHECK:         %[[C:.+]] = llm.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT:     llm.transpose
// CHECK:         return %[[C]]
func.func @transpose_constant() -> tensor<3x2xf32> {
  %c = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = llm.transpose %c {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// matmul(a, transpose(b)) absorbs the transpose into transpose_b; b is
// computed, so the kernel still transposes it at run time (counted).
// CHECK: module attributes {llm.report = {runtime_transposes = 1 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @absorb(
// CHECK-SAME:    %[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK-NOT:     llm.transpose
// CHECK:         llm.matmul %[[A]], %[[B]] {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
func.func @absorb(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %t = llm.transpose %b {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %0 = llm.matmul %a, %t : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// transpose -> gelu -> add -> transpose back: the first transpose sinks
// through gelu and (with the other operand's transpose) through add, then
// meets the second one and both cancel.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @cancel(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT:     llm.transpose
// CHECK:         %[[G:.+]] = llm.gelu %[[X]] : tensor<2x3x4xf32>
// CHECK:         %[[S:.+]] = llm.add %[[G]], %[[Y]] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         return %[[S]]
func.func @cancel(%x: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = llm.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = llm.gelu %0 : tensor<4x2x3xf32>
  %2 = llm.transpose %y {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %3 = llm.add %1, %2 : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %4 = llm.transpose %3 {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %4 : tensor<2x3x4xf32>
}

// -----

// The head split and merge around llm.attention stay when K and V are
// already [B, H, S, D].
// CHECK: module attributes {llm.report = {runtime_transposes = 2 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @heads(
// CHECK-COUNT-2: llm.transpose
func.func @heads(%x: tensor<1x16x4x8xf32>, %kv: tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32> {
  %q = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %a = llm.attention %q, %kv, %kv {causal} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32>
  return %m : tensor<1x16x4x8xf32>
}

// -----

// When q, k and v are all head splits, attention takes them in place
// (layout bshd) and the head merge cancels.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @heads_absorbed(
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x4x8xf32>)
// CHECK-NOT:     llm.transpose
// CHECK:         %[[A:.+]] = llm.attention %[[X]], %[[X]], %[[X]] {causal, layout = #llm.attention_layout<bshd>}
// CHECK-NOT:     llm.transpose
// CHECK:         return %[[A]]
func.func @heads_absorbed(%x: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %q = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %a = llm.attention %q, %q, %q {causal} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32>
  return %m : tensor<1x16x4x8xf32>
}

// -----

// rope(transpose(x)) -> transpose(rope(x)) with the [S] positions reshaped
// to [S, 1] (rows [B, S, H]); the head splits of q and k then meet attention
// with v's and all four transposes go (LLaMA's q/k RoPE).
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @rope_heads(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<1x16x4x8xf32>, %[[K:[^:]+]]: tensor<1x16x2x8xf32>, %[[V:[^:]+]]: tensor<1x16x2x8xf32>, %[[P:[^:]+]]: tensor<16xi64>)
// CHECK-NOT:     llm.transpose
// CHECK:         %[[P2:.+]] = llm.reshape %[[P]] : (tensor<16xi64>) -> tensor<1x16x1xi64>
// CHECK:         %[[RQ:.+]] = llm.rope %[[Q]], %[[P2]] : (tensor<1x16x4x8xf32>, tensor<1x16x1xi64>) -> tensor<1x16x4x8xf32>
// CHECK:         %[[P3:.+]] = llm.reshape %[[P]] : (tensor<16xi64>) -> tensor<1x16x1xi64>
// CHECK:         %[[RK:.+]] = llm.rope %[[K]], %[[P3]] : (tensor<1x16x2x8xf32>, tensor<1x16x1xi64>) -> tensor<1x16x2x8xf32>
// CHECK:         %[[A:.+]] = llm.attention %[[RQ]], %[[RK]], %[[V]] {causal, layout = #llm.attention_layout<bshd>}
// CHECK-NOT:     llm.transpose
// CHECK:         return %[[A]]
func.func @rope_heads(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %p: tensor<16xi64>) -> tensor<1x16x4x8xf32> {
  %qt = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x8xf32>) -> tensor<1x2x16x8xf32>
  %vt = llm.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x8xf32>) -> tensor<1x2x16x8xf32>
  %qr = llm.rope %qt, %p : (tensor<1x4x16x8xf32>, tensor<16xi64>) -> tensor<1x4x16x8xf32>
  %kr = llm.rope %kt, %p : (tensor<1x2x16x8xf32>, tensor<16xi64>) -> tensor<1x2x16x8xf32>
  %a = llm.attention %qr, %kr, %vt {causal} : (tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32>
  return %m : tensor<1x16x4x8xf32>
}

// -----

// Positions [H, S] of rows [B, H, S] cannot be reshaped to [B, S, H] order:
// they are transposed (a small int transpose) and the rope still moves.
// CHECK-LABEL: func.func @rope_positions_transposed(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x6x3x8xf32>, %[[P:[^:]+]]: tensor<3x6xi64>)
// CHECK:         %[[P1:.+]] = llm.reshape %[[P]] : (tensor<3x6xi64>) -> tensor<1x3x6xi64>
// CHECK:         %[[P2:.+]] = llm.transpose %[[P1]] {permutation = array<i64: 0, 2, 1>} : (tensor<1x3x6xi64>) -> tensor<1x6x3xi64>
// CHECK:         %[[R:.+]] = llm.rope %[[X]], %[[P2]] mode <interleaved> {theta = 5.000000e+02 : f32}
// CHECK:         %[[T:.+]] = llm.transpose %[[R]] {permutation = array<i64: 0, 2, 1, 3>}
// CHECK:         return %[[T]]
func.func @rope_positions_transposed(%x: tensor<1x6x3x8xf32>, %p: tensor<3x6xi64>) -> tensor<1x3x6x8xf32> {
  %t = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x6x3x8xf32>) -> tensor<1x3x6x8xf32>
  %r = llm.rope %t, %p mode <interleaved> {theta = 500.0 : f32} : (tensor<1x3x6x8xf32>, tensor<3x6xi64>) -> tensor<1x3x6x8xf32>
  return %r : tensor<1x3x6x8xf32>
}

// -----

// A transpose that moves the head dimension does not commute with RoPE.
// CHECK-LABEL: func.func @rope_head_dim_moved(
// CHECK:         llm.transpose
// CHECK-NEXT:    llm.rope
func.func @rope_head_dim_moved(%x: tensor<2x8x6xf32>, %p: tensor<2x6xi64>) -> tensor<2x6x8xf32> {
  %t = llm.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x8x6xf32>) -> tensor<2x6x8xf32>
  %r = llm.rope %t, %p : (tensor<2x6x8xf32>, tensor<2x6xi64>) -> tensor<2x6x8xf32>
  return %r : tensor<2x6x8xf32>
}
