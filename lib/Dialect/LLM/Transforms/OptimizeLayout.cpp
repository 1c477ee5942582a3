//===- OptimizeLayout.cpp - Weight layouts and transpose cancellation -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-optimize-layout`: constant matmul weights are
// stored in the requested layout (`weight-layout`, the one the target's
// matmul kernel reads contiguously; the transpose is done at compile time),
// transposes are absorbed by matmul flags, activation transposes are sunk
// through elementwise ops until they cancel, and the transposes left to run
// time are counted and explained. No target description is read: each
// target's pipeline requests its layout.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"
#include "llm/Support/Report.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "llm-optimize-layout"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMOPTIMIZELAYOUTPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Compile-time transposes of constants
//===----------------------------------------------------------------------===//

/// `permutation` swapping the last two of `rank` dimensions.
static SmallVector<int64_t> swapLastTwo(int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 2], perm[rank - 1]);
  return perm;
}

static bool isSwapLastTwo(ArrayRef<int64_t> perm) {
  return perm.size() >= 2 && ArrayRef<int64_t>(swapLastTwo(perm.size())) ==
                                 perm;
}

/// The value of `attr` transposed by `perm` (`result.shape[i] =
/// shape[perm[i]]`) as an attribute of `resultType`, or null when the
/// element storage is not byte-addressable (i1) or unknown. Splats stay
/// splats; `dense_resource` weights get a new blob named `<name>_<suffix>`.
static ElementsAttr transposeConstant(ElementsAttr attr, ArrayRef<int64_t> perm,
                                      RankedTensorType resultType,
                                      StringRef suffix) {
  auto type = cast<RankedTensorType>(attr.getType());
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
    return nullptr;
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> data;
  DenseResourceElementsAttr resource;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.resizeSplat(resultType);
    data = dense.getRawData();
  } else if ((resource = dyn_cast<DenseResourceElementsAttr>(attr))) {
    data = resource.getData();
  } else {
    return nullptr;
  }
  int64_t n = type.getNumElements();
  if (static_cast<int64_t>(data.size()) != n * elemBytes)
    return nullptr;

  // Walk the result in row-major order, keeping the source offset in step:
  // result dim i moves the source by stride(perm[i]).
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> srcStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    srcStrides[d] = srcStrides[d + 1] * shape[d + 1];
  SmallVector<int64_t> dims, steps;
  for (int64_t i = 0; i < rank; ++i) {
    dims.push_back(shape[perm[i]]);
    steps.push_back(srcStrides[perm[i]]);
  }
  std::vector<char> out(data.size());
  SmallVector<int64_t> idx(rank, 0);
  int64_t src = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(out.data() + k * elemBytes, data.data() + src * elemBytes,
                elemBytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      src += steps[d];
      if (++idx[d] < dims[d])
        break;
      src -= steps[d] * dims[d];
      idx[d] = 0;
    }
  }
  if (resource) {
    std::string name =
        (resource.getRawHandle().getKey() + "_" + suffix).str();
    return DenseResourceElementsAttr::get(
        resultType, name,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(out.data(), out.size()), elemBytes));
  }
  return DenseElementsAttr::getFromRawBuffer(
      resultType, ArrayRef<char>(out.data(), out.size()));
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// transpose(constant) -> constant (evaluated at compile time, any size).
struct FoldTransposeOfConstant : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto cst = op.getInput().getDefiningOp<ConstantOp>();
    if (!cst)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    ElementsAttr value =
        transposeConstant(cst.getValue(), op.getPermutation(), type, "t");
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant not byte-addressable");
    rewriter.replaceOpWithNewOp<ConstantOp>(op, type, value);
    return success();
  }
};

