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
// `llm.lowering_config`): prefill matmuls of bf16 models, and of f32 models
// whose matmul inputs are demoted to bf16. See buildAMXBF16Matmul in
// QuantKernels.h.
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

/// Rows of a tile; f32 columns of an accumulator tile (64 bytes a row, the
/// most a tile row holds).
static constexpr int64_t kTileRows = 16;
static constexpr int64_t kTileColumns = 16;
/// bf16 elements of K in a row of an A tile (64 bytes): one `tdpbf16ps`
/// takes 16 pairs of K.
static constexpr int64_t kTileDepth = 32;
/// Columns of a weight panel: the two accumulator tiles of a 2 x 2 register
/// block (32 rows, kAMXBlockRows, by 32 columns), which with its two A tiles
/// and two B tiles uses the 8 tile registers.
static constexpr int64_t kPanelColumns = 2 * kTileColumns;
/// Most output columns of one block of the parallel loop.
static constexpr int64_t kBlockColumns = 128;
/// f32 lanes of one vector (the copies into and out of the tiles' buffers).
static constexpr int64_t kLanes = 16;

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
  // N up to whole panels, K up to whole A tile rows, both with zeros (the
  // padding's products are 0; the padded columns are sliced off).
  int64_t Np = static_cast<int64_t>(llvm::alignTo(N, kPanelColumns));
  int64_t Kp = static_cast<int64_t>(llvm::alignTo(K, kTileDepth));
  int64_t Kh = Kp / 2;
  int64_t panels = Np / kPanelColumns;

  // The weight rounded to bf16 and packed in AMX's pair layout, one panel
  // after the other: [panels * Kh, 2 * kPanelColumns], row j Kh + q, element
  // 2 c + t = w[2 q + t, 32 j + c] (0 past K and past N). A B tile is 16
  // rows (pairs of K) of 32 bf16 (16 columns x 2) of one panel.
  std::vector<float> packed(Np * Kp, 0.0f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t j = n / kPanelColumns, c = n % kPanelColumns;
      packed[(j * Kh + k / 2) * 2 * kPanelColumns + 2 * c + k % 2] =
          weight[nk ? n * K + k : k * N + n];
    }
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto packedType =
      RankedTensorType::get({panels * Kh, 2 * kPanelColumns}, bf16);
  Value w = arith::ConstantOp::create(b, loc,
                                      getFloatElementsAttr(packedType, packed));
  // The tiles load from memory: the packed weight's buffer (read-only).
  Value wBuf = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(packedType.getShape(), bf16), w,
      /*read_only=*/true);

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value a2 = collapseRows(b, loc, a);
  auto chunkType = VectorType::get({kLanes}, et);
  auto chunkBF16 = VectorType::get({kLanes}, bf16);
  auto chunkF32 = VectorType::get({kLanes}, f32);
  auto aTileType = amx::TileType::get({kTileRows, kTileDepth}, bf16);
  auto cTileType = amx::TileType::get({kTileRows, kTileColumns}, f32);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
  Value zeroChunk = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(chunkBF16, b.getZeroAttr(bf16)));
  int64_t nb = detail::getDotBlockColumns(Np, kPanelColumns, kBlockColumns);

  OpBuilder::InsertionGuard guard(b);
  Value out = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, Np}, f32);
  auto forall =
      scf::ForallOp::create(b, loc, SmallVector<OpFoldResult>{ofr(Np / nb)},
                            ValueRange{out}, std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  Value nb0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nb));
  // The block's buffers: its row block of A rounded to bf16 ([32, Kp], the
  // rows past M zero) and the 2 x 2 accumulator tiles stored back ([32,
  // 32] f32); llm-promote-tile-scratch puts them on the stack.
  Value aBuf = memref::AllocOp::create(
      b, loc, MemRefType::get({kAMXBlockRows, Kp}, bf16));
  Value cBuf = memref::AllocOp::create(
      b, loc, MemRefType::get({kAMXBlockRows, kPanelColumns}, f32));
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(M), ofr(nb)}, unit);

  // Row block m0 .. m0 + 32 (its `valid` rows below M) of the block.
  auto rowBlock = [&](OpBuilder &rb, Location l, Value m0, ValueRange iter) {
    Value valid =
        arith::MinSIOp::create(rb, l, idx(rb, kAMXBlockRows),
                               arith::SubIOp::create(rb, l, idx(rb, M), m0));
    // aBuf[r, k] = bf16(a[m0 + r, k]) (nearest even; 0 past K and for the
    // rows past M), 16 at a time.
    scf::ForOp::create(
        rb, l, idx(rb, 0), idx(rb, kAMXBlockRows), idx(rb, 1), ValueRange{},
        [&](OpBuilder &r, Location rl, Value row, ValueRange) {
          Value inRows = arith::CmpIOp::create(r, rl, arith::CmpIPredicate::slt,
                                               row, valid);
          scf::IfOp::create(
              r, rl, inRows,
              [&](OpBuilder &t, Location tl) {
                Value m = arith::AddIOp::create(t, tl, m0, row);
                scf::ForOp::create(
                    t, tl, idx(t, 0), idx(t, Kp), idx(t, kLanes), ValueRange{},
                    [&](OpBuilder &kb, Location kl, Value k, ValueRange) {
                      Value v = vector::TransferReadOp::create(
                          kb, kl, chunkType, a2, ValueRange{m, k}, padding,
                          ArrayRef<bool>{K % kLanes == 0 && Kp == K});
                      if (!et.isBF16())
                        v = arith::TruncFOp::create(kb, kl, chunkBF16, v);
                      vector::StoreOp::create(kb, kl, v, aBuf,
                                              ValueRange{row, k});
                      scf::YieldOp::create(kb, kl);
                    });
                scf::YieldOp::create(t, tl);
              },
              [&](OpBuilder &t, Location tl) {
                scf::ForOp::create(
                    t, tl, idx(t, 0), idx(t, Kp), idx(t, kLanes), ValueRange{},
                    [&](OpBuilder &kb, Location kl, Value k, ValueRange) {
                      vector::StoreOp::create(kb, kl, zeroChunk, aBuf,
                                              ValueRange{row, k});
                      scf::YieldOp::create(kb, kl);
                    });
                scf::YieldOp::create(t, tl);
              });
          scf::YieldOp::create(r, rl);
        });

    // Each panel of the block: the 2 x 2 accumulator tiles over K, 32 at a
    // time: C[i][h] += A_i (rows 16 i.., K k0..k0 + 32) x B_h (pairs k0 / 2
    // .. + 16, columns 16 h.. of the panel), tdpbf16ps.
    auto panelLoop = scf::ForOp::create(
        rb, l, idx(rb, 0), idx(rb, nb), idx(rb, kPanelColumns), iter,
        [&](OpBuilder &pb, Location pl, Value p, ValueRange pIter) {
          Value j = arith::DivUIOp::create(
              pb, pl, arith::AddIOp::create(pb, pl, nb0, p),
              idx(pb, kPanelColumns));
          Value panelRow = arith::MulIOp::create(pb, pl, j, idx(pb, Kh));
          Value zero = amx::TileZeroOp::create(pb, pl, cTileType);
          auto kLoop = scf::ForOp::create(
              pb, pl, idx(pb, 0), idx(pb, Kp), idx(pb, kTileDepth),
              ValueRange{zero, zero, zero, zero},
              [&](OpBuilder &kb, Location kl, Value k0, ValueRange acc) {
                Value q = arith::AddIOp::create(
                    kb, kl, panelRow,
                    arith::DivUIOp::create(kb, kl, k0, idx(kb, 2)));
                Value aTiles[2], bTiles[2];
                for (int64_t i = 0; i < 2; ++i)
                  aTiles[i] = amx::TileLoadOp::create(
                      kb, kl, aTileType, aBuf,
                      ValueRange{idx(kb, i * kTileRows), k0}, Value());
                for (int64_t h = 0; h < 2; ++h)
                  bTiles[h] = amx::TileLoadOp::create(
                      kb, kl, aTileType, wBuf,
                      ValueRange{q, idx(kb, h * 2 * kTileColumns)}, Value());
                SmallVector<Value> next;
                for (int64_t i = 0; i < 2; ++i)
                  for (int64_t h = 0; h < 2; ++h)
                    next.push_back(amx::TileMulFOp::create(kb, kl, cTileType,
                                                           aTiles[i], bTiles[h],
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
              [&](OpBuilder &wb, Location wl, Value r, ValueRange t) {
                Value m = arith::AddIOp::create(wb, wl, m0, r);
                Value acc = t[0];
                for (int64_t h = 0; h < 2; ++h) {
                  Value v = vector::LoadOp::create(
                      wb, wl, chunkF32, cBuf,
                      ValueRange{r, idx(wb, h * kTileColumns)});
                  Value col = arith::AddIOp::create(wb, wl, p,
                                                    idx(wb, h * kTileColumns));
                  acc = vector::TransferWriteOp::create(wb, wl, v, acc,
                                                        ValueRange{m, col},
                                                        ArrayRef<bool>{true})
                            .getResult();
                }
                scf::YieldOp::create(wb, wl, acc);
              });
          scf::YieldOp::create(pb, pl, rows.getResults());
        });
    scf::YieldOp::create(rb, l, panelLoop.getResults());
  };
  auto rowLoop =
      scf::ForOp::create(b, loc, idx(b, 0), idx(b, M), idx(b, kAMXBlockRows),
                         ValueRange{tile}, rowBlock);
  tile = rowLoop.getResult(0);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(M), ofr(nb)}, unit);
  b.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (Np != N) {
    // The padded columns dropped; elementwise consumers then run as loops
    // of their own.
    result = tensor::ExtractSliceOp::create(
        b, loc, result, SmallVector<OpFoldResult>{ofr(0), ofr(0)},
        SmallVector<OpFoldResult>{ofr(M), ofr(N)}, unit);
  } else {
    // Elementwise consumers (the bias, the activation, the residual) are
    // fused into the block loop by llm-tile-and-vectorize.
    forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  }
  // A prefill's norm prologue runs before the kernel as one loop nest.
  forall->setAttr(kFuseProducersAttr, b.getBoolAttr(false));
  return expandRows(b, loc, result, resultType.clone(f32));
}

FailureOr<Value> mlir::llm::detail::lowerAMXBF16Matmul(OpBuilder &b,
                                                       MatmulOp op, Value lhs) {
  if (!getConfiguredAMXBF16DotProduct(op).value_or(false) ||
      !isBF16DotMatmul(op, /*demoteF32=*/true))
    return failure();
  auto cst = op.getRhs().getDefiningOp<ConstantOp>();
  std::optional<std::vector<float>> values = readFloatValues(cst.getValue());
  if (!values)
    return failure();
  RankedTensorType rt = op.getRhs().getType();
  bool nk = op.getTransposeB();
  int64_t n = rt.getDimSize(nk ? 0 : 1);
  auto resultType = cast<RankedTensorType>(op.getType());
  FailureOr<Value> amx =
      buildAMXBF16Matmul(b, op.getLoc(), lhs, *values, nk, n, resultType);
  if (succeeded(amx))
    return amx;
  // Rows the AMX kernel does not take (a configuration written for other
  // shapes, dynamic rows): the bf16 dot products, which every AMX-BF16 CPU
  // has (AVX512-BF16).
  return buildBF16DotMatmul(b, op.getLoc(), lhs, *values, nk, n, resultType);
}
