//===- SmoothActivations.cpp - SmoothQuant's outlier migration ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llm-smooth-activations`: SmoothQuant's per-channel scales, folded into
// the norm before the matmuls and into their weights
// (llm/Dialect/LLM/Transforms/Calibration.h).
//
//===----------------------------------------------------------------------===//

#include "WeightQuantization.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Calibration.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMSMOOTHACTIVATIONSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// The values of a rank-1 [d] f32 constant, or std::nullopt.
static std::optional<std::vector<float>> readVector(Value v, int64_t d) {
  auto cst = v.getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!cst || !type || type.getRank() != 1 || type.getDimSize(0) != d)
    return std::nullopt;
  return llm::detail::readF32Values(cst.getValue());
}

/// A new llm.constant of `type` holding `values`, before `op`.
static Value createConstant(Operation *op, Location loc, Type type,
                            ArrayRef<float> values) {
  OpBuilder b(op);
  auto t = cast<RankedTensorType>(type);
  return ConstantOp::create(b, loc, t, DenseElementsAttr::get(t, values));
}

FailureOr<int64_t> mlir::llm::smoothActivations(ModuleOp module,
                                                const CalibrationTable &table,
                                                double alpha, StringRef entry) {
  if (!(alpha > 0 && alpha <= 1))
    return mlir::emitError(module.getLoc(),
                           "llm-smooth-activations: alpha must be in (0, 1], "
                           "got ")
           << alpha;
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return mlir::emitError(module.getLoc(),
                           "llm-smooth-activations: no function @")
           << entry << " with a body";
  int64_t smoothed = 0;
  for (const CalibrationPoint &p : getCalibrationPoints(func)) {
    Operation *norm = p.value.getDefiningOp();
    if (!norm || !isa<LayerNormOp, RmsNormOp>(norm))
      continue;
    auto type = cast<RankedTensorType>(p.value.getType());
    if (type.getRank() < 1 || ShapedType::isDynamic(type.getShape().back()))
      continue;
    int64_t d = type.getShape().back();
    // Every reader: a matmul reading it as lhs with a constant [K = d, N]
    // (or transpose_b [N, d]) f32 weight.
    SmallVector<MatmulOp> matmuls;
    bool ok = !p.value.use_empty();
    for (Operation *user : p.value.getUsers()) {
      auto mm = dyn_cast<MatmulOp>(user);
      ConstantOp cst =
          mm ? llm::detail::getConstantMatmulWeight(mm) : ConstantOp();
      if (!mm || !cst || mm.getLhs() != p.value ||
          mm.getRhs().getType().getDimSize(mm.getTransposeB() ? 1 : 0) != d) {
        ok = false;
        break;
      }
      if (!llvm::is_contained(matmuls, mm))
        matmuls.push_back(mm);
    }
    if (!ok)
      continue;
    // The norm's constants.
    Value scaleValue, biasValue;
    if (auto ln = dyn_cast<LayerNormOp>(norm)) {
      scaleValue = ln.getScale();
      biasValue = ln.getBias();
    } else {
      scaleValue = cast<RmsNormOp>(norm).getWeight();
    }
    if (!scaleValue)
      continue;
    std::optional<std::vector<float>> gamma = readVector(scaleValue, d);
    std::optional<std::vector<float>> beta;
    if (biasValue)
      beta = readVector(biasValue, d);
    if (!gamma || (biasValue && !beta))
      continue;
    const ActivationStats *stats = table.lookup(p.key);
    std::string typeText;
    llvm::raw_string_ostream(typeText) << p.value.getType();
    if (!stats || stats->type != typeText || stats->op != p.op)
      return mlir::emitError(func.getLoc(),
                             "llm-smooth-activations: the calibration table "
                             "does not match this module at ")
             << p.key << " (" << p.name << ", " << typeText
             << "): it was recorded for another model";
    if (static_cast<int64_t>(stats->channelAbsMax.size()) != d)
      return mlir::emitError(func.getLoc(),
                             "llm-smooth-activations: the calibration table's ")
             << p.key << " has " << stats->channelAbsMax.size()
             << " channel maxima; expected " << d;
    // max |W_j| over the rows j of every weight.
    std::vector<std::vector<float>> weights;
    std::vector<double> wmax(d, 0.0);
    for (MatmulOp mm : matmuls) {
      ConstantOp cst = llm::detail::getConstantMatmulWeight(mm);
      std::optional<std::vector<float>> w =
          llm::detail::readF32Values(cst.getValue());
      if (!w)
        return mlir::emitError(mm.getLoc(),
                               "llm-smooth-activations: cannot read the "
                               "weight's values");
      RankedTensorType wt = mm.getRhs().getType();
      int64_t other = wt.getDimSize(mm.getTransposeB() ? 0 : 1);
      for (int64_t j = 0; j < d; ++j)
        for (int64_t n = 0; n < other; ++n) {
          float v = mm.getTransposeB() ? (*w)[n * d + j] : (*w)[j * other + n];
          wmax[j] = std::max(wmax[j], double(std::fabs(v)));
        }
      weights.push_back(std::move(*w));
    }
    std::vector<double> s(d, 1.0);
    for (int64_t j = 0; j < d; ++j) {
      double x = stats->channelAbsMax[j], w = wmax[j];
      if (x > 0 && w > 0)
        s[j] =
            std::clamp(std::pow(x, alpha) / std::pow(w, 1 - alpha), 1e-5, 1e5);
    }
    // The norm divides by s, the weights' rows multiply by it.
    std::vector<float> g(d), bvec(d);
    for (int64_t j = 0; j < d; ++j) {
      g[j] = float(double((*gamma)[j]) / s[j]);
      if (beta)
        bvec[j] = float(double((*beta)[j]) / s[j]);
    }
    norm->setOperand(
        1, createConstant(norm, scaleValue.getLoc(), scaleValue.getType(), g));
    if (beta)
      norm->setOperand(2, createConstant(norm, biasValue.getLoc(),
                                         biasValue.getType(), bvec));
    // The replaced constants, unless something else reads them.
    auto eraseIfDead = [](Value v) {
      if (v && v.use_empty())
        v.getDefiningOp()->erase();
    };
    eraseIfDead(scaleValue);
    eraseIfDead(biasValue);
    for (auto [mm, w] : llvm::zip_equal(matmuls, weights)) {
      RankedTensorType wt = mm.getRhs().getType();
      int64_t other = wt.getDimSize(mm.getTransposeB() ? 0 : 1);
      for (int64_t j = 0; j < d; ++j)
        for (int64_t n = 0; n < other; ++n) {
          float &v = mm.getTransposeB() ? w[n * d + j] : w[j * other + n];
          v = float(double(v) * s[j]);
        }
      Value old = mm.getRhs();
      mm.getRhsMutable().assign(createConstant(mm, old.getLoc(), wt, w));
      eraseIfDead(old);
    }
    ++smoothed;
  }
  return smoothed;
}

namespace {
struct LLMSmoothActivationsPass final
    : mlir::llm::impl::LLMSmoothActivationsPassBase<LLMSmoothActivationsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (ranges.empty()) {
      mlir::emitError(module.getLoc(),
                      "llm-smooth-activations: ranges=FILE is required (a "
                      "calibration table, docs/Calibration.md)");
      return signalPassFailure();
    }
    llvm::Expected<CalibrationTable> table = CalibrationTable::load(ranges);
    if (!table) {
      mlir::emitError(module.getLoc(), "llm-smooth-activations: ")
          << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    if (failed(smoothActivations(module, *table, alpha, entry)))
      signalPassFailure();
  }
};
} // namespace
