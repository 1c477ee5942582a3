// llm-plan-memory on hand-written bufferized functions: exact offsets of the
// greedy-by-size best-fit plan, aliases, escaping buffers, loops, the
// caller-provided arena and the report figures.
//
// RUN: llm-opt %s --llm-plan-memory=verify --split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-plan-memory="arena=caller verify" --split-input-file | FileCheck %s --check-prefix=CALLER

// A chain a -> b -> c of 1 KiB buffers: a and c are never live together and
// share offset 0; b sits above. Arena 2 KiB = the live bound; naive 3 KiB.
// CHECK: module attributes {llm.report = {arena_bytes = 2048 : i64, live_bound_bytes = 2048 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[IN:.+]]: memref<256xf32>, %[[OUT:.+]]: memref<256xf32>)
// CHECK:         %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK-NOT:     memref.alloc
// CHECK:         %[[A:.+]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK:         memref.copy %[[IN]], %[[A]]
// CHECK:         %[[B:.+]] = memref.view %[[ARENA]][%c1024{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK:         memref.copy %[[A]], %[[B]]
// CHECK:         %[[C:.+]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK:         memref.copy %[[B]], %[[C]]
// CHECK:         linalg.copy ins(%[[C]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)

// CALLER: module attributes {llm.arena_bytes = {chain = 2048 : i64}
// CALLER-LABEL: func.func @chain(
// CALLER-SAME:    %{{.+}}: memref<256xf32>, %{{.+}}: memref<256xf32>, %[[ARENA:.+]]: memref<?xi8>)
// CALLER-NOT:     memref.alloc
// CALLER:         %[[HAVE:.+]] = memref.dim %[[ARENA]], %c0
// CALLER:         %[[OK:.+]] = arith.cmpi uge, %[[HAVE]], %c2048
// CALLER:         cf.assert %[[OK]], "llm-plan-memory: @chain: the caller's arena is smaller than 2048 bytes"
// CALLER:         memref.view %[[ARENA]][%c0{{.*}}][] : memref<?xi8> to memref<256xf32>
// CALLER:         memref.view %[[ARENA]][%c1024{{.*}}][] : memref<?xi8> to memref<256xf32>
func.func @chain(%in: memref<256xf32>, %out: memref<256xf32>) {
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

// Best fit, not first fit. By size: A (4 KiB) at 0, B (2 KiB) at 4096, then
// the 1 KiB buffers by first use: C at 6144, F at 7168, G at 8192. When D
// starts, B and F are dead: the free gaps are [4096, 6144) (2 KiB) and
// [7168, 8192) (1 KiB); D takes the smaller one, 7168 (first fit would take
// 4096).
// CHECK: module attributes {llm.report = {arena_bytes = 9216 : i64, live_bound_bytes = 9216 : i64, naive_bytes = 10240 : i64, planned_buffers = 6 : i64}}
// CHECK-LABEL: func.func @best_fit(
// CHECK:         %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<9216xi8>
// CHECK:         %[[A:.+]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<9216xi8> to memref<1024xf32>
// CHECK:         %[[B:.+]] = memref.view %[[ARENA]][%c4096{{.*}}][] : memref<9216xi8> to memref<512xf32>
// CHECK:         %[[C:.+]] = memref.view %[[ARENA]][%c6144{{.*}}][] : memref<9216xi8> to memref<256xf32>
// CHECK:         %[[F:.+]] = memref.view %[[ARENA]][%c7168{{.*}}][] : memref<9216xi8> to memref<256xf32>
// CHECK:         %[[G:.+]] = memref.view %[[ARENA]][%c8192{{.*}}][] : memref<9216xi8> to memref<256xf32>
// CHECK:         %[[D:.+]] = memref.view %[[ARENA]][%c7168{{.*}}][] : memref<9216xi8> to memref<256xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : memref<256xf32>)
func.func @best_fit(%o1: memref<1024xf32>, %o2: memref<512xf32>, %o3: memref<256xf32>) {
  %cst = arith.constant 1.0 : f32
  %A = memref.alloc() : memref<1024xf32>
  %B = memref.alloc() : memref<512xf32>
  %C = memref.alloc() : memref<256xf32>
  %F = memref.alloc() : memref<256xf32>
  %G = memref.alloc() : memref<256xf32>
  %D = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%A : memref<1024xf32>)
  linalg.fill ins(%cst : f32) outs(%B : memref<512xf32>)
  linalg.fill ins(%cst : f32) outs(%C : memref<256xf32>)
  linalg.fill ins(%cst : f32) outs(%F : memref<256xf32>)
  linalg.fill ins(%cst : f32) outs(%G : memref<256xf32>)
  linalg.copy ins(%B : memref<512xf32>) outs(%o2 : memref<512xf32>)
  linalg.copy ins(%F : memref<256xf32>) outs(%o3 : memref<256xf32>)
  linalg.fill ins(%cst : f32) outs(%D : memref<256xf32>)
  linalg.copy ins(%D : memref<256xf32>) outs(%o3 : memref<256xf32>)
  linalg.copy ins(%A : memref<1024xf32>) outs(%o1 : memref<1024xf32>)
  linalg.copy ins(%C : memref<256xf32>) outs(%o3 : memref<256xf32>)
  linalg.copy ins(%G : memref<256xf32>) outs(%o3 : memref<256xf32>)
  return
}

