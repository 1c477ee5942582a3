//===- Fuse.cpp - llm-fuse: fusion groups and horizontal fusion -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-fuse`: horizontal fusion of matmuls that share
// their lhs (one matmul against concatenated constant weights, then slices)
// and the formation of `llm.fusion_group` regions (matmul/norm/softmax
// anchors with their elementwise epilogues and prologues), with a cost rule
// that decides when a cheap producer shared by several groups is duplicated
// into each of them rather than materialized.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/SliceColumns.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "llm-fuse"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFUSEPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Cost rule
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::llm::getRecomputeCost(Operation *op) {
  // quant.scast reinterprets storage (the view of an integer matmul's
  // accumulator as a quantized type): free.
  if (isa<BroadcastToOp, CastOp, quant::StorageCastOp>(op))
    return 0;
  // Elementwise (re)quantization: a division or product, a rounding and a
  // clamp; with a scale attribute (FP8), a bit-level conversion.
  if (isa<QuantizeOp, DequantizeOp, RequantizeOp>(op))
    return 4;
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp, ReluOp, ReciprocalOp,
          SqrtOp, RsqrtOp, AbsOp, FloorOp, CeilOp, RoundOp>(op))
    return 1;
  if (isa<ExpOp, LogOp, TanhOp, ErfOp, SigmoidOp, PowOp, SinOp, CosOp, RemOp,
          AcosOp, AsinOp, AtanOp>(op))
    return 4;
  if (isa<SiluOp>(op))
    return 5;
  if (isa<GeluOp>(op))
    return 8;
  return std::nullopt;
}

/// Elementwise ops that may extend a group as its epilogue.
static bool isElementwise(Operation *op) {
  return !isa<BroadcastToOp>(op) && getRecomputeCost(op).has_value();
}

/// Ops that start a group.
static bool isAnchor(Operation *op) {
  // A dynamic (sequence) dimension is tiled like a static one sized at its
  // bound (llm-tile-and-vectorize), except in the integer matmul.
  if (isa<MatmulIntegerOp>(op) &&
      llvm::any_of(op->getResultTypes(), [](Type t) {
        auto st = dyn_cast<ShapedType>(t);
        return st && !st.hasStaticShape();
      }))
    return false;
  return isa<MatmulOp, MatmulIntegerOp, LayerNormOp, RmsNormOp, SoftmaxOp>(op);
}

/// A layer_norm or rms_norm whose normalized dimensions are the last one
/// alone (each row of a matmul's lhs is normalized by itself).
static bool normalizesLastDimOnly(Operation *op) {
  // rms_norm normalizes the last dimension by definition.
  if (isa<RmsNormOp>(op))
    return true;
  auto ln = dyn_cast<LayerNormOp>(op);
  if (!ln)
    return false;
  int64_t rank = cast<ShapedType>(ln.getType()).getRank();
  int64_t axis = ln.getAxis();
  return axis == -1 || axis == rank - 1;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

//===----------------------------------------------------------------------===//
// Horizontal fusion
//===----------------------------------------------------------------------===//

/// The bytes of a float constant, row-major and little-endian, with a splat
/// expanded.
static FailureOr<SmallVector<char>> readBytes(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  auto ft = dyn_cast<FloatType>(type.getElementType());
  if (!ft || ft.getWidth() % 8 != 0 || !type.hasStaticShape())
    return failure();
  size_t width = ft.getWidth() / 8;
  size_t total = static_cast<size_t>(type.getNumElements()) * width;
  ArrayRef<char> raw;
  bool splat = false;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw = dense.getRawData();
    splat = dense.isSplat();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return failure();
    raw = blob->getData();
  } else {
    return failure();
  }
  SmallVector<char> bytes;
  if (splat) {
    if (raw.size() != width)
      return failure();
    bytes.reserve(total);
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      bytes.append(raw.begin(), raw.end());
    return bytes;
  }
  if (raw.size() != total)
    return failure();
  bytes.assign(raw.begin(), raw.end());
  return bytes;
}

