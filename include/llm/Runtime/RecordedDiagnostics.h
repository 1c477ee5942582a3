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

#include <optional>
#include <string>
#include <vector>

namespace mlir::llm::runtime {

/// One diagnostic: its severity, location, message and attached notes. The
/// location is kept as JSON (below), apart from any context: file
/// locations (strict FileLineColLoc or a FileLineColRange), names, call
/// sites and fused locations (with their metadata attribute) keep their
/// structure; an opaque location keeps its fallback; others become unknown.
/// A file location in the model itself is kept without its file name (the
/// cache key is the model's content, not its path): it names the model
/// that is loaded when the diagnostic is emitted again.
struct RecordedDiagnostic {
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  llvm::json::Value location = nullptr;
  std::string message;
  std::vector<RecordedDiagnostic> notes;
};

/// Records, for its lifetime, the warnings and remarks (with their notes)
/// emitted in `ctx`. It does not consume them: the handlers installed
/// before it still print them. Errors are not recorded (a failed
/// compilation is not cached). `modelName` is the file name that the
/// model's own locations carry (its path, or the source name of MLIR text;
/// empty: none).
class DiagnosticRecorder {
public:
  DiagnosticRecorder(MLIRContext &ctx, llvm::StringRef modelName);
  ~DiagnosticRecorder();
  DiagnosticRecorder(const DiagnosticRecorder &) = delete;
  DiagnosticRecorder &operator=(const DiagnosticRecorder &) = delete;

  /// The diagnostics recorded so far, in emission order.
  llvm::ArrayRef<RecordedDiagnostic> getDiagnostics() const {
    return diagnostics;
  }

private:
  /// Whether `file` is the model's own: its name, unless the model's file
  /// itself quotes that name (a `loc("NAME":...)` written in it, as in a
  /// debug-info copy of another file: such locations may mean the other
  /// file, and keep the name). The file is read once, when first needed.
  bool isModelFile(llvm::StringRef file);

  MLIRContext &ctx;
  std::string modelName;
  std::optional<bool> modelNamesItself;
  DiagnosticEngine::HandlerID handlerID;
  std::vector<RecordedDiagnostic> diagnostics;
};

/// Emits `diagnostics` again in `ctx`, in order, with their notes and
/// their locations rebuilt, so that a handler prints them as it printed
/// the originals; locations in the model name `modelName` (the model now
/// loaded, which may be a copy of the one compiled at another path).
void replayDiagnostics(MLIRContext &ctx,
                       llvm::ArrayRef<RecordedDiagnostic> diagnostics,
                       llvm::StringRef modelName);

/// JSON form of `diagnostics`: an array of objects with "severity"
/// ("warning" or "remark"; "note" for notes), "location" (null: unknown;
/// {"file", "line", "column"} and for a range "end_line", "end_column",
/// with "model": true instead of "file" in the model itself; {"name",
/// "child"}; {"callee", "caller"}; {"fused": [...], "metadata": the
/// attribute as text, when one}), "message" (invalid UTF-8 replaced by
/// U+FFFD, as JSON needs) and "notes" (none in a note).
llvm::json::Array
diagnosticsToJSON(llvm::ArrayRef<RecordedDiagnostic> diagnostics);

/// Parses diagnosticsToJSON's form; false (and `diagnostics` unspecified)
/// when `array` is not of that form. Locations are not checked: a part not
/// of the form is an unknown location when emitted.
bool diagnosticsFromJSON(const llvm::json::Array &array,
                         std::vector<RecordedDiagnostic> &diagnostics);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_RECORDEDDIAGNOSTICS_H
