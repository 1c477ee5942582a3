// llm.attention with `softcap` c (Gemma 2's attention-logit soft-capping,
// what llm-recompose makes of tanh(s / c) * c): the scaled scores become
// c * tanh(scale * q.k / c) before the mask. Compared with the numpy
// reference of test/lib/llmc_ref.py (softcap=c) in three lowerings:
//   * `tiles`: flash with attention-tile=8,16 (S=37: partial query and key
//     tiles, the shifted-back overlap dropped, causal skipping key tiles);
//   * `default`: flash with the host target's tile;
//   * `mat`: attention=materialized.
// Cases (scores of magnitude up to ~20, so that the cap changes them):
// out0: c = 5, scale 1, causal, GQA (Hq 4, Hkv 2); out1: c = 30 (Gemma 2's
// value for 9B/27B is 50) with scale 0.25 and an additive float mask;
// out2: c = 5 with an i1 mask and an excluded_score, which is not capped
// (rows 5 and 36 exclude every key: the mean of the values).
// Tolerances (llmc_check.py): f32 rtol 1e-5 + atol 1e-6.
//
// RUN: rm -rf %t && mkdir -p %t/tiles %t/default %t/mat
// RUN: %python -m llmc_check gen %t 'q=1x4x37x16xf32@np.random.default_rng(3).standard_normal((1,4,37,16))' 'k=1x2x37x16xf32@np.random.default_rng(4).standard_normal((1,2,37,16))' v=1x2x37x8xf32 'fm=1x1x37x37xf32@np.where(np.random.default_rng(6).random((1,1,37,37)) < 0.3, -1e4, 0.0)' 'bm=1x1x37x37xi1@(np.random.default_rng(5).random((1,1,37,37)) < 0.6) & ~np.isin(np.arange(37), [5, 36])[:, None]'
// RUN: llmc run %s --pipeline-options "attention-tile=8,16" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/fm.npy --input arg4=%t/bm.npy --output-dir %t/tiles > /dev/null
// RUN: llmc run %s --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/fm.npy --input arg4=%t/bm.npy --output-dir %t/default > /dev/null
// RUN: llmc run %s --pipeline-options "attention=materialized" --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/fm.npy --input arg4=%t/bm.npy --output-dir %t/mat > /dev/null
// RUN: for d in tiles default mat; do \
// RUN:   %python -m llmc_check expr "attention(q, k, v, causal=True, scale=1.0, softcap=5.0)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/$d/out0.npy --name $d-causal && \
// RUN:   %python -m llmc_check expr "attention(q, k, v, mask=fm, scale=0.25, softcap=30.0)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg fm=%t/fm.npy --actual %t/$d/out1.npy --name $d-float-mask && \
// RUN:   %python -m llmc_check expr "attention(q, k, v, mask=bm, scale=1.0, softcap=5.0, excluded_score=-100.0)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg bm=%t/bm.npy --actual %t/$d/out2.npy --name $d-excluded; \
// RUN: done | FileCheck %s
// CHECK: tiles-causal: {{.*}} PASS
// CHECK: tiles-float-mask: {{.*}} PASS
// CHECK: tiles-excluded: {{.*}} PASS
// CHECK: default-causal: {{.*}} PASS
// CHECK: default-float-mask: {{.*}} PASS
// CHECK: default-excluded: {{.*}} PASS
// CHECK: mat-causal: {{.*}} PASS
// CHECK: mat-float-mask: {{.*}} PASS
// CHECK: mat-excluded: {{.*}} PASS
//
// The cap matters here: without it the first case differs from the
// reference by far more than the tolerance (so a lowering that ignored
// softcap could not pass).
// RUN: %python -c "import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import llmc_ref as R; q, k, v = (np.load(f) for f in sys.argv[2:5]); d = np.abs(R.attention(q, k, v, causal=True, scale=1.0, softcap=5.0) - R.attention(q, k, v, causal=True, scale=1.0)).max(); print('capped vs uncapped: %%.2f' %% d); assert d > 0.1" %S/../lib %t/q.npy %t/k.npy %t/v.npy | FileCheck %s --check-prefix=CAP
// CAP: capped vs uncapped:

func.func @main(%q: tensor<1x4x37x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x8xf32>,
                %fm: tensor<1x1x37x37xf32>, %bm: tensor<1x1x37x37xi1>)
    -> (tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>) {
  %0 = llm.attention %q, %k, %v {causal, scale = 1.0 : f32, softcap = 5.0 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>) -> tensor<1x4x37x8xf32>
  %1 = llm.attention %q, %k, %v mask %fm {scale = 0.25 : f32, softcap = 30.0 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<1x1x37x37xf32>) -> tensor<1x4x37x8xf32>
  %2 = llm.attention %q, %k, %v mask %bm {scale = 1.0 : f32, softcap = 5.0 : f32, excluded_score = -100.0 : f32}
      : (tensor<1x4x37x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x8xf32>, tensor<1x1x37x37xi1>) -> tensor<1x4x37x8xf32>
  return %0, %1, %2 : tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>, tensor<1x4x37x8xf32>
}
