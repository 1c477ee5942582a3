// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// llm.kv_cache_update lowers to one tensor.insert_slice of the new rows at
// the run-time position, clamped into [0, M - S] so that no write leaves the
// cache.

// CHECK-LABEL: func.func @decode_bhsd
// CHECK-SAME: (%[[C:.*]]: tensor<1x4x16x8xf32>, %[[U:.*]]: tensor<1x4x1x8xf32>, %[[P:.*]]: tensor<i64>)
// CHECK: %[[LAST:.*]] = arith.constant 15 : index
// CHECK: %[[E:.*]] = tensor.extract %[[P]][] : tensor<i64>
// CHECK: %[[I:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[LO:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[LO]], %[[ZERO]] : index
// CHECK: %[[R:.*]] = tensor.insert_slice %[[U]] into %[[C]][0, 0, %[[POS]], 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<1x4x1x8xf32> into tensor<1x4x16x8xf32>
// CHECK: return %[[R]]
func.func @decode_bhsd(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x1x8xf32>, %p: tensor<i64>) -> tensor<1x4x16x8xf32> {
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

// A dynamic number of new rows (prefill): the clamp bound is M - dim(u, 1).
// CHECK-LABEL: func.func @prefill_bshd
// CHECK: %[[S:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<1x?x4x8xf32>
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %[[S]] : index
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK: %[[POS:.*]] = arith.maxsi
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[POS]], 0, 0] [1, %[[S]], 4, 8] [1, 1, 1, 1] : tensor<1x?x4x8xf32> into tensor<1x16x4x8xf32>
func.func @prefill_bshd(%c: tensor<1x16x4x8xf32>, %u: tensor<1x?x4x8xf32> {llm.dim_bounds = array<i64: 1, 16, 4, 8>}, %p: tensor<i32>) -> tensor<1x16x4x8xf32> {
  %0 = llm.kv_cache_update %c, %u, %p {axis = 1 : i64} : (tensor<1x16x4x8xf32>, tensor<1x?x4x8xf32>, tensor<i32>) -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

// llm.sequence_prefix lowers to a view of the table's first S rows, S the
// sequence argument's dimension.
// CHECK-LABEL: func.func @prefix
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x4xf32> {{.*}}, %[[T:.*]]: tensor<1x1x16x16xi1>)
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<1x?x4xf32>
// CHECK: %[[R:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 1, %[[S]], %[[S]]] [1, 1, 1, 1] : tensor<1x1x16x16xi1> to tensor<1x1x?x?xi1>
// CHECK: return %[[R]]
func.func @prefix(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 16, 4>},
                  %t: tensor<1x1x16x16xi1>) -> tensor<1x1x?x?xi1> {
  %0 = llm.sequence_prefix %t {axes = array<i64: 2, 3>} : (tensor<1x1x16x16xi1>) -> tensor<1x1x?x?xi1>
  return %0 : tensor<1x1x?x?xi1>
}

// -----

// llm.sequence_last lowers to a view of the last row: offset S - 1 on the
// axis, S the run-time length.
// CHECK-LABEL: func.func @last
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x4xf32>
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<1x?x4xf32>
// CHECK: %[[O:.*]] = arith.subi %[[S]], %{{.*}} : index
// CHECK: %[[R:.*]] = tensor.extract_slice %[[X]][0, %[[O]], 0] [1, 1, 4] [1, 1, 1] : tensor<1x?x4xf32> to tensor<1x1x4xf32>
// CHECK: return %[[R]]
func.func @last(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 16, 4>}) -> tensor<1x1x4xf32> {
  %0 = llm.sequence_last %x {axis = 1 : i64} : (tensor<1x?x4xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// A static axis: a constant offset.
// CHECK-LABEL: func.func @last_static
// CHECK: tensor.extract_slice %{{.*}}[5, 0] [1, 3] [1, 1] : tensor<6x3xi64> to tensor<1x3xi64>
func.func @last_static(%x: tensor<6x3xi64>) -> tensor<1x3xi64> {
  %0 = llm.sequence_last %x {axis = 0 : i64} : (tensor<6x3xi64>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}
