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
// `gpu.barrier` and `gpu.all_reduce` at its top level or in the body of a
// uniform `scf.for` (the tiled matmul's K loop; the flash attention's key/value
// loop, whose bounds are computed from the block id), the forms
// llm-map-gpu-kernels emits. It runs as
//
//   for block in grid:
//     for interval between synchronization points:
//       for thread in block: the interval's ops
//       (at an all_reduce: the reduction of the threads' values, in thread
//        order)
//
// which is one of the schedules a GPU may execute: each thread runs up to
// the next barrier before any thread passes it; a loop that synchronizes
// becomes a host loop whose body's intervals run in turn. Values that live
// across a synchronization point (and a synchronizing loop's carried values)
// are kept per thread in a buffer of block-size entries; the launch's workgroup
// (shared) memory is one host buffer that the blocks use in turn. A kernel that
// reads what another thread writes in the same interval (a missing barrier)
// reads the value of this schedule, so such races show up as wrong results
// whenever the order matters.
//
// The tensor cores' warp-collective `nvvm.mma.sync` (m16n8k16) and
// `nvvm.mma.sp.sync` (m16n8k32, 2:4 sparse A), f16 or bf16 multiplicands
// accumulating in f32, are synchronization points too: each thread's
// fragment registers are scattered into the warp's A and B matrices at the
// positions the PTX ISA gives them ("Matrix Fragments for mma.m16n8k16 with
// floating point type"; for mma.sp, A's compressed 16 x 16 fragment has the
// dense m16n8k16 layout and each kept element's column in its group of 4
// comes from the 2-bit indices of the metadata of the group's contributing
// thread, "Sparse matrix storage"), and each thread's four accumulators are
// computed from them in f32 (the products summed in order of A's stored
// columns; the hardware's order and internal precision differ by rounding;
// a 2:4 A's unselected columns take no part, as on the hardware). All warps
// reach the MMA together in this schedule.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseSet.h"

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

namespace {

/// The host code of one launch being built (see the file comment).
class LaunchEmulator {
public:
  /// `zero`, `one` and `blockSize`: index constants of the host.
  LaunchEmulator(gpu::LaunchOp launch, OpBuilder &b, int64_t block, Value zero,
                 Value one, Value blockSize)
      : launch(launch), b(b), loc(launch.getLoc()), block(block), zero(zero),
        one(one), blockSize(blockSize) {}

