// Execution check of llm-recompose: @main computes a layer norm, an RMS norm,
// an exact (erf) GELU, a tanh GELU, a SiLU and a masked attention in their
// decomposed forms. It runs through
// `llmc run` (JIT on the CPU) once as written and once after --llm-recompose
// (which must leave only the fused ops), on the same inputs, and
// Inputs/llm-recompose-exec.py compares the outputs one by one (f32:
// |a - b| <= 1e-6 + 1e-5 |b|) and each recomposed output against a float64
// numpy reference (same tolerance).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/llm-recompose-exec.py gen %t
// RUN: llm-opt %s --llm-recompose -o %t/recomposed.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/recomposed.mlir
// RUN: llmc run %s --input arg0=%t/x.npy --input arg1=%t/g.npy --input arg2=%t/b.npy --input arg3=%t/w.npy --input arg4=%t/q.npy --input arg5=%t/k.npy --input arg6=%t/v.npy --input arg7=%t/mask.npy --output-dir %t/decomposed
// RUN: llmc run %t/recomposed.mlir --input arg0=%t/x.npy --input arg1=%t/g.npy --input arg2=%t/b.npy --input arg3=%t/w.npy --input arg4=%t/q.npy --input arg5=%t/k.npy --input arg6=%t/v.npy --input arg7=%t/mask.npy --output-dir %t/recomposed
// RUN: %python %S/Inputs/llm-recompose-exec.py compare %t ln rms gelu_erf gelu silu attention | FileCheck %s

// CHECK: ln: PASS
// CHECK: rms: PASS
// CHECK: gelu_erf: PASS
// CHECK: gelu: PASS
// CHECK: silu: PASS
// CHECK: attention: PASS

// FUSED: llm.layer_norm %arg0 scale %arg1 bias %arg2 : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// FUSED: llm.rms_norm %arg0 weight %arg3 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// FUSED: llm.gelu %arg0 : tensor<4x16xf32>
// FUSED: llm.gelu %arg0 approximate <tanh>
// FUSED: llm.silu %arg0
// FUSED: llm.attention %arg4, %arg5, %arg6 mask %arg7 {scale = 2.500000e-01 : f32}
// FUSED-NOT: llm.{{(reduce_mean|sqrt|rsqrt|pow|div|mul|add|sub|erf|tanh|sigmoid|softmax|matmul|transpose) }}

func.func @main(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %w: tensor<16xf32>,
                %q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x8xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x8x16xf32>) {
  // LayerNorm, torch.onnx.export opset < 17 form.
  %two = llm.constant dense<2.0> : tensor<f32>
  %eps5 = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = llm.sub %x, %mean : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %dsq = llm.pow %d, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %var = llm.reduce_mean %dsq {axes = array<i64: -1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %ve = llm.add %var, %eps5 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %ve : tensor<4x1xf32>
  %n = llm.div %d, %std : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %ns = llm.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %ln = llm.add %ns, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>

  // RMSNorm, LLaMA form.
  %eps6 = llm.constant dense<1.0e-6> : tensor<f32>
  %xsq = llm.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = llm.reduce_mean %xsq {axes = array<i64: -1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps6 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %inv = llm.rsqrt %me : tensor<4x1xf32>
  %r = llm.mul %x, %inv : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %rms = llm.mul %w, %r : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>

  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>

  // GELU, erf form (torch.onnx.export).
  %s2 = llm.constant dense<1.4142135> : tensor<f32>
  %e0 = llm.div %x, %s2 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %e1 = llm.erf %e0 : tensor<4x16xf32>
  %e2 = llm.add %e1, %one : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %e3 = llm.mul %x, %half : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %gelu_erf = llm.mul %e3, %e2 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>

  // GELU, tanh form (GPT-2).
  %three = llm.constant dense<3.0> : tensor<f32>
  %kc = llm.constant dense<0.044715> : tensor<f32>
  %c = llm.constant dense<0.7978845608> : tensor<f32>
  %g0 = llm.pow %x, %three : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %g1 = llm.mul %kc, %g0 : (tensor<f32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %g2 = llm.add %x, %g1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %g3 = llm.mul %c, %g2 : (tensor<f32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %g4 = llm.tanh %g3 : tensor<4x16xf32>
  %g5 = llm.add %one, %g4 : (tensor<f32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %g6 = llm.mul %half, %x : (tensor<f32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %gelu = llm.mul %g6, %g5 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>

  // SiLU.
  %sig = llm.sigmoid %x : tensor<4x16xf32>
  %silu = llm.mul %sig, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>

  // Attention, torch.onnx.export form, additive mask.
  %c4 = llm.constant dense<4.0> : tensor<f32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %a0 = llm.matmul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %a1 = llm.div %a0, %c4 : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %a2 = llm.add %a1, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %a3 = llm.softmax %a2 {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %att = llm.matmul %a3, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>

  return %ln, %rms, %gelu_erf, %gelu, %silu, %att : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x8x16xf32>
}
