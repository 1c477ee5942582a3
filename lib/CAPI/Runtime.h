//===- Runtime.h - C API compiled models (private) --------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private helper of the llmc C API: what an LlmcCompiledModel points to,
// shared by Runtime.cpp and Generation.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CAPI_RUNTIME_H
#define LLM_LIB_CAPI_RUNTIME_H

#include "llm-c/Runtime.h"
#include "llm/Runtime/CompileCache.h"
#include "llm/Runtime/CompiledModel.h"

#include <memory>
#include <string>

namespace mlir::llm::capi {

/// The compiled model and the names of its inputs and outputs.
struct CAPICompiledModel {
  std::unique_ptr<runtime::CompiledModel> model;
  SmallVector<std::string> inputNames;
  SmallVector<std::string> outputNames;
  /// "hit", "miss" or "off" (llmcCompiledModelGetCacheStatus).
  std::string cacheStatus;
};

inline CAPICompiledModel *unwrapModel(LlmcCompiledModel model) {
  return static_cast<CAPICompiledModel *>(model.ptr);
}

class DiagnosticCapture;

/// Parses the `options` string of llmcCompiledModelCreate (llm-c/Runtime.h)
/// into `options` and, when not null, the cache options `cacheOpts`; adds an
/// error to `diags` and returns false when malformed.
bool parseCompileOptions(StringRef text, runtime::CompileOptions &options,
                         runtime::CacheOptions *cacheOpts,
                         DiagnosticCapture &diags);

/// llmcParseModule with the caller's capture: parses the MLIR text `source`
/// named `name` ("<source>" when empty) in `ctx`; null after adding or
/// capturing the error. Its warnings pass through the context's later
/// handlers (the compile cache records them) into `diags`.
OwningOpRef<ModuleOp> parseModule(MLIRContext *ctx, StringRef source,
                                  StringRef name, DiagnosticCapture &diags);

/// parseModule of the contents of `file` (named by it); null after adding
/// the error ("cannot open model ...") or capturing the parser's.
OwningOpRef<ModuleOp> parseModuleFile(MLIRContext *ctx, StringRef file,
                                      DiagnosticCapture &diags);

/// llmcImportONNXFile with the caller's capture: imports the ONNX model in
/// `file` with the --dim values `dims` into `ctx`; null after adding or
/// capturing the error. The import's warnings and remarks pass through the
/// context's later handlers (the compile cache records them) into `diags`.
OwningOpRef<ModuleOp> importONNXFile(MLIRContext *ctx, StringRef file,
                                     StringRef dims, DiagnosticCapture &diags);

} // namespace mlir::llm::capi

#endif // LLM_LIB_CAPI_RUNTIME_H
