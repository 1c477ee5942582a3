// Flash-attention lowering of llm.attention (convert-llm-to-linalg
// {attention=flash}, the default) on sizes that are not tile multiples,
// against the numpy reference of test/lib/llmc_ref.py and against the
// materialized lowering:
//   * `tiles`: attention-tile=8,16, so S=37 has partial query AND key tiles
//     (shifted back, overlap excluded), S=64 and Skv=512 are multiples, and
//     causal skips key tiles;
//   * `default`: the host target's tile (clamped to the sizes);
//   * `mat`: attention=materialized (the old lowering).
// Cases (results out0..out7 of @cases): causal GQA S=37 (Hq 4, Hkv 2, D 16,
// Dv 8); i1 mask [1,1,37,37] with a fully masked row 5 (-> 0); additive f32
// mask [37,37] with a row 3 of -inf (-> 0) plus causal; decode q_len=1 vs
// kv_len=512, causal, GQA; S=64 with a rank-1 i1 mask and causal; Sq=37 >
// Skv=20 causal (rows 0-16 see no key: 0); f16 and bf16 causal GQA.
// Tolerances (llmc_check.py): f32 rtol 1e-5 + atol 1e-6; f16 and bf16 as in
// attention.mlir (5e-3 and 4e-2: f32 accumulation, one rounding of the
// output, inputs rounded by the generator). Flash vs materialized: f32
// outputs rtol 1e-5 (atol 1e-6 floor).
//
// RUN: rm -rf %t && mkdir -p %t/tiles %t/default %t/mat
// RUN: %python -m llmc_check gen %t q=1x4x37x16xf32 k=1x2x37x16xf32 v=1x2x37x8xf32 'bm=1x1x37x37xi1@(np.random.default_rng(5).random((1,1,37,37)) < 0.6) & (np.arange(37)[:, None] != 5)' 'fm=37x37xf32@np.where(np.arange(37)[:, None] == 3, -np.inf, np.random.default_rng(6).uniform(-3, 1, (37, 37))).astype(np.float32)' dq=1x4x1x16xf32 dk=1x2x512x16xf32 dv=1x2x512x8xf32 q64=1x2x64x16xf32 k64=1x2x64x16xf32 v64=1x2x64x16xf32 'bm64=64xi1@np.random.default_rng(7).random(64) < 0.8' sk=1x2x20x16xf32 sv=1x2x20x8xf32 hq=1x4x37x16xf16 hk=1x2x37x16xf16 hv=1x2x37x8xf16 bq=1x4x37x16xbf16 bk=1x2x37x16xbf16 bv=1x2x37x8xbf16
// RUN: llmc run %s --entry cases --pipeline-options "attention-tile=8,16" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/fm.npy --input arg5=%t/dq.npy --input arg6=%t/dk.npy --input arg7=%t/dv.npy --input arg8=%t/q64.npy --input arg9=%t/k64.npy --input arg10=%t/v64.npy --input arg11=%t/bm64.npy --input arg12=%t/sk.npy --input arg13=%t/sv.npy --input arg14=%t/hq.npy --input arg15=%t/hk.npy --input arg16=%t/hv.npy --input arg17=%t/bq.npy --input arg18=%t/bk.npy --input arg19=%t/bv.npy --output-dir %t/tiles > /dev/null
// RUN: llmc run %s --entry cases --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/fm.npy --input arg5=%t/dq.npy --input arg6=%t/dk.npy --input arg7=%t/dv.npy --input arg8=%t/q64.npy --input arg9=%t/k64.npy --input arg10=%t/v64.npy --input arg11=%t/bm64.npy --input arg12=%t/sk.npy --input arg13=%t/sv.npy --input arg14=%t/hq.npy --input arg15=%t/hk.npy --input arg16=%t/hv.npy --input arg17=%t/bq.npy --input arg18=%t/bk.npy --input arg19=%t/bv.npy --output-dir %t/default > /dev/null
// RUN: llmc run %s --entry cases --pipeline-options "attention=materialized" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/fm.npy --input arg5=%t/dq.npy --input arg6=%t/dk.npy --input arg7=%t/dv.npy --input arg8=%t/q64.npy --input arg9=%t/k64.npy --input arg10=%t/v64.npy --input arg11=%t/bm64.npy --input arg12=%t/sk.npy --input arg13=%t/sv.npy --input arg14=%t/hq.npy --input arg15=%t/hk.npy --input arg16=%t/hv.npy --input arg17=%t/bq.npy --input arg18=%t/bk.npy --input arg19=%t/bv.npy --output-dir %t/mat > /dev/null
// RUN: %python -m llmc_check expr "attention(q, k, v, causal=True)" --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/tiles/out0.npy --name tiles_gqa_causal | FileCheck %s --check-prefix=GQA_CAUSAL_TILES
// GQA_CAUSAL_TILES: tiles_gqa_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, causal=True)" --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/default/out0.npy --name default_gqa_causal | FileCheck %s --check-prefix=GQA_CAUSAL_DEFAULT
// GQA_CAUSAL_DEFAULT: default_gqa_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out0.npy --actual %t/tiles/out0.npy --rtol 1e-5 --name agree_gqa_causal | FileCheck %s --check-prefix=GQA_CAUSAL_AGREE
// GQA_CAUSAL_AGREE: agree_gqa_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=bm)" --arg bm=%t/bm.npy --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/tiles/out1.npy --name tiles_bool_mask | FileCheck %s --check-prefix=BOOL_MASK_TILES
// BOOL_MASK_TILES: tiles_bool_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=bm)" --arg bm=%t/bm.npy --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/default/out1.npy --name default_bool_mask | FileCheck %s --check-prefix=BOOL_MASK_DEFAULT
// BOOL_MASK_DEFAULT: default_bool_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out1.npy --actual %t/tiles/out1.npy --rtol 1e-5 --name agree_bool_mask | FileCheck %s --check-prefix=BOOL_MASK_AGREE
// BOOL_MASK_AGREE: agree_bool_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=fm, causal=True)" --arg fm=%t/fm.npy --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/tiles/out2.npy --name tiles_float_mask_causal | FileCheck %s --check-prefix=FLOAT_MASK_CAUSAL_TILES
// FLOAT_MASK_CAUSAL_TILES: tiles_float_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=fm, causal=True)" --arg fm=%t/fm.npy --arg k=%t/k.npy --arg q=%t/q.npy --arg v=%t/v.npy --actual %t/default/out2.npy --name default_float_mask_causal | FileCheck %s --check-prefix=FLOAT_MASK_CAUSAL_DEFAULT
// FLOAT_MASK_CAUSAL_DEFAULT: default_float_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out2.npy --actual %t/tiles/out2.npy --rtol 1e-5 --name agree_float_mask_causal | FileCheck %s --check-prefix=FLOAT_MASK_CAUSAL_AGREE
// FLOAT_MASK_CAUSAL_AGREE: agree_float_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(dq, dk, dv, causal=True)" --arg dk=%t/dk.npy --arg dq=%t/dq.npy --arg dv=%t/dv.npy --actual %t/tiles/out3.npy --name tiles_decode_512 | FileCheck %s --check-prefix=DECODE_512_TILES
// DECODE_512_TILES: tiles_decode_512: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(dq, dk, dv, causal=True)" --arg dk=%t/dk.npy --arg dq=%t/dq.npy --arg dv=%t/dv.npy --actual %t/default/out3.npy --name default_decode_512 | FileCheck %s --check-prefix=DECODE_512_DEFAULT
// DECODE_512_DEFAULT: default_decode_512: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out3.npy --actual %t/tiles/out3.npy --rtol 1e-5 --name agree_decode_512 | FileCheck %s --check-prefix=DECODE_512_AGREE
// DECODE_512_AGREE: agree_decode_512: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q64, k64, v64, mask=bm64, causal=True)" --arg bm64=%t/bm64.npy --arg k64=%t/k64.npy --arg q64=%t/q64.npy --arg v64=%t/v64.npy --actual %t/tiles/out4.npy --name tiles_s64_mask_causal | FileCheck %s --check-prefix=S64_MASK_CAUSAL_TILES
// S64_MASK_CAUSAL_TILES: tiles_s64_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q64, k64, v64, mask=bm64, causal=True)" --arg bm64=%t/bm64.npy --arg k64=%t/k64.npy --arg q64=%t/q64.npy --arg v64=%t/v64.npy --actual %t/default/out4.npy --name default_s64_mask_causal | FileCheck %s --check-prefix=S64_MASK_CAUSAL_DEFAULT
// S64_MASK_CAUSAL_DEFAULT: default_s64_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out4.npy --actual %t/tiles/out4.npy --rtol 1e-5 --name agree_s64_mask_causal | FileCheck %s --check-prefix=S64_MASK_CAUSAL_AGREE
// S64_MASK_CAUSAL_AGREE: agree_s64_mask_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, sk, sv, causal=True)" --arg q=%t/q.npy --arg sk=%t/sk.npy --arg sv=%t/sv.npy --actual %t/tiles/out5.npy --name tiles_short_kv_causal | FileCheck %s --check-prefix=SHORT_KV_CAUSAL_TILES
// SHORT_KV_CAUSAL_TILES: tiles_short_kv_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, sk, sv, causal=True)" --arg q=%t/q.npy --arg sk=%t/sk.npy --arg sv=%t/sv.npy --actual %t/default/out5.npy --name default_short_kv_causal | FileCheck %s --check-prefix=SHORT_KV_CAUSAL_DEFAULT
// SHORT_KV_CAUSAL_DEFAULT: default_short_kv_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out5.npy --actual %t/tiles/out5.npy --rtol 1e-5 --name agree_short_kv_causal | FileCheck %s --check-prefix=SHORT_KV_CAUSAL_AGREE
// SHORT_KV_CAUSAL_AGREE: agree_short_kv_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(hq, hk, hv, causal=True)" --arg hk=%t/hk.npy --arg hq=%t/hq.npy --arg hv=%t/hv.npy --actual %t/tiles/out6.npy --dtype f16 --rtol 0.005 --atol 0.005 --name tiles_f16_causal | FileCheck %s --check-prefix=F16_CAUSAL_TILES
// F16_CAUSAL_TILES: tiles_f16_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(hq, hk, hv, causal=True)" --arg hk=%t/hk.npy --arg hq=%t/hq.npy --arg hv=%t/hv.npy --actual %t/default/out6.npy --dtype f16 --rtol 0.005 --atol 0.005 --name default_f16_causal | FileCheck %s --check-prefix=F16_CAUSAL_DEFAULT
// F16_CAUSAL_DEFAULT: default_f16_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(bq, bk, bv, causal=True, dtype='bf16')" --arg bk=%t/bk.npy --arg bq=%t/bq.npy --arg bv=%t/bv.npy --actual %t/tiles/out7.npy --dtype bf16 --rtol 0.04 --atol 0.04 --name tiles_bf16_causal | FileCheck %s --check-prefix=BF16_CAUSAL_TILES
// BF16_CAUSAL_TILES: tiles_bf16_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(bq, bk, bv, causal=True, dtype='bf16')" --arg bk=%t/bk.npy --arg bq=%t/bq.npy --arg bv=%t/bv.npy --actual %t/default/out7.npy --dtype bf16 --rtol 0.04 --atol 0.04 --name default_bf16_causal | FileCheck %s --check-prefix=BF16_CAUSAL_DEFAULT
// BF16_CAUSAL_DEFAULT: default_bf16_causal: {{.*}} PASS

