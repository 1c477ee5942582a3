// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=1 cache-tile=32,128,64}))" | FileCheck %s

// cache-tile overrides the target's matmul cache tile: outer tiles of 32
// rows, N tiles of 128 and K tiles of 64 (a divisor of K = 256) around the
// 8x32 register tiles.
// CHECK-LABEL: func.func @cache_tile
// CHECK-DAG:   %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK:       scf.forall (%{{.+}}) = (0) to (64) step (32)
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C128]] iter_args
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C64]] iter_args
// CHECK:             scf.for %{{.+}} step %[[C8:.+]] iter_args
// CHECK:               scf.for %{{.+}} step %[[C32:.+]] iter_args
// CHECK:                 vector.contract
func.func @cache_tile(%a: tensor<64x256xf32>, %b: tensor<256x512xf32>) -> tensor<64x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x512xf32>) outs(%c : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
