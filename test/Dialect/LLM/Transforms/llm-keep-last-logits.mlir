// RUN: llm-opt %s -llm-keep-last-logits -split-input-file | FileCheck %s

// llm-keep-last-logits: @main returns the last position's logits, and the
// llm.sequence_last that selects them moves up through the ops that compute
// each position by itself. Numerical check: llm-keep-last-logits-exec.mlir.

// A decoder layer and its LM head: the head, the MLP, the norms, the
// residual adds, the attention's output (its query rows) and the query
// projection run on the last row; the keys and values keep every row.
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<1x37xf32>
// CHECK: %[[N:.*]] = llm.reshape %{{.*}} : (tensor<1x?x16xf32>) -> tensor<?x16xf32>
// CHECK: %[[NL:.*]] = llm.sequence_last %[[N]] {axis = 0 : i64} : (tensor<?x16xf32>) -> tensor<1x16xf32>
// CHECK: %[[Q:.*]] = llm.matmul %[[NL]], %{{.*}} : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
// CHECK: llm.matmul %[[N]], %{{.*}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK: llm.matmul %[[N]], %{{.*}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK: %[[Q4:.*]] = llm.reshape %[[Q]] : (tensor<1x16xf32>) -> tensor<1x1x2x8xf32>
// CHECK: %[[A:.*]] = llm.attention %[[Q4]], %{{.*}}, %{{.*}} {causal, {{.*}}} : (tensor<1x1x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>) -> tensor<1x1x2x8xf32>
// CHECK: %[[A2:.*]] = llm.reshape %[[A]] : (tensor<1x1x2x8xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[XL:.*]] = llm.sequence_last %arg0 {axis = 1 : i64} : (tensor<1x?x16xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[H:.*]] = llm.add %[[XL]], %[[A2]] : (tensor<1x1x16xf32>, tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[M:.*]] = llm.layer_norm %[[H]] scale %{{.*}} : (tensor<1x1x16xf32>, tensor<16xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[U:.*]] = llm.matmul %[[M]], %{{.*}} : (tensor<1x1x16xf32>, tensor<16x32xf32>) -> tensor<1x1x32xf32>
// CHECK: %[[S:.*]] = llm.silu %[[U]] : tensor<1x1x32xf32>
// CHECK: %[[D:.*]] = llm.matmul %[[S]], %{{.*}} : (tensor<1x1x32xf32>, tensor<32x16xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[O:.*]] = llm.add %[[H]], %[[D]] : (tensor<1x1x16xf32>, tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
// CHECK: %[[L:.*]] = llm.matmul %[[O]], %{{.*}} {transpose_b} : (tensor<1x1x16xf32>, tensor<37x16xf32>) -> tensor<1x1x37xf32>
// CHECK: %[[R:.*]] = llm.reshape %[[L]] : (tensor<1x1x37xf32>) -> tensor<1x37xf32>
// CHECK: return %[[R]] : tensor<1x37xf32>
func.func @main(%x: tensor<1x?x16xf32> {llm.dim_bounds = array<i64: 1, 8, 16>}, %g: tensor<16xf32>,
                %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>,
                %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>, %head: tensor<37x16xf32>) -> tensor<1x?x37xf32> {
  %n = llm.rms_norm %x weight %g : (tensor<1x?x16xf32>, tensor<16xf32>) -> tensor<1x?x16xf32>
  %n2 = llm.reshape %n : (tensor<1x?x16xf32>) -> tensor<?x16xf32>
  %q = llm.matmul %n2, %wq : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %k = llm.matmul %n2, %wk : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %v = llm.matmul %n2, %wv : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %q4 = llm.reshape %q : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %k4 = llm.reshape %k : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %v4 = llm.reshape %v : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %a = llm.attention %q4, %k4, %v4 {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>) -> tensor<1x?x2x8xf32>
  %a2 = llm.reshape %a : (tensor<1x?x2x8xf32>) -> tensor<1x?x16xf32>
  %h = llm.add %x, %a2 : (tensor<1x?x16xf32>, tensor<1x?x16xf32>) -> tensor<1x?x16xf32>
  %m = llm.layer_norm %h scale %g : (tensor<1x?x16xf32>, tensor<16xf32>) -> tensor<1x?x16xf32>
  %u = llm.matmul %m, %w1 : (tensor<1x?x16xf32>, tensor<16x32xf32>) -> tensor<1x?x32xf32>
  %s = llm.silu %u : tensor<1x?x32xf32>
  %d = llm.matmul %s, %w2 : (tensor<1x?x32xf32>, tensor<32x16xf32>) -> tensor<1x?x16xf32>
  %o = llm.add %h, %d : (tensor<1x?x16xf32>, tensor<1x?x16xf32>) -> tensor<1x?x16xf32>
  %l = llm.matmul %o, %head {transpose_b} : (tensor<1x?x16xf32>, tensor<37x16xf32>) -> tensor<1x?x37xf32>
  return %l : tensor<1x?x37xf32>
}

// -----

