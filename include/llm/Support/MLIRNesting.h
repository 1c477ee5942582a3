//===- MLIRNesting.h - Nesting guard for MLIR source text -------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser recurses once or more per nesting level of attributes,
// types and regions, so a model of 200000 `[` (an array attribute) or
// `tuple<` overflows the stack. llmc, llm-opt and the C API check the
// nesting of MLIR text before they parse it.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_MLIRNESTING_H
#define LLM_SUPPORT_MLIRNESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::llm {

/// The most nesting levels llmc's tools parse (real models have fewer than
/// 50: regions, attribute arrays, types).
constexpr int64_t kMaxMLIRNesting = 1000;

/// The byte offset in MLIR source `text` of the bracket (or minus sign)
/// that first nests deeper than `maxDepth`, or none. Counted: `(`, `[`,
/// `{` and `<` (not `<=`), each closed by its partner (a closer that does
/// not match the innermost opener closes nothing, nor do `->` and `>=`),
/// plus the minus signs in a row at the innermost level (unary minus in
/// affine expressions). String literals (with their escapes) and `//`
/// comments are skipped. Linear in the text; parses nothing else. Depth
/// built through aliases (`#a1 = [#a0]`) is not seen.
std::optional<size_t> findMLIRNestingBeyond(llvm::StringRef text,
                                            int64_t maxDepth);

/// Why MLIR text `text` is not parsed: it nests more than kMaxMLIRNesting
/// levels as findMLIRNestingBeyond counts them (the message names the line
/// and column where), or none. Not for MLIR bytecode (its bytes are no
/// brackets).
std::optional<std::string> checkMLIRNesting(llvm::StringRef text);

} // namespace mlir::llm

#endif // LLM_SUPPORT_MLIRNESTING_H
