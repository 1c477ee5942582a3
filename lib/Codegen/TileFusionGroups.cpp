//===- TileFusionGroups.cpp - One loop nest per llm.fusion_group ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU lowering of `llm.fusion_group` regions (formed
// by llm-fuse, their ops lowered to linalg on tensors): the group's root is
// tiled and the other ops of the group are fused into its tile loop, so that
// the group becomes one loop nest; then the region is inlined.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Transforms.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "llm-tile-and-vectorize"

using namespace mlir;
using namespace mlir::llm;

/// Bytes of one row block of a non-matmul group: rows per tile are chosen so
/// that a tile of the root reads about this much (an L1-sized working set).
static constexpr int64_t kRowBlockBytes = 32 * 1024;

/// Skips tensor reshapes back to the op that computes `v`.
static Operation *skipReshapes(Value v) {
  Operation *def = v.getDefiningOp();
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def;
}

/// True for ops that are never recomputed per tile: contractions (handled
/// by the matmul strategy) and transposes (copies of weights made once).
static bool isNeverFused(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return !linalgOp || isa<linalg::TransposeOp>(op) ||
         linalg::isaContractionOpInterface(linalgOp);
}

/// The epilogue root of `contraction`: `root` is all-parallel over the
/// contraction's parallel dims and reads its result with the identity map.
static bool isEpilogueOf(linalg::LinalgOp root, linalg::LinalgOp contraction) {
  if (root.getNumLoops() != root.getNumParallelLoops() ||
      root.getNumLoops() != contraction.getNumParallelLoops() ||
      root->getNumResults() != 1 ||
      !root.getIndexingMapMatchingResult(root->getResult(0)).isIdentity())
    return false;
  for (OpOperand *operand : root.getDpsInputOperands())
    if (operand->get().getDefiningOp() == contraction.getOperation() &&
        root.getMatchingIndexingMap(operand).isIdentity())
      return true;
  return false;
}

/// Tiles the root over its first parallel dimension of size >= 2, fusing
/// the producers `inGroup` accepts. `hasContraction`: the group holds a
/// matmul (or another op with loops beyond the root's), whose work the
/// root's iteration space does not measure.
static LogicalResult tileRowsAndFuse(RewriterBase &rewriter,
                                     linalg::LinalgOp root,
                                     const CPUTargetDescription &target,
                                     const CPUTilingOptions &options,
                                     const ProducerFilter &inGroup,
                                     bool hasContraction) {
  if (!root.hasPureTensorSemantics() || root->getNumResults() == 0)
    return failure();
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = root.getIteratorTypesArray();
  // A dynamic dimension is the function's sequence (DimBounds.h): the rows
  // per tile are chosen for its declared bound, the loop runs to the
  // run-time length (the last tile may be partial).
  bool dynamic = false;
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    std::optional<int64_t> bound = getSequenceBound(root);
    if (!bound)
      return failure();
    for (int64_t &r : ranges)
      if (ShapedType::isDynamic(r))
        r = *bound;
    dynamic = true;
  }
  std::optional<unsigned> dim;
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (iters[d] == utils::IteratorType::parallel && ranges[d] >= 2) {
      dim = d;
      break;
    }
  // The dimensions after the tiled one make one step of it, so a dynamic
  // one (the sequence) is the tiled one itself, after static ones (a batch)
  // tiled by 1.
  SmallVector<int64_t> staticRanges = root.getStaticLoopRanges();
  if (dynamic) {
    unsigned last =
        llvm::find_if(llvm::reverse(staticRanges), ShapedType::isDynamic) -
        staticRanges.rbegin();
    last = staticRanges.size() - 1 - last;
    if (dim && *dim < last && iters[last] == utils::IteratorType::parallel)
      dim = last;
  }
  if (!dim)
    return failure();
  if (dynamic && llvm::any_of(ArrayRef(staticRanges).drop_front(*dim + 1),
                              ShapedType::isDynamic))
    return failure();
  // Elements of one step of `dim` (the rest of the iteration space).
  int64_t inner = 1;
  for (unsigned d = *dim + 1; d < ranges.size(); ++d)
    inner *= ranges[d];
  // An empty inner space (a size-0 dimension) has nothing to tile.
  if (inner <= 0)
    return failure();
  int64_t rows = std::max<int64_t>(1, kRowBlockBytes / 4 / inner);
  // A group without a matmul smaller than the target's parallel threshold
  // (a decode step's one-row norm) runs as a serial scf.for: the fork/join
  // would cost more than the work.
  int64_t points = 1;
  for (int64_t r : ranges)
    points *= r;
  bool parallel = options.parallel && target.getNumThreads() >= 2 &&
                  (hasContraction || points >= target.minParallelElements);
  if (parallel)
    rows = std::min<int64_t>(
        rows, llvm::divideCeil(ranges[*dim], target.getNumThreads()));
  // At least two tiles, so that the group stays one loop nest (a loop of one
  // iteration would fold away and leave its ops as separate kernels).
  rows = std::min<int64_t>(rows, llvm::divideCeil(ranges[*dim], 2));
  SmallVector<int64_t> sizes(ranges.size(), 0);
  for (unsigned d = 0; d < *dim; ++d)
    sizes[d] = 1;
  sizes[*dim] = rows;

  scf::SCFTilingOptions tileOpts;
  tileOpts.setLoopType(parallel ? scf::SCFTilingOptions::LoopType::ForallOp
                                : scf::SCFTilingOptions::LoopType::ForOp);
  tileOpts.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  scf::SCFTileAndFuseOptions fuseOpts;
  fuseOpts.setTilingOptions(tileOpts);
  fuseOpts.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (isa<linalg::FillOp>(owner) ||
            (inGroup(owner) && !isNeverFused(owner)))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), fuseOpts);
  if (failed(fused))
    return failure();
  for (auto [orig, repl] : fused->replacements)
    rewriter.replaceAllUsesWith(orig, repl);
  if (root->use_empty())
    rewriter.eraseOp(root);
  return success();
}

