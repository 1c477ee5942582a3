//===- Recompose.cpp - rebuild fused llm ops from decomposed forms --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `llm-recompose` pass and its patterns. Exporters
// (torch.onnx.export below opset 17, hand-written graphs, ...) spell fused
// operations out as chains of elementwise ops and reductions; the patterns
// recognize those chains and rebuild `llm.layer_norm`, `llm.rms_norm`,
// `llm.gelu`, `llm.silu`, `llm.rope` and `llm.attention` (and turn constant
// causal attention masks into `{causal}`).
//
// Every pattern is anchored at the last op of its chain and checks that:
//  * each intermediate value of the chain is used only inside the chain (a
//    value also read elsewhere must stay, so the chain is left untouched);
//  * the result has the type of the chain's input, so no constant operand
//    broadcast the shape to something larger (constants that the formula
//    needs as scalars must be splats); for attention, `q`, `k` and `v` agree
//    on batch and heads and the scores keep the type of `q @ k^T`;
//  * formula constants match with a relative tolerance of 1e-4
//    (`|c - expected| <= 1e-4 * |expected|`), or when they are the exact
//    value rounded to their element type (the constants of an f16 or bf16
//    export), so that `0.7071` or `1.4142135` are accepted while `0.6` for
//    `0.5` (or bf16's 0.99609375 for 1) is not. Exponents (2 and
//    3) must be exact. Epsilons are read as they are (any value >= 0).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SliceColumns.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <optional>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMRECOMPOSEPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

#define DEBUG_TYPE "llm-recompose"

using namespace mlir;
using namespace mlir::llm;

namespace {

//===----------------------------------------------------------------------===//
// Matching helpers
//===----------------------------------------------------------------------===//

/// Relative tolerance of formula constants.
constexpr double kConstantTolerance = 1e-4;

/// Returns the value of `v` when it is defined by a splat floating-point
/// constant.
std::optional<double> getSplatFloat(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// True when `v` is a splat constant within the relative tolerance of
/// `expected`, or exactly `expected` rounded to its element type (nearest
/// even): an f16 model's 0.044715 is 0.0447083, 1.5e-4 off; a bf16 one's
/// 0.0446777. Not any value within half an ulp: 1 - 2^-8 is a bf16 value
/// of its own, not 1.0.
bool isSplatNear(Value v, double expected) {
  std::optional<double> c = getSplatFloat(v);
  if (!c)
    return false;
  if (std::abs(*c - expected) <= kConstantTolerance * std::abs(expected))
    return true;
  auto type = cast<FloatType>(getElementTypeOrSelf(v.getType()));
  llvm::APFloat rounded(expected);
  bool losesInfo = false;
  rounded.convert(type.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return rounded.convertToDouble() == *c;
}

/// True when `v` is a splat constant exactly equal to `expected`.
bool isSplatExactly(Value v, double expected) {
  std::optional<double> c = getSplatFloat(v);
  return c && *c == expected;
}

/// Returns the op of type `OpTy` defining `v`, or null.
template <typename OpTy>
OpTy defOp(Value v) {
  return v ? v.getDefiningOp<OpTy>() : OpTy();
}

/// Reads the elements of the `dense` or `dense_resource` constant defining
/// `v` as doubles (i1 as 0/1; resource blobs as packed little-endian
/// elements, one byte per i1). Nothing when `v` is not a static constant of
/// float or integer elements.
std::optional<std::vector<double>> readConstantValues(Value v) {
  auto cst = defOp<ConstantOp>(v);
  if (!cst)
    return std::nullopt;
  ElementsAttr attr = cst.getValue();
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Type et = type.getElementType();
  int64_t n = type.getNumElements();
  std::vector<double> out;
  out.reserve(n);
  auto toDouble = [](APFloat f) {
    bool losesInfo;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    return f.convertToDouble();
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(et)) {
      for (APFloat f : dense.getValues<APFloat>())
        out.push_back(toDouble(f));
    } else if (et.isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        out.push_back(b ? 1.0 : 0.0);
    } else if (isa<IntegerType>(et)) {
      for (APInt i : dense.getValues<APInt>())
        out.push_back(static_cast<double>(i.getSExtValue()));
    } else {
      return std::nullopt;
    }
    return out;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !et.isIntOrFloat())
    return std::nullopt;
  ArrayRef<char> data = resource.getData();
  unsigned width = et.getIntOrFloatBitWidth();
  unsigned bytes = et.isInteger(1) ? 1 : width / 8;
  if (static_cast<int64_t>(data.size()) != n * static_cast<int64_t>(bytes))
    return std::nullopt;
  for (int64_t k = 0; k < n; ++k) {
    uint64_t bits = 0;
    std::memcpy(&bits, data.data() + k * bytes, bytes);
    if (auto ft = dyn_cast<FloatType>(et))
      out.push_back(toDouble(APFloat(ft.getFloatSemantics(), APInt(width, bits))));
    else if (et.isInteger(1))
      out.push_back(bits != 0 ? 1.0 : 0.0);
    else
      out.push_back(static_cast<double>(APInt(width, bits).getSExtValue()));
  }
  return out;
}

/// The ops of a matched chain. The root's result may have any users; every
/// other op's results may only be used by ops of the chain.
struct Chain {
  SmallVector<Operation *> ops;

  void add(Operation *op) { ops.push_back(op); }

  /// True when no intermediate value escapes the chain rooted at `root`.
  bool isClosed(Operation *root) const {
    SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
    set.insert(root);
    for (Operation *op : ops) {
      if (op == root)
        continue;
      for (Operation *user : op->getUsers())
        if (!set.contains(user))
          return false;
    }
    return true;
  }
};

/// Calls `fn(a, b)` with the operands of a commutative binary op in both
/// orders; returns true as soon as one call does.
template <typename Fn>
bool eitherOrder(Value lhs, Value rhs, Fn fn) {
  return fn(lhs, rhs) || fn(rhs, lhs);
}

/// Matches `v = x * x` or `v = pow(x, 2)` and returns `x`.
Value matchSquare(Value v, Chain &chain) {
  if (auto mul = defOp<MulOp>(v)) {
    if (mul.getLhs() != mul.getRhs())
      return {};
    chain.add(mul);
    return mul.getLhs();
  }
  if (auto pow = defOp<PowOp>(v)) {
    if (!isSplatExactly(pow.getRhs(), 2.0))
      return {};
    chain.add(pow);
    return pow.getLhs();
  }
  return {};
}

/// Matches `v = x * x * x` (either association) or `v = pow(x, 3)` and returns
/// `x`.
Value matchCube(Value v, Chain &chain) {
  if (auto pow = defOp<PowOp>(v)) {
    if (!isSplatExactly(pow.getRhs(), 3.0))
      return {};
    chain.add(pow);
    return pow.getLhs();
  }
  auto mul = defOp<MulOp>(v);
  if (!mul)
    return {};
  Value x;
  Chain inner;
  if (!eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value sq, Value other) {
        inner = Chain();
        Value base = matchSquare(sq, inner);
        if (!base || base != other)
          return false;
        x = base;
        return true;
      }))
    return {};
  chain.add(mul);
  chain.ops.append(inner.ops);
  return x;
}

