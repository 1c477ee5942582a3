// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the quantization ops.

func.func @expressed_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{'llm.quantize' op expressed type 'f32' of '!quant.uniform<i8:f32, 1.000000e-01>' differs from the float element type 'f16'}}
  %0 = llm.quantize %x : (tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @axis_size(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.quantize' op per-axis type has 3 scales but dimension 1 has size 4}}
  %0 = llm.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>
  return
}

// -----

func.func @axis_rank(%x: tensor<4x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) {
  // expected-error @+1 {{'llm.dequantize' op quantized dimension 1 of '!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>' is outside the rank 1}}
  %0 = llm.dequantize %x : (tensor<4x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<4xf32>
  return
}

// -----

func.func @block_divides(%x: tensor<2x48xf32>) {
  // expected-error @+1 {{'llm.quantize' op sub-channel type has 2 blocks of 32 along dimension 1, which has size 48}}
  %0 = llm.quantize %x : (tensor<2x48xf32>) -> tensor<2x48x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1, 0.2}, {0.3, 0.4}}>>
  return
}

// -----

func.func @block_rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{'llm.quantize' op sub-channel scales of rank 2 do not fit a tensor of rank 1}}
  %0 = llm.quantize %x : (tensor<64xf32>) -> tensor<64x!quant.uniform<i4:f32:{0:32}, {{0.1, 0.2}, {0.3, 0.4}}>>
  return
}

// -----

func.func @block_unlisted(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'llm.quantize' op sub-channel scales have 2 entries along dimension 0, which has no block size (one block spans it)}}
  %0 = llm.quantize %x : (tensor<2x64xf32>) -> tensor<2x64x!quant.uniform<i4:f32:{1:32}, {{0.1, 0.2}, {0.3, 0.4}}>>
  return
}

// -----

func.func @wide_storage(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op storage of 32 bits is not supported as a quantization target (i8, u8, i4, u4)}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i32:f32, 0.1>>
  return
}

// -----

func.func @fp8_needs_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op an FP8 result needs a `scale` attribute}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @fp8_scale_positive(%x: tensor<4xf8E5M2>) {
  // expected-error @+1 {{'llm.dequantize' op scale must be positive and finite}}
  %0 = llm.dequantize %x {scale = -1.0 : f32} : (tensor<4xf8E5M2>) -> tensor<4xf32>
  return
}

// -----

func.func @scale_only_fp8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op `scale` is only for FP8; quantized types carry their scales}}
  %0 = llm.quantize %x {scale = 1.0 : f32} : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @not_quantized(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op result #0 must be ranked tensor of uniform quantized type (per tensor, per axis or sub-channel) or f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xi8>'}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4xi8>
  return
}

// -----

func.func @shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op requires the same shape for all operands and results}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<5x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @requantize_expressed(%x: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'llm.requantize' op expressed type 'f16' of '!quant.uniform<i8:f16, 1.000000e-01>' differs from the float element type 'f32'}}
  %0 = llm.requantize %x : (tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f16, 0.1>>
  return
}

// -----

func.func @mmi_k(%a: tensor<2x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<4x2x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error @+2 {{'llm.matmul_integer' op contraction sizes differ: 3 vs 4}}
  // expected-error @+1 {{'llm.matmul_integer' op failed to infer returned types}}
  %0 = llm.matmul_integer %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 1.0>>, tensor<4x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x2xi32>
  return
}

// -----

func.func @mmi_lhs_axis(%a: tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 1.0}>>, %b: tensor<3x2x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error @+1 {{'llm.matmul_integer' op lhs must be quantized per tensor}}
  %0 = llm.matmul_integer %a, %b : (tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 1.0}>>, tensor<3x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x2xi32>
  return
}

// -----

func.func @mmi_rhs_axis(%a: tensor<2x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<3x2x!quant.uniform<i8:f32:0, {1.0, 1.0, 1.0}>>) {
  // expected-error @+1 {{'llm.matmul_integer' op rhs may only be quantized per axis along its last dimension (one zero point per output column)}}
  %0 = llm.matmul_integer %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 1.0>>, tensor<3x2x!quant.uniform<i8:f32:0, {1.0, 1.0, 1.0}>>) -> tensor<2x2xi32>
  return
}

// -----

