// Matmuls that llm-map-gpu-kernels distributes as output tiles (a block per
// tile, A and B staged through workgroup memory, a register tile of outputs
// per thread): run by cuda-emulator.test on the emulator and checked against
// the CPU. Edge shapes: M, N not multiples of the tile (partial tiles) and K
// not a multiple of 16 (the remainder tile), a fused bias + gelu epilogue,
// a [N, K] weight (transpose_b), batch dims, f16, and a grid large enough
// for 64 x 64 tiles with a residual epilogue.

func.func @mt_tail_epilogue(%x: tensor<70x333xf32>, %w: tensor<333x100xf32>, %b: tensor<100xf32>) -> tensor<70x100xf32> {
  %0 = llm.matmul %x, %w : (tensor<70x333xf32>, tensor<333x100xf32>) -> tensor<70x100xf32>
  %1 = llm.add %0, %b : (tensor<70x100xf32>, tensor<100xf32>) -> tensor<70x100xf32>
  %2 = llm.gelu %1 : tensor<70x100xf32>
  return %2 : tensor<70x100xf32>
}

func.func @mt_transpose_b(%x: tensor<96x40xf32>, %w: tensor<72x40xf32>) -> tensor<96x72xf32> {
  %0 = llm.matmul %x, %w {transpose_b} : (tensor<96x40xf32>, tensor<72x40xf32>) -> tensor<96x72xf32>
  return %0 : tensor<96x72xf32>
}

func.func @mt_batch(%x: tensor<3x40x48xf32>, %w: tensor<3x48x36xf32>) -> tensor<3x40x36xf32> {
  %0 = llm.matmul %x, %w : (tensor<3x40x48xf32>, tensor<3x48x36xf32>) -> tensor<3x40x36xf32>
  return %0 : tensor<3x40x36xf32>
}

func.func @mt_f16(%x: tensor<96x64xf16>, %w: tensor<64x80xf16>) -> tensor<96x80xf16> {
  %0 = llm.matmul %x, %w : (tensor<96x64xf16>, tensor<64x80xf16>) -> tensor<96x80xf16>
  return %0 : tensor<96x80xf16>
}

func.func @mt_large_residual(%x: tensor<640x40xf32>, %w: tensor<40x704xf32>, %r: tensor<640x704xf32>) -> tensor<640x704xf32> {
  %0 = llm.matmul %x, %w : (tensor<640x40xf32>, tensor<40x704xf32>) -> tensor<640x704xf32>
  %1 = llm.add %0, %r : (tensor<640x704xf32>, tensor<640x704xf32>) -> tensor<640x704xf32>
  return %1 : tensor<640x704xf32>
}

// Attentions (by default the flash kernel). With attention=materialized,
// whose QK^T and PV are tiles, llm-form-gpu-kernels splits the
// attention's kernel into QK^T (with its scale and mask), the softmax rows
// and PV. Causal GQA (4 query heads on 2 KV heads), S 70 (partial tiles),
// head dim 40; and a masked f16 one.
func.func @attn_tiles_gqa_causal(%q: tensor<1x4x70x40xf32>, %k: tensor<1x2x70x40xf32>, %v: tensor<1x2x70x40xf32>) -> tensor<1x4x70x40xf32> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x4x70x40xf32>, tensor<1x2x70x40xf32>, tensor<1x2x70x40xf32>) -> tensor<1x4x70x40xf32>
  return %0 : tensor<1x4x70x40xf32>
}

func.func @attn_tiles_f16(%q: tensor<2x2x64x32xf16>, %k: tensor<2x2x64x32xf16>, %v: tensor<2x2x64x32xf16>) -> tensor<2x2x64x32xf16> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<2x2x64x32xf16>, tensor<2x2x64x32xf16>, tensor<2x2x64x32xf16>) -> tensor<2x2x64x32xf16>
  return %0 : tensor<2x2x64x32xf16>
}