/// Matches the inverse standard deviation `1 / sqrt(s + eps)` and returns `s`
/// and `eps`. With `isDivisor`, `v` is the divisor `sqrt(s + eps)`; otherwise
/// it is a factor, `rsqrt(s + eps)`, `reciprocal(sqrt(s + eps))` or
/// `1 / sqrt(s + eps)`. The epsilon is a splat constant >= 0 that leaves the
/// type of `s` unchanged.
bool matchInvStd(Value v, bool isDivisor, Chain &chain, Value &s, double &eps) {
  Value sum;
  if (isDivisor) {
    auto sqrt = defOp<SqrtOp>(v);
    if (!sqrt)
      return false;
    chain.add(sqrt);
    sum = sqrt.getInput();
  } else if (auto rsqrt = defOp<RsqrtOp>(v)) {
    chain.add(rsqrt);
    sum = rsqrt.getInput();
  } else if (auto recip = defOp<ReciprocalOp>(v)) {
    auto sqrt = defOp<SqrtOp>(recip.getInput());
    if (!sqrt)
      return false;
    chain.add(recip);
    chain.add(sqrt);
    sum = sqrt.getInput();
  } else if (auto div = defOp<DivOp>(v)) {
    // 1 / sqrt(...), as torch.onnx.export writes torch.rsqrt.
    auto sqrt = defOp<SqrtOp>(div.getRhs());
    if (!sqrt || !isSplatNear(div.getLhs(), 1.0) ||
        div.getType() != sqrt.getType())
      return false;
    chain.add(div);
    chain.add(sqrt);
    sum = sqrt.getInput();
  } else {
    return false;
  }
  auto add = defOp<AddOp>(sum);
  if (!add)
    return false;
  return eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value c) {
    std::optional<double> e = getSplatFloat(c);
    if (!e || *e < 0 || a.getType() != add.getType())
      return false;
    chain.add(add);
    s = a;
    eps = *e;
    return true;
  });
}

/// Returns the axes of a `keepdims` reduction over `rank` dimensions as a
/// sorted list of non-negative axes, or nothing when they are invalid.
std::optional<SmallVector<int64_t>> normalizedAxes(ReduceMeanOp op) {
  if (!op.getKeepdims())
    return std::nullopt;
  int64_t rank = op.getInput().getType().getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : op.getAxes()) {
    if (a < -rank || a >= rank)
      return std::nullopt;
    axes.push_back(a < 0 ? a + rank : a);
  }
  llvm::sort(axes);
  if (axes.empty() || llvm::adjacent_find(axes) != axes.end())
    return std::nullopt;
  return axes;
}

/// True when `axes` (sorted) are exactly the trailing dims `[rank - n, rank)`.
bool areTrailingAxes(ArrayRef<int64_t> axes, int64_t rank) {
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
      return false;
  return true;
}

/// Collects the factors of the product rooted at `v`: `mul` ops are
/// flattened when they are the root or used once (by their parent).
void collectFactors(Value v, bool isRoot, Chain &chain,
                    SmallVectorImpl<Value> &factors) {
  auto mul = defOp<MulOp>(v);
  if (mul && (isRoot || v.hasOneUse()) && factors.size() < 8) {
    chain.add(mul);
    collectFactors(mul.getLhs(), false, chain, factors);
    collectFactors(mul.getRhs(), false, chain, factors);
    return;
  }
  factors.push_back(v);
}

//===----------------------------------------------------------------------===//
// LayerNorm
//===----------------------------------------------------------------------===//

/// Matches the normalization core of a layer norm, anchored at the division
/// (or the multiplication by the inverse standard deviation):
///
///   mean = reduce_mean(x, axes, keepdims)
///   d    = x - mean
///   var  = reduce_mean(d * d | pow(d, 2), axes, keepdims)
///   y    = d / sqrt(var + eps) | d * rsqrt(var + eps)
///                              | d * reciprocal(sqrt(var + eps))
///   -> layer_norm(x) {axis = -|axes|, epsilon = eps}
///
/// `axes` (the same set in both reductions) must be the trailing dimensions.
/// `* gamma + beta` is absorbed afterwards by the patterns below.
struct RecomposeLayerNorm final : RewritePattern {
  RecomposeLayerNorm(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool isDiv = isa<DivOp>(op);
    if (!isDiv && !isa<MulOp>(op))
      return failure();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Value x;
    int64_t axis = 0;
    double eps = 0;
    auto tryOrder = [&](Value num, Value inv) {
      Chain chain;
      chain.add(op);
      Value var;
      if (!matchInvStd(inv, isDiv, chain, var, eps))
        return false;
      auto sub = defOp<SubOp>(num);
      if (!sub)
        return false;
      x = sub.getLhs();
      auto mean = defOp<ReduceMeanOp>(sub.getRhs());
      auto varMean = defOp<ReduceMeanOp>(var);
      if (!mean || !varMean || mean.getInput() != x)
        return false;
      Value sqIn = matchSquare(varMean.getInput(), chain);
      if (sqIn != num)
        return false;
      auto axes = normalizedAxes(mean);
      auto varAxes = normalizedAxes(varMean);
      auto xType = cast<RankedTensorType>(x.getType());
      int64_t rank = xType.getRank();
      if (!axes || !varAxes || *axes != *varAxes ||
          !areTrailingAxes(*axes, rank))
        return false;
      if (sub.getType() != xType || op->getResult(0).getType() != xType)
        return false;
      chain.add(sub);
      chain.add(mean);
      chain.add(varMean);
      if (!chain.isClosed(op))
        return false;
      axis = -static_cast<int64_t>(axes->size());
      return true;
    };
    bool matched = isDiv ? tryOrder(lhs, rhs) : eitherOrder(lhs, rhs, tryOrder);
    if (!matched)
      return rewriter.notifyMatchFailure(op, "not a layer norm chain");
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, x.getType(), x, /*scale=*/Value(), /*bias=*/Value(),
        rewriter.getI64IntegerAttr(axis),
        rewriter.getF32FloatAttr(static_cast<float>(eps)));
    return success();
  }
};

/// True when `v` has the normalized shape `shape[axis:]` of `norm` and its
/// element type.
bool hasNormalizedShape(Value v, RankedTensorType inputType, int64_t axis) {
  auto t = cast<RankedTensorType>(v.getType());
  if (axis < 0)
    axis += inputType.getRank();
  return t.getElementType() == inputType.getElementType() &&
         t.getShape() == inputType.getShape().drop_front(axis);
}

/// layer_norm(x) * gamma -> layer_norm(x, scale = gamma)
/// (either operand order; no scale or bias yet; the layer norm used only here;
/// gamma of the normalized shape)
struct AbsorbLayerNormScale final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    LayerNormOp norm;
    Value gamma;
    if (!eitherOrder(op.getLhs(), op.getRhs(), [&](Value n, Value g) {
          norm = defOp<LayerNormOp>(n);
          gamma = g;
          return norm && !norm.getScale() && !norm.getBias() && n.hasOneUse() &&
                 op.getType() == norm.getType() &&
                 hasNormalizedShape(g, norm.getInput().getType(),
                                    norm.getAxis());
        }))
      return rewriter.notifyMatchFailure(op, "not layer_norm(x) * gamma");
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, norm.getType(), norm.getInput(), gamma, Value(), norm.getAxisAttr(),
        norm.getEpsilonAttr());
    return success();
  }
};