func.func @cases(%q: tensor<1x4x37x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x8xf32>,
                 %bm: tensor<1x1x37x37xi1>, %fm: tensor<37x37xf32>,
                 %dq: tensor<1x4x1x16xf32>, %dk: tensor<1x2x512x16xf32>, %dv: tensor<1x2x512x8xf32>,
                 %q64: tensor<1x2x64x16xf32>, %k64: tensor<1x2x64x16xf32>, %v64: tensor<1x2x64x16xf32>, %bm64: tensor<64xi1>,
                 %sk: tensor<1x2x20x16xf32>, %sv: tensor<1x2x20x8xf32>,
                 %hq: tensor<1x4x37x16xf16>, %hk: tensor<1x2x37x16xf16>, %hv: tensor<1x2x37x8xf16>,
                 %bq: tensor<1x4x37x16xf32>, %bk: tensor<1x2x37x16xf32>, %bv: tensor<1x2x37x8xf32>)
    -> (tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x1x8xf32>,
        tensor<1x2x64x16xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf16>, tensor<1x4x37x8xf32>) {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>) -> tensor<1x4x37x8xf32>
  %1 = llm.attention %q, %k, %v mask %bm
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<1x1x37x37xi1>) -> tensor<1x4x37x8xf32>
  %2 = llm.attention %q, %k, %v mask %fm {causal}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<37x37xf32>) -> tensor<1x4x37x8xf32>
  %3 = llm.attention %dq, %dk, %dv {causal}
      : (tensor<1x4x1x16xf32>, tensor<1x2x512x16xf32>, tensor<1x2x512x8xf32>) -> tensor<1x4x1x8xf32>
  %4 = llm.attention %q64, %k64, %v64 mask %bm64 {causal}
      : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<64xi1>) -> tensor<1x2x64x16xf32>
  %5 = llm.attention %q, %sk, %sv {causal}
      : (tensor<1x4x37x16xf32>, tensor<1x2x20x16xf32>, tensor<1x2x20x8xf32>) -> tensor<1x4x37x8xf32>
  %6 = llm.attention %hq, %hk, %hv {causal}
      : (tensor<1x4x37x16xf16>, tensor<1x2x37x16xf16>, tensor<1x2x37x8xf16>) -> tensor<1x4x37x8xf16>
  %bq16 = llm.cast %bq : (tensor<1x4x37x16xf32>) -> tensor<1x4x37x16xbf16>
  %bk16 = llm.cast %bk : (tensor<1x2x37x16xf32>) -> tensor<1x2x37x16xbf16>
  %bv16 = llm.cast %bv : (tensor<1x2x37x8xf32>) -> tensor<1x2x37x8xbf16>
  %7 = llm.attention %bq16, %bk16, %bv16 {causal}
      : (tensor<1x4x37x16xbf16>, tensor<1x2x37x16xbf16>, tensor<1x2x37x8xbf16>) -> tensor<1x4x37x8xbf16>
  %8 = llm.cast %7 : (tensor<1x4x37x8xbf16>) -> tensor<1x4x37x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %8
      : tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x1x8xf32>,
        tensor<1x2x64x16xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf16>, tensor<1x4x37x8xf32>
}
