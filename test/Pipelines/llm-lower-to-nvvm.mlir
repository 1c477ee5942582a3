// RUN: llm-opt %s --llm-lower-to-nvvm="chip=sm_80 format=isa" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=BIN < %t.mlir
// RUN: llm-opt %s --llm-lower-to-nvvm="chip=sm_80,sm_90a format=isa" | FileCheck %s --check-prefix=CHIPS

// llm-lower-to-nvvm: one kernel per fusion group (norm, matmul + bias +
// gelu, softmax), all in one kernel module compiled to PTX; the block
// reductions of the norm and the softmax are warp shuffles and shared
// memory (bar.sync) in the PTX.

// CHECK-LABEL: llvm.func @block(
// CHECK-COUNT-3: gpu.launch_func <{{.*}}> @llm_kernels::
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @block(%x: tensor<64x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>, %w: tensor<256x512xf32>, %bias: tensor<512xf32>) -> tensor<64x512xf32> {
  %0 = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %1 = llm.matmul %0, %w : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %2 = llm.add %1, %bias : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  %3 = llm.gelu %2 : tensor<64x512xf32>
  %4 = llm.softmax %3 : tensor<64x512xf32>
  return %4 : tensor<64x512xf32>
}

// An elementwise chain is one kernel.
// CHECK-LABEL: llvm.func @chain(
// CHECK-COUNT-1: gpu.launch_func <{{.*}}> @llm_kernels::
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @chain(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = llm.add %x, %y : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %1 = llm.silu %0 : tensor<8x128xf32>
  %2 = llm.mul %1, %y : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  return %2 : tensor<8x128xf32>
}

// An attention (GQA, causal, bshd: read in place from its projections) is
// one flash kernel: a block per (batch, head, query tile), the tiles in
// workgroup memory (PTX .shared arrays).
// CHECK-LABEL: llvm.func @attention(
// CHECK-COUNT-1: gpu.launch_func <{{.*}}> @llm_kernels::@attention_forall_4
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @attention(%q: tensor<1x64x4x64xf32>, %k: tensor<1x64x2x64xf32>, %v: tensor<1x64x2x64xf32>) -> tensor<1x64x4x64xf32> {
  %0 = llm.attention %q, %k, %v {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x64x4x64xf32>, tensor<1x64x2x64xf32>, tensor<1x64x2x64xf32>) -> tensor<1x64x4x64xf32>
  return %0 : tensor<1x64x4x64xf32>
}

// One head and one query tile: a loop nest of one iteration stays one
// kernel (its dims mapped to blocks, so the canonicalizer keeps the loop).
// CHECK-LABEL: llvm.func @attention_one_block(
// CHECK-COUNT-1: gpu.launch_func <{{.*}}> @llm_kernels::@attention_one_block_forall_
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @attention_one_block(%q: tensor<1x1x4x64xf32>, %k: tensor<1x1x4x64xf32>, %v: tensor<1x1x4x64xf32>) -> tensor<1x1x4x64xf32> {
  %0 = llm.attention %q, %k, %v : (tensor<1x1x4x64xf32>, tensor<1x1x4x64xf32>, tensor<1x1x4x64xf32>) -> tensor<1x1x4x64xf32>
  return %0 : tensor<1x1x4x64xf32>
}

// BIN:       gpu.binary @llm_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx71">
// BIN-SAME:    .target sm_80
// BIN-SAME:    shfl.sync.bfly.b32
// BIN-SAME:    bar.sync
// BIN-SAME:    .visible .entry attention_forall_4(
// BIN-SAME:    .shared .align
// BIN-NOT:   gpu.binary

// CHIPS:     gpu.binary @llm_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx71">
// CHIPS-SAME:  .target sm_80
// CHIPS-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHIPS-SAME:  .target sm_90a
