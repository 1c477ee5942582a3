// RUN: llm-opt %s --llm-emulate-gpu-kernels --split-input-file --verify-diagnostics | FileCheck %s

// A kernel with a block reduction: per block, the threads run up to the
// all_reduce, their values kept per thread, then combined in thread order;
// the threads then run the rest with the uniform result. Device memory
// becomes host memory.
// CHECK-LABEL: func.func @reduce
// CHECK:         %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         %[[KEEP:.*]] = memref.alloca() : memref<32xf32>
// CHECK:         scf.for %[[B:.*]] = %c0 to %c4{{.*}} step %c1{{.*}} {
// CHECK:           scf.for %[[T:.*]] = %c0 to %c32{{.*}} step %c1{{.*}} {
// CHECK:             %[[V:.*]] = memref.load %arg0[%[[B]], %[[T]]]
// CHECK:             memref.store %[[V]], %[[KEEP]][%[[T]]]
// CHECK:           %[[F:.*]] = memref.load %[[KEEP]][%c0]
// CHECK:           %[[S:.*]] = scf.for %[[U:.*]] = %c1{{.*}} to %c32{{.*}} step %c1{{.*}} iter_args(%[[ACC:.*]] = %[[F]])
// CHECK:             %[[N:.*]] = memref.load %[[KEEP]][%[[U]]]
// CHECK:             arith.addf %[[ACC]], %[[N]]
// CHECK:           scf.for %{{.*}} = %c0 to %c32{{.*}} step %c1{{.*}} {
// CHECK:             memref.store %[[S]], %[[A]][%[[B]]]
// CHECK:         memref.dealloc %[[A]]
// CHECK-NOT:     gpu.
func.func @reduce(%x: memref<4x32xf32>) {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %a = gpu.alloc () : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx, %tx] : memref<4x32xf32>
    %s = gpu.all_reduce add %v uniform {} : (f32) -> f32
    memref.store %s, %a[%bx] : memref<4xf32>
    gpu.terminator
  }
  gpu.dealloc %a : memref<4xf32>
  return
}

// -----

