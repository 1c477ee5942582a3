// `llmc run` with every supported element type, rank 0 and rank 3 operands,
// checked against numpy (--entry picks the function).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py save %t/f16.npy --dtype float16 --shape 5 --values random:1
// RUN: llmc run %s --entry f16 --input arg0=%t/f16.npy --input arg1=%t/f16.npy --output-dir %t/f16
// RUN: %python %S/Inputs/npytool.py check %t/f16/out0.npy 'a0 + a1' %t/f16.npy %t/f16.npy --rtol 1e-3 | FileCheck %s --check-prefix=F16
// F16: match float16 5
//
// bf16 is read from and written to float32 files.
// RUN: %python %S/Inputs/npytool.py save %t/bf16.npy --dtype float32 --shape 5 --values random:2
// RUN: llmc run %s --entry bf16 --input arg0=%t/bf16.npy --output-dir %t/bf16 | FileCheck %s --check-prefix=BF16OUT
// BF16OUT: out0: tensor<5xbf16>
// RUN: %python %S/Inputs/npytool.py check %t/bf16/out0.npy 'a0 * a0' %t/bf16.npy --rtol 2e-2 --atol 1e-3 | FileCheck %s --check-prefix=BF16
// BF16: match float32 5
//
// RUN: %python %S/Inputs/npytool.py save %t/f64.npy --dtype float64 --shape 2,2 --values random:3
// RUN: llmc run %s --entry f64 --input arg0=%t/f64.npy --output-dir %t/f64
// RUN: %python %S/Inputs/npytool.py check %t/f64/out0.npy 'a0 * a0' %t/f64.npy --rtol 1e-12 | FileCheck %s --check-prefix=F64
// F64: match float64 2x2
//
// RUN: %python %S/Inputs/npytool.py save %t/i8.npy --dtype int8 --shape 6 --values random:4
// RUN: llmc run %s --entry i8 --input arg0=%t/i8.npy --output-dir %t/i8
// RUN: %python %S/Inputs/npytool.py check %t/i8/out0.npy 'a0 + a0' %t/i8.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=I8
// I8: match int8 6
//
// RUN: %python %S/Inputs/npytool.py save %t/i32.npy --dtype int32 --shape 3,2 --values random:5
// RUN: llmc run %s --entry i32 --input arg0=%t/i32.npy --output-dir %t/i32
// RUN: %python %S/Inputs/npytool.py check %t/i32/out0.npy 'a0 * a0' %t/i32.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=I32
// I32: match int32 3x2
//
// RUN: %python %S/Inputs/npytool.py save %t/i64.npy --dtype int64 --shape 4 --values random:6
// RUN: llmc run %s --entry i64 --input arg0=%t/i64.npy --output-dir %t/i64
// RUN: %python %S/Inputs/npytool.py check %t/i64/out0.npy 'a0 - a0 * 3' %t/i64.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=I64
// I64: match int64 4
//
// RUN: %python %S/Inputs/npytool.py save %t/a.npy --dtype bool --shape 7 --values random:7
// RUN: %python %S/Inputs/npytool.py save %t/b.npy --dtype bool --shape 7 --values random:8
// RUN: llmc run %s --entry i1 --input arg0=%t/a.npy --input arg1=%t/b.npy --output-dir %t/i1
// RUN: %python %S/Inputs/npytool.py check %t/i1/out0.npy 'a0 ^ a1' %t/a.npy %t/b.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=I1
// I1: match bool 7
//
// Rank 0 (numpy shape ()) and a rank-3 transpose (strides of every operand).
// RUN: %python %S/Inputs/npytool.py save %t/s.npy --values random:9
// RUN: llmc run %s --entry scalar --input arg0=%t/s.npy --output-dir %t/scalar | FileCheck %s --check-prefix=SCALAROUT
// SCALAROUT: out0: tensor<f32>
// RUN: %python %S/Inputs/npytool.py check %t/scalar/out0.npy 'a0 + a0' %t/s.npy | FileCheck %s --check-prefix=SCALAR
// SCALAR: match float32 {{$}}
// RUN: %python %S/Inputs/npytool.py save %t/r3.npy --shape 2,3,4 --values random:10
// RUN: llmc run %s --entry rank3 --input arg0=%t/r3.npy --output-dir %t/r3
// RUN: %python %S/Inputs/npytool.py check %t/r3/out0.npy 'np.transpose(a0, (2, 1, 0))' %t/r3.npy | FileCheck %s --check-prefix=R3
// R3: match float32 4x3x2
//
// npy format versions 2.0 and 3.0 are read too.
// RUN: %python %S/Inputs/npytool.py save %t/v2.npy --dtype float16 --shape 5 --values random:1 --version 2
// RUN: %python %S/Inputs/npytool.py save %t/v3.npy --dtype float16 --shape 5 --values random:1 --version 3
// RUN: llmc run %s --entry f16 --input arg0=%t/v2.npy --input arg1=%t/v3.npy --output-dir %t/v23
// RUN: cmp %t/v23/out0.npy %t/f16/out0.npy

