//===- AMXMatmul.cpp - Matmul by a constant on AMX bf16 tiles -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the kernel of `llm.matmul` by a constant weight on
// Intel AMX tiles (`dot_product = "amx_bf16"` in the op's
// `llm.lowering_config`: prefill matmuls of bf16 models, and of f32 models
// whose matmul inputs are demoted to bf16) and of `llm.matmul_integer` by a
// constant 8-bit weight (`dot_product = "amx_i8"`: W8A8 prefill). See
// buildAMXBF16Matmul and buildAMXInt8Matmul in QuantKernels.h.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

/// Rows of a tile; 32-bit columns of an accumulator tile (64 bytes a row,
/// the most a tile row holds).
static constexpr int64_t kTileRows = 16;
static constexpr int64_t kTileColumns = 16;
/// Bytes of a row of an A tile: 32 bf16 (16 pairs of K) or 64 8-bit values
/// (16 quads of K) per `tdpbf16ps` / `tdpbusd`.
static constexpr int64_t kTileRowBytes = 64;
/// Columns of a weight panel: the two accumulator tiles of a 2 x 2 register
/// block (32 rows, kAMXBlockRows, by 32 columns), which with its two A tiles
/// and two B tiles uses the 8 tile registers.
static constexpr int64_t kPanelColumns = 2 * kTileColumns;
/// Most output columns of one block of the parallel loop.
static constexpr int64_t kBlockColumns = 128;
/// Lanes of the vectors that copy rows into and out of the tiles' buffers.
static constexpr int64_t kLanes = 16;

namespace {
/// What an AMX kernel's loop nest (buildAMXTileLoops) multiplies: `depth`
/// elements of K per 32-bit accumulator lane (2 bf16, 4 8-bit values) of
/// type `elem`, into `acc` (f32 / i32).
struct AMXTiles {
  Type elem, acc;
  int64_t depth = 2;
  /// Rows M, K and N rounded up to whole tiles (Kp: a multiple of the A
  /// tile row, kTileRowBytes elements of 1 byte or half as many of 2; Np: of
  /// kPanelColumns), and N.
  int64_t M = 0, Kp = 0, Np = 0, N = 0;
  /// The packed weight's buffer, [Np / 32 * Kp / depth, 32 * depth]: row
  /// j Kp / depth + q holds w[depth q + t, 32 j + c] at depth c + t.
  Value weight;
  /// Writes row m of the activation into row `row` of the [32, Kp] A buffer
  /// `aBuf` (zeros past K).
  llvm::function_ref<void(OpBuilder &, Location, Value m, Value row,
                          Value aBuf)>
      fillRow;
  /// The tile product acc + A B.
  llvm::function_ref<Value(OpBuilder &, Location, Value a, Value b, Value acc)>
      multiply;
  /// The output of 16 accumulator lanes of row m, columns n.. of the
  /// result (the 8-bit kernel adds its zero-point terms).
  llvm::function_ref<Value(OpBuilder &, Location, Value v, Value m, Value n)>
      finish;
};
} // namespace

/// The packed AMX weight of `value(k, n)` (K x N) for `tiles` (see
/// AMXTiles::weight), as a flat row-major vector.
template <typename T>
static std::vector<T>
packAMXWeight(int64_t K, int64_t N, int64_t Kp, int64_t depth,
              llvm::function_ref<T(int64_t, int64_t)> value) {
  int64_t Np = static_cast<int64_t>(llvm::alignTo(N, kPanelColumns));
  int64_t steps = Kp / depth;
  std::vector<T> packed(Np * Kp, T(0));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t j = n / kPanelColumns, c = n % kPanelColumns;
      packed[(j * steps + k / depth) * depth * kPanelColumns + depth * c +
             k % depth] = value(k, n);
    }
  return packed;
}

