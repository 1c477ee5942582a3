// RUN: llm-opt %s -llm-verify-call-graph -split-input-file -verify-diagnostics
// A negative limit is an error (it meant no limit).
// RUN: not llm-opt %s -split-input-file --llm-verify-call-graph="max-inlined-ops=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0
// NEGOPT0: error: llm-verify-call-graph: max-inlined-ops must be at least 0, got -1

// A self-recursive entry.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{call cycle @main -> @main: recursive calls cannot be compiled (llmc inlines every call and plans each function's memory statically)}}
  %0 = func.call @main(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A cycle through two functions, reported once, at the call that closes it;
// the call into the cycle from @main is fine.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{call cycle @a -> @b -> @a: recursive calls cannot be compiled}}
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Calls in a nested region count too.
func.func @main(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %0 = scf.if %c -> tensor<4xf32> {
    // expected-error @+1 {{call cycle @main -> @main}}
    %1 = func.call @main(%x, %c) : (tensor<4xf32>, i1) -> tensor<4xf32>
    scf.yield %1 : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Acyclic: a diamond of calls and an external declaration (no diagnostic).
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @b(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @ext(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>

// -----

// Recursion through a function value: func.constant counts as a call.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{call cycle @main -> @main: recursive calls cannot be compiled}}
  %f = func.constant @main : (tensor<4xf32>) -> tensor<4xf32>
  %0 = func.call_indirect %f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A tree of calls: 2^depth copies once inlined. Each level calls the next
// twice; the entry would have more than max-inlined-ops operations.
// expected-error @+1 {{inlining every call would make @main 6291455 operations, more than max-inlined-ops (4194304)}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l1(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @l1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l2(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l2(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l2(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l3(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l3(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l3(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l4(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l4(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l4(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l5(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l5(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l5(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l6(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l6(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l6(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l7(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l7(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l7(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l8(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l8(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l8(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l9(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l9(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l9(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l10(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l10(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l10(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l11(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l11(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l11(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l12(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l12(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l12(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l13(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l13(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l13(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l14(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l14(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l14(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l15(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l15(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l15(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l16(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l16(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l16(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l17(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l17(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l17(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l18(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l18(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l18(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l19(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l19(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l19(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l20(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l20(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l20(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @l21(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @l21(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @l21(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
