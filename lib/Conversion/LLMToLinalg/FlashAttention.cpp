//===- FlashAttention.cpp - llm.attention as one tiled loop nest ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the flash-attention lowering of `llm.attention`
// (FlashAttention, Dao et al. 2022, arXiv:2205.14135; online softmax,
// Milakov & Gimelshein 2018, arXiv:1805.02867) to one loop nest of linalg
// ops on tiles:
//
//   scf.forall (b, h, t) in (B, Hq, ceil(Sq / Tq)) {   // query tile t
//     m = -inf, l = 0, acc = 0                          // [Tq], [Tq], [Tq, Dv]
//     scf.for j in [0, nkv) {                           // key/value tile j
//       s     = Q_t K_j^T                               // [Tq, Tk] matmul
//                                                       // (K_j^T copied first)
//       x     = cap(scale * s) (+ mask | mask ? : e or -inf),
//               excluded -> -inf     (cap: softcap c * tanh(. / c), or none)
//       m'    = max(m, rowmax(x))
//       p     = exp(x - m'), alpha = exp(m - m')
//       l     = l * alpha + rowsum(p)
//       acc   = acc * alpha + p V_j                     // linalg.matmul
//       m     = m'
//     }
//     out[b, h, rows of t] = l == 0 ? 0 : acc / l
//   }
//
// Every tile has a static shape: a last tile that is not full is shifted
// back so that it ends at the sequence end; the key columns it shares with
// the previous tile are excluded (-inf) and the query rows it shares are not
// stored. With `causal`, the key/value loop stops after the last tile that
// holds an allowed column for the query tile. All arithmetic is f32; f16/bf16
// inputs are extended inside the bodies and the result is rounded once.
//
// `kv_length` L (clamped to [0, Skv] at run time): the key/value loop runs
// to ceil(L / Tk) (with `causal`, at most to the causal limit computed from
// L), and the columns >= L of the last tile are excluded; L = 0 visits no
// tile (zeros).
//
// `excluded_score` e: the columns an i1 mask excludes score e instead of
// -inf (every other exclusion stays -inf), so a row the mask excludes
// entirely weighs its remaining columns equally, as the online softmax of
// finite scores does.
//
// A dynamic (`?`) query or key/value sequence length: the tiles keep their
// static shapes [Tq, ...] / [Tk, ...], the number of query tiles
// ceil(Sq / Tq) and of key/value tiles are computed at run time, and a tile
// at the end of a dynamic sequence is copied into a zero-filled tile of the
// static shape (the shifted-back tile needs Sq >= Tq, which a dynamic Sq,
// e.g. Sq = 1, does not guarantee): its query rows beyond Sq are not stored
// and its key columns beyond Skv are excluded.
//
// `padded_head_dims` [D', Dv'] in the op's lowering configuration: Q_t and
// K_j are zero-padded to D' columns (Q_t K_j^T unchanged), V_j and acc to
// Dv' (the extra columns of acc stay 0 and are not stored), so that each
// row is whole vectors of the target (`tensor.pad`, one masked read per
// row in llm-tile-and-vectorize).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;
using mlir::llm::detail::extToF32;
using mlir::llm::detail::f32Const;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

Value negInf(OpBuilder &b, Location loc) {
  return arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(b.getF32Type(),
                     APFloat::getInf(APFloat::IEEEsingle(), true)));
}

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `tensor.empty` of `shape` x f32 filled with `value`.
Value filledF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

/// A `linalg.generic` with one result written into `init` through `outMap`;
/// `fn` gets the block arguments (inputs extended to f32, then the output)
/// and returns the value to yield.
Value generic(OpBuilder &b, Location loc, ValueRange inputs,
              ArrayRef<AffineMap> inputMaps, AffineMap outMap,
              ArrayRef<utils::IteratorType> iterators, Value init, BodyFn fn) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outMap);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> vals;
               for (auto [i, a] : llvm::enumerate(args))
                 vals.push_back(i < inputs.size() ? extToF32(nb, nl, a) : a);
               linalg::YieldOp::create(nb, nl, fn(nb, nl, vals));
             })
      .getResult(0);
}

/// `m == -inf ? 0 : m`: the shift of a row whose columns are all excluded so
/// far (exp(-inf - -inf) would be NaN; exp(-inf - 0) is 0).
Value safeMax(OpBuilder &b, Location loc, Value m) {
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                                         negInf(b, loc));
  return arith::SelectOp::create(b, loc, isNegInf, f32Const(b, loc, 0.0), m);
}

/// `max(0, min(v, hi))` for index values.
Value clampIndex(OpBuilder &b, Location loc, Value v, Value hi) {
  return arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, v, hi),
                                idx(b, loc, 0));
}

