//===- PlanMemory.cpp - Static memory planning into one arena -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-plan-memory`: the statically shaped intermediate
// buffers of a bufferized function are given offsets in one arena from their
// live intervals (planArena, MemoryPlan.cpp), and each `memref.alloc` becomes
// a `memref.view` into the arena.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/MemoryPlan.h"
#include "llm/Codegen/Passes.h"
#include "llm/Codegen/Transforms.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

#define DEBUG_TYPE "llm-plan-memory"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMPLANMEMORYPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Buffers of a function
//===----------------------------------------------------------------------===//

/// Bytes of a plannable buffer type: static shape, identity layout, default
/// memory space, integer or float elements (each stored in a power-of-two
/// number of bytes, like LLVM's alloc size of i1/i8/.../f64).
/// `shape` gives the sizes to plan for (the type's, with each dynamic size
/// replaced by its upper bound).
static std::optional<int64_t> getPlannableByteSize(MemRefType type,
                                                   ArrayRef<int64_t> shape) {
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return std::nullopt;
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return std::nullopt;
  int64_t bytes =
      llvm::PowerOf2Ceil(llvm::divideCeil(elem.getIntOrFloatBitWidth(), 8));
  for (int64_t d : shape)
    if (ShapedType::isDynamic(d) || llvm::MulOverflow(bytes, d, bytes))
      return std::nullopt;
  return bytes;
}

std::optional<int64_t> mlir::llm::getSequenceSizeBound(FunctionOpInterface func,
                                                       Value size) {
  ValueDimList deps;
  int64_t bound = -1;
  for (auto [arg, dim, b] : getDynamicArgDims(func)) {
    if (ShapedType::isDynamic(b)) // An out-param: no declared bound.
      continue;
    deps.push_back({func.getArgument(arg), int64_t(dim)});
    bound = std::max(bound, b);
  }
  if (deps.empty() || bound < 1)
    return std::nullopt;
  AffineMap map;
  ValueDimList operands;
  if (failed(ValueBoundsConstraintSet::computeDependentBound(
          map, operands, presburger::BoundType::EQ, size, deps)) &&
      failed(ValueBoundsConstraintSet::computeDependentBound(
          map, operands, presburger::BoundType::UB, size, deps,
          /*closedUB=*/true)))
    return std::nullopt;
  if (map.getNumResults() == 0)
    return std::nullopt;
  // One linear result (no mod/floordiv/ceildiv) is monotone in n: its
  // largest value over [1, bound] is at an end. Otherwise every n is tried
  // (up to 2^16 values; a larger bound leaves the buffer unplanned).
  bool linear = map.getNumResults() == 1;
  map.getResult(0).walk([&](AffineExpr e) {
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin || e.getKind() == AffineExprKind::Add)
      return;
    if (e.getKind() != AffineExprKind::Mul ||
        !(isa<AffineConstantExpr>(bin.getLHS()) ||
          isa<AffineConstantExpr>(bin.getRHS())))
      linear = false;
  });
  SmallVector<int64_t> points;
  if (linear) {
    points = {1, bound};
  } else if (bound <= (int64_t(1) << 16)) {
    for (int64_t n = 1; n <= bound; ++n)
      points.push_back(n);
  } else {
    return std::nullopt;
  }
  std::optional<int64_t> best;
  SmallVector<Attribute> inputs(map.getNumInputs());
  Builder b(func.getContext());
  for (int64_t n : points) {
    for (Attribute &a : inputs)
      a = b.getIndexAttr(n);
    SmallVector<Attribute> results;
    if (failed(map.constantFold(inputs, results)) || results.empty())
      return std::nullopt;
    // An upper-bound map with several results bounds by their minimum.
    std::optional<int64_t> value;
    for (Attribute r : results) {
      auto i = dyn_cast_or_null<IntegerAttr>(r);
      if (!i)
        return std::nullopt;
      value = value ? std::min(*value, i.getInt()) : i.getInt();
    }
    best = best ? std::max(*best, *value) : *value;
  }
  if (!best || *best < 0)
    return std::nullopt;
  return best;
}

namespace {
/// A buffer of the function and its plan entry.
struct Candidate {
  memref::AllocOp alloc;
  PlannedBuffer plan;
};

/// Figures of one module, summed over its functions.
struct PlanTotals {
  int64_t arena = 0, naive = 0, liveBound = 0, planned = 0, copiesRemoved = 0,
          splits = 0;
};
} // namespace

