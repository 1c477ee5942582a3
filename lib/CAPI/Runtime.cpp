//===- Runtime.cpp - Compiled models C API --------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm-c/Runtime.h over mlir::llm::runtime::CompiledModel.
//
//===----------------------------------------------------------------------===//

#include "llm-c/Runtime.h"
#include "Diagnostics.h"
#include "Runtime.h"
#include "llm-c/ImportONNX.h"
#include "llm-c/Passes.h"

#include "llm/Runtime/CompileCache.h"
#include "llm/Runtime/CompiledModel.h"

#include "llm/Codegen/TargetDescription.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::CPUTargetDescription;
using mlir::llm::capi::DiagnosticCapture;

using mlir::llm::capi::CAPICompiledModel;
using mlir::llm::capi::unwrapModel;

namespace {
/// The parsed `options` of the create functions.
struct CAPIOptions {
  CompileOptions compile;
  CacheOptions cache = CacheOptions::fromEnvironment();
};
} // namespace

/// Parses BOOL (true/false/1/0) of `item`; adds an error to `diags` and
/// returns false when malformed.
static bool parseBool(StringRef item, StringRef value, bool &result,
                      DiagnosticCapture &diags) {
  if (value == "true" || value == "1") {
    result = true;
  } else if (value == "false" || value == "0") {
    result = false;
  } else {
    diags.addError("invalid option '" + item +
                   "': expected true, false, 1 or 0");
    return false;
  }
  return true;
}

bool mlir::llm::capi::parseCompileOptions(StringRef text,
                                          CompileOptions &options,
                                          CacheOptions *cacheOpts,
                                          DiagnosticCapture &diags) {
  SmallVector<StringRef> items;
  SplitString(text, items);
  SmallVector<std::string> pipelineItems;
  for (StringRef item : items) {
    auto [key, value] = item.split('=');
    if (key.empty() || !item.contains('=')) {
      diags.addError("invalid option '" + item + "': expected KEY=VALUE");
      return false;
    }
    if (key == "entry") {
      if (value.empty()) {
        diags.addError("invalid option '" + item + "': empty entry name");
        return false;
      }
      options.entry = value.str();
    } else if (key == "opt-level") {
      unsigned level;
      if (value.getAsInteger(10, level) || level > 3) {
        diags.addError("invalid option '" + item +
                       "': opt-level must be 0, 1, 2 or 3");
        return false;
      }
      options.optLevel = level;
    } else if (key == "no-opt") {
      if (!parseBool(item, value, options.lowering.noOpt, diags))
        return false;
    } else if (key == "cache") {
      bool cache;
      if (!parseBool(item, value, cache, diags))
        return false;
      if (cacheOpts)
        cacheOpts->enabled = cacheOpts->enabled && cache;
    } else if (key == "cache-dir") {
      if (value.empty()) {
        diags.addError("invalid option '" + item + "': empty directory");
        return false;
      }
      if (cacheOpts)
        cacheOpts->directory = value.str();
    } else if (key == "threads") {
      pipelineItems.push_back(("num-threads=" + value).str());
    } else {
      // An llm-lower-to-cpu option; the pipeline's parser checks it.
      pipelineItems.push_back(item.str());
    }
  }
  options.lowering.pipelineOptions = llvm::join(pipelineItems, " ");
  return true;
}

