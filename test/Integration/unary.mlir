// Elementwise unary ops and activations (neg, exp, log, tanh, erf, sqrt,
// rsqrt, reciprocal, sigmoid, relu, silu, gelu in both forms), f32/f16/bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/neg %t/exp %t/tanh %t/erf %t/reciprocal %t/sigmoid %t/relu %t/silu %t/log %t/sqrt %t/rsqrt %t/gelu %t/gelu_tanh %t/log_special %t/exp_f16 %t/silu_f16 %t/gelu_tanh_f16 %t/erf_f16 %t/sigmoid_bf16 %t/gelu_bf16 %t/rsqrt_bf16
// RUN: %python -m llmc_check gen %t x=4x8xf32 p=4x8xf32:0.05:5 w=4x8xf32:-6:6 'sp=4xf32@[0.0,-1.0,np.inf,1.0]' xh=4x8xf16 xb=4x8xbf16 pb=4x8xbf16:0.05:5

// RUN: llmc run %s --entry neg --input arg0=%t/x.npy --output-dir %t/neg
// RUN: %python -m llmc_check expr "neg(x)" --arg x=%t/x.npy --actual %t/neg/out0.npy --name neg | FileCheck %s --check-prefix=NEG
// NEG: neg: shape [4, 8] dtype float32 {{.*}} PASS
func.func @neg(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.neg %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry exp --input arg0=%t/x.npy --output-dir %t/exp
// RUN: %python -m llmc_check expr "exp(x)" --arg x=%t/x.npy --actual %t/exp/out0.npy --name exp | FileCheck %s --check-prefix=EXP
// EXP: exp: shape [4, 8] dtype float32 {{.*}} PASS
func.func @exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.exp %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry tanh --input arg0=%t/x.npy --output-dir %t/tanh
// RUN: %python -m llmc_check expr "tanh(x)" --arg x=%t/x.npy --actual %t/tanh/out0.npy --name tanh | FileCheck %s --check-prefix=TANH
// TANH: tanh: shape [4, 8] dtype float32 {{.*}} PASS
func.func @tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.tanh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry erf --input arg0=%t/x.npy --output-dir %t/erf
// RUN: %python -m llmc_check expr "erf(x)" --arg x=%t/x.npy --actual %t/erf/out0.npy --name erf | FileCheck %s --check-prefix=ERF
// ERF: erf: shape [4, 8] dtype float32 {{.*}} PASS
func.func @erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.erf %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry reciprocal --input arg0=%t/x.npy --output-dir %t/reciprocal
// RUN: %python -m llmc_check expr "reciprocal(x)" --arg x=%t/x.npy --actual %t/reciprocal/out0.npy --name reciprocal | FileCheck %s --check-prefix=RECIPROCAL
// RECIPROCAL: reciprocal: shape [4, 8] dtype float32 {{.*}} PASS
func.func @reciprocal(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.reciprocal %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry sigmoid --input arg0=%t/x.npy --output-dir %t/sigmoid
// RUN: %python -m llmc_check expr "sigmoid(x)" --arg x=%t/x.npy --actual %t/sigmoid/out0.npy --name sigmoid | FileCheck %s --check-prefix=SIGMOID
// SIGMOID: sigmoid: shape [4, 8] dtype float32 {{.*}} PASS
func.func @sigmoid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.sigmoid %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry relu --input arg0=%t/x.npy --output-dir %t/relu
// RUN: %python -m llmc_check expr "relu(x)" --arg x=%t/x.npy --actual %t/relu/out0.npy --name relu | FileCheck %s --check-prefix=RELU
// RELU: relu: shape [4, 8] dtype float32 {{.*}} PASS
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry silu --input arg0=%t/x.npy --output-dir %t/silu
// RUN: %python -m llmc_check expr "silu(x)" --arg x=%t/x.npy --actual %t/silu/out0.npy --name silu | FileCheck %s --check-prefix=SILU
// SILU: silu: shape [4, 8] dtype float32 {{.*}} PASS
func.func @silu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.silu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// Positive inputs in [0.05, 5).
// RUN: llmc run %s --entry log --input arg0=%t/p.npy --output-dir %t/log
// RUN: %python -m llmc_check expr "log(p)" --arg p=%t/p.npy --actual %t/log/out0.npy --name log | FileCheck %s --check-prefix=LOG
// LOG: log: shape [4, 8] dtype float32 {{.*}} PASS
func.func @log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.log %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry sqrt --input arg0=%t/p.npy --output-dir %t/sqrt
// RUN: %python -m llmc_check expr "sqrt(p)" --arg p=%t/p.npy --actual %t/sqrt/out0.npy --name sqrt | FileCheck %s --check-prefix=SQRT
// SQRT: sqrt: shape [4, 8] dtype float32 {{.*}} PASS
func.func @sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.sqrt %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry rsqrt --input arg0=%t/p.npy --output-dir %t/rsqrt
// RUN: %python -m llmc_check expr "rsqrt(p)" --arg p=%t/p.npy --actual %t/rsqrt/out0.npy --name rsqrt | FileCheck %s --check-prefix=RSQRT
// RSQRT: rsqrt: shape [4, 8] dtype float32 {{.*}} PASS
func.func @rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.rsqrt %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// erf form; inputs in [-6, 6) reach both tails.
// RUN: llmc run %s --entry gelu --input arg0=%t/w.npy --output-dir %t/gelu
// RUN: %python -m llmc_check expr "gelu(w)" --arg w=%t/w.npy --actual %t/gelu/out0.npy --name gelu | FileCheck %s --check-prefix=GELU
// GELU: gelu: shape [4, 8] dtype float32 {{.*}} PASS
func.func @gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.gelu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry gelu_tanh --input arg0=%t/w.npy --output-dir %t/gelu_tanh
// RUN: %python -m llmc_check expr "gelu(w, 'tanh')" --arg w=%t/w.npy --actual %t/gelu_tanh/out0.npy --name gelu_tanh | FileCheck %s --check-prefix=GELU_TANH
// GELU_TANH: gelu_tanh: shape [4, 8] dtype float32 {{.*}} PASS
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.gelu %x approximate <tanh> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// log(0) = -inf, log(-1) = NaN, log(inf) = inf.
// RUN: llmc run %s --entry log_special --input arg0=%t/sp.npy --output-dir %t/log_special
// RUN: %python -m llmc_check expr "log(sp)" --arg sp=%t/sp.npy --actual %t/log_special/out0.npy --name log_special | FileCheck %s --check-prefix=LOG_SPECIAL
// LOG_SPECIAL: log_special: shape [4] dtype float32 {{.*}} PASS
func.func @log_special(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.log %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: llmc run %s --entry exp_f16 --input arg0=%t/xh.npy --output-dir %t/exp_f16
// RUN: %python -m llmc_check expr "exp(xh)" --arg xh=%t/xh.npy --actual %t/exp_f16/out0.npy --dtype f16 --name exp_f16 | FileCheck %s --check-prefix=EXP_F16
// EXP_F16: exp_f16: shape [4, 8] dtype float16 {{.*}} PASS
func.func @exp_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = llm.exp %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// RUN: llmc run %s --entry silu_f16 --input arg0=%t/xh.npy --output-dir %t/silu_f16
// RUN: %python -m llmc_check expr "silu(xh)" --arg xh=%t/xh.npy --actual %t/silu_f16/out0.npy --dtype f16 --name silu_f16 | FileCheck %s --check-prefix=SILU_F16
// SILU_F16: silu_f16: shape [4, 8] dtype float16 {{.*}} PASS
func.func @silu_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = llm.silu %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// RUN: llmc run %s --entry gelu_tanh_f16 --input arg0=%t/xh.npy --output-dir %t/gelu_tanh_f16
// RUN: %python -m llmc_check expr "gelu(xh, 'tanh')" --arg xh=%t/xh.npy --actual %t/gelu_tanh_f16/out0.npy --dtype f16 --name gelu_tanh_f16 | FileCheck %s --check-prefix=GELU_TANH_F16
// GELU_TANH_F16: gelu_tanh_f16: shape [4, 8] dtype float16 {{.*}} PASS
func.func @gelu_tanh_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = llm.gelu %x approximate <tanh> : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// RUN: llmc run %s --entry erf_f16 --input arg0=%t/xh.npy --output-dir %t/erf_f16
// RUN: %python -m llmc_check expr "erf(xh)" --arg xh=%t/xh.npy --actual %t/erf_f16/out0.npy --dtype f16 --name erf_f16 | FileCheck %s --check-prefix=ERF_F16
// ERF_F16: erf_f16: shape [4, 8] dtype float16 {{.*}} PASS
func.func @erf_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = llm.erf %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// RUN: llmc run %s --entry sigmoid_bf16 --input arg0=%t/xb.npy --output-dir %t/sigmoid_bf16
// RUN: %python -m llmc_check expr "sigmoid(xb, dtype='bf16')" --arg xb=%t/xb.npy --actual %t/sigmoid_bf16/out0.npy --dtype bf16 --name sigmoid_bf16 | FileCheck %s --check-prefix=SIGMOID_BF16
// SIGMOID_BF16: sigmoid_bf16: shape [4, 8] dtype float32 {{.*}} PASS
func.func @sigmoid_bf16(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.cast %x : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %1 = llm.sigmoid %0 : tensor<4x8xbf16>
  %2 = llm.cast %1 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry gelu_bf16 --input arg0=%t/xb.npy --output-dir %t/gelu_bf16
// RUN: %python -m llmc_check expr "gelu(xb, dtype='bf16')" --arg xb=%t/xb.npy --actual %t/gelu_bf16/out0.npy --dtype bf16 --name gelu_bf16 | FileCheck %s --check-prefix=GELU_BF16
// GELU_BF16: gelu_bf16: shape [4, 8] dtype float32 {{.*}} PASS
func.func @gelu_bf16(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.cast %x : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %1 = llm.gelu %0 : tensor<4x8xbf16>
  %2 = llm.cast %1 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// RUN: llmc run %s --entry rsqrt_bf16 --input arg0=%t/pb.npy --output-dir %t/rsqrt_bf16
// RUN: %python -m llmc_check expr "rsqrt(pb, dtype='bf16')" --arg pb=%t/pb.npy --actual %t/rsqrt_bf16/out0.npy --dtype bf16 --name rsqrt_bf16 | FileCheck %s --check-prefix=RSQRT_BF16
// RSQRT_BF16: rsqrt_bf16: shape [4, 8] dtype float32 {{.*}} PASS
func.func @rsqrt_bf16(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.cast %x : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %1 = llm.rsqrt %0 : tensor<4x8xbf16>
  %2 = llm.cast %1 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