/// layer_norm(x[, scale]) + beta -> layer_norm(x[, scale], bias = beta)
/// (either operand order; no bias yet; the layer norm used only here; beta of
/// the normalized shape)
struct AbsorbLayerNormBias final : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    LayerNormOp norm;
    Value beta;
    if (!eitherOrder(op.getLhs(), op.getRhs(), [&](Value n, Value b) {
          norm = defOp<LayerNormOp>(n);
          beta = b;
          return norm && !norm.getBias() && n.hasOneUse() &&
                 op.getType() == norm.getType() &&
                 hasNormalizedShape(b, norm.getInput().getType(),
                                    norm.getAxis());
        }))
      return rewriter.notifyMatchFailure(op, "not layer_norm(x) + beta");
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, norm.getType(), norm.getInput(), norm.getScale(), beta,
        norm.getAxisAttr(), norm.getEpsilonAttr());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

/// Matches RMS normalization over the last dimension:
///
///   ms = reduce_mean(x * x | pow(x, 2), [-1], keepdims)
///   y  = x / sqrt(ms + eps) | x * rsqrt(ms + eps)
///                           | x * reciprocal(sqrt(ms + eps))
///   -> rms_norm(x) {epsilon = eps}
///
/// Lower benefit than the layer norm pattern, which anchors at the same op
/// (`d / sqrt(mean(d^2) + eps)` with `d = x - mean(x)` is a layer norm).
/// `* w` is absorbed afterwards by AbsorbRmsNormWeight.
struct RecomposeRmsNorm final : RewritePattern {
  RecomposeRmsNorm(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool isDiv = isa<DivOp>(op);
    if (!isDiv && !isa<MulOp>(op))
      return failure();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Value x;
    double eps = 0;
    auto tryOrder = [&](Value num, Value inv) {
      Chain chain;
      chain.add(op);
      Value ms;
      if (!matchInvStd(inv, isDiv, chain, ms, eps))
        return false;
      auto mean = defOp<ReduceMeanOp>(ms);
      if (!mean)
        return false;
      chain.add(mean);
      if (matchSquare(mean.getInput(), chain) != num)
        return false;
      auto xType = cast<RankedTensorType>(num.getType());
      auto axes = normalizedAxes(mean);
      if (!axes || axes->size() != 1 || axes->front() != xType.getRank() - 1)
        return false;
      if (op->getResult(0).getType() != xType || !chain.isClosed(op))
        return false;
      x = num;
      return true;
    };
    bool matched = isDiv ? tryOrder(lhs, rhs) : eitherOrder(lhs, rhs, tryOrder);
    if (!matched)
      return rewriter.notifyMatchFailure(op, "not an rms norm chain");
    rewriter.replaceOpWithNewOp<RmsNormOp>(
        op, x.getType(), x, /*weight=*/Value(),
        rewriter.getF32FloatAttr(static_cast<float>(eps)));
    return success();
  }
};

/// rms_norm(x) * w -> rms_norm(x, weight = w)
/// (either operand order; no weight yet; the rms norm used only here; w of
/// shape [D], D the last dimension of x)
struct AbsorbRmsNormWeight final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    RmsNormOp norm;
    Value weight;
    if (!eitherOrder(op.getLhs(), op.getRhs(), [&](Value n, Value w) {
          norm = defOp<RmsNormOp>(n);
          weight = w;
          return norm && !norm.getWeight() && n.hasOneUse() &&
                 op.getType() == norm.getType() &&
                 hasNormalizedShape(w, norm.getInput().getType(), -1);
        }))
      return rewriter.notifyMatchFailure(op, "not rms_norm(x) * w");
    rewriter.replaceOpWithNewOp<RmsNormOp>(op, norm.getType(), norm.getInput(),
                                           weight, norm.getEpsilonAttr());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// Matches `1 + f(arg)` (either order) where `f` is `OpTy` and returns `arg`.
template <typename OpTy>
Value matchOnePlus(Value v, Chain &chain) {
  auto add = defOp<AddOp>(v);
  if (!add)
    return {};
  Value arg;
  if (!eitherOrder(add.getLhs(), add.getRhs(), [&](Value f, Value one) {
        auto fn = defOp<OpTy>(f);
        if (!fn || !isSplatNear(one, 1.0))
          return false;
        chain.add(fn);
        arg = fn.getInput();
        return true;
      }))
    return {};
  chain.add(add);
  return arg;
}

/// Matches `x / sqrt(2)` or `x * (1 / sqrt(2))` (either order) and returns x.
Value matchDivSqrt2(Value v, Chain &chain) {
  if (auto div = defOp<DivOp>(v)) {
    if (!isSplatNear(div.getRhs(), llvm::numbers::sqrt2))
      return {};
    chain.add(div);
    return div.getLhs();
  }
  auto mul = defOp<MulOp>(v);
  if (!mul)
    return {};
  Value x;
  if (!eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value c) {
        x = a;
        return isSplatNear(c, llvm::numbers::inv_sqrt2);
      }))
    return {};
  chain.add(mul);
  return x;
}

/// Matches `sqrt(2/pi) * (x + 0.044715 * x^3)` (either order of every
/// commutative op; x^3 as pow(x, 3) or x * x * x) and returns x.
Value matchTanhArg(Value v, Chain &chain) {
  auto mul = defOp<MulOp>(v);
  if (!mul)
    return {};
  Value x;
  if (!eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value inner, Value c) {
        if (!isSplatNear(c, std::sqrt(2.0 / llvm::numbers::pi)))
          return false;
        auto add = defOp<AddOp>(inner);
        if (!add)
          return false;
        return eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value t) {
          auto cubic = defOp<MulOp>(t);
          if (!cubic)
            return false;
          return eitherOrder(cubic.getLhs(), cubic.getRhs(),
                             [&](Value cube, Value k) {
                               if (!isSplatNear(k, 0.044715))
                                 return false;
                               Chain inner;
                               if (matchCube(cube, inner) != a)
                                 return false;
                               chain.add(add);
                               chain.add(cubic);
                               chain.ops.append(inner.ops);
                               x = a;
                               return true;
                             });
        });
      }))
    return {};
  chain.add(mul);
  return x;
}

/// Matches the products (any association and order of the three factors)
///
///   0.5 * x * (1 + erf(x / sqrt(2)))        -> gelu(x)
///   0.5 * x * (1 + erf(x * 0.70710678))     -> gelu(x)
///   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
///                                           -> gelu(x) approximate <tanh>
///
/// with x^3 as pow(x, 3), x * x * x or x * (x * x).
struct RecomposeGelu final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Chain chain;
    SmallVector<Value, 4> factors;
    collectFactors(op.getResult(), /*isRoot=*/true, chain, factors);
    if (factors.size() != 3)
      return rewriter.notifyMatchFailure(op, "not a product of 3 factors");
    // Find the 0.5 factor, then try each remaining order (x, 1 + f(...)).
    auto *half =
        llvm::find_if(factors, [](Value f) { return isSplatNear(f, 0.5); });
    if (half == factors.end())
      return rewriter.notifyMatchFailure(op, "no 0.5 factor");
    SmallVector<Value, 2> rest;
    for (Value *f = factors.begin(); f != factors.end(); ++f)
      if (f != half)
        rest.push_back(*f);
    std::optional<GeluApproximation> approx;
    Value x;
    eitherOrder(rest[0], rest[1], [&](Value cand, Value poly) {
      Chain inner;
      if (Value arg = matchOnePlus<ErfOp>(poly, inner)) {
        if (matchDivSqrt2(arg, inner) == cand) {
          approx = GeluApproximation::None;
        }
      } else if (Value targ = matchOnePlus<TanhOp>(poly, inner)) {
        if (matchTanhArg(targ, inner) == cand)
          approx = GeluApproximation::Tanh;
      }
      if (!approx)
        return false;
      x = cand;
      chain.ops.append(inner.ops);
      return true;
    });
    if (!approx)
      return rewriter.notifyMatchFailure(op, "no erf/tanh polynomial of x");
    if (op.getType() != x.getType() || !chain.isClosed(op))
      return rewriter.notifyMatchFailure(op, "type change or escaping value");
    rewriter.replaceOpWithNewOp<GeluOp>(op, x.getType(), x, *approx);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// SiLU
