// RUN: not llm-opt %s --llm-optimize-layout="weight-layout=jk" 2>&1 | FileCheck %s
// CHECK: error: llm-optimize-layout: unknown weight-layout 'jk' (expected kn or nk)
func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  return %a : tensor<2x2xf32>
}