/// The loop nest of an AMX kernel: an `scf.forall` over blocks of up to 128
/// columns (whole panels) whose shared output is the [M, Np] result; in
/// each block, per row block of 32 rows, the A buffer filled (rows past M
/// zero), then per panel a 2 x 2 block of accumulator tiles carried over
/// K (kTileRowBytes bytes of it per step), stored into a [32, 32] buffer
/// whose rows below M go into the output through `finish`.
static scf::ForallOp buildAMXTileLoops(OpBuilder &b, Location loc,
                                       const AMXTiles &t) {
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  int64_t elemBytes = t.elem.getIntOrFloatBitWidth() / 8;
  int64_t kStep = kTileRowBytes / elemBytes;
  int64_t steps = t.Kp / t.depth;
  auto aTileType = amx::TileType::get({kTileRows, kStep}, t.elem);
  auto cTileType = amx::TileType::get({kTileRows, kTileColumns}, t.acc);
  auto chunkAcc = VectorType::get({kLanes}, t.acc);
  Value zeroChunk = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({kLanes}, t.elem),
                             b.getZeroAttr(t.elem)));
  int64_t nb =
      llm::detail::getDotBlockColumns(t.Np, kPanelColumns, kBlockColumns);

  OpBuilder::InsertionGuard guard(b);
  // The [M, N] result: each block's columns, min(nb, N - nb0) when N was
  // padded (only the last block has fewer; its writes past N are masked).
  bool padded = t.Np != t.N;
  Value out =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t.M, t.N}, t.acc);
  auto forall = llm::detail::createBlockLoop(b, loc, t.Np / nb, out);
  b.setInsertionPointToStart(forall.getBody());
  Value nb0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nb));
  // The block's buffers: its row block of A ([32, Kp], the rows past M
  // zero) and the 2 x 2 accumulator tiles stored back ([32, 32]);
  // llm-promote-tile-scratch puts the small ones on the stack.
  Value aBuf = memref::AllocOp::create(
      b, loc, MemRefType::get({kAMXBlockRows, t.Kp}, t.elem));
  Value cBuf = memref::AllocOp::create(
      b, loc, MemRefType::get({kAMXBlockRows, kPanelColumns}, t.acc));
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  OpFoldResult width = ofr(nb);
  if (padded)
    width =
        arith::MinSIOp::create(b, loc, idx(b, nb),
                               arith::SubIOp::create(b, loc, idx(b, t.N), nb0))
            .getResult();
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(t.M), width}, unit);

  // Row block m0 .. m0 + 32 (its `valid` rows below M) of the block.
  auto rowBlock = [&](OpBuilder &rb, Location l, Value m0, ValueRange iter) {
    Value valid =
        arith::MinSIOp::create(rb, l, idx(rb, kAMXBlockRows),
                               arith::SubIOp::create(rb, l, idx(rb, t.M), m0));
    scf::ForOp::create(
        rb, l, idx(rb, 0), idx(rb, kAMXBlockRows), idx(rb, 1), ValueRange{},
        [&](OpBuilder &r, Location rl, Value row, ValueRange) {
          Value inRows = arith::CmpIOp::create(r, rl, arith::CmpIPredicate::slt,
                                               row, valid);
          scf::IfOp::create(
              r, rl, inRows,
              [&](OpBuilder &tb, Location tl) {
                t.fillRow(tb, tl, arith::AddIOp::create(tb, tl, m0, row), row,
                          aBuf);
                scf::YieldOp::create(tb, tl);
              },
              [&](OpBuilder &tb, Location tl) {
                scf::ForOp::create(
                    tb, tl, idx(tb, 0), idx(tb, t.Kp), idx(tb, kLanes),
                    ValueRange{},
                    [&](OpBuilder &kb, Location kl, Value k, ValueRange) {
                      vector::StoreOp::create(kb, kl, zeroChunk, aBuf,
                                              ValueRange{row, k});
                      scf::YieldOp::create(kb, kl);
                    });
                scf::YieldOp::create(tb, tl);
              });
          scf::YieldOp::create(r, rl);
        });

    // Each panel of the block: C[i][h] += A_i (rows 16 i.., K k0..k0 +
    // kStep) x B_h (steps k0 / depth .. + 16, columns 16 h.. of the panel).
    auto panelLoop = scf::ForOp::create(
        rb, l, idx(rb, 0), idx(rb, nb), idx(rb, kPanelColumns), iter,
        [&](OpBuilder &pb, Location pl, Value p, ValueRange pIter) {
          Value j = arith::DivUIOp::create(
              pb, pl, arith::AddIOp::create(pb, pl, nb0, p),
              idx(pb, kPanelColumns));
          Value panelRow = arith::MulIOp::create(pb, pl, j, idx(pb, steps));
          Value zero = amx::TileZeroOp::create(pb, pl, cTileType);
          auto kLoop = scf::ForOp::create(
              pb, pl, idx(pb, 0), idx(pb, t.Kp), idx(pb, kStep),
              ValueRange{zero, zero, zero, zero},
              [&](OpBuilder &kb, Location kl, Value k0, ValueRange acc) {
                Value q = arith::AddIOp::create(
                    kb, kl, panelRow,
                    arith::DivUIOp::create(kb, kl, k0, idx(kb, t.depth)));
                Value aTiles[2], bTiles[2];
                for (int64_t i = 0; i < 2; ++i)
                  aTiles[i] = amx::TileLoadOp::create(
                      kb, kl, aTileType, aBuf,
                      ValueRange{idx(kb, i * kTileRows), k0}, Value());
                for (int64_t h = 0; h < 2; ++h)
                  bTiles[h] = amx::TileLoadOp::create(
                      kb, kl, aTileType, t.weight,
                      ValueRange{q, idx(kb, h * t.depth * kTileColumns)},
                      Value());
                SmallVector<Value> next;
                for (int64_t i = 0; i < 2; ++i)
                  for (int64_t h = 0; h < 2; ++h)
                    next.push_back(t.multiply(kb, kl, aTiles[i], bTiles[h],
                                              acc[i * 2 + h]));
                scf::YieldOp::create(kb, kl, next);
              });
          for (int64_t i = 0; i < 2; ++i)
            for (int64_t h = 0; h < 2; ++h)
              amx::TileStoreOp::create(
                  pb, pl, cBuf,
                  ValueRange{idx(pb, i * kTileRows), idx(pb, h * kTileColumns)},
                  kLoop.getResult(i * 2 + h), Value());
          // The valid rows of the tiles into the block's output columns.
          auto rows = scf::ForOp::create(
              pb, pl, idx(pb, 0), valid, idx(pb, 1), pIter,
              [&](OpBuilder &wb, Location wl, Value r, ValueRange out) {
                Value m = arith::AddIOp::create(wb, wl, m0, r);
                Value result = out[0];
                for (int64_t h = 0; h < 2; ++h) {
                  Value v = vector::LoadOp::create(
                      wb, wl, chunkAcc, cBuf,
                      ValueRange{r, idx(wb, h * kTileColumns)});
                  Value col = arith::AddIOp::create(wb, wl, p,
                                                    idx(wb, h * kTileColumns));
                  v = t.finish(wb, wl, v, m,
                               arith::AddIOp::create(wb, wl, nb0, col));
                  result = vector::TransferWriteOp::create(
                               wb, wl, v, result, ValueRange{m, col},
                               ArrayRef<bool>{!padded})
                               .getResult();
                }
                scf::YieldOp::create(wb, wl, result);
              });
          scf::YieldOp::create(pb, pl, rows.getResults());
        });
    scf::YieldOp::create(rb, l, panelLoop.getResults());
  };
  auto rowLoop =
      scf::ForOp::create(b, loc, idx(b, 0), idx(b, t.M), idx(b, kAMXBlockRows),
                         ValueRange{tile}, rowBlock);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, rowLoop.getResult(0), forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(t.M), width}, unit);
  return forall;
}

