// RUN: llm-opt %s --llm-optimize-layout="weight-layout=kn" -split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-optimize-layout -split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-optimize-layout="weight-layout=nk" -split-input-file | FileCheck %s --check-prefix=NK

// A transpose_b weight [N, K] = [3, 2] becomes a [K, N] constant (KN, the
// CPU kernel's layout), transposed at compile time.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 1 : i64}}
// CHECK-LABEL: func.func @weight_kn(
// CHECK-SAME:    %[[A:.+]]: tensor<4x2xf32>)
// CHECK:         %[[W:.+]] = llm.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK:         llm.matmul %[[A]], %[[W]] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT:     transpose_b
// With weight-layout=nk (a dot-product kernel's layout, requested by the
// target's pipeline) the transpose_b weight stays [N, K].
// NK-LABEL: func.func @weight_kn(
// NK:         %[[W:.+]] = llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// NK:         llm.matmul %{{.+}}, %[[W]] {transpose_b} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
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

// The same with a dynamic sequence (the ONNX import of a LLaMA export with a
// symbolic length): the [?] positions become [1, ?, 1] and the transposes go.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @rope_heads_dynamic(
// CHECK-SAME:    %[[Q:arg[0-9]+]]: tensor<1x?x4x8xf32>{{.*}}%[[K:arg[0-9]+]]: tensor<1x?x2x8xf32>{{.*}}%[[V:arg[0-9]+]]: tensor<1x?x2x8xf32>{{.*}}%[[P:arg[0-9]+]]: tensor<?xi64>
// CHECK-NOT:     llm.transpose
// CHECK:         %[[P2:.+]] = llm.reshape %[[P]] : (tensor<?xi64>) -> tensor<1x?x1xi64>
// CHECK:         %[[RQ:.+]] = llm.rope %[[Q]], %[[P2]] : (tensor<1x?x4x8xf32>, tensor<1x?x1xi64>) -> tensor<1x?x4x8xf32>
// CHECK:         %[[P3:.+]] = llm.reshape %[[P]] : (tensor<?xi64>) -> tensor<1x?x1xi64>
// CHECK:         %[[RK:.+]] = llm.rope %[[K]], %[[P3]] : (tensor<1x?x2x8xf32>, tensor<1x?x1xi64>) -> tensor<1x?x2x8xf32>
// CHECK:         %[[A:.+]] = llm.attention %[[RQ]], %[[RK]], %[[V]] {causal, layout = #llm.attention_layout<bshd>}
// CHECK-NOT:     llm.transpose
// CHECK:         return %[[A]]
func.func @rope_heads_dynamic(%q: tensor<1x?x4x8xf32> {llm.dim_bounds = array<i64: 1, 16, 4, 8>}, %k: tensor<1x?x2x8xf32> {llm.dim_bounds = array<i64: 1, 16, 2, 8>}, %v: tensor<1x?x2x8xf32> {llm.dim_bounds = array<i64: 1, 16, 2, 8>}, %p: tensor<?xi64> {llm.dim_bounds = array<i64: 16>}) -> tensor<1x?x4x8xf32> {
  %qt = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x8xf32>) -> tensor<1x4x?x8xf32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x8xf32>) -> tensor<1x2x?x8xf32>
  %vt = llm.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x8xf32>) -> tensor<1x2x?x8xf32>
  %qr = llm.rope %qt, %p : (tensor<1x4x?x8xf32>, tensor<?xi64>) -> tensor<1x4x?x8xf32>
  %kr = llm.rope %kt, %p : (tensor<1x2x?x8xf32>, tensor<?xi64>) -> tensor<1x2x?x8xf32>
  %a = llm.attention %qr, %kr, %vt {causal} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x8xf32>) -> tensor<1x?x4x8xf32>
  return %m : tensor<1x?x4x8xf32>
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

// -----