/// Collects the plannable allocs of `func`'s single block with their live
/// intervals (positions of top-level ops).
static SmallVector<Candidate> collectCandidates(func::FuncOp func,
                                                int64_t alignment) {
  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> position;
  int64_t pos = 0;
  for (Operation &op : body)
    position[&op] = pos++;

  BufferViewFlowAnalysis aliases(func);
  SmallVector<Candidate> candidates;
  for (auto alloc : body.getOps<memref::AllocOp>()) {
    if (!alloc.getSymbolOperands().empty())
      continue;
    // Dynamic sizes are planned at their bound (getSequenceSizeBound).
    SmallVector<int64_t> shape(alloc.getType().getShape());
    unsigned next = 0;
    bool bounded = true;
    for (int64_t &d : shape) {
      if (!ShapedType::isDynamic(d))
        continue;
      std::optional<int64_t> ub =
          getSequenceSizeBound(func, alloc.getDynamicSizes()[next++]);
      if (!ub) {
        bounded = false;
        break;
      }
      d = *ub;
    }
    if (!bounded)
      continue;
    std::optional<int64_t> bytes =
        getPlannableByteSize(alloc.getType(), shape);
    if (!bytes)
      continue;
    int64_t first = std::numeric_limits<int64_t>::max(), last = -1;
    bool escapes = false;
    for (Value alias : aliases.resolve(alloc.getResult())) {
      for (OpOperand &use : alias.getUses()) {
        Operation *top = body.findAncestorOpInBlock(*use.getOwner());
        // Returned (the caller receives it) or freed by hand: not ours.
        if (!top || isa<func::ReturnOp, memref::DeallocOp>(top) ||
            isa<memref::DeallocOp>(use.getOwner())) {
          escapes = true;
          break;
        }
        if (top == alloc.getOperation())
          continue;
        first = std::min(first, position[top]);
        last = std::max(last, position[top]);
      }
      if (escapes)
        break;
    }
    if (escapes)
      continue;
    if (last < 0) // Never used: a slot of its own at the alloc.
      first = last = position[alloc];
    Candidate c;
    c.alloc = alloc;
    c.plan.size = alignTo(std::max<int64_t>(*bytes, 1), alignment);
    c.plan.first = first;
    c.plan.last = last;
    candidates.push_back(c);
  }
  return candidates;
}

//===----------------------------------------------------------------------===//
// Live-range splitting at full overwrites
//===----------------------------------------------------------------------===//

/// Whether `v` is `alloc` itself or a reshape/cast chain of it: a view of
/// every byte of the buffer.
static bool isFullAlias(Value v, Value alloc) {
  while (v != alloc) {
    Operation *def = v.getDefiningOp();
    if (auto e = dyn_cast_or_null<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast_or_null<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto c = dyn_cast_or_null<memref::CastOp>(def))
      v = c.getSource();
    else
      return false;
  }
  return true;
}

/// The operand that `op` writes entirely without reading its old contents,
/// reading no other alias of the buffer (`aliasSet`), or null:
///   * a linalg op with buffer semantics and one init, whose payload does
///     not use the init value and whose init map is a projected permutation
///     of all the init's dimensions (every element is written), none of
///     whose inputs is in `aliasSet`;
///   * `memref.copy %src, %dst` with `%src` not in `aliasSet`.
static Value getFullyWrittenOperand(Operation *op,
                                    const DenseSet<Value> &aliasSet) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureBufferSemantics() || linalgOp.getNumDpsInits() != 1)
      return {};
    OpOperand *init = linalgOp.getDpsInitOperand(0);
    if (linalgOp.payloadUsesValueFromOperand(init))
      return {};
    AffineMap map = linalgOp.getMatchingIndexingMap(init);
    if (!map.isProjectedPermutation() ||
        map.getNumResults() != linalgOp.getRank(init))
      return {};
    for (OpOperand *in : linalgOp.getDpsInputOperands())
      if (aliasSet.contains(in->get()))
        return {};
    return init->get();
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    if (!aliasSet.contains(copy.getSource()))
      return copy.getTarget();
  return {};
}

