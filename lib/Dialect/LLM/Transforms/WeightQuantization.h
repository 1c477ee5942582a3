//===- WeightQuantization.h - Quantized constant weights --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The constant f32 weights of matmuls: which ones the weight passes take,
// their values, and their quantization into
// `llm.dequantize(quant.scast(arith.constant <int>))`, shared by
// llm-quantize-weights (weight-only) and llm-quantize-activations (W8A8).
// Private to the llm transforms.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_LLM_TRANSFORMS_WEIGHTQUANTIZATION_H
#define LIB_DIALECT_LLM_TRANSFORMS_WEIGHTQUANTIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace mlir::llm {
class ConstantOp;
class MatmulOp;
} // namespace mlir::llm

namespace mlir::llm::detail {

/// The weight of `op` that the weight passes (quantization, calibration,
/// smoothing, pruning, sparsity) rewrite: a statically shaped rank-2 f32
/// (with `halfToo`, also f16 or bf16) `llm.constant` as `rhs` of a matmul
/// without `transpose_a`; else null.
ConstantOp getConstantMatmulWeight(MatmulOp op, bool halfToo = false);

/// The f32 values of a constant (inline dense, or a little-endian
/// dense_resource blob), row-major; std::nullopt for other element types or
/// a blob of the wrong size.
std::optional<std::vector<float>> readF32Values(ElementsAttr attr);

/// How a rank-2 weight is quantized.
struct WeightQuantization {
  /// 8 or 4.
  int bits = 8;
  /// Elements per group along K (0: all of K, one group per channel).
  int64_t groupSize = 0;
  /// One scale and zero point for the whole weight (groupSize unused).
  bool perTensor = false;
  /// Zero point 0 and `s = max|w| / qmax`; else `s = (max - min) / (qmax -
  /// qmin)`, `z = round(qmin - min / s)`.
  bool symmetric = true;
};

/// The error a weight pass introduced, `|w' - w|` per element (quantization:
/// `w' = dequantize(quantize(w))`; pruning: `w'` the pruned weight).
struct WeightError {
  double maxAbs = 0, sumSquares = 0;
  int64_t count = 0;

  void add(double e) {
    maxAbs = std::max(maxAbs, e);
    sumSquares += e * e;
    ++count;
  }
  /// The root mean square of the errors added (0 with none).
  double rms() const {
    return count ? std::sqrt(sumSquares / double(count)) : 0.0;
  }
};

/// Records `error` in `module`'s `llm.report` as `PREFIX_max_abs_error_e9`
/// and `PREFIX_rms_error_e9` (the errors times 1e9, rounded).
void recordWeightError(ModuleOp module, StringRef prefix,
                       const WeightError &error);

/// Builds `llm.dequantize(quant.scast(arith.constant q))` of type `type`
/// (f32, rank 2) for the weight values `w` (row-major in `type`'s shape),
/// which is stored [N, K] when `transposed` (the matmul's `transpose_b`),
/// else [K, N]. Parameters per tensor, per channel (per-axis along N) or per
/// group of `groupSize` along K (sub-channel), with ONNX QuantizeLinear
/// rounding (half to even) and saturation; scales are f32-exact; an all-zero
/// group gets scale 1. K must be a multiple of the group size (the caller
/// checks). Accumulates the error into `error`.
Value buildQuantizedWeight(OpBuilder &b, Location loc, ArrayRef<float> w,
                           RankedTensorType type, bool transposed,
                           const WeightQuantization &q, WeightError &error);

} // namespace mlir::llm::detail

#endif // LIB_DIALECT_LLM_TRANSFORMS_WEIGHTQUANTIZATION_H
