//===- MLIRNesting.cpp - Nesting guard for MLIR source text ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/MLIRNesting.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

std::optional<size_t> mlir::llm::findMLIRNestingBeyond(llvm::StringRef text,
                                                       int64_t maxDepth) {
  llvm::SmallVector<char> open;
  // Unary minus signs in a row (`- - d0` in an affine expression): the
  // parser recurses once per sign.
  int64_t minuses = 0;
  bool inString = false, escaped = false, inComment = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inComment) {
      inComment = c != '\n';
      continue;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"' || c == '\n')
        inString = false;
      continue;
    }
    if (c == '-' && !(i + 1 < e && text[i + 1] == '>')) {
      if (int64_t(open.size()) + ++minuses > maxDepth)
        return i;
      continue;
    }
    if (!llvm::isSpace(c))
      minuses = 0;
    char closer = 0;
    switch (c) {
    case '"':
      inString = true;
      continue;
    case '/':
      inComment = i + 1 < e && text[i + 1] == '/';
      continue;
    case '(':
      closer = ')';
      break;
    case '[':
      closer = ']';
      break;
    case '{':
      closer = '}';
      break;
    case '<':
      // A type's or attribute's parameters (also after a space: `tuple
      // <i32>`); `<=` is no opener.
      if (!(i + 1 < e && text[i + 1] == '='))
        closer = '>';
      break;
    case '-':
      // `->` (function types, affine maps) closes nothing.
      ++i;
      continue;
    case '>':
      // Nor does `>=` (integer sets).
      if (i + 1 < e && text[i + 1] == '=')
        continue;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (!open.empty() && open.back() == c)
        open.pop_back();
      continue;
    default:
      continue;
    }
    if (!closer)
      continue;
    open.push_back(closer);
    if (int64_t(open.size()) > maxDepth)
      return i;
  }
  return std::nullopt;
}

std::optional<std::string> mlir::llm::checkMLIRNesting(llvm::StringRef text) {
  std::optional<size_t> at = findMLIRNestingBeyond(text, kMaxMLIRNesting);
  if (!at)
    return std::nullopt;
  llvm::StringRef before = text.take_front(*at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      *at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return "it nests more than " + std::to_string(kMaxMLIRNesting) +
         " levels deep (line " + std::to_string(line) + ", column " +
         std::to_string(column) + ")";
}