// torch.nn.MultiheadAttention (batch_first) as recomposed: the input is
// transposed to [S, B, E], projected, split into [S, B*H, D] heads and
// transposed to [B*H, S, D]; the attention runs over [1, B*H, S, D]; then
// everything is undone. The transposes sink through the projection (a
// matmul by a 2-D weight), its bias and the q/k/v slices, the chains of
// transposes and reshapes shorten, the attention is split back to
// [B, H, S, D] and absorbs the head split (bshd): no transpose is left.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @mha_batch_first
// CHECK-NOT: llm.transpose
// CHECK: llm.matmul %arg0, %{{.*}} : (tensor<2x7x48xf32>, tensor<48x144xf32>) -> tensor<2x7x144xf32>
// CHECK-NOT: llm.transpose
// CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {layout = #llm.attention_layout<bshd>, scale = 2.500000e-01 : f32} : (tensor<2x7x3x16xf32>, tensor<2x7x3x16xf32>, tensor<2x7x3x16xf32>) -> tensor<2x7x3x16xf32>
// CHECK-NOT: llm.transpose
// CHECK: return
func.func @mha_batch_first(%x: tensor<2x7x48xf32>) -> tensor<2x7x48xf32> {
  %w = llm.constant dense<0.5> : tensor<48x144xf32>
  %b = llm.constant dense<0.25> : tensor<144xf32>
  %wo = llm.constant dense<0.125> : tensor<48x48xf32>
  %bo = llm.constant dense<1.0> : tensor<48xf32>
  %0 = llm.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x7x48xf32>) -> tensor<7x2x48xf32>
  %1 = llm.matmul %0, %w : (tensor<7x2x48xf32>, tensor<48x144xf32>) -> tensor<7x2x144xf32>
  %2 = llm.add %b, %1 : (tensor<144xf32>, tensor<7x2x144xf32>) -> tensor<7x2x144xf32>
  %q = llm.slice %2 {limits = array<i64: 7, 2, 48>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<7x2x144xf32>) -> tensor<7x2x48xf32>
  %k = llm.slice %2 {limits = array<i64: 7, 2, 96>, starts = array<i64: 0, 0, 48>, strides = array<i64: 1, 1, 1>} : (tensor<7x2x144xf32>) -> tensor<7x2x48xf32>
  %v = llm.slice %2 {limits = array<i64: 7, 2, 144>, starts = array<i64: 0, 0, 96>, strides = array<i64: 1, 1, 1>} : (tensor<7x2x144xf32>) -> tensor<7x2x48xf32>
  %q1 = llm.reshape %q : (tensor<7x2x48xf32>) -> tensor<7x6x16xf32>
  %q2 = llm.transpose %q1 {permutation = array<i64: 1, 0, 2>} : (tensor<7x6x16xf32>) -> tensor<6x7x16xf32>
  %q3 = llm.reshape %q2 : (tensor<6x7x16xf32>) -> tensor<1x6x7x16xf32>
  %k1 = llm.reshape %k : (tensor<7x2x48xf32>) -> tensor<7x6x16xf32>
  %k2 = llm.transpose %k1 {permutation = array<i64: 1, 0, 2>} : (tensor<7x6x16xf32>) -> tensor<6x7x16xf32>
  %k3 = llm.reshape %k2 : (tensor<6x7x16xf32>) -> tensor<1x6x7x16xf32>
  %v1 = llm.reshape %v : (tensor<7x2x48xf32>) -> tensor<7x6x16xf32>
  %v2 = llm.transpose %v1 {permutation = array<i64: 1, 0, 2>} : (tensor<7x6x16xf32>) -> tensor<6x7x16xf32>
  %v3 = llm.reshape %v2 : (tensor<6x7x16xf32>) -> tensor<1x6x7x16xf32>
  %a = llm.attention %q3, %k3, %v3 {scale = 0.25 : f32} : (tensor<1x6x7x16xf32>, tensor<1x6x7x16xf32>, tensor<1x6x7x16xf32>) -> tensor<1x6x7x16xf32>
  %a1 = llm.reshape %a : (tensor<1x6x7x16xf32>) -> tensor<6x7x16xf32>
  %a2 = llm.transpose %a1 {permutation = array<i64: 1, 0, 2>} : (tensor<6x7x16xf32>) -> tensor<7x6x16xf32>
  %a3 = llm.reshape %a2 : (tensor<7x6x16xf32>) -> tensor<14x48xf32>
  %o = llm.matmul %a3, %wo : (tensor<14x48xf32>, tensor<48x48xf32>) -> tensor<14x48xf32>
  %o1 = llm.add %o, %bo : (tensor<14x48xf32>, tensor<48xf32>) -> tensor<14x48xf32>
  %o2 = llm.reshape %o1 : (tensor<14x48xf32>) -> tensor<7x2x48xf32>
  %o3 = llm.transpose %o2 {permutation = array<i64: 1, 0, 2>} : (tensor<7x2x48xf32>) -> tensor<2x7x48xf32>
  %r = llm.add %x, %o3 : (tensor<2x7x48xf32>, tensor<2x7x48xf32>) -> tensor<2x7x48xf32>
  return %r : tensor<2x7x48xf32>
}

