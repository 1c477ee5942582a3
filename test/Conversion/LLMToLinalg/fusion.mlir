// RUN: llm-opt %s -convert-llm-to-linalg -linalg-fuse-elementwise-ops \
// RUN:   -split-input-file | FileCheck %s

// The lowering's elementwise generics (identity output maps, broadcasting
// input maps, all-parallel) fuse with upstream linalg-fuse-elementwise-ops.

// matmul + bias + gelu: the matmul stays named, the bias add and the gelu
// become one generic. (With a 3-D activation the upstream pass also
// propagates the result's expand_shape into the matmul and generalizes it;
// the pipeline has to control that, not this lowering.)
// CHECK-LABEL: func.func @mlp_up
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[G:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %{{.+}} : tensor<8x64xf32>, tensor<64xf32>)
// CHECK: arith.addf
// CHECK: math.erf
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @mlp_up(%x: tensor<8x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  %1 = llm.add %0, %b : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %2 = llm.gelu %1 : tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

// -----

// SwiGLU-style chain: silu(a) * b + residual is one generic.
// CHECK-LABEL: func.func @swiglu
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @swiglu(%a: tensor<4x32xf16>, %b: tensor<4x32xf16>, %r: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %0 = llm.silu %a : tensor<4x32xf16>
  %1 = llm.mul %0, %b : (tensor<4x32xf16>, tensor<4x32xf16>) -> tensor<4x32xf16>
  %2 = llm.add %1, %r : (tensor<4x32xf16>, tensor<4x32xf16>) -> tensor<4x32xf16>
  return %2 : tensor<4x32xf16>
}
