// With emit-remarks, every transpose left to run time says why it stays.
// RUN: llm-opt %s --llm-optimize-layout="weight-layout=kn emit-remarks" -split-input-file -verify-diagnostics -o %t.mlir

func.func @absorb(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %t = llm.transpose %b {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{runtime transpose: transpose_b of a computed operand (transposed at run time for enough rows of lhs)}}
  %0 = llm.matmul %a, %t : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// K and V come in [B, H, S, D], so attention keeps layout bhsd and the
// query's head split stays.
func.func @heads(%x: tensor<1x16x4x8xf32>, %kv: tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-remark @+1 {{runtime transpose: head split [B, S, H, D] -> [B, H, S, D]: llm.attention takes [B, H, S, D] operands}}
  %q = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32>
  %a = llm.attention %q, %kv, %kv {causal} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  // expected-remark @+1 {{runtime transpose: head merge [B, H, S, D] -> [B, S, H, D] after llm.attention, before the output projection}}
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32>
  return %m : tensor<1x16x4x8xf32>
}

// -----

func.func @other(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = llm.exp %x : tensor<4x8xf32>
  %y = llm.add %e, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{runtime transpose: no layout choice removes it: the operand comes from 'llm.add'}}
  %t = llm.transpose %y {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
