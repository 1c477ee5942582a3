//===- RecordedDiagnostics.h - Compile diagnostics of a model --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The warnings and remarks that compiling a model emitted (an unsupported
// sparse format, a weight left dense, ...), recorded so that the compile
// cache can store them with the compiled model and emit them again when a
// later run loads the model from the cache instead of compiling it: the
// user sees the same diagnostics on every run, not only on the first.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_RECORDEDDIAGNOSTICS_H
#define LLM_RUNTIME_RECORDEDDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::llm::runtime {

/// One diagnostic: its severity, location, message and attached notes. The
/// location is kept as JSON (below), apart from any context: file
/// locations (strict FileLineColLoc or a FileLineColRange), names, call
/// sites and fused locations (without metadata) keep their structure; an
/// opaque location keeps its fallback; others become unknown.
struct RecordedDiagnostic {
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  llvm::json::Value location = nullptr;
  std::string message;
  std::vector<RecordedDiagnostic> notes;
};

/// Records, for its lifetime, the warnings and remarks (with their notes)
/// emitted in `ctx`. It does not consume them: the handlers installed
/// before it still print them. Errors are not recorded (a failed
/// compilation is not cached).
class DiagnosticRecorder {
public:
  explicit DiagnosticRecorder(MLIRContext &ctx);
  ~DiagnosticRecorder();
  DiagnosticRecorder(const DiagnosticRecorder &) = delete;
  DiagnosticRecorder &operator=(const DiagnosticRecorder &) = delete;

  /// The diagnostics recorded so far, in emission order.
  llvm::ArrayRef<RecordedDiagnostic> getDiagnostics() const {
    return diagnostics;
  }

private:
  MLIRContext &ctx;
  DiagnosticEngine::HandlerID handlerID;
  std::vector<RecordedDiagnostic> diagnostics;
};

/// Emits `diagnostics` again in `ctx`, in order, with their notes and
/// their locations rebuilt, so that a handler prints them as it printed
/// the originals.
void replayDiagnostics(MLIRContext &ctx,
                       llvm::ArrayRef<RecordedDiagnostic> diagnostics);

/// JSON form of `diagnostics`: an array of objects with "severity"
/// ("warning", "remark" or "note"), "location" (null: unknown; {"file",
/// "line", "column"} and for a range "end_line", "end_column"; {"name",
/// "child"}; {"callee", "caller"}; {"fused": [...]}), "message" and
/// "notes".
llvm::json::Array
diagnosticsToJSON(llvm::ArrayRef<RecordedDiagnostic> diagnostics);

/// Parses diagnosticsToJSON's form; false (and `diagnostics` unspecified)
/// when `array` is not of that form.
bool diagnosticsFromJSON(const llvm::json::Array &array,
                         std::vector<RecordedDiagnostic> &diagnostics);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_RECORDEDDIAGNOSTICS_H
