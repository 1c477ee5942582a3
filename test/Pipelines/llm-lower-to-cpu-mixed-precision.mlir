// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx512" -split-input-file | FileCheck %s

// f16 x f16 -> f32-accumulated batched matmul register tiles must not become a
// named vector.contract with mixed element types (verifier failure before the
// fix); they are vectorized through the generic path, which keeps the casts,
// and then contracted in f32: a row of B extended to 32 f32 lanes and one
// vector FMA per row of the tile (not one scalar multiply per product).
// CHECK-LABEL: llvm.func @batched_f16
// CHECK: llvm.fpext {{.*}} : vector<32xf16> to vector<32xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK: llvm.func @_mlir_ciface_batched_f16
func.func @batched_f16(%a: tensor<2x32x64xf16>, %b: tensor<2x64x32xf16>) -> tensor<2x32x32xf16> {
  %0 = llm.matmul %a, %b : (tensor<2x32x64xf16>, tensor<2x64x32xf16>) -> tensor<2x32x32xf16>
  return %0 : tensor<2x32x32xf16>
}

// -----

// bf16 attention: the P x V product mixes the f32 probabilities with bf16 V.
// CHECK-LABEL: llvm.func @attention_bf16
// CHECK: llvm.fpext
// CHECK: llvm.fmul
// CHECK: llvm.func @_mlir_ciface_attention_bf16
func.func @attention_bf16(%q: tensor<1x4x32x16xbf16>, %k: tensor<1x2x32x16xbf16>, %v: tensor<1x2x32x16xbf16>) -> tensor<1x4x32x16xbf16> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x4x32x16xbf16>, tensor<1x2x32x16xbf16>, tensor<1x2x32x16xbf16>) -> tensor<1x4x32x16xbf16>
  return %0 : tensor<1x4x32x16xbf16>
}