// -----

// An alias keeps its buffer alive: %a is read through %e (expand_shape)
// after %b is written, so a and b get different offsets. Sizes are rounded
// up to 64 bytes (10 x f32 = 40 -> 64).
// CHECK: module attributes {llm.report = {arena_bytes = 128 : i64, live_bound_bytes = 128 : i64, naive_bytes = 128 : i64, planned_buffers = 2 : i64}}
// CHECK-LABEL: func.func @alias(
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<128xi8>
// CHECK:         memref.view %{{.+}}[%c0{{.*}}][] : memref<128xi8> to memref<10xf32>
// CHECK:         memref.view %{{.+}}[%c64{{.*}}][] : memref<128xi8> to memref<10xf32>
func.func @alias(%in: memref<10xf32>, %o1: memref<2x5xf32>, %o2: memref<10xf32>) {
  %a = memref.alloc() : memref<10xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 5] : memref<10xf32> into memref<2x5xf32>
  memref.copy %in, %a : memref<10xf32> to memref<10xf32>
  %b = memref.alloc() : memref<10xf32>
  memref.copy %in, %b : memref<10xf32> to memref<10xf32>
  linalg.copy ins(%e : memref<2x5xf32>) outs(%o1 : memref<2x5xf32>)
  linalg.copy ins(%b : memref<10xf32>) outs(%o2 : memref<10xf32>)
  return
}

// -----

// Not planned: a returned buffer (the caller owns it), a dynamic shape, and
// an alloc inside a loop body (a per-iteration temporary). A buffer used only
// inside a loop is live over the whole loop.
// CHECK: module attributes {llm.report = {arena_bytes = 128 : i64, live_bound_bytes = 128 : i64, naive_bytes = 128 : i64, planned_buffers = 2 : i64}}
// CHECK-LABEL: func.func @not_planned(
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<128xi8>
// CHECK:         %[[RET:.+]] = memref.alloc() : memref<16xf32>
// CHECK:         memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK:         scf.for
// CHECK:           memref.alloc() : memref<4xf32>
// CHECK:         return %[[RET]]
func.func @not_planned(%n: index, %in: memref<16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ret = memref.alloc() : memref<16xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  %x = memref.alloc() : memref<16xf32>
  %y = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %in, %x : memref<16xf32> to memref<16xf32>
    memref.copy %x, %y : memref<16xf32> to memref<16xf32>
  }
  linalg.copy ins(%y : memref<16xf32>) outs(%ret : memref<16xf32>)
  return %ret : memref<16xf32>
}

// -----

// A result reshaped after its last write used to end in a full copy into the
// out-param: the alloc becomes the out-param itself (collapsed to the
// alloc's shape) and the copy disappears. Nothing is left to plan.
// CHECK: module attributes {llm.report = {arena_bytes = 0 : i64, live_bound_bytes = 0 : i64, naive_bytes = 0 : i64, planned_buffers = 0 : i64}}
// CHECK-LABEL: func.func @result_copy(
// CHECK-SAME:    %[[IN:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<1x8x8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1, 2]] : memref<1x8x8xf32> into memref<64xf32>
// CHECK:         memref.copy %[[IN]], %[[FLAT]]
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @result_copy(%in: memref<64xf32>, %out: memref<1x8x8xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %in, %a : memref<64xf32> to memref<64xf32>
  %e = memref.expand_shape %a [[0, 1, 2]] output_shape [1, 8, 8] : memref<64xf32> into memref<1x8x8xf32>
  memref.copy %e, %out : memref<1x8x8xf32> to memref<1x8x8xf32>
  return
}

// -----

// Not forwarded: the alloc is read after the copy (by a linalg.copy, which
// is never forwarded).
// CHECK-LABEL: func.func @result_copy_not_last(
// CHECK:         %[[A:.+]] = memref.view
// CHECK:         memref.copy %{{.+}}, %[[A]] : memref<64xf32> to memref<64xf32>
// CHECK:         memref.copy %[[A]], %{{.+}} : memref<64xf32> to memref<64xf32>
// CHECK:         linalg.copy ins(%[[A]] : memref<64xf32>)
func.func @result_copy_not_last(%in: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %in, %a : memref<64xf32> to memref<64xf32>
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%out2 : memref<64xf32>)
  return
}
