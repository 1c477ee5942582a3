//===- Shard.cpp - Megatron tensor-parallel plan on the llm graph ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llm-shard: plans N-way tensor parallelism (Megatron-LM, Shoeybi et al.
// 2019, arXiv:1909.08053, section 3) on an llm graph and writes the plan as
// shard dialect annotations for upstream shard-partition.
//
// The plan is a forward dataflow over each function: a matmul of a
// replicated activation by a constant weight starts a split region
// (column-parallel), the split flows through the ops that keep it local,
// and a matmul that contracts over the split dimension ends it
// (row-parallel, all-reduced). A region whose split would reach anything
// else is dropped (its matmuls stay replicated) and the analysis reruns.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMSHARDPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// No split: the value is replicated on every rank.
constexpr int64_t kReplicated = -1;

/// Whether `v` is computed from constants only through data movement (a
/// weight, possibly sliced or transposed by an earlier rewrite).
static bool isWeight(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (def->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (isa<SliceOp, TransposeOp, ReshapeOp, BroadcastToOp, CastOp>(def))
    return isWeight(def->getOperand(0));
  return false;
}

static RankedTensorType getRanked(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Splitting fused projections
//===----------------------------------------------------------------------===//

/// Splits `x @ W (+ b)` whose users are all static slices of the last
/// dimension (GPT-2's c_attn read as q, k and v) into one projection per
/// slice: `slice(x @ W + b, a:c) -> x @ W[:, a:c] + b[a:c]`. Each is then
/// column-parallel on its own heads; `llm-fuse` concatenates the local
/// projections again after partitioning.
static void splitFusedProjections(func::FuncOp func) {
  SmallVector<MatmulOp> candidates;
  func.walk([&](MatmulOp mm) { candidates.push_back(mm); });
  for (MatmulOp mm : candidates) {
    if (mm.getTransposeA() || !isWeight(mm.getRhs()) ||
        mm.getRhs().getType().getRank() != 2 || !mm->hasOneUse())
      continue;
    Value out = mm.getResult();
    AddOp bias;
    Value biasValue;
    if (auto add = dyn_cast<AddOp>(*mm->user_begin())) {
      Value other = add.getLhs() == out ? add.getRhs() : add.getLhs();
      auto otherType = getRanked(other);
      if (isWeight(other) && otherType && otherType.getRank() == 1) {
        bias = add;
        biasValue = other;
        out = add.getResult();
      }
    }
    // Hugging Face's Conv1D flattens the rows around the projection:
    // reshape(x @ W + b) to [1, S, N] before slicing.
    ReshapeOp rows;
    if (out.hasOneUse())
      if (auto reshape = dyn_cast<ReshapeOp>(*out.user_begin()))
        if (reshape.getType().getShape().back() ==
            cast<RankedTensorType>(out.getType()).getShape().back()) {
          rows = reshape;
          out = reshape.getResult();
        }
    auto outType = cast<RankedTensorType>(out.getType());
    int64_t rank = outType.getRank();
    SmallVector<SliceOp> slices;
    bool allSlices = !out.use_empty();
    for (Operation *user : out.getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice) {
        allSlices = false;
        break;
      }
      ArrayRef<int64_t> starts = slice.getStarts(), limits = slice.getLimits(),
                        strides = slice.getStrides();
      for (int64_t d = 0; d < rank && allSlices; ++d) {
        if (strides[d] != 1)
          allSlices = false;
        else if (d + 1 < rank &&
                 (starts[d] != 0 || (!outType.isDynamicDim(d) &&
                                     limits[d] != outType.getDimSize(d))))
          allSlices = false;
      }
      if (!allSlices)
        break;
      slices.push_back(slice);
    }
    if (!allSlices || slices.size() < 2)
      continue;

    bool transposeB = mm.getTransposeB();
    int64_t k = mm.getRhs().getType().getDimSize(transposeB ? 1 : 0);
    for (SliceOp slice : slices) {
      OpBuilder b(slice);
      Location loc = slice.getLoc();
      int64_t start = slice.getStarts().back(),
              limit = slice.getLimits().back();
      int64_t n = mm.getRhs().getType().getDimSize(transposeB ? 0 : 1);
      SmallVector<int64_t> wStarts = {0, 0}, wLimits = {k, n};
      if (transposeB)
        wLimits = {n, k};
      wStarts[transposeB ? 0 : 1] = start;
      wLimits[transposeB ? 0 : 1] = limit;
      Value w = SliceOp::create(
          b, loc, mm.getRhs(), b.getDenseI64ArrayAttr(wStarts),
          b.getDenseI64ArrayAttr(wLimits), b.getDenseI64ArrayAttr({1, 1}));
      SmallVector<int64_t> partShape(mm.getType().getShape());
      partShape.back() = limit - start;
      auto partType = mm.getType().clone(partShape);
      Value part =
          MatmulOp::create(b, loc, partType, mm.getLhs(), w,
                           mm.getTransposeAAttr(), mm.getTransposeBAttr());
      if (bias) {
        Value bb = SliceOp::create(
            b, loc, biasValue, b.getDenseI64ArrayAttr({start}),
            b.getDenseI64ArrayAttr({limit}), b.getDenseI64ArrayAttr({1}));
        part = AddOp::create(b, loc, partType, part, bb);
      }
      if (rows)
        part = ReshapeOp::create(b, loc, slice.getType(), part);
      slice.replaceAllUsesWith(part);
      slice.erase();
    }
    if (rows)
      rows.erase();
    if (bias)
      bias.erase();
    mm.erase();
  }
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

/// A split dimension that does not divide by the number of ranks, reported
/// when the region it belongs to is kept.
struct Violation {
  Operation *op;
  std::string message;
  /// A split of attention heads (reported first).
  bool heads = false;
  llvm::SmallSetVector<Operation *, 4> origins;
};

/// One function's tensor-parallel plan.
class ShardPlan {
public:
  ShardPlan(func::FuncOp func, int64_t ranks) : func(func), ranks(ranks) {}

  /// Runs the analysis to a fixed point (each rerun drops at least one
  /// column-parallel matmul). Fails after reporting one split of the
  /// regions kept that does not divide by the number of ranks.
  LogicalResult run() {
    while (true) {
      bool restart = false;
      analyze(restart);
      if (!restart && !splitArgument)
        break;
    }
    // One error: the first split of heads that does not divide (what a
    // user changes), else the first other dimension.
    Violation *report = nullptr;
    for (Violation &v : violations) {
      if (llvm::any_of(v.origins,
                       [&](Operation *o) { return dropped.contains(o); }))
        continue;
      if (!report || (v.heads && !report->heads))
        report = &v;
    }
    if (!report)
      return success();
    report->op->emitError("llm-shard: ") << report->message;
    return failure();
  }

  /// The split dimension of `v` on its producer side.
  int64_t valueDim(Value v) const {
    auto it = values.find(v);
    return it == values.end() ? kReplicated : it->second;
  }
  /// The split dimension `use` needs (its value's own unless the op
  /// slices a replicated operand locally).
  int64_t useDim(OpOperand &use) const {
    auto it = uses.find(&use);
    return it == uses.end() ? valueDim(use.get()) : it->second;
  }
  int64_t numRowParallel() const { return rows; }

private:
  void analyze(bool &restart) {
    values.clear();
    uses.clear();
    origins.clear();
    violations.clear();
    rows = 0;
    splitArgument = false;
    // Key/value cache arguments split with the heads written into them
    // (found by an earlier run), unless that region was dropped since.
    for (auto &[arg, split] : argumentSplits) {
      if (llvm::any_of(split.second,
                       [&](Operation *o) { return dropped.contains(o); }))
        continue;
      values[arg] = split.first;
      origins[arg].insert(split.second.begin(), split.second.end());
    }
    func.walk([&](Operation *op) {
      if (restart || splitArgument)
        return;
      if (failed(visit(op)))
        restart = true;
    });
  }

  /// Drops the regions that made `v` split; the analysis reruns.
  LogicalResult drop(Value v) {
    for (Operation *o : origins.lookup(v))
      dropped.insert(o);
    return failure();
  }

  void setSplit(Value v, int64_t dim, ArrayRef<Value> from) {
    values[v] = dim;
    auto &set = origins[v];
    for (Value f : from)
      for (Operation *o : origins.lookup(f))
        set.insert(o);
  }

  void requireDivisible(Operation *op, Value v, int64_t dim, StringRef what) {
    auto type = getRanked(v);
    int64_t size = type.getDimSize(dim);
    if (!ShapedType::isDynamic(size) && size % ranks == 0)
      return;
    Violation violation;
    violation.op = op;
    llvm::raw_string_ostream os(violation.message);
    if (ShapedType::isDynamic(size))
      os << "cannot split " << what << " (dimension " << dim << " of " << type
         << ") over " << ranks << " ranks: it is dynamic";
    else
      os << "cannot split the " << size << " " << what << " (dimension " << dim
         << " of " << type << ") over " << ranks << " ranks: " << size
         << " is not a multiple of " << ranks;
    violation.heads = what.contains("heads");
    violation.origins.insert(origins.lookup(v).begin(),
                             origins.lookup(v).end());
    violations.push_back(std::move(violation));
  }

  LogicalResult visit(Operation *op) {
    if (auto mm = dyn_cast<MatmulOp>(op))
      return visitMatmul(mm);
    SmallVector<Value> split;
    for (Value v : op->getOperands())
      if (valueDim(v) != kReplicated)
        split.push_back(v);
    if (split.empty())
      return success();
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      return visitReturn(ret);
    if (op->getNumRegions() != 0 || op->getNumResults() != 1)
      return drop(split.front());
    if (isa<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaxOp, MinOp, NegOp,
            ExpOp, LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, ReciprocalOp,
            SigmoidOp, ReluOp, AbsOp, FloorOp, CeilOp, RoundOp, SinOp, CosOp,
            AcosOp, AsinOp, AtanOp, SiluOp, GeluOp, CastOp>(op))
      return visitElementwise(op, split);
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return visitReshape(reshape);
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      int64_t d = valueDim(transpose.getInput());
      ArrayRef<int64_t> perm = transpose.getPermutation();
      int64_t e = std::find(perm.begin(), perm.end(), d) - perm.begin();
      setSplit(transpose.getResult(), e, {transpose.getInput()});
      return success();
    }
    if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
      int64_t rank = softmax.getType().getRank();
      int64_t axis =
          softmax.getAxis() < 0 ? softmax.getAxis() + rank : softmax.getAxis();
      int64_t d = valueDim(softmax.getInput());
      if (axis == d)
        return drop(softmax.getInput());
      setSplit(softmax.getResult(), d, {softmax.getInput()});
      return success();
    }
    if (auto rope = dyn_cast<RopeOp>(op))
      return visitRope(rope);
    if (auto attention = dyn_cast<AttentionOp>(op))
      return visitAttention(attention);
    if (auto update = dyn_cast<KVCacheUpdateOp>(op))
      return visitCacheUpdate(update);
    return drop(split.front());
  }

  // kv_cache_update(cache, rows, position): the new rows split by heads go
  // into this rank's heads of the cache. A cache that is a function
  // argument (the session's buffer, updated in place) is split with them:
  // the rank's program takes its heads only, and the analysis reruns with
  // the argument split.
  LogicalResult visitCacheUpdate(KVCacheUpdateOp update) {
    Value cache = update.getCache(), rows = update.getUpdate();
    int64_t d = valueDim(rows);
    if (d == kReplicated || d == static_cast<int64_t>(update.getAxis()) ||
        valueDim(update.getPosition()) != kReplicated)
      return drop(d == kReplicated ? cache : rows);
    if (valueDim(cache) != d) {
      auto arg = dyn_cast<BlockArgument>(cache);
      bool onlyUpdated = arg && valueDim(cache) == kReplicated &&
                         llvm::all_of(arg.getUsers(), [](Operation *user) {
                           return isa<KVCacheUpdateOp>(user);
                         });
      if (!onlyUpdated || argumentSplits.count(arg))
        return drop(rows);
      argumentSplits[arg] = {d, origins.lookup(rows)};
      splitArgument = true;
      return success();
    }
    requireDivisible(update, cache, d, "key/value heads of this cache");
    setSplit(update.getResult(), d, {cache, rows});
    return success();
  }

  // A split function result (the logits of a column-parallel LM head,
  // split by vocabulary) is gathered: every rank returns the whole tensor.
  // A split that does not divide by the ranks (GPT-2's 50257 entries)
  // keeps the region replicated instead.
  LogicalResult visitReturn(func::ReturnOp ret) {
    for (OpOperand &use : ret->getOpOperands()) {
      int64_t d = valueDim(use.get());
      if (d == kReplicated)
        continue;
      int64_t size = getRanked(use.get()).getDimSize(d);
      if (ShapedType::isDynamic(size) || size % ranks != 0)
        return drop(use.get());
      uses[&use] = kReplicated;
    }
    return success();
  }

  // x @ W: column-parallel when x is replicated, row-parallel when x is
  // split along the contraction dimension.
  LogicalResult visitMatmul(MatmulOp mm) {
    Value lhs = mm.getLhs(), rhs = mm.getRhs();
    bool weight =
        isWeight(rhs) && getRanked(rhs).getRank() == 2 && !mm.getTransposeA();
    int64_t lhsDim = valueDim(lhs);
    if (valueDim(rhs) != kReplicated)
      return drop(rhs);
    if (lhsDim == kReplicated) {
      if (!weight || dropped.contains(mm))
        return success();
      // Column-parallel: W[K, N] split by columns.
      int64_t rank = mm.getType().getRank();
      uses[&mm->getOpOperand(1)] = mm.getTransposeB() ? 0 : 1;
      setSplit(mm.getResult(), rank - 1, {});
      origins[mm.getResult()].insert(mm);
      requireDivisible(mm, mm.getResult(), rank - 1,
                       "output columns of this column-parallel matmul");
      return success();
    }
    int64_t kDim = getRanked(lhs).getRank() - 1;
    if (!weight || lhsDim != kDim)
      return drop(lhs);
    // Row-parallel: W[K, N] split by rows; the result is all-reduced.
    uses[&mm->getOpOperand(1)] = mm.getTransposeB() ? 1 : 0;
    ++rows;
    return success();
  }

  // Numpy broadcasting: a split operand keeps its dimension (aligned to
  // the result); a replicated operand of the full size is sliced locally,
  // one of size 1 is broadcast.
  LogicalResult visitElementwise(Operation *op, ArrayRef<Value> split) {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    int64_t e = kReplicated;
    for (Value v : split) {
      auto type = getRanked(v);
      int64_t d = valueDim(v);
      int64_t aligned = d + (rank - type.getRank());
      if ((e != kReplicated && e != aligned) ||
          type.getDimSize(d) != resultType.getDimSize(aligned))
        return drop(v);
      e = aligned;
    }
    for (OpOperand &use : op->getOpOperands()) {
      if (valueDim(use.get()) != kReplicated)
        continue;
      auto type = getRanked(use.get());
      if (!type)
        continue;
      int64_t a = e - (rank - type.getRank());
      if (a >= 0 && type.getDimSize(a) != 1)
        uses[&use] = a;
    }
    setSplit(op->getResult(0), e, split);
    return success();
  }

  // [.., A, B, ..] <-> [.., A*B, ..]: the split moves to the output
  // dimension that starts at the same element offset. Dynamic dimensions
  // (a sequence) may lead, when the output keeps them as they are.
  LogicalResult visitReshape(ReshapeOp reshape) {
    auto in = reshape.getInput().getType(), out = reshape.getType();
    int64_t d = valueDim(reshape.getInput());
    ArrayRef<int64_t> inShape = in.getShape(), outShape = out.getShape();
    if (ShapedType::isDynamicShape(inShape.drop_front(d)))
      return drop(reshape.getInput());
    if (!in.hasStaticShape() || !out.hasStaticShape()) {
      // The same leading dimensions but for units ([S, N] <-> [1, S, N]),
      // and the same number of elements from the split on.
      auto nonUnit = [](ArrayRef<int64_t> dims) {
        SmallVector<int64_t> kept;
        for (int64_t dim : dims)
          if (dim != 1)
            kept.push_back(dim);
        return kept;
      };
      SmallVector<int64_t> leading = nonUnit(inShape.take_front(d));
      int64_t tail = ShapedType::getNumElements(inShape.drop_front(d));
      for (int64_t e = 0; e < out.getRank(); ++e)
        if (outShape[e] != 1 &&
            !ShapedType::isDynamicShape(outShape.drop_front(e)) &&
            ShapedType::getNumElements(outShape.drop_front(e)) == tail &&
            nonUnit(outShape.take_front(e)) == leading)
          return splitReshapeAt(reshape, e);
      return drop(reshape.getInput());
    }
    int64_t prefix = 1;
    for (int64_t i = 0; i < d; ++i)
      prefix *= in.getDimSize(i);
    int64_t outPrefix = 1;
    for (int64_t e = 0; e < out.getRank(); ++e) {
      if (outPrefix == prefix && out.getDimSize(e) != 1)
        return splitReshapeAt(reshape, e);
      outPrefix *= out.getDimSize(e);
      if (outPrefix > prefix)
        break;
    }
    return drop(reshape.getInput());
  }

  // The reshape's split of input dimension d onto output dimension e
  // (in[d..] and out[e..] span the same elements): out[e] must be in[d] or
  // a multiple or factor of it, so that the split cuts whole elements.
  LogicalResult splitReshapeAt(ReshapeOp reshape, int64_t e) {
    auto in = reshape.getInput().getType(), out = reshape.getType();
    int64_t a = in.getDimSize(valueDim(reshape.getInput()));
    int64_t b = out.getDimSize(e);
    if (a % b != 0 && b % a != 0)
      return drop(reshape.getInput());
    setSplit(reshape.getResult(), e, {reshape.getInput()});
    requireDivisible(reshape, reshape.getResult(), e,
                     b < a ? "heads of this reshape"
                           : "elements of this reshape's dimension");
    return success();
  }

  // rope along another dimension than the rotated one; positions
  // broadcast to input.shape[:-1].
  LogicalResult visitRope(RopeOp rope) {
    Value input = rope.getInput();
    int64_t d = valueDim(input);
    int64_t rank = getRanked(input).getRank();
    if (d == kReplicated || d == rank - 1 ||
        valueDim(rope.getPositions()) != kReplicated)
      return drop(d == kReplicated ? rope.getPositions() : input);
    auto posType = getRanked(rope.getPositions());
    int64_t a = d - ((rank - 1) - posType.getRank());
    if (a >= 0 && a < posType.getRank() && posType.getDimSize(a) != 1)
      uses[&rope->getOpOperand(1)] = a;
    setSplit(rope.getResult(), d, {input});
    return success();
  }

  // Attention per group of query heads; key/value heads split with them
  // (GQA keeps its group size), or replicated when there is one (MQA).
  LogicalResult visitAttention(AttentionOp attention) {
    int64_t h = attention.getLayout() == AttentionLayout::BSHD ? 2 : 1;
    Value q = attention.getQuery();
    if (valueDim(q) != h)
      return drop(valueDim(q) != kReplicated ? q : attention.getKey());
    for (Value kv : {attention.getKey(), attention.getValue()}) {
      int64_t d = valueDim(kv);
      int64_t heads = getRanked(kv).getDimSize(h);
      if (d == kReplicated && heads == 1)
        continue;
      if (d != kReplicated && d != h)
        return drop(kv);
      if (d == kReplicated)
        uses[&attention->getOpOperand(kv == attention.getKey() ? 1 : 2)] = h;
      requireDivisible(attention, kv, h, "key/value heads of this attention");
    }
    if (Value mask = attention.getMask()) {
      if (valueDim(mask) != kReplicated)
        return drop(mask);
      if (getRanked(mask).getRank() == 4 && getRanked(mask).getDimSize(1) != 1)
        uses[&attention->getOpOperand(3)] = 1;
    }
    if (Value len = attention.getKvLength())
      if (valueDim(len) != kReplicated)
        return drop(len);
    requireDivisible(attention, q, h, "query heads of this attention");
    setSplit(attention.getResult(), h,
             {q, attention.getKey(), attention.getValue()});
    return success();
  }

  func::FuncOp func;
  int64_t ranks;
  DenseMap<Value, int64_t> values;
  DenseMap<OpOperand *, int64_t> uses;
  DenseMap<Value, llvm::SmallSetVector<Operation *, 4>> origins;
  SmallVector<Violation> violations;
  llvm::SmallPtrSet<Operation *, 8> dropped;
  /// Cache arguments split by the heads of their updates, with the
  /// column-parallel matmuls that split them.
  llvm::MapVector<BlockArgument,
                  std::pair<int64_t, llvm::SmallSetVector<Operation *, 4>>>
      argumentSplits;
  /// An argument split was found: the analysis reruns from the start.
  bool splitArgument = false;
  int64_t rows = 0;
};

