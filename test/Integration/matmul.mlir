// llm.matmul: 2-D, transposed operands, batched, broadcast batch dims, f16 and
// bf16 (f32 accumulation).
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/mm %t/mm_tb %t/mm_ta %t/mm_tab %t/mm_batch_rhs2d %t/mm_batch_bcast %t/mm_batch_bcast_tb %t/mm_f16 %t/mm_bf16_tb %t/mm_bf16_tab3d %t/mm_bf16_tab3d_noopt %t/mm_37x360_t1 %t/mm_37x360_t2 %t/mm_17x512_t2
// RUN: %python -m llmc_check gen %t a=4x32xf32 b=32x5xf32 bt=5x32xf32 at=32x4xf32 a3=2x4x32xf32 a4=2x1x4x32xf32 b3=3x32x5xf32 ah=4x32xf16 bh=32x5xf16 ag=4x32xbf16 bg=5x32xbf16 ag3=2x8x4xbf16 bg8=5x8xbf16 a37=37x200xf32 b360=200x360xf32 a17=17x64xf32 b512=64x512xf32

// RUN: llmc run %s --entry mm --input arg0=%t/a.npy --input arg1=%t/b.npy --output-dir %t/mm
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a.npy --arg b=%t/b.npy --actual %t/mm/out0.npy --name mm | FileCheck %s --check-prefix=MM
// MM: mm: shape [4, 5] dtype float32 {{.*}} PASS
func.func @mm(%a: tensor<4x32xf32>, %b: tensor<32x5xf32>) -> tensor<4x5xf32> {
  %0 = llm.matmul %a, %b : (tensor<4x32xf32>, tensor<32x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// RUN: llmc run %s --entry mm_tb --input arg0=%t/a.npy --input arg1=%t/bt.npy --output-dir %t/mm_tb
// RUN: %python -m llmc_check expr "matmul(a, bt, transpose_b=True)" --arg a=%t/a.npy --arg bt=%t/bt.npy --actual %t/mm_tb/out0.npy --name mm_tb | FileCheck %s --check-prefix=MM_TB
// MM_TB: mm_tb: shape [4, 5] dtype float32 {{.*}} PASS
func.func @mm_tb(%a: tensor<4x32xf32>, %b: tensor<5x32xf32>) -> tensor<4x5xf32> {
  %0 = llm.matmul %a, %b {transpose_b} : (tensor<4x32xf32>, tensor<5x32xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// RUN: llmc run %s --entry mm_ta --input arg0=%t/at.npy --input arg1=%t/b.npy --output-dir %t/mm_ta
// RUN: %python -m llmc_check expr "matmul(at, b, transpose_a=True)" --arg at=%t/at.npy --arg b=%t/b.npy --actual %t/mm_ta/out0.npy --name mm_ta | FileCheck %s --check-prefix=MM_TA
// MM_TA: mm_ta: shape [4, 5] dtype float32 {{.*}} PASS
func.func @mm_ta(%a: tensor<32x4xf32>, %b: tensor<32x5xf32>) -> tensor<4x5xf32> {
  %0 = llm.matmul %a, %b {transpose_a} : (tensor<32x4xf32>, tensor<32x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// RUN: llmc run %s --entry mm_tab --input arg0=%t/at.npy --input arg1=%t/bt.npy --output-dir %t/mm_tab
// RUN: %python -m llmc_check expr "matmul(at, bt, transpose_a=True, transpose_b=True)" --arg at=%t/at.npy --arg bt=%t/bt.npy --actual %t/mm_tab/out0.npy --name mm_tab | FileCheck %s --check-prefix=MM_TAB
// MM_TAB: mm_tab: shape [4, 5] dtype float32 {{.*}} PASS
func.func @mm_tab(%a: tensor<32x4xf32>, %b: tensor<5x32xf32>) -> tensor<4x5xf32> {
  %0 = llm.matmul %a, %b {transpose_a, transpose_b} : (tensor<32x4xf32>, tensor<5x32xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// Batched lhs against a 2-D weight (a linear layer).
// RUN: llmc run %s --entry mm_batch_rhs2d --input arg0=%t/a3.npy --input arg1=%t/b.npy --output-dir %t/mm_batch_rhs2d
// RUN: %python -m llmc_check expr "matmul(a3, b)" --arg a3=%t/a3.npy --arg b=%t/b.npy --actual %t/mm_batch_rhs2d/out0.npy --name mm_batch_rhs2d | FileCheck %s --check-prefix=MM_BATCH_RHS2D
// MM_BATCH_RHS2D: mm_batch_rhs2d: shape [2, 4, 5] dtype float32 {{.*}} PASS
func.func @mm_batch_rhs2d(%a: tensor<2x4x32xf32>, %b: tensor<32x5xf32>) -> tensor<2x4x5xf32> {
  %0 = llm.matmul %a, %b : (tensor<2x4x32xf32>, tensor<32x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// Batch dims 2x1 and 3 broadcast to 2x3.
// RUN: llmc run %s --entry mm_batch_bcast --input arg0=%t/a4.npy --input arg1=%t/b3.npy --output-dir %t/mm_batch_bcast
// RUN: %python -m llmc_check expr "matmul(a4, b3)" --arg a4=%t/a4.npy --arg b3=%t/b3.npy --actual %t/mm_batch_bcast/out0.npy --name mm_batch_bcast | FileCheck %s --check-prefix=MM_BATCH_BCAST
// MM_BATCH_BCAST: mm_batch_bcast: shape [2, 3, 4, 5] dtype float32 {{.*}} PASS
func.func @mm_batch_bcast(%a: tensor<2x1x4x32xf32>, %b: tensor<3x32x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = llm.matmul %a, %b : (tensor<2x1x4x32xf32>, tensor<3x32x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// Tied lm_head form: activations times an embedding table transposed.
// RUN: llmc run %s --entry mm_batch_bcast_tb --input arg0=%t/a3.npy --input arg1=%t/bt.npy --output-dir %t/mm_batch_bcast_tb
// RUN: %python -m llmc_check expr "matmul(a3, bt, transpose_b=True)" --arg a3=%t/a3.npy --arg bt=%t/bt.npy --actual %t/mm_batch_bcast_tb/out0.npy --name mm_batch_bcast_tb | FileCheck %s --check-prefix=MM_BATCH_BCAST_TB
// MM_BATCH_BCAST_TB: mm_batch_bcast_tb: shape [2, 4, 5] dtype float32 {{.*}} PASS
func.func @mm_batch_bcast_tb(%a: tensor<2x4x32xf32>, %b: tensor<5x32xf32>) -> tensor<2x4x5xf32> {
  %0 = llm.matmul %a, %b {transpose_b} : (tensor<2x4x32xf32>, tensor<5x32xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// f16 with f32 accumulation: one rounding of the exact sum, so 2 ulp holds.
// RUN: llmc run %s --entry mm_f16 --input arg0=%t/ah.npy --input arg1=%t/bh.npy --output-dir %t/mm_f16
// RUN: %python -m llmc_check expr "matmul(ah, bh)" --arg ah=%t/ah.npy --arg bh=%t/bh.npy --actual %t/mm_f16/out0.npy --dtype f16 --name mm_f16 | FileCheck %s --check-prefix=MM_F16
// MM_F16: mm_f16: shape [4, 5] dtype float16 {{.*}} PASS
func.func @mm_f16(%a: tensor<4x32xf16>, %b: tensor<32x5xf16>) -> tensor<4x5xf16> {
  %0 = llm.matmul %a, %b : (tensor<4x32xf16>, tensor<32x5xf16>) -> tensor<4x5xf16>
  return %0 : tensor<4x5xf16>
}

// RUN: llmc run %s --entry mm_bf16_tb --input arg0=%t/ag.npy --input arg1=%t/bg.npy --output-dir %t/mm_bf16_tb
// RUN: %python -m llmc_check expr "matmul(ag, bg, transpose_b=True, dtype='bf16')" --arg ag=%t/ag.npy --arg bg=%t/bg.npy --actual %t/mm_bf16_tb/out0.npy --dtype bf16 --name mm_bf16_tb | FileCheck %s --check-prefix=MM_BF16_TB
// MM_BF16_TB: mm_bf16_tb: shape [4, 5] dtype float32 {{.*}} PASS
func.func @mm_bf16_tb(%a: tensor<4x32xf32>, %b: tensor<5x32xf32>) -> tensor<4x5xf32> {
  %0 = llm.cast %a : (tensor<4x32xf32>) -> tensor<4x32xbf16>
  %1 = llm.cast %b : (tensor<5x32xf32>) -> tensor<5x32xbf16>
  %2 = llm.matmul %0, %1 {transpose_b} : (tensor<4x32xbf16>, tensor<5x32xbf16>) -> tensor<4x5xbf16>
  %3 = llm.cast %2 : (tensor<4x5xbf16>) -> tensor<4x5xf32>
  return %3 : tensor<4x5xf32>
}

// A batched bf16 lhs transposed by a 2-D transposed rhs, with --no-opt too:
// LLVM's loop vectorizer turns its strided scalar loads into shuffles of
// <25 x bfloat>, on which LLVM 22's X86 backend aborts on AVX512-BF16 CPUs;
// llmc moves them onto i16 lanes (legalizeOddBF16VectorAccesses).
// RUN: llmc compile %s --entry mm_bf16_tab3d --no-opt --target avx512-bf16 --emit=llvm -o %t/mm_bf16_tab3d.ll
// RUN: FileCheck %s --check-prefix=ODD_BF16 < %t/mm_bf16_tab3d.ll
// ODD_BF16-NOT: shufflevector <{{[0-9]*[13579]}} x bfloat>
// ODD_BF16: shufflevector <{{[0-9]*[13579]}} x i16>
// ODD_BF16-NOT: shufflevector <{{[0-9]*[13579]}} x bfloat>
// RUN: llmc run %s --entry mm_bf16_tab3d --no-opt --input arg0=%t/ag3.npy --input arg1=%t/bg8.npy --output-dir %t/mm_bf16_tab3d_noopt
// RUN: llmc run %s --entry mm_bf16_tab3d --input arg0=%t/ag3.npy --input arg1=%t/bg8.npy --output-dir %t/mm_bf16_tab3d
// RUN: %python -m llmc_check expr "matmul(ag3, bg8, transpose_a=True, transpose_b=True, dtype='bf16')" --arg ag3=%t/ag3.npy --arg bg8=%t/bg8.npy --actual %t/mm_bf16_tab3d_noopt/out0.npy --dtype bf16 --name noopt | FileCheck %s --check-prefix=MM_BF16_TAB3D
// RUN: %python -m llmc_check expr "matmul(ag3, bg8, transpose_a=True, transpose_b=True, dtype='bf16')" --arg ag3=%t/ag3.npy --arg bg8=%t/bg8.npy --actual %t/mm_bf16_tab3d/out0.npy --dtype bf16 --name opt | FileCheck %s --check-prefix=MM_BF16_TAB3D
// MM_BF16_TAB3D: {{(noopt|opt)}}: shape [2, 4, 5] dtype float32 {{.*}} PASS
func.func @mm_bf16_tab3d(%a: tensor<2x8x4xf32>, %b: tensor<5x8xf32>) -> tensor<2x4x5xf32> {
  %0 = llm.cast %a : (tensor<2x8x4xf32>) -> tensor<2x8x4xbf16>
  %1 = llm.cast %b : (tensor<5x8xf32>) -> tensor<5x8xbf16>
  %2 = llm.matmul %0, %1 {transpose_a, transpose_b} : (tensor<2x8x4xbf16>, tensor<5x8xbf16>) -> tensor<2x4x5xbf16>
  %3 = llm.cast %2 : (tensor<2x4x5xbf16>) -> tensor<2x4x5xf32>
  return %3 : tensor<2x4x5xf32>
}

// 37 rows over 2 threads (chunks of 24 and 13 rows) and N = 360 (the last
// 128-column cache tile 104 wide): every remainder, of rows and of columns,
// runs as static 4-, 2-, 1-row and 16-, 4-, 1-column tiles. atol 1e-4: 200
// products of standard normal values sum |x w| to about 160, and f32 sums
// in another order than numpy's differ by up to ~1e-7 of that per step.
// RUN: llmc run %s --entry mm_37x360 --threads 1 --input arg0=%t/a37.npy --input arg1=%t/b360.npy --output-dir %t/mm_37x360_t1
// RUN: llmc run %s --entry mm_37x360 --threads 2 --input arg0=%t/a37.npy --input arg1=%t/b360.npy --output-dir %t/mm_37x360_t2
// RUN: %python -m llmc_check expr "matmul(a37, b360)" --arg a37=%t/a37.npy --arg b360=%t/b360.npy --actual %t/mm_37x360_t1/out0.npy --atol 1e-4 --name t1 | FileCheck %s --check-prefix=MM_37X360
// RUN: %python -m llmc_check expr "matmul(a37, b360)" --arg a37=%t/a37.npy --arg b360=%t/b360.npy --actual %t/mm_37x360_t2/out0.npy --atol 1e-4 --name t2 | FileCheck %s --check-prefix=MM_37X360
// MM_37X360: {{t1|t2}}: shape [37, 360] dtype float32 {{.*}} PASS
func.func @mm_37x360(%a: tensor<37x200xf32>, %b: tensor<200x360xf32>) -> tensor<37x360xf32> {
  %0 = llm.matmul %a, %b : (tensor<37x200xf32>, tensor<200x360xf32>) -> tensor<37x360xf32>
  return %0 : tensor<37x360xf32>
}

// 17 rows over 2 threads: row chunks would be uneven (16 + 1 on AVX-512,
// 12 + 5 on AVX2), so the threads split N in 128-column chunks and each
// computes all 17 rows of its columns.
// RUN: llmc run %s --entry mm_17x512 --threads 2 --input arg0=%t/a17.npy --input arg1=%t/b512.npy --output-dir %t/mm_17x512_t2
// RUN: %python -m llmc_check expr "matmul(a17, b512)" --arg a17=%t/a17.npy --arg b512=%t/b512.npy --actual %t/mm_17x512_t2/out0.npy --atol 1e-4 --name t2 | FileCheck %s --check-prefix=MM_17X512
// MM_17X512: t2: shape [17, 512] dtype float32 {{.*}} PASS
func.func @mm_17x512(%a: tensor<17x64xf32>, %b: tensor<64x512xf32>) -> tensor<17x512xf32> {
  %0 = llm.matmul %a, %b : (tensor<17x64xf32>, tensor<64x512xf32>) -> tensor<17x512xf32>
  return %0 : tensor<17x512xf32>
}