/// Whether `op` or an op nested in it uses a value of `aliasSet`.
static bool usesAlias(Operation *op, const DenseSet<Value> &aliasSet) {
  return op
      ->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (aliasSet.contains(v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The only op inside the loop `loop` that uses an alias of the buffer
/// defined outside the loop, when it is a `memref.subview` directly in the
/// loop body; else null.
static memref::SubViewOp getSingleOuterAccess(Operation *loop,
                                              const DenseSet<Value> &aliasSet) {
  Block *body = &loop->getRegion(0).front();
  memref::SubViewOp tile;
  bool ok = true;
  loop->walk([&](Operation *op) {
    if (op == loop)
      return WalkResult::advance();
    for (Value v : op->getOperands()) {
      if (!aliasSet.contains(v) ||
          loop->isProperAncestor(v.getParentBlock()->getParentOp()) ||
          v.getParentBlock()->getParentOp() == loop)
        continue;
      auto sub = dyn_cast<memref::SubViewOp>(op);
      if (!sub || (tile && tile != sub) || sub->getBlock() != body) {
        ok = false;
        return WalkResult::interrupt();
      }
      tile = sub;
    }
    return WalkResult::advance();
  });
  return ok ? tile : memref::SubViewOp();
}

/// The SSA value of the run-time size of dimension `d` of `v` (a dynamic
/// dimension), through the reshapes that isFullAlias follows: an alloc's
/// or a subview's size operand, an expand_shape's output size, the one
/// dynamic dimension of a collapse_shape's group whose other dimensions are
/// 1. Null when it is none of these.
static Value getDynamicDimSize(Value v, int64_t d) {
  while (true) {
    Operation *def = v.getDefiningOp();
    auto type = cast<MemRefType>(v.getType());
    if (!ShapedType::isDynamic(type.getDimSize(d)))
      return {};
    if (auto alloc = dyn_cast_or_null<memref::AllocOp>(def))
      return alloc.getDynamicSizes()[type.getDynamicDimIndex(d)];
    if (auto e = dyn_cast_or_null<memref::ExpandShapeOp>(def))
      return dyn_cast<Value>(e.getMixedOutputShape()[d]);
    // A tile (not rank-reducing): its size operand.
    if (auto sub = dyn_cast_or_null<memref::SubViewOp>(def))
      return sub.getSourceType().getRank() == type.getRank()
                 ? dyn_cast<Value>(sub.getMixedSizes()[d])
                 : Value();
    if (auto c = dyn_cast_or_null<memref::CastOp>(def)) {
      v = c.getSource();
      continue;
    }
    auto c = dyn_cast_or_null<memref::CollapseShapeOp>(def);
    if (!c)
      return {};
    ReassociationIndices group = c.getReassociationIndices()[d];
    auto srcType = c.getSrcType();
    std::optional<int64_t> dynamicDim;
    for (int64_t i : group) {
      if (ShapedType::isDynamic(srcType.getDimSize(i))) {
        if (dynamicDim)
          return {};
        dynamicDim = i;
      } else if (srcType.getDimSize(i) != 1) {
        return {};
      }
    }
    if (!dynamicDim)
      return {};
    v = c.getSrc();
    d = *dynamicDim;
  }
}

/// The expressions of `min(...)` that `v` is, in terms of the symbols
/// s0 = `iv` and s1 = `ub` (a constant, or an `affine.min` whose operands
/// are among them); none when it is neither.
static std::optional<SmallVector<AffineExpr>>
getMinExprs(OpFoldResult v, Value iv, Value ub, MLIRContext *ctx) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return SmallVector<AffineExpr>{getAffineConstantExpr(*c, ctx)};
  auto min = dyn_cast_if_present<Value>(v)
                 ? cast<Value>(v).getDefiningOp<affine::AffineMinOp>()
                 : affine::AffineMinOp();
  if (!min)
    return std::nullopt;
  AffineMap map = min.getAffineMap();
  SmallVector<AffineExpr> dims, syms;
  for (auto [i, operand] : llvm::enumerate(min.getMapOperands())) {
    AffineExpr e;
    if (operand == iv)
      e = getAffineSymbolExpr(0, ctx);
    else if (operand == ub)
      e = getAffineSymbolExpr(1, ctx);
    else
      return std::nullopt;
    (i < map.getNumDims() ? dims : syms).push_back(e);
  }
  SmallVector<AffineExpr> exprs;
  for (AffineExpr r : map.getResults())
    exprs.push_back(
        simplifyAffineExpr(r.replaceDimsAndSymbols(dims, syms), 0, 2));
  return exprs;
}

/// Whether `size` is the size of the tile at `iv` of a loop from 0 to `ub`
/// in steps of `step`: `min(step, ub - iv)`, as tiling a dynamic dimension
/// writes it, with `step` a constant or itself an `affine.min` of `ub`
/// (a chunk that follows the run-time length), whose terms the size's
/// `affine.min` then holds (composed).
static bool isBoundedTileSize(OpFoldResult size, Value iv, Value ub,
                              OpFoldResult step) {
  MLIRContext *ctx = iv.getContext();
  std::optional<SmallVector<AffineExpr>> sizeExprs =
      getMinExprs(size, iv, ub, ctx);
  std::optional<SmallVector<AffineExpr>> stepExprs =
      getMinExprs(step, /*iv=*/Value(), ub, ctx);
  if (!sizeExprs || !stepExprs || isa<Attribute>(size))
    return false;
  SmallVector<AffineExpr> want(*stepExprs);
  want.push_back(simplifyAffineExpr(
      getAffineSymbolExpr(1, ctx) - getAffineSymbolExpr(0, ctx), 0, 2));
  // The same set of terms.
  return llvm::all_of(
             *sizeExprs,
             [&](AffineExpr e) { return llvm::is_contained(want, e); }) &&
         llvm::all_of(want, [&](AffineExpr e) {
           return llvm::is_contained(*sizeExprs, e);
         });
}

/// Whether the subviews `tile` taken by the iterations of a loop nest with
/// induction variables `ivs` (bounds `lbs`, `ubs`, `steps`) cover its source
/// without overlapping: unit strides, and per dimension either offset 0 and
/// the full size, or an induction variable as offset (each used once) with
/// its loop running from 0 to the dimension's size in steps of the tile's
/// size. A dynamic dimension (a sequence of run-time length) is covered by
/// a loop from 0 to its size value (getDynamicDimSize) whose tiles are
/// `min(step, size - iv)` wide (isBoundedTileSize).
static bool tilesCoverSource(memref::SubViewOp tile, ArrayRef<Value> ivs,
                             ArrayRef<OpFoldResult> lbs,
                             ArrayRef<OpFoldResult> ubs,
                             ArrayRef<OpFoldResult> steps) {
  Value source = tile.getSource();
  auto srcType = cast<MemRefType>(source.getType());
  SmallVector<OpFoldResult> offsets = tile.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = tile.getMixedSizes();
  SmallVector<OpFoldResult> strides = tile.getMixedStrides();
  SmallVector<bool> ivUsed(ivs.size(), false);
  for (int64_t d = 0, e = srcType.getRank(); d < e; ++d) {
    if (!isConstantIntValue(strides[d], 1))
      return false;
    int64_t dim = srcType.getDimSize(d);
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    auto off = dyn_cast_if_present<Value>(offsets[d]);
    const Value *it = off ? llvm::find(ivs, off) : ivs.end();
    if (ShapedType::isDynamic(dim)) {
      Value dimSize = getDynamicDimSize(source, d);
      if (!dimSize)
        return false;
      // Offset 0 and the whole dimension.
      if (isConstantIntValue(offsets[d], 0) &&
          dyn_cast_if_present<Value>(sizes[d]) == dimSize)
        continue;
      if (it == ivs.end())
        return false;
      unsigned k = it - ivs.begin();
      if (ivUsed[k] || !isConstantIntValue(lbs[k], 0) ||
          dyn_cast_if_present<Value>(ubs[k]) != dimSize ||
          !isBoundedTileSize(sizes[d], ivs[k], dimSize, steps[k]))
        return false;
      ivUsed[k] = true;
      continue;
    }
    if (!size)
      return false;
    if (isConstantIntValue(offsets[d], 0) && *size == dim)
      continue;
    if (it == ivs.end())
      return false;
    unsigned k = it - ivs.begin();
    if (ivUsed[k] || !isConstantIntValue(lbs[k], 0) ||
        !isConstantIntValue(ubs[k], dim) ||
        !isConstantIntValue(steps[k], *size))
      return false;
    ivUsed[k] = true;
  }
  return true;
}

static bool overwritesTarget(Operation *op,
                             function_ref<bool(Value)> isTarget,
                             const DenseSet<Value> &aliasSet);

/// Whether the first op from `it` on in its block that uses an alias of the
/// buffer overwrites all of `target` (overwritesTarget).
static bool restOverwrites(Block::iterator it, Block::iterator end,
                           Value target, const DenseSet<Value> &aliasSet) {
  for (; it != end; ++it)
    if (usesAlias(&*it, aliasSet))
      return overwritesTarget(
          &*it, [&](Value v) { return v == target; }, aliasSet);
  return false;
}

/// Whether `op` overwrites every element of a value accepted by `isTarget`
/// before any read of the old contents:
///   * it fully writes the value (getFullyWrittenOperand);
///   * or it is an `scf.forall` or `scf.for` without results that reaches
///     the buffer through a single subview (the tile) of the value, directly
///     in its body, whose iterations cover the value (tilesCoverSource), and
///     the first op after the tile that touches the buffer overwrites the
///     tile (recursively). Every later access in the iteration goes through
///     the tile, so it reads what the iteration wrote.
static bool overwritesTarget(Operation *op,
                             function_ref<bool(Value)> isTarget,
                             const DenseSet<Value> &aliasSet) {
  if (Value written = getFullyWrittenOperand(op, aliasSet))
    return isTarget(written) &&
           llvm::count_if(op->getOperands(), [&](Value v) {
             return aliasSet.contains(v);
           }) == 1;
  SmallVector<Value> ivs;
  SmallVector<OpFoldResult> lbs, ubs, steps;
  if (auto forall = dyn_cast<scf::ForallOp>(op)) {
    if (forall.getNumResults() || !forall.getOutputs().empty())
      return false;
    ivs = forall.getInductionVars();
    lbs = forall.getMixedLowerBound();
    ubs = forall.getMixedUpperBound();
    steps = forall.getMixedStep();
  } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (loop.getNumResults())
      return false;
    ivs = {loop.getInductionVar()};
    lbs = {loop.getLowerBound()};
    ubs = {loop.getUpperBound()};
    steps = {loop.getStep()};
  } else {
    return false;
  }
  memref::SubViewOp tile = getSingleOuterAccess(op, aliasSet);
  if (!tile || !isTarget(tile.getSource()) ||
      !tilesCoverSource(tile, ivs, lbs, ubs, steps))
    return false;
  return restOverwrites(std::next(tile->getIterator()),
                        tile->getBlock()->end(), tile.getResult(), aliasSet);
}

/// Splits the live range of `alloc` at every top-level op after its first
/// use that overwrites the whole buffer before reading it: the uses from
/// that op on move to a new alloc of the same type (created right before
/// the op; the top-level reshapes/subviews of the buffer used from there on
/// are cloned onto it), so each value the buffer held becomes a buffer of
/// its own that the planner places independently. One-shot bufferization
/// writes a new tensor into a dead tensor's buffer whenever it can; here
/// that reuse would keep the buffer live from its first to its last value
/// (across all the layers of a model). Returns the number of new allocs;
/// nothing is split when an alias of the buffer is not a top-level view op
/// or defined inside one top-level op.
static int64_t splitAtFullOverwrites(memref::AllocOp alloc,
                                     BufferViewFlowAnalysis &analysis) {
  Block *body = alloc->getBlock();
  auto aliasesRange = analysis.resolve(alloc.getResult());
  DenseSet<Value> aliasSet(aliasesRange.begin(), aliasesRange.end());
  // Top-level aliases in program order (view ops of the buffer).
  SmallVector<Operation *> topViews;
  for (Value v : aliasSet) {
    if (v == alloc.getResult())
      continue;
    Operation *def = v.getDefiningOp();
    if (!def) {
      if (v.getParentBlock() == body)
        return 0; // A block argument of the body aliases it.
      continue;
    }
    if (def->getBlock() != body)
      continue;
    if (!isa<ViewLikeOpInterface>(def) || def->getNumResults() != 1)
      return 0;
    topViews.push_back(def);
  }
  llvm::sort(topViews,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  llvm::SmallSetVector<Operation *, 8> users;
  for (Value v : aliasSet)
    for (Operation *user : v.getUsers())
      if (Operation *top = body->findAncestorOpInBlock(*user))
        if (!llvm::is_contained(topViews, top) && top != alloc.getOperation())
          users.insert(top);
  SmallVector<Operation *> tops = users.takeVector();
  llvm::sort(tops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  SmallVector<Operation *> splitPoints;
  for (Operation *top : llvm::drop_begin(tops))
    if (overwritesTarget(
            top,
            [&](Value v) { return isFullAlias(v, alloc.getResult()); },
            aliasSet))
      splitPoints.push_back(top);

  // From the last split point back: move the uses at and after it.
  auto atOrAfter = [&](Operation *user, Operation *point) {
    Operation *top = body->findAncestorOpInBlock(*user);
    return top == point || point->isBeforeInBlock(top);
  };
  for (Operation *point : llvm::reverse(splitPoints)) {
    OpBuilder b(point);
    IRMapping map;
    auto fresh = cast<memref::AllocOp>(b.clone(*alloc, map));
    alloc.getResult().replaceUsesWithIf(fresh.getResult(), [&](OpOperand &u) {
      return atOrAfter(u.getOwner(), point);
    });
    map.map(alloc.getResult(), fresh.getResult());
    // Views before the point used from it on, directly or through views
    // derived from them, are cloned onto the new alloc.
    DenseSet<Operation *> needed;
    for (Operation *view : llvm::reverse(topViews)) {
      if (!view->isBeforeInBlock(point))
        continue;
      if (llvm::any_of(view->getResult(0).getUsers(), [&](Operation *u) {
            return needed.contains(u) || atOrAfter(u, point);
          }))
        needed.insert(view);
    }
    for (Operation *view : topViews) {
      if (!needed.contains(view))
        continue;
      Value old = view->getResult(0);
      Operation *clone = b.clone(*view, map);
      old.replaceUsesWithIf(clone->getResult(0), [&](OpOperand &u) {
        return atOrAfter(u.getOwner(), point);
      });
    }
  }
  return splitPoints.size();
}

/// Splits the live ranges of the plannable buffers of `func`. Returns the
/// number of allocs added.
static int64_t splitLiveRanges(func::FuncOp func,
                               ArrayRef<memref::AllocOp> allocs) {
  BufferViewFlowAnalysis analysis(func);
  int64_t added = 0;
  for (memref::AllocOp alloc : allocs)
    added += splitAtFullOverwrites(alloc, analysis);
  return added;
}

//===----------------------------------------------------------------------===//
// Results straight into the out-params
//===----------------------------------------------------------------------===//

/// Returns the alloc that `v` reshapes (through expand/collapse_shape), or
/// null.
static memref::AllocOp getReshapedAlloc(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return alloc;
    if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else
      return nullptr;
  }
  return nullptr;
}

/// Reshapes the contiguous identity-layout memref `v` to `type` (same
/// element type and element count): collapse to 1-D, then expand; the
/// dynamic sizes of `type` are `dynamicSizes`.
static Value reshapeContiguous(OpBuilder &b, Location loc, Value v,
                               MemRefType type, ValueRange dynamicSizes) {
  auto srcType = cast<MemRefType>(v.getType());
  if (srcType.getShape() == type.getShape())
    return v;
  if (srcType.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < srcType.getRank(); ++i)
      all.push_back(i);
    v = memref::CollapseShapeOp::create(b, loc, v,
                                        ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return v;
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  SmallVector<OpFoldResult> sizes;
  unsigned next = 0;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(dynamicSizes[next++])
                        : OpFoldResult(b.getIndexAttr(size)));
  return memref::ExpandShapeOp::create(
      b, loc, type, v, ArrayRef<ReassociationIndices>{all}, sizes);
}

/// Whether the identity-layout `alloc` holds as many elements as the
/// out-param type `out`: equal static counts, or one dynamic dimension each,
/// the alloc's being a dimension of a bounded argument (the sequence length
/// n, which every dynamic argument dimension equals at run time,
/// getSequenceSizeBound), and equal products of the static ones.
static bool sameElementCount(func::FuncOp func, memref::AllocOp alloc,
                             MemRefType out) {
  MemRefType a = alloc.getType();
  if (a.hasStaticShape() && out.hasStaticShape())
    return a.getNumElements() == out.getNumElements();
  if (a.getNumDynamicDims() != 1 || out.getNumDynamicDims() != 1)
    return false;
  Value size = alloc.getDynamicSizes().front();
  auto dim = size.getDefiningOp<memref::DimOp>();
  if (!dim || !isa<BlockArgument>(dim.getSource()) ||
      !llm::getSequenceSizeBound(func, size))
    return false;
  return llm::getStaticProduct(a.getShape()) ==
         llm::getStaticProduct(out.getShape());
}

/// copy(reshape*(alloc), %out) as the last use of the alloc, with %out a
/// function argument used by nothing else (static shapes, or one dynamic
/// dimension each: the sequence length, see sameElementCount)
///   -> the alloc becomes reshape(%out) and the copy disappears.
/// `buffer-results-to-out-params{hoist-static-allocs}` only handles a
/// returned alloc; a result reshaped after its last write (e.g. the
/// `expand_shape` of a collapsed matmul) still ended in a full copy.
/// Returns the number of copies removed.
static int64_t forwardResultCopies(func::FuncOp func) {
  Block &body = func.getBody().front();
  BufferViewFlowAnalysis aliases(func);
  int64_t removed = 0;
  for (auto copy : llvm::make_early_inc_range(body.getOps<memref::CopyOp>())) {
    auto out = dyn_cast<BlockArgument>(copy.getTarget());
    if (!out || out.getOwner() != &body || !out.hasOneUse())
      continue;
    memref::AllocOp alloc = getReshapedAlloc(copy.getSource());
    if (!alloc || alloc->getBlock() != &body)
      continue;
    auto allocType = alloc.getType();
    auto outType = dyn_cast<MemRefType>(out.getType());
    if (!outType || !allocType.getLayout().isIdentity() ||
        !outType.getLayout().isIdentity() ||
        allocType.getElementType() != outType.getElementType() ||
        !sameElementCount(func, alloc, outType))
      continue;
    // The copy must be the last use of every alias of the alloc.
    bool lastUse = true;
    for (Value alias : aliases.resolve(alloc.getResult()))
      for (Operation *user : alias.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top || isa<func::ReturnOp>(top) ||
            (top != copy.getOperation() && copy->isBeforeInBlock(top)))
          lastUse = false;
      }
    if (!lastUse)
      continue;
    OpBuilder b(alloc);
    Value replacement = reshapeContiguous(b, alloc.getLoc(), out, allocType,
                                          alloc.getDynamicSizes());
    alloc.getResult().replaceAllUsesWith(replacement);
    alloc.erase();
    copy.erase();
    ++removed;
  }
  return removed;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LLMPlanMemoryPass
    : public llm::impl::LLMPlanMemoryPassBase<LLMPlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Above a page no buffer gains from it, and the rounded sizes would
    // overflow (alignment=2^62 gave a negative naive size and an offset past
    // the arena).
    if (alignment <= 0 || alignment > 4096 || !llvm::isPowerOf2_64(alignment)) {
      emitError(module.getLoc())
          << "llm-plan-memory: alignment must be a power of "
             "two from 1 to 4096, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    if (arena != "per-call" && arena != "caller") {
      emitError(module.getLoc())
          << "llm-plan-memory: arena must be 'per-call' or "
             "'caller', got '"
          << arena << "'";
      return signalPassFailure();
    }

    PlanTotals totals;
    SmallVector<NamedAttribute> callerArenas;
    Builder b(&getContext());
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      // A public function nobody in the module calls may change signature.
      bool callerArena = arena == "caller" && func.isPublic() &&
                         SymbolTable::symbolKnownUseEmpty(func, module);
      FailureOr<int64_t> size = planFunction(func, callerArena, totals);
      if (failed(size))
        return signalPassFailure();
      if (callerArena)
        callerArenas.push_back(
            b.getNamedAttr(func.getSymName(), b.getI64IntegerAttr(*size)));
    }
    if (arena == "caller")
      module->setAttr("llm.arena_bytes", b.getDictionaryAttr(callerArenas));

    numPlanned += totals.planned;
    arenaBytes += totals.arena;
    naiveBytes += totals.naive;
    liveBoundBytes += totals.liveBound;
    accumulateReportValue(module, "arena_bytes", totals.arena);
    accumulateReportValue(module, "naive_bytes", totals.naive);
    accumulateReportValue(module, "live_bound_bytes", totals.liveBound);
    accumulateReportValue(module, "planned_buffers", totals.planned);
    numCopiesRemoved += totals.copiesRemoved;
    numSplits += totals.splits;
  }

  /// Plans `func`; returns its arena size.
  FailureOr<int64_t> planFunction(func::FuncOp func, bool callerArena,
                                  PlanTotals &totals) {
    if (!func.getBody().hasOneBlock())
      return 0;
    totals.copiesRemoved += forwardResultCopies(func);
    SmallVector<Candidate> candidates = collectCandidates(func, alignment);
    if (splitLiveRangesOpt) {
      SmallVector<memref::AllocOp> allocs = llvm::map_to_vector(
          candidates, [](const Candidate &c) { return c.alloc; });
      int64_t added = splitLiveRanges(func, allocs);
      totals.splits += added;
      if (added)
        candidates = collectCandidates(func, alignment);
    }
    SmallVector<PlannedBuffer> plan =
        llvm::map_to_vector(candidates, [](const Candidate &c) { return c.plan; });
    int64_t arenaSize = planArena(plan, alignment);
    if (testOverlapAll) {
      for (PlannedBuffer &p : plan)
        p.offset = 0;
      arenaSize = 0;
      for (PlannedBuffer &p : plan)
        arenaSize = std::max(arenaSize, p.size);
    }
    if (verify) {
      std::string error = verifyArenaPlan(plan, arenaSize, alignment);
      if (!error.empty()) {
        func.emitError() << "llm-plan-memory: invalid plan: " << error;
        return failure();
      }
    }
    int64_t naive = 0;
    for (const PlannedBuffer &p : plan)
      naive += p.size;
    totals.arena += arenaSize;
    totals.naive += naive;
    totals.liveBound += computeLiveBound(plan);
    totals.planned += plan.size();
    LLVM_DEBUG(llvm::dbgs() << "llm-plan-memory: @" << func.getSymName() << ": "
                            << plan.size() << " buffers, arena " << arenaSize
                            << ", live bound " << computeLiveBound(plan)
                            << ", naive " << naive << "\n");
    LLVM_DEBUG({
      for (const PlannedBuffer &p : plan)
        llvm::dbgs() << "  live [" << p.first << ", " << p.last << "], "
                     << p.size << " bytes at " << p.offset << "\n";
    });

    Block &body = func.getBody().front();
    Location loc = func.getLoc();
    OpBuilder builder(&getContext());
    builder.setInsertionPointToStart(&body);
    MemRefType i8Type = MemRefType::get({arenaSize}, builder.getI8Type());
    Value arenaValue;
    if (callerArena) {
      MemRefType argType =
          MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
      unsigned index = func.getNumArguments();
      // No argument attribute: the LLVM translation would warn about it;
      // `llm.arena_bytes` on the module names the functions that take one.
      if (failed(func.insertArgument(index, argType, DictionaryAttr(), loc)))
        return failure();
      arenaValue = body.getArgument(index);
      // The caller must provide at least `arenaSize` bytes.
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value have = memref::DimOp::create(builder, loc, arenaValue, zero);
      Value need = arith::ConstantIndexOp::create(builder, loc, arenaSize);
      Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge,
                                       have, need);
      cf::AssertOp::create(
          builder, loc, ok,
          ("llm-plan-memory: @" + func.getSymName() +
           ": the caller's arena is smaller than " + Twine(arenaSize) +
           " bytes")
              .str());
    } else if (!candidates.empty()) {
      arenaValue = memref::AllocOp::create(builder, loc, i8Type,
                                           builder.getI64IntegerAttr(alignment));
    }

    for (auto [c, p] : llvm::zip_equal(candidates, plan)) {
      builder.setInsertionPoint(c.alloc);
      Value offset =
          arith::ConstantIndexOp::create(builder, c.alloc.getLoc(), p.offset);
      // A dynamically sized buffer gets a view of its run-time sizes at an
      // offset planned for its bound.
      Value view = memref::ViewOp::create(builder, c.alloc.getLoc(),
                                          c.alloc.getType(), arenaValue, offset,
                                          c.alloc.getDynamicSizes());
      c.alloc.getResult().replaceAllUsesWith(view);
      c.alloc.erase();
    }
    return arenaSize;
  }
};
} // namespace
