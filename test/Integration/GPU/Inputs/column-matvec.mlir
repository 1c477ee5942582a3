// Matvecs whose weight is [K, N], which llm-map-gpu-kernels distributes in
// column mode (a block per 32 outputs, warps splitting K, partial sums in
// workgroup memory): run by cuda-emulator.test on the emulator and checked
// against the CPU. Edge shapes: N not a multiple of 32 (idle lanes in the
// last tile), K not a multiple of warps x unroll (the remainder loop), three
// rows, a fused bias + gelu epilogue, f16.

func.func @mv_tail(%x: tensor<1x200xf32>, %w: tensor<200x100xf32>) -> tensor<1x100xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x200xf32>, tensor<200x100xf32>) -> tensor<1x100xf32>
  return %0 : tensor<1x100xf32>
}

func.func @mv_rows3_epilogue(%x: tensor<3x333xf32>, %w: tensor<333x64xf32>, %b: tensor<64xf32>) -> tensor<3x64xf32> {
  %0 = llm.matmul %x, %w : (tensor<3x333xf32>, tensor<333x64xf32>) -> tensor<3x64xf32>
  %1 = llm.add %0, %b : (tensor<3x64xf32>, tensor<64xf32>) -> tensor<3x64xf32>
  %2 = llm.gelu %1 : tensor<3x64xf32>
  return %2 : tensor<3x64xf32>
}

func.func @mv_f16(%x: tensor<1x256xf16>, %w: tensor<256x96xf16>) -> tensor<1x96xf16> {
  %0 = llm.matmul %x, %w : (tensor<1x256xf16>, tensor<256x96xf16>) -> tensor<1x96xf16>
  return %0 : tensor<1x96xf16>
}
