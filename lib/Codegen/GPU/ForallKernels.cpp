//===- ForallKernels.cpp - Tiled loop nests as one GPU kernel -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The forall strategy of llm-map-gpu-kernels: a kernel that is a tiled loop
// nest (the flash-attention lowering of `llm.attention`, an `scf.forall`
// over (batch, head, query tile) whose body runs linalg ops on tiles inside
// an `scf.for` over key/value tiles) becomes one `gpu.launch`:
//
//   scf.forall (%b, %h, %t) in (B, H, T) {       gpu.launch blocks(B*H*T)
//     %s = memref.alloc() : [Tq, Tk]        ->     workgroup(%s : [Tq, Tk])
//     scf.for %j ... {                              scf.for %j ... {
//       linalg.matmul ins(%q, %kt) outs(%s)           for p = tid; p < Tq*Tk;
//       ...                                               p += blockDim:
//     }                                                 s[p] = sum_d ...
//   }                                                 gpu.barrier ...
//
// The tiles of one iteration live in the block's workgroup (shared) memory,
// so a query tile's scores, probabilities, running maximum, sum and
// accumulator never leave the chip, and the key tile is staged there (the
// lowering's transposed copy); every thread runs the loops alike, and the
// work of each linalg op is spread over the threads.
//
//===----------------------------------------------------------------------===//

#include "ForallKernels.h"

#include "StageEmitter.h"

#include "llm/Codegen/GPU/GPUKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

/// The buffer a view is taken of, up to an arena slot.
Value getRoot(Value v) { return getViewedBuffer(v, /*stopAtArenaSlots=*/true); }

/// Emits the body of a tiled loop nest inside its launch.
class ForallEmitter {
public:
  ForallEmitter(OpBuilder &b, Location loc, IRMapping &mapping, Value tid,
                Value blockSize)
      : b(b), loc(loc), mapping(mapping), tid(tid), blockSize(blockSize),
        stages(b, loc, mapping, tid, blockSize) {}

  LogicalResult emitBlock(Block &block);

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  void barrierIfPending() {
    if (pendingReads.empty() && pendingWrites.empty())
      return;
    gpu::BarrierOp::create(b, loc);
    pendingReads.clear();
    pendingWrites.clear();
  }
  LogicalResult emitStage(linalg::GenericOp stage);
  LogicalResult emitFree(Operation *op);

  OpBuilder &b;
  Location loc;
  IRMapping &mapping;
  Value tid, blockSize;
  StageEmitter stages;
  /// Buffers (roots) read and written by the threads since the last
  /// barrier.
  llvm::SmallPtrSet<Value, 8> pendingReads, pendingWrites;
};

