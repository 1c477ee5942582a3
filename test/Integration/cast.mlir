// llm.cast between f32, f16, bf16, i1, i8, i32 and i64: round-to-nearest-even
// for float narrowing and int -> float, truncation toward zero with saturation
// for float -> int, != 0 for i1.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/f32_to_f16 %t/f32_to_bf16_to_f32 %t/f32_to_i32 %t/f32_to_i8 %t/f32_to_i64 %t/i32_to_f32 %t/i64_to_f32 %t/i32_to_f16 %t/f32_to_i1 %t/i1_to_f32 %t/f16_to_f32 %t/i64_to_i32
// RUN: %python -m llmc_check gen %t 'f=8xf32@[0.1, -2.5, 65504.0, 65520.0, 1e-8, -3.7, 1.00048828125, 3.0e38]' 'fi=8xf32@[3.7, -3.7, 2.5, -0.9, 1e10, -1e10, 127.9, -129.5]' 'ties=6xf32@[1.00390625, 1.01171875, -1.00390625, 1.0000001, 3.0e38, -0.0]' 'i=6xi32@[0, 1, -1, 16777217, 2147483647, -2147483648]' 'l=4xi64@[3, -5, 9007199254740993, -9223372036854775808]' 'z=5xf32@[0.0, -0.0, 1e-30, -2.0, np.nan]' 'bo=4xi1@[True, False, False, True]' 'h=5xf16@[0.5, -1.0, 65504.0, 0.0001, -0.0]'

