//===- JSON.h - Guards for JSON read from files -----------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llvm::json::parse recurses once per nesting level, so a file of 100000
// `[` overflows the stack. Files llmc reads (tuning caches, calibration
// tables, tokenizer files, compile-cache entries) have a few levels: their
// parsers check the nesting first.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_JSON_H
#define LLM_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::llm {

/// Whether the arrays and objects of the JSON `text` nest more than
/// `maxDepth` levels deep (brackets inside strings, with their escapes, do
/// not count). Linear in the text; does not parse it otherwise.
bool exceedsJSONDepth(llvm::StringRef text, int64_t maxDepth);

} // namespace mlir::llm

#endif // LLM_SUPPORT_JSON_H
