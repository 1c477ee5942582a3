// The CPU target's choices come from llm-select-lowering-config
// (llm.lowering_config on each llm.dequant_matmul); convert-llm-to-linalg
// alone is target-neutral (the exact f32 kernel).
// RUN: llm-opt %s -llm-select-lowering-config=target=avx512-bf16 -convert-llm-to-linalg -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-select-lowering-config=target=avx512 -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=F32 --implicit-check-not=x86vector
// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=F32 --implicit-check-not=x86vector
// RUN: not llm-opt %s -llm-select-lowering-config=target=pentium -convert-llm-to-linalg -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: llm-opt %s -llm-select-lowering-config="target=avx512-bf16 streamed-weight-min-bytes=0" -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=STREAM
// RUN: not llm-opt %s -llm-select-lowering-config="streamed-weight-min-bytes=-2" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADSTREAM
// RUN: not llm-opt %s -convert-llm-to-linalg="streamed-weight-min-bytes=-1" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADDEFAULT
// BADSTREAM: error: llm-select-lowering-config: streamed-weight-min-bytes must be -1 (the target's) or a size in bytes, got -2
// BADDEFAULT: error: convert-llm-to-linalg: streamed-weight-min-bytes must be a size in bytes, got -1

// The 4-bit decode matvec on AVX512-BF16 targets (llm.dequant_matmul, x[1, K]
// with a constant weight [N, K], transpose_b): per chunk of 128 elements of a
// row, word i (bytes 2i, 2i+1) holds the storage nibbles of elements i, 32+i,
// 64+i, 96+i in bits [0,4), [4,8), [8,12), [12,16). Row 0 holds
// (e mod 16) - 8, stored as q + 8 = e mod 16, so word i = (i mod 16) * 0x1111;
// row 1 holds 0, stored as 8: 0x8888.
// The 16 x 32 table of bf16((j & 15) - z): row z = 0 starts 0.0, 1.0, 2.0,
// 3.0 (0x0000, 0x3F80, 0x4000, 0x4040); zero points (+8 for signed
// storage) select the row: [1, 0, 0, -2] + 8 for weight row 0.
// x is split once into hi = bf16(x) and lo = bf16(x - hi); each plane is
// `vpermw(table, word >> 4p)` (inline asm) and two vdpbf16ps
// (x86vector.avx512.dot), one per x term; each group of 32 is scaled once.
// CHECK-LABEL: func.func @w4_matvec_bf16
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<"0x0000111122223333444455556666777788889999AAAABBBBCCCCDDDDEEEEFFFF{{(0000111122223333444455556666777788889999AAAABBBBCCCCDDDDEEEEFFFF)}}{{(8888)+}}"> : tensor<1x128xi8>
// CHECK-DAG:     %[[T:.+]] = arith.constant dense<"0x0000803F00404040{{[0-9A-F]+}}"> : tensor<16x32xi16>
// CHECK-DAG:     %[[Z:.+]] = arith.constant dense<{{\[}}[9, 8, 8, 8, 8, 8, 6, 8]]> : tensor<1x8xi8>
// CHECK:         %[[X:.+]]:2 = linalg.generic
// CHECK:           %[[HI:.+]] = arith.truncf %[[IN:.+]] : f32 to bf16
// CHECK:           %[[HF:.+]] = arith.extf %[[HI]] : bf16 to f32
// CHECK:           %[[R:.+]] = arith.subf %[[IN]], %[[HF]] : f32
// CHECK:           %[[LO:.+]] = arith.truncf %[[R]] : f32 to bf16
// CHECK:           linalg.yield %[[HI]], %[[LO]] : bf16, bf16
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}}) -> (tensor<1x2xf32>)
// CHECK:           scf.for
// CHECK:             %[[XH:.+]] = vector.transfer_read %[[X]]#0[%{{.+}}], %{{.+}} {{.*}} : tensor<128xbf16>, vector<32xbf16>
// CHECK:             %[[XL:.+]] = vector.transfer_read %[[X]]#1[%{{.+}}], %{{.+}} {{.*}} : tensor<128xbf16>, vector<32xbf16>
// CHECK:             %[[B:.+]] = vector.transfer_read %[[W]]{{.*}} : tensor<1x128xi8>, vector<64xi8>
// CHECK:             %[[WD:.+]] = vector.bitcast %[[B]] : vector<64xi8> to vector<32xi16>
// CHECK:             %[[ZI:.+]] = tensor.extract %[[Z]]
// CHECK:             %[[ZX:.+]] = arith.index_cast %[[ZI]] : i8 to index
// CHECK:             %[[TB:.+]] = vector.transfer_read %[[T]][%[[ZX]], %{{.+}}]{{.*}} : tensor<16x32xi16>, vector<32xi16>
// CHECK:             %[[P:.+]] = llvm.inline_asm "vpermw $2, $1, $0", "=v,v,v" %[[WD]], %[[TB]] : (vector<32xi16>, vector<32xi16>) -> vector<32xi16>
// CHECK:             %[[PB:.+]] = arith.bitcast %[[P]] : vector<32xi16> to vector<32xbf16>
// CHECK:             %[[D0:.+]] = x86vector.avx512.dot %{{.+}}, %[[PB]], %[[XH]] : vector<32xbf16> -> vector<16xf32>
// CHECK:             %[[D1:.+]] = x86vector.avx512.dot %[[D0]], %[[PB]], %[[XL]] : vector<32xbf16> -> vector<16xf32>
// CHECK:             vector.fma %{{.+}}, %[[D1]], %{{.+}} : vector<16xf32>
// CHECK:             arith.shrui %[[WD]], %{{.+}} : vector<32xi16>
// CHECK-COUNT-6:     llvm.inline_asm "vpermw
// CHECK:             scf.yield
// CHECK-COUNT-2:   vector.reduction <add>
// F32-LABEL: func.func @w4_matvec_bf16
// F32:         arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// BAD: error: llm-select-lowering-config: unknown target 'pentium' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)
func.func @w4_matvec_bf16(%x: tensor<1x128xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x128xi4>
  %q = quant.scast %c : tensor<2x128xi4> to tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x128xf32>, tensor<2x128x!quant.uniform<i4:f32:{0:1,1:32}, {{0.1:1, 0.2, 0.3, 0.4:-2}, {0.5, 0.6, 0.7, 0.8}}>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// Groups of 128 (u4, zero points 3 and 15: table rows 3 and 15), two rows of
// x: one scale per chunk and row, both x rows share each converted plane
// (four dot products per plane).
// CHECK-LABEL: func.func @u4_two_rows_group128
// CHECK-DAG:     arith.constant dense<{{\[}}[3, 15]]> : tensor<1x2xi8>
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.+}}, %{{.+}} : tensor<256xbf16>, tensor<256xbf16>)
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             llvm.inline_asm "vpermw
// CHECK-COUNT-4:     x86vector.avx512.dot
// CHECK:             llvm.inline_asm "vpermw
// CHECK-COUNT-4:     x86vector.avx512.dot
// F32-LABEL: func.func @u4_two_rows_group128
func.func @u4_two_rows_group128(%x: tensor<2x128xf32>, %w: tensor<2x128xi4>) -> tensor<2x2xf32> {
  %c = arith.constant dense<7> : tensor<2x128xi4>
  %q = quant.scast %c : tensor<2x128xi4> to tensor<2x128x!quant.uniform<u4:f32:{0:1,1:128}, {{0.1:3}, {0.2:15}}>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<2x128xf32>, tensor<2x128x!quant.uniform<u4:f32:{0:1,1:128}, {{0.1:3}, {0.2:15}}>>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Eight weight rows (512 bytes): one block of 8 rows, cache-tuned (the
// weight is smaller than the target's streamedWeightMinBytes); taken as
// streamed from DRAM (streamed-weight-min-bytes=0), blocks of 2 rows: the
// shape measured faster when every call reads the weight from DRAM
// (bench/quant/results.md).
// CHECK-LABEL: func.func @w4_rows8
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%{{.+}}) -> (tensor<1x8xf32>)
// CHECK-COUNT-8:   x86vector.avx512.dot
// STREAM-LABEL: func.func @w4_rows8
// STREAM:         arith.constant {{.*}} : tensor<4x128xi8>
// STREAM:         scf.forall (%{{.+}}) in (4) shared_outs(%{{.+}}) -> (tensor<1x8xf32>)
// STREAM:           vector.reduction <add>
// STREAM-NEXT:      vector.reduction <add>
// STREAM-NEXT:      vector.from_elements {{.*}} : vector<2xf32>
// F32-LABEL: func.func @w4_rows8
func.func @w4_rows8(%x: tensor<1x128xf32>) -> tensor<1x8xf32> {
  %c = arith.constant dense<3> : tensor<8x128xi4>
  %q = quant.scast %c : tensor<8x128xi4> to tensor<8x128x!quant.uniform<i4:f32, 0.5:1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x128xf32>, tensor<8x128x!quant.uniform<i4:f32, 0.5:1>>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// K = 1024 (8 chunks of 128), two rows: taken as streamed, the chunk loop is
// unrolled by 4 (step 4, 4 x 8 dot products per row, 2 rows); cache-tuned,
// one chunk per step.
// CHECK-LABEL: func.func @w4_streamed_unrolled
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c1
// CHECK-COUNT-16:    x86vector.avx512.dot
// CHECK-NOT:         x86vector.avx512.dot
// CHECK:             scf.yield
// STREAM-LABEL: func.func @w4_streamed_unrolled
// STREAM:         %[[C8:.+]] = arith.constant 8 : index
// STREAM:         %[[C4:.+]] = arith.constant 4 : index
// STREAM:         scf.for %{{.+}} = %{{.+}} to %[[C8]] step %[[C4]]
// STREAM-COUNT-64:  x86vector.avx512.dot
// STREAM-NOT:       x86vector.avx512.dot
// STREAM:           scf.yield
// F32-LABEL: func.func @w4_streamed_unrolled
func.func @w4_streamed_unrolled(%x: tensor<1x1024xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<3> : tensor<2x1024xi4>
  %q = quant.scast %c : tensor<2x1024xi4> to tensor<2x1024x!quant.uniform<i4:f32, 0.5:1>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x1024xf32>, tensor<2x1024x!quant.uniform<i4:f32, 0.5:1>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// Near miss: K = 64 is not a multiple of the 128-element chunk: the f32
// kernel (zero-extension and conversion), on either target.
// CHECK-LABEL: func.func @w4_k64
// CHECK-NOT:     x86vector
// CHECK:         arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// F32-LABEL: func.func @w4_k64
func.func @w4_k64(%x: tensor<1x64xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<1> : tensor<2x64xi4>
  %q = quant.scast %c : tensor<2x64xi4> to tensor<2x64x!quant.uniform<i4:f32, 0.5>>
  %y = llm.dequant_matmul %x, %q {transpose_b} : (tensor<1x64xf32>, tensor<2x64x!quant.uniform<i4:f32, 0.5>>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
