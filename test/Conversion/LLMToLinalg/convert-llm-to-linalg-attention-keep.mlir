// RUN: llm-opt %s -convert-llm-to-linalg="attention=keep" | FileCheck %s
// RUN: llm-opt %s -convert-llm-to-linalg="attention=keep" -convert-llm-to-linalg="attention-tile=8,8" | FileCheck %s --check-prefix=LATER

// `attention=keep` lowers everything but llm.attention (llm-lower-to-nvvm
// lowers it last, after the passes that would rewrite its loop nest); a
// later run of the pass lowers it.
// CHECK-LABEL: func.func @keep
// CHECK:         linalg.generic
// CHECK:         %[[A:.*]] = llm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal}
// CHECK:         return %[[A]]
// LATER-LABEL: func.func @keep
// LATER-NOT:     llm.
// LATER:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 2, 2)
// LATER:           scf.for
func.func @keep(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %s = llm.softmax %q {axis = -1 : i64} : tensor<1x2x16x8xf32>
  %o = llm.attention %s, %k, %v {causal} : (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