/// Compiles (or loads from the cache) the model whose content digest is
/// `digest` (none: no caching) and that `loadModule` produces (null: it
/// failed and reported why itself), for `target` with `options`.
/// `modelName` is the name the model's own locations carry (its path or
/// source name; empty: none), for the compile cache's diagnostics.
static LlmcCompiledModel
createModel(MLIRContext *ctx, StringRef target, StringRef options,
            StringRef modelName,
            llvm::function_ref<std::optional<std::string>()> digest,
            llvm::function_ref<OwningOpRef<ModuleOp>()> loadModule,
            DiagnosticCapture &diags) {
  CAPIOptions all;
  if (!mlir::llm::capi::parseCompileOptions(options, all.compile, &all.cache,
                                            diags))
    return LlmcCompiledModel{nullptr};
  // The GPU targets: the CUDA device (llm-lower-to-nvvm for its chip) or
  // its kernels emulated on the CPU; the options are llm-lower-to-nvvm's.
  if (target == "cuda" || target == "cuda-emulator") {
    // threads=N is the CPU pipeline's num-threads (OpenMP threads).
    SmallVector<StringRef> items;
    SplitString(options, items);
    if (llvm::any_of(items, [](StringRef item) {
          return item.split('=').first == "threads";
        })) {
      diags.addError("the option threads applies to CPU targets (OpenMP "
                     "threads), not target " +
                     target);
      return LlmcCompiledModel{nullptr};
    }
    all.compile.lowering.target = target.str();
  } else if (target != "cpu") {
    // A CPU target name: the pipeline's target, if this CPU can run it.
    if (failed(CPUTargetDescription::lookup(target))) {
      diags.addError(
          "unknown target '" + target +
          "'; supported: cpu, cuda, cuda-emulator or a CPU target (" +
          CPUTargetDescription::getKnownNames() + ")");
      return LlmcCompiledModel{nullptr};
    }
    std::string error =
        applyCPUTarget(target, all.compile.lowering.pipelineOptions);
    if (!error.empty()) {
      diags.addError(error);
      return LlmcCompiledModel{nullptr};
    }
  }
  // The JIT runs the code here: a CPU target with an ISA extension this CPU
  // lacks would stop on an illegal instruction.
  if (std::string error =
          checkCPUTargetRunsHere(all.compile.lowering.pipelineOptions);
      !error.empty()) {
    diags.addError(error);
    return LlmcCompiledModel{nullptr};
  }

  // The lowering and the JIT need every dialect, extension and LLVM IR
  // translation, whatever the caller registered.
  DialectRegistry registry;
  registerRuntimeDialects(registry);
  ctx->appendDialectRegistry(registry);

  CompileCache cache(all.cache);
  std::optional<std::string> modelDigest;
  if (cache.isEnabled())
    modelDigest = digest();
  bool loadFailed = false;
  CacheEvent event;
  FailureOr<std::unique_ptr<CompiledModel>> compiled = cache.getOrCompile(
      *ctx, modelName, modelDigest, all.compile,
      [&] {
        OwningOpRef<ModuleOp> module = loadModule();
        loadFailed = !module;
        return module;
      },
      &event);
  if (failed(compiled)) {
    if (!loadFailed && !diags.hadError())
      diags.addError("compilation failed");
    return LlmcCompiledModel{nullptr};
  }
  auto result = std::make_unique<CAPICompiledModel>();
  result->model = std::move(*compiled);
  const EntrySignature &sig = result->model->getSignature();
  for (size_t k = 0; k < sig.inputs.size(); ++k) {
    std::string name = k < sig.inputNames.size() ? sig.inputNames[k] : "";
    result->inputNames.push_back(name.empty() ? "arg" + std::to_string(k)
                                              : name);
  }
  for (size_t k = 0; k < sig.results.size(); ++k) {
    std::string name = k < sig.resultNames.size() ? sig.resultNames[k] : "";
    result->outputNames.push_back(name.empty() ? "out" + std::to_string(k)
                                               : name);
  }
  result->cacheStatus = event.outcome == CacheOutcome::Hit    ? "hit"
                        : event.outcome == CacheOutcome::Miss ? "miss"
                                                              : "off";
  return LlmcCompiledModel{result.release()};
}

LlmcCompiledModel llmcCompiledModelCreate(MlirModule module,
                                          MlirStringRef target,
                                          MlirStringRef options,
                                          MlirStringCallback onError,
                                          void *userData) {
  ModuleOp original = unwrap(module);
  MLIRContext *ctx = original.getContext();
  DiagnosticCapture diags(ctx, onError, userData);
  // Keyed by the module's bytecode; a copy is lowered, so the caller's
  // module stays as it was.
  return createModel(
      ctx, unwrap(target), unwrap(options), /*modelName=*/"",
      [&] { return digestModule(original); },
      [&] { return OwningOpRef<ModuleOp>(cast<ModuleOp>(original->clone())); },
      diags);
}

