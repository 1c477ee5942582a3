// RUN: llm-opt %s -split-input-file -llm-form-kv-cache | FileCheck %s

// A decoder built for an empty past (bhsd attention, RoPE on the keys, a
// position table): the past inputs become caches in their place, the
// attention writes its new rows at past_length and reads the caches up to
// total_length, the position tables are read from past_length on, and the
// present outputs are dropped.

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IDS:.*]]: tensor<1x?xi64> {llm.dim_bounds = array<i64: 1, 16>, llm.name = "input_ids"},
// CHECK-SAME: %[[KC:.*]]: tensor<1x2x16x8xf32> {llm.kv_cache, llm.name = "past_key_values.0.key"},
// CHECK-SAME: %[[VC:.*]]: tensor<1x2x16x8xf32> {llm.kv_cache, llm.name = "past_key_values.0.value"},
// CHECK-SAME: %[[PAST:.*]]: tensor<i64> {llm.name = "past_length"},
// CHECK-SAME: %[[TOTAL:.*]]: tensor<i64> {llm.name = "total_length"})
// CHECK-SAME: -> (tensor<1x?x16xf32> {llm.name = "logits"})
// The 2-D table: gathered at iota + past.
// CHECK: llm.embedding
// CHECK-NEXT: %[[IOTA:.*]] = llm.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi64>
// CHECK-NEXT: %[[P1:.*]] = llm.sequence_prefix %[[IOTA]] {axes = array<i64: 0>}
// CHECK-NEXT: %[[POS1:.*]] = llm.add %[[P1]], %[[PAST]] : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
// CHECK-NEXT: %[[ROWS:.*]] = llm.gather %{{.*}}, %[[POS1]] : (tensor<16x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
// CHECK: llm.add %{{.*}}, %[[ROWS]]
// The iota table itself: shifted by past.
// CHECK: %[[P2:.*]] = llm.sequence_prefix
// CHECK: %[[POS2:.*]] = llm.add %[[P2]], %[[PAST]]
// CHECK: %[[H:.*]] = llm.transpose
// CHECK: %[[K:.*]] = llm.rope %[[H]], %[[POS2]]
// CHECK: %[[K1:.*]] = llm.kv_cache_update %[[KC]], %[[K]], %[[PAST]] :
// CHECK: %[[V1:.*]] = llm.kv_cache_update %[[VC]], %[[H]], %[[PAST]] :
// CHECK: llm.attention %[[K]], %[[K1]], %[[V1]] kv_length %[[TOTAL]] {causal}
// CHECK-SAME: (tensor<1x2x?x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<i64>) -> tensor<1x2x?x8xf32>
// CHECK: return %{{.*}} : tensor<1x?x16xf32>
func.func @main(%ids: tensor<1x?xi64> {llm.dim_bounds = array<i64: 1, 16>, llm.name = "input_ids"},
                %pk: tensor<1x2x0x8xf32> {llm.name = "past_key_values.0.key"},
                %pv: tensor<1x2x0x8xf32> {llm.name = "past_key_values.0.value"})
    -> (tensor<1x?x16xf32> {llm.name = "logits"}, tensor<1x2x?x8xf32> {llm.name = "present.0.key"}, tensor<1x2x?x8xf32> {llm.name = "present.0.value"}) {
  %emb = llm.constant dense<0.5> : tensor<32x16xf32>
  %wpe = llm.constant dense<0.25> : tensor<16x16xf32>
  %iota = llm.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi64>
  %x0 = llm.embedding %emb, %ids : (tensor<32x16xf32>, tensor<1x?xi64>) -> tensor<1x?x16xf32>
  %p = llm.sequence_prefix %wpe {axes = array<i64: 0>} : (tensor<16x16xf32>) -> tensor<?x16xf32>
  %x = llm.add %x0, %p : (tensor<1x?x16xf32>, tensor<?x16xf32>) -> tensor<1x?x16xf32>
  %pos = llm.sequence_prefix %iota {axes = array<i64: 0>} : (tensor<16xi64>) -> tensor<?xi64>
  %r = llm.reshape %x : (tensor<1x?x16xf32>) -> tensor<1x?x2x8xf32>
  %h = llm.transpose %r {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x8xf32>) -> tensor<1x2x?x8xf32>
  %k = llm.rope %h, %pos : (tensor<1x2x?x8xf32>, tensor<?xi64>) -> tensor<1x2x?x8xf32>
  %a = llm.attention %k, %k, %h {causal} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %t = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x?x8xf32>) -> tensor<1x?x2x8xf32>
  %y = llm.reshape %t : (tensor<1x?x2x8xf32>) -> tensor<1x?x16xf32>
  return %y, %k, %h : tensor<1x?x16xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
}

