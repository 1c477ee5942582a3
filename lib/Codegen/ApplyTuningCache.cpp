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
      module.emitError() << "llm-apply-tuning-cache: unknown target '" << target
                         << "' (expected "
                         << CPUTargetDescription::getKnownNames() << ")";
      return signalPassFailure();
    }
    if (cache.empty()) {
      module.emitError() << "llm-apply-tuning-cache: no tuning cache given "
                            "(the `cache` option)";
      return signalPassFailure();
    }
    llvm::Expected<TuningCache> loaded = TuningCache::load(cache);
    if (!loaded) {
      module.emitError() << "llm-apply-tuning-cache: "
                         << llvm::toString(loaded.takeError());
      return signalPassFailure();
    }
    if (numThreads > 0)
      desc->numThreads = numThreads;
    std::string targetId = getTuningTargetId(*desc);
    if (!loaded->getEntries().empty() && !loaded->hasTarget(targetId)) {
      if (!warnOtherCPU)
        return;
      module.emitWarning() << "tuning cache '" << cache
                           << "' was made on another kind of CPU ("
                           << llvm::join(loaded->getTargets(), ", ")
                           << "), not " << targetId
                           << ": ignored (run `llmc tune` on this machine)";
      return;
    }
    int64_t threads = parallel ? desc->getNumThreads() : 1;
    Builder b(&getContext());
    module.walk([&](Operation *op) {
      if (op->hasAttr(kLoweringConfigAttrName))
        return;
      // llm.attention: its flash-attention tile.
      if (isa<AttentionOp>(op)) {
        FailureOr<std::string> key = getAttentionTuningKey(op, threads);
        if (failed(key))
          return;
        if (const TuningEntry *entry = loaded->lookup(targetId, *key)) {
          op->setAttr(kLoweringConfigAttrName,
                      b.getDictionaryAttr(b.getNamedAttr(
                          kAttentionTileKey,
                          b.getDenseI64ArrayAttr(entry->attentionTile))));
          ++numOpsTuned;
        }
        return;
      }
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        return;
      FailureOr<MatmulTuningKey> key = getMatmulTuningKey(op, threads);
      if (failed(key))
        return;
      const TuningEntry *entry = loaded->lookup(targetId, key->str());
      if (!entry)
        return;
      NamedAttribute entries[] = {
          b.getNamedAttr(kRegisterTileKey,
                         b.getDenseI64ArrayAttr(entry->registerTile)),
          b.getNamedAttr(kCacheTileKey,
                         b.getDenseI64ArrayAttr(entry->cacheTile))};
      op->setAttr(kLoweringConfigAttrName, b.getDictionaryAttr(entries));
      ++numOpsTuned;
    });
  }
};
} // namespace