// -----

// The same with a dynamic sequence and a batch of 2, with a key padding
// mask (as llm-recompose leaves torch.nn.MultiheadAttention: the output
// projection on [S, B, E] rows): the attention over [1, B*H, ?, D] is split
// back to [B, H, ?, D] (B and H static), the mask [B*H, 1, ?] to
// [B, H, 1, ?], and no transpose is left.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @mha_batch_first_dynamic
// CHECK-NOT: llm.transpose
// CHECK: llm.matmul %arg0, %{{.*}} : (tensor<2x?x48xf32>, tensor<48x144xf32>) -> tensor<2x?x144xf32>
// CHECK-NOT: llm.transpose
// CHECK: %[[M:.+]] = llm.broadcast_to %{{.*}} : (tensor<2x1x1x?xi1>) -> tensor<2x3x1x?xi1>
// CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] {layout = #llm.attention_layout<bshd>, scale = 2.500000e-01 : f32} : (tensor<2x?x3x16xf32>, tensor<2x?x3x16xf32>, tensor<2x?x3x16xf32>, tensor<2x3x1x?xi1>) -> tensor<2x?x3x16xf32>
// CHECK-NOT: llm.transpose
// CHECK: return
func.func @mha_batch_first_dynamic(%x: tensor<2x?x48xf32> {llm.dim_bounds = array<i64: 2, 32, 48>}, %pad: tensor<2x?xi1> {llm.dim_bounds = array<i64: 2, 32>}) -> tensor<2x?x48xf32> {
  %w = llm.constant dense<0.5> : tensor<48x144xf32>
  %b = llm.constant dense<0.25> : tensor<144xf32>
  %wo = llm.constant dense<0.125> : tensor<48x48xf32>
  %bo = llm.constant dense<1.0> : tensor<48xf32>
  %0 = llm.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x?x48xf32>) -> tensor<?x2x48xf32>
  %1 = llm.matmul %0, %w : (tensor<?x2x48xf32>, tensor<48x144xf32>) -> tensor<?x2x144xf32>
  %2 = llm.add %b, %1 : (tensor<144xf32>, tensor<?x2x144xf32>) -> tensor<?x2x144xf32>
  %q = llm.slice %2 {limits = array<i64: 32, 2, 48>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x144xf32>) -> tensor<?x2x48xf32>
  %k = llm.slice %2 {limits = array<i64: 32, 2, 96>, starts = array<i64: 0, 0, 48>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x144xf32>) -> tensor<?x2x48xf32>
  %v = llm.slice %2 {limits = array<i64: 32, 2, 144>, starts = array<i64: 0, 0, 96>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x144xf32>) -> tensor<?x2x48xf32>
  %q1 = llm.reshape %q : (tensor<?x2x48xf32>) -> tensor<?x6x16xf32>
  %q2 = llm.transpose %q1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x6x16xf32>) -> tensor<6x?x16xf32>
  %q3 = llm.reshape %q2 : (tensor<6x?x16xf32>) -> tensor<1x6x?x16xf32>
  %k1 = llm.reshape %k : (tensor<?x2x48xf32>) -> tensor<?x6x16xf32>
  %k2 = llm.transpose %k1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x6x16xf32>) -> tensor<6x?x16xf32>
  %k3 = llm.reshape %k2 : (tensor<6x?x16xf32>) -> tensor<1x6x?x16xf32>
  %v1 = llm.reshape %v : (tensor<?x2x48xf32>) -> tensor<?x6x16xf32>
  %v2 = llm.transpose %v1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x6x16xf32>) -> tensor<6x?x16xf32>
  %v3 = llm.reshape %v2 : (tensor<6x?x16xf32>) -> tensor<1x6x?x16xf32>
  %m0 = llm.reshape %pad : (tensor<2x?xi1>) -> tensor<2x1x1x?xi1>
  %m1 = llm.broadcast_to %m0 : (tensor<2x1x1x?xi1>) -> tensor<2x3x1x?xi1>
  %m2 = llm.reshape %m1 : (tensor<2x3x1x?xi1>) -> tensor<6x1x?xi1>
  %a = llm.attention %q3, %k3, %v3 mask %m2 {scale = 0.25 : f32} : (tensor<1x6x?x16xf32>, tensor<1x6x?x16xf32>, tensor<1x6x?x16xf32>, tensor<6x1x?xi1>) -> tensor<1x6x?x16xf32>
  %a1 = llm.reshape %a : (tensor<1x6x?x16xf32>) -> tensor<6x?x16xf32>
  %a2 = llm.transpose %a1 {permutation = array<i64: 1, 0, 2>} : (tensor<6x?x16xf32>) -> tensor<?x6x16xf32>
  %a3 = llm.reshape %a2 : (tensor<?x6x16xf32>) -> tensor<?x2x48xf32>
  %o = llm.matmul %a3, %wo : (tensor<?x2x48xf32>, tensor<48x48xf32>) -> tensor<?x2x48xf32>
  %o1 = llm.add %o, %bo : (tensor<?x2x48xf32>, tensor<48xf32>) -> tensor<?x2x48xf32>
  %o3 = llm.transpose %o1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x2x48xf32>) -> tensor<2x?x48xf32>
  %r = llm.add %x, %o3 : (tensor<2x?x48xf32>, tensor<2x?x48xf32>) -> tensor<2x?x48xf32>
  return %r : tensor<2x?x48xf32>
}

