//===- LLMFolds.cpp - llm dialect folders ---------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `fold` methods of the llm dialect's operations:
// algebraic identities that need no new operation. Rewrites that create ops
// live in LLMCanonicalization.cpp; evaluating ops on constant operands is the
// job of the `llm-fold-constants` pass (it has a size policy, folders do not).
//
// Floating-point policy (shared with LLMCanonicalization.cpp):
//  * "Scalar" constants are splat `dense` constants of any shape; a fold that
//    returns an operand requires the operand's type to equal the result type
//    (otherwise the op also broadcasts, and a canonicalization pattern turns
//    it into `llm.broadcast_to`).
//  * Folds are exact for every input including NaN and infinities, with one
//    documented exception: the sign of a zero result is not preserved by
//    `x + 0 -> x` and `x - (-0) -> x` (IEEE gives +0 for `-0 + 0`). A zero
//    bias is removed on this basis.
//  * `reciprocal(reciprocal(x)) -> x` returns the exact value where the
//    computed chain could round (by <= 1 ulp) or overflow (1/x of a
//    subnormal); it is kept because it is more accurate, not less.
//  * Folds that change NaN/inf results (`x * 0 -> 0`, `x - x -> 0`) are NOT
//    folders or canonicalizations; they are opt-in patterns of
//    `llm-fold-constants{fast-math}`.
//
//===----------------------------------------------------------------------===//

#include "LLMFoldUtils.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::llm;
using mlir::llm::detail::isSplatFloatValue;

/// Returns `operand` when it can replace `result` without a broadcast.
static OpFoldResult sameTypeOrNull(Value operand, Value result) {
  if (operand.getType() == result.getType())
    return operand;
  return {};
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

// constant(v) -> v
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// add(x, 0) -> x   (either sign of 0; see the file comment on signed zeros)
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloatValue(adaptor.getRhs(), 0.0))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getResult()))
      return r;
  if (isSplatFloatValue(adaptor.getLhs(), 0.0))
    return sameTypeOrNull(getRhs(), getResult());
  return {};
}

// sub(x, 0) -> x
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloatValue(adaptor.getRhs(), 0.0))
    return sameTypeOrNull(getLhs(), getResult());
  return {};
}

// mul(x, 1) -> x
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloatValue(adaptor.getRhs(), 1.0))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getResult()))
      return r;
  if (isSplatFloatValue(adaptor.getLhs(), 1.0))
    return sameTypeOrNull(getRhs(), getResult());
  return {};
}

// div(x, 1) -> x
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloatValue(adaptor.getRhs(), 1.0))
    return sameTypeOrNull(getLhs(), getResult());
  return {};
}

// pow(x, 1) -> x   (powf(x, 1) == x for every x, NaN included)
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloatValue(adaptor.getRhs(), 1.0))
    return sameTypeOrNull(getLhs(), getResult());
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// neg(neg(x)) -> x
OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

// reciprocal(reciprocal(x)) -> x
OpFoldResult ReciprocalOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<ReciprocalOp>())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

static bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

// transpose(x, identity) -> x
// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2)   (in place)
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (isIdentityPermutation(getPermutation()))
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // result.shape[i] = mid.shape[p2[i]] = x.shape[p1[p2[i]]].
  ArrayRef<int64_t> p1 = inner.getPermutation(), p2 = getPermutation();
  SmallVector<int64_t> composed;
  for (int64_t p : p2)
    composed.push_back(p1[p]);
  if (isIdentityPermutation(composed))
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  setPermutation(composed);
  return getResult();
}

// reshape(x) -> x when the types are equal
// reshape(reshape(x)) -> reshape(x)   (in place)
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

// broadcast_to(x) -> x when the types are equal
// broadcast_to(broadcast_to(x)) -> broadcast_to(x)   (in place)
OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<BroadcastToOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

/// True when every value of element type `from` is exactly representable in
/// `to` (so a cast `from -> to` loses nothing). Integers are signed except
/// `i1`, which converts as 0/1.
static bool isExactConversion(Type from, Type to) {
  if (from == to)
    return true;
  if (from.isInteger(1))
    return true;
  if (isa<FloatType>(from))
    return ((from.isF16() || from.isBF16()) && to.isF32()) ||
           (!from.isF64() && to.isF64());
  if (!from.isInteger(8) && !from.isInteger(32))
    return false;
  unsigned width = from.getIntOrFloatBitWidth();
  if (auto toInt = dyn_cast<IntegerType>(to))
    return toInt.getWidth() > width;
  // A float with a p-bit significand holds every integer of magnitude <= 2^p;
  // i8 needs 2^7 (f16 has p = 11, bf16 p = 8, f32 p = 24).
  auto toFloat = cast<FloatType>(to);
  return static_cast<unsigned>(toFloat.getFPMantissaWidth()) >= width;
}

// cast(x) -> x when the types are equal
// cast(cast(x : A -> B) : B -> A) -> x        when B holds every A exactly
// cast(cast(x : A -> B) : B -> C) -> cast(x)  when B holds every A exactly
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto inner = getInput().getDefiningOp<CastOp>();
  if (!inner)
    return {};
  Type src = getElementTypeOrSelf(inner.getInput().getType());
  Type mid = getElementTypeOrSelf(inner.getType());
  if (!isExactConversion(src, mid))
    return {};
  if (inner.getInput().getType() == getType())
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  return getResult();
}
