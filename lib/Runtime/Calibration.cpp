//===- Calibration.cpp - Recording activations on sample inputs -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Calibration.h"

#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#if LLMC_HAVE_LIBZIP
#include <zip.h>
#include <zlib.h>
#endif

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;

//===----------------------------------------------------------------------===//
// Samples
//===----------------------------------------------------------------------===//

/// The name an input's file has: its `llm.name`, else `argN`.
static std::string getInputName(const EntrySignature &signature, size_t i) {
  if (i < signature.inputNames.size() && !signature.inputNames[i].empty())
    return signature.inputNames[i];
  return "arg" + std::to_string(i);
}

/// Arrays by input name, one sample or a stack of samples each.
using NamedArrays = std::map<std::string, HostTensor>;

/// Adds the samples of `arrays` (from `source`): each input's array has the
/// input's rank (one sample) or one more (a stack).
static llvm::Error addSamples(NamedArrays arrays, llvm::StringRef source,
                              const EntrySignature &signature,
                              std::vector<CalibrationSample> &samples) {
  // `argN` names input N when the input has another name (samples given
  // by position, e.g. from Python).
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    std::string alias = "arg" + std::to_string(i);
    std::string name = getInputName(signature, i);
    if (name != alias && arrays.count(alias) && !arrays.count(name)) {
      arrays[name] = std::move(arrays[alias]);
      arrays.erase(alias);
    }
  }
  for (auto &[name, tensor] : arrays) {
    bool known = false;
    for (size_t i = 0; i < signature.inputs.size(); ++i)
      known |= getInputName(signature, i) == name;
    if (!known) {
      std::string names;
      for (size_t i = 0; i < signature.inputs.size(); ++i)
        names += (i ? ", " : "") + getInputName(signature, i);
      return llvm::createStringError("calibration data '" + source + "': '" +
                                     name +
                                     "' is not an input of the model (its "
                                     "inputs: " +
                                     names + ")");
    }
  }
  int64_t stack = -1; // samples in a stack; -1: one unstacked sample
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    std::string name = getInputName(signature, i);
    auto it = arrays.find(name);
    if (it == arrays.end())
      return llvm::createStringError("calibration data '" + source +
                                     "': no array for input '" + name + "'");
    int64_t rank = signature.inputs[i].shape.size();
    int64_t n = -1;
    if (it->second.getRank() == rank + 1)
      n = it->second.getShape()[0];
    else if (it->second.getRank() != rank)
      return llvm::createStringError(
          "calibration data '" + source + "': input '" + name + "' has shape " +
          formatShape(it->second.getShape()) + "; expected rank " +
          llvm::Twine(rank) + " (one sample) or " + llvm::Twine(rank + 1) +
          " (a stack)");
    if (i > 0 && n != stack)
      return llvm::createStringError(
          "calibration data '" + source +
          "': the inputs stack different numbers of samples");
    stack = n;
  }
  if (stack == 0)
    return llvm::createStringError("calibration data '" + source +
                                   "': the stacks hold no samples");
  int64_t count = stack < 0 ? 1 : stack;
  for (int64_t s = 0; s < count; ++s) {
    CalibrationSample sample;
    sample.name =
        stack < 0 ? source.str() : (source + "[" + llvm::Twine(s) + "]").str();
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      HostTensor &all = arrays[getInputName(signature, i)];
      if (stack < 0) {
        sample.inputs.push_back(std::move(all));
        continue;
      }
      llvm::ArrayRef<int64_t> shape = all.getShape().drop_front();
      llvm::Expected<HostTensor> one =
          HostTensor::allocate(all.getDType(), shape);
      if (!one)
        return one.takeError();
      int64_t bytes = one->getSizeInBytes();
      std::memcpy(one->getData(),
                  static_cast<const char *>(all.getData()) + s * bytes, bytes);
      sample.inputs.push_back(std::move(*one));
    }
    samples.push_back(std::move(sample));
  }
  return llvm::Error::success();
}

/// The input's element type, for the .npy checks.
static std::optional<DType> getExpectedDType(const EntrySignature &signature,
                                             llvm::StringRef name) {
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    if (getInputName(signature, i) == name)
      return signature.inputs[i].dtype;
  return std::nullopt;
}

