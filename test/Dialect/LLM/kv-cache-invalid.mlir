// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of llm.kv_cache_update (LLMCacheOps.td).

func.func @rank(%c: tensor<1x4x16x8xf32>, %u: tensor<4x1x8xf32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op update has rank 3 but the cache has rank 4}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<4x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @axis(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x1x8xf32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op axis 4 is out of range [0, 4) for a cache of rank 4}}
  %0 = llm.kv_cache_update %c, %u, %p {axis = 4 : i64} : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @dynamic_cache(%c: tensor<1x4x?x8xf32>, %u: tensor<1x4x1x8xf32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op cache dimension 2 is dynamic: the cache is preallocated with a static shape}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x?x8xf32>, tensor<1x4x1x8xf32>, tensor<i64>) -> tensor<1x4x?x8xf32>
  return
}

// -----

func.func @too_many_rows(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x17x8xf32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op update has 17 rows along axis 2 but the cache holds only 16}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x4x17x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @head_mismatch(%c: tensor<1x4x16x8xf32>, %u: tensor<1x2x1x8xf32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op update dimension 1 is 2 but the cache's is 4 (only the axis 2 sizes may differ)}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x2x1x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @position_rank(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x1x8xf32>, %p: tensor<1xi64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op operand #2 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf32>, tensor<1xi64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @element_type(%c: tensor<1x4x16x8xf32>, %u: tensor<1x4x1x8xf16>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op failed to verify that all of {cache, update} have same element type}}
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x4x16x8xf32>, tensor<1x4x1x8xf16>, tensor<i64>) -> tensor<1x4x16x8xf32>
  return
}

// -----

func.func @bound_exceeds_cache(%c: tensor<1x6x2x8xf32>, %u: tensor<1x?x2x8xf32> {llm.dim_bounds = array<i64: 1, 12, 2, 8>}, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.kv_cache_update' op the cache holds 6 rows along axis 1 but the sequence bound (llm.dim_bounds) is 12: a prompt of that length would not fit}}
  %0 = llm.kv_cache_update %c, %u, %p {axis = 1 : i64} : (tensor<1x6x2x8xf32>, tensor<1x?x2x8xf32>, tensor<i64>) -> tensor<1x6x2x8xf32>
  return
}
