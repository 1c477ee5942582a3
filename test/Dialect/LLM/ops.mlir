// RUN: llm-opt %s | llm-opt | FileCheck %s
// RUN: llm-opt %s --mlir-print-op-generic | llm-opt | FileCheck %s
// RUN: llm-opt %s --emit-bytecode | llm-opt | FileCheck %s

// Round trip of every llm op (custom and generic forms, bytecode).

// CHECK-LABEL: func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xf16>, tensor<3xi64>) {
  // CHECK: llm.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = llm.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: llm.constant dense_resource<blob1> : tensor<2x2xf16>
  %1 = llm.constant dense_resource<blob1> : tensor<2x2xf16>
  // CHECK: llm.constant dense<[0, 1, 2]> : tensor<3xi64>
  %2 = llm.constant dense<[0, 1, 2]> : tensor<3xi64>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xf16>, tensor<3xi64>
}

// CHECK-LABEL: func @integer_f64_arith
func.func @integer_f64_arith(%i: tensor<2x3xi64>, %j: tensor<3xi64>, %k: tensor<4xi8>, %f: tensor<3xf64>) {
  // CHECK: llm.add {{.*}} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %0 = llm.add %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: llm.div {{.*}} -> tensor<2x3xi64>
  %1 = llm.div %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: llm.rem {{.*}} -> tensor<2x3xi64>
  %2 = llm.rem %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: llm.min {{.*}} -> tensor<4xi8>
  %3 = llm.min %k, %k : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK: llm.neg %{{.*}} : tensor<4xi8>
  %4 = llm.neg %k : tensor<4xi8>
  // CHECK: llm.abs %{{.*}} : tensor<2x3xi64>
  %5 = llm.abs %i : tensor<2x3xi64>
  // CHECK: llm.rem {{.*}} -> tensor<3xf64>
  %6 = llm.rem %f, %f : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  // CHECK: llm.max {{.*}} -> tensor<3xf64>
  %7 = llm.max %f, %f : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  // CHECK: llm.cast %{{.*}} : (tensor<3xf64>) -> tensor<3xf32>
  %8 = llm.cast %f : (tensor<3xf64>) -> tensor<3xf32>
  // CHECK: llm.constant dense<2.5{{0*}}e+00> : tensor<f64>
  %9 = llm.constant dense<2.5> : tensor<f64>
  return
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x3xbf16>, %d: tensor<2x1xbf16>) {
  // CHECK: llm.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = llm.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.sub {{.*}} -> tensor<2x3xf32>
  %1 = llm.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.mul {{.*}} -> tensor<2x3xf32>
  %2 = llm.mul %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.div {{.*}} -> tensor<2x3xf32>
  %3 = llm.div %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.pow {{.*}} -> tensor<2x3xf32>
  %4 = llm.pow %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.max {{.*}} -> tensor<4x2x3xbf16>
  %5 = llm.max %c, %d : (tensor<4x1x3xbf16>, tensor<2x1xbf16>) -> tensor<4x2x3xbf16>
  // CHECK: llm.min {{.*}} -> tensor<4x2x3xbf16>
  %6 = llm.min %d, %c : (tensor<2x1xbf16>, tensor<4x1x3xbf16>) -> tensor<4x2x3xbf16>
  return
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x3xf16>) {
  // CHECK: llm.neg %{{.*}} : tensor<2x3xf16>
  %0 = llm.neg %x : tensor<2x3xf16>
  // CHECK: llm.exp
  %1 = llm.exp %x : tensor<2x3xf16>
  // CHECK: llm.log
  %2 = llm.log %x : tensor<2x3xf16>
  // CHECK: llm.tanh
  %3 = llm.tanh %x : tensor<2x3xf16>
  // CHECK: llm.erf
  %4 = llm.erf %x : tensor<2x3xf16>
  // CHECK: llm.sqrt
  %5 = llm.sqrt %x : tensor<2x3xf16>
  // CHECK: llm.rsqrt
  %6 = llm.rsqrt %x : tensor<2x3xf16>
  // CHECK: llm.reciprocal
  %7 = llm.reciprocal %x : tensor<2x3xf16>
  // CHECK: llm.sigmoid
  %8 = llm.sigmoid %x : tensor<2x3xf16>
  // CHECK: llm.relu
  %9 = llm.relu %x : tensor<2x3xf16>
  // CHECK: llm.silu
  %10 = llm.silu %x : tensor<2x3xf16>
  // CHECK: llm.abs
  %abs = llm.abs %x : tensor<2x3xf16>
  // CHECK: llm.floor
  %floor = llm.floor %x : tensor<2x3xf16>
  // CHECK: llm.ceil
  %ceil = llm.ceil %x : tensor<2x3xf16>
  // CHECK: llm.round
  %round = llm.round %x : tensor<2x3xf16>
  // CHECK: llm.sin
  %sin = llm.sin %x : tensor<2x3xf16>
  // CHECK: llm.cos
  %cos = llm.cos %x : tensor<2x3xf16>
  // CHECK: llm.gelu %{{.*}} : tensor<2x3xf16>
  %11 = llm.gelu %x : tensor<2x3xf16>
  // CHECK: llm.gelu %{{.*}} approximate <tanh> : tensor<2x3xf16>
  %12 = llm.gelu %x approximate <tanh> : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>, %w: tensor<16x8xf32>, %c: tensor<3x1x8x4xf32>, %a2: tensor<2x8x16xf32>) {
  // CHECK: llm.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %0 = llm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: llm.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  %1 = llm.matmul %a, %w {transpose_b} : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  // CHECK: llm.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<3x1x8x4xf32>, tensor<2x8x16xf32>) -> tensor<3x2x4x16xf32>
  %2 = llm.matmul %c, %a2 {transpose_a} : (tensor<3x1x8x4xf32>, tensor<2x8x16xf32>) -> tensor<3x2x4x16xf32>
  return
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %g2: tensor<4x8xf32>) {
  // CHECK: llm.softmax %{{.*}} {axis = 1 : i64} : tensor<2x4x8xf32>
  %0 = llm.softmax %x {axis = 1 : i64} : tensor<2x4x8xf32>
  // CHECK: llm.softmax %{{.*}} : tensor<2x4x8xf32>
  %1 = llm.softmax %x : tensor<2x4x8xf32>
  // CHECK: llm.layer_norm %{{.*}} scale %{{.*}} bias %{{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %2 = llm.layer_norm %x scale %g bias %g : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: llm.layer_norm %{{.*}} scale %{{.*}} {axis = 1 : i64} :
  %3 = llm.layer_norm %x scale %g2 {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: llm.layer_norm %{{.*}} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %4 = llm.layer_norm %x : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: llm.rms_norm %{{.*}} weight %{{.*}} {epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %5 = llm.rms_norm %x weight %g {epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: llm.rms_norm %{{.*}} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %6 = llm.rms_norm %x : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// CHECK-LABEL: func @rope_attention
func.func @rope_attention(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>,
                          %pos: tensor<16xi64>, %m: tensor<1x1x16x16xi1>, %fm: tensor<16x16xf32>) {
  // CHECK: llm.rope %{{.*}}, %{{.*}} : (tensor<1x8x16x32xf32>, tensor<16xi64>) -> tensor<1x8x16x32xf32>
  %0 = llm.rope %q, %pos : (tensor<1x8x16x32xf32>, tensor<16xi64>) -> tensor<1x8x16x32xf32>
  // CHECK: llm.rope %{{.*}}, %{{.*}} mode <interleaved> {theta = 5.000000e+05 : f32}
  %1 = llm.rope %k, %pos mode <interleaved> {theta = 500000.0 : f32} : (tensor<1x2x16x32xf32>, tensor<16xi64>) -> tensor<1x2x16x32xf32>
  // CHECK: llm.rope %{{.*}}, %{{.*}} {rotary_dims = 8 : i64} : (tensor<1x8x16x32xf32>, tensor<16xi64>) -> tensor<1x8x16x32xf32>
  %partial = llm.rope %q, %pos {rotary_dims = 8} : (tensor<1x8x16x32xf32>, tensor<16xi64>) -> tensor<1x8x16x32xf32>
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : (tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32>
  %2 = llm.attention %0, %1, %v {causal} : (tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32>
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 1.250000e-01 : f32}
  %3 = llm.attention %q, %k, %v mask %m {scale = 0.125 : f32} : (tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x1x16x16xi1>) -> tensor<1x8x16x32xf32>
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : {{.*}}tensor<16x16xf32>) -> tensor<1x8x16x32xf32>
  %4 = llm.attention %q, %k, %v mask %fm : (tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>, tensor<16x16xf32>) -> tensor<1x8x16x32xf32>
  return
}

// Layout bshd: [B, S, H, D] operands and result; the mask keeps the score
// order [B, Hq, Sq, Skv]. The default layout (bhsd) is not printed.
// CHECK-LABEL: func @attention_bshd
func.func @attention_bshd(%q: tensor<1x16x8x32xf32>, %k: tensor<1x12x2x32xf32>, %v: tensor<1x12x2x16xf32>, %m: tensor<1x8x16x12xi1>) {
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x16x8x32xf32>, tensor<1x12x2x32xf32>, tensor<1x12x2x16xf32>, tensor<1x8x16x12xi1>) -> tensor<1x16x8x16xf32>
  %0 = llm.attention %q, %k, %v mask %m {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x16x8x32xf32>, tensor<1x12x2x32xf32>, tensor<1x12x2x16xf32>, tensor<1x8x16x12xi1>) -> tensor<1x16x8x16xf32>
  // CHECK: llm.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x16x8x32xf32>, tensor<1x16x8x32xf32>, tensor<1x16x8x32xf32>) -> tensor<1x16x8x32xf32>
  %1 = llm.attention %q, %q, %q {layout = #llm.attention_layout<bhsd>} : (tensor<1x16x8x32xf32>, tensor<1x16x8x32xf32>, tensor<1x16x8x32xf32>) -> tensor<1x16x8x32xf32>
  return
}

// kv_length: the valid prefix of a key/value cache (0-d i64 or i32), alone,
// after a mask, and in layout bshd.
// CHECK-LABEL: func @attention_kv_length
func.func @attention_kv_length(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>,
                               %len: tensor<i64>, %len32: tensor<i32>, %m: tensor<1x1x1x64xi1>,
                               %qs: tensor<1x1x8x32xf32>, %ks: tensor<1x64x2x32xf32>) {
  // CHECK: llm.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} kv_length %{{[^ ]*}} {causal} : (tensor<1x8x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<i64>) -> tensor<1x8x1x32xf32>
  %0 = llm.attention %q, %k, %v kv_length %len {causal} : (tensor<1x8x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<i64>) -> tensor<1x8x1x32xf32>
  // CHECK: llm.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask %{{[^ ]*}} kv_length %{{[^ ]*}} : (tensor<1x8x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x1x1x64xi1>, tensor<i32>) -> tensor<1x8x1x32xf32>
  %1 = llm.attention %q, %k, %v mask %m kv_length %len32 : (tensor<1x8x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x1x1x64xi1>, tensor<i32>) -> tensor<1x8x1x32xf32>
  // CHECK: llm.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} kv_length %{{[^ ]*}} {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x1x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<i64>) -> tensor<1x1x8x32xf32>
  %2 = llm.attention %qs, %ks, %ks kv_length %len {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x1x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<i64>) -> tensor<1x1x8x32xf32>
  return
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%t: tensor<50x16xf32>, %ids: tensor<1x8xi32>, %x: tensor<1x8x64xf32>, %y: tensor<2x4xf32>, %z: tensor<3x4xf32>) {
  // CHECK: llm.embedding %{{.*}}, %{{.*}} : (tensor<50x16xf32>, tensor<1x8xi32>) -> tensor<1x8x16xf32>
  %0 = llm.embedding %t, %ids : (tensor<50x16xf32>, tensor<1x8xi32>) -> tensor<1x8x16xf32>
  // CHECK: llm.reshape %{{.*}} : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>
  %1 = llm.reshape %x : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>
  // CHECK: llm.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %2 = llm.transpose %1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  // CHECK: llm.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %3 = llm.concat %y, %z {axis = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  // CHECK: llm.slice %{{.*}} {limits = array<i64: 3, 4>, starts = array<i64: 0, 1>, strides = array<i64: 1, 2>} : (tensor<3x4xf32>) -> tensor<3x2xf32>
  %4 = llm.slice %z {starts = array<i64: 0, 1>, limits = array<i64: 3, 4>, strides = array<i64: 1, 2>} : (tensor<3x4xf32>) -> tensor<3x2xf32>
  // A stride larger than the extent keeps one element (no overflow).
  // CHECK: llm.slice %{{.*}} -> tensor<3x1xf32>
  %s1 = llm.slice %z {starts = array<i64: 0, 1>, limits = array<i64: 3, 4>, strides = array<i64: 1, 9223372036854775807>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  // CHECK: llm.broadcast_to %{{.*}} : (tensor<2x4xf32>) -> tensor<3x2x4xf32>
  %5 = llm.broadcast_to %y : (tensor<2x4xf32>) -> tensor<3x2x4xf32>
  // CHECK: llm.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %6 = llm.reduce_sum %z {axes = array<i64: 1>, keepdims = true} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  // CHECK: llm.reduce_mean %{{.*}} {axes = array<i64: -1, 0>} : (tensor<3x4xf32>) -> tensor<f32>
  %7 = llm.reduce_mean %z {axes = array<i64: -1, 0>} : (tensor<3x4xf32>) -> tensor<f32>
  // CHECK: llm.reduce_max %{{.*}} {axes = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<4xf32>
  %8 = llm.reduce_max %z {axes = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<4xf32>
  // CHECK: llm.cast %{{.*}} : (tensor<3x4xf32>) -> tensor<3x4xbf16>
  %9 = llm.cast %z : (tensor<3x4xf32>) -> tensor<3x4xbf16>
  // CHECK: llm.cast %{{.*}} : (tensor<1x8xi32>) -> tensor<1x8xf32>
  %10 = llm.cast %ids : (tensor<1x8xi32>) -> tensor<1x8xf32>
  return
}

// CHECK-LABEL: func @runtime_data
func.func @runtime_data(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x3xi32>,
                        %m: tensor<2x3xi1>, %n: tensor<3xi1>, %idx: tensor<4xi64>,
                        %gidx: tensor<2x2xi32>) {
  // CHECK: llm.compare lt, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = llm.compare lt, %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: llm.compare eq, %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %1 = llm.compare eq, %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  // CHECK: llm.logical_and %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %2 = llm.logical_and %m, %n : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: llm.logical_or
  %3 = llm.logical_or %m, %n : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK: llm.logical_xor
  %4 = llm.logical_xor %m, %m : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: llm.logical_not %{{.*}} : tensor<2x3xi1>
  %5 = llm.logical_not %m : tensor<2x3xi1>
  // CHECK: llm.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = llm.select %m, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: llm.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  %7 = llm.gather %a, %idx {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  // CHECK: llm.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  %ge = llm.gather_elements %a, %gidx {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  // CHECK: llm.reverse %{{.*}} {dimensions = array<i64: 1>} : tensor<2x3xf32>
  %8 = llm.reverse %a {dimensions = array<i64: 1>} : tensor<2x3xf32>
  // CHECK: llm.log_softmax %{{.*}} {axis = 0 : i64} : tensor<2x3xf32>
  %9 = llm.log_softmax %a {axis = 0 : i64} : tensor<2x3xf32>
  // CHECK: llm.argmax %{{.*}} {axis = 1 : i64, keepdims = false, select_last_index} : (tensor<2x3xf32>) -> tensor<2xi64>
  %10 = llm.argmax %a {axis = 1 : i64, keepdims = false, select_last_index} : (tensor<2x3xf32>) -> tensor<2xi64>
  // CHECK: llm.argmin %{{.*}} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  %11 = llm.argmin %a : (tensor<2x3xf32>) -> tensor<1x3xi64>
  // CHECK: llm.reduce_min %{{.*}} {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %12 = llm.reduce_min %a {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: llm.reduce_prod %{{.*}} {axes = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %13 = llm.reduce_prod %a {axes = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// Integer reductions (sum, min, prod, argmax; reduce_max in quant-ops.mlir).
// CHECK-LABEL: func.func @integer_reductions
func.func @integer_reductions(%m: tensor<2x7xi64>, %b: tensor<2x3xi8>) -> (tensor<2xi64>, tensor<3xi8>, tensor<2x1xi8>, tensor<2x1xi64>) {
  // CHECK: llm.reduce_sum %{{.*}} {axes = array<i64: -1>} : (tensor<2x7xi64>) -> tensor<2xi64>
  %0 = llm.reduce_sum %m {axes = array<i64: -1>} : (tensor<2x7xi64>) -> tensor<2xi64>
  // CHECK: llm.reduce_min %{{.*}} {axes = array<i64: 0>} : (tensor<2x3xi8>) -> tensor<3xi8>
  %1 = llm.reduce_min %b {axes = array<i64: 0>} : (tensor<2x3xi8>) -> tensor<3xi8>
  // CHECK: llm.reduce_prod %{{.*}} {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xi8>) -> tensor<2x1xi8>
  %2 = llm.reduce_prod %b {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xi8>) -> tensor<2x1xi8>
  // CHECK: llm.argmax %{{.*}} {axis = 1 : i64} : (tensor<2x7xi64>) -> tensor<2x1xi64>
  %3 = llm.argmax %m {axis = 1 : i64} : (tensor<2x7xi64>) -> tensor<2x1xi64>
  return %0, %1, %2, %3 : tensor<2xi64>, tensor<3xi8>, tensor<2x1xi8>, tensor<2x1xi64>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x02000000003C004000420044"
    }
  }
#-}
