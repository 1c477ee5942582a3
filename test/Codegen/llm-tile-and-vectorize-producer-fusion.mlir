// RUN: llm-opt %s --llm-fuse="norm-prologue-max-rows=32" -split-input-file --convert-llm-to-linalg --canonicalize --llm-tile-and-vectorize="target=avx512-bf16 num-threads=2" --canonicalize --cse | FileCheck %s
// RUN: llm-opt %s --llm-fuse -split-input-file --convert-llm-to-linalg --canonicalize --llm-tile-and-vectorize="target=avx512-bf16 num-threads=2" --canonicalize --cse | FileCheck %s --check-prefix=OFF

// The bf16 dot-product kernel of a few rows (its block loop marked
// llm.fuse_producers by convert-llm-to-linalg) in a fusion group with a norm
// prologue (llm-fuse norm-prologue-max-rows): the norm's reductions and
// normalization are recomputed inside the block loop, before the rows are
// rounded to bf16, so the group is one loop nest. Without the prologue
// (OFF) the norm is loop nests of its own before the kernel.

// layer_norm -> matmul (2 blocks of 128 columns) -> bias.
// CHECK-LABEL: func.func @layer_norm_bf16_dot
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall (%{{.+}}) in (2)
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:             math.rsqrt
// CHECK:           arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK:           x86vector.avx512.dot
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     llm.fuse_producers
// CHECK:         return
// OFF-LABEL:   func.func @layer_norm_bf16_dot
// OFF:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// OFF:           math.rsqrt
// OFF:           scf.forall (%{{.+}}) in (2)
// OFF-NOT:         math.rsqrt
// OFF:             x86vector.avx512.dot
func.func @layer_norm_bf16_dot(%x: tensor<1x1x64xf32>) -> tensor<1x1x256xf32> {
  %g = llm.constant dense<1.5> : tensor<64xf32>
  %beta = llm.constant dense<0.25> : tensor<64xf32>
  %w = llm.constant dense<0.5> : tensor<64x256xf32>
  %b = llm.constant dense<0.125> : tensor<256xf32>
  %n = llm.layer_norm %x scale %g bias %beta {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x1x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x1x64xf32>
  %m = llm.matmul %n, %w {llm.lowering_config = {dot_product = "bf16"}} : (tensor<1x1x64xf32>, tensor<64x256xf32>) -> tensor<1x1x256xf32>
  %y = llm.add %m, %b : (tensor<1x1x256xf32>, tensor<256xf32>) -> tensor<1x1x256xf32>
  return %y : tensor<1x1x256xf32>
}

// -----

// rms_norm of 4 rows -> matmul ([N, K] weight): one loop nest.
// CHECK-LABEL: func.func @rms_norm_bf16_dot
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           math.rsqrt
// CHECK:           x86vector.avx512.dot
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @rms_norm_bf16_dot(%x: tensor<4x32xf32>) -> tensor<4x256xf32> {
  %g = llm.constant dense<0.75> : tensor<32xf32>
  %w = llm.constant dense<0.5> : tensor<256x32xf32>
  %n = llm.rms_norm %x weight %g {epsilon = 1.0e-5 : f32} : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %m = llm.matmul %n, %w {transpose_b, llm.lowering_config = {dot_product = "bf16"}} : (tensor<4x32xf32>, tensor<256x32xf32>) -> tensor<4x256xf32>
  return %m : tensor<4x256xf32>
}

// -----

// 24 rows: the norm is in the group (norm-prologue-max-rows=32), but the
// kernel's blocks would each normalize 24 rows, more than the 16 it takes
// (llm.fuse_producers = false): the norm's ops become one loop nest of
// their own (over tiles of rows) before the kernel, as a norm group would.
// CHECK-LABEL: func.func @rows24
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           math.rsqrt
// CHECK:         scf.forall
// CHECK-NOT:       math.rsqrt
// CHECK:           x86vector.avx512.dot
// CHECK:         return
func.func @rows24(%x: tensor<24x32xf32>) -> tensor<24x256xf32> {
  %w = llm.constant dense<0.5> : tensor<32x256xf32>
  %n = llm.rms_norm %x {epsilon = 1.0e-5 : f32} : (tensor<24x32xf32>) -> tensor<24x32xf32>
  %m = llm.matmul %n, %w {llm.lowering_config = {dot_product = "bf16"}} : (tensor<24x32xf32>, tensor<32x256xf32>) -> tensor<24x256xf32>
  return %m : tensor<24x256xf32>
}
