//===- QuantizeWeights.cpp - quantize constant matmul weights -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-quantize-weights`: the f32 constant weight of
// every `llm.matmul` (rank 2) is quantized to int8 or int4 per output
// channel or per group along K, symmetric or not, and replaced by
// `llm.dequantize` of the quantized constant (which `llm-fold-quant` then
// fuses into the matmul). The error introduced on the weights (max abs and
// RMS over all quantized weights) is reported as a remark, pass statistics
// and `llm.report` keys.
//
//===----------------------------------------------------------------------===//

#include "WeightQuantization.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinOps.h"

#include <cmath>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMQUANTIZEWEIGHTSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

struct LLMQuantizeWeightsPass final
    : mlir::llm::impl::LLMQuantizeWeightsPassBase<LLMQuantizeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bits != 8 && bits != 4) {
      emitError(getOperation()->getLoc(),
                "llm-quantize-weights: bits must be 8 or 4");
      return signalPassFailure();
    }
    if (groupSize < 0) {
      emitError(getOperation()->getLoc(),
                "llm-quantize-weights: group-size must be >= 0");
      return signalPassFailure();
    }
    llm::detail::WeightError error;
    int64_t quantized = 0;
    SmallVector<MatmulOp> matmuls;
    getOperation()->walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls) {
      ConstantOp cst = llm::detail::getConstantMatmulWeight(op);
      if (!cst)
        continue;
      auto type = op.getRhs().getType();
      std::optional<std::vector<float>> w =
          llm::detail::readF32Values(cst.getValue());
      if (!w)
        continue;
      // NaN / Inf have no integer level: quantizing would hide them.
      auto nonFinite =
          llvm::find_if(*w, [](float v) { return !std::isfinite(v); });
      if (nonFinite != w->end()) {
        op.emitError("llm-quantize-weights: the weight holds a non-finite "
                     "value (")
            << (std::isnan(*nonFinite) ? "nan"
                : *nonFinite > 0       ? "+inf"
                                       : "-inf")
            << " at flat index " << (nonFinite - w->begin()) << " of "
            << cst.getType() << "), which int" << bits.getValue()
            << " cannot represent";
        return signalPassFailure();
      }
      bool tb = op.getTransposeB();
      int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
      int64_t K = tb ? cols : rows, N = tb ? rows : cols;
      // A weight stored [K, N] (e.g. Hugging Face GPT-2's Conv1D) is stored
      // [N, K] with `transpose_b` instead: rows of output channels, the
      // layout of the weight-only decode kernels (matrix-vector).
      if (!tb) {
        std::vector<float> t(w->size());
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < N; ++n)
            t[n * K + k] = (*w)[k * N + n];
        w = std::move(t);
        tb = true;
        type = RankedTensorType::get({N, K}, type.getElementType());
      }
      int64_t g = groupSize ? groupSize.getValue() : K;
      if (K % g != 0) {
        op.emitWarning("llm-quantize-weights: K = ")
            << K << " is not a multiple of group-size " << g
            << "; weight left in f32";
        continue;
      }
      llm::detail::WeightQuantization q;
      q.bits = bits;
      q.groupSize = groupSize;
      q.symmetric = symmetric;
      OpBuilder b(op);
      op.getRhsMutable().assign(llm::detail::buildQuantizedWeight(
          b, cst.getLoc(), *w, type, tb, q, error));
      op.setTransposeB(true);
      // The f32 weight, unless another op still reads it.
      if (cst->use_empty())
        cst.erase();
      ++quantized;
    }
    int64_t count = error.count;
    double maxErr = error.maxAbs;
    double rms = error.rms();
    numWeights += quantized;
    numElements += count;
    if (auto module = dyn_cast<ModuleOp>(getOperation())) {
      accumulateReportValue(module, "quantized_weights", quantized);
      accumulateReportValue(module, "quantized_weight_elements", count);
      llm::detail::recordWeightError(module, "quantized_weight", error);
    }
    if (quantized)
      emitRemark(getOperation()->getLoc(), "llm-quantize-weights: ")
          << quantized << " weights (" << count << " elements) to int"
          << bits.getValue() << ", max abs error " << maxErr << ", RMS error "
          << rms;
  }
};

} // namespace
