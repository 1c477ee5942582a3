// RUN: llm-opt %s -llm-verify-call-graph -split-input-file -verify-diagnostics

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
