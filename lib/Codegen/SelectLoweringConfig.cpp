//===- SelectLoweringConfig.cpp - CPU per-op lowering configuration -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-select-lowering-config`: the CPU target
// description's choices for the lowering of llm ops (the flash-attention
// tile, the bf16 dot products and the streaming block shapes of the
// weight-only decode matvec, the 8-bit dot products of the integer matmul) are
// recorded on each op as `llm.lowering_config`, which the target-neutral
// `convert-llm-to-linalg` reads.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/TargetDescription.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "llm-select-lowering-config"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMSELECTLOWERINGCONFIGPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// Stored bits of one element of a weight: the storage width of a quantized
/// type (4 for int4), else the type's own width (8 for FP8); 0 if unknown.
static int64_t getStorageBits(Type elementType) {
  if (auto q = dyn_cast<quant::QuantizedType>(elementType))
    return q.getStorageTypeIntegralWidth();
  if (elementType.isIntOrFloat())
    return elementType.getIntOrFloatBitWidth();
  return 0;
}

/// The head dim that the flash lowering computes `d` on for `desc`: `d`
/// rounded up to whole f32 vectors of L lanes when its remainder r = d % L
/// is not a power of two and the added columns are at most d / 8, else
/// `d`. LLVM splits a row of r < L elements into one operation per set bit
/// of r (15 = 8 + 4 + 2 + 1) and the padded row takes one, so a padded row
/// costs ceil(d / L) operations instead of floor(d / L) + popcount(r); but
/// the padded columns are also contraction work in Q K^T. Measured (one
/// Zen 5 core, 8 heads, 128 positions, padded against not): d = 15 0.092
/// against 0.111 ms, 30 0.169 against 0.179 ms; d = 8, 24, 40, 100 and 120
/// (r a power of two) were 5-12% slower padded, d = 7 the same and d = 5
/// 12% slower (9 and 11 added columns).
static int64_t paddedHeadDim(const CPUTargetDescription &desc, int64_t d) {
  int64_t lanes = desc.vectorBits / 32;
  if (lanes <= 1 || ShapedType::isDynamic(d) ||
      llvm::isPowerOf2_64(uint64_t(d % lanes)) || d % lanes == 0 ||
      (int64_t(llvm::alignTo(d, lanes)) - d) * 8 > d)
    return d;
  return llvm::alignTo(d, lanes);
}

/// The padded_head_dims entry of the llm.attention `op` on `desc`, if either
/// of its head dims is padded (paddedHeadDim).
static std::optional<NamedAttribute>
selectPaddedHeadDims(Builder &b, const CPUTargetDescription &desc,
                     AttentionOp op) {
  int64_t d = cast<RankedTensorType>(op.getQuery().getType()).getDimSize(3);
  int64_t dv = cast<RankedTensorType>(op.getValue().getType()).getDimSize(3);
  int64_t dp = paddedHeadDim(desc, d), dvp = paddedHeadDim(desc, dv);
  if (dp == d && dvp == dv)
    return std::nullopt;
  return b.getNamedAttr(kPaddedHeadDimsKey, b.getDenseI64ArrayAttr({dp, dvp}));
}

namespace {
struct LLMSelectLoweringConfigPass
    : llm::impl::LLMSelectLoweringConfigPassBase<LLMSelectLoweringConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CPUTargetDescription> desc = CPUTargetDescription::lookup(target);
    if (failed(desc)) {
      // At each function, like the other passes that read the target; at the
      // module if there is none.
      bool reported = false;
      for (auto func : module.getOps<FunctionOpInterface>()) {
        emitError(func.getLoc())
            << "llm-select-lowering-config: unknown target '" << target
            << "' (expected " << CPUTargetDescription::getKnownNames() << ")";
        reported = true;
      }
      if (!reported)
        emitError(module.getLoc())
            << "llm-select-lowering-config: unknown target '" << target
            << "' (expected " << CPUTargetDescription::getKnownNames() << ")";
      return signalPassFailure();
    }
    SmallVector<int64_t> tile(desc->attentionTile.begin(),
                              desc->attentionTile.end());
    if (!attentionTile.empty())
      tile.assign(attentionTile.begin(), attentionTile.end());
    if (tile.size() != 2 || tile[0] <= 0 || tile[1] <= 0) {
      emitError(module.getLoc())
          << "llm-select-lowering-config: attention-tile must "
             "be two positive sizes [query rows, key/value "
             "rows]";
      return signalPassFailure();
    }
    if (streamedWeightMinBytes < -1) {
      emitError(module.getLoc())
          << "llm-select-lowering-config: streamed-weight-min-bytes must be "
             "-1 (the target's) or a size in bytes, got "
          << static_cast<int64_t>(streamedWeightMinBytes);
      return signalPassFailure();
    }
    int64_t minStreamedBytes = streamedWeightMinBytes >= 0
                                   ? int64_t(streamedWeightMinBytes)
                                   : desc->streamedWeightMinBytes;

