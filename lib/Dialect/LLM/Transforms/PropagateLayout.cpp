//===- PropagateLayout.cpp - sink transposes and reshapes to their uses --===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the layout-propagation patterns of
// `llm-optimize-layout`. Exporters move data between layouts with chains of
// transposes and reshapes around row-wise ops: torch.nn.MultiheadAttention
// (batch_first) transposes its [B, S, E] input to [S, B, E], projects it,
// splits heads as [S, B*H, D] -> [B*H, S, D], and undoes it all after the
// attention; Hugging Face's Conv1D flattens [B, S, E] to [B*S, E] around each
// addmm. The patterns move every transpose and reshape past the row-wise ops
// (matmuls by a 2-D weight, elementwise ops with constants that broadcast
// along the rows, slices) toward their uses, and rewrite each chain of
// transposes and reshapes as at most reshape -> transpose -> reshape. Chains
// that meet cancel; the head splits and merges that are left reach
// llm.attention, which absorbs them (layout bshd).
//
// Every pattern moves a transpose or reshape to a later op of the same
// use-def path, or shortens a chain, so the greedy driver terminates.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

#define DEBUG_TYPE "llm-optimize-layout"

using namespace mlir;
using namespace mlir::llm;

namespace {

RankedTensorType withShape(Type t, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape,
                               cast<RankedTensorType>(t).getElementType());
}

/// A static shape or one with a single dynamic (sequence) dimension
/// (DimBounds.h): the row-wise patterns move it like a static row
/// dimension (each row keeps its place in the sequence).
bool isStaticOrSequence(Value v) {
  return llm::isStaticOrSequence(v.getType());
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// `p^-1`.
SmallVector<int64_t> invert(ArrayRef<int64_t> p) {
  SmallVector<int64_t> inv(p.size());
  for (auto [i, d] : llvm::enumerate(p))
    inv[d] = i;
  return inv;
}

//===----------------------------------------------------------------------===//
// Transposes past row-wise ops
//===----------------------------------------------------------------------===//

/// True when `op` maps each row of its lhs on its own: a 2-D rhs (the same
/// matrix for every row), no transpose_a, a static result (or one whose
/// only dynamic dimension is the sequence, a row dimension).
bool isRowWiseMatmul(MatmulOp op) {
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  return !op.getTransposeA() && rhs.getRank() == 2 && rhs.hasStaticShape() &&
         isStaticOrSequence(op.getResult());
}

/// `op` (isRowWiseMatmul) applied to the rows of `x` instead of its lhs:
/// the same rhs and flags, the result `x`'s shape with the last dimension
/// N.
Value matmulOfRows(PatternRewriter &rewriter, MatmulOp op, Value x) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape.back() = shapeOf(op.getResult()).back();
  return MatmulOp::create(rewriter, op.getLoc(), withShape(op.getType(), shape),
                          x, op.getRhs(), op.getTransposeAAttr(),
                          op.getTransposeBAttr())
      .getResult();
}

/// matmul(transpose(x, p), w) -> transpose(matmul(x, w), p)
///   when `w` is 2-D (the same matrix for every row), `p` keeps the last
///   dimension in place, there is no transpose_a and the transpose has no
///   other user: a matmul by one matrix maps each row on its own, so it
///   commutes with any permutation of the rows.
struct SinkTransposeThroughMatmul final : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getLhs().getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse() || !isRowWiseMatmul(op) ||
        !isStaticOrSequence(t.getInput()))
      return failure();
    ArrayRef<int64_t> p = t.getPermutation();
    if (p.back() != static_cast<int64_t>(p.size()) - 1)
      return failure();
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), matmulOfRows(rewriter, op, t.getInput()),
        t.getPermutationAttr());
    return success();
  }
};

