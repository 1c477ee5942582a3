// RUN: not llm-opt %s --llm-shard="ranks=0" 2>&1 | FileCheck %s
// CHECK: error: llm-shard: ranks must be at least 1, got 0
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
