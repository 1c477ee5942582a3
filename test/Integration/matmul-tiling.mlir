// The CPU matmul strategies of llm-tile-and-vectorize on odd shapes: the
// small-M (matvec) register tile under short K tiles, K cache tiles (divisors
// of K), packed [N / 32, K, 32] strips of B (packed at run time for an input,
// at compile time for a constant), remainders of every tile loop, K = 1.
//
// Each function runs through `llmc run --entry NAME` (JIT, default pipeline)
// and `llmc run --no-opt` (the reference lowering: no tiling, vectorization
// or packing); both outputs are compared with the numpy reference of
// test/lib/llmc_ref.py, and the optimized output with the unoptimized one.
// Tolerances: rtol 1e-5
// and atol 1e-6 * K: both paths sum the K products of standard normals in
// f32 in different orders (measured up to 3.6e-5 at K = 300, where values
// reach ~50); a wrong element, strip or tile gives errors of order 1.
//
// RUN: rm -rf %t && mkdir -p %t/mm_ktile %t/mm_ktile_ref %t/mv_odd %t/mv_odd_ref %t/mv_rows3 %t/mv_rows3_ref %t/mm_k1 %t/mm_k1_ref %t/mm_packed %t/mm_packed_ref %t/mm_unpacked %t/mm_unpacked_ref %t/mm_kdiv %t/mm_kdiv_ref %t/mm_const %t/mm_const_ref %t/mm_n120 %t/mm_n120_ref %t/mm_n24 %t/mm_n24_ref
// RUN: %python -m llmc_check gen %t a_mv_odd=1x300xf32 b_mv_odd=300x1000xf32 a_mv_rows3=3x64xf32 b_mv_rows3=64x200xf32 a_mm_k1=20x1xf32 b_mm_k1=1x64xf32 a_mm_packed=37x512xf32 b_mm_packed=512x96xf32 a_mm_unpacked=67x33xf32 b_mm_unpacked=33x45xf32 a_mm_kdiv=40x300xf32 b_mm_kdiv=300x64xf32 a_mm_const=40x24xf32 a_mm_ktile=37x1500xf32 b_mm_ktile=1500x192xf32 a_mm_n120=37x64xf32 b_mm_n120=64x120xf32 a_mm_n24=19x40xf32 b_mm_n24=40x24xf32

