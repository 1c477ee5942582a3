//===- LLMPlugin.cpp - llm dialect and pass plugin for mlir-opt -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A plugin that lets an unmodified mlir-opt (or any tool built on
// MlirOptMain and libMLIR.so) parse the `llm` dialect and run the llmc passes
// and pipelines:
//
//   mlir-opt --load-dialect-plugin=libLLMPlugin.so \
//            --load-pass-plugin=libLLMPlugin.so \
//            --pass-pipeline='builtin.module(llm-fold-constants)' in.mlir
//
// The plugin links libMLIR.so, the library mlir-opt itself uses, so that
// TypeIDs, the pass registry and the dialect registry are the host's (a
// plugin with its own static copy of MLIR would register into a registry the
// host never reads). The dialect plugin also registers the passes, so that
// loading it alone suffices.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Pipelines/Pipelines.h"

#include "llm/Codegen/Collectives.h"
#include "llm/Dialect/LLM/Transforms/ShardingInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <mutex>

using namespace mlir;

/// Registers every llmc pass and pipeline, once (both plugin entry points
/// call it; a pipeline must not be registered twice).
static void registerLLMPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llm::registerLLMPasses();
    registerLLMConversionPasses();
    llm::registerLLMCodegenPasses();
    llm::registerLLMPipelines();
  });
}

/// Dialect plugin entry point: the llm dialect (and the passes).
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LLM", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<llm::LLMDialect>();
            llm::registerShardingInterfaceExternalModels(*registry);
            llm::registerMPIMemoryEffectModels(*registry);
            registerLLMPassesOnce();
          }};
}

/// Pass plugin entry point: llm-*, convert-llm-to-linalg, the codegen
/// passes and the llm-lower-to-cpu pipeline.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LLMPasses", LLVM_VERSION_STRING,
          []() { registerLLMPassesOnce(); }};
}
