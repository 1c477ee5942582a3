// RUN: llm-opt %s -convert-llm-to-linalg -llm-fuse-elementwise -split-input-file | FileCheck %s

// A [B, S, K] x [K, N] matmul is lowered as a collapsed 2-D linalg.matmul
// followed by an expand_shape; the reshape must not be folded into the
// contraction (which would turn it into a 3-D linalg.generic), while the
// bias add and gelu after it fuse into one generic.
// CHECK-LABEL: func.func @matmul_bias_gelu
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x256xf32>, tensor<256x768xf32>)
// CHECK: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @matmul_bias_gelu(%x: tensor<1x64x256xf32>, %w: tensor<256x768xf32>, %b: tensor<768xf32>) -> tensor<1x64x768xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x64x256xf32>, tensor<256x768xf32>) -> tensor<1x64x768xf32>
  %1 = llm.add %0, %b : (tensor<1x64x768xf32>, tensor<768xf32>) -> tensor<1x64x768xf32>
  %2 = llm.gelu %1 approximate <tanh> : tensor<1x64x768xf32>
  return %2 : tensor<1x64x768xf32>
}

// -----

// exp(x) * sigmoid(x) + y: one generic.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = llm.exp %x : tensor<4x8xf32>
  %1 = llm.sigmoid %x : tensor<4x8xf32>
  %2 = llm.mul %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = llm.add %2, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// A producer with two users is not duplicated: exp stays its own generic.
// CHECK-LABEL: func.func @shared_producer
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @shared_producer(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = llm.exp %x : tensor<4x8xf32>
  %1 = llm.neg %0 : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// max-fused-ops bounds the fused body (each relu is a maximumf and a yield):
// a chain of six relus with a bound of 6 operations becomes two generics of
// at most 6 operations (three relus each) instead of one of 12.
// RUN: llm-opt %s -convert-llm-to-linalg -llm-fuse-elementwise=max-fused-ops=6 -split-input-file | FileCheck %s --check-prefix=BOUND
// A negative limit is an error (it meant no limit).
// RUN: not llm-opt %s --llm-fuse-elementwise="max-fused-ops=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0
// NEGOPT0: error: llm-fuse-elementwise: max-fused-ops must be at least 0, got -1
// RUN: not llm-opt %s --llm-fuse-elementwise="max-fused-operands=-2" 2>&1 | FileCheck %s --check-prefix=NEGOPT1
// NEGOPT1: error: llm-fuse-elementwise: max-fused-operands must be at least 0, got -2
// BOUND-LABEL: func.func @relu_chain
// BOUND-COUNT-2: linalg.generic
// BOUND-NOT: linalg.generic
// BOUND: return
// The default bound (256) fuses the chain into one generic.
// CHECK-LABEL: func.func @relu_chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.relu %x : tensor<4x8xf32>
  %1 = llm.relu %0 : tensor<4x8xf32>
  %2 = llm.relu %1 : tensor<4x8xf32>
  %3 = llm.relu %2 : tensor<4x8xf32>
  %4 = llm.relu %3 : tensor<4x8xf32>
  %5 = llm.relu %4 : tensor<4x8xf32>
  return %5 : tensor<4x8xf32>
}

// -----

// max-fused-operands bounds the fused op's operands: a sum of four
// products of distinct inputs fuses within 6 operands into more than one
// generic, and into one by default.
// RUN: llm-opt %s -convert-llm-to-linalg -llm-fuse-elementwise=max-fused-operands=6 -split-input-file | FileCheck %s --check-prefix=OPERANDS
// OPERANDS-LABEL: func.func @wide_sum
// OPERANDS-COUNT-2: linalg.generic
// CHECK-LABEL: func.func @wide_sum
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @wide_sum(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %d: tensor<8xf32>, %e: tensor<8xf32>) -> tensor<8xf32> {
  %0 = llm.mul %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = llm.mul %c, %d : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = llm.add %0, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = llm.mul %e, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = llm.add %2, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %5 = llm.mul %4, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = llm.add %5, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %6 : tensor<8xf32>
}