// -----

// The same with a dynamic sequence and batch 1 (the dynamic import of
// torch.nn.TransformerEncoderLayer): the sequence is one atom of the
// transpose/reshape chains, never split nor merged, and every transpose
// still goes.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @mha_dynamic
// CHECK-NOT: llm.transpose
// CHECK: llm.matmul %arg0, %{{.*}} : (tensor<1x?x48xf32>, tensor<48x144xf32>) -> tensor<1x?x144xf32>
// CHECK-NOT: llm.transpose
// CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {layout = #llm.attention_layout<bshd>, scale = 2.500000e-01 : f32} : (tensor<1x?x3x16xf32>, tensor<1x?x3x16xf32>, tensor<1x?x3x16xf32>) -> tensor<1x?x3x16xf32>
// CHECK-NOT: llm.transpose
// CHECK: return
func.func @mha_dynamic(%x: tensor<1x?x48xf32> {llm.dim_bounds = array<i64: 1, 16, 48>}) -> tensor<1x?x48xf32> {
  %w = llm.constant dense<0.5> : tensor<48x144xf32>
  %b = llm.constant dense<0.25> : tensor<144xf32>
  %wo = llm.constant dense<0.125> : tensor<48x48xf32>
  %bo = llm.constant dense<1.0> : tensor<48xf32>
  %0 = llm.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<1x?x48xf32>) -> tensor<?x1x48xf32>
  %1 = llm.matmul %0, %w : (tensor<?x1x48xf32>, tensor<48x144xf32>) -> tensor<?x1x144xf32>
  %2 = llm.add %b, %1 : (tensor<144xf32>, tensor<?x1x144xf32>) -> tensor<?x1x144xf32>
  %q = llm.slice %2 {limits = array<i64: 16, 1, 48>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<?x1x144xf32>) -> tensor<?x1x48xf32>
  %k = llm.slice %2 {limits = array<i64: 16, 1, 96>, starts = array<i64: 0, 0, 48>, strides = array<i64: 1, 1, 1>} : (tensor<?x1x144xf32>) -> tensor<?x1x48xf32>
  %v = llm.slice %2 {limits = array<i64: 16, 1, 144>, starts = array<i64: 0, 0, 96>, strides = array<i64: 1, 1, 1>} : (tensor<?x1x144xf32>) -> tensor<?x1x48xf32>
  %q1 = llm.reshape %q : (tensor<?x1x48xf32>) -> tensor<?x3x16xf32>
  %q2 = llm.transpose %q1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x3x16xf32>) -> tensor<3x?x16xf32>
  %q3 = llm.reshape %q2 : (tensor<3x?x16xf32>) -> tensor<1x3x?x16xf32>
  %k1 = llm.reshape %k : (tensor<?x1x48xf32>) -> tensor<?x3x16xf32>
  %k2 = llm.transpose %k1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x3x16xf32>) -> tensor<3x?x16xf32>
  %k3 = llm.reshape %k2 : (tensor<3x?x16xf32>) -> tensor<1x3x?x16xf32>
  %v1 = llm.reshape %v : (tensor<?x1x48xf32>) -> tensor<?x3x16xf32>
  %v2 = llm.transpose %v1 {permutation = array<i64: 1, 0, 2>} : (tensor<?x3x16xf32>) -> tensor<3x?x16xf32>
  %v3 = llm.reshape %v2 : (tensor<3x?x16xf32>) -> tensor<1x3x?x16xf32>
  %a = llm.attention %q3, %k3, %v3 {scale = 0.25 : f32} : (tensor<1x3x?x16xf32>, tensor<1x3x?x16xf32>, tensor<1x3x?x16xf32>) -> tensor<1x3x?x16xf32>
  %a1 = llm.reshape %a : (tensor<1x3x?x16xf32>) -> tensor<3x?x16xf32>
  %a2 = llm.transpose %a1 {permutation = array<i64: 1, 0, 2>} : (tensor<3x?x16xf32>) -> tensor<?x3x16xf32>
  %a3 = llm.reshape %a2 : (tensor<?x3x16xf32>) -> tensor<?x48xf32>
  %o = llm.matmul %a3, %wo : (tensor<?x48xf32>, tensor<48x48xf32>) -> tensor<?x48xf32>
  %o1 = llm.add %o, %bo : (tensor<?x48xf32>, tensor<48xf32>) -> tensor<?x48xf32>
  %o2 = llm.reshape %o1 : (tensor<?x48xf32>) -> tensor<?x1x48xf32>
  %o3 = llm.transpose %o2 {permutation = array<i64: 1, 0, 2>} : (tensor<?x1x48xf32>) -> tensor<1x?x48xf32>
  return %o3 : tensor<1x?x48xf32>
}