LlmcCompiledModel
llmcCompiledModelCreateFromFile(MlirContext ctx, MlirStringRef path,
                                MlirStringRef dims, MlirStringRef target,
                                MlirStringRef options,
                                MlirStringCallback onError, void *userData) {
  MLIRContext *context = unwrap(ctx);
  StringRef file = unwrap(path);
  StringRef dimText = unwrap(dims);
  bool onnx = file.ends_with_insensitive(".onnx");
  DiagnosticCapture diags(context, onError, userData);
  if (!onnx && !dimText.trim().empty()) {
    diags.addError("dims apply only to ONNX models (.onnx), not '" + file +
                   "'");
    return LlmcCompiledModel{nullptr};
  }
  auto digest = [&]() -> std::optional<std::string> {
    if (onnx && !llmcHasONNXImporter())
      return std::nullopt;
    llvm::Expected<std::string> d =
        digestModelFile(file, {dimText.trim().str()});
    if (!d) {
      // Unreadable or malformed: the load reports it.
      llvm::consumeError(d.takeError());
      return std::nullopt;
    }
    return *d;
  };
  auto load = [&]() -> OwningOpRef<ModuleOp> {
    if (onnx)
      return mlir::llm::capi::importONNXFile(context, file, unwrap(dims),
                                             diags);
    if (!llvm::sys::fs::is_regular_file(file)) {
      diags.addError("cannot open model '" + file + "': " +
                     (llvm::sys::fs::exists(file) ? "not a regular file"
                                                  : "no such file"));
      return nullptr;
    }
    return mlir::llm::capi::parseModuleFile(context, file, diags);
  };
  return createModel(context, unwrap(target), unwrap(options), file, digest,
                     load, diags);
}

LlmcCompiledModel
llmcCompiledModelCreateFromSource(MlirContext ctx, MlirStringRef source,
                                  MlirStringRef sourceName,
                                  MlirStringRef target, MlirStringRef options,
                                  MlirStringCallback onError, void *userData) {
  MLIRContext *context = unwrap(ctx);
  DiagnosticCapture diags(context, onError, userData);
  StringRef name = unwrap(sourceName);
  if (name.empty())
    name = "<source>";
  return createModel(
      context, unwrap(target), unwrap(options), name,
      [&] { return digestModelText(unwrap(source)); },
      [&] {
        return mlir::llm::capi::parseModule(context, unwrap(source), name,
                                            diags);
      },
      diags);
}

MlirStringRef llmcCompiledModelGetCacheStatus(LlmcCompiledModel model) {
  return wrap(StringRef(unwrapModel(model)->cacheStatus));
}

void llmcCompiledModelDestroy(LlmcCompiledModel model) {
  delete unwrapModel(model);
}

MlirStringRef llmcCompiledModelGetEntryName(LlmcCompiledModel model) {
  return wrap(StringRef(unwrapModel(model)->model->getSignature().name));
}

intptr_t llmcCompiledModelGetNumInputs(LlmcCompiledModel model) {
  return unwrapModel(model)->model->getSignature().inputs.size();
}

intptr_t llmcCompiledModelGetNumOutputs(LlmcCompiledModel model) {
  return unwrapModel(model)->model->getSignature().results.size();
}

/// The spec of input (`output` false) or output `pos`, null when out of
/// range.
static const TensorSpec *getSpec(LlmcCompiledModel model, intptr_t pos,
                                 bool output) {
  const EntrySignature &sig = unwrapModel(model)->model->getSignature();
  const SmallVector<TensorSpec> &specs = output ? sig.results : sig.inputs;
  if (pos < 0 || pos >= static_cast<intptr_t>(specs.size()))
    return nullptr;
  return &specs[pos];
}

static MlirStringRef getName(LlmcCompiledModel model, intptr_t pos,
                             bool output) {
  const SmallVector<std::string> &names =
      output ? unwrapModel(model)->outputNames : unwrapModel(model)->inputNames;
  if (pos < 0 || pos >= static_cast<intptr_t>(names.size()))
    return MlirStringRef{"", 0};
  return wrap(StringRef(names[pos]));
}

static LlmcElementType getElementType(LlmcCompiledModel model, intptr_t pos,
                                      bool output) {
  const TensorSpec *spec = getSpec(model, pos, output);
  return spec ? static_cast<LlmcElementType>(spec->dtype)
              : LLMC_ELEMENT_TYPE_F32;
}

static intptr_t getRank(LlmcCompiledModel model, intptr_t pos, bool output) {
  const TensorSpec *spec = getSpec(model, pos, output);
  return spec ? spec->shape.size() : 0;
}

static const int64_t *getShape(LlmcCompiledModel model, intptr_t pos,
                               bool output) {
  const TensorSpec *spec = getSpec(model, pos, output);
  return spec ? spec->shape.data() : nullptr;
}

