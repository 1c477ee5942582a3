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

// The head split and merge around llm.attention stay, with their reasons.
// CHECK: module attributes {llm.report = {runtime_transposes = 2 : i64, weight_layouts_changed = 0 : i64}}
// CHECK-LABEL: func.func @heads(
// CHECK-COUNT-2: llm.transpose
func.func @heads(%x: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %q = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %a = llm.attention %q, %q, %q {causal} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32>
  return %m : tensor<1x16x4x8xf32>
}
