//===- ConstantBytes.h - Large constants as byte arrays ---------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CONSTANTBYTES_H
#define LLM_RUNTIME_CONSTANTBYTES_H

#include <cstdint>

namespace llvm {
class Module;
class raw_ostream;
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
/// codegen. Returns the bytes freed.
uint64_t releaseConstantBlobs(ModuleOp module);

/// Reserves room in `os` (a raw_svector_ostream) for the object file of
/// `module`: at least the bytes of its global initializers, so that a large
/// model's object is not copied on every growth of the buffer.
void reserveObjectSpace(const llvm::Module &module, llvm::raw_ostream &os);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CONSTANTBYTES_H