//===----------------------------------------------------------------------===//

/// x * sigmoid(x) -> silu(x)   (either order; the sigmoid used only here)
struct RecomposeSilu final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Value x;
    if (!eitherOrder(op.getLhs(), op.getRhs(), [&](Value a, Value s) {
          auto sig = defOp<SigmoidOp>(s);
          x = a;
          return sig && sig.getInput() == a && s.hasOneUse();
        }))
      return rewriter.notifyMatchFailure(op, "not x * sigmoid(x)");
    if (op.getType() != x.getType())
      return rewriter.notifyMatchFailure(op, "type change");
    rewriter.replaceOpWithNewOp<SiluOp>(op, x.getType(), x);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Rotary position embedding
//===----------------------------------------------------------------------===//

/// Matches `slice(x)` taking the last-dimension range [lo, hi) of `x` with
/// unit strides and everything of the other dimensions (getSlicedColumns).
bool isLastDimSlice(SliceOp slice, Value x, int64_t lo, int64_t hi) {
  return slice && slice.getInput() == x &&
         getSlicedColumns(slice) == std::make_pair(lo, hi);
}

/// Matches `rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2], axis = -1)`
/// and returns `x`.
Value matchRotateHalf(Value v, Chain &chain) {
  auto concat = defOp<ConcatOp>(v);
  if (!concat || concat.getInputs().size() != 2)
    return {};
  auto type = cast<RankedTensorType>(concat.getType());
  int64_t rank = type.getRank();
  if (concat.getAxis() != rank - 1 && concat.getAxis() != -1)
    return {};
  auto neg = defOp<NegOp>(concat.getInputs()[0]);
  if (!neg)
    return {};
  auto hi = defOp<SliceOp>(neg.getInput());
  auto lo = defOp<SliceOp>(concat.getInputs()[1]);
  if (!hi || !lo || hi.getInput() != lo.getInput())
    return {};
  Value x = lo.getInput();
  if (x.getType() != type || !type.hasStaticShape())
    return {};
  int64_t d = type.getDimSize(rank - 1);
  if (d % 2 != 0 || !isLastDimSlice(lo, x, 0, d / 2) ||
      !isLastDimSlice(hi, x, d / 2, d))
    return {};
  chain.add(concat);
  chain.add(neg);
  chain.add(hi);
  chain.add(lo);
  return x;
}

/// Checks that `cos` and `sin` are constant rotate-half tables of `x`
/// (`[..., S, D]`) for positions 0..S-1: shape `[1, ..., 1, S, D]` (at most
/// the rank of `x`) and `table[s, d] = f(s * theta^(-2 (d mod D/2) / D))`.
/// `theta` is recovered from the slowest frequency (`d = D/2 - 1` at `s = 1`,
/// where the angle is small and `atan2` exact to f32 rounding), or is 10000
/// when the tables cannot tell (D = 2 or S = 1). Every entry must match the
/// definition within 1e-4 + 1e-6 * |angle| (f32 tables computed with f32
/// angles, as torch does).
std::optional<double> matchRopeTables(Value cos, Value sin,
                                      RankedTensorType xType) {
  auto ct = dyn_cast<RankedTensorType>(cos.getType());
  auto st = dyn_cast<RankedTensorType>(sin.getType());
  if (!ct || !st || ct.getShape() != st.getShape() || ct.getRank() < 2 ||
      ct.getRank() > xType.getRank())
    return std::nullopt;
  int64_t rank = ct.getRank(), xRank = xType.getRank();
  int64_t seq = xType.getDimSize(xRank - 2), dim = xType.getDimSize(xRank - 1);
  if (ct.getDimSize(rank - 1) != dim || ct.getDimSize(rank - 2) != seq)
    return std::nullopt;
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (ct.getDimSize(d) != 1)
      return std::nullopt;
  std::optional<std::vector<double>> cv = readConstantValues(cos);
  std::optional<std::vector<double>> sv = readConstantValues(sin);
  if (!cv || !sv)
    return std::nullopt;
  int64_t half = dim / 2;
  double theta = 10000.0;
  if (half >= 2 && seq >= 2) {
    int64_t k = dim + half - 1; // s = 1, d = D/2 - 1
    double angle = std::atan2((*sv)[k], (*cv)[k]);
    if (!(angle > 0.0 && angle < 1.0))
      return std::nullopt;
    // angle = theta^(-2 (D/2 - 1) / D).
    theta = std::exp(-std::log(angle) * double(dim) / double(2 * (half - 1)));
    if (!(theta > 1.0) || !std::isfinite(theta))
      return std::nullopt;
    // The tables are f32: snap to the integer base they were built from.
    if (std::abs(theta - std::round(theta)) <= 1e-5 * theta)
      theta = std::round(theta);
  }
  float thetaF = static_cast<float>(theta);
  for (int64_t i = 0; i < half; ++i) {
    float inv = 1.0f / std::pow(thetaF, float(2 * i) / float(dim));
    for (int64_t p = 0; p < seq; ++p) {
      float angle = float(p) * inv;
      double tol = 1e-4 + 1e-6 * std::abs(double(angle));
      for (int64_t d : {i, i + half}) {
        int64_t k = p * dim + d;
        if (std::abs((*cv)[k] - std::cos(double(angle))) > tol ||
            std::abs((*sv)[k] - std::sin(double(angle))) > tol)
          return std::nullopt;
      }
    }
  }
  return theta;
}