/// The arrays of an .npz file (a zip of NAME.npy members).
static llvm::Expected<NamedArrays> readNpz(llvm::StringRef path,
                                           const EntrySignature &signature) {
#if LLMC_HAVE_LIBZIP
  int error = 0;
  zip_t *archive = zip_open(path.str().c_str(), ZIP_RDONLY, &error);
  if (!archive) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, error);
    std::string msg = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    return llvm::createStringError("cannot read '" + path +
                                   "' as .npz (a zip of .npy files): " + msg);
  }
  llvm::scope_exit close([&] { zip_discard(archive); });
  NamedArrays arrays;
  zip_int64_t n = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive, i, 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_NAME))
      return llvm::createStringError("'" + path + "': unreadable member " +
                                     llvm::Twine(i));
    llvm::StringRef member(st.name);
    if (!member.consume_back(".npy"))
      return llvm::createStringError("'" + path + "': member '" + st.name +
                                     "' is not a .npy file");
    // Guard the allocation: members larger than 16 GiB are refused.
    if (st.size > (uint64_t(1) << 34))
      return llvm::createStringError("'" + path + "': member '" + st.name +
                                     "' is too large");
    std::string bytes(st.size, '\0');
    zip_file_t *file = zip_fopen_index(archive, i, 0);
    if (!file)
      return llvm::createStringError("'" + path + "': cannot open member '" +
                                     st.name + "': " + zip_strerror(archive));
    zip_int64_t got = zip_fread(file, bytes.data(), st.size);
    zip_fclose(file);
    if (got < 0 || uint64_t(got) != st.size)
      return llvm::createStringError("'" + path + "': member '" + st.name +
                                     "' is truncated");
    // libzip does not check the data against the member's CRC-32.
    if ((st.valid & ZIP_STAT_CRC) &&
        crc32(crc32(0L, Z_NULL, 0),
              reinterpret_cast<const Bytef *>(bytes.data()),
              static_cast<uInt>(bytes.size())) != st.crc)
      return llvm::createStringError("'" + path + "': member '" + st.name +
                                     "' is corrupt (its CRC-32 does not "
                                     "match)");
    if (arrays.count(member.str()))
      return llvm::createStringError("'" + path + "': member '" + st.name +
                                     "' appears twice");
    std::string where = (path + ":" + st.name).str();
    llvm::Expected<HostTensor> t =
        parseNpy(bytes, where, getExpectedDType(signature, member));
    if (!t)
      return t.takeError();
    arrays[member.str()] = std::move(*t);
  }
  return arrays;
#else
  (void)signature;
  return llvm::createStringError(
      "cannot read '" + path +
      "': this llmc was built without libzip, so .npz files cannot be "
      "read; give a directory of NAME.npy files per sample instead");
#endif
}

/// The NAME.npy files of a sample directory.
static llvm::Expected<NamedArrays> readNpyDir(llvm::StringRef dir,
                                              const EntrySignature &signature) {
  NamedArrays arrays;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef file = llvm::sys::path::filename(it->path());
    if (!file.ends_with(".npy"))
      continue;
    std::string name = file.drop_back(4).str();
    llvm::Expected<HostTensor> t =
        readNpy(it->path(), getExpectedDType(signature, name));
    if (!t)
      return t.takeError();
    arrays[name] = std::move(*t);
  }
  if (ec)
    return llvm::createStringError("cannot list '" + dir +
                                   "': " + ec.message());
  return arrays;
}

