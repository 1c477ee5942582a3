//===- CloneEmptyTensors.cpp - one tensor.empty per use -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-clone-empty-tensors`: undoes CSE's merging of
// `tensor.empty` ops before bufferization, so that one-shot bufferization
// sees each destination as its own value (linear analysis time, no
// conflict copies).
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMCLONEEMPTYTENSORSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMCloneEmptyTensorsPass
    : llm::impl::LLMCloneEmptyTensorsPassBase<LLMCloneEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp op) {
      if (!op->hasOneUse() && !op->use_empty())
        shared.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp op : shared) {
      // empty (used by A, B, C) -> empty (A), empty' (B), empty'' (C)
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        // The clone goes right before the user, in the user's block, which
        // the original dominates (so do its dynamic-size operands).
        builder.setInsertionPoint(user);
        use->set(builder.clone(*op)->getResult(0));
      }
    }
  }
};

} // namespace
