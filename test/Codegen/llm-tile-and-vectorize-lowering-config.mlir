// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 num-threads=1 min-parallel-work=0}))" | FileCheck %s

// A matmul's llm.lowering_config (a tuning cache's tiles,
// llm-apply-tuning-cache) replaces the target's tiles: outer tiles of 16
// rows, N tiles of 64 and K tiles of 32 around 4x16 register tiles. The
// same matmul without one takes the target's 8x32 register tiles.
// CHECK-LABEL: func.func @configured
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:   %[[C32:.+]] = arith.constant 32 : index
// CHECK:       scf.forall (%{{.+}}) = (0) to (64) step (16)
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C64]] iter_args
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C32]] iter_args
// CHECK:             vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK-NOT:   llm.lowering_config
// CHECK-LABEL: func.func @default
// CHECK:             vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @configured(%a: tensor<64x256xf32>, %b: tensor<256x512xf32>) -> tensor<64x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.matmul {llm.lowering_config = {register_tile = array<i64: 4, 16, 1>, cache_tile = array<i64: 16, 64, 32>}}
      ins(%a, %b : tensor<64x256xf32>, tensor<256x512xf32>) outs(%c : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
func.func @default(%a: tensor<64x256xf32>, %b: tensor<256x512xf32>) -> tensor<64x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x512xf32>) outs(%c : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
