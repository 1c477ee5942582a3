//===- Calibration.h - Activation ranges and their quantization -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Static (post-training) quantization of activations from sample inputs, as
// TensorRT's calibrators do it:
//
// 1. The calibration points of an entry function are the activations (f32
//    values that are not constants) read by an `llm.matmul`, `llm.attention`,
//    `llm.layer_norm` or `llm.rms_norm`, in a fixed order (`t0`, `t1`, ...):
//    `getCalibrationPoints`.
// 2. `llm-instrument-activations` returns each of them as an extra result;
//    a runtime (llm/Runtime/Calibration.h) runs the model on the samples and
//    records, per point, the range, a histogram of |x| and the largest |x| of
//    each channel (the last dimension): `ActivationStats`, saved as JSON
//    (`CalibrationTable`).
// 3. `llm-quantize-activations` reads them, chooses the quantization of each
//    activation that a quantizable matmul reads (`chooseActivationParams`:
//    min-max, percentile or entropy) and places `llm.quantize` /
//    `llm.dequantize` so that `llm-fold-quant` makes integer matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_TRANSFORMS_CALIBRATION_H
#define LLM_DIALECT_LLM_TRANSFORMS_CALIBRATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::llm {

/// Bins of the |x| histogram of an activation (TensorRT's calibrators and
/// NVIDIA's pytorch-quantization use 2048).
constexpr int64_t kCalibrationHistogramBins = 2048;

/// An activation to calibrate: a value of an entry function and who reads it.
struct CalibrationPoint {
  Value value;
  /// `t<N>`: the N-th point of the function (getCalibrationPoints' order).
  std::string key;
  /// The name of the first reader's location (an ONNX node name), or its
  /// `file:line:col`, then `:` and the operand's name, e.g.
  /// `/h.0/attn/c_attn/MatMul:lhs`.
  std::string name;
  /// The first reader's op name (`llm.matmul`, ...).
  std::string op;
};

/// How calibration names an op's location: the first NameLoc's name (the
/// ONNX node), else `file:line:col`, else "?".
std::string getCalibrationLocationName(Location loc);

/// The calibration points of `func` in a deterministic order: the f32
/// operands of `llm.matmul` (both, unless constant), `llm.attention` (query,
/// key, value), `llm.layer_norm` / `llm.rms_norm` (input), each value once,
/// in the order of their first reader in the function body (walk order).
/// Ranked tensors only.
SmallVector<CalibrationPoint> getCalibrationPoints(func::FuncOp func);

/// What a calibration run recorded of one activation.
struct ActivationStats {
  std::string key, name, op;
  /// The activation's type, e.g. `tensor<1x128x768xf32>`.
  std::string type;
  double min = 0, max = 0;
  /// Elements seen (finite ones) and non-finite ones (NaN, inf; not in the
  /// other statistics).
  int64_t count = 0, nonFinite = 0;
  /// Histogram of |x| over [0, histMax] in kCalibrationHistogramBins bins of
  /// equal width (|x| == histMax falls in the last bin). histMax is the
  /// largest |x|; all zero when the activation is 0 everywhere (histMax 0:
  /// every element in bin 0).
  double histMax = 0;
  std::vector<int64_t> histogram;
  /// The largest |x| per index of the last dimension (SmoothQuant).
  std::vector<double> channelAbsMax;

  double absMax() const { return std::max(-min, max); }
};

/// The statistics of every calibration point of one entry function, and how
/// many samples they came from. JSON file (docs/Calibration.md):
/// `{"llmc_calibration": 1, "entry": ..., "samples": N, "tensors": [{key,
/// name, op, type, min, max, count, non_finite, hist_max, histogram,
/// channel_absmax}, ...]}`.
struct CalibrationTable {
  std::string entry = "main";
  int64_t samples = 0;
  std::vector<ActivationStats> tensors;

  /// The entry of `key`, or null.
  const ActivationStats *lookup(llvm::StringRef key) const;
  /// Reads a table written by `save`. Errors name the file and what is wrong
  /// (not JSON, a field missing or of the wrong type, a histogram of another
  /// size, negative counts, non-finite ranges, min > max).
  static llvm::Expected<CalibrationTable> load(llvm::StringRef path);
  static llvm::Expected<CalibrationTable> parse(llvm::StringRef text,
                                                llvm::StringRef name);
  /// The JSON text.
  std::string serialize() const;
};

/// How activation ranges become scales.
enum class CalibrationMethod {
  /// The observed [min, max] (with 0), asymmetric: u8 storage, zero point.
  MinMax,
  /// Symmetric, threshold T = the given percentile of |x| (histogram
  /// resolution); i8 storage, zero point 0 ([-T, T] onto [-127, 127]), or,
  /// for an activation never negative in the calibration run, u8 storage
  /// with zero point 0 ([0, T] onto [0, 255]; also for Entropy).
  Percentile,
  /// Symmetric, threshold T minimizing the KL divergence between the |x|
  /// histogram clipped at T and its 128-level quantization (TensorRT's
  /// entropy calibration: S. Migacz, "8-bit Inference with TensorRT", GTC
  /// 2017, as implemented by NVIDIA's pytorch-quantization
  /// `_compute_amax_entropy`); i8 storage, zero point 0.
  Entropy,
};

/// Parses "minmax", "percentile" or "entropy".
std::optional<CalibrationMethod> parseCalibrationMethod(llvm::StringRef name);
llvm::StringRef stringifyCalibrationMethod(CalibrationMethod method);

