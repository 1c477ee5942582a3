// RUN: llm-opt %s --llm-promote-contraction-inputs -split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-promote-contraction-inputs="element-types=f16 min-rows=4" -split-input-file | FileCheck %s --check-prefix=F16ONLY
// RUN: llm-opt %s --llm-promote-contraction-inputs="min-rows=5" -split-input-file | FileCheck %s --check-prefix=ROWS5

// An f16 matmul by a constant weight: the activation widened by llm.cast,
// the weight widened at compile time, the f32 result rounded back to f16.
// CHECK: module attributes {llm.report = {promoted_matmuls = 1 : i64}}
// CHECK-LABEL: func.func @f16_dense(
// CHECK-SAME:    %[[A:.+]]: tensor<4x2xf16>)
// CHECK-DAG:     %[[W:.+]] = llm.constant dense<{{\[}}[1.000000e+00, 2.500000e-01, -3.000000e+00], [6.550400e+04, {{5.96046448E-8|5.960460e-08}}, 0.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:     %[[A32:.+]] = llm.cast %[[A]] : (tensor<4x2xf16>) -> tensor<4x2xf32>
// CHECK:         %[[M:.+]] = llm.matmul %[[A32]], %[[W]] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[R:.+]] = llm.cast %[[M]] : (tensor<4x3xf32>) -> tensor<4x3xf16>
// CHECK:         return %[[R]]
// The f16 weight, now unused, is gone.
// CHECK-NOT:     tensor<2x3xf16>
// min-rows=5 keeps a 4-row matmul in f16.
// ROWS5: module attributes {llm.report = {promoted_matmuls = 0 : i64}}
// ROWS5-LABEL: func.func @f16_dense(
// ROWS5:         llm.matmul %{{.+}}, %{{.+}} : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
// ROWS5-NOT:     llm.cast
func.func @f16_dense(%a: tensor<4x2xf16>) -> tensor<4x3xf16> {
  // The largest f16 (65504) and the smallest subnormal (2^-24) are exact.
  %w = llm.constant dense<[[1.0, 0.25, -3.0], [65504.0, 5.96046448e-08, 0.0]]> : tensor<2x3xf16>
  %0 = llm.matmul %a, %w : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

// A dense_resource weight gets a new blob of f32 bytes (f16 0x3C00 = 1.0,
// 0xC000 = -2.0, 0x3800 = 0.5, 0x0000); transpose_b and a 3-D lhs (rows =
// 2 x 3) are kept; a splat stays a splat.
// ROWS5-LABEL: func.func @f16_resource(
// CHECK-LABEL: func.func @f16_resource(
// CHECK-DAG:     %[[W:.+]] = llm.constant dense_resource<w_f32> : tensor<2x2xf32>
// CHECK-DAG:     %[[S:.+]] = llm.constant dense<5.000000e-01> : tensor<2x4xf32>
// CHECK:         %[[M:.+]] = llm.matmul %{{.+}}, %[[W]] {transpose_b} : (tensor<2x3x2xf32>, tensor<2x2xf32>) -> tensor<2x3x2xf32>
// CHECK:         llm.cast %[[M]] : (tensor<2x3x2xf32>) -> tensor<2x3x2xf16>
// CHECK:         llm.matmul %{{.+}}, %[[S]] : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
// CHECK:       w_f32: "0x040000000000803F000000C00000003F00000000"
func.func @f16_resource(%a: tensor<2x3x2xf16>) -> (tensor<2x3x2xf16>, tensor<2x3x4xf16>) {
  %w = llm.constant dense_resource<w> : tensor<2x2xf16>
  %s = llm.constant dense<0.5> : tensor<2x4xf16>
  %0 = llm.matmul %a, %w {transpose_b} : (tensor<2x3x2xf16>, tensor<2x2xf16>) -> tensor<2x3x2xf16>
  %1 = llm.matmul %a, %s : (tensor<2x3x2xf16>, tensor<2x4xf16>) -> tensor<2x3x4xf16>
  return %0, %1 : tensor<2x3x2xf16>, tensor<2x3x4xf16>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x02000000003C00C000380000"
    }
  }
#-}

// -----

// Sibling projections of one activation share one widened activation (they
// stay siblings for llm-fuse's horizontal fusion), and a weight read twice
// is widened once.
// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-1: llm.cast %{{.+}} : (tensor<4x2xf16>) -> tensor<4x2xf32>
// CHECK-COUNT-1: llm.constant {{.*}} : tensor<2x2xf32>
// CHECK-NOT:     llm.cast %{{.+}} : (tensor<4x2xf16>) -> tensor<4x2xf32>
// CHECK-NOT:     llm.constant {{.*}} : tensor<2x2xf32>
// CHECK:         return
func.func @shared(%a: tensor<4x2xf16>) -> (tensor<4x2xf16>, tensor<4x2xf16>) {
  %w = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %0 = llm.matmul %a, %w : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  %1 = llm.matmul %a, %w : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  return %0, %1 : tensor<4x2xf16>, tensor<4x2xf16>
}

// -----

// bf16 is promoted unless element-types leaves it out (a target with
// AVX512-BF16 dot products runs bf16 matmuls on them).
// CHECK-LABEL: func.func @bf16(
// CHECK:         llm.matmul {{.*}} -> tensor<4x2xf32>
// F16ONLY-LABEL: func.func @bf16(
// F16ONLY:         llm.matmul {{.*}} : (tensor<4x2xbf16>, tensor<2x2xbf16>) -> tensor<4x2xbf16>
// F16ONLY-NOT:     llm.cast
func.func @bf16(%a: tensor<4x2xbf16>) -> tensor<4x2xbf16> {
  %w = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %0 = llm.matmul %a, %w : (tensor<4x2xbf16>, tensor<2x2xbf16>) -> tensor<4x2xbf16>
  return %0 : tensor<4x2xbf16>
}

