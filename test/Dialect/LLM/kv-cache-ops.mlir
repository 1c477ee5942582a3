// RUN: llm-opt %s | llm-opt | FileCheck %s
// RUN: llm-opt %s --mlir-print-op-generic | llm-opt | FileCheck %s

// Round trip of the key/value cache op (LLMCacheOps.td): the default axis
// (bhsd cache), an explicit bshd axis, a dynamic number of new rows, an i32
// position and f16 elements.

// CHECK-LABEL: func.func @bhsd
// CHECK: llm.kv_cache_update %arg0, %arg1, %arg2 : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
func.func @bhsd(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x1x8xf32>, %p: tensor<i64>) -> tensor<1x4x16x8xf32> {
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// CHECK-LABEL: func.func @bshd_dynamic
// CHECK: llm.kv_cache_update %arg0, %arg1, %arg2 {axis = 1 : i64} : (tensor<1x16x4x8xf16>, tensor<1x?x4x8xf16>, tensor<i32>) -> tensor<1x16x4x8xf16>
func.func @bshd_dynamic(%c: tensor<1x16x4x8xf16> {llm.kv_cache}, %u: tensor<1x?x4x8xf16> {llm.dim_bounds = array<i64: 1, 16, 4, 8>}, %p: tensor<i32>) -> tensor<1x16x4x8xf16> {
  %0 = llm.kv_cache_update %c, %u, %p {axis = 1 : i64} : (tensor<1x16x4x8xf16>, tensor<1x?x4x8xf16>, tensor<i32>) -> tensor<1x16x4x8xf16>
  return %0 : tensor<1x16x4x8xf16>
}
