// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx2 register-tile=4,16,1 cache-tile=64,256,256}))" | FileCheck %s
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx2 register-tile=4,16,1 cache-tile=64,256,256 vectorize=false}))" | FileCheck %s --check-prefix=NOVEC

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

// A 2-D transpose marked llm.vectorize_in_place (the K-tile transpose of the
// flash-attention loop, reading a strided tile) becomes square tiles of one
// vector length where it is (avx2: 8x8; 16x24 -> 2x3 tiles), vectorized
// into transposing transfer_reads (row reads and vector.transpose after
// llm-lower-vectors) instead of element gathers.
// CHECK-LABEL: func.func @transpose_in_place
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c8
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c8
// CHECK: %[[T:.+]] = vector.transfer_read {{.*}}permutation_map = #{{.+}}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK: vector.transfer_write %[[T]], {{.*}} : vector<8x8xf32>, tensor<8x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: llm.vectorize_in_place
// NOVEC-LABEL: func.func @transpose_in_place
// NOVEC: linalg.transpose ins(
// NOVEC-NOT: llm.vectorize_in_place
func.func @transpose_in_place(%k: tensor<4x24x64xf32>) -> tensor<4x16x24xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = tensor.empty() : tensor<4x16x24xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x16x24xf32>) {
    %kt = tensor.extract_slice %k[%i, 0, 0] [1, 24, 16] [1, 1, 1] : tensor<4x24x64xf32> to tensor<24x16xf32>
    %e = tensor.empty() : tensor<16x24xf32>
    %t = linalg.transpose {llm.vectorize_in_place} ins(%kt : tensor<24x16xf32>) outs(%e : tensor<16x24xf32>) permutation = [1, 0]
    %u = tensor.insert_slice %t into %acc[%i, 0, 0] [1, 16, 24] [1, 1, 1] : tensor<16x24xf32> into tensor<4x16x24xf32>
    scf.yield %u : tensor<4x16x24xf32>
  }
  return %r : tensor<4x16x24xf32>
}
