// Accuracy of long f32 reductions (llm.reduce_sum/reduce_mean, layer_norm,
// rms_norm accumulate in f64, see buildSumReduction in LLMToLinalg.cpp).
// Sequential f32 accumulation used to stop at 2^24: the sum of 2e7 ones gave
// 16777216, the sum of 2e7 x 0.1 stalled at 2097152, and the mean of a
// constant row of 4096 values differed from the constant, so layer_norm of a
// constant row returned (c - mean) / sqrt(eps) instead of the bias.
// Compared with the float64 numpy reference of llmc_ref (f32 tolerances,
// rtol 1e-5 + atol 1e-6), once with the default pipeline and once with --no-opt.
//
// RUN: rm -rf %t && mkdir -p %t/ones %t/tenth %t/tenth-noopt %t/mean %t/ln %t/ln-noopt %t/rms
// RUN: %python -m llmc_check gen %t "one=1xf32@np.ones(1)" "tenth=1xf32@np.full(1,0.1)" big=2x4096xf32:1000:1001 "rows=4x4096xf32@np.repeat(np.array([[0.1],[-3.7],[1000.3],[12345.678]]),4096,axis=1)" g=4096xf32 b=4096xf32

// 2e7 ones: exactly 20000000.
// RUN: llmc run %s --entry sum_ones --input arg0=%t/one.npy --output-dir %t/ones | FileCheck %s --check-prefix=ONES
// ONES: out0: tensor<f32> sum=20000000 mean_abs=20000000
// RUN: %python -m llmc_check expr "reduce_sum(broadcast_to(x, [20000000]), [0])" --arg x=%t/one.npy --actual %t/ones/out0.npy --name sum_ones | FileCheck %s --check-prefix=ONES_REF
// ONES_REF: sum_ones: shape [] dtype float32 {{.*}} PASS
func.func @sum_ones(%x: tensor<1xf32>) -> tensor<f32> {
  %b = llm.broadcast_to %x : (tensor<1xf32>) -> tensor<20000000xf32>
  %s = llm.reduce_sum %b {axes = array<i64: 0>} : (tensor<20000000xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// 2e7 x 0.1f = 2000000.0298 (f32(0.1) is 0.100000001490116).
// RUN: llmc run %s --entry sum_tenth --input arg0=%t/tenth.npy --output-dir %t/tenth
// RUN: %python -m llmc_check expr "reduce_sum(broadcast_to(x, [20000000]), [0])" --arg x=%t/tenth.npy --actual %t/tenth/out0.npy --name sum_tenth | FileCheck %s --check-prefix=TENTH
// TENTH: sum_tenth: shape [] dtype float32 {{.*}} PASS
// RUN: llmc run %s --no-opt --entry sum_tenth --input arg0=%t/tenth.npy --output-dir %t/tenth-noopt
// RUN: %python -m llmc_check expr "reduce_sum(broadcast_to(x, [20000000]), [0])" --arg x=%t/tenth.npy --actual %t/tenth-noopt/out0.npy --name sum_tenth_noopt | FileCheck %s --check-prefix=TENTH_NOOPT
// TENTH_NOOPT: sum_tenth_noopt: shape [] dtype float32 {{.*}} PASS
func.func @sum_tenth(%x: tensor<1xf32>) -> tensor<f32> {
  %b = llm.broadcast_to %x : (tensor<1xf32>) -> tensor<20000000xf32>
  %s = llm.reduce_sum %b {axes = array<i64: 0>} : (tensor<20000000xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// Mean of rows of values in [1000, 1001): the f32 sum (~4e6) loses the
// fraction bits.
// RUN: llmc run %s --entry mean_rows --input arg0=%t/big.npy --output-dir %t/mean
// RUN: %python -m llmc_check expr "reduce_mean(x, [1])" --arg x=%t/big.npy --actual %t/mean/out0.npy --name mean_rows | FileCheck %s --check-prefix=MEAN
// MEAN: mean_rows: shape [2] dtype float32 {{.*}} PASS
func.func @mean_rows(%x: tensor<2x4096xf32>) -> tensor<2xf32> {
  %m = llm.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x4096xf32>) -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// layer_norm of constant rows: the mean is the constant, the variance 0, and
// the result the bias.
// RUN: llmc run %s --entry ln_const --input arg0=%t/rows.npy --input arg1=%t/g.npy --input arg2=%t/b.npy --output-dir %t/ln
// RUN: %python -m llmc_check expr "layer_norm(x, g, b, axis=-1, epsilon=1e-5)" --arg x=%t/rows.npy --arg g=%t/g.npy --arg b=%t/b.npy --actual %t/ln/out0.npy --name ln_const | FileCheck %s --check-prefix=LN
// LN: ln_const: shape [4, 4096] dtype float32 {{.*}} PASS
// RUN: llmc run %s --no-opt --entry ln_const --input arg0=%t/rows.npy --input arg1=%t/g.npy --input arg2=%t/b.npy --output-dir %t/ln-noopt
// RUN: %python -m llmc_check expr "layer_norm(x, g, b, axis=-1, epsilon=1e-5)" --arg x=%t/rows.npy --arg g=%t/g.npy --arg b=%t/b.npy --actual %t/ln-noopt/out0.npy --name ln_const_noopt | FileCheck %s --check-prefix=LN_NOOPT
// LN_NOOPT: ln_const_noopt: shape [4, 4096] dtype float32 {{.*}} PASS
func.func @ln_const(%x: tensor<4x4096xf32>, %g: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4x4096xf32> {
  %y = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<4x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4x4096xf32>
  return %y : tensor<4x4096xf32>
}

// rms_norm of rows of large values: the mean square (~1e6) in f32 loses bits.
// RUN: llmc run %s --entry rms_rows --input arg0=%t/big.npy --input arg1=%t/g.npy --output-dir %t/rms
// RUN: %python -m llmc_check expr "rms_norm(x, w, epsilon=1e-6)" --arg x=%t/big.npy --arg w=%t/g.npy --actual %t/rms/out0.npy --name rms_rows | FileCheck %s --check-prefix=RMS
// RMS: rms_rows: shape [2, 4096] dtype float32 {{.*}} PASS
func.func @rms_rows(%x: tensor<2x4096xf32>, %w: tensor<4096xf32>) -> tensor<2x4096xf32> {
  %y = llm.rms_norm %x weight %w {epsilon = 1.0e-06 : f32} : (tensor<2x4096xf32>, tensor<4096xf32>) -> tensor<2x4096xf32>
  return %y : tensor<2x4096xf32>
}
