//===- LoweringConfig.cpp - Per-op lowering configuration -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verification and the accessors of the
// `llm.lowering_config` attribute, and the names of the weight layouts
// (llm/Dialect/LLM/IR/LoweringConfig.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <string>

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// llm.lowering_config
//===----------------------------------------------------------------------===//

LogicalResult mlir::llm::verifyLoweringConfig(Operation *op, Attribute attr) {
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return op->emitOpError() << "'" << kLoweringConfigAttrName
                             << "' must be a dictionary, got " << attr;
  bool attention = isa<AttentionOp>(op);
  bool dequantMatmul = isa<DequantMatmulOp>(op);
  bool matmulInteger = isa<MatmulIntegerOp>(op);
  // A matmul whose weight is stored sparse (llm.sparse_format).
  bool matmul = isa<MatmulOp>(op);
  // By name: the dialect does not depend on linalg.
  StringRef opName = op->getName().getStringRef();
  bool linalgContraction =
      opName == "linalg.matmul" || opName == "linalg.batch_matmul";
  if (!attention && !dequantMatmul && !matmulInteger && !matmul &&
      !linalgContraction)
    return op->emitOpError() << "'" << kLoweringConfigAttrName
                             << "' is only meaningful on llm.attention, "
                                "llm.dequant_matmul, llm.matmul_integer, "
                                "llm.matmul, linalg.matmul and "
                                "linalg.batch_matmul";
  if (linalgContraction &&
      (!dict.get(kRegisterTileKey) || !dict.get(kCacheTileKey)))
    return op->emitOpError()
           << "'" << kLoweringConfigAttrName << "' of a matmul needs both "
           << kRegisterTileKey << " and " << kCacheTileKey;
  for (NamedAttribute entry : dict) {
    StringRef key = entry.getName().getValue();
    Attribute value = entry.getValue();
    // attention_tile = array<i64: Q, KV>, Q > 0 and KV > 0.
    if (attention && key == kAttentionTileKey) {
      auto tile = dyn_cast<DenseI64ArrayAttr>(value);
      if (!tile || tile.size() != 2 || tile[0] <= 0 || tile[1] <= 0)
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kAttentionTileKey
               << " must be two positive sizes array<i64: query rows, "
                  "key/value rows>, got "
               << value;
      continue;
    }
    // kv_splits = N >= 1.
    if (attention && key == kKvSplitsKey) {
      auto splits = dyn_cast<IntegerAttr>(value);
      if (!splits || splits.getInt() < 1)
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kKvSplitsKey
               << " must be an integer >= 1, got " << value;
      continue;
    }
    // padded_head_dims = array<i64: D', Dv'>, D' >= D, Dv' >= Dv (the last
    // dimensions of the query and the value).
    if (attention && key == kPaddedHeadDimsKey) {
      auto dims = dyn_cast<DenseI64ArrayAttr>(value);
      int64_t d = ShapedType::kDynamic, dv = ShapedType::kDynamic;
      if (op->getNumOperands() >= 3) {
        if (auto q = dyn_cast<RankedTensorType>(op->getOperand(0).getType()))
          d = q.getDimSize(q.getRank() - 1);
        if (auto v = dyn_cast<RankedTensorType>(op->getOperand(2).getType()))
          dv = v.getDimSize(v.getRank() - 1);
      }
      auto size = [](int64_t s) {
        return ShapedType::isDynamic(s) ? std::string("?") : std::to_string(s);
      };
      if (!dims || dims.size() != 2 || ShapedType::isDynamic(d) ||
          ShapedType::isDynamic(dv) || dims[0] < d || dims[1] < dv)
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kPaddedHeadDimsKey
               << " must be array<i64: D', Dv'> with D' >= D and Dv' >= Dv "
                  "(the static head dims of the query and the value, "
               << size(d) << " and " << size(dv) << "), got " << value;
      continue;
    }
    // stage_values = true | false.
    if (attention && key == kStageValuesKey) {
      if (!isa<BoolAttr>(value))
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kStageValuesKey
               << " must be a boolean, got " << value;
      continue;
    }
    // dot_product = "bf16" | "f32" (| "amx_bf16" on llm.matmul).
    if ((dequantMatmul || matmul) && key == kDotProductKey) {
      auto name = dyn_cast<StringAttr>(value);
      if (!name || (name.getValue() != kDotProductBF16 &&
                    name.getValue() != kDotProductF32 &&
                    (!matmul || name.getValue() != kDotProductAMXBF16))) {
        InFlightDiagnostic diag = op->emitOpError();
        diag << "'" << kLoweringConfigAttrName << "': " << kDotProductKey
             << " must be \"" << kDotProductBF16 << "\"";
        if (matmul)
          diag << ", \"" << kDotProductAMXBF16 << "\"";
        diag << " or \"" << kDotProductF32 << "\", got " << value;
        return diag;
      }
      continue;
    }
    // dot_product = "i8" | "amx_i8" | "f32".
    if (matmulInteger && key == kDotProductKey) {
      auto name = dyn_cast<StringAttr>(value);
      if (!name || (name.getValue() != kDotProductI8 &&
                    name.getValue() != kDotProductAMXI8 &&
                    name.getValue() != kDotProductF32))
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kDotProductKey
               << " must be \"" << kDotProductI8 << "\", \"" << kDotProductAMXI8
               << "\" or \"" << kDotProductF32 << "\", got " << value;
      continue;
    }
    // vector_bits = 256 | 512.
    if ((matmulInteger || matmul || dequantMatmul) && key == kVectorBitsKey) {
      auto bits = dyn_cast<IntegerAttr>(value);
      if (!bits || (bits.getInt() != 256 && bits.getInt() != 512))
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kVectorBitsKey
               << " must be 256 or 512, got " << value;
      continue;
    }
    // streamed = true | false.
    if (dequantMatmul && key == kStreamedKey) {
      if (!isa<BoolAttr>(value))
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << kStreamedKey
               << " must be a boolean, got " << value;
      continue;
    }
    // register_tile = array<i64: m, n, k>, each > 0; cache_tile, each >= 0.
    if (linalgContraction &&
        (key == kRegisterTileKey || key == kCacheTileKey)) {
      bool reg = key == kRegisterTileKey;
      auto tile = dyn_cast<DenseI64ArrayAttr>(value);
      if (!tile || tile.size() != 3 ||
          llvm::any_of(tile.asArrayRef(),
                       [&](int64_t s) { return reg ? s <= 0 : s < 0; }))
        return op->emitOpError()
               << "'" << kLoweringConfigAttrName << "': " << key
               << " must be three " << (reg ? "positive" : "non-negative")
               << " sizes array<i64: m, n, k>, got " << value;
      continue;
    }
    return op->emitOpError()
           << "'" << kLoweringConfigAttrName << "': unknown key '" << key
           << "' (expected "
           << (attention ? "attention_tile, stage_values, kv_splits or "
                           "padded_head_dims"
               : matmulInteger || matmul ? "dot_product or vector_bits"
               : linalgContraction       ? "register_tile or "
                                           "cache_tile"
                                         : "dot_product or streamed")
           << ")";
  }
  return success();
}

