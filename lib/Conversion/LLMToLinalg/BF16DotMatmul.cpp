//===- BF16DotMatmul.cpp - Matmul by a constant on bf16 dot products ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the kernel of `llm.matmul` by a constant weight on
// 2-way bf16 dot products (`dot_product = "bf16"` in the op's
// `llm.lowering_config`; AVX512-BF16 `vdpbf16ps` on x86): bf16 models, and
// f32 models whose matmul inputs are demoted to bf16 (the CPU pipeline's
// `demote-contraction-inputs=bf16`). See buildBF16DotMatmul in
// QuantKernels.h.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

using namespace mlir;
using namespace mlir::llm;

/// f32 lanes of one accumulator (a zmm register).
static constexpr int64_t kLanes = 16;
/// Elements of K per dot product (two bf16 per f32 lane).
static constexpr int64_t kDepth = 2;
/// Accumulators of one register tile: 24 of the 32 zmm registers, beside the
/// tile's (at most 4) weight vectors and one broadcast of A.
static constexpr int64_t kAccumulators = 24;
/// Most output columns of one block of the parallel loop.
static constexpr int64_t kBlockColumns = 128;
/// Most rows whose producers (a norm prologue) each block recomputes: the
/// CPU pipeline's default norm-prologue-max-rows is 8.
static constexpr int64_t kMaxProducerFusionRows = 16;