/// The [M, N] result of an AMX kernel's loop nest, in `resultType`'s shape
/// (of element type `acc`): the loop itself, marked for consumer fusion
/// (the epilogue joins the block loop in llm-tile-and-vectorize). A
/// prefill's norm prologue runs before the kernel as one loop nest.
static Value finishAMXKernel(OpBuilder &b, Location loc, scf::ForallOp forall,
                             Type acc, RankedTensorType resultType) {
  Value result = forall.getResult(0);
  forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  forall->setAttr(kFuseProducersAttr, b.getBoolAttr(false));
  return llm::detail::expandRows(b, loc, result, resultType.clone(acc));
}

/// aBuf[row, k] = elem(src[m, k]) for k < Kp, 16 at a time: `src`'s rows
/// ([M, K], read as `pad` past K) converted to the A buffer's element type
/// (f32 -> bf16 rounds to nearest even; equal types are copied).
static void copyRowChunks(OpBuilder &b, Location loc, Value src, Value pad,
                          int64_t K, int64_t Kp, Value m, Value row,
                          Value aBuf) {
  Type from = cast<RankedTensorType>(src.getType()).getElementType();
  Type to = cast<MemRefType>(aBuf.getType()).getElementType();
  scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
      arith::ConstantIndexOp::create(b, loc, Kp),
      arith::ConstantIndexOp::create(b, loc, kLanes), ValueRange{},
      [&](OpBuilder &kb, Location kl, Value k, ValueRange) {
        Value v = vector::TransferReadOp::create(
            kb, kl, VectorType::get({kLanes}, from), src, ValueRange{m, k}, pad,
            ArrayRef<bool>{Kp == K});
        if (from != to)
          v = arith::TruncFOp::create(kb, kl, VectorType::get({kLanes}, to), v);
        vector::StoreOp::create(kb, kl, v, aBuf, ValueRange{row, k});
        scf::YieldOp::create(kb, kl);
      });
}

