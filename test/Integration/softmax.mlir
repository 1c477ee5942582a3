// llm.softmax along the last, first and a middle axis, with large logits
// (stability), f16 and bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/softmax_last %t/softmax_axis0 %t/softmax_axis1 %t/softmax_big %t/softmax_f16 %t/softmax_bf16
// RUN: %python -m llmc_check gen %t x=3x7xf32 y=4x5xf32 z=2x6x3xf32 big=3x7xf32:-100:100 h=3x7xf16:-8:8 g=3x7xbf16

// RUN: llmc run %s --entry softmax_last --input arg0=%t/x.npy --output-dir %t/softmax_last
// RUN: %python -m llmc_check expr "softmax(x)" --arg x=%t/x.npy --actual %t/softmax_last/out0.npy --name softmax_last | FileCheck %s --check-prefix=SOFTMAX_LAST
// SOFTMAX_LAST: softmax_last: shape [3, 7] dtype float32 {{.*}} PASS
func.func @softmax_last(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = llm.softmax %x {axis = -1 : i64} : tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// RUN: llmc run %s --entry softmax_axis0 --input arg0=%t/y.npy --output-dir %t/softmax_axis0
// RUN: %python -m llmc_check expr "softmax(y, axis=0)" --arg y=%t/y.npy --actual %t/softmax_axis0/out0.npy --name softmax_axis0 | FileCheck %s --check-prefix=SOFTMAX_AXIS0
// SOFTMAX_AXIS0: softmax_axis0: shape [4, 5] dtype float32 {{.*}} PASS
func.func @softmax_axis0(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = llm.softmax %x {axis = 0 : i64} : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// RUN: llmc run %s --entry softmax_axis1 --input arg0=%t/z.npy --output-dir %t/softmax_axis1
// RUN: %python -m llmc_check expr "softmax(z, axis=1)" --arg z=%t/z.npy --actual %t/softmax_axis1/out0.npy --name softmax_axis1 | FileCheck %s --check-prefix=SOFTMAX_AXIS1
// SOFTMAX_AXIS1: softmax_axis1: shape [2, 6, 3] dtype float32 {{.*}} PASS
func.func @softmax_axis1(%x: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %0 = llm.softmax %x {axis = 1 : i64} : tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}

// Logits up to +-100: exp overflows unless the max is subtracted.
// RUN: llmc run %s --entry softmax_big --input arg0=%t/big.npy --output-dir %t/softmax_big
// RUN: %python -m llmc_check expr "softmax(big)" --arg big=%t/big.npy --actual %t/softmax_big/out0.npy --name softmax_big | FileCheck %s --check-prefix=SOFTMAX_BIG
// SOFTMAX_BIG: softmax_big: shape [3, 7] dtype float32 {{.*}} PASS
func.func @softmax_big(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = llm.softmax %x {axis = 1 : i64} : tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// RUN: llmc run %s --entry softmax_f16 --input arg0=%t/h.npy --output-dir %t/softmax_f16
// RUN: %python -m llmc_check expr "softmax(h)" --arg h=%t/h.npy --actual %t/softmax_f16/out0.npy --dtype f16 --name softmax_f16 | FileCheck %s --check-prefix=SOFTMAX_F16
// SOFTMAX_F16: softmax_f16: shape [3, 7] dtype float16 {{.*}} PASS
func.func @softmax_f16(%x: tensor<3x7xf16>) -> tensor<3x7xf16> {
  %0 = llm.softmax %x {axis = -1 : i64} : tensor<3x7xf16>
  return %0 : tensor<3x7xf16>
}

// RUN: llmc run %s --entry softmax_bf16 --input arg0=%t/g.npy --output-dir %t/softmax_bf16
// RUN: %python -m llmc_check expr "softmax(g, dtype='bf16')" --arg g=%t/g.npy --actual %t/softmax_bf16/out0.npy --dtype bf16 --name softmax_bf16 | FileCheck %s --check-prefix=SOFTMAX_BF16
// SOFTMAX_BF16: softmax_bf16: shape [3, 7] dtype float32 {{.*}} PASS
func.func @softmax_bf16(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = llm.cast %x : (tensor<3x7xf32>) -> tensor<3x7xbf16>
  %1 = llm.softmax %0 {axis = -1 : i64} : tensor<3x7xbf16>
  %2 = llm.cast %1 : (tensor<3x7xbf16>) -> tensor<3x7xf32>
  return %2 : tensor<3x7xf32>
}
