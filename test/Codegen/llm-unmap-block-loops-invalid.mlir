// RUN: llm-opt %s --llm-unmap-block-loops -split-input-file -verify-diagnostics

func.func @mixed(%m: memref<16x16xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @below {{llm-unmap-block-loops: #llm.block_loop mixed with other mappings in [#llm.block_loop, #gpu.block<x>]}}
  scf.forall (%i, %j) in (2, 2) {
    memref.store %c, %m[%i, %j] : memref<16x16xf32>
  } {mapping = [#llm.block_loop, #gpu.block<x>]}
  return
}