/// The constant defining `c` re-typed to `shape` (same number of
/// elements, same order): a resource blob is reused under the new type, a
/// dense attribute re-typed. Null when `c` is no such constant.
Value reshapeConstant(PatternRewriter &rewriter, Location loc, Value c,
                      ArrayRef<int64_t> shape) {
  ElementsAttr attr;
  if (!matchPattern(c, m_Constant(&attr)))
    return {};
  auto type = withShape(c.getType(), shape);
  if (type == c.getType())
    return c;
  ElementsAttr value;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    value = DenseResourceElementsAttr::get(type, res.getRawHandle());
  else if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    value = dense.reshape(type);
  else
    return {};
  return ConstantOp::create(rewriter, loc, type, value);
}

/// The constant `c` (an operand of a binary op whose other operand is
/// transpose(a, p) of the result's rank) as the operand of the binary op on
/// `a`: `c` with leading 1s to the result's rank, permuted by p^-1, then
/// without leading 1s. Only when
/// that permutation keeps the order of the dimensions of `c` that are not 1,
/// so that it is a re-typing of the same elements (a bias along the last
/// dimension, a splat); null otherwise.
Value permuteConstantOperand(PatternRewriter &rewriter, Location loc, Value c,
                             ArrayRef<int64_t> p) {
  auto ct = cast<RankedTensorType>(c.getType());
  int64_t rank = p.size();
  SmallVector<int64_t> padded(rank - ct.getRank(), 1);
  llvm::append_range(padded, ct.getShape());
  SmallVector<int64_t> inv = invert(p), shape, kept;
  for (int64_t d : inv) {
    shape.push_back(padded[d]);
    if (padded[d] != 1)
      kept.push_back(d);
  }
  if (!llvm::is_sorted(kept))
    return {};
  // Without leading 1s (they broadcast): a bias stays [N], which the matmul
  // epilogues take.
  ArrayRef<int64_t> trimmed(shape);
  while (!trimmed.empty() && trimmed.front() == 1)
    trimmed = trimmed.drop_front();
  return reshapeConstant(rewriter, loc, c, trimmed);
}

/// binary(transpose(a, p), c) -> transpose(binary(a, c'), p)
/// binary(c, transpose(a, p)) -> transpose(binary(c', a), p)
///   when `c` is a constant of at most the result's rank, the transposed
///   operand has the result's shape and the transpose no other user;
///   `c' = transpose(c with leading 1s, p^-1)` (folded at compile time).
template <typename BinOp>
struct SinkTransposeThroughBinaryWithConstant final : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op,
                                PatternRewriter &rewriter) const override {
    for (bool transposedLhs : {true, false}) {
      Value x = transposedLhs ? op.getLhs() : op.getRhs();
      Value c = transposedLhs ? op.getRhs() : op.getLhs();
      auto t = x.template getDefiningOp<TransposeOp>();
      if (!t || !t->hasOneUse() || x.getType() != op.getType() ||
          !matchPattern(c, m_Constant()) || !isStaticOrSequence(x) ||
          cast<RankedTensorType>(c.getType()).getRank() >
              static_cast<int64_t>(t.getPermutation().size()))
        continue;
      Location loc = op.getLoc();
      Value cp = permuteConstantOperand(rewriter, loc, c, t.getPermutation());
      if (!cp)
        continue;
      auto type = withShape(op.getType(), shapeOf(t.getInput()));
      Value lhs = transposedLhs ? t.getInput() : cp;
      Value rhs = transposedLhs ? cp : t.getInput();
      auto newOp = BinOp::create(rewriter, loc, type, lhs, rhs);
      rewriter.replaceOpWithNewOp<TransposeOp>(
          op, op.getType(), newOp.getResult(), t.getPermutationAttr());
      return success();
    }
    return failure();
  }
};

