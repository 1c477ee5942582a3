// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s
// RUN: llm-opt %s -convert-llm-to-linalg="attention-tile=8,8" -split-input-file | FileCheck %s --check-prefix=OPTION

// convert-llm-to-linalg reads the target's choices from each op's
// llm.lowering_config, whatever wrote it (llm-select-lowering-config, a
// tuner, this test), and uses its own neutral defaults (attention-tile,
// default [32, 64]) for ops without one.

// attention_tile = [16, 32]: 4 query tiles of 16 rows, key/value tiles of 32
// rows; the option does not override the op's configuration.
// CHECK-LABEL: func.func @configured_tile
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 2, 4)
// CHECK: scf.for {{.*}} -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>)
// CHECK: linalg.matmul {llm.vectorize_in_place} {{.*}} outs(%{{.+}} : tensor<16x32xf32>)
// OPTION-LABEL: func.func @configured_tile
// OPTION: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 2, 4)
// OPTION: scf.for {{.*}} -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>)
func.func @configured_tile(%q: tensor<1x2x64x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = llm.attention %q, %k, %v {llm.lowering_config = {attention_tile = array<i64: 16, 32>}} : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32>
  return %0 : tensor<1x2x64x16xf32>
}

// -----

// No configuration: the default tile [32, 64] (2 query tiles), or the
// option's [8, 8] (8 query tiles).
// CHECK-LABEL: func.func @default_tile
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 2, 2)
// CHECK: scf.for {{.*}} -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// OPTION-LABEL: func.func @default_tile
// OPTION: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 2, 8)
// OPTION: scf.for {{.*}} -> (tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>)
func.func @default_tile(%q: tensor<1x2x64x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = llm.attention %q, %k, %v : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32>
  return %0 : tensor<1x2x64x16xf32>
}

// -----

// dot_product = "bf16" (written by hand here; llm-select-lowering-config
// writes it for avx512-bf16): the 4-bit decode matvec takes the AVX512-BF16
// kernel without any target option (see convert-llm-to-linalg-int4-bf16.mlir
// for its structure); without the configuration, the exact f32 kernel.
// CHECK-LABEL: func.func @configured_bf16
// CHECK: x86vector.avx512.dot
// CHECK-LABEL: func.func @default_f32
// CHECK-NOT: x86vector
// CHECK: return
func.func @configured_bf16(%x: tensor<1x128xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x128xi4>
  %q = quant.scast %c : tensor<2x128xi4> to tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>
  %y = llm.dequant_matmul %x, %q {transpose_b, llm.lowering_config = {dot_product = "bf16"}} : (tensor<1x128xf32>, tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

func.func @default_f32(%x: tensor<1x128xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x128xi4>
  %q = quant.scast %c : tensor<2x128xi4> to tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x128xf32>, tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