llvm::Expected<std::vector<CalibrationSample>>
mlir::llm::runtime::loadCalibrationSamples(llvm::StringRef path,
                                           const EntrySignature &signature) {
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (getInputName(signature, i) == getInputName(signature, j))
        return llvm::createStringError(
            "the model's inputs " + llvm::Twine(j) + " and " + llvm::Twine(i) +
            " are both named '" + getInputName(signature, i) +
            "': calibration data names each input once");
  if (llvm::is_contained(signature.inputIsKVCache, true))
    return llvm::createStringError(
        "calibration runs the model once per sample; a model with key/value "
        "cache arguments (a generation entry) is not supported: calibrate "
        "the model without its cache");
  std::vector<CalibrationSample> samples;
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return llvm::createStringError("calibration data '" + path +
                                   "': " + ec.message());
  if (llvm::sys::fs::is_regular_file(status)) {
    llvm::Expected<NamedArrays> arrays = readNpz(path, signature);
    if (!arrays)
      return arrays.takeError();
    if (llvm::Error e =
            addSamples(std::move(*arrays), path, signature, samples))
      return std::move(e);
  } else if (llvm::sys::fs::is_directory(status)) {
    std::vector<std::string> entries;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
         it.increment(ec))
      entries.push_back(it->path());
    if (ec)
      return llvm::createStringError("cannot list '" + path +
                                     "': " + ec.message());
    llvm::sort(entries);
    for (const std::string &entry : entries) {
      llvm::Expected<NamedArrays> arrays = NamedArrays();
      if (llvm::sys::fs::is_directory(entry))
        arrays = readNpyDir(entry, signature);
      else if (llvm::StringRef(entry).ends_with(".npz"))
        arrays = readNpz(entry, signature);
      else
        continue;
      if (!arrays)
        return arrays.takeError();
      if (llvm::Error e =
              addSamples(std::move(*arrays), entry, signature, samples))
        return std::move(e);
    }
  } else {
    return llvm::createStringError(
        "calibration data '" + path +
        "' is neither a regular .npz file nor a directory");
  }
  if (samples.empty())
    return llvm::createStringError(
        "calibration data '" + path +
        "' holds no samples (a .npz file, or a directory of .npz files or of "
        "sample directories with NAME.npy per input)");
  return samples;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

llvm::Error mlir::llm::runtime::runModel(CompiledModel &model,
                                         const CalibrationSample &sample,
                                         SmallVectorImpl<HostTensor> &results) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (const HostTensor &t : sample.inputs)
    shapes.push_back(t.getShape());
  const EntrySignature &signature = model.getSignature();
  if (shapes.size() != signature.inputs.size())
    return llvm::createStringError(
        "sample '" + sample.name + "' has " + llvm::Twine(shapes.size()) +
        " inputs; the model takes " + llvm::Twine(signature.inputs.size()));
  llvm::Expected<EntrySignature> concrete = signature.specialize(shapes);
  if (!concrete)
    return llvm::createStringError("sample '" + sample.name + "': " +
                                   llvm::toString(concrete.takeError()));
  results.clear();
  for (const TensorSpec &spec : concrete->results) {
    llvm::Expected<HostTensor> t = HostTensor::allocate(spec.dtype, spec.shape);
    if (!t)
      return t.takeError();
    results.push_back(std::move(*t));
  }
  SmallVector<TensorView> inputs, outputs;
  for (const HostTensor &t : sample.inputs)
    inputs.emplace_back(t.getDType(), t.getShape(),
                        const_cast<void *>(t.getData()));
  for (HostTensor &t : results)
    outputs.emplace_back(t);
  if (llvm::Error e = model.invoke(inputs, outputs))
    return llvm::createStringError("sample '" + sample.name +
                                   "': " + llvm::toString(std::move(e)));
  return llvm::Error::success();
}

FailureOr<std::unique_ptr<InstrumentedModel>>
InstrumentedModel::create(ModuleOp module, const CompileOptions &options) {
  OwningOpRef<ModuleOp> clone = module.clone();
  FailureOr<SmallVector<CalibrationPoint>> points =
      instrumentActivations(*clone, options.entry);
  if (failed(points))
    return failure();
  std::unique_ptr<InstrumentedModel> result(new InstrumentedModel());
  auto func = clone->lookupSymbol<func::FuncOp>(options.entry);
  result->numOutputs = func.getNumResults() - points->size();
  for (const CalibrationPoint &p : *points) {
    ActivationStats stats;
    stats.key = p.key;
    stats.name = p.name;
    stats.op = p.op;
    llvm::raw_string_ostream(stats.type) << p.value.getType();
    result->points.push_back(std::move(stats));
  }
  FailureOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::create(*clone, options);
  if (failed(model))
    return failure();
  result->model = std::move(*model);
  return result;
}

llvm::Error InstrumentedModel::run(const CalibrationSample &sample,
                                   SmallVectorImpl<HostTensor> &outputs,
                                   SmallVectorImpl<HostTensor> &activations) {
  SmallVector<HostTensor> all;
  if (llvm::Error e = runModel(*model, sample, all))
    return e;
  outputs.clear();
  activations.clear();
  for (auto [i, t] : llvm::enumerate(all))
    (i < numOutputs ? outputs : activations).push_back(std::move(t));
  return llvm::Error::success();
}

