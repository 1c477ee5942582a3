// RUN: llm-opt %s -llm-fold-quant -split-input-file | FileCheck %s

// Q/DQ moved through max and reduce_max (max-pooling-like selects, as ONNX
// exporters emit DequantizeLinear -> Max/ReduceMax -> QuantizeLinear).

!u8 = !quant.uniform<u8:f32, 0.5:128>

// max(dequantize(a), dequantize(b)), same parameters -> dequantize(max(a, b));
// the quantize after it then meets the dequantize: an all-integer max.
// CHECK-LABEL: func.func @dq_max_q
// CHECK-NOT:     llm.quantize
// CHECK-NOT:     llm.dequantize
// CHECK:         %[[M:.+]] = llm.max %arg0, %arg1 : (tensor<2x4x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:    return %[[M]]
func.func @dq_max_q(%a: tensor<2x4x!u8>, %b: tensor<4x!u8>) -> tensor<2x4x!u8> {
  %da = llm.dequantize %a : (tensor<2x4x!u8>) -> tensor<2x4xf32>
  %db = llm.dequantize %b : (tensor<4x!u8>) -> tensor<4xf32>
  %m = llm.max %da, %db : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q = llm.quantize %m : (tensor<2x4xf32>) -> tensor<2x4x!u8>
  return %q : tensor<2x4x!u8>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Without a quantize after it, the dequantize still moves below the max.
// CHECK-LABEL: func.func @dq_max
// CHECK:         %[[M:.+]] = llm.max %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 6.250000e-02:-3>>, tensor<4x!quant.uniform<i8:f32, 6.250000e-02:-3>>)
// CHECK-NEXT:    %[[D:.+]] = llm.dequantize %[[M]]
// CHECK-NEXT:    return %[[D]]
func.func @dq_max(%a: tensor<4x!q8>, %b: tensor<4x!q8>) -> tensor<4xf32> {
  %da = llm.dequantize %a : (tensor<4x!q8>) -> tensor<4xf32>
  %db = llm.dequantize %b : (tensor<4x!q8>) -> tensor<4xf32>
  %m = llm.max %da, %db : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Near miss: different scales -> not moved.
// CHECK-LABEL: func.func @dq_max_scales_differ
// CHECK:         llm.dequantize %arg0
// CHECK:         llm.dequantize %arg1
// CHECK:         llm.max %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>)
func.func @dq_max_scales_differ(%a: tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>,
                                %b: tensor<4x!quant.uniform<i8:f32, 0.125:-3>>) -> tensor<4xf32> {
  %da = llm.dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>) -> tensor<4xf32>
  %db = llm.dequantize %b : (tensor<4x!quant.uniform<i8:f32, 0.125:-3>>) -> tensor<4xf32>
  %m = llm.max %da, %db : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Near miss: zero points differ -> not moved.
// CHECK-LABEL: func.func @dq_max_zero_points_differ
// CHECK:         llm.dequantize %arg0
// CHECK:         llm.dequantize %arg1
// CHECK:         llm.max %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>)
func.func @dq_max_zero_points_differ(%a: tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>,
                                     %b: tensor<4x!quant.uniform<i8:f32, 0.0625:0>>) -> tensor<4xf32> {
  %da = llm.dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>) -> tensor<4xf32>
  %db = llm.dequantize %b : (tensor<4x!quant.uniform<i8:f32, 0.0625:0>>) -> tensor<4xf32>
  %m = llm.max %da, %db : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Near miss: one operand is not dequantized (and no quantize follows).
// CHECK-LABEL: func.func @dq_max_float_operand
// CHECK:         %[[D:.+]] = llm.dequantize %arg0
// CHECK:         llm.max %[[D]], %arg1 : (tensor<4xf32>, tensor<4xf32>)
func.func @dq_max_float_operand(%a: tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>,
                                %b: tensor<4xf32>) -> tensor<4xf32> {
  %da = llm.dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>) -> tensor<4xf32>
  %m = llm.max %da, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

!ax = !quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 0.125:0}>

// Per axis, same type, no broadcasting -> moved.
// CHECK-LABEL: func.func @dq_max_per_axis
// CHECK:         %[[M:.+]] = llm.max %arg0, %arg1 : (tensor<2x3x!quant.uniform<i8:f32:1
// CHECK-NEXT:    llm.dequantize %[[M]]
func.func @dq_max_per_axis(%a: tensor<2x3x!ax>, %b: tensor<2x3x!ax>) -> tensor<2x3xf32> {
  %da = llm.dequantize %a : (tensor<2x3x!ax>) -> tensor<2x3xf32>
  %db = llm.dequantize %b : (tensor<2x3x!ax>) -> tensor<2x3xf32>
  %m = llm.max %da, %db : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}

// -----

!ax = !quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 0.125:0}>