// 65520 rounds up to inf; 1e-8 to a subnormal/zero; 1.00048828125 is a tie (to
// even).
// RUN: llmc run %s --entry f32_to_f16 --input arg0=%t/f.npy --output-dir %t/f32_to_f16
// RUN: %python -m llmc_check expr "cast(f, 'f16')" --arg f=%t/f.npy --actual %t/f32_to_f16/out0.npy --dtype exact --name f32_to_f16 | FileCheck %s --check-prefix=F32_TO_F16
// F32_TO_F16: f32_to_f16: shape [8] dtype float16 {{.*}} PASS
func.func @f32_to_f16(%x: tensor<8xf32>) -> tensor<8xf16> {
  %0 = llm.cast %x : (tensor<8xf32>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// Two exact ties (to even, down and up), a negative tie, one just above 1, a
// large value and -0.
// RUN: llmc run %s --entry f32_to_bf16_to_f32 --input arg0=%t/ties.npy --output-dir %t/f32_to_bf16_to_f32
// RUN: %python -m llmc_check expr "to_bf16(ties)" --arg ties=%t/ties.npy --actual %t/f32_to_bf16_to_f32/out0.npy --dtype exact --name f32_to_bf16_to_f32 | FileCheck %s --check-prefix=F32_TO_BF16_TO_F32
// F32_TO_BF16_TO_F32: f32_to_bf16_to_f32: shape [6] dtype float32 {{.*}} PASS
func.func @f32_to_bf16_to_f32(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = llm.cast %x : (tensor<6xf32>) -> tensor<6xbf16>
  %1 = llm.cast %0 : (tensor<6xbf16>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// Truncation toward zero; +-1e10 saturate to INT32_MAX/MIN.
// RUN: llmc run %s --entry f32_to_i32 --input arg0=%t/fi.npy --output-dir %t/f32_to_i32
// RUN: %python -m llmc_check expr "cast(fi, 'i32')" --arg fi=%t/fi.npy --actual %t/f32_to_i32/out0.npy --dtype exact --name f32_to_i32 | FileCheck %s --check-prefix=F32_TO_I32
// F32_TO_I32: f32_to_i32: shape [8] dtype int32 {{.*}} PASS
func.func @f32_to_i32(%x: tensor<8xf32>) -> tensor<8xi32> {
  %0 = llm.cast %x : (tensor<8xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// Saturates to [-128, 127].
// RUN: llmc run %s --entry f32_to_i8 --input arg0=%t/fi.npy --output-dir %t/f32_to_i8
// RUN: %python -m llmc_check expr "cast(fi, 'i8')" --arg fi=%t/fi.npy --actual %t/f32_to_i8/out0.npy --dtype exact --name f32_to_i8 | FileCheck %s --check-prefix=F32_TO_I8
// F32_TO_I8: f32_to_i8: shape [8] dtype int8 {{.*}} PASS
func.func @f32_to_i8(%x: tensor<8xf32>) -> tensor<8xi8> {
  %0 = llm.cast %x : (tensor<8xf32>) -> tensor<8xi8>
  return %0 : tensor<8xi8>
}

// RUN: llmc run %s --entry f32_to_i64 --input arg0=%t/fi.npy --output-dir %t/f32_to_i64
// RUN: %python -m llmc_check expr "cast(fi, 'i64')" --arg fi=%t/fi.npy --actual %t/f32_to_i64/out0.npy --dtype exact --name f32_to_i64 | FileCheck %s --check-prefix=F32_TO_I64
// F32_TO_I64: f32_to_i64: shape [8] dtype int64 {{.*}} PASS
func.func @f32_to_i64(%x: tensor<8xf32>) -> tensor<8xi64> {
  %0 = llm.cast %x : (tensor<8xf32>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// 16777217 and INT32_MAX are not representable: round to nearest even.
// RUN: llmc run %s --entry i32_to_f32 --input arg0=%t/i.npy --output-dir %t/i32_to_f32
// RUN: %python -m llmc_check expr "cast(i, 'f32')" --arg i=%t/i.npy --actual %t/i32_to_f32/out0.npy --dtype exact --name i32_to_f32 | FileCheck %s --check-prefix=I32_TO_F32
// I32_TO_F32: i32_to_f32: shape [6] dtype float32 {{.*}} PASS
func.func @i32_to_f32(%x: tensor<6xi32>) -> tensor<6xf32> {
  %0 = llm.cast %x : (tensor<6xi32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// RUN: llmc run %s --entry i64_to_f32 --input arg0=%t/l.npy --output-dir %t/i64_to_f32
// RUN: %python -m llmc_check expr "cast(l, 'f32')" --arg l=%t/l.npy --actual %t/i64_to_f32/out0.npy --dtype exact --name i64_to_f32 | FileCheck %s --check-prefix=I64_TO_F32
// I64_TO_F32: i64_to_f32: shape [4] dtype float32 {{.*}} PASS
func.func @i64_to_f32(%x: tensor<4xi64>) -> tensor<4xf32> {
  %0 = llm.cast %x : (tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Large ints overflow f16 to +-inf.
// RUN: llmc run %s --entry i32_to_f16 --input arg0=%t/i.npy --output-dir %t/i32_to_f16
// RUN: %python -m llmc_check expr "cast(i, 'f16')" --arg i=%t/i.npy --actual %t/i32_to_f16/out0.npy --dtype exact --name i32_to_f16 | FileCheck %s --check-prefix=I32_TO_F16
// I32_TO_F16: i32_to_f16: shape [6] dtype float16 {{.*}} PASS
func.func @i32_to_f16(%x: tensor<6xi32>) -> tensor<6xf16> {
  %0 = llm.cast %x : (tensor<6xi32>) -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -0.0 is zero (false); NaN != 0 is true.
// RUN: llmc run %s --entry f32_to_i1 --input arg0=%t/z.npy --output-dir %t/f32_to_i1
// RUN: %python -m llmc_check expr "cast(z, 'i1')" --arg z=%t/z.npy --actual %t/f32_to_i1/out0.npy --dtype exact --name f32_to_i1 | FileCheck %s --check-prefix=F32_TO_I1
// F32_TO_I1: f32_to_i1: shape [5] dtype bool {{.*}} PASS
func.func @f32_to_i1(%x: tensor<5xf32>) -> tensor<5xi1> {
  %0 = llm.cast %x : (tensor<5xf32>) -> tensor<5xi1>
  return %0 : tensor<5xi1>
}

// RUN: llmc run %s --entry i1_to_f32 --input arg0=%t/bo.npy --output-dir %t/i1_to_f32
// RUN: %python -m llmc_check expr "cast(bo, 'f32')" --arg bo=%t/bo.npy --actual %t/i1_to_f32/out0.npy --dtype exact --name i1_to_f32 | FileCheck %s --check-prefix=I1_TO_F32
// I1_TO_F32: i1_to_f32: shape [4] dtype float32 {{.*}} PASS
func.func @i1_to_f32(%x: tensor<4xi1>) -> tensor<4xf32> {
  %0 = llm.cast %x : (tensor<4xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: llmc run %s --entry f16_to_f32 --input arg0=%t/h.npy --output-dir %t/f16_to_f32
// RUN: %python -m llmc_check expr "cast(h, 'f32')" --arg h=%t/h.npy --actual %t/f16_to_f32/out0.npy --dtype exact --name f16_to_f32 | FileCheck %s --check-prefix=F16_TO_F32
// F16_TO_F32: f16_to_f32: shape [5] dtype float32 {{.*}} PASS
func.func @f16_to_f32(%x: tensor<5xf16>) -> tensor<5xf32> {
  %0 = llm.cast %x : (tensor<5xf16>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// Integer narrowing wraps (two's complement, as ONNX Cast).
// RUN: llmc run %s --entry i64_to_i32 --input arg0=%t/l.npy --output-dir %t/i64_to_i32
// RUN: %python -m llmc_check expr "cast(l, 'i32')" --arg l=%t/l.npy --actual %t/i64_to_i32/out0.npy --dtype exact --name i64_to_i32 | FileCheck %s --check-prefix=I64_TO_I32
// I64_TO_I32: i64_to_i32: shape [4] dtype int32 {{.*}} PASS
func.func @i64_to_i32(%x: tensor<4xi64>) -> tensor<4xi32> {
  %0 = llm.cast %x : (tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
