// RUN: llm-opt %s --split-input-file --llm-check-allocations --verify-diagnostics | FileCheck %s

// The generic allocation functions of finalize-memref-to-llvm
// {use-generic-functions=true} get bodies: malloc / aligned_alloc with a null
// check (a non-empty request that returns null calls __llmc_out_of_memory, which does
// not return), free; weak linkage.
// CHECK-LABEL: llvm.func weak @_mlir_memref_to_llvm_alloc(
// CHECK-SAME:      %[[N:.*]]: i64) -> !llvm.ptr
// CHECK:         %[[P:.*]] = llvm.call @malloc(%[[N]]) : (i64) -> !llvm.ptr
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[ISNULL:.*]] = llvm.icmp "eq" %[[P]], %[[NULL]]
// CHECK:         %[[NONEMPTY:.*]] = llvm.icmp "ne" %[[N]], %[[ZERO]]
// CHECK:         %[[FAIL:.*]] = llvm.and %[[ISNULL]], %[[NONEMPTY]]
// CHECK:         llvm.cond_br %[[FAIL]], ^[[OOM:.*]], ^[[OK:.*]]
// CHECK:       ^[[OOM]]:
// CHECK-NEXT:    llvm.call @__llmc_out_of_memory(%[[N]])
// CHECK-NEXT:    llvm.unreachable
// CHECK:       ^[[OK]]:
// CHECK-NEXT:    llvm.return %[[P]]
// CHECK-LABEL: llvm.func weak @_mlir_memref_to_llvm_aligned_alloc(
// CHECK-SAME:      %[[A:.*]]: i64, %[[M:.*]]: i64) -> !llvm.ptr
// CHECK:         %[[Q:.*]] = llvm.call @aligned_alloc(%[[A]], %[[M]])
// CHECK:         llvm.icmp "eq" %[[Q]]
// CHECK:         llvm.icmp "ne" %[[M]]
// CHECK:         llvm.call @__llmc_out_of_memory(%[[M]])
// CHECK-LABEL: llvm.func weak @_mlir_memref_to_llvm_free(
// CHECK-SAME:      %[[F:.*]]: !llvm.ptr)
// CHECK-NEXT:    llvm.call @free(%[[F]])
// CHECK-NEXT:    llvm.return
// The handler, weak (the program's or llmc runtime's definition wins):
// a message on standard error and exit(1).
// CHECK-LABEL: llvm.func weak @__llmc_out_of_memory(
// CHECK-SAME:      %[[B:.*]]: i64)
// CHECK:         llvm.call @dprintf({{.*}}, %[[B]])
// CHECK:         llvm.call @exit(
// CHECK-NEXT:    llvm.unreachable
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
  llvm.func @f(%n: i64) {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    %c64 = llvm.mlir.constant(64 : i64) : i64
    %q = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
    llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
    llvm.call @_mlir_memref_to_llvm_free(%q) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// A function the program defines itself is kept; nothing is added for it.
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_alloc(
// CHECK-NEXT:    llvm.call @my_alloc
// CHECK-NOT:   __llmc_out_of_memory
// CHECK-NOT:   @malloc
module {
  llvm.func @my_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_alloc(%n: i64) -> !llvm.ptr {
    %p = llvm.call @my_alloc(%n) : (i64) -> !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}

// -----

// A module without the generic functions is unchanged.
// CHECK-LABEL: llvm.func @g()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK-NEXT: }
module {
  llvm.func @g() {
    llvm.return
  }
}

// -----

// A handler the module defines is kept (and called).
// CHECK-LABEL: llvm.func @__llmc_out_of_memory(
// CHECK-NEXT:    llvm.return
// CHECK-NOT:   @dprintf
// CHECK:       llvm.call @__llmc_out_of_memory
module {
  llvm.func @__llmc_out_of_memory(%n: i64) {
    llvm.return
  }
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
}

// -----

module {
  // expected-error @+1 {{llm-check-allocations: '__llmc_out_of_memory' is declared with another signature}}
  llvm.func @__llmc_out_of_memory(i32)
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
}

// -----

module {
  // expected-error @+1 {{llm-check-allocations: unexpected signature of '_mlir_memref_to_llvm_alloc': '!llvm.func<ptr (i32)>'}}
  llvm.func @_mlir_memref_to_llvm_alloc(i32) -> !llvm.ptr
}

// -----

module {
  // expected-error @+1 {{redefinition of reserved function 'malloc' of different type '!llvm.func<ptr (i32)>' is prohibited}}
  llvm.func @malloc(i32) -> !llvm.ptr
  // expected-error @+1 {{llm-check-allocations: 'malloc' is declared with another signature}}
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
}
