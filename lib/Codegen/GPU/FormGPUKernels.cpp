//===- FormGPUKernels.cpp - One GPU kernel per fusion group ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-form-gpu-kernels`: on linalg on tensors, every
// `llm.fusion_group` and every linalg op outside a group becomes a
// one-iteration `scf.forall` mapped to `#gpu.block<x>` and marked
// `llm.gpu_kernel`, whose results are its `shared_outs`. The forall survives
// one-shot bufferization (destination passing: the group's last ops write
// into the forall's buffers), so that after bufferization each marked loop
// holds the memref ops of exactly one kernel, which `llm-map-gpu-kernels`
// turns into one `gpu.launch`.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFORMGPUKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// A kernel's result `v` must be a statically shaped tensor (error at
/// `anchor` otherwise).
static LogicalResult checkKernelResult(Operation *anchor, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (type && type.hasStaticShape())
    return success();
  return anchor->emitError()
         << "llm-form-gpu-kernels: a GPU kernel result must be a statically "
            "shaped tensor, got "
         << v.getType()
         << " (the GPU targets take static shapes only: give the sequence a "
            "fixed length, e.g. llmc --dim NAME=N for an ONNX model, or run "
            "on a CPU target)";
}

/// Wraps the ops `body` (in order, in one block; `yielded` are the values the
/// kernel produces) into a marked one-iteration forall placed before
/// `anchor`, whose results are the yielded values.
static FailureOr<scf::ForallOp> wrapInKernel(Operation *anchor,
                                             ArrayRef<Operation *> body,
                                             ValueRange yielded) {
  Location loc = anchor->getLoc();
  SmallVector<Value> inits;
  OpBuilder b(anchor);
  for (Value v : yielded) {
    if (failed(checkKernelResult(anchor, v)))
      return failure();
    auto type = cast<RankedTensorType>(v.getType());
    inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType()));
  }
  ArrayAttr mapping = b.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(b.getContext(), gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(1)}, inits, mapping);
  forall->setAttr(kGPUKernelAttr, b.getUnitAttr());
  Block *forallBody = forall.getBody();
  Operation *terminator = forallBody->getTerminator();
  for (Operation *op : body)
    op->moveBefore(terminator);
  // The terminator inserts each result whole into its shared_out.
  OpBuilder tb = OpBuilder::atBlockTerminator(forallBody);
  tb.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [value, out] :
       llvm::zip_equal(yielded, forall.getRegionIterArgs())) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), tb.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), tb.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(tb.getIndexAttr(size));
    tensor::ParallelInsertSliceOp::create(tb, loc, value, out, offsets, sizes,
                                          strides);
  }
  return forall;
}

/// Data movement: transposes and reshapes.
static bool isMovement(Operation *op) {
  return isa<linalg::TransposeOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp>(op);
}

/// Moves the data movement at the start of a group that only reads values
/// from outside it (the head-split transposes of an attention) in front of
/// `anchor`: it is a kernel of its own, since its result is not indexed by
/// the rows of the group.
static void peelPrefix(Operation *anchor, SmallVectorImpl<Operation *> &ops) {
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  SmallVector<Operation *> kept;
  for (Operation *op : ops) {
    bool movable = isMovement(op);
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !inside.contains(def))
        continue;
      // A transpose's destination is an empty tensor of the group.
      if (isa<tensor::EmptyOp>(def) && v.hasOneUse())
        continue;
      movable = false;
    }
    if (!movable) {
      kept.push_back(op);
      continue;
    }
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && inside.contains(def)) {
        def->moveBefore(anchor);
        inside.erase(def);
        llvm::erase(kept, def);
      }
    op->moveBefore(anchor);
    inside.erase(op);
  }
  ops.assign(kept.begin(), kept.end());
}

/// The chain of data movement between the value a group computes and the
/// value it yields (a head-merge transpose, the reshapes that restore unit
/// dims), outermost first, removed from `ops`; `value` becomes the value the
/// kernel yields.
static SmallVector<Operation *> peelSuffix(SmallVectorImpl<Operation *> &ops,
                                           Value &value) {
  SmallVector<Operation *> chain;
  while (Operation *def = value.getDefiningOp()) {
    if (!llvm::is_contained(ops, def) || !isMovement(def) || !value.hasOneUse())
      break;
    chain.push_back(def);
    llvm::erase(ops, def);
    if (auto transpose = dyn_cast<linalg::TransposeOp>(def)) {
      Operation *init = transpose.getInit().getDefiningOp();
      if (init && isa<tensor::EmptyOp>(init) && init->hasOneUse() &&
          llvm::is_contained(ops, init)) {
        chain.push_back(init);
        llvm::erase(ops, init);
      }
    }
    value = def->getOperand(0);
  }
  return chain;
}

