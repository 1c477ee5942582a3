//===- MarkArgumentWritability.cpp - which arguments may be written -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-mark-argument-writability`: the inputs of a
// public function are read-only for one-shot bufferization, its key/value
// caches (`llm.kv_cache`) are written in place.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMMARKARGUMENTWRITABILITYPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMMarkArgumentWritabilityPass
    : llm::impl::LLMMarkArgumentWritabilityPassBase<
          LLMMarkArgumentWritabilityPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    StringRef writable = bufferization::BufferizationDialect::kWritableAttrName;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        Attribute cache = func.getArgAttr(i, llm::kKVCacheAttrName);
        bool isTensor = isa<TensorType>(func.getArgument(i).getType());
        if (cache && (!isa<UnitAttr>(cache) || !isTensor)) {
          func.emitError() << "argument #" << i << ": '"
                           << llm::kKVCacheAttrName
                           << "' must be a unit attribute on a tensor "
                              "argument";
          return signalPassFailure();
        }
        if (isTensor)
          func.setArgAttr(i, writable, b.getBoolAttr(cache != nullptr));
      }
    }
  }
};

} // namespace
