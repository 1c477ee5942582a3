//===- Calibrate.cpp - llmc calibrate ---------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc calibrate MODEL --data DATA -o MODEL_Q.mlir`: static INT8 (or FP8)
// quantization of an f32 model from sample inputs (docs/Calibration.md).
// The model is prepared (inlined, recomposed, constants folded), run on the
// calibration samples with its activations as extra results
// (llm/Runtime/Calibration.h), quantized by llm-quantize-activations, written,
// and the quantized model is compared with the f32 one on held-out samples.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"
#include "llm/Dialect/LLM/Transforms/Calibration.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Runtime/Calibration.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Support/OutputFile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;
namespace cl = llvm::cl;

cl::SubCommand llmc::calibrateCommand(
    "calibrate",
    "Quantize the f32 MODEL (.mlir, or .onnx) statically to INT8 (or FP8) "
    "from sample inputs.\n"
    "  Runs the model on the calibration samples (--data), records the "
    "range and |x|\n"
    "  histogram of every activation read by a matmul, attention or norm, "
    "chooses the\n"
    "  scales by --method, and writes to -o the llm-dialect model with "
    "llm.quantize /\n"
    "  llm.dequantize around each matmul with a constant weight (llmc's Q/DQ "
    "merging makes\n"
    "  them integer matmuls). Held-out samples (--holdout) measure the error "
    "against the\n"
    "  f32 model: per activation and on the final outputs (max abs, RMS, "
    "cosine).\n"
    "  Progress on stderr; the report on stdout (--report=json: one JSON "
    "object).\n"
    "  See docs/Calibration.md.");

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir|model.onnx>"),
                                      cl::sub(llmc::calibrateCommand));
