// RUN: llm-opt %s -llm-mark-argument-writability -split-input-file -verify-diagnostics | FileCheck %s
// RUN: llm-opt %s -llm-mark-argument-writability -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=BUF

// The inputs of a public function become read-only for bufferization, its
// key/value caches (llm.kv_cache) writable; private functions are left
// alone.

// CHECK-LABEL: func.func @entry
// CHECK-SAME: %arg0: tensor<1x16x8xf32> {bufferization.writable = true, llm.kv_cache}
// CHECK-SAME: %arg1: tensor<1x1x8xf32> {bufferization.writable = false}
// CHECK-SAME: %arg2: index)
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%arg0: tensor<4xf32>)

// The cache is written in place (a subview of the argument, no copy of the
// whole cache); the other input, read-only, is copied before it is written.
// BUF-LABEL: func.func @entry
// BUF-SAME: (%[[CACHE:[a-z0-9]+]]: memref<1x16x8xf32> {llm.kv_cache}, %[[NEW:[a-z0-9]+]]: memref<1x1x8xf32>, %[[POS:[a-z0-9]+]]: index)
// BUF: %[[VIEW:.*]] = memref.subview %[[CACHE]][0, %[[POS]], 0] [1, 1, 8] [1, 1, 1]
// BUF: memref.copy %[[NEW]], %[[VIEW]]
// BUF: %[[COPY:.*]] = memref.alloc() {{.*}} : memref<1x1x8xf32>
// BUF: memref.copy %[[NEW]], %[[COPY]]
// BUF-NOT: memref.alloc() {{.*}} : memref<1x16x8xf32>
func.func @entry(%cache: tensor<1x16x8xf32> {llm.kv_cache}, %new: tensor<1x1x8xf32>, %pos: index) -> (tensor<1x16x8xf32>, tensor<1x1x8xf32>) {
  %0 = tensor.insert_slice %new into %cache[0, %pos, 0] [1, 1, 8] [1, 1, 1] : tensor<1x1x8xf32> into tensor<1x16x8xf32>
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %1 = tensor.insert %f into %new[%c0, %c0, %c0] : tensor<1x1x8xf32>
  return %0, %1 : tensor<1x16x8xf32>, tensor<1x1x8xf32>
}

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0: 'llm.kv_cache' must be a unit attribute on a tensor argument}}
func.func @not_a_tensor(%x: index {llm.kv_cache}) {
  return
}