/// Concatenates rank-1 or rank-2 float constants along `axis` into a
/// constant of `type`: an inline `dense` attribute when every input is
/// inline, else a `dense_resource` blob named after `name`.
static FailureOr<ElementsAttr> concatConstants(ArrayRef<ElementsAttr> parts,
                                               int64_t axis,
                                               RankedTensorType type,
                                               StringRef name) {
  size_t width = type.getElementTypeBitWidth() / 8;
  SmallVector<SmallVector<char>> data;
  bool allInline = true;
  for (ElementsAttr part : parts) {
    FailureOr<SmallVector<char>> bytes = readBytes(part);
    if (failed(bytes))
      return failure();
    data.push_back(std::move(*bytes));
    allInline &= isa<DenseElementsAttr>(part);
  }
  SmallVector<char> out;
  out.reserve(static_cast<size_t>(type.getNumElements()) * width);
  if (axis == 0) {
    for (const SmallVector<char> &d : data)
      out.append(d.begin(), d.end());
  } else {
    int64_t rows = type.getDimSize(0);
    for (int64_t r = 0; r < rows; ++r)
      for (auto [part, d] : llvm::zip(parts, data)) {
        size_t rowBytes = static_cast<size_t>(
                              cast<ShapedType>(part.getType()).getDimSize(1)) *
                          width;
        out.append(d.begin() + r * rowBytes, d.begin() + (r + 1) * rowBytes);
      }
  }
  if (allInline)
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, out));
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(
      type, name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(out, alignof(uint64_t))));
}

namespace {

/// The 2-D constant weight of a matmul fusible horizontally, or null.
ConstantOp getFusibleWeight(MatmulOp op) {
  if (op.getTransposeA())
    return nullptr;
  auto c = op.getRhs().getDefiningOp<ConstantOp>();
  if (!c || c.getType().getRank() != 2 || shapeOf(op.getLhs()).size() < 2)
    return nullptr;
  return c;
}

/// The constant bias `[N]` added to `value` (a matmul's result, or its
/// rounding) by its only user, or null.
std::pair<AddOp, ConstantOp> getFusibleBias(Value value) {
  if (!value.hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*value.getUsers().begin());
  if (!add || add->getBlock() != value.getParentBlock() ||
      add.getType() != value.getType())
    return {};
  Value other = add.getLhs() == value ? add.getRhs() : add.getLhs();
  auto c = other.getDefiningOp<ConstantOp>();
  int64_t n = cast<ShapedType>(value.getType()).getShape().back();
  if (!c || c.getType().getRank() != 1 || c.getType().getDimSize(0) != n)
    return {};
  return {add, c};
}

/// The `llm.cast` that is the only user of `op`'s result (the rounding of a
/// matmul that llm-promote-contraction-inputs runs in f32), or null.
CastOp getFusibleCast(MatmulOp op) {
  if (!op->hasOneUse())
    return nullptr;
  auto c = dyn_cast<CastOp>(*op->getUsers().begin());
  if (!c || c->getBlock() != op->getBlock())
    return nullptr;
  return c;
}

// matmul(x, W1) ... matmul(x, Wn) with constant W_i [K, N_i] ->
//   y = matmul(x, concat(W1..Wn, axis 1)); slice(y, [.., off_i : off_i + N_i])
// and, when each matmul's only user adds a constant bias [N_i],
//   add(matmul(x, W1|..|Wn), b1|..|bn) then the slices.
// When each matmul's only user is a cast to the same type (the rounding of
// an f16 matmul run in f32), the cast is taken along, before the bias:
//   add(cast(matmul(x, W1|..|Wn)), b1|..|bn) then the slices.
struct FuseSiblingMatmuls : OpRewritePattern<MatmulOp> {
  FuseSiblingMatmuls(MLIRContext *ctx, int64_t *numFused)
      : OpRewritePattern(ctx), numFused(numFused) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    ConstantOp weight = getFusibleWeight(op);
    if (!weight)
      return rewriter.notifyMatchFailure(op, "rhs is not a 2-D constant");
    // A dynamic (sequence) dimension is kept whole by the slices, with the
    // declared bound as its limit (as the ONNX importer writes them).
    int64_t seqBound = 0;
    if (!cast<ShapedType>(op.getType()).hasStaticShape()) {
      std::optional<int64_t> bound = getSequenceBound(op);
      if (!bound)
        return rewriter.notifyMatchFailure(op, "dynamic shape, no bound");
      seqBound = *bound;
    }
    bool tb = op.getTransposeB();
    Type et = weight.getType().getElementType();
    int64_t k = weight.getType().getDimSize(tb ? 1 : 0);
    Value lhs = op.getLhs();