/// The f32 elements of an activation (every calibration point is f32).
static ArrayRef<float> getFloats(const HostTensor &t) {
  return ArrayRef<float>(static_cast<const float *>(t.getData()),
                         t.getNumElements());
}

llvm::Expected<CalibrationTable>
InstrumentedModel::collect(ArrayRef<CalibrationSample> samples,
                           llvm::function_ref<void(size_t, size_t)> onProgress,
                           bool histograms) {
  CalibrationTable table;
  table.entry = getSignature().name;
  table.samples = samples.size();
  table.tensors = points;
  for (ActivationStats &s : table.tensors) {
    s.min = std::numeric_limits<double>::infinity();
    s.max = -std::numeric_limits<double>::infinity();
    s.histogram.assign(kCalibrationHistogramBins, 0);
  }
  size_t total = (histograms ? 2 : 1) * samples.size(), done = 0;
  SmallVector<HostTensor> outputs, activations;
  // Pass 1: ranges and per-channel maxima.
  for (const CalibrationSample &sample : samples) {
    if (llvm::Error e = run(sample, outputs, activations))
      return std::move(e);
    for (auto [s, t] : llvm::zip_equal(table.tensors, activations)) {
      ArrayRef<float> x = getFloats(t);
      int64_t channels = t.getRank() ? t.getShape().back() : 1;
      if (channels > 0 && s.channelAbsMax.size() != size_t(channels))
        s.channelAbsMax.assign(channels, 0.0);
      for (size_t i = 0; i < x.size(); ++i) {
        double v = x[i];
        if (!std::isfinite(v)) {
          ++s.nonFinite;
          continue;
        }
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        double &c = s.channelAbsMax[i % channels];
        c = std::max(c, std::fabs(v));
        ++s.count;
      }
    }
    if (onProgress)
      onProgress(++done, total);
  }
  for (ActivationStats &s : table.tensors) {
    if (s.count == 0)
      s.min = s.max = 0;
    s.histMax = s.absMax();
  }
  if (!histograms)
    return table;
  // Pass 2: histograms of |x| over [0, max |x|], binned as numpy.histogram
  // does (edges k * (max / bins), the last bin closed).
  const int64_t bins = kCalibrationHistogramBins;
  for (const CalibrationSample &sample : samples) {
    if (llvm::Error e = run(sample, outputs, activations))
      return std::move(e);
    for (auto [s, t] : llvm::zip_equal(table.tensors, activations)) {
      ArrayRef<float> x = getFloats(t);
      double m = s.histMax;
      double step = m / double(bins), norm = m > 0 ? double(bins) / m : 0;
      for (float f : x) {
        double a = std::fabs(double(f));
        if (!std::isfinite(a))
          continue;
        int64_t k = m > 0 ? int64_t(a * norm) : 0;
        k = std::clamp<int64_t>(k, 0, bins - 1);
        if (m > 0) {
          if (a < double(k) * step)
            --k;
          else if (k != bins - 1 &&
                   a >= (k + 1 == bins ? m : double(k + 1) * step))
            ++k;
        }
        // A value beyond the first pass's max (a model that is not
        // deterministic) joins the last bin.
        ++s.histogram[std::clamp<int64_t>(k, 0, bins - 1)];
      }
    }
    if (onProgress)
      onProgress(++done, total);
  }
  return table;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// f8E4M3FN rounding (3 mantissa bits, subnormals below 2^-6, nearest even,
/// saturated to +-448).
static double roundToFloat8E4M3FN(double v) {
  if (v == 0 || !std::isfinite(v))
    return v;
  int e = std::ilogb(v);
  e = std::max(e, -6);
  double ulp = std::ldexp(1.0, e - 3);
  double r = std::nearbyint(v / ulp) * ulp;
  return std::clamp(r, -448.0, 448.0);
}

double mlir::llm::runtime::fakeQuantize(double x,
                                        const ActivationQuantParams &p) {
  float s = float(p.scale);
  if (p.fp8)
    return double(float(roundToFloat8E4M3FN(double(float(x) / s))) * s);
  double qmin = p.isUnsigned ? 0 : -128, qmax = p.isUnsigned ? 255 : 127;
  double q = std::nearbyint(double(float(float(x) / s))) + double(p.zeroPoint);
  q = std::clamp(q, qmin, qmax);
  return double(float(q - double(p.zeroPoint)) * s);
}

llvm::Expected<QuantizationEvaluation> mlir::llm::runtime::evaluateQuantization(
    InstrumentedModel &reference, CompiledModel &quantized,
    ArrayRef<QuantizedActivation> activations,
    ArrayRef<CalibrationSample> samples,
    llvm::function_ref<void(size_t, size_t)> onProgress) {
  QuantizationEvaluation eval;
  eval.samples = samples.size();
  const EntrySignature &sig = reference.getSignature();
  unsigned numOutputs = reference.getNumOutputs();
  // Sums per output: squared difference, dot, norms; per activation:
  // squared error and squared value.
  struct Sums {
    double maxAbs = 0, sq = 0, dot = 0, nx = 0, ny = 0;
    int64_t n = 0;
  };
  std::vector<Sums> out(numOutputs);
  std::vector<std::pair<double, double>> act(activations.size());
  std::vector<std::pair<int64_t, int64_t>> clipped(activations.size());
  // The result index of each quantized activation.
  std::vector<size_t> index;
  for (const QuantizedActivation &a : activations) {
    auto it =
        llvm::find_if(reference.getPoints(),
                      [&](const ActivationStats &s) { return s.key == a.key; });
    if (it == reference.getPoints().end())
      return llvm::createStringError("activation " + a.key +
                                     " is not recorded by the model");
    index.push_back(it - reference.getPoints().begin());
  }
  SmallVector<HostTensor> refOut, refAct, qOut;
  size_t done = 0;
  for (const CalibrationSample &sample : samples) {
    if (llvm::Error e = reference.run(sample, refOut, refAct))
      return std::move(e);
    if (llvm::Error e = runModel(quantized, sample, qOut))
      return std::move(e);
    if (qOut.size() != numOutputs)
      return llvm::createStringError(
          "the quantized model has another number of outputs");
    for (unsigned o = 0; o < numOutputs; ++o) {
      const HostTensor &x = refOut[o], &y = qOut[o];
      if (x.getShape() != y.getShape())
        return llvm::createStringError("output " + llvm::Twine(o) +
                                       ": the quantized model's shape differs");
      Sums &s = out[o];
      for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
        double a = x.getAsDouble(i), b = y.getAsDouble(i);
        double d = std::fabs(a - b);
        s.maxAbs = std::max(s.maxAbs, std::isnan(d) ? INFINITY : d);
        s.sq += d * d;
        s.dot += a * b;
        s.nx += a * a;
        s.ny += b * b;
        ++s.n;
      }
    }
    for (auto [j, a] : llvm::enumerate(activations)) {
      ArrayRef<float> x = getFloats(refAct[index[j]]);
      for (float f : x) {
        double v = f;
        if (!std::isfinite(v))
          continue;
        double d = fakeQuantize(v, a.params) - v;
        act[j].first += d * d;
        act[j].second += v * v;
        clipped[j].first += v < a.params.lo || v > a.params.hi;
        ++clipped[j].second;
      }
    }
    if (onProgress)
      onProgress(++done, samples.size());
  }
  for (unsigned o = 0; o < numOutputs; ++o) {
    OutputError e;
    e.name = o < sig.resultNames.size() && !sig.resultNames[o].empty()
                 ? sig.resultNames[o]
                 : "out" + std::to_string(o);
    const Sums &s = out[o];
    e.maxAbs = s.maxAbs;
    e.rms = s.n ? std::sqrt(s.sq / double(s.n)) : 0;
    e.cosine = (s.nx == 0 && s.ny == 0)
                   ? 1.0
                   : s.dot / std::sqrt(std::max(s.nx * s.ny, 1e-300));
    eval.outputs.push_back(std::move(e));
  }
  for (auto [j, a] : llvm::enumerate(activations)) {
    ActivationError e;
    e.key = a.key;
    e.relativeRms =
        act[j].second > 0 ? std::sqrt(act[j].first / act[j].second) : 0;
    e.clippedFraction =
        clipped[j].second ? double(clipped[j].first) / double(clipped[j].second)
                          : 0;
    eval.activations.push_back(std::move(e));
  }
  return eval;
}

