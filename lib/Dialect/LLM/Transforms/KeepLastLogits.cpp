//===- KeepLastLogits.cpp - Logits of the last position only -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-keep-last-logits`: a generation entry returns
// the logits of its last position (`[B, V]`) instead of every position's
// (`[B, S, V]`), and the `llm.sequence_last` that selects them is moved
// towards the inputs through the ops that compute each position by itself,
// so that the LM head, the final norm and the last MLP run on one row.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMKEEPLASTLOGITSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// The ops whose result position `i` along any axis is computed from the
/// operands' position `i` along the (broadcast-aligned) same axis alone.
bool isPositionwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaxOp, MinOp, NegOp,
             ExpOp, LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, ReciprocalOp,
             SigmoidOp, ReluOp, SiluOp, GeluOp, AbsOp, FloorOp, CeilOp, RoundOp,
             SinOp, CosOp, AcosOp, AsinOp, AtanOp, CastOp, CompareOp, SelectOp,
             LogicalAndOp, LogicalOrOp, LogicalXorOp, LogicalNotOp>(op);
}

} // namespace

FailureOr<SmallVector<std::optional<int64_t>>>
mlir::llm::getPositionwiseOperandAxes(Operation *op, int64_t axis) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = resultType.getRank();
  SmallVector<std::optional<int64_t>> axes(op->getNumOperands());
  if (isPositionwise(op)) {
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return failure();
      int64_t a = axis - (rank - type.getRank());
      if (a >= 0 && type.getDimSize(a) != 1)
        axes[i] = a;
    }
    return axes;
  }
  // Normalized over [start, rank): positions before `start` are rows.
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    int64_t start = ln.getAxis() < 0 ? ln.getAxis() + rank : ln.getAxis();
    if (axis >= start)
      return failure();
    axes[0] = axis;
    return axes;
  }
  if (isa<RmsNormOp>(op)) {
    if (axis >= rank - 1)
      return failure();
    axes[0] = axis;
    return axes;
  }
  // Rows of the lhs; a rank-2 rhs (a weight) is shared by every row.
  auto rowsOfLhs = [&](Value lhs, Value rhs) -> LogicalResult {
    if (cast<RankedTensorType>(rhs.getType()).getRank() != 2 ||
        cast<RankedTensorType>(lhs.getType()).getRank() != rank ||
        axis >= rank - 1)
      return failure();
    axes[0] = axis;
    return success();
  };
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    // A batch axis of a batched matmul: both operands' (unless broadcast).
    auto lt = cast<RankedTensorType>(mm.getLhs().getType());
    auto rt = cast<RankedTensorType>(mm.getRhs().getType());
    if (axis < rank - 2 && lt.getRank() == rank && rt.getRank() == rank) {
      if (lt.getDimSize(axis) != 1)
        axes[0] = axis;
      if (rt.getDimSize(axis) != 1)
        axes[1] = axis;
      return axes;
    }
    if (mm.getTransposeA() || failed(rowsOfLhs(mm.getLhs(), mm.getRhs())))
      return failure();
    return axes;
  }
  // The permuted axis; the rows of a softmax along another axis.
  if (auto t = dyn_cast<TransposeOp>(op)) {
    axes[0] = t.getPermutation()[axis];
    return axes;
  }
  if (auto sm = dyn_cast<SoftmaxOp>(op)) {
    if (axis == (sm.getAxis() < 0 ? sm.getAxis() + rank : sm.getAxis()))
      return failure();
    axes[0] = axis;
    return axes;
  }
  if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
    if (failed(rowsOfLhs(dq.getLhs(), dq.getRhs())))
      return failure();
    return axes;
  }
  // Query rows: each attends by itself, and `causal` is aligned at the end
  // of the keys, so the last query row alone keeps its keys.
  if (auto at = dyn_cast<AttentionOp>(op)) {
    int64_t seqAxis = at.getLayout() == AttentionLayout::BSHD ? 1 : 2;
    if (axis != seqAxis)
      return failure();
    axes[at.getQueryMutable().getOperandNumber()] = axis;
    // The mask is [B, Hq, Sq, Skv] in either layout, broadcast.
    if (Value mask = at.getMask()) {
      auto type = cast<RankedTensorType>(mask.getType());
      int64_t a = 2 - (4 - type.getRank());
      if (a >= 0 && type.getDimSize(a) != 1)
        axes[at.getMaskMutable()[0].getOperandNumber()] = a;
    }
    return axes;
  }
  return failure();
}

namespace {

/// True when every user of `value` is an `llm.sequence_last` on `axis` (each
/// needs only the last position, so the producer may compute that one).
bool onlyLastIsUsed(Value value, int64_t axis) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    auto last = dyn_cast<SequenceLastOp>(user);
    return last && last.getAxis() == axis;
  });
}