    // Siblings: same lhs, same layout of the weight, same K.
    SmallVector<MatmulOp> siblings;
    for (Operation *user : lhs.getUsers()) {
      auto mm = dyn_cast<MatmulOp>(user);
      if (!mm || mm.getLhs() != lhs || mm->getBlock() != op->getBlock() ||
          mm.getTransposeB() != tb || llvm::is_contained(siblings, mm))
        continue;
      ConstantOp w = getFusibleWeight(mm);
      if (!w || w.getType().getElementType() != et ||
          w.getType().getDimSize(tb ? 1 : 0) != k)
        continue;
      siblings.push_back(mm);
    }
    if (siblings.size() < 2)
      return rewriter.notifyMatchFailure(op, "no sibling matmul");
    llvm::sort(siblings,
               [](MatmulOp a, MatmulOp b) { return a->isBeforeInBlock(b); });
    // Rewrite once, from the first sibling.
    if (siblings.front() != op)
      return failure();

    SmallVector<ElementsAttr> weights, biases;
    SmallVector<AddOp> adds;
    SmallVector<CastOp> casts;
    SmallVector<int64_t> widths;
    for (MatmulOp mm : siblings) {
      CastOp c = getFusibleCast(mm);
      if (!c ||
          (!casts.empty() && getElementTypeOrSelf(c.getType()) !=
                                 getElementTypeOrSelf(casts[0].getType())))
        break;
      casts.push_back(c);
    }
    bool withCast = casts.size() == siblings.size();
    bool withBias = true;
    for (auto [i, mm] : llvm::enumerate(siblings)) {
      ConstantOp w = getFusibleWeight(mm);
      weights.push_back(w.getValue());
      widths.push_back(w.getType().getDimSize(tb ? 0 : 1));
      auto [add, bias] =
          getFusibleBias(withCast ? casts[i].getResult() : mm.getResult());
      withBias &= static_cast<bool>(add);
      if (add) {
        adds.push_back(add);
        biases.push_back(bias.getValue());
      }
    }
    int64_t total = 0;
    for (int64_t w : widths)
      total += w;

    Location loc = rewriter.getFusedLoc(llvm::to_vector(
        llvm::map_range(siblings, [](MatmulOp m) { return m.getLoc(); })));
    auto wType = RankedTensorType::get(
        tb ? ArrayRef<int64_t>{total, k} : ArrayRef<int64_t>{k, total}, et);
    FailureOr<ElementsAttr> wAttr =
        concatConstants(weights, tb ? 0 : 1, wType, "fused_weight");
    if (failed(wAttr))
      return rewriter.notifyMatchFailure(op, "unreadable weight constant");
    FailureOr<ElementsAttr> bAttr = failure();
    if (withBias) {
      Type biasType = withCast ? getElementTypeOrSelf(casts[0].getType()) : et;
      bAttr = concatConstants(
          biases, 0, RankedTensorType::get({total}, biasType), "fused_bias");
      withBias = succeeded(bAttr);
    }

    rewriter.setInsertionPoint(op);
    Value w = ConstantOp::create(rewriter, loc, *wAttr);
    Value y = MatmulOp::create(rewriter, loc, lhs, w, /*transpose_a=*/nullptr,
                               tb ? rewriter.getUnitAttr() : nullptr);
    if (withCast) {
      auto yType = cast<RankedTensorType>(y.getType());
      y = CastOp::create(rewriter, loc,
                         yType.clone(getElementTypeOrSelf(casts[0].getType())),
                         y);
    }
    if (withBias) {
      Value b = ConstantOp::create(rewriter, loc, *bAttr);
      y = AddOp::create(rewriter, loc, y, b);
    }
    ArrayRef<int64_t> shape = shapeOf(y);
    int64_t rank = shape.size();
    int64_t offset = 0;
    for (auto [i, mm] : llvm::enumerate(siblings)) {
      SmallVector<int64_t> starts(rank, 0), limits(shape), strides(rank, 1);
      for (int64_t &l : limits)
        if (ShapedType::isDynamic(l))
          l = seqBound;
      starts.back() = offset;
      limits.back() = offset + widths[i];
      offset += widths[i];
      Value slice = SliceOp::create(rewriter, mm.getLoc(), y,
                                    rewriter.getDenseI64ArrayAttr(starts),
                                    rewriter.getDenseI64ArrayAttr(limits),
                                    rewriter.getDenseI64ArrayAttr(strides));
      // The ops the slice replaces: the bias add, the cast, the matmul.
      if (withBias)
        rewriter.replaceOp(adds[i], slice);
      if (withCast)
        withBias ? rewriter.eraseOp(casts[i])
                 : rewriter.replaceOp(casts[i], slice);
      if (withBias || withCast)
        rewriter.eraseOp(mm);
      else
        rewriter.replaceOp(mm, slice);
    }
    if (numFused)
      *numFused += siblings.size();
    return success();
  }

