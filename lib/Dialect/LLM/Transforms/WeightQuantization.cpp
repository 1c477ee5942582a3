//===- WeightQuantization.cpp - Quantized constant weights ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WeightQuantization.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::llm;

ConstantOp mlir::llm::detail::getConstantMatmulWeight(MatmulOp op,
                                                      bool halfToo) {
  auto cst = op.getRhs().getDefiningOp<ConstantOp>();
  RankedTensorType type = op.getRhs().getType();
  Type et = type.getElementType();
  if (!cst || op.getTransposeA() || type.getRank() != 2 ||
      !type.hasStaticShape() ||
      !(et.isF32() || (halfToo && (et.isF16() || et.isBF16()))))
    return nullptr;
  return cst;
}

std::optional<std::vector<float>>
mlir::llm::detail::readF32Values(ElementsAttr attr) {
  if (!attr.getElementType().isF32())
    return std::nullopt;
  return readFloatValues(attr);
}

void mlir::llm::detail::recordWeightError(ModuleOp module, StringRef prefix,
                                          const WeightError &error) {
  recordReportValue(module, (prefix + "_max_abs_error_e9").str(),
                    int64_t(std::llround(error.maxAbs * 1e9)));
  recordReportValue(module, (prefix + "_rms_error_e9").str(),
                    int64_t(std::llround(error.rms() * 1e9)));
}

Value mlir::llm::detail::buildQuantizedWeight(
    OpBuilder &b, Location loc, ArrayRef<float> w, RankedTensorType type,
    bool transposed, const WeightQuantization &q, WeightError &error) {
  const bool tb = transposed;
  const int bits = q.bits;
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t K = tb ? cols : rows, N = tb ? rows : cols;
  int64_t g = q.groupSize ? q.groupSize : K;
  int64_t groups = q.perTensor ? 1 : K / g;
  int64_t channels = q.perTensor ? 1 : N;
  if (q.perTensor)
    g = K;
  int64_t qmin = bits == 8 ? -128 : -8, qmax = bits == 8 ? 127 : 7;
  // Parameters per (group, channel), in the weight's layout.
  SmallVector<int64_t> pshape =
      tb ? SmallVector<int64_t>{N, groups} : SmallVector<int64_t>{groups, N};
  std::vector<double> scales(groups * channels);
  std::vector<int64_t> zps(groups * channels, 0);
  std::vector<int64_t> values(w.size());
  auto at = [&](int64_t k, int64_t n) { return tb ? n * K + k : k * N + n; };
  auto pat = [&](int64_t gi, int64_t c) {
    return tb ? c * groups + gi : gi * channels + c;
  };
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t gi = 0; gi < groups; ++gi) {
      // The channels and rows of K this parameter covers.
      int64_t n0 = q.perTensor ? 0 : c, n1 = q.perTensor ? N : c + 1;
      float lo = 0, hi = 0;
      for (int64_t n = n0; n < n1; ++n)
        for (int64_t k = gi * g; k < (gi + 1) * g; ++k) {
          lo = std::min(lo, w[at(k, n)]);
          hi = std::max(hi, w[at(k, n)]);
        }
      double s;
      int64_t z = 0;
      if (q.symmetric) {
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
      scales[pat(gi, c)] = s;
      zps[pat(gi, c)] = z;
      for (int64_t n = n0; n < n1; ++n)
        for (int64_t k = gi * g; k < (gi + 1) * g; ++k) {
          float x = w[at(k, n)];
          // ONNX QuantizeLinear: round half to even of the f32 quotient.
          double r = std::nearbyint(double(float(x / float(s)))) + double(z);
          int64_t v = std::clamp<int64_t>(int64_t(r), qmin, qmax);
          values[at(k, n)] = v;
          float back = float(v - z) * float(s);
          double e = std::fabs(double(back) - double(x));
          error.add(e);
        }
    }
  // The quantized constant, its type and the dequantize.
  Type storage = b.getIntegerType(bits);
  auto storageType = RankedTensorType::get(type.getShape(), storage);
  SmallVector<APInt> ints;
  ints.reserve(values.size());
  for (int64_t v : values)
    ints.push_back(APInt(bits, v, /*isSigned=*/true));
  Value qc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(storageType, ints));
  Type qt;
  int32_t kDim = tb ? 1 : 0, nDim = 1 - kDim;
  if (q.perTensor) {
    qt = quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed,
                                          storage, b.getF32Type(), scales[0],
                                          zps[0], qmin, qmax);
  } else if (groups == 1) {
    qt = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, storage, b.getF32Type(), scales, zps,
        nDim, qmin, qmax);
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
        DenseElementsAttr::get(zt, zs), SmallVector<int32_t>{0, 1},
        tb ? SmallVector<int64_t>{1, g} : SmallVector<int64_t>{g, 1}, qmin,
        qmax);
  }
  Value qv = quant::StorageCastOp::create(
      b, loc, RankedTensorType::get(type.getShape(), qt), qc);
  return DequantizeOp::create(b, loc, type, qv, nullptr);
}
