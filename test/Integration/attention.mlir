// llm.attention: multi-head, grouped-query (GQA) and multi-query, causal
// (square, decode with Sq < Skv, and Sq > Skv with fully excluded rows), float
// and i1 masks (broadcast, with a fully masked row), custom scale, Dv != D,
// f16 and bf16; a decode step over the valid prefix of a cache (kv_length).
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/mha %t/gqa_causal %t/mqa_decode %t/causal_short_kv %t/float_mask_scale %t/bool_mask_gqa %t/bool_mask_causal %t/gqa_causal_f16 %t/gqa_causal_bf16 %t/kv_length_decode
// RUN: %python -m llmc_check gen %t q=1x2x6x8xf32 k=1x2x6x8xf32 v=1x2x6x8xf32 gq=2x4x6x8xf32 gk=2x2x6x8xf32 gv=2x2x6x4xf32 dq=1x4x1x8xf32 dk=1x1x9x8xf32 dv=1x1x9x8xf32 sk=1x2x3x8xf32 sv=1x2x3x8xf32 fm=1x1x6x6xf32:-3:1 'bm=2x1x6x6xi1@(np.random.default_rng(3).random((2,1,6,6)) < 0.6) & (np.arange(6)[:, None] != 2)' 'bm2=6x6xi1@np.random.default_rng(4).random((6,6)) < 0.7' hq=1x4x6x8xf16 hk=1x2x6x8xf16 hv=1x2x6x8xf16 bq=1x4x6x8xbf16 bk=1x2x6x8xbf16 bv=1x2x6x8xbf16 'len=xi64@np.int64(5)'

// Plain multi-head attention, default scale 1/sqrt(8).
// RUN: llmc run %s --entry mha --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --output-dir %t/mha
// RUN: %python -m llmc_check expr "attention(q, k, v)" --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/mha/out0.npy --name mha | FileCheck %s --check-prefix=MHA
// MHA: mha: shape [1, 2, 6, 8] dtype float32 {{.*}} PASS
func.func @mha(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32> {
  %0 = llm.attention %q, %k, %v
      : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// GQA (Hq 4, Hkv 2), batch 2, causal, value dim 4 != 8.
// RUN: llmc run %s --entry gqa_causal --input arg0=%t/gq.npy --input arg1=%t/gk.npy --input arg2=%t/gv.npy --output-dir %t/gqa_causal
// RUN: %python -m llmc_check expr "attention(gq, gk, gv, causal=True)" --arg gk=%t/gk.npy --arg gq=%t/gq.npy --arg gv=%t/gv.npy --actual %t/gqa_causal/out0.npy --name gqa_causal | FileCheck %s --check-prefix=GQA_CAUSAL
// GQA_CAUSAL: gqa_causal: shape [2, 4, 6, 4] dtype float32 {{.*}} PASS
func.func @gqa_causal(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x4xf32>) -> tensor<2x4x6x4xf32> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>) -> tensor<2x4x6x4xf32>
  return %0 : tensor<2x4x6x4xf32>
}

// Decode step over the first L = 5 rows of a 9-row cache (kv_length; causal
// aligned at L: sees rows 0..4), one kv head.
// RUN: llmc run %s --entry kv_length_decode --input arg0=%t/dq.npy --input arg1=%t/dk.npy --input arg2=%t/dv.npy --input arg3=%t/len.npy --output-dir %t/kv_length_decode
// RUN: %python -m llmc_check expr "attention(dq, dk, dv, causal=True, kv_length=len)" --arg dk=%t/dk.npy --arg dq=%t/dq.npy --arg dv=%t/dv.npy --arg len=%t/len.npy --actual %t/kv_length_decode/out0.npy --name kv_length_decode | FileCheck %s --check-prefix=KV_LENGTH_DECODE
// KV_LENGTH_DECODE: kv_length_decode: shape [1, 4, 1, 8] dtype float32 {{.*}} PASS
func.func @kv_length_decode(%q: tensor<1x4x1x8xf32>, %k: tensor<1x1x9x8xf32>, %v: tensor<1x1x9x8xf32>, %len: tensor<i64>) -> tensor<1x4x1x8xf32> {
  %0 = llm.attention %q, %k, %v kv_length %len {causal}
      : (tensor<1x4x1x8xf32>, tensor<1x1x9x8xf32>, tensor<1x1x9x8xf32>, tensor<i64>) -> tensor<1x4x1x8xf32>
  return %0 : tensor<1x4x1x8xf32>
}

