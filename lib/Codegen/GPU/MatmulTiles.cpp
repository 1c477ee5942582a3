//===- MatmulTiles.cpp - The tiles strategy of llm-map-gpu-kernels --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A kernel whose one reduction stage is a matmul with enough rows (a prefill
// projection and its fused fill, bias, activation and residual) as a grid of
// output tiles. The rows strategy gives such a kernel a block per row, which
// reads the whole weight once per row (from L2, 2-3 TFLOP/s on an H200);
// here a block computes a 64 x 64 tile (32 x 32 when the grid would leave
// SMs idle) and reads each weight element once per 64 rows:
//
//   C tile (m0, n0): thread (ty, tx) owns rows m0 + ty*TM .. +TM and
//                    columns n0 + tx*TN .. +TN (TM x TN accumulators)
//   for each K tile k0 (tileK = 16):
//     barrier; the block copies A[m0:+tileM, k0:+16] and B[k0:+16, n0:+tileN]
//     to shared memory (k-major), consecutive threads on the operand's
//     innermost global dim (coalesced); barrier
//     for kk < 16: one vector load of the thread's TM values of A, one of
//                  its TN values of B; TM x TN payload steps (FMAs)
//
// The K remainder is a last tile of K % 16 steps; partial M / N tiles clamp
// their loads and store only the outputs that exist. Stages before the
// matmul (its output's fill or bias broadcast) and after it (the epilogue)
// run at each of the thread's points: they access the buffers written in
// the kernel only at the point itself, so no barrier separates them.
//
//===----------------------------------------------------------------------===//

#include "MatmulEmitter.h"

#include "llm/Codegen/GPU/GPUKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::llm;

int64_t MatmulTiles::getGridSize() const {
  int64_t n = ranges.size();
  int64_t grid = llvm::divideCeil(ranges[n - 3], tileM) *
                 llvm::divideCeil(ranges[n - 2], tileN);
  for (int64_t d = 0; d + 3 < n; ++d)
    grid *= ranges[d];
  return grid;
}

/// Whether `map`'s results are (d0, ..., d(n-1)): the point itself (the
/// matmul's output map has one more dim, its trailing k).
static bool isPointMap(AffineMap map, unsigned n) {
  if (map.getNumResults() != n)
    return false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

Value mlir::llm::getViewedBuffer(Value v, bool stopAtArenaSlots) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || (stopAtArenaSlots && isa<memref::ViewOp>(def)))
      break;
    v = view.getViewSource();
  }
  return v;
}

bool mlir::llm::isTiledMatmulCandidate(linalg::LinalgOp op, unsigned *lhs,
                                       unsigned *rhs) {
  int64_t numLoops = op.getNumLoops();
  if (numLoops < 3 || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = numLoops - 3, n = numLoops - 2, k = numLoops - 1;
  for (int64_t d : {m, n})
    if (ShapedType::isDynamic(ranges[d]) || ranges[d] < kMinTiledMatmulExtent)
      return false;
  // yield out + f(...), out read nowhere else.
  Block *body = op.getBlock();
  BlockArgument out = body->getArguments().back();
  Operation *combiner = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || !isa<arith::AddFOp, arith::AddIOp>(combiner) ||
      !out.hasOneUse() ||
      (combiner->getOperand(0) != out && combiner->getOperand(1) != out))
    return false;
  if (!isPointMap(op.getMatchingIndexingMap(op.getDpsInitOperand(0)),
                  numLoops - 1))
    return false;
  std::optional<unsigned> a, b;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (!type || op.getMatchingBlockArgument(input).use_empty())
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() < 8 ||
        !llvm::isPowerOf2_64(type.getElementTypeBitWidth()))
      continue;
    bool usesM = map.isFunctionOfDim(m), usesN = map.isFunctionOfDim(n),
         usesK = map.isFunctionOfDim(k);
    if (usesM && usesK && !usesN && !a)
      a = input->getOperandNumber();
    else if (usesN && usesK && !usesM && !b)
      b = input->getOperandNumber();
  }
  if (!a || !b)
    return false;
  if (lhs)
    *lhs = *a;
  if (rhs)
    *rhs = *b;
  return true;
}