func.func @f16(%a: tensor<5xf16>, %b: tensor<5xf16>) -> tensor<5xf16> {
  %e = tensor.empty() : tensor<5xf16>
  %r = linalg.add ins(%a, %b : tensor<5xf16>, tensor<5xf16>) outs(%e : tensor<5xf16>) -> tensor<5xf16>
  return %r : tensor<5xf16>
}
func.func @bf16(%a: tensor<5xbf16>) -> tensor<5xbf16> {
  %e = tensor.empty() : tensor<5xbf16>
  %r = linalg.mul ins(%a, %a : tensor<5xbf16>, tensor<5xbf16>) outs(%e : tensor<5xbf16>) -> tensor<5xbf16>
  return %r : tensor<5xbf16>
}
func.func @f64(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %e = tensor.empty() : tensor<2x2xf64>
  %r = linalg.mul ins(%a, %a : tensor<2x2xf64>, tensor<2x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %r : tensor<2x2xf64>
}
func.func @i8(%a: tensor<6xi8>) -> tensor<6xi8> {
  %e = tensor.empty() : tensor<6xi8>
  %r = linalg.add ins(%a, %a : tensor<6xi8>, tensor<6xi8>) outs(%e : tensor<6xi8>) -> tensor<6xi8>
  return %r : tensor<6xi8>
}
func.func @i32(%a: tensor<3x2xi32>) -> tensor<3x2xi32> {
  %e = tensor.empty() : tensor<3x2xi32>
  %r = linalg.mul ins(%a, %a : tensor<3x2xi32>, tensor<3x2xi32>) outs(%e : tensor<3x2xi32>) -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
}
func.func @i64(%a: tensor<4xi64>) -> tensor<4xi64> {
  %c3 = arith.constant dense<3> : tensor<4xi64>
  %e = tensor.empty() : tensor<4xi64>
  %m = linalg.mul ins(%a, %c3 : tensor<4xi64>, tensor<4xi64>) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  %r = linalg.sub ins(%a, %m : tensor<4xi64>, tensor<4xi64>) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func @i1(%a: tensor<7xi1>, %b: tensor<7xi1>) -> tensor<7xi1> {
  %e = tensor.empty() : tensor<7xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<7xi1>, tensor<7xi1>) outs(%e : tensor<7xi1>) {
  ^bb0(%x: i1, %y: i1, %o: i1):
    %z = arith.xori %x, %y : i1
    linalg.yield %z : i1
  } -> tensor<7xi1>
  return %r : tensor<7xi1>
}
func.func @scalar(%a: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.add ins(%a, %a : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @rank3(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %e = tensor.empty() : tensor<4x3x2xf32>
  %r = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%e : tensor<4x3x2xf32>) permutation = [2, 1, 0]
  return %r : tensor<4x3x2xf32>
}
