// llm.abs, llm.floor, llm.ceil, llm.round (halves to even) and llm.sin /
// llm.cos, executed on the CPU (fused into one kernel, and unfused with
// --no-opt) and compared with the numpy reference of test/lib/llmc_ref.py:
// the rounding ops exactly (halves, negative halves, +-0, +-inf and NaN
// included), sin/cos with f32 tolerance (rtol 1e-5, atol 1e-6) on
// [-20, 20]; a bf16 round through f32.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t r=2x8xf32@"np.array([[0.5, 1.5, 2.5, -0.5, -1.5, -2.49, 2.51, -0.0], [np.inf, -np.inf, np.nan, 1e9 + 0.5, -7.25, 3.0, 0.49999997, -3.5]])" t=3x5xf32:-20:20 h=2x4xbf16@"np.array([[0.5, 1.5, -2.5, 3.25], [-0.75, 8.5, -9.5, 0.0]])"
// RUN: llmc run %s --entry rounding --input arg0=%t/r.npy --output-dir %t/rounding
// RUN: llmc run %s --entry rounding --input arg0=%t/r.npy --output-dir %t/rounding-noopt --no-opt
// RUN: %python -m llmc_check expr "round(r)" --arg r=%t/r.npy --actual %t/rounding/out0.npy --dtype exact --name round | FileCheck %s --check-prefix=ROUND
// RUN: %python -m llmc_check expr "floor(r)" --arg r=%t/r.npy --actual %t/rounding/out1.npy --dtype exact --name floor | FileCheck %s --check-prefix=FLOOR
// RUN: %python -m llmc_check expr "ceil(r)" --arg r=%t/r.npy --actual %t/rounding/out2.npy --dtype exact --name ceil | FileCheck %s --check-prefix=CEIL
// RUN: %python -m llmc_check expr "abs(r)" --arg r=%t/r.npy --actual %t/rounding/out3.npy --dtype exact --name abs | FileCheck %s --check-prefix=ABS
// RUN: %python -m llmc_check expr "round(r)" --arg r=%t/r.npy --actual %t/rounding-noopt/out0.npy --dtype exact --name round | FileCheck %s --check-prefix=ROUND
// ROUND: round: shape [2, 8] dtype float32 {{.*}} PASS
// FLOOR: floor: shape [2, 8] dtype float32 {{.*}} PASS
// CEIL: ceil: shape [2, 8] dtype float32 {{.*}} PASS
// ABS: abs: shape [2, 8] dtype float32 {{.*}} PASS
func.func @rounding(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %r = llm.round %x : tensor<2x8xf32>
  %f = llm.floor %x : tensor<2x8xf32>
  %c = llm.ceil %x : tensor<2x8xf32>
  %a = llm.abs %x : tensor<2x8xf32>
  return %r, %f, %c, %a : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// sin(x) * cos(x) + cos(2x): one fused kernel.
// RUN: llmc run %s --entry trig --input arg0=%t/t.npy --output-dir %t/trig
// RUN: %python -m llmc_check expr "sin(t) * cos(t) + cos(t * 2)" --arg t=%t/t.npy --actual %t/trig/out0.npy --rtol 1e-5 --atol 1e-6 --name trig | FileCheck %s --check-prefix=TRIG
// TRIG: trig: shape [3, 5] dtype float32 {{.*}} PASS
func.func @trig(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %s = llm.sin %x : tensor<3x5xf32>
  %c = llm.cos %x : tensor<3x5xf32>
  %p = llm.mul %s, %c : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %two = llm.constant dense<2.0> : tensor<f32>
  %x2 = llm.mul %x, %two : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %c2 = llm.cos %x2 : tensor<3x5xf32>
  %r = llm.add %p, %c2 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// bf16 halves round to even after the f32 round trip.
// RUN: llmc run %s --entry round_bf16 --input arg0=%t/h.npy --output-dir %t/round_bf16
// RUN: %python -m llmc_check expr "round(h)" --arg h=%t/h.npy --actual %t/round_bf16/out0.npy --dtype exact --name round_bf16 | FileCheck %s --check-prefix=BF16
// BF16: round_bf16: shape [2, 4] dtype {{.*}} PASS
func.func @round_bf16(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %r = llm.round %x : tensor<2x4xbf16>
  return %r : tensor<2x4xbf16>
}