std::optional<MatmulTiles>
mlir::llm::matchMatmulTiles(ArrayRef<linalg::GenericOp> stages,
                            const GPUTargetDescription &target,
                            llvm::function_ref<bool(Value, Value)> mayAlias) {
  std::optional<unsigned> found;
  for (auto [i, constStage] : llvm::enumerate(stages)) {
    linalg::GenericOp stage = constStage;
    if (stage.getNumReductionLoops() == 0)
      continue;
    if (found)
      return std::nullopt;
    found = i;
  }
  if (!found)
    return std::nullopt;
  linalg::GenericOp mm = stages[*found];
  unsigned lhs = 0, rhs = 0;
  if (!isTiledMatmulCandidate(mm, &lhs, &rhs))
    return std::nullopt;
  MatmulTiles tiles;
  tiles.stage = *found;
  tiles.ranges = getStageRanges(mm);
  tiles.lhs = lhs;
  tiles.rhs = rhs;
  ArrayRef<int64_t> ranges = tiles.ranges;

  // Buffers written in the kernel.
  SmallVector<Value> written;
  for (linalg::GenericOp stage : stages)
    for (OpOperand &out : stage.getDpsInitsMutable())
      written.push_back(out.get());
  auto isWritten = [&](Value v) {
    return llvm::any_of(written, [&](Value w) { return mayAlias(v, w); });
  };
  for (OpOperand *input : mm.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) && isWritten(input->get()))
      return std::nullopt;
  ArrayRef<int64_t> space = ArrayRef<int64_t>(ranges).drop_back();
  for (auto [i, constStage] : llvm::enumerate(stages)) {
    linalg::GenericOp stage = constStage;
    if (i == *found)
      continue;
    if (stage.getNumReductionLoops() != 0 ||
        ArrayRef<int64_t>(getStageRanges(stage)) != space)
      return std::nullopt;
    // A written buffer is accessed at the point, through the very view it
    // is written through (another view of it, shifted, would read another
    // thread's or block's point).
    for (OpOperand &operand : stage->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) &&
          isWritten(operand.get()) &&
          (!llvm::is_contained(written, operand.get()) ||
           !isPointMap(stage.getMatchingIndexingMap(&operand), space.size())))
        return std::nullopt;
  }

  // 64 x 64 tiles while they give every SM a block; else 32 x 32.
  if (tiles.getGridSize() < target.smCount) {
    tiles.tileM = tiles.tileN = 32;
    tiles.threadM = tiles.threadN = 2;
  }
  return tiles;
}

/// Marks the payload's `out + x * y` ending in `sum` (float addition of a
/// float product) as contractible into a fused multiply-add.
static void allowContraction(Value sum) {
  auto add = sum.getDefiningOp<arith::AddFOp>();
  if (!add)
    return;
  auto contract = arith::FastMathFlagsAttr::get(sum.getContext(),
                                                arith::FastMathFlags::contract);
  for (Value operand : add->getOperands())
    if (auto mul = operand.getDefiningOp<arith::MulFOp>()) {
      mul.setFastmathAttr(contract);
      add.setFastmathAttr(contract);
    }
}

namespace {

/// The emission of one tiled matmul kernel (see the file comment).
class TileEmitter : MatmulEmitterBase {
public:
  using MatmulEmitterBase::MatmulEmitterBase;

  LogicalResult emit(ArrayRef<Operation *> ops,
                     ArrayRef<linalg::GenericOp> kernelStages);

private:
  /// `v` clamped into loop dim `dim` when its tiles may be partial (M, N)
  /// or its last tile short (K).
  Value clamp(Value v, int64_t dim) {
    int64_t extent = tiles.ranges[dim];
    int64_t numLoops = tiles.ranges.size();
    int64_t tile = dim == numLoops - 3   ? tiles.tileM
                   : dim == numLoops - 2 ? tiles.tileN
                                         : tiles.tileK;
    if (extent % tile == 0)
      return v;
    return arith::MinUIOp::create(b, loc, v, cst(extent - 1));
  }

