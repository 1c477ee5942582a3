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
// live intervals (greedy by size, best fit), and each `memref.alloc` becomes
// a `memref.view` into the arena.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/MemoryPlan.h"
#include "llm/Codegen/Passes.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
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
// Placement (IR-independent)
//===----------------------------------------------------------------------===//

int64_t mlir::llm::alignTo(int64_t size, int64_t alignment) {
  return llvm::alignTo(static_cast<uint64_t>(size),
                       static_cast<uint64_t>(alignment));
}

int64_t mlir::llm::planArena(MutableArrayRef<PlannedBuffer> buffers,
                             int64_t alignment) {
  SmallVector<unsigned> order;
  for (unsigned i = 0, e = buffers.size(); i < e; ++i)
    order.push_back(i);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return buffers[a].first < buffers[b].first;
  });
  SmallVector<unsigned> placed;
  int64_t arenaSize = 0;
  for (unsigned i : order) {
    PlannedBuffer &buf = buffers[i];
    // The placed buffers live at the same time as `buf`, by offset.
    SmallVector<unsigned> conflicts;
    for (unsigned j : placed)
      if (buffers[j].overlapsInTime(buf))
        conflicts.push_back(j);
    llvm::sort(conflicts, [&](unsigned a, unsigned b) {
      return buffers[a].offset < buffers[b].offset;
    });
    // Best fit: the smallest gap that holds `buf`; else above them all.
    int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (unsigned j : conflicts) {
      int64_t gap = buffers[j].offset - cursor;
      if (gap >= buf.size && gap < bestGap) {
        best = cursor;
        bestGap = gap;
      }
      cursor = std::max(cursor, buffers[j].offset + buffers[j].size);
    }
    if (best < 0)
      best = cursor;
    buf.offset = alignTo(best, alignment);
    arenaSize = std::max(arenaSize, buf.offset + buf.size);
    placed.push_back(i);
  }
  return arenaSize;
}

int64_t mlir::llm::computeLiveBound(ArrayRef<PlannedBuffer> buffers) {
  // Sweep over interval end points: +size at `first`, -size after `last`.
  SmallVector<std::pair<int64_t, int64_t>> events;
  for (const PlannedBuffer &b : buffers) {
    events.push_back({b.first, b.size});
    events.push_back({b.last + 1, -b.size});
  }
  // At equal positions, releases (negative) before acquisitions.
  llvm::sort(events);
  int64_t live = 0, bound = 0;
  for (auto [pos, delta] : events) {
    live += delta;
    bound = std::max(bound, live);
  }
  return bound;
}

std::string mlir::llm::verifyArenaPlan(ArrayRef<PlannedBuffer> buffers,
                                       int64_t arenaSize, int64_t alignment) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  for (auto [i, a] : llvm::enumerate(buffers)) {
    if (a.offset < 0 || a.offset % alignment != 0 ||
        a.offset + a.size > arenaSize) {
      os << "buffer #" << i << " at offset " << a.offset << " (" << a.size
         << " bytes) is misaligned or outside the arena of " << arenaSize
         << " bytes";
      return msg;
    }
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const PlannedBuffer &b = buffers[j];
      if (a.overlapsInTime(b) && a.overlapsInSpace(b)) {
        os << "buffers #" << i << " [" << a.offset << ", "
           << a.offset + a.size << ") live over [" << a.first << ", "
           << a.last << "] and #" << j << " [" << b.offset << ", "
           << b.offset + b.size << ") live over [" << b.first << ", "
           << b.last << "] overlap";
        return msg;
      }
    }
  }
  return msg;
}

//===----------------------------------------------------------------------===//
// Buffers of a function
//===----------------------------------------------------------------------===//

/// Bytes of a plannable buffer type: static shape, identity layout, default
/// memory space, integer or float elements (each stored in a power-of-two
/// number of bytes, like LLVM's alloc size of i1/i8/.../f64).
static std::optional<int64_t> getPlannableByteSize(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace())
    return std::nullopt;
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return std::nullopt;
  int64_t bytes =
      llvm::PowerOf2Ceil(llvm::divideCeil(elem.getIntOrFloatBitWidth(), 8));
  return type.getNumElements() * bytes;
}

namespace {
/// A buffer of the function and its plan entry.
struct Candidate {
  memref::AllocOp alloc;
  PlannedBuffer plan;
};

/// Figures of one module, summed over its functions.
struct PlanTotals {
  int64_t arena = 0, naive = 0, liveBound = 0, planned = 0, copiesRemoved = 0;
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
    std::optional<int64_t> bytes = getPlannableByteSize(alloc.getType());
    if (!bytes || !alloc.getDynamicSizes().empty() ||
        !alloc.getSymbolOperands().empty())
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
/// element type and element count): collapse to 1-D, then expand.
static Value reshapeContiguous(OpBuilder &b, Location loc, Value v,
                               MemRefType type) {
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
  return memref::ExpandShapeOp::create(b, loc, type.getShape(), v,
                                       ArrayRef<ReassociationIndices>{all});
}

/// copy(reshape*(alloc), %out) as the last use of the alloc, with %out a
/// function argument used by nothing else
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
    if (!outType || !allocType.hasStaticShape() ||
        !outType.hasStaticShape() || !allocType.getLayout().isIdentity() ||
        !outType.getLayout().isIdentity() ||
        allocType.getElementType() != outType.getElementType() ||
        allocType.getNumElements() != outType.getNumElements())
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
    Value replacement = reshapeContiguous(b, alloc.getLoc(), out, allocType);
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
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      module.emitError() << "llm-plan-memory: alignment must be a positive "
                            "power of two, got "
                         << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    if (arena != "per-call" && arena != "caller") {
      module.emitError() << "llm-plan-memory: arena must be 'per-call' or "
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
  }

  /// Plans `func`; returns its arena size.
  FailureOr<int64_t> planFunction(func::FuncOp func, bool callerArena,
                                  PlanTotals &totals) {
    if (!func.getBody().hasOneBlock())
      return 0;
    totals.copiesRemoved += forwardResultCopies(func);
    SmallVector<Candidate> candidates = collectCandidates(func, alignment);
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
      Value view = memref::ViewOp::create(builder, c.alloc.getLoc(),
                                          c.alloc.getType(), arenaValue, offset,
                                          ValueRange{});
      c.alloc.getResult().replaceAllUsesWith(view);
      c.alloc.erase();
    }
    return arenaSize;
  }
};
} // namespace