static cl::opt<std::string> dataPath(
    "data",
    cl::desc("Calibration samples: a .npz file (arrays named after the "
             "inputs, optionally stacked along a leading sample axis) or a "
             "directory of .npz files / sample directories of NAME.npy "
             "(required)"),
    cl::value_desc("DIR_OR_NPZ"), cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
static cl::opt<std::string>
    outputPath("o", cl::desc("The quantized llm-dialect model (required)"),
               cl::value_desc("MODEL_Q.mlir"), cl::sub(llmc::calibrateCommand),
               cl::cat(llmc::llmcCategory));
static cl::opt<std::string>
    methodSpec("method",
               cl::desc("minmax, percentile[=P] (default P 99.99) or entropy "
                        "(default: entropy)"),
               cl::init("entropy"), cl::sub(llmc::calibrateCommand),
               cl::cat(llmc::llmcCategory));
static cl::opt<bool> perChannelWeights(
    "per-channel-weights",
    cl::desc("One weight scale per output column (default: per tensor)"),
    cl::init(false), cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
static cl::opt<unsigned> bits("bits", cl::desc("Integer bits (8)"), cl::init(8),
                              cl::sub(llmc::calibrateCommand),
                              cl::cat(llmc::llmcCategory));
static cl::opt<bool> fp8("fp8",
                         cl::desc("f8E4M3FN activations and weights "
                                  "instead of 8-bit integers"),
                         cl::init(false), cl::sub(llmc::calibrateCommand),
                         cl::cat(llmc::llmcCategory));
static cl::list<std::string> excludes(
    "exclude",
    cl::desc("Keep in f32 the matmuls whose location name (ONNX node), or "
             "whose activation's key (t3) or name, matches a glob; "
             "repeatable, or comma-separated"),
    cl::value_desc("GLOB"), cl::CommaSeparated, cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
static cl::opt<long long> holdout(
    "holdout",
    cl::desc("Samples kept for the evaluation, taken from the end (default: "
             "a quarter, at least 1; with one sample, it is used for both)"),
    cl::init(-1), cl::sub(llmc::calibrateCommand), cl::cat(llmc::llmcCategory));
static cl::opt<std::string>
    rangesOut("ranges-out",
              cl::desc("Also write the recorded calibration table (JSON), for "
                       "llm-quantize-activations{ranges=FILE} or --ranges"),
              cl::value_desc("FILE"), cl::sub(llmc::calibrateCommand),
              cl::cat(llmc::llmcCategory));
static cl::opt<std::string> rangesIn(
    "ranges",
    cl::desc("Use this calibration table instead of recording one (the "
             "samples then only serve the evaluation)"),
    cl::value_desc("FILE"), cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
enum class CalibrateReport { Text, JSON };
static cl::opt<CalibrateReport> reportKind(
    "report", cl::desc("The report on stdout"), cl::init(CalibrateReport::Text),
    cl::values(clEnumValN(CalibrateReport::Text, "text", "a readable report"),
               clEnumValN(CalibrateReport::JSON, "json", "a JSON object")),
    cl::sub(llmc::calibrateCommand), cl::cat(llmc::llmcCategory));
static cl::list<std::string>
    dimSpecs("dim",
             cl::desc("ONNX models: value of a symbolic dimension, "
                      "NAME=VALUE; repeatable, or comma-separated"),
             cl::value_desc("NAME=VALUE"), cl::sub(llmc::calibrateCommand),
             cl::cat(llmc::llmcCategory));
static cl::list<std::string> dimBoundSpecs(
    "dim-bound",
    cl::desc("ONNX models: keep a symbolic dimension dynamic with this "
             "bound, NAME=N (activations with dynamic dimensions are not "
             "quantized yet: this gives that error)"),
    cl::value_desc("NAME=N"), cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
static cl::opt<long long> numThreads(
    "threads",
    cl::desc("Threads for the calibration runs, 1-1024 (default: the "
             "machine's)"),
    cl::init(0), cl::sub(llmc::calibrateCommand), cl::cat(llmc::llmcCategory));
static cl::opt<double> smoothAlpha(
    "smooth-alpha",
    cl::desc("SmoothQuant: migrate activation outliers of norm outputs into "
             "the weights with this strength in (0, 1] before calibrating "
             "(default: off)"),
    cl::init(0.0), cl::sub(llmc::calibrateCommand),
    cl::cat(llmc::llmcCategory));
static cl::opt<bool> quiet("quiet", cl::desc("No progress on stderr"),
                           cl::init(false), cl::sub(llmc::calibrateCommand),
                           cl::cat(llmc::llmcCategory));

namespace {
/// Progress on stderr: one line rewritten in place on a terminal, else a
/// line per stage.
struct StageProgress {
  bool terminal = llvm::sys::Process::StandardErrIsDisplayed();
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  std::string shown;

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
  void stage(llvm::StringRef what) {
    if (quiet)
      return;
    if (terminal)
      show(what.str());
    else
      llvm::errs() << llvm::formatv("llmc calibrate: {0} ({1:f1} s)\n", what,
                                    seconds());
  }
  void step(llvm::StringRef what, size_t done, size_t total) {
    if (quiet || !terminal)
      return;
    show(llvm::formatv("{0}: {1}/{2}, {3:f1} s", what, done, total, seconds())
             .str());
  }
  void show(std::string line) {
    line = "llmc calibrate: " + line;
    unsigned width = llvm::sys::Process::StandardErrColumns();
    if (width > 1 && line.size() >= width)
      line.resize(width - 1);
    llvm::errs() << "\r" << line << "\x1b[K";
    llvm::errs().flush();
    shown = line;
  }
  void clear() {
    if (terminal && !shown.empty())
      llvm::errs() << "\r\x1b[K";
    shown.clear();
  }
};
} // namespace

/// Parses --method into `options`; an error message or "".
static std::string parseMethod(QuantizeActivationsOptions &options) {
  llvm::StringRef spec = methodSpec;
  auto [name, value] = spec.split('=');
  std::optional<CalibrationMethod> method = parseCalibrationMethod(name);
  if (!method)
    return "--method '" + spec.str() +
           "': expected minmax, percentile[=P] or entropy";
  options.method = *method;
  if (spec.contains('=')) {
    if (*method != CalibrationMethod::Percentile)
      return "--method '" + spec.str() + "': only percentile takes a value";
    double p;
    if (value.getAsDouble(p) || !(p > 0 && p <= 100))
      return "--method '" + spec.str() +
             "': the percentile must be a number in (0, 100]";
    options.percentile = p;
  }
  return "";
}

/// `x` with 4 significant digits.
static std::string formatNumber(double x) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.4g", x);
  return text;
}

/// The text of an f32 range.
static std::string formatRange(const ActivationQuantParams &p) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("[%.4g, %.4g]", p.lo, p.hi);
  return text;
}

int llmc::calibrateMain() {
  if (dataPath.empty())
    return fail("--data is required: the calibration samples (a .npz file or "
                "a directory)");
  if (outputPath.empty())
    return fail("-o is required: the quantized model to write (.mlir)");
  if (bits != 8)
    return fail("--bits " + llvm::Twine(bits.getValue()) +
                ": only 8-bit activations are supported (llmc's integer "
                "matmuls are 8-bit; --fp8 for FP8)");
  if (numThreads.getNumOccurrences() && (numThreads < 1 || numThreads > 1024))
    return fail("--threads must be in [1, 1024], got " +
                llvm::Twine(numThreads.getValue()));
  if (smoothAlpha.getNumOccurrences() && !(smoothAlpha > 0 && smoothAlpha <= 1))
    return fail("--smooth-alpha must be in (0, 1], got " +
                formatNumber(smoothAlpha.getValue()));
  if (holdout.getNumOccurrences() && holdout < 0)
    return fail("--holdout must be >= 0, got " +
                llvm::Twine(holdout.getValue()));
  if (!rangesIn.empty() && smoothAlpha > 0)
    return fail("--ranges and --smooth-alpha: a table for the smoothed model "
                "is recorded on the smoothed model; give one of them");
  QuantizeActivationsOptions quantOptions;
  if (std::string error = parseMethod(quantOptions); !error.empty())
    return fail(error);
  quantOptions.perChannelWeights = perChannelWeights;
  quantOptions.fp8 = fp8;
  quantOptions.exclude.assign(excludes.begin(), excludes.end());
  if (llvm::Error e = checkQuantizeActivationsOptions(quantOptions))
    return fail("--" + llvm::toString(std::move(e)));
  if (llvm::Error e =
          llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  SmallVector<llm::NamedFile> inputs = {{modelPath, "the model file"},
                                        {dataPath, "--data"}};
  if (!rangesIn.empty())
    inputs.push_back({rangesIn, "--ranges"});
  SmallVector<llm::NamedFile> outputs = {{outputPath, "-o"}};
  if (!rangesOut.empty())
    outputs.push_back({rangesOut, "--ranges-out"});
  if (llvm::Error e = llm::checkOutputFiles(inputs, outputs))
    return fail(std::move(e));

  CompileOptions compileOptions;
  if (numThreads.getNumOccurrences()) {
    compileOptions.lowering.pipelineOptions =
        "num-threads=" + std::to_string(numThreads.getValue());
    setenv("OMP_NUM_THREADS", std::to_string(numThreads.getValue()).c_str(), 1);
  }

  DialectRegistry registry;
  registerRuntimeDialects(registry);
  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  StageProgress progress;
  progress.stage("loading " + modelPath);
  OwningOpRef<ModuleOp> module =
      loadModelFile(modelPath, dimSpecs, ctx, sourceMgr, dimBoundSpecs);
  if (!module)
    return 1;
  if (failed(prepareForCalibration(*module)))
    return 1;
  compileOptions.entry = "main";
  FailureOr<EntrySignature> signature =
      getEntrySignature(*module, compileOptions.entry);
  if (failed(signature))
    return 1;
  llvm::Expected<std::vector<CalibrationSample>> samples =
      loadCalibrationSamples(dataPath, *signature);
  if (!samples)
    return fail(samples.takeError());

  CalibrateOptions options;
  options.quantize = quantOptions;
  options.compile = compileOptions;
  options.holdout = holdout;
  options.smoothAlpha = smoothAlpha;
  CalibrationTable ranges;
  if (!rangesIn.empty()) {
    llvm::Expected<CalibrationTable> loaded = CalibrationTable::load(rangesIn);
    if (!loaded)
      return fail(loaded.takeError());
    ranges = std::move(*loaded);
    options.ranges = &ranges;
  }
  if (holdout >= 0 && size_t(holdout) >= samples->size())
    return fail("--holdout " + llvm::Twine(holdout.getValue()) +
                " leaves no calibration sample (the data holds " +
                llvm::Twine(samples->size()) + ")");
  std::string lastStage;
  options.onProgress = [&](StringRef stage, size_t done, size_t total) {
    if (stage != lastStage) {
      progress.clear();
      progress.stage(stage);
      lastStage = stage.str();
    }
    if (total > 1)
      progress.step(stage, done, total);
  };
  FailureOr<CalibrateResult> calibrated =
      calibrateModel(*module, *samples, options);
  progress.clear();
  if (failed(calibrated))
    return 1;
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    calibrated->quantized->print(os);
    os << "\n";
  }
  // Both outputs or neither.
  SmallVector<std::string> paths = {outputPath};
  if (!rangesOut.empty())
    paths.push_back(rangesOut);
  if (llvm::Error e =
          llm::writeFiles(paths, [&](size_t i, llvm::raw_ostream &os) {
            if (i == 0)
              os << text;
            else
              os << calibrated->table.serialize();
            return llvm::Error::success();
          }))
    return fail(std::move(e));
  const CalibrationTable &table = calibrated->table;
  const QuantizeActivationsResult *result = &calibrated->quantization;
  const QuantizationEvaluation *evaluation = &calibrated->evaluation;
  size_t held = calibrated->heldoutSamples;
  double median = calibrated->medianError;

  llvm::raw_ostream &os = llvm::outs();
  StringRef methodName = stringifyCalibrationMethod(quantOptions.method);
  for (const OutputError &o : evaluation->outputs)
    if (!std::isfinite(o.maxAbs) || !std::isfinite(o.cosine))
      llvm::WithColor::warning(llvm::errs(), "llmc")
          << "output " << o.name
          << " is not finite on the held-out samples (NaN or infinity in "
             "the f32 or the quantized model's output): its error figures "
             "mean nothing\n";
  for (const std::string &x : result->unmatchedExcludes)
    llvm::WithColor::warning(llvm::errs(), "llmc")
        << "--exclude '" << x
        << "' matches no quantized matmul (patterns match matmul location "
           "names such as ONNX node names, activation keys t3 or names)\n";
  if (reportKind == CalibrateReport::JSON) {
    os << formatCalibrationReportJSON(*calibrated, options) << "\n";
    return 0;
  }

  os << "llmc calibrate: " << table.tensors.size()
     << " activations recorded on " << table.samples << " sample"
     << (table.samples == 1 ? "" : "s") << ", method " << methodName;
  if (quantOptions.method == CalibrationMethod::Percentile)
    os << " " << formatNumber(quantOptions.percentile);
  os << (fp8 ? ", FP8 (f8E4M3FN)" : ", INT8");
  if (smoothAlpha > 0)
    os << ", SmoothQuant alpha " << llvm::format("%g", smoothAlpha.getValue())
       << " (" << calibrated->smoothed << " norm outputs smoothed)";
  os << "\n";
  os << "  " << result->activations.size() << " activations quantized for "
     << result->matmuls << " matmuls (weights "
     << (fp8                 ? "per tensor"
         : perChannelWeights ? "per channel"
                             : "per tensor")
     << ", max abs error " << llvm::format("%.3g", result->weightMaxAbsError)
     << ", RMS " << llvm::format("%.3g", result->weightRmsError) << ")";
  if (!result->excluded.empty())
    os << "; kept in f32: " << llvm::join(result->excluded, ", ");
  os << "\n";
  os << llvm::formatv("  {0,-5} {1,-12} {2,-5} {3,-24} {4,-9} {5,-9} {6}\n",
                      "key", "scale", "zero", "range", "clipped", "error",
                      "name");
  for (auto [a, e] :
       llvm::zip_equal(result->activations, evaluation->activations))
    os << llvm::formatv(
        "  {0,-5} {1,-12} {2,-5} {3,-24} {4,-9} {5,-9} {6}\n", a.key,
        formatNumber(a.params.scale), a.params.zeroPoint, formatRange(a.params),
        llvm::formatv("{0:f3}%", 100 * e.clippedFraction).str(),
        llvm::formatv("{0:f2}%", 100 * e.relativeRms).str(), a.name);
  os << "  (error: RMS of dequantize(quantize(x)) - x over RMS of x; clipped: "
        "share outside the range; both on "
     << (held ? llvm::Twine(held) + " held-out sample" + (held == 1 ? "" : "s")
              : llvm::Twine("the calibration samples (none held out)"))
     << ")\n";
  for (const OutputError &o : evaluation->outputs)
    os << "  output " << o.name << ": max abs error "
       << llvm::format("%.4g", o.maxAbs) << ", RMS "
       << llvm::format("%.4g", o.rms) << ", cosine similarity "
       << llvm::format("%.6f", o.cosine) << "\n";
  std::vector<std::string> outliers;
  for (size_t i : calibrated->outliers)
    outliers.push_back(result->activations[i].key);
  if (!outliers.empty()) {
    os << "  far above the rest (> 3x the median "
       << llvm::format("%.2f%%", 100 * median) << "):";
    for (const std::string &k : outliers)
      os << " " << k;
    os << "; keep them in f32 with --exclude " << llvm::join(outliers, ",")
       << "\n";
  }
  os << "  wrote " << outputPath;
  if (!rangesOut.empty())
    os << " and " << rangesOut;
  os << "\n";
  return 0;
}
