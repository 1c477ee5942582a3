//===- Calibration.cpp - Activation ranges and their quantization ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The calibration points of a function, the JSON table of their recorded
// statistics, and the choice of scales from them (min-max, percentile,
// entropy). See llm/Dialect/LLM/Transforms/Calibration.h.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/Transforms/Calibration.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Support/JSON.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Calibration points
//===----------------------------------------------------------------------===//

std::string mlir::llm::getCalibrationLocationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      if (isa<NameLoc>(inner))
        return getCalibrationLocationName(inner);
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return getCalibrationLocationName(inner);
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                         file.getLine(), file.getColumn())
        .str();
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return getCalibrationLocationName(callsite.getCallee());
  return "?";
}

/// The operands of `op` that are calibrated, with their names.
static SmallVector<std::pair<Value, StringRef>>
getCalibratedOperands(Operation *op) {
  SmallVector<std::pair<Value, StringRef>> operands;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    operands.push_back({mm.getLhs(), "lhs"});
    operands.push_back({mm.getRhs(), "rhs"});
  } else if (auto attn = dyn_cast<AttentionOp>(op)) {
    operands.push_back({attn.getQuery(), "query"});
    operands.push_back({attn.getKey(), "key"});
    operands.push_back({attn.getValue(), "value"});
  } else if (auto ln = dyn_cast<LayerNormOp>(op)) {
    operands.push_back({ln.getInput(), "input"});
  } else if (auto rms = dyn_cast<RmsNormOp>(op)) {
    operands.push_back({rms.getInput(), "input"});
  }
  return operands;
}

SmallVector<CalibrationPoint>
mlir::llm::getCalibrationPoints(func::FuncOp func) {
  SmallVector<CalibrationPoint> points;
  llvm::DenseSet<Value> seen;
  func.walk([&](Operation *op) {
    for (auto [value, role] : getCalibratedOperands(op)) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !type.getElementType().isF32())
        continue;
      if (Operation *def = value.getDefiningOp())
        if (def->hasTrait<OpTrait::ConstantLike>() || isa<ConstantOp>(def))
          continue;
      if (!seen.insert(value).second)
        continue;
      CalibrationPoint point;
      point.value = value;
      point.key = "t" + std::to_string(points.size());
      point.name = getCalibrationLocationName(op->getLoc()) + ":" + role.str();
      point.op = op->getName().getStringRef().str();
      points.push_back(std::move(point));
    }
  });
  return points;
}

//===----------------------------------------------------------------------===//
// CalibrationTable
//===----------------------------------------------------------------------===//

const ActivationStats *CalibrationTable::lookup(StringRef key) const {
  for (const ActivationStats &t : tensors)
    if (t.key == key)
      return &t;
  return nullptr;
}

std::string CalibrationTable::serialize() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  // One tensor per line: readable, and diffs stay small.
  os << "{\"llmc_calibration\": 1, \"entry\": " << llvm::json::Value(entry);
  os << ", \"samples\": " << samples << ", \"tensors\": [";
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ActivationStats &t = tensors[i];
    llvm::json::Array hist, channels;
    for (int64_t h : t.histogram)
      hist.push_back(h);
    for (double c : t.channelAbsMax)
      channels.push_back(c);
    llvm::json::Object obj{{"key", t.key},
                           {"name", t.name},
                           {"op", t.op},
                           {"type", t.type},
                           {"min", t.min},
                           {"max", t.max},
                           {"count", t.count},
                           {"non_finite", t.nonFinite},
                           {"hist_max", t.histMax},
                           {"histogram", std::move(hist)},
                           {"channel_absmax", std::move(channels)}};
    os << (i ? ",\n  " : "\n  ");
    os << llvm::json::Value(std::move(obj));
  }
  os << "\n]}\n";
  return text;
}