/// slice(transpose(a, p)) -> transpose(slice(a) with permuted bounds, p)
///   for every user of a transpose whose users are all slices (each slice
///   gets its own transpose of a smaller tensor).
struct SinkTransposeThroughSlices final : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    // (A dynamic dimension, taken whole by every slice, moves with its
    // limit.)
    if (op->use_empty() || !isStaticOrSequence(op.getInput()) ||
        !llvm::all_of(op->getUsers(),
                      [](Operation *u) { return isa<SliceOp>(u); }))
      return failure();
    if (llvm::any_of(op->getUsers(), [](Operation *u) {
          return !isStaticOrSequence(u->getResult(0));
        }))
      return failure();
    ArrayRef<int64_t> p = op.getPermutation();
    SmallVector<int64_t> inv = invert(p);
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto slice = cast<SliceOp>(user);
      SmallVector<int64_t> starts, limits, strides, shape;
      for (int64_t d : inv) {
        starts.push_back(slice.getStarts()[d]);
        limits.push_back(slice.getLimits()[d]);
        strides.push_back(slice.getStrides()[d]);
        shape.push_back(shapeOf(slice.getResult())[d]);
      }
      rewriter.setInsertionPoint(slice);
      auto s = SliceOp::create(rewriter, slice.getLoc(),
                               withShape(slice.getType(), shape), op.getInput(),
                               rewriter.getDenseI64ArrayAttr(starts),
                               rewriter.getDenseI64ArrayAttr(limits),
                               rewriter.getDenseI64ArrayAttr(strides));
      rewriter.replaceOpWithNewOp<TransposeOp>(
          slice, slice.getType(), s.getResult(), op.getPermutationAttr());
    }
    return success();
  }
};

/// concat(transpose(a0, p), ..., transpose(an, p), axis)
///   -> transpose(concat(a0, ..., an, p[axis]), p)
/// when every operand is a transpose by the same permutation (GPT-NeoX's
/// partial rotary joins the rotated and the passed-through parts of heads
/// already transposed to [B, H, S, D]).
struct SinkTransposeThroughConcat final : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    ArrayRef<int64_t> p;
    for (Value v : op.getInputs()) {
      auto t = v.getDefiningOp<TransposeOp>();
      if (!t || !isStaticOrSequence(t.getInput()) ||
          (!p.empty() && t.getPermutation() != p))
        return failure();
      p = t.getPermutation();
      inputs.push_back(t.getInput());
    }
    if (inputs.empty())
      return failure();
    int64_t rank = static_cast<int64_t>(p.size());
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<int64_t> shape;
    SmallVector<int64_t> inv = invert(p);
    for (int64_t d : inv)
      shape.push_back(shapeOf(op.getResult())[d]);
    auto concat =
        ConcatOp::create(rewriter, op.getLoc(), withShape(op.getType(), shape),
                         inputs, rewriter.getI64IntegerAttr(p[axis]));
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), concat.getResult(), rewriter.getDenseI64ArrayAttr(p));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reshapes past row-wise ops
//===----------------------------------------------------------------------===//

/// The number of trailing dimensions that `a` and `b` share (equal static
/// sizes, counted from the last).
int64_t commonTrailingDims(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  int64_t n = 0;
  while (n < static_cast<int64_t>(a.size()) &&
         n < static_cast<int64_t>(b.size()) &&
         !ShapedType::isDynamic(a[a.size() - 1 - n]) &&
         a[a.size() - 1 - n] == b[b.size() - 1 - n])
    ++n;
  return n;
}

/// matmul(reshape(x), w) -> reshape(matmul(x, w))
///   when `w` is 2-D, `x` has rank >= 2, there is no transpose_a, the
///   reshape keeps the last (reduction) dimension and has no other user:
///   only the rows are regrouped, and a matmul by one matrix maps each row
///   on its own.
struct SinkReshapeThroughMatmul final : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto r = op.getLhs().getDefiningOp<ReshapeOp>();
    if (!r || !r->hasOneUse() || !isRowWiseMatmul(op) ||
        !isStaticOrSequence(r.getInput()))
      return failure();
    // (The matmul needs rank >= 2: a reshape of a vector stays.)
    ArrayRef<int64_t> in = shapeOf(r.getInput());
    if (in.size() < 2 || in.back() != shapeOf(r.getResult()).back())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, op.getType(), matmulOfRows(rewriter, op, r.getInput()));
    return success();
  }
};