  /// One operand's shared-memory tile.
  struct Staged {
    unsigned operand;
    /// Its m (A) or n (B) loop dim, the tile's extent along it and the
    /// thread's first index in it.
    int64_t dim, extent, perThread;
    Value threadOffset;
    /// [tileK][extent + pad] in workgroup memory.
    Value buffer;
    /// Whether the operand's innermost global dim is `dim` (else k).
    bool dimInnermost;
  };

  Staged stageOperand(unsigned operand, int64_t dim, int64_t extent,
                      int64_t perThread, Value threadOffset);
  /// Copies the K tile starting at `k0` of `op` into its shared memory.
  void copyTile(const Staged &op, Value k0);
  /// Runs `count` K steps of the tile at `k0` on the accumulators.
  SmallVector<Value> computeTile(Value k0, int64_t count, ValueRange accs);
  /// A loop nest over the thread's points, with `body(ivs)` at each point
  /// that exists (ivs: batch dims, m, n).
  void forEachPoint(llvm::function_ref<void(ArrayRef<Value>)> body);

  /// The thread's first row and column in the tile.
  Value threadRow, threadCol;
  Staged lhs, rhs;
};

} // namespace

TileEmitter::Staged TileEmitter::stageOperand(unsigned operand, int64_t dim,
                                              int64_t extent, int64_t perThread,
                                              Value threadOffset) {
  Staged s;
  s.operand = operand;
  s.dim = dim;
  s.extent = extent;
  s.perThread = perThread;
  s.threadOffset = threadOffset;
  AffineMap map = mm.getMatchingIndexingMap(&mm->getOpOperand(operand));
  auto last = cast<AffineDimExpr>(map.getResults().back());
  s.dimInnermost = static_cast<int64_t>(last.getPosition()) == dim;
  // Stored transposed (a thread's consecutive loads go down a column of the
  // tile), rows padded by one vector so that the stores spread over the
  // banks and every row stays aligned for the vector loads.
  int64_t pad = s.dimInnermost ? 0 : perThread;
  auto type = cast<MemRefType>(mm->getOperand(operand).getType());
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  s.buffer = launch.addWorkgroupAttribution(
      MemRefType::get({tiles.tileK, extent + pad}, type.getElementType(),
                      MemRefLayoutAttrInterface(), workgroup),
      loc);
  return s;
}

void TileEmitter::copyTile(const Staged &op, Value k0) {
  int64_t elements = op.extent * tiles.tileK;
  int64_t threads = tiles.getBlockSize();
  int64_t numLoops = tiles.ranges.size();
  int64_t kDim = numLoops - 1;
  Value base = op.dim == numLoops - 3 ? row0 : col0;
  OpOperand &operand = mm->getOpOperand(op.operand);
  AffineMap map = mm.getMatchingIndexingMap(&operand);
  for (int64_t q = 0; q < elements / threads; ++q) {
    Value idx = add(tid, cst(q * threads));
    Value inDim, inK;
    if (op.dimInnermost) {
      inK = arith::DivUIOp::create(b, loc, idx, cst(op.extent));
      inDim = arith::RemUIOp::create(b, loc, idx, cst(op.extent));
    } else {
      inDim = arith::DivUIOp::create(b, loc, idx, cst(tiles.tileK));
      inK = arith::RemUIOp::create(b, loc, idx, cst(tiles.tileK));
    }
    // Clamped: a partial tile's extra rows and the K remainder's extra
    // steps load a value that exists and is never used.
    SmallVector<Value> ivs(numLoops);
    for (auto [d, v] : llvm::enumerate(batch))
      ivs[d] = v;
    ivs[op.dim] = clamp(add(base, inDim), op.dim);
    ivs[kDim] = clamp(add(k0, inK), kDim);
    Value value = memref::LoadOp::create(b, loc, stages.operand(operand.get()),
                                         stages.indices(map, ivs));
    memref::StoreOp::create(b, loc, value, op.buffer, ValueRange{inK, inDim});
  }
}