// -----

// A bshd attention (as llm-recompose writes it when the head transposes
// were absorbed): the present outputs return the head transposes of its
// operands, and the caches take the attention's layout, [1, M, H, D],
// updated along axis 1. Two layers pair with the past inputs in order.

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IDS:.*]]: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 12, 8>},
// CHECK-SAME: %[[K0:.*]]: tensor<1x12x2x4xf32> {llm.kv_cache, llm.name = "k0"},
// CHECK-SAME: %[[V0:.*]]: tensor<1x12x2x4xf32> {llm.kv_cache, llm.name = "v0"},
// CHECK-SAME: %[[K1:.*]]: tensor<1x12x2x4xf32> {llm.kv_cache, llm.name = "k1"},
// CHECK-SAME: %[[V1:.*]]: tensor<1x12x2x4xf32> {llm.kv_cache, llm.name = "v1"},
// CHECK-SAME: %[[PAST:.*]]: tensor<i64> {llm.name = "past_length"}, %[[TOTAL:.*]]: tensor<i64> {llm.name = "total_length"})
// CHECK-SAME: -> tensor<1x?x8xf32>
// CHECK: %[[KU0:.*]] = llm.kv_cache_update %[[K0]], %{{.*}}, %[[PAST]] {axis = 1 : i64}
// CHECK: %[[VU0:.*]] = llm.kv_cache_update %[[V0]], %{{.*}}, %[[PAST]] {axis = 1 : i64}
// CHECK: llm.attention %{{.*}}, %[[KU0]], %[[VU0]] kv_length %[[TOTAL]] {causal, layout = #llm.attention_layout<bshd>}
// CHECK: %[[KU1:.*]] = llm.kv_cache_update %[[K1]], %{{.*}}, %[[PAST]] {axis = 1 : i64}
// CHECK: %[[VU1:.*]] = llm.kv_cache_update %[[V1]], %{{.*}}, %[[PAST]] {axis = 1 : i64}
// CHECK: llm.attention %{{.*}}, %[[KU1]], %[[VU1]] kv_length %[[TOTAL]] {causal, layout = #llm.attention_layout<bshd>}
// CHECK-NOT: llm.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x4xf32>) -> tensor<1x2x?x4xf32>
func.func @main(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 12, 8>},
                %k0: tensor<1x2x0x4xf32> {llm.name = "k0"}, %v0: tensor<1x2x0x4xf32> {llm.name = "v0"},
                %k1: tensor<1x2x0x4xf32> {llm.name = "k1"}, %v1: tensor<1x2x0x4xf32> {llm.name = "v1"})
    -> (tensor<1x?x8xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %r = llm.reshape %x : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %a = llm.attention %r, %r, %r {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>) -> tensor<1x?x2x4xf32>
  %e = llm.exp %a : tensor<1x?x2x4xf32>
  %b = llm.attention %e, %e, %a {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>) -> tensor<1x?x2x4xf32>
  %y = llm.reshape %b : (tensor<1x?x2x4xf32>) -> tensor<1x?x8xf32>
  %pk0 = llm.transpose %r {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x4xf32>) -> tensor<1x2x?x4xf32>
  %pk1 = llm.transpose %e {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x4xf32>) -> tensor<1x2x?x4xf32>
  %pv1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x4xf32>) -> tensor<1x2x?x4xf32>
  return %y, %pk0, %pk0, %pk1, %pv1 : tensor<1x?x8xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}
