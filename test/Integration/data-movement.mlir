// llm.transpose, llm.reshape, llm.concat, llm.slice and llm.broadcast_to on
// float and integer tensors (exact comparison).
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/transpose3 %t/transpose_i32 %t/reshape_collapse %t/reshape_general %t/reshape_transpose_f16 %t/concat3 %t/concat_neg_axis %t/slice_strided %t/slice_i64 %t/broadcast_rank %t/broadcast_col
// RUN: %python -m llmc_check gen %t x=2x3x4xf32 y=6x4xf32 c1=2x1xf32 c2=2x3xf32 c3=2x2xf32 xi=3x4xi32:-50:50 xl=4x5xi64:-9:9 r=1x4xf32 col=3x1xf32 xh=2x3x4xf16

// RUN: llmc run %s --entry transpose3 --input arg0=%t/x.npy --output-dir %t/transpose3
// RUN: %python -m llmc_check expr "transpose(x, [2, 0, 1])" --arg x=%t/x.npy --actual %t/transpose3/out0.npy --dtype exact --name transpose3 | FileCheck %s --check-prefix=TRANSPOSE3
// TRANSPOSE3: transpose3: shape [4, 2, 3] dtype float32 {{.*}} PASS
func.func @transpose3(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = llm.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// RUN: llmc run %s --entry transpose_i32 --input arg0=%t/xi.npy --output-dir %t/transpose_i32
// RUN: %python -m llmc_check expr "transpose(xi, [1, 0])" --arg xi=%t/xi.npy --actual %t/transpose_i32/out0.npy --dtype exact --name transpose_i32 | FileCheck %s --check-prefix=TRANSPOSE_I32
// TRANSPOSE_I32: transpose_i32: shape [4, 3] dtype int32 {{.*}} PASS
func.func @transpose_i32(%x: tensor<3x4xi32>) -> tensor<4x3xi32> {
  %0 = llm.transpose %x {permutation = array<i64: 1, 0>} : (tensor<3x4xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// RUN: llmc run %s --entry reshape_collapse --input arg0=%t/x.npy --output-dir %t/reshape_collapse
// RUN: %python -m llmc_check expr "reshape(x, [6, 4])" --arg x=%t/x.npy --actual %t/reshape_collapse/out0.npy --dtype exact --name reshape_collapse | FileCheck %s --check-prefix=RESHAPE_COLLAPSE
// RESHAPE_COLLAPSE: reshape_collapse: shape [6, 4] dtype float32 {{.*}} PASS
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = llm.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// 6x4 -> 2x2x6 is neither a pure collapse nor a pure expand.
// RUN: llmc run %s --entry reshape_general --input arg0=%t/y.npy --output-dir %t/reshape_general
// RUN: %python -m llmc_check expr "reshape(y, [2, 2, 6])" --arg y=%t/y.npy --actual %t/reshape_general/out0.npy --dtype exact --name reshape_general | FileCheck %s --check-prefix=RESHAPE_GENERAL
// RESHAPE_GENERAL: reshape_general: shape [2, 2, 6] dtype float32 {{.*}} PASS
func.func @reshape_general(%x: tensor<6x4xf32>) -> tensor<2x2x6xf32> {
  %0 = llm.reshape %x : (tensor<6x4xf32>) -> tensor<2x2x6xf32>
  return %0 : tensor<2x2x6xf32>
}

// Reshape of a transposed value must use the logical (row-major) order.
// RUN: llmc run %s --entry reshape_transpose_f16 --input arg0=%t/xh.npy --output-dir %t/reshape_transpose_f16
// RUN: %python -m llmc_check expr "reshape(transpose(xh, [0, 2, 1]), [2, 12])" --arg xh=%t/xh.npy --actual %t/reshape_transpose_f16/out0.npy --dtype exact --name reshape_transpose_f16 | FileCheck %s --check-prefix=RESHAPE_TRANSPOSE_F16
// RESHAPE_TRANSPOSE_F16: reshape_transpose_f16: shape [2, 12] dtype float16 {{.*}} PASS
func.func @reshape_transpose_f16(%x: tensor<2x3x4xf16>) -> tensor<2x12xf16> {
  %0 = llm.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf16>) -> tensor<2x4x3xf16>
  %1 = llm.reshape %0 : (tensor<2x4x3xf16>) -> tensor<2x12xf16>
  return %1 : tensor<2x12xf16>
}

// RUN: llmc run %s --entry concat3 --input arg0=%t/c1.npy --input arg1=%t/c2.npy --input arg2=%t/c3.npy --output-dir %t/concat3
// RUN: %python -m llmc_check expr "concat([c1, c2, c3], 1)" --arg c1=%t/c1.npy --arg c2=%t/c2.npy --arg c3=%t/c3.npy --actual %t/concat3/out0.npy --dtype exact --name concat3 | FileCheck %s --check-prefix=CONCAT3
// CONCAT3: concat3: shape [2, 6] dtype float32 {{.*}} PASS
func.func @concat3(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = llm.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// RUN: llmc run %s --entry concat_neg_axis --input arg0=%t/x.npy --input arg1=%t/x.npy --output-dir %t/concat_neg_axis
// RUN: %python -m llmc_check expr "concat([x, x], -3)" --arg x=%t/x.npy --actual %t/concat_neg_axis/out0.npy --dtype exact --name concat_neg_axis | FileCheck %s --check-prefix=CONCAT_NEG_AXIS
// CONCAT_NEG_AXIS: concat_neg_axis: shape [4, 3, 4] dtype float32 {{.*}} PASS
func.func @concat_neg_axis(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<4x3x4xf32> {
  %0 = llm.concat %a, %b {axis = -3 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  return %0 : tensor<4x3x4xf32>
}

// RUN: llmc run %s --entry slice_strided --input arg0=%t/x.npy --output-dir %t/slice_strided
// RUN: %python -m llmc_check expr "slice(x, [0, 1, 1], [2, 3, 4], [1, 1, 2])" --arg x=%t/x.npy --actual %t/slice_strided/out0.npy --dtype exact --name slice_strided | FileCheck %s --check-prefix=SLICE_STRIDED
// SLICE_STRIDED: slice_strided: shape [2, 2, 2] dtype float32 {{.*}} PASS
func.func @slice_strided(%x: tensor<2x3x4xf32>) -> tensor<2x2x2xf32> {
  %0 = llm.slice %x {starts = array<i64: 0, 1, 1>, limits = array<i64: 2, 3, 4>, strides = array<i64: 1, 1, 2>}
      : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// ceil((4 - 1) / 2) = 2 rows, ceil(5 / 3) = 2 columns.
// RUN: llmc run %s --entry slice_i64 --input arg0=%t/xl.npy --output-dir %t/slice_i64
// RUN: %python -m llmc_check expr "slice(xl, [1, 0], [4, 5], [2, 3])" --arg xl=%t/xl.npy --actual %t/slice_i64/out0.npy --dtype exact --name slice_i64 | FileCheck %s --check-prefix=SLICE_I64
// SLICE_I64: slice_i64: shape [2, 2] dtype int64 {{.*}} PASS
func.func @slice_i64(%x: tensor<4x5xi64>) -> tensor<2x2xi64> {
  %0 = llm.slice %x {starts = array<i64: 1, 0>, limits = array<i64: 4, 5>, strides = array<i64: 2, 3>}
      : (tensor<4x5xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// RUN: llmc run %s --entry broadcast_rank --input arg0=%t/r.npy --output-dir %t/broadcast_rank
// RUN: %python -m llmc_check expr "broadcast_to(r, [3, 2, 4])" --arg r=%t/r.npy --actual %t/broadcast_rank/out0.npy --dtype exact --name broadcast_rank | FileCheck %s --check-prefix=BROADCAST_RANK
// BROADCAST_RANK: broadcast_rank: shape [3, 2, 4] dtype float32 {{.*}} PASS
func.func @broadcast_rank(%x: tensor<1x4xf32>) -> tensor<3x2x4xf32> {
  %0 = llm.broadcast_to %x : (tensor<1x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// RUN: llmc run %s --entry broadcast_col --input arg0=%t/col.npy --output-dir %t/broadcast_col
// RUN: %python -m llmc_check expr "broadcast_to(col, [3, 5])" --arg col=%t/col.npy --actual %t/broadcast_col/out0.npy --dtype exact --name broadcast_col | FileCheck %s --check-prefix=BROADCAST_COL
// BROADCAST_COL: broadcast_col: shape [3, 5] dtype float32 {{.*}} PASS
func.func @broadcast_col(%x: tensor<3x1xf32>) -> tensor<3x5xf32> {
  %0 = llm.broadcast_to %x : (tensor<3x1xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