  int64_t *numFused;
};

/// Positions operands that hold the same values: the same value, reshapes
/// of one value to one type, or equal constants.
static bool samePositions(Value a, Value b) {
  if (a == b)
    return true;
  if (a.getType() != b.getType())
    return false;
  auto ra = a.getDefiningOp<ReshapeOp>(), rb = b.getDefiningOp<ReshapeOp>();
  if (ra && rb)
    return samePositions(ra.getInput(), rb.getInput());
  Attribute ca, cb;
  return matchPattern(a, m_Constant(&ca)) && matchPattern(b, m_Constant(&cb)) &&
         ca == cb;
}

/// Ropes that rotate alike: the same mode, theta, rotary_dims, element type
/// and positions (samePositions), so that one rope can do the work of both.
static bool sameRotation(RopeOp a, RopeOp b) {
  return a.getMode() == b.getMode() && a.getTheta() == b.getTheta() &&
         a.getRotaryDims() == b.getRotaryDims() &&
         a.getType().getElementType() == b.getType().getElementType() &&
         samePositions(a.getPositions(), b.getPositions());
}

/// The rope of a head split of the last-dimension range [lo, hi) of `x`:
/// `rope(reshape(slice(x)) : [..., H, D])`, the slice (unit strides, all of
/// every other dimension) and the reshape (splitting only the last
/// dimension) used only here.
struct SlicedRope {
  RopeOp rope;
  SliceOp slice;
  int64_t lo = 0, hi = 0, heads = 0, headDim = 0;
};

static std::optional<SlicedRope> matchSlicedRope(RopeOp rope) {
  auto reshape = rope.getInput().getDefiningOp<ReshapeOp>();
  if (!reshape || !reshape->hasOneUse())
    return std::nullopt;
  auto slice = reshape.getInput().getDefiningOp<SliceOp>();
  if (!slice || !slice->hasOneUse())
    return std::nullopt;
  auto xt = cast<RankedTensorType>(slice.getInput().getType());
  auto st = cast<RankedTensorType>(slice.getType());
  auto rt = cast<RankedTensorType>(reshape.getType());
  int64_t rank = xt.getRank();
  // The sliced (last) dimension and the heads are static; a dynamic
  // (sequence) dimension before them is taken whole (start 0, stride 1:
  // what llm.slice does with one), as every other dimension must be.
  std::optional<std::pair<int64_t, int64_t>> cols = getSlicedColumns(slice);
  if (!cols || rt.getRank() != rank + 1 || rt.isDynamicDim(rank - 1) ||
      rt.isDynamicDim(rank) ||
      rt.getShape().take_front(rank - 1) != st.getShape().take_front(rank - 1))
    return std::nullopt;
  // The positions must not vary over the heads (so that they also cover
  // the other rope's heads).
  // (They broadcast to [..., S, H] right-aligned: the last dimension is
  // the heads'.)
  auto pt = cast<RankedTensorType>(rope.getPositions().getType());
  if (pt.getRank() >= 1 && pt.getShape().back() != 1)
    return std::nullopt;
  SlicedRope r;
  r.rope = rope;
  r.slice = slice;
  r.lo = cols->first;
  r.hi = cols->second;
  r.heads = rt.getDimSize(rank - 1);
  r.headDim = rt.getDimSize(rank);
  return r;
}