    if (!demoteContractionInputs.empty() && demoteContractionInputs != "bf16") {
      emitError(module.getLoc())
          << "llm-select-lowering-config: "
             "demote-contraction-inputs must be empty or "
             "'bf16' (the only dot products of CPU targets "
             "with a rounded input type), got '"
          << demoteContractionInputs << "'";
      return signalPassFailure();
    }
    bool demote = demoteContractionInputs == "bf16";
    if (demote && !desc->bf16DotProduct)
      emitWarning(module.getLoc())
          << "llm-select-lowering-config: demote-contraction-inputs=bf16 has "
             "no effect on target '"
          << desc->name
          << "', which has no bf16 dot products (AVX512-BF16); f32 matmuls "
             "stay f32";

    // Whether the AMX kernels may be used: on the target's tiles, or
    // emulated on the dot products of the same element types.
    bool amxBF16 = desc->amxBF16 || (emulateAMX && desc->bf16DotProduct);
    bool amxInt8 = desc->amxInt8 || (emulateAMX && desc->int8DotProduct);

    // A configuration written by hand (a test's, a tuner's) may ask for dot
    // products the target lacks: the kernel would not run on it.
    bool unsupported = false;
    module.walk([&](Operation *op) {
      if (!op->hasAttr(kLoweringConfigAttrName))
        return;
      StringRef missing;
      if (getConfiguredBF16DotProduct(op).value_or(false) &&
          !desc->bf16DotProduct)
        missing = "dot_product = \"bf16\" needs AVX512-BF16 dot products";
      // The AMX kernels: the tiles (or, emulated, the target's dot
      // products, which their fallback below 32 rows runs on too).
      else if (getConfiguredAMXBF16DotProduct(op).value_or(false) && !amxBF16)
        missing = emulateAMX ? "dot_product = \"amx_bf16\" with emulate-amx "
                               "needs AVX512-BF16 dot products"
                             : "dot_product = \"amx_bf16\" needs AMX tiles "
                               "with bf16 products (AMX-TILE and AMX-BF16)";
      else if (getConfiguredAMXInt8DotProduct(op).value_or(false) && !amxInt8)
        missing = emulateAMX ? "dot_product = \"amx_i8\" with emulate-amx "
                               "needs 8-bit dot products (AVX512-VNNI or "
                               "AVX-VNNI)"
                             : "dot_product = \"amx_i8\" needs AMX tiles "
                               "with 8-bit products (AMX-TILE and AMX-INT8)";
      else if (getConfiguredInt8DotProduct(op).value_or(false) &&
               !desc->int8DotProduct)
        missing = "dot_product = \"i8\" needs 8-bit dot products "
                  "(AVX512-VNNI or AVX-VNNI)";
      if (missing.empty())
        return;
      op->emitError() << "llm-select-lowering-config: " << missing
                      << ", which target '" << desc->name << "' lacks";
      unsupported = true;
    });
    if (unsupported)
      return signalPassFailure();

