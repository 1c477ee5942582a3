// Bad options and a wrong plan are errors (the pass fails, no crash).
//
// RUN: llm-opt %s --llm-plan-memory="verify test-overlap-all" -verify-diagnostics --split-input-file
// A bad option is reported at the module's location, without the whole
// module as a "see current operation" note.
// RUN: not llm-opt %s --llm-plan-memory="alignment=48" 2>&1 | FileCheck %s --check-prefix=ALIGN --implicit-check-not=note: --implicit-check-not=func.func
// RUN: not llm-opt %s --llm-plan-memory="alignment=4611686018427387904" 2>&1 | FileCheck %s --check-prefix=ALIGN-HUGE
// RUN: not llm-opt %s --llm-plan-memory="arena=heap" 2>&1 | FileCheck %s --check-prefix=ARENA
// RUN: llm-opt %s --llm-plan-memory="test-overlap-all" --split-input-file | FileCheck %s --check-prefix=NOVERIFY

// ALIGN: error: llm-plan-memory: alignment must be a power of two from 1 to 4096, got 48
// ALIGN-HUGE: error: llm-plan-memory: alignment must be a power of two from 1 to 4096, got 4611686018427387904
// ARENA: error: llm-plan-memory: arena must be 'per-call' or 'caller', got 'heap'

// The verifier catches two live buffers placed at the same offset (the
// test-only option places every buffer at 0); without `verify` the wrong
// plan goes through, which is what the check is for.
// NOVERIFY-LABEL: func.func @overlap
// NOVERIFY-COUNT-2: memref.view %{{.+}}[%c0{{.*}}][]

// expected-error @+1 {{llm-plan-memory: invalid plan: buffers #0 [0, 1024) live over [1, 3] and #1 [0, 1024) live over [3, 5] overlap}}
func.func @overlap(%in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %in, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  linalg.copy ins(%c : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// A single buffer: nothing can overlap, the plan is valid.
func.func @single(%in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %in, %a : memref<256xf32> to memref<256xf32>
  linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}