/// rope(reshape(slice(x, [.., a:b])) : [.., Hq, D], pos)      (queries)
/// rope(reshape(slice(x, [.., b:c])) : [.., Hk, D], pos)      (keys)
///   -> r = rope(reshape(slice(x, [.., a:c])) : [.., Hq + Hk, D], pos)
///      queries = slice(r, heads [0, Hq)), keys = slice(r, heads [Hq, ..))
/// when both ropes have the same mode, theta, rotary_dims and positions (not
/// varying over the heads): the query and key projections of a horizontally
/// fused matmul are rotated by one kernel instead of two.
struct MergeAdjacentRopes final : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SlicedRope> a = matchSlicedRope(op);
    if (!a)
      return failure();
    Value x = a->slice.getInput();
    for (Operation *user : x.getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice || slice == a->slice || !slice->hasOneUse())
        continue;
      auto reshape = dyn_cast<ReshapeOp>(*slice->getUsers().begin());
      if (!reshape || !reshape->hasOneUse())
        continue;
      auto rope = dyn_cast<RopeOp>(*reshape->getUsers().begin());
      if (!rope)
        continue;
      std::optional<SlicedRope> b = matchSlicedRope(rope);
      if (!b || b->lo != a->hi || b->headDim != a->headDim ||
          !sameRotation(rope, op))
        continue;
      // Build at the first of the two ropes, with its positions.
      RopeOp first = op->isBeforeInBlock(rope) ? op : rope;
      if (op->getBlock() != rope->getBlock())
        continue;
      rewriter.setInsertionPoint(first);
      Location loc = op.getLoc();
      auto xt = cast<RankedTensorType>(x.getType());
      int64_t rank = xt.getRank();
      // A dynamic dimension keeps the limit it had (taken whole).
      SmallVector<int64_t> starts(rank, 0), limits(a->slice.getLimits()),
          strides(rank, 1);
      starts.back() = a->lo;
      limits.back() = b->hi;
      SmallVector<int64_t> sliceShape(xt.getShape());
      sliceShape.back() = b->hi - a->lo;
      auto merged = SliceOp::create(
          rewriter, loc, RankedTensorType::get(sliceShape, xt.getElementType()),
          x, rewriter.getDenseI64ArrayAttr(starts),
          rewriter.getDenseI64ArrayAttr(limits),
          rewriter.getDenseI64ArrayAttr(strides));
      SmallVector<int64_t> headsShape(xt.getShape().drop_back());
      headsShape.push_back(a->heads + b->heads);
      headsShape.push_back(a->headDim);
      auto headsType = RankedTensorType::get(headsShape, xt.getElementType());
      Value split = ReshapeOp::create(rewriter, loc, headsType, merged);
      Value rotated = RopeOp::create(rewriter, loc, headsType, split,
                                     first.getPositions(), op.getModeAttr(),
                                     op.getThetaAttr(), op.getRotaryDimsAttr());
      auto headSlice = [&](RopeOp old, int64_t lo, int64_t hi) {
        SmallVector<int64_t> s(rank + 1, 0), l(headsShape), st(rank + 1, 1);
        for (int64_t d = 0; d + 1 < rank; ++d)
          if (ShapedType::isDynamic(l[d]))
            l[d] = limits[d];
        s[rank - 1] = lo;
        l[rank - 1] = hi;
        Value v = SliceOp::create(rewriter, loc, old.getType(), rotated,
                                  rewriter.getDenseI64ArrayAttr(s),
                                  rewriter.getDenseI64ArrayAttr(l),
                                  rewriter.getDenseI64ArrayAttr(st));
        rewriter.replaceOp(old, v);
      };
      headSlice(op, 0, a->heads);
      headSlice(rope, a->heads, a->heads + b->heads);
      return success();
    }
    return failure();
  }
};