// Stops: a softmax over the sequence axis mixes positions; a value with
// another user keeps every row (the selection is a view of its last row);
// an operand that is broadcast along the axis is used whole.
// CHECK-LABEL: func.func @main
// CHECK: %[[SM:.*]] = llm.softmax %arg0 {axis = 1 : i64} : tensor<1x?x4xf32>
// CHECK: %[[E:.*]] = llm.exp %[[SM]] : tensor<1x?x4xf32>
// CHECK: %[[EL:.*]] = llm.sequence_last %[[E]] {axis = 1 : i64}
// CHECK: %[[M:.*]] = llm.mul %[[EL]], %arg1 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
// CHECK: %[[R:.*]] = llm.reshape %[[M]] : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
// CHECK: return %[[R]], %[[E]] : tensor<1x4xf32>, tensor<1x?x4xf32>
func.func @main(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 8, 4>}, %w: tensor<1x1x4xf32>)
    -> (tensor<1x?x4xf32>, tensor<1x?x4xf32>) {
  %sm = llm.softmax %x {axis = 1 : i64} : tensor<1x?x4xf32>
  %e = llm.exp %sm : tensor<1x?x4xf32>
  %m = llm.mul %e, %w : (tensor<1x?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  return %m, %e : tensor<1x?x4xf32>, tensor<1x?x4xf32>
}

// -----

// Stops: a matmul whose lhs is transposed (its rows are the input's
// columns), a layer norm over the sequence axis.
// CHECK-LABEL: func.func @main
// CHECK: %[[T:.*]] = llm.matmul %arg1, %arg2 {transpose_a}
// CHECK: %[[LN:.*]] = llm.layer_norm %[[T]] {axis = 1 : i64}
// CHECK: %[[L:.*]] = llm.sequence_last %[[LN]] {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
// CHECK: %[[R:.*]] = llm.reshape %[[L]] : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
// CHECK: return %[[R]]
func.func @main(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 8, 4>}, %a: tensor<1x4x?xf32>, %b: tensor<4x4xf32>)
    -> tensor<1x?x4xf32> {
  %t = llm.matmul %a, %b {transpose_a} : (tensor<1x4x?xf32>, tensor<4x4xf32>) -> tensor<1x?x4xf32>
  %ln = llm.layer_norm %t {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x?x4xf32>
  return %ln : tensor<1x?x4xf32>
}

// -----

// A reshape that keeps the sequence axis (other dimensions split or merged
// after it) is crossed; the two reshapes then fold into one.
// CHECK-LABEL: func.func @main
// CHECK: %[[L:.*]] = llm.sequence_last %arg0 {axis = 0 : i64} : (tensor<?x2x4xf32>) -> tensor<1x2x4xf32>
// CHECK: %[[N:.*]] = llm.neg %[[L]] : tensor<1x2x4xf32>
// CHECK: %[[R:.*]] = llm.reshape %[[N]] : (tensor<1x2x4xf32>) -> tensor<1x8xf32>
// CHECK: return %[[R]]
func.func @main(%x: tensor<?x2x4xf32> {llm.dim_bounds = array<i64: 8, 2, 4>}) -> tensor<1x?x8xf32> {
  %n = llm.neg %x : tensor<?x2x4xf32>
  %r = llm.reshape %n : (tensor<?x2x4xf32>) -> tensor<1x?x8xf32>
  return %r : tensor<1x?x8xf32>
}

// -----

// A reshape whose positions are not the input's ([4, S] read as [S, 4]) is
// not crossed.
// CHECK-LABEL: func.func @main
// CHECK: %[[RS:.*]] = llm.reshape %arg0 : (tensor<4x?xf32>) -> tensor<1x?x4xf32>
// CHECK: llm.sequence_last %[[RS]] {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
func.func @main(%y: tensor<4x?xf32> {llm.dim_bounds = array<i64: 4, 8>}) -> tensor<1x?x4xf32> {
  %t = llm.reshape %y : (tensor<4x?xf32>) -> tensor<1x?x4xf32>
  return %t : tensor<1x?x4xf32>
}

// -----

// Already the last position's logits: unchanged.
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<1x8xf32>
// CHECK-NEXT: return %arg0 : tensor<1x8xf32>
func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  return %x : tensor<1x8xf32>
}

// -----

// A static sequence: the selection that stops becomes a static slice.
// CHECK-LABEL: func.func @main
// CHECK: %[[S:.*]] = llm.slice %{{.*}} {limits = array<i64: 1, 6, 4>, starts = array<i64: 0, 5, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x6x4xf32>) -> tensor<1x1x4xf32>
// CHECK: llm.gelu %[[S]] : tensor<1x1x4xf32>
func.func @main(%x: tensor<1x6x4xf32>) -> tensor<1x6x4xf32> {
  %sm = llm.softmax %x {axis = 1 : i64} : tensor<1x6x4xf32>
  %g = llm.gelu %sm : tensor<1x6x4xf32>
  return %g : tensor<1x6x4xf32>
}
