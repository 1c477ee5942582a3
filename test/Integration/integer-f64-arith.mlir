// Integer (i8, i32, i64) and f64 arithmetic: llm.add/sub/mul/div/rem/min/
// max/neg/abs and llm.cast to and from f64, executed on the CPU (fused, and
// unfused with --no-opt) and compared with the numpy reference of
// test/lib/llmc_ref.py. Integers exactly: wrapping on overflow, division
// truncated toward zero, x / 0 = x rem 0 = 0 (numpy's result), INT_MIN / -1
// = INT_MIN, neg/abs of INT_MIN = INT_MIN. f64 with rtol 1e-12 (the result of
// one or two f64 roundings).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t a=2x8xi64@"np.array([[7, -7, 7, -7, -2**63, -2**63, 2**63 - 1, 0], [5, -5, 123456789012, -9, 1, -1, 3, -2**63]])" b=8xi64@"np.array([2, 2, -2, -2, -1, 0, 2, 3])" c=3x1xi32:-50:50 d=4xi32:-5:5 e=6xi8@"np.array([100, -100, 127, -128, 7, -7])" f=6xi8@"np.array([100, -100, 1, -1, 0, 3])"
// RUN: llmc run %s --entry i64 --input arg0=%t/a.npy --input arg1=%t/b.npy --output-dir %t/i64
// RUN: llmc run %s --entry i64 --input arg0=%t/a.npy --input arg1=%t/b.npy --output-dir %t/i64-noopt --no-opt
// RUN: %python -m llmc_check expr "add(mul(a, b), sub(a, b))" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64/out0.npy --dtype exact --name i64_addmul | FileCheck %s --check-prefix=I64-0
// RUN: %python -m llmc_check expr "div(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64/out1.npy --dtype exact --name i64_div | FileCheck %s --check-prefix=I64-1
// RUN: %python -m llmc_check expr "rem(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64/out2.npy --dtype exact --name i64_rem | FileCheck %s --check-prefix=I64-2
// RUN: %python -m llmc_check expr "min(neg(a), abs(max(a, b)))" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64/out3.npy --dtype exact --name i64_minmax | FileCheck %s --check-prefix=I64-3
// RUN: %python -m llmc_check expr "div(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64-noopt/out1.npy --dtype exact --name i64_div_noopt | FileCheck %s --check-prefix=I64-N1
// RUN: %python -m llmc_check expr "rem(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/i64-noopt/out2.npy --dtype exact --name i64_rem_noopt | FileCheck %s --check-prefix=I64-N2
// I64-0: i64_addmul: shape [2, 8] dtype int64 {{.*}} PASS
// I64-1: i64_div: shape [2, 8] dtype int64 {{.*}} PASS
// I64-2: i64_rem: shape [2, 8] dtype int64 {{.*}} PASS
// I64-3: i64_minmax: shape [2, 8] dtype int64 {{.*}} PASS
// I64-N1: i64_div_noopt: shape [2, 8] dtype int64 {{.*}} PASS
// I64-N2: i64_rem_noopt: shape [2, 8] dtype int64 {{.*}} PASS
func.func @i64(%a: tensor<2x8xi64>, %b: tensor<8xi64>) -> (tensor<2x8xi64>, tensor<2x8xi64>, tensor<2x8xi64>, tensor<2x8xi64>) {
  %m = llm.mul %a, %b : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %s = llm.sub %a, %b : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %r0 = llm.add %m, %s : (tensor<2x8xi64>, tensor<2x8xi64>) -> tensor<2x8xi64>
  %r1 = llm.div %a, %b : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %r2 = llm.rem %a, %b : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %n = llm.neg %a : tensor<2x8xi64>
  %x = llm.max %a, %b : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %ab = llm.abs %x : tensor<2x8xi64>
  %r3 = llm.min %n, %ab : (tensor<2x8xi64>, tensor<2x8xi64>) -> tensor<2x8xi64>
  return %r0, %r1, %r2, %r3 : tensor<2x8xi64>, tensor<2x8xi64>, tensor<2x8xi64>, tensor<2x8xi64>
}

