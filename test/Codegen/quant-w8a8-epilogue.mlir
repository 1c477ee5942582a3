// RUN: llm-opt %s --llm-fold-quant --llm-fuse --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 num-threads=2" --canonicalize --cse | FileCheck %s
// RUN: llm-opt %s --llm-lower-to-cpu="target=avx2 num-threads=2" --mlir-print-ir-after=convert-linalg-to-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: llm-opt %s --llm-fold-quant --convert-llm-to-linalg --canonicalize --llm-fuse-elementwise --llm-tile-and-vectorize="target=avx2 num-threads=2" --canonicalize --cse | FileCheck %s --check-prefix=NOFUSE

// W8A8: QDQ around a matmul becomes llm.matmul_integer (i8 x i8 -> i32)
// viewed as !quant.uniform<i32:f32, sa * sb> and dequantized; llm-fuse makes
// the integer matmul the anchor of a fusion group whose epilogue is the
// rescale (dequantize), the bias, the activation and the output requantize
// (quantize, then the consumer's dequantize). The group is one loop nest:
// per tile of rows, the i32 accumulator tile, then the epilogue on it; no
// i32 tensor of the whole result exists.

// CHECK-LABEL: func.func @w8a8_bias_relu_requant
// CHECK:         scf.forall (%[[I:.+]]) = (0) to (4) step (2)
// CHECK:           linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<2x16xi32>)
// CHECK:           %[[ACC:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:             arith.muli %{{.+}} : i32
// CHECK:             arith.addi %{{.+}} : i32
// CHECK:           } -> tensor<2x16xi32>
// CHECK:           linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<2x16xi32>, tensor<16xf32>)
// CHECK:             arith.sitofp %{{.+}} : i32 to f32
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:             arith.divf
// CHECK:             math.roundeven
// CHECK:             arith.fptosi %{{.+}} : f32 to i8
// CHECK:           } -> tensor<2x16xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.generic
// CHECK:         return

// After bufferization: one tile-sized i32 accumulator inside the parallel
// loop, no [4, 16] i32 buffer.
// LOOPS-LABEL: func.func @w8a8_bias_relu_requant
// LOOPS-NOT:     memref<4x16xi32>
// LOOPS:         scf.forall
// LOOPS:           memref.alloca() {{.*}} : memref<2x16xi32>
// LOOPS-NOT:     memref<4x16xi32>
// LOOPS:         return

// Without llm-fuse: the matmul's [4, 16] i32 result is a tensor between two
// loop nests.
// NOFUSE-LABEL: func.func @w8a8_bias_relu_requant
// NOFUSE:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// NOFUSE:         } -> tensor<4x16xi32>
// NOFUSE:         linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<4x16xi32>, tensor<16xf32>)
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
