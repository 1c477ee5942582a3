//===- QuantizeActivations.cpp - W8A8 from calibration ranges -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llm-quantize-activations`: static quantization of the activations that
// matmuls with constant weights read, with scales chosen from a calibration
// table, and of those weights (llm/Dialect/LLM/Transforms/Calibration.h).
// The result is a QDQ graph: `llm-fold-quant` makes the integer matmuls.
//
//===----------------------------------------------------------------------===//

#include "WeightQuantization.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Calibration.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/GlobPattern.h"

#include <cmath>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMQUANTIZEACTIVATIONSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// The largest finite f8E4M3FN value.
static constexpr double kFloat8E4M3FNMax = 448.0;

/// The name of a matmul's location as calibration points name their readers.
static std::string getMatmulName(MatmulOp op) {
  return getCalibrationLocationName(op.getLoc());
}

/// The constant f32 [K, N] or [N, K] weight of `op`, or nullptr.
static ConstantOp getConstantWeight(MatmulOp op) {
  return llm::detail::getConstantMatmulWeight(op);
}

/// `w` ([K, N], row-major) as an f8E4M3FN constant with scale `s`:
/// `dequantize(constant(saturate(w / s)))`, rounded to nearest even.
static Value buildFloat8Weight(OpBuilder &b, Location loc, ArrayRef<float> w,
                               RankedTensorType type,
                               llm::detail::WeightError &error) {
  double absMax = 0;
  for (float v : w)
    absMax = std::max(absMax, double(std::fabs(v)));
  float s = float(absMax / kFloat8E4M3FNMax);
  if (!(s > 0) || !std::isfinite(s))
    s = 1.0f;
  const llvm::fltSemantics &sem = llvm::APFloat::Float8E4M3FN();
  SmallVector<APFloat> values;
  values.reserve(w.size());
  for (float v : w) {
    float r =
        std::clamp(v / s, float(-kFloat8E4M3FNMax), float(kFloat8E4M3FNMax));
    APFloat f(r);
    bool lost;
    f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    values.push_back(f);
    double back = double(f.convertToDouble()) * double(s);
    double e = std::fabs(back - double(v));
    error.add(e);
  }
  auto f8Type =
      RankedTensorType::get(type.getShape(), b.getType<Float8E4M3FNType>());
  Value cst =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(f8Type, values));
  return DequantizeOp::create(b, loc, type, cst, b.getF32FloatAttr(s));
}

namespace {
/// The quantization planned for one activation.
struct ActivationPlan {
  const CalibrationPoint *point;
  ActivationQuantParams params;
  SmallVector<MatmulOp> matmuls;
};
} // namespace

llvm::Error mlir::llm::checkQuantizeActivationsOptions(
    const QuantizeActivationsOptions &options) {
  if (options.method == CalibrationMethod::Percentile &&
      !(options.percentile > 0 && options.percentile <= 100)) {
    std::string value;
    llvm::raw_string_ostream(value) << llvm::format("%g", options.percentile);
    return llvm::createStringError("percentile must be in (0, 100], got " +
                                   value);
  }
  for (const std::string &text : options.exclude) {
    if (StringRef(text).contains('{') || StringRef(text).contains('}'))
      return llvm::createStringError(
          "exclude '" + text +
          "': braces are not supported (give several patterns instead of "
          "{a,b})");
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(text);
    if (!glob)
      return llvm::createStringError("exclude '" + text +
                                     "': " + llvm::toString(glob.takeError()));
  }
  return llvm::Error::success();
}

