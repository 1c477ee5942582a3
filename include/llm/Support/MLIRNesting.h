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
// nesting of MLIR text before they parse it. Depth the text does not show
// (aliases: `#a1 = [#a0]`, `#a2 = [#a1]`, ...; MLIR bytecode) parses, but
// overflows the stack of MLIR's printers, walkers and verifiers; the
// parsed IR is checked as well (checkIRNesting).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_MLIRNESTING_H
#define LLM_SUPPORT_MLIRNESTING_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Location;
class Operation;
} // namespace mlir

namespace mlir::llm {

/// The most nesting levels llmc's tools parse (real models have fewer than
/// 50: regions, attribute arrays, types).
constexpr int64_t kMaxMLIRNesting = 1000;

/// The most elements an attribute, type or location may expand to when its
/// shared parts (aliases, uniqued sub-elements used twice) are written out
/// once per use, as MLIR's printers and llmc's diagnostics do: a chain of
/// 500 `tuple<!prev, !prev>` aliases is 500 levels deep but 2^500 elements.
constexpr uint64_t kMaxExpandedElements = uint64_t(1) << 24;

/// The stack of the thread runWithParserStack parses on, in bytes (mapped,
/// not committed: only what the parser uses is; small enough for the
/// kernel's overcommit heuristic on a machine of 1 GiB). MLIR's parsers
/// recurse per nesting level (about 560 bytes per level of an affine
/// expression: some 480000 levels fit); text is bounded before it is
/// parsed, but attributes and types that MLIR bytecode stores as text (an
/// affine map, a dialect's attribute without a bytecode encoding) are not.
constexpr unsigned kParserStackBytes = 256u << 20;

/// Runs `fn` (a parse) on a thread with a stack of kParserStackBytes and
/// waits for it, so that input nested deeper than the main thread's stack
/// holds is parsed, then refused by checkIRNesting, instead of overflowing.
void runWithParserStack(llvm::function_ref<void()> fn);

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

/// Why the MLIR in `buffer` is not parsed: its text nests more than
/// kMaxMLIRNesting levels as findMLIRNestingBeyond counts them (the message
/// names the line and column where), or none. MLIR bytecode (its bytes are
/// no brackets) is not scanned: none; check what it parses to with
/// checkIRNesting.
std::optional<std::string> checkMLIRNesting(llvm::MemoryBufferRef buffer);

/// Why the parsed IR under `root` (itself included) is refused: an op
/// nests more than `maxDepth` levels, counting the regions it sits in
/// below `root` plus the depth of what it holds (its attributes, inherent
/// ones included, its result and block argument types, and its location):
/// an attribute, type or location with no sub-element is 1 level, one with
/// sub-elements (an array's elements, a tuple's types, a call site's
/// callee and caller, an affine map's expressions) 1 more than its deepest.
/// Such IR parses from aliases or bytecode but overflows the stack of
/// MLIR's recursive printers and walkers. Also refused: an attribute, type
/// or location that expands to more than kMaxExpandedElements elements
/// (`it holds an attribute, type or location of more than 16777216
/// elements once its shared parts are written out (op ...)`), which those
/// printers would write out for hours. The message names the first such op in
/// pre-order and, when its location holds a file location, the line and column
/// (`it nests more than 1000 levels deep (op 'func.func' at line 3,
/// column 1)`); none when the IR is within bounds. When `at` is given, it
/// receives that op's location, or an unknown location when the location
/// is itself too deep to print. Iterative (no recursion per level); each
/// distinct attribute or type is measured once.
std::optional<std::string> checkIRNesting(mlir::Operation *root,
                                          int64_t maxDepth = kMaxMLIRNesting,
                                          mlir::Location *at = nullptr);

} // namespace mlir::llm

#endif // LLM_SUPPORT_MLIRNESTING_H
