//===- AttentionToLinalg.cpp - rope and attention to linalg ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowering of llm.rope and of llm.attention with the materialized score
// matrix (the reference path, and the one for a dynamic sequence; the flash
// lowering is FlashAttention.cpp) to linalg on tensors.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::detail;

namespace {

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

// llm.rope %x[..., D], %pos -> expand x to [..., 2, D/2] (rotate_half) or
//   [..., D/2, 2] (interleaved); linalg.generic reading both halves of each
//   pair through constant-index maps; collapse back. The angle is
//   pos * inv_freq[i] in f32, inv_freq[i] = theta^(-2i/D) a tensor<D/2xf32>
//   constant computed here (in double, rounded to f32). With constant
//   positions (the usual arange of a prefill) the generic reads cos and sin
//   from two constant tables of shape pos.shape x [D/2] (f32 angle, cos/sin
//   evaluated in double and rounded), so no transcendental runs per element;
//   otherwise it evaluates cos/sin of the f32 angle per element.
// Partial rotary (rotary_dims = R < D, inv_freq with R for D) stays one
//   generic over all of x, which also reads each element itself and keeps it
//   outside the rotated columns (arith.select on the block index):
//   * rotate_half: x viewed as [..., D / (R/2), R/2], blocks 0 and 1 the
//     pairs' members, the other blocks passed through (when R/2 divides D,
//     as in GPT-NeoX, Phi and StableLM: 0.25 or 0.4 of 64/80/128);
//   * interleaved: x viewed as [..., D/2, 2], pairs from R/2 on passed
//     through (their table entries are padding).
//   Otherwise (rotate_half, R/2 not dividing D) the rotation of
//   x[..., :R] (tensor.extract_slice) and a tensor.concat with x[..., R:].
struct RopeLowering : LLMLowering<RopeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(RopeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), pos = adaptor.getPositions();
    RankedTensorType fullType = resultType(op);
    Type et = fullType.getElementType();
    int64_t rank = fullType.getRank();
    int64_t fullDim = fullType.getDimSize(rank - 1);
    int64_t d = op.getRotatedDims(), half = d / 2;
    bool interleaved = op.getMode() == RopeMode::Interleaved;
    bool partial = d != fullDim;
    // One generic over all of x (see above), or the rotated slice alone.
    bool whole = !partial || interleaved || fullDim % half == 0;
    // The last-dimension range [lo, lo + size) of x, every row.
    auto lastDimSlice = [&](int64_t lo, int64_t size) -> Value {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      offsets.back() = rewriter.getIndexAttr(lo);
      sizes.back() = rewriter.getIndexAttr(size);
      return tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                            sizes, strides);
    };
    Value x = whole ? input : lastDimSlice(0, d);
    int64_t width = whole ? fullDim : d; // the last dimension of x
    SmallVector<int64_t> xShape(fullType.getShape());
    xShape.back() = width;
    auto type = RankedTensorType::get(xShape, et);

    // Iteration space: rows (rank - 1 dims), then the pair dims: the member
    // of the pair (pDim) and the pair index (iDim), in the order of x's
    // layout. Rotate-half blocks of R/2 (2 of them, or D / (R/2) when
    // partial); interleaved: D/2 pairs of 2.
    SmallVector<int64_t> shape(type.getShape().drop_back());
    ArrayRef<int64_t> rows = fullType.getShape().drop_back();
    unsigned pDim = interleaved ? rank : rank - 1; // which member of the pair
    unsigned iDim = interleaved ? rank - 1 : rank; // pair index
    // Table entries: one per pair index (interleaved partial: D/2, those
    // from R/2 on padding that the select discards).
    int64_t numFreqs = interleaved ? width / 2 : half;
    if (interleaved) {
      shape.push_back(width / 2);
      shape.push_back(2);
    } else {
      shape.push_back(width / half);
      shape.push_back(half);
    }
    auto expandedType = RankedTensorType::get(shape, et);
    SmallVector<ReassociationIndices> re;
    for (int64_t i = 0; i < rank - 1; ++i)
      re.push_back({i});
    re.push_back({rank - 1, rank});
    Value xe =
        tensor::ExpandShapeOp::create(rewriter, loc, expandedType, x, re);

    unsigned numDims = rank + 1;
    auto memberMap = [&](int64_t member) {
      SmallVector<AffineExpr> exprs;
      for (unsigned i = 0; i < numDims; ++i)
        exprs.push_back(i == pDim ? getAffineConstantExpr(member, ctx)
                                  : getAffineDimExpr(i, ctx));
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    AffineMap posMap = broadcastMap(
        ctx, cast<RankedTensorType>(pos.getType()).getShape(), rows, numDims);
    SmallVector<utils::IteratorType> iters(numDims,
                                           utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, shape, et);
    float theta = op.getTheta().convertToFloat();
    SmallVector<float> invFreq(numFreqs, 0.0f);
    for (int64_t i = 0; i < half; ++i)
      invFreq[i] = static_cast<float>(
          std::pow(static_cast<double>(theta), -2.0 * double(i) / double(d)));
    auto f32 = rewriter.getF32Type();
    auto invFreqType = RankedTensorType::get({numFreqs}, f32);
    // Map from the iteration space to a [numFreqs] or pos.shape x [numFreqs]
    // table.
    auto tableMap = [&](bool withPos) {
      SmallVector<AffineExpr> exprs;
      if (withPos)
        llvm::append_range(exprs, posMap.getResults());
      exprs.push_back(getAffineDimExpr(iDim, ctx));
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    // With a partial rotation the generic also reads each element itself
    // (the last input), kept outside the rotated blocks or pairs.
    SmallVector<Value> own;
    SmallVector<AffineMap> ownMap;
    if (partial && whole) {
      own.push_back(xe);
      ownMap.push_back(rewriter.getMultiDimIdentityMap(numDims));
    }
    Value r;
    auto rotate = [&](OpBuilder &b, Location l, Value u, Value v, Value c,
                      Value s, ValueRange rest) -> Value {
      Value first =
          arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, u, c),
                                arith::MulFOp::create(b, l, v, s));
      Value second =
          arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, v, c),
                                arith::MulFOp::create(b, l, u, s));
      Value member = linalg::IndexOp::create(b, l, pDim);
      Value isFirst = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            member, indexConst(b, l, 0));
      Value result = arith::SelectOp::create(b, l, isFirst, first, second);
      if (own.empty())
        return result;
      // Rotated: blocks 0 and 1 (rotate_half), pairs below R/2
      // (interleaved).
      Value rotated =
          interleaved
              ? arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                      linalg::IndexOp::create(b, l, iDim),
                                      indexConst(b, l, half))
              : arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, member,
                                      indexConst(b, l, 2));
      return arith::SelectOp::create(b, l, rotated, result, rest.front());
    };
    // Constant positions, also through llm.reshape (llm-optimize-layout
    // reshapes [S] to [S, 1] when it moves a head split past the rope).
    DenseIntElementsAttr posValues;
    auto posType = cast<RankedTensorType>(pos.getType());
    Value posSource = op.getPositions();
    while (auto reshape = posSource.getDefiningOp<ReshapeOp>())
      posSource = reshape.getInput();
    constexpr int64_t kMaxTableElements = int64_t(1) << 20;
    bool tables = matchPattern(posSource, m_Constant(&posValues)) &&
                  posType.hasStaticShape() &&
                  posType.getNumElements() * numFreqs <= kMaxTableElements;
    // Inputs 2 and 3: the cos and sin tables, or the positions and inv_freq.
    SmallVector<Value> inputs{xe, xe};
    SmallVector<AffineMap> maps{memberMap(0), memberMap(1)};
    if (tables) {
      SmallVector<float> cosTable, sinTable;
      cosTable.reserve(posType.getNumElements() * numFreqs);
      sinTable.reserve(posType.getNumElements() * numFreqs);
      for (const APInt &p : posValues.getValues<APInt>()) {
        float fp = static_cast<float>(p.getSExtValue());
        for (int64_t i = 0; i < numFreqs; ++i) {
          double angle = static_cast<double>(fp * invFreq[i]);
          cosTable.push_back(static_cast<float>(std::cos(angle)));
          sinTable.push_back(static_cast<float>(std::sin(angle)));
        }
      }
      SmallVector<int64_t> tableShape(posType.getShape());
      tableShape.push_back(numFreqs);
      auto tableType = RankedTensorType::get(tableShape, f32);
      for (ArrayRef<float> table : {cosTable, sinTable}) {
        inputs.push_back(arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(tableType, table)));
        maps.push_back(tableMap(true));
      }
    } else {
      inputs.push_back(pos);
      maps.push_back(posMap);
      inputs.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(invFreqType, ArrayRef<float>(invFreq))));
      maps.push_back(tableMap(false));
    }
    llvm::append_range(inputs, own);
    llvm::append_range(maps, ownMap);
    r = buildGeneric(rewriter, loc, shape, et, inputs, maps, iters,
                     rewriter.getMultiDimIdentityMap(numDims), init,
                     [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                       Value c = a[2], s = a[3];
                       if (!tables) {
                         Value p = arith::SIToFPOp::create(b, l, b.getF32Type(),
                                                           a[2]);
                         Value angle = arith::MulFOp::create(b, l, p, a[3]);
                         c = math::CosOp::create(b, l, angle);
                         s = math::SinOp::create(b, l, angle);
                       }
                       return rotate(b, l, a[0], a[1], c, s, a.drop_front(4));
                     });
    Value result = tensor::CollapseShapeOp::create(rewriter, loc, type, r, re);
    if (!whole)
      result = tensor::ConcatOp::create(
          rewriter, loc, fullType, uint64_t(rank - 1),
          ValueRange{result, lastDimSlice(d, fullDim - d)});
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// llm.attention q[B,Hq,Sq,D], k[B,Hkv,Skv,D], v[B,Hkv,Skv,Dv] ->
//   q' = reshape q to [B*Hkv, G*Sq, D] (G = Hq/Hkv; expand + collapse, no
//   copy of K/V); s = linalg.batch_matmul(q', k'^T) (f32);
//   view s as [B,Hkv,G,Sq,Skv]; logits = cap(s*scale) (softcap c:
//   c * tanh(. / c)) (+ mask | mask ? :
//   excluded_score or -inf) (causal: -inf where j > i + Skv - Sq); softmax
//   over Skv with -inf entries and rows of -inf only giving 0;
//   o = batch_matmul(p, v');
//   reshape o back to [B,Hq,Sq,Dv].
// Layout bshd: q, k, v are first transposed to [B,H,S,D] (linalg.transpose)
//   and the result back to [B,Sq,Hq,Dv] (the reference path; the flash
//   lowering reads the bshd tiles in place).
struct AttentionLowering : LLMLowering<AttentionOp> {
  /// With `dynamicOnly` (next to the flash lowering) the pattern lowers only
  /// the attention that the flash lowering refuses
  /// (isFlashAttentionLowerable).
  AttentionLowering(MLIRContext *ctx, bool dynamicOnly)
      : LLMLowering(ctx), dynamicOnly(dynamicOnly) {}
  bool dynamicOnly;
  LogicalResult lower(AttentionOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    if (dynamicOnly && isFlashAttentionLowerable(op))
      return rewriter.notifyMatchFailure(op, "the flash lowering takes it");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    bool bshd = op.getLayout() == AttentionLayout::BSHD;
    auto swapHeads = [&](Value x) -> Value {
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(t.getShape());
      std::swap(shape[1], shape[2]);
      Value init = createEmptyTensor(rewriter, loc, shape, t.getElementType());
      return linalg::TransposeOp::create(rewriter, loc, x, init,
                                         ArrayRef<int64_t>{0, 2, 1, 3})
          .getResult()[0];
    };
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    if (bshd) {
      q = swapHeads(q);
      k = swapHeads(k);
      v = swapHeads(v);
    }
    Value mask = adaptor.getMask();
    auto qt = cast<RankedTensorType>(q.getType());
    auto kt = cast<RankedTensorType>(k.getType());
    auto vt = cast<RankedTensorType>(v.getType());
    RankedTensorType type = resultType(op);
    if (bshd) {
      SmallVector<int64_t> shape(type.getShape());
      std::swap(shape[1], shape[2]);
      type = RankedTensorType::get(shape, type.getElementType());
    }
    Type et = type.getElementType();
    int64_t bsz = qt.getDimSize(0), hq = qt.getDimSize(1),
            sq = qt.getDimSize(2), dh = qt.getDimSize(3);
    int64_t hkv = kt.getDimSize(1), skv = kt.getDimSize(2),
            dv = vt.getDimSize(3);
    int64_t g = hq / hkv, bh = bsz * hkv,
            rows = isStaticDim(sq) ? g * sq : ShapedType::kDynamic;
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(double(dh));

    // Heads of one group are contiguous: [B,Hq,Sq,D] is [B,Hkv,G,Sq,D].
    Value q5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({bsz, hkv, g, sq, dh}, et), q,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value q3 = tensor::CollapseShapeOp::create(
        rewriter, loc, q5, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value k3 = tensor::CollapseShapeOp::create(
        rewriter, loc, k, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    Value v3 = tensor::CollapseShapeOp::create(
        rewriter, loc, v, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});

    // [bh, rows, n] f32 zeros; a dynamic `rows` is G * Sq (q3's rows), a
    // dynamic `n` the key/value sequence.
    // The sizes come from the function's sequence length where it has one
    // (affine in the bounded argument dimension, as the memory plan needs).
    Value seqLen = (ShapedType::isDynamic(sq) || ShapedType::isDynamic(skv))
                       ? getSequenceLength(rewriter, loc)
                       : Value();
    auto zeros3 = [&](int64_t n, Value dynN) -> Value {
      SmallVector<Value> dyn;
      if (ShapedType::isDynamic(rows))
        dyn.push_back(
            seqLen ? arith::MulIOp::create(rewriter, loc, seqLen,
                                           indexConst(rewriter, loc, g))
                         .getResult()
                   : tensor::DimOp::create(rewriter, loc, q3, 1).getResult());
      if (ShapedType::isDynamic(n))
        dyn.push_back(dynN);
      Value empty = tensor::EmptyOp::create(rewriter, loc, {bh, rows, n},
                                            rewriter.getF32Type(), dyn);
      return linalg::FillOp::create(rewriter, loc,
                                    ValueRange{f32Const(rewriter, loc, 0.0)},
                                    ValueRange{empty})
          .getResult(0);
    };
    AffineExpr d0, d1, d2, d3, d4;
    bindDims(ctx, d0, d1, d2, d3); // (b, m, n, k)
    Value kvRows;                  // A dynamic Skv.
    if (ShapedType::isDynamic(skv))
      kvRows = seqLen ? seqLen : tensor::DimOp::create(rewriter, loc, k3, 1);
    Value sInit = zeros3(skv, kvRows);
    auto qk =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{sInit.getType()},
                                      ValueRange{q3, k3}, ValueRange{sInit});
    qk.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
        {AffineMap::get(4, 0, {d0, d1, d3}, ctx),
         AffineMap::get(4, 0, {d0, d2, d3}, ctx),
         AffineMap::get(4, 0, {d0, d1, d2}, ctx)}));
    SmallVector<int64_t> s5Shape{bsz, hkv, g, sq, skv};
    Value s5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(s5Shape, rewriter.getF32Type()),
        qk.getResult(0), ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});

    // Logits with scale, mask and causal exclusion, in the 5-D view
    // (d0 = b, d1 = kv head, d2 = group member, d3 = i, d4 = j).
    bindDims(ctx, d0, d1, d2, d3, d4);
    SmallVector<Value> inputs{s5};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(5)};
    bool boolMask = false;
    if (mask) {
      auto mt = cast<RankedTensorType>(mask.getType());
      boolMask = mt.getElementType().isInteger(1);
      int64_t full[4] = {bsz, hq, sq, skv};
      AffineExpr headExpr = g == 1 ? d1 : hkv == 1 ? d2 : d1 * g + d2;
      AffineExpr fullExprs[4] = {d0, headExpr, d3, d4};
      SmallVector<AffineExpr> exprs;
      int64_t off = 4 - mt.getRank();
      for (auto [i, md] : llvm::enumerate(mt.getShape())) {
        if (md == 1 && full[off + i] != 1)
          exprs.push_back(getAffineConstantExpr(0, ctx));
        else
          exprs.push_back(fullExprs[off + i]);
      }
      inputs.push_back(mask);
      maps.push_back(AffineMap::get(5, 0, exprs, ctx));
    }
    // kv_length L, clamped to [0, Skv] in the body: positions j >= L are
    // excluded, and `causal` aligns at L (limit i + L - Sq). The scores are
    // still computed over the whole [Sq, Skv] (this is the reference path;
    // the flash lowering visits ceil(L / Tk) tiles only).
    Value kvLength = adaptor.getKvLength();
    int kvIndex = -1;
    if (kvLength) {
      kvIndex = inputs.size();
      inputs.push_back(kvLength);
      maps.push_back(AffineMap::get(5, 0, {}, ctx));
    }
    bool causal = op.getCausal();
    std::optional<APFloat> excludedScore = op.getExcludedScore();
    // Run-time Sq and Skv where dynamic (used by the causal limit and the
    // clamp of L).
    Value sqV, skvV;
    if (ShapedType::isDynamic(sq) && causal)
      sqV = tensor::DimOp::create(rewriter, loc, q, 2);
    if (ShapedType::isDynamic(skv) && (causal || kvLength))
      skvV = tensor::DimOp::create(rewriter, loc, k, 2);
    SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
    Value lInit =
        createEmptyTensor(rewriter, loc, s5Shape, rewriter.getF32Type());
    Value logits = buildGeneric(
        rewriter, loc, s5Shape, rewriter.getF32Type(), inputs, maps, iters,
        rewriter.getMultiDimIdentityMap(5), lInit,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value val = capAttentionScore(
              b, l, op,
              arith::MulFOp::create(b, l, a[0], f32Const(b, l, scale)));
          Value ninf;
          if ((mask && boolMask) || causal || kvLength)
            ninf = arith::ConstantOp::create(b, l, negInfF32(b));
          if (mask && !boolMask)
            val = arith::AddFOp::create(b, l, val, a[1]);
          // excluded_score e: an excluded position scores e instead.
          if (mask && boolMask)
            val = arith::SelectOp::create(
                b, l, a[1], val,
                excludedScore ? f32Const(b, l, excludedScore->convertToDouble())
                              : ninf);
          auto sizeOf = [&](Value v, int64_t c) -> Value {
            return v ? v : indexConst(b, l, c);
          };
          Value len; // Lc = clamp(L, 0, Skv)
          if (kvLength) {
            Value raw =
                arith::IndexCastOp::create(b, l, b.getIndexType(), a[kvIndex]);
            len = arith::MaxSIOp::create(
                b, l, arith::MinSIOp::create(b, l, raw, sizeOf(skvV, skv)),
                indexConst(b, l, 0));
            Value j = linalg::IndexOp::create(b, l, 4);
            Value keep =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, len);
            val = arith::SelectOp::create(b, l, keep, val, ninf);
          }
          if (causal) {
            Value i = linalg::IndexOp::create(b, l, 3);
            Value j = linalg::IndexOp::create(b, l, 4);
            Value limit;
            if (!len && !ShapedType::isDynamic(sq) &&
                !ShapedType::isDynamic(skv))
              limit = skv == sq ? i
                                : arith::AddIOp::create(
                                      b, l, i, indexConst(b, l, skv - sq))
                                      .getResult();
            else if (!len && skv == sq) // Both the one dynamic sequence.
              limit = i;
            else
              limit = arith::AddIOp::create(
                  b, l, i,
                  arith::SubIOp::create(b, l, len ? len : sizeOf(skvV, skv),
                                        sizeOf(sqV, sq)));
            Value keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle,
                                               j, limit);
            val = arith::SelectOp::create(b, l, keep, val, ninf);
          }
          return val;
        });
    SmallVector<bool> reduced{false, false, false, false, true};
    Value p = buildSoftmax(rewriter, loc, logits, reduced,
                           rewriter.getF32Type(), /*guardMasked=*/true);
    Value p3 = tensor::CollapseShapeOp::create(
        rewriter, loc, p, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value oInit = zeros3(dv, Value());
    Value o =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{oInit.getType()},
                                      ValueRange{p3, v3}, ValueRange{oInit})
            .getResult(0);
    o = convertTensorFromF32(rewriter, loc, o, et);
    Value o5 = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({bsz, hkv, g, sq, dv}, et), o,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}, {4}});
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, type, o5,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    rewriter.replaceOp(op, bshd ? swapHeads(result) : result);
    return success();
  }
};

} // namespace

void mlir::llm::detail::populateAttentionToLinalgPatterns(
    RewritePatternSet &patterns, bool dynamicOnly) {
  patterns.add<RopeLowering>(patterns.getContext());
  patterns.add<AttentionLowering>(patterns.getContext(), dynamicOnly);
}
