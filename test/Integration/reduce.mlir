// llm.reduce_sum, llm.reduce_mean and llm.reduce_max over one, several,
// negative and no axes, with and without keepdims, f16 (f32 accumulation) and
// bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/sum_keep %t/sum_all %t/mean_two %t/mean_neg_keep %t/max_last %t/max_keep %t/sum_none %t/sum_f16 %t/mean_f16 %t/mean_bf16
// RUN: %python -m llmc_check gen %t x=2x3x4xf32 big=2x512xf16:0:1 xb=3x64xbf16

// RUN: llmc run %s --entry sum_keep --input arg0=%t/x.npy --output-dir %t/sum_keep
// RUN: %python -m llmc_check expr "reduce_sum(x, [1], keepdims=True)" --arg x=%t/x.npy --actual %t/sum_keep/out0.npy --name sum_keep | FileCheck %s --check-prefix=SUM_KEEP
// SUM_KEEP: sum_keep: shape [2, 1, 4] dtype float32 {{.*}} PASS
func.func @sum_keep(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = llm.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// All axes without keepdims: a rank-0 result.
// RUN: llmc run %s --entry sum_all --input arg0=%t/x.npy --output-dir %t/sum_all
// RUN: %python -m llmc_check expr "reduce_sum(x, [0, 1, 2])" --arg x=%t/x.npy --actual %t/sum_all/out0.npy --name sum_all | FileCheck %s --check-prefix=SUM_ALL
// SUM_ALL: sum_all: shape [] dtype float32 {{.*}} PASS
func.func @sum_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = llm.reduce_sum %x {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// RUN: llmc run %s --entry mean_two --input arg0=%t/x.npy --output-dir %t/mean_two
// RUN: %python -m llmc_check expr "reduce_mean(x, [0, 2])" --arg x=%t/x.npy --actual %t/mean_two/out0.npy --name mean_two | FileCheck %s --check-prefix=MEAN_TWO
// MEAN_TWO: mean_two: shape [3] dtype float32 {{.*}} PASS
func.func @mean_two(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = llm.reduce_mean %x {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// RUN: llmc run %s --entry mean_neg_keep --input arg0=%t/x.npy --output-dir %t/mean_neg_keep
// RUN: %python -m llmc_check expr "reduce_mean(x, [-1, -3], keepdims=True)" --arg x=%t/x.npy --actual %t/mean_neg_keep/out0.npy --name mean_neg_keep | FileCheck %s --check-prefix=MEAN_NEG_KEEP
// MEAN_NEG_KEEP: mean_neg_keep: shape [1, 3, 1] dtype float32 {{.*}} PASS
func.func @mean_neg_keep(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = llm.reduce_mean %x {axes = array<i64: -1, -3>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// RUN: llmc run %s --entry max_last --input arg0=%t/x.npy --output-dir %t/max_last
// RUN: %python -m llmc_check expr "reduce_max(x, [-1])" --arg x=%t/x.npy --actual %t/max_last/out0.npy --name max_last | FileCheck %s --check-prefix=MAX_LAST
// MAX_LAST: max_last: shape [2, 3] dtype float32 {{.*}} PASS
func.func @max_last(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %0 = llm.reduce_max %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// RUN: llmc run %s --entry max_keep --input arg0=%t/x.npy --output-dir %t/max_keep
// RUN: %python -m llmc_check expr "reduce_max(x, [0], keepdims=True)" --arg x=%t/x.npy --actual %t/max_keep/out0.npy --name max_keep | FileCheck %s --check-prefix=MAX_KEEP
// MAX_KEEP: max_keep: shape [1, 3, 4] dtype float32 {{.*}} PASS
func.func @max_keep(%x: tensor<2x3x4xf32>) -> tensor<1x3x4xf32> {
  %0 = llm.reduce_max %x {axes = array<i64: 0>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// An empty axes list reduces nothing.
// RUN: llmc run %s --entry sum_none --input arg0=%t/x.npy --output-dir %t/sum_none
// RUN: %python -m llmc_check expr "reduce_sum(x, [])" --arg x=%t/x.npy --actual %t/sum_none/out0.npy --name sum_none | FileCheck %s --check-prefix=SUM_NONE
// SUM_NONE: sum_none: shape [2, 3, 4] dtype float32 {{.*}} PASS
func.func @sum_none(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = llm.reduce_sum %x {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// 512 values in [0, 1): an f16 accumulator would stall (ulp 0.25 at 256) and
// miss 2e-3 by far.
// RUN: llmc run %s --entry sum_f16 --input arg0=%t/big.npy --output-dir %t/sum_f16
// RUN: %python -m llmc_check expr "reduce_sum(big, [1])" --arg big=%t/big.npy --actual %t/sum_f16/out0.npy --dtype f16 --name sum_f16 | FileCheck %s --check-prefix=SUM_F16
// SUM_F16: sum_f16: shape [2] dtype float16 {{.*}} PASS
func.func @sum_f16(%x: tensor<2x512xf16>) -> tensor<2xf16> {
  %0 = llm.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x512xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// RUN: llmc run %s --entry mean_f16 --input arg0=%t/big.npy --output-dir %t/mean_f16
// RUN: %python -m llmc_check expr "reduce_mean(big, [-1], keepdims=True)" --arg big=%t/big.npy --actual %t/mean_f16/out0.npy --dtype f16 --name mean_f16 | FileCheck %s --check-prefix=MEAN_F16
// MEAN_F16: mean_f16: shape [2, 1] dtype float16 {{.*}} PASS
func.func @mean_f16(%x: tensor<2x512xf16>) -> tensor<2x1xf16> {
  %0 = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<2x512xf16>) -> tensor<2x1xf16>
  return %0 : tensor<2x1xf16>
}

// RUN: llmc run %s --entry mean_bf16 --input arg0=%t/xb.npy --output-dir %t/mean_bf16
// RUN: %python -m llmc_check expr "reduce_mean(xb, [1], dtype='bf16')" --arg xb=%t/xb.npy --actual %t/mean_bf16/out0.npy --dtype bf16 --name mean_bf16 | FileCheck %s --check-prefix=MEAN_BF16
// MEAN_BF16: mean_bf16: shape [3] dtype float32 {{.*}} PASS
func.func @mean_bf16(%x: tensor<3x64xf32>) -> tensor<3xf32> {
  %0 = llm.cast %x : (tensor<3x64xf32>) -> tensor<3x64xbf16>
  %1 = llm.reduce_mean %0 {axes = array<i64: 1>} : (tensor<3x64xbf16>) -> tensor<3xbf16>
  %2 = llm.cast %1 : (tensor<3xbf16>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
