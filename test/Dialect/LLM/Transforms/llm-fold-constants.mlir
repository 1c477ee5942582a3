// RUN: llm-opt %s --llm-fold-constants -split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-fold-constants="max-growth-factor=4" -split-input-file | FileCheck %s --check-prefix=GROW
// RUN: llm-opt %s --llm-fold-constants="max-result-elements=3" -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: llm-opt %s --llm-fold-constants="fast-math" -split-input-file | FileCheck %s --check-prefix=FAST
// RUN: llm-opt %s --llm-fold-constants -split-input-file | %python %S/Inputs/fold_constants_reference.py
// A negative limit is an error (it meant no limit).
// At the function's location, without the function as a note.
// RUN: not llm-opt %s --llm-fold-constants="max-result-elements=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0 --implicit-check-not=note:
// NEGOPT0: error: llm-fold-constants: max-result-elements must be at least 0, got -1
// RUN: not llm-opt %s --llm-fold-constants="max-growth-factor=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT1
// NEGOPT1: error: llm-fold-constants: max-growth-factor must be at least 0, got -1.000000e+00
// RUN: not llm-opt %s --llm-fold-constants="max-growth-factor=nan" 2>&1 | FileCheck %s --check-prefix=NEGOPT2
// NEGOPT2: error: llm-fold-constants: max-growth-factor must be at least 0, got nan

// Expected values were computed with numpy (float64 arithmetic, one rounding
// to the element type); Inputs/fold_constants_reference.py recomputes them
// and checks the folded constants bit for bit (the last RUN line).

// Elementwise ops with broadcasting, in f32 and f16.
// CHECK-LABEL: func @elementwise
//   CHECK-DAG: llm.constant dense<{{\[}}[5.000000e-01, -2.000000e+00, 6.000000e+00], [2.000000e+00, -5.000000e+00, 1.200000e+01]]> : tensor<2x3xf32>
//   CHECK-DAG: llm.constant dense<[3.457140e-01, -0.158808008, 1.95459771]> : tensor<3xf32>
//   CHECK-DAG: llm.constant dense<[1.105470e+00, 2.718750e+00, 2.007810e+01]> : tensor<3xf16>
//   CHECK-DAG: llm.constant dense<[2.000000e+00, -5.120000e+02]> : tensor<2xf32>
//   CHECK-NOT: llm.mul
//   CHECK-NOT: llm.gelu
//   CHECK-NOT: llm.exp
//   CHECK-NOT: llm.pow
func.func @elementwise() -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<2xf32>) {
  %a = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = llm.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %0 = llm.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = llm.gelu %b approximate <tanh> : tensor<3xf32>
  %h = llm.constant dense<[0.1, 1.0, 3.0]> : tensor<3xf16>
  %2 = llm.exp %h : tensor<3xf16>
  %p = llm.constant dense<[4.0, -8.0]> : tensor<2xf32>
  %q = llm.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %3 = llm.pow %p, %q : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<2xf32>
}

// -----

