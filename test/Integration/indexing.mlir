// llm.gather_nd, llm.scatter_nd, llm.scatter_elements, llm.topk,
// llm.dynamic_quantize, llm.acos/asin/atan and the f64 llm.reduce_sum,
// executed on the CPU and compared with the numpy reference of
// test/lib/llmc_ref.py: `exact` for data movement, top-k and the quantized
// values, f32 rtol 1e-5 + atol 1e-6 for the scatter reductions and the
// inverse trigonometric functions, f64 rtol 1e-12 + atol 1e-15 for the f64
// sum. An index out of range is the run-time error of llm.gather.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t x=2x3x4xf32 gi=5x2xi64@"np.array([[0,-1],[1,2],[-2,0],[1,-3],[0,0]])" bi=2x1xi32@"np.array([[2],[-3]])" cache=1x8x4xf32 pos=1x1x2xi64@"np.array([[[0,5]]])" kv=1x1x4xf32 acc=4x3xf32 ai=3x1xi64@"np.array([[1],[-1],[1]])" au=3x3xf32 ei=3x2xi64@"np.array([[0,-1],[2,2],[-5,4]])" e=3x5xf32 eu=3x2xf32 ie=3x5xi32:-50:50 iu=3x2xi32:-50:50 t=3x7xf32@"np.array([[1,3,3,-2,3,.5,3],[np.nan,2,2,7,-1,2,np.nan],[0,0,0,0,0,0,0]],np.float32)" ti=6x3xi64@"np.array([[5,-1,0],[2,2,0],[2,9,0],[-7,2,0],[2,2,1],[5,0,-4]])" h=2x9xf16:-4:4 q=4x6xf32:-3:5 z=5xf32@"np.zeros(5,np.float32)" tr=12xf32@"np.array([-1,-0.9999999,-0.5,-0.0,0,1e-8,0.3,0.9999999,1,1.5,np.nan,np.inf],np.float32)" d=3x4x5xf64
// RUN: %python -c "import numpy as np; np.save('%t/gi_bad.npy', np.array([[0,-1],[1,3],[-2,0],[1,-3],[0,0]], np.int64)); np.save('%t/pos_bad.npy', np.array([[[-2,5]]], np.int64)); np.save('%t/ei_bad.npy', np.array([[0,-1],[2,5],[-5,4]], np.int64))"