bool mlir::llm::isBF16DotMatmul(Operation *op, bool demoteF32) {
  auto mm = dyn_cast<MatmulOp>(op);
  if (!mm || mm.getTransposeA() || op->hasAttr(kSparseFormatAttrName) ||
      !mm.getRhs().getDefiningOp<ConstantOp>())
    return false;
  auto lt = cast<RankedTensorType>(mm.getLhs().getType());
  auto rt = cast<RankedTensorType>(mm.getRhs().getType());
  Type et = lt.getElementType();
  // The rows may be dynamic (a sequence), K may not.
  if (!(et.isBF16() || (demoteF32 && et.isF32())) || lt.getRank() < 2 ||
      ShapedType::isDynamic(lt.getShape().back()) || rt.getRank() != 2 ||
      !rt.hasStaticShape())
    return false;
  bool nk = mm.getTransposeB();
  int64_t k = lt.getShape().back(), n = rt.getDimSize(nk ? 0 : 1);
  return k >= 1 && !llvm::is_contained(lt.getShape(), 0) && n >= 16 &&
         rt.getDimSize(nk ? 1 : 0) == k;
}

bool mlir::llm::hasAMXRows(ShapedType lhs) {
  return lhs.hasStaticShape() && lhs.getRank() >= 1 &&
         lhs.getShape().back() > 0 &&
         lhs.getNumElements() / lhs.getShape().back() >= kAMXBlockRows;
}

bool mlir::llm::isAMXBF16Matmul(Operation *op, bool demoteF32) {
  return isBF16DotMatmul(op, demoteF32) &&
         hasAMXRows(cast<ShapedType>(cast<MatmulOp>(op).getLhs().getType()));
}

static DictionaryAttr getLoweringConfig(Operation *op) {
  return op->getAttrOfType<DictionaryAttr>(kLoweringConfigAttrName);
}

std::optional<std::array<int64_t, 2>>
mlir::llm::getConfiguredAttentionTile(Operation *op) {
  DictionaryAttr dict = getLoweringConfig(op);
  if (!dict)
    return std::nullopt;
  auto tile = dict.getAs<DenseI64ArrayAttr>(kAttentionTileKey);
  if (!tile || tile.size() != 2)
    return std::nullopt;
  return std::array<int64_t, 2>{tile[0], tile[1]};
}

/// Whether `op`'s dot_product is `kind`, if it has one.
static std::optional<bool> isConfiguredDotProduct(Operation *op,
                                                  StringRef kind) {
  DictionaryAttr dict = getLoweringConfig(op);
  if (!dict)
    return std::nullopt;
  auto name = dict.getAs<StringAttr>(kDotProductKey);
  if (!name)
    return std::nullopt;
  return name.getValue() == kind;
}

