// RUN: llm-opt %s | llm-opt | FileCheck %s
// RUN: llm-opt %s --mlir-print-op-generic | llm-opt | FileCheck %s
// RUN: llm-opt %s --emit-bytecode | llm-opt | FileCheck %s

// Round trip of the quantization ops with every kind of upstream quant type.

// CHECK-LABEL: func @quantize
// CHECK: llm.quantize %{{.*}} : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 6.250000e-02:-3>>
// CHECK: llm.quantize %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32:0, {1.000000e-01:128,2.000000e-01:100}>>
// CHECK: llm.quantize %{{.*}} : (tensor<2x64xf32>) -> tensor<2x64x!quant.uniform<i4:f32:{0:1, 1:32}, {{\{}}{1.000000e-01, 2.000000e-01}, {3.000000e-01, 4.000000e-01}}>>
// CHECK: llm.quantize %{{.*}} {scale = 5.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
func.func @quantize(%x: tensor<4xf32>, %y: tensor<2x4xf32>, %z: tensor<2x64xf32>) {
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
  %1 = llm.quantize %y : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32:0, {0.1:128, 0.2:100}>>
  %2 = llm.quantize %z : (tensor<2x64xf32>) -> tensor<2x64x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1, 0.2}, {0.3, 0.4}}>>
  %3 = llm.quantize %x {scale = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return
}

// CHECK-LABEL: func @dequantize
// CHECK: llm.dequantize %{{.*}} : (tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<4xf32>
// CHECK: llm.dequantize %{{.*}} {scale = 2.000000e+00 : f32} : (tensor<4xf8E5M2>) -> tensor<4xf16>
// CHECK: llm.requantize %{{.*}} : (tensor<4x!quant.uniform<i32:f32, 1.000000e-02>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01:-3>>
func.func @dequantize(%q: tensor<4x!quant.uniform<u8:f32, 0.5:128>>, %f: tensor<4xf8E5M2>,
                      %acc: tensor<4x!quant.uniform<i32:f32, 0.01>>) {
  %0 = llm.dequantize %q : (tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<4xf32>
  %1 = llm.dequantize %f {scale = 2.0 : f32} : (tensor<4xf8E5M2>) -> tensor<4xf16>
  %2 = llm.requantize %acc : (tensor<4x!quant.uniform<i32:f32, 0.01>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  return
}

// CHECK-LABEL: func @matmul_integer
// CHECK: llm.matmul_integer %{{.*}}, %{{.*}} : (tensor<2x4x3x!quant.uniform<u8:f32, 1.000000e+00:12>>, tensor<3x2x!quant.uniform<i8:f32:1, {1.000000e+00:1,1.000000e+00:-1}>>) -> tensor<2x4x2xi32>
func.func @matmul_integer(%a: tensor<2x4x3x!quant.uniform<u8:f32, 1.0:12>>,
                          %b: tensor<3x2x!quant.uniform<i8:f32:1, {1.0:1, 1.0:-1}>>) -> tensor<2x4x2xi32> {
  %0 = llm.matmul_integer %a, %b : (tensor<2x4x3x!quant.uniform<u8:f32, 1.0:12>>, tensor<3x2x!quant.uniform<i8:f32:1, {1.0:1, 1.0:-1}>>) -> tensor<2x4x2xi32>
  return %0 : tensor<2x4x2xi32>
}
