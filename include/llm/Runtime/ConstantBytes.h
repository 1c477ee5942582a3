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
} // namespace llvm

namespace mlir::llm::runtime {

/// Rewrites every global constant of `module` whose initializer is a (nested)
/// array of `minBytes` or more bytes of numbers (ConstantDataArray of float,
/// half, i32, ..., or ConstantArray of them for a multi-dimensional
/// memref.global; weights from `dense_resource` blobs) into a global of the
/// same bytes typed `[N x i8]`, with the same name, alignment, linkage and
/// uses. Zero initializers and other constants are left alone.
///
/// Why: LLVM's AsmPrinter writes an i8 array with one `emitBytes` call but
/// any other element type one element at a time (an APFloat conversion and
/// alignment query each): 124M float weights of a GPT-2-small took most of
/// its 19 s compile. With opaque pointers a global's value type only shapes
/// its initializer; loads and GEPs carry their own types, so the code is
/// unchanged. Returns the number of globals rewritten.
unsigned packConstantsAsBytes(llvm::Module &module, uint64_t minBytes = 4096);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CONSTANTBYTES_H