// RUN: llmc run %s --entry gather_nd --input arg0=%t/x.npy --input arg1=%t/gi.npy --output-dir %t/gather_nd
// RUN: %python -m llmc_check expr "gather_nd(x, gi)" --arg x=%t/x.npy --arg gi=%t/gi.npy --actual %t/gather_nd/out0.npy --dtype exact --name gather_nd | FileCheck %s --check-prefix=GATHER_ND
// GATHER_ND: gather_nd: shape [5, 4] dtype float32 {{.*}} PASS
// Out of range: component 1 of row 1 is 3 for a dimension of size 3.
// RUN: not llmc run %s --entry gather_nd --input arg0=%t/x.npy --input arg1=%t/gi_bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=GATHER_ND_BAD
// GATHER_ND_BAD: llmc: error: llm.gather_nd at {{.*}}indexing.mlir:[[# @LINE + 2]]:8: index 3 is out of range [-3, 3) of a dimension of size 3
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x4xf32> {
  %0 = llm.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// batch_dims = 1, i32 indices.
// RUN: llmc run %s --entry gather_nd_batch --input arg0=%t/x.npy --input arg1=%t/bi.npy --output-dir %t/gather_nd_batch
// RUN: %python -m llmc_check expr "gather_nd(x, bi, batch_dims=1)" --arg x=%t/x.npy --arg bi=%t/bi.npy --actual %t/gather_nd_batch/out0.npy --dtype exact --name gather_nd_batch | FileCheck %s --check-prefix=GATHER_ND_BATCH
// GATHER_ND_BATCH: gather_nd_batch: shape [2, 4] dtype float32 {{.*}} PASS
func.func @gather_nd_batch(%x: tensor<2x3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {
  %0 = llm.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// The KV-cache update of a decode step: position 5 of batch 0.
// RUN: llmc run %s --entry kv_update --input arg0=%t/cache.npy --input arg1=%t/pos.npy --input arg2=%t/kv.npy --output-dir %t/kv_update
// RUN: %python -m llmc_check expr "scatter_nd(cache, pos, kv)" --arg cache=%t/cache.npy --arg pos=%t/pos.npy --arg kv=%t/kv.npy --actual %t/kv_update/out0.npy --dtype exact --name kv_update | FileCheck %s --check-prefix=KV_UPDATE
// KV_UPDATE: kv_update: shape [1, 8, 4] dtype float32 {{.*}} PASS
// RUN: not llmc run %s --entry kv_update --input arg0=%t/cache.npy --input arg1=%t/pos_bad.npy --input arg2=%t/kv.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=KV_BAD
// KV_BAD: llmc: error: llm.scatter_nd at {{.*}}indexing.mlir:[[# @LINE + 2]]:8: index -2 is out of range [-1, 1) of a dimension of size 1
func.func @kv_update(%c: tensor<1x8x4xf32>, %p: tensor<1x1x2xi64>, %u: tensor<1x1x4xf32>) -> tensor<1x8x4xf32> {
  %0 = llm.scatter_nd %c, %p, %u : (tensor<1x8x4xf32>, tensor<1x1x2xi64>, tensor<1x1x4xf32>) -> tensor<1x8x4xf32>
  return %0 : tensor<1x8x4xf32>
}

// Reduction add with a repeated row (-1 and 1 of 4 rows are 3 and 1).
// RUN: llmc run %s --entry scatter_nd_add --input arg0=%t/acc.npy --input arg1=%t/ai.npy --input arg2=%t/au.npy --output-dir %t/scatter_nd_add
// RUN: %python -m llmc_check expr "scatter_nd(acc, ai, au, 'add')" --arg acc=%t/acc.npy --arg ai=%t/ai.npy --arg au=%t/au.npy --actual %t/scatter_nd_add/out0.npy --dtype f32 --name scatter_nd_add | FileCheck %s --check-prefix=SCATTER_ND_ADD
// SCATTER_ND_ADD: scatter_nd_add: shape [4, 3] dtype float32 {{.*}} PASS
func.func @scatter_nd_add(%x: tensor<4x3xf32>, %i: tensor<3x1xi64>, %u: tensor<3x3xf32>) -> tensor<4x3xf32> {
  %0 = llm.scatter_nd %x, %i, %u {reduction = #llm.scatter_reduction<add>} : (tensor<4x3xf32>, tensor<3x1xi64>, tensor<3x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// ScatterElements along axis 1: replace (the last of two updates of one
// element wins), multiply, and the integer min.
// RUN: llmc run %s --entry scatter_elements --input arg0=%t/e.npy --input arg1=%t/ei.npy --input arg2=%t/eu.npy --input arg3=%t/ie.npy --input arg4=%t/iu.npy --output-dir %t/scatter_elements
// RUN: %python -m llmc_check expr "scatter_elements(e, ei, eu, axis=1)" --arg e=%t/e.npy --arg ei=%t/ei.npy --arg eu=%t/eu.npy --actual %t/scatter_elements/out0.npy --dtype exact --name scatter_none | FileCheck %s --check-prefix=SCATTER_NONE
// SCATTER_NONE: scatter_none: shape [3, 5] dtype float32 {{.*}} PASS
// RUN: %python -m llmc_check expr "scatter_elements(e, ei, eu, axis=1, reduction='mul')" --arg e=%t/e.npy --arg ei=%t/ei.npy --arg eu=%t/eu.npy --actual %t/scatter_elements/out1.npy --dtype f32 --name scatter_mul | FileCheck %s --check-prefix=SCATTER_MUL
// SCATTER_MUL: scatter_mul: shape [3, 5] dtype float32 {{.*}} PASS
// RUN: %python -m llmc_check expr "scatter_elements(ie, ei, iu, axis=1, reduction='min')" --arg ie=%t/ie.npy --arg ei=%t/ei.npy --arg iu=%t/iu.npy --actual %t/scatter_elements/out2.npy --dtype exact --name scatter_min | FileCheck %s --check-prefix=SCATTER_MIN
// SCATTER_MIN: scatter_min: shape [3, 5] dtype int32 mismatches=0 (exact) PASS
// RUN: not llmc run %s --entry scatter_elements --input arg0=%t/e.npy --input arg1=%t/ei_bad.npy --input arg2=%t/eu.npy --input arg3=%t/ie.npy --input arg4=%t/iu.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=SCATTER_BAD
// SCATTER_BAD: llmc: error: llm.scatter_elements at {{.*}}indexing.mlir:[[# @LINE + 2]]:8: index 5 is out of range [-5, 5) of a dimension of size 5
func.func @scatter_elements(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>, %xi: tensor<3x5xi32>, %ui: tensor<3x2xi32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi32>) {
  %0 = llm.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %1 = llm.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #llm.scatter_reduction<mul>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %2 = llm.scatter_elements %xi, %i, %ui {axis = 1 : i64, reduction = #llm.scatter_reduction<min>} : (tensor<3x5xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x5xi32>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi32>
}

// Top-k with ties (lower index first), NaN (the largest) and a row of
// equal values; the smallest of an i64 tensor along axis 0; k = n of f16
// (a full sort).
// RUN: llmc run %s --entry topk --input arg0=%t/t.npy --input arg1=%t/ti.npy --input arg2=%t/h.npy --output-dir %t/topk
// RUN: %python -m llmc_check expr "topk(t, 4)[0]" --arg t=%t/t.npy --actual %t/topk/out0.npy --dtype exact --name topk_values | FileCheck %s --check-prefix=TOPK
// RUN: %python -m llmc_check expr "topk(t, 4)[1]" --arg t=%t/t.npy --actual %t/topk/out1.npy --dtype exact --name topk_indices | FileCheck %s --check-prefix=TOPK
// RUN: %python -m llmc_check expr "topk(ti, 3, axis=0, largest=False)[0]" --arg ti=%t/ti.npy --actual %t/topk/out2.npy --dtype exact --name bottom_values | FileCheck %s --check-prefix=TOPK
// RUN: %python -m llmc_check expr "topk(ti, 3, axis=0, largest=False)[1]" --arg ti=%t/ti.npy --actual %t/topk/out3.npy --dtype exact --name bottom_indices | FileCheck %s --check-prefix=TOPK
// RUN: %python -m llmc_check expr "topk(h, 9)[0]" --arg h=%t/h.npy --actual %t/topk/out4.npy --dtype exact --name sort_values | FileCheck %s --check-prefix=TOPK
// RUN: %python -m llmc_check expr "topk(h, 9)[1]" --arg h=%t/h.npy --actual %t/topk/out5.npy --dtype exact --name sort_indices | FileCheck %s --check-prefix=TOPK
// TOPK: PASS
func.func @topk(%t: tensor<3x7xf32>, %ti: tensor<6x3xi64>, %h: tensor<2x9xf16>) -> (tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x3xi64>, tensor<3x3xi64>, tensor<2x9xf16>, tensor<2x9xi64>) {
  %v, %i = llm.topk %t {k = 4 : i64} : (tensor<3x7xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>)
  %w, %j = llm.topk %ti {k = 3 : i64, axis = 0 : i64, largest = false} : (tensor<6x3xi64>) -> (tensor<3x3xi64>, tensor<3x3xi64>)
  %s, %k = llm.topk %h {k = 9 : i64, axis = -1 : i64} : (tensor<2x9xf16>) -> (tensor<2x9xf16>, tensor<2x9xi64>)
  return %v, %i, %w, %j, %s, %k : tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x3xi64>, tensor<3x3xi64>, tensor<2x9xf16>, tensor<2x9xi64>
}

// Dynamic quantization, of mixed-sign data and of zeros (scale 0: all 0).
// RUN: llmc run %s --entry dynamic_quantize --input arg0=%t/q.npy --input arg1=%t/z.npy --output-dir %t/dq
// RUN: %python -m llmc_check expr "dynamic_quantize(q)[0].view(np.int8)" --arg q=%t/q.npy --actual %t/dq/out0.npy --dtype exact --name dq_values | FileCheck %s --check-prefix=DQ
// RUN: %python -m llmc_check expr "np.array(dynamic_quantize(q)[1])" --arg q=%t/q.npy --actual %t/dq/out1.npy --dtype exact --name dq_scale | FileCheck %s --check-prefix=DQ
// RUN: %python -m llmc_check expr "np.array(dynamic_quantize(q)[2]).view(np.int8)" --arg q=%t/q.npy --actual %t/dq/out2.npy --dtype exact --name dq_zero_point | FileCheck %s --check-prefix=DQ
// RUN: %python -m llmc_check expr "dynamic_quantize(z)[0].view(np.int8)" --arg z=%t/z.npy --actual %t/dq/out3.npy --dtype exact --name dq_zeros | FileCheck %s --check-prefix=DQ
// RUN: %python -m llmc_check expr "np.array(dynamic_quantize(z)[1])" --arg z=%t/z.npy --actual %t/dq/out4.npy --dtype exact --name dq_zero_scale | FileCheck %s --check-prefix=DQ
// DQ: PASS
func.func @dynamic_quantize(%x: tensor<4x6xf32>, %z: tensor<5xf32>) -> (tensor<4x6xi8>, tensor<f32>, tensor<i8>, tensor<5xi8>, tensor<f32>) {
  %q, %s, %zp = llm.dynamic_quantize %x : (tensor<4x6xf32>) -> (tensor<4x6xi8>, tensor<f32>, tensor<i8>)
  %q0, %s0, %zp0 = llm.dynamic_quantize %z : (tensor<5xf32>) -> (tensor<5xi8>, tensor<f32>, tensor<i8>)
  return %q, %s, %zp, %q0, %s0 : tensor<4x6xi8>, tensor<f32>, tensor<i8>, tensor<5xi8>, tensor<f32>
}

// Inverse trigonometric functions over the whole domain (NaN where numpy
// has NaN).
// RUN: llmc run %s --entry inverse_trig --input arg0=%t/tr.npy --output-dir %t/trig
// RUN: %python -m llmc_check expr "acos(tr)" --arg tr=%t/tr.npy --actual %t/trig/out0.npy --dtype f32 --name acos | FileCheck %s --check-prefix=TRIG
// RUN: %python -m llmc_check expr "asin(tr)" --arg tr=%t/tr.npy --actual %t/trig/out1.npy --dtype f32 --name asin | FileCheck %s --check-prefix=TRIG
// RUN: %python -m llmc_check expr "atan(tr)" --arg tr=%t/tr.npy --actual %t/trig/out2.npy --dtype f32 --name atan | FileCheck %s --check-prefix=TRIG
// TRIG: PASS
func.func @inverse_trig(%x: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %0 = llm.acos %x : tensor<12xf32>
  %1 = llm.asin %x : tensor<12xf32>
  %2 = llm.atan %x : tensor<12xf32>
  return %0, %1, %2 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}

// The f64 sum (no rounding to f32 on the way).
// RUN: llmc run %s --entry sum_f64 --input arg0=%t/d.npy --output-dir %t/sum_f64
// RUN: %python -m llmc_check expr "np.sum(d, axis=(0, 2), keepdims=True)" --arg d=%t/d.npy --actual %t/sum_f64/out0.npy --dtype f64 --name sum_f64 | FileCheck %s --check-prefix=SUM_F64
// SUM_F64: sum_f64: shape [1, 4, 1] dtype float64 {{.*}} PASS
func.func @sum_f64(%x: tensor<3x4x5xf64>) -> tensor<1x4x1xf64> {
  %0 = llm.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = true} : (tensor<3x4x5xf64>) -> tensor<1x4x1xf64>
  return %0 : tensor<1x4x1xf64>
}
