// RUN: llm-opt %s -llm-fold-quant -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-fold-quant=remove-fake-quant -split-input-file | FileCheck %s --check-prefix=REMOVE

!q8 = !quant.uniform<i8:f32, 0.0625:-3>
!u8 = !quant.uniform<u8:f32, 0.5:128>

// Fake quantization is kept as the rounding it is; removed only on request.
// CHECK-LABEL: func.func @fake_quant
// CHECK:         %[[Q:.+]] = llm.quantize %arg0
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]]
// CHECK:         return %[[D]]
// REMOVE-LABEL: func.func @fake_quant
// REMOVE-NOT:     llm.quantize
// REMOVE-NOT:     llm.dequantize
// REMOVE:         return %arg0
func.func @fake_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!q8>
  %d = llm.dequantize %q : (tensor<4x!q8>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Different parameters: not fake quantization, kept under both options.
// CHECK-LABEL: func.func @fake_quant_other_type
// CHECK:         llm.quantize
// CHECK:         llm.dequantize
// REMOVE-LABEL: func.func @fake_quant_other_type
// REMOVE:         llm.quantize
// REMOVE:         llm.dequantize
func.func @fake_quant_other_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  %q = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!q8>
  %c = quant.scast %q : tensor<4x!q8> to tensor<4xi8>
  %q2 = quant.scast %c : tensor<4xi8> to tensor<4x!quant.uniform<i8:f16, 0.0625:-3>>
  %d = llm.dequantize %q2 : (tensor<4x!quant.uniform<i8:f16, 0.0625:-3>>) -> tensor<4xf16>
  return %d : tensor<4xf16>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// quantize(dequantize(q)) with the same parameters -> q.
// CHECK-LABEL: func.func @q_of_dq_same
// CHECK-NOT:     llm.
// CHECK:         return %arg0
func.func @q_of_dq_same(%q: tensor<4x!q8>) -> tensor<4x!q8> {
  %d = llm.dequantize %q : (tensor<4x!q8>) -> tensor<4xf32>
  %r = llm.quantize %d : (tensor<4xf32>) -> tensor<4x!q8>
  return %r : tensor<4x!q8>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>
!u8 = !quant.uniform<u8:f32, 0.5:128>

// ... with different parameters -> one requantize.
// CHECK-LABEL: func.func @q_of_dq_other
// CHECK:         %[[R:.+]] = llm.requantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 6.250000e-02:-3>>) -> tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NOT:     llm.quantize
// CHECK:         return %[[R]]
func.func @q_of_dq_other(%q: tensor<4x!q8>) -> tensor<4x!u8> {
  %d = llm.dequantize %q : (tensor<4x!q8>) -> tensor<4xf32>
  %r = llm.quantize %d : (tensor<4xf32>) -> tensor<4x!u8>
  return %r : tensor<4x!u8>
}

// -----

!acc = !quant.uniform<i32:f32, 0.01>
!u8 = !quant.uniform<u8:f32, 0.5:128>

// Negative: an i32 accumulator is not merged (requantize rescales it in
// f64, not as dequantize-then-quantize in f32).
// CHECK-LABEL: func.func @q_of_dq_i32
// CHECK:         llm.dequantize
// CHECK:         llm.quantize
// CHECK-NOT:     llm.requantize
func.func @q_of_dq_i32(%q: tensor<4x!acc>) -> tensor<4x!u8> {
  %d = llm.dequantize %q : (tensor<4x!acc>) -> tensor<4xf32>
  %r = llm.quantize %d : (tensor<4xf32>) -> tensor<4x!u8>
  return %r : tensor<4x!u8>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// An exporter's Q -> DQ -> Reshape -> Transpose -> Q -> DQ: the quantize
// moves above the data movement, meets the dequantize and cancels; the
// data movement then runs on the i8 storage, and one Q/DQ pair is left.
// CHECK-LABEL: func.func @through_data_movement
// CHECK:         %[[Q:.+]] = llm.quantize %arg0 : (tensor<2x8xf32>) -> tensor<2x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]]
// CHECK:         %[[R:.+]] = llm.reshape %[[D]] : (tensor<2x8xf32>) -> tensor<4x4xf32>
// CHECK:         %[[T:.+]] = llm.transpose %[[R]]
// CHECK:         return %[[T]]
// CHECK-NOT:     llm.quantize
func.func @through_data_movement(%x: tensor<2x8xf32>) -> tensor<4x4xf32> {
  %q = llm.quantize %x : (tensor<2x8xf32>) -> tensor<2x8x!q8>
  %d = llm.dequantize %q : (tensor<2x8x!q8>) -> tensor<2x8xf32>
  %r = llm.reshape %d : (tensor<2x8xf32>) -> tensor<4x4xf32>
  %t = llm.transpose %r {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %q2 = llm.quantize %t : (tensor<4x4xf32>) -> tensor<4x4x!q8>
  %d2 = llm.dequantize %q2 : (tensor<4x4x!q8>) -> tensor<4x4xf32>
  return %d2 : tensor<4x4xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// As the ONNX importer emits it: storage casts around i8 data movement.
// dequantize moves up through slice and concat; the casts fold.
// CHECK-LABEL: func.func @storage_data_movement
// CHECK-NOT:     quant.scast
// CHECK:         %[[Q:.+]] = llm.quantize %arg0
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]]
// CHECK:         llm.slice %[[D]]
// CHECK:         %[[C:.+]] = llm.concat %{{.+}}, %{{.+}} {axis = 0 : i64} : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
// CHECK-NOT:     quant.scast
// CHECK:         return %[[C]]
func.func @storage_data_movement(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %q = llm.quantize %x : (tensor<2x8xf32>) -> tensor<2x8x!q8>
  %b = quant.scast %q : tensor<2x8x!q8> to tensor<2x8xi8>
  %s = llm.slice %b {starts = array<i64: 0, 0>, limits = array<i64: 1, 8>, strides = array<i64: 1, 1>} : (tensor<2x8xi8>) -> tensor<1x8xi8>
  %c = llm.concat %s, %s {axis = 0 : i64} : (tensor<1x8xi8>, tensor<1x8xi8>) -> tensor<2x8xi8>
  %q2 = quant.scast %c : tensor<2x8xi8> to tensor<2x8x!q8>
  %d = llm.dequantize %q2 : (tensor<2x8x!q8>) -> tensor<2x8xf32>
  return %d : tensor<2x8xf32>
}

// -----

// Negative: per-axis parameters do not move through data movement.
// CHECK-LABEL: func.func @per_axis_stays
// CHECK:         llm.reshape
// CHECK:         llm.quantize
func.func @per_axis_stays(%q: tensor<2x4x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> {
  %d = llm.dequantize %q : (tensor<2x4x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<2x4xf32>
  %r = llm.reshape %d : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %q2 = llm.quantize %r : (tensor<4x2xf32>) -> tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  return %q2 : tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Negative: data movement with no dequantize to meet is left alone.
// CHECK-LABEL: func.func @nothing_to_meet
// CHECK:         llm.reshape %arg0
// CHECK:         llm.quantize
func.func @nothing_to_meet(%x: tensor<2x4xf32>) -> tensor<8x!q8> {
  %r = llm.reshape %x : (tensor<2x4xf32>) -> tensor<8xf32>
  %q = llm.quantize %r : (tensor<8xf32>) -> tensor<8x!q8>
  return %q : tensor<8x!q8>
}

// -----

!w = !quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>

// Weight-only: the dequantize of the weight moves into the matmul.
// CHECK-LABEL: func.func @weight_only
// CHECK:         %[[W:.+]] = quant.scast %arg1
// CHECK:         %[[Y:.+]] = llm.dequant_matmul %arg0, %[[W]] : (tensor<2x4xf32>, tensor<4x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>) -> tensor<2x3xf32>
// CHECK-NOT:     llm.dequantize
// CHECK-NOT:     llm.matmul
// CHECK:         return %[[Y]]
func.func @weight_only(%x: tensor<2x4xf32>, %w: tensor<4x3xi8>) -> tensor<2x3xf32> {
  %q = quant.scast %w : tensor<4x3xi8> to tensor<4x3x!w>
  %d = llm.dequantize %q : (tensor<4x3x!w>) -> tensor<4x3xf32>
  %y = llm.matmul %x, %d : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Negative: per-axis along K cannot be dequantized per output column.
// CHECK-LABEL: func.func @weight_only_axis_k
// CHECK:         llm.dequantize
// CHECK:         llm.matmul
// CHECK-NOT:     llm.dequant_matmul
func.func @weight_only_axis_k(%x: tensor<2x4xf32>, %w: tensor<4x3x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<2x3xf32> {
  %d = llm.dequantize %w : (tensor<4x3x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<4x3xf32>
  %y = llm.matmul %x, %d : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

!a = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32:1, {0.25, 0.125}>

// W8A8: QDQ around the matmul becomes i8 x i8 -> i32 and a dequantize of
// the accumulator with scales sa * sb_n.
// CHECK-LABEL: func.func @w8a8
// CHECK:         %[[ACC:.+]] = llm.matmul_integer %{{.+}}, %{{.+}} : (tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x2x!quant.uniform<i8:f32:1, {2.500000e-01,1.250000e-01}>>) -> tensor<2x2xi32>
// CHECK:         %[[V:.+]] = quant.scast %[[ACC]] : tensor<2x2xi32> to tensor<2x2x!quant.uniform<i32:f32:1, {1.250000e-01,6.250000e-02}>>
// CHECK:         %[[Y:.+]] = llm.dequantize %[[V]]
// CHECK-NOT:     llm.matmul %
// CHECK:         return %[[Y]]
func.func @w8a8(%a: tensor<2x4x!a>, %w: tensor<4x2x!w>) -> tensor<2x2xf32> {
  %da = llm.dequantize %a : (tensor<2x4x!a>) -> tensor<2x4xf32>
  %dw = llm.dequantize %w : (tensor<4x2x!w>) -> tensor<4x2xf32>
  %y = llm.matmul %da, %dw : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Gather moves only its input (the indices stay): the quantize after a
// gather of dequantized values moves up through it and meets the
// dequantize; the pair cancels and the gather runs on the i8 storage.
// CHECK-LABEL: func.func @quantize_through_gather
// CHECK-NOT:     llm.quantize
// CHECK-NOT:     llm.dequantize
// CHECK:         %[[B:.+]] = quant.scast %arg0 : tensor<5x8x!quant.uniform<i8:f32, 6.250000e-02:-3>> to tensor<5x8xi8>
// CHECK:         %[[G:.+]] = llm.gather %[[B]], %arg1 : (tensor<5x8xi8>, tensor<3xi64>) -> tensor<3x8xi8>
// CHECK:         %[[R:.+]] = quant.scast %[[G]] : tensor<3x8xi8> to tensor<3x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>
// CHECK:         return %[[R]]
func.func @quantize_through_gather(%q: tensor<5x8x!q8>, %i: tensor<3xi64>) -> tensor<3x8x!q8> {
  %d = llm.dequantize %q : (tensor<5x8x!q8>) -> tensor<5x8xf32>
  %g = llm.gather %d, %i {axis = 0 : i64} : (tensor<5x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  %q2 = llm.quantize %g : (tensor<3x8xf32>) -> tensor<3x8x!q8>
  return %q2 : tensor<3x8x!q8>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// The other way: a dequantize after an i8 gather of quantized values moves
// up through the gather to meet the quantize (the fake-quant pair is kept as
// rounding; with remove-fake-quant it goes).
// CHECK-LABEL: func.func @dequantize_through_gather
// CHECK:         %[[Q:.+]] = llm.quantize %arg0
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]] : (tensor<5x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>) -> tensor<5x8xf32>
// CHECK:         %[[G:.+]] = llm.gather %[[D]], %arg1 {axis = 1 : i64} : (tensor<5x8xf32>, tensor<2xi32>) -> tensor<5x2xf32>
// CHECK:         return %[[G]]
// REMOVE-LABEL: func.func @dequantize_through_gather
// REMOVE-NOT:     llm.quantize
// REMOVE:         %[[G:.+]] = llm.gather %arg0, %arg1 {axis = 1 : i64} : (tensor<5x8xf32>, tensor<2xi32>) -> tensor<5x2xf32>
// REMOVE:         return %[[G]]
func.func @dequantize_through_gather(%x: tensor<5x8xf32>, %i: tensor<2xi32>) -> tensor<5x2xf32> {
  %q = llm.quantize %x : (tensor<5x8xf32>) -> tensor<5x8x!q8>
  %b = quant.scast %q : tensor<5x8x!q8> to tensor<5x8xi8>
  %g = llm.gather %b, %i {axis = 1 : i64} : (tensor<5x8xi8>, tensor<2xi32>) -> tensor<5x2xi8>
  %q2 = quant.scast %g : tensor<5x2xi8> to tensor<5x2x!q8>
  %d = llm.dequantize %q2 : (tensor<5x2x!q8>) -> tensor<5x2xf32>
  return %d : tensor<5x2xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Near miss: a gather of a quantized table with no quantize above it (an
// embedding lookup) keeps its dequantize after the gather: moving it up
// would dequantize the whole table to read a few rows.
// CHECK-LABEL: func.func @gather_table_stays
// CHECK:         %[[G:.+]] = llm.gather %arg0, %arg1 : (tensor<100x8xi8>, tensor<3xi64>) -> tensor<3x8xi8>
// CHECK:         %[[C:.+]] = quant.scast %[[G]]
// CHECK:         llm.dequantize %[[C]] : (tensor<3x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>) -> tensor<3x8xf32>
func.func @gather_table_stays(%t: tensor<100x8xi8>, %i: tensor<3xi64>) -> tensor<3x8xf32> {
  %g = llm.gather %t, %i {axis = 0 : i64} : (tensor<100x8xi8>, tensor<3xi64>) -> tensor<3x8xi8>
  %q = quant.scast %g : tensor<3x8xi8> to tensor<3x8x!q8>
  %d = llm.dequantize %q : (tensor<3x8x!q8>) -> tensor<3x8xf32>
  return %d : tensor<3x8xf32>
}

// -----

// FP8 with per-tensor scales: the weight's dequantize becomes the operand
// load of llm.dequant_matmul {scale}; the activation's stays as its
// elementwise producer (fused into the contraction by the linalg
// elementwise fusion). No integer matmul for FP8.
// CHECK-LABEL: func.func @fp8_matmul
// CHECK:         %[[Q:.+]] = llm.quantize %arg0 {scale = 5.000000e-01 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf8E4M3FN>
// CHECK:         %[[D:.+]] = llm.dequantize %[[Q]] {scale = 5.000000e-01 : f32}
// CHECK:         %[[Y:.+]] = llm.dequant_matmul %[[D]], %arg1 {scale = 2.500000e-01 : f32} : (tensor<2x4xf32>, tensor<4x3xf8E5M2>) -> tensor<2x3xf32>
// CHECK-NOT:     llm.matmul_integer
// CHECK:         return %[[Y]]
func.func @fp8_matmul(%x: tensor<2x4xf32>, %w: tensor<4x3xf8E5M2>) -> tensor<2x3xf32> {
  %q = llm.quantize %x {scale = 0.5 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf8E4M3FN>
  %d = llm.dequantize %q {scale = 0.5 : f32} : (tensor<2x4xf8E4M3FN>) -> tensor<2x4xf32>
  %wd = llm.dequantize %w {scale = 0.25 : f32} : (tensor<4x3xf8E5M2>) -> tensor<4x3xf32>
  %y = llm.matmul %d, %wd : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
