//===- GuardDimBounds.cpp - Check the declared sequence bound at entry ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-guard-dim-bounds`: the `llm.dim_bounds` argument
// attributes of functions with a dynamic sequence dimension are checked, and
// each dynamic dimension is asserted at entry to lie in [1, bound] and to
// equal the first one (one symbolic dimension).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMGUARDDIMBOUNDSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {
struct LLMGuardDimBoundsPass
    : llm::impl::LLMGuardDimBoundsPassBase<LLMGuardDimBoundsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    for (auto func : getOperation().getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      // Functions that declare no bound are not ours: dynamic shapes there
      // (e.g. linalg helpers) are left to the passes that meet them
      // (convert-llm-to-linalg reports dynamic llm ops without a bound).
      bool declares = false;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        declares |= !!func.getArgAttr(i, kDimBoundsAttrName);
      if (!declares)
        continue;
      FailureOr<std::optional<SequenceDim>> seq = getSequenceDim(func);
      if (failed(seq)) {
        failedAny = true;
        continue;
      }
      if (!seq->has_value())
        continue;
      guard(func);
    }
    if (failedAny)
      signalPassFailure();
  }

  void guard(FunctionOpInterface func) {
    Block &entry = func.getFunctionBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    Value first;
    std::string firstName;
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [arg, dim, bound] : getDynamicArgDims(func)) {
      Value argValue = entry.getArgument(arg);
      if (!isa<RankedTensorType>(argValue.getType()))
        continue;
      Value n = tensor::DimOp::create(b, loc, argValue, int64_t(dim));
      Value bc = arith::ConstantIndexOp::create(b, loc, bound);
      Value ok = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n, one),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, n, bc));
      std::string name = ("dimension " + Twine(dim) + " of argument #" +
                          Twine(arg))
                             .str();
      cf::AssertOp::create(b, loc, ok,
                           ("llmc: @" + func.getName() + ": " + name +
                            " is outside [1, " + Twine(bound) +
                            "] (its declared bound, llm.dim_bounds)")
                               .str());
      ++numGuards;
      if (!first) {
        first = n;
        firstName = name;
        continue;
      }
      Value same =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n, first);
      cf::AssertOp::create(
          b, loc, same,
          ("llmc: @" + func.getName() + ": " + name + " differs from " +
           firstName +
           " (every dynamic dimension is the one sequence length)")
              .str());
    }
  }
};
} // namespace
