//===- Passes.h - llm code generation passes --------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_PASSES_H
#define LLM_CODEGEN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::llm {

#define GEN_PASS_DECL
#include "llm/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "llm/Codegen/Passes.h.inc"

/// `void __llmc_out_of_memory(int64_t bytes)`: what the allocation functions
/// of llm-check-allocations call when `malloc` returns null. It must not
/// return; llmc's runtime defines it (llm/Runtime/OutOfMemory.h).
inline constexpr llvm::StringLiteral kOutOfMemoryHandlerName =
    "__llmc_out_of_memory";

} // namespace mlir::llm

#endif // LLM_CODEGEN_PASSES_H
