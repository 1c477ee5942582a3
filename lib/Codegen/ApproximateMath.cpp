//===- ApproximateMath.cpp - Vectorizable transcendental functions --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-approximate-math`: f32 tanh, erf, exp and expm1
// become the upstream polynomial approximations (arith and
// vector ops only), so that LLVM vectorizes the loops around them instead of
// calling libm once per element.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMAPPROXIMATEMATHPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// The math ops that get an approximation, by name (`math.tanh`) or
/// mnemonic (`tanh`).
static bool isApproximated(StringRef name) {
  StringRef mnemonic = name;
  (void)mnemonic.consume_front("math.");
  // Not the logarithms: their approximation flushes subnormal inputs
  // (log(1e-38) = -87.3 instead of -87.5), and they are not hot in LLMs.
  return llvm::is_contained({StringRef("tanh"), StringRef("erf"),
                             StringRef("exp"), StringRef("expm1")},
                            mnemonic);
}

namespace {
struct LLMApproximateMathPass
    : public llm::impl::LLMApproximateMathPassBase<LLMApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // Count what the patterns will rewrite (f32 operands only: the upstream
    // approximations match f32 and vectors of f32).
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() &&
          op->getDialect()->getNamespace() ==
              math::MathDialect::getDialectNamespace() &&
          op->getNumResults() == 1 &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
          isApproximated(op->getName().getStringRef()))
        ++numApproximated;
    });
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
