//===- StageEmitter.cpp - Distributed code of a GPU kernel's stages -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The code of one stage of a kernel inside its `gpu.launch` body: a point
// per thread (flat), a row's parallel dim strided over the threads, a row
// reduction split over the threads and combined by `gpu.all_reduce`, or
// (column mode) over warps and combined in workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "StageEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::llm;

/// Unroll factor of a column-mode warp's reduction loop.
static constexpr uint64_t kColumnUnroll = 4;

SmallVector<int64_t> mlir::llm::getStageRanges(linalg::GenericOp op) {
  return op.getStaticLoopRanges();
}

SmallVector<Value> StageEmitter::indices(AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      result.push_back(ivs[dim.getPosition()]);
      continue;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      result.push_back(cst(c.getValue()));
      continue;
    }
    result.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return result;
}

SmallVector<Value>
StageEmitter::payload(linalg::GenericOp stage, ArrayRef<Value> ivs,
                      ValueRange outs,
                      llvm::function_ref<Value(OpOperand &)> given) {
  Block &body = stage.getRegion().front();
  // Values of the kernel (constants cloned into it) first.
  IRMapping local = mapping;
  for (OpOperand *input : stage.getDpsInputOperands()) {
    BlockArgument arg = stage.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    if (given) {
      if (Value value = given(*input)) {
        local.map(arg, value);
        continue;
      }
    }
    Value source = operand(input->get());
    if (!isa<MemRefType>(source.getType())) {
      local.map(arg, source);
      continue;
    }
    local.map(arg, memref::LoadOp::create(
                       b, loc, source,
                       indices(stage.getMatchingIndexingMap(input), ivs)));
  }
  for (auto [init, value] : llvm::zip(stage.getDpsInitsMutable(), outs))
    if (value)
      local.map(stage.getMatchingBlockArgument(&init), value);
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      local.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(op, local);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(local.lookupOrDefault(v));
  return yielded;
}

SmallVector<Value> StageEmitter::loadOutputs(linalg::GenericOp stage,
                                             ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (OpOperand &init : stage.getDpsInitsMutable()) {
    if (stage.getMatchingBlockArgument(&init).use_empty()) {
      values.push_back(Value());
      continue;
    }
    values.push_back(memref::LoadOp::create(
        b, loc, operand(init.get()),
        indices(stage.getMatchingIndexingMap(&init), ivs)));
  }
  return values;
}

void StageEmitter::storeOutputs(linalg::GenericOp stage, ArrayRef<Value> ivs,
                                ValueRange values) {
  for (auto [init, value] : llvm::zip(stage.getDpsInitsMutable(), values))
    memref::StoreOp::create(b, loc, value, operand(init.get()),
                            indices(stage.getMatchingIndexingMap(&init), ivs));
}

SmallVector<Value> StageEmitter::reductionNest(linalg::GenericOp stage,
                                               SmallVectorImpl<Value> &ivs,
                                               ArrayRef<int64_t> dims,
                                               size_t from, ValueRange accs,
                                               bool distributeFirst) {
  if (from == dims.size())
    return payload(stage, ivs, accs);
  int64_t dim = dims[from];
  int64_t extent = getStageRanges(stage)[dim];
  Value lb = distributeFirst ? tid : cst(0);
  Value step = distributeFirst ? blockSize : cst(1);
  // Values the payload does not read (null) are not carried.
  SmallVector<Value> carried;
  for (Value v : accs)
    if (v)
      carried.push_back(v);
  auto loop = scf::ForOp::create(b, loc, lb, cst(extent), step, carried);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  ivs[dim] = loop.getInductionVar();
  SmallVector<Value> inner;
  unsigned next = 0;
  for (Value v : accs)
    inner.push_back(v ? loop.getRegionIterArgs()[next++] : Value());
  SmallVector<Value> results =
      reductionNest(stage, ivs, dims, from + 1, inner, false);
  // Every output is yielded; only the carried ones are loop results.
  SmallVector<Value> yielded;
  for (auto [acc, res] : llvm::zip(accs, results))
    if (acc)
      yielded.push_back(res);
  scf::YieldOp::create(b, loc, yielded);
  b.setInsertionPointAfter(loop);
  SmallVector<Value> out;
  next = 0;
  for (auto [acc, res] : llvm::zip(accs, results))
    out.push_back(acc ? loop.getResult(next++) : Value());
  return out;
}

