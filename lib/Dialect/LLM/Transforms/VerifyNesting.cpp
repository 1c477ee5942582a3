//===- VerifyNesting.cpp - refuse IR nested beyond the walkers' stack -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-verify-nesting` on checkIRNesting.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Support/MLIRNesting.h"
#include "llm/Support/PassOptions.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMVERIFYNESTINGPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMVerifyNestingPass
    : llm::impl::LLMVerifyNestingPassBase<LLMVerifyNestingPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(llm::checkNonNegativeOption(root, getArgument(), "max-depth",
                                           maxDepth)))
      return signalPassFailure();
    // At the op's location, unless that is itself too deep to print.
    Location at = root->getLoc();
    if (std::optional<std::string> why =
            llm::checkIRNesting(root, maxDepth, &at)) {
      emitError(at) << "llm-verify-nesting: the IR is refused: " << *why;
      return signalPassFailure();
    }
  }
};

} // namespace