// Decode step: Sq 1 against a 9-entry cache (causal aligned at the end: sees
// all), one kv head.
// RUN: llmc run %s --entry mqa_decode --input arg0=%t/dq.npy --input arg1=%t/dk.npy --input arg2=%t/dv.npy --output-dir %t/mqa_decode
// RUN: %python -m llmc_check expr "attention(dq, dk, dv, causal=True)" --arg dk=%t/dk.npy --arg dq=%t/dq.npy --arg dv=%t/dv.npy --actual %t/mqa_decode/out0.npy --name mqa_decode | FileCheck %s --check-prefix=MQA_DECODE
// MQA_DECODE: mqa_decode: shape [1, 4, 1, 8] dtype float32 {{.*}} PASS
func.func @mqa_decode(%q: tensor<1x4x1x8xf32>, %k: tensor<1x1x9x8xf32>, %v: tensor<1x1x9x8xf32>) -> tensor<1x4x1x8xf32> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x4x1x8xf32>, tensor<1x1x9x8xf32>, tensor<1x1x9x8xf32>) -> tensor<1x4x1x8xf32>
  return %0 : tensor<1x4x1x8xf32>
}

// Sq 6 > Skv 3: rows 0-2 have no allowed key (j <= i - 3) and must be 0.
// RUN: llmc run %s --entry causal_short_kv --input arg0=%t/q.npy --input arg1=%t/sk.npy --input arg2=%t/sv.npy --output-dir %t/causal_short_kv
// RUN: %python -m llmc_check expr "attention(q, sk, sv, causal=True)" --arg q=%t/q.npy --arg sk=%t/sk.npy --arg sv=%t/sv.npy --actual %t/causal_short_kv/out0.npy --name causal_short_kv | FileCheck %s --check-prefix=CAUSAL_SHORT_KV
// CAUSAL_SHORT_KV: causal_short_kv: shape [1, 2, 6, 8] dtype float32 {{.*}} PASS
func.func @causal_short_kv(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x6x8xf32> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x2x6x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// Additive f32 mask broadcast over heads, scale 0.25.
// RUN: llmc run %s --entry float_mask_scale --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/fm.npy --output-dir %t/float_mask_scale
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=fm, scale=0.25)" --arg fm=%t/fm.npy --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/float_mask_scale/out0.npy --name float_mask_scale | FileCheck %s --check-prefix=FLOAT_MASK_SCALE
// FLOAT_MASK_SCALE: float_mask_scale: shape [1, 2, 6, 8] dtype float32 {{.*}} PASS
func.func @float_mask_scale(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %m: tensor<1x1x6x6xf32>) -> tensor<1x2x6x8xf32> {
  %0 = llm.attention %q, %k, %v mask %m {scale = 2.5e-01 : f32}
      : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x1x6x6xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// i1 mask [2, 1, 6, 6] broadcast over heads; query row 2 is fully masked and
// must be 0.
// RUN: llmc run %s --entry bool_mask_gqa --input arg0=%t/gq.npy --input arg1=%t/gk.npy --input arg2=%t/gv.npy --input arg3=%t/bm.npy --output-dir %t/bool_mask_gqa
// RUN: %python -m llmc_check expr "attention(gq, gk, gv, mask=bm)" --arg bm=%t/bm.npy --arg gk=%t/gk.npy --arg gq=%t/gq.npy --arg gv=%t/gv.npy --actual %t/bool_mask_gqa/out0.npy --name bool_mask_gqa | FileCheck %s --check-prefix=BOOL_MASK_GQA
// BOOL_MASK_GQA: bool_mask_gqa: shape [2, 4, 6, 4] dtype float32 {{.*}} PASS
func.func @bool_mask_gqa(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x4xf32>, %m: tensor<2x1x6x6xi1>) -> tensor<2x4x6x4xf32> {
  %0 = llm.attention %q, %k, %v mask %m
      : (tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<2x1x6x6xi1>) -> tensor<2x4x6x4xf32>
  return %0 : tensor<2x4x6x4xf32>
}

// Rank-2 i1 mask combined with causal.
// RUN: llmc run %s --entry bool_mask_causal --input arg0=%t/gq.npy --input arg1=%t/gk.npy --input arg2=%t/gv.npy --input arg3=%t/bm2.npy --output-dir %t/bool_mask_causal
// RUN: %python -m llmc_check expr "attention(gq, gk, gv, mask=bm2, causal=True)" --arg bm2=%t/bm2.npy --arg gk=%t/gk.npy --arg gq=%t/gq.npy --arg gv=%t/gv.npy --actual %t/bool_mask_causal/out0.npy --name bool_mask_causal | FileCheck %s --check-prefix=BOOL_MASK_CAUSAL
// BOOL_MASK_CAUSAL: bool_mask_causal: shape [2, 4, 6, 4] dtype float32 {{.*}} PASS
func.func @bool_mask_causal(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x4xf32>, %m: tensor<6x6xi1>) -> tensor<2x4x6x4xf32> {
  %0 = llm.attention %q, %k, %v mask %m {causal}
      : (tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<6x6xi1>) -> tensor<2x4x6x4xf32>
  return %0 : tensor<2x4x6x4xf32>
}

// f16: scores may be stored in f16 between the two matmuls, so 5e-3 instead of
// 2 ulp.
// RUN: llmc run %s --entry gqa_causal_f16 --input arg0=%t/hq.npy --input arg1=%t/hk.npy --input arg2=%t/hv.npy --output-dir %t/gqa_causal_f16
// RUN: %python -m llmc_check expr "attention(hq, hk, hv, causal=True)" --arg hk=%t/hk.npy --arg hq=%t/hq.npy --arg hv=%t/hv.npy --actual %t/gqa_causal_f16/out0.npy --dtype f16 --rtol 0.005 --atol 0.005 --name gqa_causal_f16 | FileCheck %s --check-prefix=GQA_CAUSAL_F16
// GQA_CAUSAL_F16: gqa_causal_f16: shape [1, 4, 6, 8] dtype float16 {{.*}} PASS
func.func @gqa_causal_f16(%q: tensor<1x4x6x8xf16>, %k: tensor<1x2x6x8xf16>, %v: tensor<1x2x6x8xf16>) -> tensor<1x4x6x8xf16> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x4x6x8xf16>, tensor<1x2x6x8xf16>, tensor<1x2x6x8xf16>) -> tensor<1x4x6x8xf16>
  return %0 : tensor<1x4x6x8xf16>
}