/// matmul(a, constant w [.., N, K]) {transpose_b}
///   -> matmul(a, constant w^T [.., K, N])          (preferred layout KN)
/// matmul(a, constant w [.., K, N])
///   -> matmul(a, constant w^T [.., N, K]) {transpose_b} (preferred NK)
struct StoreWeightInKernelLayout : OpRewritePattern<MatmulOp> {
  StoreWeightInKernelLayout(MLIRContext *ctx, WeightLayout layout,
                            int64_t &counter)
      : OpRewritePattern(ctx), layout(layout), counter(counter) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    bool wantTransposeB = layout == WeightLayout::NK;
    if (op.getTransposeB() == wantTransposeB)
      return failure();
    auto cst = op.getRhs().getDefiningOp<ConstantOp>();
    if (!cst)
      return failure();
    auto type = cast<RankedTensorType>(cst.getType());
    if (type.getRank() < 2)
      return failure();
    SmallVector<int64_t> perm = swapLastTwo(type.getRank());
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
    auto newType = RankedTensorType::get(shape, type.getElementType());
    ElementsAttr value = transposeConstant(
        cst.getValue(), perm, newType, wantTransposeB ? "nk" : "kn");
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant not byte-addressable");
    rewriter.setInsertionPoint(op);
    Value weight = ConstantOp::create(rewriter, cst.getLoc(), newType, value);
    rewriter.modifyOpInPlace(op, [&] {
      op.getRhsMutable().assign(weight);
      op.setTransposeB(wantTransposeB);
    });
    ++counter;
    return success();
  }

  WeightLayout layout;
  int64_t &counter;
};

/// matmul(a, transpose(b, [.., n-1, n-2])) -> matmul(a, b) {transpose_b
/// toggled}.
struct AbsorbTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getRhs().getDefiningOp<TransposeOp>();
    if (!t || !isSwapLastTwo(t.getPermutation()))
      return failure();
    bool flag = !op.getTransposeB();
    rewriter.modifyOpInPlace(op, [&] {
      op.getRhsMutable().assign(t.getInput());
      op.setTransposeB(flag);
    });
    return success();
  }
};

/// True for the llm ops that apply one function to each element and keep
/// the operand's shape.
static bool isElementwiseUnary(Operation *op) {
  return isa<NegOp, ExpOp, LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp,
             ReciprocalOp, SigmoidOp, ReluOp, SiluOp, GeluOp, CastOp, AbsOp,
             FloorOp, CeilOp, RoundOp, SinOp, CosOp>(op);
}

/// unary(transpose(x, p)) -> transpose(unary(x), p), when the transpose has
/// no other user: the transpose moves towards the next one, which cancels
/// it (transpose(transpose(x, p), q) folds).
struct SinkTransposeThroughUnary : RewritePattern {
  SinkTransposeThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseUnary(op) || op->getNumOperands() != 1 ||
        op->getNumResults() != 1)
      return failure();
    auto t = op->getOperand(0).getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse())
      return failure();
    auto inType = cast<RankedTensorType>(t.getInput().getType());
    auto resType = cast<RankedTensorType>(op->getResult(0).getType());
    auto newType =
        RankedTensorType::get(inType.getShape(), resType.getElementType());
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperand(0, t.getInput());
      moved->getResult(0).setType(newType);
    });
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resType, moved->getResult(0),
                                             t.getPermutation());
    return success();
  }
};

/// binary(transpose(a, p), transpose(b, p)) -> transpose(binary(a, b), p),
/// when both operands have the result's shape (no broadcasting).
template <typename BinOp>
struct SinkTransposeThroughBinary : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op,
                                PatternRewriter &rewriter) const override {
    auto lt = op.getLhs().template getDefiningOp<TransposeOp>();
    auto rt = op.getRhs().template getDefiningOp<TransposeOp>();
    if (!lt || !rt || lt.getPermutation() != rt.getPermutation() ||
        lt.getInput().getType() != rt.getInput().getType() ||
        op.getLhs().getType() != op.getType() ||
        op.getRhs().getType() != op.getType())
      return failure();
    auto newOp =
        BinOp::create(rewriter, op.getLoc(), lt.getInput().getType(),
                      lt.getInput(), rt.getInput());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), newOp,
                                             lt.getPermutation());
    return success();
  }
};