// -----

// Hugging Face Conv1D: reshape to [B*S, K] -> addmm -> reshape back. The
// reshapes sink through the matmul and the bias and cancel: a 3-D matmul.
// CHECK-LABEL: func.func @conv1d_flatten
// CHECK-NEXT: llm.constant
// CHECK-NEXT: llm.constant
// CHECK-NEXT: %[[M:.*]] = llm.matmul %arg0, %{{.*}} : (tensor<2x7x48xf32>, tensor<48x96xf32>) -> tensor<2x7x96xf32>
// CHECK-NEXT: %[[A:.*]] = llm.add %[[M]], %{{.*}} : (tensor<2x7x96xf32>, tensor<96xf32>) -> tensor<2x7x96xf32>
// CHECK-NEXT: return %[[A]]
func.func @conv1d_flatten(%x: tensor<2x7x48xf32>) -> tensor<2x7x96xf32> {
  %w = llm.constant dense<0.5> : tensor<48x96xf32>
  %b = llm.constant dense<0.25> : tensor<96xf32>
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.matmul %0, %w : (tensor<14x48xf32>, tensor<48x96xf32>) -> tensor<14x96xf32>
  %2 = llm.add %1, %b : (tensor<14x96xf32>, tensor<96xf32>) -> tensor<14x96xf32>
  %3 = llm.reshape %2 : (tensor<14x96xf32>) -> tensor<2x7x96xf32>
  return %3 : tensor<2x7x96xf32>
}

// -----

