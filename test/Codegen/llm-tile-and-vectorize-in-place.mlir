// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx2}))" | FileCheck %s
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx2 vectorize=false}))" | FileCheck %s --check-prefix=NOVEC

// A matmul marked llm.vectorize_in_place (a tile of the flash-attention loop
// nest) is register-tiled where it is (avx2: [4, 16, 1]) and vectorized, with
// the C tile kept in a vector across the K loop; no outer parallel loop is
// added and the marker is removed. With vectorize=false it stays as is
// (marker removed).
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c4
// CHECK: vector.transfer_read {{.*}} : tensor<4x16xf32>, vector<4x16xf32>
// CHECK: scf.for {{.*}} -> (tensor<16x16xf32>, tensor<4x16xf32>, vector<4x16xf32>)
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK-NOT: llm.vectorize_in_place
// NOVEC-LABEL: func.func @in_place
// NOVEC: linalg.matmul ins(
// NOVEC-NOT: llm.vectorize_in_place
func.func @in_place(%a: tensor<4x16x8xf32>, %b: tensor<8x16xf32>, %init: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<16x16xf32>) {
    %at = tensor.extract_slice %a[%i, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<16x8xf32>
    %m = linalg.matmul {llm.vectorize_in_place} ins(%at, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %m : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}
