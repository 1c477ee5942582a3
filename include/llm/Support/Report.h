//===- Report.h - Figures for llmc's compile report -------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Passes that want a figure in `llmc compile --report` record it as an integer
// entry of the `llm.report` dictionary attribute on the top-level module. The
// driver prints every entry. Keys are snake_case; units are part of the key
// (`*_bytes`) or documented by the pass that records it.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_REPORT_H
#define LLM_SUPPORT_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace mlir::llm {

/// Name of the module attribute holding the report dictionary.
inline constexpr llvm::StringLiteral kReportAttrName = "llm.report";

/// Sets `key` to `value` in the `llm.report` dictionary of `module` (creating
/// the dictionary; an existing entry of the same key is replaced).
void recordReportValue(ModuleOp module, llvm::StringRef key, int64_t value);

/// Adds `value` to the entry `key` (0 when absent).
void accumulateReportValue(ModuleOp module, llvm::StringRef key,
                           int64_t value);

/// The integer entry `key` of the `llm.report` dictionary of `module`, if
/// any.
std::optional<int64_t> getReportValue(ModuleOp module, llvm::StringRef key);

/// Sets `key` to `value` (any attribute: an array of dictionaries for
/// per-kernel figures) in the `llm.report` dictionary of `module`.
void recordReportAttr(ModuleOp module, llvm::StringRef key, Attribute value);

/// The entry `key` of the `llm.report` dictionary of `module`, or null.
Attribute getReportAttr(ModuleOp module, llvm::StringRef key);

/// `attr` as JSON: integers and strings as themselves, arrays (ArrayAttr,
/// DenseI64ArrayAttr) as arrays, dictionaries as objects, anything else as
/// its printed form (a string).
llvm::json::Value reportAttrToJSON(Attribute attr);

/// Returns the entries of the `llm.report` dictionary of `module`, sorted by
/// key. Entries that are not integers are skipped.
llvm::SmallVector<std::pair<std::string, int64_t>>
getReportValues(ModuleOp module);

} // namespace mlir::llm

#endif // LLM_SUPPORT_REPORT_H