  /// Emits the host loops of the launch's body; `bid` is the block loop's
  /// induction variable and `blockLoop` the loop (spill buffers go before
  /// it).
  LogicalResult emitBody(scf::ForOp blockLoop, IRMapping uniformValues) {
    this->blockLoop = blockLoop;
    uniform = std::move(uniformValues);
    Block &body = launch.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    return emitOps(body, ops);
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Per-thread storage of `v` (block-size entries).
  Value spillOf(Value v) {
    auto it = spills.find(v);
    if (it != spills.end())
      return it->second;
    // Before the block loop: allocas in a loop would grow the stack at
    // every block.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(blockLoop);
    Value buffer =
        memref::AllocaOp::create(b, loc, MemRefType::get({block}, v.getType()));
    spills[v] = buffer;
    return buffer;
  }

  /// Whether `v` is computed again in each interval that uses it instead
  /// of being kept per thread: a value of the ids, of constants and of the
  /// host, or of ops without memory effects or regions whose operands are
  /// such values in turn (views, index math). A value that depends on a
  /// load or a loop-carried value is kept, so that an interval never
  /// recomputes from a value no one kept.
  bool isRecomputable(Value v) {
    if (perThreadArgs.contains(v))
      return false;
    Operation *def = v.getDefiningOp();
    if (!def || !launch->isProperAncestor(def))
      return true;
    auto it = recomputable.find(v);
    if (it != recomputable.end())
      return it->second;
    // An MMA's results exist once, computed for the whole warp.
    bool result = !isa<NVVM::MmaOp, NVVM::MmaSpOp>(def) &&
                  def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
                  llvm::all_of(def->getOperands(), [&](Value operand) {
                    return isRecomputable(operand);
                  });
    recomputable[v] = result;
    return result;
  }

  /// `v` computed on the host at the current point from uniform values
  /// only (the block ids and sizes, constants, values from outside the
  /// launch, ivs of enclosing synchronizing loops), by cloning the pure ops
  /// that compute it; null when it depends on the thread or on memory.
  Value materializeUniform(Value v) {
    if (Value mapped = uniform.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    if (!def)
      return launch->isProperAncestor(v.getParentRegion()->getParentOp()) ||
                     v.getParentRegion()->getParentOp() == launch
                 ? Value()
                 : v;
    if (!launch->isProperAncestor(def))
      return v;
    // A load of a buffer from outside the launch that the launch does not
    // write (the kv_length of an attention) reads the same on every thread.
    auto load = dyn_cast<memref::LoadOp>(def);
    bool uniformLoad = load &&
                       !launch->isAncestor(
                           load.getMemRef().getParentRegion()->getParentOp()) &&
                       !writesTo(load.getMemRef());
    if (def->getNumRegions() != 0 || (!isMemoryEffectFree(def) && !uniformLoad))
      return Value();
    for (Value operand : def->getOperands())
      if (!materializeUniform(operand))
        return Value();
    Operation *clone = b.clone(*def, uniform);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }

  /// Whether an op of the launch may write `buffer` (or any view of what it
  /// is a view of).
  bool writesTo(Value buffer) {
    WalkResult result = launch.getBody().walk([&](Operation *op) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return WalkResult::advance();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &effect : instances)
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            (!effect.getValue() || llm::getViewedBuffer(effect.getValue()) ==
                                       llm::getViewedBuffer(buffer)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  }

  /// Whether `op` holds a synchronization point.
  static bool hasNestedSync(Operation *op) {
    bool nested = false;
    op->walk([&](Operation *inner) {
      nested |= isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::ShuffleOp,
                    gpu::SubgroupReduceOp, NVVM::MmaOp, NVVM::MmaSpOp>(inner);
    });
    return nested;
  }

  /// A loop over the threads running `ops` (interval `id`, in `block`),
  /// then `after(tid, mapping, materialize)`.
  void emitThreadLoop(Block &parent, ArrayRef<Operation *> ops, size_t id,
                      llvm::function_ref<void(Value, IRMapping &,
                                              llvm::function_ref<void(Value)>)>
                          after = nullptr);
  /// Emits `ops` (of `parent`), splitting them at synchronization points.
  LogicalResult emitOps(Block &parent, ArrayRef<Operation *> ops);
  /// Emits a uniform `scf.for` whose body synchronizes: a host loop whose
  /// iterations run the body's intervals in turn; the loop-carried values
  /// are kept per thread.
  LogicalResult emitSyncLoop(scf::ForOp loop);
  /// Emits a warp's `nvvm.mma.sync` or `nvvm.mma.sp.sync` `op` (in
  /// `parent`; see the file comment): its result's `llvm.extractvalue`
  /// users (added to `handled`, not emitted again) read each thread's
  /// accumulators from its storage.
  LogicalResult emitMma(Operation *op, Block &parent,
                        DenseSet<Operation *> &handled);
  /// Before the block loop: a host buffer of `shape` x `type`.
  Value hostBuffer(ArrayRef<int64_t> shape, Type type) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(blockLoop);
    return memref::AllocaOp::create(b, loc, MemRefType::get(shape, type));
  }

  gpu::LaunchOp launch;
  OpBuilder &b;
  Location loc;
  int64_t block;
  Value zero, one, blockSize;
  scf::ForOp blockLoop;
  /// Uniform values of the block: ids, sizes, host loop ivs, all_reduce
  /// results.
  IRMapping uniform;
  DenseMap<Value, Value> spills;
  /// The interval each op of the launch runs in.
  DenseMap<Operation *, size_t> intervalOf;
  size_t numIntervals = 0;
  /// Loop-carried values of the synchronizing loops (kept per thread).
  DenseSet<Value> perThreadArgs;
  DenseMap<Value, bool> recomputable;
};

} // namespace

void LaunchEmulator::emitThreadLoop(
    Block &parent, ArrayRef<Operation *> ops, size_t id,
    llvm::function_ref<void(Value, IRMapping &,
                            llvm::function_ref<void(Value)>)>
        after) {
  auto threadLoop = scf::ForOp::create(b, loc, zero, blockSize, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(threadLoop.getBody());
  Value tid = threadLoop.getInductionVar();
  IRMapping mapping = uniform;
  mapping.map(launch.getThreadIds().x, tid);
  // Values of other intervals: pure ops (views, constants, index math)
  // computed again, the others from this thread's storage.
  std::function<void(Value)> materialize = [&](Value operand) {
    if (mapping.contains(operand))
      return;
    if (perThreadArgs.contains(operand)) {
      mapping.map(operand,
                  memref::LoadOp::create(b, loc, spillOf(operand), tid));
      return;
    }
    Operation *def = operand.getDefiningOp();
    if (!def || !intervalOf.count(def) || intervalOf[def] == id)
      return;
    if (isRecomputable(operand)) {
      for (Value v : def->getOperands())
        materialize(v);
      b.clone(*def, mapping);
      return;
    }
    mapping.map(operand, memref::LoadOp::create(b, loc, spillOf(operand), tid));
  };
  for (Operation *op : ops)
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        materialize(operand);
    });
  for (Operation *op : ops)
    b.clone(*op, mapping);
  // Values other intervals, reductions or the loop's yield use, to this
  // thread's storage.
  for (Operation *op : ops)
    for (Value result : op->getResults()) {
      bool usedElsewhere = llvm::any_of(result.getUsers(), [&](Operation *u) {
        Operation *top = parent.findAncestorOpInBlock(*u);
        return !top || !intervalOf.count(top) || intervalOf[top] != id;
      });
      if (usedElsewhere && !isRecomputable(result))
        memref::StoreOp::create(b, loc, mapping.lookup(result), spillOf(result),
                                tid);
    }
  if (after)
    after(tid, mapping, materialize);
}

LogicalResult LaunchEmulator::emitOps(Block &parent,
                                      ArrayRef<Operation *> ops) {
  SmallVector<Operation *> interval;
  size_t id = numIntervals++;
  // The extractions of MMA results (read from the threads' storage).
  DenseSet<Operation *> handled;
  auto flush = [&]() {
    if (!interval.empty())
      emitThreadLoop(parent, interval, id);
    interval.clear();
    id = numIntervals++;
  };
  for (Operation *op : ops) {
    if (handled.contains(op))
      continue;
    if (isa<NVVM::MmaOp, NVVM::MmaSpOp>(op)) {
      flush();
      if (failed(emitMma(op, parent, handled)))
        return failure();
      continue;
    }
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
      if (!reduce.getOp() || !reduce.getBody().empty())
        return op->emitError("llm-emulate-gpu-kernels: only all_reduce with "
                             "a reduction kind is emulated");
      flush();
      // A recomputable value is kept by no interval: each thread's, first.
      Value reduced = reduce.getValue();
      if (isRecomputable(reduced))
        emitThreadLoop(parent, {}, numIntervals++,
                       [&](Value tid, IRMapping &mapping,
                           llvm::function_ref<void(Value)> materialize) {
                         materialize(reduced);
                         memref::StoreOp::create(
                             b, loc, mapping.lookupOrDefault(reduced),
                             spillOf(reduced), tid);
                       });
      // The threads' values combined in thread order.
      Value buffer = spillOf(reduced);
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
      // Later intervals read it like a uniform value.
      uniform.map(reduce.getResult(), loop.getResult(0));
      continue;
    }
    if (isa<gpu::BarrierOp>(op)) {
      flush();
      continue;
    }
    if (!hasNestedSync(op)) {
      intervalOf[op] = id;
      interval.push_back(op);
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return op->emitError("llm-emulate-gpu-kernels: synchronization inside "
                           "control flow other than a uniform scf.for is not "
                           "emulated");
    flush();
    if (failed(emitSyncLoop(loop)))
      return failure();
  }
  flush();
  return success();
}

LogicalResult LaunchEmulator::emitSyncLoop(scf::ForOp loop) {
  // The bounds: uniform values (of the block ids, constants and enclosing
  // uniform loops), computed on the host.
  SmallVector<Value> bounds;
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()}) {
    Value bound = materializeUniform(v);
    if (!bound)
      return loop.emitError("llm-emulate-gpu-kernels: a loop that "
                            "synchronizes must have bounds uniform across "
                            "the block");
    bounds.push_back(bound);
  }
  // Initial values, to each thread's storage of the iteration arguments.
  for (BlockArgument arg : loop.getRegionIterArgs())
    perThreadArgs.insert(arg);
  Block &parent = *loop->getBlock();
  emitThreadLoop(
      parent, {}, numIntervals++,
      [&](Value tid, IRMapping &mapping,
          llvm::function_ref<void(Value)> materialize) {
        for (auto [init, arg] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs())) {
          materialize(init);
          memref::StoreOp::create(b, loc, mapping.lookupOrDefault(init),
                                  spillOf(arg), tid);
        }
      });
  auto hostLoop = scf::ForOp::create(b, loc, bounds[0], bounds[1], bounds[2]);
  // Uniform values computed in the body are valid only in it.
  IRMapping outerUniform = uniform;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(hostLoop.getBody());
    uniform.map(loop.getInductionVar(), hostLoop.getInductionVar());
    Block &body = *loop.getBody();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    if (failed(emitOps(body, ops)))
      return failure();
    // The yielded values become the next iteration's arguments.
    auto yield = cast<scf::YieldOp>(body.getTerminator());
    emitThreadLoop(body, {}, numIntervals++,
                   [&](Value tid, IRMapping &mapping,
                       llvm::function_ref<void(Value)> materialize) {
                     SmallVector<Value> values;
                     for (Value v : yield.getOperands()) {
                       materialize(v);
                       values.push_back(mapping.lookupOrDefault(v));
                     }
                     for (auto [v, arg] :
                          llvm::zip(values, loop.getRegionIterArgs()))
                       memref::StoreOp::create(b, loc, v, spillOf(arg), tid);
                   });
  }
  uniform = outerUniform;
  // The loop's results: each thread's last arguments.
  for (auto [result, arg] :
       llvm::zip(loop.getResults(), loop.getRegionIterArgs()))
    spills[result] = spillOf(arg);
  intervalOf[loop] = numIntervals++;
  return success();
}

