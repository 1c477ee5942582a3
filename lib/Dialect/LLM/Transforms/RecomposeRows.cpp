//===- RecomposeRows.cpp - Rows flattened around row-wise ops -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pattern of `llm-recompose` that removes a flattening of rows around
// ops that compute each row by itself. Exporters write a linear layer on a
// [B, S, D] activation as `x.view(-1, D)`, a 2-D matmul (`addmm`) and
// `.view(B, S, N)` (Hugging Face's Conv1D, `nn.MultiheadAttention`'s output
// projection), and attention scores over merged heads as a batched matmul of
// `q.view(B * H, S, D)` by `k.view(B * H, S, D)^T` viewed back to
// [B, H, S, S] (GPT-NeoX's `baddbmm`); llmc's ops take the leading
// dimensions as they are. Without the flattening, a dynamic sequence is
// never merged with the batch (DimBounds.h: every `?` is the sequence
// length), and the attention's heads are seen.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

/// Largest number of ops between the flattening and the unflattening.
constexpr unsigned kMaxRowwiseOps = 64;

/// The ops between a flattening of rows and the reshape that restores them:
/// every op computes each row of its [A, X...] result from the same row of
/// its [A, *] operands alone (a row: one index of the leading dimension),
/// and its result has no other user.
struct RowwiseTree {
  /// Row count of the flattened values.
  int64_t rows = 0;
  /// Rank of the flattened values.
  int64_t rank = 2;
  /// The ops, operands before users.
  SmallVector<Operation *> ops;
  /// The flattened values the ops read (results of llm.reshape or
  /// llm.constant), in the order first met.
  SmallVector<Value> leaves;
  bool hasReshapeLeaf = false;

  /// Adds the ops that compute `v` (rank `rank`, `rows` rows); false when
  /// one of them does not compute its rows by themselves.
  bool collect(Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || type.getRank() != rank ||
        type.getDimSize(0) != rows)
      return false;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      if (!reshape.getInput().getType().hasStaticShape())
        return false;
      if (!llvm::is_contained(leaves, v))
        leaves.push_back(v);
      hasReshapeLeaf = true;
      return true;
    }
    if (isa<ConstantOp>(def)) {
      if (!llvm::is_contained(leaves, v))
        leaves.push_back(v);
      return true;
    }
    if (ops.size() >= kMaxRowwiseOps || def->getNumResults() != 1 ||
        def->getNumRegions() != 0 || !v.hasOneUse())
      return false;
    FailureOr<SmallVector<std::optional<int64_t>>> axes =
        getPositionwiseOperandAxes(def, 0);
    if (failed(axes))
      return false;
    for (auto [operand, axis] : llvm::zip_equal(def->getOperands(), *axes)) {
      if (axis) {
        if (*axis != 0 || !collect(operand))
          return false;
        continue;
      }
      // Shared by every row: it must broadcast against more leading
      // dimensions as it did against one (numpy aligns trailing ones).
      auto t = dyn_cast<RankedTensorType>(operand.getType());
      if (!t || t.getRank() > rank ||
          (t.getRank() == rank &&
           !(rank == 2 && isa<MatmulOp, DequantMatmulOp>(def)) &&
           t.getDimSize(0) != 1))
        return false;
    }
    ops.push_back(def);
    return true;
  }
};