/// binary(reshape(x), c) -> reshape(binary(x, c'))
/// binary(c, reshape(x)) -> reshape(binary(c', x))
///   when `c` is a constant that varies only along trailing dimensions the
///   reshape keeps (all its other dimensions 1), the reshaped operand has the
///   result's shape and the reshape no other user; `c'` is `c` without the
///   leading dimensions beyond the rank of `x`.
template <typename BinOp>
struct SinkReshapeThroughBinaryWithConstant final : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op,
                                PatternRewriter &rewriter) const override {
    for (bool reshapedLhs : {true, false}) {
      Value y = reshapedLhs ? op.getLhs() : op.getRhs();
      Value c = reshapedLhs ? op.getRhs() : op.getLhs();
      auto r = y.template getDefiningOp<ReshapeOp>();
      if (!r || !r->hasOneUse() || y.getType() != op.getType() ||
          !matchPattern(c, m_Constant()) || !isStaticOrSequence(r.getInput()) ||
          !isStaticOrSequence(y))
        continue;
      ArrayRef<int64_t> in = shapeOf(r.getInput()), out = shapeOf(y),
                        cs = shapeOf(c);
      // (Static trailing dimensions only: c must be 1 along the sequence.)
      int64_t kept = commonTrailingDims(in, out);
      int64_t crank = cs.size();
      // c's dimensions before the kept trailing ones must all be 1.
      bool ok = true;
      for (int64_t i = 0; i < crank - kept; ++i)
        ok &= cs[i] == 1;
      if (!ok || kept == 0)
        continue;
      Location loc = op.getLoc();
      Value cp = c;
      if (crank > static_cast<int64_t>(in.size()))
        cp =
            reshapeConstant(rewriter, loc, c, cs.drop_front(crank - in.size()));
      if (!cp)
        continue;
      auto type = withShape(op.getType(), in);
      Value lhs = reshapedLhs ? r.getInput() : cp;
      Value rhs = reshapedLhs ? cp : r.getInput();
      auto newOp = BinOp::create(rewriter, loc, type, lhs, rhs);
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                             newOp.getResult());
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Chains of transposes and reshapes
//===----------------------------------------------------------------------===//

/// A chain of transposes and reshapes read as one permutation of "atoms":
/// the dimensions of the chain's input, each split into the factors that some
/// reshape of the chain needs. Every tensor of the chain is the atoms in some
/// order, grouped into its dimensions. A dynamic (sequence) dimension is one
/// atom that is never split nor grouped with others: llm.reshape carries its
/// `?` through unchanged.
class AtomChain {
public:
  explicit AtomChain(ArrayRef<int64_t> inputShape) {
    for (int64_t d : inputShape) {
      SmallVector<int64_t> group;
      if (d != 1) {
        group.push_back(sizes.size());
        sizes.push_back(d);
        base.push_back(group.back());
      }
      dims.push_back(group);
    }
  }

  void transpose(ArrayRef<int64_t> p) {
    SmallVector<SmallVector<int64_t>> next;
    for (int64_t d : p)
      next.push_back(dims[d]);
    dims = std::move(next);
  }

  /// Regroups the atoms into `shape`, splitting atoms where a dimension
  /// boundary falls inside one. False when the sizes do not factor.
  bool reshape(ArrayRef<int64_t> shape) {
    SmallVector<int64_t> order;
    for (auto &g : dims)
      llvm::append_range(order, g);
    SmallVector<SmallVector<int64_t>> next;
    size_t pos = 0;
    for (int64_t want : shape) {
      SmallVector<int64_t> group;
      // A `?` is the dynamic atom alone.
      if (ShapedType::isDynamic(want)) {
        if (pos >= order.size() || !ShapedType::isDynamic(sizes[order[pos]]))
          return false;
        next.push_back({order[pos++]});
        continue;
      }
      while (want > 1) {
        if (pos >= order.size())
          return false;
        int64_t atom = order[pos], size = sizes[atom];
        if (ShapedType::isDynamic(size))
          return false;
        if (want % size == 0) {
          group.push_back(atom);
          want /= size;
          ++pos;
          continue;
        }
        if (size % want != 0)
          return false;
        // Split `atom` into an outer part of `want` and an inner part.
        int64_t inner = sizes.size();
        sizes[atom] = want;
        sizes.push_back(size / want);
        insertAfter(base, atom, inner);
        insertAfter(order, atom, inner);
        for (auto &g : dims)
          insertAfter(g, atom, inner);
        group.push_back(atom);
        want = 1;
        ++pos;
      }
      next.push_back(group);
    }
    if (pos != order.size())
      return false;
    dims = std::move(next);
    return true;
  }

  /// Emits `reshape -> transpose -> reshape` (each only when needed) from
  /// `input` to `resultType`; returns the number of ops it would take when
  /// `rewriter` is null.
  int64_t emit(PatternRewriter *rewriter, Location loc, Value input,
               RankedTensorType resultType, bool unitsInTranspose,
               Value *result) const {
    SmallVector<int64_t> order;
    for (auto &g : dims)
      llvm::append_range(order, g);
    // Merge atoms that follow each other both in the input and at the end
    // (never the dynamic atom: a `?` dimension is that atom alone).
    SmallVector<SmallVector<int64_t>> runs; // in input order
    for (int64_t a : base) {
      if (!runs.empty() && !ShapedType::isDynamic(sizes[a]) &&
          !ShapedType::isDynamic(sizes[runs.back().back()])) {
        int64_t prev = runs.back().back();
        auto it = llvm::find(order, prev);
        if (it + 1 != order.end() && *(it + 1) == a) {
          runs.back().push_back(a);
          continue;
        }
      }
      runs.push_back({a});
    }
    auto runOf = [&](int64_t atom) {
      for (auto [i, r] : llvm::enumerate(runs))
        if (llvm::is_contained(r, atom))
          return static_cast<int64_t>(i);
      return int64_t(-1);
    };
    SmallVector<int64_t> midShape, perm, permShape;
    for (auto &r : runs) {
      int64_t n = 1;
      for (int64_t a : r)
        n = ShapedType::isDynamic(sizes[a]) ? sizes[a] : n * sizes[a];
      midShape.push_back(n);
    }
    for (int64_t a : order) {
      int64_t r = runOf(a);
      if (perm.empty() || perm.back() != r) {
        perm.push_back(r);
        permShape.push_back(midShape[r]);
      }
    }
    auto inType = cast<RankedTensorType>(input.getType());
    bool needTranspose = !llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
    // When the result is the permuted runs with unit dimensions added, the
    // transpose can produce it directly: the units go first in the reshaped
    // input (e.g. [1, S, H*D] -> [1, S, H, D] -> transpose [0, 2, 1, 3] ->
    // [1, H, S, D], the head split llm.attention absorbs).
    SmallVector<int64_t> resultRuns;
    for (int64_t d : resultType.getShape())
      if (d != 1)
        resultRuns.push_back(d);
    int64_t units = resultType.getRank() - static_cast<int64_t>(perm.size());
    if (unitsInTranspose && needTranspose && units > 0 &&
        resultRuns == permShape) {
      SmallVector<int64_t> unitPerm;
      int64_t nextUnit = 0, nextRun = 0;
      for (int64_t d : resultType.getShape())
        unitPerm.push_back(d == 1 ? nextUnit++ : units + perm[nextRun++]);
      SmallVector<int64_t> unitMid(units, 1);
      llvm::append_range(unitMid, midShape);
      midShape = std::move(unitMid);
      perm = std::move(unitPerm);
      permShape.assign(resultType.getShape().begin(),
                       resultType.getShape().end());
    }
    bool firstReshape = inType.getShape() != ArrayRef<int64_t>(midShape);
    bool lastReshape = resultType.getShape() !=
                       ArrayRef<int64_t>(needTranspose ? permShape : midShape);
    if (!needTranspose)
      firstReshape = false, lastReshape = inType != resultType;
    int64_t count = firstReshape + needTranspose + lastReshape;
    if (!rewriter)
      return count;
    Value v = input;
    if (firstReshape)
      v = ReshapeOp::create(*rewriter, loc, withShape(inType, midShape), v);
    if (needTranspose)
      v = TransposeOp::create(*rewriter, loc, withShape(inType, permShape), v,
                              rewriter->getDenseI64ArrayAttr(perm));
    if (lastReshape)
      v = ReshapeOp::create(*rewriter, loc, resultType, v);
    *result = v;
    return count;
  }

private:
  static void insertAfter(SmallVectorImpl<int64_t> &list, int64_t atom,
                          int64_t inner) {
    auto it = llvm::find(list, atom);
    if (it != list.end())
      list.insert(it + 1, inner);
  }

  SmallVector<int64_t> sizes;             // atom -> size
  SmallVector<int64_t> base;              // atoms in input order
  SmallVector<SmallVector<int64_t>> dims; // current dims as atom groups
};

/// A chain of transposes and reshapes (each intermediate used only by the
/// next op) -> at most reshape(transpose(reshape(x))), when that takes fewer
/// ops: e.g. the head split of torch.nn.MultiheadAttention,
///   reshape(transpose(reshape(transpose(x : [B, S, E], [1, 0, 2]),
///           [S, B*H, D]), [1, 0, 2]), [1, B*H, S, D])
///   -> reshape(transpose(reshape(x, [B, S, H, D]), [0, 2, 1, 3]),
///              [1, B*H, S, D])
/// and chains that amount to a reshape become one.
///
/// With `unitsInTranspose`, a result that is the permuted dims plus unit
/// dims comes straight out of the transpose (no last reshape): applied only
/// once propagation has settled, since a partial chain put in that form
/// early stops the transposes still to come from merging with it.
struct SimplifyTransposeReshapeChain final : RewritePattern {
  SimplifyTransposeReshapeChain(MLIRContext *ctx, bool unitsInTranspose)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        unitsInTranspose(unitsInTranspose) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<TransposeOp, ReshapeOp>(op) ||
        !isStaticOrSequence(op->getResult(0)))
      return failure();
    // The chain, last op first.
    SmallVector<Operation *> chain{op};
    Value input = op->getOperand(0);
    while (Operation *def = input.getDefiningOp()) {
      if (!isa<TransposeOp, ReshapeOp>(def) || !def->hasOneUse() ||
          !isStaticOrSequence(def->getResult(0)))
        break;
      chain.push_back(def);
      input = def->getOperand(0);
    }
    // (Zero-size tensors have no elements to move: left alone, and their
    // sizes would not factor.)
    if (chain.size() < 2 || !isStaticOrSequence(input) ||
        llvm::is_contained(shapeOf(input), 0))
      return failure();
    AtomChain atoms(shapeOf(input));
    for (Operation *o : llvm::reverse(chain)) {
      if (auto t = dyn_cast<TransposeOp>(o)) {
        atoms.transpose(t.getPermutation());
      } else if (!atoms.reshape(shapeOf(o->getResult(0)))) {
        return failure();
      }
    }
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (atoms.emit(nullptr, op->getLoc(), input, resultType, unitsInTranspose,
                   nullptr) >= static_cast<int64_t>(chain.size()))
      return failure();
    Value result;
    atoms.emit(&rewriter, op->getLoc(), input, resultType, unitsInTranspose,
               &result);
    rewriter.replaceOp(op, result);
    return success();
  }

  bool unitsInTranspose;
};

