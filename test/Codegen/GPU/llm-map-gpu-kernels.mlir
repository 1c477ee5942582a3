// RUN: llm-opt %s --llm-map-gpu-kernels --split-input-file --verify-diagnostics | FileCheck %s

// A row kernel (a softmax-like group after bufferization): one block per
// row, the reduction split over the threads and combined by gpu.all_reduce,
// the elementwise stage strided over thread x, barriers between stages.
// Host allocations become device allocations. The launch is named after
// its function, strategy and index (the outlined kernel's name).
// CHECK-LABEL: func.func @rows
// CHECK:         %[[BUF:.*]] = gpu.alloc () : memref<64xf32>
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BD:.*]] = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) module(@rows_rows_0) function(@rows_rows_0)
// CHECK:           %[[ROW:.*]] = arith.remui %[[BX]]
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[BUF]][%[[ROW]]]
// CHECK:           gpu.barrier
// CHECK:           %[[P:.*]] = scf.for %{{.*}} = %[[TX]] to %c512{{.*}} step %[[BD]] iter_args
// CHECK:             arith.maximumf
// CHECK:           %[[R:.*]] = gpu.all_reduce maximumf %[[P]] uniform
// CHECK:           gpu.barrier
// CHECK:           scf.for %{{.*}} = %[[TX]] to %c512{{.*}} step %[[BD]]
// CHECK:             arith.subf
// CHECK:           gpu.terminator
// CHECK:         } {llm.gpu_strategy = {rows = 1 : i64, stages = 3 : i64, strategy = "rows"}}
// CHECK:         gpu.dealloc %[[BUF]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: memref<64x512xf32>, %out: memref<64x512xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %buf = memref.alloc() : memref<64xf32>
  scf.forall (%i) in (1) {
    linalg.fill ins(%ninf : f32) outs(%buf : memref<64xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<64x512xf32>) outs(%buf : memref<64xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
        ins(%x, %buf : memref<64x512xf32>, memref<64xf32>) outs(%out : memref<64x512xf32>) {
    ^bb0(%in: f32, %m: f32, %o: f32):
      %d = arith.subf %in, %m : f32
      linalg.yield %d : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  memref.dealloc %buf : memref<64xf32>
  return
}

// -----

// A lone elementwise op: flat, one element per thread, 8192 elements in 32
// blocks of 256 threads, the index split innermost first.
// CHECK-LABEL: func.func @flat
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}}, %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BD:.*]] = %c256{{.*}}, %{{.*}}, %{{.*}})
// CHECK:           %[[M:.*]] = arith.muli %[[BX]], %[[BD]]
// CHECK:           %[[G:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK:           arith.cmpi ult, %[[G]], %c8192
// CHECK:           arith.remui %[[G]], %c512
// CHECK:           arith.divui %[[G]], %c512
// CHECK:         } {llm.gpu_strategy = {rows = 0 : i64, stages = 1 : i64, strategy = "flat"}}
#map2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @flat(%x: memref<16x512xf32>, %out: memref<16x512xf32>) {
  linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x512xf32>) outs(%out : memref<16x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A decode matvec whose weight is [K, N] (one row of x, 768 outputs: fewer
// than 4096 points): a block covers 32 consecutive outputs, one per lane
// (a warp reads 32 consecutive weights), and its 32 warps split K (1024 / 16
// steps each, capped at 32 warps); the partial sums meet in workgroup
// memory, combined by warp 0 in warp order after a barrier. 768 / 32 = 24
// blocks.
// CHECK-LABEL: func.func @matvec
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c24{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1024{{.*}}, {{.*}}) workgroup(%[[PART:.*]] : memref<32x32xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK:           %[[WARP:.*]] = arith.divui %{{.*}}, %c32
// Warp g's steps g, g + 32, ... unrolled by 4 (4 loads of the weight in
// flight), then the remainder.
// CHECK:           %[[MAIN:.*]] = scf.for %{{.*}} = %[[WARP]] to %[[END:.*]] step
// CHECK-COUNT-4:     memref.load %{{.*}} : memref<1024x768xf32>
// CHECK:           %[[SUM:.*]] = scf.for %{{.*}} = %[[END]] to %c1024{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK:           memref.store %[[SUM]], %[[PART]][%[[WARP]], %[[LANE]]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.if
// CHECK:             scf.for %{{.*}} = %c1{{.*}} to %c32{{.*}} step %c1
// CHECK:               memref.load %[[PART]]
// CHECK:               arith.addf
// CHECK:         } {llm.gpu_strategy = {column_groups = 32 : i64, rows = 2 : i64, stages = 2 : i64, strategy = "rows"}}
// CHECK-NOT:       gpu.all_reduce
func.func @matvec(%x: memref<1x1024xf32>, %w: memref<1024x768xf32>, %out: memref<1x768xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<1x768xf32>)
    linalg.matmul ins(%x, %w : memref<1x1024xf32>, memref<1024x768xf32>) outs(%out : memref<1x768xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// A prefill projection with its fill and bias epilogue: tiles. 512 x 2304
// outputs in 64 x 64 tiles (8 x 36 = 288 blocks, at least one per SM) of
// 256 threads, each a 4 x 4 register tile. A [512, 768] (k innermost) is
// staged k-major with rows padded by 4; B [768, 2304] (n innermost) as it
// is. The fill runs at the thread's 16 points before the K loop, the bias
// after it, with no barrier between them.
// CHECK-LABEL: func.func @prefill
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c288{{.*}}, {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}}) workgroup(%[[AS:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %arg3
// CHECK-COUNT-16:  memref.load %arg3
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c768{{.*}} step %c16{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NEXT:        gpu.barrier
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[BS]]
// CHECK:             gpu.barrier
// CHECK:             vector.load %[[AS]][%c0{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:             vector.load %[[BS]][%c0{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-16:    arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK:             vector.load %[[AS]][%c1{{.*}}, %{{.*}}]
// CHECK:             scf.yield
// No remainder tile (768 = 48 x 16), no guard (full tiles):
// CHECK-NOT:       gpu.barrier
// CHECK-NOT:       scf.if
// CHECK-COUNT-16:  memref.store %{{.*}}, %arg3
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.load %arg2
// CHECK:               arith.addf
// CHECK:         } {llm.gpu_strategy = {rows = 0 : i64, stages = 3 : i64, strategy = "tiles", thread_tile = array<i64: 4, 4>, tile = array<i64: 64, 64, 16>}}
func.func @prefill(%x: memref<512x768xf32>, %w: memref<768x2304xf32>, %b: memref<2304xf32>, %out: memref<512x2304xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<512x2304xf32>)
    linalg.matmul ins(%x, %w : memref<512x768xf32>, memref<768x2304xf32>) outs(%out : memref<512x2304xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%out, %b : memref<512x2304xf32>, memref<2304xf32>) outs(%out : memref<512x2304xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.addf %a, %c : f32
      linalg.yield %s : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// Partial tiles (M 70, N 100) and a K remainder (333 = 20 x 16 + 13), with
// a [N, K] weight: 32 x 32 tiles (3 x 4 = 12 blocks, fewer than the SMs
// for 64 x 64 ones), both operands staged k-major and padded by 2; loads
// clamped into the matrices, the last K tile 13 steps, stores guarded.
// CHECK-LABEL: func.func @partial_tiles
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c12{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}}) workgroup(%[[AS:.*]] : memref<16x34xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x34xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c320{{.*}} step %c16
// CHECK:             arith.minui %{{.*}}, %c69
// CHECK:           }
// The remainder tile: its loads clamped to k <= 332, 13 steps.
// CHECK:           gpu.barrier
// CHECK:           arith.minui %{{.*}}, %c332
// CHECK:           gpu.barrier
// CHECK:           vector.load %[[AS]][%c12
// CHECK-NOT:       vector.load %[[AS]][%c13
// CHECK:           scf.if
// CHECK:             memref.store
// CHECK:         } {llm.gpu_strategy = {rows = 0 : i64, stages = 2 : i64, strategy = "tiles", thread_tile = array<i64: 2, 2>, tile = array<i64: 32, 32, 16>}}
func.func @partial_tiles(%x: memref<70x333xf32>, %w: memref<100x333xf32>, %out: memref<70x100xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<70x100xf32>)
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%x, %w : memref<70x333xf32>, memref<100x333xf32>) outs(%out : memref<70x100xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// Not tiles: a stage reads the matmul's output at another point (a row
// reduction over it), so the threads' points are not independent.
// CHECK-LABEL: func.func @not_point_local
// CHECK:         llm.gpu_strategy = {rows = 1 : i64, stages = 3 : i64, strategy = "rows"}
func.func @not_point_local(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %out: memref<64x64xf32>, %sum: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<64x64xf32>)
    linalg.matmul ins(%x, %w : memref<64x64xf32>, memref<64x64xf32>) outs(%out : memref<64x64xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%out : memref<64x64xf32>) outs(%sum : memref<64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// Not tiles: the epilogue reads the matmul's output through another view
// of its buffer (shifted a row down): at the point of that view, it is
// another thread's (or block's) output.
// CHECK-LABEL: func.func @shifted_view
// CHECK-NOT:     strategy = "tiles"
// CHECK:         return
func.func @shifted_view(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %c: memref<65x64xf32>, %d: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.subview %c[0, 0] [64, 64] [1, 1] : memref<65x64xf32> to memref<64x64xf32, strided<[64, 1]>>
  %bot = memref.subview %c[1, 0] [64, 64] [1, 1] : memref<65x64xf32> to memref<64x64xf32, strided<[64, 1], offset: 64>>
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%top : memref<64x64xf32, strided<[64, 1]>>)
    linalg.matmul ins(%x, %w : memref<64x64xf32>, memref<64x64xf32>) outs(%top : memref<64x64xf32, strided<[64, 1]>>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bot : memref<64x64xf32, strided<[64, 1], offset: 64>>) outs(%d : memref<64x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// A decode matvec whose weight is [N, K] (transpose_b): the block per output
// reads a weight row, consecutive threads consecutive weights, so it keeps
// the threads on K and the block reduction.
// CHECK-LABEL: func.func @matvec_transposed
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c768{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}})
// CHECK:           gpu.all_reduce add
// CHECK:         } {llm.gpu_strategy = {rows = 2 : i64, stages = 2 : i64, strategy = "rows"}}
func.func @matvec_transposed(%x: memref<1x1024xf32>, %w: memref<768x1024xf32>, %out: memref<1x768xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<1x768xf32>)
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%x, %w : memref<1x1024xf32>, memref<768x1024xf32>) outs(%out : memref<1x768xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// Scalar code on the host (an index check's status update) runs in a
// single-thread kernel.
// CHECK-LABEL: func.func @scalar
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}}, {{.*}}) module(@scalar_scalar_0) function(@scalar_scalar_0)
// CHECK:           memref.load
// CHECK:           scf.if
// CHECK:         } {llm.gpu_strategy = {rows = 0 : i64, stages = 0 : i64, strategy = "scalar"}}
func.func @scalar(%flag: memref<i64>, %status: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %v = memref.load %flag[] : memref<i64>
  %bad = arith.cmpi ne, %v, %zero : i64
  scf.if %bad {
    memref.store %v, %status[%c0] : memref<4xi64>
  }
  return
}

// -----

// A kernel name that a symbol of the module already has (a user function
// @clash_scalar_0) gets a `_k` suffix: outlining keeps it, so the report
// and the PTX name the same kernel.
// CHECK-LABEL: func.func @clash
// CHECK:         gpu.launch {{.*}} module(@clash_scalar_0_k) function(@clash_scalar_0_k)
func.func @clash(%flag: memref<i64>, %status: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %v = memref.load %flag[] : memref<i64>
  %bad = arith.cmpi ne, %v, %zero : i64
  scf.if %bad {
    memref.store %v, %status[%c0] : memref<4xi64>
  }
  return
}
func.func private @clash_scalar_0()

// -----

// A position the host loaded from an input (the offset of a later copy's
// view, as llm.kv_cache_update makes) is loaded again by the kernel that
// uses it: the host reads no device memory, and its dead scalar code is
// gone.
// CHECK-LABEL: func.func @host_load_position
// CHECK-NOT:     memref.load
// CHECK-NOT:     arith.index_cast
// CHECK-NOT:     memref.subview
// CHECK:         gpu.launch
// CHECK:           %[[P:.*]] = memref.load %arg2[] : memref<i64>
// CHECK:           %[[I:.*]] = arith.index_cast %[[P]]
// CHECK:           memref.subview %arg1[%{{.*}}, 0] [3, 4] [1, 1]
// CHECK:         return
func.func @host_load_position(%src: memref<3x4xf32>, %dst: memref<8x4xf32>, %p: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %0 = memref.load %p[] : memref<i64>
  %1 = arith.index_cast %0 : i64 to index
  %2 = arith.minsi %1, %c5 : index
  %3 = arith.maxsi %2, %c0 : index
  %sub = memref.subview %dst[%3, 0] [3, 4] [1, 1] : memref<8x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %src, %sub : memref<3x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

// The buffer is written between the host's load and the kernel: loading it
// again would read another value. The scalar kernel stores the value it
// computed into a buffer of its own, which the copy kernel loads and takes
// its view at.
// CHECK-LABEL: func.func @host_load_overwritten
// CHECK-SAME:    (%[[SRC:.*]]: memref<3x4xf32>, %[[DST:.*]]: memref<8x4xf32>, %[[P:.*]]: memref<i64>)
// CHECK:         %[[PASS:.*]] = gpu.alloc () : memref<index>
// CHECK:         gpu.launch {{.*}} module(@host_load_overwritten_scalar_0)
// CHECK:           %[[V:.*]] = memref.load %[[P]][]
// CHECK:           %[[I:.*]] = arith.index_cast %[[V]]
// CHECK-NEXT:      memref.store %[[I]], %[[PASS]][] : memref<index>
// CHECK-NEXT:      memref.store %{{.*}}, %[[P]][] : memref<i64>
// CHECK:         gpu.launch {{.*}} module(@host_load_overwritten_flat_1)
// CHECK-NEXT:      %[[W:.*]] = memref.load %[[PASS]][] : memref<index>
// CHECK-NEXT:      %[[SUB:.*]] = memref.subview %[[DST]][%[[W]], 0] [3, 4] [1, 1]
// CHECK:           memref.store %{{.*}}, %[[SUB]]
// CHECK:         gpu.dealloc %[[PASS]] : memref<index>
// CHECK-NEXT:    return
func.func @host_load_overwritten(%src: memref<3x4xf32>, %dst: memref<8x4xf32>, %p: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i64
  %0 = memref.load %p[] : memref<i64>
  %1 = arith.index_cast %0 : i64 to index
  memref.store %c7, %p[] : memref<i64>
  %sub = memref.subview %dst[%1, 0] [3, 4] [1, 1] : memref<8x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %src, %sub : memref<3x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

// A value the device's scalar code computes, used by the host (a dynamic
// allocation size): the host cannot read device memory.
func.func @scalar_used_on_host(%p: memref<i64>, %src: memref<4xf32>, %dst: memref<4xf32>) {
  %0 = memref.load %p[] : memref<i64>
  // expected-error@+1 {{llm-map-gpu-kernels: a value computed by device scalar code is used on the host}}
  %1 = arith.index_cast %0 : i64 to index
  memref.copy %src, %dst : memref<4xf32> to memref<4xf32>
  %a = memref.alloc(%1) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// Memory-plan slots: a scalar loaded from one slot is loaded again by a
// kernel that writes another slot of the same arena (disjoint bytes), not
// by one whose slot overlaps it.
// CHECK-LABEL: func.func @arena_slots
// CHECK:         gpu.launch
// CHECK:           memref.load %{{.*}}[] : memref<i64>
// CHECK:           memref.subview
func.func @arena_slots(%dst: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %arena = memref.alloc() : memref<128xi8>
  %slot = memref.view %arena[%c0][] : memref<128xi8> to memref<i64>
  %other = memref.view %arena[%c64][] : memref<128xi8> to memref<4xf32>
  %0 = memref.load %slot[] : memref<i64>
  %1 = arith.index_cast %0 : i64 to index
  %sub = memref.subview %dst[%1, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  memref.copy %sub, %other : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  memref.dealloc %arena : memref<128xi8>
  return
}

// -----

// The kernel's destination slot overlaps the loaded one: the value goes
// through a buffer of its own.
// CHECK-LABEL: func.func @arena_overlap
// CHECK:         %[[PASS:.*]] = gpu.alloc () : memref<index>
// CHECK:         gpu.launch {{.*}} module(@arena_overlap_scalar_0)
// CHECK:           memref.store %{{.*}}, %[[PASS]][] : memref<index>
// CHECK:         gpu.launch {{.*}} module(@arena_overlap_flat_1)
// CHECK-NEXT:      %[[W:.*]] = memref.load %[[PASS]][] : memref<index>
// CHECK-NEXT:      memref.subview %{{.*}}[%[[W]], 0] [1, 4] [1, 1]
func.func @arena_overlap(%dst: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %arena = memref.alloc() : memref<128xi8>
  %slot = memref.view %arena[%c0][] : memref<128xi8> to memref<i64>
  %overlapping = memref.view %arena[%c4][] : memref<128xi8> to memref<4xf32>
  %0 = memref.load %slot[] : memref<i64>
  %1 = arith.index_cast %0 : i64 to index
  %sub = memref.subview %dst[%1, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  memref.copy %sub, %overlapping : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  memref.dealloc %arena : memref<128xi8>
  return
}

// -----

// A tiled loop nest (the flash-attention lowering after bufferization,
// reduced: a query tile's row maximum over key tiles, then its rows
// written): each of the 4 x 2 iterations is a block, the loop's buffers
// are the block's workgroup memory, each linalg op a loop over the block's
// threads (a point per thread in turn), the key loop runs on every thread
// with its bound from the block. Barriers only where one op reads or
// writes what another wrote or read before: none after the fill (the
// bound's arithmetic follows it), one before the loop (whose ops read what
// the fill wrote), one after each op in the loop.
// CHECK-LABEL: func.func @forall
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BD:.*]] = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) module(@forall_forall_0) function(@forall_forall_0) workgroup(%[[M:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[S:.*]] : memref<32x16xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[T:.*]] = arith.remui %[[BX]], %c2
// CHECK:           %[[H:.*]] = arith.divui %[[BX]], %c2
// CHECK:           scf.for %[[F:.*]] = %[[TX]] to %c32{{.*}} step %[[BD]] {
// CHECK:             memref.store %{{.*}}, %[[M]][%[[F]]]
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[UB:.*]] = arith.addi %[[T]], %c1
// CHECK:           gpu.barrier
// CHECK:           scf.for %[[J:.*]] = %c0{{.*}} to %[[UB]] step %c1{{.*}} {
// CHECK:             scf.for %[[P:.*]] = %[[TX]] to %c512{{.*}} step %[[BD]] {
// CHECK:               %[[C:.*]] = arith.remui %[[P]], %c16
// CHECK:               %[[R:.*]] = arith.divui %[[P]], %c16
// CHECK:               %[[KT:.*]] = memref.load %{{.*}}[%[[R]], %[[C]]]
// CHECK:               memref.store %[[KT]], %[[S]][%[[R]], %[[C]]]
// CHECK:             gpu.barrier
// CHECK:             scf.for %[[P2:.*]] = %[[TX]] to %c32{{.*}} step %[[BD]] {
// CHECK:               scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:                 memref.load %[[S]][%[[P2]],
// CHECK:                 arith.maximumf
// CHECK:               memref.store %{{.*}}, %[[M]][%[[P2]]]
// CHECK:             gpu.barrier
// CHECK:           }
// CHECK:           %[[O:.*]] = memref.subview %arg1[%[[H]], %{{.*}}] [1, 32]
// CHECK:           scf.for %[[P3:.*]] = %[[TX]] to %c32{{.*}} step %[[BD]] {
// CHECK:             %[[V:.*]] = memref.load %[[M]][%[[P3]]]
// CHECK:             memref.store %[[V]], %[[O]][%[[P3]]]
// CHECK:           gpu.terminator
// CHECK:         } {llm.gpu_strategy = {blocks = array<i64: 4, 2>, rows = 0 : i64, stages = 4 : i64, strategy = "forall"}}
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @forall(%k: memref<4x64x16xf32>, %out: memref<4x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  scf.forall (%h, %t) in (4, 2) {
    %m = memref.alloc() : memref<32xf32>
    linalg.fill ins(%ninf : f32) outs(%m : memref<32xf32>)
    %s = memref.alloc() : memref<32x16xf32>
    %ub = arith.addi %t, %c1 : index
    scf.for %j = %c0 to %ub step %c1 {
      %row0 = arith.muli %j, %c32 : index
      %kt = memref.subview %k[%h, %row0, 0] [1, 32, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<32x16xf32, strided<[16, 1], offset: ?>>
      memref.copy %kt, %s : memref<32x16xf32, strided<[16, 1], offset: ?>> to memref<32x16xf32>
      linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
          ins(%s : memref<32x16xf32>) outs(%m : memref<32xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %x = arith.maximumf %in, %acc : f32
        linalg.yield %x : f32
      }
    }
    %q0 = arith.muli %t, %c32 : index
    %o = memref.subview %out[%h, %q0] [1, 32] [1, 1] : memref<4x64xf32> to memref<32xf32, strided<[1], offset: ?>>
    memref.copy %m, %o : memref<32xf32> to memref<32xf32, strided<[1], offset: ?>>
    memref.dealloc %s : memref<32x16xf32>
    memref.dealloc %m : memref<32xf32>
  } {llm.gpu_kernel, llm.gpu_block_loop}
  return
}

// -----

// Tiled loop nests that the forall strategy refuses.
func.func @forall_too_much_shared() {
  %zero = arith.constant 0.0 : f32
  // expected-error@+1 {{llm-map-gpu-kernels: the tiled loop nest's workgroup buffers take 65536 bytes, more than the 49152 bytes of static shared memory per block}}
  scf.forall (%i) in (4) {
    %s = memref.alloc() : memref<128x128xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<128x128xf32>)
  } {llm.gpu_kernel, llm.gpu_block_loop}
  return
}

// -----

func.func @forall_carried(%out: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.forall (%i) in (4) {
    // expected-error@+1 {{llm-map-gpu-kernels: a loop that carries values in a tiled loop nest is not supported}}
    %n = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %c0) -> (index) {
      %b = arith.addi %a, %j : index
      scf.yield %b : index
    }
    memref.store %n, %out[%i] : memref<4xindex>
  } {llm.gpu_kernel, llm.gpu_block_loop}
  return
}

// -----

#t2 = affine_map<(d0, d1) -> (d1, d0)>
#i2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @forall_in_stage_race() {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %s = memref.alloc() : memref<8x8xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<8x8xf32>)
    // A transposition in place: a thread would read what another writes.
    // expected-error@+1 {{llm-map-gpu-kernels: a stage of a tiled loop nest reads a buffer it writes at other points}}
    linalg.generic {indexing_maps = [#t2, #i2], iterator_types = ["parallel", "parallel"]}
        ins(%s : memref<8x8xf32>) outs(%s : memref<8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
  } {llm.gpu_kernel, llm.gpu_block_loop}
  return
}

// -----

func.func @forall_shared_scratch(%scratch: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    // Every block would write the same buffer.
    // expected-error@+1 {{llm-map-gpu-kernels: a stage of a tiled loop nest writes a buffer from outside it other than through a view the block takes}}
    linalg.fill ins(%zero : f32) outs(%scratch : memref<8xf32>)
  } {llm.gpu_kernel, llm.gpu_block_loop}
  return
}
