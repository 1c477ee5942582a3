//===- LowerVectors.cpp - Lower vector ops towards LLVM -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-lower-vectors`: after bufferization, hoist
// redundant vector transfers out of loops and lower n-D vector ops (masks,
// contractions, transposes, ...) to the outer-product / FMA form that
// convert-vector-to-llvm turns into `llvm.intr.fmuladd` on vectors.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMLOWERVECTORSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

void mlir::llm::populateLLMLowerVectorsPatterns(RewritePatternSet &patterns) {
  // vector.mask { side-effecting op } -> masked transfer ops.
  vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
  // vector.contract -> vector.outerproduct (broadcast A, FMA with a row of B).
  vector::populateVectorContractLoweringPatterns(
      patterns, vector::VectorContractLowering::OuterProduct);
  // vector.outerproduct -> vector.fma.
  vector::populateVectorOuterProductLoweringPatterns(patterns);
  // transfer_read/write with permutation/broadcast maps -> minor identity +
  // transpose/broadcast.
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerParallel);
  // 16x16 f32 transposes (AVX-512 transpose tiles) as shuffles, the rest
  // element-wise.
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
  vector::populateVectorBroadcastLoweringPatterns(patterns);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
}

namespace {
struct LLMLowerVectorsPass
    : public llm::impl::LLMLowerVectorsPassBase<LLMLowerVectorsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Accumulators that the tensor-level hoisting could not move (masked
    // tiles, transfers that only became invariant after bufferization).
    linalg::hoistRedundantVectorTransfers(func, /*verifyNonZeroTrip=*/true);

    RewritePatternSet patterns(&getContext());
    llm::populateLLMLowerVectorsPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns,
                                                        &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
