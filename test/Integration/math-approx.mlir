// llm-approximate-math (on by default in llm-lower-to-cpu): the polynomial
// approximations of f32 exp, tanh and erf against numpy over their whole
// useful range, at the special values (+-inf, 0, NaN, the overflow and
// underflow edges of exp); log (left to libm: the approximation flushes
// subnormals, log(1e-38) was off by 0.16) stays checked at subnormals, on shapes whose loops LLVM vectorizes (rows of
// 67: a vector body and a scalar remainder). Tolerances: llmc_check's f32
// (rtol 1e-5 + atol 1e-6).
//
// RUN: rm -rf %t && mkdir -p %t/exp %t/exp_sp %t/tanh %t/tanh_sp %t/erf %t/log %t/log_sp %t/softmax
// RUN: %python -m llmc_check gen %t e=3x67xf32:-100:100 t=3x67xf32:-12:12 f=3x67xf32:-5:5 p=3x67xf32:1e-6:1e6 s=3x67xf32:-30:30 'es=10xf32@[-np.inf,np.inf,0.0,-87.0,-88.5,-103.0,88.0,88.8,np.nan,1e-8]' 'ts=8xf32@[-np.inf,np.inf,0.0,-0.0,1e-7,-9.0,9.5,np.nan]' 'ls=6xf32@[0.0,np.inf,1.0,1e-38,3e38,np.nan]'

// RUN: llmc run %s --entry exp --input arg0=%t/e.npy --output-dir %t/exp
// RUN: %python -m llmc_check expr "exp(e)" --arg e=%t/e.npy --actual %t/exp/out0.npy --name exp | FileCheck %s --check-prefix=EXP
// EXP: exp: shape [3, 67] dtype float32 {{.*}} PASS
func.func @exp(%x: tensor<3x67xf32>) -> tensor<3x67xf32> {
  %0 = llm.exp %x : tensor<3x67xf32>
  return %0 : tensor<3x67xf32>
}

// RUN: llmc run %s --entry exp_sp --input arg0=%t/es.npy --output-dir %t/exp_sp
// RUN: %python -m llmc_check expr "exp(es)" --arg es=%t/es.npy --actual %t/exp_sp/out0.npy --name exp_sp | FileCheck %s --check-prefix=EXP_SP
// EXP_SP: exp_sp: shape [10] dtype float32 {{.*}} PASS
func.func @exp_sp(%x: tensor<10xf32>) -> tensor<10xf32> {
  %0 = llm.exp %x : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// RUN: llmc run %s --entry tanh --input arg0=%t/t.npy --output-dir %t/tanh
// RUN: %python -m llmc_check expr "tanh(t)" --arg t=%t/t.npy --actual %t/tanh/out0.npy --name tanh | FileCheck %s --check-prefix=TANH
// TANH: tanh: shape [3, 67] dtype float32 {{.*}} PASS
func.func @tanh(%x: tensor<3x67xf32>) -> tensor<3x67xf32> {
  %0 = llm.tanh %x : tensor<3x67xf32>
  return %0 : tensor<3x67xf32>
}

// RUN: llmc run %s --entry tanh_sp --input arg0=%t/ts.npy --output-dir %t/tanh_sp
// RUN: %python -m llmc_check expr "tanh(ts)" --arg ts=%t/ts.npy --actual %t/tanh_sp/out0.npy --name tanh_sp | FileCheck %s --check-prefix=TANH_SP
// TANH_SP: tanh_sp: shape [8] dtype float32 {{.*}} PASS
func.func @tanh_sp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = llm.tanh %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// RUN: llmc run %s --entry erf --input arg0=%t/f.npy --output-dir %t/erf
// RUN: %python -m llmc_check expr "erf(f)" --arg f=%t/f.npy --actual %t/erf/out0.npy --name erf | FileCheck %s --check-prefix=ERF
// ERF: erf: shape [3, 67] dtype float32 {{.*}} PASS
func.func @erf(%x: tensor<3x67xf32>) -> tensor<3x67xf32> {
  %0 = llm.erf %x : tensor<3x67xf32>
  return %0 : tensor<3x67xf32>
}

// RUN: llmc run %s --entry log --input arg0=%t/p.npy --output-dir %t/log
// RUN: %python -m llmc_check expr "log(p)" --arg p=%t/p.npy --actual %t/log/out0.npy --name log | FileCheck %s --check-prefix=LOG
// LOG: log: shape [3, 67] dtype float32 {{.*}} PASS
func.func @log(%x: tensor<3x67xf32>) -> tensor<3x67xf32> {
  %0 = llm.log %x : tensor<3x67xf32>
  return %0 : tensor<3x67xf32>
}

// RUN: llmc run %s --entry log_sp --input arg0=%t/ls.npy --output-dir %t/log_sp
// RUN: %python -m llmc_check expr "log(ls)" --arg ls=%t/ls.npy --actual %t/log_sp/out0.npy --name log_sp | FileCheck %s --check-prefix=LOG_SP
// LOG_SP: log_sp: shape [6] dtype float32 {{.*}} PASS
func.func @log_sp(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = llm.log %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// Softmax rows of 67 with logits up to +-30 (exp of large negative shifts).
// RUN: llmc run %s --entry softmax --input arg0=%t/s.npy --output-dir %t/softmax
// RUN: %python -m llmc_check expr "softmax(s)" --arg s=%t/s.npy --actual %t/softmax/out0.npy --name softmax | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: softmax: shape [3, 67] dtype float32 {{.*}} PASS
func.func @softmax(%x: tensor<3x67xf32>) -> tensor<3x67xf32> {
  %0 = llm.softmax %x {axis = -1 : i64} : tensor<3x67xf32>
  return %0 : tensor<3x67xf32>
}