// matmul, plain and with transpose_b (both give the same matrix, which the
// greedy driver then deduplicates).
// CHECK-LABEL: func @matmul
//       CHECK: %[[C:.+]] = llm.constant dense<{{\[}}[4.000000e+00, 5.000000e+00], [1.000000e+01, 1.100000e+01]]> : tensor<2x2xf32>
//   CHECK-NOT: llm.matmul
//       CHECK: return %[[C]], %[[C]]
func.func @matmul() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = llm.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %bt = llm.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %0 = llm.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = llm.matmul %a, %bt {transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// transpose, strided slice, concat and reshape of inline constants.
// CHECK-LABEL: func @movement
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [9.000000e+00, 1.100000e+01]]> : tensor<2x2xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<3x3xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
//   CHECK-NOT: llm.transpose
//   CHECK-NOT: llm.slice
//   CHECK-NOT: llm.concat
//   CHECK-NOT: llm.reshape
func.func @movement() -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x3xf32>, tensor<3x2xf32>) {
  %a = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = llm.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = llm.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %1 = llm.slice %r {starts = array<i64: 0, 1>, limits = array<i64: 3, 4>, strides = array<i64: 2, 2>} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  %c = llm.constant dense<[[7.0, 8.0, 9.0]]> : tensor<1x3xf32>
  %2 = llm.concat %a, %c {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %3 = llm.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x3xf32>, tensor<3x2xf32>
}

// -----

// Reductions (with and without keepdims, negative axis) and softmax.
// CHECK-LABEL: func @reductions
//   CHECK-DAG: llm.constant dense<[6.000000e+00, 1.500000e+01]> : tensor<2xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[2.500000e+00, 3.500000e+00, 4.500000e+00]]> : tensor<1x3xf32>
//   CHECK-DAG: llm.constant dense<6.000000e+00> : tensor<f32>
//   CHECK-DAG: llm.constant dense<{{\[}}[0.0900305733, 0.244728476, 0.665240943], [0.333333343, 0.333333343, 0.333333343]]> : tensor<2x3xf32>
//   CHECK-NOT: llm.reduce
//   CHECK-NOT: llm.softmax
func.func @reductions() -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2x3xf32>) {
  %a = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = llm.reduce_sum %a {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = llm.reduce_mean %a {axes = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %2 = llm.reduce_max %a {axes = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<f32>
  %s = llm.constant dense<[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>
  %3 = llm.softmax %s {axis = 1 : i64} : tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2x3xf32>
}

// -----

// Integer sums in the element type, wrapping modulo 2^bits as the lowering's
// arith.addi (100 + 30 + 0 = 130 -> -126 in i8; INT64_MAX + 1 -> INT64_MIN),
// and integer maxima (signed).
// CHECK-LABEL: func @integer_reductions
//   CHECK-DAG: llm.constant dense<[-126, 6]> : tensor<2xi8>
//   CHECK-DAG: llm.constant dense<[100, 3]> : tensor<2xi8>
//   CHECK-DAG: llm.constant dense<-9223372036854775808> : tensor<i64>
//   CHECK-NOT: llm.reduce
func.func @integer_reductions() -> (tensor<2xi8>, tensor<2xi8>, tensor<i64>) {
  %a = llm.constant dense<[[100, 30, 0], [1, 2, 3]]> : tensor<2x3xi8>
  %0 = llm.reduce_sum %a {axes = array<i64: 1>} : (tensor<2x3xi8>) -> tensor<2xi8>
  %1 = llm.reduce_max %a {axes = array<i64: 1>} : (tensor<2x3xi8>) -> tensor<2xi8>
  %b = llm.constant dense<[9223372036854775807, 1]> : tensor<2xi64>
  %2 = llm.reduce_sum %b {axes = array<i64: 0>} : (tensor<2xi64>) -> tensor<i64>
  return %0, %1, %2 : tensor<2xi8>, tensor<2xi8>, tensor<i64>
}

// -----

// layer_norm (scale and bias, default epsilon 1e-5) and rms_norm (weight,
// default epsilon 1e-6).
// CHECK-LABEL: func @norms
//   CHECK-DAG: llm.constant dense<{{\[}}[-0.841635406, -0.894423604, 0.447211802, 2.68327093], [5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x4xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[0.365148336, 0.365148336, 2.190890e+00, 1.46059334], [0.99999988, 0.49999994, 1.99999976, 0.99999988]]> : tensor<2x4xf32>
//   CHECK-NOT: llm.layer_norm
//   CHECK-NOT: llm.rms_norm
func.func @norms() -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %x = llm.constant dense<[[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]> : tensor<2x4xf32>
  %g = llm.constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf32>
  %b = llm.constant dense<[0.5, 0.0, 0.0, 0.0]> : tensor<4xf32>
  %w = llm.constant dense<[1.0, 0.5, 2.0, 1.0]> : tensor<4xf32>
  %0 = llm.layer_norm %x scale %g bias %b : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = llm.rms_norm %x weight %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// rope with constant positions (rotate_half and interleaved; position 0
// leaves the row unchanged) and embedding (ids -1 and -3 count from the
// end: the last and the first row).
// CHECK-LABEL: func @rope_embedding
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [-1.41335249, 1.87911808, -2.82885742, 4.0581913]]> : tensor<2x4xf32>
//   CHECK-DAG: llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [-1.27223253, -1.83886504, 2.87866807, 4.08818674]]> : tensor<2x4xf32>
//   CHECK-DAG: llm.constant dense<{{\[\[}}[5.000000e+00, 6.000000e+00], [5.000000e+00, 6.000000e+00]], {{\[}}[1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]]> : tensor<2x2x2xf32>
//   CHECK-NOT: llm.rope
//   CHECK-NOT: llm.embedding
func.func @rope_embedding() -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x2xf32>) {
  %x = llm.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<2x4xf32>
  %pos = llm.constant dense<[0, 3]> : tensor<2xi64>
  %0 = llm.rope %x, %pos : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %1 = llm.rope %x, %pos mode <interleaved> : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %t = llm.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %ids = llm.constant dense<[[2, -1], [-3, 0]]> : tensor<2x2xi32>
  %2 = llm.embedding %t, %ids : (tensor<3x2xf32>, tensor<2x2xi32>) -> tensor<2x2x2xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x2xf32>
}

// -----

// An id outside [-V, V) is a run-time error (the compiled code's index
// check reports it): the embedding is not folded.
// CHECK-LABEL: func @embedding_out_of_range
//       CHECK: llm.embedding
//       CHECK: llm.embedding
func.func @embedding_out_of_range() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %t = llm.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %ids = llm.constant dense<[0, 3]> : tensor<2xi32>
  %0 = llm.embedding %t, %ids : (tensor<3x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %neg = llm.constant dense<[-4, 0]> : tensor<2xi32>
  %1 = llm.embedding %t, %neg : (tensor<3x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// cast: f32 -> i32 truncates toward zero and saturates; f32 -> f16 rounds to
// nearest even (65520 overflows to inf, 1e-8 underflows to 0); i64 -> i8
// wraps; f32 -> i1 compares with zero; i64 -> f32 rounds once to nearest
// even (2^60 + 2^36 + 1 gives 2^60 + 2^37; rounding through f64 would give
// 2^60).
// CHECK-LABEL: func @casts
//   CHECK-DAG: llm.constant dense<[1, -2, 2147483647, -2147483648]> : tensor<4xi32>
//   CHECK-DAG: llm.constant dense<[9.997550e-02, 0x7C00, 0.000000e+00, 3.140630e+00]> : tensor<4xf16>
//   CHECK-DAG: llm.constant dense<[44, 127, 5, 127]> : tensor<4xi8>
//   CHECK-DAG: llm.constant dense<[false, true, true]> : tensor<3xi1>
//   CHECK-DAG: llm.constant dense<[1.15292164E+18, -3.000000e+00, 0x4B800000]> : tensor<3xf32>
//   CHECK-NOT: llm.cast
func.func @casts() -> (tensor<4xi32>, tensor<4xf16>, tensor<4xi8>, tensor<3xi1>, tensor<3xf32>) {
  %f = llm.constant dense<[1.5, -2.7, 3.0e10, -3.0e10]> : tensor<4xf32>
  %0 = llm.cast %f : (tensor<4xf32>) -> tensor<4xi32>
  %g = llm.constant dense<[0.1, 65520.0, 1.0e-8, 3.14159]> : tensor<4xf32>
  %1 = llm.cast %g : (tensor<4xf32>) -> tensor<4xf16>
  %i = llm.constant dense<[300, -129, 5, 127]> : tensor<4xi64>
  %2 = llm.cast %i : (tensor<4xi64>) -> tensor<4xi8>
  %z = llm.constant dense<[0.0, -0.5, 2.0]> : tensor<3xf32>
  %3 = llm.cast %z : (tensor<3xf32>) -> tensor<3xi1>
  %j = llm.constant dense<[1152921573326323713, -3, 16777217]> : tensor<3xi64>
  %4 = llm.cast %j : (tensor<3xi64>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xf16>, tensor<4xi8>, tensor<3xi1>, tensor<3xf32>
}

// -----

// Size policy. broadcast_to of a 3-element constant to 12 elements grows it
// 4x: it stays by default (growth factor 1) and folds with
// max-growth-factor=4. A splat stores one element whatever its shape, so its
// broadcast to 64x64 folds under every policy, max-result-elements=3
// included (which also folds the 3-element add).
// CHECK-LABEL: func @size_policy
//   CHECK-DAG: llm.constant dense<2.500000e+00> : tensor<64x64xf32>
//   CHECK-DAG: llm.constant dense<[2.000000e+00, 4.000000e+00, 6.000000e+00]> : tensor<3xf32>
//       CHECK: llm.broadcast_to %{{.+}} : (tensor<3xf32>) -> tensor<4x3xf32>
//   CHECK-NOT: llm.add
// GROW-LABEL: func @size_policy
//   GROW-DAG: llm.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<4x3xf32>
//   GROW-NOT: llm.broadcast_to
// SMALL-LABEL: func @size_policy
//   SMALL-DAG: llm.constant dense<2.500000e+00> : tensor<64x64xf32>
//   SMALL-DAG: llm.constant dense<[2.000000e+00, 4.000000e+00, 6.000000e+00]> : tensor<3xf32>
//   SMALL-DAG: llm.broadcast_to
func.func @size_policy() -> (tensor<4x3xf32>, tensor<64x64xf32>, tensor<3xf32>) {
  %v = llm.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = llm.broadcast_to %v : (tensor<3xf32>) -> tensor<4x3xf32>
  %s = llm.constant dense<2.5> : tensor<1xf32>
  %1 = llm.broadcast_to %s : (tensor<1xf32>) -> tensor<64x64xf32>
  %2 = llm.add %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<64x64xf32>, tensor<3xf32>
}

// -----

// max-result-elements: a 4-element matmul result is over a limit of 3 even
// though it is smaller than its operands.
// CHECK-LABEL: func @max_result_elements
//   CHECK-NOT: llm.matmul
// SMALL-LABEL: func @max_result_elements
//       SMALL: llm.matmul
func.func @max_result_elements() -> tensor<2x2xf32> {
  %a = llm.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = llm.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %0 = llm.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Stays: an operand that is not a constant.
// CHECK-LABEL: func @not_constant
//       CHECK: llm.add
func.func @not_constant(%x: tensor<3xf32>) -> tensor<3xf32> {
  %v = llm.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = llm.add %x, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Stays: llm.attention is not evaluated, even on constants.
// CHECK-LABEL: func @attention_stays
//       CHECK: llm.attention
func.func @attention_stays() -> tensor<1x1x2x2xf32> {
  %q = llm.constant dense<[[[[1.0, 0.0], [0.0, 1.0]]]]> : tensor<1x1x2x2xf32>
  %0 = llm.attention %q, %q, %q : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// The pass also applies the llm canonicalizations; reshape(c) folds. Only
// with fast-math does mul(mul(x, 2), 3) merge its scalars (reassociation is
// not IEEE-exact).
// CHECK-LABEL: func @with_canonicalization
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//   CHECK-DAG: %[[C2:.+]] = llm.constant dense<2.000000e+00> : tensor<f32>
//   CHECK-DAG: %[[C3:.+]] = llm.constant dense<3.000000e+00> : tensor<f32>
//       CHECK: %[[M:.+]] = llm.mul %[[X]], %[[C2]]
//       CHECK: %[[N:.+]] = llm.mul %[[M]], %[[C3]]
//  CHECK-NEXT: return %[[N]]
// FAST-LABEL: func @with_canonicalization
//  FAST-SAME: (%[[X:.+]]: tensor<4xf32>)
//       FAST: %[[C:.+]] = llm.constant dense<6.000000e+00> : tensor<f32>
//       FAST: %[[M:.+]] = llm.mul %[[X]], %[[C]]
//  FAST-NEXT: return %[[M]]
func.func @with_canonicalization(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c2 = llm.constant dense<2.0> : tensor<1xf32>
  %r = llm.reshape %c2 : (tensor<1xf32>) -> tensor<f32>
  %c3 = llm.constant dense<3.0> : tensor<f32>
  %0 = llm.mul %x, %r : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = llm.mul %0, %c3 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// fast-math only: mul(mul(x, c1), c2) -> mul(x, c1 * c2)
// FAST-LABEL: func @mul_mul_constants
//  FAST-SAME: (%[[X:.+]]: tensor<2x4xf32>)
//       FAST: %[[C:.+]] = llm.constant dense<6.000000e+00> : tensor<4xf32>
//       FAST: %[[M:.+]] = llm.mul %[[X]], %[[C]] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
//  FAST-NEXT: return %[[M]]
func.func @mul_mul_constants(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c1 = llm.constant dense<2.0> : tensor<f32>
  %c2 = llm.constant dense<3.0> : tensor<4xf32>
  %0 = llm.mul %x, %c1 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %1 = llm.mul %c2, %0 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// fast-math only: add(add(x, c1), c2) -> add(x, c1 + c2)
// FAST-LABEL: func @add_add_constants
//  FAST-SAME: (%[[X:.+]]: tensor<4xf32>)
//       FAST: %[[C:.+]] = llm.constant dense<5.000000e-01> : tensor<f32>
//       FAST: %[[A:.+]] = llm.add %[[X]], %[[C]]
//  FAST-NEXT: return %[[A]]
func.func @add_add_constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = llm.constant dense<1.5> : tensor<f32>
  %c2 = llm.constant dense<-1.0> : tensor<f32>
  %0 = llm.add %x, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = llm.add %0, %c2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// fast-math only: add(add(x, c), -c) -> add(x, 0) -> x
// FAST-LABEL: func @add_add_cancel
//  FAST-SAME: (%[[X:.+]]: tensor<4xf32>)
//   FAST-NOT: llm.add
//       FAST: return %[[X]]
func.func @add_add_cancel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = llm.constant dense<2.0> : tensor<f32>
  %c2 = llm.constant dense<-2.0> : tensor<f32>
  %0 = llm.add %x, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = llm.add %0, %c2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// fast-math only: sub(x, x) -> 0 and mul(x, 0) -> 0 (of the result type);
// both are wrong for NaN/inf and stay by default.
// CHECK-LABEL: func @fast_math
//       CHECK: llm.sub
//       CHECK: llm.mul
// FAST-LABEL: func @fast_math
//   FAST-DAG: %[[A:.+]] = llm.constant dense<0.000000e+00> : tensor<3xf32>
//   FAST-DAG: %[[B:.+]] = llm.constant dense<0.000000e+00> : tensor<2x3xf32>
//   FAST-NOT: llm.sub
//   FAST-NOT: llm.mul
//       FAST: return %[[A]], %[[B]]
func.func @fast_math(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %z = llm.constant dense<0.0> : tensor<2x1xf32>
  %0 = llm.sub %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = llm.mul %x, %z : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xf32>
}

// -----

// reshape of a dense_resource constant reuses the blob under the new type
// (even above max-result-elements); neg reads the blob (f32 1, 2, 3, 6;
// f16 1, -2.5) and creates an inline constant.
// CHECK-LABEL: func @resource
//   CHECK-DAG: %[[R:.+]] = llm.constant dense_resource<w> : tensor<2x2xf32>
//   CHECK-DAG: %[[N:.+]] = llm.constant dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00, -6.000000e+00]> : tensor<4xf32>
//   CHECK-DAG: %[[H:.+]] = llm.constant dense<[-1.000000e+00, 2.500000e+00]> : tensor<2xf16>
//       CHECK: return %[[R]], %[[N]], %[[H]]
//       CHECK: w: "0x040000000000803F00000040000040400000C040"
// SMALL-LABEL: func @resource
//   SMALL-DAG: llm.constant dense_resource<w> : tensor<2x2xf32>
//   SMALL-DAG: llm.neg %{{.+}} : tensor<4xf32>
func.func @resource() -> (tensor<2x2xf32>, tensor<4xf32>, tensor<2xf16>) {
  %w = llm.constant dense_resource<w> : tensor<4xf32>
  %0 = llm.reshape %w : (tensor<4xf32>) -> tensor<2x2xf32>
  %1 = llm.neg %w : tensor<4xf32>
  %h = llm.constant dense_resource<h> : tensor<2xf16>
  %2 = llm.neg %h : tensor<2xf16>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<4xf32>, tensor<2xf16>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040000040400000C040",
      h: "0x02000000003C00C1"
    }
  }
#-}