FailureOr<Value>
mlir::llm::detail::buildAMXBF16Matmul(OpBuilder &b, Location loc, Value a,
                                      ArrayRef<float> weight, bool nk,
                                      int64_t N, RankedTensorType resultType) {
  auto at = cast<RankedTensorType>(a.getType());
  Type et = at.getElementType();
  if (at.getRank() < 2 || !at.hasStaticShape() ||
      resultType.getRank() != at.getRank() || !(et.isF32() || et.isBF16()))
    return failure();
  int64_t K = at.getShape().back();
  if (K == 0 || N < kLanes || static_cast<int64_t>(weight.size()) != K * N)
    return failure();
  int64_t M = at.getNumElements() / K;
  if (M < kAMXBlockRows)
    return failure();
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  AMXTiles tiles;
  tiles.elem = bf16;
  tiles.acc = f32;
  tiles.depth = 2;
  tiles.M = M;
  tiles.Kp = static_cast<int64_t>(llvm::alignTo(K, kTileRowBytes / 2));
  tiles.Np = static_cast<int64_t>(llvm::alignTo(N, kPanelColumns));
  tiles.N = N;

  // The weight rounded to bf16 (nearest even) in AMX's pair layout.
  std::vector<float> packed = packAMXWeight<float>(
      K, N, tiles.Kp, tiles.depth,
      [&](int64_t k, int64_t n) { return weight[nk ? n * K + k : k * N + n]; });
  auto packedType = RankedTensorType::get(
      {tiles.Np * tiles.Kp / (tiles.depth * kPanelColumns),
       tiles.depth * kPanelColumns},
      bf16);
  Value w = arith::ConstantOp::create(b, loc,
                                      getFloatElementsAttr(packedType, packed));
  // The tiles load from memory: the packed weight's buffer (read-only).
  tiles.weight = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(packedType.getShape(), bf16), w,
      /*read_only=*/true);

  // aBuf[r, k] = bf16(a[m, k]) (nearest even; 0 past K).
  Value a2 = collapseRows(b, loc, a);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
  auto fillRow = [&](OpBuilder &rb, Location l, Value m, Value row,
                     Value aBuf) {
    copyRowChunks(rb, l, a2, padding, K, tiles.Kp, m, row, aBuf);
  };
  tiles.fillRow = fillRow;
  // C += A B in f32 (tdpbf16ps).
  auto multiply = [](OpBuilder &kb, Location l, Value x, Value y, Value c) {
    return amx::TileMulFOp::create(kb, l, c.getType(), x, y, c).getResult();
  };
  tiles.multiply = multiply;
  auto finish = [](OpBuilder &, Location, Value v, Value, Value) { return v; };
  tiles.finish = finish;
  scf::ForallOp forall = buildAMXTileLoops(b, loc, tiles);
  return finishAMXKernel(b, loc, forall, f32, resultType);
}