SmallVector<Value> TileEmitter::computeTile(Value k0, int64_t count,
                                            ValueRange accs) {
  int64_t numLoops = tiles.ranges.size();
  int64_t tm = tiles.threadM, tn = tiles.threadN;
  // Unrolled (the trip count is a constant): the loads of step kk + 1
  // need not wait for the FMAs of step kk.
  SmallVector<Value> current(accs);
  for (int64_t step = 0; step < count; ++step) {
    Value kk = cst(step);
    // The thread's TM values of A and TN values of B at this step.
    auto vectorOf = [&](const Staged &op) {
      auto type = cast<MemRefType>(op.buffer.getType());
      int64_t bytes = op.perThread * type.getElementTypeBitWidth() / 8;
      Value vec = vector::LoadOp::create(
          b, loc, VectorType::get({op.perThread}, type.getElementType()),
          op.buffer, ValueRange{kk, op.threadOffset}, /*nontemporal=*/false,
          llvm::MaybeAlign(bytes));
      SmallVector<Value> values;
      for (int64_t i = 0; i < op.perThread; ++i)
        values.push_back(vector::ExtractOp::create(b, loc, vec, i));
      return values;
    };
    SmallVector<Value> a = vectorOf(lhs), bv = vectorOf(rhs);
    Value k = add(k0, kk);
    for (int64_t i = 0; i < tm; ++i) {
      for (int64_t j = 0; j < tn; ++j) {
        // Other inputs of the payload (rare) are read at the point,
        // clamped into the matrix.
        SmallVector<Value> ivs(batch);
        ivs.push_back(clamp(add(threadRow, cst(i)), numLoops - 3));
        ivs.push_back(clamp(add(threadCol, cst(j)), numLoops - 2));
        ivs.push_back(k);
        Value &acc = current[i * tn + j];
        acc = stages
                  .payload(mm, ivs, acc,
                           [&](OpOperand &input) -> Value {
                             if (input.getOperandNumber() == lhs.operand)
                               return a[i];
                             if (input.getOperandNumber() == rhs.operand)
                               return bv[j];
                             return Value();
                           })
                  .front();
        // acc + a * b contracts to one FMA (as the CPU kernels' vector.fma):
        // without the flag NVPTX emits mul.rn + add.rn, which ptxas may not
        // fuse, at half the FMA rate.
        allowContraction(acc);
      }
    }
  }
  return current;
}

void TileEmitter::forEachPoint(llvm::function_ref<void(ArrayRef<Value>)> body) {
  int64_t numLoops = tiles.ranges.size();
  int64_t extentM = tiles.ranges[numLoops - 3],
          extentN = tiles.ranges[numLoops - 2];
  bool partial = extentM % tiles.tileM != 0 || extentN % tiles.tileN != 0;
  auto rows = scf::ForOp::create(b, loc, cst(0), cst(tiles.threadM), cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rows.getBody());
  auto cols = scf::ForOp::create(b, loc, cst(0), cst(tiles.threadN), cst(1));
  b.setInsertionPointToStart(cols.getBody());
  SmallVector<Value> ivs(batch);
  ivs.push_back(add(threadRow, rows.getInductionVar()));
  ivs.push_back(add(threadCol, cols.getInductionVar()));
  if (partial) {
    Value inM = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      ivs[numLoops - 3], cst(extentM));
    Value inN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      ivs[numLoops - 2], cst(extentN));
    auto ifOp =
        scf::IfOp::create(b, loc, arith::AndIOp::create(b, loc, inM, inN),
                          /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  body(ivs);
}