/// Element `e` (0 or 1) of a 32-bit MMA fragment register holding two
/// `elementType` (f16 or bf16) values, low half first (`vector<2xf16>`, or
/// an i32 for bf16), extended to f32.
static Value registerElement(OpBuilder &b, Location loc, Value reg, int64_t e,
                             Type elementType) {
  Type f32 = b.getF32Type();
  if (isa<VectorType>(reg.getType())) {
    Value x = vector::ExtractOp::create(b, loc, reg, e);
    return arith::ExtFOp::create(b, loc, f32, x);
  }
  Value word = reg;
  if (e)
    word = arith::ShRUIOp::create(
        b, loc, word,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(16)));
  Value bits = arith::TruncIOp::create(b, loc, b.getI16Type(), word);
  Value x = arith::BitcastOp::create(b, loc, elementType, bits);
  return arith::ExtFOp::create(b, loc, f32, x);
}

namespace {

/// What the emulation of an MMA reads (parseMma).
struct MmaOperands {
  /// mma.sp (2:4 A, K 32) rather than mma.sync (K 16).
  bool sparse = false;
  int64_t k = 16;
  /// The registers of A (4), B (k / 8) and C (4 f32).
  SmallVector<Value> a, b, c;
  /// mma.sp: the metadata register and the (constant) selector.
  Value meta;
  int64_t selector = 0;
  /// f16 or bf16.
  Type elementType;
  /// The `llvm.extractvalue` readers of each accumulator.
  SmallVector<SmallVector<Operation *>> readers{4};
};

} // namespace

