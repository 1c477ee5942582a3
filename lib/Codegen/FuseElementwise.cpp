//===- FuseElementwise.cpp - elementwise fusion with llmc's policy --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-fuse-elementwise`: upstream elementwise fusion and
// reshape propagation, with a control function that keeps contractions named.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFUSEELEMENTWISEPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

/// True for ops the matmul tiling recognizes by name or interface.
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Operations in the blocks of `op`'s regions (a linalg op has one).
int64_t getBodySize(Operation *op) {
  int64_t n = 0;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      n += static_cast<int64_t>(block.getOperations().size());
  return n;
}

struct LLMFuseElementwisePass
    : llm::impl::LLMFuseElementwisePassBase<LLMFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "max-fused-ops", maxFusedOps)) ||
        failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "max-fused-operands",
                                           maxFusedOperands)))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);

    // Fuse a producer only into its single user (no recomputation), and
    // only while the fused body stays within `max-fused-ops` (each fusion
    // clones the producer's body: unbounded, a chain costs O(N^2)).
    // Likewise the fused op's operands (a tree of N branches would copy
    // O(N) operands per fusion).
    int64_t maxOps = maxFusedOps, maxOperands = maxFusedOperands;
    linalg::ControlFusionFn fuseControl = [maxOps,
                                           maxOperands](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Operation *consumer = fused->getOwner();
      if (!producer || !producer->hasOneUse())
        return false;
      if (maxOperands > 0 &&
          static_cast<int64_t>(producer->getNumOperands() +
                               consumer->getNumOperands()) > maxOperands)
        return false;
      return maxOps <= 0 ||
             getBodySize(producer) + getBodySize(consumer) <= maxOps;
    };
    // Propagate reshapes by expansion, except through contractions.
    linalg::ControlFusionFn reshapeControl = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      if (isContraction(producer) || isContraction(fused->getOwner()))
        return false;
      // The reshape sits between the contraction and the fused op.
      for (Value v : producer->getOperands())
        if (isContraction(v.getDefiningOp()))
          return false;
      for (Operation *user : fused->getOwner()->getUsers())
        if (isContraction(user))
          return false;
      return true;
    };

    linalg::populateElementwiseOpsFusionPatterns(patterns, fuseControl);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
