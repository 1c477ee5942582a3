// RUN: llm-opt %s -llm-recompose -split-input-file | FileCheck %s

// Positive cases: the decomposed chain becomes one fused op and the ops of the
// chain disappear (CHECK-NEXT from the function signature to the return
// leaves no room for any other op). Near misses (marked "near miss") stay as
// written: the pass neither folds nor reorders anything.

// d = x - reduce_mean(x, [-1]); var = reduce_mean(pow(d, 2), [-1]);
// d / sqrt(var + eps) * gamma + beta -> layer_norm(x, gamma, beta)
// (the torch.onnx.export opset < 17 form)
// CHECK-LABEL: func.func @ln_torch_export
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[R:.*]] = llm.layer_norm %[[X]] scale %[[G]] bias %[[B]] : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @ln_torch_export(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = llm.constant dense<2.0> : tensor<f32>
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %d = llm.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = llm.pow %d, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %ve = llm.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %std = llm.sqrt %ve : tensor<2x4x1xf32>
  %n = llm.div %d, %std : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = llm.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = llm.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// d = x - reduce_mean(x, [1]); var = reduce_mean(d * d, [1]);
// rsqrt(eps + var) * d -> layer_norm(x) {axis = -1}
// (positive axis, operands of the commutative ops swapped, no gamma/beta)
// CHECK-LABEL: func.func @ln_rsqrt_swapped
// CHECK-NEXT: %[[R:.*]] = llm.layer_norm %arg0 {epsilon = 9.99999997E-7 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @ln_rsqrt_swapped(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<1xf32>
  %mean = llm.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = llm.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %sq = llm.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %ve = llm.add %eps, %var : (tensor<1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %inv = llm.rsqrt %ve : tensor<4x1xf32>
  %y = llm.mul %inv, %d : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Multi-axis trailing reduction: axes [-2, -1] (given as [2, 1]) of a rank-3
// input, gamma and beta of the normalized shape 4x8, gamma on the left.
// -> layer_norm(x, gamma, beta) {axis = -2}
// CHECK-LABEL: func.func @ln_two_axes
// CHECK-NEXT: %[[R:.*]] = llm.layer_norm %arg0 scale %arg1 bias %arg2 {axis = -2 : i64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @ln_two_axes(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: 2, 1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %d = llm.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %sq = llm.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -2, -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %ve = llm.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %std = llm.sqrt %ve : tensor<2x1x1xf32>
  %n = llm.div %d, %std : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %s = llm.mul %g, %n : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y = llm.add %b, %s : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss (wrong axis): the mean is taken over axis 0, not a trailing axis.
// CHECK-LABEL: func.func @ln_wrong_axis
// CHECK-NOT: llm.layer_norm
// CHECK-NOT: llm.rms_norm
// CHECK: llm.reduce_mean
// CHECK: llm.sqrt
// CHECK: llm.div
func.func @ln_wrong_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: 0>, keepdims = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %d = llm.sub %x, %mean : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %sq = llm.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: 0>, keepdims = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %ve = llm.add %var, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %std = llm.sqrt %ve : tensor<1x8xf32>
  %y = llm.div %d, %std : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (different axes): mean over [-1] but variance over [-2, -1].
// CHECK-LABEL: func.func @ln_mismatched_axes
// CHECK-NOT: llm.layer_norm
// CHECK: llm.div
func.func @ln_mismatched_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %d = llm.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = llm.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -2, -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %ve = llm.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %std = llm.sqrt %ve : tensor<2x1x1xf32>
  %y = llm.div %d, %std : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss (epsilon in the wrong place): d / (sqrt(var) + eps).
// CHECK-LABEL: func.func @ln_eps_outside_sqrt
// CHECK-NOT: llm.layer_norm
// CHECK-NOT: llm.rms_norm
// CHECK: llm.sqrt
// CHECK: llm.add
// CHECK: llm.div
func.func @ln_eps_outside_sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = llm.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %sq = llm.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %std = llm.sqrt %var : tensor<4x1xf32>
  %se = llm.add %std, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %y = llm.div %d, %se : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (extra users): the variance is also returned, so the chain stays.
// CHECK-LABEL: func.func @ln_extra_user
// CHECK-NEXT: %[[EPS:.*]] = llm.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NEXT: %[[MEAN:.*]] = llm.reduce_mean %arg0 {axes = array<i64: -1>, keepdims = true}
// CHECK-NEXT: %[[D:.*]] = llm.sub %arg0, %[[MEAN]]
// CHECK-NEXT: %[[SQ:.*]] = llm.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[VAR:.*]] = llm.reduce_mean %[[SQ]] {axes = array<i64: -1>, keepdims = true}
// CHECK-NEXT: %[[VE:.*]] = llm.add %[[VAR]], %[[EPS]]
// CHECK-NEXT: %[[STD:.*]] = llm.sqrt %[[VE]]
// CHECK-NEXT: %[[Y:.*]] = llm.div %[[D]], %[[STD]]
// CHECK-NEXT: return %[[Y]], %[[VAR]]
func.func @ln_extra_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = llm.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %sq = llm.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %ve = llm.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %ve : tensor<4x1xf32>
  %y = llm.div %d, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y, %var : tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

// Near miss (gamma of the wrong shape): gamma has the full 4x8 shape instead
// of the normalized shape [8], so only the core is recomposed and the
// multiplication stays.
// CHECK-LABEL: func.func @ln_gamma_wrong_shape
// CHECK-NEXT: %[[N:.*]] = llm.layer_norm %arg0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = llm.mul %[[N]], %arg1
// CHECK-NEXT: return %[[Y]]
func.func @ln_gamma_wrong_shape(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-5> : tensor<f32>
  %mean = llm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = llm.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %sq = llm.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %ve = llm.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %ve : tensor<4x1xf32>
  %n = llm.div %d, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %y = llm.mul %n, %g : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x * rsqrt(reduce_mean(x * x, [-1]) + eps) * w -> rms_norm(x, weight = w)
// (LLaMA form, weight on the left)
// CHECK-LABEL: func.func @rms_llama
// CHECK-NEXT: %[[R:.*]] = llm.rms_norm %arg0 weight %arg1 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @rms_llama(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %me = llm.add %ms, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %inv = llm.rsqrt %me : tensor<2x4x1xf32>
  %n = llm.mul %x, %inv : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %y = llm.mul %w, %n : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// x / sqrt(reduce_mean(pow(x, 2), [1]) + eps) -> rms_norm(x) {epsilon = eps}
// CHECK-LABEL: func.func @rms_div_pow
// CHECK-NEXT: %[[R:.*]] = llm.rms_norm %arg0 {epsilon = 9.99999974E-6 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @rms_div_pow(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = llm.constant dense<2.0> : tensor<1xf32>
  %eps = llm.constant dense<1.0e-5> : tensor<1xf32>
  %sq = llm.pow %x, %two : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps : (tensor<4x1xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  %std = llm.sqrt %me : tensor<4x1xf32>
  %y = llm.div %x, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (wrong axis): the mean of squares is over axis 0.
// CHECK-LABEL: func.func @rms_wrong_axis
// CHECK-NOT: llm.rms_norm
// CHECK: llm.rsqrt
func.func @rms_wrong_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: 0>, keepdims = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %me = llm.add %ms, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %inv = llm.rsqrt %me : tensor<1x8xf32>
  %y = llm.mul %x, %inv : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (extra users): the squares are also returned.
// CHECK-LABEL: func.func @rms_extra_user
// CHECK-NOT: llm.rms_norm
// CHECK: llm.rsqrt
func.func @rms_extra_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %inv = llm.rsqrt %me : tensor<4x1xf32>
  %y = llm.mul %x, %inv : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y, %sq : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Near miss (numerator differs): y / sqrt(mean(x * x) + eps).
// CHECK-LABEL: func.func @rms_other_numerator
// CHECK-NOT: llm.rms_norm
// CHECK: llm.div
func.func @rms_other_numerator(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %me : tensor<4x1xf32>
  %y = llm.div %z, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x * 0.5 * (erf(x / 1.4142135) + 1) -> gelu(x)   (torch.onnx.export form)
// CHECK-LABEL: func.func @gelu_erf_torch
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_erf_torch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s2 = llm.constant dense<1.4142135> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.div %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.erf %0 : tensor<4x8xf32>
  %2 = llm.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = llm.mul %x, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = llm.mul %3, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// 0.5 * x * (1 + erf(x * 0.70710678)) -> gelu(x)   (Hugging Face form)
// CHECK-LABEL: func.func @gelu_erf_hf
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_erf_hf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r2 = llm.constant dense<0.70710678> : tensor<1xf32>
  %one = llm.constant dense<1.0> : tensor<1xf32>
  %half = llm.constant dense<0.5> : tensor<1xf32>
  %0 = llm.mul %half, %x : (tensor<1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = llm.mul %x, %r2 : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %2 = llm.erf %1 : tensor<4x8xf32>
  %3 = llm.add %one, %2 : (tensor<1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = llm.mul %0, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x * (0.5 * (1 + erf(x / sqrt(2)))) -> gelu(x)   (other association)
// CHECK-LABEL: func.func @gelu_erf_right_assoc
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_erf_right_assoc(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s2 = llm.constant dense<1.41421356> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.div %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.erf %0 : tensor<4x8xf32>
  %2 = llm.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = llm.mul %half, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = llm.mul %x, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * pow(x, 3))))
//   -> gelu(x) approximate <tanh>   (GPT-2 form)
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 approximate <tanh> : tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_tanh_pow(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = llm.constant dense<3.0> : tensor<f32>
  %k = llm.constant dense<0.044715> : tensor<f32>
  %c = llm.constant dense<0.7978845608> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.mul %k, %0 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = llm.add %x, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = llm.mul %c, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = llm.tanh %3 : tensor<4x8xf32>
  %5 = llm.add %one, %4 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = llm.mul %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = llm.mul %6, %5 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x * 0.5 * (tanh((x + x * x * x * 0.044715) * 0.79788456) + 1)
//   -> gelu(x) approximate <tanh>   (x^3 as products, operands swapped)
// CHECK-LABEL: func.func @gelu_tanh_cube
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 approximate <tanh> : tensor<2x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_tanh_cube(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %k = llm.constant dense<0.044715> : tensor<f32>
  %c = llm.constant dense<0.79788456> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %cube = llm.mul %sq, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = llm.mul %cube, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %2 = llm.add %x, %1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = llm.mul %2, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %4 = llm.tanh %3 : tensor<2x8xf32>
  %5 = llm.add %4, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %6 = llm.mul %x, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %y = llm.mul %6, %5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The GPT-2 form in an f16 export: 0.044715 and sqrt(2/pi) rounded to f16
// (0.0447083 and 0.797852; the first 1.5e-4 off, over the tolerance of
// 1e-4, but exactly 0.044715 rounded to f16).
// CHECK-LABEL: func.func @gelu_tanh_f16
// CHECK-NEXT: %[[R:.*]] = llm.gelu %arg0 approximate <tanh> : tensor<4x8xf16>
// CHECK-NEXT: return %[[R]]
func.func @gelu_tanh_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %three = llm.constant dense<3.0> : tensor<f16>
  %k = llm.constant dense<0.044715> : tensor<f16>
  %c = llm.constant dense<0.7978845608> : tensor<f16>
  %one = llm.constant dense<1.0> : tensor<f16>
  %half = llm.constant dense<0.5> : tensor<f16>
  %0 = llm.pow %x, %three : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %1 = llm.mul %k, %0 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %2 = llm.add %x, %1 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %3 = llm.mul %c, %2 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %4 = llm.tanh %3 : tensor<4x8xf16>
  %5 = llm.add %one, %4 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %6 = llm.mul %half, %x : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %y = llm.mul %6, %5 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// Near miss in bf16: 0.99609375 (1 - 2^-8) is within bf16's half ulp of 1
// but a bf16 value of its own, not 1 rounded: no gelu.
// CHECK-LABEL: func.func @gelu_erf_bf16_wrong_one
// CHECK-NOT: llm.gelu
// CHECK: llm.erf
func.func @gelu_erf_bf16_wrong_one(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %h = llm.constant dense<0.5> : tensor<bf16>
  %one = llm.constant dense<0.99609375> : tensor<bf16>
  %s = llm.constant dense<0.70710678> : tensor<bf16>
  %0 = llm.mul %x, %s : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  %1 = llm.erf %0 : tensor<8xbf16>
  %2 = llm.add %1, %one : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  %3 = llm.mul %x, %2 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %4 = llm.mul %3, %h : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  return %4 : tensor<8xbf16>
}

// -----

// Near miss in f16: 0.0448 is 1.9e-3 off 0.044715 (f16 stores 0.04479980),
// not 0.044715 rounded to f16.
// CHECK-LABEL: func.func @gelu_tanh_f16_wrong_coefficient
// CHECK-NOT: llm.gelu
// CHECK: llm.tanh
func.func @gelu_tanh_f16_wrong_coefficient(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %three = llm.constant dense<3.0> : tensor<f16>
  %k = llm.constant dense<0.0448> : tensor<f16>
  %c = llm.constant dense<0.7978845608> : tensor<f16>
  %one = llm.constant dense<1.0> : tensor<f16>
  %half = llm.constant dense<0.5> : tensor<f16>
  %0 = llm.pow %x, %three : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %1 = llm.mul %k, %0 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %2 = llm.add %x, %1 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %3 = llm.mul %c, %2 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %4 = llm.tanh %3 : tensor<4x8xf16>
  %5 = llm.add %one, %4 : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %6 = llm.mul %half, %x : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %y = llm.mul %6, %5 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// Near miss (wrong constant): 0.6 * x * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_wrong_half
// CHECK-NOT: llm.gelu
// CHECK: llm.erf
func.func @gelu_wrong_half(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s2 = llm.constant dense<1.4142135> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.6> : tensor<f32>
  %0 = llm.div %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.erf %0 : tensor<4x8xf32>
  %2 = llm.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = llm.mul %x, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = llm.mul %3, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (wrong constant): 0.04 instead of 0.044715 in the tanh form.
// CHECK-LABEL: func.func @gelu_tanh_wrong_coefficient
// CHECK-NOT: llm.gelu
// CHECK: llm.tanh
func.func @gelu_tanh_wrong_coefficient(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = llm.constant dense<3.0> : tensor<f32>
  %k = llm.constant dense<0.04> : tensor<f32>
  %c = llm.constant dense<0.7978845608> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.mul %k, %0 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = llm.add %x, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = llm.mul %c, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = llm.tanh %3 : tensor<4x8xf32>
  %5 = llm.add %one, %4 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = llm.mul %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = llm.mul %6, %5 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (extra users): erf(x / sqrt(2)) is also returned.
// CHECK-LABEL: func.func @gelu_extra_user
// CHECK-NOT: llm.gelu
// CHECK: llm.erf
func.func @gelu_extra_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s2 = llm.constant dense<1.4142135> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<f32>
  %0 = llm.div %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.erf %0 : tensor<4x8xf32>
  %2 = llm.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = llm.mul %x, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = llm.mul %3, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Near miss (broadcasting constant): the 0.5 has shape 3x4x8, so the product
// is larger than x and is not gelu(x).
// CHECK-LABEL: func.func @gelu_broadcasting_half
// CHECK-NOT: llm.gelu
// CHECK: llm.erf
func.func @gelu_broadcasting_half(%x: tensor<4x8xf32>) -> tensor<3x4x8xf32> {
  %s2 = llm.constant dense<1.4142135> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %half = llm.constant dense<0.5> : tensor<3x4x8xf32>
  %0 = llm.div %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = llm.erf %0 : tensor<4x8xf32>
  %2 = llm.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = llm.mul %x, %half : (tensor<4x8xf32>, tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %y = llm.mul %3, %2 : (tensor<3x4x8xf32>, tensor<4x8xf32>) -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}

// -----

// x * sigmoid(x) -> silu(x), sigmoid(x) * x -> silu(x)
// CHECK-LABEL: func.func @silu
// CHECK-NEXT: %[[A:.*]] = llm.silu %arg0 : tensor<4x8xf32>
// CHECK-NEXT: %[[B:.*]] = llm.silu %arg1 : tensor<4x8xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @silu(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = llm.sigmoid %x : tensor<4x8xf32>
  %1 = llm.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = llm.sigmoid %z : tensor<4x8xf32>
  %3 = llm.mul %2, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Near miss (sigmoid of a different value): x * sigmoid(z).
// CHECK-LABEL: func.func @silu_other_value
// CHECK-NOT: llm.silu
// CHECK: llm.sigmoid
// CHECK: llm.mul
func.func @silu_other_value(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.sigmoid %z : tensor<4x8xf32>
  %1 = llm.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Near miss (extra users): the sigmoid is also returned.
// CHECK-LABEL: func.func @silu_extra_user
// CHECK-NOT: llm.silu
// CHECK: llm.sigmoid
// CHECK: llm.mul
func.func @silu_extra_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = llm.sigmoid %x : tensor<4x8xf32>
  %1 = llm.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1, %0 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// softmax(matmul(q, transpose(k, [0, 1, 3, 2])) / 4 + mask) @ v
//   -> attention(q, k, v, mask) {scale = 0.25}   (torch.onnx.export form)
// CHECK-LABEL: func.func @attention_torch
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>, %[[M:.*]]: tensor<1x1x8x8xf32>)
// CHECK-NEXT: %[[R:.*]] = llm.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 2.500000e-01 : f32} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_torch(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %c = llm.constant dense<4.0> : tensor<f32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s = llm.matmul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %sm = llm.add %ss, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Gemma 2's attention-logit soft-capping (Hugging Face eager attention):
// softmax(tanh(q k^T * s / c) * c + mask) @ v
//   -> attention(q, k, v, mask) {scale = s, softcap = c}
// also with the division written as a product by 1 / c and the cap on the
// left of the product, and tanh alone (the cap 1, once x / 1 and x * 1 are
// folded). Near miss: the cap and its divisor differ (50 and 30): the
// chain stays as written.
// CHECK-LABEL: func.func @attention_softcap
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>, %[[M:.*]]: tensor<1x1x8x8xf32>)
// CHECK-NEXT: %[[R:.*]] = llm.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 2.500000e-01 : f32, softcap = 5.000000e+01 : f32} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @attention_softcap_reciprocal
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32}
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @attention_softcap_other_cap
// CHECK-NOT: llm.attention
// CHECK: llm.tanh
// CHECK-LABEL: func.func @attention_tanh_cap1
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {scale = 1.000000e+00 : f32, softcap = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_softcap(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %s0 = llm.constant dense<0.25> : tensor<f32>
  %c = llm.constant dense<50.0> : tensor<f32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %s = llm.matmul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s, %s0 : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %d = llm.div %ss, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %t = llm.tanh %d : tensor<1x2x8x8xf32>
  %cap = llm.mul %t, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %sm = llm.add %cap, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @attention_softcap_reciprocal(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %s0 = llm.constant dense<0.125> : tensor<f32>
  %r = llm.constant dense<0.0333333351> : tensor<f32>
  %c = llm.constant dense<30.0> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s0, %s : (tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %d = llm.mul %ss, %r : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %t = llm.tanh %d : tensor<1x2x8x8xf32>
  %cap = llm.mul %c, %t : (tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %cap {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @attention_softcap_other_cap(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %c = llm.constant dense<50.0> : tensor<f32>
  %c2 = llm.constant dense<30.0> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %d = llm.div %s, %c2 : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %t = llm.tanh %d : tensor<1x2x8x8xf32>
  %cap = llm.mul %t, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %cap {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @attention_tanh_cap1(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %t = llm.tanh %s : tensor<1x2x8x8xf32>
  %p = llm.softmax %t {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// softmax(0.125 * matmul(q, k) {transpose_b}, axis = 3) @ v
//   -> attention(q, k, v) {scale = 0.125}   (no mask, Dv != D, Skv != Sq)
// CHECK-LABEL: func.func @attention_transpose_b
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32} : (tensor<2x4x3x64xf32>, tensor<2x4x5x64xf32>, tensor<2x4x5x32xf32>) -> tensor<2x4x3x32xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_transpose_b(%q: tensor<2x4x3x64xf32>, %k: tensor<2x4x5x64xf32>, %v: tensor<2x4x5x32xf32>) -> tensor<2x4x3x32xf32> {
  %c = llm.constant dense<0.125> : tensor<1xf32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<2x4x3x64xf32>, tensor<2x4x5x64xf32>) -> tensor<2x4x3x5xf32>
  %ss = llm.mul %c, %s : (tensor<1xf32>, tensor<2x4x3x5xf32>) -> tensor<2x4x3x5xf32>
  %p = llm.softmax %ss {axis = 3 : i64} : tensor<2x4x3x5xf32>
  %o = llm.matmul %p, %v : (tensor<2x4x3x5xf32>, tensor<2x4x5x32xf32>) -> tensor<2x4x3x32xf32>
  return %o : tensor<2x4x3x32xf32>
}

// -----

// Near miss (wrong axis): the softmax is over the query axis 2.
// CHECK-LABEL: func.func @attention_softmax_axis
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_softmax_axis(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %c = llm.constant dense<0.25> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %ss {axis = 2 : i64} : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near miss (extra users): the attention probabilities are also returned.
// CHECK-LABEL: func.func @attention_extra_user
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_extra_user(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>) {
  %c = llm.constant dense<0.25> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %ss : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o, %p : tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>
}

// -----

// softmax(q @ k^T) @ v on rank-3 [B*H, S, D] operands
//   -> reshape(attention(reshape(q), reshape(k), reshape(v)) {scale = 1})
// CHECK-LABEL: func.func @attention_rank3
// CHECK-NEXT: %[[Q:.*]] = llm.reshape %arg0 : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[K:.*]] = llm.reshape %arg1 : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[V:.*]] = llm.reshape %arg2 : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[A:.*]] = llm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: %[[R:.*]] = llm.reshape %[[A]] : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_rank3(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %s = llm.matmul %q, %k {transpose_b} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %p = llm.softmax %s : tensor<2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// Near miss (broadcasting mask): the 2x2x8x8 mask makes the scores larger than
// q @ k^T (batch 1), which llm.attention cannot express.
// CHECK-LABEL: func.func @attention_broadcasting_mask
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_broadcasting_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<2x2x8x8xf32>) -> tensor<2x2x8x16xf32> {
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %sm = llm.add %s, %mask : (tensor<1x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %p = llm.softmax %sm : tensor<2x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<2x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<2x2x8x16xf32>
  return %o : tensor<2x2x8x16xf32>
}

// -----

// x * reciprocal(sqrt(reduce_mean(x * x, [-1]) + eps)) -> rms_norm(x)
// CHECK-LABEL: func.func @rms_reciprocal
// CHECK-NEXT: %[[R:.*]] = llm.rms_norm %arg0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @rms_reciprocal(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %me : tensor<4x1xf32>
  %inv = llm.reciprocal %std : tensor<4x1xf32>
  %y = llm.mul %inv, %x : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss (no epsilon): x / sqrt(reduce_mean(x * x, [-1])) has no `+ eps`.
// CHECK-LABEL: func.func @rms_no_eps
// CHECK-NOT: llm.rms_norm
// CHECK: llm.sqrt
// CHECK: llm.div
func.func @rms_no_eps(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %std = llm.sqrt %ms : tensor<4x1xf32>
  %y = llm.div %x, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// softmax(mask + matmul(q, k) {transpose_b} * 0.25) @ v
//   -> attention(q, k, v, mask) {scale = 0.25}   (mask on the left)
// CHECK-LABEL: func.func @attention_mask_left
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %arg3 {scale = 2.500000e-01 : f32} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<8x8xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_mask_left(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<1x2x8x16xf32> {
  %c = llm.constant dense<0.25> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %sm = llm.add %mask, %ss : (tensor<8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %sm : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near miss (scale not a constant): the scores are multiplied by a tensor.
// CHECK-LABEL: func.func @attention_scale_not_constant
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_scale_not_constant(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %c: tensor<1x2x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %ss = llm.mul %s, %c : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %ss : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// x * (1 / sqrt(reduce_mean(pow(x, 2), [2]) + eps)) * w -> rms_norm(x, w)
// (torch.onnx.export writes torch.rsqrt as 1 / sqrt; the constants are shared
// by two chains, as in an exported model)
// CHECK-LABEL: func.func @rms_torch_export
// CHECK-NEXT: %[[A:.*]] = llm.rms_norm %arg0 weight %arg1 : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK-NEXT: %[[B:.*]] = llm.rms_norm %[[A]] weight %arg1 : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK-NEXT: return %[[B]]
func.func @rms_torch_export(%x: tensor<1x8x32xf32>, %w: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %two = llm.constant dense<2.0> : tensor<f32>
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %one = llm.constant dense<1.0> : tensor<f32>
  %0 = llm.pow %x, %two : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
  %1 = llm.reduce_mean %0 {axes = array<i64: 2>, keepdims = true} : (tensor<1x8x32xf32>) -> tensor<1x8x1xf32>
  %2 = llm.add %1, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
  %3 = llm.sqrt %2 : tensor<1x8x1xf32>
  %4 = llm.div %one, %3 : (tensor<f32>, tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %5 = llm.mul %x, %4 : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %6 = llm.mul %5, %w : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  %10 = llm.pow %6, %two : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
  %11 = llm.reduce_mean %10 {axes = array<i64: 2>, keepdims = true} : (tensor<1x8x32xf32>) -> tensor<1x8x1xf32>
  %12 = llm.add %11, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
  %13 = llm.sqrt %12 : tensor<1x8x1xf32>
  %14 = llm.div %one, %13 : (tensor<f32>, tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %15 = llm.mul %6, %14 : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %16 = llm.mul %15, %w : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  return %16 : tensor<1x8x32xf32>
}

// -----

// Near miss (wrong constant): x * (2 / sqrt(mean(x^2) + eps)).
// CHECK-LABEL: func.func @rms_two_over_sqrt
// CHECK-NOT: llm.rms_norm
// CHECK: llm.div
func.func @rms_two_over_sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = llm.constant dense<1.0e-6> : tensor<f32>
  %c = llm.constant dense<2.0> : tensor<f32>
  %sq = llm.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ms = llm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %me = llm.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = llm.sqrt %me : tensor<4x1xf32>
  %inv = llm.div %c, %std : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = llm.mul %x, %inv : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// GPT-2 export: k^T is transpose(k', [0, 2, 3, 1]) of the [B, S, H, D] tensor
// k'; the key becomes transpose(k', [0, 2, 1, 3]).
// softmax(q @ k^T * 0.35355339 + mask, axis = 3) @ v -> attention
// CHECK-LABEL: func.func @attention_gpt2_export
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x8x8xf32>, %[[KP:.*]]: tensor<1x8x4x8xf32>, %[[V:.*]]: tensor<1x4x8x8xf32>, %[[M:.*]]: tensor<1x1x8x8xf32>)
// CHECK-NEXT: %[[K:.*]] = llm.transpose %[[KP]] {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[R:.*]] = llm.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 0.353553385 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_gpt2_export(%q: tensor<1x4x8x8xf32>, %kp: tensor<1x8x4x8xf32>, %v: tensor<1x4x8x8xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %kt = llm.transpose %kp {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x8xf32>) -> tensor<1x4x8x8xf32>
  %s = llm.matmul %q, %kt : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = llm.constant dense<0.353553385> : tensor<f32>
  %ss = llm.mul %s, %c : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %sm = llm.add %ss, %mask : (tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = llm.softmax %sm {axis = 3 : i64} : tensor<1x4x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// -----

// Near miss (transposed values): softmax(q @ k^T) @ v^T is not attention of v.
// CHECK-LABEL: func.func @attention_transposed_values
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_transposed_values(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = llm.softmax %s : tensor<1x2x8x8xf32>
  %o = llm.matmul %p, %v {transpose_b} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// x * cos + concat(-x[..., 2:], x[..., :2]) * sin -> rope(x, [0, 1])
//   (cos/sin: the rotate-half tables of positions 0, 1 for theta 10000)
// CHECK-LABEL: func.func @rope_rotate_half
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x2x4xf32>)
// CHECK-NEXT: %[[P:.*]] = llm.constant dense<[0, 1]> : tensor<2xi64>
// CHECK-NEXT: %[[R:.*]] = llm.rope %[[X]], %[[P]] : (tensor<1x2x2x4xf32>, tensor<2xi64>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @rope_rotate_half(%x: tensor<1x2x2x4xf32>) -> (tensor<1x2x2x4xf32>) {
  %cos = llm.constant dense<[[1.0, 1.0, 1.0, 1.0], [0.540302277, 0.999949992, 0.540302277, 0.999949992]]> : tensor<2x4xf32>
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0], [0.841471016, 0.00999983307, 0.841471016, 0.00999983307]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x2 : tensor<1x2x2x2xf32>
  %r = llm.concat %n, %x1 {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Same with tables built for theta 500000 (LLaMA 3): theta recovered.
//   x * cos + rotate_half(x) * sin -> rope(x, [0, 1]) {theta = 500000}
// CHECK-LABEL: func.func @rope_theta
// CHECK: llm.rope %{{.*}}, %{{.*}} {theta = 5.000000e+05 : f32}
// CHECK-NOT: llm.concat
func.func @rope_theta(%x: tensor<1x2x2x4xf32>) -> (tensor<1x2x2x4xf32>) {
  %cos = llm.constant dense<[[1.0, 1.0, 1.0, 1.0], [0.540302277, 0.999998987, 0.540302277, 0.999998987]]> : tensor<2x4xf32>
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0], [0.841471016, 0.00141421298, 0.841471016, 0.00141421298]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x2 : tensor<1x2x2x2xf32>
  %r = llm.concat %n, %x1 {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Near miss (tables of positions 1, 2, not 0, 1): untouched.
// CHECK-LABEL: func.func @rope_shifted_positions
// CHECK-NOT: llm.rope
// CHECK: llm.concat
func.func @rope_shifted_positions(%x: tensor<1x2x2x4xf32>) -> (tensor<1x2x2x4xf32>) {
  %cos = llm.constant dense<[[0.540302277, 0.999949992, 0.540302277, 0.999949992], [-0.416146815, 0.999800026, -0.416146815, 0.999800026]]> : tensor<2x4xf32>
  %sin = llm.constant dense<[[0.841471016, 0.00999983307, 0.841471016, 0.00999983307], [0.909297407, 0.0199986659, 0.909297407, 0.0199986659]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x2 : tensor<1x2x2x2xf32>
  %r = llm.concat %n, %x1 {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Near miss (concat(x2, -x1): the rotation the other way): untouched.
// CHECK-LABEL: func.func @rope_wrong_sign
// CHECK-NOT: llm.rope
// CHECK: llm.concat
func.func @rope_wrong_sign(%x: tensor<1x2x2x4xf32>) -> (tensor<1x2x2x4xf32>) {
  %cos = llm.constant dense<[[1.0, 1.0, 1.0, 1.0], [0.540302277, 0.999949992, 0.540302277, 0.999949992]]> : tensor<2x4xf32>
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0], [0.841471016, 0.00999983307, 0.841471016, 0.00999983307]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x1 : tensor<1x2x2x2xf32>
  %r = llm.concat %x2, %n {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Near miss (extra user: rotate_half(x) is also returned): untouched.
// CHECK-LABEL: func.func @rope_extra_user
// CHECK-NOT: llm.rope
// CHECK: llm.concat
func.func @rope_extra_user(%x: tensor<1x2x2x4xf32>) -> (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) {
  %cos = llm.constant dense<[[1.0, 1.0, 1.0, 1.0], [0.540302277, 0.999949992, 0.540302277, 0.999949992]]> : tensor<2x4xf32>
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0], [0.841471016, 0.00999983307, 0.841471016, 0.00999983307]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x2 : tensor<1x2x2x2xf32>
  %r = llm.concat %n, %x1 {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y, %r : tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>
}

// -----

// Near miss (cos is a function argument, not a constant table): untouched.
// CHECK-LABEL: func.func @rope_table_not_constant
// CHECK-NOT: llm.rope
// CHECK: llm.concat
func.func @rope_table_not_constant(%x: tensor<1x2x2x4xf32>, %cos: tensor<2x4xf32>) -> (tensor<1x2x2x4xf32>) {
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0], [0.841471016, 0.00999983307, 0.841471016, 0.00999983307]]> : tensor<2x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 0, 2>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x2xf32>
  %n = llm.neg %x2 : tensor<1x2x2x2xf32>
  %r = llm.concat %n, %x1 {axis = -1 : i64} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x2x4xf32>, tensor<2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Near miss (wrong axis: halves of the sequence axis 2, not of the head dim):
// untouched.
// CHECK-LABEL: func.func @rope_wrong_axis
// CHECK-NOT: llm.rope
// CHECK: llm.concat
func.func @rope_wrong_axis(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %cos = llm.constant dense<1.0> : tensor<4x4xf32>
  %sin = llm.constant dense<0.0> : tensor<4x4xf32>
  %x1 = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 2, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x4xf32>
  %x2 = llm.slice %x {starts = array<i64: 0, 0, 2, 0>, limits = array<i64: 1, 2, 4, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x4xf32>
  %n = llm.neg %x2 : tensor<1x2x2x4xf32>
  %r = llm.concat %n, %x1 {axis = 2 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x4x4xf32>
  %a = llm.mul %x, %cos : (tensor<1x2x4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = llm.mul %r, %sin : (tensor<1x2x4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = llm.add %a, %b : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// attention(mask = triu(-inf, 1)) -> attention {causal}
// CHECK-LABEL: func.func @causal_from_triu_inf
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @causal_from_triu_inf(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// attention(mask = tril(true)) -> attention {causal}
// CHECK-LABEL: func.func @causal_from_tril_i1
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @causal_from_tril_i1(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// attention(mask = triu(-1e4, 1)) -> attention {causal}   (GPT-2's mask;
//   exp(-1e4 + gap) is 0 in f32, see kExcludedMaskValue)
// CHECK-LABEL: func.func @causal_from_triu_1e4
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @causal_from_triu_1e4(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[0.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, -10000.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// attention(mask = 0) -> attention   (the mask keeps everything)
// CHECK-LABEL: func.func @mask_all_zero
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {scale = 5.000000e-01 : f32} :
// CHECK-NEXT: return %[[R]]
func.func @mask_all_zero(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<0.0> : tensor<4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// With kv_length, {causal} would align at the valid prefix L, not at Skv as
// the constant causal mask does: the mask stays. An all-kept mask still goes,
// and kv_length is kept.
// CHECK-LABEL: func.func @causal_mask_with_kv_length
// CHECK: %[[A:.*]] = llm.attention %arg0, %arg1, %arg2 mask %{{.*}} kv_length %arg3 {scale
// CHECK: %[[B:.*]] = llm.attention %arg0, %arg1, %arg2 kv_length %arg3 {scale = 5.000000e-01 : f32} :
// CHECK: return %[[A]], %[[B]]
func.func @causal_mask_with_kv_length(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %len: tensor<i64>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %m = llm.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %0 = llm.attention %q, %k, %v mask %m kv_length %len {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>, tensor<i64>) -> tensor<1x2x4x8xf32>
  %z = llm.constant dense<0.0> : tensor<4x4xf32>
  %1 = llm.attention %q, %k, %v mask %z kv_length %len {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>, tensor<i64>) -> tensor<1x2x4x8xf32>
  return %0, %1 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Near miss (one more excluded entry than causal): the mask stays.
// CHECK-LABEL: func.func @mask_not_causal
// CHECK: llm.attention %arg0, %arg1, %arg2 mask %{{.*}} {scale
func.func @mask_not_causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0xFF800000, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// Near miss (causal on head 0 only: varies over heads): the mask stays.
// CHECK-LABEL: func.func @mask_per_head
// CHECK: llm.attention %arg0, %arg1, %arg2 mask %{{.*}} {scale
func.func @mask_per_head(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x2x4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// Near miss (triu(-100): exp(-100) is not 0 in f32): the mask stays.
// CHECK-LABEL: func.func @mask_small_negative
// CHECK: llm.attention %arg0, %arg1, %arg2 mask %{{.*}} {scale
func.func @mask_small_negative(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = llm.constant dense<[[0.0, -100.0, -100.0, -100.0], [0.0, 0.0, -100.0, -100.0], [0.0, 0.0, 0.0, -100.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %0 = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// softmax(q @ transpose(rep(k)) * 0.5) @ rep(v), rep(x) = reshape(broadcast_to(
//   reshape(x) : 1x2x1x4x8) : 1x2x2x4x8) : 1x4x4x8
//   -> attention(q, k, v) {scale = 0.5}   (grouped-query: Hq 4, Hkv 2)
// CHECK-LABEL: func.func @attention_gqa_repeat
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = llm.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f32} : (tensor<1x4x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_gqa_repeat(%q: tensor<1x4x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %c = llm.constant dense<0.5> : tensor<f32>
  %k5 = llm.reshape %k : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kb = llm.broadcast_to %k5 : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kr = llm.reshape %kb : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %v5 = llm.reshape %v : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vb = llm.broadcast_to %v5 : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vr = llm.reshape %vb : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = llm.transpose %kr {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = llm.matmul %q, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %ss = llm.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %p = llm.softmax %ss {axis = -1 : i64} : tensor<1x4x4x4xf32>
  %o = llm.matmul %p, %vr : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %o : tensor<1x4x4x8xf32>
}

// -----

// Near miss (wrong scale position: the probabilities are scaled, not the
// scores): untouched.
// CHECK-LABEL: func.func @attention_scale_after_softmax
// CHECK-NOT: llm.attention
// CHECK: llm.softmax
func.func @attention_scale_after_softmax(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %c = llm.constant dense<0.5> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %p = llm.softmax %s {axis = -1 : i64} : tensor<1x2x4x4xf32>
  %ps = llm.mul %p, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %o = llm.matmul %ps, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// softmax((q * 0.25) @ k^T) @ v on rank-3 [B*H, S, D] operands (as
// torch.nn.MultiheadAttention exports it, scale on the query)
//   -> reshape(attention(reshape(q), reshape(k), reshape(v)) {scale = 0.25})
// CHECK-LABEL: func.func @attention_rank3_scaled_query
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x16xf32>, %[[K:.*]]: tensor<2x8x16xf32>, %[[V:.*]]: tensor<2x8x16xf32>)
// CHECK-NEXT: %[[Q4:.*]] = llm.reshape %[[Q]] : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[K4:.*]] = llm.reshape %[[K]] : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[V4:.*]] = llm.reshape %[[V]] : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[A:.*]] = llm.attention %[[Q4]], %[[K4]], %[[V4]] {scale = 2.500000e-01 : f32}
// CHECK-NEXT: %[[R:.*]] = llm.reshape %[[A]] : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @attention_rank3_scaled_query(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %c = llm.constant dense<0.25> : tensor<f32>
  %qs = llm.mul %q, %c : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  %s = llm.matmul %qs, %kt : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %p = llm.softmax %s {axis = 2 : i64} : tensor<2x8x8xf32>
  %o = llm.matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// Hugging Face GPT-2: torch.where(causal_mask, w, finfo.min) on the scores
//   select(c, q @ k^T / 4, -3.4e38) -> attention(q, k, v, mask = c)
//   -> attention {causal}   (c a constant lower-triangular i1 mask)
// CHECK-LABEL: func.func @attention_select_mask
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_select_mask(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x3x16xf32>, %v: tensor<1x2x3x16xf32>) -> tensor<1x2x3x16xf32> {
  %c = llm.constant dense<4.0> : tensor<f32>
  %min = llm.constant dense<-3.40282347E+38> : tensor<f32>
  %keep = llm.constant dense<[[[[true, false, false], [true, true, false], [true, true, true]]]]> : tensor<1x1x3x3xi1>
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x16xf32>) -> tensor<1x2x16x3xf32>
  %s = llm.matmul %q, %kt : (tensor<1x2x3x16xf32>, tensor<1x2x16x3xf32>) -> tensor<1x2x3x3xf32>
  %ss = llm.div %s, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %sm = llm.select %keep, %ss, %min : (tensor<1x1x3x3xi1>, tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x3xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// Hugging Face's padding mask, torch.where(keep, w, finfo.min), of a
// run-time mask: the excluded positions score finfo.min, so a row with
// every key excluded weighs its keys equally, as the graph does:
//   select(c, s, -3.4e38) -> attention(q, k, v, mask = c)
//                              {excluded_score = -3.4e38}
// CHECK-LABEL: func.func @attention_select_finite_runtime_mask
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<1x1x3x5xi1>
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %[[C]] {excluded_score = -3.40282347E+38 : f32, scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_select_finite_runtime_mask(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>, %c: tensor<1x1x3x5xi1>) -> tensor<1x2x3x16xf32> {
  %min = llm.constant dense<-3.40282347E+38> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x3x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x5xf32>
  %sm = llm.select %c, %s, %min : (tensor<1x1x3x5xi1>, tensor<1x2x3x5xf32>, tensor<f32>) -> tensor<1x2x3x5xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x5xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// An additive where(c, 0, m): with m = finfo.min, s + m rounds to m, so
// the mask is c with excluded_score m; with m = -1e9 it does not (s - 1e9
// keeps s to within 64), so the mask stays the float select.
//   s + select(c, 0, -3.4e38) -> attention(mask = c) {excluded_score}
//   s + select(c, 0, -1e9)    -> attention(mask = select(c, 0, -1e9))
// CHECK-LABEL: func.func @attention_additive_select_absorbing
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<1x1x3x5xi1>
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %[[C]] {excluded_score = -3.40282347E+38 : f32, scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_additive_select_absorbing(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>, %c: tensor<1x1x3x5xi1>) -> tensor<1x2x3x16xf32> {
  %zero = llm.constant dense<0.0> : tensor<f32>
  %min = llm.constant dense<-3.40282347E+38> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x3x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x5xf32>
  %m = llm.select %c, %zero, %min : (tensor<1x1x3x5xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x5xf32>
  %sm = llm.add %s, %m : (tensor<1x2x3x5xf32>, tensor<1x1x3x5xf32>) -> tensor<1x2x3x5xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x5xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}
// CHECK-LABEL: func.func @attention_additive_select_not_absorbing
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<1x1x3x5xi1>
// CHECK: %[[M:.*]] = llm.select %[[C]]
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_additive_select_not_absorbing(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>, %c: tensor<1x1x3x5xi1>) -> tensor<1x2x3x16xf32> {
  %zero = llm.constant dense<0.0> : tensor<f32>
  %big = llm.constant dense<-1.0e+09> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x3x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x5xf32>
  %m = llm.select %c, %zero, %big : (tensor<1x1x3x5xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x5xf32>
  %sm = llm.add %s, %m : (tensor<1x2x3x5xf32>, tensor<1x1x3x5xf32>) -> tensor<1x2x3x5xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x5xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// masked_fill(pad, -inf) of a run-time mask: select(pad, -inf, s)
//   -> attention(q, k, v, mask = logical_not(pad))
// CHECK-LABEL: func.func @attention_select_runtime_mask
// CHECK-SAME: %[[PAD:[a-z0-9]+]]: tensor<1x1x1x5xi1>
// CHECK-NEXT: %[[KEEP:.*]] = llm.logical_not %[[PAD]]
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %[[KEEP]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_select_runtime_mask(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>, %pad: tensor<1x1x1x5xi1>) -> tensor<1x2x3x16xf32> {
  %inf = llm.constant dense<0xFF800000> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x3x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x5xf32>
  %sm = llm.select %pad, %inf, %s : (tensor<1x1x1x5xi1>, tensor<f32>, tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x5xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// torch >= 2 exports F.scaled_dot_product_attention with the scale split
// over q and k^T, and a bool mask as an additive where(mask, 0, -inf):
//   (q * 0.5) @ (k^T * 0.5) + select(m, 0, -inf)
//   -> attention(q, k, v, mask = m) {scale = 0.25}
// CHECK-LABEL: func.func @attention_sdpa_export
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<1x1x3x3xi1>
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[R]]
func.func @attention_sdpa_export(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x3x16xf32>, %v: tensor<1x2x3x16xf32>, %m: tensor<1x1x3x3xi1>) -> tensor<1x2x3x16xf32> {
  %h = llm.constant dense<0.5> : tensor<f32>
  %zero = llm.constant dense<0.0> : tensor<f32>
  %inf = llm.constant dense<0xFF800000> : tensor<f32>
  %qs = llm.mul %q, %h : (tensor<1x2x3x16xf32>, tensor<f32>) -> tensor<1x2x3x16xf32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x16xf32>) -> tensor<1x2x16x3xf32>
  %ks = llm.mul %kt, %h : (tensor<1x2x16x3xf32>, tensor<f32>) -> tensor<1x2x16x3xf32>
  %s = llm.matmul %qs, %ks : (tensor<1x2x3x16xf32>, tensor<1x2x16x3xf32>) -> tensor<1x2x3x3xf32>
  %add = llm.select %m, %zero, %inf : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %sm = llm.add %s, %add : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x3xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// Near miss: select(c, s, -1) does not exclude (-1 is a real score), so the
// select stays and no attention is formed.
// CHECK-LABEL: func.func @attention_select_not_excluded
// CHECK-NOT: llm.attention
// CHECK: llm.select
// CHECK: llm.softmax
func.func @attention_select_not_excluded(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x3x16xf32>, %v: tensor<1x2x3x16xf32>, %c: tensor<1x1x3x3xi1>) -> tensor<1x2x3x16xf32> {
  %m1 = llm.constant dense<-1.0> : tensor<f32>
  %s = llm.matmul %q, %k {transpose_b} : (tensor<1x2x3x16xf32>, tensor<1x2x3x16xf32>) -> tensor<1x2x3x3xf32>
  %sm = llm.select %c, %s, %m1 : (tensor<1x1x3x3xi1>, tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x2x3x3xf32>
  %o = llm.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x16xf32>) -> tensor<1x2x3x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// Hugging Face LLaMA's causal mask expanded to the batch ([B, 1, S, S], the
// same matrix for every batch index) -> attention {causal}.
// CHECK-LABEL: func.func @causal_from_batched_mask
// CHECK-NEXT: %[[R:.*]] = llm.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f32} : (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @causal_from_batched_mask(%q: tensor<2x2x2x8xf32>, %k: tensor<2x2x2x8xf32>, %v: tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xf32> {
  %m = llm.constant dense<[[[[0.0, -3.40282347E+38], [0.0, 0.0]]], [[[0.0, -3.40282347E+38], [0.0, 0.0]]]]> : tensor<2x1x2x2xf32>
  %r = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x1x2x2xf32>) -> tensor<2x2x2x8xf32>
  return %r : tensor<2x2x2x8xf32>
}

// -----

// Near miss: a [B, 1, S, S] mask that differs between batch indices (padding
// in batch 1) is not causal and stays.
// CHECK-LABEL: func.func @batched_mask_not_causal
// CHECK: llm.attention %arg0, %arg1, %arg2 mask
func.func @batched_mask_not_causal(%q: tensor<2x2x2x8xf32>, %k: tensor<2x2x2x8xf32>, %v: tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xf32> {
  %m = llm.constant dense<[[[[0.0, -3.40282347E+38], [0.0, 0.0]]], [[[0.0, -3.40282347E+38], [-3.40282347E+38, 0.0]]]]> : tensor<2x1x2x2xf32>
  %r = llm.attention %q, %k, %v mask %m {scale = 0.5 : f32} : (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x1x2x2xf32>) -> tensor<2x2x2x8xf32>
  return %r : tensor<2x2x2x8xf32>
}

// -----

// Near misses (hostile-input review): with Sq > Skv the first rows of a
// "causal" float mask exclude every key; a finite mask (-1e4) leaves them a
// softmax of the scores where {causal} would give 0, so the mask stays; so
// does a mask over zero keys.
// CHECK-LABEL: func.func @causal_sq_gt_skv_float
// CHECK: llm.attention %arg0, %arg1, %arg2 mask
// CHECK-LABEL: func.func @causal_zero_keys
// CHECK: llm.attention %arg0, %arg1, %arg2 mask
func.func @causal_sq_gt_skv_float(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x2x8xf32>, %v: tensor<1x1x2x8xf32>) -> tensor<1x1x4x8xf32> {
  %m = llm.constant dense<[[-1.0e4, -1.0e4], [-1.0e4, -1.0e4], [0.0, -1.0e4], [0.0, 0.0]]> : tensor<4x2xf32>
  %a = llm.attention %q, %k, %v mask %m : (tensor<1x1x4x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<4x2xf32>) -> tensor<1x1x4x8xf32>
  return %a : tensor<1x1x4x8xf32>
}
func.func @causal_zero_keys(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x0x8xf32>, %v: tensor<1x1x0x8xf32>) -> tensor<1x1x4x8xf32> {
  %m = llm.constant dense<0.0> : tensor<4x0xf32>
  %a = llm.attention %q, %k, %v mask %m : (tensor<1x1x4x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>, tensor<4x0xf32>) -> tensor<1x1x4x8xf32>
  return %a : tensor<1x1x4x8xf32>
}
// -----

// Rows flattened around row-wise ops (Hugging Face's Conv1D: x.view(-1, D),
// addmm, .view(B, S, N)): the matmul and its bias take the [B, S] rows as
// they are, and both reshapes disappear.
// CHECK-LABEL: func.func @conv1d_rows
// CHECK-SAME: (%[[X:.+]]: tensor<2x7x48xf32>, %[[W:.+]]: tensor<48x144xf32>, %[[B:.+]]: tensor<144xf32>)
// CHECK-NEXT: %[[M:.+]] = llm.matmul %[[X]], %[[W]] : (tensor<2x7x48xf32>, tensor<48x144xf32>) -> tensor<2x7x144xf32>
// CHECK-NEXT: %[[A:.+]] = llm.add %[[M]], %[[B]] : (tensor<2x7x144xf32>, tensor<144xf32>) -> tensor<2x7x144xf32>
// CHECK-NEXT: return %[[A]]
func.func @conv1d_rows(%x: tensor<2x7x48xf32>, %w: tensor<48x144xf32>, %b: tensor<144xf32>) -> tensor<2x7x144xf32> {
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.matmul %0, %w : (tensor<14x48xf32>, tensor<48x144xf32>) -> tensor<14x144xf32>
  %2 = llm.add %1, %b : (tensor<14x144xf32>, tensor<144xf32>) -> tensor<14x144xf32>
  %3 = llm.reshape %2 : (tensor<14x144xf32>) -> tensor<2x7x144xf32>
  return %3 : tensor<2x7x144xf32>
}

// -----

// torch.nn.MultiheadAttention's output projection: heads [S, B*H, D] merged
// to [S*B, E] rows, restored as [S, B, E]. The rows become [S, B, E] at
// once (a reshape that keeps S whole); a transposed weight, a residual
// that is itself flattened and a layer norm with a positive axis (now
// counted from the end: the default, -1) follow the rows.
// CHECK-LABEL: func.func @mha_out_rows
// CHECK-SAME: (%[[H:.+]]: tensor<7x6x16xf32>, %[[W:.+]]: tensor<48x48xf32>, %[[R:.+]]: tensor<7x2x48xf32>, %[[G:.+]]: tensor<48xf32>)
// CHECK-NEXT: %[[X:.+]] = llm.reshape %[[H]] : (tensor<7x6x16xf32>) -> tensor<7x2x48xf32>
// CHECK-NEXT: %[[M:.+]] = llm.matmul %[[X]], %[[W]] {transpose_b} : (tensor<7x2x48xf32>, tensor<48x48xf32>) -> tensor<7x2x48xf32>
// CHECK-NEXT: %[[A:.+]] = llm.add %[[R]], %[[M]] : (tensor<7x2x48xf32>, tensor<7x2x48xf32>) -> tensor<7x2x48xf32>
// CHECK-NEXT: %[[N:.+]] = llm.layer_norm %[[A]] scale %[[G]] : (tensor<7x2x48xf32>, tensor<48xf32>) -> tensor<7x2x48xf32>
// CHECK-NEXT: return %[[N]]
func.func @mha_out_rows(%h: tensor<7x6x16xf32>, %w: tensor<48x48xf32>, %r: tensor<7x2x48xf32>, %g: tensor<48xf32>) -> tensor<7x2x48xf32> {
  %0 = llm.reshape %h : (tensor<7x6x16xf32>) -> tensor<14x48xf32>
  %1 = llm.matmul %0, %w {transpose_b} : (tensor<14x48xf32>, tensor<48x48xf32>) -> tensor<14x48xf32>
  %r2 = llm.reshape %r : (tensor<7x2x48xf32>) -> tensor<14x48xf32>
  %2 = llm.add %r2, %1 : (tensor<14x48xf32>, tensor<14x48xf32>) -> tensor<14x48xf32>
  %3 = llm.layer_norm %2 scale %g {axis = 1 : i64} : (tensor<14x48xf32>, tensor<48xf32>) -> tensor<14x48xf32>
  %4 = llm.reshape %3 : (tensor<14x48xf32>) -> tensor<7x2x48xf32>
  return %4 : tensor<7x2x48xf32>
}

// -----

// Near misses: rows that are one dimension ([1, S] is [S] already); a
// value of the chain with another user; an op that mixes rows (a softmax
// over them); a transposed lhs; a bias that varies along the rows but is
// not flattened rows itself; a reshape that does not restore the rows
// (the last dimension changes).
// CHECK-LABEL: func.func @rows_one_dim
// CHECK: llm.reshape %arg0 : (tensor<1x7x48xf32>) -> tensor<7x48xf32>
// CHECK-LABEL: func.func @rows_other_user
// CHECK: llm.reshape %arg0 : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
// CHECK-LABEL: func.func @rows_mixed
// CHECK: llm.reshape %arg0 : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
// CHECK-LABEL: func.func @rows_transpose_a
// CHECK: llm.reshape %arg0 : (tensor<2x24x8xf32>) -> tensor<48x8xf32>
// CHECK-LABEL: func.func @rows_bias_arg
// CHECK: llm.reshape %arg0 : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
// CHECK-LABEL: func.func @rows_not_restored
// CHECK: llm.reshape %arg0 : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
func.func @rows_one_dim(%x: tensor<1x7x48xf32>, %w: tensor<48x16xf32>) -> tensor<1x7x16xf32> {
  %0 = llm.reshape %x : (tensor<1x7x48xf32>) -> tensor<7x48xf32>
  %1 = llm.matmul %0, %w : (tensor<7x48xf32>, tensor<48x16xf32>) -> tensor<7x16xf32>
  %2 = llm.reshape %1 : (tensor<7x16xf32>) -> tensor<1x7x16xf32>
  return %2 : tensor<1x7x16xf32>
}
func.func @rows_other_user(%x: tensor<2x7x48xf32>, %w: tensor<48x16xf32>) -> (tensor<2x7x16xf32>, tensor<14x16xf32>) {
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.matmul %0, %w : (tensor<14x48xf32>, tensor<48x16xf32>) -> tensor<14x16xf32>
  %2 = llm.relu %1 : tensor<14x16xf32>
  %3 = llm.reshape %2 : (tensor<14x16xf32>) -> tensor<2x7x16xf32>
  return %3, %1 : tensor<2x7x16xf32>, tensor<14x16xf32>
}
func.func @rows_mixed(%x: tensor<2x7x48xf32>) -> tensor<2x7x48xf32> {
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.softmax %0 {axis = 0 : i64} : tensor<14x48xf32>
  %2 = llm.reshape %1 : (tensor<14x48xf32>) -> tensor<2x7x48xf32>
  return %2 : tensor<2x7x48xf32>
}
func.func @rows_transpose_a(%x: tensor<2x24x8xf32>, %w: tensor<48x16xf32>) -> tensor<2x4x16xf32> {
  %0 = llm.reshape %x : (tensor<2x24x8xf32>) -> tensor<48x8xf32>
  %1 = llm.matmul %0, %w {transpose_a} : (tensor<48x8xf32>, tensor<48x16xf32>) -> tensor<8x16xf32>
  %2 = llm.reshape %1 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
  return %2 : tensor<2x4x16xf32>
}
func.func @rows_bias_arg(%x: tensor<2x7x48xf32>, %b: tensor<14x48xf32>) -> tensor<2x7x48xf32> {
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.add %0, %b : (tensor<14x48xf32>, tensor<14x48xf32>) -> tensor<14x48xf32>
  %2 = llm.reshape %1 : (tensor<14x48xf32>) -> tensor<2x7x48xf32>
  return %2 : tensor<2x7x48xf32>
}
func.func @rows_not_restored(%x: tensor<2x7x48xf32>) -> tensor<2x7x24x2xf32> {
  %0 = llm.reshape %x : (tensor<2x7x48xf32>) -> tensor<14x48xf32>
  %1 = llm.relu %0 : tensor<14x48xf32>
  %2 = llm.reshape %1 : (tensor<14x48xf32>) -> tensor<2x7x24x2xf32>
  return %2 : tensor<2x7x24x2xf32>
}

// -----

// Attention scores over merged heads (GPT-NeoX's baddbmm): q and k viewed
// [B*H, S, D], a batched matmul by k^T, scaled, zeros added (baddbmm's
// input), viewed back to [B, H, S, S]. The batch of the matmul is
// unflattened: the matmul, the transpose (now [0, 1, 3, 2]), the scale and
// the zeros take [B, H] as they are, and every reshape disappears.
// CHECK-LABEL: func.func @merged_heads_scores
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x7x16xf32>, %[[K:.+]]: tensor<2x3x7x16xf32>)
// CHECK-NOT: llm.reshape
// CHECK: %[[KT:.+]] = llm.transpose %[[K]] {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x16x7xf32>
// CHECK: %[[S:.+]] = llm.matmul %[[Q]], %[[KT]] : (tensor<2x3x7x16xf32>, tensor<2x3x16x7xf32>) -> tensor<2x3x7x7xf32>
// CHECK: llm.mul %[[S]], %{{.+}} : (tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x7x7xf32>
// CHECK: llm.constant dense<0.000000e+00> : tensor<2x3x7x7xf32>
// CHECK-NOT: llm.reshape
func.func @merged_heads_scores(%q: tensor<2x3x7x16xf32>, %k: tensor<2x3x7x16xf32>) -> tensor<2x3x7x7xf32> {
  %q3 = llm.reshape %q : (tensor<2x3x7x16xf32>) -> tensor<6x7x16xf32>
  %k3 = llm.reshape %k : (tensor<2x3x7x16xf32>) -> tensor<6x7x16xf32>
  %kt = llm.transpose %k3 {permutation = array<i64: 0, 2, 1>} : (tensor<6x7x16xf32>) -> tensor<6x16x7xf32>
  %s = llm.matmul %q3, %kt : (tensor<6x7x16xf32>, tensor<6x16x7xf32>) -> tensor<6x7x7xf32>
  %c = llm.constant dense<0.25> : tensor<f32>
  %ss = llm.mul %s, %c : (tensor<6x7x7xf32>, tensor<f32>) -> tensor<6x7x7xf32>
  %z = llm.constant dense<0.0> : tensor<6x7x7xf32>
  %sz = llm.add %ss, %z : (tensor<6x7x7xf32>, tensor<6x7x7xf32>) -> tensor<6x7x7xf32>
  %r = llm.reshape %sz : (tensor<6x7x7xf32>) -> tensor<2x3x7x7xf32>
  return %r : tensor<2x3x7x7xf32>
}

// -----

// where(causal, scores, finfo.min) + padding mask (Hugging Face GPT-2 and
// GPT-NeoX with an attention_mask): one attention whose float mask is
// select(causal, p, p + finfo.min), the graph's scores at every position
// (combineMasks).
// CHECK-LABEL: func.func @where_then_added_mask
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x7x16xf32>, %[[K:.+]]: tensor<2x3x7x16xf32>, %[[V:.+]]: tensor<2x3x7x16xf32>, %[[C:.+]]: tensor<1x1x7x7xi1>, %[[P:.+]]: tensor<2x1x1x7xf32>)
// CHECK: %[[E:.+]] = llm.constant dense<-3.40282347E+38> : tensor<2x1x1x7xf32>
// CHECK: %[[PE:.+]] = llm.add %[[P]], %[[E]] : (tensor<2x1x1x7xf32>, tensor<2x1x1x7xf32>) -> tensor<2x1x1x7xf32>
// CHECK: %[[M:.+]] = llm.select %[[C]], %[[P]], %[[PE]] : (tensor<1x1x7x7xi1>, tensor<2x1x1x7xf32>, tensor<2x1x1x7xf32>) -> tensor<2x1x7x7xf32>
// CHECK: %[[A:.+]] = llm.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 2.500000e-01 : f32}
// CHECK-NOT: llm.softmax
// CHECK: return %[[A]]
func.func @where_then_added_mask(%q: tensor<2x3x7x16xf32>, %k: tensor<2x3x7x16xf32>, %v: tensor<2x3x7x16xf32>, %c: tensor<1x1x7x7xi1>, %p: tensor<2x1x1x7xf32>) -> tensor<2x3x7x16xf32> {
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x16x7xf32>
  %s = llm.matmul %q, %kt : (tensor<2x3x7x16xf32>, tensor<2x3x16x7xf32>) -> tensor<2x3x7x7xf32>
  %sc = llm.constant dense<0.25> : tensor<f32>
  %ss = llm.mul %s, %sc : (tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x7x7xf32>
  %min = llm.constant dense<-3.40282347E+38> : tensor<f32>
  %t = llm.select %c, %ss, %min : (tensor<1x1x7x7xi1>, tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x7x7xf32>
  %u = llm.add %t, %p : (tensor<2x3x7x7xf32>, tensor<2x1x1x7xf32>) -> tensor<2x3x7x7xf32>
  %w = llm.softmax %u {axis = 3 : i64} : tensor<2x3x7x7xf32>
  %o = llm.matmul %w, %v : (tensor<2x3x7x7xf32>, tensor<2x3x7x16xf32>) -> tensor<2x3x7x16xf32>
  return %o : tensor<2x3x7x16xf32>
}

// -----

// Near miss: an excluded value that does not absorb the scores (-1e4):
// s + fl(-1e4 + p) is not the graph's fl(-1e4 + p), so the chain stays.
// CHECK-LABEL: func.func @where_then_added_mask_not_absorbing
// CHECK: llm.softmax
// CHECK-NOT: llm.attention
func.func @where_then_added_mask_not_absorbing(%q: tensor<2x3x7x16xf32>, %k: tensor<2x3x7x16xf32>, %v: tensor<2x3x7x16xf32>, %c: tensor<1x1x7x7xi1>, %p: tensor<2x1x1x7xf32>) -> tensor<2x3x7x16xf32> {
  %kt = llm.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x3x7x16xf32>) -> tensor<2x3x16x7xf32>
  %s = llm.matmul %q, %kt : (tensor<2x3x7x16xf32>, tensor<2x3x16x7xf32>) -> tensor<2x3x7x7xf32>
  %m = llm.constant dense<-1.0e+04> : tensor<f32>
  %t = llm.select %c, %s, %m : (tensor<1x1x7x7xi1>, tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x7x7xf32>
  %u = llm.add %t, %p : (tensor<2x3x7x7xf32>, tensor<2x1x1x7xf32>) -> tensor<2x3x7x7xf32>
  %w = llm.softmax %u {axis = 3 : i64} : tensor<2x3x7x7xf32>
  %o = llm.matmul %w, %v : (tensor<2x3x7x7xf32>, tensor<2x3x7x16xf32>) -> tensor<2x3x7x16xf32>
  return %o : tensor<2x3x7x16xf32>
}
