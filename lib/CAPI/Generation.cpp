//===- Generation.cpp - Generation session C API --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm-c/Generation.h over
// mlir::llm::runtime::GenerationSession.
//
//===----------------------------------------------------------------------===//

#include "llm-c/Generation.h"
#include "Diagnostics.h"
#include "Runtime.h"

#include "llm/Runtime/Generation.h"
#if LLMC_HAVE_ONNX
#include "llm/Target/ONNX/ImportONNX.h"
#endif

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::capi::DiagnosticCapture;

static GenerationSession *unwrapSession(LlmcGenerationSession session) {
  return static_cast<GenerationSession *>(session.ptr);
}

LlmcGenerationSession llmcGenerationSessionCreateFromFile(
    MlirContext ctx, MlirStringRef path, MlirStringRef options,
    MlirStringCallback onError, void *userData) {
  MLIRContext *context = unwrap(ctx);
  DiagnosticCapture diags(context, onError, userData);
  CompileOptions compile;
  if (!mlir::llm::capi::parseCompileOptions(unwrap(options), compile,
                                            /*cacheOpts=*/nullptr, diags))
    return LlmcGenerationSession{nullptr};
  // The lowering and the JIT need every dialect, whatever the caller
  // registered.
  DialectRegistry registry;
  registerRuntimeDialects(registry);
  context->appendDialectRegistry(registry);
  StringRef file = unwrap(path);
  if (!llvm::sys::fs::is_regular_file(file)) {
    diags.addError("cannot open model '" + file + "': " +
                   (llvm::sys::fs::exists(file) ? "not a regular file"
                                                : "no such file"));
    return LlmcGenerationSession{nullptr};
  }
  OwningOpRef<ModuleOp> module;
  if (file.ends_with_insensitive(".onnx")) {
    // A decoder exported with past_key_values, in the cached form.
#if LLMC_HAVE_ONNX
    llm::ImportOptions importOptions;
    importOptions.kvCache = true;
    module = llm::importONNXModel(file, context, importOptions);
#else
    diags.addError("cannot load '" + file +
                   "': llmc was built without the ONNX importer (libonnx-dev)");
    return LlmcGenerationSession{nullptr};
#endif
  } else {
    module = mlir::llm::capi::parseModuleFile(context, file, diags);
  }
  if (!module) {
    if (!diags.hadError())
      diags.addError("cannot load model '" + file + "'");
    return LlmcGenerationSession{nullptr};
  }
  FailureOr<std::unique_ptr<CompiledModel>> compiled =
      compileForGeneration(*module, compile);
  if (failed(compiled)) {
    if (!diags.hadError())
      diags.addError("compilation failed");
    return LlmcGenerationSession{nullptr};
  }
  std::shared_ptr<CompiledModel> model(std::move(*compiled));
  llvm::Expected<GenerationInterface> interface =
      getGenerationInterface(model->getSignature());
  if (!interface) {
    diags.addError(llvm::toString(interface.takeError()));
    return LlmcGenerationSession{nullptr};
  }
  llvm::Expected<std::unique_ptr<GenerationSession>> session =
      GenerationSession::create(std::move(model), *interface);
  if (!session) {
    diags.addError(llvm::toString(session.takeError()));
    return LlmcGenerationSession{nullptr};
  }
  return LlmcGenerationSession{session->release()};
}

void llmcGenerationSessionDestroy(LlmcGenerationSession session) {
  delete unwrapSession(session);
}

int64_t llmcGenerationSessionGetVocabSize(LlmcGenerationSession session) {
  return unwrapSession(session)->getInterface().vocabSize;
}

int64_t llmcGenerationSessionGetMaxSequence(LlmcGenerationSession session) {
  return unwrapSession(session)->getInterface().maxSequence;
}

int64_t llmcGenerationSessionGetPosition(LlmcGenerationSession session) {
  return unwrapSession(session)->getPosition();
}

/// Passes `err` (if any) to the callback; the C result.
static MlirLogicalResult report(llvm::Error err, MlirStringCallback onError,
                                void *userData) {
  if (!err)
    return mlirLogicalResultSuccess();
  DiagnosticCapture diags(nullptr, onError, userData);
  diags.addError(llvm::toString(std::move(err)));
  return mlirLogicalResultFailure();
}

MlirLogicalResult llmcGenerationSessionPrefill(LlmcGenerationSession session,
                                               const int64_t *ids,
                                               intptr_t count,
                                               MlirStringCallback onError,
                                               void *userData) {
  if (count < 0 || (count > 0 && !ids))
    return report(llvm::createStringError("invalid prompt (count " +
                                          llvm::Twine(count) + ")"),
                  onError, userData);
  return report(unwrapSession(session)->prefill(ArrayRef<int64_t>(ids, count)),
                onError, userData);
}

MlirLogicalResult llmcGenerationSessionDecode(LlmcGenerationSession session,
                                              int64_t id,
                                              MlirStringCallback onError,
                                              void *userData) {
  return report(unwrapSession(session)->decode(id), onError, userData);
}

const float *llmcGenerationSessionGetLogits(LlmcGenerationSession session) {
  return unwrapSession(session)->getLogits().data();
}

MlirLogicalResult
llmcGenerationSessionSetSampling(LlmcGenerationSession session, bool greedy,
                                 double temperature, int64_t topK, double topP,
                                 uint64_t seed, MlirStringCallback onError,
                                 void *userData) {
  SamplingOptions options;
  options.greedy = greedy;
  options.temperature = temperature;
  options.topK = topK;
  options.topP = topP;
  options.seed = seed;
  return report(unwrapSession(session)->setSampling(options), onError,
                userData);
}

int64_t llmcGenerationSessionSampleNext(LlmcGenerationSession session) {
  return unwrapSession(session)->sampleNext();
}