llvm::Expected<CalibrationTable> CalibrationTable::parse(StringRef text,
                                                         StringRef name) {
  auto error = [&](const llvm::Twine &msg) {
    return llvm::createStringError("calibration table '" + name + "': " + msg);
  };
  // llvm::json recurses per level: bound the nesting first (a table has 3).
  if (exceedsJSONDepth(text, 16))
    return error("not a calibration table: nested more than 16 levels deep");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return error("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getInteger("llmc_calibration") != 1)
    return error("not an llmc calibration table (no \"llmc_calibration\": 1)");
  CalibrationTable table;
  if (std::optional<StringRef> entry = root->getString("entry"))
    table.entry = entry->str();
  std::optional<int64_t> samples = root->getInteger("samples");
  const llvm::json::Array *tensors = root->getArray("tensors");
  if (!samples || *samples < 0 || !tensors)
    return error("\"samples\" (>= 0) and \"tensors\" are required");
  table.samples = *samples;
  llvm::StringSet<> keys;
  for (auto [i, value] : llvm::enumerate(*tensors)) {
    auto where = [&, i = i](const llvm::Twine &msg) {
      return error("tensor " + llvm::Twine(i) + ": " + msg);
    };
    const llvm::json::Object *obj = value.getAsObject();
    if (!obj)
      return where("not an object");
    ActivationStats t;
    std::optional<StringRef> key = obj->getString("key");
    std::optional<StringRef> tname = obj->getString("name");
    std::optional<StringRef> op = obj->getString("op");
    std::optional<StringRef> type = obj->getString("type");
    std::optional<double> mn = obj->getNumber("min"),
                          mx = obj->getNumber("max"),
                          hmax = obj->getNumber("hist_max");
    std::optional<int64_t> count = obj->getInteger("count"),
                           nonFinite = obj->getInteger("non_finite");
    const llvm::json::Array *hist = obj->getArray("histogram");
    const llvm::json::Array *channels = obj->getArray("channel_absmax");
    if (!key || !tname || !op || !type || !mn || !mx || !hmax || !count ||
        !nonFinite || !hist || !channels)
      return where("every field is required: key, name, op, type, min, max, "
                   "count, non_finite, hist_max, histogram, channel_absmax");
    if (!keys.insert(*key).second)
      return where("key '" + *key + "' appears twice");
    if (!std::isfinite(*mn) || !std::isfinite(*mx) || !std::isfinite(*hmax) ||
        *hmax < 0 || (*count > 0 && *mn > *mx) || *count < 0 || *nonFinite < 0)
      return where("'" + *key +
                   "': min, max, hist_max must be finite with min <= max and "
                   "hist_max >= 0; counts >= 0");
    // The statistics must describe f32 values and agree with each other.
    constexpr double kF32Max = 3.4028234663852886e38;
    if (std::fabs(*mn) > kF32Max || std::fabs(*mx) > kF32Max)
      return where("'" + *key + "': min and max must be f32 values");
    if (*count > 0 && *hmax != std::max(-*mn, *mx))
      return where("'" + *key + "': hist_max must be max(-min, max)");
    if (*count == 0 && (*hmax != 0 || *mn != 0 || *mx != 0))
      return where("'" + *key +
                   "': min, max and hist_max must be 0 when no "
                   "element was recorded");
    if (static_cast<int64_t>(hist->size()) != kCalibrationHistogramBins)
      return where("'" + *key + "': the histogram has " +
                   llvm::Twine(hist->size()) + " bins, expected " +
                   llvm::Twine(kCalibrationHistogramBins));
    t.key = key->str();
    t.name = tname->str();
    t.op = op->str();
    t.type = type->str();
    t.min = *mn;
    t.max = *mx;
    t.histMax = *hmax;
    t.count = *count;
    t.nonFinite = *nonFinite;
    for (const llvm::json::Value &h : *hist) {
      std::optional<int64_t> v = h.getAsInteger();
      if (!v || *v < 0 || *v > (int64_t(1) << 50))
        return where("'" + *key +
                     "': histogram counts must be integers in "
                     "[0, 2^50]");
      t.histogram.push_back(*v);
    }
    int64_t histSum = 0;
    for (int64_t h : t.histogram)
      histSum += h;
    if (histSum != t.count)
      return where("'" + *key + "': the histogram holds " +
                   llvm::Twine(histSum) + " elements but count is " +
                   llvm::Twine(t.count));
    for (const llvm::json::Value &c : *channels) {
      std::optional<double> v = c.getAsNumber();
      if (!v || !std::isfinite(*v) || *v < 0)
        return where("'" + *key +
                     "': channel_absmax values must be finite and >= 0");
      t.channelAbsMax.push_back(*v);
    }
    table.tensors.push_back(std::move(t));
  }
  return table;
}

llvm::Expected<CalibrationTable> CalibrationTable::load(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError("cannot read calibration table '" + path +
                                   "': " + file.getError().message());
  return parse((*file)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

std::optional<CalibrationMethod>
mlir::llm::parseCalibrationMethod(StringRef name) {
  if (name == "minmax")
    return CalibrationMethod::MinMax;
  if (name == "percentile")
    return CalibrationMethod::Percentile;
  if (name == "entropy")
    return CalibrationMethod::Entropy;
  return std::nullopt;
}

StringRef mlir::llm::stringifyCalibrationMethod(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Entropy:
    return "entropy";
  }
  return "?";
}

double mlir::llm::computePercentileThreshold(ArrayRef<int64_t> histogram,
                                             double binWidth,
                                             double percentile) {
  double total = 0;
  for (int64_t h : histogram)
    total += double(h);
  if (total == 0)
    return 0;
  double want = total * percentile / 100.0, sum = 0;
  for (size_t k = 0; k < histogram.size(); ++k) {
    sum += double(histogram[k]);
    if (sum >= want)
      return double(k + 1) * binWidth;
  }
  return double(histogram.size()) * binWidth;
}

double mlir::llm::computeEntropyThreshold(ArrayRef<int64_t> histogram,
                                          double binWidth, int64_t quantBins) {
  const int64_t bins = histogram.size();
  if (bins <= quantBins)
    return double(bins) * binWidth;
  double total = 0;
  for (int64_t h : histogram)
    total += double(h);
  if (total == 0)
    return double(bins) * binWidth;
  // Suffix sums: the mass clipped at each i.
  std::vector<double> tail(bins + 1, 0.0);
  for (int64_t j = bins - 1; j >= 0; --j)
    tail[j] = tail[j + 1] + double(histogram[j]);
  std::vector<double> chunkMass(quantBins), chunkNonzero(quantBins);
  double best = std::numeric_limits<double>::infinity();
  int64_t bestI = bins;
  bool found = false;
  for (int64_t i = quantBins; i <= bins; ++i) {
    std::fill(chunkMass.begin(), chunkMass.end(), 0.0);
    std::fill(chunkNonzero.begin(), chunkNonzero.end(), 0.0);
    for (int64_t j = 0; j < i; ++j) {
      if (histogram[j] == 0)
        continue;
      int64_t c = (quantBins * j) / i;
      chunkMass[c] += double(histogram[j]);
      chunkNonzero[c] += 1;
    }
    // P: hist[0..i) with the clipped mass in bin i - 1; Q: each nonzero bin
    // gets its chunk's mean. Both sum to `total` before normalization.
    double sumQ = 0;
    for (int64_t c = 0; c < quantBins; ++c)
      sumQ += chunkMass[c];
    // sum(Q) equals sum(hist[0..i)); normalize each.
    double sumP = total;
    double kl = 0;
    for (int64_t j = 0; j < i; ++j) {
      double p = double(histogram[j]);
      if (j == i - 1)
        p += tail[i];
      if (p == 0)
        continue;
      double q = 0;
      if (histogram[j] != 0) {
        int64_t c = (quantBins * j) / i;
        q = chunkMass[c] / chunkNonzero[c];
      }
      if (q == 0) {
        kl = std::numeric_limits<double>::infinity();
        break;
      }
      double pn = p / sumP, qn = q / sumQ;
      kl += pn * std::log(pn / qn);
    }
    // The last minimum (NVIDIA's `last_argmin`).
    if (!found || kl <= best) {
      best = kl;
      bestI = i;
      found = true;
    }
  }
  return double(bestI) * binWidth;
}

llvm::Expected<ActivationQuantParams>
mlir::llm::chooseActivationParams(const ActivationStats &stats,
                                  CalibrationMethod method, double percentile,
                                  bool fp8) {
  if (stats.count == 0)
    return llvm::createStringError(
        "activation " + stats.key + " (" + stats.name +
        "): no finite values were recorded in the calibration run");
  ActivationQuantParams p;
  p.fp8 = fp8;
  double absMax = stats.absMax();
  double binWidth = stats.histMax / double(kCalibrationHistogramBins);
  double threshold = absMax;
  switch (method) {
  case CalibrationMethod::MinMax:
    break;
  case CalibrationMethod::Percentile:
    threshold =
        computePercentileThreshold(stats.histogram, binWidth, percentile);
    break;
  case CalibrationMethod::Entropy:
    threshold = computeEntropyThreshold(stats.histogram, binWidth);
    break;
  }
  threshold = std::min(threshold, absMax);
  // Share of the histogram's elements above the threshold (whole bins above
  // it; min-max clips nothing).
  if (method != CalibrationMethod::MinMax && binWidth > 0) {
    double total = 0, clipped = 0;
    for (size_t k = 0; k < stats.histogram.size(); ++k) {
      total += double(stats.histogram[k]);
      if (double(k) * binWidth >= threshold)
        clipped += double(stats.histogram[k]);
    }
    p.clippedFraction = total > 0 ? clipped / total : 0;
  }
  auto exactScale = [](double s) {
    s = double(float(s));
    return (s > 0 && std::isfinite(s)) ? s : 1.0;
  };
  if (fp8) {
    // f8E4M3FN: the largest finite value is 448.
    p.lo = -threshold;
    p.hi = threshold;
    p.scale = exactScale(threshold / 448.0);
    return p;
  }
  if (method == CalibrationMethod::MinMax) {
    // Asymmetric u8 over [min(min, 0), max(max, 0)] (0 exactly
    // representable, as ONNX Runtime's MinMax calibration does).
    p.lo = std::min(stats.min, 0.0);
    p.hi = std::max(stats.max, 0.0);
    p.isUnsigned = true;
    p.scale = exactScale((p.hi - p.lo) / 255.0);
    p.zeroPoint =
        std::clamp<int64_t>(int64_t(std::nearbyint(-p.lo / p.scale)), 0, 255);
    return p;
  }
  // A non-negative activation (after a relu, say): [0, T] onto u8 [0, 255],
  // twice the resolution of the symmetric form.
  if (stats.min >= 0) {
    p.lo = 0;
    p.hi = threshold;
    p.isUnsigned = true;
    p.scale = exactScale(threshold / 255.0);
    return p;
  }
  // Symmetric i8: [-T, T] onto [-127, 127].
  p.lo = -threshold;
  p.hi = threshold;
  p.scale = exactScale(threshold / 127.0);
  return p;
}
