//===- BackendWorkarounds.h - LLVM IR rewrites for backend bugs -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rewrites of optimized LLVM IR that steer the code generator of Debian's
// LLVM 22 around instructions it cannot select. Each rewrite keeps the
// IR's meaning; it only changes the types the backend sees.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_BACKENDWORKAROUNDS_H
#define LLM_RUNTIME_BACKENDWORKAROUNDS_H

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::llm::runtime {

/// Moves every `shufflevector` and `extractelement` whose vector operand is a
/// bf16 vector of a length that is not a power of two (`<9 x bfloat>`,
/// `<25 x bfloat>`) onto `i16` lanes, with bitcasts around it: the X86
/// backend of LLVM 22 aborts on these ("Do not know how to soft promote this
/// operator's operand!") on AVX512-BF16 targets (znver4/5, sapphirerapids).
/// The loop vectorizer makes them from strided scalar bf16 loads (the
/// `--no-opt` matmul of a transposed bf16 operand), so the IR llmc emits has
/// them only after LLVM's own optimization; run this after it and before
/// code generation. Moving bf16 bits through i16 lanes is exact (a shuffle or
/// an extract does no arithmetic). Returns the number of rewritten
/// instructions.
unsigned legalizeOddBF16VectorAccesses(llvm::Module &module);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_BACKENDWORKAROUNDS_H