/// The reason the flash lowering refuses `op`, or an empty string.
std::string flashRefusal(AttentionOp op) {
  bool bshd = op.getLayout() == AttentionLayout::BSHD;
  unsigned seqDim = bshd ? 1 : 2;
  for (Value operand : {op.getQuery(), op.getKey(), op.getValue()}) {
    auto t = cast<RankedTensorType>(operand.getType());
    for (int64_t d = 0; d < 4; ++d)
      if (d != seqDim && t.isDynamicDim(d))
        return "a dynamic dimension other than the sequence length";
  }
  auto qt = cast<RankedTensorType>(op.getQuery().getType());
  auto kt = cast<RankedTensorType>(op.getKey().getType());
  if (Value mask = op.getMask()) {
    // Mask dimensions [.., Sq, Skv] (leading ones may be missing): only
    // those two may be dynamic (the sequence); their tiles are read with
    // clamped indices (maskTile).
    auto mt = cast<RankedTensorType>(mask.getType());
    int64_t rank = mt.getRank();
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (mt.isDynamicDim(d))
        return "a mask with a dynamic batch or head dimension";
  }
  for (int64_t d : {qt.getDimSize(0), qt.getDimSize(bshd ? 2 : 1),
                    qt.getDimSize(seqDim), kt.getDimSize(seqDim)})
    if (d == 0)
      return "empty attention";
  return "";
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

// llm.attention q[B,Hq,Sq,D], k[B,Hkv,Skv,D], v[B,Hkv,Skv,Dv] (mask, causal,
// scale; layout bshd: q[B,Sq,Hq,D], ... read as strided tiles) -> scf.forall
// (b, h, query tile) { scf.for key/value tile { online softmax step on [Tq, Tk]
// tiles } } (see the file header).
struct FlashAttentionLowering : OpConversionPattern<AttentionOp> {
  FlashAttentionLowering(MLIRContext *ctx, int64_t queryTile, int64_t keyTile)
      : OpConversionPattern<AttentionOp>(ctx), queryTile(queryTile),
        keyTile(keyTile) {}

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::string why = flashRefusal(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    // The op's lowering configuration (attention_tile) wins over the
    // pattern's default tile.
    int64_t queryTile = this->queryTile, keyTile = this->keyTile;
    if (std::optional<std::array<int64_t, 2>> tile =
            getConfiguredAttentionTile(op)) {
      queryTile = (*tile)[0];
      keyTile = (*tile)[1];
    }
    if (queryTile <= 0 || keyTile <= 0)
      return rewriter.notifyMatchFailure(op, "tile sizes must be positive");
    bool stageValues = getConfiguredStageValues(op).value_or(false);

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value mask = adaptor.getMask(), kvLength = adaptor.getKvLength();
    auto qt = cast<RankedTensorType>(q.getType());
    auto kt = cast<RankedTensorType>(k.getType());
    auto vt = cast<RankedTensorType>(v.getType());
    auto type = cast<RankedTensorType>(op.getResult().getType());
    Type et = type.getElementType();
    Type f32 = rewriter.getF32Type();
    // Layout bshd swaps the head and sequence dimensions of q, k, v and the
    // result: the tiles are then read and written with a row stride of H * D.
    bool bshd = op.getLayout() == AttentionLayout::BSHD;
    unsigned headDim = bshd ? 2 : 1, seqDim = bshd ? 1 : 2;
    int64_t bsz = qt.getDimSize(0), hq = qt.getDimSize(headDim),
            sq = qt.getDimSize(seqDim), dh = qt.getDimSize(3);
    int64_t hkv = kt.getDimSize(headDim), skv = kt.getDimSize(seqDim),
            dv = vt.getDimSize(3);
    bool dynQ = ShapedType::isDynamic(sq), dynK = ShapedType::isDynamic(skv);
    // padded_head_dims [D', Dv']: the query and key tiles are zero-padded
    // to D' columns (the scores are unchanged), the value tiles and the
    // accumulator to Dv' (the extra columns stay 0 and are not stored).
    int64_t dhPadded = dh, dvPadded = dv;
    if (std::optional<std::array<int64_t, 2>> dims =
            getConfiguredPaddedHeadDims(op)) {
      if ((*dims)[0] < dh || (*dims)[1] < dv)
        return rewriter.notifyMatchFailure(op, "padded head dims too small");
      dhPadded = (*dims)[0];
      dvPadded = (*dims)[1];
    }
    int64_t group = hq / hkv;
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(double(dh));
    bool causal = op.getCausal();
    std::optional<APFloat> excludedScore = op.getExcludedScore();

    // Static tile sizes, clamped to the static sequences.
    int64_t tq = dynQ ? queryTile : std::min(queryTile, sq);
    int64_t tk = dynK ? keyTile : std::min(keyTile, skv);
    // Shifted-back last tiles (static sequences only).
    bool partialQ = !dynQ && sq % tq != 0, partialK = !dynK && skv % tk != 0;

    // Run-time sizes: Sq, Skv where dynamic, and the valid key/value length
    // Lc = clamp(L, 0, Skv) with kv_length (else Skv, when dynamic).
    // Every `?` of a function is its one sequence length (DimBounds.h):
    // read it from the function's argument when there is one, so that the
    // sizes are the ones the memory plan bounds.
    Value sqV, skvV, lenV;
    if (dynQ || dynK) {
      Value seq = getSequenceLength(rewriter, loc);
      if (dynQ)
        sqV = seq ? seq : tensor::DimOp::create(rewriter, loc, q, seqDim);
      if (dynK)
        skvV = seq ? seq : tensor::DimOp::create(rewriter, loc, k, seqDim);
    }
    if (kvLength) {
      Value l =
          tensor::ExtractOp::create(rewriter, loc, kvLength, ValueRange{});
      l = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), l);
      lenV =
          clampIndex(rewriter, loc, l, dynK ? skvV : idx(rewriter, loc, skv));
    } else if (dynK) {
      lenV = skvV;
    }
    auto sizeOrConst = [&](Value v, int64_t c) {
      return v ? v : idx(rewriter, loc, c);
    };
    // Causal offset Lc - Sq of query row i's last column: static without
    // kv_length and dynamic sequences.
    Value causalOffset;
    if (causal && (lenV || dynQ))
      causalOffset = arith::SubIOp::create(
          rewriter, loc, sizeOrConst(lenV, skv), sizeOrConst(sqV, sq));
    OpFoldResult numQTiles =
        dynQ ? OpFoldResult(arith::CeilDivSIOp::create(rewriter, loc, sqV,
                                                       idx(rewriter, loc, tq))
                                .getResult())
             : OpFoldResult(rewriter.getIndexAttr(llvm::divideCeil(sq, tq)));
    // Key/value tiles: ceil(Lc / Tk) at run time, else all of them.
    Value numKTilesV;
    if (lenV)
      numKTilesV = arith::CeilDivSIOp::create(rewriter, loc, lenV,
                                              idx(rewriter, loc, tk));

    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    AffineExpr d0, d1, d2;
    bindDims(ctx, d0, d1, d2);
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap row2 = AffineMap::get(2, 0, {d0}, ctx); // (i, j) -> (i)

    Value outInit =
        dynQ ? tensor::EmptyOp::create(rewriter, loc, type.getShape(), et,
                                       ValueRange{sqV})
                   .getResult()
             : tensor::EmptyOp::create(rewriter, loc, type.getShape(), et)
                   .getResult();
    // kv_splits (flash-decoding): one query tile covering the whole static
    // query sequence visits its key/value tiles in `splits` parts, each an
    // iteration of the forall, which stores its part's unnormalized (m, l,
    // acc); a combine after the forall weighs them (combineSplits).
    int64_t numKTiles = dynK ? 0 : llvm::divideCeil(skv, tk);
    int64_t splits = getConfiguredKvSplits(op).value_or(1);
    if (dynQ || dynK || tq != sq || numKTiles < 2)
      splits = 1;
    splits = std::min(splits, numKTiles);
    int64_t chunk = splits > 1 ? llvm::divideCeil(numKTiles, splits) : 0;
    if (splits > 1)
      splits = llvm::divideCeil(numKTiles, chunk); // No empty last part.
    SmallVector<OpFoldResult> ubs{rewriter.getIndexAttr(bsz),
                                  rewriter.getIndexAttr(hq), numQTiles};
    SmallVector<Value> outs{outInit};
    if (splits > 1) {
      ubs.push_back(rewriter.getIndexAttr(splits));
      outs = {
          tensor::EmptyOp::create(rewriter, loc, {bsz, hq, splits, tq}, f32),
          tensor::EmptyOp::create(rewriter, loc, {bsz, hq, splits, tq}, f32),
          tensor::EmptyOp::create(rewriter, loc, {bsz, hq, splits, tq, dv},
                                  f32)};
    }
    auto forall = scf::ForallOp::create(rewriter, loc, ubs, outs, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    OpBuilder &b = rewriter;
    Value bIv = forall.getInductionVar(0), hIv = forall.getInductionVar(1),
          tIv = forall.getInductionVar(2);
    Value pIv = splits > 1 ? forall.getInductionVar(3) : Value();
    Value outArg = forall.getRegionIterArgs()[0];

    // Query rows [qs, qs + tq): the nominal start t * tq, shifted back for a
    // partial last tile.
    Value qNominal = arith::MulIOp::create(b, loc, tIv, idx(b, loc, tq));
    Value qs = qNominal;
    if (partialQ)
      qs = arith::MinSIOp::create(b, loc, qNominal, idx(b, loc, sq - tq));
    // Key/value head of this query head.
    Value kvHead = group == 1 ? hIv
                              : arith::DivUIOp::create(b, loc, hIv,
                                                       idx(b, loc, group))
                                    .getResult();

    auto one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
    auto sliceRows = [&](Value src, Value batch, Value head, Value start,
                         int64_t rows, int64_t cols) -> Value {
      auto srcType = cast<RankedTensorType>(src.getType());
      auto tileType =
          RankedTensorType::get({rows, cols}, srcType.getElementType());
      SmallVector<OpFoldResult> offs{batch, head, start, zero};
      SmallVector<OpFoldResult> sizes{one, one, b.getIndexAttr(rows),
                                      b.getIndexAttr(cols)};
      if (bshd) {
        std::swap(offs[1], offs[2]);
        std::swap(sizes[1], sizes[2]);
      }
      SmallVector<OpFoldResult> strides(4, one);
      return tensor::ExtractSliceOp::create(b, loc, tileType, src, offs, sizes,
                                            strides);
    };
    // The `valid` (>= 1) leading rows of the [rows, cols] tile at `start`,
    // the others zero: a tile at the end of a dynamic sequence. One generic
    // reading the rows with tensor.extract (row index clamped to the last
    // valid one): no fill or copy of a shared zero tile that bufferization
    // would have to duplicate, and no runtime memrefCopy.
    auto paddedRows = [&](Value src, Value batch, Value head, Value start,
                          Value valid, int64_t rows, int64_t cols) -> Value {
      Type elemType = cast<RankedTensorType>(src.getType()).getElementType();
      Value empty = tensor::EmptyOp::create(b, loc, {rows, cols}, elemType);
      Value lastRow = arith::SubIOp::create(b, loc, valid, idx(b, loc, 1));
      return linalg::GenericOp::create(
                 b, loc, TypeRange{empty.getType()}, ValueRange{},
                 ValueRange{empty}, ArrayRef<AffineMap>{id2},
                 ArrayRef<utils::IteratorType>{par, par},
                 [&](OpBuilder &nb, Location nl, ValueRange) {
                   Value r = linalg::IndexOp::create(nb, nl, 0);
                   Value c = linalg::IndexOp::create(nb, nl, 1);
                   Value inRange = arith::CmpIOp::create(
                       nb, nl, arith::CmpIPredicate::slt, r, valid);
                   Value row = arith::AddIOp::create(
                       nb, nl, start,
                       arith::MinSIOp::create(nb, nl, r, lastRow));
                   SmallVector<Value> indices{batch, head, row, c};
                   if (bshd)
                     std::swap(indices[1], indices[2]);
                   Value x = tensor::ExtractOp::create(nb, nl, src, indices);
                   Value zeroElem = arith::ConstantOp::create(
                       nb, nl, cast<TypedAttr>(nb.getZeroAttr(elemType)));
                   linalg::YieldOp::create(nb, nl,
                                           ValueRange{arith::SelectOp::create(
                                               nb, nl, inRange, x, zeroElem)});
                 })
          .getResult(0);
    };
    // Query rows of this tile that exist: min(Tq, Sq - qs) (dynamic Sq).
    Value qRows;
    if (dynQ)
      qRows = arith::MinSIOp::create(b, loc, idx(b, loc, tq),
                                     arith::SubIOp::create(b, loc, sqV, qs));
    // A [rows, cols] tile zero-padded to [rows, width] (width > cols): one
    // masked vector read per row (llm-tile-and-vectorize).
    auto padColumns = [&](OpBuilder &pb, Location pl, Value tile,
                          int64_t width) -> Value {
      auto tileType = cast<RankedTensorType>(tile.getType());
      Type elemType = tileType.getElementType();
      Value zeroElem = arith::ConstantOp::create(
          pb, pl, cast<TypedAttr>(pb.getZeroAttr(elemType)));
      auto pad = tensor::PadOp::create(
          pb, pl,
          RankedTensorType::get({tileType.getDimSize(0), width}, elemType),
          tile, SmallVector<OpFoldResult>{zero, zero},
          SmallVector<OpFoldResult>{
              zero, pb.getIndexAttr(width - tileType.getDimSize(1))},
          zeroElem);
      pad->setAttr(kVectorizeRowsAttr, pb.getUnitAttr());
      return pad.getResult();
    };
    Value qTile = dynQ ? paddedRows(q, bIv, hIv, qs, qRows, tq, dh)
                       : sliceRows(q, bIv, hIv, qs, tq, dh);
    if (dhPadded != dh)
      qTile = padColumns(b, loc, qTile, dhPadded);

    // Key/value tiles to visit: all of them (ceil(Lc / Tk) with kv_length or
    // a dynamic Skv), or with `causal` up to the last one holding a column
    // j <= i + (Lc - Sq) for the tile's last row i.
    Value kvUpper =
        numKTilesV ? numKTilesV : idx(b, loc, llvm::divideCeil(skv, tk));
    if (causal) {
      Value lastCol;
      if (causalOffset) {
        Value lastRow =
            dynQ ? arith::AddIOp::create(
                       b, loc, qs,
                       arith::SubIOp::create(b, loc, qRows, idx(b, loc, 1)))
                       .getResult()
                 : arith::AddIOp::create(b, loc, qs, idx(b, loc, tq - 1))
                       .getResult();
        lastCol = arith::AddIOp::create(b, loc, lastRow, causalOffset);
      } else {
        lastCol =
            arith::AddIOp::create(b, loc, qs, idx(b, loc, tq - 1 + skv - sq));
      }
      Value lastTile = arith::FloorDivSIOp::create(b, loc, lastCol,
                                                   idx(b, loc, tk));
      Value count =
          arith::AddIOp::create(b, loc, lastTile, idx(b, loc, 1));
      count = arith::MaxSIOp::create(b, loc, count, idx(b, loc, 0));
      kvUpper = arith::MinSIOp::create(b, loc, count, kvUpper);
    }

    Value m0 = filledF32(b, loc, {tq}, negInf(b, loc));
    Value l0 = filledF32(b, loc, {tq}, f32Const(b, loc, 0.0));
    Value acc0 = filledF32(b, loc, {tq, dvPadded}, f32Const(b, loc, 0.0));

    // One online-softmax step on key/value tile j; `padded`: the tile may
    // run past the end of a dynamic Skv (read as a zero-padded copy).
    auto kvStep = [&](OpBuilder &lb, Location l, Value jIv, ValueRange carried,
                      bool padded) {
      Value mOld = carried[0], lOld = carried[1], accOld = carried[2];
      Value kNominal = arith::MulIOp::create(lb, l, jIv, idx(lb, l, tk));
      Value ks = kNominal;
      if (partialK)
        ks = arith::MinSIOp::create(lb, l, kNominal, idx(lb, l, skv - tk));
      Value kTile, vTile;
      if (padded) {
        // Rows that exist: min(Tk, Skv - ks); the others are zero and
        // excluded below (columns >= Lc).
        Value kRows = arith::MinSIOp::create(
            lb, l, idx(lb, l, tk), arith::SubIOp::create(lb, l, skvV, ks));
        kTile = paddedRows(k, bIv, kvHead, ks, kRows, tk, dh);
        vTile = paddedRows(v, bIv, kvHead, ks, kRows, tk, dv);
      } else {
        kTile = sliceRows(k, bIv, kvHead, ks, tk, dh);
        vTile = sliceRows(v, bIv, kvHead, ks, tk, dv);
      }
      if (dvPadded != dv) {
        // V_j zero-padded to [Tk, Dv'] (padded_head_dims): read Tq times
        // by the PV product as whole vectors.
        vTile = padColumns(lb, l, vTile, dvPadded);
      } else if (stageValues) {
        // V_j copied into a tile of its own (the GPU kernels' workgroup
        // memory), read Tq times by the PV product.
        Value vInit = tensor::EmptyOp::create(
            lb, l, {tk, dv},
            cast<RankedTensorType>(vTile.getType()).getElementType());
        vTile = linalg::CopyOp::create(lb, l, vTile, vInit).getResult(0);
      }

      // s = Q_t K_j^T with K_j^T copied to [D, Tk] first (a small copy
      // next to the matmul, vectorized in place as square transposes),
      // so that both tile matmuls have the plain
      // [M, K] x [K, N] layout that llm-tile-and-vectorize vectorizes
      // in place (kVectorizeInPlaceAttr).
      if (dhPadded != dh)
        kTile = padColumns(lb, l, kTile, dhPadded);
      Value ktInit = tensor::EmptyOp::create(
          lb, l, {dhPadded, tk},
          cast<RankedTensorType>(kTile.getType()).getElementType());
      auto kTOp = linalg::TransposeOp::create(lb, l, kTile, ktInit,
                                              ArrayRef<int64_t>{1, 0});
      // Square vector tiles (shuffles) rather than element gathers.
      kTOp->setAttr(kVectorizeInPlaceAttr, lb.getUnitAttr());
      Value kT = kTOp.getResult()[0];
      Value sInit = filledF32(lb, l, {tq, tk}, f32Const(lb, l, 0.0));
      auto qk =
          linalg::MatmulOp::create(lb, l, TypeRange{sInit.getType()},
                                   ValueRange{qTile, kT}, ValueRange{sInit});
      qk->setAttr(kVectorizeInPlaceAttr, lb.getUnitAttr());

      // Logits: scale, mask, exclusions (-inf).
      SmallVector<Value> ins{qk.getResult(0)};
      SmallVector<AffineMap> maps{id2};
      bool boolMask = false;
      if (mask) {
        auto [tile, map] = maskTile(lb, l, mask, bIv, hIv, qs, ks, tq, tk);
        boolMask = cast<RankedTensorType>(mask.getType())
                       .getElementType()
                       .isInteger(1);
        ins.push_back(tile);
        maps.push_back(map);
      }
      Value xInit = tensor::EmptyOp::create(lb, l, {tq, tk}, f32);
      Value x = generic(
          lb, l, ins, maps, id2, {par, par}, xInit,
          [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
            Value val = llm::detail::capAttentionScore(
                nb, nl, op,
                arith::MulFOp::create(nb, nl, a[0], f32Const(nb, nl, scale)));
            if (mask && !boolMask)
              val = arith::AddFOp::create(nb, nl, val, a[1]);
            Value keep;
            auto both = [&](Value c) {
              keep =
                  keep ? arith::AndIOp::create(nb, nl, keep, c).getResult() : c;
            };
            // excluded_score e: an excluded position scores e (it is not
            // dropped as the other exclusions below are).
            if (mask && boolMask && excludedScore)
              val = arith::SelectOp::create(
                  nb, nl, a[1], val,
                  f32Const(nb, nl, excludedScore->convertToDouble()));
            else if (mask && boolMask)
              both(a[1]);
            if (causal || partialK || lenV) {
              Value col = arith::AddIOp::create(
                  nb, nl, ks, linalg::IndexOp::create(nb, nl, 1));
              if (causal) {
                // j <= i + (Lc - Sq), i = qs + row.
                Value row = arith::AddIOp::create(
                    nb, nl, qs, linalg::IndexOp::create(nb, nl, 0));
                Value limit = arith::AddIOp::create(
                    nb, nl, row,
                    causalOffset ? causalOffset : idx(nb, nl, skv - sq));
                both(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sle,
                                           col, limit));
              }
              if (lenV) // Beyond the valid prefix (or the sequence).
                both(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                           col, lenV));
              if (partialK) // Columns already seen by the previous tile.
                both(arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge,
                                           col, kNominal));
            }
            if (keep)
              val = arith::SelectOp::create(nb, nl, keep, val, negInf(nb, nl));
            return val;
          });
      x.getDefiningOp()->setAttr(kVectorizeRowsAttr, lb.getUnitAttr());

      // The carried tensors are updated in place (each yielded value is
      // written into its iteration argument after the last read of the
      // old value), so that bufferization keeps one buffer per loop.
      // r = rowmax(x).
      Value rInit = filledF32(lb, l, {tq}, negInf(lb, l));
      Value rowMax =
          generic(lb, l, ValueRange{x}, {id2}, row2, {par, red}, rInit,
                  [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                  });
      // One vector.reduction per row (llm-tile-and-vectorize).
      rowMax.getDefiningOp()->setAttr(kVectorizeRowsAttr, lb.getUnitAttr());
      // alpha = exp(m - safe(max(m, r))) (0 while m is -inf).
      Value alphaInit = tensor::EmptyOp::create(lb, l, {tq}, f32);
      Value alpha = generic(
          lb, l, ValueRange{mOld, rowMax}, {id1, id1}, id1, {par}, alphaInit,
          [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
            Value mNew = arith::MaximumFOp::create(nb, nl, a[0], a[1]);
            return math::ExpOp::create(
                nb, nl,
                arith::SubFOp::create(nb, nl, a[0], safeMax(nb, nl, mNew)));
          });
      // m' = max(m, r), into m.
      Value mNew =
          generic(lb, l, ValueRange{rowMax}, {id1}, id1, {par}, mOld,
                  [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                  });
      // p = exp(x - safe(m')).
      Value pInit = tensor::EmptyOp::create(lb, l, {tq, tk}, f32);
      Value p = generic(
          lb, l, ValueRange{x, mNew}, {id2, row2}, id2, {par, par}, pInit,
          [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
            return math::ExpOp::create(
                nb, nl,
                arith::SubFOp::create(nb, nl, a[0], safeMax(nb, nl, a[1])));
          });
      p.getDefiningOp()->setAttr(kVectorizeRowsAttr, lb.getUnitAttr());
      // l' = l * alpha + rowsum(p), into l.
      Value lScaled =
          generic(lb, l, ValueRange{alpha}, {id1}, id1, {par}, lOld,
                  [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::MulFOp::create(nb, nl, a[1], a[0]);
                  });
      Value lNew =
          generic(lb, l, ValueRange{p}, {id2}, row2, {par, red}, lScaled,
                  [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::AddFOp::create(nb, nl, a[0], a[1]);
                  });
      lNew.getDefiningOp()->setAttr(kVectorizeRowsAttr, lb.getUnitAttr());
      // acc' = acc * alpha + p V_j, into acc.
      Value accScaled =
          generic(lb, l, ValueRange{alpha}, {row2}, id2, {par, par}, accOld,
                  [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::MulFOp::create(nb, nl, a[1], a[0]);
                  });
      // One vector per row of Dv (llm-tile-and-vectorize).
      accScaled.getDefiningOp()->setAttr(kVectorizeRowsAttr, lb.getUnitAttr());
      auto pv =
          linalg::MatmulOp::create(lb, l, TypeRange{accScaled.getType()},
                                   ValueRange{p, vTile}, ValueRange{accScaled});
      pv->setAttr(kVectorizeInPlaceAttr, lb.getUnitAttr());
      Value accNew = pv.getResult(0);
      scf::YieldOp::create(lb, l, ValueRange{mNew, lNew, accNew});
    };
    auto kvLoop = [&](Value lb, Value ub, ValueRange init, bool padded) {
      return scf::ForOp::create(
          b, loc, lb, ub, idx(b, loc, 1), init,
          [&](OpBuilder &nb, Location l, Value jIv, ValueRange carried) {
            kvStep(nb, l, jIv, carried, padded);
          });
    };
    scf::ForOp loop;
    if (!dynK) {
      Value lower = idx(b, loc, 0), upper = kvUpper;
      if (splits > 1) {
        // Part p: tiles [p * chunk, min((p + 1) * chunk, kvUpper)).
        lower = arith::MulIOp::create(b, loc, pIv, idx(b, loc, chunk));
        upper = arith::MinSIOp::create(
            b, loc, kvUpper,
            arith::AddIOp::create(b, loc, lower, idx(b, loc, chunk)));
      }
      loop = kvLoop(lower, upper, ValueRange{m0, l0, acc0},
                    /*padded=*/false);
    } else {
      // Full tiles (j < Skv / Tk) are read in place; the last, partial
      // tile of the dynamic Skv (at most one) as a zero-padded copy.
      Value full = arith::MinSIOp::create(
          b, loc, kvUpper,
          arith::DivSIOp::create(b, loc, skvV, idx(b, loc, tk)));
      scf::ForOp head = kvLoop(idx(b, loc, 0), full, ValueRange{m0, l0, acc0},
                               /*padded=*/false);
      loop = kvLoop(full, kvUpper, head.getResults(), /*padded=*/true);
    }

    // out = l == 0 ? 0 : acc / l (a row with every column excluded gives 0).
    Value lFinal = loop.getResult(1), accFinal = loop.getResult(2);
    if (dvPadded != dv) // The Dv columns of the padded accumulator.
      accFinal = tensor::ExtractSliceOp::create(
          b, loc, accFinal, SmallVector<OpFoldResult>{zero, zero},
          SmallVector<OpFoldResult>{b.getIndexAttr(tq), b.getIndexAttr(dv)},
          SmallVector<OpFoldResult>{one, one});
    if (splits > 1) {
      // This part's (m, l, acc) at [b, h, p].
      b.setInsertionPointToStart(forall.getTerminator().getBody());
      SmallVector<OpFoldResult> offs{bIv, hIv, pIv, zero};
      SmallVector<OpFoldResult> sizes{one, one, one, b.getIndexAttr(tq)};
      Value rowValues[2] = {loop.getResult(0), lFinal};
      for (int i = 0; i < 2; ++i)
        tensor::ParallelInsertSliceOp::create(
            b, loc, rowValues[i], forall.getRegionIterArgs()[i], offs, sizes,
            SmallVector<OpFoldResult>(4, one));
      offs.push_back(zero);
      sizes.push_back(b.getIndexAttr(dv));
      tensor::ParallelInsertSliceOp::create(
          b, loc, accFinal, forall.getRegionIterArgs()[2], offs, sizes,
          SmallVector<OpFoldResult>(5, one));
      rewriter.setInsertionPointAfter(forall);
      rewriter.replaceOp(
          op, combineSplits(rewriter, loc, forall.getResults(), type, bshd));
      return success();
    }
    auto normalize = [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
      Value isZero = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                           a[1], f32Const(nb, nl, 0.0));
      Value div = arith::DivFOp::create(nb, nl, a[0], a[1]);
      Value r =
          arith::SelectOp::create(nb, nl, isZero, f32Const(nb, nl, 0.0), div);
      if (r.getType() != et)
        r = arith::TruncFOp::create(nb, nl, et, r);
      return r;
    };
    Value oTile;
    OpFoldResult rows = b.getIndexAttr(tq);
    if (dynQ) {
      // Only the qRows rows that exist, normalized straight into their
      // place in the result (a slice of the forall's output): no tile copy
      // of a run-time size afterwards.
      rows = qRows;
      SmallVector<OpFoldResult> offs{bIv, hIv, qNominal, zero};
      SmallVector<OpFoldResult> sizes{one, one, qRows, b.getIndexAttr(dv)};
      if (bshd) {
        std::swap(offs[1], offs[2]);
        std::swap(sizes[1], sizes[2]);
      }
      Value dest = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic, dv}, et), outArg,
          offs, sizes, SmallVector<OpFoldResult>(4, one));
      Value accRows = tensor::ExtractSliceOp::create(
          b, loc, accFinal, SmallVector<OpFoldResult>{zero, zero},
          SmallVector<OpFoldResult>{qRows, b.getIndexAttr(dv)},
          SmallVector<OpFoldResult>{one, one});
      Value lRows = tensor::ExtractSliceOp::create(
          b, loc, lFinal, SmallVector<OpFoldResult>{zero},
          SmallVector<OpFoldResult>{qRows}, SmallVector<OpFoldResult>{one});
      oTile = generic(b, loc, ValueRange{accRows, lRows}, {id2, row2}, id2,
                      {par, par}, dest, normalize);
    } else {
      Value oInit = tensor::EmptyOp::create(b, loc, {tq, dv}, et);
      oTile = generic(b, loc, ValueRange{accFinal, lFinal}, {id2, row2}, id2,
                      {par, par}, oInit, normalize);
      oTile.getDefiningOp()->setAttr(kVectorizeRowsAttr, b.getUnitAttr());
    }

    // Store the rows this tile owns: [qNominal, qNominal + len).
    if (partialQ) {
      Value skip = arith::SubIOp::create(b, loc, qNominal, qs);
      Value len = arith::MinSIOp::create(
          b, loc, idx(b, loc, tq),
          arith::SubIOp::create(b, loc, idx(b, loc, sq), qNominal));
      rows = len;
      oTile = tensor::ExtractSliceOp::create(
          b, loc, oTile, SmallVector<OpFoldResult>{skip, zero},
          SmallVector<OpFoldResult>{len, b.getIndexAttr(dv)},
          SmallVector<OpFoldResult>{one, one});
    }
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    SmallVector<OpFoldResult> outOffs{bIv, hIv, qNominal, zero};
    SmallVector<OpFoldResult> outSizes{one, one, rows, b.getIndexAttr(dv)};
    if (bshd) {
      std::swap(outOffs[1], outOffs[2]);
      std::swap(outSizes[1], outSizes[2]);
    }
    tensor::ParallelInsertSliceOp::create(b, loc, oTile, outArg, outOffs,
                                          outSizes,
                                          SmallVector<OpFoldResult>(4, one));
    rewriter.replaceOp(op, forall.getResult(0));
    return success();
  }

  /// The attention's result from the parts of a split key/value sequence:
  /// `parts` are m, l [B, Hq, P, Sq] and acc [B, Hq, P, Sq, Dv] (f32), each
  /// part's running maximum, sum and unnormalized output over its tiles.
  /// With M = max_p m_p and w_p = exp(m_p - M) (0 for a part that saw no
  /// column, m_p = -inf): out = sum_p w_p acc_p / sum_p w_p l_p, 0 where
  /// the sum is 0 (a row without an allowed column), rounded once to the
  /// result's type and stored in its layout (the merge of FlashDecoding,
  /// Dao et al. 2023; Milakov & Gimelshein 2018).
  static Value combineSplits(OpBuilder &b, Location loc, ValueRange parts,
                             RankedTensorType type, bool bshd) {
    MLIRContext *ctx = b.getContext();
    Value mParts = parts[0], lParts = parts[1], accParts = parts[2];
    auto accType = cast<RankedTensorType>(accParts.getType());
    int64_t bsz = accType.getDimSize(0), hq = accType.getDimSize(1),
            sq = accType.getDimSize(3), dv = accType.getDimSize(4);
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    AffineExpr e0, e1, e2, e3, e4;
    bindDims(ctx, e0, e1, e2, e3, e4);
    // (b, h, s, p): M = max_p m, L = sum_p w l.
    AffineMap partBHS = AffineMap::get(4, 0, {e0, e1, e3, e2}, ctx);
    AffineMap bhs4 = AffineMap::get(4, 0, {e0, e1, e2}, ctx);
    Value mMax = filledF32(b, loc, {bsz, hq, sq}, negInf(b, loc));
    mMax = generic(b, loc, ValueRange{mParts}, {partBHS}, bhs4,
                   {par, par, par, red}, mMax,
                   [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                   });
    // w = m == -inf ? 0 : exp(m - M).
    auto weight = [](OpBuilder &nb, Location nl, Value m, Value mx) -> Value {
      Value none = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, m,
                                         negInf(nb, nl));
      Value w =
          math::ExpOp::create(nb, nl, arith::SubFOp::create(nb, nl, m, mx));
      return arith::SelectOp::create(nb, nl, none, f32Const(nb, nl, 0.0), w);
    };
    Value lSum = filledF32(b, loc, {bsz, hq, sq}, f32Const(b, loc, 0.0));
    lSum = generic(b, loc, ValueRange{mParts, lParts, mMax},
                   {partBHS, partBHS, bhs4}, bhs4, {par, par, par, red}, lSum,
                   [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value w = weight(nb, nl, a[0], a[2]);
                     return arith::AddFOp::create(
                         nb, nl, a[3], arith::MulFOp::create(nb, nl, w, a[1]));
                   });
    // (b, h, s, d, p): O = sum_p w acc.
    AffineMap partBHS5 = AffineMap::get(5, 0, {e0, e1, e4, e2}, ctx);
    AffineMap accMap = AffineMap::get(5, 0, {e0, e1, e4, e2, e3}, ctx);
    AffineMap bhs5 = AffineMap::get(5, 0, {e0, e1, e2}, ctx);
    AffineMap bhsd5 = AffineMap::get(5, 0, {e0, e1, e2, e3}, ctx);
    Value num = filledF32(b, loc, {bsz, hq, sq, dv}, f32Const(b, loc, 0.0));
    num = generic(b, loc, ValueRange{mParts, accParts, mMax},
                  {partBHS5, accMap, bhs5}, bhsd5, {par, par, par, par, red},
                  num, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    Value w = weight(nb, nl, a[0], a[2]);
                    return arith::AddFOp::create(
                        nb, nl, a[3], arith::MulFOp::create(nb, nl, w, a[1]));
                  });
    // out = L == 0 ? 0 : O / L in the result's type and layout.
    AffineMap bhsd = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap bhs = AffineMap::get(4, 0, {e0, e1, e2}, ctx);
    AffineMap outMap =
        bshd ? AffineMap::get(4, 0, {e0, e2, e1, e3}, ctx) : bhsd;
    Type et = type.getElementType();
    Value out = tensor::EmptyOp::create(b, loc, type.getShape(), et);
    return generic(b, loc, ValueRange{num, lSum}, {bhsd, bhs}, outMap,
                   {par, par, par, par}, out,
                   [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value isZero = arith::CmpFOp::create(
                         nb, nl, arith::CmpFPredicate::OEQ, a[1],
                         f32Const(nb, nl, 0.0));
                     Value div = arith::DivFOp::create(nb, nl, a[0], a[1]);
                     Value r = arith::SelectOp::create(
                         nb, nl, isZero, f32Const(nb, nl, 0.0), div);
                     if (r.getType() != et)
                       r = arith::TruncFOp::create(nb, nl, et, r);
                     return r;
                   });
  }

  /// The [tq, tk] window of `mask` (numpy-broadcast to [B, Hq, Sq, Skv]) at (b, h, qs, ks): a slice of the mask's last two
  /// dimensions (size-1 dimensions stay size 1, read at 0) and the map from
  /// the tile's (i, j) iteration space to it.
  std::pair<Value, AffineMap> maskTile(OpBuilder &b, Location loc, Value mask,
                                       Value bIv, Value hIv, Value qs, Value ks,
                                       int64_t tq, int64_t tk) const {
    MLIRContext *ctx = b.getContext();
    auto mt = cast<RankedTensorType>(mask.getType());
    int64_t rank = mt.getRank(), off = 4 - rank;
    if (!mt.hasStaticShape())
      return clampedMaskTile(b, loc, mask, bIv, hIv, qs, ks, tq, tk);
    Value fullOffsets[4] = {bIv, hIv, qs, ks};
    int64_t tileSizes[4] = {1, 1, tq, tk};
    SmallVector<OpFoldResult> offs, sizes;
    SmallVector<int64_t> tileShape;
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t fi = off + i;
      bool bcast = mt.getDimSize(i) == 1;
      offs.push_back(bcast ? OpFoldResult(b.getIndexAttr(0))
                           : OpFoldResult(fullOffsets[fi]));
      int64_t size = bcast ? 1 : tileSizes[fi];
      sizes.push_back(b.getIndexAttr(size));
      if (fi >= 2) { // Query and key dimensions stay in the tile.
        tileShape.push_back(size);
        exprs.push_back(bcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(fi - 2, ctx));
      }
    }
    auto tileType = RankedTensorType::get(tileShape, mt.getElementType());
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    Value tile = tensor::ExtractSliceOp::create(b, loc, tileType, mask, offs,
                                                sizes, strides);
    return {tile, AffineMap::get(2, 0, exprs, ctx)};
  }

  /// maskTile for a mask whose query or key dimension is the dynamic
  /// sequence: the [tq, tk] window is read element by element with the
  /// indices clamped to the mask's last row and column (a tile at the end of
  /// the sequence runs past it; those rows are not written and those
  /// columns are excluded by the length, so what they read does not
  /// matter).
  std::pair<Value, AffineMap> clampedMaskTile(OpBuilder &b, Location loc,
                                              Value mask, Value bIv, Value hIv,
                                              Value qs, Value ks, int64_t tq,
                                              int64_t tk) const {
    MLIRContext *ctx = b.getContext();
    auto mt = cast<RankedTensorType>(mask.getType());
    int64_t rank = mt.getRank(), off = 4 - rank;
    Value fullOffsets[4] = {bIv, hIv, qs, ks};
    int64_t tileSizes[4] = {1, 1, tq, tk};
    SmallVector<int64_t> tileShape;
    SmallVector<AffineExpr> exprs;
    // Per mask dimension: a broadcast one (static size 1) reads 0; the
    // batch and head ones their index; the query and key ones the tile's
    // row or column, clamped to the last.
    SmallVector<Value> last(rank);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t fi = off + i;
      bool bcast = mt.getDimSize(i) == 1;
      if (fi >= 2) {
        tileShape.push_back(bcast ? 1 : tileSizes[fi]);
        exprs.push_back(bcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(tileShape.size() - 1, ctx));
        if (!bcast) {
          Value size = mt.isDynamicDim(i)
                           ? tensor::DimOp::create(b, loc, mask, i).getResult()
                           : idx(b, loc, mt.getDimSize(i));
          last[i] = arith::SubIOp::create(b, loc, size, idx(b, loc, 1));
        }
      }
    }
    auto tileType = RankedTensorType::get(tileShape, mt.getElementType());
    Value empty =
        tensor::EmptyOp::create(b, loc, tileShape, mt.getElementType());
    auto idMap = AffineMap::getMultiDimIdentityMap(tileShape.size(), ctx);
    SmallVector<utils::IteratorType> iters(tileShape.size(),
                                           utils::IteratorType::parallel);
    Value tile =
        linalg::GenericOp::create(
            b, loc, TypeRange{tileType}, ValueRange{}, ValueRange{empty},
            ArrayRef<AffineMap>{idMap}, iters,
            [&](OpBuilder &nb, Location nl, ValueRange) {
              SmallVector<Value> indices;
              int64_t t = 0;
              for (int64_t i = 0; i < rank; ++i) {
                int64_t fi = off + i;
                bool bcast = mt.getDimSize(i) == 1;
                if (fi >= 2) {
                  Value pos = linalg::IndexOp::create(nb, nl, t++);
                  if (bcast) {
                    indices.push_back(idx(nb, nl, 0));
                    continue;
                  }
                  Value at =
                      arith::AddIOp::create(nb, nl, fullOffsets[fi], pos);
                  indices.push_back(
                      arith::MinSIOp::create(nb, nl, at, last[i]));
                } else {
                  indices.push_back(bcast ? idx(nb, nl, 0) : fullOffsets[fi]);
                }
              }
              linalg::YieldOp::create(
                  nb, nl,
                  ValueRange{tensor::ExtractOp::create(nb, nl, mask, indices)});
            })
            .getResult(0);
    return {tile, AffineMap::get(2, 0, exprs, ctx)};
  }

  int64_t queryTile, keyTile;
};

} // namespace

bool mlir::llm::isFlashAttentionLowerable(Operation *op) {
  auto attention = dyn_cast<AttentionOp>(op);
  return attention && flashRefusal(attention).empty();
}

void mlir::llm::populateFlashAttentionLoweringPatterns(
    RewritePatternSet &patterns, int64_t queryTile, int64_t keyTile) {
  patterns.add<FlashAttentionLowering>(patterns.getContext(), queryTile,
                                       keyTile);
}