/// Rotate-half RoPE as Hugging Face LLaMA writes it (torch exports it as
/// Slice/Neg/Concat/Mul/Add):
///
///   x * cos + rotate_half(x) * sin        (either order of each + and *)
///   rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2], axis = -1)
///   -> rope(x, positions = [0, 1, ..., S-1]) {theta}
///
/// with `cos` and `sin` constant tables that match the `llm.rope` definition
/// (see `matchRopeTables`; theta recovered from them). Tables that are not
/// constants, that do not match, or that vary over batch or heads leave the
/// chain untouched, as do intermediate values used elsewhere.
struct RecomposeRope final : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    Chain chain;
    Value x, cos, sin;
    auto matchTerms = [&](Value direct, Value rotated) {
      auto mulDirect = defOp<MulOp>(direct);
      auto mulRot = defOp<MulOp>(rotated);
      if (!mulDirect || !mulRot)
        return false;
      Chain inner;
      Value rx;
      if (!eitherOrder(mulRot.getLhs(), mulRot.getRhs(), [&](Value r, Value t) {
            Chain c;
            rx = matchRotateHalf(r, c);
            if (!rx)
              return false;
            inner.ops.append(c.ops);
            sin = t;
            return true;
          }))
        return false;
      if (!eitherOrder(mulDirect.getLhs(), mulDirect.getRhs(),
                       [&](Value a, Value t) {
                         if (a != rx)
                           return false;
                         cos = t;
                         return true;
                       }))
        return false;
      x = rx;
      chain.ops.append(inner.ops);
      chain.add(mulDirect);
      chain.add(mulRot);
      return true;
    };
    if (!eitherOrder(op.getLhs(), op.getRhs(), matchTerms))
      return rewriter.notifyMatchFailure(op, "not x * cos + rotate_half(x) * sin");
    auto xType = cast<RankedTensorType>(x.getType());
    if (op.getType() != xType || xType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "tables broadcast the result");
    for (Operation *mul : llvm::ArrayRef(chain.ops).take_back(2))
      if (mul->getResult(0).getType() != xType)
        return rewriter.notifyMatchFailure(op, "tables broadcast a product");
    std::optional<double> theta = matchRopeTables(cos, sin, xType);
    if (!theta)
      return rewriter.notifyMatchFailure(op, "cos/sin are not rope tables");
    if (!chain.isClosed(op))
      return rewriter.notifyMatchFailure(op, "escaping intermediate value");
    int64_t seq = xType.getDimSize(xType.getRank() - 2);
    SmallVector<int64_t> pos(seq);
    for (int64_t p = 0; p < seq; ++p)
      pos[p] = p;
    auto posType = RankedTensorType::get({seq}, rewriter.getI64Type());
    Value positions = ConstantOp::create(
        rewriter, op.getLoc(), posType,
        DenseElementsAttr::get(posType, ArrayRef<int64_t>(pos)));
    rewriter.replaceOpWithNewOp<RopeOp>(
        op, xType, x, positions,
        RopeModeAttr::get(rewriter.getContext(), RopeMode::RotateHalf),
        rewriter.getF32FloatAttr(static_cast<float>(*theta)),
        /*rotary_dims=*/nullptr);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The smallest additive mask value read as "excluded": torch's own causal
/// masks use -inf, `torch.finfo(dtype).min` or -1e4 (GPT-2). Softmax gives
/// such a position weight exp(<= -1e4 + gap) = 0 in f32 (exp underflows
/// below -104) unless a masked logit exceeds the row's largest kept logit by
/// more than ~9896, so dropping the position is exact for real scores.
constexpr double kExcludedMaskValue = -1e4;

/// True when `v` is a splat floating-point constant read as "excluded"
/// (see kExcludedMaskValue; -inf included).
bool isExcludedSplat(Value v) {
  std::optional<double> c = getSplatFloat(v);
  return c && *c <= kExcludedMaskValue;
}

/// Scores of magnitude below this are absorbed by an added mask value
/// `m <= -kAbsorbingMaskValue`: fl(s + m) == m for |s| < ulp(m) / 2, which
/// is 3.8e22 at 1e30 (torch.finfo(float32).min is -3.4e38).
constexpr double kAbsorbingMaskValue = 1e30;

/// A mask given as a condition: positions where `condition` (i1) is true
/// are kept, or excluded when `negated`. `excludedScore`: the finite score
/// the graph gives an excluded position (llm.attention's excluded_score),
/// none when it is -inf.
struct BoolMask {
  Value condition;
  bool negated = false;
  std::optional<double> excludedScore;
};

/// The excluded_score of an excluded splat `m` (see isExcludedSplat): its
/// value, or none for -inf.
std::optional<double> excludedScoreOf(Value m) {
  std::optional<double> c = getSplatFloat(m);
  if (!c || std::isinf(*c))
    return std::nullopt;
  return *c;
}

/// Matches the masks written with `where` and added to the scores:
///   select(c, 0, m) -> c       select(c, m, 0) -> not c
/// (`m` an excluded splat, see isExcludedSplat). A float mask of 0 and
/// `m` is the same as the condition it was made of, with excluded_score m
/// where the graph's excluded scores s + m round to m (m -inf, or at most
/// -kAbsorbingMaskValue). A finite m above that stays a float mask: s + m
/// is what a row whose keys are all excluded weighs.
std::optional<BoolMask> matchSelectMask(Value v) {
  auto sel = defOp<SelectOp>(v);
  if (!sel)
    return std::nullopt;
  std::optional<BoolMask> mask;
  if (isSplatExactly(sel.getTrueValue(), 0.0) &&
      isExcludedSplat(sel.getFalseValue()))
    mask = BoolMask{sel.getCondition(), false,
                    excludedScoreOf(sel.getFalseValue())};
  else if (isExcludedSplat(sel.getTrueValue()) &&
           isSplatExactly(sel.getFalseValue(), 0.0))
    mask =
        BoolMask{sel.getCondition(), true, excludedScoreOf(sel.getTrueValue())};
  if (mask && mask->excludedScore &&
      *mask->excludedScore > -kAbsorbingMaskValue)
    return std::nullopt;
  return mask;
}

/// Matches `k^T` as a rank-4 transpose `transpose(x, p)` and returns `x` and
/// the permutation that gives `k` from `x` (`p` with its last two entries
/// swapped; GPT-2 exports `transpose(k', [0, 2, 3, 1])` of the `[B, S, H, D]`
/// tensor `k'`, so `k = transpose(k', [0, 2, 1, 3])`).
Value matchKeyTranspose(Value v, Chain &chain, SmallVectorImpl<int64_t> &perm) {
  auto t = defOp<TransposeOp>(v);
  if (!t || (t.getPermutation().size() != 4 && t.getPermutation().size() != 3))
    return {};
  ArrayRef<int64_t> p = t.getPermutation();
  perm.assign(p.begin(), p.end());
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  chain.add(t);
  return t.getInput();
}

/// Matches `x / c`, `x * c` or `c * x` (`c` a splat constant, not zero for a
/// division, that leaves the type of `x` unchanged): adds the op to `chain`,
/// calls `multiply` with the factor (`1 / c` or `c`) and returns `x`.
/// Returns `v` itself otherwise.
template <typename Fn>
Value peelOperandScale(Value v, Chain &chain, Fn multiply) {
  if (!v.hasOneUse())
    return v;
  if (auto div = defOp<DivOp>(v)) {
    std::optional<double> c = getSplatFloat(div.getRhs());
    if (!c || *c == 0 || div.getLhs().getType() != div.getType())
      return v;
    chain.add(div);
    multiply(1.0 / *c);
    return div.getLhs();
  }
  auto mul = defOp<MulOp>(v);
  if (!mul)
    return v;
  Value x = v;
  (void)eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value c) {
    std::optional<double> cv = getSplatFloat(c);
    if (!cv || a.getType() != mul.getType())
      return false;
    chain.add(mul);
    multiply(*cv);
    x = a;
    return true;
  });
  return x;
}