// M = 1 (small-M register tile 1x256 under 15-row K tiles; N = 1000 leaves a 232-wide remainder).
// RUN: llmc run %s --entry mv_odd --input arg0=%t/a_mv_odd.npy --input arg1=%t/b_mv_odd.npy --output-dir %t/mv_odd
// RUN: llmc run %s --no-opt --entry mv_odd --input arg0=%t/a_mv_odd.npy --input arg1=%t/b_mv_odd.npy --output-dir %t/mv_odd_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mv_odd.npy --arg b=%t/b_mv_odd.npy --actual %t/mv_odd/out0.npy --atol 3e-04 --name mv_odd | FileCheck %s --check-prefix=MV_ODD
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mv_odd.npy --arg b=%t/b_mv_odd.npy --actual %t/mv_odd_ref/out0.npy --atol 3e-04 --name mv_odd_noopt | FileCheck %s --check-prefix=MV_ODD_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mv_odd_ref/out0.npy --actual %t/mv_odd/out0.npy --atol 3e-04 --name mv_odd_vs_noopt | FileCheck %s --check-prefix=MV_ODD_VS
// MV_ODD: mv_odd: shape [1, 1000] dtype float32 {{.*}} PASS
// MV_ODD_NOOPT: mv_odd_noopt: shape [1, 1000] dtype float32 {{.*}} PASS
// MV_ODD_VS: mv_odd_vs_noopt: shape [1, 1000] dtype float32 {{.*}} PASS
func.func @mv_odd(%a: tensor<1x300xf32>, %b: tensor<300x1000xf32>) -> tensor<1x1000xf32> {
  %0 = llm.matmul %a, %b : (tensor<1x300xf32>, tensor<300x1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// M = 3 (small-M tile split over 3 rows).
// RUN: llmc run %s --entry mv_rows3 --input arg0=%t/a_mv_rows3.npy --input arg1=%t/b_mv_rows3.npy --output-dir %t/mv_rows3
// RUN: llmc run %s --no-opt --entry mv_rows3 --input arg0=%t/a_mv_rows3.npy --input arg1=%t/b_mv_rows3.npy --output-dir %t/mv_rows3_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mv_rows3.npy --arg b=%t/b_mv_rows3.npy --actual %t/mv_rows3/out0.npy --atol 6e-05 --name mv_rows3 | FileCheck %s --check-prefix=MV_ROWS3
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mv_rows3.npy --arg b=%t/b_mv_rows3.npy --actual %t/mv_rows3_ref/out0.npy --atol 6e-05 --name mv_rows3_noopt | FileCheck %s --check-prefix=MV_ROWS3_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mv_rows3_ref/out0.npy --actual %t/mv_rows3/out0.npy --atol 6e-05 --name mv_rows3_vs_noopt | FileCheck %s --check-prefix=MV_ROWS3_VS
// MV_ROWS3: mv_rows3: shape [3, 200] dtype float32 {{.*}} PASS
// MV_ROWS3_NOOPT: mv_rows3_noopt: shape [3, 200] dtype float32 {{.*}} PASS
// MV_ROWS3_VS: mv_rows3_vs_noopt: shape [3, 200] dtype float32 {{.*}} PASS
func.func @mv_rows3(%a: tensor<3x64xf32>, %b: tensor<64x200xf32>) -> tensor<3x200xf32> {
  %0 = llm.matmul %a, %b : (tensor<3x64xf32>, tensor<64x200xf32>) -> tensor<3x200xf32>
  return %0 : tensor<3x200xf32>
}

// K = 1.
// RUN: llmc run %s --entry mm_k1 --input arg0=%t/a_mm_k1.npy --input arg1=%t/b_mm_k1.npy --output-dir %t/mm_k1
// RUN: llmc run %s --no-opt --entry mm_k1 --input arg0=%t/a_mm_k1.npy --input arg1=%t/b_mm_k1.npy --output-dir %t/mm_k1_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_k1.npy --arg b=%t/b_mm_k1.npy --actual %t/mm_k1/out0.npy --atol 1e-06 --name mm_k1 | FileCheck %s --check-prefix=MM_K1
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_k1.npy --arg b=%t/b_mm_k1.npy --actual %t/mm_k1_ref/out0.npy --atol 1e-06 --name mm_k1_noopt | FileCheck %s --check-prefix=MM_K1_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_k1_ref/out0.npy --actual %t/mm_k1/out0.npy --atol 1e-06 --name mm_k1_vs_noopt | FileCheck %s --check-prefix=MM_K1_VS
// MM_K1: mm_k1: shape [20, 64] dtype float32 {{.*}} PASS
// MM_K1_NOOPT: mm_k1_noopt: shape [20, 64] dtype float32 {{.*}} PASS
// MM_K1_VS: mm_k1_vs_noopt: shape [20, 64] dtype float32 {{.*}} PASS
func.func @mm_k1(%a: tensor<20x1xf32>, %b: tensor<1x64xf32>) -> tensor<20x64xf32> {
  %0 = llm.matmul %a, %b : (tensor<20x1xf32>, tensor<1x64xf32>) -> tensor<20x64xf32>
  return %0 : tensor<20x64xf32>
}

// packed B: 96 = 3 strips of 32; 37 rows = 4 register tiles + 5 remainder rows; all of K = 512 in one K tile (<= 768).
// RUN: llmc run %s --entry mm_packed --input arg0=%t/a_mm_packed.npy --input arg1=%t/b_mm_packed.npy --output-dir %t/mm_packed
// RUN: llmc run %s --no-opt --entry mm_packed --input arg0=%t/a_mm_packed.npy --input arg1=%t/b_mm_packed.npy --output-dir %t/mm_packed_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_packed.npy --arg b=%t/b_mm_packed.npy --actual %t/mm_packed/out0.npy --atol 5e-04 --name mm_packed | FileCheck %s --check-prefix=MM_PACKED
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_packed.npy --arg b=%t/b_mm_packed.npy --actual %t/mm_packed_ref/out0.npy --atol 5e-04 --name mm_packed_noopt | FileCheck %s --check-prefix=MM_PACKED_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_packed_ref/out0.npy --actual %t/mm_packed/out0.npy --atol 5e-04 --name mm_packed_vs_noopt | FileCheck %s --check-prefix=MM_PACKED_VS
// MM_PACKED: mm_packed: shape [37, 96] dtype float32 {{.*}} PASS
// MM_PACKED_NOOPT: mm_packed_noopt: shape [37, 96] dtype float32 {{.*}} PASS
// MM_PACKED_VS: mm_packed_vs_noopt: shape [37, 96] dtype float32 {{.*}} PASS
func.func @mm_packed(%a: tensor<37x512xf32>, %b: tensor<512x96xf32>) -> tensor<37x96xf32> {
  %0 = llm.matmul %a, %b : (tensor<37x512xf32>, tensor<512x96xf32>) -> tensor<37x96xf32>
  return %0 : tensor<37x96xf32>
}

// K = 1500: K tiles of 750 (the largest divisor of K in [384, 768]); B
// (1.1 MiB) packed at run time into 6 strips of 32 (split over the threads);
// N = 192 = one N cache tile of 128 and a partial one of 64; 37 rows = 4
// register tiles + 5 remainder rows.
// RUN: llmc run %s --entry mm_ktile --input arg0=%t/a_mm_ktile.npy --input arg1=%t/b_mm_ktile.npy --output-dir %t/mm_ktile
// RUN: llmc run %s --no-opt --entry mm_ktile --input arg0=%t/a_mm_ktile.npy --input arg1=%t/b_mm_ktile.npy --output-dir %t/mm_ktile_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_ktile.npy --arg b=%t/b_mm_ktile.npy --actual %t/mm_ktile/out0.npy --atol 1.5e-03 --name mm_ktile | FileCheck %s --check-prefix=MM_KTILE
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_ktile.npy --arg b=%t/b_mm_ktile.npy --actual %t/mm_ktile_ref/out0.npy --atol 1.5e-03 --name mm_ktile_noopt | FileCheck %s --check-prefix=MM_KTILE_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_ktile_ref/out0.npy --actual %t/mm_ktile/out0.npy --atol 1.5e-03 --name mm_ktile_vs_noopt | FileCheck %s --check-prefix=MM_KTILE_VS
// MM_KTILE: mm_ktile: shape [37, 192] dtype float32 {{.*}} PASS
// MM_KTILE_NOOPT: mm_ktile_noopt: shape [37, 192] dtype float32 {{.*}} PASS
// MM_KTILE_VS: mm_ktile_vs_noopt: shape [37, 192] dtype float32 {{.*}} PASS
func.func @mm_ktile(%a: tensor<37x1500xf32>, %b: tensor<1500x192xf32>) -> tensor<37x192xf32> {
  %0 = llm.matmul %a, %b : (tensor<37x1500xf32>, tensor<1500x192xf32>) -> tensor<37x192xf32>
  return %0 : tensor<37x192xf32>
}

// N = 45 not a multiple of 32: B read in place.
// RUN: llmc run %s --entry mm_unpacked --input arg0=%t/a_mm_unpacked.npy --input arg1=%t/b_mm_unpacked.npy --output-dir %t/mm_unpacked
// RUN: llmc run %s --no-opt --entry mm_unpacked --input arg0=%t/a_mm_unpacked.npy --input arg1=%t/b_mm_unpacked.npy --output-dir %t/mm_unpacked_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_unpacked.npy --arg b=%t/b_mm_unpacked.npy --actual %t/mm_unpacked/out0.npy --atol 3e-05 --name mm_unpacked | FileCheck %s --check-prefix=MM_UNPACKED
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_unpacked.npy --arg b=%t/b_mm_unpacked.npy --actual %t/mm_unpacked_ref/out0.npy --atol 3e-05 --name mm_unpacked_noopt | FileCheck %s --check-prefix=MM_UNPACKED_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_unpacked_ref/out0.npy --actual %t/mm_unpacked/out0.npy --atol 3e-05 --name mm_unpacked_vs_noopt | FileCheck %s --check-prefix=MM_UNPACKED_VS
// MM_UNPACKED: mm_unpacked: shape [67, 45] dtype float32 {{.*}} PASS
// MM_UNPACKED_NOOPT: mm_unpacked_noopt: shape [67, 45] dtype float32 {{.*}} PASS
// MM_UNPACKED_VS: mm_unpacked_vs_noopt: shape [67, 45] dtype float32 {{.*}} PASS
func.func @mm_unpacked(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>) -> tensor<67x45xf32> {
  %0 = llm.matmul %a, %b : (tensor<67x33xf32>, tensor<33x45xf32>) -> tensor<67x45xf32>
  return %0 : tensor<67x45xf32>
}

// K = 300: one K tile (K <= 768); B (75 KiB) read in place.
// RUN: llmc run %s --entry mm_kdiv --input arg0=%t/a_mm_kdiv.npy --input arg1=%t/b_mm_kdiv.npy --output-dir %t/mm_kdiv
// RUN: llmc run %s --no-opt --entry mm_kdiv --input arg0=%t/a_mm_kdiv.npy --input arg1=%t/b_mm_kdiv.npy --output-dir %t/mm_kdiv_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_kdiv.npy --arg b=%t/b_mm_kdiv.npy --actual %t/mm_kdiv/out0.npy --atol 3e-04 --name mm_kdiv | FileCheck %s --check-prefix=MM_KDIV
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_kdiv.npy --arg b=%t/b_mm_kdiv.npy --actual %t/mm_kdiv_ref/out0.npy --atol 3e-04 --name mm_kdiv_noopt | FileCheck %s --check-prefix=MM_KDIV_NOOPT
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_kdiv_ref/out0.npy --actual %t/mm_kdiv/out0.npy --atol 3e-04 --name mm_kdiv_vs_noopt | FileCheck %s --check-prefix=MM_KDIV_VS
// MM_KDIV: mm_kdiv: shape [40, 64] dtype float32 {{.*}} PASS
// MM_KDIV_NOOPT: mm_kdiv_noopt: shape [40, 64] dtype float32 {{.*}} PASS
// MM_KDIV_VS: mm_kdiv_vs_noopt: shape [40, 64] dtype float32 {{.*}} PASS
func.func @mm_kdiv(%a: tensor<40x300xf32>, %b: tensor<300x64xf32>) -> tensor<40x64xf32> {
  %0 = llm.matmul %a, %b : (tensor<40x300xf32>, tensor<300x64xf32>) -> tensor<40x64xf32>
  return %0 : tensor<40x64xf32>
}

// A constant weight [24, 64]: w[k, n] = ((7k + 3n) mod 11 - 5) / 8, packed at
// compile time into two [24, 32] strips.
// RUN: llmc run %s --entry mm_const --input arg0=%t/a_mm_const.npy --output-dir %t/mm_const
// RUN: llmc run %s --no-opt --entry mm_const --input arg0=%t/a_mm_const.npy --output-dir %t/mm_const_ref
// RUN: %python -m llmc_check expr "matmul(a, np.array(((np.arange(24)[:, None] * 7 + np.arange(64)[None, :] * 3) % 11 - 5) * 0.125, np.float32))" --arg a=%t/a_mm_const.npy --actual %t/mm_const/out0.npy --atol 2e-05 --name mm_const | FileCheck %s --check-prefix=MM_CONST
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_const_ref/out0.npy --actual %t/mm_const/out0.npy --atol 2e-05 --name mm_const_vs_noopt | FileCheck %s --check-prefix=MM_CONST_VS
// MM_CONST: mm_const: shape [40, 64] dtype float32 {{.*}} PASS
// MM_CONST_VS: mm_const_vs_noopt: shape [40, 64] dtype float32 {{.*}} PASS
func.func @mm_const(%a: tensor<40x24xf32>) -> tensor<40x64xf32> {
  %w = llm.constant dense<[
    [-0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375],
    [0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5],
    [-0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0],
    [0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5],
    [0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375],
    [-0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125],
    [0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625],
    [0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25],
    [-0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25],
    [0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625],
    [-0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125],
    [-0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375],
    [0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5],
    [-0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0],
    [0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5],
    [0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375],
    [-0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125],
    [0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625],
    [0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25],
    [-0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25],
    [0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625],
    [-0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125],
    [-0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375],
    [0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5, -0.5, -0.125, 0.25, 0.625, -0.375, 0.0, 0.375, -0.625, -0.25, 0.125, 0.5]]> : tensor<24x64xf32>
  %0 = llm.matmul %a, %w : (tensor<40x24xf32>, tensor<24x64xf32>) -> tensor<40x64xf32>
  return %0 : tensor<40x64xf32>
}

// N = 120: three 32-column register tiles, then the 24-column remainder
// split into a 16-column tile and an 8-column one (a 24-wide vector tile
// lowers through element inserts); N = 24: a 16- and an 8-column tile.
// RUN: llmc run %s --entry mm_n120 --input arg0=%t/a_mm_n120.npy --input arg1=%t/b_mm_n120.npy --output-dir %t/mm_n120
// RUN: llmc run %s --no-opt --entry mm_n120 --input arg0=%t/a_mm_n120.npy --input arg1=%t/b_mm_n120.npy --output-dir %t/mm_n120_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_n120.npy --arg b=%t/b_mm_n120.npy --actual %t/mm_n120/out0.npy --atol 6.4e-05 --name mm_n120 | FileCheck %s --check-prefix=MM_N120
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_n120_ref/out0.npy --actual %t/mm_n120/out0.npy --atol 6.4e-05 --name mm_n120_vs_noopt | FileCheck %s --check-prefix=MM_N120_VS
// MM_N120: mm_n120: shape [37, 120] dtype float32 {{.*}} PASS
// MM_N120_VS: mm_n120_vs_noopt: shape [37, 120] dtype float32 {{.*}} PASS
func.func @mm_n120(%a: tensor<37x64xf32>, %b: tensor<64x120xf32>) -> tensor<37x120xf32> {
  %0 = llm.matmul %a, %b : (tensor<37x64xf32>, tensor<64x120xf32>) -> tensor<37x120xf32>
  return %0 : tensor<37x120xf32>
}

// RUN: llmc run %s --entry mm_n24 --input arg0=%t/a_mm_n24.npy --input arg1=%t/b_mm_n24.npy --output-dir %t/mm_n24
// RUN: llmc run %s --no-opt --entry mm_n24 --input arg0=%t/a_mm_n24.npy --input arg1=%t/b_mm_n24.npy --output-dir %t/mm_n24_ref
// RUN: %python -m llmc_check expr "matmul(a, b)" --arg a=%t/a_mm_n24.npy --arg b=%t/b_mm_n24.npy --actual %t/mm_n24/out0.npy --atol 4e-05 --name mm_n24 | FileCheck %s --check-prefix=MM_N24
// RUN: %python -m llmc_check expr "r" --arg r=%t/mm_n24_ref/out0.npy --actual %t/mm_n24/out0.npy --atol 4e-05 --name mm_n24_vs_noopt | FileCheck %s --check-prefix=MM_N24_VS
// MM_N24: mm_n24: shape [19, 24] dtype float32 {{.*}} PASS
// MM_N24_VS: mm_n24_vs_noopt: shape [19, 24] dtype float32 {{.*}} PASS
func.func @mm_n24(%a: tensor<19x40xf32>, %b: tensor<40x24xf32>) -> tensor<19x24xf32> {
  %0 = llm.matmul %a, %b : (tensor<19x40xf32>, tensor<40x24xf32>) -> tensor<19x24xf32>
  return %0 : tensor<19x24xf32>
}
