//===- _llmc.cpp - pybind11 extension over the llmc C API -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The native half of the `llmc` Python package: a thin layer over the C API
// (llm-c/*.h, libLLMCAPI.so) that turns its error texts into Python
// exceptions (ValueError for bad models, options and arguments,
// RuntimeError for failures while executing) and numpy buffers into
// LlmcTensor views. The user-facing API (argument checking, dtype mapping,
// naming) is pure Python, in llmc/__init__.py.
//
// The GIL is released while compiling and executing.
//
//===----------------------------------------------------------------------===//

#include "llm-c/Calibration.h"
#include "llm-c/Dialects.h"
#include "llm-c/Generation.h"
#include "llm-c/ImportONNX.h"
#include "llm-c/Passes.h"
#include "llm-c/Runtime.h"
#include "mlir-c/IR.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace {

void appendToString(MlirStringRef piece, void *userData) {
  static_cast<std::string *>(userData)->append(piece.data, piece.length);
}

MlirStringRef toRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

std::string fromRef(MlirStringRef ref) {
  return std::string(ref.data, ref.length);
}

/// Strips the trailing newline of a diagnostic text (or gives `fallback`),
/// and the "error: " severity prefix of a diagnostic without a location
/// (the exception's type already says it is an error; a located one keeps
/// its "file:line:col: error: " form).
std::string message(std::string text, const char *fallback) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  const std::string prefix = "error: ";
  if (text.compare(0, prefix.size(), prefix) == 0)
    text.erase(0, prefix.size());
  return text.empty() ? fallback : text;
}

/// Issues a Python UserWarning for each warning in `text`, the diagnostics
/// of a call that succeeded (`LOCATION: SEVERITY: MESSAGE` lines, each
/// followed by its notes and quoted source lines; llm-c/Support.h). Remarks
/// are not warnings and are dropped. Raises the Python exception when the
/// warnings filter turns a warning into an error. (A location or message
/// that itself holds ": warning: " or a line starting with "error: " can
/// mislead this reading of the text.)
void warnDiagnostics(const std::string &text) {
  std::vector<std::string> warnings;
  bool inWarning = false;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    auto has = [&](const char *severity) {
      std::string tag = std::string(severity) + ": ";
      return line.compare(0, tag.size(), tag) == 0 ||
             line.find(": " + tag) != std::string::npos;
    };
    if (has("warning")) {
      warnings.push_back(line);
      inWarning = true;
    } else if (has("error") || has("remark")) {
      inWarning = false;
    } else if (inWarning) {
      warnings.back() += "\n" + line;
    }
  }
  // Stack level 2: the warning names the user's call of the llmc function
  // that called this module. Bytes that are not UTF-8 (an ONNX node name)
  // are escaped rather than failing the call.
  py::object warn = py::module_::import("warnings").attr("warn");
  for (const std::string &warning : warnings) {
    py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        warning.data(), warning.size(), "backslashreplace"));
    if (!text)
      throw py::error_already_set();
    warn(text, py::handle(PyExc_UserWarning), 2);
  }
}

/// warnDiagnostics(errors) in a constructor that has created `object`: when
/// that raises, `destroy(object)` frees it first (a constructor that throws
/// runs no destructor).
template <typename T, typename Destroy>
void warnDiagnosticsOrDestroy(const std::string &errors, T object,
                              Destroy destroy) {
  try {
    warnDiagnostics(errors);
  } catch (...) {
    destroy(object);
    throw;
  }
}