// Workgroup memory: one host buffer before the block loop, which every block
// uses in turn; a thread's write before a barrier is read by another thread
// after it (the threads run interval by interval).
// CHECK-LABEL: func.func @workgroup
// CHECK:         %[[WG:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK:         scf.for %[[B:.*]] = %c0 to %c2{{.*}} step %c1{{.*}} {
// CHECK:           scf.for %[[T:.*]] = %c0 to %c32{{.*}} step %c1{{.*}} {
// CHECK:             %[[V:.*]] = memref.load %arg0[%[[B]], %[[T]]]
// CHECK:             memref.store %[[V]], %[[WG]][%[[T]]]
// CHECK:           scf.for %[[U:.*]] = %c0 to %c32{{.*}} step %c1{{.*}} {
// CHECK:             %[[R:.*]] = arith.subi %c31, %[[U]]
// CHECK:             %[[W:.*]] = memref.load %[[WG]][%[[R]]]
// CHECK:             memref.store %[[W]], %arg1[%[[B]], %[[U]]]
// CHECK-NOT:     gpu.
func.func @workgroup(%x: memref<2x32xf32>, %y: memref<2x32xf32>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c31 = arith.constant 31 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<32xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%bx, %tx] : memref<2x32xf32>
    memref.store %v, %wg[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = arith.subi %c31, %tx : index
    %w = memref.load %wg[%r] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %y[%bx, %tx] : memref<2x32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @nested_barrier(%x: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %true = arith.constant true
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error@+1 {{llm-emulate-gpu-kernels: synchronization inside control flow other than a uniform scf.for is not emulated}}
    scf.if %true {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic_grid(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{llm-emulate-gpu-kernels: expected constant grid and block sizes}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// A uniform loop whose body synchronizes (the matmul tiles' K loop): a host
// loop whose iterations run the body's intervals in turn over the threads;
// the carried value lives per thread: stored before the loop, loaded and
// stored back around each iteration, read after it.
// CHECK-LABEL: func.func @sync_loop
// CHECK-DAG:     %[[WG:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK-DAG:     %[[ACC:.*]] = memref.alloca() : memref<32xf32>
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step
// Initial values to each thread's storage.
// CHECK:           scf.for %[[T0:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:             memref.store %{{.*}}, %[[ACC]][%[[T0]]]
// CHECK:           scf.for %[[K:.*]] = %c0{{.*}} to %c4{{.*}} step %c1
// Before the barrier: every thread writes its element.
// CHECK:             scf.for %[[T1:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:               memref.store %{{.*}}, %[[WG]][%[[T1]]]
// After it: every thread reads its neighbour's and adds to its value.
// CHECK:             scf.for %[[T2:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:               memref.load %[[ACC]][%[[T2]]]
// CHECK:               memref.load %[[WG]]
// CHECK:               arith.addf
// The yielded value back to the carried storage.
// CHECK:             scf.for %[[T3:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:               memref.store %{{.*}}, %[[ACC]][%[[T3]]]
// After the loop: the result read from the carried storage.
// CHECK:           scf.for %[[T4:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:             %[[R:.*]] = memref.load %[[ACC]][%[[T4]]]
// CHECK:             memref.store %[[R]], %arg1[%[[T4]]]
func.func @sync_loop(%x: memref<4x32xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<32xf32, #gpu.address_space<workgroup>>) {
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      gpu.barrier
      %v = memref.load %x[%k, %tx] : memref<4x32xf32>
      memref.store %v, %wg[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.subi %c31, %tx : index
      %w = memref.load %wg[%n] : memref<32xf32, #gpu.address_space<workgroup>>
      %next = arith.addf %acc, %w : f32
      scf.yield %next : f32
    }
    memref.store %sum, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop that synchronizes whose bound is uniform but not constant (the
// flash attention's key/value loop: computed from the block id and a length
// the kernel reads): the bound is computed on the host in the block loop.
// CHECK-LABEL: func.func @sync_loop_uniform
// CHECK:         scf.for %[[B:.*]] = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} {
// CHECK:           memref.store %{{.*}} : memref<32xindex>
// CHECK:           %[[L:.*]] = memref.load %arg1[]
// CHECK-NEXT:      %[[UB:.*]] = arith.addi %[[B]], %[[L]]
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %[[UB]] step %c1{{.*}} {
// CHECK-NEXT:        scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c1{{.*}} {
func.func @sync_loop_uniform(%x: memref<4x32xf32>, %len: memref<index>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %l = memref.load %len[] : memref<index>
    %n = arith.addi %bx, %l : index
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %x[%bx, %tx] : memref<4x32xf32>
      %w = arith.addf %v, %v : f32
      gpu.barrier
      memref.store %w, %x[%bx, %tx] : memref<4x32xf32>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @sync_loop_dynamic(%n: memref<32xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // A bound of the thread's own.
    %m = memref.load %n[%tx] : memref<32xindex>
    // expected-error@+1 {{llm-emulate-gpu-kernels: a loop that synchronizes must have bounds uniform across the block}}
    scf.for %k = %c0 to %m step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// An all_reduce of a value no interval keeps (computed from the thread id
// alone): each thread's value is stored before the reduction reads them.
// CHECK-LABEL: func.func @reduce_recomputable
// CHECK:         %[[BUF:.*]] = memref.alloca() : memref<32xf32>
// CHECK:         scf.for %[[T:.*]] = %c0{{.*}} to %c32{{.*}} step
// CHECK:           arith.uitofp
// CHECK:           memref.store %{{.*}}, %[[BUF]][%[[T]]]
// CHECK:         memref.load %[[BUF]][%c0
// CHECK:         scf.for {{.*}} = %c1{{.*}} to %c32{{.*}} step {{.*}} iter_args
// CHECK:           memref.load %[[BUF]]
// CHECK:           arith.addf
func.func @reduce_recomputable(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %v = arith.uitofp %i : i32 to f32
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> (f32)
    memref.store %sum, %out[%c0] : memref<1xf32>
    gpu.terminator
  }
  return
}

// -----

// A warp's mma.sync m16n8k16 (f16 into f32): a synchronization point. Each
// thread keeps its A registers and places its B elements in the warp's B
// (k = 2t + e + 8j, n = g); then each thread's A elements are placed in the
// warp's A (row g + 8 (j & 1), column 2t + e + 8 (j >> 1)), and each
// accumulator read (here 0 and 3) is c + sum over 16 k of A[row][k] B[k][col],
// kept per thread for the interval that stores it.
// CHECK-LABEL: func.func @mma_sync
// CHECK-DAG:     %[[AM:.*]] = memref.alloca() : memref<1x16x16xf32>
// CHECK-DAG:     %[[BM:.*]] = memref.alloca() : memref<1x16x8xf32>
// CHECK-DAG:     %[[CB:.*]] = memref.alloca() : memref<32x4xf32>
// CHECK-DAG:     %[[D0:.*]] = memref.alloca() : memref<32xf32>
// CHECK-DAG:     %[[D3:.*]] = memref.alloca() : memref<32xf32>
// CHECK:         scf.for %[[B:.*]] = %c0
// CHECK:           scf.for %[[T:.*]] = %c0
// CHECK:             vector.extract %{{.*}}[1] : f16 from vector<2xf16>
// CHECK:             memref.store %{{.*}}, %[[BM]]
// CHECK:           scf.for %[[T2:.*]] = %c0
// CHECK-COUNT-8:     memref.store %{{.*}}, %[[AM]]
// CHECK:           scf.for %[[T3:.*]] = %c0
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:               memref.load %[[AM]]
// CHECK:               memref.load %[[BM]]
// CHECK:             memref.store %{{.*}}, %[[D0]][%[[T3]]]
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:             memref.store %{{.*}}, %[[D3]][%[[T3]]]
// CHECK:           scf.for %[[T4:.*]] = %c0
// CHECK:             memref.load %[[D0]][%[[T4]]]
// CHECK:             memref.load %[[D3]][%[[T4]]]
// CHECK-NOT:     nvvm.
func.func @mma_sync(%a: memref<32x4xvector<2xf16>>, %b: memref<32x2xvector<2xf16>>,
                    %d: memref<32x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a0 = memref.load %a[%tx, %c0] : memref<32x4xvector<2xf16>>
    %a1 = memref.load %a[%tx, %c1] : memref<32x4xvector<2xf16>>
    %a2 = memref.load %a[%tx, %c2] : memref<32x4xvector<2xf16>>
    %a3 = memref.load %a[%tx, %c3] : memref<32x4xvector<2xf16>>
    %b0 = memref.load %b[%tx, %c0] : memref<32x2xvector<2xf16>>
    %b1 = memref.load %b[%tx, %c1] : memref<32x2xvector<2xf16>>
    %z = arith.constant 0.0 : f32
    %r = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%z, %z, %z, %z]
         {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
          shape = #nvvm.shape<m = 16, n = 8, k = 16>}
         : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %r[3] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %d[%tx, %c0] : memref<32x2xf32>
    memref.store %d3, %d[%tx, %c1] : memref<32x2xf32>
    gpu.terminator
  }
  return
}

// -----

// mma.sp.sync m16n8k32 on bf16 (i32 registers): each stored element of A
// keeps its column, 4 (c / 2) + its 2-bit index, read from the metadata word
// of lane 4 (row % 8) + 2 selector + c / 8 at bit 16 (row >= 8) +
// 4 ((c % 8) / 2) + 2 (c & 1); each accumulator sums the 16 stored columns'
// products with B at those columns (K is 32).
// CHECK-LABEL: func.func @mma_sp
// CHECK:         %[[AM:.*]] = memref.alloca() : memref<1x16x16xf32>
// CHECK:         %[[AC:.*]] = memref.alloca() : memref<1x16x16xindex>
// CHECK:         memref.alloca() : memref<1x32x8xf32>
// CHECK:           scf.for
// CHECK:             arith.trunci %{{.*}} : i32 to i16
// CHECK:             arith.bitcast %{{.*}} : i16 to bf16
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[AM]]
// CHECK:             %[[S:.*]] = arith.shrui
// CHECK:             arith.andi %[[S]], %c3_i32
// CHECK:             memref.store %{{.*}}, %[[AC]]
// CHECK:           scf.for
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:               memref.load %[[AM]]
// CHECK:               memref.load %[[AC]]
// CHECK-NOT:     nvvm.
func.func @mma_sp(%a: memref<32x4xi32>, %b: memref<32x4xi32>, %m: memref<32xi32>,
                  %d: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a0 = memref.load %a[%tx, %c0] : memref<32x4xi32>
    %a1 = memref.load %a[%tx, %c1] : memref<32x4xi32>
    %a2 = memref.load %a[%tx, %c2] : memref<32x4xi32>
    %a3 = memref.load %a[%tx, %c3] : memref<32x4xi32>
    %b0 = memref.load %b[%tx, %c0] : memref<32x4xi32>
    %b1 = memref.load %b[%tx, %c1] : memref<32x4xi32>
    %b2 = memref.load %b[%tx, %c2] : memref<32x4xi32>
    %b3 = memref.load %b[%tx, %c3] : memref<32x4xi32>
    %meta = memref.load %m[%tx] : memref<32xi32>
    %sel = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %r = nvvm.mma.sp.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1, %b2, %b3]
         C[%z, %z, %z, %z] sparseMetadata[%meta] selector[%sel]
         {multiplicandAPtxType = #nvvm.mma_type<bf16>,
          multiplicandBPtxType = #nvvm.mma_type<bf16>,
          shape = #nvvm.shape<m = 16, n = 8, k = 32>}
         : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %r[1] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d1, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @mma_shape(%a: vector<2xf16>, %b: vector<2xf16>, %d: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    // expected-error@+1 {{llm-emulate-gpu-kernels: only m16n8k16 mma.sync and m16n8k32 mma.sp.sync are emulated}}
    %r = nvvm.mma.sync A[%a, %a] B[%b] C[%z, %z, %z, %z]
         {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
          shape = #nvvm.shape<m = 16, n = 8, k = 8>}
         : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @mma_partial_warp(%a: vector<2xf16>, %b: vector<2xf16>, %d: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    // expected-error@+1 {{llm-emulate-gpu-kernels: an MMA needs whole warps in the block}}
    %r = nvvm.mma.sync A[%a, %a, %a, %a] B[%b, %b] C[%z, %z, %z, %z]
         {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
          shape = #nvvm.shape<m = 16, n = 8, k = 16>}
         : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %d[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @mma_struct_escapes(%a: vector<2xf16>, %b: vector<2xf16>, %d: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    // expected-error@+1 {{llm-emulate-gpu-kernels: an MMA's result must only be read by llvm.extractvalue of one accumulator in the same block}}
    %r = nvvm.mma.sync A[%a, %a, %a, %a] B[%b, %b] C[%z, %z, %z, %z]
         {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
          shape = #nvvm.shape<m = 16, n = 8, k = 16>}
         : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %c = arith.constant true
    scf.if %c {
      %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
      memref.store %d0, %d[%tx] : memref<32xf32>
    }
    gpu.terminator
  }
  return
}