/// Matches the scaled scores `q @ k^T` (`matmul(q, transpose(k, [0, 1, 3,
/// 2]))` or `matmul(q, k) {transpose_b}`), optionally `* c` (either order) or
/// `/ c` with `c` a splat constant that does not broadcast the scores. Sets
/// `scale` (`c`, `1 / c`, or nothing), `q`, and `k` with `kPerm`: the key is
/// `transpose(k, kPerm)`, or `k` itself when `kPerm` is empty.
bool matchScaledScores(Value s, Chain &chain, std::optional<double> &scale,
                       Value &q, Value &k, SmallVectorImpl<int64_t> &kPerm) {
  kPerm.clear();
  scale = std::nullopt;
  if (auto div = defOp<DivOp>(s)) {
    std::optional<double> c = getSplatFloat(div.getRhs());
    if (!c || *c == 0 || div.getLhs().getType() != div.getType())
      return false;
    scale = 1.0 / *c;
    chain.add(div);
    s = div.getLhs();
  } else if (auto mul = defOp<MulOp>(s)) {
    if (!eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value c) {
          scale = getSplatFloat(c);
          if (!scale || a.getType() != mul.getType() || !defOp<MatmulOp>(a))
            return false;
          s = a;
          return true;
        }))
      return false;
    chain.add(mul);
  }
  auto qk = defOp<MatmulOp>(s);
  if (!qk || qk.getTransposeA())
    return false;
  chain.add(qk);
  // Scales applied to the operands instead: q / sqrt(d) (torch 1.x
  // nn.MultiheadAttention), or q * sqrt(c) and k^T * sqrt(c) (torch >= 2.0's
  // ONNX export of F.scaled_dot_product_attention); each factor multiplies
  // the scale.
  auto multiply = [&](double c) { scale = scale.value_or(1.0) * c; };
  q = peelOperandScale(qk.getLhs(), chain, multiply);
  Value kt = peelOperandScale(qk.getRhs(), chain, multiply);
  k = qk.getTransposeB() ? kt : matchKeyTranspose(kt, chain, kPerm);
  return static_cast<bool>(k);
}

/// Matches the scaled scores (matchScaledScores), optionally soft-capped as
/// Gemma 2 writes them (Hugging Face's `attn_logit_softcapping`):
/// `tanh(s / c) * c` (the product in either order, the division also as
/// `s * (1 / c)` within a relative 1e-6), the same splat `c > 0` both
/// times; `tanh(s)` alone is the cap 1 (what the folding of `/ 1` and
/// `* 1` leaves of it). Sets `softcap` to `c`, or nothing.
bool matchCappedScores(Value s, Chain &chain, std::optional<double> &softcap,
                       std::optional<double> &scale, Value &q, Value &k,
                       SmallVectorImpl<int64_t> &kPerm) {
  softcap = std::nullopt;
  if (auto tanh = defOp<TanhOp>(s)) {
    chain.add(tanh);
    softcap = 1.0;
    return matchScaledScores(tanh.getInput(), chain, scale, q, k, kPerm);
  }
  if (auto mul = defOp<MulOp>(s)) {
    (void)eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value t, Value cv) {
      std::optional<double> c = getSplatFloat(cv);
      auto tanh = defOp<TanhOp>(t);
      if (!c || !std::isfinite(*c) || *c <= 0 || !tanh || !t.hasOneUse() ||
          t.getType() != mul.getType())
        return false;
      Chain cap;
      std::optional<double> factor;
      Value x =
          peelOperandScale(tanh.getInput(), cap, [&](double f) { factor = f; });
      if (!factor || std::abs(*factor * *c - 1.0) > 1e-6 ||
          x.getType() != tanh.getType())
        return false;
      cap.add(tanh);
      cap.add(mul);
      chain.ops.append(cap.ops);
      softcap = *c;
      s = x;
      return true;
    });
  }
  return matchScaledScores(s, chain, scale, q, k, kPerm);
}

