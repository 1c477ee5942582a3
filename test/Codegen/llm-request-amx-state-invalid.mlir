// RUN: llm-opt %s -llm-request-amx-state -split-input-file -verify-diagnostics

// The request's globals have reserved names: another symbol with one is an
// error, not a redefinition.
module {
  // expected-error @+1 {{llm-request-amx-state: '__llmc_amx_state_message' is already defined}}
  llvm.mlir.global internal constant @__llmc_amx_state_message("hi\00") {addr_space = 0 : i32}
  llvm.func @kernel() {
    %r = llvm.mlir.constant(16 : i16) : i16
    %c = llvm.mlir.constant(64 : i16) : i16
    %t = llvm.call_intrinsic "llvm.x86.tilezero.internal"(%r, %c) : (i16, i16) -> !llvm.x86_amx
    llvm.return
  }
}

// -----

// A request function of another signature.
module {
  // expected-error @+1 {{llm-request-amx-state: '__llmc_request_amx_state' is declared with another signature}}
  llvm.func @__llmc_request_amx_state(i32)
  llvm.func @kernel() {
    %r = llvm.mlir.constant(16 : i16) : i16
    %c = llvm.mlir.constant(64 : i16) : i16
    %t = llvm.call_intrinsic "llvm.x86.tilezero.internal"(%r, %c) : (i16, i16) -> !llvm.x86_amx
    llvm.return
  }
}