// sequence_last(f(x, y, ...), a) -> f(sequence_last(x, a'), y, ...)
// for an f that computes each position along `a` from the operands'
// positions alone (elementwise ops with broadcasting, norms over later
// axes, matmul rows, attention query rows), when every user of f takes its
// last position on `a`; an operand that does not vary along `a` is used
// whole.
struct SinkThroughPositionwise : OpRewritePattern<SequenceLastOp> {
  SinkThroughPositionwise(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(SequenceLastOp last,
                                PatternRewriter &rewriter) const override {
    Operation *op = last.getInput().getDefiningOp();
    int64_t axis = last.getAxis();
    if (!op || op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !onlyLastIsUsed(op->getResult(0), axis))
      return failure();
    FailureOr<SmallVector<std::optional<int64_t>>> axes =
        getPositionwiseOperandAxes(op, axis);
    if (failed(axes) || llvm::none_of(*axes, [](auto a) { return a; }))
      return failure();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands(op->getOperands());
    for (auto [i, a] : llvm::enumerate(*axes))
      if (a)
        operands[i] =
            SequenceLastOp::create(rewriter, op->getLoc(), operands[i], *a);
    Operation *rows = rewriter.clone(*op);
    rewriter.modifyOpInPlace(rows, [&] {
      rows->setOperands(operands);
      rows->getResult(0).setType(last.getType());
    });
    for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
      rewriter.replaceOp(user, rows->getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

// sequence_last(reshape(x), a) -> reshape(sequence_last(x, b))
// when axis b of x holds the entries of axis a of the result: the same
// size (both the dynamic sequence length or equal), equal products of the
// dimensions before and after, and no other dynamic dimension (a reshape
// that only adds or drops unit dimensions around the sequence axis, as
// exporters write between `[1, S, D]` and `[S, D]`).
struct SinkThroughReshape : OpRewritePattern<SequenceLastOp> {
  SinkThroughReshape(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(SequenceLastOp last,
                                PatternRewriter &rewriter) const override {
    auto reshape = last.getInput().getDefiningOp<ReshapeOp>();
    if (!reshape || !onlyLastIsUsed(reshape.getResult(), last.getAxis()))
      return failure();
    ArrayRef<int64_t> in = reshape.getInput().getType().getShape();
    ArrayRef<int64_t> out = reshape.getType().getShape();
    int64_t a = last.getAxis();
    // Products of static dimensions; nullopt when one is dynamic.
    auto product = [](ArrayRef<int64_t> dims) -> std::optional<int64_t> {
      int64_t p = 1;
      for (int64_t d : dims) {
        if (ShapedType::isDynamic(d))
          return std::nullopt;
        p *= d;
      }
      return p;
    };
    std::optional<int64_t> before = product(out.take_front(a));
    std::optional<int64_t> after = product(out.drop_front(a + 1));
    if (!before || !after)
      return failure();
    for (int64_t b = 0, e = in.size(); b < e; ++b) {
      if (in[b] != out[a] || product(in.take_front(b)) != before ||
          product(in.drop_front(b + 1)) != after)
        continue;
      Location loc = reshape.getLoc();
      rewriter.setInsertionPoint(reshape);
      Value rows = SequenceLastOp::create(rewriter, loc, reshape.getInput(), b);
      Value reshaped = ReshapeOp::create(rewriter, loc, last.getType(), rows);
      for (Operation *user : llvm::make_early_inc_range(reshape->getUsers()))
        rewriter.replaceOp(user, reshaped);
      rewriter.eraseOp(reshape);
      return success();
    }
    return failure();
  }
};

struct LLMKeepLastLogitsPass
    : llm::impl::LLMKeepLastLogitsPassBase<LLMKeepLastLogitsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal()) {
      emitError(module.getLoc())
          << "llm-keep-last-logits: no function @" << entry << " with a body";
      return signalPassFailure();
    }
    if (func.getNumResults() == 0) {
      func.emitError() << "llm-keep-last-logits: @" << entry
                       << " has no result (expected the logits first)";
      return signalPassFailure();
    }
    auto type = dyn_cast<RankedTensorType>(func.getResultTypes()[0]);
    // Already the last position's logits: nothing to do.
    if (type && type.getRank() == 2 && type.hasStaticShape())
      return;
    if (!type || type.getRank() != 3 || type.isDynamicDim(0) ||
        type.isDynamicDim(2)) {
      func.emitError() << "llm-keep-last-logits: result #0 of @" << entry
                       << " is " << func.getResultTypes()[0]
                       << "; expected the logits, tensor<BxSxV> (B and V "
                          "static) or tensor<BxV>";
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    Value last = SequenceLastOp::create(b, loc, ret.getOperand(0), 1);
    auto logitsType = RankedTensorType::get(
        {type.getDimSize(0), type.getDimSize(2)}, type.getElementType());
    Value logits = ReshapeOp::create(b, loc, logitsType, last);
    ret->setOperand(0, logits);
    SmallVector<Type> results(func.getResultTypes());
    results[0] = logitsType;
    func.setFunctionType(
        FunctionType::get(&getContext(), func.getArgumentTypes(), results));

    RewritePatternSet patterns(&getContext());
    populateSequenceLastSinkingPatterns(patterns);
    SequenceLastOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns)))) {
      func.emitError() << "llm-keep-last-logits: the rewrite did not converge";
      return signalPassFailure();
    }
  }
};

} // namespace

void mlir::llm::populateSequenceLastSinkingPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SinkThroughPositionwise, SinkThroughReshape>(
      patterns.getContext());
}