/// rope(transpose(x, p), pos) -> transpose(rope(x, pos'), p), when p keeps
/// the last (head) dimension in place and the transpose has no other user.
/// RoPE rotates each row of the last dimension by its row's position, so it
/// commutes with any permutation of the rows once the positions are
/// permuted the same way: pos' is pos broadcast to the rows' rank (leading
/// 1s) and permuted by p^-1 (a reshape when its non-unit dimensions keep
/// their order, as for the [S] positions of a [B, H, S, D] head split; a
/// transpose otherwise). The head split that feeds llm.attention then moves
/// next to the attention, which absorbs it (layout bshd). A dynamic sequence
/// dimension (one `?` in x and in pos) is permuted like a static one.
struct SinkTransposeThroughRope : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse())
      return rewriter.notifyMatchFailure(op, "input is not a single-use "
                                             "transpose");
    ArrayRef<int64_t> perm = t.getPermutation();
    int64_t rank = static_cast<int64_t>(perm.size());
    if (rank < 2 || perm.back() != rank - 1)
      return rewriter.notifyMatchFailure(op, "transpose moves the head dim");
    auto posType = cast<RankedTensorType>(op.getPositions().getType());
    auto inType = cast<RankedTensorType>(t.getInput().getType());
    // A dynamic (sequence) dimension moves with its row: at most one `?` in
    // each type (what llm.reshape carries through).
    if (!isStaticOrSequence(posType) || !isStaticOrSequence(inType))
      return rewriter.notifyMatchFailure(op, "more than one dynamic dim");
    int64_t rows = rank - 1;
    if (posType.getRank() > rows)
      return rewriter.notifyMatchFailure(op, "positions rank above rows");
    // Row i of the transposed input is row j of x with j[perm[m]] = i[m],
    // so pos'[j] = pos_full[i] is the transpose of pos_full by perm^-1
    // (pos' dimension m is pos_full dimension inv[m]).
    SmallVector<int64_t> full(rows - posType.getRank(), 1);
    llvm::append_range(full, posType.getShape());
    SmallVector<int64_t> inv(rows);
    for (int64_t i = 0; i < rows; ++i)
      inv[perm[i]] = i;
    SmallVector<int64_t> newShape(rows);
    for (int64_t m = 0; m < rows; ++m)
      newShape[m] = full[inv[m]];
    bool orderKept = true;
    int64_t last = -1;
    for (int64_t m = 0; m < rows; ++m) {
      if (full[inv[m]] == 1)
        continue;
      orderKept &= inv[m] > last;
      last = inv[m];
    }
    Location loc = op.getLoc();
    Value pos = op.getPositions();
    auto fullType = RankedTensorType::get(full, posType.getElementType());
    auto newPosType = RankedTensorType::get(newShape, posType.getElementType());
    if (orderKept) {
      if (newPosType != posType)
        pos = ReshapeOp::create(rewriter, loc, newPosType, pos);
    } else {
      if (fullType != posType)
        pos = ReshapeOp::create(rewriter, loc, fullType, pos);
      pos = TransposeOp::create(rewriter, loc, newPosType, pos,
                                rewriter.getDenseI64ArrayAttr(inv));
    }
    auto rope = RopeOp::create(rewriter, loc, inType, t.getInput(), pos,
                               op.getModeAttr(), op.getThetaAttr(),
                               op.getRotaryDimsAttr());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), rope.getResult(),
                                             perm);
    return success();
  }
};

} // namespace