//===----------------------------------------------------------------------===//
// Annotation
//===----------------------------------------------------------------------===//

/// Writes `plan` as shard annotations: `shard.shard %v to %s` after each
/// ranked tensor value (its producer's sharding) and one
/// `shard.shard ... annotate_for_users` per sharding its users need.
static void annotate(func::FuncOp func, const ShardPlan &plan,
                     StringRef gridName) {
  MLIRContext *ctx = func.getContext();
  Block &entry = func.getBody().front();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&entry);
  DenseMap<int64_t, Value> shardings;
  auto getSharding = [&](int64_t dim) -> Value {
    Value &s = shardings[dim];
    if (s)
      return s;
    SmallVector<shard::GridAxesAttr> axes;
    // Replicated: one empty group, `split_axes = [[]]` (the printed form
    // of no groups, `[]`, does not parse back).
    if (dim == kReplicated)
      axes.push_back(shard::GridAxesAttr::get(ctx, {}));
    for (int64_t i = 0; i <= dim; ++i)
      axes.push_back(shard::GridAxesAttr::get(
          ctx, i == dim ? ArrayRef<shard::GridAxis>{0}
                        : ArrayRef<shard::GridAxis>{}));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    s = shard::ShardingOp::create(b, func.getLoc(),
                                  FlatSymbolRefAttr::get(ctx, gridName), axes)
            .getResult();
    return s;
  };

  SmallVector<Value> toAnnotate;
  for (BlockArgument arg : entry.getArguments())
    toAnnotate.push_back(arg);
  func.walk([&](Operation *op) {
    if (isa<shard::ShardingOp>(op))
      return;
    for (Value r : op->getResults())
      toAnnotate.push_back(r);
  });

  for (Value v : toAnnotate) {
    auto type = getRanked(v);
    if (!type || type.getRank() == 0 || v.use_empty())
      continue;
    // The needed sharding of every use, before the uses move.
    SmallVector<std::pair<OpOperand *, int64_t>> needs;
    for (OpOperand &use : v.getUses())
      needs.push_back({&use, plan.useDim(use)});
    Value sharding = getSharding(plan.valueDim(v));
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      b.setInsertionPointAfterValue(sharding);
    } else {
      b.setInsertionPointAfter(v.getDefiningOp());
      // The sharding op must dominate: it is at the entry's start.
    }
    auto produced = shard::ShardOp::create(b, v.getLoc(), v, sharding,
                                           /*annotateForUsers=*/false);
    llvm::MapVector<int64_t, Value> forUsers;
    for (auto [use, dim] : needs) {
      Value &u = forUsers[dim];
      if (!u) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointAfter(produced);
        u = shard::ShardOp::create(b, v.getLoc(), produced.getResult(),
                                   getSharding(dim), /*annotateForUsers=*/true)
                .getResult();
      }
      use->set(u);
    }
  }
}

