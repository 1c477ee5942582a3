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