/// The producers of the kernel's destinations that belong inside it: a
/// `linalg.fill` (or the `tensor.empty` it fills) used only by the kernel.
/// A destination initialized outside the kernel loop would be written inside
/// a parallel region and bufferize to a private copy.
static void absorbInitProducers(SmallVectorImpl<Operation *> &ops) {
  SmallVector<Operation *> absorbed;
  for (Operation *op : ops) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    if (!dps)
      continue;
    for (OpOperand &init : dps.getDpsInitsMutable()) {
      auto fill = init.get().getDefiningOp<linalg::FillOp>();
      if (!fill || !fill->hasOneUse() || llvm::is_contained(ops, fill) ||
          !isa<func::FuncOp>(fill->getParentOp()))
        continue;
      absorbed.push_back(fill);
    }
  }
  // fill; op -> kernel { fill; op }
  for (Operation *fill : absorbed) {
    auto *it = llvm::find_if(ops, [&](Operation *op) {
      return llvm::is_contained(op->getOperands(), fill->getResult(0));
    });
    ops.insert(it, fill);
  }
}

/// Moves the scalar code of `ops` that only a tiled loop nest among them
/// uses (a `kv_length` read from its 0-d tensor, the bounds computed from
/// it) into the loop's body, where each block computes it again: scalars
/// cannot cross kernels, and the loop is a kernel of its own.
// x = extract(len); forall { use(x) } -> forall { x = extract(len); use(x) }
static void sinkScalarsIntoLoops(SmallVectorImpl<Operation *> &ops) {
  for (Operation *op : llvm::to_vector(ops)) {
    auto loop = dyn_cast<scf::ForallOp>(op);
    if (!loop)
      continue;
    Block *body = loop.getBody();
    SmallVector<Operation *> before(ops.begin(), llvm::find(ops, op));
    for (Operation *candidate : llvm::reverse(before)) {
      bool scalar =
          candidate->getNumRegions() == 0 && candidate->getNumResults() > 0 &&
          isMemoryEffectFree(candidate) &&
          llvm::all_of(candidate->getResultTypes(),
                       [](Type t) { return t.isIntOrIndexOrFloat(); });
      bool onlyLoop = llvm::all_of(candidate->getUsers(), [&](Operation *u) {
        return loop->isProperAncestor(u);
      });
      if (!scalar || !onlyLoop || candidate->use_empty())
        continue;
      candidate->moveBefore(body, body->begin());
      llvm::erase(ops, candidate);
    }
  }
}

/// Whether `op` is a matmul that llm-map-gpu-kernels computes as output
/// tiles (isTiledMatmulCandidate; the same matcher decides there).
static bool isTiledMatmul(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && isTiledMatmulCandidate(linalgOp);
}

/// Whether `op` can run at each output point of the tiled matmul `matmul`
/// in its kernel: an elementwise generic over the matmul's parallel space
/// that reads what `segment` computes only at the point itself.
static bool isPointEpilogue(Operation *op, linalg::LinalgOp matmul,
                            const llvm::SmallPtrSetImpl<Operation *> &segment) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0)
    return false;
  SmallVector<int64_t> space = matmul.getStaticLoopRanges();
  space.pop_back();
  if (generic.getStaticLoopRanges() != space)
    return false;
  for (OpOperand &operand : generic->getOpOperands()) {
    Operation *def = operand.get().getDefiningOp();
    if (!def || !segment.contains(def) || isa<tensor::EmptyOp>(def))
      continue;
    if (!generic.getMatchingIndexingMap(&operand).isIdentity())
      return false;
  }
  return true;
}

/// The values of `segment` used outside it (not by its ops or the ops
/// nested in them).
static SmallVector<Value> getEscapingValues(ArrayRef<Operation *> segment) {
  SmallVector<Value> escaping;
  for (Operation *op : segment)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return llvm::none_of(
                segment, [&](Operation *o) { return o->isAncestor(user); });
          }))
        escaping.push_back(result);
  return escaping;
}

