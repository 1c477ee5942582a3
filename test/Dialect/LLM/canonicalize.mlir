// RUN: llm-opt %s -canonicalize="test-convergence" -split-input-file | FileCheck %s

// Folders and canonicalization patterns of the llm dialect. Each case states
// its rule; "stays" cases are near misses that must not be rewritten
// (broadcasting shapes, NaN-unsafe folds, inexact cast chains).

// add(x, 0) -> x
// CHECK-LABEL: func @add_zero
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
//   CHECK-NOT: llm.add
//       CHECK: return %[[X]]
func.func @add_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = llm.constant dense<0.0> : tensor<f32>
  %0 = llm.add %x, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// add(0, x) -> x   (a splat zero of any shape that broadcasts to x's)
// CHECK-LABEL: func @add_zero_lhs_splat
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
//   CHECK-NOT: llm.add
//       CHECK: return %[[X]]
func.func @add_zero_lhs_splat(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = llm.constant dense<0.0> : tensor<1x3xf32>
  %0 = llm.add %c, %x : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// add(x, 0) -> broadcast_to(x) when the zero makes the result bigger
// CHECK-LABEL: func @add_zero_broadcasts
//  CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
//       CHECK: %[[B:.+]] = llm.broadcast_to %[[X]] : (tensor<3xf32>) -> tensor<2x3xf32>
//       CHECK: return %[[B]]
func.func @add_zero_broadcasts(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = llm.constant dense<0.0> : tensor<2x3xf32>
  %0 = llm.add %x, %c : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Stays: add(x, c) with c != 0, and a non-splat constant containing zeros.
// CHECK-LABEL: func @add_nonzero_stays
//       CHECK: llm.add
//       CHECK: llm.add
func.func @add_nonzero_stays(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = llm.constant dense<1.0> : tensor<f32>
  %d = llm.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = llm.add %x, %c : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = llm.add %0, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// sub(x, 0) -> x
// CHECK-LABEL: func @sub_zero
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf16>)
//   CHECK-NOT: llm.sub
//       CHECK: return %[[X]]
func.func @sub_zero(%x: tensor<4xf16>) -> tensor<4xf16> {
  %c = llm.constant dense<0.0> : tensor<4xf16>
  %0 = llm.sub %x, %c : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Stays: sub(0, x) is -x, not x.
// CHECK-LABEL: func @zero_sub_stays
//       CHECK: llm.sub
func.func @zero_sub_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<0.0> : tensor<f32>
  %0 = llm.sub %c, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Stays: sub(x, x) -> 0 is wrong for x = NaN or inf (only with fast-math).
// CHECK-LABEL: func @sub_self_stays
//       CHECK: llm.sub
func.func @sub_self_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.sub %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mul(x, 1) -> x and mul(1, x) -> x
// CHECK-LABEL: func @mul_one
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3xbf16>)
//   CHECK-NOT: llm.mul
//       CHECK: return %[[X]]
func.func @mul_one(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %c = llm.constant dense<1.0> : tensor<1x1xbf16>
  %0 = llm.mul %x, %c : (tensor<2x3xbf16>, tensor<1x1xbf16>) -> tensor<2x3xbf16>
  %1 = llm.mul %c, %0 : (tensor<1x1xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %1 : tensor<2x3xbf16>
}

// -----

// mul(x, 1) -> broadcast_to(x) when the one broadcasts x (rank grows)
// CHECK-LABEL: func @mul_one_broadcasts
//  CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
//       CHECK: %[[B:.+]] = llm.broadcast_to %[[X]] : (tensor<3xf32>) -> tensor<1x3xf32>
//       CHECK: return %[[B]]
func.func @mul_one_broadcasts(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %c = llm.constant dense<1.0> : tensor<1x1xf32>
  %0 = llm.mul %x, %c : (tensor<3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// Stays: mul(x, 0) -> 0 is wrong for x = NaN or inf (only with fast-math).
// CHECK-LABEL: func @mul_zero_stays
//       CHECK: llm.mul
func.func @mul_zero_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<0.0> : tensor<f32>
  %0 = llm.mul %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// div(x, 1) -> x
// CHECK-LABEL: func @div_one
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//   CHECK-NOT: llm.div
//       CHECK: return %[[X]]
func.func @div_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<1.0> : tensor<f32>
  %0 = llm.div %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Stays: div(1, x) is 1/x.
// CHECK-LABEL: func @one_div_stays
//       CHECK: llm.div
func.func @one_div_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<1.0> : tensor<f32>
  %0 = llm.div %c, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// neg(neg(x)) -> x
// CHECK-LABEL: func @neg_neg
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//   CHECK-NOT: llm.neg
//       CHECK: return %[[X]]
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.neg %x : tensor<4xf32>
  %1 = llm.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Stays: neg(neg(neg(x))) keeps one neg.
// CHECK-LABEL: func @neg_neg_neg
//       CHECK: llm.neg
//   CHECK-NOT: llm.neg
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.neg %x : tensor<4xf32>
  %1 = llm.neg %0 : tensor<4xf32>
  %2 = llm.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// pow(x, 1) -> x
// CHECK-LABEL: func @pow_one
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//   CHECK-NOT: llm.pow
//       CHECK: return %[[X]]
func.func @pow_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<1.0> : tensor<f32>
  %0 = llm.pow %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pow(x, 2) -> mul(x, x)
// CHECK-LABEL: func @pow_two
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//       CHECK: %[[M:.+]] = llm.mul %[[X]], %[[X]]
//   CHECK-NOT: llm.pow
//       CHECK: return %[[M]]
func.func @pow_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<2.0> : tensor<f32>
  %0 = llm.pow %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pow(x, 0.5) -> sqrt(x)
// CHECK-LABEL: func @pow_half
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//       CHECK: %[[S:.+]] = llm.sqrt %[[X]] : tensor<4xf32>
//   CHECK-NOT: llm.pow
//       CHECK: return %[[S]]
func.func @pow_half(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.pow %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Stays: pow(x, 3), and pow(x, 2) whose exponent broadcasts x.
// CHECK-LABEL: func @pow_stays
//       CHECK: llm.pow
//       CHECK: llm.pow
//   CHECK-NOT: llm.mul
func.func @pow_stays(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %c3 = llm.constant dense<3.0> : tensor<f32>
  %c2 = llm.constant dense<2.0> : tensor<2x3xf32>
  %0 = llm.pow %x, %c3 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = llm.pow %x, %c2 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xf32>
}

// -----

// div(x, sqrt(y)) -> mul(x, rsqrt(y))
// CHECK-LABEL: func @div_sqrt
//  CHECK-SAME: (%[[X:.+]]: tensor<2x4xf32>, %[[Y:.+]]: tensor<4xf32>)
//       CHECK: %[[R:.+]] = llm.rsqrt %[[Y]] : tensor<4xf32>
//       CHECK: %[[M:.+]] = llm.mul %[[X]], %[[R]] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
//   CHECK-NOT: llm.div
//       CHECK: return %[[M]]
func.func @div_sqrt(%x: tensor<2x4xf32>, %y: tensor<4xf32>) -> tensor<2x4xf32> {
  %s = llm.sqrt %y : tensor<4xf32>
  %0 = llm.div %x, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// div(1, sqrt(y)) -> rsqrt(y)
// CHECK-LABEL: func @one_div_sqrt
//  CHECK-SAME: (%[[Y:.+]]: tensor<4xf32>)
//       CHECK: %[[R:.+]] = llm.rsqrt %[[Y]] : tensor<4xf32>
//   CHECK-NOT: llm.div
//   CHECK-NOT: llm.sqrt
//       CHECK: return %[[R]]
func.func @one_div_sqrt(%y: tensor<4xf32>) -> tensor<4xf32> {
  %c = llm.constant dense<1.0> : tensor<f32>
  %s = llm.sqrt %y : tensor<4xf32>
  %0 = llm.div %c, %s : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reciprocal(sqrt(y)) -> rsqrt(y)
// CHECK-LABEL: func @reciprocal_sqrt
//  CHECK-SAME: (%[[Y:.+]]: tensor<4xf32>)
//       CHECK: %[[R:.+]] = llm.rsqrt %[[Y]] : tensor<4xf32>
//   CHECK-NOT: llm.reciprocal
//       CHECK: return %[[R]]
func.func @reciprocal_sqrt(%y: tensor<4xf32>) -> tensor<4xf32> {
  %s = llm.sqrt %y : tensor<4xf32>
  %0 = llm.reciprocal %s : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Stays: reciprocal(exp(y)) and div(x, exp(y)) have no sqrt to fuse.
// CHECK-LABEL: func @reciprocal_stays
//       CHECK: llm.reciprocal
//       CHECK: llm.div
//   CHECK-NOT: llm.rsqrt
func.func @reciprocal_stays(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = llm.exp %y : tensor<4xf32>
  %0 = llm.reciprocal %e : tensor<4xf32>
  %1 = llm.div %x, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// reciprocal(reciprocal(x)) -> x
// CHECK-LABEL: func @reciprocal_reciprocal
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//   CHECK-NOT: llm.reciprocal
//       CHECK: return %[[X]]
func.func @reciprocal_reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.reciprocal %x : tensor<4xf32>
  %1 = llm.reciprocal %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2)
// CHECK-LABEL: func @transpose_transpose
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK: %[[T:.+]] = llm.transpose %[[X]] {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
//  CHECK-NEXT: return %[[T]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = llm.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = llm.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// transpose(transpose(x, p), p^-1) -> x and transpose(x, identity) -> x
// CHECK-LABEL: func @transpose_identity
//  CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
//   CHECK-NOT: llm.transpose
//       CHECK: return %[[X]], %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = llm.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = llm.transpose %0 {permutation = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %2 = llm.transpose %x {permutation = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Stays: a single non-identity transpose (even one that keeps the shape).
// CHECK-LABEL: func @transpose_stays
//       CHECK: llm.transpose %{{.+}} {permutation = array<i64: 1, 0>}
func.func @transpose_stays(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = llm.transpose %x {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// reshape(reshape(x)) -> reshape(x); reshape(x) -> x for equal types
// CHECK-LABEL: func @reshape_reshape
//  CHECK-SAME: (%[[X:.+]]: tensor<2x6xf32>)
//       CHECK: %[[R:.+]] = llm.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<3x4xf32>
//  CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_reshape(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
  %0 = llm.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = llm.reshape %0 : (tensor<12xf32>) -> tensor<3x4xf32>
  %2 = llm.reshape %1 : (tensor<3x4xf32>) -> tensor<2x6xf32>
  return %1, %2 : tensor<3x4xf32>, tensor<2x6xf32>
}

// -----

// broadcast_to(broadcast_to(x)) -> broadcast_to(x); identity removed
// CHECK-LABEL: func @broadcast_chain
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
//       CHECK: %[[B:.+]] = llm.broadcast_to %[[X]] : (tensor<4xf32>) -> tensor<2x3x4xf32>
//  CHECK-NEXT: return %[[B]], %[[X]]
func.func @broadcast_chain(%x: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<4xf32>) {
  %0 = llm.broadcast_to %x : (tensor<4xf32>) -> tensor<3x4xf32>
  %1 = llm.broadcast_to %0 : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %2 = llm.broadcast_to %x : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<4xf32>
}

// -----

// cast(x) -> x for equal types; cast(cast(x : f16 -> f32) : f32 -> f16) -> x
// CHECK-LABEL: func @cast_roundtrip_exact
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf16>)
//   CHECK-NOT: llm.cast
//       CHECK: return %[[X]], %[[X]]
func.func @cast_roundtrip_exact(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %0 = llm.cast %x : (tensor<4xf16>) -> tensor<4xf32>
  %1 = llm.cast %0 : (tensor<4xf32>) -> tensor<4xf16>
  %2 = llm.cast %x : (tensor<4xf16>) -> tensor<4xf16>
  return %1, %2 : tensor<4xf16>, tensor<4xf16>
}

// -----

// cast(cast(x : f16 -> f32) : f32 -> bf16) -> cast(x : f16 -> bf16)
// cast(cast(x : i8 -> i32) : i32 -> f32) -> cast(x : i8 -> f32)
// CHECK-LABEL: func @cast_chain_exact
//  CHECK-SAME: (%[[X:.+]]: tensor<4xf16>, %[[I:.+]]: tensor<4xi8>)
//       CHECK: %[[A:.+]] = llm.cast %[[X]] : (tensor<4xf16>) -> tensor<4xbf16>
//       CHECK: %[[B:.+]] = llm.cast %[[I]] : (tensor<4xi8>) -> tensor<4xf32>
//  CHECK-NEXT: return %[[A]], %[[B]]
func.func @cast_chain_exact(%x: tensor<4xf16>, %i: tensor<4xi8>) -> (tensor<4xbf16>, tensor<4xf32>) {
  %0 = llm.cast %x : (tensor<4xf16>) -> tensor<4xf32>
  %1 = llm.cast %0 : (tensor<4xf32>) -> tensor<4xbf16>
  %2 = llm.cast %i : (tensor<4xi8>) -> tensor<4xi32>
  %3 = llm.cast %2 : (tensor<4xi32>) -> tensor<4xf32>
  return %1, %3 : tensor<4xbf16>, tensor<4xf32>
}

// -----

// Stays: f32 -> f16 -> f32 rounds; i32 -> f32 -> i32 rounds above 2^24;
// f32 -> bf16 -> f16 rounds twice.
// CHECK-LABEL: func @cast_chain_inexact_stays
//       CHECK: llm.cast %{{.+}} : (tensor<4xf32>) -> tensor<4xf16>
//       CHECK: llm.cast %{{.+}} : (tensor<4xf16>) -> tensor<4xf32>
//       CHECK: llm.cast %{{.+}} : (tensor<4xi32>) -> tensor<4xf32>
//       CHECK: llm.cast %{{.+}} : (tensor<4xf32>) -> tensor<4xi32>
//       CHECK: llm.cast %{{.+}} : (tensor<4xf32>) -> tensor<4xbf16>
//       CHECK: llm.cast %{{.+}} : (tensor<4xbf16>) -> tensor<4xf16>
func.func @cast_chain_inexact_stays(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf16>) {
  %0 = llm.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %1 = llm.cast %0 : (tensor<4xf16>) -> tensor<4xf32>
  %2 = llm.cast %i : (tensor<4xi32>) -> tensor<4xf32>
  %3 = llm.cast %2 : (tensor<4xf32>) -> tensor<4xi32>
  %4 = llm.cast %x : (tensor<4xf32>) -> tensor<4xbf16>
  %5 = llm.cast %4 : (tensor<4xbf16>) -> tensor<4xf16>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xi32>, tensor<4xf16>
}

// -----

// Stays: add(add(x, c1), c2) -> add(x, c1 + c2) and the mul form are not
// IEEE-exact ((x + 1e8) - 1e8 is 0 for x = 1, x + 0 is 1; x * 1e30 * 1e30 vs
// x * inf at x = 0), so they only run under llm-fold-constants{fast-math}.
// CHECK-LABEL: func @constant_chains_stay
//       CHECK: llm.add
//       CHECK: llm.add
//       CHECK: llm.mul
//       CHECK: llm.mul
func.func @constant_chains_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = llm.constant dense<1.0e8> : tensor<f32>
  %c2 = llm.constant dense<-1.0e8> : tensor<f32>
  %0 = llm.add %x, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = llm.add %0, %c2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = llm.constant dense<1.0e30> : tensor<f32>
  %2 = llm.mul %x, %m : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = llm.mul %2, %m : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Stays: mul(add(x, c1), c2) mixes ops; mul(mul(x, c1), c2) with a non-splat
// c1 is not a scalar chain.
// CHECK-LABEL: func @mixed_chain_stays
//       CHECK: llm.add
//       CHECK: llm.mul
//       CHECK: llm.mul
//       CHECK: llm.mul
func.func @mixed_chain_stays(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c1 = llm.constant dense<2.0> : tensor<f32>
  %c2 = llm.constant dense<3.0> : tensor<f32>
  %v = llm.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %0 = llm.add %x, %c1 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = llm.mul %0, %c2 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = llm.mul %x, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = llm.mul %2, %c2 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %1, %3 : tensor<2xf32>, tensor<2xf32>
}

// -----

// layer_norm(x, scale = 1, bias = 0) -> layer_norm(x)
// CHECK-LABEL: func @layer_norm_trivial_affine
//  CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>)
//       CHECK: llm.layer_norm %[[X]] {axis = 0 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @layer_norm_trivial_affine(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %g = llm.constant dense<1.0> : tensor<2x8xf32>
  %b = llm.constant dense<0.0> : tensor<1xf32>
  %0 = llm.layer_norm %x scale %g bias %b {axis = 0 : i64, epsilon = 1.0e-06 : f32}
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// layer_norm(x, scale = s, bias = 0) -> layer_norm(x, scale = s)
// Stays: a bias that is not zero.
// CHECK-LABEL: func @layer_norm_zero_bias
//  CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>, %[[S:.+]]: tensor<8xf32>)
//       CHECK: llm.layer_norm %[[X]] scale %[[S]] {{.*}}: (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
//       CHECK: llm.layer_norm %[[X]] scale %[[S]] bias %{{.+}} {{.*}}: (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @layer_norm_zero_bias(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %b = llm.constant dense<0.0> : tensor<8xf32>
  %one = llm.constant dense<1.0> : tensor<8xf32>
  %0 = llm.layer_norm %x scale %s bias %b : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = llm.layer_norm %x scale %s bias %one : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// rms_norm(x, weight = 1) -> rms_norm(x); stays for weight 2
// CHECK-LABEL: func @rms_norm_unit_weight
//  CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>)
//       CHECK: llm.rms_norm %[[X]] {{.*}}: (tensor<2x8xf32>) -> tensor<2x8xf32>
//       CHECK: llm.rms_norm %[[X]] weight %{{.+}} {{.*}}: (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @rms_norm_unit_weight(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %w = llm.constant dense<1.0> : tensor<8xf32>
  %w2 = llm.constant dense<2.0> : tensor<8xf32>
  %0 = llm.rms_norm %x weight %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = llm.rms_norm %x weight %w2 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// logical_not(logical_not(x)) -> x; a single logical_not stays
// CHECK-LABEL: func @double_not
//  CHECK-SAME: (%[[M:.+]]: tensor<4xi1>)
//       CHECK: %[[N:.+]] = llm.logical_not %[[M]] : tensor<4xi1>
//       CHECK: return %[[M]], %[[N]]
func.func @double_not(%m: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = llm.logical_not %m : tensor<4xi1>
  %1 = llm.logical_not %0 : tensor<4xi1>
  return %1, %0 : tensor<4xi1>, tensor<4xi1>
}

// -----

// attention(transpose(q, P), transpose(k, P), transpose(v, P)) {bhsd}
//   -> transpose(attention(q, k, v) {bshd}, P),   P = [0, 2, 1, 3]
// and the head merge transpose(., P) that follows folds with it: no transpose
// is left. The mask (score order) and the other attributes are kept.
// CHECK-LABEL: func @attention_absorb_head_transposes
//  CHECK-SAME: (%[[Q:[^:]+]]: tensor<2x16x8x32xf32>, %[[K:[^:]+]]: tensor<2x16x2x32xf32>, %[[V:[^:]+]]: tensor<2x16x2x16xf32>, %[[M:[^:]+]]: tensor<16x16xf32>)
//   CHECK-NOT: llm.transpose
//       CHECK: %[[O:.+]] = llm.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {causal, layout = #llm.attention_layout<bshd>, scale = 1.250000e-01 : f32} : (tensor<2x16x8x32xf32>, tensor<2x16x2x32xf32>, tensor<2x16x2x16xf32>, tensor<16x16xf32>) -> tensor<2x16x8x16xf32>
//   CHECK-NOT: llm.transpose
//       CHECK: return %[[O]]
func.func @attention_absorb_head_transposes(%q: tensor<2x16x8x32xf32>, %k: tensor<2x16x2x32xf32>, %v: tensor<2x16x2x16xf32>, %m: tensor<16x16xf32>) -> tensor<2x16x8x16xf32> {
  %tq = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x8x32xf32>) -> tensor<2x8x16x32xf32>
  %tk = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x32xf32>) -> tensor<2x2x16x32xf32>
  %tv = llm.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %o = llm.attention %tq, %tk, %tv mask %m {causal, scale = 0.125 : f32} : (tensor<2x8x16x32xf32>, tensor<2x2x16x32xf32>, tensor<2x2x16x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16x16xf32>
  %r = llm.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x16x16xf32>) -> tensor<2x16x8x16xf32>
  return %r : tensor<2x16x8x16xf32>
}

// -----

// kv_length (a scalar) is kept by the head-transpose absorption.
// CHECK-LABEL: func @attention_absorb_keeps_kv_length
//  CHECK-SAME: (%[[Q:[^:]+]]: tensor<1x2x4x8xf32>, %[[K:[^:]+]]: tensor<1x32x2x8xf32>, %[[L:[^:]+]]: tensor<i64>)
//       CHECK: %[[O:.+]] = llm.attention %[[Q]], %[[K]], %[[K]] kv_length %[[L]] {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x2x4x8xf32>, tensor<1x32x2x8xf32>, tensor<1x32x2x8xf32>, tensor<i64>) -> tensor<1x2x4x8xf32>
//       CHECK: return %[[O]]
func.func @attention_absorb_keeps_kv_length(%q: tensor<1x2x4x8xf32>, %k: tensor<1x32x2x8xf32>, %len: tensor<i64>) -> tensor<1x2x4x8xf32> {
  %tq = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  %tk = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x32x2x8xf32>) -> tensor<1x2x32x8xf32>
  %o = llm.attention %tq, %tk, %tk kv_length %len {causal} : (tensor<1x4x2x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>, tensor<i64>) -> tensor<1x4x2x8xf32>
  %r = llm.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  return %r : tensor<1x2x4x8xf32>
}

// -----

// select(splat true, x, y) -> x; select(splat false, x, y) -> y;
// select(c, x, x) -> x; stays when the chosen operand broadcasts
// CHECK-LABEL: func @select_folds
//  CHECK-SAME: (%[[C:.+]]: tensor<4xi1>, %[[X:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4xf32>, %[[S:.+]]: tensor<f32>)
//       CHECK: %[[B:.+]] = llm.select %{{.+}}, %[[S]], %[[X]]
//       CHECK: return %[[X]], %[[Y]], %[[X]], %[[B]]
func.func @select_folds(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = llm.constant dense<true> : tensor<4xi1>
  %f = llm.constant dense<false> : tensor<4xi1>
  %0 = llm.select %t, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = llm.select %f, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = llm.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = llm.select %t, %s, %x : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Without a head merge after it, the result is transposed back to bhsd.
// CHECK-LABEL: func @attention_absorb_keeps_result_layout
//       CHECK: %[[O:.+]] = llm.attention %{{.+}}, %{{.+}}, %{{.+}} {layout = #llm.attention_layout<bshd>} : {{.+}} -> tensor<1x16x4x8xf32>
//       CHECK: %[[R:.+]] = llm.transpose %[[O]] {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
//       CHECK: return %[[R]]
func.func @attention_absorb_keeps_result_layout(%q: tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32> {
  %t = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %o = llm.attention %t, %t, %t : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// reverse(x) over size-1 (or no) dimensions -> x; stays for a size-3 one
// CHECK-LABEL: func @reverse_unit
//  CHECK-SAME: (%[[X:.+]]: tensor<1x3xf32>)
//       CHECK: %[[R:.+]] = llm.reverse %[[X]] {dimensions = array<i64: 1>}
//       CHECK: return %[[X]], %[[X]], %[[R]]
func.func @reverse_unit(%x: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %0 = llm.reverse %x {dimensions = array<i64: 0>} : tensor<1x3xf32>
  %1 = llm.reverse %x {dimensions = array<i64>} : tensor<1x3xf32>
  %2 = llm.reverse %x {dimensions = array<i64: 1>} : tensor<1x3xf32>
  return %0, %1, %2 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Stays: the key is not a head-split transpose (a decode step reading a
// [B, H, S, D] cache), and the value's permutation is another one.
// CHECK-LABEL: func @attention_absorb_stays
//   CHECK-NOT: layout
//       CHECK: llm.attention
//   CHECK-NOT: layout
//       CHECK: llm.attention
//   CHECK-NOT: layout
//       CHECK: return
func.func @attention_absorb_stays(%q: tensor<1x1x4x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x8x16x4xf32>) -> (tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>) {
  %tq = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x4x8xf32>) -> tensor<1x4x1x8xf32>
  %tk = llm.transpose %k {permutation = array<i64: 0, 1, 2, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %o = llm.attention %tq, %k, %k {causal} : (tensor<1x4x1x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x1x8xf32>
  %tv = llm.transpose %v {permutation = array<i64: 0, 3, 2, 1>} : (tensor<1x8x16x4xf32>) -> tensor<1x4x16x8xf32>
  %tk2 = llm.transpose %tk {permutation = array<i64: 0, 1, 2, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %o2 = llm.attention %tq, %tk2, %tv : (tensor<1x4x1x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x1x8xf32>
  return %o, %o2 : tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
}

// -----

// Stays: already in layout bshd (the operands are not re-read as bhsd).
// CHECK-LABEL: func @attention_absorb_bshd_stays
//       CHECK: llm.transpose
//       CHECK: llm.attention {{.*}}layout = #llm.attention_layout<bshd>
func.func @attention_absorb_bshd_stays(%q: tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32> {
  %t = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %o = llm.attention %t, %t, %t {layout = #llm.attention_layout<bshd>} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// sequence_last(x) -> x when x has one entry on the axis;
// sequence_last(x) -> slice(x, [n - 1, n)) when n is static.
// CHECK-LABEL: func @sequence_last_static
//  CHECK-SAME: (%[[X:.*]]: tensor<1x1x4xf32>, %[[Y:.*]]: tensor<2x6x4xf32>)
//       CHECK: %[[S:.*]] = llm.slice %[[Y]] {limits = array<i64: 2, 6, 4>, starts = array<i64: 0, 5, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x6x4xf32>) -> tensor<2x1x4xf32>
//       CHECK: return %[[X]], %[[S]]
func.func @sequence_last_static(%x: tensor<1x1x4xf32>, %y: tensor<2x6x4xf32>) -> (tensor<1x1x4xf32>, tensor<2x1x4xf32>) {
  %0 = llm.sequence_last %x {axis = 1 : i64} : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %1 = llm.sequence_last %y {axis = 1 : i64} : (tensor<2x6x4xf32>) -> tensor<2x1x4xf32>
  return %0, %1 : tensor<1x1x4xf32>, tensor<2x1x4xf32>
}

// -----

// Stays: the run-time sequence length.
// CHECK-LABEL: func @sequence_last_dynamic_stays
//       CHECK: llm.sequence_last %{{.*}} {axis = 1 : i64}
func.func @sequence_last_dynamic_stays(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 8, 4>}) -> tensor<1x1x4xf32> {
  %0 = llm.sequence_last %x {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// concat(rope(x[..., :R]), x[..., R:], axis = -1) -> rope(x) {rotary_dims = R}
// (partial rotary as Hugging Face's GPT-NeoX writes it).
// CHECK-LABEL: func @partial_rope
//  CHECK-SAME: (%[[X:.+]]: tensor<1x2x5x16xf32>, %[[P:.+]]: tensor<5xi64>)
//   CHECK-NOT: llm.slice
//       CHECK: %[[R:.+]] = llm.rope %[[X]], %[[P]] {rotary_dims = 4 : i64, theta = 5.000000e+02 : f32} : (tensor<1x2x5x16xf32>, tensor<5xi64>) -> tensor<1x2x5x16xf32>
//   CHECK-NOT: llm.concat
//       CHECK: return %[[R]]
func.func @partial_rope(%x: tensor<1x2x5x16xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x16xf32> {
  %rot = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 5, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x16xf32>) -> tensor<1x2x5x4xf32>
  %pass = llm.slice %x {starts = array<i64: 0, 0, 0, 4>, limits = array<i64: 1, 2, 5, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x16xf32>) -> tensor<1x2x5x12xf32>
  %r = llm.rope %rot, %p {theta = 500.0 : f32} : (tensor<1x2x5x4xf32>, tensor<5xi64>) -> tensor<1x2x5x4xf32>
  %c = llm.concat %r, %pass {axis = -1 : i64} : (tensor<1x2x5x4xf32>, tensor<1x2x5x12xf32>) -> tensor<1x2x5x16xf32>
  return %c : tensor<1x2x5x16xf32>
}

// -----

// The inner rope's own partial rotation (2 of the 4 sliced columns) and mode
// carry over: rotary_dims = 2 of 8.
// CHECK-LABEL: func @partial_rope_nested
//       CHECK: llm.rope %{{.+}}, %{{.+}} mode <interleaved> {rotary_dims = 2 : i64} : (tensor<3x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
//   CHECK-NOT: llm.concat
func.func @partial_rope_nested(%x: tensor<3x8xf32>, %p: tensor<3xi64>) -> tensor<3x8xf32> {
  %rot = llm.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 3, 4>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  %pass = llm.slice %x {starts = array<i64: 0, 4>, limits = array<i64: 3, 8>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  %r = llm.rope %rot, %p mode <interleaved> {rotary_dims = 2} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %c = llm.concat %r, %pass {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  return %c : tensor<3x8xf32>
}

// -----

// Stays: the rotated slice is also returned (the rope of the whole tensor
// would rotate twice), the passed columns skip one (4:8 then 10:16 is not
// x), the rotated columns come second, and the columns come from another
// tensor.
// CHECK-LABEL: func @partial_rope_near_misses
//   CHECK-NOT: rotary_dims
// CHECK-COUNT-4: llm.concat
//   CHECK-NOT: rotary_dims
func.func @partial_rope_near_misses(%x: tensor<2x16xf32>, %y: tensor<2x16xf32>, %p: tensor<2xi64>)
    -> (tensor<2x16xf32>, tensor<2x4xf32>, tensor<2x14xf32>, tensor<2x16xf32>, tensor<2x16xf32>) {
  %rot = llm.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 4>, strides = array<i64: 1, 1>} : (tensor<2x16xf32>) -> tensor<2x4xf32>
  %pass = llm.slice %x {starts = array<i64: 0, 4>, limits = array<i64: 2, 16>, strides = array<i64: 1, 1>} : (tensor<2x16xf32>) -> tensor<2x12xf32>
  %r0 = llm.rope %rot, %p : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %c0 = llm.concat %r0, %pass {axis = -1 : i64} : (tensor<2x4xf32>, tensor<2x12xf32>) -> tensor<2x16xf32>
  %r1 = llm.rope %rot, %p : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %gap = llm.slice %x {starts = array<i64: 0, 6>, limits = array<i64: 2, 16>, strides = array<i64: 1, 1>} : (tensor<2x16xf32>) -> tensor<2x10xf32>
  %c1 = llm.concat %r1, %gap {axis = -1 : i64} : (tensor<2x4xf32>, tensor<2x10xf32>) -> tensor<2x14xf32>
  %r2 = llm.rope %rot, %p : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %c2 = llm.concat %pass, %r2 {axis = -1 : i64} : (tensor<2x12xf32>, tensor<2x4xf32>) -> tensor<2x16xf32>
  %other = llm.slice %y {starts = array<i64: 0, 4>, limits = array<i64: 2, 16>, strides = array<i64: 1, 1>} : (tensor<2x16xf32>) -> tensor<2x12xf32>
  %r3 = llm.rope %rot, %p : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %c3 = llm.concat %r3, %other {axis = -1 : i64} : (tensor<2x4xf32>, tensor<2x12xf32>) -> tensor<2x16xf32>
  return %c2, %r0, %c1, %c3, %c0 : tensor<2x16xf32>, tensor<2x4xf32>, tensor<2x14xf32>, tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

// rope(x) {rotary_dims = D} -> rope(x): the whole head rotates.
// CHECK-LABEL: func @full_rotary_dims
//       CHECK: llm.rope %{{.+}}, %{{.+}} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
func.func @full_rotary_dims(%x: tensor<2x8xf32>, %p: tensor<2xi64>) -> tensor<2x8xf32> {
  %r = llm.rope %x, %p {rotary_dims = 8} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
