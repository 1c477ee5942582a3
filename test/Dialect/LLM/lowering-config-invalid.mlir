// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per rule of the llm.lowering_config verifier
// (llm/Dialect/LLM/IR/LoweringConfig.h).

func.func @not_a_dictionary(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config' must be a dictionary, got [32, 64]}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = [32, 64]} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @other_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'llm.relu' op 'llm.lowering_config' is only meaningful on llm.attention, llm.dequant_matmul, llm.matmul_integer, llm.matmul, linalg.matmul and linalg.batch_matmul}}
  %0 = llm.relu %a {llm.lowering_config = {}} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @tile_not_positive(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config': attention_tile must be two positive sizes array<i64: query rows, key/value rows>, got array<i64: 0, 64>}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {attention_tile = array<i64: 0, 64>}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @tile_one_size(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{attention_tile must be two positive sizes}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {attention_tile = array<i64: 32>}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_key_on_matmul(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.dequant_matmul' op 'llm.lowering_config': unknown key 'attention_tile' (expected dot_product or streamed)}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {attention_tile = array<i64: 32, 64>}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @unknown_key(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config': unknown key 'tile' (expected attention_tile, stage_values, kv_splits or padded_head_dims)}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {tile = array<i64: 32, 64>}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @stage_values(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config': stage_values must be a boolean, got 1 : i64}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {stage_values = 1}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @dot_product(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.dequant_matmul' op 'llm.lowering_config': dot_product must be "bf16" or "f32", got "fp8"}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "fp8"}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @streamed(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.dequant_matmul' op 'llm.lowering_config': streamed must be a boolean, got 1 : i64}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {streamed = 1}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// A valid configuration.
func.func @valid(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "bf16", streamed = true}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @matmul_integer_bf16(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32> {
  // expected-error @+1 {{'llm.matmul_integer' op 'llm.lowering_config': dot_product must be "i8", "amx_i8" or "f32", got "bf16"}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "bf16"}} : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

func.func @matmul_integer_streamed(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32> {
  // expected-error @+1 {{'llm.matmul_integer' op 'llm.lowering_config': unknown key 'streamed' (expected dot_product or vector_bits)}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {streamed = true}} : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

func.func @dequant_matmul_i8(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.dequant_matmul' op 'llm.lowering_config': dot_product must be "bf16" or "f32", got "i8"}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "i8"}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @matmul_missing_cache_tile(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'linalg.matmul' op 'llm.lowering_config' of a matmul needs both register_tile and cache_tile}}
  %0 = linalg.matmul {llm.lowering_config = {register_tile = array<i64: 4, 16, 1>}} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_zero_register_tile(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'linalg.matmul' op 'llm.lowering_config': register_tile must be three positive sizes array<i64: m, n, k>, got array<i64: 0, 16, 1>}}
  %0 = linalg.matmul {llm.lowering_config = {register_tile = array<i64: 0, 16, 1>, cache_tile = array<i64: 0, 0, 0>}} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @batch_matmul_negative_cache_tile(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'linalg.batch_matmul' op 'llm.lowering_config': cache_tile must be three non-negative sizes array<i64: m, n, k>, got array<i64: 0, -1, 0>}}
  %0 = linalg.batch_matmul {llm.lowering_config = {register_tile = array<i64: 4, 16, 1>, cache_tile = array<i64: 0, -1, 0>}} ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

func.func @matmul_unknown_key(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'linalg.matmul' op 'llm.lowering_config': unknown key 'attention_tile' (expected register_tile or cache_tile)}}
  %0 = linalg.matmul {llm.lowering_config = {register_tile = array<i64: 4, 16, 1>, cache_tile = array<i64: 0, 0, 0>, attention_tile = array<i64: 1, 1>}} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_integer_vector_bits(%a: tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, %b: tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32> {
  // expected-error @+1 {{'llm.matmul_integer' op 'llm.lowering_config': vector_bits must be 256 or 512, got 128 : i64}}
  %y = llm.matmul_integer %a, %b {llm.lowering_config = {dot_product = "i8", vector_bits = 128 : i64}} : (tensor<2x8x!quant.uniform<u8:f32, 1.0:3>>, tensor<8x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x16xi32>
  return %y : tensor<2x16xi32>
}

// -----

func.func @matmul_sparse_vector_bits(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': vector_bits must be 256 or 512, got 128 : i64}}
  %y = llm.matmul %x, %w {llm.lowering_config = {vector_bits = 128 : i64}, llm.sparse_format = {format = "csr"}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @matmul_dot_product_i8(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': dot_product must be "bf16", "amx_bf16" or "f32", got "i8"}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "i8"}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @matmul_unknown_config_key(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': unknown key 'streamed' (expected dot_product or vector_bits)}}
  %y = llm.matmul %x, %w {llm.lowering_config = {streamed = true}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @sparse_format_unknown(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.sparse_format' must be a dictionary on llm.matmul, llm.dequant_matmul or llm.matmul_integer with a string 'format' (dense, 2:4, bsrRxC, csr), got {format = "bsr0x4"}}}
  %y = llm.matmul %x, %w {llm.sparse_format = {format = "bsr0x4"}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @sparse_format_not_matmul(%x: tensor<8x16xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'llm.add' op 'llm.sparse_format' must be a dictionary on llm.matmul, llm.dequant_matmul or llm.matmul_integer with a string 'format' (dense, 2:4, bsrRxC, csr), got {format = "csr"}}}
  %y = llm.add %x, %w {llm.sparse_format = {format = "csr"}} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

func.func @kv_splits(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config': kv_splits must be an integer >= 1, got 0 : i64}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {kv_splits = 0}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @padded_head_dims_smaller(%q: tensor<1x2x8x15xf32>) -> tensor<1x2x8x15xf32> {
  // expected-error @+1 {{'llm.attention' op 'llm.lowering_config': padded_head_dims must be array<i64: D', Dv'> with D' >= D and Dv' >= Dv (the static head dims of the query and the value, 15 and 15), got array<i64: 16, 8>}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {padded_head_dims = array<i64: 16, 8>}} : (tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>) -> tensor<1x2x8x15xf32>
  return %0 : tensor<1x2x8x15xf32>
}

// -----

func.func @padded_head_dims_one_size(%q: tensor<1x2x8x15xf32>) -> tensor<1x2x8x15xf32> {
  // expected-error @+1 {{padded_head_dims must be array<i64: D', Dv'> with D' >= D and Dv' >= Dv (the static head dims of the query and the value, 15 and 15), got array<i64: 16>}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {padded_head_dims = array<i64: 16>}} : (tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>, tensor<1x2x8x15xf32>) -> tensor<1x2x8x15xf32>
  return %0 : tensor<1x2x8x15xf32>
}

// -----

func.func @padded_head_dims_on_matmul(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': unknown key 'padded_head_dims'}}
  %y = llm.matmul %x, %w {llm.lowering_config = {padded_head_dims = array<i64: 16, 16>}} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @padded_head_dims_dynamic(%q: tensor<1x2x8x?xf32>) -> tensor<1x2x8x?xf32> {
  // expected-error @+1 {{padded_head_dims must be array<i64: D', Dv'> with D' >= D and Dv' >= Dv (the static head dims of the query and the value, ? and ?), got array<i64: 16, 16>}}
  %0 = llm.attention %q, %q, %q {llm.lowering_config = {padded_head_dims = array<i64: 16, 16>}} : (tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x8x?xf32>
  return %0 : tensor<1x2x8x?xf32>
}

// -----

// AMX tiles are a form of llm.matmul only: the weight-only matvec has none.
func.func @amx_on_dequant_matmul(%x: tensor<1x8xf32>, %w: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.dequant_matmul' op 'llm.lowering_config': dot_product must be "bf16" or "f32", got "amx_bf16"}}
  %y = llm.dequant_matmul %x, %w {transpose_b, llm.lowering_config = {dot_product = "amx_bf16"}} : (tensor<1x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @amx_int8_on_matmul(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': dot_product must be "bf16", "amx_bf16" or "f32", got "amx_int8"}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_int8"}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @amx_i8_on_matmul(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'llm.matmul' op 'llm.lowering_config': dot_product must be "bf16", "amx_bf16" or "f32", got "amx_i8"}}
  %y = llm.matmul %x, %w {llm.lowering_config = {dot_product = "amx_i8"}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
