// RUN: llm-opt %s -llm-request-amx-state -split-input-file | FileCheck %s
// Running it twice adds nothing.
// RUN: llm-opt %s -llm-request-amx-state -split-input-file | llm-opt -llm-request-amx-state -split-input-file | FileCheck %s --check-prefix=TWICE
// TWICE-LABEL: llvm.func @kernel
// TWICE-NEXT:    llvm.call @__llmc_request_amx_state() : () -> ()
// TWICE-NEXT:    llvm.mlir.constant

// A function calling AMX intrinsics asks for the tile state first; the
// request (made once per process: the flag) is defined once for the module.
// CHECK-LABEL: module
// CHECK:         llvm.mlir.global internal constant @__llmc_amx_state_message("llmc: Linux refused this process the AMX tile state
// CHECK-LABEL:   llvm.func @kernel
// CHECK-NEXT:      llvm.call @__llmc_request_amx_state() : () -> ()
// CHECK:           llvm.call_intrinsic "llvm.x86.tilezero.internal"
// CHECK-LABEL:   llvm.func @nested
// CHECK-NEXT:      llvm.call @__llmc_request_amx_state() : () -> ()
// CHECK-LABEL:   llvm.func @plain
// CHECK-NEXT:      llvm.return
// CHECK:         llvm.mlir.global internal @__llmc_amx_state_requested(0 : i8)
// CHECK-LABEL:   llvm.func internal @__llmc_request_amx_state()
// CHECK:           %[[FLAG:.+]] = llvm.mlir.addressof @__llmc_amx_state_requested : !llvm.ptr
// CHECK:           %[[DONE:.+]] = llvm.load %[[FLAG]] : !llvm.ptr -> i8
// CHECK:           llvm.icmp "eq" %[[DONE]]
// CHECK:           %[[SYS:.+]] = llvm.mlir.constant(158 : i64) : i64
// CHECK:           %[[REQ:.+]] = llvm.mlir.constant(4131 : i64) : i64
// CHECK:           %[[TILES:.+]] = llvm.mlir.constant(18 : i64) : i64
// CHECK:           llvm.call @syscall(%[[SYS]], %[[REQ]], %[[TILES]]) vararg(!llvm.func<i64 (i64, ...)>) : (i64, i64, i64) -> i64
// CHECK:           llvm.call @dprintf
// CHECK:           llvm.call @exit
// CHECK:           llvm.unreachable
// CHECK:           llvm.store %{{.+}}, %[[FLAG]] : i8, !llvm.ptr
module {
  llvm.func @kernel() {
    %r = llvm.mlir.constant(16 : i16) : i16
    %c = llvm.mlir.constant(64 : i16) : i16
    %t = llvm.call_intrinsic "llvm.x86.tilezero.internal"(%r, %c) : (i16, i16) -> !llvm.x86_amx
    llvm.return
  }
  llvm.func @nested(%p: i1) {
    llvm.cond_br %p, ^bb1, ^bb2
  ^bb1:
    %r = llvm.mlir.constant(16 : i16) : i16
    %c = llvm.mlir.constant(64 : i16) : i16
    %t = llvm.call_intrinsic "llvm.x86.tilezero.internal"(%r, %c) : (i16, i16) -> !llvm.x86_amx
    llvm.br ^bb2
  ^bb2:
    llvm.return
  }
  llvm.func @plain() {
    llvm.return
  }
}

// -----

// No AMX intrinsic: nothing is added.
// CHECK-LABEL: module
// CHECK-NOT:     __llmc_request_amx_state
// CHECK-NOT:     syscall
// CHECK:         llvm.func @plain_only
module {
  llvm.func @plain_only() {
    llvm.return
  }
}
