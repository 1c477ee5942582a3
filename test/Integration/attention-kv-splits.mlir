// The flash lowering with its key/value sequence in parts (`kv_splits` in
// the lowering configuration; flash-decoding: llm-select-gpu-lowering-config
// sets it for a GPU's decode steps), each part's partial softmax results
// combined afterwards, against the numpy reference of test/lib/llmc_ref.py
// and against the unsplit lowering:
// out0: decode (Sq 1, Skv 512, 8 parts of one 64-row tile each), causal,
// GQA (Hq 4, Hkv 2), bhsd; out1: the same with kv_length 100 (parts 2..7
// see no key and weigh 0); out2: decode bshd, 3 parts of 3, 3 and 2 tiles
// of 16 (Skv 130: a partial last tile), f16; out3: a boolean mask with the
// whole first half of the keys masked (the first parts see no allowed
// column); out4: Sq 4 (one query tile of 4 rows), causal, 4 parts.
// Tolerances: f32 rtol 1e-5 + atol 1e-6 (llmc_check.py); f16 5e-3; the
// split and unsplit lowerings agree at rtol 1e-5 (f32).
//
// RUN: rm -rf %t && mkdir -p %t/split %t/whole
// RUN: %python -m llmc_check gen %t q=1x4x1x16xf32 k=1x2x512x16xf32 v=1x2x512x8xf32 'len=xi64@np.int64(100)' hq=1x1x2x32xf16 hk=1x130x1x32xf16 hv=1x130x1x32xf16 'bm=512xi1@np.arange(512) >= 256' q4=1x2x4x16xf32
// RUN: llmc run %s --entry cases --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/len.npy --input arg4=%t/hq.npy --input arg5=%t/hk.npy --input arg6=%t/hv.npy --input arg7=%t/bm.npy --input arg8=%t/q4.npy --output-dir %t/split > /dev/null
// RUN: sed -e 's/, kv_splits = [0-9]*//' %s > %t/whole.mlir
// RUN: llmc run %t/whole.mlir --entry cases --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/len.npy --input arg4=%t/hq.npy --input arg5=%t/hk.npy --input arg6=%t/hv.npy --input arg7=%t/bm.npy --input arg8=%t/q4.npy --output-dir %t/whole > /dev/null
//
// RUN: %python -m llmc_check expr "attention(q, k, v, causal=True)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/split/out0.npy --name split_decode | FileCheck %s --check-prefix=CHECK0
// CHECK0: split_decode: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, causal=True, kv_length=len)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg len=%t/len.npy --actual %t/split/out1.npy --name split_kv_length | FileCheck %s --check-prefix=CHECK1
// CHECK1: split_kv_length: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(hq.transpose(0, 2, 1, 3), hk.transpose(0, 2, 1, 3), hv.transpose(0, 2, 1, 3), causal=True).transpose(0, 2, 1, 3)" --arg hq=%t/hq.npy --arg hk=%t/hk.npy --arg hv=%t/hv.npy --actual %t/split/out2.npy --rtol 5e-3 --name split_bshd_f16 | FileCheck %s --check-prefix=CHECK2
// CHECK2: split_bshd_f16: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q, k, v, mask=bm)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --arg bm=%t/bm.npy --actual %t/split/out3.npy --name split_mask | FileCheck %s --check-prefix=CHECK3
// CHECK3: split_mask: {{.*}} PASS
// RUN: %python -m llmc_check expr "attention(q4, k, v, causal=True)" --arg q4=%t/q4.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/split/out4.npy --name split_rows | FileCheck %s --check-prefix=CHECK4
// CHECK4: split_rows: {{.*}} PASS
// RUN: %python -m llmc_check expr "whole" --arg whole=%t/whole/out0.npy --actual %t/split/out0.npy --rtol 1e-5 --name agree_decode | FileCheck %s --check-prefix=AGREE0
// AGREE0: agree_decode: {{.*}} PASS
// RUN: %python -m llmc_check expr "whole" --arg whole=%t/whole/out1.npy --actual %t/split/out1.npy --rtol 1e-5 --name agree_kv_length | FileCheck %s --check-prefix=AGREE1
// AGREE1: agree_kv_length: {{.*}} PASS
// RUN: %python -m llmc_check expr "whole" --arg whole=%t/whole/out3.npy --actual %t/split/out3.npy --rtol 1e-5 --name agree_mask | FileCheck %s --check-prefix=AGREE3
// AGREE3: agree_mask: {{.*}} PASS
func.func @cases(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x512x16xf32>, %v: tensor<1x2x512x8xf32>, %len: tensor<i64>, %hq: tensor<1x1x2x32xf16>, %hk: tensor<1x130x1x32xf16>, %hv: tensor<1x130x1x32xf16>, %bm: tensor<512xi1>, %q4: tensor<1x2x4x16xf32>) -> (tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>, tensor<1x1x2x32xf16>, tensor<1x4x1x8xf32>, tensor<1x2x4x8xf32>) {
  %0 = llm.attention %q, %k, %v {causal, llm.lowering_config = {attention_tile = array<i64: 1, 64>, kv_splits = 8}} : (tensor<1x4x1x16xf32>, tensor<1x2x512x16xf32>, tensor<1x2x512x8xf32>) -> tensor<1x4x1x8xf32>
  %1 = llm.attention %q, %k, %v kv_length %len {causal, llm.lowering_config = {attention_tile = array<i64: 1, 64>, kv_splits = 8}} : (tensor<1x4x1x16xf32>, tensor<1x2x512x16xf32>, tensor<1x2x512x8xf32>, tensor<i64>) -> tensor<1x4x1x8xf32>
  %2 = llm.attention %hq, %hk, %hv {causal, layout = #llm.attention_layout<bshd>, llm.lowering_config = {attention_tile = array<i64: 1, 16>, kv_splits = 3}} : (tensor<1x1x2x32xf16>, tensor<1x130x1x32xf16>, tensor<1x130x1x32xf16>) -> tensor<1x1x2x32xf16>
  %3 = llm.attention %q, %k, %v mask %bm {llm.lowering_config = {attention_tile = array<i64: 1, 64>, kv_splits = 8}} : (tensor<1x4x1x16xf32>, tensor<1x2x512x16xf32>, tensor<1x2x512x8xf32>, tensor<512xi1>) -> tensor<1x4x1x8xf32>
  %4 = llm.attention %q4, %k, %v {causal, llm.lowering_config = {attention_tile = array<i64: 4, 32>, kv_splits = 4}} : (tensor<1x2x4x16xf32>, tensor<1x2x512x16xf32>, tensor<1x2x512x8xf32>) -> tensor<1x2x4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>, tensor<1x1x2x32xf16>, tensor<1x4x1x8xf32>, tensor<1x2x4x8xf32>
}
