//===- EmulateGPUKernels.cpp - llmc's GPU kernels run on the CPU ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-emulate-gpu-kernels`: each `gpu.launch` made by
// llm-map-gpu-kernels becomes host loops that run it on the CPU, so that the
// kernels' distribution of work (grid and block indexing, strided thread
// loops, block reductions, barriers) is checked numerically against the CPU
// lowering on a machine without a GPU.
//
// A launch body is a sequence of ops whose only synchronization points are
// top-level `gpu.barrier` and `gpu.all_reduce` (the form llm-map-gpu-kernels
// emits). It runs as
//
//   for block in grid:
//     for interval between synchronization points:
//       for thread in block: the interval's ops
//       (at an all_reduce: the reduction of the threads' values, in thread
//        order)
//
// which is one of the schedules a GPU may execute: each thread runs up to
// the next barrier before any thread passes it. Values that live across a
// synchronization point are kept per thread in a buffer of block-size
// entries; the launch's workgroup (shared) memory is one host buffer that
// the blocks use in turn. A kernel that reads what another thread writes in the
// same interval (a missing barrier) reads the value of this schedule, so such
// races show up as wrong results whenever the order matters.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMEMULATEGPUKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// `lhs <kind> rhs` for the reductions of `gpu.all_reduce`.
static Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                     Value lhs, Value rhs) {
  using K = gpu::AllReduceOperation;
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case K::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case K::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case K::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case K::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case K::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case K::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case K::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case K::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case K::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case K::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case K::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case K::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case K::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown all_reduce kind");
}

