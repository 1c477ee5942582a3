//===- Diagnostics.h - Diagnostics returned through C callbacks -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private helper of the llmc C API: captures the diagnostics emitted in a
// context while a C API call runs and hands them to the caller's
// MlirStringCallback (the convention of llm-c/Support.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CAPI_DIAGNOSTICS_H
#define LLM_LIB_CAPI_DIAGNOSTICS_H

#include "mlir-c/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace mlir::llm::capi {

/// Collects, for its lifetime, every diagnostic emitted in a context (they
/// are not printed to stderr) as `LOCATION: SEVERITY: MESSAGE` lines, plus
/// errors added directly; `flush` (also run by the destructor) passes the
/// text to the callback.
class DiagnosticCapture {
public:
  /// `ctx` may be null: only `addError` text is collected then.
  DiagnosticCapture(MLIRContext *ctx, MlirStringCallback callback,
                    void *userData);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  /// Appends `error: MESSAGE` (no location) to the text.
  void addError(const llvm::Twine &message);
  /// True when an error was captured or added.
  bool hadError() const { return errorSeen; }
  /// Passes the collected text (if any) to the callback and clears it.
  void flush();

private:
  void append(Diagnostic &diag);

  MLIRContext *ctx;
  DiagnosticEngine::HandlerID handlerID = 0;
  MlirStringCallback callback;
  void *userData;
  std::string text;
  bool errorSeen = false;
};

} // namespace mlir::llm::capi

#endif // LLM_LIB_CAPI_DIAGNOSTICS_H
