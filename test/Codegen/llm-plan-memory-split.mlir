// llm-plan-memory live-range splitting: a buffer that an op overwrites
// entirely, without reading it first, holds a new value from that op on; the
// uses from there move to a new buffer planned on its own.
//
// RUN: llm-opt %s --llm-plan-memory=verify --split-input-file | FileCheck %s
// RUN: llm-opt %s --llm-plan-memory="verify split-live-ranges=false" --split-input-file | FileCheck %s --check-prefix=NOSPLIT

// %a holds two values: fill (a1, read by the copy into %b) and the generic's
// result (a2, from %c). Split, a1 [0, 1], b [1, 2], c [2, 3], a2 [3, 4]: at
// most two live at once, arena 2 KiB = the live bound; naive 4 KiB (one
// buffer per value). Unsplit, a spans [0, 4] and a, b, c are live at 2.
// CHECK: module attributes {llm.report = {arena_bytes = 2048 : i64, live_bound_bytes = 2048 : i64, naive_bytes = 4096 : i64, planned_buffers = 4 : i64}}
// CHECK-LABEL: func.func @overwrite(
// CHECK:         %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK:         %[[A1:.+]] = memref.view %[[ARENA]]
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[A1]] : memref<256xf32>)
// CHECK:         memref.copy %[[A1]], %[[B:.+]] :
// CHECK:         memref.copy %[[B]], %[[C:.+]] :
// CHECK:         %[[A2:.+]] = memref.view %[[ARENA]]
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : memref<256xf32>) outs(%[[A2]] : memref<256xf32>)
// CHECK:         linalg.copy ins(%[[A2]] : memref<256xf32>)
// NOSPLIT: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
func.func @overwrite(%out: memref<256xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  // generic(c) -> a, payload ignores the init: a full overwrite.
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : memref<256xf32>) outs(%a : memref<256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Not a full overwrite: the second generic reads its init (a += c), so a
// keeps one live range.
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @read_modify_write(
func.func @read_modify_write(%out: memref<256xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : memref<256xf32>) outs(%a : memref<256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// A tiled kernel (scf.forall over row tiles, an scf.for over column tiles
// inside, as llm-tile-and-vectorize emits) that writes every tile before
// reading it overwrites the buffer; the expand_shape of %a taken before the
// split point and read after it is cloned onto the new buffer.
// CHECK: module attributes {llm.report = {arena_bytes = 2048 : i64, live_bound_bytes = 2048 : i64, naive_bytes = 4096 : i64, planned_buffers = 4 : i64}}
// CHECK-LABEL: func.func @tiled_overwrite(
// CHECK:         %[[A1:.+]] = memref.view
// CHECK:         memref.expand_shape %[[A1]]
// CHECK:         %[[A2:.+]] = memref.view
// CHECK-NEXT:    %[[E2:.+]] = memref.expand_shape %[[A2]]
// CHECK-NEXT:    scf.forall
// CHECK:           memref.subview %[[E2]]
// CHECK:         linalg.copy ins(%[[E2]] : memref<16x16xf32>)
// Unsplit: a, b and c all live at the copy into c.
// NOSPLIT-LABEL: func.func @read_modify_write(
// NOSPLIT: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// NOSPLIT-NEXT: func.func @tiled_overwrite(
func.func @tiled_overwrite(%out: memref<16x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  %c = memref.alloc() : memref<16x16xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  %be = memref.expand_shape %b [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  memref.copy %be, %c : memref<16x16xf32> to memref<16x16xf32>
  scf.forall (%i) = (0) to (16) step (4) {
    %row = memref.subview %e[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    scf.for %j = %c0 to %c16 step %c8 {
      %t = memref.subview %row[0, %j] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
      %src = memref.subview %c[%i, %j] [4, 8] [1, 1] : memref<16x16xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
      memref.copy %src, %t : memref<4x8xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
      // Reads what this iteration wrote.
      memref.copy %t, %t : memref<4x8xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
    }
  }
  linalg.copy ins(%e : memref<16x16xf32>) outs(%out : memref<16x16xf32>)
  return
}

// -----

// Not split: the tiles do not cover the buffer (step 8, tiles of 4 rows:
// rows 4-7 and 12-15 keep the old values).
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @partial_tiles(
func.func @partial_tiles(%out: memref<16x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16x16xf32>
  %b = memref.alloc() : memref<16x16xf32>
  %c = memref.alloc() : memref<16x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<16x16xf32>)
  memref.copy %a, %b : memref<16x16xf32> to memref<16x16xf32>
  memref.copy %b, %c : memref<16x16xf32> to memref<16x16xf32>
  scf.forall (%i) = (0) to (16) step (8) {
    %t = memref.subview %a[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    %src = memref.subview %c[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %src, %t : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<16x16xf32>) outs(%out : memref<16x16xf32>)
  return
}

// -----

// Not split: the loop reads the old contents of another tile (the row
// above) before its own tile is written.
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @reads_old(
func.func @reads_old(%out: memref<16x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16x16xf32>
  %b = memref.alloc() : memref<16x16xf32>
  %c = memref.alloc() : memref<16x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<16x16xf32>)
  memref.copy %a, %b : memref<16x16xf32> to memref<16x16xf32>
  memref.copy %b, %c : memref<16x16xf32> to memref<16x16xf32>
  scf.forall (%i) = (0) to (16) step (4) {
    %old = memref.subview %a[0, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1]>>
    %t = memref.subview %a[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %old, %t : memref<4x16xf32, strided<[16, 1]>> to memref<4x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<16x16xf32>) outs(%out : memref<16x16xf32>)
  return
}

// -----

// A dynamic sequence (llm.dim_bounds, n <= 16 rows): the tiles of a loop
// from 0 to n in steps of 4, `min(4, n - i)` rows each (as tiling a dynamic
// dimension writes them), cover the buffer, as do the inner tiles of all
// the rows of the outer tile (offset 0, the outer tile's size). Split as in
// @tiled_overwrite: buffers of 1 KiB at the bound, arena 2 KiB; unsplit 3.
// CHECK: module attributes {llm.report = {arena_bytes = 2048 : i64, live_bound_bytes = 2048 : i64, naive_bytes = 4096 : i64, planned_buffers = 4 : i64}}
// CHECK-LABEL: func.func @dynamic_tiled_overwrite(
// NOSPLIT-LABEL: func.func @reads_old(
// NOSPLIT: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// NOSPLIT-NEXT: func.func @dynamic_tiled_overwrite(
func.func @dynamic_tiled_overwrite(%x: memref<?x16xf32> {llm.dim_bounds = array<i64: 16, 16>}, %out: memref<?x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x16xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  scf.forall (%i) = (0) to (%n) step (4) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4)>(%i)[%n]
    %row = memref.subview %a[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    scf.for %j = %c0 to %c16 step %c8 {
      %t = memref.subview %row[0, %j] [%sz, 8] [1, 1] : memref<?x16xf32, strided<[16, 1], offset: ?>> to memref<?x8xf32, strided<[16, 1], offset: ?>>
      %src = memref.subview %c[%i, %j] [%sz, 8] [1, 1] : memref<?x16xf32> to memref<?x8xf32, strided<[16, 1], offset: ?>>
      memref.copy %src, %t : memref<?x8xf32, strided<[16, 1], offset: ?>> to memref<?x8xf32, strided<[16, 1], offset: ?>>
    }
  }
  linalg.copy ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>)
  return
}

// -----

// Not split: tiles of min(2, n - i) rows in steps of 4 leave rows behind.
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @dynamic_partial_tiles(
func.func @dynamic_partial_tiles(%x: memref<?x16xf32> {llm.dim_bounds = array<i64: 16, 16>}, %out: memref<?x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x16xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  scf.forall (%i) = (0) to (%n) step (4) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 2)>(%i)[%n]
    %t = memref.subview %a[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    %src = memref.subview %c[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %src, %t : memref<?x16xf32, strided<[16, 1], offset: ?>> to memref<?x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>)
  return
}

// -----

// Not split: the loop runs to another length than the buffer's rows.
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @dynamic_other_bound(
func.func @dynamic_other_bound(%x: memref<?x16xf32> {llm.dim_bounds = array<i64: 16, 16>}, %out: memref<?x16xf32>, %m: index) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x16xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  scf.forall (%i) = (0) to (%m) step (4) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4)>(%i)[%m]
    %t = memref.subview %a[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    %src = memref.subview %c[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %src, %t : memref<?x16xf32, strided<[16, 1], offset: ?>> to memref<?x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>)
  return
}

// -----

// The same with a chunk that follows the run-time length (the step of a
// dynamic matmul's parallel loop, min(8, ceil(n / 2)) rows; tiles of
// min(n - i, 8, ceil(n / 2)) rows, the composed affine.min): split.
// CHECK: module attributes {llm.report = {arena_bytes = 2048 : i64, live_bound_bytes = 2048 : i64, naive_bytes = 4096 : i64, planned_buffers = 4 : i64}}
// CHECK-LABEL: func.func @dynamic_step_overwrite(
func.func @dynamic_step_overwrite(%x: memref<?x16xf32> {llm.dim_bounds = array<i64: 16, 16>}, %out: memref<?x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x16xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  %step = affine.min affine_map<()[s0] -> (8, s0 ceildiv 2)>()[%n]
  scf.forall (%i) = (0) to (%n) step (%step) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 8, s0 ceildiv 2)>(%i)[%n]
    %t = memref.subview %a[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    %src = memref.subview %c[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %src, %t : memref<?x16xf32, strided<[16, 1], offset: ?>> to memref<?x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>)
  return
}

// -----

// Not split: the tiles stop at 4 rows while the chunk is up to 8.
// CHECK: module attributes {llm.report = {arena_bytes = 3072 : i64, live_bound_bytes = 3072 : i64, naive_bytes = 3072 : i64, planned_buffers = 3 : i64}}
// CHECK-LABEL: func.func @dynamic_step_short_tiles(
func.func @dynamic_step_short_tiles(%x: memref<?x16xf32> {llm.dim_bounds = array<i64: 16, 16>}, %out: memref<?x16xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x16xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  %step = affine.min affine_map<()[s0] -> (8, s0 ceildiv 2)>()[%n]
  scf.forall (%i) = (0) to (%n) step (%step) {
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4, s0 ceildiv 2)>(%i)[%n]
    %t = memref.subview %a[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    %src = memref.subview %c[%i, 0] [%sz, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %src, %t : memref<?x16xf32, strided<[16, 1], offset: ?>> to memref<?x16xf32, strided<[16, 1], offset: ?>>
  }
  linalg.copy ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>)
  return
}