/// Applies `patterns` to the body of `group` (only), together with the
/// patterns that resolve `tensor.dim` of an op's result to the sizes the op
/// was created with.
static void applyWithDimResolution(FusionGroupOp group,
                                   RewritePatternSet &&patterns) {
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  tensor::DimOp::getCanonicalizationPatterns(patterns, group.getContext());
  GreedyRewriteConfig config;
  config.setScope(&group.getBody());
  (void)applyPatternsGreedily(group.getBody(), std::move(patterns), config);
}

/// Whether canonicalization folds `loop` away: it runs exactly one
/// iteration and has no mapping (a kernel's block loop, mapped to
/// #llm.block_loop, stays a loop).
static bool foldsAway(scf::ForallOp loop) {
  if (loop.getMapping())
    return false;
  for (auto [lb, ub, step] :
       llvm::zip_equal(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                       loop.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           st = getConstantIntValue(step);
    if (!l || !u || !st || *st <= 0 || llvm::divideCeil(*u - *l, *st) != 1)
      return false;
  }
  return true;
}

/// Erases the ops of `block` (and of nested regions) whose results are
/// unused and that have no side effects, to a fixed point.
static void eraseDeadOps(RewriterBase &rewriter, Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    block.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead) {
      rewriter.eraseOp(op);
      changed = true;
    }
  }
}