void StageEmitter::pointNest(linalg::GenericOp stage,
                             SmallVectorImpl<Value> &ivs,
                             ArrayRef<int64_t> parDims, size_t from,
                             ArrayRef<int64_t> redDims, bool distribute) {
  if (from == parDims.size()) {
    for (int64_t d : redDims)
      ivs[d] = cst(0);
    SmallVector<Value> outs = loadOutputs(stage, ivs);
    if (redDims.empty()) {
      storeOutputs(stage, ivs, payload(stage, ivs, outs));
      return;
    }
    SmallVector<Value> accs = outs;
    // Outputs the payload does not read still take the last step's value:
    // carry them all.
    for (auto [i, init] : llvm::enumerate(stage.getDpsInitsMutable()))
      if (!accs[i])
        accs[i] = memref::LoadOp::create(
            b, loc, operand(init.get()),
            indices(stage.getMatchingIndexingMap(&init), ivs));
    SmallVector<Value> results =
        reductionNest(stage, ivs, redDims, 0, accs, false);
    storeOutputs(stage, ivs, results);
    return;
  }
  int64_t dim = parDims[from];
  int64_t extent = getStageRanges(stage)[dim];
  bool strided = distribute && from == 0;
  auto loop = scf::ForOp::create(b, loc, strided ? tid : cst(0), cst(extent),
                                 strided ? blockSize : cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  ivs[dim] = loop.getInductionVar();
  pointNest(stage, ivs, parDims, from + 1, redDims, distribute);
}

/// The block-wide reduction kind of a payload `yield combine(out, f(ins))`
/// whose output block argument has no other use, with the combining op.
std::optional<gpu::AllReduceOperation>
mlir::llm::matchStageCombiner(linalg::GenericOp stage, Operation *&combiner) {
  if (stage.getNumDpsInits() != 1)
    return std::nullopt;
  Block &body = stage.getRegion().front();
  BlockArgument out = body.getArguments().back();
  if (!out.hasOneUse())
    return std::nullopt;
  Operation *op = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!op || op->getNumOperands() != 2 || op->getNumResults() != 1 ||
      (op->getOperand(0) != out && op->getOperand(1) != out) ||
      !op->getResult(0).getType().isIntOrFloat())
    return std::nullopt;
  combiner = op;
  using K = gpu::AllReduceOperation;
  return TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The identity of reduction `kind` on `type`.
Value mlir::llm::getReductionIdentity(OpBuilder &b, Location loc,
                                      gpu::AllReduceOperation kind, Type type) {
  using K = gpu::AllReduceOperation;
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = APFloat::getZero(sem);
    if (kind == K::MUL)
      v = APFloat::getOne(sem);
    else if (kind == K::MAXIMUMF || kind == K::MAXNUMF)
      v = APFloat::getInf(sem, /*Negative=*/true);
    else if (kind == K::MINIMUMF || kind == K::MINNUMF)
      v = APFloat::getInf(sem, /*Negative=*/false);
    return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, v));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = APInt::getZero(width);
  switch (kind) {
  case K::MUL:
    v = APInt(width, 1);
    break;
  case K::MAXSI:
    v = APInt::getSignedMinValue(width);
    break;
  case K::MINSI:
    v = APInt::getSignedMaxValue(width);
    break;
  case K::MINUI:
  case K::AND:
    v = APInt::getAllOnes(width);
    break;
  default:
    break;
  }
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