// Near misses: a transpose that moves the last (reduction) dimension does not
// commute with the matmul; a constant that varies along both permuted
// dimensions would have to be transposed itself; a chain of reshapes whose sizes do not
// factor (6 -> 4) stays as written. One runtime transpose is counted for
// each of the first two.
// CHECK: module attributes {llm.report = {runtime_transposes = 2 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @no_sinking
// CHECK: llm.transpose %arg0 {permutation = array<i64: 0, 2, 1>}
// CHECK: llm.matmul
// CHECK: llm.transpose %arg1 {permutation = array<i64: 1, 0, 2>}
// CHECK: llm.add
// CHECK: llm.reshape %arg2 : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK: llm.reshape %{{.*}} : (tensor<3x4xf32>) -> tensor<12xf32>
func.func @no_sinking(%x: tensor<2x4x8xf32>, %y: tensor<2x3x5xf32>, %z: tensor<2x6xf32>) -> (tensor<2x8x3xf32>, tensor<3x2x5xf32>, tensor<12xf32>) {
  %w = llm.constant dense<0.5> : tensor<4x3xf32>
  %c = llm.constant dense<[[[1.0], [2.0]], [[3.0], [4.0]], [[5.0], [6.0]]]> : tensor<3x2x1xf32>
  %0 = llm.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %1 = llm.matmul %0, %w : (tensor<2x8x4xf32>, tensor<4x3xf32>) -> tensor<2x8x3xf32>
  %2 = llm.transpose %y {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x5xf32>) -> tensor<3x2x5xf32>
  %3 = llm.add %2, %c : (tensor<3x2x5xf32>, tensor<3x2x1xf32>) -> tensor<3x2x5xf32>
  %4 = llm.reshape %z : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %5 = llm.neg %4 : tensor<3x4xf32>
  %6 = llm.reshape %5 : (tensor<3x4xf32>) -> tensor<12xf32>
  return %1, %3, %6 : tensor<2x8x3xf32>, tensor<3x2x5xf32>, tensor<12xf32>
}

// -----

// Near misses (hostile-input review): a chain over a zero-size tensor stays
// (no sizes to factor), and the reshape of a vector stays in front of its
// matmul (a matmul needs rank >= 2).
// CHECK-LABEL: func.func @zero_size_and_vector
// CHECK: llm.reshape %arg0 : (tensor<0x4xf32>) -> tensor<4x0xf32>
// CHECK: llm.transpose
// CHECK: %[[R:.*]] = llm.reshape %arg1 : (tensor<6xf32>) -> tensor<1x6xf32>
// CHECK: llm.matmul %[[R]], %{{.*}} : (tensor<1x6xf32>, tensor<6x4xf32>) -> tensor<1x4xf32>
func.func @zero_size_and_vector(%x: tensor<0x4xf32>, %v: tensor<6xf32>) -> (tensor<0x4xf32>, tensor<1x4xf32>) {
  %0 = llm.reshape %x : (tensor<0x4xf32>) -> tensor<4x0xf32>
  %1 = llm.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<4x0xf32>) -> tensor<0x4xf32>
  %w = llm.constant dense<0.5> : tensor<6x4xf32>
  %2 = llm.reshape %v : (tensor<6xf32>) -> tensor<1x6xf32>
  %3 = llm.matmul %2, %w : (tensor<1x6xf32>, tensor<6x4xf32>) -> tensor<1x4xf32>
  return %1, %3 : tensor<0x4xf32>, tensor<1x4xf32>
}

// -----