/// An llmc context (all dialects registered), destroyed with the object.
class Context {
public:
  Context() : ctx(llmcContextCreate(/*threadingEnabled=*/false)) {}
  ~Context() { mlirContextDestroy(ctx); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  MlirContext get() const { return ctx; }

private:
  MlirContext ctx;
};

/// An owned module.
class Module {
public:
  explicit Module(MlirModule module) : module(module) {}
  ~Module() {
    if (!mlirModuleIsNull(module))
      mlirModuleDestroy(module);
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  MlirModule get() const { return module; }

private:
  MlirModule module;
};

/// Parses MLIR text; raises ValueError with the diagnostics on failure.
std::unique_ptr<Module> parse(Context &ctx, const std::string &text,
                              const std::string &sourceName) {
  std::string errors;
  MlirModule module = llmcParseModule(ctx.get(), toRef(text), toRef(sourceName),
                                      appendToString, &errors);
  if (mlirModuleIsNull(module))
    throw py::value_error(message(errors, "cannot parse the MLIR module"));
  auto result = std::make_unique<Module>(module);
  warnDiagnostics(errors);
  return result;
}

/// Imports an ONNX file; raises ValueError with the diagnostics on failure.
std::unique_ptr<Module> importONNX(Context &ctx, const std::string &path,
                                   const std::string &dims) {
  std::string errors;
  MlirModule module = llmcImportONNXFile(ctx.get(), toRef(path), toRef(dims),
                                         appendToString, &errors);
  if (mlirModuleIsNull(module))
    throw py::value_error(message(errors, "cannot import the ONNX model"));
  auto result = std::make_unique<Module>(module);
  warnDiagnostics(errors);
  return result;
}

/// Runs `pipeline` on `module`; raises ValueError on failure.
void runPipeline(Module &module, const std::string &pipeline) {
  std::string errors;
  if (mlirLogicalResultIsFailure(llmcRunPassPipeline(
          module.get(), toRef(pipeline), appendToString, &errors)))
    throw py::value_error(message(errors, "the pass pipeline failed"));
  warnDiagnostics(errors);
}

std::string print(Module &module) {
  std::string text;
  llmcModulePrint(module.get(), /*generic=*/false, appendToString, &text);
  return text;
}

/// (name, shape, element type name) of one input or output.
using TensorInfo = std::tuple<std::string, std::vector<int64_t>, std::string>;

/// A compiled model.
class CompiledModel {
public:
  CompiledModel(Module &module, const std::string &target,
                const std::string &options) {
    std::string errors;
    {
      py::gil_scoped_release release;
      model = llmcCompiledModelCreate(module.get(), toRef(target),
                                      toRef(options), appendToString, &errors);
    }
    takeDiagnostics(errors);
  }
  /// Takes `created` (null: raises ValueError with `errors`).
  CompiledModel(LlmcCompiledModel created, const std::string &errors)
      : model(created) {
    takeDiagnostics(errors);
  }
  ~CompiledModel() { llmcCompiledModelDestroy(model); }
  CompiledModel(const CompiledModel &) = delete;
  CompiledModel &operator=(const CompiledModel &) = delete;

  std::string entry() const {
    return fromRef(llmcCompiledModelGetEntryName(model));
  }

  std::string cacheStatus() const {
    return fromRef(llmcCompiledModelGetCacheStatus(model));
  }

  std::vector<TensorInfo> inputs() const {
    std::vector<TensorInfo> infos;
    for (intptr_t i = 0, e = llmcCompiledModelGetNumInputs(model); i < e; ++i) {
      const int64_t *shape = llmcCompiledModelGetInputShape(model, i);
      infos.emplace_back(
          fromRef(llmcCompiledModelGetInputName(model, i)),
          std::vector<int64_t>(shape,
                               shape + llmcCompiledModelGetInputRank(model, i)),
          fromRef(llmcElementTypeGetName(
              llmcCompiledModelGetInputElementType(model, i))));
    }
    return infos;
  }

  std::vector<TensorInfo> outputs() const {
    std::vector<TensorInfo> infos;
    for (intptr_t i = 0, e = llmcCompiledModelGetNumOutputs(model); i < e;
         ++i) {
      const int64_t *shape = llmcCompiledModelGetOutputShape(model, i);
      infos.emplace_back(
          fromRef(llmcCompiledModelGetOutputName(model, i)),
          std::vector<int64_t>(
              shape, shape + llmcCompiledModelGetOutputRank(model, i)),
          fromRef(llmcElementTypeGetName(
              llmcCompiledModelGetOutputElementType(model, i))));
    }
    return infos;
  }

