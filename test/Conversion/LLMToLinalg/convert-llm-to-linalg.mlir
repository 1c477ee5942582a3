// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// Structure of the llm -> linalg lowering: which named op is chosen, the
// broadcasting/transposing indexing maps, reduction iterator types, f32
// compute for f16/bf16. Values are checked by the tests under exec/.

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = llm.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_resource
// CHECK: arith.constant dense_resource<blob> : tensor<2xf32>
func.func @constant_resource() -> tensor<2xf32> {
  %0 = llm.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// The [3, 1] operand drops the missing leading dim; its size-1 dim reads 0.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BC:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>, %[[B:.+]]: tensor<3x1xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$BC]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = llm.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @binary_ops
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: linalg.generic
// CHECK: math.powf
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK: arith.minimumf
func.func @binary_ops(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = llm.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = llm.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = llm.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = llm.pow %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = llm.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = llm.min %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer arithmetic: arith integer ops; div and rem guard the divisor
// (0 and -1 replaced by 1, the results selected: x / 0 = x rem 0 = 0,
// x / -1 = 0 - x), so no division can trap.
// CHECK-LABEL: func.func @integer_ops
// CHECK: linalg.generic
// CHECK: arith.addi
// CHECK: linalg.generic
// CHECK: %[[Z:.+]] = arith.constant 0 : i64
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[Y:.+]], %{{.*}} : i64
// CHECK: %[[ISM1:.+]] = arith.cmpi eq, %[[Y]], %{{.*}} : i64
// CHECK: %[[SPECIAL:.+]] = arith.ori %[[IS0]], %[[ISM1]] : i1
// CHECK: %[[SAFE:.+]] = arith.select %[[SPECIAL]], %{{.*}}, %[[Y]] : i64
// CHECK: %[[Q:.+]] = arith.divsi %[[X:.+]], %[[SAFE]] : i64
// CHECK: %[[NEG:.+]] = arith.subi %[[Z]], %[[X]] : i64
// CHECK: arith.select
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.minsi
// CHECK: linalg.generic
// CHECK: math.absi
// CHECK: linalg.generic
// CHECK: arith.subi
// CHECK-NOT: arith.divf
func.func @integer_ops(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %0 = llm.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = llm.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = llm.rem %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = llm.min %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = llm.abs %a : tensor<4xi64>
  %5 = llm.neg %a : tensor<4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// f64 is computed in f64 (no f32 promotion); float rem is arith.remf; a cast
// f64 -> f16 goes through f32, f64 -> i32 clamps in f64.
// CHECK-LABEL: func.func @f64_ops
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.+]]: f64, %[[Y:.+]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[R:.+]] = arith.remf %[[X]], %[[Y]] : f64
// CHECK-NEXT: linalg.yield %[[R]] : f64
// CHECK: linalg.generic
// CHECK: %[[T:.+]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT: arith.truncf %[[T]] : f32 to f16
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i32
func.func @f64_ops(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf16>, tensor<4xi32>) {
  %0 = llm.rem %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = llm.cast %a : (tensor<4xf64>) -> tensor<4xf16>
  %2 = llm.cast %a : (tensor<4xf64>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf16>, tensor<4xi32>
}

// -----

// f16 is computed in f32 and rounded back; the [1] operand broadcasts.
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ZERO:.+]] = affine_map<(d0) -> (0)>
// CHECK-LABEL: func.func @add_f16
// CHECK: linalg.generic {indexing_maps = [#[[$ID1]], #[[$ZERO]], #[[$ID1]]]
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[XF:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YF:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[XF]], %[[YF]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @add_f16(%a: tensor<4xf16>, %b: tensor<1xf16>) -> tensor<4xf16> {
  %0 = llm.add %a, %b : (tensor<4xf16>, tensor<1xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @unary_ops
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.sqrt
func.func @unary_ops(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = llm.neg %x : tensor<4xf32>
  %1 = llm.exp %x : tensor<4xf32>
  %2 = llm.log %x : tensor<4xf32>
  %3 = llm.tanh %x : tensor<4xf32>
  %4 = llm.erf %x : tensor<4xf32>
  %5 = llm.sqrt %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_ops2
// CHECK: math.rsqrt
// reciprocal: 1 / x
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[ONE]], %{{.+}} : f32
// sigmoid: 1 / (1 + exp(-x))
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[N:.+]] = arith.negf %[[X]]
// CHECK-NEXT: %[[E:.+]] = math.exp %[[N]]
// CHECK-NEXT: %[[D:.+]] = arith.addf %{{.+}}, %[[E]]
// CHECK-NEXT: arith.divf %{{.+}}, %[[D]]
// relu: max(x, 0)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.maximumf
// silu: x * sigmoid(x)
// CHECK: ^bb0(%[[X2:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[SIG:.+]] = arith.divf
// CHECK-NEXT: arith.mulf %[[X2]], %[[SIG]]
func.func @unary_ops2(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = llm.rsqrt %x : tensor<4xf32>
  %1 = llm.reciprocal %x : tensor<4xf32>
  %2 = llm.sigmoid %x : tensor<4xf32>
  %3 = llm.relu %x : tensor<4xf32>
  %4 = llm.silu %x : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RSQ2:.+]] = arith.constant 0.707106769 : f32
// CHECK: %[[S:.+]] = arith.mulf %[[X]], %[[RSQ2]]
// CHECK-NEXT: %[[ERF:.+]] = math.erf %[[S]]
// CHECK-NEXT: %[[HX:.+]] = arith.mulf %[[HALF]], %[[X]]
// CHECK-NEXT: %[[P:.+]] = arith.addf %[[ONE]], %[[ERF]]
// CHECK-NEXT: arith.mulf %[[HX]], %[[P]]
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_tanh_bf16
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK: %[[XF:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @gelu_tanh_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = llm.gelu %x approximate <tanh> : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// [B, S, K] x [K, N]: the leading dims collapse into M, the weight stays 2-D.
// CHECK-LABEL: func.func @matmul_collapse
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>, %[[W:.+]]: tensor<4x5xf32>)
// CHECK: %[[A2:.+]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<6x5xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A2]], %[[W]] : tensor<6x4xf32>, tensor<4x5xf32>) outs(%[[ACC]] : tensor<6x5xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 5]
// CHECK: return %[[R]]
func.func @matmul_collapse(%a: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = llm.matmul %a, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RHST:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[$LHS]], #[[$RHST]], #[[$OUT]]] ins(%{{.+}}, %{{.+}} : tensor<3x4xf32>, tensor<5x4xf32>)
func.func @matmul_transpose_b(%a: tensor<3x4xf32>, %w: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %0 = llm.matmul %a, %w {transpose_b} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-DAG: #[[$LHST:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK: linalg.matmul indexing_maps = [#[[$LHST]], #[[$RHS]], #[[$OUT]]] ins(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<4x5xf32>)
func.func @matmul_transpose_a(%a: tensor<4x3xf32>, %w: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = llm.matmul %a, %w {transpose_a} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>, %[[B:.+]]: tensor<2x4x5xf32>)
// CHECK: %[[ACC:.+]] = linalg.fill
// CHECK: %[[R:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%[[ACC]] : tensor<2x3x5xf32>)
// CHECK: return %[[R]]
func.func @matmul_batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = llm.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Batch dims [2, 1] and [3] broadcast to [2, 3], then collapse into one.
// CHECK-DAG: #[[$BCL:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[$BCR:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[$BMT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @matmul_batched_broadcast
// CHECK: %[[L:.+]] = linalg.generic {indexing_maps = [#[[$BCL]], {{.+}}]
// CHECK: %[[L3:.+]] = tensor.collapse_shape %[[L]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x3x4xf32> into tensor<6x3x4xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$BCR]], {{.+}}]
// CHECK: %[[R3:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x5x4xf32> into tensor<6x5x4xf32>
// CHECK: %[[MM:.+]] = linalg.batch_matmul indexing_maps = [#{{.+}}, #[[$BMT]], #{{.+}}] ins(%[[L3]], %[[R3]] : {{.+}}) outs({{.+}} : tensor<6x3x5xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 3, 5]
func.func @matmul_batched_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32> {
  %0 = llm.matmul %a, %b {transpose_b} : (tensor<2x1x3x4xf32>, tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32>
  return %0 : tensor<2x3x3x5xf32>
}

// -----

// A 2-D lhs against a batched rhs: read through a map without the batch dim
// (no broadcast copy).
// CHECK-DAG: #[[$L2:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[$R3:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @matmul_lhs_2d_batched
// CHECK-SAME: (%[[A:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<2x4x5xf32>)
// CHECK-NOT: linalg.generic
// CHECK: linalg.batch_matmul indexing_maps = [#[[$L2]], #[[$R3]], #{{.+}}] ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<2x4x5xf32>)
func.func @matmul_lhs_2d_batched(%a: tensor<3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = llm.matmul %a, %b : (tensor<3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// f16 operands accumulate into an f32 tensor, rounded to f16 at the end.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<3x4xf16>, tensor<4x5xf16>) outs(%[[ACC]] : tensor<3x5xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[MM]] : tensor<3x5xf32>) outs(%{{.+}} : tensor<3x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @matmul_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  %0 = llm.matmul %a, %b : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

// Max-reduce, sum of exp(x - max), normalize: all in f32, all generics.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>)
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MI:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x8xf32>) outs(%[[MI]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] :
// CHECK: %[[SH:.+]] = arith.subf
// CHECK-NEXT: %[[EX:.+]] = math.exp %[[SH]]
// CHECK-NEXT: arith.divf %[[EX]], %{{.+}} : f32
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = llm.softmax %x {axis = -1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_axis0_f16
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<2x8xf16>) outs(%{{.+}} : tensor<8xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @softmax_axis0_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = llm.softmax %x {axis = 0 : i64} : tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// Mean (sum in f64, divided by N in f64, rounded to f32), then the biased
// variance the same way, then normalize with scale and bias broadcast along
// the normalized dim.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROWS]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x8xf32>) outs(%{{.+}} : tensor<2x3xf64>)
// CHECK: arith.extf %{{.+}} : f32 to f64
// CHECK-NEXT: arith.addf %{{.+}} fastmath<reassoc> : f64
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x3xf64>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: arith.constant 8.000000e+00 : f64
// CHECK-NEXT: arith.divf %{{.+}} : f64
// CHECK-NEXT: arith.truncf %{{.+}} : f64 to f32
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROWS]], #[[$ROWS]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x3x8xf32>, tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3xf64>)
// CHECK: %[[VAR:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<2x3xf64>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROWS]], #[[$ROWS]], #[[$LAST]], #[[$LAST]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[VAR]], %[[G]], %[[B]] :
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.rsqrt
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @layer_norm_axis1
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$B]]], iterator_types = ["parallel", "reduction", "reduction"]} {{.+}} outs(%{{.+}} : tensor<2xf64>)
// N = 3 * 8
// CHECK: arith.constant 2.400000e+01 : f64
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel"]
func.func @layer_norm_axis1(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = llm.layer_norm %x {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[SS:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<2x8xf16>) outs(%{{.+}} : tensor<2xf64>)
// CHECK: %[[XF:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[XF]], %[[XF]]
// CHECK-NEXT: %[[SQD:.+]] = arith.extf %[[SQ]] : f32 to f64
// CHECK-NEXT: arith.addf %{{.+}}, %[[SQD]] fastmath<reassoc> : f64
// CHECK: %[[MS:.+]] = linalg.generic {{.+}} ins(%[[SS]] : tensor<2xf64>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: arith.constant 8.000000e+00 : f64
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$ROW]], #[[$W]], #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%{{.+}}, %[[MS]], %{{.+}} : tensor<2x8xf16>, tensor<2xf32>, tensor<8xf16>)
// CHECK: arith.constant 9.99999997E-7 : f32
// CHECK: math.rsqrt
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @rms_norm(%x: tensor<2x8xf16>, %w: tensor<8xf16>) -> tensor<2x8xf16> {
  %0 = llm.rms_norm %x weight %w {epsilon = 1.0e-06 : f32} : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// rotate_half: x viewed as [..., 2, D/2]; the pair members are read through
// constant-index maps; inv_freq = theta^(-2i/D) is a compile-time
// tensor<D/2xf32> read through the feature dim (no powf per element).
// CHECK-DAG: #[[$U:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>
// CHECK-DAG: #[[$V:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 1, d4)>
// CHECK-DAG: #[[$POS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2)>
// CHECK-DAG: #[[$FREQ:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-LABEL: func.func @rope
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x8x16xf32>, %[[P:.+]]: tensor<8xi64>)
// CHECK: %[[XE:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 8, 2, 8]
// CHECK: %[[F:.+]] = arith.constant dense<[1.000000e+00, 0.316227764, 1.000000e-01, 0.0316227749, 0.00999999977, 0.00316227763, 1.000000e-03, 3.16227757E-4]> : tensor<8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$U]], #[[$V]], #[[$POS]], #[[$FREQ]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XE]], %[[XE]], %[[P]], %[[F]] :
// CHECK: ^bb0(%[[U:.+]]: f32, %[[V:.+]]: f32, %[[PI:.+]]: i64, %[[INV:.+]]: f32, %{{.+}}: f32):
// CHECK-NOT: math.powf
// CHECK: %[[PF:.+]] = arith.sitofp %[[PI]] : i64 to f32
// CHECK: %[[ANG:.+]] = arith.mulf %[[PF]], %[[INV]]
// CHECK: math.cos %[[ANG]]
// CHECK: math.sin %[[ANG]]
// CHECK: linalg.index 3 : index
// CHECK: arith.select
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x8x2x8xf32> into tensor<1x4x8x16xf32>
// CHECK: return %[[C]]
func.func @rope(%x: tensor<1x4x8x16xf32>, %pos: tensor<8xi64>) -> tensor<1x4x8x16xf32> {
  %0 = llm.rope %x, %pos {theta = 10000.0 : f32} : (tensor<1x4x8x16xf32>, tensor<8xi64>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// interleaved: x viewed as [..., D/2, 2]; positions [2, 1] broadcast.
// CHECK-DAG: #[[$U:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// CHECK-DAG: #[[$V:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1)>
// CHECK-DAG: #[[$POS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, 0)>
// CHECK-DAG: #[[$FREQ:.+]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-LABEL: func.func @rope_interleaved
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 8, 8, 2]
// CHECK: linalg.generic {indexing_maps = [#[[$U]], #[[$V]], #[[$POS]], #[[$FREQ]], #{{.+}}]
// CHECK: arith.sitofp %{{.+}} : i32 to f32
// CHECK: math.cos
// CHECK: linalg.index 3 : index
// CHECK: tensor.collapse_shape
func.func @rope_interleaved(%x: tensor<2x8x16xf32>, %pos: tensor<2x1xi32>) -> tensor<2x8x16xf32> {
  %0 = llm.rope %x, %pos mode <interleaved> : (tensor<2x8x16xf32>, tensor<2x1xi32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// Constant positions (also behind llm.reshape): cos and sin come from two
// compile-time tables of shape pos.shape x [D/2] (here [3, 1] x [2]: angles
// p * theta^(-2i/4) for p = 0, 1, 2 and i = 0, 1); no transcendental is left.
// CHECK-DAG: #[[$TAB:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, 0, d4)>
// CHECK-LABEL: func.func @rope_const_positions
// CHECK-DAG: %[[COS:.+]] = arith.constant dense<{{\[\[}}[1.000000e+00, 1.000000e+00]], {{\[\[}}0.540302277, {{.+}}]], {{\[\[}}-0.416146845, {{.+}}]]]> : tensor<3x1x2xf32>
// CHECK-DAG: %[[SIN:.+]] = arith.constant dense<{{\[\[}}[0.000000e+00, 0.000000e+00]], {{\[\[}}0.841470957, {{.+}}]], {{\[\[}}0.909297406, {{.+}}]]]> : tensor<3x1x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[$TAB]], #[[$TAB]], #{{.+}}]{{.*}} ins(%{{.+}}, %{{.+}}, %[[COS]], %[[SIN]] :
// CHECK-NOT: math.
// CHECK: tensor.collapse_shape
func.func @rope_const_positions(%x: tensor<1x3x5x4xf32>) -> tensor<1x3x5x4xf32> {
  %p = llm.constant dense<[0, 1, 2]> : tensor<3xi64>
  %r = llm.reshape %p : (tensor<3xi64>) -> tensor<3x1xi64>
  %0 = llm.rope %x, %r : (tensor<1x3x5x4xf32>, tensor<3x1xi64>) -> tensor<1x3x5x4xf32>
  return %0 : tensor<1x3x5x4xf32>
}

// -----

// Partial rotary (rotary_dims = 4 of 16): one generic over all of x viewed
// as 8 blocks of R/2 = 2 (blocks 0 and 1 the pairs' members; inv_freq with
// D = 4: 1 and theta^(-1/2) = 0.01) that also reads each element itself
// (the last input) and keeps it in blocks 2..7.
// CHECK-DAG: #[[$OWN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @rope_partial
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x8x16xf32>, %[[P:.+]]: tensor<8xi64>)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[XE:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 8, 8, 2]
// CHECK: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #[[$OWN]], #{{.+}}]{{.*}} ins(%[[XE]], %[[XE]], %[[P]], %{{.+}}, %[[XE]] :
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: i64, %{{.+}}: f32, %[[SELF:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[B:.+]] = linalg.index 3 : index
// CHECK: %[[ROT:.+]] = arith.select
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[B]], %{{.+}} : index
// CHECK: %[[OUT:.+]] = arith.select %[[IN]], %[[ROT]], %[[SELF]] : f32
// CHECK: linalg.yield %[[OUT]]
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x8x8x2xf32> into tensor<1x4x8x16xf32>
// CHECK-NOT: tensor.concat
// CHECK: return %[[C]]
func.func @rope_partial(%x: tensor<1x4x8x16xf32>, %pos: tensor<8xi64>) -> tensor<1x4x8x16xf32> {
  %0 = llm.rope %x, %pos {rotary_dims = 4} : (tensor<1x4x8x16xf32>, tensor<8xi64>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// Interleaved partial rotary (6 of 10): x viewed as 5 pairs of 2; pairs 3
// and 4 pass through (the inv_freq table is padded with zeros to 5).
// CHECK-LABEL: func.func @rope_partial_interleaved
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2]] output_shape [3, 5, 2]
// CHECK: arith.constant dense<[1.000000e+00, 0.0464158878, 0.0021544348, 0.000000e+00, 0.000000e+00]> : tensor<5xf32>
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: arith.cmpi ult, %[[I]], %{{.+}} : index
// CHECK-NOT: tensor.concat
func.func @rope_partial_interleaved(%x: tensor<3x10xf32>, %pos: tensor<3xi64>) -> tensor<3x10xf32> {
  %0 = llm.rope %x, %pos mode <interleaved> {rotary_dims = 6} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}

// -----

// Rotate-half partial rotary whose R/2 = 3 does not divide D = 16: the
// rotation of x[..., :6] and a concat with x[..., 6:].
// CHECK-LABEL: func.func @rope_partial_concat
// CHECK-SAME: (%[[X:.+]]: tensor<2x16xf32>, %{{.+}}: tensor<2xi64>)
// CHECK: %[[ROT:.+]] = tensor.extract_slice %[[X]][0, 0] [2, 6] [1, 1] : tensor<2x16xf32> to tensor<2x6xf32>
// CHECK: tensor.expand_shape %[[ROT]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 3]
// CHECK: %[[R:.+]] = tensor.collapse_shape
// CHECK: %[[PASS:.+]] = tensor.extract_slice %[[X]][0, 6] [2, 10] [1, 1] : tensor<2x16xf32> to tensor<2x10xf32>
// CHECK: tensor.concat dim(1) %[[R]], %[[PASS]] : (tensor<2x6xf32>, tensor<2x10xf32>) -> tensor<2x16xf32>
func.func @rope_partial_concat(%x: tensor<2x16xf32>, %pos: tensor<2xi64>) -> tensor<2x16xf32> {
  %0 = llm.rope %x, %pos {rotary_dims = 6} : (tensor<2x16xf32>, tensor<2xi64>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// CHECK-DAG: #[[$IDS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.+]]: tensor<50x16xf32>, %[[IDS:.+]]: tensor<1x8xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[$IDS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<1x8xi64>) outs(%{{.+}} : tensor<1x8x16xf32>)
// CHECK: ^bb0(%[[ID:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[ID]], %{{.+}} : i64
// CHECK: %[[C50:.+]] = arith.constant 50 : i64
// CHECK: %[[WRAP:.+]] = arith.addi %[[ID]], %[[C50]]
// CHECK: %[[SEL:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[ID]]
// CHECK: %[[C49:.+]] = arith.constant 49 : i64
// CHECK: %[[HI:.+]] = arith.minsi %[[SEL]], %[[C49]]
// CHECK: %[[LO:.+]] = arith.maxsi %[[HI]], %{{.+}}
// CHECK: %[[ROW:.+]] = arith.index_cast %[[LO]] : i64 to index
// CHECK: %[[COL:.+]] = linalg.index 2 : index
// CHECK: %[[E:.+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<50x16xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @embedding(%t: tensor<50x16xf32>, %ids: tensor<1x8xi64>) -> tensor<1x8x16xf32> {
  %0 = llm.embedding %t, %ids : (tensor<50x16xf32>, tensor<1x8xi64>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: %[[E:.+]] = tensor.empty() : tensor<1x4x8x16xf32>
// CHECK: linalg.transpose ins(%{{.+}} : tensor<1x8x4x16xf32>) outs(%[[E]] : tensor<1x4x8x16xf32>) permutation = [0, 2, 1, 3]
func.func @transpose(%x: tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32> {
  %0 = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_expand
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 8, 4, 16] : tensor<1x8x64xf32> into tensor<1x8x4x16xf32>
func.func @reshape_expand(%x: tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32> {
  %0 = llm.reshape %x : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>
  return %0 : tensor<1x8x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_collapse
// CHECK: tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xi64> into tensor<6x4xi64>
func.func @reshape_collapse(%x: tensor<2x3x4xi64>) -> tensor<6x4xi64> {
  %0 = llm.reshape %x : (tensor<2x3x4xi64>) -> tensor<6x4xi64>
  return %0 : tensor<6x4xi64>
}

// -----

// Neither a collapse nor an expand: through 1-D.
// CHECK-LABEL: func.func @reshape_general
// CHECK: %[[F:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
func.func @reshape_general(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = llm.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: tensor.concat dim(0) %{{.+}}, %{{.+}} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
func.func @concat(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = llm.concat %a, %b {axis = -2 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.+}}[0, 2] [4, 3] [1, 2] : tensor<4x8xf32> to tensor<4x3xf32>
func.func @slice(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %0 = llm.slice %x {starts = array<i64: 0, 2>, limits = array<i64: 4, 8>, strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-LABEL: func.func @broadcast_to
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.+}} : tensor<1x4xf32>) outs(%{{.+}} : tensor<3x2x4xf32>)
func.func @broadcast_to(%x: tensor<1x4xf32>) -> tensor<3x2x4xf32> {
  %0 = llm.broadcast_to %x : (tensor<1x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// Sums accumulate in f64 and are rounded once to the result type.
// CHECK-LABEL: func.func @reduce_sum_keepdims
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2xf64>)
// CHECK: arith.addf %{{.+}} fastmath<reassoc> : f64
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[S]] : tensor<2xf64>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = llm.reduce_sum %x {axes = array<i64: 1, -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_bf16
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<2x8xbf16>) outs(%{{.+}} : tensor<2xf64>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: linalg.generic {{.+}} ins(%[[S]] : tensor<2xf64>) outs(%{{.+}} : tensor<2xbf16>)
// CHECK: %[[N:.+]] = arith.constant 8.000000e+00 : f64
// CHECK: %[[M:.+]] = arith.divf %{{.+}}, %[[N]] : f64
// CHECK: %[[M32:.+]] = arith.truncf %[[M]] : f64 to f32
// CHECK: arith.truncf %[[M32]] : f32 to bf16
func.func @reduce_mean_bf16(%x: tensor<2x8xbf16>) -> tensor<2xbf16> {
  %0 = llm.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x8xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<8xf32>)
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.maximumf
func.func @reduce_max(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  %0 = llm.reduce_max %x {axes = array<i64: 0>} : (tensor<2x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @cast_f32_to_f16
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @cast_f32_to_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = llm.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Saturating: clamp in f32 to the widest f32 values inside i32, x >= 2^31 ->
// INT32_MAX; NaN -> 0.
// CHECK-LABEL: func.func @cast_f32_to_i32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: i32):
// CHECK-DAG: %[[HI:.+]] = arith.constant 2.14748352E+9 : f32
// CHECK-DAG: %[[LO:.+]] = arith.constant -2.14748365E+9 : f32
// CHECK: %[[A:.+]] = arith.maximumf %[[X]], %[[LO]]
// CHECK: %[[B:.+]] = arith.minimumf %[[A]], %[[HI]]
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[I:.+]] = arith.fptosi %[[B]] : f32 to i32
// CHECK: %[[P2:.+]] = arith.constant 2.14748365E+9 : f32
// CHECK: %[[BIG:.+]] = arith.cmpf oge, %[[X]], %[[P2]]
// CHECK: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK: %[[S:.+]] = arith.select %[[BIG]], %[[MAX]], %[[I]] : i32
// CHECK: arith.select %[[NAN]], %{{.+}}, %[[S]] : i32
func.func @cast_f32_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = llm.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @cast_to_i1
// CHECK: arith.cmpf une, %{{.+}}, %{{.+}} : bf16
// CHECK: arith.cmpi ne, %{{.+}}, %{{.+}} : i64
func.func @cast_to_i1(%x: tensor<4xbf16>, %i: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = llm.cast %x : (tensor<4xbf16>) -> tensor<4xi1>
  %1 = llm.cast %i : (tensor<4xi64>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_from_int
// CHECK: arith.uitofp %{{.+}} : i1 to f32
// CHECK: arith.sitofp %{{.+}} : i32 to f16
// CHECK: arith.extsi %{{.+}} : i32 to i64
func.func @cast_from_int(%i: tensor<4xi1>, %j: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xi64>) {
  %0 = llm.cast %i : (tensor<4xi1>) -> tensor<4xf32>
  %1 = llm.cast %j : (tensor<4xi32>) -> tensor<4xf16>
  %2 = llm.cast %j : (tensor<4xi32>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf16>, tensor<4xi64>
}

// -----

// An empty slice at the end of a dimension and concat inputs that are empty
// along the axis do not index out of bounds.
// CHECK-LABEL: func.func @empty_slice_concat
//  CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x0xf32>)
//       CHECK: %[[E:.+]] = tensor.empty() : tensor<4x0xf32>
//   CHECK-NOT: tensor.extract_slice
//   CHECK-NOT: tensor.concat
//       CHECK: return %[[E]], %[[A]]
func.func @empty_slice_concat(%a: tensor<4x8xf32>, %b: tensor<4x0xf32>) -> (tensor<4x0xf32>, tensor<4x8xf32>) {
  %0 = llm.slice %a {starts = array<i64: 0, 8>, limits = array<i64: 4, 8>, strides = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x0xf32>
  %1 = llm.concat %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x0xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x0xf32>, tensor<4x8xf32>
}
