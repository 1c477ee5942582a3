// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-select-lowering-config="target=avx512 streamed-weight-min-bytes=0" -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=STREAM
// RUN: llm-opt %s -convert-llm-to-linalg="vector-kernels=false" -split-input-file | FileCheck %s --check-prefix=NOVEC

// Structure of the quantization ops' lowering: the ONNX formulas in the
// generic bodies (round half to even, saturation in f32, exact i32
// subtraction), blockwise parameters through expand_shape, and the erasure
// of quantized types (function signatures and storage casts). Values are
// checked bit-exactly by test/Integration/quant.

// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>) -> tensor<4xi8>
// CHECK:         %[[G:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xi8>)
// CHECK-DAG:       %[[S:.+]] = arith.constant 6.250000e-02 : f32
// CHECK:           %[[D:.+]] = arith.divf %{{.+}}, %[[S]] : f32
// CHECK:           %[[R:.+]] = math.roundeven %[[D]] : f32
// CHECK:           %[[A:.+]] = arith.addf %[[R]]
// CHECK:           %[[LO:.+]] = arith.maxnumf %[[A]], %{{.+}} : f32
// CHECK:           %[[HI:.+]] = arith.minnumf %[[LO]], %{{.+}} : f32
// CHECK:           arith.fptosi %[[HI]] : f32 to i8
// CHECK-NOT:     quant.scast
// CHECK:         return %[[G]] : tensor<4xi8>
func.func @quantize_per_tensor(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>> {
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
}

// -----

// u8 storage: unsigned conversions and zero extension.
// CHECK-LABEL: func.func @unsigned
// CHECK:         arith.fptoui %{{.+}} : f32 to i8
// CHECK:         arith.extui %{{.+}} : i8 to i32
// CHECK:         arith.subi
// CHECK:         arith.sitofp
// CHECK:         arith.mulf
func.func @unsigned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  %1 = llm.dequantize %0 : (tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Per axis: parameter tensors read through a broadcasting map.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @per_axis
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x3xi8>) -> tensor<2x3xf32>
// CHECK-DAG:     %[[S:.+]] = arith.constant dense<{{\[\[}}1.000000e-01, 2.000000e-01, 3.000000e-01]]> : tensor<1x3xf32>
// CHECK-DAG:     %[[Z:.+]] = arith.constant dense<{{\[\[}}1, 2, 3]]> : tensor<1x3xi32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[COL]], #[[ID]]]{{.*}} ins(%[[Q]], %[[S]], %[[Z]] :
// CHECK:           arith.extsi %{{.+}} : i8 to i32
func.func @per_axis(%q: tensor<2x3x!quant.uniform<i8:f32:1, {0.1:1, 0.2:2, 0.3:3}>>) -> tensor<2x3xf32> {
  %0 = llm.dequantize %q : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1:1, 0.2:2, 0.3:3}>>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Blockwise (groups of 32 along dim 1): the data is viewed as [2, 2, 32].
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BLK:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @blockwise
// CHECK:         %[[E:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2]] output_shape [2, 2, 32] : tensor<2x64xi4> into tensor<2x2x32xi4>
// CHECK:         %[[G:.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[BLK]], #[[BLK]], #[[ID3]]]{{.*}} ins(%[[E]], %{{.+}}, %{{.+}} : tensor<2x2x32xi4>, tensor<2x2xf32>, tensor<2x2xi32>)
// CHECK:         tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2]] : tensor<2x2x32xf32> into tensor<2x64xf32>
func.func @blockwise(%q: tensor<2x64x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1, 0.2}, {0.3, 0.4}}>>) -> tensor<2x64xf32> {
  %0 = llm.dequantize %q : (tensor<2x64x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1, 0.2}, {0.3, 0.4}}>>) -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// Integer matmul, 8-bit, 2-D B, static shapes: exact f32 panels. A - za
