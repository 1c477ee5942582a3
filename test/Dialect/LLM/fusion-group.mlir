// RUN: llm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not llm-opt %s -split-input-file -llm-fuse="max-fan-out=-1" 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: error: llm-fuse: max-recompute-ops, max-fan-out and norm-prologue-max-rows must be >= 0

// Round trip of llm.fusion_group / llm.yield.
// CHECK-LABEL: func.func @roundtrip
// CHECK: %[[G:.*]] = llm.fusion_group : tensor<4x8xf32> {
// CHECK-NEXT:   %[[A:.*]] = llm.add %arg0, %arg1
// CHECK-NEXT:   %[[R:.*]] = llm.relu %[[A]]
// CHECK-NEXT:   llm.yield %[[R]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @roundtrip(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = llm.fusion_group : tensor<4x8xf32> {
    %0 = llm.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = llm.relu %0 : tensor<4x8xf32>
    llm.yield %1 : tensor<4x8xf32>
  }
  return %g : tensor<4x8xf32>
}

// -----

func.func @yield_type_mismatch(%a: tensor<4x8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'llm.fusion_group' op yielded value #0 has type 'tensor<4x8xf32>' but result #0 has type 'tensor<4x8xf16>'}}
  %g = llm.fusion_group : tensor<4x8xf16> {
    %0 = llm.relu %a : tensor<4x8xf32>
    llm.yield %0 : tensor<4x8xf32>
  }
  return %g : tensor<4x8xf16>
}

// -----

func.func @yield_count_mismatch(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'llm.fusion_group' op yields 2 values but has 1 results}}
  %g = llm.fusion_group : tensor<4x8xf32> {
    %0 = llm.relu %a : tensor<4x8xf32>
    llm.yield %0, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %g : tensor<4x8xf32>
}

// -----

func.func @yield_outside(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'llm.yield' op expects parent op 'llm.fusion_group'}}
  llm.yield %a : tensor<4x8xf32>
}