struct LLMShardPass : public llm::impl::LLMShardPassBase<LLMShardPass> {
  using LLMShardPassBase::LLMShardPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (ranks < 1) {
      emitError(module.getLoc(), "llm-shard: ranks must be at least 1, got ")
          << ranks.getValue();
      return signalPassFailure();
    }
    // An empty name printed as @<<INVALID EMPTY SYMBOL>>, which does not
    // parse back.
    if (gridName.empty()) {
      emitError(module.getLoc(),
                "llm-shard: grid must be a non-empty symbol name");
      return signalPassFailure();
    }
    // A module sharded before (by llm-shard or by hand) is not planned
    // again: its grid and annotations would mix with a second plan.
    Operation *sharded = nullptr;
    module.walk([&](Operation *op) {
      if (isa<shard::ShardDialect>(op->getDialect())) {
        sharded = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (sharded) {
      sharded->emitError("llm-shard: the module is already sharded ('")
          << sharded->getName() << "'); run llm-shard on the unsharded model";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitError("llm-shard: a function with more than one block "
                       "cannot be split (run it before lowering control "
                       "flow)");
        return signalPassFailure();
      }
      bool fused = false;
      func.walk([&](FusionGroupOp) { fused = true; });
      if (fused) {
        func.emitError("llm-shard: run it before llm-fuse (a fusion group "
                       "cannot be split)");
        return signalPassFailure();
      }
    }

    // The grid, once per module.
    OpBuilder b(module.getBodyRegion());
    std::string name = gridName;
    SymbolTable symbols(module);
    for (int i = 0; symbols.lookup(name); ++i)
      name = gridName + "_" + std::to_string(i);
    shard::GridOp::create(b, module.getLoc(), name, ArrayRef<int64_t>{ranks});

    int64_t rows = 0;
    for (func::FuncOp func : funcs) {
      splitFusedProjections(func);
      ShardPlan plan(func, ranks);
      if (failed(plan.run()))
        return signalPassFailure();
      rows += plan.numRowParallel();
      annotate(func, plan, name);
    }
    if (rows == 0)
      mlir::emitWarning(module.getLoc(), "llm-shard: no column-/row-parallel "
                                         "matmul pair found; every op is "
                                         "replicated on the ")
          << ranks.getValue() << " ranks";
  }
};

} // namespace
