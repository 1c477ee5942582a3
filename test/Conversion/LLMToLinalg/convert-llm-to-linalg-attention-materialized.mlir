// RUN: llm-opt %s -convert-llm-to-linalg="attention=materialized" -split-input-file | FileCheck %s

// Structure of the materialized lowering of llm.attention (the reference
// path; the default flash lowering is checked in
// convert-llm-to-linalg-attention-flash.mlir). Values are checked by
// exec/attention.mlir and test/Integration/attention*.mlir.

// GQA without copying K/V: q [1,8,16,64] -> [1,2,4,16,64] -> [2, 4*16, 64];
// Q K^T through the batch_matmul's maps; causal mask from linalg.index;
// stable softmax in the [B,Hkv,G,Sq,Skv] view; P V; reshape back.
// CHECK-DAG: #[[$Q:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$KT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ID5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$ROW5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @attention_gqa_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<1x8x16x64xf32>, %[[K:.+]]: tensor<1x2x16x64xf32>, %[[V:.+]]: tensor<1x2x16x32xf32>)
// CHECK: %[[Q5:.+]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 4, 16, 64]
// CHECK: %[[Q3:.+]] = tensor.collapse_shape %[[Q5]] {{\[\[}}0, 1], [2, 3], [4]] : tensor<1x2x4x16x64xf32> into tensor<2x64x64xf32>
// CHECK: %[[K3:.+]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x16x64xf32> into tensor<2x16x64xf32>
// CHECK: %[[V3:.+]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x16x32xf32> into tensor<2x16x32xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[QK:.+]] = linalg.batch_matmul indexing_maps = [#[[$Q]], #[[$KT]], #[[$S]]] ins(%[[Q3]], %[[K3]] : tensor<2x64x64xf32>, tensor<2x16x64xf32>) outs(%{{.+}} : tensor<2x64x16xf32>)
// CHECK: %[[S5:.+]] = tensor.expand_shape %[[QK]] {{\[\[}}0, 1], [2, 3], [4]] output_shape [1, 2, 4, 16, 16]
// CHECK: %[[LOG:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ID5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[S5]] :
// 1/sqrt(64)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[I:.+]] = linalg.index 3 : index
// CHECK: %[[J:.+]] = linalg.index 4 : index
// CHECK: %[[KEEP:.+]] = arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK: arith.select %[[KEEP]]
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ROW5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[LOG]] :
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[LOG]], %[[MAX]] :
// Masked entries (-inf) weigh 0, so a fully masked row gives 0, not NaN.
// CHECK: arith.cmpf oeq
// CHECK: %[[P:.+]] = linalg.generic {{.+}} ins(%[[LOG]], %[[MAX]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: %[[P3:.+]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1], [2, 3], [4]] : tensor<1x2x4x16x16xf32> into tensor<2x64x16xf32>
// CHECK: %[[PV:.+]] = linalg.batch_matmul ins(%[[P3]], %[[V3]] : tensor<2x64x16xf32>, tensor<2x16x32xf32>) outs(%{{.+}} : tensor<2x64x32xf32>)
// CHECK: %[[O5:.+]] = tensor.expand_shape %[[PV]] {{\[\[}}0, 1], [2, 3], [4]] output_shape [1, 2, 4, 16, 32]
// CHECK: %[[O:.+]] = tensor.collapse_shape %[[O5]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x4x16x32xf32> into tensor<1x8x16x32xf32>
// CHECK: return %[[O]]
func.func @attention_gqa_causal(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32>
  return %0 : tensor<1x8x16x32xf32>
}

// -----

// i1 mask [2,1,1,6]: keep where true; head and row dims broadcast (0).
// CHECK-DAG: #[[$M:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, 0, d4)>
// CHECK-LABEL: func.func @attention_mask_i1
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$M]], #{{.+}}]
// CHECK: ^bb0(%[[S:.+]]: f32, %[[KEEP:.+]]: i1, %{{.+}}: f32):
// CHECK: %[[SC:.+]] = arith.mulf %[[S]]
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: arith.select %[[KEEP]], %[[SC]], %[[NINF]] : f32
// CHECK-NOT: linalg.index
func.func @attention_mask_i1(%q: tensor<2x4x4x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %m: tensor<2x1x1x6xi1>) -> tensor<2x4x4x8xf32> {
  %0 = llm.attention %q, %k, %v mask %m : (tensor<2x4x4x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x4x8xf32>
  return %0 : tensor<2x4x4x8xf32>
}

// -----

// f16 float mask [Hq, Sq, Skv] is added; query head h = kv_head * G + g.
// CHECK-DAG: #[[$M:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 2 + d2, d3, d4)>
// CHECK-LABEL: func.func @attention_mask_f16
// CHECK: linalg.batch_matmul {{.+}} ins(%{{.+}}, %{{.+}} : tensor<2x8x8xf16>, tensor<2x4x8xf16>) outs(%{{.+}} : tensor<2x8x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$M]], #{{.+}}]
// CHECK: ^bb0(%[[S:.+]]: f32, %[[MK:.+]]: f16, %{{.+}}: f32):
// CHECK: %[[MF:.+]] = arith.extf %[[MK]] : f16 to f32
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SC:.+]] = arith.mulf %[[S]], %[[HALF]]
// CHECK: arith.addf %[[SC]], %[[MF]]
// CHECK: linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<2x8x4xf32>, tensor<2x4x8xf16>) outs(%{{.+}} : tensor<2x8x8xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x2x4x8xf16> into tensor<1x4x4x8xf16>
func.func @attention_mask_f16(%q: tensor<1x4x4x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>, %m: tensor<4x4x4xf16>) -> tensor<1x4x4x8xf16> {
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x4x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<4x4x4xf16>) -> tensor<1x4x4x8xf16>
  return %0 : tensor<1x4x4x8xf16>
}

// -----

// Layout bshd: q, k, v are transposed to [B, H, S, D] first and the result
// back to [B, Sq, Hq, Dv] (this lowering is the reference path).
// CHECK-LABEL: func.func @bshd
// CHECK-SAME: (%[[Q:.+]]: tensor<1x6x4x8xf32>, %[[K:.+]]: tensor<1x6x2x8xf32>, %[[V:.+]]: tensor<1x6x2x4xf32>)
// CHECK: linalg.transpose ins(%[[Q]] : tensor<1x6x4x8xf32>) outs(%{{.+}} : tensor<1x4x6x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%[[K]] : tensor<1x6x2x8xf32>) outs(%{{.+}} : tensor<1x2x6x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%[[V]] : tensor<1x6x2x4xf32>) outs(%{{.+}} : tensor<1x2x6x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK: %[[O:.+]] = tensor.collapse_shape {{.+}} into tensor<1x4x6x4xf32>
// CHECK: %[[R:.+]] = linalg.transpose ins(%[[O]] : tensor<1x4x6x4xf32>) outs(%{{.+}} : tensor<1x6x4x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: return %[[R]]
func.func @bshd(%q: tensor<1x6x4x8xf32>, %k: tensor<1x6x2x8xf32>, %v: tensor<1x6x2x4xf32>) -> tensor<1x6x4x4xf32> {
  %0 = llm.attention %q, %k, %v {layout = #llm.attention_layout<bshd>} : (tensor<1x6x4x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x4xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}
