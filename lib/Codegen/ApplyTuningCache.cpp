//===- ApplyTuningCache.cpp - Tuned tiles onto linalg matmuls -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-apply-tuning-cache`: the register and cache tiles
// that `llmc tune` measured fastest for a matmul kernel on this kind of CPU
// are recorded on the matching linalg contractions as `llm.lowering_config`,
// which `llm-tile-and-vectorize` reads.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/TargetDescription.h"
#include "llm/Codegen/TuningCache.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMAPPLYTUNINGCACHEPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {
struct LLMApplyTuningCachePass
    : llm::impl::LLMApplyTuningCachePassBase<LLMApplyTuningCachePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CPUTargetDescription> desc = CPUTargetDescription::lookup(target);
    if (failed(desc)) {
      emitError(module.getLoc())
          << "llm-apply-tuning-cache: unknown target '" << target
          << "' (expected " << CPUTargetDescription::getKnownNames() << ")";
      return signalPassFailure();
    }
    if (cache.empty()) {
      emitError(module.getLoc())
          << "llm-apply-tuning-cache: no tuning cache given "
             "(the `cache` option)";
      return signalPassFailure();
    }
    llvm::Expected<TuningCache> loaded = TuningCache::load(cache);
    if (!loaded) {
      emitError(module.getLoc())
          << "llm-apply-tuning-cache: " << llvm::toString(loaded.takeError());
      return signalPassFailure();
    }
    if (numThreads < 0 || numThreads > 1024) {
      emitError(module.getLoc())
          << "llm-apply-tuning-cache: num-threads must be in "
             "[0, 1024] (0: the machine's), got "
          << static_cast<int64_t>(numThreads);
      return signalPassFailure();
    }
    if (numThreads > 0)
      desc->numThreads = numThreads;
    std::string targetId = getTuningTargetId(*desc);
    if (!loaded->getEntries().empty() && !loaded->hasTarget(targetId)) {
      if (!warnOtherCPU)
        return;
      emitWarning(module.getLoc())
          << "tuning cache '" << cache << "' was made on another kind of CPU ("
          << llvm::join(loaded->getTargets(), ", ") << "), not " << targetId
          << ": ignored (run `llmc tune` on this machine)";
      return;
    }
    int64_t threads = parallel ? desc->getNumThreads() : 1;
    int64_t numKeyed = 0, numMatched = 0;
    Builder b(&getContext());
    module.walk([&](Operation *op) {
      if (op->hasAttr(kLoweringConfigAttrName))
        return;
      // llm.attention: its flash-attention tile.
      if (isa<AttentionOp>(op)) {
        FailureOr<std::string> key = getAttentionTuningKey(op, threads);
        if (failed(key))
          return;
        if (const TuningEntry *entry = loaded->lookup(targetId, *key);
            entry && isAttentionKernel(entry->kernel)) {
          op->setAttr(kLoweringConfigAttrName,
                      b.getDictionaryAttr(b.getNamedAttr(
                          kAttentionTileKey,
                          b.getDenseI64ArrayAttr(entry->attentionTile))));
          ++numOpsTuned;
        }
        return;
      }
      // (Not the tiles a lowering placed in its own loop nest.)
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          op->hasAttr(kVectorizeInPlaceAttr))
        return;
      FailureOr<MatmulTuningKey> key = getMatmulTuningKey(op, threads);
      if (failed(key))
        return;
      ++numKeyed;
      const TuningEntry *entry = loaded->lookup(targetId, key->str());
      if (!entry || isAttentionKernel(entry->kernel))
        return;
      NamedAttribute entries[] = {
          b.getNamedAttr(kRegisterTileKey,
                         b.getDenseI64ArrayAttr(entry->registerTile)),
          b.getNamedAttr(kCacheTileKey,
                         b.getDenseI64ArrayAttr(entry->cacheTile))};
      op->setAttr(kLoweringConfigAttrName, b.getDictionaryAttr(entries));
      ++numOpsTuned;
      ++numMatched;
    });
    // Matmuls, entries for this CPU's matmuls, and no match: most likely
    // tuned for another thread count (part of every key).
    bool matmulEntries =
        llvm::any_of(loaded->getEntries(), [&](const TuningEntry &e) {
          return e.target == targetId && !isAttentionKernel(e.kernel);
        });
    if (numKeyed > 0 && numMatched == 0 && matmulEntries)
      emitWarning(module.getLoc())
          << "tuning cache '" << cache << "' has entries for " << targetId
          << " but none for the " << numKeyed
          << " matmul(s) of this module planned for " << threads
          << " thread(s): the default tiles (tune with the --threads of "
             "this compile)";
  }
};
} // namespace
