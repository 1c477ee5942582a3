//===- ImportONNX.cpp - ONNX importer C API -------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm-c/ImportONNX.h over llm/Target/ONNX/ImportONNX.h
// (or, without libonnx-dev, functions that report the missing importer).
//
//===----------------------------------------------------------------------===//

#include "llm-c/ImportONNX.h"
#include "Diagnostics.h"
#include "Runtime.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#if LLMC_HAVE_ONNX
#include "llm/Target/ONNX/ImportONNX.h"
#endif

using namespace mlir;
using mlir::llm::capi::DiagnosticCapture;

bool llmcHasONNXImporter(void) { return LLMC_HAVE_ONNX; }

#if LLMC_HAVE_ONNX
/// Parses `dims` into `options`; adds an error to `diags` when malformed.
static bool parseDims(StringRef dims, llm::ImportOptions &options,
                      DiagnosticCapture &diags) {
  if (dims.trim().empty())
    return true;
  std::string error;
  if (llm::parseDimSpec(dims, options, error))
    return true;
  diags.addError("invalid dimension values '" + dims + "': " + error);
  return false;
}
#endif

OwningOpRef<ModuleOp>
mlir::llm::capi::importONNXFile(MLIRContext *ctx, StringRef file,
                                StringRef dims, DiagnosticCapture &diags) {
#if LLMC_HAVE_ONNX
  llm::ImportOptions options;
  if (!parseDims(dims, options, diags))
    return nullptr;
  if (!llvm::sys::fs::is_regular_file(file)) {
    diags.addError(
        "cannot open ONNX model '" + file + "': " +
        (llvm::sys::fs::exists(file) ? "not a regular file" : "no such file"));
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = llm::importONNXModel(file, ctx, options);
  if (!module && !diags.hadError())
    diags.addError("cannot import ONNX model '" + file + "'");
  return module;
#else
  (void)ctx;
  (void)dims;
  diags.addError("cannot import '" + file +
                 "': llmc was built without the ONNX importer (libonnx-dev)");
  return nullptr;
#endif
}

MlirModule llmcImportONNXFile(MlirContext ctx, MlirStringRef path,
                              MlirStringRef dims, MlirStringCallback onError,
                              void *userData) {
  DiagnosticCapture diags(unwrap(ctx), onError, userData);
  return wrap(
      llm::capi::importONNXFile(unwrap(ctx), unwrap(path), unwrap(dims), diags)
          .release());
}

MlirModule llmcImportONNXBuffer(MlirContext ctx, MlirStringRef bytes,
                                MlirStringRef name, MlirStringRef dims,
                                MlirStringCallback onError, void *userData) {
  DiagnosticCapture diags(unwrap(ctx), onError, userData);
  StringRef modelName = unwrap(name);
  if (modelName.empty())
    modelName = "<onnx buffer>";
#if LLMC_HAVE_ONNX
  llm::ImportOptions options;
  if (!parseDims(unwrap(dims), options, diags))
    return MlirModule{nullptr};
  llvm::MemoryBufferRef buffer(unwrap(bytes), modelName);
  OwningOpRef<ModuleOp> module = llm::importONNXModel(
      buffer, /*externalDataDir=*/"", unwrap(ctx), options);
  if (!module) {
    if (!diags.hadError())
      diags.addError("cannot import ONNX model '" + modelName + "'");
    return MlirModule{nullptr};
  }
  return wrap(module.release());
#else
  (void)bytes;
  (void)dims;
  diags.addError("cannot import '" + modelName +
                 "': llmc was built without the ONNX importer (libonnx-dev)");
  return MlirModule{nullptr};
#endif
}