    Builder b(&getContext());
    module.walk([&](Operation *op) {
      // An attention configured already (by a tuning cache: its tile) also
      // gets the target's padded_head_dims unless it says them.
      if (auto attention = dyn_cast<AttentionOp>(op);
          attention && op->hasAttr(kLoweringConfigAttrName) &&
          !getConfiguredPaddedHeadDims(op)) {
        if (std::optional<NamedAttribute> dims =
                padAttentionHeadDims ? selectPaddedHeadDims(b, *desc, attention)
                                     : std::nullopt) {
          NamedAttrList entries(
              op->getAttrOfType<DictionaryAttr>(kLoweringConfigAttrName));
          entries.set(dims->getName(), dims->getValue());
          op->setAttr(kLoweringConfigAttrName,
                      entries.getDictionary(&getContext()));
        }
        return;
      }
      bool sparse = isa<MatmulOp, DequantMatmulOp>(op) &&
                    op->hasAttr(kSparseFormatAttrName);
      // A constant weight on bf16 dot products: bf16 matmuls, and f32 ones
      // when asked to demote them.
      bool bf16Dot = desc->bf16DotProduct && isBF16DotMatmul(op, demote);
      if (!(sparse || bf16Dot ||
            isa<AttentionOp, DequantMatmulOp, MatmulIntegerOp>(op)) ||
          op->hasAttr(kLoweringConfigAttrName))
        return;
      SmallVector<NamedAttribute> entries;
      // bf16 prefill matmuls (static rows, at least one AMX row block) on
      // AMX tiles where the target has them.
      if (bf16Dot)
        entries.push_back(b.getNamedAttr(
            kDotProductKey,
            b.getStringAttr(amxBF16 && isAMXBF16Matmul(op, demote)
                                ? kDotProductAMXBF16
                                : kDotProductBF16)));
      // vector_bits: the sparse kernels' vectors (llm-sparsify-weights).
      if (sparse)
        entries.push_back(b.getNamedAttr(
            kVectorBitsKey,
            b.getI64IntegerAttr(desc->vectorBits >= 512 ? 512 : 256)));
      if (isa<MatmulIntegerOp>(op)) {
        // dot_product: i8 where the target has 8-bit dot products, amx_i8
        // for a prefill (at least 32 static rows) where it has AMX-INT8.
        bool amx = amxInt8 &&
                   hasAMXRows(cast<ShapedType>(op->getOperand(0).getType()));
        entries.push_back(b.getNamedAttr(
            kDotProductKey,
            b.getStringAttr(amx                    ? kDotProductAMXI8
                            : desc->int8DotProduct ? kDotProductI8
                                                   : kDotProductF32)));
        // vector_bits: 256 on AVX-VNNI targets (AVX2 vectors).
        if (desc->int8DotProduct)
          entries.push_back(b.getNamedAttr(
              kVectorBitsKey,
              b.getI64IntegerAttr(desc->vectorBits >= 512 ? 512 : 256)));
      } else if (isa<AttentionOp>(op)) {
        // attention_tile: the flash-attention tile.
        entries.push_back(
            b.getNamedAttr(kAttentionTileKey, b.getDenseI64ArrayAttr(tile)));
        // padded_head_dims: head dims padded to whole vectors.
        if (padAttentionHeadDims)
          if (std::optional<NamedAttribute> dims =
                  selectPaddedHeadDims(b, *desc, cast<AttentionOp>(op)))
            entries.push_back(*dims);
      } else if (isa<DequantMatmulOp>(op)) {
        // dot_product: bf16 where the target has AVX512-BF16.
        entries.push_back(b.getNamedAttr(
            kDotProductKey,
            b.getStringAttr(desc->bf16DotProduct ? kDotProductBF16
                                                 : kDotProductF32)));
        // streamed: the weight is at least the target's streamed size.
        auto rhs =
            cast<ShapedType>(cast<DequantMatmulOp>(op).getRhs().getType());
        if (rhs.hasStaticShape()) {
          int64_t bytes =
              rhs.getNumElements() * getStorageBits(rhs.getElementType()) / 8;
          entries.push_back(b.getNamedAttr(
              kStreamedKey, b.getBoolAttr(bytes >= minStreamedBytes)));
        }
      }
      op->setAttr(kLoweringConfigAttrName, b.getDictionaryAttr(entries));
      ++numOpsConfigured;
    });
  }
};
} // namespace