/// The entry `key` of `op`'s lowering configuration as an `AttrT`; null
/// when `op` has no configuration or the entry is absent (or of another
/// kind, which the verifier refuses).
template <typename AttrT>
static AttrT getConfiguredEntry(Operation *op, StringRef key) {
  DictionaryAttr dict = getLoweringConfig(op);
  return dict ? dict.getAs<AttrT>(key) : AttrT();
}

std::optional<bool> mlir::llm::getConfiguredBF16DotProduct(Operation *op) {
  return isConfiguredDotProduct(op, kDotProductBF16);
}

std::optional<bool> mlir::llm::getConfiguredAMXBF16DotProduct(Operation *op) {
  return isConfiguredDotProduct(op, kDotProductAMXBF16);
}

std::optional<bool> mlir::llm::getConfiguredAMXInt8DotProduct(Operation *op) {
  return isConfiguredDotProduct(op, kDotProductAMXI8);
}

std::optional<bool> mlir::llm::getConfiguredInt8DotProduct(Operation *op) {
  return isConfiguredDotProduct(op, kDotProductI8);
}

std::optional<int64_t> mlir::llm::getConfiguredVectorBits(Operation *op) {
  if (auto bits = getConfiguredEntry<IntegerAttr>(op, kVectorBitsKey))
    return bits.getInt();
  return std::nullopt;
}

std::optional<bool> mlir::llm::getConfiguredStreamed(Operation *op) {
  if (auto streamed = getConfiguredEntry<BoolAttr>(op, kStreamedKey))
    return streamed.getValue();
  return std::nullopt;
}

std::optional<int64_t> mlir::llm::getConfiguredKvSplits(Operation *op) {
  if (auto splits = getConfiguredEntry<IntegerAttr>(op, kKvSplitsKey))
    return splits.getInt();
  return std::nullopt;
}

std::optional<std::array<int64_t, 2>>
mlir::llm::getConfiguredPaddedHeadDims(Operation *op) {
  if (auto dims = getConfiguredEntry<DenseI64ArrayAttr>(op, kPaddedHeadDimsKey);
      dims && dims.size() == 2)
    return std::array<int64_t, 2>{dims[0], dims[1]};
  return std::nullopt;
}

std::optional<bool> mlir::llm::getConfiguredStageValues(Operation *op) {
  if (auto stage = getConfiguredEntry<BoolAttr>(op, kStageValuesKey))
    return stage.getValue();
  return std::nullopt;
}

std::optional<ConfiguredMatmulTiles>
mlir::llm::getConfiguredMatmulTiles(Operation *op) {
  DictionaryAttr dict = getLoweringConfig(op);
  if (!dict)
    return std::nullopt;
  auto reg = dict.getAs<DenseI64ArrayAttr>(kRegisterTileKey);
  auto cache = dict.getAs<DenseI64ArrayAttr>(kCacheTileKey);
  if (!reg || !cache || reg.size() != 3 || cache.size() != 3)
    return std::nullopt;
  ConfiguredMatmulTiles tiles;
  llvm::copy(reg.asArrayRef(), tiles.registerTile.begin());
  llvm::copy(cache.asArrayRef(), tiles.cacheTile.begin());
  return tiles;
}

//===----------------------------------------------------------------------===//
// Dialect attribute verification
//===----------------------------------------------------------------------===//

LogicalResult LLMDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  // The lowering configuration and the sparse format are checked; the other
  // `llm.*` markers (llm.index_checks, llm.vectorize_in_place, ...) are their
  // passes' own.
  if (attr.getName() == kLoweringConfigAttrName)
    return verifyLoweringConfig(op, attr.getValue());
  if (attr.getName() == kSparseFormatAttrName) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    auto format = dict ? dict.getAs<StringAttr>("format") : StringAttr();
    if (!isa<MatmulOp, DequantMatmulOp, MatmulIntegerOp>(op) || !format ||
        failed(SparseFormat::parse(format.getValue())))
      return op->emitOpError()
             << "'" << kSparseFormatAttrName
             << "' must be a dictionary on llm.matmul, llm.dequant_matmul "
                "or llm.matmul_integer "
                "with a string 'format' (dense, 2:4, bsrRxC, csr), got "
             << attr.getValue();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Weight layouts
//===----------------------------------------------------------------------===//

std::optional<WeightLayout> mlir::llm::parseWeightLayout(StringRef name) {
  if (name == "kn")
    return WeightLayout::KN;
  if (name == "nk")
    return WeightLayout::NK;
  return std::nullopt;
}

StringRef mlir::llm::stringifyWeightLayout(WeightLayout layout) {
  return layout == WeightLayout::KN ? "kn" : "nk";
}
