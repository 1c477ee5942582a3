//===- Calibration.h - Recording activations on sample inputs ---*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The run-time half of static activation quantization (`llmc calibrate`,
// docs/Calibration.md): calibration samples read from .npz / .npy files, a
// model compiled with its activations as extra results
// (llm-instrument-activations), the statistics of those activations over the
// samples (a CalibrationTable, llm/Dialect/LLM/Transforms/Calibration.h), and
// the error of a quantized model against the f32 one on held-out samples.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CALIBRATION_H
#define LLM_RUNTIME_CALIBRATION_H

#include "llm/Dialect/LLM/Transforms/Calibration.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/Npy.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>

#include <memory>
#include <string>
#include <vector>

namespace mlir::llm::runtime {

/// One calibration input: a tensor per argument of the entry, in order.
struct CalibrationSample {
  CalibrationSample() = default;
  CalibrationSample(CalibrationSample &&) = default;
  CalibrationSample &operator=(CalibrationSample &&) = default;
  CalibrationSample(const CalibrationSample &) = delete;
  CalibrationSample &operator=(const CalibrationSample &) = delete;

  /// Where it came from ("data.npz[3]", "dir/s0"), for messages.
  std::string name;
  SmallVector<HostTensor> inputs;
};

/// Reads the samples at `path` for an entry with signature `signature`:
/// * a `.npz` file: one array per input, named after the input (its
///   `llm.name`, else `argN`), either of the input's rank (one sample) or
///   with one more leading dimension (that many samples);
/// * a directory: each `*.npz` file in it (as above) and each subdirectory
///   holding `NAME.npy` per input is one or more samples, in name order.
/// Element types must be the inputs' (.npy rules, llm/Runtime/Npy.h); shapes
/// are checked when the model runs. Errors name the file and the input: no
/// samples, an input missing or unknown, a ragged stack, a model with
/// key/value-cache arguments, an .npz that is not a zip of .npy files (or a
/// build without libzip).
llvm::Expected<std::vector<CalibrationSample>>
loadCalibrationSamples(llvm::StringRef path, const EntrySignature &signature);

/// A model compiled with its calibration points as extra results.
class InstrumentedModel {
public:
  /// Instruments a clone of `module` (`instrumentActivations` on
  /// `options.entry`) and compiles it; `module` is not changed. Errors are
  /// diagnostics in `module`'s context.
  static FailureOr<std::unique_ptr<InstrumentedModel>>
  create(ModuleOp module, const CompileOptions &options);

  /// The model's own results (before the activations).
  unsigned getNumOutputs() const { return numOutputs; }
  const EntrySignature &getSignature() const { return model->getSignature(); }
  /// Key, name, op and type of each activation, in result order.
  ArrayRef<ActivationStats> getPoints() const { return points; }

  /// Runs `sample`: `outputs` gets the model's results, `activations` the
  /// recorded activations.
  llvm::Error run(const CalibrationSample &sample,
                  SmallVectorImpl<HostTensor> &outputs,
                  SmallVectorImpl<HostTensor> &activations);