// reshape(f(reshape(x) : [A, D...]) : [A, N...]) : [d0, ..., dk, N...]
//   -> f(reshape(x) : [d0, ..., dk, D...]) : [d0, ..., dk, N...]
// for f made of ops that compute each of the A rows by itself (matmul rows
// by a 2-D weight, batched matmuls over the rows, transposes that keep the
// rows first, elementwise ops with operands broadcast along the rows, norms
// and softmaxes of later dimensions), d0 * ... * dk = A with at least two
// di > 1 (a batch and a sequence, or a batch and heads). The rows keep
// their order. Each flattened input reshape(x) is replaced by a reshape of
// x to the unflattened rows (which folds away when x has that shape).
struct UnflattenRowwiseOps final : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp unflatten,
                                PatternRewriter &rewriter) const override {
    RankedTensorType inType = unflatten.getInput().getType();
    RankedTensorType outType = unflatten.getType();
    const int64_t rank = inType.getRank();
    if (!inType.hasStaticShape() || !outType.hasStaticShape() || rank < 2 ||
        outType.getRank() <= rank ||
        outType.getShape().take_back(rank - 1) !=
            inType.getShape().drop_front())
      return rewriter.notifyMatchFailure(unflatten, "not an unflattening");
    // Rows that are one dimension (the others of size 1) are left
    // flattened: [S, D] is [1, S, D] already.
    ArrayRef<int64_t> rowDims = outType.getShape().drop_back(rank - 1);
    if (llvm::count_if(rowDims, [](int64_t d) { return d != 1; }) < 2)
      return rewriter.notifyMatchFailure(unflatten, "one dimension of rows");
    RowwiseTree tree;
    tree.rows = inType.getDimSize(0);
    tree.rank = rank;
    if (!tree.collect(unflatten.getInput()) || tree.ops.empty() ||
        !tree.hasReshapeLeaf)
      return rewriter.notifyMatchFailure(unflatten,
                                         "not row-wise ops on flattened rows");

    auto unflattened = [&](RankedTensorType t) {
      SmallVector<int64_t> shape(rowDims);
      llvm::append_range(shape, t.getShape().drop_front());
      return RankedTensorType::get(shape, t.getElementType());
    };
    // The leading dimension becomes `extra + 1` of them.
    const int64_t extra = int64_t(rowDims.size()) - 1;
    IRMapping map;
    for (Value leaf : tree.leaves) {
      auto type = cast<RankedTensorType>(leaf.getType());
      rewriter.setInsertionPointAfterValue(leaf);
      Value source = leaf;
      if (auto reshape = leaf.getDefiningOp<ReshapeOp>())
        source = reshape.getInput();
      RankedTensorType want = unflattened(type);
      // A dense constant is reshaped at once rather than through an
      // llm.reshape, so that the next canonicalization sees a constant
      // operand and folds with it (the zeros GPT-NeoX's baddbmm adds to the
      // scores: add(x, 0) -> x); llm-recompose itself folds nothing.
      auto dense = DenseElementsAttr();
      if (auto c = leaf.getDefiningOp<ConstantOp>())
        dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (dense)
        map.map(leaf, ConstantOp::create(rewriter, leaf.getLoc(), want,
                                         dense.reshape(want))
                          .getResult());
      else
        map.map(leaf,
                source.getType() == want
                    ? source
                    : ReshapeOp::create(rewriter, leaf.getLoc(), want, source)
                          .getResult());
    }
    for (Operation *op : tree.ops) {
      rewriter.setInsertionPoint(op);
      Operation *clone = rewriter.clone(*op, map);
      rewriter.modifyOpInPlace(clone, [&] {
        clone->getResult(0).setType(
            unflattened(cast<RankedTensorType>(op->getResult(0).getType())));
        // An axis counted from the front is counted from the end instead
        // (normalized and softmax axes are never the rows); a transpose
        // keeps the new leading dimensions first.
        if (auto ln = dyn_cast<LayerNormOp>(clone); ln && ln.getAxis() >= 0)
          ln.setAxis(ln.getAxis() - rank);
        if (auto sm = dyn_cast<SoftmaxOp>(clone); sm && sm.getAxis() >= 0)
          sm.setAxis(sm.getAxis() - rank);
        if (auto t = dyn_cast<TransposeOp>(clone)) {
          SmallVector<int64_t> perm;
          for (int64_t d = 0; d <= extra; ++d)
            perm.push_back(d);
          for (int64_t p : t.getPermutation().drop_front())
            perm.push_back(p + extra);
          t.setPermutation(perm);
        }
      });
      map.map(op->getResult(0), clone->getResult(0));
    }
    rewriter.replaceOp(unflatten, map.lookup(unflatten.getInput()));
    for (Operation *op : llvm::reverse(tree.ops))
      rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::llm::populateRowUnflatteningPatterns(RewritePatternSet &patterns) {
  patterns.add<UnflattenRowwiseOps>(patterns.getContext());
}