// i32 with broadcasting of both operands, and a constant (position-id math:
// (c - d) * 3 / 2 rem 5).
// RUN: llmc run %s --entry i32 --input arg0=%t/c.npy --input arg1=%t/d.npy --output-dir %t/i32
// RUN: %python -m llmc_check expr "rem(div(mul(sub(c, d), np.int32(3)), np.int32(2)), np.int32(5))" --arg c=%t/c.npy --arg d=%t/d.npy --actual %t/i32/out0.npy --dtype exact --name i32_bcast | FileCheck %s --check-prefix=I32
// I32: i32_bcast: shape [3, 4] dtype int32 {{.*}} PASS
func.func @i32(%c: tensor<3x1xi32>, %d: tensor<4xi32>) -> tensor<3x4xi32> {
  %three = llm.constant dense<3> : tensor<i32>
  %two = llm.constant dense<2> : tensor<i32>
  %five = llm.constant dense<5> : tensor<i32>
  %s = llm.sub %c, %d : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %m = llm.mul %s, %three : (tensor<3x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  %q = llm.div %m, %two : (tensor<3x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  %r = llm.rem %q, %five : (tensor<3x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// i8 wraps (100 + 100 = -56, -128 / -1 = -128).
// RUN: llmc run %s --entry i8 --input arg0=%t/e.npy --input arg1=%t/f.npy --output-dir %t/i8
// RUN: %python -m llmc_check expr "add(e, f)" --arg e=%t/e.npy --arg f=%t/f.npy --actual %t/i8/out0.npy --dtype exact --name i8_add | FileCheck %s --check-prefix=I8-0
// RUN: %python -m llmc_check expr "div(e, f)" --arg e=%t/e.npy --arg f=%t/f.npy --actual %t/i8/out1.npy --dtype exact --name i8_div | FileCheck %s --check-prefix=I8-1
// I8-0: i8_add: shape [6] dtype int8 {{.*}} PASS
// I8-1: i8_div: shape [6] dtype int8 {{.*}} PASS
func.func @i8(%e: tensor<6xi8>, %f: tensor<6xi8>) -> (tensor<6xi8>, tensor<6xi8>) {
  %a = llm.add %e, %f : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %d = llm.div %e, %f : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  return %a, %d : tensor<6xi8>, tensor<6xi8>
}

// f64: arithmetic in f64 (1/3 keeps its f64 digits), fmod, and casts to
// f32, f16 (through f32), i32 (truncated, saturated) and from f32.
// RUN: %python -m llmc_check gen %t x=2x5xf64@"np.array([[1.0, -7.5, 1e300, 2.5, -0.0], [3.0, 1e-300, -2.0**40, 7.0, 65519.0]])" y=5xf64@"np.array([3.0, 2.0, 7.0, -0.75, 3.0])" z=2x5xf32:-4:4
// RUN: llmc run %s --entry f64 --input arg0=%t/x.npy --input arg1=%t/y.npy --input arg2=%t/z.npy --output-dir %t/f64
// RUN: llmc run %s --entry f64 --input arg0=%t/x.npy --input arg1=%t/y.npy --input arg2=%t/z.npy --output-dir %t/f64-noopt --no-opt
// RUN: %python -m llmc_check expr "add(div(x, y), cast(z, 'f64'))" --arg x=%t/x.npy --arg y=%t/y.npy --arg z=%t/z.npy --actual %t/f64/out0.npy --dtype f64 --name f64_div | FileCheck %s --check-prefix=F64-0
// RUN: %python -m llmc_check expr "rem(x, y)" --arg x=%t/x.npy --arg y=%t/y.npy --actual %t/f64/out1.npy --dtype f64 --name f64_rem | FileCheck %s --check-prefix=F64-1
// RUN: %python -m llmc_check expr "cast(x, 'f32')" --arg x=%t/x.npy --actual %t/f64/out2.npy --dtype exact --name f64_to_f32 | FileCheck %s --check-prefix=F64-2
// RUN: %python -m llmc_check expr "cast(x, 'f16')" --arg x=%t/x.npy --actual %t/f64/out3.npy --dtype exact --name f64_to_f16 | FileCheck %s --check-prefix=F64-3
// RUN: %python -m llmc_check expr "cast(x, 'i32')" --arg x=%t/x.npy --actual %t/f64/out4.npy --dtype exact --name f64_to_i32 | FileCheck %s --check-prefix=F64-4
// RUN: %python -m llmc_check expr "add(div(x, y), cast(z, 'f64'))" --arg x=%t/x.npy --arg y=%t/y.npy --arg z=%t/z.npy --actual %t/f64-noopt/out0.npy --dtype f64 --name f64_div_noopt | FileCheck %s --check-prefix=F64-N0
// F64-0: f64_div: shape [2, 5] dtype float64 {{.*}} PASS
// F64-1: f64_rem: shape [2, 5] dtype float64 {{.*}} PASS
// F64-2: f64_to_f32: shape [2, 5] dtype float32 {{.*}} PASS
// F64-3: f64_to_f16: shape [2, 5] dtype float16 {{.*}} PASS
// F64-4: f64_to_i32: shape [2, 5] dtype int32 {{.*}} PASS
// F64-N0: f64_div_noopt: shape [2, 5] dtype float64 {{.*}} PASS
func.func @f64(%x: tensor<2x5xf64>, %y: tensor<5xf64>, %z: tensor<2x5xf32>) -> (tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf32>, tensor<2x5xf16>, tensor<2x5xi32>) {
  %q = llm.div %x, %y : (tensor<2x5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
  %zw = llm.cast %z : (tensor<2x5xf32>) -> tensor<2x5xf64>
  %r0 = llm.add %q, %zw : (tensor<2x5xf64>, tensor<2x5xf64>) -> tensor<2x5xf64>
  %r1 = llm.rem %x, %y : (tensor<2x5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
  %r2 = llm.cast %x : (tensor<2x5xf64>) -> tensor<2x5xf32>
  %r3 = llm.cast %x : (tensor<2x5xf64>) -> tensor<2x5xf16>
  %r4 = llm.cast %x : (tensor<2x5xf64>) -> tensor<2x5xi32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf32>, tensor<2x5xf16>, tensor<2x5xi32>
}
