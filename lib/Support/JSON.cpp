//===- JSON.cpp - Guards for JSON read from files -------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/JSON.h"

bool mlir::llm::exceedsJSONDepth(llvm::StringRef text, int64_t maxDepth) {
  int64_t depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      depth++;
    else if (c == ']' || c == '}')
      depth--;
    if (depth > maxDepth)
      return true;
  }
  return false;
}
