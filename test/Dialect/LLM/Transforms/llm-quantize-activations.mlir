// Crafted calibration tables (Inputs/make_ranges.py): t0 (x) over [-1.5, 2.5]
// with 1000 elements spread over |x| bins 0..799 and 10 in the last bin;
// t1 (the relu's output) over [0, 6.35], all in bin 1000.
// RUN: %python %S/Inputs/make_ranges.py good %t.json
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=minmax" | FileCheck %s --check-prefix=MINMAX
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=entropy" | FileCheck %s --check-prefix=ENTROPY
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=percentile percentile=99" | FileCheck %s --check-prefix=PCT
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=minmax per-channel-weights" | FileCheck %s --check-prefix=CHANNEL
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=minmax fp8" | FileCheck %s --check-prefix=FP8
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json exclude=fc2" | FileCheck %s --check-prefix=EXCLUDE
// RUN: llm-opt %s --llm-quantize-activations="ranges=%t.json method=minmax" --llm-fold-quant | FileCheck %s --check-prefix=FOLD

// minmax: asymmetric u8, s = (2.5 + 1.5) / 255, z = round(1.5 / s) = 96;
// [0, 6.35]: s = 6.35 / 255, z = 0. Weights per tensor, symmetric:
// max|w1| / 127 = 2 / 127; w2 (transpose_b) stored [K, N]: 0.5 / 127.
// MINMAX-LABEL: func.func @main
// MINMAX: %[[Q0:.+]] = llm.quantize %arg0 : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<u8:f32, 0.015686275437474251:96>>
// MINMAX: %[[D0:.+]] = llm.dequantize %[[Q0]]
// MINMAX: %[[W1:.+]] = llm.dequantize %{{.+}} : (tensor<8x16x!quant.uniform<i8:f32, 0.015748031437397003>>) -> tensor<8x16xf32>
// MINMAX: %[[H:.+]] = llm.matmul %[[D0]], %[[W1]] : (tensor<4x8xf32>, tensor<8x16xf32>)
// MINMAX: %[[A:.+]] = llm.relu %[[H]]
// MINMAX: %[[Q1:.+]] = llm.quantize %[[A]] : (tensor<4x16xf32>) -> tensor<4x16x!quant.uniform<u8:f32, 0.024901960045099258>>
// MINMAX: %[[D1:.+]] = llm.dequantize %[[Q1]]
// MINMAX: %[[W2:.+]] = llm.dequantize %{{.+}} : (tensor<16x8x!quant.uniform<i8:f32, 0.0039370078593492508>>) -> tensor<16x8xf32>
// MINMAX: llm.matmul %[[D1]], %[[W2]] : (tensor<4x16xf32>, tensor<16x8xf32>)

// entropy: t0's clipped histogram is reproduced exactly by its 128-level
// merge when nothing is clipped (KL 0 at i = 2048): T = 2.5; t1: every
// threshold below bin 1000 has infinite divergence: T = 6.35, and t1 is
// never negative, so [0, T] onto u8: s = 6.35 / 255.
// ENTROPY: llm.quantize %arg0 : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 0.019685039296746254>>
// ENTROPY: llm.quantize %{{.+}} : (tensor<4x16xf32>) -> tensor<4x16x!quant.uniform<u8:f32, 0.024901960045099258>>

// percentile 99: 1000 of the 1010 elements lie below bin 800's edge:
// T = 800 * 2.5 / 2048, s = T / 127.
// PCT: llm.quantize %arg0 : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 0.0076894685626029968>>

// Per-channel weights: one scale per output column (axis 1 of [K, N]).
// CHANNEL: llm.dequantize %{{.+}} : (tensor<8x16x!quant.uniform<i8:f32:1, {0.0078740157186985015,0.015748031437397003,0.0039370078593492508,0.0019685039296746254,0.0078740157186985015,

// With fp8, per-tensor scales T / 448 (min-max: max|x|) on both operands.
// FP8: llm.quantize %arg0 {scale = 0.00558035728 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf8E4M3FN>
// FP8: llm.dequantize %{{.+}} {scale = 0.00446428591 : f32} : (tensor<8x16xf8E4M3FN>) -> tensor<8x16xf32>

// exclude=fc2: the second matmul stays f32 and its activation unquantized.
// EXCLUDE: llm.quantize %arg0
// EXCLUDE-NOT: llm.quantize
// EXCLUDE: llm.matmul %{{.+}}, %{{.+}} {transpose_b} : (tensor<4x16xf32>, tensor<8x16xf32>)

// llm-fold-quant makes both integer matmuls.
// FOLD-NOT: llm.matmul %
// FOLD-COUNT-2: llm.matmul_integer
// FOLD-NOT: llm.matmul %
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w1 = llm.constant dense<[[1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, -2.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x16xf32>
  %w2 = llm.constant dense<0.5> : tensor<8x16xf32>
  %h = llm.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> loc("fc1")
  %a = llm.relu %h : tensor<4x16xf32>
  %o = llm.matmul %a, %w2 {transpose_b} : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32> loc("fc2")
  return %o : tensor<4x8xf32>
}
