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

#include "llm/Runtime/CompiledModel.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::capi::DiagnosticCapture;

namespace {
/// What an LlmcCompiledModel points to: the compiled model and the names of
/// its inputs and outputs.
struct CAPICompiledModel {
  std::unique_ptr<CompiledModel> model;
  SmallVector<std::string> inputNames;
  SmallVector<std::string> outputNames;
};
} // namespace

static CAPICompiledModel *unwrapModel(LlmcCompiledModel model) {
  return static_cast<CAPICompiledModel *>(model.ptr);
}

/// Parses the `options` string of llmcCompiledModelCreate into `options`;
/// adds an error to `diags` and returns false when malformed.
static bool parseCompileOptions(StringRef text, CompileOptions &options,
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
      if (value == "true" || value == "1") {
        options.lowering.noOpt = true;
      } else if (value == "false" || value == "0") {
        options.lowering.noOpt = false;
      } else {
        diags.addError("invalid option '" + item +
                       "': expected true, false, 1 or 0");
        return false;
      }
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

/// The `llm.name` attribute in `attrs`, or "".
static std::string getLLMName(DictionaryAttr attrs) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("llm.name"))
      return name.getValue().str();
  return "";
}

LlmcCompiledModel llmcCompiledModelCreate(MlirModule module,
                                          MlirStringRef target,
                                          MlirStringRef options,
                                          MlirStringCallback onError,
                                          void *userData) {
  ModuleOp original = unwrap(module);
  MLIRContext *ctx = original.getContext();
  DiagnosticCapture diags(ctx, onError, userData);
  StringRef targetName = unwrap(target);
  if (targetName != "cpu") {
    diags.addError("unknown target '" + targetName + "'; supported: cpu");
    return LlmcCompiledModel{nullptr};
  }
  CompileOptions compileOptions;
  if (!parseCompileOptions(unwrap(options), compileOptions, diags))
    return LlmcCompiledModel{nullptr};

  // The lowering and the JIT need every dialect, extension and LLVM IR
  // translation, whatever the caller registered.
  DialectRegistry registry;
  registerRuntimeDialects(registry);
  ctx->appendDialectRegistry(registry);

  // Lower a copy: the caller's module stays as it was.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(original->clone()));
  if (failed(getEntrySignature(*copy, compileOptions.entry)))
    return LlmcCompiledModel{nullptr};

  auto result = std::make_unique<CAPICompiledModel>();
  auto func = copy->lookupSymbol<func::FuncOp>(compileOptions.entry);
  for (unsigned k = 0, e = func.getNumArguments(); k < e; ++k) {
    std::string name = getLLMName(func.getArgAttrDict(k));
    result->inputNames.push_back(name.empty() ? "arg" + std::to_string(k)
                                              : name);
  }
  for (unsigned k = 0, e = func.getNumResults(); k < e; ++k) {
    std::string name = getLLMName(func.getResultAttrDict(k));
    result->outputNames.push_back(name.empty() ? "out" + std::to_string(k)
                                               : name);
  }
  // The names would reach the LLVM functions as unknown parameter
  // attributes.
  StringAttr nameKey = StringAttr::get(ctx, "llm.name");
  copy->walk([&](func::FuncOp fn) {
    for (unsigned k = 0, e = fn.getNumArguments(); k < e; ++k)
      fn.removeArgAttr(k, nameKey);
    for (unsigned k = 0, e = fn.getNumResults(); k < e; ++k)
      fn.removeResultAttr(k, nameKey);
  });

  FailureOr<std::unique_ptr<CompiledModel>> compiled =
      CompiledModel::create(*copy, compileOptions);
  if (failed(compiled)) {
    if (!diags.hadError())
      diags.addError("compilation failed");
    return LlmcCompiledModel{nullptr};
  }
  result->model = std::move(*compiled);
  return LlmcCompiledModel{result.release()};
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

MlirLogicalResult
llmcCompiledModelExecute(LlmcCompiledModel model, const LlmcTensor *inputs,
                         intptr_t numInputs, const LlmcTensor *outputs,
                         intptr_t numOutputs, MlirStringCallback onError,
                         void *userData) {
  DiagnosticCapture diags(nullptr, onError, userData);
  if (llmcCompiledModelIsNull(model)) {
    diags.addError("cannot execute a null compiled model");
    return mlirLogicalResultFailure();
  }
  SmallVector<TensorView> inputViews, outputViews;
  if (!getViews(inputs, numInputs, "input", inputViews, diags) ||
      !getViews(outputs, numOutputs, "output", outputViews, diags))
    return mlirLogicalResultFailure();
  if (llvm::Error err =
          unwrapModel(model)->model->invoke(inputViews, outputViews)) {
    diags.addError(llvm::toString(std::move(err)));
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}
