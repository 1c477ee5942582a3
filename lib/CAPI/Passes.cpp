//===- Passes.cpp - llmc passes and pipelines C API -----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm-c/Passes.h.
//
//===----------------------------------------------------------------------===//

#include "llm-c/Passes.h"
#include "Diagnostics.h"
#include "Runtime.h"

#include "llm/Codegen/Passes.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Pipelines/Pipelines.h"
#include "llm/Support/MLIRNesting.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

using namespace mlir;
using mlir::llm::capi::DiagnosticCapture;

void llmcRegisterAllPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    llm::registerLLMPasses();
    registerLLMConversionPasses();
    llm::registerLLMCodegenPasses();
    llm::registerLLMPipelines();
  });
}

OwningOpRef<ModuleOp> mlir::llm::capi::parseModule(MLIRContext *ctx,
                                                   StringRef source,
                                                   StringRef name,
                                                   DiagnosticCapture &diags) {
  if (name.empty())
    name = "<source>";
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  // MLIR's lexer finds the end of its buffer by a trailing NUL, which an
  // MlirStringRef (pointer + length) does not promise: parse a copy (a
  // std::string is NUL-terminated). Without it the parser read past the
  // caller's buffer (found by llm-lower-fuzzer under ASan).
  std::string text = source.str();
  if (std::optional<std::string> why =
          checkMLIRNesting(llvm::MemoryBufferRef(text, name))) {
    diags.addError("cannot parse '" + name + "': " + *why);
    return nullptr;
  }
  // On a large stack: bytecode stores some attributes as text, which it
  // parses unchecked.
  OwningOpRef<ModuleOp> module;
  runWithParserStack(
      [&] { module = parseSourceString<ModuleOp>(text, config, name); });
  if (!module) {
    if (!diags.hadError())
      diags.addError("cannot parse '" + name + "'");
    return nullptr;
  }
  // Depth built by aliases or bytecode, which the text check cannot see;
  // verified after it, as verifiers recurse too.
  if (std::optional<std::string> why = checkIRNesting(*module)) {
    diags.addError("cannot parse '" + name + "': " + *why);
    return nullptr;
  }
  if (failed(verify(*module))) {
    if (!diags.hadError())
      diags.addError("cannot parse '" + name + "': the module does not verify");
    return nullptr;
  }
  return module;
}

OwningOpRef<ModuleOp>
mlir::llm::capi::parseModuleFile(MLIRContext *ctx, StringRef file,
                                 DiagnosticCapture &diags) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer) {
    diags.addError("cannot open model '" + file +
                   "': " + buffer.getError().message());
    return nullptr;
  }
  return parseModule(ctx, (*buffer)->getBuffer(), file, diags);
}

MlirModule llmcParseModule(MlirContext ctx, MlirStringRef source,
                           MlirStringRef sourceName, MlirStringCallback onError,
                           void *userData) {
  DiagnosticCapture diags(unwrap(ctx), onError, userData);
  return wrap(llm::capi::parseModule(unwrap(ctx), unwrap(source),
                                     unwrap(sourceName), diags)
                  .release());
}

MlirLogicalResult llmcRunPassPipeline(MlirModule module, MlirStringRef pipeline,
                                      MlirStringCallback onError,
                                      void *userData) {
  llmcRegisterAllPasses();
  ModuleOp op = unwrap(module);
  MLIRContext *ctx = op.getContext();
  DiagnosticCapture diags(ctx, onError, userData);
  StringRef text = unwrap(pipeline).trim();
  if (text.empty())
    return mlirLogicalResultSuccess();
  std::string anchored = text.str();
  if (!text.starts_with("builtin.module("))
    anchored = "builtin.module(" + anchored + ")";

  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(anchored, errorStream);
  if (failed(parsed)) {
    StringRef message = StringRef(parseErrors).trim();
    diags.addError("invalid pass pipeline '" + text + "'" +
                   (message.empty() ? "" : ": " + message));
    return mlirLogicalResultFailure();
  }
  PassManager pm(ctx, ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(op))) {
    if (!diags.hadError())
      diags.addError("pass pipeline '" + text + "' failed");
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

void llmcModulePrint(MlirModule module, bool generic,
                     MlirStringCallback callback, void *userData) {
  detail::CallbackOstream stream(callback, userData);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  unwrap(module)->print(stream, flags);
  stream.flush();
}