LogicalResult ForallEmitter::emitStage(linalg::GenericOp stage) {
  // Another thread's write of what this stage reads or writes, or its read
  // of what this stage writes, must be done first.
  SmallVector<Value> reads, writes;
  for (OpOperand *input : stage.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      reads.push_back(getRoot(input->get()));
  for (OpOperand &init : stage.getDpsInitsMutable()) {
    writes.push_back(getRoot(init.get()));
    if (!stage.getMatchingBlockArgument(&init).use_empty())
      reads.push_back(getRoot(init.get()));
  }
  // Loads in the payload (a mask read by index).
  stage.getRegion().walk(
      [&](memref::LoadOp load) { reads.push_back(getRoot(load.getMemRef())); });
  // Within one stage, a thread may only read what it writes at its own
  // point: an input of a written buffer must be read at the point written
  // (same map, no reduction), else no barrier could order the threads.
  for (OpOperand *input : stage.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      continue;
    Value root = getRoot(input->get());
    for (OpOperand &init : stage.getDpsInitsMutable()) {
      if (getRoot(init.get()) != root)
        continue;
      if (input->get() != init.get() || stage.getNumReductionLoops() != 0 ||
          stage.getMatchingIndexingMap(input) !=
              stage.getMatchingIndexingMap(&init))
        return stage->emitError("llm-map-gpu-kernels: a stage of a tiled loop "
                                "nest reads a buffer it writes at other "
                                "points");
    }
  }
  bool conflict =
      llvm::any_of(reads, [&](Value v) { return pendingWrites.contains(v); }) ||
      llvm::any_of(writes, [&](Value v) {
        return pendingWrites.contains(v) || pendingReads.contains(v);
      });
  if (conflict)
    barrierIfPending();
  pendingReads.insert(reads.begin(), reads.end());
  pendingWrites.insert(writes.begin(), writes.end());

  // The loop ranges: static, or the size of an operand dim the loop dim
  // indexes.
  SmallVector<int64_t> ranges = stage.getStaticLoopRanges();
  SmallVector<utils::IteratorType> its = stage.getIteratorTypesArray();
  SmallVector<Value> extents;
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range)) {
      extents.push_back(cst(range));
      continue;
    }
    if (its[d] != utils::IteratorType::parallel)
      return stage->emitError("llm-map-gpu-kernels: a dynamic reduction range "
                              "in a tiled loop nest is not supported");
    Value extent;
    for (OpOperand &operand : stage->getOpOperands()) {
      AffineMap map = stage.getMatchingIndexingMap(&operand);
      for (auto [i, expr] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(expr);
            dim && dim.getPosition() == d && !extent)
          extent = memref::DimOp::create(
              b, loc, mapping.lookupOrDefault(operand.get()), i);
    }
    if (!extent)
      return stage->emitError("llm-map-gpu-kernels: cannot size loop dim ")
             << d << " of a stage";
    extents.push_back(extent);
  }
  // for p = tid; p < points; p += blockDim: the point p of the parallel
  // dims, the innermost fastest.
  int64_t staticPoints = 1;
  Value dynamicPoints;
  for (auto [d, extent] : llvm::enumerate(extents)) {
    if (its[d] != utils::IteratorType::parallel)
      continue;
    if (!ShapedType::isDynamic(ranges[d]))
      staticPoints *= ranges[d];
    else
      dynamicPoints =
          dynamicPoints
              ? arith::MulIOp::create(b, loc, dynamicPoints, extent).getResult()
              : extent;
  }
  Value points = cst(staticPoints);
  if (dynamicPoints)
    points = arith::MulIOp::create(b, loc, points, dynamicPoints);
  auto loop = scf::ForOp::create(b, loc, tid, points, blockSize);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(ranges.size());
  Value rest = loop.getInductionVar();
  int64_t outermost = -1;
  for (auto [d, it] : llvm::enumerate(its))
    if (it == utils::IteratorType::parallel && outermost < 0)
      outermost = d;
  for (int64_t d = static_cast<int64_t>(ranges.size()) - 1; d >= 0; --d) {
    if (its[d] != utils::IteratorType::parallel)
      continue;
    if (d == outermost) {
      ivs[d] = rest;
      break;
    }
    ivs[d] = arith::RemUIOp::create(b, loc, rest, extents[d]);
    rest = arith::DivUIOp::create(b, loc, rest, extents[d]);
  }
  stages.emitPoint(stage, ivs);
  return success();
}

LogicalResult ForallEmitter::emitFree(Operation *op) {
  // A subview of a workgroup buffer: its type has the workgroup memory space.
  if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
    Value source = mapping.lookupOrDefault(subview.getSource());
    if (source.getType() != subview.getSource().getType()) {
      auto mapAll = [&](ArrayRef<OpFoldResult> values) {
        SmallVector<OpFoldResult> mapped;
        for (OpFoldResult ofr : values) {
          if (auto v = dyn_cast<Value>(ofr))
            mapped.push_back(mapping.lookupOrDefault(v));
          else
            mapped.push_back(ofr);
        }
        return mapped;
      };
      SmallVector<OpFoldResult> offsets = mapAll(subview.getMixedOffsets()),
                                sizes = mapAll(subview.getMixedSizes()),
                                strides = mapAll(subview.getMixedStrides());
      // The same rank as the original (a rank-reducing view stays one).
      auto type = memref::SubViewOp::inferRankReducedResultType(
          subview.getType().getShape(), cast<MemRefType>(source.getType()),
          offsets, sizes, strides);
      auto clone = memref::SubViewOp::create(b, loc, cast<MemRefType>(type),
                                             source, offsets, sizes, strides);
      mapping.map(subview.getResult(), clone.getResult());
      return success();
    }
  }
  if (isa<ViewLikeOpInterface>(op))
    for (Value operand : op->getOperands())
      if (mapping.lookupOrDefault(operand).getType() != operand.getType())
        return op->emitError("llm-map-gpu-kernels: cannot take a '")
               << op->getName() << "' view of a workgroup buffer";
  b.clone(*op, mapping);
  return success();
}

