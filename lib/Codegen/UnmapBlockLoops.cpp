//===- UnmapBlockLoops.cpp - llm-unmap-block-loops ------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-unmap-block-loops`, which drops the
// `#llm.block_loop` mapping of the CPU kernels' block loops once fusion and
// the kernel count no longer need it.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMUNMAPBLOCKLOOPSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {
struct LLMUnmapBlockLoopsPass
    : llm::impl::LLMUnmapBlockLoopsPassBase<LLMUnmapBlockLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([](scf::ForallOp loop) {
      std::optional<ArrayAttr> mapping = loop.getMapping();
      if (!mapping)
        return WalkResult::advance();
      int64_t blockLoops = llvm::count_if(*mapping, [](Attribute a) {
        return isa<llm::BlockLoopMappingAttr>(a);
      });
      if (blockLoops == 0)
        return WalkResult::advance();
      if (blockLoops != static_cast<int64_t>(mapping->size())) {
        loop.emitError("llm-unmap-block-loops: #llm.block_loop mixed with "
                       "other mappings in ")
            << *mapping;
        return WalkResult::interrupt();
      }
      loop.removeMappingAttr();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