// once as f32 (small integers, exact); per block of output columns and
// panel of K (at most 256 terms: every partial sum is an integer below
// 2^24, exact in f32), B - zb[n] dequantized into an f32 panel without a
// scale, a plain matmul from zero (vectorized in place), and the panel's
// sums converted to i32 and added to the i32 accumulator.
// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME:    (%[[A:.+]]: tensor<2x3xi8>, %[[B:.+]]: tensor<3x4xi8>) -> tensor<2x4xi32>
// CHECK:         %[[AF:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x3xi8>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK:           arith.extui %{{.+}} : i8 to i32
// CHECK:           arith.subi
// CHECK:           arith.sitofp %{{.+}} : i32 to f32
// CHECK-DAG:     arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-DAG:     arith.constant dense<-1> : tensor<1x1xi32>
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x4xi32>)
// CHECK:           linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<2x4xi32>)
// CHECK:           scf.for
// CHECK:             %[[P:.+]] = scf.for {{.*}} -> (tensor<3x4xf32>)
// CHECK:               vector.transfer_read %[[B]]{{.*}} : tensor<3x4xi8>, vector<4xi8>
// CHECK:               arith.extsi {{.*}} : vector<4xi8> to vector<4xi32>
// CHECK:               arith.subi
// CHECK:             %[[AS:.+]] = tensor.extract_slice %[[AF]][0, %{{.+}}] [2, 3] [1, 1]
// CHECK:             %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK:             %[[MM:.+]] = linalg.matmul {llm.vectorize_in_place} ins(%[[AS]], %[[P]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[Z]] : tensor<2x4xf32>)
// CHECK:             scf.for
// CHECK:               vector.transfer_read %[[MM]]{{.*}} : tensor<2x4xf32>, vector<4xf32>
// CHECK:               arith.fptosi {{.*}} : vector<4xf32> to vector<4xi32>
// CHECK:               arith.addi {{.*}} : vector<4xi32>
// CHECK:           tensor.parallel_insert_slice
// Without the CPU's vector kernels (llm-lower-to-nvvm): the integer
// contraction, one generic with an i32 accumulation and no loops.
// NOVEC-LABEL: func.func @matmul_integer
// NOVEC-NOT:     scf.for
// NOVEC:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<2x3xi8>, tensor<3x4xi8>) outs(%{{.+}} : tensor<2x4xi32>)
// NOVEC:           arith.subi
// NOVEC:           arith.muli
// NOVEC:           arith.addi
// NOVEC-NOT:     scf.for
// NOVEC:         return
func.func @matmul_integer(%a: tensor<2x3x!quant.uniform<u8:f32, 1.0:12>>, %b: tensor<3x4x!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<2x4xi32> {
  %0 = llm.matmul_integer %a, %b : (tensor<2x3x!quant.uniform<u8:f32, 1.0:12>>, tensor<3x4x!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

// Integer matmul with a batched B: one generic with a reduction over k, i32
// accumulation.
// CHECK-LABEL: func.func @matmul_integer_batched
// CHECK-SAME:    (%[[A:.+]]: tensor<2x2x3xi8>, %[[B:.+]]: tensor<2x3x4xi8>) -> tensor<2x2x4xi32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<2x2x4xi32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<2x2x3xi8>, tensor<2x3x4xi8>) outs(%[[F]] : tensor<2x2x4xi32>)
// CHECK:           arith.extui %{{.+}} : i8 to i32
// CHECK:           arith.extsi %{{.+}} : i8 to i32
// CHECK:           arith.muli
// CHECK:           arith.addi
func.func @matmul_integer_batched(%a: tensor<2x2x3x!quant.uniform<u8:f32, 1.0:12>>, %b: tensor<2x3x4x!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<2x2x4xi32> {
  %0 = llm.matmul_integer %a, %b : (tensor<2x2x3x!quant.uniform<u8:f32, 1.0:12>>, tensor<2x3x4x!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<2x2x4xi32>
  return %0 : tensor<2x2x4xi32>
}

// -----

// QLinearMatMul rescale of an i32 accumulator: one f64 multiply.
// CHECK-LABEL: func.func @requantize_accumulator
// CHECK:         arith.sitofp %{{.+}} : i32 to f64
// CHECK:         arith.mulf %{{.+}}, %{{.+}} : f64
// CHECK:         math.roundeven %{{.+}} : f64
// CHECK:         arith.fptoui %{{.+}} : f64 to i8
func.func @requantize_accumulator(%acc: tensor<4xi32>) -> tensor<4xi8> {
  %0 = quant.scast %acc : tensor<4xi32> to tensor<4x!quant.uniform<i32:f32, 0.01>>
  %1 = llm.requantize %0 : (tensor<4x!quant.uniform<i32:f32, 0.01>>) -> tensor<4x!quant.uniform<u8:f32, 0.1:3>>
  %2 = quant.scast %1 : tensor<4x!quant.uniform<u8:f32, 0.1:3>> to tensor<4xi8>
  return %2 : tensor<4xi8>
}

// -----

// FP8: the bits are computed in i32 and truncated to i8; dequantization
// reads a 256-entry table. FP8 types become i8.
// CHECK-LABEL: func.func @fp8
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf32>)
// CHECK:         arith.bitcast %{{.+}} : f32 to i32
// CHECK:         arith.trunci %{{.+}} : i32 to i8
// CHECK:         arith.constant dense<{{.*}}> : tensor<256xf32>
// CHECK:         tensor.extract
// CHECK-NOT:     f8E4M3FN
func.func @fp8(%x: tensor<4xf32>) -> (tensor<4xf8E4M3FN>, tensor<4xf32>) {
  %0 = llm.quantize %x {scale = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %1 = llm.dequantize %0 {scale = 2.0 : f32} : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf8E4M3FN>, tensor<4xf32>
}

// -----

// Weight-only W4A16, groups of 32 along K: one contraction over
// (m, n, k/32, k%32) reading the i4 weight and its [2, 16] scales; no f32
// tensor of the weight's size exists.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-DAG: #[[P:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @w4a16
// CHECK-NOT:     64x16xf32
// CHECK-NOT:     32x16xf32
// CHECK:         linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[P]], #[[P]], #[[O]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<4x2x32xf32>, tensor<2x32x16xi4>, tensor<2x16xf32>, tensor<2x16xi32>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:           arith.extsi %{{.+}} : i4 to i32
// CHECK:           arith.subi
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     64x16xf32
// CHECK:         return
func.func @w4a16(%x: tensor<4x64xf32>, %w: tensor<64x16xi4>) -> tensor<4x16xf32> {
  %q = quant.scast %w : tensor<64x16xi4> to tensor<64x16x!quant.uniform<i4:f32:{0:32,1:1}, {{0.1:1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2}, {0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4:-2}}>>
  %y = llm.dequant_matmul %x, %q : (tensor<4x64xf32>, tensor<64x16x!quant.uniform<i4:f32:{0:32,1:1}, {{0.1:1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2}, {0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4:-2}}>>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Decode (one row of x, weight [N, K] with transpose_b), constant i4 weight
// in groups of 32: the vectorized matvec kernel. The constant is packed two
// per byte in the kernel's layout (within each 32-element block, byte j =
// element j | element j+16 << 4, signed nibbles stored as q + 8: 0x89 =
// (1+8) | (0+8) << 4, 0x8A, 0x8B, 0x8C, 0x80 = -8+8, 0x87 = -1+8), each
// 32-element chunk is one 16-byte load, zero-extended to i32, whose low and
// high nibbles (and, shift) meet two plain 16-element loads of x: no
// de-interleaving, no xor; no linalg contraction and no f32 tensor of the
// weight's size. The 8 rows are one block of the kernel, stored interleaved
// chunk by chunk ([8 / 8, 8 * 32] bytes: row 0's first chunk, then row 1's,
// ...) so that the block is one sequential stream.
// CHECK-LABEL: func.func @w4_matvec
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     8x64xf32
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<"0x898A8B8C808788888888888888888888{{.*}}"> : tensor<1x256xi8>
// CHECK:         scf.forall (%[[I:.+]]) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1x8xf32>)
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read %{{.+}} : tensor<64xf32>, vector<16xf32>
// CHECK:               vector.transfer_read %{{.+}} : tensor<64xf32>, vector<16xf32>
// CHECK-NOT:           vector.deinterleave
// CHECK:               vector.transfer_read %[[W]]{{.*}} : tensor<1x256xi8>, vector<16xi8>
// CHECK-NEXT:          arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// CHECK:               arith.andi
// CHECK:               arith.shrui
// CHECK:               arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:               vector.fma
// CHECK-NOT:           arith.xori
// CHECK:           vector.reduction <add>
// CHECK:           tensor.parallel_insert_slice
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @w4_matvec(%x: tensor<1x64xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<[[1, 2, 3, 4, -8, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x64xi4>
  %q = quant.scast %c : tensor<8x64xi4> to tensor<8x64x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2:-2}}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x64xf32>, tensor<8x64x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2:-2}}>>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// Near misses of the matvec kernel and the panels: a runtime
// (non-constant) i4 weight cannot be packed at compile time, and a runtime
// i8 weight stored [N, K] with five rows of x (more than the matvec
// kernel's four) cannot be rearranged to [K, N] for the panels at compile
// time: both keep the generic contraction.
// CHECK-LABEL: func.func @w4_runtime_matvec
// CHECK:         linalg.generic
// CHECK-NOT:     vector.transfer_read
// CHECK-LABEL: func.func @w8_five_rows
// CHECK:         linalg.generic
// CHECK-NOT:     vector.transfer_read
// CHECK:         return
func.func @w4_runtime_matvec(%x: tensor<1x64xf32>, %w: tensor<8x64xi4>) -> tensor<1x8xf32> {
  %q = quant.scast %w : tensor<8x64xi4> to tensor<8x64x!quant.uniform<i4:f32, 0.1:1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x64xf32>, tensor<8x64x!quant.uniform<i4:f32, 0.1:1>>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
func.func @w8_five_rows(%x: tensor<5x64xf32>, %w: tensor<8x64xi8>) -> tensor<5x8xf32> {
  %q = quant.scast %w : tensor<8x64xi8> to tensor<8x64x!quant.uniform<i8:f32, 0.1:1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<5x64xf32>, tensor<8x64x!quant.uniform<i8:f32, 0.1:1>>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

// Prefill (9 rows, more than the matvec kernel's 4), constant i4 weight
// stored [N, K]: dequantized panels. The weight is rearranged at compile
// time to [K / 2, N] bytes, elements 2i and 2i + 1 of K in the low and high
// nibble of row i, signed nibbles biased by 8 (column 0: 1, 2, 3, 4 ->
// 0xA9 = -87, 0xCB = -53; column 15: -8, 7, -1, 0 -> 0xF0 = -16,
// 0x87 = -121), the zero point raised by 8 (-1 -> 7). Per block of output
// channels (a parallel loop), per panel of K: one vector row of channels
// dequantized at a time (low nibbles to row 2i, high nibbles to row 2i + 1)
// into an f32 [K, N] panel that a plain matmul, vectorized in place,
// multiplies; no contraction over the i4 weight.
// CHECK-LABEL: func.func @w4_prefill_panels
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{\[}}[-87, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -16], [-53, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -120, -121]]> : tensor<2x16xi8>
// CHECK-DAG:     %[[S:.+]] = arith.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-DAG:     %[[Z:.+]] = arith.constant dense<7> : tensor<1x1xi32>
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<9x16xf32>)
// CHECK:           linalg.fill
// CHECK:           scf.for
// CHECK:             %[[P:.+]] = scf.for {{.*}} -> (tensor<4x16xf32>)
// CHECK:               vector.transfer_read %[[W]]{{.*}} : tensor<2x16xi8>, vector<16xi8>
// CHECK:               arith.andi
// CHECK:               arith.shrui
// CHECK:               arith.subi
// CHECK:               arith.sitofp
// CHECK:               arith.mulf
// CHECK:               vector.transfer_write {{.*}} : vector<16xf32>, tensor<4x16xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<16xf32>, tensor<4x16xf32>
// CHECK:             %[[XS:.+]] = tensor.extract_slice %{{.+}}[0, %{{.+}}] [9, 4] [1, 1]
// CHECK:             linalg.matmul {llm.vectorize_in_place} ins(%[[XS]], %[[P]] : tensor<9x4xf32>, tensor<4x16xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[0, %{{.+}}] [9, 16] [1, 1]
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @w4_prefill_panels(%x: tensor<9x4xf32>) -> tensor<9x16xf32> {
  %c = arith.constant dense<[[1, 2, 3, 4], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [-8, 7, -1, 0]]> : tensor<16x4xi4>
  %q = quant.scast %c : tensor<16x4xi4> to tensor<16x4x!quant.uniform<i4:f32, 0.5:-1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<9x4xf32>, tensor<16x4x!quant.uniform<i4:f32, 0.5:-1>>) -> tensor<9x16xf32>
  return %y : tensor<9x16xf32>
}

// -----

// A few rows of x (2 here, a short prefill): the matvec kernel, each weight
// chunk loaded and converted once and used by both rows (2 FMAs per load),
// 2 weight rows per block (4 / M), one [2, 2] tile per block.
// CHECK-LABEL: func.func @w8_two_rows
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall (%{{.+}}) in (4) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x8xf32>)
// CHECK:               vector.transfer_read %{{.+}} : tensor<128xf32>, vector<32xf32>
// CHECK:               vector.transfer_read %{{.+}} : tensor<128xf32>, vector<32xf32>
// CHECK:               %[[W:.+]] = vector.transfer_read %{{.+}} : tensor<8x64xi8>, vector<32xi8>
// CHECK-NEXT:          %[[F:.+]] = arith.sitofp %[[W]] : vector<32xi8> to vector<32xf32>
// CHECK-NEXT:          vector.fma %{{.+}}, %[[F]], %{{.+}} : vector<32xf32>
// CHECK-NEXT:          vector.fma %{{.+}}, %[[F]], %{{.+}} : vector<32xf32>
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[0, %{{.+}}] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @w8_two_rows(%x: tensor<2x64xf32>, %w: tensor<8x64xi8>) -> tensor<2x8xf32> {
  %q = quant.scast %w : tensor<8x64xi8> to tensor<8x64x!quant.uniform<i8:f32, 0.1:1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<2x64xf32>, tensor<8x64x!quant.uniform<i8:f32, 0.1:1>>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Symmetric weights (every zero point 0, as int8 weights usually are): the
// kernel's chunk loop carries only the R * M = 4 row accumulators and its
// body is loads, conversions and FMAs: no per-lane sum of x (the zero-point
// term) and no addf. With a zero point (@w8_zp_matvec) the chunk loop also
// carries the per-lane sum of x, and each group ends with its s * z term.
// CHECK-LABEL: func.func @w8_symmetric_matvec
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>) {
// CHECK:             scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>) {
// CHECK-NOT:           arith.addf
// CHECK:               scf.yield
// CHECK-NOT:         arith.negf
// CHECK:             scf.yield
// Taken as streamed from DRAM (streamed-weight-min-bytes=0): one weight row
// per block and chunks of 64 elements.
// STREAM-LABEL: func.func @w8_symmetric_matvec
// STREAM:         scf.forall (%{{.+}}) in (4) shared_outs
// STREAM:             scf.for {{.*}} -> (vector<64xf32>) {
// STREAM:               vector.transfer_read {{.*}} : tensor<4x64xi8>, vector<64xi8>
// CHECK-LABEL: func.func @w8_zp_matvec
// CHECK:             scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>) {
// CHECK:               arith.addf {{.*}} : vector<32xf32>
// CHECK:               scf.yield
// CHECK:             arith.negf
func.func @w8_symmetric_matvec(%x: tensor<1x64xf32>) -> tensor<1x4xf32> {
  %c = arith.constant dense<3> : tensor<4x64xi8>
  %q = quant.scast %c : tensor<4x64xi8> to tensor<4x64x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x64xf32>, tensor<4x64x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
func.func @w8_zp_matvec(%x: tensor<1x64xf32>) -> tensor<1x4xf32> {
  %c = arith.constant dense<3> : tensor<4x64xi8>
  %q = quant.scast %c : tensor<4x64xi8> to tensor<4x64x!quant.uniform<i8:f32:0, {0.1, 0.2:1, 0.3, 0.4}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x64xf32>, tensor<4x64x!quant.uniform<i8:f32:0, {0.1, 0.2:1, 0.3, 0.4}>>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// max of quantized values: the storage compared unsigned (u8), with the
// broadcast operand's map; the quantized types erased.
// CHECK-LABEL: func.func @max_u8
// CHECK-SAME:    (%[[A:.+]]: tensor<2x4xi8>, %[[B:.+]]: tensor<4xi8>) -> tensor<2x4xi8>
// CHECK:         %[[G:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x4xi8>, tensor<4xi8>) outs(%{{.+}} : tensor<2x4xi8>)
// CHECK:           arith.maxui %{{.+}}, %{{.+}} : i8
// CHECK:         return %[[G]]
func.func @max_u8(%a: tensor<2x4x!quant.uniform<u8:f32, 0.5:128>>, %b: tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.5:128>> {
  %0 = llm.max %a, %b : (tensor<2x4x!quant.uniform<u8:f32, 0.5:128>>, tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<2x4x!quant.uniform<u8:f32, 0.5:128>>
  return %0 : tensor<2x4x!quant.uniform<u8:f32, 0.5:128>>
}

// -----

// Signed storage and signless integers compare signed.
// CHECK-LABEL: func.func @max_signed
// CHECK:         arith.maxsi %{{.+}}, %{{.+}} : i8
// CHECK:         arith.maxsi %{{.+}}, %{{.+}} : i32
func.func @max_signed(%a: tensor<4x!quant.uniform<i8:f32, 0.5:-1>>, %b: tensor<4xi32>) -> (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>, tensor<4xi32>) {
  %0 = llm.max %a, %a : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>, tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-1>>
  %1 = llm.max %b, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4x!quant.uniform<i8:f32, 0.5:-1>>, tensor<4xi32>
}

// -----

// reduce_max of quantized values: filled with the storage minimum (the
// narrow range's -127 here), reduced with maxsi, keepdims by expand_shape.
// CHECK-LABEL: func.func @reduce_max_narrow
// CHECK-DAG:     %[[LO:.+]] = arith.constant -127 : i8
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[LO]] : i8) outs(%{{.+}} : tensor<2xi8>)
// CHECK:         %[[G:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%[[F]] : tensor<2xi8>)
// CHECK:           arith.maxsi %{{.+}}, %{{.+}} : i8
// CHECK:         %[[E:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xi8> into tensor<2x1xi8>
// CHECK:         return %[[E]]
func.func @reduce_max_narrow(%a: tensor<2x8x!quant.uniform<i8<-127:127>:f32, 0.5>>) -> tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.5>> {
  %0 = llm.reduce_max %a {axes = array<i64: 1>, keepdims = true} : (tensor<2x8x!quant.uniform<i8<-127:127>:f32, 0.5>>) -> tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.5>>
  return %0 : tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.5>>
}

// -----

// u8 reduce_max: filled with 0, maxui.
// CHECK-LABEL: func.func @reduce_max_u8
// CHECK-DAG:     %[[Z:.+]] = arith.constant 0 : i8
// CHECK:         linalg.fill ins(%[[Z]] : i8)
// CHECK:           arith.maxui %{{.+}}, %{{.+}} : i8
func.func @reduce_max_u8(%a: tensor<3x4x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2, 0.5:3, 1.0:4}>>) -> tensor<4x!quant.uniform<u8:f32:0, {0.5:1, 0.25:2, 0.5:3, 1.0:4}>> {
  %0 = llm.reduce_max %a {axes = array<i64: 0>} : (tensor<3x4x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2, 0.5:3, 1.0:4}>>) -> tensor<4x!quant.uniform<u8:f32:0, {0.5:1, 0.25:2, 0.5:3, 1.0:4}>>
  return %0 : tensor<4x!quant.uniform<u8:f32:0, {0.5:1, 0.25:2, 0.5:3, 1.0:4}>>
}