LogicalResult ForallEmitter::emitBlock(Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      continue;
    if (auto stage = dyn_cast<linalg::GenericOp>(op)) {
      if (failed(emitStage(stage)))
        return failure();
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (forOp.getNumResults() != 0)
        return op.emitError("llm-map-gpu-kernels: a loop that carries values "
                            "in a tiled loop nest is not supported");
      barrierIfPending();
      auto clone = scf::ForOp::create(
          b, loc, mapping.lookupOrDefault(forOp.getLowerBound()),
          mapping.lookupOrDefault(forOp.getUpperBound()),
          mapping.lookupOrDefault(forOp.getStep()));
      mapping.map(forOp.getInductionVar(), clone.getInductionVar());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(clone.getBody());
      if (failed(emitBlock(*forOp.getBody())))
        return failure();
      // The next iteration's first op may overwrite what this one's last
      // read.
      barrierIfPending();
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      // Its threads take one branch alike, but a barrier inside a branch
      // is not what the emulator (llm-emulate-gpu-kernels) checks: only
      // branches without linalg ops.
      bool hasStages = false;
      ifOp->walk([&](linalg::LinalgOp) { hasStages = true; });
      if (ifOp.getNumResults() != 0 || hasStages)
        return op.emitError("llm-map-gpu-kernels: an scf.if with results or "
                            "linalg ops in a tiled loop nest is not "
                            "supported");
      barrierIfPending();
      auto clone = scf::IfOp::create(
          b, loc, mapping.lookupOrDefault(ifOp.getCondition()),
          /*withElseRegion=*/!ifOp.getElseRegion().empty());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&clone.getThenRegion().front());
      if (failed(emitBlock(ifOp.getThenRegion().front())))
        return failure();
      barrierIfPending();
      if (!ifOp.getElseRegion().empty()) {
        b.setInsertionPointToStart(&clone.getElseRegion().front());
        if (failed(emitBlock(ifOp.getElseRegion().front())))
          return failure();
        barrierIfPending();
      }
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      // A scalar every thread reads (kv_length): after the writes of it.
      if (pendingWrites.contains(getRoot(load.getMemRef())))
        barrierIfPending();
      pendingReads.insert(getRoot(load.getMemRef()));
      b.clone(op, mapping);
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return op.emitError("llm-map-gpu-kernels: cannot run '")
             << op.getName() << "' inside a GPU kernel";
    if (failed(emitFree(&op)))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult mlir::llm::mapForallKernel(scf::ForallOp loop,
                                         const GPUTargetDescription &target,
                                         MaterializeFn materialize) {
  Location loc = loop.getLoc();
  std::optional<SmallVector<int64_t>> lbs =
      getConstantIntValues(loop.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> ubs =
      getConstantIntValues(loop.getMixedUpperBound());
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(loop.getMixedStep());
  if (!lbs || !ubs || !steps ||
      llvm::any_of(*lbs, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(*steps, [](int64_t v) { return v != 1; }))
    return loop.emitError("llm-map-gpu-kernels: a tiled loop nest kernel needs "
                          "static bounds from 0 with step 1");
  if (loop.getNumResults() != 0)
    return loop.emitError("llm-map-gpu-kernels: a kernel loop must be "
                          "bufferized");
  int64_t grid = 1;
  for (int64_t ub : *ubs)
    grid *= ub;
  if (grid > std::numeric_limits<int32_t>::max())
    return loop.emitError("llm-map-gpu-kernels: a grid of ")
           << grid << " blocks is more than a launch allows";

  // Named ops and copies as generics.
  IRRewriter rewriter(loop->getContext());
  SmallVector<Operation *> named;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<memref::CopyOp>(op) ||
        (isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp>(op))) {
      named.push_back(op);
      return WalkResult::skip();
    }
    return isa<linalg::LinalgOp>(op) ? WalkResult::skip()
                                     : WalkResult::advance();
  });
  for (Operation *op : named) {
    rewriter.setInsertionPoint(op);
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto linalgCopy = linalg::CopyOp::create(
          rewriter, op->getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(op);
      op = linalgCopy;
    }
    if (failed(linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(op))))
      return op->emitError("llm-map-gpu-kernels: cannot generalize ")
             << op->getName();
  }

  // Workgroup buffers and the block size (a thread per point of the
  // largest stage, up to the chip's default block).
  SmallVector<memref::AllocOp> allocs;
  int64_t sharedBytes = 0, maxPoints = 1, numStages = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          alloc->getNumOperands() != 0 ||
          !type.getElementType().isIntOrFloat()) {
        alloc.emitError("llm-map-gpu-kernels: a tiled loop nest's buffer "
                        "must have a static shape and an integer or float "
                        "element type, got ")
            << type;
        return WalkResult::interrupt();
      }
      int64_t bits = type.getNumElements() *
                     static_cast<int64_t>(type.getElementTypeBitWidth());
      sharedBytes += llvm::alignTo(llvm::divideCeil(bits, 8), 16);
      allocs.push_back(alloc);
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      // A buffer from outside the loop is written by every block: only
      // through a view the block takes of it (its part of the result), not
      // a scratch buffer moved out of the loop, which the blocks would
      // share.
      for (Value init : generic.getDpsInits()) {
        Operation *view = init.getDefiningOp();
        bool ownBuffer = llvm::any_of(allocs, [&](memref::AllocOp a) {
          return a.getResult() == getRoot(init);
        });
        bool blockView = view && isa<memref::SubViewOp>(view) &&
                         loop->isProperAncestor(view);
        if (!ownBuffer && !blockView &&
            !loop->isAncestor(getRoot(init).getParentRegion()->getParentOp())) {
          generic.emitError("llm-map-gpu-kernels: a stage of a tiled loop "
                            "nest writes a buffer from outside it other than "
                            "through a view the block takes");
          return WalkResult::interrupt();
        }
      }
      ++numStages;
      int64_t points = 1;
      for (auto [range, it] : llvm::zip(generic.getStaticLoopRanges(),
                                        generic.getIteratorTypesArray()))
        if (it == utils::IteratorType::parallel)
          points *=
              ShapedType::isDynamic(range) ? target.defaultBlockSize : range;
      maxPoints = std::max(maxPoints, points);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (sharedBytes > target.staticSharedMemoryPerBlock)
    return loop.emitError("llm-map-gpu-kernels: the tiled loop nest's "
                          "workgroup buffers take ")
           << sharedBytes << " bytes, more than the "
           << target.staticSharedMemoryPerBlock
           << " bytes of static shared memory per block (give the attention "
              "a smaller attention_tile in its llm.lowering_config, or use "
              "the pipeline option attention=materialized)";
  int64_t blockSize =
      std::clamp<int64_t>(llvm::alignTo(maxPoints, target.warpSize),
                          target.warpSize, target.defaultBlockSize);

  rewriter.setInsertionPoint(loop);
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value one = idx(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, idx(grid), one, one,
                                      idx(blockSize), one, one);
  Builder attrs(loop->getContext());
  launch->setAttr(
      kGPUStrategyAttr,
      attrs.getDictionaryAttr(
          {attrs.getNamedAttr("strategy", attrs.getStringAttr("forall")),
           attrs.getNamedAttr("stages", attrs.getI64IntegerAttr(numStages)),
           attrs.getNamedAttr("rows", attrs.getI64IntegerAttr(0)),
           attrs.getNamedAttr("blocks", attrs.getDenseI64ArrayAttr(*ubs))}));
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  IRMapping mapping;
  loop.getBody()->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (!loop->isAncestor(operand.getParentRegion()->getParentOp()))
        materialize(b, launch, operand, mapping);
  });
  // Block id -> the loop's ivs, the last fastest.
  Value rest = launch.getBlockIds().x;
  SmallVector<Value> ivs = loop.getInductionVars();
  for (int64_t i = static_cast<int64_t>(ivs.size()) - 1; i > 0; --i) {
    Value extent = arith::ConstantIndexOp::create(b, loc, (*ubs)[i]);
    mapping.map(ivs[i], arith::RemUIOp::create(b, loc, rest, extent));
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  mapping.map(ivs.front(), rest);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    mapping.map(alloc.getResult(),
                launch.addWorkgroupAttribution(
                    MemRefType::get(type.getShape(), type.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup),
                    alloc.getLoc()));
  }
  ForallEmitter emitter(b, loc, mapping, launch.getThreadIds().x,
                        launch.getBlockSize().x);
  if (failed(emitter.emitBlock(*loop.getBody())))
    return failure();
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(loop);
  return success();
}
