// llm.attention in layout bshd ([B, S, H, D] operands and result), lowered
// by the flash lowering (strided query/key/value tiles, strided stores) and
// by the materialized lowering, against the numpy reference of
// test/lib/llmc_ref.py applied to the transposed operands
// (attention(x.transpose(0, 2, 1, 3), ...).transpose(0, 2, 1, 3)):
//   * `tiles`: attention-tile=8,16, so S=37 has partial query and key tiles;
//   * `mat`: attention=materialized (transposes to bhsd, then the old path);
//   * `unopt`: optimize-graph=false, so out3's head transposes stay and the
//     attention stays bhsd (the unoptimized path of the canonicalization).
// Cases (results of @cases): out0 causal GQA S=37 (Hq 4, Hkv 2, D 16, Dv 8);
// out1 batch 2, Sq=5 < Skv=9, causal, additive f32 mask [5, 9], Hq = Hkv = 3;
// out2 decode (Sq=1, Skv=40), causal, GQA; out3 the head split/merge
// transposes around a bhsd attention, rewritten to bshd by the llm
// canonicalization (in llm-fold-constants) in `tiles` and `mat`.
// Tolerances: f32 rtol 1e-5 + atol 1e-6 (llmc_check.py) against numpy; the
// lowerings and the unoptimized path agree with `tiles` at rtol 1e-5.
//
// RUN: rm -rf %t && mkdir -p %t/tiles %t/mat %t/unopt
// RUN: %python -m llmc_check gen %t q=1x37x4x16xf32 k=1x37x2x16xf32 v=1x37x2x8xf32 bq=2x5x3x8xf32 bk=2x9x3x8xf32 bv=2x9x3x8xf32 'fm=5x9xf32@np.random.default_rng(3).uniform(-3, 1, (5, 9)).astype(np.float32)' dq=1x1x4x16xf32 dk=1x40x2x16xf32 dv=1x40x2x8xf32
// RUN: llmc run %s --entry cases --pipeline-options "attention-tile=8,16" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bq.npy --input arg4=%t/bk.npy --input arg5=%t/bv.npy --input arg6=%t/fm.npy --input arg7=%t/dq.npy --input arg8=%t/dk.npy --input arg9=%t/dv.npy --output-dir %t/tiles > /dev/null
// RUN: llmc run %s --entry cases --pipeline-options "attention=materialized" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bq.npy --input arg4=%t/bk.npy --input arg5=%t/bv.npy --input arg6=%t/fm.npy --input arg7=%t/dq.npy --input arg8=%t/dk.npy --input arg9=%t/dv.npy --output-dir %t/mat > /dev/null
// RUN: llmc run %s --entry cases --pipeline-options "attention-tile=8,16 optimize-graph=false" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bq.npy --input arg4=%t/bk.npy --input arg5=%t/bv.npy --input arg6=%t/fm.npy --input arg7=%t/dq.npy --input arg8=%t/dk.npy --input arg9=%t/dv.npy --output-dir %t/unopt > /dev/null
//
// RUN: %python -m llmc_check expr "attention(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3), causal=True).transpose(0, 2, 1, 3)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/tiles/out0.npy --name tiles_gqa_causal | FileCheck %s --check-prefix=CHECK0
// CHECK0: tiles_gqa_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out0.npy --actual %t/tiles/out0.npy --rtol 1e-5 --name agree_gqa_causal | FileCheck %s --check-prefix=AGREE0
// AGREE0: agree_gqa_causal: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(bq.transpose(0, 2, 1, 3), bk.transpose(0, 2, 1, 3), bv.transpose(0, 2, 1, 3), mask=fm, causal=True).transpose(0, 2, 1, 3)" --arg bq=%t/bq.npy --arg bk=%t/bk.npy --arg bv=%t/bv.npy --arg fm=%t/fm.npy --actual %t/tiles/out1.npy --name tiles_batch_mask | FileCheck %s --check-prefix=CHECK1
// CHECK1: tiles_batch_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out1.npy --actual %t/tiles/out1.npy --rtol 1e-5 --name agree_batch_mask | FileCheck %s --check-prefix=AGREE1
// AGREE1: agree_batch_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(dq.transpose(0, 2, 1, 3), dk.transpose(0, 2, 1, 3), dv.transpose(0, 2, 1, 3), causal=True).transpose(0, 2, 1, 3)" --arg dq=%t/dq.npy --arg dk=%t/dk.npy --arg dv=%t/dv.npy --actual %t/tiles/out2.npy --name tiles_decode | FileCheck %s --check-prefix=CHECK2
// CHECK2: tiles_decode: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out2.npy --actual %t/tiles/out2.npy --rtol 1e-5 --name agree_decode | FileCheck %s --check-prefix=AGREE2
// AGREE2: agree_decode: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3), causal=True).transpose(0, 2, 1, 3)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/tiles/out3.npy --name tiles_absorbed | FileCheck %s --check-prefix=CHECK3
// CHECK3: tiles_absorbed: {{.*}} PASS
// RUN: %python -m llmc_check expr "unopt" --arg unopt=%t/unopt/out3.npy --actual %t/tiles/out3.npy --rtol 1e-5 --name agree_absorbed_unopt | FileCheck %s --check-prefix=AGREE3
// AGREE3: agree_absorbed_unopt: {{.*}} PASS
// RUN: %python -m llmc_check expr "mat" --arg mat=%t/mat/out3.npy --actual %t/tiles/out3.npy --rtol 1e-5 --name agree_absorbed_mat | FileCheck %s --check-prefix=AGREE3M
// AGREE3M: agree_absorbed_mat: {{.*}} PASS
//
// The rewrite (llm-fold-constants applies the llm canonicalizations, as the
// `tiles` and `mat` pipelines do): no head transpose is left.
// RUN: llm-opt %s --llm-fold-constants | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @cases
// IR-COUNT-4: llm.attention {{.*}}layout = #llm.attention_layout<bshd>
// IR-NOT: llm.transpose

