//===- ConstantBytes.h - Large constants as byte arrays ---------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CONSTANTBYTES_H
#define LLM_RUNTIME_CONSTANTBYTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class Module;
class raw_ostream;
class raw_pwrite_stream;
class WritableMemoryBuffer;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::llm::runtime {

/// Retypes every constant `llvm.mlir.global` of `module` (in the LLVM
/// dialect) whose value is a `dense_resource` of numbers (f32, f16, bf16,
/// f64, i16/i32/i64: the weights) as `!llvm.array<N x i8>` over the same
/// resource blob, N its size in bytes; the blob is shared, not copied.
/// Returns the number of globals retyped.
///
/// Why: a multi-dimensional global translates to nested LLVM arrays built
/// row by row, and LLVM's AsmPrinter writes an i8 array with one
/// `emitBytes` call but any other element type one element at a time (an
/// APFloat conversion and an alignment query each): GPT-2-small's 124M
/// weights took most of its 19 s compile that way. With opaque pointers a
/// global's value type only shapes its initializer (loads and GEPs carry
/// their own types), so the code is unchanged; the alignment stays that of
/// the old element type.
unsigned packConstantsAsBytes(ModuleOp module);

/// Frees the `dense_resource` blobs of the constant `llvm.mlir.global`s of
/// `module` (they read as empty afterwards): for a driver that has
/// translated the module to LLVM IR (which holds its own copy) and will not
/// use it again, so that the weights are not held twice through LLVM
/// codegen. Blobs whose data starts at one of `keep` stay (the bytes of
/// constants `deferConstants` moved out, which another global may share).
/// Returns the bytes freed.
uint64_t releaseConstantBlobs(ModuleOp module,
                              llvm::ArrayRef<const char *> keep = {});

/// A constant that `externalizeConstants` moved out of a module: the
/// external symbol that names it and where its bytes are.
struct ExternalConstant {
  /// The `llvm.mlir.global`'s symbol, now an external declaration.
  std::string symbol;
  /// Byte offset of the value in the constants' buffer (a multiple of 64).
  uint64_t offset = 0;
  /// Size of the value in bytes.
  uint64_t size = 0;
};

/// Moves the values of the constant `llvm.mlir.global`s of `module` (in the
/// LLVM dialect) whose value is a `dense_resource` of at least `minBytes`
/// bytes out of the module, for a JIT that defines their symbols at the
/// address of the bytes instead of copying them through LLVM IR, the object
/// file and the JIT's memory (GPT-2-small: 650 MB three times). Each such
/// global becomes an external declaration of the same symbol and type
/// (`llvm.mlir.global external constant @w() : !llvm.array<...>`); its
/// bytes are copied to one buffer, each at an offset aligned to 64 bytes
/// (and to the global's alignment, at most 4096: a global that asks for
/// more stays in the module), with zeros between them. The buffer itself is
/// aligned to the largest of these alignments, and a copy of it placed on a
/// page boundary (the compile cache's mapped entry) keeps every alignment.
///
/// Globals with equal bytes share one copy (one offset; found by an xxh3
/// hash of the bytes, then compared).
///
/// Appends the moved constants to `constants` in buffer order and returns
/// the buffer (null when nothing was moved). The module's resource blobs
/// are left as they are (other modules may share them).
std::unique_ptr<llvm::WritableMemoryBuffer>
externalizeConstants(ModuleOp module,
                     llvm::SmallVectorImpl<ExternalConstant> &constants,
                     uint64_t minBytes = 4096);

/// A constant whose bytes `deferConstants` left out of a module: the symbol
/// of its global and its bytes (owned by the module's resource blob, which
/// must outlive the patching).
struct DeferredConstant {
  std::string symbol;
  llvm::ArrayRef<char> bytes;
};

/// For an object file written without copying the weights through LLVM IR
/// and the MC layer (GPT-2-small: 650 MB, copied twice there, and written
/// as zeros 16 bytes at a time had they stayed in the module): gives each
/// constant `llvm.mlir.global` of `module` (in the LLVM dialect) whose
/// value is a `dense_resource` of at least `minBytes` bytes a zero
/// initializer (an `llvm.mlir.zero` region) in the section
/// `kDeferredSection`, which codegen emits as `SHT_NOBITS` (no file
/// space); marks it `externally_initialized` (LLVM then folds no load of
/// it and merges it with no other global) and gives it internal linkage (a
/// local symbol in the symbol table, not an assembler-private one), keeping
/// its type and alignment. `appendDeferredConstants` then puts the bytes
/// into the object. Appends the globals to `constants`.
void deferConstants(ModuleOp module,
                    llvm::SmallVectorImpl<DeferredConstant> &constants,
                    uint64_t minBytes = 4096);

/// The section `deferConstants` puts the weights in. Once
/// `appendDeferredConstants` has given it contents, its name reads from
/// the fifth character: `.rodata.llmc_weights` (a suffix of the same
/// string-table entry), which linkers place with `.rodata`.
inline constexpr llvm::StringLiteral kDeferredSection =
    ".bss.rodata.llmc_weights";

/// Completes the relocatable 64-bit little-endian ELF object `object` (as
/// emitted for a module prepared by `deferConstants`, already written to
/// `os`, which is positioned at its end): appends the section
/// `kDeferredSection`'s contents (each of `constants` at its symbol's
/// offset, zeros elsewhere) at the end of the file, aligned to the
/// section's alignment, and rewrites the section's header through
/// `os.pwrite`: `SHT_PROGBITS`, read-only (`SHF_ALLOC`, and
/// `SHF_X86_64_LARGE` if set), the new file offset and the name
/// `.rodata.llmc_weights`. Fails (naming the symbol) when the object is not
/// 64-bit little-endian ELF, or a constant's symbol is not in the section.
llvm::Error
appendDeferredConstants(llvm::MemoryBufferRef object,
                        llvm::ArrayRef<DeferredConstant> constants,
                        llvm::raw_pwrite_stream &os);

/// Reserves room in `os` (a raw_svector_ostream) for the object file of
/// `module`: at least the bytes of its global initializers, so that a large
/// model's object is not copied on every growth of the buffer.
void reserveObjectSpace(const llvm::Module &module, llvm::raw_ostream &os);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CONSTANTBYTES_H