func.func @mmi_wide(%a: tensor<2x3x!quant.uniform<i32:f32, 1.0>>, %b: tensor<3x2x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error @+1 {{'llm.matmul_integer' op lhs storage must be 8 bits or narrower}}
  %0 = llm.matmul_integer %a, %b : (tensor<2x3x!quant.uniform<i32:f32, 1.0>>, tensor<3x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x2xi32>
  return
}

// -----

func.func @dqmm_fp8_no_scale(%x: tensor<2x4xf32>, %w: tensor<4x3xf8E4M3FN>) {
  // expected-error @+1 {{'llm.dequant_matmul' op an FP8 rhs requires a scale}}
  %0 = llm.dequant_matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf8E4M3FN>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dqmm_fp8_bad_scale(%x: tensor<2x4xf32>, %w: tensor<4x3xf8E5M2>) {
  // expected-error @+1 {{'llm.dequant_matmul' op scale must be positive}}
  %0 = llm.dequant_matmul %x, %w {scale = -1.0 : f32} : (tensor<2x4xf32>, tensor<4x3xf8E5M2>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dqmm_scale_with_quant(%x: tensor<2x4xf32>, %w: tensor<4x3x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{'llm.dequant_matmul' op scale is only for an FP8 rhs (a quantized rhs carries its parameters in its type)}}
  %0 = llm.dequant_matmul %x, %w {scale = 1.0 : f32} : (tensor<2x4xf32>, tensor<4x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  return
}

// -----

func.func @max_per_axis_broadcast(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125}>>,
                                  %b: tensor<1x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125}>>) {
  // expected-error @+1 {{'llm.max' op per-axis quantized operands must not broadcast (operand and result types must be equal)}}
  %0 = llm.max %a, %b : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125}>>, tensor<1x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125}>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125}>>
  return
}

// -----

func.func @max_quant_vs_storage(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>, %b: tensor<4xi8>) {
  // expected-error @+2 {{'llm.max' operands have different element types}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = llm.max %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

func.func @max_sub_channel(%a: tensor<2x32x!quant.uniform<i4:f32:{1:32}, {{0.5}, {0.25}}>>) {
  // expected-error @+1 {{'llm.max' op operand #0 must be ranked tensor of}}
  %0 = llm.max %a, %a : (tensor<2x32x!quant.uniform<i4:f32:{1:32}, {{0.5}, {0.25}}>>, tensor<2x32x!quant.uniform<i4:f32:{1:32}, {{0.5}, {0.25}}>>) -> tensor<2x32x!quant.uniform<i4:f32:{1:32}, {{0.5}, {0.25}}>>
  return
}

// -----

func.func @reduce_max_quantized_axis(%a: tensor<3x2x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2}>>) {
  // expected-error @+2 {{'llm.reduce_max' op reduces the quantized dimension 1 of its per-axis input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = llm.reduce_max %a {axes = array<i64: 1>} : (tensor<3x2x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2}>>) -> tensor<3x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2}>>
  return
}

// -----

// quant's own verifier rejects a negative scale, so max/reduce_max never
// see a decreasing dequantization.
// expected-error @+1 {{scale -5.000000e-01 out of expressed type range}}
func.func @negative_scale(%a: tensor<4x!quant.uniform<i8:f32, -0.5>>) {
  return
}

// -----

// A zero point is a stored value: it must fit the storage type.
func.func @zero_point_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op zero point 300 of '!quant.uniform<i8:f32, 5.000000e-01:300>' is outside the storage range [-128, 127]}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:300>>
  return
}

// -----

func.func @zero_point_range_unsigned(%x: tensor<4x!quant.uniform<u8:f32, 0.5:-1>>) {
  // expected-error @+1 {{'llm.dequantize' op zero point -1 of '!quant.uniform<u8:f32, 5.000000e-01:-1>' is outside the storage range [0, 255]}}
  %0 = llm.dequantize %x : (tensor<4x!quant.uniform<u8:f32, 0.5:-1>>) -> tensor<4xf32>
  return
}

// -----

func.func @zero_point_range_narrow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.quantize' op zero point -128 of '!quant.uniform<i8<-127:127>:f32, 5.000000e-01:-128>' is outside the storage range [-127, 127]}}
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5:-128>>
  return
}

// -----

func.func @zero_point_range_per_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.quantize' op zero point 8 of '!quant.uniform<i4:f32:0, {1.000000e-01,2.000000e-01:8}>' is outside the storage range [-8, 7]}}
  %0 = llm.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i4:f32:0, {0.1:0, 0.2:8}>>
  return
}
