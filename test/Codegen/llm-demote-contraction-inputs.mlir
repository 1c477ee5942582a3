// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-demote-contraction-inputs))" --split-input-file | FileCheck %s
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-demote-contraction-inputs{type=f16}))" --split-input-file | FileCheck %s --check-prefix=F16
// RUN: not llm-opt %s --pass-pipeline="builtin.module(func.func(llm-demote-contraction-inputs{type=f8}))" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADTYPE

// A matmul with a constant weight: the weight is stored in bf16, rounded to
// nearest even at compile time (1 + 2^-8 is a tie: to 1, the even
// neighbour, not up; 1 + 3 * 2^-8 a tie: to 1 + 2^-6, the even one; NaN
// stays a quiet NaN, -inf -inf), read through extf; the activation is
// rounded in the payload; the accumulation stays f32. The weight is
// converted once for both matmuls reading it.
// CHECK-LABEL: func.func @weight
// CHECK:         arith.constant dense<{{\[\[}}1.000000e+00, 1.015630e+00], [0x7FC0, 0xFF80]]> : tensor<2x2xbf16>
// CHECK-NOT:     arith.constant {{.*}} : tensor<2x2xbf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %{{.*}} : tensor<4x2xf32>, tensor<2x2xbf16>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: bf16, %[[C:.*]]: f32):
// CHECK-DAG:       %[[AT:.*]] = arith.truncf %[[A]] : f32 to bf16
// CHECK-DAG:       %[[AE:.*]] = arith.extf %[[AT]] : bf16 to f32
// CHECK-DAG:       %[[BE:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:           %[[P:.*]] = arith.mulf %[[AE]], %[[BE]] : f32
// CHECK:           %[[S:.*]] = arith.addf %[[C]], %[[P]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:      tensor<2x2xbf16>
// F16-LABEL: func.func @weight
// F16:         arith.constant dense<{{\[\[}}1.003910e+00, 1.011720e+00], [0x7E00, 0xFC00]]> : tensor<2x2xf16>
func.func @weight(%x: tensor<4x2xf32>, %y: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = arith.constant dense<[[1.00390625, 1.01171875], [0x7FC00000, 0xFF800000]]> : tensor<2x2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<4x2xf32>, tensor<2x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  %1 = linalg.matmul ins(%y, %w : tensor<4x2xf32>, tensor<2x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Two activations (attention's Q K^T): both rounded in the payload. The f16
// weight beyond f16's range becomes infinite.
// CHECK-LABEL: func.func @activations
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<2x8x4xf32>, tensor<2x4x8xf32>)
// CHECK-COUNT-2:   arith.truncf
// CHECK:           arith.mulf
// F16-LABEL: func.func @activations
// F16-LABEL: func.func @f16_range
// F16:         arith.constant dense<[0x7C00, 6.550400e+04]> : tensor<2xf16>
func.func @activations(%q: tensor<2x8x4xf32>, %k: tensor<2x4x8xf32>, %init: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %0 = linalg.batch_matmul ins(%q, %k : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%init : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %0 : tensor<2x8x8xf32>
}

func.func @f16_range(%x: tensor<3x2xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %w = arith.constant dense<[70000.0, 65504.0]> : tensor<2xf32>
  %0 = linalg.matvec ins(%x, %w : tensor<3x2xf32>, tensor<2xf32>) outs(%init : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Not rounded: an f16 matmul, an elementwise op, a contraction whose
// payload applies a function to an input (out + exp(a) * b: exp would see
// the rounded input) and one with a scalar input.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     truncf
// CHECK:         linalg.matmul
// CHECK-NOT:     truncf
// CHECK:         return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#none = affine_map<(m, n, k) -> ()>
func.func @untouched(%a: tensor<4x2xf16>, %b: tensor<2x2xf16>, %init: tensor<4x2xf16>, %x: tensor<4xf32>,
                     %af: tensor<4x2xf32>, %bf: tensor<2x2xf32>, %initf: tensor<4x2xf32>) -> (tensor<4x2xf16>, tensor<4xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x2xf16>, tensor<2x2xf16>) outs(%init : tensor<4x2xf16>) -> tensor<4x2xf16>
  %1 = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%af, %bf : tensor<4x2xf32>, tensor<2x2xf32>) outs(%initf : tensor<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %e = math.exp %p : f32
    %m = arith.mulf %e, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x2xf32>
  %two = arith.constant 2.0 : f32
  %3 = linalg.generic {indexing_maps = [#mk, #none, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%af, %two : tensor<4x2xf32>, f32) outs(%initf : tensor<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x2xf32>
  return %0, %1, %2, %3 : tensor<4x2xf16>, tensor<4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// BADTYPE: error: llm-demote-contraction-inputs: type must be bf16 or f16, got 'f8'