/// Splits the ops of a group (in order) into the kernels they become: each
/// tiled matmul starts a kernel of its own, with the fill of its
/// destination and the point-local elementwise ops after it (its epilogue);
/// the ops after those start the next kernel. A materialized attention
/// (QK^T, its scale and mask; the softmax rows; PV) is three kernels, so
/// that both products are tiles instead of a block per query row that reads
/// all of K and V. A tiled loop nest (`scf.forall`: the flash-attention
/// lowering) is a kernel of its own. A group without a tiled matmul or loop
/// nest, or whose only one comes first, stays one kernel.
static SmallVector<SmallVector<Operation *>>
splitAtTiledMatmuls(ArrayRef<Operation *> ops) {
  SmallVector<SmallVector<Operation *>> segments(1);
  std::optional<linalg::LinalgOp> matmul;
  llvm::SmallPtrSet<Operation *, 16> current;
  auto startSegment = [&]() {
    segments.emplace_back();
    current.clear();
  };
  bool afterLoop = false;
  for (Operation *op : ops) {
    bool isFree = op->getNumOperands() == 0 && isMemoryEffectFree(op);
    if (isa<scf::ForallOp>(op)) {
      // A tiled loop nest (flash attention) is a kernel of its own: its
      // iterations are the blocks.
      bool onlyFree = llvm::all_of(segments.back(), [](Operation *o) {
        return o->getNumOperands() == 0 && isMemoryEffectFree(o);
      });
      if (!onlyFree)
        startSegment();
      matmul.reset();
      afterLoop = true;
      segments.back().push_back(op);
      current.insert(op);
      continue;
    }
    if (afterLoop && !isFree) {
      afterLoop = false;
      startSegment();
    }
    if (isTiledMatmul(op)) {
      // The fill of its destination (and the empty tensor it fills) moves
      // with it.
      SmallVector<Operation *> inits;
      for (Value init : cast<DestinationStyleOpInterface>(op).getDpsInits()) {
        auto fill = init.getDefiningOp<linalg::FillOp>();
        if (!fill || !fill->hasOneUse() || !current.contains(fill))
          continue;
        if (Operation *empty = fill.getOutputs()[0].getDefiningOp();
            empty && isa<tensor::EmptyOp>(empty) && empty->hasOneUse() &&
            current.contains(empty))
          inits.push_back(empty);
        inits.push_back(fill);
      }
      // Constants and empty tensors alone are no kernel.
      bool onlyInits = llvm::all_of(segments.back(), [&](Operation *o) {
        return llvm::is_contained(inits, o) ||
               (o->getNumOperands() == 0 && isMemoryEffectFree(o));
      });
      if (!onlyInits) {
        for (Operation *init : inits)
          llvm::erase(segments.back(), init);
        startSegment();
        for (Operation *init : inits) {
          segments.back().push_back(init);
          current.insert(init);
        }
      }
      matmul = cast<linalg::LinalgOp>(op);
    } else if (matmul && !isa<tensor::EmptyOp>(op) &&
               !isPointEpilogue(op, *matmul, current)) {
      // The matmul's kernel ends.
      matmul.reset();
      startSegment();
    }
    segments.back().push_back(op);
    current.insert(op);
  }
  llvm::erase_if(segments, [](const SmallVector<Operation *> &segment) {
    return segment.empty();
  });
  // What crosses kernels must be a kernel result: a statically shaped
  // tensor (constants and empty tensors are copied below). Otherwise the
  // group stays one kernel.
  for (ArrayRef<Operation *> segment : ArrayRef(segments).drop_back())
    for (Value v : getEscapingValues(segment)) {
      Operation *def = v.getDefiningOp();
      if (def->getNumOperands() == 0 && isMemoryEffectFree(def))
        continue;
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !type.hasStaticShape())
        return {SmallVector<Operation *>(ops)};
    }
  // An empty tensor or constant that several kernels use: a copy in each.
  for (size_t i = 1; i < segments.size(); ++i) {
    llvm::SmallPtrSet<Operation *, 16> inside(segments[i].begin(),
                                              segments[i].end());
    SmallVector<Operation *> copies;
    for (Operation *op : segments[i])
      op->walk([&](Operation *inner) {
        for (OpOperand &operand : inner->getOpOperands()) {
          Operation *def = operand.get().getDefiningOp();
          if (!def || inside.contains(def) || def->getNumOperands() != 0 ||
              !isMemoryEffectFree(def) || !llvm::is_contained(ops, def))
            continue;
          OpBuilder b(op);
          Operation *copy = b.clone(*def);
          inside.insert(copy);
          copies.push_back(copy);
          operand.set(
              copy->getResult(cast<OpResult>(operand.get()).getResultNumber()));
        }
      });
    segments[i].insert(segments[i].begin(), copies.begin(), copies.end());
  }
  return segments;
}