//===----------------------------------------------------------------------===//
// Attention over merged batch and heads
//===----------------------------------------------------------------------===//

/// attention(reshape(q), reshape(k), reshape(v) [, mask]) : [1, B*H, S, D]
///   -> reshape(attention(q, k, v [, mask']) : [B, H, S, D])
/// when q, k and v are [B, H, S, D] tensors reshaped to [1, B*H, S, D] (as
/// torch.nn.MultiheadAttention's [B*H, S, D] attention is recomposed), the
/// layout is bhsd and the reshapes have no other user: each (batch, head)
/// pair attends on its own. A mask whose two leading dimensions (after
/// leading 1s to rank 4) are [1, B*H] is reshaped to [B, H, ...]; one that
/// is [1, 1] stays. S may be the dynamic sequence (B and H are static).
struct SplitMergedAttentionHeads final : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLayout() != AttentionLayout::BHSD)
      return failure();
    SmallVector<Value, 3> inputs;
    int64_t b = 0, h = 0;
    for (Value operand : {op.getQuery(), op.getKey(), op.getValue()}) {
      auto r = operand.getDefiningOp<ReshapeOp>();
      if (!r || !r->hasOneUse() || !isStaticOrSequence(r.getInput()))
        return failure();
      ArrayRef<int64_t> in = shapeOf(r.getInput()), out = shapeOf(operand);
      if (in.size() != 4 || out.size() != 4 || out[0] != 1 || in[0] == 1 ||
          in[0] * in[1] != out[1] || in[2] != out[2] || in[3] != out[3])
        return failure();
      if (b && (in[0] != b || in[1] != h))
        return failure();
      b = in[0], h = in[1];
      inputs.push_back(r.getInput());
    }
    Location loc = op.getLoc();
    Value mask = op.getMask();
    if (mask) {
      if (!isStaticOrSequence(mask))
        return failure();
      ArrayRef<int64_t> ms = shapeOf(mask);
      SmallVector<int64_t> padded(4 - std::min<int64_t>(4, ms.size()), 1);
      llvm::append_range(padded, ms);
      if (padded.size() != 4 || padded[0] != 1)
        return failure();
      if (padded[1] == b * h) {
        mask = ReshapeOp::create(
            rewriter, loc,
            withShape(mask.getType(), {b, h, padded[2], padded[3]}), mask);
      } else if (padded[1] != 1) {
        return failure();
      }
    }
    ArrayRef<int64_t> rs = shapeOf(op.getResult());
    auto attention = AttentionOp::create(
        rewriter, loc, withShape(op.getType(), {b, h, rs[2], rs[3]}), inputs[0],
        inputs[1], inputs[2], mask, op.getKvLength(), op.getCausal(),
        op.getScaleAttr(), op.getLayout(), op.getExcludedScoreAttr(),
        op.getSoftcapAttr());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                           attention.getResult());
    return success();
  }
};

} // namespace

void mlir::llm::populateLayoutPropagationPatterns(RewritePatternSet &patterns,
                                                  bool unitsInTranspose) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SimplifyTransposeReshapeChain>(ctx, unitsInTranspose);
  patterns.add<
      SinkTransposeThroughMatmul, SinkTransposeThroughSlices,
      SinkTransposeThroughConcat, SinkTransposeThroughBinaryWithConstant<AddOp>,
      SinkTransposeThroughBinaryWithConstant<SubOp>,
      SinkTransposeThroughBinaryWithConstant<MulOp>,
      SinkTransposeThroughBinaryWithConstant<DivOp>, SinkReshapeThroughMatmul,
      SinkReshapeThroughBinaryWithConstant<AddOp>,
      SinkReshapeThroughBinaryWithConstant<SubOp>,
      SinkReshapeThroughBinaryWithConstant<MulOp>,
      SinkReshapeThroughBinaryWithConstant<DivOp>, SplitMergedAttentionHeads>(
      ctx);
}