LogicalResult StageEmitter::emitRows(linalg::GenericOp stage,
                                     ArrayRef<Value> rowIvs) {
  SmallVector<int64_t> ranges = getStageRanges(stage);
  SmallVector<utils::IteratorType> its = stage.getIteratorTypesArray();
  int64_t numLoops = ranges.size();
  SmallVector<Value> ivs(numLoops);
  for (auto [i, iv] : llvm::enumerate(rowIvs))
    ivs[i] = iv;
  SmallVector<int64_t> parDims, redDims;
  for (int64_t d = rowIvs.size(); d < numLoops; ++d)
    (its[d] == utils::IteratorType::parallel ? parDims : redDims).push_back(d);

  // Something parallel is left: its innermost dim on thread x, the rest
  // serial.
  if (!parDims.empty()) {
    // thread-strided innermost parallel dim first, then the others.
    SmallVector<int64_t> order{parDims.back()};
    order.append(parDims.begin(), parDims.end() - 1);
    pointNest(stage, ivs, order, 0, redDims, /*distribute=*/true);
    return success();
  }

  Value isFirst =
      leader
          ? leader
          : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cst(0))
                .getResult();
  Operation *combiner = nullptr;
  std::optional<gpu::AllReduceOperation> kind;
  if (!redDims.empty())
    kind = matchStageCombiner(stage, combiner);
  if (!kind) {
    // Nothing to distribute (a per-row scalar) or a reduction that is no
    // block reduction: the first thread computes it.
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    pointNest(stage, ivs, {}, 0, redDims, /*distribute=*/false);
    return success();
  }

  // A row reduction: partial results per thread over the innermost
  // reduction dim (strided, coalesced), combined across the block.
  // out = combine(out, all_reduce(combine_{t} partial_t))
  Type elemType = combiner->getResult(0).getType();
  Value identity = getReductionIdentity(b, loc, *kind, elemType);
  SmallVector<int64_t> order{redDims.back()};
  order.append(redDims.begin(), redDims.end() - 1);
  for (int64_t d : redDims)
    ivs[d] = cst(0);
  SmallVector<Value> partial =
      reductionNest(stage, ivs, order, 0, {identity}, /*distribute=*/true);
  Block &body = stage.getRegion().front();
  BlockArgument outArg = body.getArguments().back();
  Value other = combiner->getOperand(0) == outArg ? combiner->getOperand(1)
                                                  : combiner->getOperand(0);
  // combine(a, b), the payload's combining op.
  auto combineValues = [&](Value lhs, Value rhs) {
    IRMapping combineMap;
    combineMap.map(outArg, lhs);
    combineMap.map(other, rhs);
    return b.clone(*combiner, combineMap)->getResult(0);
  };
  for (int64_t d : redDims)
    ivs[d] = cst(0);
  OpOperand *init = stage.getDpsInitOperand(0);
  if (partials) {
    // Each warp's loads are independent of its running sum: unrolled, a
    // warp has several in flight (the loop's trip count is not constant:
    // the unroller adds the remainder).
    // The sum is then the remainder loop's result, when there is one.
    if (auto loop = partial.front().getDefiningOp<scf::ForOp>()) {
      FailureOr<UnrolledLoopInfo> unrolled =
          loopUnrollByFactor(loop, kColumnUnroll);
      if (succeeded(unrolled) && unrolled->epilogueLoopOp)
        partial.front() = unrolled->epilogueLoopOp->getResult(0);
    }
    // Column mode: partials[warp][lane], then warp 0 combines its lane's
    // column in warp order: out = combine(out, p_0 . p_1 . ... p_{G-1}).
    memref::StoreOp::create(b, loc, partial.front(), partials,
                            ValueRange{tid, lane});
    gpu::BarrierOp::create(b, loc);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value first =
        memref::LoadOp::create(b, loc, partials, ValueRange{cst(0), lane});
    auto loop = scf::ForOp::create(b, loc, cst(1), blockSize, cst(1),
                                   ValueRange{first});
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value next = memref::LoadOp::create(
          b, loc, partials, ValueRange{loop.getInductionVar(), lane});
      scf::YieldOp::create(
          b, loc, combineValues(loop.getRegionIterArgs().front(), next));
    }
    Value outInit = memref::LoadOp::create(
        b, loc, operand(init->get()),
        indices(stage.getMatchingIndexingMap(init), ivs));
    storeOutputs(stage, ivs, {combineValues(outInit, loop.getResult(0))});
    return success();
  }
  auto reduce = gpu::AllReduceOp::create(
      b, loc, partial.front(),
      gpu::AllReduceOperationAttr::get(b.getContext(), *kind),
      /*uniform=*/true);
  Value outInit =
      memref::LoadOp::create(b, loc, operand(init->get()),
                             indices(stage.getMatchingIndexingMap(init), ivs));
  Value total = combineValues(outInit, reduce.getResult());
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  storeOutputs(stage, ivs, {total});
  return success();
}

void StageEmitter::emitPoint(linalg::GenericOp stage, ArrayRef<Value> ivs) {
  SmallVector<Value> point(ivs);
  SmallVector<int64_t> redDims;
  for (auto [d, it] : llvm::enumerate(stage.getIteratorTypesArray()))
    if (it != utils::IteratorType::parallel)
      redDims.push_back(d);
  pointNest(stage, point, {}, 0, redDims, /*distribute=*/false);
}

LogicalResult StageEmitter::emitFlat(linalg::GenericOp stage, Value gid) {
  SmallVector<int64_t> ranges = getStageRanges(stage);
  SmallVector<utils::IteratorType> its = stage.getIteratorTypesArray();
  int64_t numLoops = ranges.size();
  SmallVector<Value> ivs(numLoops);
  SmallVector<int64_t> redDims;
  int64_t points = 1;
  for (int64_t d = 0; d < numLoops; ++d) {
    if (its[d] == utils::IteratorType::parallel)
      points *= ranges[d];
    else
      redDims.push_back(d);
  }
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gid,
                                        cst(points));
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // gid -> parallel dims, the innermost fastest.
  Value rest = gid;
  for (int64_t d = numLoops - 1; d >= 0; --d) {
    if (its[d] != utils::IteratorType::parallel)
      continue;
    Value extent = cst(ranges[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  pointNest(stage, ivs, {}, 0, redDims, /*distribute=*/false);
  return success();
}
