// Matmuls that llm-lower-to-nvvm puts on tensor cores (f16 / bf16 inputs,
// f32 accumulation, M and N multiples of 64, K of 32: nvvm.mma.sync
// m16n8k16). The CPU emulator runs the same kernels, MMAs included
// (llm-emulate-gpu-kernels), in cuda-emulator.test, and
// scripts/gpu-check.sh runs them on a GPU, both against the CPU. bf16 cases take and return f32 and cast inside
// (numpy has no bf16), their inputs truncated to the integers -2..2 first:
// every partial sum is then exact, so the bf16 result is the same in any
// accumulation order (with arbitrary inputs the MMAs' order moved some
// results by one bf16 ulp against the CPU's, beyond any f32 tolerance).

func.func @tc_f16_bias(%x: tensor<128x96xf16>, %w: tensor<96x192xf16>, %b: tensor<192xf16>) -> tensor<128x192xf16> {
  %0 = llm.matmul %x, %w : (tensor<128x96xf16>, tensor<96x192xf16>) -> tensor<128x192xf16>
  %1 = llm.add %0, %b : (tensor<128x192xf16>, tensor<192xf16>) -> tensor<128x192xf16>
  return %1 : tensor<128x192xf16>
}

func.func @tc_bf16(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>) -> tensor<64x128xf32> {
  %c = llm.constant dense<3.0> : tensor<64x128xf32>
  %cw = llm.constant dense<3.0> : tensor<128x128xf32>
  %x3 = llm.mul %x, %c : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %w3 = llm.mul %w, %cw : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %xi = llm.cast %x3 : (tensor<64x128xf32>) -> tensor<64x128xi32>
  %wi = llm.cast %w3 : (tensor<128x128xf32>) -> tensor<128x128xi32>
  %xb = llm.cast %xi : (tensor<64x128xi32>) -> tensor<64x128xbf16>
  %wb = llm.cast %wi : (tensor<128x128xi32>) -> tensor<128x128xbf16>
  %0 = llm.matmul %xb, %wb : (tensor<64x128xbf16>, tensor<128x128xbf16>) -> tensor<64x128xbf16>
  %1 = llm.cast %0 : (tensor<64x128xbf16>) -> tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}

func.func @tc_bf16_transpose_b(%x: tensor<2x64x64xf32>, %w: tensor<192x64xf32>) -> tensor<2x64x192xf32> {
  %c = llm.constant dense<3.0> : tensor<2x64x64xf32>
  %cw = llm.constant dense<3.0> : tensor<192x64xf32>
  %x3 = llm.mul %x, %c : (tensor<2x64x64xf32>, tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %w3 = llm.mul %w, %cw : (tensor<192x64xf32>, tensor<192x64xf32>) -> tensor<192x64xf32>
  %xi = llm.cast %x3 : (tensor<2x64x64xf32>) -> tensor<2x64x64xi32>
  %wi = llm.cast %w3 : (tensor<192x64xf32>) -> tensor<192x64xi32>
  %xb = llm.cast %xi : (tensor<2x64x64xi32>) -> tensor<2x64x64xbf16>
  %wb = llm.cast %wi : (tensor<192x64xi32>) -> tensor<192x64xbf16>
  %0 = llm.matmul %xb, %wb {transpose_b} : (tensor<2x64x64xbf16>, tensor<192x64xbf16>) -> tensor<2x64x192xbf16>
  %1 = llm.cast %0 : (tensor<2x64x192xbf16>) -> tensor<2x64x192xf32>
  return %1 : tensor<2x64x192xf32>
}

func.func @tc_attention_f16(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %0 = llm.attention %q, %k, %v {causal}
      : (tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}