FailureOr<QuantizeActivationsResult>
mlir::llm::quantizeActivations(ModuleOp module, const CalibrationTable &table,
                               const QuantizeActivationsOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>(options.entry);
  if (!func || func.isExternal())
    return mlir::emitError(module.getLoc(),
                           "llm-quantize-activations: no function @")
           << options.entry << " with a body";
  if (llvm::Error e = checkQuantizeActivationsOptions(options))
    return mlir::emitError(module.getLoc(), "llm-quantize-activations: ")
           << llvm::toString(std::move(e));
  if (table.entry != options.entry)
    return mlir::emitError(module.getLoc(),
                           "llm-quantize-activations: the calibration table "
                           "was recorded for @")
           << table.entry << ", not @" << options.entry;
  SmallVector<llvm::GlobPattern> globs;
  for (const std::string &text : options.exclude)
    globs.push_back(cantFail(llvm::GlobPattern::create(text)));
  SmallVector<bool> globMatched(globs.size(), false);
  auto excluded = [&](ArrayRef<StringRef> names) {
    bool any = false;
    for (auto [g, matched] : llvm::zip_equal(globs, globMatched))
      for (StringRef n : names)
        if (g.match(n))
          any = matched = true;
    return any;
  };

  // Check the table against the module and plan; nothing changes before the
  // plan is complete.
  SmallVector<CalibrationPoint> points = getCalibrationPoints(func);
  QuantizeActivationsResult result;
  SmallVector<ActivationPlan> plans;
  for (const CalibrationPoint &p : points) {
    std::string type;
    llvm::raw_string_ostream(type) << p.value.getType();
    const ActivationStats *stats = table.lookup(p.key);
    if (!stats)
      return mlir::emitError(func.getLoc(),
                             "llm-quantize-activations: the calibration table "
                             "has no entry for ")
             << p.key << " (" << p.name << ", " << type << " read by " << p.op
             << "): it was recorded for another model";
    if (stats->type != type || stats->op != p.op)
      return mlir::emitError(func.getLoc(),
                             "llm-quantize-activations: the calibration "
                             "table's ")
             << p.key << " is a " << stats->type << " read by " << stats->op
             << " (" << stats->name << "), but this module's " << p.key
             << " is a " << type << " read by " << p.op << " (" << p.name
             << "): the table was recorded for another model or another "
                "preparation of it";
    ActivationPlan plan{&p, {}, {}};
    for (Operation *user : p.value.getUsers()) {
      auto mm = dyn_cast<MatmulOp>(user);
      if (!mm || mm.getLhs() != p.value || mm.getRhs() == p.value ||
          mm.getTransposeA() || !mm.getType().getElementType().isF32() ||
          !getConstantWeight(mm) || llvm::is_contained(plan.matmuls, mm))
        continue;
      std::string name = getMatmulName(mm);
      if (excluded({name, p.key, p.name})) {
        if (!llvm::is_contained(result.excluded, name))
          result.excluded.push_back(name);
        continue;
      }
      plan.matmuls.push_back(mm);
    }
    if (plan.matmuls.empty())
      continue;
    if (!cast<RankedTensorType>(p.value.getType()).hasStaticShape())
      return mlir::emitError(func.getLoc(), "llm-quantize-activations: ")
             << p.key << " (" << p.name << ") is a " << type
             << ": activations with dynamic dimensions cannot be quantized "
                "yet (llm.quantize and llm.matmul_integer need static "
                "shapes); calibrate the model with static shapes";
    llvm::Expected<ActivationQuantParams> params = chooseActivationParams(
        *stats, options.method, options.percentile, options.fp8);
    if (!params)
      return mlir::emitError(func.getLoc(), "llm-quantize-activations: ")
             << llvm::toString(params.takeError());
    plan.params = *params;
    plans.push_back(std::move(plan));
  }
  // The weights' values, read before anything changes.
  for (ActivationPlan &plan : plans)
    for (MatmulOp mm : plan.matmuls) {
      std::optional<std::vector<float>> w =
          llm::detail::readF32Values(getConstantWeight(mm).getValue());
      if (!w)
        return mlir::emitError(mm.getLoc(),
                               "llm-quantize-activations: cannot read the "
                               "weight's values");
      if (!llvm::all_of(*w, [](float v) { return std::isfinite(v); }))
        return mlir::emitError(
                   getConstantWeight(mm).getLoc(),
                   "llm-quantize-activations: the weight of the matmul at ")
               << getMatmulName(mm)
               << " has NaN or infinite values; it cannot be quantized "
                  "(exclude the matmul to keep it in f32)";
    }

  MLIRContext *ctx = module.getContext();
  Type f32 = Float32Type::get(ctx);
  llm::detail::WeightError weightError;
  for (ActivationPlan &plan : plans) {
    Value x = plan.point->value;
    auto xType = cast<RankedTensorType>(x.getType());
    OpBuilder b(ctx);
    if (Operation *def = x.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(x.getParentBlock());
    Location loc = x.getLoc();
    const ActivationQuantParams &p = plan.params;
    Value dq;
    if (p.fp8) {
      FloatAttr scale = b.getF32FloatAttr(float(p.scale));
      Value q = QuantizeOp::create(
          b, loc, xType.clone(b.getType<Float8E4M3FNType>()), x, scale);
      dq = DequantizeOp::create(b, loc, xType, q, scale);
    } else {
      Type storage = b.getIntegerType(8);
      Type qt = p.isUnsigned ? quant::UniformQuantizedType::get(
                                   /*flags=*/0, storage, f32, p.scale,
                                   p.zeroPoint, 0, 255)
                             : quant::UniformQuantizedType::get(
                                   quant::QuantizationFlags::Signed, storage,
                                   f32, p.scale, 0, -128, 127);
      Value q = QuantizeOp::create(b, loc, xType.clone(qt), x, nullptr);
      dq = DequantizeOp::create(b, loc, xType, q, nullptr);
    }
    QuantizedActivation info;
    info.key = plan.point->key;
    info.name = plan.point->name;
    info.params = p;
    for (MatmulOp mm : plan.matmuls) {
      ConstantOp cst = getConstantWeight(mm);
      std::vector<float> w = *llm::detail::readF32Values(cst.getValue());
      RankedTensorType type = mm.getRhs().getType();
      // The integer matmul reads its weight [K, N].
      if (mm.getTransposeB()) {
        int64_t N = type.getDimSize(0), K = type.getDimSize(1);
        std::vector<float> t(w.size());
        for (int64_t n = 0; n < N; ++n)
          for (int64_t k = 0; k < K; ++k)
            t[k * N + n] = w[n * K + k];
        w = std::move(t);
        type = RankedTensorType::get({K, N}, f32);
      }
      OpBuilder wb(mm);
      Value dw;
      if (p.fp8) {
        dw = buildFloat8Weight(wb, cst.getLoc(), w, type, weightError);
      } else {
        llm::detail::WeightQuantization wq;
        wq.bits = 8;
        wq.perTensor = !options.perChannelWeights;
        wq.symmetric = true;
        dw = llm::detail::buildQuantizedWeight(wb, cst.getLoc(), w, type,
                                               /*transposed=*/false, wq,
                                               weightError);
      }
      mm.getLhsMutable().assign(dq);
      mm.getRhsMutable().assign(dw);
      mm.setTransposeB(false);
      // The f32 weight, unless something else reads it.
      if (cst->use_empty())
        cst->erase();
      info.matmuls.push_back(getMatmulName(mm));
      ++result.matmuls;
    }
    result.activations.push_back(std::move(info));
  }
  for (auto [text, matched] : llvm::zip_equal(options.exclude, globMatched))
    if (!matched)
      result.unmatchedExcludes.push_back(text);
  result.weightMaxAbsError = weightError.maxAbs;
  result.weightRmsError = weightError.rms();
  return result;
}

namespace {
struct LLMQuantizeActivationsPass final
    : mlir::llm::impl::LLMQuantizeActivationsPassBase<
          LLMQuantizeActivationsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (ranges.empty()) {
      mlir::emitError(module.getLoc(),
                      "llm-quantize-activations: ranges=FILE is required "
                      "(a calibration table: llmc calibrate --ranges-out, "
                      "docs/Calibration.md)");
      return signalPassFailure();
    }
    QuantizeActivationsOptions options;
    std::optional<CalibrationMethod> m = parseCalibrationMethod(method);
    if (!m) {
      mlir::emitError(module.getLoc(),
                      "llm-quantize-activations: unknown method '")
          << method << "' (minmax, percentile or entropy)";
      return signalPassFailure();
    }
    options.method = *m;
    options.percentile = percentile;
    options.perChannelWeights = perChannelWeights;
    options.fp8 = fp8;
    options.exclude.assign(exclude.begin(), exclude.end());
    options.entry = entry;
    llvm::Expected<CalibrationTable> table = CalibrationTable::load(ranges);
    if (!table) {
      mlir::emitError(module.getLoc(), "llm-quantize-activations: ")
          << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    FailureOr<QuantizeActivationsResult> result =
        quantizeActivations(module, *table, options);
    if (failed(result))
      return signalPassFailure();
    numActivations += result->activations.size();
    numMatmuls += result->matmuls;
  }
};
} // namespace
