// Integer reductions, executed on the CPU and compared exactly with the numpy
// reference of test/lib/llmc_ref.py: llm.reduce_sum / reduce_prod in the
// element type (overflow wraps modulo 2^bits, as numpy with dtype=x.dtype
// and ONNX Runtime), reduce_min / reduce_max and argmax / argmin in signed
// order, ties resolved to the first index or, with select_last_index, the
// last.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t mask=2x7xi64:0:1 b=2x3x40xi8:-128:127 w=3x5xi32:-1000:1000 f=2x16xi32:-9:9 big=2x4xi64@"np.array([[-2**63,-2**63,-2**63,-2**63],[2**62+1,2**62+3,2**62+3,2**62+2]])" ties=3x6xi8@"np.array([[1,-128,7,7,0,7],[-128,-128,-128,-128,-128,-128],[127,5,127,-3,-3,2]])"

// attention_mask.sum(-1) of an int64 mask: the lengths of the sequences.
// RUN: llmc run %s --entry mask_lengths --input arg0=%t/mask.npy --output-dir %t/mask_lengths
// RUN: %python -m llmc_check expr "reduce_sum(mask, [-1])" --arg mask=%t/mask.npy --actual %t/mask_lengths/out0.npy --dtype exact --name mask_lengths | FileCheck %s --check-prefix=MASK_LENGTHS
// MASK_LENGTHS: mask_lengths: shape [2] dtype int64 mismatches=0 (exact) PASS
func.func @mask_lengths(%m: tensor<2x7xi64>) -> tensor<2xi64> {
  %r = llm.reduce_sum %m {axes = array<i64: -1>} : (tensor<2x7xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// 80 int8 terms per sum (axes 0 and 2, keepdims): the sums wrap.
// RUN: llmc run %s --entry sum_i8_wraps --input arg0=%t/b.npy --output-dir %t/sum_i8_wraps
// RUN: %python -m llmc_check expr "reduce_sum(b, [0, 2], keepdims=True)" --arg b=%t/b.npy --actual %t/sum_i8_wraps/out0.npy --dtype exact --name sum_i8_wraps | FileCheck %s --check-prefix=SUM_I8
// The check is not vacuous: the exact sums leave the int8 range.
// RUN: %python -c "import numpy as np; b = np.load('%t/b.npy').astype(np.int64).sum(axis=(0, 2)); print('EXACT_OUTSIDE_I8', bool(((b < -128) | (b > 127)).any()))" | FileCheck %s --check-prefix=SUM_I8_RANGE
// SUM_I8: sum_i8_wraps: shape [1, 3, 1] dtype int8 mismatches=0 (exact) PASS
// SUM_I8_RANGE: EXACT_OUTSIDE_I8 True
func.func @sum_i8_wraps(%b: tensor<2x3x40xi8>) -> tensor<1x3x1xi8> {
  %r = llm.reduce_sum %b {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x40xi8>) -> tensor<1x3x1xi8>
  return %r : tensor<1x3x1xi8>
}

// Every axis: a rank-0 int32 sum.
// RUN: llmc run %s --entry sum_all_i32 --input arg0=%t/w.npy --output-dir %t/sum_all_i32
// RUN: %python -m llmc_check expr "reduce_sum(w, [0, 1])" --arg w=%t/w.npy --actual %t/sum_all_i32/out0.npy --dtype exact --name sum_all_i32 | FileCheck %s --check-prefix=SUM_ALL
// SUM_ALL: sum_all_i32: shape [] dtype int32 mismatches=0 (exact) PASS
func.func @sum_all_i32(%w: tensor<3x5xi32>) -> tensor<i32> {
  %r = llm.reduce_sum %w {axes = array<i64: 0, 1>} : (tensor<3x5xi32>) -> tensor<i32>
  return %r : tensor<i32>
}

// 16 factors in [-9, 9] per product: int32 products wrap.
// RUN: llmc run %s --entry prod_i32 --input arg0=%t/f.npy --output-dir %t/prod_i32
// RUN: %python -m llmc_check expr "reduce_prod(f, [1])" --arg f=%t/f.npy --actual %t/prod_i32/out0.npy --dtype exact --name prod_i32 | FileCheck %s --check-prefix=PROD
// PROD: prod_i32: shape [2] dtype int32 mismatches=0 (exact) PASS
func.func @prod_i32(%f: tensor<2x16xi32>) -> tensor<2xi32> {
  %r = llm.reduce_prod %f {axes = array<i64: 1>} : (tensor<2x16xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// Minima and maxima of int64 values above 2^53 (not exact in f64) and of a
// row of the type's lowest value.
// RUN: llmc run %s --entry min_max_i64 --input arg0=%t/big.npy --output-dir %t/min_max_i64
// RUN: %python -m llmc_check expr "reduce_min(big, [1])" --arg big=%t/big.npy --actual %t/min_max_i64/out0.npy --dtype exact --name min_i64 | FileCheck %s --check-prefix=MIN_I64
// RUN: %python -m llmc_check expr "reduce_max(big, [1])" --arg big=%t/big.npy --actual %t/min_max_i64/out1.npy --dtype exact --name max_i64 | FileCheck %s --check-prefix=MAX_I64
// RUN: %python -m llmc_check expr "argmax(big, axis=1, keepdims=False)" --arg big=%t/big.npy --actual %t/min_max_i64/out2.npy --dtype exact --name argmax_i64 | FileCheck %s --check-prefix=ARGMAX_I64
// RUN: %python -m llmc_check expr "argmin(big, axis=1, keepdims=False, select_last_index=True)" --arg big=%t/big.npy --actual %t/min_max_i64/out3.npy --dtype exact --name argmin_last_i64 | FileCheck %s --check-prefix=ARGMIN_I64
// MIN_I64: min_i64: shape [2] dtype int64 mismatches=0 (exact) PASS
// MAX_I64: max_i64: shape [2] dtype int64 mismatches=0 (exact) PASS
// ARGMAX_I64: argmax_i64: shape [2] dtype int64 mismatches=0 (exact) PASS
// ARGMIN_I64: argmin_last_i64: shape [2] dtype int64 mismatches=0 (exact) PASS
func.func @min_max_i64(%x: tensor<2x4xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %mn = llm.reduce_min %x {axes = array<i64: 1>} : (tensor<2x4xi64>) -> tensor<2xi64>
  %mx = llm.reduce_max %x {axes = array<i64: 1>} : (tensor<2x4xi64>) -> tensor<2xi64>
  %amx = llm.argmax %x {axis = 1 : i64, keepdims = false} : (tensor<2x4xi64>) -> tensor<2xi64>
  %amn = llm.argmin %x {axis = 1 : i64, keepdims = false, select_last_index} : (tensor<2x4xi64>) -> tensor<2xi64>
  return %mn, %mx, %amx, %amn : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}

// int8 ties: first and last index of the maximum and of the minimum, with a
// row that is all -128 (the start value of the maximum).
// RUN: llmc run %s --entry arg_ties_i8 --input arg0=%t/ties.npy --output-dir %t/arg_ties_i8
// RUN: %python -m llmc_check expr "argmax(ties, axis=-1)" --arg ties=%t/ties.npy --actual %t/arg_ties_i8/out0.npy --dtype exact --name argmax_first | FileCheck %s --check-prefix=AMAX_FIRST
// RUN: %python -m llmc_check expr "argmax(ties, axis=-1, select_last_index=True)" --arg ties=%t/ties.npy --actual %t/arg_ties_i8/out1.npy --dtype exact --name argmax_last | FileCheck %s --check-prefix=AMAX_LAST
// RUN: %python -m llmc_check expr "argmin(ties, axis=-1)" --arg ties=%t/ties.npy --actual %t/arg_ties_i8/out2.npy --dtype exact --name argmin_first | FileCheck %s --check-prefix=AMIN_FIRST
// RUN: %python -m llmc_check expr "argmin(ties, axis=-1, select_last_index=True)" --arg ties=%t/ties.npy --actual %t/arg_ties_i8/out3.npy --dtype exact --name argmin_last | FileCheck %s --check-prefix=AMIN_LAST
// AMAX_FIRST: argmax_first: shape [3, 1] dtype int64 mismatches=0 (exact) PASS
// AMAX_LAST: argmax_last: shape [3, 1] dtype int64 mismatches=0 (exact) PASS
// AMIN_FIRST: argmin_first: shape [3, 1] dtype int64 mismatches=0 (exact) PASS
// AMIN_LAST: argmin_last: shape [3, 1] dtype int64 mismatches=0 (exact) PASS
func.func @arg_ties_i8(%x: tensor<3x6xi8>) -> (tensor<3x1xi64>, tensor<3x1xi64>, tensor<3x1xi64>, tensor<3x1xi64>) {
  %a = llm.argmax %x {axis = -1 : i64} : (tensor<3x6xi8>) -> tensor<3x1xi64>
  %b = llm.argmax %x {axis = -1 : i64, select_last_index} : (tensor<3x6xi8>) -> tensor<3x1xi64>
  %c = llm.argmin %x {axis = -1 : i64} : (tensor<3x6xi8>) -> tensor<3x1xi64>
  %d = llm.argmin %x {axis = -1 : i64, select_last_index} : (tensor<3x6xi8>) -> tensor<3x1xi64>
  return %a, %b, %c, %d : tensor<3x1xi64>, tensor<3x1xi64>, tensor<3x1xi64>, tensor<3x1xi64>
}
