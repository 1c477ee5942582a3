// RUN: llm-opt %s | FileCheck %s
// RUN: llm-opt %s | llm-opt | FileCheck %s

// llm.sequence_prefix (LLMCacheOps.td): the first S entries of a table, S the
// function's sequence length; round trip of the op's forms.

// CHECK-LABEL: func.func @positions
// CHECK: llm.sequence_prefix %{{.*}} {axes = array<i64: 0>} : (tensor<16x4xf32>) -> tensor<?x4xf32>
func.func @positions(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 16, 4>},
                     %table: tensor<16x4xf32>) -> tensor<?x4xf32> {
  %0 = llm.sequence_prefix %table {axes = array<i64: 0>} : (tensor<16x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// A causal mask over both sequence axes, any element type; the bound may be
// smaller than the table.
// CHECK-LABEL: func.func @mask
// CHECK: llm.sequence_prefix %{{.*}} {axes = array<i64: 2, 3>} : (tensor<1x1x32x32xi1>) -> tensor<1x1x?x?xi1>
func.func @mask(%x: tensor<1x?x4xf32> {llm.dim_bounds = array<i64: 1, 16, 4>},
                %m: tensor<1x1x32x32xi1>) -> tensor<1x1x?x?xi1> {
  %0 = llm.sequence_prefix %m {axes = array<i64: 2, 3>} : (tensor<1x1x32x32xi1>) -> tensor<1x1x?x?xi1>
  return %0 : tensor<1x1x?x?xi1>
}