func.func @cases(%q: tensor<1x37x4x16xf32>, %k: tensor<1x37x2x16xf32>, %v: tensor<1x37x2x8xf32>,
                 %bq: tensor<2x5x3x8xf32>, %bk: tensor<2x9x3x8xf32>, %bv: tensor<2x9x3x8xf32>, %fm: tensor<5x9xf32>,
                 %dq: tensor<1x1x4x16xf32>, %dk: tensor<1x40x2x16xf32>, %dv: tensor<1x40x2x8xf32>)
    -> (tensor<1x37x4x8xf32>, tensor<2x5x3x8xf32>, tensor<1x1x4x8xf32>, tensor<1x37x4x8xf32>) {
  %0 = llm.attention %q, %k, %v {causal, layout = #llm.attention_layout<bshd>}
      : (tensor<1x37x4x16xf32>, tensor<1x37x2x16xf32>, tensor<1x37x2x8xf32>) -> tensor<1x37x4x8xf32>
  %1 = llm.attention %bq, %bk, %bv mask %fm {causal, layout = #llm.attention_layout<bshd>}
      : (tensor<2x5x3x8xf32>, tensor<2x9x3x8xf32>, tensor<2x9x3x8xf32>, tensor<5x9xf32>) -> tensor<2x5x3x8xf32>
  %2 = llm.attention %dq, %dk, %dv {causal, layout = #llm.attention_layout<bshd>}
      : (tensor<1x1x4x16xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2x8xf32>) -> tensor<1x1x4x8xf32>
  %tq = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x37x4x16xf32>) -> tensor<1x4x37x16xf32>
  %tk = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x37x2x16xf32>) -> tensor<1x2x37x16xf32>
  %tv = llm.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x37x2x8xf32>) -> tensor<1x2x37x8xf32>
  %o = llm.attention %tq, %tk, %tv {causal}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>) -> tensor<1x4x37x8xf32>
  %3 = llm.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x37x8xf32>) -> tensor<1x37x4x8xf32>
  return %0, %1, %2, %3 : tensor<1x37x4x8xf32>, tensor<2x5x3x8xf32>, tensor<1x1x4x8xf32>, tensor<1x37x4x8xf32>
}
