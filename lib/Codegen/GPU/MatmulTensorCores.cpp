//===- MatmulTensorCores.cpp - Matmul tiles on tensor cores ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The tiles strategy of llm-map-gpu-kernels on tensor cores, for f16 and
// bf16 matmuls accumulating in f32 (`c + ext(a) * ext(b)`):
//
//   block: a 64 x 64 tile of C, 4 warps in 2 x 2, warp (wm, wn) a 32 x 32
//          sub-tile = 2 x 4 MMAs of m16n8k16, 32 f32 accumulators per lane
//   for each K tile k0 (32):
//     barrier; the block copies A[m0:+64, k0:+32] to As[64][40] (m-major)
//     and B's [k0:+32, n0:+64] to Bs[64][40] (n-major: B transposed), the
//     global loads coalesced along each operand's innermost dim; barrier
//     for ks in {0, 16}: each lane loads its fragments as pairs of
//     consecutive k (one 32-bit load each) and the warp issues 8 MMAs
//
// The fragment layout is PTX's for mma.m16n8k16 (PTX ISA, "Matrix Fragments
// for mma.m16n8k16 with floating point type"): with g = lane / 4 and
// t = lane % 4, A's registers hold (g, 2t..2t+1), (g+8, 2t..), (g, 8+2t..),
// (g+8, 8+2t..); B's hold k = 2t..2t+1 and 8+2t.. of column g; C's hold
// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
//
// C is read from and written back to its buffer at those positions, so the
// stages before the matmul (its fill or bias) and after it (the epilogue)
// run at 32 points per thread with a barrier between them and the MMAs.
// The MMAs are warp-collective: the CPU emulator cannot run them, so these
// kernels are checked on a GPU (scripts/gpu-check.sh) and by ptxas.
//
//===----------------------------------------------------------------------===//

#include "MatmulEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

/// Shape of one tensor-core tile: C 64 x 64 per block, K 32 per step.
static constexpr int64_t kTile = 64, kTileK = 32;
/// Row pad of the shared-memory tiles (elements): rows of 80 bytes spread
/// a warp's fragment loads over the banks.
static constexpr int64_t kPad = 8;

/// Whether `v` is an f16 / bf16 value of block argument `arg` extended to
/// f32: `arith.extf(arg)` of an f16 / bf16 argument, or
/// `arith.extf(arith.truncf(arg))` of an f32 one; `type` is the f16 / bf16
/// type, `ops` counts the payload ops involved.
static bool isExtOf(Value v, BlockArgument &arg, Type &type, int64_t &ops) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return false;
  type = ext.getIn().getType();
  if (!type.isF16() && !type.isBF16())
    return false;
  ++ops;
  Value in = ext.getIn();
  if (auto trunc = in.getDefiningOp<arith::TruncFOp>()) {
    in = trunc.getIn();
    ++ops;
    // The staging rounds to nearest even, as truncf does by default.
    if (!in.getType().isF32() || trunc.getRoundingmode())
      return false;
  }
  arg = dyn_cast<BlockArgument>(in);
  return static_cast<bool>(arg);
}

bool mlir::llm::matchMatmulTensorCores(ArrayRef<linalg::GenericOp> stages,
                                       MatmulTiles &tiles) {
  linalg::GenericOp mm = stages[tiles.stage];
  int64_t numLoops = tiles.ranges.size();
  if (tiles.ranges[numLoops - 3] % kTile != 0 ||
      tiles.ranges[numLoops - 2] % kTile != 0 ||
      tiles.ranges[numLoops - 1] % kTileK != 0)
    return false;
  Block &body = mm.getRegion().front();
  BlockArgument out = body.getArguments().back();
  if (!out.getType().isF32() || mm.getNumDpsInputs() != 2)
    return false;
  // yield out + ext(a) * ext(b)
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  if (add.getLhs() != out && add.getRhs() != out)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  BlockArgument x, y;
  Type xType, yType;
  // add, mul, yield and each operand's conversions.
  int64_t ops = 3;
  if (!mul || !isExtOf(mul.getLhs(), x, xType, ops) ||
      !isExtOf(mul.getRhs(), y, yType, ops) || xType != yType || x == y ||
      static_cast<int64_t>(body.getOperations().size()) != ops)
    return false;
  // The operands are A and B (in either order).
  auto numberOf = [&](BlockArgument arg) {
    return mm.getDpsInputOperand(arg.getArgNumber())->getOperandNumber();
  };
  unsigned first = numberOf(x), second = numberOf(y);
  if (!((first == tiles.lhs && second == tiles.rhs) ||
        (first == tiles.rhs && second == tiles.lhs)))
    return false;
  tiles.tensorCores = true;
  tiles.mmaType = xType;
  tiles.tileM = tiles.tileN = kTile;
  tiles.tileK = kTileK;
  return true;
}