FailureOr<Value> mlir::llm::detail::buildAMXInt8Matmul(
    OpBuilder &b, Location loc, Value a, const QuantParams &pa, Value wq,
    const QuantParams &pb, RankedTensorType resultType) {
  auto at = cast<RankedTensorType>(a.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  if (!at.hasStaticShape() || !resultType.hasStaticShape() ||
      !wt.hasStaticShape() || wt.getRank() != 2 || wt.getDimSize(0) == 0 ||
      at.getNumElements() / wt.getDimSize(0) < kAMXBlockRows)
    return failure();
  FailureOr<Int8DotOperands> ops = prepareInt8Dot(b, loc, a, pa, wq, pb);
  if (failed(ops))
    return failure();
  Int8DotOperands operands = *ops;
  int64_t K = operands.K, N = operands.N;
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  AMXTiles tiles;
  tiles.elem = i8;
  tiles.acc = i32;
  tiles.depth = 4;
  tiles.M = operands.M;
  tiles.Kp = static_cast<int64_t>(llvm::alignTo(K, kTileRowBytes));
  tiles.Np = static_cast<int64_t>(llvm::alignTo(N, kPanelColumns));
  tiles.N = N;

  // b' (s8) in AMX's quad layout.
  std::vector<int8_t> packed = packAMXWeight<int8_t>(
      K, N, tiles.Kp, tiles.depth,
      [&](int64_t k, int64_t n) { return operands.weight[k * N + n]; });
  auto packedType = RankedTensorType::get(
      {tiles.Np * tiles.Kp / (tiles.depth * kPanelColumns),
       tiles.depth * kPanelColumns},
      i8);
  Value w = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          packedType,
          ArrayRef<char>(reinterpret_cast<const char *>(packed.data()),
                         packed.size())));
  tiles.weight = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(packedType.getShape(), i8), w,
      /*read_only=*/true);

  // aBuf[r, k] = a'[m, k] (0 past K: b' is 0 there too).
  Value pad8 = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  auto fillRow = [&](OpBuilder &rb, Location l, Value m, Value row,
                     Value aBuf) {
    copyRowChunks(rb, l, operands.a, pad8, K, tiles.Kp, m, row, aBuf);
  };
  tiles.fillRow = fillRow;
  // C += A B, u8 x s8 in i32 (tdpbusd).
  auto multiply = [](OpBuilder &kb, Location l, Value x, Value y, Value c) {
    return amx::TileMulIOp::create(kb, l, c.getType(), x, y, c,
                                   /*isZextLhs=*/true, /*isZextRhs=*/false)
        .getResult();
  };
  tiles.multiply = multiply;
  // acc - za' sum_k b' + K za' zb' - zb' sum_k a' (columns past N: 0).
  bool padded = tiles.Np != N;
  auto finish = [&](OpBuilder &wb, Location l, Value v, Value m, Value n) {
    return addInt8DotZeroPointTerms(wb, l, operands, v, m, n,
                                    /*inBounds=*/!padded);
  };
  tiles.finish = finish;
  scf::ForallOp forall = buildAMXTileLoops(b, loc, tiles);
  return finishAMXKernel(b, loc, forall, i32, resultType);
}
