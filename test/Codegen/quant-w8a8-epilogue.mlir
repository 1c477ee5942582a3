// RUN: llm-opt %s --llm-fold-quant --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 num-threads=2" --canonicalize --cse | FileCheck %s
// RUN: llm-opt %s --llm-fold-quant --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 num-threads=2" --canonicalize --cse | FileCheck %s --check-prefix=NOFUSE

// W8A8: QDQ around a matmul becomes llm.matmul_integer (i8 x i8 -> i32)
// viewed as !quant.uniform<i32:f32, sa * sb> and dequantized. The integer
// matmul lowers to exact f32 panels (QuantToLinalg.cpp, integerAccumulate:
// x - zx once as f32, per panel of at most 256 terms a register-tiled f32
// matmul from zero, converted to i32 and added to the i32 accumulator),
// then the epilogue (the rescale, the bias, the activation and the output
// requantize) is one elementwise generic over the [4, 16] i32 result. With
// llm-fuse it joins the panels' block loop: with N = 16 that loop has one
// iteration, kept a loop by its #llm.block_loop mapping, so the i32 result
// is never materialized whole (more blocks:
// quant-w8a8-epilogue-blocks.mlir).

// CHECK-LABEL: func.func @w8a8_bias_relu_requant
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<4x16xf32>)
// CHECK:           linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4x16xi32>)
// CHECK:           scf.for {{.*}} -> (tensor<64x16xf32>)
// CHECK:           vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:           %[[ACC:.+]] = scf.for {{.*}} -> (tensor<4x16xi32>)
// CHECK:             arith.fptosi %{{.+}} : vector<16xf32> to vector<16xi32>
// CHECK:             arith.addi %{{.+}} : vector<16xi32>
// CHECK:           linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<4x16xi32>, tensor<16xf32>) outs(%[[OUT]] : tensor<4x16xf32>)
// CHECK:             arith.sitofp %{{.+}} : i32 to f32
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:             arith.divf
// CHECK:             math.roundeven
// CHECK:             arith.fptosi %{{.+}} : f32 to i8
// CHECK:           } -> tensor<4x16xf32>
// CHECK:           scf.forall.in_parallel
// CHECK:         } {mapping = [#llm.block_loop]}
// CHECK-NOT:     linalg.generic
// CHECK:         return

// Without llm-fuse: the same panels; the epilogue is still one elementwise
// generic (linalg elementwise fusion), over the whole [4, 16] result.
// NOFUSE-LABEL: func.func @w8a8_bias_relu_requant
// NOFUSE:         %[[ACC:.+]] = scf.for {{.*}} -> (tensor<4x16xi32>)
// NOFUSE:         linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<4x16xi32>, tensor<16xf32>)
// NOFUSE:           arith.sitofp %{{.+}} : i32 to f32
// NOFUSE:           arith.fptosi %{{.+}} : f32 to i8
// NOFUSE-NOT:     linalg.generic
func.func @w8a8_bias_relu_requant(%x: tensor<4x64xf32>, %w: tensor<64x16xi8>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %wq = quant.scast %w : tensor<64x16xi8> to tensor<64x16x!quant.uniform<i8:f32, 0.02>>
  %wd = llm.dequantize %wq : (tensor<64x16x!quant.uniform<i8:f32, 0.02>>) -> tensor<64x16xf32>
  %xq = llm.quantize %x : (tensor<4x64xf32>) -> tensor<4x64x!quant.uniform<i8:f32, 0.03:2>>
  %xd = llm.dequantize %xq : (tensor<4x64x!quant.uniform<i8:f32, 0.03:2>>) -> tensor<4x64xf32>
  %y = llm.matmul %xd, %wd : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
  %yb = llm.add %y, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %yr = llm.relu %yb : tensor<4x16xf32>
  %yq = llm.quantize %yr : (tensor<4x16xf32>) -> tensor<4x16x!quant.uniform<i8:f32, 0.05:-5>>
  %yd = llm.dequantize %yq : (tensor<4x16x!quant.uniform<i8:f32, 0.05:-5>>) -> tensor<4x16xf32>
  return %yd : tensor<4x16xf32>
}