// GPT-NeoX's partial rotary on heads transposed to [B, H, S, D]: the first
// 4 of 16 dims rotated, then concatenated with the rest. The transposes
// sink through the slices and the ropes, meet at the concats
// (concat(transpose(a, p), transpose(b, p)) -> transpose(concat(a, b), p)),
// and the attention absorbs them (bshd): no transpose is left.
// CHECK: module attributes {llm.report = {runtime_transposes = 0 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @partial_rotary_heads
// CHECK-NOT: llm.transpose
// CHECK: llm.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<2x7x3x4xf32>, tensor<2x7x3x12xf32>) -> tensor<2x7x3x16xf32>
// CHECK-NOT: llm.transpose
// CHECK: llm.attention {{.*}}layout = #llm.attention_layout<bshd>
// CHECK-NOT: llm.transpose
// CHECK: return
func.func @partial_rotary_heads(%qkv: tensor<2x7x3x48xf32>, %pos: tensor<7xi64>) -> tensor<2x7x48xf32> {
  %q0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 16>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %k0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 32>, starts = array<i64: 0, 0, 0, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %v0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 48>, starts = array<i64: 0, 0, 0, 32>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %q = llm.transpose %q0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %k = llm.transpose %k0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %v = llm.transpose %v0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %qr = llm.slice %q {limits = array<i64: 2, 3, 7, 4>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x7x4xf32>
  %qp = llm.slice %q {limits = array<i64: 2, 3, 7, 16>, starts = array<i64: 0, 0, 0, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x7x12xf32>
  %kr = llm.slice %k {limits = array<i64: 2, 3, 7, 4>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x7x4xf32>
  %kp = llm.slice %k {limits = array<i64: 2, 3, 7, 16>, starts = array<i64: 0, 0, 0, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x7x12xf32>
  %qe = llm.rope %qr, %pos : (tensor<2x3x7x4xf32>, tensor<7xi64>) -> tensor<2x3x7x4xf32>
  %ke = llm.rope %kr, %pos : (tensor<2x3x7x4xf32>, tensor<7xi64>) -> tensor<2x3x7x4xf32>
  %q2 = llm.concat %qe, %qp {axis = 3 : i64} : (tensor<2x3x7x4xf32>, tensor<2x3x7x12xf32>) -> tensor<2x3x7x16xf32>
  %k2 = llm.concat %ke, %kp {axis = 3 : i64} : (tensor<2x3x7x4xf32>, tensor<2x3x7x12xf32>) -> tensor<2x3x7x16xf32>
  %a = llm.attention %q2, %k2, %v {causal, scale = 0.25 : f32} : (tensor<2x3x7x16xf32>, tensor<2x3x7x16xf32>, tensor<2x3x7x16xf32>) -> tensor<2x3x7x16xf32>
  %a1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x3x7x16xf32>) -> tensor<2x7x3x16xf32>
  %a2 = llm.reshape %a1 : (tensor<2x7x3x16xf32>) -> tensor<2x7x48xf32>
  return %a2 : tensor<2x7x48xf32>
}

// -----

// The same heads with the partial rotary already one llm.rope
// {rotary_dims = 4} (what the canonicalizer makes of the slices and concats
// above): the transposes sink through the ropes, which keep rotary_dims.
// CHECK-LABEL: func.func @partial_rope_op_heads
// CHECK-NOT: llm.transpose
// CHECK: llm.rope %{{.*}}, %{{.*}} {rotary_dims = 4 : i64} : (tensor<2x7x3x16xf32>, tensor<{{.*}}xi64>) -> tensor<2x7x3x16xf32>
// CHECK: llm.rope %{{.*}}, %{{.*}} {rotary_dims = 4 : i64} : (tensor<2x7x3x16xf32>, tensor<{{.*}}xi64>) -> tensor<2x7x3x16xf32>
// CHECK-NOT: llm.transpose
// CHECK: llm.attention {{.*}}layout = #llm.attention_layout<bshd>
// CHECK-NOT: llm.transpose
// CHECK: return
func.func @partial_rope_op_heads(%qkv: tensor<2x7x3x48xf32>, %pos: tensor<7xi64>) -> tensor<2x7x48xf32> {
  %q0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 16>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %k0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 32>, starts = array<i64: 0, 0, 0, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %v0 = llm.slice %qkv {limits = array<i64: 2, 7, 3, 48>, starts = array<i64: 0, 0, 0, 32>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x7x3x48xf32>) -> tensor<2x7x3x16xf32>
  %q = llm.transpose %q0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %k = llm.transpose %k0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %v = llm.transpose %v0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x7x3x16xf32>) -> tensor<2x3x7x16xf32>
  %q2 = llm.rope %q, %pos {rotary_dims = 4} : (tensor<2x3x7x16xf32>, tensor<7xi64>) -> tensor<2x3x7x16xf32>
  %k2 = llm.rope %k, %pos {rotary_dims = 4} : (tensor<2x3x7x16xf32>, tensor<7xi64>) -> tensor<2x3x7x16xf32>
  %a = llm.attention %q2, %k2, %v {causal, scale = 0.25 : f32} : (tensor<2x3x7x16xf32>, tensor<2x3x7x16xf32>, tensor<2x3x7x16xf32>) -> tensor<2x3x7x16xf32>
  %a1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x3x7x16xf32>) -> tensor<2x7x3x16xf32>
  %a2 = llm.reshape %a1 : (tensor<2x7x3x16xf32>) -> tensor<2x7x48xf32>
  return %a2 : tensor<2x7x48xf32>
}