//===----------------------------------------------------------------------===//
// The whole calibration
//===----------------------------------------------------------------------===//

LogicalResult mlir::llm::runtime::prepareForCalibration(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createLLMVerifyCallGraphPass());
  pm.addPass(createInlinerPass());
  pm.addPass(createLLMRecomposePass());
  pm.addPass(createLLMFoldConstantsPass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

FailureOr<CalibrateResult>
mlir::llm::runtime::calibrateModel(ModuleOp module,
                                   ArrayRef<CalibrationSample> samples,
                                   const CalibrateOptions &options) {
  auto fail = [&](llvm::Error e) -> FailureOr<CalibrateResult> {
    emitError(module.getLoc(), llvm::toString(std::move(e)));
    return failure();
  };
  auto progress = [&](llvm::StringRef stage) {
    return [&options, stage](size_t done, size_t total) {
      if (options.onProgress)
        options.onProgress(stage, done, total);
    };
  };
  CalibrateResult result;
  if (llvm::Error e = checkQuantizeActivationsOptions(options.quantize))
    return fail(std::move(e));
  if (options.ranges && options.smoothAlpha > 0)
    return fail(llvm::createStringError(
        "a recorded table and smoothing do not go together: the table must "
        "be recorded on the smoothed model (calibrate without the table)"));
  if (options.holdout < -1)
    return fail(llvm::createStringError("holdout must be >= 0 (or -1: a "
                                        "quarter of the samples)"));
  // Dynamic dimensions cannot be quantized: say so before recording.
  if (FailureOr<EntrySignature> signature =
          getEntrySignature(module, options.compile.entry);
      succeeded(signature) && signature->seqBound > 0)
    return fail(llvm::createStringError(
        "@" + options.compile.entry +
        " has a dynamic sequence dimension: activations with dynamic "
        "dimensions cannot be quantized yet (llm.quantize and "
        "llm.matmul_integer need static shapes); calibrate the model at a "
        "fixed length (ONNX: --dim NAME=VALUE)"));
  size_t n = samples.size();
  if (n == 0)
    return fail(llvm::createStringError("no calibration samples"));
  size_t held = options.holdout >= 0
                    ? size_t(options.holdout)
                    : (n == 1 ? 0 : std::max<size_t>(1, n / 4));
  if (held >= n)
    return fail(llvm::createStringError("holdout " + llvm::Twine(held) +
                                        " leaves no calibration sample (" +
                                        llvm::Twine(n) + " samples)"));
  ArrayRef<CalibrationSample> calib = samples.take_front(n - held);
  ArrayRef<CalibrationSample> eval = held ? samples.take_back(held) : calib;
  result.calibrationSamples = calib.size();
  result.heldoutSamples = held;

  // The f32 model: the module, or its smoothed form.
  OwningOpRef<ModuleOp> f32 = module.clone();
  if (options.smoothAlpha > 0) {
    progress("compiling the instrumented f32 model")(0, 1);
    FailureOr<std::unique_ptr<InstrumentedModel>> original =
        InstrumentedModel::create(*f32, options.compile);
    if (failed(original))
      return failure();
    llvm::Expected<CalibrationTable> ranges =
        (*original)->collect(calib,
                             progress("recording channel maxima for "
                                      "smoothing"),
                             /*histograms=*/false);
    if (!ranges)
      return fail(ranges.takeError());
    FailureOr<int64_t> smoothed = smoothActivations(
        *f32, *ranges, options.smoothAlpha, options.quantize.entry);
    if (failed(smoothed))
      return failure();
    result.smoothed = *smoothed;
  }
  progress("compiling the instrumented f32 model")(0, 1);
  FailureOr<std::unique_ptr<InstrumentedModel>> reference =
      InstrumentedModel::create(*f32, options.compile);
  if (failed(reference))
    return failure();
  if (options.ranges) {
    result.table = *options.ranges;
  } else {
    llvm::Expected<CalibrationTable> table =
        (*reference)->collect(calib, progress("recording activations"));
    if (!table)
      return fail(table.takeError());
    result.table = std::move(*table);
  }

  progress("quantizing")(0, 1);
  result.quantized = f32->clone();
  FailureOr<QuantizeActivationsResult> quantization =
      quantizeActivations(*result.quantized, result.table, options.quantize);
  if (failed(quantization))
    return failure();
  result.quantization = std::move(*quantization);

  progress("compiling the quantized model")(0, 1);
  OwningOpRef<ModuleOp> toCompile = result.quantized->clone();
  FailureOr<std::unique_ptr<CompiledModel>> quantized =
      CompiledModel::create(*toCompile, options.compile);
  if (failed(quantized))
    return failure();
  llvm::Expected<QuantizationEvaluation> evaluation = evaluateQuantization(
      **reference, **quantized, result.quantization.activations, eval,
      progress("evaluating"));
  if (!evaluation)
    return fail(evaluation.takeError());
  result.evaluation = std::move(*evaluation);

  // Activations whose error is far above the rest.
  std::vector<double> errors;
  for (const ActivationError &e : result.evaluation.activations)
    errors.push_back(e.relativeRms);
  llvm::sort(errors);
  result.medianError = errors.empty() ? 0 : errors[errors.size() / 2];
  for (auto [i, e] : llvm::enumerate(result.evaluation.activations))
    if (e.relativeRms > 3 * result.medianError && e.relativeRms > 0.01)
      result.outliers.push_back(i);
  return result;
}

/// A JSON number, or null when `x` is NaN or infinite (JSON has neither).
static llvm::json::Value jsonNumber(double x) {
  if (std::isfinite(x))
    return x;
  return nullptr;
}

std::string mlir::llm::runtime::formatCalibrationReportJSON(
    const CalibrateResult &result, const CalibrateOptions &options) {
  const QuantizeActivationsOptions &q = options.quantize;
  llvm::json::Array acts;
  for (auto [i, a, e] : llvm::enumerate(result.quantization.activations,
                                        result.evaluation.activations)) {
    llvm::json::Array mms;
    for (const std::string &m : a.matmuls)
      mms.push_back(m);
    acts.push_back(llvm::json::Object{
        {"key", a.key},
        {"name", a.name},
        {"matmuls", std::move(mms)},
        {"scale", jsonNumber(a.params.scale)},
        {"zero_point", a.params.zeroPoint},
        {"storage",
         a.params.fp8 ? "f8E4M3FN" : (a.params.isUnsigned ? "u8" : "i8")},
        {"lo", jsonNumber(a.params.lo)},
        {"hi", jsonNumber(a.params.hi)},
        {"clipped_fraction", jsonNumber(a.params.clippedFraction)},
        {"heldout_clipped_fraction", jsonNumber(e.clippedFraction)},
        {"heldout_relative_rms_error", jsonNumber(e.relativeRms)},
        {"far_above_the_rest", llvm::is_contained(result.outliers, i)}});
  }
  llvm::json::Array outs;
  for (const OutputError &o : result.evaluation.outputs)
    outs.push_back(
        llvm::json::Object{{"name", o.name},
                           {"max_abs_error", jsonNumber(o.maxAbs)},
                           {"rms_error", jsonNumber(o.rms)},
                           {"cosine_similarity", jsonNumber(o.cosine)}});
  llvm::json::Array excluded, unmatched;
  for (const std::string &x : result.quantization.excluded)
    excluded.push_back(x);
  for (const std::string &x : result.quantization.unmatchedExcludes)
    unmatched.push_back(x);
  llvm::json::Object root{
      {"method", stringifyCalibrationMethod(q.method)},
      {"percentile", q.method == CalibrationMethod::Percentile
                         ? llvm::json::Value(q.percentile)
                         : llvm::json::Value(nullptr)},
      {"fp8", q.fp8},
      {"per_channel_weights", q.perChannelWeights},
      {"smooth_alpha", options.smoothAlpha},
      {"smoothed_activations", result.smoothed},
      {"calibration_samples", int64_t(result.table.samples)},
      {"heldout_samples", int64_t(result.heldoutSamples)},
      {"recorded_activations", int64_t(result.table.tensors.size())},
      {"quantized_matmuls", result.quantization.matmuls},
      {"excluded_matmuls", std::move(excluded)},
      {"unmatched_excludes", std::move(unmatched)},
      {"weight_max_abs_error",
       jsonNumber(result.quantization.weightMaxAbsError)},
      {"weight_rms_error", jsonNumber(result.quantization.weightRmsError)},
      {"median_heldout_relative_rms_error", jsonNumber(result.medianError)},
      {"activations", std::move(acts)},
      {"outputs", std::move(outs)}};
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(root))).str();
}