  /// The statistics of every activation over `samples` (two runs of each:
  /// the range first, then the |x| histogram over [0, max |x|]; without
  /// `histograms` only the first, and the histograms stay empty, e.g. for
  /// the channel maxima smoothing needs). `onProgress(done, total)` is
  /// called after each run.
  llvm::Expected<CalibrationTable>
  collect(ArrayRef<CalibrationSample> samples,
          llvm::function_ref<void(size_t, size_t)> onProgress = {},
          bool histograms = true);

private:
  InstrumentedModel() = default;
  std::unique_ptr<CompiledModel> model;
  unsigned numOutputs = 0;
  std::vector<ActivationStats> points;
};

/// Runs a compiled model on `sample`'s inputs into freshly allocated
/// results.
llvm::Error runModel(CompiledModel &model, const CalibrationSample &sample,
                     SmallVectorImpl<HostTensor> &results);

/// The error of one output of the quantized model against the f32 model.
struct OutputError {
  std::string name;
  double maxAbs = 0, rms = 0;
  /// Cosine similarity of the flattened outputs (1 when both are zero).
  double cosine = 1;
};

/// The error that quantizing one activation with its chosen parameters
/// introduces on held-out samples: `rms(dequantize(quantize(x)) - x) /
/// rms(x)` (0 when x is 0), computed on the f32 model's activation.
struct ActivationError {
  std::string key;
  double relativeRms = 0;
  /// Share of the held-out elements outside the clipping range.
  double clippedFraction = 0;
};

/// The accuracy of a quantized model on held-out samples.
struct QuantizationEvaluation {
  size_t samples = 0;
  std::vector<OutputError> outputs;
  std::vector<ActivationError> activations;
};

/// Runs `reference` (the f32 model, instrumented) and `quantized` on
/// `samples` and measures the outputs' and the quantized activations' error.
llvm::Expected<QuantizationEvaluation>
evaluateQuantization(InstrumentedModel &reference, CompiledModel &quantized,
                     ArrayRef<QuantizedActivation> activations,
                     ArrayRef<CalibrationSample> samples,
                     llvm::function_ref<void(size_t, size_t)> onProgress = {});

/// The graph preparation calibration points are taken on: call-graph check,
/// inlining, llm-recompose, llm-fold-constants, canonicalization (in place).
/// Errors are diagnostics.
LogicalResult prepareForCalibration(ModuleOp module);

/// Options of `calibrateModel`.
struct CalibrateOptions {
  QuantizeActivationsOptions quantize;
  /// How the instrumented and the quantized models are compiled (entry,
  /// pipeline options such as num-threads).
  CompileOptions compile;
  /// Samples held out for the evaluation, from the end; -1: a quarter (at
  /// least one; none with a single sample, which then serves both).
  int64_t holdout = -1;
  /// A recorded table to use instead of recording one (not owned).
  const CalibrationTable *ranges = nullptr;
  /// SmoothQuant's migration strength alpha in (0, 1]; 0: no smoothing
  /// (`smoothActivations`, llm/Dialect/LLM/Transforms/Calibration.h).
  double smoothAlpha = 0;
  /// Called with a stage ("recording activations", ...) and its progress.
  std::function<void(llvm::StringRef, size_t, size_t)> onProgress;
};

/// What `calibrateModel` produced.
struct CalibrateResult {
  /// The quantized model (QDQ llm IR).
  OwningOpRef<ModuleOp> quantized;
  CalibrationTable table;
  QuantizeActivationsResult quantization;
  QuantizationEvaluation evaluation;
  size_t calibrationSamples = 0, heldoutSamples = 0;
  /// Norm outputs smoothed (0 without smoothing).
  int64_t smoothed = 0;
  /// Indices into quantization.activations whose held-out error is far
  /// above the rest: more than 3x the median and above 1%.
  SmallVector<size_t> outliers;
  double medianError = 0;
};

/// Static quantization of `module` (prepared by `prepareForCalibration`;
/// not changed) from `samples` (docs/Calibration.md): optionally smoothed,
/// recorded on the calibration samples (or `options.ranges`), quantized by
/// `quantizeActivations`, and evaluated against the f32 model on the
/// held-out samples. Errors are diagnostics at the module's location.
FailureOr<CalibrateResult> calibrateModel(ModuleOp module,
                                          ArrayRef<CalibrationSample> samples,
                                          const CalibrateOptions &options);

/// The report of `result` as JSON (docs/Calibration.md, "The report").
std::string formatCalibrationReportJSON(const CalibrateResult &result,
                                        const CalibrateOptions &options);

/// `x` rounded to the grid of `params` (quantized, then dequantized, as
/// llm.quantize / llm.dequantize compute it).
double fakeQuantize(double x, const ActivationQuantParams &params);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CALIBRATION_H