// Near miss: per axis with broadcasting -> not moved.
// CHECK-LABEL: func.func @dq_max_per_axis_broadcast
// CHECK:         llm.max %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<1x3xf32>)
func.func @dq_max_per_axis_broadcast(%a: tensor<2x3x!ax>, %b: tensor<1x3x!ax>) -> tensor<2x3xf32> {
  %da = llm.dequantize %a : (tensor<2x3x!ax>) -> tensor<2x3xf32>
  %db = llm.dequantize %b : (tensor<1x3x!ax>) -> tensor<1x3xf32>
  %m = llm.max %da, %db : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// reduce_max(dequantize(q)) -> dequantize(reduce_max(q)); with the quantize
// after it, an all-integer reduce_max.
// CHECK-LABEL: func.func @dq_reduce_max_q
// CHECK-NOT:     llm.quantize
// CHECK-NOT:     llm.dequantize
// CHECK:         %[[M:.+]] = llm.reduce_max %arg0 {axes = array<i64: 1>} : (tensor<2x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>) -> tensor<2x!quant.uniform<i8:f32, 6.250000e-02:-3>>
// CHECK-NEXT:    return %[[M]]
func.func @dq_reduce_max_q(%a: tensor<2x8x!q8>) -> tensor<2x!q8> {
  %d = llm.dequantize %a : (tensor<2x8x!q8>) -> tensor<2x8xf32>
  %m = llm.reduce_max %d {axes = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  %q = llm.quantize %m : (tensor<2xf32>) -> tensor<2x!q8>
  return %q : tensor<2x!q8>
}

// -----

!ax = !quant.uniform<u8:f32:2, {0.5:1, 0.25:2}>

// Per axis, the quantized dimension kept: moved, the axis renumbered (2 -> 1)
// when dimension 0 is removed.
// CHECK-LABEL: func.func @dq_reduce_max_per_axis
// CHECK:         %[[M:.+]] = llm.reduce_max %arg0 {axes = array<i64: 0>} : (tensor<3x4x2x!quant.uniform<u8:f32:2, {5.000000e-01:1,2.500000e-01:2}>>) -> tensor<4x2x!quant.uniform<u8:f32:1, {5.000000e-01:1,2.500000e-01:2}>>
// CHECK-NEXT:    %[[D:.+]] = llm.dequantize %[[M]]
// CHECK-NEXT:    return %[[D]]
func.func @dq_reduce_max_per_axis(%a: tensor<3x4x2x!ax>) -> tensor<4x2xf32> {
  %d = llm.dequantize %a : (tensor<3x4x2x!ax>) -> tensor<3x4x2xf32>
  %m = llm.reduce_max %d {axes = array<i64: 0>} : (tensor<3x4x2xf32>) -> tensor<4x2xf32>
  return %m : tensor<4x2xf32>
}

// -----

!ax = !quant.uniform<u8:f32:1, {0.5:1, 0.25:2}>

// Near miss: per axis, reducing the quantized dimension -> not moved.
// CHECK-LABEL: func.func @dq_reduce_max_quantized_axis
// CHECK:         llm.dequantize %arg0
// CHECK:         llm.reduce_max %{{.+}} {axes = array<i64: 1>} : (tensor<3x2xf32>)
func.func @dq_reduce_max_quantized_axis(%a: tensor<3x2x!ax>) -> tensor<3xf32> {
  %d = llm.dequantize %a : (tensor<3x2x!ax>) -> tensor<3x2xf32>
  %m = llm.reduce_max %d {axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %m : tensor<3xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// Near miss: an empty reduced dimension (the float max of nothing is -inf).
// CHECK-LABEL: func.func @dq_reduce_max_empty
// CHECK:         llm.dequantize %arg0
// CHECK:         llm.reduce_max %{{.+}} : (tensor<2x0xf32>)
func.func @dq_reduce_max_empty(%a: tensor<2x0x!q8>) -> tensor<2xf32> {
  %d = llm.dequantize %a : (tensor<2x0x!q8>) -> tensor<2x0xf32>
  %m = llm.reduce_max %d {axes = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// quantize(max(dequantize(a), x)) -> max(a, quantize(x)): the quantize moves
// up and meets the dequantize; the float operand is quantized.
// CHECK-LABEL: func.func @q_max_mixed
// CHECK:         %[[Q:.+]] = llm.quantize %arg1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 6.250000e-02:-3>>
// CHECK:         %[[M:.+]] = llm.max %arg0, %[[Q]] : (tensor<4x!quant.uniform
// CHECK-NOT:     llm.dequantize
// CHECK:         return %[[M]]
func.func @q_max_mixed(%a: tensor<4x!q8>, %x: tensor<4xf32>) -> tensor<4x!q8> {
  %da = llm.dequantize %a : (tensor<4x!q8>) -> tensor<4xf32>
  %m = llm.max %da, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = llm.quantize %m : (tensor<4xf32>) -> tensor<4x!q8>
  return %q : tensor<4x!q8>
}

// -----

!q8 = !quant.uniform<i8:f32, 0.0625:-3>

// quantize(reduce_max(reshape(dequantize(q)))) -> the quantize moves up
// through the reduce_max and the reshape: integer reduce_max of the reshaped
// storage.
// CHECK-LABEL: func.func @q_reduce_max_reshape
// CHECK-NOT:     llm.quantize
// CHECK-NOT:     llm.dequantize
// CHECK:         llm.reshape %{{.+}} : (tensor<16xi8>) -> tensor<2x8xi8>
// CHECK:         llm.reduce_max %{{.+}} {axes = array<i64: -1>, keepdims = true} : (tensor<2x8x!quant.uniform<i8:f32, 6.250000e-02:-3>>) -> tensor<2x1x!quant.uniform
func.func @q_reduce_max_reshape(%a: tensor<16x!q8>) -> tensor<2x1x!q8> {
  %d = llm.dequantize %a : (tensor<16x!q8>) -> tensor<16xf32>
  %r = llm.reshape %d : (tensor<16xf32>) -> tensor<2x8xf32>
  %m = llm.reduce_max %r {axes = array<i64: -1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %q = llm.quantize %m : (tensor<2x1xf32>) -> tensor<2x1x!q8>
  return %q : tensor<2x1x!q8>
}

// -----

// Near miss: no dequantize to meet -> the quantize stays after the max.
// CHECK-LABEL: func.func @q_max_float_only
// CHECK:         %[[M:.+]] = llm.max %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>)
// CHECK:         llm.quantize %[[M]]
func.func @q_max_float_only(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>> {
  %m = llm.max %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = llm.quantize %m : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
}

// -----

// Near miss: FP8 dequantize (scale attribute) -> not moved.
// CHECK-LABEL: func.func @dq_max_fp8
// CHECK:         llm.max %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>)
func.func @dq_max_fp8(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  %da = llm.dequantize %a {scale = 0.5 : f32} : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  %db = llm.dequantize %b {scale = 0.5 : f32} : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  %m = llm.max %da, %db : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}