/// Ops computed again in each interval that uses them instead of being
/// kept per thread: views and other ops without memory effects or regions
/// (whose operands are computed again or kept in turn).
static bool isRecomputable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// Replaces `launch` by host loops (see the file comment).
static LogicalResult emulateLaunch(gpu::LaunchOp launch) {
  Location loc = launch.getLoc();
  std::optional<int64_t> grid = getConstantIntValue(launch.getGridSizeX());
  std::optional<int64_t> block = getConstantIntValue(launch.getBlockSizeX());
  for (Value v : {launch.getGridSizeY(), launch.getGridSizeZ(),
                  launch.getBlockSizeY(), launch.getBlockSizeZ()})
    if (getConstantIntValue(v) != std::optional<int64_t>(1))
      return launch.emitError("llm-emulate-gpu-kernels: expected a 1-D grid "
                              "and block");
  if (!grid || !block)
    return launch.emitError("llm-emulate-gpu-kernels: expected constant grid "
                            "and block sizes");
  Block &body = launch.getBody().front();
  // Intervals between synchronization points.
  SmallVector<SmallVector<Operation *>> intervals(1);
  SmallVector<Operation *> syncs;
  for (Operation &op : body.without_terminator()) {
    if (isa<gpu::BarrierOp, gpu::AllReduceOp>(op)) {
      if (auto reduce = dyn_cast<gpu::AllReduceOp>(op);
          reduce && (!reduce.getOp() || !reduce.getBody().empty()))
        return op.emitError("llm-emulate-gpu-kernels: only all_reduce with "
                            "a reduction kind is emulated");
      syncs.push_back(&op);
      intervals.emplace_back();
      continue;
    }
    bool nestedSync = false;
    op.walk([&](Operation *inner) {
      nestedSync |= isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::ShuffleOp,
                        gpu::SubgroupReduceOp>(inner);
    });
    if (nestedSync)
      return op.emitError("llm-emulate-gpu-kernels: synchronization inside "
                          "control flow is not emulated");
    intervals.back().push_back(&op);
  }
  DenseMap<Operation *, size_t> intervalOf;
  for (auto [i, ops] : llvm::enumerate(intervals))
    for (Operation *op : ops)
      intervalOf[op] = i;

  OpBuilder b(launch);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = idx(0), one = idx(1), blockSize = idx(*block);
  // Workgroup (shared) memory: one host buffer, reused by block after
  // block (they run one at a time).
  SmallVector<Value> workgroupBuffers;
  for (BlockArgument attribution : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    workgroupBuffers.push_back(memref::AllocaOp::create(
        b, loc,
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout())));
  }
  auto blockLoop = scf::ForOp::create(b, loc, zero, idx(*grid), one);
  b.setInsertionPointToStart(blockLoop.getBody());
  Value bid = blockLoop.getInductionVar();

  // Per-thread storage of the values that cross a synchronization point.
  DenseMap<Value, Value> spills;
  auto spillOf = [&](Value v) -> Value {
    auto it = spills.find(v);
    if (it != spills.end())
      return it->second;
    // Before the block loop: allocas in a loop would grow the stack at
    // every block.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(blockLoop);
    Value buffer = memref::AllocaOp::create(
        b, loc, MemRefType::get({*block}, v.getType()));
    spills[v] = buffer;
    return buffer;
  };
  // Uniform values of the block (the all_reduce results).
  IRMapping uniform;
  uniform.map(launch.getBlockIds().x, bid);
  for (Value v : {launch.getBlockIds().y, launch.getBlockIds().z,
                  launch.getThreadIds().y, launch.getThreadIds().z})
    uniform.map(v, zero);
  for (auto [attribution, buffer] :
       llvm::zip(launch.getWorkgroupAttributions(), workgroupBuffers))
    uniform.map(attribution, buffer);
  uniform.map(launch.getBlockSize().x, blockSize);
  uniform.map(launch.getGridSize().x, idx(*grid));
  for (Value v : {launch.getBlockSize().y, launch.getBlockSize().z,
                  launch.getGridSize().y, launch.getGridSize().z})
    uniform.map(v, one);

  for (size_t i = 0, e = intervals.size(); i < e; ++i) {
    ArrayRef<Operation *> ops = intervals[i];
    auto threadLoop = scf::ForOp::create(b, loc, zero, blockSize, one);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(threadLoop.getBody());
      Value tid = threadLoop.getInductionVar();
      IRMapping mapping = uniform;
      mapping.map(launch.getThreadIds().x, tid);
      // Values of earlier intervals: pure ops (views, constants, index
      // math) computed again, the others from this thread's storage.
      std::function<void(Value)> materialize = [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        if (!def || !intervalOf.count(def) || intervalOf[def] == i ||
            mapping.contains(operand))
          return;
        if (isRecomputable(def)) {
          for (Value v : def->getOperands())
            materialize(v);
          b.clone(*def, mapping);
          return;
        }
        mapping.map(operand,
                    memref::LoadOp::create(b, loc, spillOf(operand), tid));
      };
      for (Operation *op : ops)
        op->walk([&](Operation *inner) {
          for (Value operand : inner->getOperands())
            materialize(operand);
        });
      for (Operation *op : ops)
        b.clone(*op, mapping);
      // Values later intervals or reductions use, to this thread's
      // storage.
      for (Operation *op : ops)
        for (Value result : op->getResults()) {
          bool usedLater = llvm::any_of(result.getUsers(), [&](Operation *u) {
            Operation *top = body.findAncestorOpInBlock(*u);
            return !top || !intervalOf.count(top) || intervalOf[top] != i;
          });
          if (usedLater && !isRecomputable(op))
            memref::StoreOp::create(b, loc, mapping.lookup(result),
                                    spillOf(result), tid);
        }
    }
    if (i == syncs.size())
      break;
    // At an all_reduce: the threads' values combined in thread order.
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(syncs[i])) {
      Value buffer = spillOf(reduce.getValue());
      Value first = memref::LoadOp::create(b, loc, buffer, zero);
      auto loop = scf::ForOp::create(b, loc, one, blockSize, one, first);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value next =
            memref::LoadOp::create(b, loc, buffer, loop.getInductionVar());
        scf::YieldOp::create(b, loc,
                             combine(b, loc, *reduce.getOp(),
                                     loop.getRegionIterArgs()[0], next));
      }
      uniform.map(reduce.getResult(), loop.getResult(0));
      // Later intervals read it like a uniform value.
      intervalOf.erase(reduce);
    }
  }
  launch.erase();
  return success();
}

namespace {

struct LLMEmulateGPUKernelsPass
    : llm::impl::LLMEmulateGPUKernelsPassBase<LLMEmulateGPUKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch)))
        return signalPassFailure();
    // Device memory is host memory.
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> memOps;
    module.walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::DeallocOp>(op))
        memOps.push_back(op);
    });
    for (Operation *op : memOps) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty()) {
          op->emitError("llm-emulate-gpu-kernels: asynchronous gpu.alloc is "
                        "not emulated");
          return signalPassFailure();
        }
        auto hostAlloc = memref::AllocOp::create(
            rewriter, op->getLoc(), alloc.getType(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), rewriter.getI64IntegerAttr(64));
        rewriter.replaceOp(op, hostAlloc.getResult());
        continue;
      }
      auto dealloc = cast<gpu::DeallocOp>(op);
      memref::DeallocOp::create(rewriter, op->getLoc(), dealloc.getMemref());
      rewriter.eraseOp(op);
    }
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