  /// Runs the model on `inputs`, writing `outputs`; `inputTypes` and
  /// `outputTypes` are the LlmcElementType of each array (the Python side
  /// checked dtypes and shapes; the C API checks them again). Arrays must be
  /// C-contiguous; outputs writable.
  void execute(const std::vector<py::array> &inputs,
               const std::vector<int> &inputTypes,
               const std::vector<py::array> &outputs,
               const std::vector<int> &outputTypes) {
    if (inputs.size() != inputTypes.size() ||
        outputs.size() != outputTypes.size())
      throw py::value_error("execute: array and element type counts differ");
    std::vector<std::vector<int64_t>> shapes;
    shapes.reserve(inputs.size() + outputs.size());
    std::vector<LlmcTensor> in, out;
    auto add = [&](const py::array &a, int type, bool writable,
                   std::vector<LlmcTensor> &list) {
      if (!(a.flags() & py::array::c_style))
        throw py::value_error("execute: arrays must be C-contiguous");
      if (writable && !a.writeable())
        throw py::value_error("execute: output arrays must be writable");
      std::vector<int64_t> &shape = shapes.emplace_back();
      for (py::ssize_t d = 0; d < a.ndim(); ++d)
        shape.push_back(a.shape(d));
      list.push_back(LlmcTensor{static_cast<LlmcElementType>(type),
                                static_cast<intptr_t>(shape.size()),
                                shape.data(), const_cast<void *>(a.data())});
    };
    for (size_t i = 0; i < inputs.size(); ++i)
      add(inputs[i], inputTypes[i], false, in);
    for (size_t i = 0; i < outputs.size(); ++i)
      add(outputs[i], outputTypes[i], true, out);
    std::string errors;
    MlirLogicalResult result;
    {
      py::gil_scoped_release release;
      result = llmcCompiledModelExecute(model, in.data(), in.size(), out.data(),
                                        out.size(), appendToString, &errors);
    }
    if (mlirLogicalResultIsFailure(result))
      throw std::runtime_error(message(errors, "execution failed"));
  }

private:
  /// Raises ValueError with `errors` when the model is null; otherwise
  /// issues its warnings.
  void takeDiagnostics(const std::string &errors) {
    if (llmcCompiledModelIsNull(model))
      throw py::value_error(message(errors, "compilation failed"));
    warnDiagnosticsOrDestroy(errors, model, llmcCompiledModelDestroy);
  }

  LlmcCompiledModel model;
};

} // namespace

/// A generation session (llm-c/Generation.h). Raises ValueError for bad
/// models, ids and options, with the C API's error text.
class GenerationSession {
public:
  GenerationSession(const std::string &path, const std::string &options) {
    Context ctx;
    std::string errors;
    {
      py::gil_scoped_release release;
      session = llmcGenerationSessionCreateFromFile(
          ctx.get(), toRef(path), toRef(options), appendToString, &errors);
    }
    if (llmcGenerationSessionIsNull(session))
      throw py::value_error(message(errors, "cannot create the session"));
    warnDiagnosticsOrDestroy(errors, session, llmcGenerationSessionDestroy);
  }
  ~GenerationSession() { llmcGenerationSessionDestroy(session); }
  GenerationSession(const GenerationSession &) = delete;
  GenerationSession &operator=(const GenerationSession &) = delete;

  int64_t vocabSize() const {
    return llmcGenerationSessionGetVocabSize(session);
  }
  int64_t maxSequence() const {
    return llmcGenerationSessionGetMaxSequence(session);
  }
  int64_t position() const { return llmcGenerationSessionGetPosition(session); }