LogicalResult TileEmitter::emit(ArrayRef<Operation *> ops,
                                ArrayRef<linalg::GenericOp> kernelStages) {
  int64_t numLoops = tiles.ranges.size();
  int64_t m = numLoops - 3, n = numLoops - 2, kDim = numLoops - 1;
  locateBlock();
  int64_t threadsN = tiles.tileN / tiles.threadN;
  Value tx = arith::RemUIOp::create(b, loc, tid, cst(threadsN));
  Value ty = arith::DivUIOp::create(b, loc, tid, cst(threadsN));
  Value offsetM = mul(ty, cst(tiles.threadM));
  Value offsetN = mul(tx, cst(tiles.threadN));
  threadRow = add(row0, offsetM);
  threadCol = add(col0, offsetN);
  lhs = stageOperand(tiles.lhs, m, tiles.tileM, tiles.threadM, offsetM);
  rhs = stageOperand(tiles.rhs, n, tiles.tileN, tiles.threadN, offsetN);

  bool seenMatmul = false;
  for (Operation *op : ops) {
    auto stage = dyn_cast<linalg::GenericOp>(op);
    if (!stage || !llvm::is_contained(kernelStages, stage)) {
      b.clone(*op, mapping);
      continue;
    }
    if (stage != mm) {
      // Prologue / epilogue: the stage at each of the thread's points.
      forEachPoint([&](ArrayRef<Value> ivs) { stages.emitPoint(stage, ivs); });
      continue;
    }
    seenMatmul = true;
    OpOperand *init = mm.getDpsInitOperand(0);
    Value out = stages.operand(init->get());
    // Accumulators: the output's values after the prologue (clamped
    // points of a partial tile read a value that exists).
    SmallVector<Value> accs;
    for (int64_t i = 0; i < tiles.threadM; ++i)
      for (int64_t j = 0; j < tiles.threadN; ++j) {
        SmallVector<Value> ivs(batch);
        ivs.push_back(clamp(add(threadRow, cst(i)), m));
        ivs.push_back(clamp(add(threadCol, cst(j)), n));
        accs.push_back(memref::LoadOp::create(
            b, loc, out,
            stages.indices(
                AffineMap::getMultiDimIdentityMap(ivs.size(), b.getContext()),
                ivs)));
      }
    int64_t extentK = tiles.ranges[kDim];
    int64_t full = extentK / tiles.tileK, remainder = extentK % tiles.tileK;
    auto tileLoop = [&](Value k0, int64_t count, ValueRange in) {
      // The previous tile's reads are done before it is overwritten.
      gpu::BarrierOp::create(b, loc);
      copyTile(lhs, k0);
      copyTile(rhs, k0);
      gpu::BarrierOp::create(b, loc);
      return computeTile(k0, count, in);
    };
    if (full > 0) {
      auto loop = scf::ForOp::create(b, loc, cst(0), cst(extentK - remainder),
                                     cst(tiles.tileK), accs);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b, loc,
                           tileLoop(loop.getInductionVar(), tiles.tileK,
                                    loop.getRegionIterArgs()));
      accs.assign(loop.getResults().begin(), loop.getResults().end());
    }
    if (remainder > 0)
      accs = tileLoop(cst(extentK - remainder), remainder, accs);
    // The thread's outputs that exist.
    bool partial = tiles.ranges[m] % tiles.tileM != 0 ||
                   tiles.ranges[n] % tiles.tileN != 0;
    for (int64_t i = 0; i < tiles.threadM; ++i)
      for (int64_t j = 0; j < tiles.threadN; ++j) {
        SmallVector<Value> ivs(batch);
        ivs.push_back(add(threadRow, cst(i)));
        ivs.push_back(add(threadCol, cst(j)));
        OpBuilder::InsertionGuard guard(b);
        if (partial) {
          Value inRange = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[m],
                                    cst(tiles.ranges[m])),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[n],
                                    cst(tiles.ranges[n])));
          auto ifOp =
              scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        }
        memref::StoreOp::create(
            b, loc, accs[i * tiles.threadN + j], out,
            stages.indices(
                AffineMap::getMultiDimIdentityMap(ivs.size(), b.getContext()),
                ivs));
      }
  }
  return success(seenMatmul);
}

LogicalResult mlir::llm::emitMatmulTiles(OpBuilder &b, Location loc,
                                         gpu::LaunchOp launch,
                                         IRMapping &mapping,
                                         ArrayRef<Operation *> ops,
                                         ArrayRef<linalg::GenericOp> stages,
                                         const MatmulTiles &tiles) {
  TileEmitter emitter(b, loc, launch, mapping, stages[tiles.stage], tiles);
  return emitter.emit(ops, stages);
}