/// Whether `ops` are one tiled loop nest (`scf.forall`) and the constants
/// and empty tensors it uses; returns the loop.
static scf::ForallOp getBlockLoop(ArrayRef<Operation *> ops) {
  scf::ForallOp loop;
  for (Operation *op : ops) {
    if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      if (loop)
        return {};
      loop = forall;
      continue;
    }
    if (op->getNumOperands() != 0 || !isMemoryEffectFree(op))
      return {};
  }
  return loop;
}

/// Writes the carried values of the `scf.for` loops in `loop` in place again.
/// (llm-lower-to-nvvm lowers the attentions after the passes that do this;
/// a loop nest from elsewhere may still carry it.) linalg-fold-unit-extent-
/// dims (its MoveInitOperandsToInput) moves the destination of an
/// all-parallel
/// generic that reads it (the flash-attention lowering's `m' = max(m, r)`
/// into `m`) to its inputs, with an empty destination: the value a loop
/// yields then no longer shares its iteration argument's buffer, which
/// one-shot bufferization refuses for a loop. Along each yielded value's
/// chain of destinations, the generic with an empty destination that reads
/// the iteration argument at the point it writes gets it back as its
/// destination.
// yield(g(..., %acc) outs(empty)) -> yield(g(..., %acc) outs(%acc))
static void restoreInPlaceUpdates(scf::ForallOp loop) {
  loop.walk([](scf::ForOp forOp) {
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [iterArg, yielded] :
         llvm::zip_equal(forOp.getRegionIterArgs(), yield.getOperands())) {
      Value v = yielded;
      while (auto result = dyn_cast<OpResult>(v)) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner());
        if (!dps || dps->getBlock() != forOp.getBody())
          break;
        OpOperand *init = dps.getTiedOpOperand(result);
        auto generic = dyn_cast<linalg::GenericOp>(result.getOwner());
        if (generic && init->get().getDefiningOp<tensor::EmptyOp>() &&
            generic.getNumReductionLoops() == 0) {
          AffineMap outMap = generic.getMatchingIndexingMap(init);
          for (OpOperand *input : generic.getDpsInputOperands())
            if (input->get() == iterArg &&
                generic.getMatchingIndexingMap(input) == outMap) {
              init->set(iterArg);
              break;
            }
          break;
        }
        v = init->get();
      }
    }
  });
}

/// Makes the ops of one kernel (in order) a kernel before `anchor`: a tiled
/// loop nest is marked as it is (kGPUBlockLoopAttr: each iteration a block),
/// anything else is wrapped into a one-iteration loop (wrapInKernel).
/// Returns the values that replace `results` after the kernel.
static FailureOr<SmallVector<Value>>
placeKernel(Operation *anchor, ArrayRef<Operation *> ops, ValueRange results) {
  scf::ForallOp loop = getBlockLoop(ops);
  if (!loop) {
    FailureOr<scf::ForallOp> forall = wrapInKernel(anchor, ops, results);
    if (failed(forall))
      return failure();
    return SmallVector<Value>(forall->getResults());
  }
  for (Value v : loop.getResults())
    if (failed(checkKernelResult(anchor, v)))
      return failure();
  restoreInPlaceUpdates(loop);
  // forall (flash attention) -> forall {llm.gpu_kernel, llm.gpu_block_loop}
  for (Operation *op : ops)
    op->moveBefore(anchor);
  Builder b(anchor->getContext());
  loop->setAttr(kGPUKernelAttr, b.getUnitAttr());
  loop->setAttr(kGPUBlockLoopAttr, b.getUnitAttr());
  // Its dims mapped to blocks: the canonicalizer then keeps a loop of one
  // iteration (one head and query tile) instead of inlining its body.
  SmallVector<Attribute> mapping;
  for (int64_t i = 0, e = loop.getRank(); i < e; ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        b.getContext(),
        static_cast<gpu::MappingId>(
            static_cast<int64_t>(gpu::MappingId::LinearDim0) + i)));
  loop.setMappingAttr(b.getArrayAttr(mapping));
  for (Value v : results)
    if (v.getDefiningOp() != loop.getOperation())
      return anchor->emitError("llm-form-gpu-kernels: a value of a tiled "
                               "loop nest's kernel other than its results "
                               "is used after it");
  return SmallVector<Value>(results);
}

