// RUN: llm-opt %s --allow-unregistered-dialect --llm-hoist-kernel-allocs | FileCheck %s

// The static scratch buffer of a kernel loop moves in front of it (where
// llm-plan-memory sees it); a dynamically sized one and the allocations of
// other loops stay.
// CHECK-LABEL: func.func @hoist
// CHECK:         memref.alloc() : memref<64xf32>
// CHECK-NEXT:    scf.forall
// CHECK-NEXT:      memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
// CHECK:         scf.forall
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
func.func @hoist(%n: index) {
  scf.forall (%i) in (1) {
    %a = memref.alloc() : memref<64xf32>
    %d = memref.alloc(%n) : memref<?xf32>
    "test.use"(%a, %d) : (memref<64xf32>, memref<?xf32>) -> ()
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  scf.forall (%i) in (4) {
    %b = memref.alloc() : memref<8xf32>
    "test.use"(%b) : (memref<8xf32>) -> ()
  }
  return
}
