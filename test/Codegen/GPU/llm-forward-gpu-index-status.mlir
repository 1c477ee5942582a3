// RUN: llm-opt %s -split-input-file -llm-forward-gpu-index-status -verify-diagnostics | FileCheck %s

// A kernel that records a failed index check writes a device copy of the
// status: filled from the host status on entry (a failure already recorded
// is kept), copied back before the return.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[IDS:.*]]: memref<4xi64>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NEXT:    %[[HOST:.*]] = memref.get_global @__llmc_status : memref<4xi64>
// CHECK-NEXT:    %[[DEV:.*]] = gpu.alloc () : memref<4xi64>
// CHECK-NEXT:    gpu.memcpy  %[[DEV]], %[[HOST]] : memref<4xi64>, memref<4xi64>
// CHECK:         gpu.launch
// CHECK-NOT:     memref.get_global
// CHECK:         memref.load %[[DEV]]
// CHECK:         memref.store %{{.*}}, %[[DEV]]
// CHECK:         gpu.terminator
// CHECK:         gpu.launch
// CHECK:         gpu.memcpy  %[[HOST]], %[[DEV]] : memref<4xi64>, memref<4xi64>
// CHECK-NEXT:    gpu.dealloc  %[[DEV]] : memref<4xi64>
// CHECK-NEXT:    return
// A function that does not use the status is unchanged.
// CHECK-LABEL: func.func @no_checks
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.memcpy
// CHECK:         return
module attributes {gpu.container_module} {
  memref.global @__llmc_status : memref<4xi64> = dense<0>
  func.func @main(%ids: memref<4xi64>, %out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %id = arith.constant 1 : i64
      %status = memref.get_global @__llmc_status : memref<4xi64>
      %first = memref.load %status[%c0] : memref<4xi64>
      %isFirst = arith.cmpi eq, %first, %zero : i64
      scf.if %isFirst {
        memref.store %id, %status[%c0] : memref<4xi64>
      }
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %out[%c0] : memref<4xf32>
      gpu.terminator
    }
    return
  }
  func.func @no_checks(%out: memref<4xf32>) {
    return
  }
}

// -----

// Around a call, the caller's copy goes to the host and comes back: the
// callee records into a copy of its own, through the host status.
// CHECK-LABEL: func.func @caller
// CHECK:         %[[HOST:.*]] = memref.get_global @__llmc_status
// CHECK:         %[[DEV:.*]] = gpu.alloc
// CHECK:         gpu.memcpy  %[[DEV]], %[[HOST]]
// CHECK:         gpu.launch
// CHECK:         gpu.memcpy  %[[HOST]], %[[DEV]]
// CHECK-NEXT:    call @callee
// CHECK-NEXT:    gpu.memcpy  %[[DEV]], %[[HOST]]
// CHECK:         gpu.memcpy  %[[HOST]], %[[DEV]]
// CHECK-NEXT:    gpu.dealloc  %[[DEV]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  memref.global @__llmc_status : memref<4xi64> = dense<0>
  func.func private @callee()
  func.func @caller() {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %id = arith.constant 1 : i64
      %status = memref.get_global @__llmc_status : memref<4xi64>
      memref.store %id, %status[%c0] : memref<4xi64>
      gpu.terminator
    }
    call @callee() : () -> ()
    return
  }
}

// -----

// No status global: nothing to do.
// CHECK-LABEL: func.func @without_status
// CHECK-NOT:     gpu.alloc
func.func @without_status(%out: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{llm-forward-gpu-index-status: expected the index-check status to be a 'memref<4xi64>', got 'memref<2xi32>'}}
memref.global @__llmc_status : memref<2xi32> = dense<0>
