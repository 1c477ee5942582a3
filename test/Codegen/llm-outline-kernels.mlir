// RUN: llm-opt %s -llm-outline-kernels=min-kernels=2 -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-outline-kernels -split-input-file | FileCheck %s --check-prefix=SMALL
// A negative limit is an error (it meant no limit).
// RUN: not llm-opt %s --llm-outline-kernels="min-kernels=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0
// NEGOPT0: error: llm-outline-kernels: min-kernels must be at least 0, got -1

// Three loop nests on static memrefs: each becomes a private noinline
// function with bare-pointer calls; the two equal nests (the same kernel on
// other buffers) share one function; constants are cloned in, the other
// values become arguments; non-loop ops (the alloca) stay.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<8xf32>, %[[B:[a-z0-9]+]]: memref<8xf32>, %[[C:[a-z0-9]+]]: memref<8xf32>)
// CHECK: %[[T:.+]] = memref.alloca() : memref<8xf32>
// CHECK: call @main_kernel0(%[[A]], %[[T]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK: call @main_kernel0(%[[T]], %[[B]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK: call @main_kernel1(%[[B]], %[[C]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NOT: scf.for
// CHECK: return
// CHECK: func.func private @main_kernel0(%[[X:[a-z0-9]+]]: memref<8xf32>, %[[Y:[a-z0-9]+]]: memref<8xf32>) attributes {llvm.bareptr, passthrough = ["noinline"]}
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 8 : index
// CHECK-DAG: arith.constant 1 : index
// CHECK: scf.for
// CHECK: memref.load %[[X]]
// CHECK: math.exp
// CHECK: memref.store %{{.+}}, %[[Y]]
// CHECK: return
// CHECK: func.func private @main_kernel1(
// CHECK: math.tanh
// CHECK-NOT: func.func private @main_kernel2
// SMALL-LABEL: func.func @main
// SMALL-COUNT-3: scf.for
// SMALL-NOT: func.call
func.func @main(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloca() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %e = math.exp %v : f32
    memref.store %e, %t[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %t[%i] : memref<8xf32>
    %e = math.exp %v : f32
    memref.store %e, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %b[%i] : memref<8xf32>
    %e = math.tanh %v : f32
    memref.store %e, %c[%i] : memref<8xf32>
  }
  return
}

// -----

// Dynamic memrefs keep the descriptor convention (no llvm.bareptr); a
// symbol named like a generated one is skipped.
// CHECK: func.func private @dyn_kernel0()
// CHECK-LABEL: func.func @dyn(
// CHECK: call @dyn_kernel1(
// CHECK: call @dyn_kernel1(
// CHECK: func.func private @dyn_kernel1(%{{.+}}: memref<?xf32>, %{{.+}}: index) attributes {passthrough = ["noinline"]}
func.func private @dyn_kernel0()
func.func @dyn(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %a[%i] : memref<?xf32>
  }
  return
}