  void prefill(const std::vector<int64_t> &ids) {
    std::string errors;
    MlirLogicalResult result;
    {
      py::gil_scoped_release release;
      result = llmcGenerationSessionPrefill(session, ids.data(), ids.size(),
                                            appendToString, &errors);
    }
    if (mlirLogicalResultIsFailure(result))
      throw py::value_error(message(errors, "prefill failed"));
  }
  void decode(int64_t id) {
    std::string errors;
    MlirLogicalResult result;
    {
      py::gil_scoped_release release;
      result = llmcGenerationSessionDecode(session, id, appendToString,
                                           &errors);
    }
    if (mlirLogicalResultIsFailure(result))
      throw py::value_error(message(errors, "decode failed"));
  }
  /// A copy of the current logits.
  py::array_t<float> logits() const {
    int64_t v = vocabSize();
    py::array_t<float> out(v);
    std::copy_n(llmcGenerationSessionGetLogits(session), v,
                out.mutable_data());
    return out;
  }
  void setSampling(bool greedy, double temperature, int64_t topK, double topP,
                   uint64_t seed) {
    std::string errors;
    if (mlirLogicalResultIsFailure(llmcGenerationSessionSetSampling(
            session, greedy, temperature, topK, topP, seed, appendToString,
            &errors)))
      throw py::value_error(message(errors, "invalid sampling options"));
  }
  int64_t sampleNext() { return llmcGenerationSessionSampleNext(session); }

private:
  LlmcGenerationSession session;
};

PYBIND11_MODULE(_llmc, m) {
  m.doc() = "Native part of llmc: a pybind11 layer over the llmc C API. Use "
            "the functions of the `llmc` package instead.";
  llmcRegisterAllPasses();

  m.def("has_onnx_importer", &llmcHasONNXImporter,
        "True when llmc was built with the ONNX importer.");

  m.def(
      "import_onnx",
      [](const std::string &path, const std::string &dims) {
        Context ctx;
        std::unique_ptr<Module> module = importONNX(ctx, path, dims);
        return print(*module);
      },
      py::arg("path"), py::arg("dims") = "",
      "Imports the ONNX model at `path` and returns the llm-dialect module "
      "as MLIR text. Raises ValueError with the diagnostics on failure.");

  m.def(
      "import_onnx_buffer",
      [](py::bytes bytes, const std::string &name, const std::string &dims) {
        std::string data = bytes;
        Context ctx;
        std::string errors;
        MlirModule module = llmcImportONNXBuffer(
            ctx.get(), toRef(data), toRef(name), toRef(dims), appendToString,
            &errors);
        if (mlirModuleIsNull(module))
          throw py::value_error(
              message(errors, "cannot import the ONNX model"));
        Module owned(module);
        warnDiagnostics(errors);
        return print(owned);
      },
      py::arg("bytes"), py::arg("name"), py::arg("dims") = "",
      "Imports a serialized ONNX ModelProto and returns the llm-dialect "
      "module as MLIR text. Raises ValueError with the diagnostics on "
      "failure.");

  m.def(
      "run_pipeline",
      [](const std::string &text, const std::string &pipeline,
         const std::string &sourceName) {
        Context ctx;
        std::unique_ptr<Module> module = parse(ctx, text, sourceName);
        runPipeline(*module, pipeline);
        return print(*module);
      },
      py::arg("text"), py::arg("pipeline"), py::arg("source_name") = "",
      "Parses MLIR `text`, runs the textual pass `pipeline` on it and "
      "returns the result as MLIR text. Raises ValueError on failure.");

  m.def(
      "calibrate",
      [](const std::string &text, const std::string &sourceName,
         const std::string &onnxPath, const std::string &dims,
         const std::string &data, const std::string &options) {
        Context ctx;
        std::unique_ptr<Module> module = onnxPath.empty()
                                             ? parse(ctx, text, sourceName)
                                             : importONNX(ctx, onnxPath, dims);
        struct Outputs {
          std::string model, report, errors;
        } out;
        MlirLogicalResult result;
        {
          py::gil_scoped_release release;
          result = llmcCalibrate(
              module->get(), toRef(data), toRef(options),
              [](MlirStringRef piece, void *u) {
                static_cast<Outputs *>(u)->model.append(piece.data,
                                                        piece.length);
              },
              [](MlirStringRef piece, void *u) {
                static_cast<Outputs *>(u)->report.append(piece.data,
                                                         piece.length);
              },
              [](MlirStringRef piece, void *u) {
                static_cast<Outputs *>(u)->errors.append(piece.data,
                                                         piece.length);
              },
              &out);
        }
        if (mlirLogicalResultIsFailure(result))
          throw py::value_error(message(out.errors, "calibration failed"));
        warnDiagnostics(out.errors);
        return std::make_pair(out.model, out.report);
      },
      py::arg("text"), py::arg("source_name"), py::arg("onnx_path"),
      py::arg("dims"), py::arg("data"), py::arg("options"),
      "Static quantization (llmcCalibrate): returns (quantized MLIR text, "
      "JSON report). Raises ValueError with the diagnostics on failure.");

  py::class_<CompiledModel>(m, "CompiledModel")
      .def_static(
          "from_text",
          [](const std::string &text, const std::string &sourceName,
             const std::string &target, const std::string &options) {
            Context ctx;
            std::unique_ptr<Module> module = parse(ctx, text, sourceName);
            return std::make_unique<CompiledModel>(*module, target, options);
          },
          py::arg("text"), py::arg("source_name"), py::arg("target"),
          py::arg("options"))
      .def_static(
          "from_onnx",
          [](const std::string &path, const std::string &dims,
             const std::string &target, const std::string &options) {
            Context ctx;
            std::unique_ptr<Module> module = importONNX(ctx, path, dims);
            return std::make_unique<CompiledModel>(*module, target, options);
          },
          py::arg("path"), py::arg("dims"), py::arg("target"),
          py::arg("options"))
      .def_static(
          "from_file",
          [](const std::string &path, const std::string &dims,
             const std::string &target, const std::string &options) {
            Context ctx;
            std::string errors;
            LlmcCompiledModel model;
            {
              py::gil_scoped_release release;
              model = llmcCompiledModelCreateFromFile(
                  ctx.get(), toRef(path), toRef(dims), toRef(target),
                  toRef(options), appendToString, &errors);
            }
            return std::make_unique<CompiledModel>(model, errors);
          },
          py::arg("path"), py::arg("dims"), py::arg("target"),
          py::arg("options"),
          "Compiles the .mlir or .onnx file at `path` through the compile "
          "cache.")
      .def_static(
          "from_source",
          [](const std::string &text, const std::string &sourceName,
             const std::string &target, const std::string &options) {
            Context ctx;
            std::string errors;
            LlmcCompiledModel model;
            {
              py::gil_scoped_release release;
              model = llmcCompiledModelCreateFromSource(
                  ctx.get(), toRef(text), toRef(sourceName), toRef(target),
                  toRef(options), appendToString, &errors);
            }
            return std::make_unique<CompiledModel>(model, errors);
          },
          py::arg("text"), py::arg("source_name"), py::arg("target"),
          py::arg("options"), "Compiles MLIR text through the compile cache.")
      .def_property_readonly("entry", &CompiledModel::entry)
      .def_property_readonly("cache_status", &CompiledModel::cacheStatus)
      .def_property_readonly("inputs", &CompiledModel::inputs)
      .def_property_readonly("outputs", &CompiledModel::outputs)
      .def("execute", &CompiledModel::execute, py::arg("inputs"),
           py::arg("input_types"), py::arg("outputs"), py::arg("output_types"));

  py::class_<GenerationSession>(m, "GenerationSession")
      .def(py::init<const std::string &, const std::string &>(),
           py::arg("path"), py::arg("options"))
      .def_property_readonly("vocab_size", &GenerationSession::vocabSize)
      .def_property_readonly("max_sequence", &GenerationSession::maxSequence)
      .def_property_readonly("position", &GenerationSession::position)
      .def("prefill", &GenerationSession::prefill, py::arg("ids"))
      .def("decode", &GenerationSession::decode, py::arg("id"))
      .def("logits", &GenerationSession::logits)
      .def("set_sampling", &GenerationSession::setSampling, py::arg("greedy"),
           py::arg("temperature"), py::arg("top_k"), py::arg("top_p"),
           py::arg("seed"))
      .def("sample_next", &GenerationSession::sampleNext);
}
