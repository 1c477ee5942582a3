// RUN: llm-opt %s --llm-select-lowering-config=target=avx512-bf16 --convert-llm-to-linalg --canonicalize --cse | FileCheck %s --check-prefix=ZMM
// RUN: llm-opt %s --llm-select-lowering-config=target=alderlake --convert-llm-to-linalg --canonicalize --cse | FileCheck %s --check-prefix=YMM

// The W8A8 sparse kernel (lowerSparseMatmulInteger) takes as many 4-byte
// steps of K per iteration of its block loop as keep the accumulators, the
// steps' weight vectors and their activation broadcasts in registers (LLVM
// issues an iteration's broadcasts first; a whole 16x16 block of 8 rows
// did not fit in 32 zmm registers and was spilled). Two 16x16 blocks, 16
// rows.
//
// AVX-512: tiles of 8 rows, one zmm per row; two steps per iteration (8
// accumulators + 2 x (8 broadcasts + 1 weight vector) <= 30), so 2 blocks
// x 2 iterations, 16 dot products each.
// ZMM:       scf.for %{{.*}} = %c0 to %c16 step %c8
// ZMM:       scf.for %[[I:.*]] = %c0 to %c4 step %c1 iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// ZMM-NEXT:    arith.divui %[[I]], %c2
// ZMM-NEXT:    arith.remui %[[I]], %c2
// ZMM-COUNT-16: "vpdpbusd $3, $2, $0"
// ZMM-NOT:     vpdpbusd
// ZMM:         scf.yield
//
// AVX-VNNI (VEX: 16 ymm): tiles of 4 rows by two ymm; one step per
// iteration (8 accumulators + 4 broadcasts + 2 weight vectors <= 14), so 2
// blocks x 4 iterations, 8 dot products each.
// YMM:       scf.for %{{.*}} = %c0 to %c16 step %c4
// YMM:       scf.for %[[I:.*]] = %c0 to %c8 step %c1 iter_args({{.*}}) -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// YMM-NEXT:    arith.divui %[[I]], %c4
// YMM-NEXT:    arith.remui %[[I]], %c4
// YMM-COUNT-8: "{vex} vpdpbusd $3, $2, $0"
// YMM-NOT:     vpdpbusd
// YMM:         scf.yield
func.func @w8a8_bsr16x16(%a: tensor<16x32xi8>) -> tensor<16x16xi32> {
  %b = llm.constant dense<3> : tensor<32x16xi8>
  %qa = quant.scast %a : tensor<16x32xi8> to tensor<16x32x!quant.uniform<u8:f32, 1.0:3>>
  %qb = quant.scast %b : tensor<32x16xi8> to tensor<32x16x!quant.uniform<i8:f32, 1.0:0>>
  %y = llm.matmul_integer %qa, %qb {llm.sparse_format = {format = "bsr16x16"}} : (tensor<16x32x!quant.uniform<u8:f32, 1.0:3>>, tensor<32x16x!quant.uniform<i8:f32, 1.0:0>>) -> tensor<16x16xi32>
  return %y : tensor<16x16xi32>
}
