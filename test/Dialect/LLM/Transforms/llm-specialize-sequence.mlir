// RUN: llm-opt %s -llm-specialize-sequence="length=1 new-entry=decode" | FileCheck %s
// RUN: llm-opt %s -llm-specialize-sequence="length=3" | FileCheck %s --check-prefix=LEN3
// RUN: not llm-opt %s -llm-specialize-sequence="length=9" 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not llm-opt %s -llm-specialize-sequence="new-entry=main" 2>&1 | FileCheck %s --check-prefix=TAKEN
// BOUND: error: llm-specialize-sequence: length 9 is outside [1, 8] (the declared bound of @main)
// TAKEN: error: llm-specialize-sequence: the module already has a symbol @main

// The copy for one sequence length: every `?` becomes the length, the
// slice that kept the dynamic dimension whole gets it as its limit, the
// bounds are dropped; the original is unchanged and both use the same
// constant.

// CHECK-LABEL: func.func @main(%arg0: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 8, 4>}, %arg1: tensor<i64>, %arg2: tensor<1x8x1x2xf32> {llm.kv_cache}) -> tensor<1x?x2xf32>
// CHECK: llm.slice %{{.*}} {limits = array<i64: 1, 8, 2>
// CHECK-LABEL: func.func @decode(%arg0: tensor<1x1x4xf32>, %arg1: tensor<i64>, %arg2: tensor<1x8x1x2xf32> {llm.kv_cache}) -> tensor<1x1x2xf32>
// CHECK: %[[W:.*]] = llm.constant dense<1.000000e+00> : tensor<4x4xf32>
// CHECK: %[[M:.*]] = llm.matmul %arg0, %[[W]] : (tensor<1x1x4xf32>, tensor<4x4xf32>) -> tensor<1x1x4xf32>
// CHECK: %[[S:.*]] = llm.slice %[[M]] {limits = array<i64: 1, 1, 2>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x1x4xf32>) -> tensor<1x1x2xf32>
// CHECK: %[[R:.*]] = llm.reshape %[[S]] : (tensor<1x1x2xf32>) -> tensor<1x1x1x2xf32>
// CHECK: llm.kv_cache_update %arg2, %[[R]], %arg1 {axis = 1 : i64} : (tensor<1x8x1x2xf32>, tensor<1x1x1x2xf32>, tensor<i64>) -> tensor<1x8x1x2xf32>
// CHECK: return %[[S]] : tensor<1x1x2xf32>
// LEN3-LABEL: func.func @main_s3(%arg0: tensor<1x3x4xf32>, %arg1: tensor<i64>, %arg2
// LEN3: llm.slice %{{.*}} {limits = array<i64: 1, 3, 2>
func.func @main(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 8, 4>}, %pos: tensor<i64>,
                %cache: tensor<1x8x1x2xf32> {llm.kv_cache}) -> tensor<1x?x2xf32> {
  %w = llm.constant dense<1.0> : tensor<4x4xf32>
  %m = llm.matmul %x, %w : (tensor<1x?x4xf32>, tensor<4x4xf32>) -> tensor<1x?x4xf32>
  %s = llm.slice %m {starts = array<i64: 0, 0, 0>, limits = array<i64: 1, 8, 2>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x4xf32>) -> tensor<1x?x2xf32>
  %r = llm.reshape %s : (tensor<1x?x2xf32>) -> tensor<1x?x1x2xf32>
  %k = llm.kv_cache_update %cache, %r, %pos {axis = 1 : i64} : (tensor<1x8x1x2xf32>, tensor<1x?x1x2xf32>, tensor<i64>) -> tensor<1x8x1x2xf32>
  return %s : tensor<1x?x2xf32>
}
