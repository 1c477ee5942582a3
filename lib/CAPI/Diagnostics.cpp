//===- Diagnostics.cpp - Diagnostics returned through C callbacks ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements DiagnosticCapture.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"

#include "llm/Support/ONNXLocations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::capi;

DiagnosticCapture::DiagnosticCapture(MLIRContext *ctx,
                                     MlirStringCallback callback,
                                     void *userData)
    : ctx(ctx), callback(callback), userData(userData) {
  if (ctx)
    handlerID = ctx->getDiagEngine().registerHandler(
        [this](Diagnostic &diag) -> LogicalResult {
          append(diag);
          return success();
        });
}

DiagnosticCapture::~DiagnosticCapture() {
  if (ctx)
    ctx->getDiagEngine().eraseHandler(handlerID);
  flush();
}

/// Writes `loc` as `file:line:col` when it has a file location, else in
/// MLIR's location syntax without the `loc(...)` wrapper.
static void printLocation(Location loc, llvm::raw_ostream &os) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
    return;
  }
  if (isa<UnknownLoc>(loc)) {
    os << "<unknown>";
    return;
  }
  std::string text;
  llvm::raw_string_ostream ls(text);
  loc.print(ls);
  llvm::StringRef ref(text);
  if (ref.consume_front("loc(") && ref.consume_back(")"))
    os << ref;
  else
    os << text;
}

static llvm::StringRef getSeverityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

void DiagnosticCapture::append(Diagnostic &diag) {
  llvm::raw_string_ostream os(text);
  auto print = [&](Diagnostic &d) {
    // An op the ONNX importer made: its nodes, not the raw location, as
    // llmc prints them (`error: ONNX node 'n' (MatMul): ...`).
    std::string message = d.str();
    std::string nodes =
        d.getSeverity() == DiagnosticSeverity::Note ||
                d.getLocation()->findInstanceOf<FileLineColLoc>()
            ? ""
            : describeONNXNodes(d.getLocation(), message);
    if (nodes.empty()) {
      printLocation(d.getLocation(), os);
      os << ": ";
    }
    os << getSeverityName(d.getSeverity()) << ": " << nodes << message << "\n";
  };
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  if (diag.getSeverity() == DiagnosticSeverity::Error)
    errorSeen = true;
}

void DiagnosticCapture::addError(const llvm::Twine &message) {
  text += ("error: " + message + "\n").str();
  errorSeen = true;
}

void DiagnosticCapture::flush() {
  if (!text.empty() && callback)
    callback(MlirStringRef{text.data(), text.size()}, userData);
  text.clear();
}
