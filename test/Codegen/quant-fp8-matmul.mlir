// RUN: llm-opt %s --llm-fold-quant --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise | FileCheck %s

// FP8 matmul with per-tensor scales (E4M3FN activation, E5M2 weight): one
// contraction reads both operands' FP8 bits (i8 after type erasure) and
// converts them in its body (table lookup, times the scale); the
// activation's quantize is fused in too. No f32 tensor of either operand's
// shape is materialized.
// CHECK-LABEL: func.func @fp8_matmul
// CHECK-NOT:     tensor<2x4xf32> {{.*}}linalg
// CHECK-NOT:     -> tensor<4x3xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %{{.+}} : tensor<2x4xf32>, tensor<4x3xi8>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK:           tensor.extract
// CHECK:           arith.mulf {{.*}} : f32
// CHECK:           tensor.extract
// CHECK:           arith.mulf {{.*}} : f32
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @fp8_matmul(%x: tensor<2x4xf32>, %w: tensor<4x3xf8E5M2>) -> tensor<2x3xf32> {
  %q = llm.quantize %x {scale = 0.5 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf8E4M3FN>
  %d = llm.dequantize %q {scale = 0.5 : f32} : (tensor<2x4xf8E4M3FN>) -> tensor<2x4xf32>
  %wd = llm.dequantize %w {scale = 0.25 : f32} : (tensor<4x3xf8E5M2>) -> tensor<4x3xf32>
  %y = llm.matmul %d, %wd : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
