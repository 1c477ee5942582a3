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
      // A type or attribute's parameters follow its name; `<=` and a
      // spaced comparison are not openers.
      if (i > 0 && (llvm::isAlnum(text[i - 1]) ||
                    llvm::is_contained("_.$", text[i - 1])))
        closer = '>';
      break;
    case '-':
      // `->` (function types, affine maps) closes nothing.
      if (i + 1 < e && text[i + 1] == '>')
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
  return "its brackets nest more than " + std::to_string(kMaxMLIRNesting) +
         " levels deep (line " + std::to_string(line) + ", column " +
         std::to_string(column) + ")";
}