namespace {

/// The emission of one tensor-core matmul kernel (see the file comment).
class TensorCoreEmitter : MatmulEmitterBase {
public:
  using MatmulEmitterBase::MatmulEmitterBase;

  LogicalResult emit(ArrayRef<Operation *> ops,
                     ArrayRef<linalg::GenericOp> kernelStages);

private:
  /// Copies the K tile at `k0` of input `operand` (A: `isA`) into `buffer`
  /// ([64 rows of m or n][k]).
  void copyTile(unsigned operand, bool isA, Value buffer, Value k0);
  /// The 32-bit register holding elements (row, col) and (row, col + 1) of
  /// `buffer`: vector<2xf16> for f16, an i32 for bf16 (the NVVM operand
  /// types of mma.sync).
  Value loadPair(Value buffer, Value row, Value col);
  /// `body(ivs)` at each of the thread's 32 points of the tile.
  void forEachPoint(llvm::function_ref<void(ArrayRef<Value>)> body);
  /// The thread's 32 accumulator positions (row, col) in C, fragment by
  /// fragment (mt, nt, register).
  SmallVector<std::pair<Value, Value>> accumulatorPositions();

  Value lane, g, t, warpRow, warpCol;
  Type elementType;
};

} // namespace

void TensorCoreEmitter::copyTile(unsigned operand, bool isA, Value buffer,
                                 Value k0) {
  OpOperand &input = mm->getOpOperand(operand);
  AffineMap map = mm.getMatchingIndexingMap(&input);
  int64_t numLoops = tiles.ranges.size();
  int64_t dim = isA ? numLoops - 3 : numLoops - 2;
  auto last = cast<AffineDimExpr>(map.getResults().back());
  bool kInnermost = last.getPosition() == numLoops - 1;
  Value base = isA ? row0 : col0;
  int64_t threads = tiles.getBlockSize();
  for (int64_t q = 0; q < kTile * kTileK / threads; ++q) {
    Value idx = add(tid, q * threads);
    Value inDim = kInnermost ? div(idx, kTileK) : rem(idx, kTile);
    Value inK = kInnermost ? rem(idx, kTileK) : div(idx, kTile);
    SmallVector<Value> ivs(numLoops);
    for (auto [d, v] : llvm::enumerate(batch))
      ivs[d] = v;
    ivs[dim] = add(base, inDim);
    ivs[numLoops - 1] = add(k0, inK);
    Value value = memref::LoadOp::create(b, loc, stages.operand(input.get()),
                                         stages.indices(map, ivs));
    // An f32 input (a demoted activation) is rounded as it is staged.
    if (value.getType() != elementType)
      value = arith::TruncFOp::create(b, loc, elementType, value);
    memref::StoreOp::create(b, loc, value, buffer, ValueRange{inDim, inK});
  }
}

Value TensorCoreEmitter::loadPair(Value buffer, Value row, Value col) {
  auto pairType = VectorType::get({2}, elementType);
  Value pair =
      vector::LoadOp::create(b, loc, pairType, buffer, ValueRange{row, col},
                             /*nontemporal=*/false, llvm::Align(4));
  if (elementType.isF16())
    return pair;
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, 0);
}

