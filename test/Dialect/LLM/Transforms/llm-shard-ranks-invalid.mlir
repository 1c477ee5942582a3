// RUN: not llm-opt %s --llm-shard="ranks=0" 2>&1 | FileCheck %s
// CHECK: error: llm-shard: ranks must be at least 1, got 0
// An empty grid name printed IR that did not parse back.
// RUN: not llm-opt %s --llm-shard="ranks=2 grid=" 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: error: llm-shard: grid must be a non-empty symbol name
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