FailureOr<Value>
mlir::llm::detail::buildBF16DotMatmul(OpBuilder &b, Location loc, Value a,
                                      ArrayRef<float> weight, bool nk,
                                      int64_t N, RankedTensorType resultType) {
  auto at = cast<RankedTensorType>(a.getType());
  if (at.getRank() < 2 || ShapedType::isDynamic(at.getShape().back()) ||
      resultType.getRank() != at.getRank())
    return failure();
  int64_t K = at.getShape().back();
  if (K == 0 || N < kLanes || static_cast<int64_t>(weight.size()) != K * N)
    return failure();
  // M: the rows (all dimensions but K); dynamic with a dynamic sequence.
  int64_t M =
      at.hasStaticShape() ? at.getNumElements() / K : ShapedType::kDynamic;
  if (M == 0)
    return failure();
  bool dynamicRows = ShapedType::isDynamic(M);
  // N not a multiple of 16 (GPT-2's 50257-wide LM head): the weight is
  // packed with zero columns up to Np and the kernel computes whole register
  // tiles over Np columns (the padding's dot products are wasted work,
  // under 16 columns); the last block writes only its columns below N
  // (masked vector writes), so that the result is [M, N].
  int64_t Np = llvm::alignTo(N, kLanes);
  bool padded = Np != N;

  // Register tile: H vectors of 16 columns (nr = 16 H) by mr rows; few rows
  // (decode) take wider tiles.
  int64_t H = Np % (2 * kLanes) ? 1 : 2;
  if (!dynamicRows && M < 4 && Np % (4 * kLanes) == 0)
    H = 4;
  int64_t nr = H * kLanes;
  int64_t mr = std::min<int64_t>(kAccumulators / H, 16);
  if (!dynamicRows)
    mr = std::min(M, mr);
  // Pairs of K (an odd K ends with a zero-padded pair).
  int64_t Kh = (K + kDepth - 1) / kDepth;
  // Blocks of the parallel loop: up to kBlockColumns output columns of
  // whole register tiles, as the 8-bit kernel's.
  int64_t nb = detail::getDotBlockColumns(Np, nr, kBlockColumns);

  // The weight rounded to bf16 and packed [Np / nr, Kh * nr * 2]: register
  // tile column j, pair q, column c of the tile, element t -> w[2q + t,
  // j nr + c] (0 past K and past N).
  std::vector<float> packed(Np * Kh * kDepth, 0.0f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t j = n / nr, c = n % nr, q = k / kDepth, t = k % kDepth;
      packed[j * Kh * nr * kDepth + (q * nr + c) * kDepth + t] =
          weight[nk ? n * K + k : k * N + n];
    }
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  Value w = arith::ConstantOp::create(
      b, loc,
      getFloatElementsAttr(
          RankedTensorType::get({Np / nr, Kh * nr * kDepth}, bf16), packed));

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };

  // a as [M, K]: bf16 activations are read as they are; f32 ones are
  // rounded to bf16 (nearest even) one row tile at a time inside the kernel
  // (into a [rows, 2 Kh] scratch, the pad of an odd K zero), so that the
  // rounding is no kernel of its own: each block rounds the rows it reads,
  // 1 / nb of its dot products' work.
  Value a2 = collapseRows(b, loc, a);
  bool roundRows = at.getElementType().isF32();

  auto accType = VectorType::get({kLanes}, f32);
  auto chunkF32 = VectorType::get({kLanes}, f32);
  auto chunkBF16 = VectorType::get({kLanes}, bf16);
  Value padF32 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  // The last pair of an odd K reads one element past a bf16 row (masked, 0);
  // the rounded scratch rows have the zero pair.
  bool pairsInBounds = roundRows || K % kDepth == 0;

  OpBuilder::InsertionGuard guard(b);
  // The number of rows as a value (a dynamic sequence: tensor.dim).
  OpFoldResult rowsOfr =
      dynamicRows
          ? OpFoldResult(tensor::DimOp::create(b, loc, a2, 0).getResult())
          : ofr(M);
  Value out = tensor::EmptyOp::create(
      b, loc, SmallVector<OpFoldResult>{rowsOfr, ofr(N)}, f32);
  auto forall = detail::createBlockLoop(b, loc, Np / nb, out);
  b.setInsertionPointToStart(forall.getBody());
  Value nb0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nb));

  // acc += a[2q] w[2q] + a[2q + 1] w[2q + 1] per lane (vdpbf16ps).
  auto dot = [&](OpBuilder &kb, Location l, Value acc, Value av, Value wv) {
    return x86vector::DotBF16Op::create(kb, l, acc, av, wv).getResult();
  };

  // One register tile of `rows` rows (rows r0.. of `src`), columns nOff.. of
  // the block (register tile column j of the packed weight), output rows
  // m0..: the accumulators over the pairs of K, written into `tile`.
  auto rowTile = [&](OpBuilder &rb, Value j, Value nOff, Value src, Value r0,
                     Value m0, int64_t rows, Value tile) {
    detail::DotRegisterTile dotTile{w, src, Kh, H, kDepth, pairsInBounds, dot};
    SmallVector<Value> steps =
        detail::buildDotRegisterTile(rb, loc, dotTile, j, r0, rows, zeroAcc);
    for (int64_t h = 0; h < H; ++h) {
      Value col = arith::AddIOp::create(rb, loc, nOff, idx(rb, h * kLanes));
      for (int64_t r = 0; r < rows; ++r) {
        Value m = arith::AddIOp::create(rb, loc, m0, idx(rb, r));
        tile = vector::TransferWriteOp::create(rb, loc, steps[r * H + h], tile,
                                               ValueRange{m, col},
                                               ArrayRef<bool>{!padded})
                   .getResult();
      }
    }
    return tile;
  };

  // Rows m0 .. m0 + rows of the block: the activation rows (rounded into a
  // scratch for f32), then each register tile column of the block over
  // them.
  auto rowBlock = [&](OpBuilder &rb, Value m0, int64_t rows, Value tile) {
    Value src = a2, r0 = m0;
    if (roundRows) {
      // scratch[r, k] = bf16(a[m0 + r, k]), 16 at a time; the reads past K
      // are 0 (masked), the writes past 2 Kh dropped (masked).
      Value scratch = tensor::EmptyOp::create(
          rb, loc, ArrayRef<int64_t>{rows, Kh * kDepth}, bf16);
      for (int64_t r = 0; r < rows; ++r) {
        Value m = arith::AddIOp::create(rb, loc, m0, idx(rb, r));
        Value row = idx(rb, r);
        auto chunks = scf::ForOp::create(
            rb, loc, idx(rb, 0), idx(rb, Kh * kDepth), idx(rb, kLanes),
            ValueRange{scratch},
            [&](OpBuilder &kb, Location l, Value k, ValueRange sc) {
              Value v = vector::TransferReadOp::create(
                  kb, l, chunkF32, a2, ValueRange{m, k}, padF32,
                  ArrayRef<bool>{K % kLanes == 0});
              Value rounded = arith::TruncFOp::create(kb, l, chunkBF16, v);
              scf::YieldOp::create(
                  kb, l,
                  vector::TransferWriteOp::create(
                      kb, l, rounded, sc[0], ValueRange{row, k},
                      ArrayRef<bool>{(Kh * kDepth) % kLanes == 0})
                      .getResult());
            });
        scratch = chunks.getResult(0);
      }
      src = scratch;
      r0 = idx(rb, 0);
    }
    auto columns = scf::ForOp::create(
        rb, loc, idx(rb, 0), idx(rb, nb), idx(rb, nr), ValueRange{tile},
        [&](OpBuilder &cb, Location, Value nOff, ValueRange t) {
          Value n0 = arith::AddIOp::create(cb, loc, nb0, nOff);
          Value j = arith::DivUIOp::create(cb, loc, n0, idx(cb, nr));
          scf::YieldOp::create(cb, loc,
                               rowTile(cb, j, nOff, src, r0, m0, rows, t[0]));
        });
    return columns.getResult(0);
  };

  // The block's columns of the output, written in place, one row tile at a
  // time: nb, or min(nb, N - nb0) with padded columns (only the last block
  // has fewer; its writes past N are masked off).
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  OpFoldResult width = ofr(nb);
  if (padded)
    width =
        arith::MinSIOp::create(b, loc, idx(b, nb),
                               arith::SubIOp::create(b, loc, idx(b, N), nb0))
            .getResult();
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{rowsOfr, width}, unit);
  tile = detail::buildRowTileLoops(b, loc, rowsOfr, mr, tile, rowBlock);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{rowsOfr, width}, unit);
  b.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  // Elementwise consumers (the bias, the activation, the residual, the
  // rounding of a bf16 result) are fused into the block loop by
  // llm-tile-and-vectorize (over the block's width, dynamic when padded).
  forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  // Each block reads all M rows of `a`: with few rows (a decode step) a
  // norm prologue in the matmul's fusion group is recomputed per block by
  // llm-tile-and-vectorize (M x K work beside the block's M x K x nb dot
  // products) instead of running as a kernel of its own (true); with more
  // rows it runs before the kernel as one loop nest (false).
  forall->setAttr(kFuseProducersAttr,
                  b.getBoolAttr(!dynamicRows && M <= kMaxProducerFusionRows));
  return expandRows(b, loc, result, resultType.clone(b.getF32Type()));
}

FailureOr<Value> mlir::llm::detail::lowerBF16DotMatmul(OpBuilder &b,
                                                       MatmulOp op, Value lhs) {
  bool amx = getConfiguredAMXBF16DotProduct(op).value_or(false);
  if (!(amx || getConfiguredBF16DotProduct(op).value_or(false)) ||
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
  if (amx)
    if (FailureOr<Value> tiles =
            buildAMXBF16Matmul(b, op.getLoc(), lhs, *values, nk, n, resultType);
        succeeded(tiles))
      return tiles;
  // bf16 dot products; also the rows the AMX kernel does not take (a
  // configuration written for other shapes, dynamic rows): every AMX-BF16
  // CPU has AVX512-BF16.
  return buildBF16DotMatmul(b, op.getLoc(), lhs, *values, nk, n, resultType);
}
