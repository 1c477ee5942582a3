// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the llm dialect.

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'llm.add' operands have different element types ('f32' vs 'f16')}}
  // expected-error @+1 {{'llm.add' op failed to infer returned types}}
  %0 = llm.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'llm.mul' operand shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{'llm.mul' op failed to infer returned types}}
  %0 = llm.mul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'llm.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'llm.sub' op failed to infer returned types}}
  %0 = llm.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @binary_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = llm.add %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @rem_mixed(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+2 {{'llm.rem' operands have different element types ('i32' vs 'i64')}}
  // expected-error @+1 {{'llm.rem' op failed to infer returned types}}
  %0 = llm.rem %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return
}

// -----

func.func @pow_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = llm.pow %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @exp_f64(%a: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = llm.exp %a : tensor<4xf64>
  return
}

// -----

func.func @unary_type_change(%a: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "llm.exp"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @gelu_bad_approximation(%a: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::llm::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse LLM_GeluApproximationAttr parameter 'value'}}
  %0 = llm.gelu %a approximate <fast> : tensor<4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{'llm.matmul' operands must have rank >= 2, got 1 and 2}}
  // expected-error @+1 {{'llm.matmul' op failed to infer returned types}}
  %0 = llm.matmul %a, %b : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x4xf32>, %b: tensor<4x4xbf16>) {
  // expected-error @+2 {{'llm.matmul' operands have different element types ('f32' vs 'bf16')}}
  // expected-error @+1 {{'llm.matmul' op failed to infer returned types}}
  %0 = llm.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xbf16>) -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+2 {{'llm.matmul' contraction sizes differ: lhs 4x8 has K = 8, rhs 4x16 has K = 4}}
  // expected-error @+1 {{'llm.matmul' op failed to infer returned types}}
  %0 = llm.matmul %a, %b : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<4x8xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+2 {{'llm.matmul' contraction sizes differ: lhs 4x8 has K = 8, rhs 16x4 has K = 4}}
  // expected-error @+1 {{'llm.matmul' op failed to infer returned types}}
  %0 = llm.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+2 {{'llm.matmul' batch dimensions of 2x4x8 and 3x8x16 do not broadcast}}
  // expected-error @+1 {{'llm.matmul' op failed to infer returned types}}
  %0 = llm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @softmax_axis(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.softmax' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %0 = llm.softmax %a {axis = 2 : i64} : tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_axis(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.layer_norm' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %0 = llm.layer_norm %a {axis = -3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.layer_norm' op epsilon must be a number >= 0, got -1}}
  %0 = llm.layer_norm %a {epsilon = -1.0 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%a: tensor<2x4xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'llm.layer_norm' op scale shape 3 does not broadcast to the normalized shape 4}}
  %0 = llm.layer_norm %a scale %g : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%a: tensor<2x4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'llm.layer_norm' op bias element type 'f16' differs from the input's 'f32'}}
  %0 = llm.layer_norm %a bias %b : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_result(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.layer_norm' op failed to verify that all of {input, result} have same shape}}
  %0 = llm.layer_norm %a : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @rms_norm_rank0(%a: tensor<f32>) {
  // expected-error @+1 {{'llm.rms_norm' op input must have rank >= 1}}
  %0 = llm.rms_norm %a : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @rms_norm_epsilon(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.rms_norm' op epsilon must be a number >= 0, got -0.5}}
  %0 = llm.rms_norm %a {epsilon = -0.5 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_weight_shape(%a: tensor<2x4xf32>, %w: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.rms_norm' op weight must have shape 4 (the last input dimension), got 2x4}}
  %0 = llm.rms_norm %a weight %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_weight_type(%a: tensor<2x4xf32>, %w: tensor<4xbf16>) {
  // expected-error @+1 {{'llm.rms_norm' op weight element type 'bf16' differs from the input's 'f32'}}
  %0 = llm.rms_norm %a weight %w : (tensor<2x4xf32>, tensor<4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rope_odd(%x: tensor<1x4x7xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op last dimension (head size) must be even, got 7}}
  %0 = llm.rope %x, %p : (tensor<1x4x7xf32>, tensor<4xi64>) -> tensor<1x4x7xf32>
  return
}

// -----

func.func @rope_positions(%x: tensor<1x4x8xf32>, %p: tensor<5xi64>) {
  // expected-error @+1 {{'llm.rope' op positions shape 5 does not broadcast to the input's leading shape 1x4}}
  %0 = llm.rope %x, %p : (tensor<1x4x8xf32>, tensor<5xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @rope_rotary_dims_odd(%x: tensor<1x4x8xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op rotary_dims must be even and >= 2, got 3}}
  %0 = llm.rope %x, %p {rotary_dims = 3} : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @rope_rotary_dims_zero(%x: tensor<1x4x8xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op rotary_dims must be even and >= 2, got 0}}
  %0 = llm.rope %x, %p {rotary_dims = 0} : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @rope_rotary_dims_wide(%x: tensor<1x4x8xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op rotary_dims 10 exceeds the last dimension (head size) 8}}
  %0 = llm.rope %x, %p {rotary_dims = 10} : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @rope_theta(%x: tensor<1x4x8xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op theta must be a number > 0, got 0}}
  %0 = llm.rope %x, %p {theta = 0.0 : f32} : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @rope_rank0(%x: tensor<f32>, %p: tensor<i64>) {
  // expected-error @+1 {{'llm.rope' op input must have rank >= 1}}
  %0 = llm.rope %x, %p : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @rope_float_positions(%x: tensor<4x8xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = llm.rope %x, %p : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<8x16x32xf32>, %k: tensor<8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op query, key and value must have rank 4 ([B, H, S, D]), got ranks 3, 3, 3}}
  %0 = llm.attention %q, %k, %k : (tensor<8x16x32xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<1x8x16x32xf32>, %k: tensor<8x16x32xf32>, %v: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op query, key and value must have rank 4 ([B, H, S, D]), got ranks 4, 3, 4}}
  %0 = llm.attention %q, %k, %v : (tensor<1x8x16x32xf32>, tensor<8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_bshd_rank(%q: tensor<8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op query, key and value must have rank 4 ([B, S, H, D]), got ranks 3, 3, 3}}
  %0 = llm.attention %q, %q, %q {layout = #llm.attention_layout<bshd>} : (tensor<8x16x32xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  return
}

// -----

// In layout bshd dimension 2 holds the heads: 6 query heads over 4 key/value
// heads (the same shapes are valid in layout bhsd: 16 heads over 16).
func.func @attention_bshd_heads(%q: tensor<1x16x6x32xf32>, %k: tensor<1x16x4x32xf32>) {
  // expected-error @+1 {{'llm.attention' op query heads (6) must be a multiple of key/value heads (4)}}
  %0 = llm.attention %q, %k, %k {layout = #llm.attention_layout<bshd>} : (tensor<1x16x6x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>) -> tensor<1x16x6x32xf32>
  return
}

// -----

// In layout bshd dimension 1 holds the sequence: key 16, value 12.
func.func @attention_bshd_kv_seq(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x4x32xf32>, %v: tensor<1x12x4x32xf32>) {
  // expected-error @+1 {{'llm.attention' op key and value sequence lengths differ: 16 vs 12}}
  %0 = llm.attention %q, %k, %v {layout = #llm.attention_layout<bshd>} : (tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x12x4x32xf32>) -> tensor<1x16x4x32xf32>
  return
}

// -----

// The mask stays in score order [B, Hq, Sq, Skv] = [1, 4, 16, 16].
func.func @attention_bshd_mask(%q: tensor<1x16x4x32xf32>, %m: tensor<1x16x4x16xi1>) {
  // expected-error @+1 {{'llm.attention' op mask shape 1x16x4x16 does not broadcast to the score shape 1x4x16x16}}
  %0 = llm.attention %q, %q, %q mask %m {layout = #llm.attention_layout<bshd>} : (tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x16xi1>) -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @attention_bad_layout(%q: tensor<1x16x4x32xf32>) {
  // expected-error @+2 {{expected ::mlir::llm::AttentionLayout to be one of: bhsd, bshd}}
  // expected-error @+1 {{failed to parse LLM_AttentionLayoutAttr parameter 'value'}}
  %0 = llm.attention %q, %q, %q {layout = #llm.attention_layout<sbhd>} : (tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @attention_types(%q: tensor<1x8x16x32xf32>, %k: tensor<1x8x16x32xf16>) {
  // expected-error @+1 {{'llm.attention' op query, key and value must have one element type}}
  %0 = llm.attention %q, %k, %k : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf16>, tensor<1x8x16x32xf16>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<1x8x16x32xf32>, %k: tensor<2x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op batch sizes differ: query 1x8x16x32, key 2x8x16x32, value 2x8x16x32}}
  %0 = llm.attention %q, %k, %k : (tensor<1x8x16x32xf32>, tensor<2x8x16x32xf32>, tensor<2x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<1x8x16x32xf32>, %k: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'llm.attention' op query and key head sizes differ: 32 vs 64}}
  %0 = llm.attention %q, %k, %k : (tensor<1x8x16x32xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @attention_kv_heads(%q: tensor<1x8x16x32xf32>, %k: tensor<1x4x16x32xf32>, %v: tensor<1x2x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op key and value head counts differ: 4 vs 2}}
  %0 = llm.attention %q, %k, %v : (tensor<1x8x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_kv_len(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x12x32xf32>) {
  // expected-error @+1 {{'llm.attention' op key and value sequence lengths differ: 16 vs 12}}
  %0 = llm.attention %q, %k, %v : (tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x12x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_gqa(%q: tensor<1x8x16x32xf32>, %k: tensor<1x3x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op query heads (8) must be a multiple of key/value heads (3)}}
  %0 = llm.attention %q, %k, %k : (tensor<1x8x16x32xf32>, tensor<1x3x16x32xf32>, tensor<1x3x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<1x8x16x32xf32>, %m: tensor<16x16xf16>) {
  // expected-error @+1 {{'llm.attention' op a floating-point mask must have the query's element type 'f32', got 'f16'}}
  %0 = llm.attention %q, %q, %q mask %m : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<16x16xf16>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<1x8x16x32xf32>, %m: tensor<16x8xi1>) {
  // expected-error @+1 {{'llm.attention' op mask shape 16x8 does not broadcast to the score shape 1x8x16x16}}
  %0 = llm.attention %q, %q, %q mask %m : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<16x8xi1>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_kv_length_rank(%q: tensor<1x8x16x32xf32>, %len: tensor<1xi64>) {
  // expected-error @+1 {{'llm.attention' op kv_length must be a 0-d tensor (tensor<i64> or tensor<i32>), got 'tensor<1xi64>'}}
  %0 = llm.attention %q, %q, %q kv_length %len : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1xi64>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_kv_length_type(%q: tensor<1x8x16x32xf32>, %len: tensor<f32>) {
  // expected-error @+1 {{'llm.attention' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0 = llm.attention %q, %q, %q kv_length %len : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<f32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op scale must be finite}}
  %0 = llm.attention %q, %q, %q {scale = 0x7F800000 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_excluded_score_inf(%q: tensor<1x8x16x32xf32>, %m: tensor<16x16xi1>) {
  // expected-error @+1 {{'llm.attention' op excluded_score must be finite (without it, the excluded positions are dropped)}}
  %0 = llm.attention %q, %q, %q mask %m {excluded_score = 0xFF800000 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<16x16xi1>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_excluded_score_float_mask(%q: tensor<1x8x16x32xf32>, %m: tensor<16x16xf32>) {
  // expected-error @+1 {{'llm.attention' op excluded_score needs an i1 mask (the score of the positions it excludes)}}
  %0 = llm.attention %q, %q, %q mask %m {excluded_score = -1.0e+30 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<16x16xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_excluded_score_no_mask(%q: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op excluded_score needs an i1 mask}}
  %0 = llm.attention %q, %q, %q {excluded_score = -1.0e+30 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_softcap_zero(%q: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op softcap must be finite and positive (the scores are capped to (-softcap, softcap)), got 0}}
  %0 = llm.attention %q, %q, %q {softcap = 0.0 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_softcap_negative(%q: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op softcap must be finite and positive (the scores are capped to (-softcap, softcap)), got -5}}
  %0 = llm.attention %q, %q, %q {softcap = -5.0 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @attention_softcap_inf(%q: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'llm.attention' op softcap must be finite and positive}}
  %0 = llm.attention %q, %q, %q {softcap = 0x7F800000 : f32} : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @embedding_table(%t: tensor<50xf32>, %ids: tensor<8xi64>) {
  // expected-error @+2 {{'llm.embedding' table must have rank 2 ([V, D]), got rank 1}}
  // expected-error @+1 {{'llm.embedding' op failed to infer returned types}}
  %0 = llm.embedding %t, %ids : (tensor<50xf32>, tensor<8xi64>) -> tensor<8xf32>
  return
}

// -----

func.func @embedding_float_ids(%t: tensor<50x4xf32>, %ids: tensor<8xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = llm.embedding %t, %ids : (tensor<50x4xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'llm.transpose' permutation [0, 0, 1] is not a permutation of [0, 3)}}
  // expected-error @+1 {{'llm.transpose' op failed to infer returned types}}
  %0 = llm.transpose %x {permutation = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'llm.transpose' permutation [1, 0] is not a permutation of [0, 3)}}
  // expected-error @+1 {{'llm.transpose' op failed to infer returned types}}
  %0 = llm.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.reshape' op element counts differ: 2x3 has 6, 4x2 has 8}}
  %0 = llm.reshape %x : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'llm.reshape' op with a dynamic dimension, both shapes need exactly one '?' and equal products of their static sizes, got ?x3 -> 3x2}}
  %0 = llm.reshape %x : (tensor<?x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.reshape' op failed to verify that all of {input, result} have same element type}}
  %0 = llm.reshape %x : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+2 {{'llm.concat' needs at least one input}}
  // expected-error @+1 {{'llm.concat' op failed to infer returned types}}
  %0 = llm.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x4xf32>) {
  // expected-error @+2 {{'llm.concat' axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'llm.concat' op failed to infer returned types}}
  %0 = llm.concat %a, %a {axis = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'llm.concat' input 1 ('tensor<4xf32>') differs in rank or element type from input 0 ('tensor<2x4xf32>')}}
  // expected-error @+1 {{'llm.concat' op failed to infer returned types}}
  %0 = llm.concat %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @concat_sizes(%a: tensor<2x4xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{'llm.concat' input 1 has size 5 in dimension 1, input 0 has 4}}
  // expected-error @+1 {{'llm.concat' op failed to infer returned types}}
  %0 = llm.concat %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_count(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.slice' needs one start, limit and stride per dimension (rank 2)}}
  // expected-error @+1 {{'llm.slice' op failed to infer returned types}}
  %0 = llm.slice %x {starts = array<i64: 0>, limits = array<i64: 4>, strides = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.slice' stride 0 in dimension 1 must be >= 1}}
  // expected-error @+1 {{'llm.slice' op failed to infer returned types}}
  %0 = llm.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 4, 8>, strides = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'llm.slice' range [2, 9) in dimension 1 is not within [0, 8]}}
  // expected-error @+1 {{'llm.slice' op failed to infer returned types}}
  %0 = llm.slice %x {starts = array<i64: 0, 2>, limits = array<i64: 4, 9>, strides = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @broadcast_to_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.broadcast_to' op input shape 2x4 does not broadcast to 3x4}}
  %0 = llm.broadcast_to %x : (tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_to_rank(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.broadcast_to' op input shape 2x4 does not broadcast to 4}}
  %0 = llm.broadcast_to %x : (tensor<2x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'llm.reduce_sum' axis 5 is out of range for rank 2}}
  // expected-error @+1 {{'llm.reduce_sum' op failed to infer returned types}}
  %0 = llm.reduce_sum %x {axes = array<i64: 5>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_repeated(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'llm.reduce_max' axis -1 is repeated}}
  // expected-error @+1 {{'llm.reduce_max' op failed to infer returned types}}
  %0 = llm.reduce_max %x {axes = array<i64: 1, -1>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'llm.reduce_mean' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'llm.reduce_mean' op failed to infer returned types}}
  %0 = llm.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x4xf32>) -> tensor<2xf32>
  return
}

// -----

// Integer reductions: sum, max, min and prod; no integer mean.
func.func @reduce_mean_integer(%x: tensor<2x4xi32>) {
  // expected-error @+1 {{'llm.reduce_mean' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x4xi32>'}}
  %0 = llm.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x4xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @reduce_sum_bool(%x: tensor<2x4xi1>) {
  // expected-error @+1 {{'llm.reduce_sum' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x4xi1>'}}
  %0 = llm.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x4xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @argmax_bool(%x: tensor<2x4xi1>) {
  // expected-error @+1 {{'llm.argmax' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x4xi1>'}}
  %0 = llm.argmax %x {axis = 1 : i64} : (tensor<2x4xi1>) -> tensor<2x1xi64>
  return
}

// -----

func.func @cast_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.cast' op requires the same shape for all operands and results}}
  %0 = llm.cast %x : (tensor<2x4xf32>) -> tensor<8xf16>
  return
}

// -----

func.func @cast_unsupported(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of}}
  %0 = llm.cast %x : (tensor<2x4xf32>) -> tensor<2x4xi16>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{result #0 must be ranked tensor of}}
  %0 = llm.constant dense<1> : tensor<4xi16>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor}}
  %0 = "llm.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'llm.reshape' op element count of 4611686018427387905x4 overflows int64}}
  %0 = llm.reshape %x : (tensor<4xf32>) -> tensor<4611686018427387905x4xf32>
  return
}

// -----

func.func @concat_overflow(%a: tensor<4611686018427387904xf32>, %b: tensor<4611686018427387905xf32>) {
  // expected-error @+2 {{'llm.concat' size along axis 0 overflows int64}}
  // expected-error @+1 {{'llm.concat' op failed to infer returned types}}
  %0 = llm.concat %a, %b {axis = 0 : i64} : (tensor<4611686018427387904xf32>, tensor<4611686018427387905xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @embedding_empty_table(%t: tensor<0x16xf32>, %ids: tensor<4xi64>) {
  // expected-error @+2 {{'llm.embedding' table has no rows (V = 0): no id can be looked up}}
  // expected-error @+1 {{'llm.embedding' op failed to infer returned types}}
  %0 = llm.embedding %t, %ids : (tensor<0x16xf32>, tensor<4xi64>) -> tensor<4x16xf32>
  return
}

// -----

func.func @layer_norm_nan_epsilon(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'llm.layer_norm' op epsilon must be a number >= 0, got NaN}}
  %0 = llm.layer_norm %a {epsilon = 0x7FC00000 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rope_nan_theta(%x: tensor<1x4x8xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'llm.rope' op theta must be a number > 0, got NaN}}
  %0 = llm.rope %x, %p {theta = 0x7FC00000 : f32} : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @constant_missing_resource() {
  // expected-error @+1 {{'llm.constant' op dense_resource 'nowhere' has no data (missing from the file's dialect_resources)}}
  %0 = llm.constant dense_resource<nowhere> : tensor<4xf32>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+2 {{'llm.compare' operands have different element types ('f32' vs 'i32')}}
  // expected-error @+1 {{'llm.compare' op failed to infer returned types}}
  %0 = llm.compare eq, %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'llm.compare' operand shapes 4 and 3 do not broadcast}}
  // expected-error @+1 {{'llm.compare' op failed to infer returned types}}
  %0 = llm.compare lt, %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected}}
  %0 = llm.compare lessthan, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @logical_not_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = llm.logical_not %a : tensor<4xf32>
  return
}

// -----

func.func @logical_and_broadcast(%a: tensor<4xi1>, %b: tensor<2xi1>) {
  // expected-error @+2 {{'llm.logical_and' operand shapes 4 and 2 do not broadcast}}
  // expected-error @+1 {{'llm.logical_and' op failed to infer returned types}}
  %0 = llm.logical_and %a, %b : (tensor<4xi1>, tensor<2xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @select_condition_type(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = llm.select %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_value_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'llm.select' values have different element types ('f32' vs 'f16')}}
  // expected-error @+1 {{'llm.select' op failed to infer returned types}}
  %0 = llm.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @select_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+2 {{'llm.select' operand shapes 3 and 4 do not broadcast}}
  // expected-error @+1 {{'llm.select' op failed to infer returned types}}
  %0 = llm.select %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_axis(%a: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'llm.gather' axis 2 is out of range for rank 2 (expected [-2, 2))}}
  // expected-error @+1 {{'llm.gather' op failed to infer returned types}}
  %0 = llm.gather %a, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_empty(%a: tensor<0x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'llm.gather' gathered dimension 0 is empty: no index can be looked up}}
  // expected-error @+1 {{'llm.gather' op failed to infer returned types}}
  %0 = llm.gather %a, %i : (tensor<0x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_elements_rank(%a: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'llm.gather_elements' indices of rank 1 for an input of rank 2 (the ranks must be equal)}}
  // expected-error @+1 {{'llm.gather_elements' op failed to infer returned types}}
  %0 = llm.gather_elements %a, %i : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_elements_axis(%a: tensor<2x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{'llm.gather_elements' axis -3 is out of range for rank 2 (expected [-2, 2))}}
  // expected-error @+1 {{'llm.gather_elements' op failed to infer returned types}}
  %0 = llm.gather_elements %a, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_elements_dim(%a: tensor<2x3xf32>, %i: tensor<3x3xi64>) {
  // expected-error @+2 {{'llm.gather_elements' indices dimension 0 (3) is larger than the input's (2)}}
  // expected-error @+1 {{'llm.gather_elements' op failed to infer returned types}}
  %0 = llm.gather_elements %a, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xi64>) -> tensor<3x3xf32>
  return
}

// -----

func.func @gather_elements_empty(%a: tensor<2x0xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+2 {{'llm.gather_elements' gathered dimension 1 is empty: no index can be looked up}}
  // expected-error @+1 {{'llm.gather_elements' op failed to infer returned types}}
  %0 = llm.gather_elements %a, %i {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x1xi64>) -> tensor<2x1xf32>
  return
}

// -----

func.func @gather_index_type(%a: tensor<2x3xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = llm.gather %a, %i : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @reverse_dimension(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.reverse' op dimension 2 is out of range for rank 2 (expected [0, 2))}}
  %0 = llm.reverse %a {dimensions = array<i64: 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.reverse' op dimension 1 is repeated}}
  %0 = llm.reverse %a {dimensions = array<i64: 1, 1>} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.log_softmax' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %0 = llm.log_softmax %a {axis = -3 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @argmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'llm.argmax' axis 2 is out of range for rank 2 (expected [-2, 2))}}
  // expected-error @+1 {{'llm.argmax' op failed to infer returned types}}
  %0 = llm.argmax %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @argmin_rank0(%a: tensor<f32>) {
  // expected-error @+2 {{'llm.argmin' input must have rank >= 1}}
  // expected-error @+1 {{'llm.argmin' op failed to infer returned types}}
  %0 = llm.argmin %a : (tensor<f32>) -> tensor<i64>
  return
}

// -----

func.func @argmax_result_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'llm.argmax' op inferred type(s) 'tensor<1x3xi64>' are incompatible with return type(s) of operation 'tensor<2x1xi64>'}}
  // expected-error @+1 {{'llm.argmax' op failed to infer returned types}}
  %0 = llm.argmax %a : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @reduce_min_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'llm.reduce_min' axis -1 is repeated}}
  // expected-error @+1 {{'llm.reduce_min' op failed to infer returned types}}
  %0 = llm.reduce_min %a {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @constant_resource_size() {
  // expected-error @+1 {{'llm.constant' op dense_resource 'short' holds 8 bytes, but 'tensor<4xf32>' needs 16}}
  %0 = llm.constant dense_resource<short> : tensor<4xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F00000040"
    }
  }
#-}
