// Crafted weights W[64, 64] (Inputs/make_sparse.py), one per side of each
// crossover of the cost model (Passes.td, llm-sparsify-weights).
// RUN: %python %S/Inputs/make_sparse.py %t.mlir
// RUN: llm-opt %t.mlir --llm-sparsify-weights 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: llm-opt %t.mlir --llm-sparsify-weights="format=csr" 2>/dev/null | FileCheck %s --check-prefix=FORCE
// RUN: not llm-opt %t.mlir --llm-sparsify-weights="format=2:4" 2>&1 | FileCheck %s --check-prefix=NOT24
// RUN: not llm-opt %t.mlir --llm-sparsify-weights="format=ell" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: llm-opt %t.mlir --llm-sparsify-weights="target=gpu" 2>/dev/null | FileCheck %s --check-prefix=GPU
// RUN: not llm-opt %t.mlir --llm-sparsify-weights="target=gpu format=bsr16x16" 2>&1 | FileCheck %s --check-prefix=GPUBSR
// RUN: not llm-opt %t.mlir --llm-sparsify-weights="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET

// Dense stays dense; 50% unstructured stays dense (CSR would be 1.05x
// slower); 75% unstructured takes CSR; exactly 2:4 takes the 2:4 kernel; 2:4
// with some full groups is not 2:4 and stays dense; half the 16x16 blocks
// take BSR16; a quarter of the 4x4 blocks BSR4; an all-zero weight stores
// nothing.
// CHECK: module attributes {llm.report = {sparse_bytes_saved = {{[0-9]+}} : i64, sparse_weights = 5 : i64}}
// CHECK: llm.sparse_format = {bytes = 16384 : i64, dense_bytes = 16384 : i64, density = 1.000000e+00 : f64, estimated_speedup = 1.000000e+00 : f64, format = "dense"}
// CHECK: llm.sparse_format = {{{.*}}format = "dense"}
// CHECK: llm.sparse_format = {bytes = 6156 : i64, {{.*}}format = "csr"}
// CHECK: llm.sparse_format = {bytes = 10240 : i64, {{.*}}density = 5.000000e-01 : f64, {{.*}}format = "2:4"}
// CHECK: llm.sparse_format = {{{.*}}format = "dense"}
// CHECK: llm.sparse_format = {bytes = 8208 : i64, {{.*}}format = "bsr16x16"}
// CHECK: llm.sparse_format = {bytes = 4224 : i64, {{.*}}format = "bsr4x4"}
// CHECK: llm.sparse_format = {bytes = 0 : i64, {{.*}}estimated_speedup = 1.000000e+03 : f64, format = "bsr4x4"}

// REMARK: llm-sparsify-weights: weight [N=64, K=64] density 1.000, 2:4 no, nonzero blocks 4x4 1.000 16x16 1.000 1x4 1.000 1x16 1.000: dense (1.00x dense estimated, 16384 of 16384 bytes)
// REMARK: density 0.491, 2:4 no, {{.*}}: dense (1.00x
// REMARK: density 0.250, 2:4 no, {{.*}}: csr (1.86x dense estimated, 6156 of 16384 bytes)
// REMARK: density 0.500, 2:4 yes, {{.*}}: 2:4 (1.52x dense estimated, 10240 of 16384 bytes)
// REMARK: density 0.508, 2:4 no, {{.*}}: dense (1.00x
// REMARK: nonzero blocks 4x4 0.500 16x16 0.500 1x4 0.500 1x16 0.500: bsr16x16 (2.00x dense estimated
// REMARK: nonzero blocks 4x4 0.250 16x16 1.000 1x4 0.250 1x16 1.000: bsr4x4 (3.45x dense estimated

// FORCE-COUNT-8: format = "csr"

// NOT24: error: loc("dense"): llm-sparsify-weights: format=2:4 for a weight [N=64, K=64] that is not 2:4
// UNKNOWN: error: llm-sparsify-weights: unknown format 'ell'

// target=gpu: the GPU kernels' formats only (2:4 on mma.sp, else dense), by
// bytes: the exact 2:4 weights (and the all-zero one) take 2:4 (half the
// values, in the MMA's 2-byte type, plus 2 bits each: 4608 of the f32
// weight's 16384 bytes); the unstructured and block-sparse ones stay dense.
// GPU: module attributes {llm.report = {sparse_bytes_saved = 23552 : i64, sparse_weights = 2 : i64}}
// GPU-COUNT-3: format = "dense"
// GPU: llm.sparse_format = {bytes = 4608 : i64, {{.*}}format = "2:4"}
// GPU-COUNT-3: format = "dense"
// GPU: llm.sparse_format = {bytes = 4608 : i64, {{.*}}format = "2:4"}
// GPUBSR: error: llm-sparsify-weights: format 'bsr16x16' has no GPU kernel (target=gpu takes auto, dense or 2:4)
// TARGET: error: llm-sparsify-weights: unknown target 'tpu' (cpu or gpu)
