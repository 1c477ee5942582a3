// llm.attention with an i1 mask and `excluded_score` (what llm-recompose
// makes of torch.where(mask, scores, finfo.min)): the excluded positions
// score e = finfo.min, so a query row whose keys the mask all excludes gets
// the mean of the value rows that causal leaves, as the exported graph does
// (without excluded_score that row is 0). Compared with the numpy reference
// of test/lib/llmc_ref.py (excluded_score=e) in three lowerings:
//   * `tiles`: flash with attention-tile=8,16 (S=37: partial query and key
//     tiles, the shifted-back overlap dropped, causal skipping key tiles);
//   * `default`: flash with the host target's tile;
//   * `mat`: attention=materialized.
// Cases: out0: mask [1,1,37,37], rows 5 and 36 fully excluded, GQA (Hq 4,
// Hkv 2); out1: the same mask and causal (row 5 then weighs keys 0..5
// equally); out2: a [37] key-padding mask excluding keys 0..9 and causal
// (rows 0..9 fully excluded: the mean of v[0..i], checked directly at the
// end, with their magnitude, so that 0 there could not pass).
// Tolerances (llmc_check.py): f32 rtol 1e-5 + atol 1e-6.
//
// RUN: rm -rf %t && mkdir -p %t/tiles %t/default %t/mat
// RUN: %python -m llmc_check gen %t q=1x4x37x16xf32 k=1x2x37x16xf32 v=1x2x37x8xf32 'bm=1x1x37x37xi1@(np.random.default_rng(5).random((1,1,37,37)) < 0.6) & ~np.isin(np.arange(37), [5, 36])[:, None]' 'pad=37xi1@np.arange(37) >= 10'
// RUN: llmc run %s --pipeline-options "attention-tile=8,16" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/pad.npy --output-dir %t/tiles > /dev/null
// RUN: llmc run %s --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/pad.npy --output-dir %t/default > /dev/null
// RUN: llmc run %s --pipeline-options "attention=materialized" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/bm.npy --input arg4=%t/pad.npy --output-dir %t/mat > /dev/null
// RUN: for d in tiles default mat; do \
// RUN:   %python -m llmc_check expr "attention(q, k, v, mask=bm, excluded_score=-3.4028234663852886e38)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg bm=%t/bm.npy --actual %t/$d/out0.npy --name $d-mask && \
// RUN:   %python -m llmc_check expr "attention(q, k, v, mask=bm, causal=True, excluded_score=-3.4028234663852886e38)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg bm=%t/bm.npy --actual %t/$d/out1.npy --name $d-mask-causal && \
// RUN:   %python -m llmc_check expr "attention(q, k, v, mask=pad, causal=True, excluded_score=-3.4028234663852886e38)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg pad=%t/pad.npy --actual %t/$d/out2.npy --name $d-padding-causal; \
// RUN: done | FileCheck %s
// CHECK: tiles-mask: {{.*}} PASS
// CHECK: tiles-mask-causal: {{.*}} PASS
// CHECK: tiles-padding-causal: {{.*}} PASS
// CHECK: default-mask: {{.*}} PASS
// CHECK: default-mask-causal: {{.*}} PASS
// CHECK: default-padding-causal: {{.*}} PASS
// CHECK: mat-mask: {{.*}} PASS
// CHECK: mat-mask-causal: {{.*}} PASS
// CHECK: mat-padding-causal: {{.*}} PASS
//
// The fully excluded rows are the mean of the value rows left to them, and
// not 0 (what the op gives without excluded_score).
// RUN: %python -c "import numpy as np, sys; v = np.load(sys.argv[1]).astype(np.float64); o = np.load(sys.argv[2]); m = np.cumsum(np.repeat(v, 2, axis=1), axis=2) / np.arange(1, 38)[None, None, :, None]; err = np.abs(o[:, :, :10] - m[:, :, :10]).max(); print('padded rows: max |out - mean(v[0..i])| = %%.2e, max |out| = %%.2f' %% (err, np.abs(o[:, :, :10]).max())); assert err < 1e-5 and np.abs(o[:, :, :10]).max() > 0.1" %t/v.npy %t/tiles/out2.npy | FileCheck %s --check-prefix=MEAN
// MEAN: padded rows: max |out - mean(v[0..i])| = {{.*}}, max |out| =

func.func @main(%q: tensor<1x4x37x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x8xf32>,
                %bm: tensor<1x1x37x37xi1>, %pad: tensor<37xi1>)
    -> (tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>) {
  %0 = llm.attention %q, %k, %v mask %bm {excluded_score = -3.40282347E+38 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<1x1x37x37xi1>) -> tensor<1x4x37x8xf32>
  %1 = llm.attention %q, %k, %v mask %bm {causal, excluded_score = -3.40282347E+38 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<1x1x37x37xi1>) -> tensor<1x4x37x8xf32>
  %2 = llm.attention %q, %k, %v mask %pad {causal, excluded_score = -3.40282347E+38 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<37xi1>) -> tensor<1x4x37x8xf32>
  return %0, %1, %2 : tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>
}