/// The operands of `op` (an nvvm.mma.sync or nvvm.mma.sp.sync in `parent`,
/// in a block of `block` threads) when the emulator runs it; an error
/// naming what it does not emulate otherwise.
static FailureOr<MmaOperands> parseMma(Operation *op, Block &parent,
                                       int64_t block) {
  auto fail = [&](const Twine &why) {
    return op->emitError("llm-emulate-gpu-kernels: ") << why;
  };
  MmaOperands mma;
  mma.sparse = isa<NVVM::MmaSpOp>(op);
  mma.k = mma.sparse ? 32 : 16;
  NVVM::MMAShapeAttr shape;
  std::optional<NVVM::MMATypes> ptxType;
  std::optional<int64_t> selector = 0;
  if (auto dense = dyn_cast<NVVM::MmaOp>(op)) {
    llvm::append_range(mma.a, dense.getOperandA());
    llvm::append_range(mma.b, dense.getOperandB());
    llvm::append_range(mma.c, dense.getOperandC());
    shape = dense.getShapeAttr();
    ptxType = dense.getMultiplicandAPtxType();
    if (dense.getLayoutA() != NVVM::MMALayout::row ||
        dense.getLayoutB() != NVVM::MMALayout::col)
      return fail("only row-major A and column-major B MMAs are emulated");
  } else {
    auto sp = cast<NVVM::MmaSpOp>(op);
    llvm::append_range(mma.a, sp.getOperandA());
    llvm::append_range(mma.b, sp.getOperandB());
    llvm::append_range(mma.c, sp.getOperandC());
    shape = sp.getShapeAttr();
    ptxType = sp.getMultiplicandAPtxType();
    mma.meta = sp.getSparseMetadata();
    selector = getConstantIntValue(sp.getSparsitySelector());
    if (sp.getOrderedMetadata() || sp.getKind())
      return fail("mma.sp with ordered metadata or a kind is not emulated");
  }
  if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != mma.k)
    return fail("only m16n8k16 mma.sync and m16n8k32 mma.sp.sync are "
                "emulated");
  Builder b(op->getContext());
  Type f32 = b.getF32Type();
  if (mma.a.size() != 4 || static_cast<int64_t>(mma.b.size()) != mma.k / 8 ||
      mma.c.size() != 4 ||
      llvm::any_of(mma.c, [&](Value c) { return c.getType() != f32; }))
    return fail("only f16 and bf16 MMAs accumulating in f32 are emulated");
  if (ptxType == NVVM::MMATypes::bf16)
    mma.elementType = b.getBF16Type();
  else if (ptxType == NVVM::MMATypes::f16 ||
           (!ptxType && isa<VectorType>(mma.a.front().getType())))
    mma.elementType = b.getF16Type();
  if (!mma.elementType)
    return fail("only f16 and bf16 MMAs accumulating in f32 are emulated");
  if (!selector || *selector < 0 || *selector > 1)
    return fail("the sparsity selector must be the constant 0 or 1");
  mma.selector = *selector;
  if (block % 32 != 0)
    return fail("an MMA needs whole warps in the block");
  // The accumulators read: extractvalue %d[r] in the same block.
  for (Operation *user : op->getResult(0).getUsers()) {
    auto extract = dyn_cast<LLVM::ExtractValueOp>(user);
    if (!extract || extract->getBlock() != &parent ||
        extract.getPosition().size() != 1 || extract.getPosition()[0] < 0 ||
        extract.getPosition()[0] >= 4)
      return fail("an MMA's result must only be read by llvm.extractvalue "
                  "of one accumulator in the same block");
    mma.readers[extract.getPosition()[0]].push_back(extract);
  }
  return mma;
}