/// The quantization chosen for one activation.
struct ActivationQuantParams {
  /// The clipping range [lo, hi] (lo = -hi when symmetric).
  double lo = 0, hi = 0;
  /// f32-exact scale and zero point. FP8: scale = hi / 448 (E4M3FN max).
  double scale = 1;
  int64_t zeroPoint = 0;
  /// u8 storage (asymmetric) rather than i8 (symmetric); unused for FP8.
  bool isUnsigned = false;
  bool fp8 = false;
  /// Share of the recorded elements outside [lo, hi] (from the histogram for
  /// the symmetric methods; 0 for min-max).
  double clippedFraction = 0;
};

/// Chooses the quantization of `stats` by `method` (`percentile` in (0, 100]
/// for CalibrationMethod::Percentile), for 8-bit integers or, with `fp8`,
/// f8E4M3FN (symmetric: min-max then takes max |x|). An activation that is 0
/// everywhere gets scale 1. Errors: no elements recorded.
llvm::Expected<ActivationQuantParams>
chooseActivationParams(const ActivationStats &stats, CalibrationMethod method,
                       double percentile, bool fp8);

/// TensorRT's entropy threshold for a histogram of |x| with bins of width
/// `binWidth`: for each i in [quantBins, bins], the reference P = hist[0..i)
/// with the mass of hist[i..) added to its last bin, and Q = P merged into
/// `quantBins` chunks (bin j in chunk floor(quantBins * j / i)) and spread
/// evenly back over the chunk's nonzero bins; the threshold is i * binWidth
/// for the i with the smallest KL(P || Q) (the largest such i on ties; an
/// i where Q is 0 and P is not has infinite divergence). A histogram with at
/// most `quantBins` bins, or empty, gives bins * binWidth.
double computeEntropyThreshold(llvm::ArrayRef<int64_t> histogram,
                               double binWidth, int64_t quantBins = 128);

/// The smallest bin edge (k + 1) * binWidth below which at least
/// `percentile` % of the histogram's elements lie.
double computePercentileThreshold(llvm::ArrayRef<int64_t> histogram,
                                  double binWidth, double percentile);

/// Appends the calibration points of `entry` to its results
/// (`llm-instrument-activations`): returns the points, or emits an error and
/// fails (no such function, more than one block, already instrumented).
FailureOr<SmallVector<CalibrationPoint>>
instrumentActivations(ModuleOp module, llvm::StringRef entry);

/// Options of `quantizeActivations` (the `llm-quantize-activations` pass
/// options).
struct QuantizeActivationsOptions {
  CalibrationMethod method = CalibrationMethod::Entropy;
  double percentile = 99.99;
  bool perChannelWeights = false;
  bool fp8 = false;
  /// Globs (llvm::GlobPattern) of matmul location names, activation keys or
  /// activation names to keep in f32.
  SmallVector<std::string> exclude;
  std::string entry = "main";
};

/// One quantized activation.
struct QuantizedActivation {
  std::string key, name;
  ActivationQuantParams params;
  /// Location names of the matmuls that read it quantized.
  SmallVector<std::string> matmuls;
};

/// What `quantizeActivations` did.
struct QuantizeActivationsResult {
  SmallVector<QuantizedActivation> activations;
  int64_t matmuls = 0;
  /// Matmuls kept in f32 by `exclude` (location names).
  SmallVector<std::string> excluded;
  /// Patterns of `exclude` that matched no quantizable matmul.
  SmallVector<std::string> unmatchedExcludes;
  /// `|dequantize(quantize(w)) - w|` over the quantized weights.
  double weightMaxAbsError = 0, weightRmsError = 0;
};

/// Checks `options` before anything runs: `percentile` in (0, 100] (for
/// the percentile method), every `exclude` a valid llvm::GlobPattern without
/// braces (`{a,b}`: give several patterns). Errors name the option.
llvm::Error
checkQuantizeActivationsOptions(const QuantizeActivationsOptions &options);

/// Places the quantization of `llm-quantize-activations` in `module` from
/// `table`. Emits an error and fails on what the pass documents as errors
/// (nothing is changed then).
FailureOr<QuantizeActivationsResult>
quantizeActivations(ModuleOp module, const CalibrationTable &table,
                    const QuantizeActivationsOptions &options);

/// SmoothQuant's migration of activation outliers into the weights (G. Xiao
/// et al., "SmoothQuant: Accurate and Efficient Post-Training Quantization
/// for Large Language Models", ICML 2023, arXiv:2211.10438, eq. 4): for each
/// calibration point of `entry` that is the output of an `llm.layer_norm`
/// (constant `scale`, optional constant `bias`, both [D]) or `llm.rms_norm`
/// (constant `weight` [D]) read only by `llm.matmul`s as `lhs` (no
/// `transpose_a`) with rank-2 constant f32 weights, the per-channel factor
/// `s_j = max|X_j|^alpha / max|W_j|^(1 - alpha)` (max|X_j| from the table's
/// `channel_absmax`, max|W_j| over row j of every reading weight; s_j = 1
/// where either is 0; clamped to [1e-5, 1e5]) divides the norm's scale and
/// bias and multiplies row j of each weight: the f32 result is unchanged
/// up to rounding, and the activation's channels are evened out for
/// quantization. The norm's and the matmuls' constants are replaced by new
/// ones (the old ones stay for other users). Returns how many activations
/// were smoothed; fails (with a diagnostic) for alpha outside (0, 1] or a
/// table whose entry does not match the point's type.
FailureOr<int64_t> smoothActivations(ModuleOp module,
                                     const CalibrationTable &table,
                                     double alpha, llvm::StringRef entry);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_TRANSFORMS_CALIBRATION_H