// bf16: 4e-2 (bf16-rounded intermediate scores allowed, as for f16).
// RUN: llmc run %s --entry gqa_causal_bf16 --input arg0=%t/bq.npy --input arg1=%t/bk.npy --input arg2=%t/bv.npy --output-dir %t/gqa_causal_bf16
// RUN: %python -m llmc_check expr "attention(bq, bk, bv, causal=True, dtype='bf16')" --arg bk=%t/bk.npy --arg bq=%t/bq.npy --arg bv=%t/bv.npy --actual %t/gqa_causal_bf16/out0.npy --dtype bf16 --rtol 0.04 --atol 0.04 --name gqa_causal_bf16 | FileCheck %s --check-prefix=GQA_CAUSAL_BF16
// GQA_CAUSAL_BF16: gqa_causal_bf16: shape [1, 4, 6, 8] dtype float32 {{.*}} PASS
func.func @gqa_causal_bf16(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %0 = llm.cast %q : (tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xbf16>
  %1 = llm.cast %k : (tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xbf16>
  %2 = llm.cast %v : (tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xbf16>
  %3 = llm.attention %0, %1, %2 {causal}
      : (tensor<1x4x6x8xbf16>, tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>) -> tensor<1x4x6x8xbf16>
  %4 = llm.cast %3 : (tensor<1x4x6x8xbf16>) -> tensor<1x4x6x8xf32>
  return %4 : tensor<1x4x6x8xf32>
}
