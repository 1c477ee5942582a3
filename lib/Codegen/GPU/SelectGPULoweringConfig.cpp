//===- SelectGPULoweringConfig.cpp - GPU lowering choices on llm ops ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-select-gpu-lowering-config`: the GPU target
// description's choices for the flash-attention lowering of each
// `llm.attention` (its tile, sized to the chip's shared memory, and staged
// value tiles), recorded as `llm.lowering_config` for the target-neutral
// `convert-llm-to-linalg`.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUTargetDescription.h"
#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMSELECTGPULOWERINGCONFIGPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// Most key/value parts of a decode step's attention (each part's partial
/// results are written out and combined).
constexpr int64_t kMaxKvSplits = 16;

/// Workgroup bytes of the flash lowering's buffers for one block (see the
/// pass description for the terms).
int64_t estimateFlashBytes(int64_t tq, int64_t tk, int64_t d, int64_t dv,
                           int64_t elemBytes, bool partialQuery) {
  return elemBytes * d * tk + elemBytes * tk * dv + 4 * 3 * tq * tk +
         4 * tq * dv + 4 * 8 * tq + (partialQuery ? elemBytes * tq * dv : 0);
}

struct LLMSelectGPULoweringConfigPass
    : llm::impl::LLMSelectGPULoweringConfigPassBase<
          LLMSelectGPULoweringConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<GPUTargetDescription> target = GPUTargetDescription::lookup(chip);
    if (failed(target)) {
      emitError(module.getLoc())
          << "llm-select-gpu-lowering-config: unknown chip '" << chip
          << "' (expected " << GPUTargetDescription::getKnownChips() << ")";
      return signalPassFailure();
    }
    int64_t budget = target->staticSharedMemoryPerBlock * 7 / 8;
    static constexpr std::array<std::array<int64_t, 2>, 14> kCandidates = {{
        {64, 64},
        {32, 64},
        {64, 32},
        {32, 32},
        {16, 64},
        {16, 32},
        {16, 16},
        {8, 16},
        {8, 8},
        {4, 8},
        {1, 8},
        {1, 4},
        {1, 2},
        {1, 1},
    }};
    Builder b(&getContext());
    module.walk([&](AttentionOp op) {
      if (op->hasAttr(kLoweringConfigAttrName))
        return;
      auto q = cast<ShapedType>(op.getQuery().getType());
      auto k = cast<ShapedType>(op.getKey().getType());
      auto v = cast<ShapedType>(op.getValue().getType());
      // [B, H, S, D] (bhsd) or [B, S, H, D] (bshd): the sequence is dim 2
      // or 1; a dynamic one (not on the GPU targets) is not clamped.
      bool bshd = op.getLayout() == AttentionLayout::BSHD;
      int64_t seqDim = bshd ? 1 : 2;
      int64_t sq = q.getDimSize(seqDim), skv = k.getDimSize(seqDim);
      int64_t d = q.getShape().back(), dv = v.getShape().back();
      int64_t elemBytes = std::max<int64_t>(1, q.getElementTypeBitWidth() / 8);
      std::array<int64_t, 2> tile = kCandidates.back();
      for (std::array<int64_t, 2> candidate : kCandidates) {
        int64_t tq = ShapedType::isDynamic(sq) ? candidate[0]
                                               : std::min(candidate[0], sq);
        int64_t tk = ShapedType::isDynamic(skv) ? candidate[1]
                                                : std::min(candidate[1], skv);
        bool partialQuery =
            ShapedType::isDynamic(sq) || (tq > 0 && sq % tq != 0);
        if (estimateFlashBytes(tq, tk, d, dv, elemBytes, partialQuery) <=
            budget) {
          tile = candidate;
          break;
        }
      }
      SmallVector<NamedAttribute> entries{
          b.getNamedAttr(kAttentionTileKey, b.getDenseI64ArrayAttr(tile)),
          b.getNamedAttr(kStageValuesKey, b.getBoolAttr(true))};
      // A decode step (one query tile) on fewer blocks than the chip has
      // SMs: the key/value tiles in parts on more blocks (flash-decoding).
      int64_t bsz = q.getDimSize(0), hq = q.getDimSize(bshd ? 2 : 1);
      if (!ShapedType::isDynamic(sq) && !ShapedType::isDynamic(skv) &&
          !ShapedType::isDynamic(bsz) && sq <= tile[0] && skv > 0 &&
          bsz * hq > 0) {
        int64_t kTiles = llvm::divideCeil(skv, std::min(tile[1], skv));
        int64_t blocks = bsz * hq;
        int64_t splits = std::min<int64_t>(
            {kTiles,
             static_cast<int64_t>(llvm::divideCeil(target->smCount, blocks)),
             kMaxKvSplits});
        if (blocks < target->smCount && splits > 1)
          entries.push_back(
              b.getNamedAttr(kKvSplitsKey, b.getI64IntegerAttr(splits)));
      }
      op->setAttr(kLoweringConfigAttrName, b.getDictionaryAttr(entries));
    });
  }
};

} // namespace