/// Matches the key/value head repetition of grouped-query attention as
/// torch exports `x[:, :, None].expand(B, Hkv, G, S, D).reshape(B, Hkv * G,
/// S, D)`:
///
///   reshape(broadcast_to(reshape(x) : [B, Hkv, 1, S, D]) : [B, Hkv, G, S, D])
///
/// and returns `x` (`[B, Hkv, S, D]`) and `G`; nothing otherwise.
std::optional<std::pair<Value, int64_t>> matchRepeatedHeads(Value v) {
  auto outer = defOp<ReshapeOp>(v);
  if (!outer)
    return std::nullopt;
  auto bcast = defOp<BroadcastToOp>(outer.getInput());
  if (!bcast)
    return std::nullopt;
  auto inner = defOp<ReshapeOp>(bcast.getInput());
  if (!inner)
    return std::nullopt;
  Value x = inner.getInput();
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto bt = cast<RankedTensorType>(bcast.getType());
  auto it = cast<RankedTensorType>(inner.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  if (!xt || xt.getRank() != 4 || bt.getRank() != 5 || it.getRank() != 5 ||
      !xt.hasStaticShape() || !bt.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> xs = xt.getShape(), bs = bt.getShape(),
                    is = it.getShape(), vs = vt.getShape();
  int64_t g = bs[2];
  if (is[0] != xs[0] || is[1] != xs[1] || is[2] != 1 || is[3] != xs[2] ||
      is[4] != xs[3] || bs[0] != xs[0] || bs[1] != xs[1] || bs[3] != xs[2] ||
      bs[4] != xs[3] || vs[0] != xs[0] || vs[1] != xs[1] * g ||
      vs[2] != xs[2] || vs[3] != xs[3])
    return std::nullopt;
  return std::make_pair(x, g);
}

/// The scores a masking `select(c, scores, e) | select(c, e, scores)` keeps,
/// when `e` is a splat that absorbs any score added to it (at most
/// -kAbsorbingMaskValue, or -inf); null otherwise.
Value maskedScores(SelectOp sel) {
  auto absorbing = [](Value e) {
    std::optional<double> c = getSplatFloat(e);
    return c && *c <= -kAbsorbingMaskValue;
  };
  Value scores;
  if (absorbing(sel.getFalseValue()))
    scores = sel.getTrueValue();
  else if (absorbing(sel.getTrueValue()))
    scores = sel.getFalseValue();
  return scores && scores.getType() == sel.getType() ? scores : Value();
}

// select(c, s, e) + p -> s + select(c, p, e + p)
// select(c, e, s) + p -> s + select(c, e + p, p)
// (`sel` the masking select, see maskedScores; `p` the added mask). HF
// GPT-2 and GPT-NeoX mask the causal positions with `where(causal, w,
// finfo.min)`, then add the padding mask. Where c keeps a position, both
// sides are s + p. Elsewhere the graph's score is fl(e + p), which absorbs
// any score s added to it (|s| < ulp(e) / 2), so s + fl(e + p) is that same
// value: a row whose keys are all excluded (left padding) weighs what the
// graph weighs. The combined mask has the broadcast shape of c and p.
FailureOr<Value> combineMasks(PatternRewriter &rewriter, Location loc,
                              SelectOp sel, Value p) {
  auto pType = cast<RankedTensorType>(p.getType());
  auto cType = cast<RankedTensorType>(sel.getCondition().getType());
  bool keptWhenTrue = maskedScores(sel) == sel.getTrueValue();
  Value e = keptWhenTrue ? sel.getFalseValue() : sel.getTrueValue();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(cType.getShape(), pType.getShape());
  if (failed(shape))
    return failure();
  auto eSplat = ConstantOp::create(
      rewriter, loc, pType,
      DenseElementsAttr::get(
          pType,
          rewriter.getFloatAttr(pType.getElementType(), *getSplatFloat(e))));
  Value pe = AddOp::create(rewriter, loc, pType, p, eSplat);
  auto type = RankedTensorType::get(*shape, pType.getElementType());
  return SelectOp::create(rewriter, loc, type, sel.getCondition(),
                          keptWhenTrue ? p : pe, keptWhenTrue ? pe : p)
      .getResult();
}

/// Matches scaled dot-product attention over rank-4 `[B, H, S, D]` operands
/// or rank-3 `[B*H, S, D]` ones (torch.nn.MultiheadAttention):
///
///   s = matmul(q, transpose(k', p)) | matmul(q, k) {transpose_b}
///       (q may be q' / c | q' * c | c * q': the scale on the query)
///   s = s * c | c * s | s / c                  (optional; scale c or 1 / c)
///   s = tanh(s / c') * c' | tanh(s)           (optional; softcap c' | 1)
///   s = s + mask | mask + s                    (optional float mask)
///     | select(c, s, e) [+ mask]              (where; see combineMasks)
///   y = matmul(softmax(s, axis = -1), v)
///   -> attention(q, k, v [, mask]) {scale}
///
/// where for a transposed key `k = transpose(k', p with its last two entries
/// swapped)` (no transpose when that is the identity, e.g. p = [0, 1, 3, 2]).
/// Key and value heads repeated for grouped-query attention
/// (`reshape(broadcast_to(reshape(x)))`, see `matchRepeatedHeads`) are
/// replaced by the unrepeated tensors (`Hq = G * Hkv`). Rank-3 operands are
/// reshaped to `[1, B*H, S, D]` around the `llm.attention` (a view).
/// `q`, `k`, `v` must agree on `B` and `H` (no broadcasting), the scale is a
/// splat constant and the mask may not broadcast the scores to a larger shape.
/// The scale is always written explicitly. (For an additive mask that is
/// -inf on a whole row, the chain gives NaN where `llm.attention` may give
/// 0.)
struct RecomposeAttention final : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTransposeA() || op.getTransposeB())
      return rewriter.notifyMatchFailure(op, "transposed p or v");
    Chain chain;
    chain.add(op);
    auto softmax = defOp<SoftmaxOp>(op.getLhs());
    if (!softmax)
      return rewriter.notifyMatchFailure(op, "lhs is not a softmax");
    chain.add(softmax);
    auto scoresType = cast<RankedTensorType>(softmax.getType());
    int64_t rank = scoresType.getRank();
    if ((rank != 4 && rank != 3) ||
        (softmax.getAxis() != -1 && softmax.getAxis() != rank - 1))
      return rewriter.notifyMatchFailure(op, "softmax not over the last axis");
    // Scores, with an optional mask: added on either side, or applied with
    // select (where) and an excluded value.
    Value s = softmax.getInput();
    Value mask, q, k;
    std::optional<BoolMask> boolMask;
    SmallVector<int64_t, 4> kPerm;
    std::optional<double> scale, softcap;
    // select(c, scores, e) + p: the select's mask, then an added one.
    SelectOp maskedThenAdded;
    if (auto add = defOp<AddOp>(s)) {
      if (!eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value m) {
            Chain inner;
            if (a.getType() != add.getType())
              return false;
            if (matchCappedScores(a, inner, softcap, scale, q, k, kPerm)) {
              chain.ops.append(inner.ops);
              mask = m;
              return true;
            }
            auto sel = defOp<SelectOp>(a);
            Value scores = sel ? maskedScores(sel) : Value();
            if (!scores || !sel->hasOneUse() ||
                !matchCappedScores(scores, inner, softcap, scale, q, k, kPerm))
              return false;
            inner.add(sel);
            chain.ops.append(inner.ops);
            maskedThenAdded = sel;
            mask = m;
            return true;
          }))
        return rewriter.notifyMatchFailure(op, "not scores + mask");
      chain.add(add);
      // scores + select(c, 0, m) -> mask c; scores + select(c, m, 0) ->
      // mask not(c)   (m excluded; the select may have other users)
      if (!maskedThenAdded)
        boolMask = matchSelectMask(mask);
    } else if (auto sel = defOp<SelectOp>(s)) {
      // select(c, scores, m) -> mask c; select(c, m, scores) -> mask not(c)
      //   (m excluded, the select keeping the type of the scores)
      Value scores;
      // The excluded positions score m exactly: excluded_score m.
      if (isExcludedSplat(sel.getFalseValue())) {
        boolMask = BoolMask{sel.getCondition(), false,
                            excludedScoreOf(sel.getFalseValue())};
        scores = sel.getTrueValue();
      } else if (isExcludedSplat(sel.getTrueValue())) {
        boolMask = BoolMask{sel.getCondition(), true,
                            excludedScoreOf(sel.getTrueValue())};
        scores = sel.getFalseValue();
      }
      if (!scores || scores.getType() != sel.getType())
        return rewriter.notifyMatchFailure(op, "not a masking select");
      chain.add(sel);
      if (!matchCappedScores(scores, chain, softcap, scale, q, k, kPerm))
        return rewriter.notifyMatchFailure(op, "no scaled q @ k^T");
    } else if (!matchCappedScores(s, chain, softcap, scale, q, k, kPerm)) {
      return rewriter.notifyMatchFailure(op, "no scaled q @ k^T");
    }
    Value v = op.getRhs();
    // Grouped-query attention: key/value heads repeated G times (both, with
    // the same G, and no transpose left on the key).
    if (rank == 4 &&
        (kPerm.empty() || llvm::equal(kPerm, ArrayRef<int64_t>{0, 1, 2, 3}))) {
      auto kRep = matchRepeatedHeads(k), vRep = matchRepeatedHeads(v);
      if (kRep && vRep && kRep->second == vRep->second) {
        k = kRep->first;
        v = vRep->first;
        kPerm.clear();
      }
    }
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    if (!kPerm.empty()) {
      if (kType.getRank() != rank)
        return rewriter.notifyMatchFailure(op, "k^T of another rank");
      SmallVector<int64_t, 4> shape;
      for (int64_t d : kPerm)
        shape.push_back(kType.getDimSize(d));
      kType = RankedTensorType::get(shape, kType.getElementType());
    }
    auto vType = cast<RankedTensorType>(v.getType());
    if (qType.getRank() != rank || kType.getRank() != rank ||
        vType.getRank() != rank || !qType.hasStaticShape() ||
        !kType.hasStaticShape() || !vType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "q, k, v not static, same rank");
    // [B, H, S, D] (H of k and v dividing H of q), or [N, S, D].
    int64_t hd = rank - 3; // index of the head dim in rank 4, else none
    if (qType.getDimSize(0) != kType.getDimSize(0) ||
        kType.getShape().take_front(rank - 2) !=
            vType.getShape().take_front(rank - 2) ||
        (rank == 3 && qType.getDimSize(0) != vType.getDimSize(0)) ||
        (rank == 4 && (kType.getDimSize(hd) == 0 ||
                       qType.getDimSize(hd) % kType.getDimSize(hd) != 0)) ||
        kType.getDimSize(rank - 2) != vType.getDimSize(rank - 2))
      return rewriter.notifyMatchFailure(op, "q, k, v shapes disagree");
    if (mask && !boolMask &&
        cast<RankedTensorType>(mask.getType()).getElementType() !=
            qType.getElementType())
      return rewriter.notifyMatchFailure(op, "mask of another element type");
    if (!chain.isClosed(op))
      return rewriter.notifyMatchFailure(op, "escaping intermediate value");
    Location loc = op.getLoc();
    if (boolMask) {
      mask = boolMask->condition;
      if (boolMask->negated)
        mask = LogicalNotOp::create(rewriter, loc, mask.getType(), mask);
    }
    if (maskedThenAdded) {
      FailureOr<Value> m = combineMasks(rewriter, loc, maskedThenAdded, mask);
      if (failed(m))
        return rewriter.notifyMatchFailure(op, "masks do not broadcast");
      mask = *m;
    }
    if (!kPerm.empty() &&
        !llvm::equal(kPerm, llvm::seq<int64_t>(0, rank)))
      k = TransposeOp::create(rewriter, loc, kType, k,
                              rewriter.getDenseI64ArrayAttr(kPerm));
    // Rank 3 ([B*H, S, D], as nn.MultiheadAttention exports): one batch.
    auto to4 = [&](Value x) -> Value {
      if (rank == 4)
        return x;
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape{1};
      llvm::append_range(shape, t.getShape());
      return ReshapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, t.getElementType()), x);
    };
    auto resultType = cast<RankedTensorType>(op.getType());
    if (rank == 3)
      resultType = RankedTensorType::get(
          {1, qType.getDimSize(0), qType.getDimSize(1), vType.getDimSize(2)},
          resultType.getElementType());
    FloatAttr excludedScore;
    if (boolMask && boolMask->excludedScore)
      excludedScore = rewriter.getF32FloatAttr(
          static_cast<float>(*boolMask->excludedScore));
    auto attention = AttentionOp::create(
        rewriter, loc, resultType, to4(q), to4(k), to4(v), mask,
        /*kv_length=*/Value(), /*causal=*/false,
        rewriter.getF32FloatAttr(static_cast<float>(scale.value_or(1.0))),
        AttentionLayout::BHSD, excludedScore,
        softcap ? rewriter.getF32FloatAttr(static_cast<float>(*softcap))
                : FloatAttr());
    Value result = attention.getResult();
    if (rank == 3)
      result = ReshapeOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// attention(q, k, v, mask = C) -> attention(q, k, v) {causal}