void TensorCoreEmitter::forEachPoint(
    llvm::function_ref<void(ArrayRef<Value>)> body) {
  int64_t threads = tiles.getBlockSize();
  auto loop =
      scf::ForOp::create(b, loc, cst(0), cst(kTile * kTile / threads), cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value p = add(tid, mul(loop.getInductionVar(), threads));
  SmallVector<Value> ivs(batch);
  ivs.push_back(add(row0, div(p, kTile)));
  ivs.push_back(add(col0, rem(p, kTile)));
  body(ivs);
}

SmallVector<std::pair<Value, Value>> TensorCoreEmitter::accumulatorPositions() {
  SmallVector<std::pair<Value, Value>> positions;
  for (int64_t mt = 0; mt < 2; ++mt)
    for (int64_t nt = 0; nt < 4; ++nt)
      for (int64_t r = 0; r < 4; ++r) {
        Value row = add(add(row0, warpRow), mt * 16 + (r >= 2 ? 8 : 0));
        row = add(row, g);
        Value col = add(add(col0, warpCol), nt * 8 + (r & 1));
        col = add(col, mul(t, 2));
        positions.push_back({row, col});
      }
  return positions;
}

LogicalResult
TensorCoreEmitter::emit(ArrayRef<Operation *> ops,
                        ArrayRef<linalg::GenericOp> kernelStages) {
  MLIRContext *ctx = b.getContext();
  int64_t numLoops = tiles.ranges.size();
  elementType = tiles.mmaType;
  locateBlock();
  lane = rem(tid, 32);
  Value warp = div(tid, 32);
  g = div(lane, 4);
  t = rem(lane, 4);
  warpRow = mul(div(warp, 2), 32);
  warpCol = mul(rem(warp, 2), 32);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get({kTile, kTileK + kPad}, elementType,
                                  MemRefLayoutAttrInterface(), workgroup);
  Value tileA = launch.addWorkgroupAttribution(tileType, loc);
  Value tileB = launch.addWorkgroupAttribution(tileType, loc);

  bool seenMatmul = false;
  for (Operation *op : ops) {
    auto stage = dyn_cast<linalg::GenericOp>(op);
    if (!stage || !llvm::is_contained(kernelStages, stage)) {
      b.clone(*op, mapping);
      continue;
    }
    if (stage != mm) {
      if (seenMatmul)
        gpu::BarrierOp::create(b, loc);
      forEachPoint([&](ArrayRef<Value> ivs) { stages.emitPoint(stage, ivs); });
      continue;
    }
    seenMatmul = true;
    // The prologue's writes of C are other threads' accumulators.
    gpu::BarrierOp::create(b, loc);
    Value out = stages.operand(mm.getDpsInitOperand(0)->get());
    SmallVector<std::pair<Value, Value>> positions = accumulatorPositions();
    auto outIndices = [&](std::pair<Value, Value> pos) {
      SmallVector<Value> ivs(batch);
      ivs.append({pos.first, pos.second});
      return ivs;
    };
    SmallVector<Value> accs;
    for (auto pos : positions)
      accs.push_back(memref::LoadOp::create(b, loc, out, outIndices(pos)));
    int64_t extentK = tiles.ranges[numLoops - 1];
    auto loop =
        scf::ForOp::create(b, loc, cst(0), cst(extentK), cst(kTileK), accs);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k0 = loop.getInductionVar();
      gpu::BarrierOp::create(b, loc);
      copyTile(tiles.lhs, /*isA=*/true, tileA, k0);
      copyTile(tiles.rhs, /*isA=*/false, tileB, k0);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> current(loop.getRegionIterArgs());
      Type f32 = b.getF32Type();
      Type resultType =
          LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
      NVVM::MMATypes ptxType =
          elementType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
      for (int64_t ks = 0; ks < kTileK; ks += 16) {
        Value kLo = add(mul(t, 2), ks), kHi = add(mul(t, 2), ks + 8);
        SmallVector<SmallVector<Value>> fragA, fragB;
        for (int64_t mt = 0; mt < 2; ++mt) {
          Value r = add(add(warpRow, g), mt * 16);
          Value r8 = add(r, 8);
          fragA.push_back({loadPair(tileA, r, kLo), loadPair(tileA, r8, kLo),
                           loadPair(tileA, r, kHi), loadPair(tileA, r8, kHi)});
        }
        for (int64_t nt = 0; nt < 4; ++nt) {
          Value c = add(add(warpCol, g), nt * 8);
          fragB.push_back({loadPair(tileB, c, kLo), loadPair(tileB, c, kHi)});
        }
        for (int64_t mt = 0; mt < 2; ++mt)
          for (int64_t nt = 0; nt < 4; ++nt) {
            int64_t base = (mt * 4 + nt) * 4;
            SmallVector<Value> c(current.begin() + base,
                                 current.begin() + base + 4);
            Value d = NVVM::MmaOp::create(
                b, loc, resultType, fragA[mt], fragB[nt], c,
                ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t r = 0; r < 4; ++r)
              current[base + r] = LLVM::ExtractValueOp::create(b, loc, d, r);
          }
      }
      scf::YieldOp::create(b, loc, current);
    }
    for (auto [pos, value] : llvm::zip(positions, loop.getResults()))
      memref::StoreOp::create(b, loc, value, out, outIndices(pos));
  }
  return success(seenMatmul);
}

LogicalResult mlir::llm::emitMatmulTensorCores(
    OpBuilder &b, Location loc, gpu::LaunchOp launch, IRMapping &mapping,
    ArrayRef<Operation *> ops, ArrayRef<linalg::GenericOp> stages,
    const MatmulTiles &tiles) {
  TensorCoreEmitter emitter(b, loc, launch, mapping, stages[tiles.stage],
                            tiles);
  return emitter.emit(ops, stages);
}