MlirStringRef llmcCompiledModelGetInputName(LlmcCompiledModel model,
                                            intptr_t pos) {
  return getName(model, pos, /*output=*/false);
}
LlmcElementType llmcCompiledModelGetInputElementType(LlmcCompiledModel model,
                                                     intptr_t pos) {
  return getElementType(model, pos, /*output=*/false);
}
intptr_t llmcCompiledModelGetInputRank(LlmcCompiledModel model, intptr_t pos) {
  return getRank(model, pos, /*output=*/false);
}
const int64_t *llmcCompiledModelGetInputShape(LlmcCompiledModel model,
                                              intptr_t pos) {
  return getShape(model, pos, /*output=*/false);
}
MlirStringRef llmcCompiledModelGetOutputName(LlmcCompiledModel model,
                                             intptr_t pos) {
  return getName(model, pos, /*output=*/true);
}
LlmcElementType llmcCompiledModelGetOutputElementType(LlmcCompiledModel model,
                                                      intptr_t pos) {
  return getElementType(model, pos, /*output=*/true);
}
intptr_t llmcCompiledModelGetOutputRank(LlmcCompiledModel model, intptr_t pos) {
  return getRank(model, pos, /*output=*/true);
}
const int64_t *llmcCompiledModelGetOutputShape(LlmcCompiledModel model,
                                               intptr_t pos) {
  return getShape(model, pos, /*output=*/true);
}

/// Converts `tensors` to views; adds an error naming `what` #i to `diags`
/// for an invalid element type, a negative rank or size, or a missing shape.
static bool getViews(const LlmcTensor *tensors, intptr_t count, StringRef what,
                     SmallVectorImpl<TensorView> &views,
                     DiagnosticCapture &diags) {
  if (count < 0 || (count > 0 && !tensors)) {
    diags.addError("invalid " + what + " array (count " + Twine(count) + ")");
    return false;
  }
  for (intptr_t i = 0; i < count; ++i) {
    const LlmcTensor &t = tensors[i];
    if (t.elementType < LLMC_ELEMENT_TYPE_F32 ||
        t.elementType > LLMC_ELEMENT_TYPE_I64) {
      diags.addError(what + " #" + Twine(i) + ": invalid element type " +
                     Twine(static_cast<int>(t.elementType)));
      return false;
    }
    if (t.rank < 0 || (t.rank > 0 && !t.shape)) {
      diags.addError(what + " #" + Twine(i) + ": invalid rank " +
                     Twine(t.rank) + " or null shape");
      return false;
    }
    ArrayRef<int64_t> shape(t.shape, t.rank);
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; })) {
      diags.addError(what + " #" + Twine(i) + ": negative size in shape " +
                     formatShape(shape));
      return false;
    }
    views.emplace_back(static_cast<DType>(t.elementType), shape, t.data);
  }
  return true;
}

/// llmcCompiledModelExecute (onDevice: llmcCompiledModelExecuteOnDevice).
static MlirLogicalResult execute(LlmcCompiledModel model,
                                 const LlmcTensor *inputs, intptr_t numInputs,
                                 const LlmcTensor *outputs, intptr_t numOutputs,
                                 MlirStringCallback onError, void *userData,
                                 bool onDevice) {
  DiagnosticCapture diags(nullptr, onError, userData);
  if (llmcCompiledModelIsNull(model)) {
    diags.addError("cannot execute a null compiled model");
    return mlirLogicalResultFailure();
  }
  SmallVector<TensorView> inputViews, outputViews;
  if (!getViews(inputs, numInputs, "input", inputViews, diags) ||
      !getViews(outputs, numOutputs, "output", outputViews, diags))
    return mlirLogicalResultFailure();
  CompiledModel &compiled = *unwrapModel(model)->model;
  if (llvm::Error err =
          onDevice ? compiled.invokeEntryOnDevice(0, inputViews, outputViews)
                   : compiled.invoke(inputViews, outputViews)) {
    diags.addError(llvm::toString(std::move(err)));
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

MlirLogicalResult
llmcCompiledModelExecute(LlmcCompiledModel model, const LlmcTensor *inputs,
                         intptr_t numInputs, const LlmcTensor *outputs,
                         intptr_t numOutputs, MlirStringCallback onError,
                         void *userData) {
  return execute(model, inputs, numInputs, outputs, numOutputs, onError,
                 userData, /*onDevice=*/false);
}

MlirLogicalResult
llmcCompiledModelExecuteOnDevice(LlmcCompiledModel model,
                                 const LlmcTensor *inputs, intptr_t numInputs,
                                 const LlmcTensor *outputs, intptr_t numOutputs,
                                 MlirStringCallback onError, void *userData) {
  return execute(model, inputs, numInputs, outputs, numOutputs, onError,
                 userData, /*onDevice=*/true);
}

bool llmcCompiledModelTakesDeviceBuffers(LlmcCompiledModel model) {
  return unwrapModel(model)->model->hasDeviceEntries();
}