///   when the constant C is causal: over its last two dims [Sq, Skv] (the
///   same pattern at every index of its other dims), kept (i1 true / float
///   0) exactly where j <= i + (Skv - Sq) and excluded (i1 false / float
///   -inf or <= -1e4, see kExcludedMaskValue) elsewhere;
/// attention(q, k, v, mask = C) -> attention(q, k, v)
///   when C keeps every position (float all 0, i1 all true).
/// `C` may also be `logical_not` of a constant i1 tensor (read inverted). A
/// float C, or an i1 C with an excluded_score, needs Sq <= Skv (else its
/// first rows exclude everything, which a finite excluded value does not
/// make 0 as {causal} does).
/// Masks that are not constants, vary over batch or heads, or have any other
/// pattern stay.
struct CausalFromConstantMask final : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return rewriter.notifyMatchFailure(op, "no mask");
    auto mt = cast<RankedTensorType>(mask.getType());
    auto qt = cast<RankedTensorType>(op.getQuery().getType());
    auto kt = cast<RankedTensorType>(op.getKey().getType());
    if (!mt.hasStaticShape() || !qt.hasStaticShape() || !kt.hasStaticShape() ||
        mt.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "not a static mask of rank >= 2");
    int64_t seqDim = op.getLayout() == AttentionLayout::BSHD ? 1 : 2;
    int64_t sq = qt.getDimSize(seqDim), skv = kt.getDimSize(seqDim);
    int64_t rank = mt.getRank();
    if (mt.getDimSize(rank - 2) != sq || mt.getDimSize(rank - 1) != skv)
      return rewriter.notifyMatchFailure(op, "mask broadcasts over rows/cols");
    if (sq == 0 || skv == 0)
      return rewriter.notifyMatchFailure(op, "no scores");
    // With Sq > Skv the first rows exclude every position: {causal} gives
    // them 0, a finite additive mask (-1e4) a softmax of the scores, an
    // excluded_score equal weights.
    if (sq > skv &&
        (!mt.getElementType().isInteger(1) || op.getExcludedScoreAttr()))
      return rewriter.notifyMatchFailure(
          op, "float mask or excluded_score with Sq > Skv");
    // logical_not(C) of a constant i1 C reads as C inverted.
    bool inverted = false;
    if (auto notOp = mask.getDefiningOp<LogicalNotOp>()) {
      mask = notOp.getInput();
      inverted = true;
    }
    std::optional<std::vector<double>> values = readConstantValues(mask);
    if (!values)
      return rewriter.notifyMatchFailure(op, "mask is not a constant");
    bool isBool = mt.getElementType().isInteger(1);
    bool allKept = true, causal = true;
    // Every [Sq, Skv] matrix of the mask (one per batch and head index it
    // has) must be the same pattern.
    int64_t matrices = mt.getNumElements() / (sq * skv);
    for (int64_t b = 0; b < matrices; ++b) {
      for (int64_t i = 0; i < sq; ++i) {
        for (int64_t j = 0; j < skv; ++j) {
          double m = (*values)[(b * sq + i) * skv + j];
          if (inverted)
            m = m == 0.0 ? 1.0 : 0.0;
          bool kept = isBool ? m != 0.0 : m == 0.0;
          bool excluded = isBool ? m == 0.0 : m <= kExcludedMaskValue;
          allKept &= kept;
          bool allowed = j <= i + (skv - sq);
          causal &= allowed ? kept : excluded;
        }
      }
    }
    if (!allKept && !causal)
      return rewriter.notifyMatchFailure(op, "mask is not causal");
    // With kv_length, {causal} aligns at the end of the valid prefix L, not
    // at Skv as the constant mask does: only an all-kept mask goes.
    if (!allKept && op.getKvLength())
      return rewriter.notifyMatchFailure(
          op, "causal mask with kv_length: {causal} would align at L");
    // No mask left: no excluded_score.
    auto newOp = AttentionOp::create(
        rewriter, op.getLoc(), op.getType(), op.getQuery(), op.getKey(),
        op.getValue(), Value(), op.getKvLength(), op.getCausal() || !allKept,
        op.getScaleAttr(), op.getLayout(), /*excluded_score=*/FloatAttr(),
        op.getSoftcapAttr());
    rewriter.replaceOp(op, newOp.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct LLMRecomposePass final
    : mlir::llm::impl::LLMRecomposePassBase<LLMRecomposePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateRecompositionPatterns(patterns);
    // Only recompose: no folding, constant CSE or region simplification, so
    // that the chains that do not match stay exactly as written (the folder
    // would move constants of commutative ops to the right). Ops left dead by
    // a rewrite are still erased.
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // Like -canonicalize, a rewrite that does not converge is not an error.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace

void mlir::llm::populateRecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<RecomposeLayerNorm, AbsorbLayerNormScale, AbsorbLayerNormBias,
               RecomposeRmsNorm, AbsorbRmsNormWeight, RecomposeGelu,
               RecomposeSilu, RecomposeAttention, RecomposeRope,
               CausalFromConstantMask>(patterns.getContext());
  populateRowUnflatteningPatterns(patterns);
}