namespace {

struct LLMFormGPUKernelsPass
    : llm::impl::LLMFormGPUKernelsPassBase<LLMFormGPUKernelsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    func->setAttr(kGPUNumResultsAttr,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                   func.getFunctionType().getNumResults()));
    SmallVector<Operation *> roots;
    for (Block &block : getOperation().getFunctionBody())
      for (Operation &op : block)
        if (isa<FusionGroupOp>(op) ||
            (isa<linalg::LinalgOp>(op) && op.getNumResults() > 0))
          roots.push_back(&op);
    for (Operation *root : roots) {
      if (auto group = dyn_cast<FusionGroupOp>(root)) {
        // fusion_group { ops; yield vs } -> forall(1) { ops } in_parallel
        // { insert vs }
        Block &groupBody = group.getBody().front();
        auto yield = cast<YieldOp>(groupBody.getTerminator());
        SmallVector<Operation *> ops;
        for (Operation &op : groupBody.without_terminator())
          ops.push_back(&op);
        peelPrefix(group, ops);
        SmallVector<Value> yielded(yield.getOperands());
        SmallVector<SmallVector<Operation *>> chains;
        for (Value &v : yielded)
          chains.push_back(peelSuffix(ops, v));
        sinkScalarsIntoLoops(ops);
        // Kernels before the last one of a group split at its tiled
        // matmuls: their values used later become their results.
        SmallVector<SmallVector<Operation *>> segments =
            splitAtTiledMatmuls(ops);
        for (ArrayRef<Operation *> segment : ArrayRef(segments).drop_back()) {
          SmallVector<Operation *> kernelOps(segment);
          absorbInitProducers(kernelOps);
          SmallVector<Value> results = getEscapingValues(kernelOps);
          FailureOr<SmallVector<Value>> newResults =
              placeKernel(root, kernelOps, results);
          if (failed(newResults))
            return signalPassFailure();
          for (auto [oldResult, newResult] :
               llvm::zip_equal(results, *newResults)) {
            if (oldResult == newResult)
              continue;
            Operation *kernel = newResult.getDefiningOp();
            oldResult.replaceUsesWithIf(newResult, [&](OpOperand &use) {
              return !kernel->isAncestor(use.getOwner());
            });
            llvm::replace(yielded, oldResult, newResult);
          }
        }
        ops = segments.back();
        absorbInitProducers(ops);
        FailureOr<SmallVector<Value>> kernelResults =
            placeKernel(root, ops, yielded);
        if (failed(kernelResults))
          return signalPassFailure();
        // The peeled data movement runs after the kernel, on its results.
        Operation *insertAfter = root->getPrevNode();
        for (auto [i, chain] : llvm::enumerate(chains)) {
          Value current = (*kernelResults)[i];
          for (Operation *op : llvm::reverse(chain)) {
            op->moveAfter(insertAfter);
            insertAfter = op;
            if (isa<tensor::EmptyOp>(op))
              continue;
            op->setOperand(0, current);
            current = op->getResult(0);
          }
          group->getResult(i).replaceAllUsesWith(current);
        }
        group->erase();
        continue;
      }
      // A linalg op outside any group is a kernel of its own (with the fill
      // of its destination).
      bool absorbedLater =
          isa<linalg::FillOp>(root) && root->hasOneUse() &&
          isa<linalg::LinalgOp, FusionGroupOp>(*root->getUsers().begin());
      if (absorbedLater)
        continue;
      SmallVector<Operation *> ops{root};
      absorbInitProducers(ops);
      SmallVector<Value> results(root->getResults());
      FailureOr<scf::ForallOp> forall = wrapInKernel(root, ops, results);
      if (failed(forall))
        return signalPassFailure();
      for (auto [oldResult, newResult] :
           llvm::zip_equal(results, forall->getResults()))
        oldResult.replaceUsesWithIf(newResult, [&](OpOperand &use) {
          return use.getOwner()->getParentOp() != forall->getTerminator();
        });
    }
  }
};

} // namespace
