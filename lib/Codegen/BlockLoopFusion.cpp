//===- BlockLoopFusion.cpp - Fusion into the block loops of lowerings -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the fusion of llm-tile-and-vectorize into the
// `scf.forall` block loops that convert-llm-to-linalg's dot-product kernels
// build themselves (8-bit and bf16 dot products, the W8A8 panels): their
// elementwise consumers (kFuseConsumersAttr) and, for a few-row kernel in a
// fusion group, the group's producers of its input (kFuseProducersAttr).
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Transforms.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::llm;

/// Most consumers fused into one block loop.
static constexpr int kMaxConsumers = 8;

/// generic(expand_shape(result)) -> expand_shape(generic'(result)): a block
/// loop's [M, N] result reshaped to a rank-3 lhs's [b, s, N] before its
/// epilogue gets the epilogue collapsed to [M, N] (upstream's
/// fold-by-collapsing, on that operand only). Returns false when `result`
/// no longer has a single use afterwards.
static bool collapseExpandedEpilogue(RewriterBase &rewriter, Value result) {
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || !expand->hasOneUse() ||
      !isa<linalg::GenericOp>(*expand->getUsers().begin()))
    return true;
  RewritePatternSet patterns(rewriter.getContext());
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns,
      [&](OpOperand *operand) { return operand->get() == expand.getResult(); });
  // New ops too: the collapse of the expanded operand folds away.
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(
      ArrayRef<Operation *>{*expand->getUsers().begin()}, std::move(patterns),
      config);
  // A dynamic sequence: the collapsed epilogue's sizes are tensor.dim of the
  // expanded result, read from the expand's own output shape instead.
  for (Operation *user : llvm::make_early_inc_range(expand->getUsers()))
    if (auto dim = dyn_cast<tensor::DimOp>(user))
      if (std::optional<int64_t> i = dim.getConstantIndex()) {
        rewriter.setInsertionPoint(dim);
        rewriter.replaceOp(
            dim, getValueOrCreateConstantIndexOp(
                     rewriter, dim.getLoc(), expand.getMixedOutputShape()[*i]));
      }
  if (expand->use_empty())
    rewriter.eraseOp(expand);
  return result.hasOneUse();
}

/// Moves what `v` needs above `loop`: side-effect-free ops without regions
/// between the two whose operands can be moved too (tensor.empty, constants,
/// the tensor.dim of a dynamic sequence, reshapes: the collapsed residual
/// and init of a collapsed epilogue). False when `v` is `loop`'s result or
/// depends on something that cannot move.
static bool hoistAbove(RewriterBase &rewriter, Value v, scf::ForallOp loop,
                       Value result) {
  Operation *def = v.getDefiningOp();
  if (v == result || !def || def->getBlock() != loop->getBlock() ||
      def->isBeforeInBlock(loop))
    return v != result;
  bool movable = def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
                 llvm::all_of(def->getOperands(), [&](Value o) {
                   return hoistAbove(rewriter, o, loop, result);
                 });
  if (movable)
    rewriter.moveOpBefore(def, loop);
  return movable;
}

/// Fuses the single elementwise consumer of `loop`'s last result into it
/// (upstream `scf::tileAndFuseConsumer`), returning the loop that replaces
/// it, or null when there is no such consumer or it cannot be fused.
static scf::ForallOp fuseOneConsumer(RewriterBase &rewriter,
                                     scf::ForallOp loop) {
  if (loop->getNumResults() == 0)
    return nullptr;
  Value result = loop->getResults().back();
  if (!result.hasOneUse() || !collapseExpandedEpilogue(rewriter, result))
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || consumer->getBlock() != loop->getBlock() ||
      consumer.getNumReductionLoops() != 0 || consumer->getNumResults() != 1)
    return nullptr;
  // Its other operands must dominate the loop.
  bool dominates = true;
  for (Value v : consumer->getOperands())
    if (v != result && !hoistAbove(rewriter, v, loop, result))
      dominates = false;
  if (!dominates)
    return nullptr;
  SmallVector<LoopLikeOpInterface> loops{
      cast<LoopLikeOpInterface>(loop.getOperation())};
  if (failed(scf::tileAndFuseConsumer(rewriter, consumer, loops)))
    return nullptr;
  auto next = dyn_cast<scf::ForallOp>(loops.front().getOperation());
  // The producer-fusion mark moves to the loop that replaced it.
  if (Attribute mark = loop->getAttr(kFuseProducersAttr); next && mark)
    next->setAttr(kFuseProducersAttr, mark);
  return next;
}

int64_t mlir::llm::fuseConsumersIntoBlockLoops(RewriterBase &rewriter,
                                               Operation *root) {
  SmallVector<scf::ForallOp> blockLoops;
  root->walk([&](scf::ForallOp loop) {
    if (loop->hasAttr(kFuseConsumersAttr))
      blockLoops.push_back(loop);
  });
  int64_t fused = 0;
  for (scf::ForallOp loop : blockLoops) {
    loop->removeAttr(kFuseConsumersAttr);
    for (int n = 0; n < kMaxConsumers && loop; ++n) {
      loop = fuseOneConsumer(rewriter, loop);
      fused += loop ? 1 : 0;
    }
  }
  return fused;
}

// x' = norm(x) ; forall blocks { ... x' ... }
//   -> forall blocks { x' = norm(x) ; ... x' ... }
void mlir::llm::fuseProducersIntoBlockLoop(RewriterBase &rewriter,
                                           scf::ForallOp loop,
                                           const ProducerFilter &mayRecompute) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(loop.getRegion(), captured);
  BackwardSliceOptions sliceOptions;
  sliceOptions.inclusive = true;
  sliceOptions.omitBlockArguments = true;
  // The ops beside the loop that `mayRecompute` accepts, and the inits and
  // reshapes between them.
  sliceOptions.filter = [&](Operation *op) {
    return op->getBlock() == loop->getBlock() &&
           (isa<tensor::EmptyOp, tensor::CollapseShapeOp,
                tensor::ExpandShapeOp>(op) ||
            mayRecompute(op));
  };
  // Every operand outside the filter (the group's inputs, constants) stays
  // captured.
  llvm::SetVector<Operation *> slice;
  for (Value v : captured)
    if (Operation *def = v.getDefiningOp(); def && sliceOptions.filter(def))
      (void)getBackwardSlice(v, &slice, sliceOptions);
  if (slice.empty())
    return;
  slice = topologicalSort(slice);
  rewriter.setInsertionPointToStart(loop.getBody());
  IRMapping mapping;
  for (Operation *op : slice)
    rewriter.clone(*op, mapping);
  for (Operation *op : slice)
    for (Value result : op->getResults())
      rewriter.replaceUsesWithIf(
          result, mapping.lookup(result), [&](OpOperand &use) {
            return loop->isProperAncestor(use.getOwner());
          });
}