void mlir::llm::populateOptimizeLayoutPatterns(RewritePatternSet &patterns,
                                               WeightLayout layout,
                                               int64_t &weightsChanged,
                                               bool unitsInTranspose) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FoldTransposeOfConstant, AbsorbTransposeIntoMatmul,
               SinkTransposeThroughUnary, SinkTransposeThroughBinary<AddOp>,
               SinkTransposeThroughBinary<SubOp>,
               SinkTransposeThroughBinary<MulOp>,
               SinkTransposeThroughBinary<DivOp>,
               SinkTransposeThroughBinary<MaxOp>,
               SinkTransposeThroughBinary<MinOp>, SinkTransposeThroughRope>(
      ctx);
  patterns.add<StoreWeightInKernelLayout>(ctx, layout, weightsChanged);
  TransposeOp::getCanonicalizationPatterns(patterns, ctx);
  // The head split transposes sunk through llm.rope meet the attention here.
  AttentionOp::getCanonicalizationPatterns(patterns, ctx);
  populateLayoutPropagationPatterns(patterns, unitsInTranspose);
}

//===----------------------------------------------------------------------===//
// Remaining transposes
//===----------------------------------------------------------------------===//

/// Why `op` (a non-constant transpose) stays.
static std::string explainTranspose(TransposeOp op) {
  ArrayRef<int64_t> p = op.getPermutation();
  bool headSwap = p.size() == 4 && p[0] == 0 && p[1] == 2 && p[2] == 1 &&
                  p[3] == 3;
  bool feedsAttention = llvm::any_of(op->getUsers(), [](Operation *u) {
    return isa<AttentionOp>(u);
  });
  if (headSwap && feedsAttention)
    return "head split [B, S, H, D] -> [B, H, S, D]: llm.attention takes "
           "[B, H, S, D] operands";
  if (headSwap && op.getInput().getDefiningOp<AttentionOp>())
    return "head merge [B, H, S, D] -> [B, S, H, D] after llm.attention, "
           "before the output projection";
  std::string s = "no layout choice removes it: the operand comes from ";
  if (Operation *def = op.getInput().getDefiningOp())
    s += "'" + def->getName().getStringRef().str() + "'";
  else
    s += "a function argument";
  return s;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LLMOptimizeLayoutPass
    : public llm::impl::LLMOptimizeLayoutPassBase<LLMOptimizeLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<WeightLayout> layout = parseWeightLayout(weightLayout);
    if (!layout) {
      emitError(module.getLoc())
          << "llm-optimize-layout: unknown weight-layout '" << weightLayout
          << "' (expected kn or nk)";
      return signalPassFailure();
    }
    // Two rounds: the second lets transpose/reshape chains end in their
    // transpose (populateLayoutPropagationPatterns), once the first has
    // moved every transpose it can.
    int64_t weightsChanged = 0;
    for (bool unitsInTranspose : {false, true}) {
      RewritePatternSet patterns(&getContext());
      populateOptimizeLayoutPatterns(patterns, *layout, weightsChanged,
                                     unitsInTranspose);
      if (failed(applyPatternsGreedily(module, std::move(patterns)))) {
        emitError(module.getLoc())
            << "llm-optimize-layout: patterns did not converge";
        return signalPassFailure();
      }
    }

    int64_t runtime = 0;
    module.walk([&](Operation *op) {
      if (auto t = dyn_cast<TransposeOp>(op)) {
        if (t.getInput().getDefiningOp<ConstantOp>())
          return;
        ++runtime;
        if (emitRemarks)
          t.emitRemark() << "runtime transpose: " << explainTranspose(t);
      } else if (auto mm = dyn_cast<MatmulOp>(op)) {
        if (!mm.getTransposeB() || mm.getRhs().getDefiningOp<ConstantOp>())
          return;
        ++runtime;
        if (emitRemarks)
          mm.emitRemark() << "runtime transpose: transpose_b of a computed "
                             "operand (transposed at run time for enough "
                             "rows of lhs)";
      }
    });
    numWeightsChanged += weightsChanged;
    numRuntimeTransposes += runtime;
    accumulateReportValue(module, "weight_layouts_changed", weightsChanged);
    accumulateReportValue(module, "runtime_transposes", runtime);
  }
};
} // namespace