/// rope(slice(x, [.., a:a+D]), pos)      (queries of each head)
/// rope(slice(x, [.., a+D:a+2D]), pos)   (keys of each head)
///   -> r = rope(reshape(slice(x, [.., a:a+2D])) : [.., 2, D],
///               reshape(pos) : pos.shape + [1])
///      queries = reshape(slice(r, [.., 0:1, :])) : [.., D]
///      keys    = reshape(slice(r, [.., 1:2, :])) : [.., D]
/// when both ropes have the same mode, theta, rotary_dims, element type and
/// positions: a fused query_key_value projection that holds each head's
/// query, key and value side by side (GPT-NeoX / Pythia: [.., H, 3D]) is
/// rotated by one kernel instead of two. The new pair dimension is a row
/// dimension of the rope, whose positions do not vary over it.
struct MergeColumnRopes final : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getInput().getDefiningOp<SliceOp>();
    if (!slice)
      return failure();
    std::optional<std::pair<int64_t, int64_t>> cols = getSlicedColumns(slice);
    if (!cols)
      return failure();
    auto [lo, hi] = *cols;
    int64_t d = hi - lo;
    Value x = slice.getInput();
    for (Operation *user : x.getUsers()) {
      auto other = dyn_cast<SliceOp>(user);
      if (!other || other == slice ||
          getSlicedColumns(other) != std::make_pair(hi, hi + d))
        continue;
      for (Operation *otherUser : other->getUsers()) {
        auto rope = dyn_cast<RopeOp>(otherUser);
        // (The same columns' width of one x: the types are equal too.)
        if (!rope || rope.getInput() != other.getResult() ||
            rope->getBlock() != op->getBlock() || !sameRotation(rope, op))
          continue;
        RopeOp first = op->isBeforeInBlock(rope) ? op : rope;
        rewriter.setInsertionPoint(first);
        Location loc = op.getLoc();
        auto xt = cast<RankedTensorType>(x.getType());
        int64_t rank = xt.getRank();
        Type et = xt.getElementType();
        // The two column ranges as one slice (a dynamic dimension keeps the
        // limit it had: taken whole), split into [.., 2, D].
        SmallVector<int64_t> starts(rank, 0), limits(slice.getLimits()),
            strides(rank, 1);
        starts.back() = lo;
        limits.back() = hi + d;
        SmallVector<int64_t> pairShape(xt.getShape());
        pairShape.back() = 2 * d;
        Value both =
            SliceOp::create(rewriter, loc, RankedTensorType::get(pairShape, et),
                            x, rewriter.getDenseI64ArrayAttr(starts),
                            rewriter.getDenseI64ArrayAttr(limits),
                            rewriter.getDenseI64ArrayAttr(strides));
        pairShape.back() = 2;
        pairShape.push_back(d);
        auto pairType = RankedTensorType::get(pairShape, et);
        Value split = ReshapeOp::create(rewriter, loc, pairType, both);
        Value pos = first.getPositions();
        auto posType = cast<RankedTensorType>(pos.getType());
        SmallVector<int64_t> posShape(posType.getShape());
        posShape.push_back(1);
        Value pos1 = ReshapeOp::create(
            rewriter, loc,
            RankedTensorType::get(posShape, posType.getElementType()), pos);
        Value rotated = RopeOp::create(rewriter, loc, pairType, split, pos1,
                                       op.getModeAttr(), op.getThetaAttr(),
                                       op.getRotaryDimsAttr());
        auto member = [&](RopeOp old, int64_t m) {
          SmallVector<int64_t> s(rank + 1, 0), l(limits), st(rank + 1, 1);
          l.back() = m + 1;
          l.push_back(d);
          s[rank - 1] = m;
          SmallVector<int64_t> oneShape(pairShape);
          oneShape[rank - 1] = 1;
          Value v = SliceOp::create(rewriter, loc,
                                    RankedTensorType::get(oneShape, et),
                                    rotated, rewriter.getDenseI64ArrayAttr(s),
                                    rewriter.getDenseI64ArrayAttr(l),
                                    rewriter.getDenseI64ArrayAttr(st));
          rewriter.replaceOpWithNewOp<ReshapeOp>(old, old.getType(), v);
        };
        member(op, 0);
        member(rope, 1);
        return success();
      }
    }
    return failure();
  }
};

} // namespace

