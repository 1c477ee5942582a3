// Bad pipeline options are reported at the function, not by a crash.
//
// RUN: not llm-opt %s --verify-each --llm-lower-to-cpu="target=sparc" -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="register-tile=8,0,1" -verify-diagnostics -split-input-file
// tensor-parallel below 1 and a rank outside the grid were ignored; they are
// refused before any pass runs (LowerToCPUOptions::verify).
// RUN: not llm-opt %s --llm-lower-to-cpu="tensor-parallel=0" 2>&1 | FileCheck %s --check-prefix=TP
// RUN: not llm-opt %s --llm-lower-to-cpu="tensor-parallel=2 rank=2" 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not llm-opt %s --llm-lower-to-cpu="rank=-1" 2>&1 | FileCheck %s --check-prefix=RANK1
// TP: error: llm-lower-to-cpu: tensor-parallel must be at least 1 (1: off), got 0
// RANK: error: llm-lower-to-cpu: rank must be in [0, tensor-parallel) = [0, 2), got 2
// RANK1: error: llm-lower-to-cpu: rank must be in [0, tensor-parallel) = [0, 1), got -1

// The first pass that reads the target (llm-select-lowering-config) reports it.
// TARGET: llm-lower-to-cpu-invalid.mlir:[[@LINE+2]]:1: error: llm-select-lowering-config: unknown target 'sparc' (expected host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 CPU name such as znver4 or sapphirerapids)
// expected-error @+1 {{llm-tile-and-vectorize: register-tile must be three positive sizes}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
