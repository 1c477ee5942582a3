// RUN: llm-opt %s --llm-fold-quant --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 num-threads=2" --canonicalize --cse | FileCheck %s

// Two blocks of 128 output columns (N = 256): llm-tile-and-vectorize fuses
// the elementwise epilogue into the integer panels' block loop
// (llm.fuse_consumers, upstream scf::tileAndFuseConsumer): each [4, 128]
// i32 block is rescaled, biased, activated and requantized right after its
// panels, and no [4, 256] i32 tensor of the whole result exists.
// CHECK-LABEL: func.func @w8a8_two_blocks
// CHECK-NOT:     tensor<4x256xi32>
// CHECK:         scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<4x256xf32>)
// CHECK:           linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4x128xi32>)
// CHECK:           vector.contract
// CHECK:           %[[ACC:.+]] = scf.for {{.*}} -> (tensor<4x128xi32>)
// CHECK:             arith.fptosi %{{.+}} : vector<128xf32> to vector<128xi32>
// CHECK:           linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<4x128xi32>, tensor<128xf32>)
// CHECK:             arith.sitofp %{{.+}} : i32 to f32
// CHECK:             arith.maximumf
// CHECK:             math.roundeven
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[0, %{{.+}}] [4, 128] [1, 1] : tensor<4x128xf32> into tensor<4x256xf32>
// CHECK-NOT:     tensor<4x256xi32>
// CHECK:         return
func.func @w8a8_two_blocks(%x: tensor<4x64xf32>, %w: tensor<64x256xi8>, %b: tensor<256xf32>) -> tensor<4x256xf32> {
  %wq = quant.scast %w : tensor<64x256xi8> to tensor<64x256x!quant.uniform<i8:f32, 0.02>>
  %wd = llm.dequantize %wq : (tensor<64x256x!quant.uniform<i8:f32, 0.02>>) -> tensor<64x256xf32>
  %xq = llm.quantize %x : (tensor<4x64xf32>) -> tensor<4x64x!quant.uniform<i8:f32, 0.03:2>>
  %xd = llm.dequantize %xq : (tensor<4x64x!quant.uniform<i8:f32, 0.03:2>>) -> tensor<4x64xf32>
  %y = llm.matmul %xd, %wd : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  %yb = llm.add %y, %b : (tensor<4x256xf32>, tensor<256xf32>) -> tensor<4x256xf32>
  %yr = llm.relu %yb : tensor<4x256xf32>
  %yq = llm.quantize %yr : (tensor<4x256xf32>) -> tensor<4x256x!quant.uniform<i8:f32, 0.05:-5>>
  %yd = llm.dequantize %yq : (tensor<4x256x!quant.uniform<i8:f32, 0.05:-5>>) -> tensor<4x256xf32>
  return %yd : tensor<4x256xf32>
}
