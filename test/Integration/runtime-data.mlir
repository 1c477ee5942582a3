// llm.compare, the logical ops, llm.select, llm.gather, llm.reverse,
// llm.log_softmax, llm.argmax/argmin and llm.reduce_min/reduce_prod, executed
// on the CPU and compared with the numpy reference of test/lib/llmc_ref.py
// (f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3; `exact` for bool/int results
// and data movement).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t x=2x3x4xf32 y=4xf32 xi=2x3xi32:-2:2 yi=3xi32:-2:2 m=2x3xi1 n=3xi1 idx=2x2xi64@"np.array([[0,-1],[3,-4]])" big=3x7xf32:-30:30 h=2x16xf16:-4:4 ties=2x5xf32@"np.array([[1,3,3,0,3],[2,2,-1,2,0]])" p=3x4xf32:0.5:1.5

// Float comparison with broadcasting, then a select between two tensors.
// RUN: llmc run %s --entry cmp_select --input arg0=%t/x.npy --input arg1=%t/y.npy --output-dir %t/cmp_select
// RUN: %python -m llmc_check expr "select(compare('lt', x, y), x, y * 2)" --arg x=%t/x.npy --arg y=%t/y.npy --actual %t/cmp_select/out0.npy --name cmp_select | FileCheck %s --check-prefix=CMP_SELECT
// CMP_SELECT: cmp_select: shape [2, 3, 4] dtype float32 {{.*}} PASS
func.func @cmp_select(%x: tensor<2x3x4xf32>, %y: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %c = llm.compare lt, %x, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xi1>
  %two = llm.constant dense<2.0> : tensor<f32>
  %y2 = llm.mul %y, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = llm.select %c, %x, %y2 : (tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// Integer comparisons (signed; many equal values) combined by the logical
// ops: ((xi >= yi) and m) xor (not ((xi != yi) or n)).
// RUN: llmc run %s --entry int_logic --input arg0=%t/xi.npy --input arg1=%t/yi.npy --input arg2=%t/m.npy --input arg3=%t/n.npy --output-dir %t/int_logic
// RUN: %python -m llmc_check expr "logical_xor(logical_and(compare('ge', xi, yi), m), logical_not(logical_or(compare('ne', xi, yi), n)))" --arg xi=%t/xi.npy --arg yi=%t/yi.npy --arg m=%t/m.npy --arg n=%t/n.npy --actual %t/int_logic/out0.npy --dtype exact --name int_logic | FileCheck %s --check-prefix=INT_LOGIC
// INT_LOGIC: int_logic: shape [2, 3] dtype bool mismatches=0 (exact) PASS
func.func @int_logic(%xi: tensor<2x3xi32>, %yi: tensor<3xi32>, %m: tensor<2x3xi1>, %n: tensor<3xi1>) -> tensor<2x3xi1> {
  %ge = llm.compare ge, %xi, %yi : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %a = llm.logical_and %ge, %m : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %ne = llm.compare ne, %xi, %yi : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %o = llm.logical_or %ne, %n : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %no = llm.logical_not %o : tensor<2x3xi1>
  %r = llm.logical_xor %a, %no : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// Gather on the middle axis with 2-D indices, negative ones wrapped.
// gather_elements along the middle axis with negative indices, indices
// shorter than the input on the first axis (numpy.take_along_axis).
// RUN: %python -m llmc_check gen %t gidx=1x2x4xi64@"np.array([[[0,-1,2,-3],[1,1,-2,0]]])"
// RUN: llmc run %s --entry gather_elements --input arg0=%t/x.npy --input arg1=%t/gidx.npy --output-dir %t/gather_elements
// RUN: %python -m llmc_check expr "gather_elements(x, gidx, axis=1)" --arg x=%t/x.npy --arg gidx=%t/gidx.npy --actual %t/gather_elements/out0.npy --dtype exact --name gather_elements | FileCheck %s --check-prefix=GATHER_ELEMENTS
// GATHER_ELEMENTS: gather_elements: shape [1, 2, 4] dtype float32 {{.*}} PASS
func.func @gather_elements(%x: tensor<2x3x4xf32>, %idx: tensor<1x2x4xi64>) -> tensor<1x2x4xf32> {
  %r = llm.gather_elements %x, %idx {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<1x2x4xi64>) -> tensor<1x2x4xf32>
  return %r : tensor<1x2x4xf32>
}

// RUN: llmc run %s --entry gather_mid --input arg0=%t/x.npy --input arg1=%t/idx.npy --output-dir %t/gather_mid
// RUN: %python -m llmc_check expr "gather(x, idx, axis=-1)" --arg x=%t/x.npy --arg idx=%t/idx.npy --actual %t/gather_mid/out0.npy --dtype exact --name gather_mid | FileCheck %s --check-prefix=GATHER_MID
// GATHER_MID: gather_mid: shape [2, 3, 2, 2] dtype float32 {{.*}} PASS
func.func @gather_mid(%x: tensor<2x3x4xf32>, %idx: tensor<2x2xi64>) -> tensor<2x3x2x2xf32> {
  %r = llm.gather %x, %idx {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x3x2x2xf32>
  return %r : tensor<2x3x2x2xf32>
}

// RUN: llmc run %s --entry reverse2 --input arg0=%t/x.npy --output-dir %t/reverse2
// RUN: %python -m llmc_check expr "reverse(x, [0, 2])" --arg x=%t/x.npy --actual %t/reverse2/out0.npy --dtype exact --name reverse2 | FileCheck %s --check-prefix=REVERSE2
// REVERSE2: reverse2: shape [2, 3, 4] dtype float32 {{.*}} PASS
func.func @reverse2(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %r = llm.reverse %x {dimensions = array<i64: 0, 2>} : tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// Values up to +-30: exp(x) without the max shift would lose the small
// entries entirely in log(softmax).
// RUN: llmc run %s --entry log_softmax_big --input arg0=%t/big.npy --output-dir %t/log_softmax_big
// RUN: %python -m llmc_check expr "log_softmax(big, axis=1)" --arg big=%t/big.npy --actual %t/log_softmax_big/out0.npy --name log_softmax_big | FileCheck %s --check-prefix=LOG_SOFTMAX_BIG
// LOG_SOFTMAX_BIG: log_softmax_big: shape [3, 7] dtype float32 {{.*}} PASS
func.func @log_softmax_big(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %r = llm.log_softmax %x {axis = 1 : i64} : tensor<3x7xf32>
  return %r : tensor<3x7xf32>
}

// RUN: llmc run %s --entry log_softmax_f16 --input arg0=%t/h.npy --output-dir %t/log_softmax_f16
// RUN: %python -m llmc_check expr "log_softmax(h, axis=0)" --arg h=%t/h.npy --actual %t/log_softmax_f16/out0.npy --dtype f16 --name log_softmax_f16 | FileCheck %s --check-prefix=LOG_SOFTMAX_F16
// LOG_SOFTMAX_F16: log_softmax_f16: shape [2, 16] dtype float16 {{.*}} PASS
func.func @log_softmax_f16(%x: tensor<2x16xf16>) -> tensor<2x16xf16> {
  %r = llm.log_softmax %x {axis = 0 : i64} : tensor<2x16xf16>
  return %r : tensor<2x16xf16>
}

// Ties: the first index, or the last with select_last_index.
// RUN: llmc run %s --entry argmax_last --input arg0=%t/ties.npy --output-dir %t/argmax_last
// RUN: %python -m llmc_check expr "argmax(ties, axis=1, keepdims=False, select_last_index=True)" --arg ties=%t/ties.npy --actual %t/argmax_last/out0.npy --dtype exact --name argmax_last | FileCheck %s --check-prefix=ARGMAX_LAST
// ARGMAX_LAST: argmax_last: shape [2] dtype int64 mismatches=0 (exact) PASS
func.func @argmax_last(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  %r = llm.argmax %x {axis = 1 : i64, keepdims = false, select_last_index} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// RUN: llmc run %s --entry argmax_first --input arg0=%t/ties.npy --output-dir %t/argmax_first
// RUN: %python -m llmc_check expr "argmax(ties, axis=-1)" --arg ties=%t/ties.npy --actual %t/argmax_first/out0.npy --dtype exact --name argmax_first | FileCheck %s --check-prefix=ARGMAX_FIRST
// ARGMAX_FIRST: argmax_first: shape [2, 1] dtype int64 mismatches=0 (exact) PASS
func.func @argmax_first(%x: tensor<2x5xf32>) -> tensor<2x1xi64> {
  %r = llm.argmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x1xi64>
  return %r : tensor<2x1xi64>
}

// RUN: llmc run %s --entry argmin_axis0 --input arg0=%t/x.npy --output-dir %t/argmin_axis0
// RUN: %python -m llmc_check expr "argmin(x, axis=0)" --arg x=%t/x.npy --actual %t/argmin_axis0/out0.npy --dtype exact --name argmin_axis0 | FileCheck %s --check-prefix=ARGMIN_AXIS0
// ARGMIN_AXIS0: argmin_axis0: shape [1, 3, 4] dtype int64 mismatches=0 (exact) PASS
func.func @argmin_axis0(%x: tensor<2x3x4xf32>) -> tensor<1x3x4xi64> {
  %r = llm.argmin %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  return %r : tensor<1x3x4xi64>
}

// RUN: llmc run %s --entry min_keep --input arg0=%t/x.npy --output-dir %t/min_keep
// RUN: %python -m llmc_check expr "reduce_min(x, [0, 2], keepdims=True)" --arg x=%t/x.npy --actual %t/min_keep/out0.npy --name min_keep | FileCheck %s --check-prefix=MIN_KEEP
// MIN_KEEP: min_keep: shape [1, 3, 1] dtype float32 {{.*}} PASS
func.func @min_keep(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %r = llm.reduce_min %x {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return %r : tensor<1x3x1xf32>
}

// RUN: llmc run %s --entry prod_last --input arg0=%t/p.npy --output-dir %t/prod_last
// RUN: %python -m llmc_check expr "reduce_prod(p, [-1])" --arg p=%t/p.npy --actual %t/prod_last/out0.npy --name prod_last | FileCheck %s --check-prefix=PROD_LAST
// PROD_LAST: prod_last: shape [3] dtype float32 {{.*}} PASS
func.func @prod_last(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %r = llm.reduce_prod %x {axes = array<i64: -1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
