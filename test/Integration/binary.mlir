// Elementwise binary ops (add, sub, mul, div, pow, max, min) with numpy
// broadcasting, f32/f16/bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/add %t/sub %t/mul %t/div %t/pow %t/max %t/min %t/max_nan %t/min_nan %t/add_f16 %t/div_f16 %t/mul_bf16 %t/sub_bf16
// RUN: %python -m llmc_check gen %t a=2x3x4xf32 b=4xf32 c=3x1xf32 d=1x4xf32 e=2x1x4xf32 pos=3x4xf32:0.2:3 den=3x4xf32:0.5:2 ex=3x4xf32:-2:2 'nan=4xf32@[np.nan,1.0,-2.0,np.nan]' 'nan2=4xf32@[0.0,np.nan,3.0,np.nan]' h=2x3xf16 hb=3xf16 g=2x3xbf16 gb=3xbf16

// Trailing-dimension broadcast.
// RUN: llmc run %s --entry add --input arg0=%t/a.npy --input arg1=%t/b.npy --output-dir %t/add
// RUN: %python -m llmc_check expr "add(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/add/out0.npy --name add | FileCheck %s --check-prefix=ADD
// ADD: add: shape [2, 3, 4] dtype float32 {{.*}} PASS
func.func @add(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = llm.add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// Both operands broadcast (3x1 - 1x4).
// RUN: llmc run %s --entry sub --input arg0=%t/c.npy --input arg1=%t/d.npy --output-dir %t/sub
// RUN: %python -m llmc_check expr "sub(c, d)" --arg c=%t/c.npy --arg d=%t/d.npy --actual %t/sub/out0.npy --name sub | FileCheck %s --check-prefix=SUB
// SUB: sub: shape [3, 4] dtype float32 {{.*}} PASS
func.func @sub(%a: tensor<3x1xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = llm.sub %a, %b : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// Ranks differ and both broadcast.
// RUN: llmc run %s --entry mul --input arg0=%t/e.npy --input arg1=%t/c.npy --output-dir %t/mul
// RUN: %python -m llmc_check expr "mul(e, c)" --arg c=%t/c.npy --arg e=%t/e.npy --actual %t/mul/out0.npy --name mul | FileCheck %s --check-prefix=MUL
// MUL: mul: shape [2, 3, 4] dtype float32 {{.*}} PASS
func.func @mul(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = llm.mul %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// RUN: llmc run %s --entry div --input arg0=%t/ex.npy --input arg1=%t/den.npy --output-dir %t/div
// RUN: %python -m llmc_check expr "div(ex, den)" --arg den=%t/den.npy --arg ex=%t/ex.npy --actual %t/div/out0.npy --name div | FileCheck %s --check-prefix=DIV
// DIV: div: shape [3, 4] dtype float32 {{.*}} PASS
func.func @div(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = llm.div %a, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// RUN: llmc run %s --entry pow --input arg0=%t/pos.npy --input arg1=%t/ex.npy --output-dir %t/pow
// RUN: %python -m llmc_check expr "pow(pos, ex)" --arg ex=%t/ex.npy --arg pos=%t/pos.npy --actual %t/pow/out0.npy --name pow | FileCheck %s --check-prefix=POW
// POW: pow: shape [3, 4] dtype float32 {{.*}} PASS
func.func @pow(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = llm.pow %a, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// RUN: llmc run %s --entry max --input arg0=%t/ex.npy --input arg1=%t/d.npy --output-dir %t/max
// RUN: %python -m llmc_check expr "max(ex, d)" --arg d=%t/d.npy --arg ex=%t/ex.npy --actual %t/max/out0.npy --name max | FileCheck %s --check-prefix=MAX
// MAX: max: shape [3, 4] dtype float32 {{.*}} PASS
func.func @max(%a: tensor<3x4xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = llm.max %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// RUN: llmc run %s --entry min --input arg0=%t/ex.npy --input arg1=%t/b.npy --output-dir %t/min
// RUN: %python -m llmc_check expr "min(ex, b)" --arg b=%t/b.npy --arg ex=%t/ex.npy --actual %t/min/out0.npy --name min | FileCheck %s --check-prefix=MIN
// MIN: min: shape [3, 4] dtype float32 {{.*}} PASS
func.func @min(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = llm.min %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// NaN-propagating: every lane with a NaN operand gives NaN.
// RUN: llmc run %s --entry max_nan --input arg0=%t/nan.npy --input arg1=%t/nan2.npy --output-dir %t/max_nan
// RUN: %python -m llmc_check expr "max(nan, nan2)" --arg nan=%t/nan.npy --arg nan2=%t/nan2.npy --actual %t/max_nan/out0.npy --name max_nan | FileCheck %s --check-prefix=MAX_NAN
// MAX_NAN: max_nan: shape [4] dtype float32 {{.*}} PASS
func.func @max_nan(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: llmc run %s --entry min_nan --input arg0=%t/nan.npy --input arg1=%t/nan2.npy --output-dir %t/min_nan
// RUN: %python -m llmc_check expr "min(nan, nan2)" --arg nan=%t/nan.npy --arg nan2=%t/nan2.npy --actual %t/min_nan/out0.npy --name min_nan | FileCheck %s --check-prefix=MIN_NAN
// MIN_NAN: min_nan: shape [4] dtype float32 {{.*}} PASS
func.func @min_nan(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.min %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: llmc run %s --entry add_f16 --input arg0=%t/h.npy --input arg1=%t/hb.npy --output-dir %t/add_f16
// RUN: %python -m llmc_check expr "add(h, hb)" --arg h=%t/h.npy --arg hb=%t/hb.npy --actual %t/add_f16/out0.npy --dtype f16 --name add_f16 | FileCheck %s --check-prefix=ADD_F16
// ADD_F16: add_f16: shape [2, 3] dtype float16 {{.*}} PASS
func.func @add_f16(%a: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = llm.add %a, %b : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// Quotients by values near 0 are large: atol 1e-2 (still 2e-3 relative).
// RUN: llmc run %s --entry div_f16 --input arg0=%t/h.npy --input arg1=%t/hb.npy --output-dir %t/div_f16
// RUN: %python -m llmc_check expr "div(h, hb)" --arg h=%t/h.npy --arg hb=%t/hb.npy --actual %t/div_f16/out0.npy --dtype f16 --atol 0.01 --name div_f16 | FileCheck %s --check-prefix=DIV_F16
// DIV_F16: div_f16: shape [2, 3] dtype float16 {{.*}} PASS
func.func @div_f16(%a: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = llm.div %a, %b : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// RUN: llmc run %s --entry mul_bf16 --input arg0=%t/g.npy --input arg1=%t/gb.npy --output-dir %t/mul_bf16
// RUN: %python -m llmc_check expr "mul(g, gb, dtype='bf16')" --arg g=%t/g.npy --arg gb=%t/gb.npy --actual %t/mul_bf16/out0.npy --dtype bf16 --name mul_bf16 | FileCheck %s --check-prefix=MUL_BF16
// MUL_BF16: mul_bf16: shape [2, 3] dtype float32 {{.*}} PASS
func.func @mul_bf16(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = llm.cast %a : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %1 = llm.cast %b : (tensor<3xf32>) -> tensor<3xbf16>
  %2 = llm.mul %0, %1 : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  %3 = llm.cast %2 : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// RUN: llmc run %s --entry sub_bf16 --input arg0=%t/g.npy --input arg1=%t/gb.npy --output-dir %t/sub_bf16
// RUN: %python -m llmc_check expr "sub(g, gb, dtype='bf16')" --arg g=%t/g.npy --arg gb=%t/gb.npy --actual %t/sub_bf16/out0.npy --dtype bf16 --name sub_bf16 | FileCheck %s --check-prefix=SUB_BF16
// SUB_BF16: sub_bf16: shape [2, 3] dtype float32 {{.*}} PASS
func.func @sub_bf16(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = llm.cast %a : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %1 = llm.cast %b : (tensor<3xf32>) -> tensor<3xbf16>
  %2 = llm.sub %0, %1 : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  %3 = llm.cast %2 : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
