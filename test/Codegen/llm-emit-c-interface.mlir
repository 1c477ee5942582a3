// RUN: llm-opt %s --llm-emit-c-interface | FileCheck %s
// RUN: llm-opt %s --llm-emit-c-interface --llm-emit-c-interface | FileCheck %s
// RUN: llm-opt %s --llm-emit-c-interface --convert-func-to-llvm | FileCheck %s --check-prefix=LLVM

// Public definitions are marked; private functions and declarations are not.
// CHECK-LABEL: func.func @public(
// CHECK-SAME:  attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func private @private(
// CHECK-NOT:   llvm.emit_c_interface
// CHECK-LABEL: func.func private @decl(
// CHECK-NOT:   llvm.emit_c_interface

// LLVM-LABEL: llvm.func @public(
// LLVM-LABEL: llvm.func @_mlir_ciface_public(
// LLVM-SAME:  %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-NOT:   _mlir_ciface_private
// LLVM-NOT:   _mlir_ciface_decl

func.func @public(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  call @private(%a, %b) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}

func.func private @private(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  call @decl() : () -> ()
  return
}

func.func private @decl()
