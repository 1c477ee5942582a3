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
// conflict copies), and shrinks an empty tensor that is only sliced to the
// slice.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMCLONEEMPTYTENSORSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMCloneEmptyTensorsPass
    : llm::impl::LLMCloneEmptyTensorsPassBase<LLMCloneEmptyTensorsPass> {
  using Base::Base;

  /// fill(empty) (used by A, B) -> fill(empty) (A), fill'(empty') (B)
  void cloneFills() {
    SmallVector<linalg::FillOp> shared;
    getOperation()->walk([&](linalg::FillOp op) {
      if (op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
          !op->getResult(0).hasOneUse() && !op->use_empty() &&
          op.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        shared.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (linalg::FillOp op : shared) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      auto empty = op.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      for (OpOperand *use : llvm::drop_begin(uses)) {
        // Before the user (a parallel_insert_slice: before its forall's
        // terminator, which holds nothing else).
        Operation *user = use->getOwner();
        if (auto inParallel = dyn_cast<scf::InParallelOp>(user->getParentOp()))
          user = inParallel;
        builder.setInsertionPoint(user);
        Operation *emptyClone = builder.clone(*empty);
        IRMapping mapping;
        mapping.map(empty.getResult(), emptyClone->getResult(0));
        use->set(builder.clone(*op, mapping)->getResult(0));
      }
    }
  }

  void runOnOperation() override {
    if (fills)
      cloneFills();
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
    // extract_slice(empty) -> empty of the slice's sizes (and the same for
    // a reshape): the destination of a producer fused into a tile loop
    // (e.g. the accumulator of a matmul whose bias epilogue was tiled) is a
    // slice of an empty of the whole result, which would bufferize to a
    // whole-result buffer allocated in every iteration.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns,
                                            /*foldSingleUseOnly=*/true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