// -----

// Not promoted: fewer rows than min-rows (2 by default: a decode step keeps the
// half-precision weight: half the bytes streamed), a dynamic row count
// without a bound (llm.dim_bounds), a computed rhs, f32 and mixed element
// types.
// CHECK: module attributes {llm.report = {promoted_matmuls = 0 : i64}}
// CHECK-LABEL: func.func @kept(
// F16ONLY-LABEL: func.func @kept(
// CHECK-NOT:     llm.cast
// CHECK:         return
func.func @kept(%a: tensor<1x2xf16>, %d: tensor<?x2xf16>, %b: tensor<8x2xf16>,
                %f: tensor<8x2xf32>)
    -> (tensor<1x2xf16>, tensor<?x2xf16>, tensor<8x8xf16>, tensor<8x2xf32>) {
  %w = llm.constant dense<1.0> : tensor<2x2xf16>
  %w32 = llm.constant dense<1.0> : tensor<2x2xf32>
  %0 = llm.matmul %a, %w : (tensor<1x2xf16>, tensor<2x2xf16>) -> tensor<1x2xf16>
  %1 = llm.matmul %d, %w : (tensor<?x2xf16>, tensor<2x2xf16>) -> tensor<?x2xf16>
  %2 = llm.matmul %b, %b {transpose_b} : (tensor<8x2xf16>, tensor<8x2xf16>) -> tensor<8x8xf16>
  %3 = llm.matmul %f, %w32 : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  return %0, %1, %2, %3 : tensor<1x2xf16>, tensor<?x2xf16>, tensor<8x8xf16>, tensor<8x2xf32>
}

// -----

// A dynamic (sequence) row count counts at its llm.dim_bounds bound: 16
// rows here (promoted; also with min-rows=5), a bound of 1 is a decode step
// (kept).
// CHECK-LABEL: func.func @sequence_rows(
// CHECK:         %[[X:.+]] = llm.cast %arg0 : (tensor<1x?x2xf16>) -> tensor<1x?x2xf32>
// CHECK:         %[[Y:.+]] = llm.matmul %[[X]], %{{.+}} : (tensor<1x?x2xf32>, tensor<2x2xf32>) -> tensor<1x?x2xf32>
// CHECK:         llm.cast %[[Y]] : (tensor<1x?x2xf32>) -> tensor<1x?x2xf16>
// ROWS5-LABEL: func.func @sequence_rows(
// ROWS5:         llm.matmul {{.*}} -> tensor<1x?x2xf32>
// CHECK-LABEL: func.func @sequence_of_one(
// CHECK-NOT:     llm.cast
// CHECK:         return
func.func @sequence_rows(%x: tensor<1x?x2xf16> {llm.dim_bounds = array<i64: 1, 16, 2>}) -> tensor<1x?x2xf16> {
  %w = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %0 = llm.matmul %x, %w : (tensor<1x?x2xf16>, tensor<2x2xf16>) -> tensor<1x?x2xf16>
  return %0 : tensor<1x?x2xf16>
}
func.func @sequence_of_one(%x: tensor<?x2xf16> {llm.dim_bounds = array<i64: 1, 2>}) -> tensor<?x2xf16> {
  %w = llm.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %0 = llm.matmul %x, %w : (tensor<?x2xf16>, tensor<2x2xf16>) -> tensor<?x2xf16>
  return %0 : tensor<?x2xf16>
}

// -----

// A constant lhs is widened by a cast like any activation (its values are
// not read: a sparse<> literal); a sparse<> weight, whose values the pass
// does not read, is left in f16.
// CHECK-LABEL: func.func @sparse_literals(
// CHECK:         %[[A:.+]] = llm.constant sparse<{{.*}}> : tensor<4x2xf16>
// CHECK:         llm.cast %[[A]] : (tensor<4x2xf16>) -> tensor<4x2xf32>
// CHECK:         llm.matmul {{.*}} -> tensor<4x3xf32>
// CHECK:         llm.matmul {{.*}} : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
func.func @sparse_literals(%x: tensor<4x2xf16>) -> (tensor<4x3xf16>, tensor<4x3xf16>) {
  %a = llm.constant sparse<[[0, 0], [3, 1]], [1.5, -2.0]> : tensor<4x2xf16>
  %w = llm.constant dense<[[1.0, 0.25, -3.0], [2.0, 0.5, 0.0]]> : tensor<2x3xf16>
  %s = llm.constant sparse<[[0, 0]], [2.0]> : tensor<2x3xf16>
  %0 = llm.matmul %a, %w : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
  %1 = llm.matmul %x, %s : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
  return %0, %1 : tensor<4x3xf16>, tensor<4x3xf16>
}

// -----

// Blocks out of dominance order: the matmul of ^bb1 reads the one of ^bb2,
// which the pass rewrites after it.
// CHECK-LABEL: func.func @blocks(
// CHECK-COUNT-2: llm.matmul {{.*}} -> tensor<4x2xf32>
func.func @blocks(%a: tensor<4x2xf16>) -> tensor<4x2xf16> {
  %w = llm.constant dense<[[1.0, 0.25], [2.0, 0.5]]> : tensor<2x2xf16>
  cf.br ^bb2
^bb1:
  %1 = llm.matmul %0, %w : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  return %1 : tensor<4x2xf16>
^bb2:
  %0 = llm.matmul %a, %w : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  cf.br ^bb1
}