void mlir::llm::populateHorizontalMatmulFusionPatterns(
    RewritePatternSet &patterns, int64_t *numFused) {
  patterns.add<FuseSiblingMatmuls>(patterns.getContext(), numFused);
  patterns.add<MergeAdjacentRopes, MergeColumnRopes>(patterns.getContext());
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

/// True if `use` may read a value computed inside the user's group: every
/// operand except the weights (rhs) of a matmul, which would be recomputed
/// for every tile.
static bool isFusibleUse(OpOperand &use) {
  if (!isa<MatmulOp, MatmulIntegerOp>(use.getOwner()))
    return true;
  return use.getOperandNumber() == 0;
}

void mlir::llm::formFusionGroups(RewriterBase &rewriter, Block &block,
                                 const FusionOptions &options,
                                 FusionStatistics &stats) {
  DenseMap<Operation *, unsigned> groupOf;
  SmallVector<SmallVector<Operation *>> groups;

  // Anchors and their epilogues: the chain of single users that are
  // elementwise ops of the same shape.
  for (Operation &op : block) {
    if (!isAnchor(&op) || groupOf.count(&op))
      continue;
    unsigned id = groups.size();
    groups.push_back({&op});
    groupOf[&op] = id;
    Operation *tail = &op;
    while (tail->getNumResults() == 1 && tail->getResult(0).hasOneUse()) {
      Operation *user = *tail->getResult(0).getUsers().begin();
      if (user->getBlock() != &block || !isElementwise(user) ||
          groupOf.count(user) || user->getNumResults() != 1 ||
          shapeOf(user->getResult(0)) != shapeOf(tail->getResult(0)))
        break;
      groups[id].push_back(user);
      groupOf[user] = id;
      ++stats.opsFused;
      tail = user;
    }
  }

  // Norm prologues: norm(x) -> matmul(norm(x), W) as one group for a few
  // rows (a decode step), so that each outer tile of the matmul normalizes
  // the rows it multiplies (the tiles split N and each normalizes the rows
  // again: K elements per row next to the K x N / threads multiply-adds of
  // its tile) instead of a kernel of its own. With many rows (prefill) the
  // norm stays a kernel: measured 3-5% faster on a GPT-2 block (its
  // vectorized row kernel against the norm computed inside the tiles).
  if (options.normPrologueMaxRows > 0) {
    for (unsigned id = 0; id < groups.size(); ++id) {
      SmallVector<Operation *> &norm = groups[id];
      if (norm.empty() || !isa<LayerNormOp, RmsNormOp>(norm.front()) ||
          !normalizesLastDimOnly(norm.front()))
        continue;
      auto normType = cast<ShapedType>(norm.front()->getResult(0).getType());
      if (!normType.hasStaticShape() ||
          normType.getNumElements() /
                  std::max<int64_t>(1, normType.getShape().back()) >
              options.normPrologueMaxRows)
        continue;
      Operation *tail = norm.back();
      if (tail->getNumResults() != 1 || !tail->getResult(0).hasOneUse() ||
          llvm::any_of(norm, [](Operation *m) {
            return llvm::any_of(m->getResultTypes(), [](Type t) {
              return !cast<ShapedType>(t).hasStaticShape();
            });
          }))
        continue;
      OpOperand &use = *tail->getResult(0).getUses().begin();
      auto matmul = dyn_cast<MatmulOp>(use.getOwner());
      auto it = groupOf.find(use.getOwner());
      if (!matmul || it == groupOf.end() || use.getOperandNumber() != 0 ||
          matmul.getTransposeA() || it->second == id ||
          !matmul.getType().hasStaticShape())
        continue;
      unsigned target = it->second;
      for (Operation *m : norm) {
        groups[target].push_back(m);
        groupOf[m] = target;
      }
      stats.opsFused += norm.size();
      ++stats.normPrologues;
      norm.clear();
    }
  }

  // Prologues: producers whose users are all in groups, absorbed (one
  // group) or duplicated (several groups, cost rule), to a fixed point.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> candidates;
    for (Operation &op : llvm::reverse(block))
      if (!groupOf.count(&op) && op.getNumResults() == 1 &&
          getRecomputeCost(&op) && !op.getResult(0).use_empty())
        candidates.push_back(&op);
    for (Operation *op : candidates) {
      llvm::SetVector<unsigned> userGroups;
      bool allFusible = true;
      for (OpOperand &use : op->getResult(0).getUses()) {
        auto it = groupOf.find(use.getOwner());
        if (it == groupOf.end() || !isFusibleUse(use)) {
          allFusible = false;
          break;
        }
        userGroups.insert(it->second);
      }
      if (!allFusible)
        continue;
      if (userGroups.size() == 1) {
        groups[userGroups[0]].push_back(op);
        groupOf[op] = userGroups[0];
        ++stats.opsFused;
        changed = true;
        continue;
      }
      int64_t cost = *getRecomputeCost(op);
      int64_t fanOut =
          std::distance(op->getUsers().begin(), op->getUsers().end());
      if (cost != 0 &&
          (cost > options.maxRecomputeOps || fanOut > options.maxFanOut))
        continue;
      rewriter.setInsertionPoint(op);
      for (unsigned id : userGroups) {
        Operation *clone = rewriter.clone(*op);
        rewriter.replaceUsesWithIf(
            op->getResult(0), clone->getResult(0), [&](OpOperand &use) {
              auto it = groupOf.find(use.getOwner());
              return it != groupOf.end() && it->second == id;
            });
        groups[id].push_back(clone);
        groupOf[clone] = id;
        ++stats.opsFused;
      }
      rewriter.eraseOp(op);
      ++stats.duplicated;
      changed = true;
    }
  }

  // One region per group, placed at its last op. A matmul alone is not a
  // group (it is one loop nest anyway); a norm or softmax alone is (it
  // lowers to several linalg ops, fused by the group's lowering).
  for (SmallVector<Operation *> &members : groups) {
    // (Emptied: merged into another group.)
    if (members.empty() ||
        (members.size() < 2 && isa<MatmulOp>(members.front())))
      continue;
    llvm::sort(members, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Operation *tail = members.back();
    llvm::SmallPtrSet<Operation *, 8> inGroup(members.begin(), members.end());
    // Only the last op's values may leave the group (true by construction;
    // checked so that a violation never produces invalid IR).
    bool closed =
        llvm::all_of(ArrayRef(members).drop_back(), [&](Operation *m) {
          return llvm::all_of(
              m->getUsers(), [&](Operation *u) { return inGroup.contains(u); });
        });
    if (!closed)
      continue;
    rewriter.setInsertionPoint(tail);
    auto group =
        FusionGroupOp::create(rewriter, tail->getLoc(), tail->getResultTypes());
    Block *body = rewriter.createBlock(&group.getBody());
    for (Operation *m : members)
      m->moveBefore(body, body->end());
    rewriter.setInsertionPointToEnd(body);
    YieldOp::create(rewriter, tail->getLoc(), tail->getResults());
    rewriter.replaceUsesWithIf(
        tail->getResults(), group.getResults(),
        [&](OpOperand &use) { return !group->isAncestor(use.getOwner()); });
    ++stats.groups;
  }
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LLMFusePass : llm::impl::LLMFusePassBase<LLMFusePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (maxRecomputeOps < 0 || maxFanOut < 0 || normPrologueMaxRows < 0) {
      root->emitError() << "llm-fuse: max-recompute-ops, max-fan-out and "
                           "norm-prologue-max-rows must be >= 0";
      return signalPassFailure();
    }
    stats = FusionStatistics();
    horizontalFused = 0;
    if (horizontal) {
      int64_t fused = 0;
      RewritePatternSet patterns(&getContext());
      populateHorizontalMatmulFusionPatterns(patterns, &fused);
      // Only the new ops are visited again; constants are not folded.
      GreedyRewriteConfig config;
      config.enableFolding(false);
      if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
        return signalPassFailure();
      numHorizontal += fused;
      horizontalFused = fused;
    }
    if (groups)
      formGroups();
    // The figures also go to the compile report: the pass statistics above
    // are compiled out of release builds of LLVM (NoopStatistic).
    if (auto module = dyn_cast<ModuleOp>(getOperation())) {
      recordReportValue(module, "fusion_groups", stats.groups);
      recordReportValue(module, "fused_ops", stats.opsFused);
      recordReportValue(module, "duplicated_producers", stats.duplicated);
      if (normPrologueMaxRows > 0)
        recordReportValue(module, "norm_prologues", stats.normPrologues);
      recordReportValue(module, "horizontally_fused_matmuls", horizontalFused);
    }
  }

  void formGroups() {
    Operation *root = getOperation();
    FusionOptions options;
    options.maxRecomputeOps = maxRecomputeOps;
    options.maxFanOut = maxFanOut;
    options.normPrologueMaxRows = normPrologueMaxRows;
    IRRewriter rewriter(&getContext());
    // Blocks of function bodies (and other regions), not of groups that an
    // earlier run formed.
    SmallVector<Block *> blocks;
    root->walk([&](Block *block) {
      if (!isa<FusionGroupOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      formFusionGroups(rewriter, *block, options, stats);
    if (attentionGroups) {
      SmallVector<AttentionOp> attentions;
      root->walk([&](AttentionOp op) {
        if (!op->getParentOfType<FusionGroupOp>())
          attentions.push_back(op);
      });
      // attention -> fusion_group { attention; yield }
      for (AttentionOp op : attentions) {
        rewriter.setInsertionPoint(op);
        auto group = FusionGroupOp::create(rewriter, op.getLoc(),
                                           op->getResultTypes());
        Block *body = rewriter.createBlock(&group.getBody());
        op->moveBefore(body, body->end());
        rewriter.setInsertionPointToEnd(body);
        YieldOp::create(rewriter, op.getLoc(), op->getResults());
        rewriter.replaceUsesWithIf(
            op->getResults(), group.getResults(),
            [&](OpOperand &use) { return !group->isAncestor(use.getOwner()); });
        ++stats.groups;
      }
    }
    numGroups += stats.groups;
    numOpsFused += stats.opsFused;
    numDuplicated += stats.duplicated;
  }

  FusionStatistics stats;
  int64_t horizontalFused = 0;
};
} // namespace