LogicalResult
mlir::llm::lowerFusionGroupForCPU(RewriterBase &rewriter, Operation *groupOp,
                                  const CPUTargetDescription &target,
                                  const CPUTilingOptions &options) {
  auto group = cast<FusionGroupOp>(groupOp);
  Block &body = group.getBody().front();
  auto inGroup = [&](Operation *op) { return groupOp->isAncestor(op); };
  // The group's ops that a tile loop may recompute.
  ProducerFilter fuseInGroup = [&](Operation *op) {
    return inGroup(op) && !isNeverFused(op);
  };

  // expand_shape [R, N] -> [..., N] that puts N with unit dimensions
  // ([1, 2304] -> [1, 1, 2304] as [[0], [1, 2]], what canonicalization makes
  // of a decode's [1, 1, K] x [K, N] matmul) -> the same reshape with N
  // alone in the last group ([[0, 1], [2]]): collapsing the epilogue's
  // (d1, d2) below would need every operand to index both, which a bias
  // over N alone does not; its (d0, d1) can always be collapsed.
  group.walk([&](tensor::ExpandShapeOp expand) {
    RankedTensorType src = expand.getSrcType(), dst = expand.getResultType();
    int64_t r = dst.getRank();
    if (src.getRank() != 2 || r < 3 || !dst.hasStaticShape() ||
        !src.hasStaticShape() || dst.getShape().back() != src.getDimSize(1) ||
        expand.getReassociationIndices().back() ==
            ReassociationIndices{r - 1})
      return;
    SmallVector<ReassociationIndices> groups{
        llvm::to_vector(llvm::seq<int64_t>(0, r - 1)), {r - 1}};
    rewriter.setInsertionPoint(expand);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        expand, dst, expand.getSrc(), groups);
  });

  // Reshapes between the group's ops (the expand_shape after a collapsed
  // [B*S, K] x [K, N] matmul) are folded by collapsing the consumer's
  // dimensions, so that the epilogue reads the matmul's result directly.
  {
    RewritePatternSet patterns(rewriter.getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [&](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return producer && inGroup(producer) && inGroup(fused->getOwner());
        });
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       rewriter.getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         rewriter.getContext());
    // The sizes of those reshapes with a dynamic (sequence) dimension are
    // read from the reshape's own sizes, not with tensor.dim of its result,
    // which would keep the untiled producer alive next to the tiled one.
    applyWithDimResolution(group, std::move(patterns));
  }

  LogicalResult result = success();
  YieldOp yield = group.getYield();
  auto root = yield.getNumOperands() == 1
                  ? dyn_cast_or_null<linalg::LinalgOp>(
                        skipReshapes(yield.getOperand(0)))
                  : nullptr;
  if (root && inGroup(root)) {
    linalg::LinalgOp contraction;
    body.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        contraction = op;
    });
    if (contraction && contraction == root) {
      // A matmul with a prologue.
      result = tileMatmulForCPU(rewriter, contraction, target, options,
                                /*epilogue=*/nullptr, fuseInGroup);
    } else if (contraction && isEpilogueOf(root, contraction)) {
      result = tileMatmulForCPU(rewriter, contraction, target, options,
                                cast<TilingInterface>(root.getOperation()),
                                fuseInGroup);
    } else {
      // Any op with loops beyond the root's (the K of an integer matmul,
      // a linalg.generic with its quantize prologue) does more work than
      // the root's iteration space says.
      bool hasContraction = bool(contraction);
      body.walk([&](linalg::LinalgOp op) {
        hasContraction |= op.getNumLoops() > root.getNumLoops();
      });
      result = tileRowsAndFuse(rewriter, root, target, options, inGroup,
                               hasContraction);
    }
  }

  // Block loops of a kernel that reads its input whole in each block (the
  // bf16 dot products): the group's producers of that input are recomputed
  // in them (a few rows), or tiled as one loop nest before them.
  SmallVector<scf::ForallOp> blockLoops;
  for (Operation &op : body)
    if (auto loop = dyn_cast<scf::ForallOp>(&op);
        loop && loop->hasAttr(kFuseProducersAttr))
      blockLoops.push_back(loop);
  for (scf::ForallOp loop : blockLoops) {
    auto mark = loop->getAttrOfType<BoolAttr>(kFuseProducersAttr);
    loop->removeAttr(kFuseProducersAttr);
    if (mark && mark.getValue() && !foldsAway(loop)) {
      fuseProducersIntoBlockLoop(rewriter, loop, fuseInGroup);
      continue;
    }
    // Too many rows to recompute per block, or a loop that folds away
    // (which would leave the producers as loops of their own): the
    // producers (a norm) become one loop nest before the kernel, as a
    // group of their own would.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    llvm::SetVector<Operation *> roots;
    for (Value v : captured)
      if (auto root = dyn_cast_or_null<linalg::LinalgOp>(skipReshapes(v));
          root && inGroup(root) && !isNeverFused(root) &&
          root->getBlock() == loop->getBlock())
        roots.insert(root);
    for (Operation *root : roots)
      (void)tileRowsAndFuse(rewriter, cast<linalg::LinalgOp>(root), target,
                            options, fuseInGroup, /*hasContraction=*/false);
  }

  // With a dynamic (sequence) dimension the tile loops' bounds are
  // tensor.dim of the untiled ops' results (the matmul's, for an epilogue
  // root): resolved to the sizes those ops were created with, so that the
  // untiled ops die instead of running beside the tiled ones.
  applyWithDimResolution(group, RewritePatternSet(rewriter.getContext()));

  // Inline the region.
  SmallVector<Value> values(group.getYield().getValues());
  rewriter.eraseOp(group.getYield());
  Block *parent = groupOp->getBlock();
  rewriter.inlineBlockBefore(&body, groupOp);
  rewriter.replaceOp(groupOp, values);
  eraseDeadOps(rewriter, *parent);
  return result;
}
