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

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMQUANTIZEWEIGHTSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// The f32 values of a constant (inline dense or little-endian resource).
std::optional<std::vector<float>> readF32(ElementsAttr attr) {
  std::vector<float> out;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    for (float v : dense.getValues<float>())
      out.push_back(v);
    return out;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!res || !res.getElementType().isF32() || !res.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = res.getRawHandle().getBlob()->getData();
  int64_t n = res.getNumElements();
  if (static_cast<int64_t>(data.size()) != n * 4)
    return std::nullopt;
  out.resize(n);
  std::memcpy(out.data(), data.data(), n * 4);
  return out;
}

struct LLMQuantizeWeightsPass final
    : mlir::llm::impl::LLMQuantizeWeightsPassBase<LLMQuantizeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bits != 8 && bits != 4) {
      getOperation()->emitError("llm-quantize-weights: bits must be 8 or 4");
      return signalPassFailure();
    }
    if (groupSize < 0) {
      getOperation()->emitError(
          "llm-quantize-weights: group-size must be >= 0");
      return signalPassFailure();
    }
    double maxErr = 0, sumSq = 0;
    int64_t count = 0, quantized = 0;
    SmallVector<MatmulOp> matmuls;
    getOperation()->walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls) {
      auto cst = op.getRhs().getDefiningOp<ConstantOp>();
      auto type = op.getRhs().getType();
      if (!cst || type.getRank() != 2 || !type.getElementType().isF32() ||
          op.getTransposeA())
        continue;
      std::optional<std::vector<float>> w = readF32(cst.getValue());
      if (!w)
        continue;
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
      int64_t groups = K / g;
      int64_t qmin = bits == 8 ? -128 : -8, qmax = bits == 8 ? 127 : 7;
      // Parameters per (group, channel), in the weight's layout.
      SmallVector<int64_t> pshape = tb ? SmallVector<int64_t>{N, groups}
                                       : SmallVector<int64_t>{groups, N};
      std::vector<double> scales(groups * N);
      std::vector<int64_t> zps(groups * N, 0);
      std::vector<int64_t> q(w->size());
      auto at = [&](int64_t k, int64_t n) { return tb ? n * K + k : k * N + n; };
      auto pat = [&](int64_t gi, int64_t n) {
        return tb ? n * groups + gi : gi * N + n;
      };
      for (int64_t n = 0; n < N; ++n)
        for (int64_t gi = 0; gi < groups; ++gi) {
          float lo = 0, hi = 0;
          for (int64_t k = gi * g; k < (gi + 1) * g; ++k) {
            lo = std::min(lo, (*w)[at(k, n)]);
            hi = std::max(hi, (*w)[at(k, n)]);
          }
          double s;
          int64_t z = 0;
          if (symmetric) {
            s = std::max(std::fabs(lo), std::fabs(hi)) / double(qmax);
          } else {
            s = (double(hi) - double(lo)) / double(qmax - qmin);
            if (s > 0)
              z = std::clamp<int64_t>(
                  int64_t(std::nearbyint(double(qmin) - lo / s)), qmin, qmax);
          }
          // Keep the f32 scale exact in the type (it is read back as f32).
          s = double(float(s));
          if (!(s > 0) || !std::isfinite(s))
            s = 1.0; // An all-zero group: any scale is exact.
          scales[pat(gi, n)] = s;
          zps[pat(gi, n)] = z;
          for (int64_t k = gi * g; k < (gi + 1) * g; ++k) {
            float x = (*w)[at(k, n)];
            // ONNX QuantizeLinear: round half to even of the f32 quotient.
            double r = std::nearbyint(double(float(x / float(s)))) + double(z);
            int64_t v = std::clamp<int64_t>(int64_t(r), qmin, qmax);
            q[at(k, n)] = v;
            float back = float(v - z) * float(s);
            double e = std::fabs(double(back) - double(x));
            maxErr = std::max(maxErr, e);
            sumSq += e * e;
            ++count;
          }
        }
      // The quantized constant, its type and the dequantize.
      OpBuilder b(op);
      Location loc = cst.getLoc();
      Type storage = b.getIntegerType(bits);
      auto storageType = RankedTensorType::get(type.getShape(), storage);
      SmallVector<APInt> values;
      for (int64_t v : q)
        values.push_back(APInt(bits, v, /*isSigned=*/true));
      Value qc = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(storageType, values));
      Type qt;
      int32_t kDim = tb ? 1 : 0, nDim = 1 - kDim;
      if (groups == 1) {
        qt = quant::UniformQuantizedPerAxisType::get(
            quant::QuantizationFlags::Signed, storage, b.getF32Type(), scales,
            zps, nDim, qmin, qmax);
      } else {
        auto st = RankedTensorType::get(pshape, b.getF32Type());
        auto zt = RankedTensorType::get(pshape, storage);
        SmallVector<float> fs(scales.begin(), scales.end());
        SmallVector<APInt> zs;
        for (int64_t z : zps)
          zs.push_back(APInt(bits, z, true));
        qt = quant::UniformQuantizedSubChannelType::get(
            quant::QuantizationFlags::Signed, storage, b.getF32Type(),
            DenseElementsAttr::get(st, ArrayRef<float>(fs)),
            DenseElementsAttr::get(zt, zs),
            SmallVector<int32_t>{0, 1},
            tb ? SmallVector<int64_t>{1, g} : SmallVector<int64_t>{g, 1},
            qmin, qmax);
      }
      Value qv = quant::StorageCastOp::create(
          b, loc, RankedTensorType::get(type.getShape(), qt), qc);
      Value dq = DequantizeOp::create(b, loc, type, qv, nullptr);
      op.getRhsMutable().assign(dq);
      op.setTransposeB(true);
      ++quantized;
    }
    double rms = count ? std::sqrt(sumSq / double(count)) : 0.0;
    numWeights += quantized;
    numElements += count;
    if (auto module = dyn_cast<ModuleOp>(getOperation())) {
      accumulateReportValue(module, "quantized_weights", quantized);
      accumulateReportValue(module, "quantized_weight_elements", count);
      recordReportValue(module, "quantized_weight_max_abs_error_e9",
                        int64_t(std::llround(maxErr * 1e9)));
      recordReportValue(module, "quantized_weight_rms_error_e9",
                        int64_t(std::llround(rms * 1e9)));
    }
    if (quantized)
      emitRemark(getOperation()->getLoc(), "llm-quantize-weights: ")
          << quantized << " weights (" << count << " elements) to int"
          << bits.getValue() << ", max abs error " << maxErr << ", RMS error "
          << rms;
  }
};

} // namespace
