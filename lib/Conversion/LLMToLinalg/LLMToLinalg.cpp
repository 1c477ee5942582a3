//===- LLMToLinalg.cpp - lower llm to linalg on tensors -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the conversion of the llm dialect to linalg, tensor,
// arith and math on tensors.
//
//===----------------------------------------------------------------------===//

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
#define GEN_PASS_DEF_CONVERTLLMTOLINALGPASS
#include "llm/Conversion/Passes.h.inc"
} // namespace mlir

using namespace mlir;
using namespace mlir::llm;

void mlir::llm::populateLLMToLinalgConversionPatterns(
    RewritePatternSet &patterns) {}

namespace {
struct ConvertLLMToLinalgPass
    : impl::ConvertLLMToLinalgPassBase<ConvertLLMToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<LLMDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateLLMToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