LogicalResult LaunchEmulator::emitMma(Operation *op, Block &parent,
                                      DenseSet<Operation *> &handled) {
  FailureOr<MmaOperands> parsed = parseMma(op, parent, block);
  if (failed(parsed))
    return failure();
  const MmaOperands &mma = *parsed;
  bool sparse = mma.sparse;
  int64_t k = mma.k;
  Type elementType = mma.elementType, f32 = b.getF32Type();
  ArrayRef<Value> aRegs = mma.a, bRegs = mma.b, cRegs = mma.c;
  Value meta = mma.meta;
  ArrayRef<SmallVector<Operation *>> readers = mma.readers;

  int64_t warps = block / 32;
  // A as each row's 16 stored values (all of a dense A's 16 columns) and,
  // for 2:4 A, the column k of each: the products of the columns the
  // metadata does not select are not computed (as on the hardware, so an
  // infinite B element there gives no NaN).
  Value aMat = hostBuffer({warps, 16, 16}, f32);
  Value aColumns =
      sparse ? hostBuffer({warps, 16, 16}, b.getIndexType()) : Value();
  Value bMat = hostBuffer({warps, k, 8}, f32);
  Value cBuf = hostBuffer({block, 4}, f32);
  SmallVector<Value> aBufs;
  for (Value reg : aRegs)
    aBufs.push_back(hostBuffer({block}, reg.getType()));
  Value metaBuf = sparse ? hostBuffer({block}, b.getI32Type()) : Value();
  auto cst = [&](int64_t v) { return idx(v); };
  auto add = [&](Value x, int64_t y) -> Value {
    return y ? arith::AddIOp::create(b, loc, x, cst(y)).getResult() : x;
  };
  auto addv = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, cst(y));
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, cst(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, cst(y));
  };
  // `body(i)` for i in [0, n) on the host.
  auto hostLoop = [&](int64_t n, llvm::function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, zero, cst(n), one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  };

  // Each thread's registers: A kept as is (its placement may need another
  // thread's metadata), B placed in the warp's B (k x n: k = 2t + e + 8j,
  // n = g), C and the metadata kept.
  emitThreadLoop(
      parent, {}, numIntervals++,
      [&](Value tid, IRMapping &mapping,
          llvm::function_ref<void(Value)> materialize) {
        auto valueOf = [&](Value v) {
          materialize(v);
          return mapping.lookupOrDefault(v);
        };
        Value warp = div(tid, 32), lane = rem(tid, 32);
        Value g = div(lane, 4), t = rem(lane, 4);
        for (auto [reg, buffer] : llvm::zip(aRegs, aBufs))
          memref::StoreOp::create(b, loc, valueOf(reg), buffer, tid);
        for (auto [j, reg] : llvm::enumerate(bRegs)) {
          Value value = valueOf(reg);
          for (int64_t e = 0; e < 2; ++e) {
            Value kk = add(mul(t, 2), e + 8 * int64_t(j));
            memref::StoreOp::create(
                b, loc, registerElement(b, loc, value, e, elementType), bMat,
                ValueRange{warp, kk, g});
          }
        }
        for (auto [r, c] : llvm::enumerate(cRegs))
          memref::StoreOp::create(b, loc, valueOf(c), cBuf,
                                  ValueRange{tid, cst(r)});
        if (sparse)
          memref::StoreOp::create(b, loc, valueOf(meta), metaBuf, tid);
      });

  // A: register j of lane (g, t) holds row g + 8 (j & 1), (stored) columns
  // 2t + 8 (j >> 1) and the next. For 2:4 A, stored column c of a row is
  // the (c & 1)-th kept element of group c / 2 (columns 4 (c / 2) ..);
  // its place in the group is the 2-bit index at bit 16 (row >= 8) +
  // 4 ((c % 8) / 2) + 2 (c & 1) of the metadata of lane
  // 4 (row % 8) + 2 selector + c / 8 (the group's contributing threads).
  hostLoop(block, [&](Value tid) {
    Value warp = div(tid, 32), lane = rem(tid, 32);
    Value g = div(lane, 4), t = rem(lane, 4);
    for (auto [j, buffer] : llvm::enumerate(aBufs)) {
      Value reg = memref::LoadOp::create(b, loc, buffer, tid);
      int64_t rowOffset = 8 * (j & 1), half = j >> 1;
      Value row = add(g, rowOffset);
      for (int64_t e = 0; e < 2; ++e) {
        Value value = registerElement(b, loc, reg, e, elementType);
        Value column = add(mul(t, 2), e + 8 * half);
        memref::StoreOp::create(b, loc, value, aMat,
                                ValueRange{warp, row, column});
        if (sparse) {
          Value source =
              addv(mul(warp, 32), add(mul(g, 4), 2 * mma.selector + half));
          Value word = memref::LoadOp::create(b, loc, metaBuf, source);
          Value shift = arith::IndexCastOp::create(
              b, loc, b.getI32Type(), add(mul(t, 4), 16 * (j & 1) + 2 * e));
          Value index = arith::AndIOp::create(
              b, loc, arith::ShRUIOp::create(b, loc, word, shift),
              arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(3)));
          Value kk = addv(
              add(mul(t, 4), 16 * half),
              arith::IndexCastUIOp::create(b, loc, b.getIndexType(), index));
          memref::StoreOp::create(b, loc, kk, aColumns,
                                  ValueRange{warp, row, column});
        }
      }
    }
  });

  // D: accumulator r of lane (g, t) is (g + 8 (r >> 1), 2t + (r & 1)).
  hostLoop(block, [&](Value tid) {
    Value warp = div(tid, 32), lane = rem(tid, 32);
    Value g = div(lane, 4), t = rem(lane, 4);
    for (int64_t r = 0; r < 4; ++r) {
      if (readers[r].empty())
        continue;
      Value row = add(g, 8 * (r >> 1)), col = add(mul(t, 2), r & 1);
      Value init =
          memref::LoadOp::create(b, loc, cBuf, ValueRange{tid, cst(r)});
      auto loop = scf::ForOp::create(b, loc, zero, cst(16), one, init);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value c = loop.getInductionVar();
        Value x =
            memref::LoadOp::create(b, loc, aMat, ValueRange{warp, row, c});
        Value kk = sparse ? memref::LoadOp::create(b, loc, aColumns,
                                                   ValueRange{warp, row, c})
                                .getResult()
                          : c;
        Value y =
            memref::LoadOp::create(b, loc, bMat, ValueRange{warp, kk, col});
        scf::YieldOp::create(b, loc,
                             ValueRange{arith::AddFOp::create(
                                 b, loc, loop.getRegionIterArgs()[0],
                                 arith::MulFOp::create(b, loc, x, y))});
      }
      for (Operation *reader : readers[r])
        memref::StoreOp::create(b, loc, loop.getResult(0),
                                spillOf(reader->getResult(0)), tid);
    }
  });

  size_t id = numIntervals++;
  intervalOf[op] = id;
  for (ArrayRef<Operation *> group : readers)
    for (Operation *reader : group) {
      intervalOf[reader] = id;
      handled.insert(reader);
    }
  return success();
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
  OpBuilder b(launch);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = idx(0), one = idx(1), blockSize = idx(*block);
  // Workgroup (shared) memory: one host buffer, reused by block after
  // block (they run one at a time); aligned like a vector load of it may
  // require.
  SmallVector<Value> workgroupBuffers;
  for (BlockArgument attribution : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    workgroupBuffers.push_back(memref::AllocaOp::create(
        b, loc,
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout()),
        b.getI64IntegerAttr(64)));
  }
  auto blockLoop = scf::ForOp::create(b, loc, zero, idx(*grid), one);
  b.setInsertionPointToStart(blockLoop.getBody());
  Value bid = blockLoop.getInductionVar();

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

  LaunchEmulator emulator(launch, b, *block, zero, one, blockSize);
  if (failed(emulator.emitBody(blockLoop, std::move(uniform))))
    return failure();
  launch.erase();
  // Views of the workgroup buffers (a tile's rows) were cloned with their
  // workgroup memory space: taken again of the host buffers.
  // subview(host, ...) : workgroup type -> subview(host, ...) : host type
  SmallVector<memref::SubViewOp> views;
  blockLoop->walk<WalkOrder::PreOrder>(
      [&](memref::SubViewOp view) { views.push_back(view); });
  for (memref::SubViewOp view : views) {
    if (view.getSourceType().getMemorySpace() ==
        view.getType().getMemorySpace())
      continue;
    OpBuilder vb(view);
    auto type = memref::SubViewOp::inferRankReducedResultType(
        view.getType().getShape(), view.getSourceType(), view.getMixedOffsets(),
        view.getMixedSizes(), view.getMixedStrides());
    auto retaken = memref::SubViewOp::create(
        vb, view.getLoc(), cast<MemRefType>(type), view.getSource(),
        view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
    view.getResult().replaceAllUsesWith(retaken.getResult());
    view.erase();
  }
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
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp>(op))
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
      if (auto memcpy = dyn_cast<gpu::MemcpyOp>(op)) {
        if (memcpy.getAsyncToken() || !memcpy.getAsyncDependencies().empty()) {
          op->emitError("llm-emulate-gpu-kernels: asynchronous gpu.memcpy is "
                        "not emulated");
          return signalPassFailure();
        }
        // gpu.memcpy %dst, %src -> memref.copy %src, %dst
        memref::CopyOp::create(rewriter, op->getLoc(), memcpy.getSrc(),
                               memcpy.getDst());
        rewriter.eraseOp(op);
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
