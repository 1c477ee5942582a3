//===- EmitCInterface.cpp - Mark public functions for the C ABI -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-emit-c-interface`, which asks convert-func-to-llvm
// for `_mlir_ciface_<name>` wrappers of every public function.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMEMITCINTERFACEPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {
struct LLMEmitCInterfacePass
    : public llm::impl::LLMEmitCInterfacePassBase<LLMEmitCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    UnitAttr unit = UnitAttr::get(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPublic() && !func.isExternal())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
      // The declared sequence bounds (`llm.dim_bounds`) and the key/value
      // cache marks (`llm.kv_cache`) have been used by now (guards, memory
      // plan, bufferization); the LLVM translation would warn about an
      // unknown parameter attribute.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        func.removeArgAttr(i, llm::kDimBoundsAttrName);
        func.removeArgAttr(i, llm::kKVCacheAttrName);
      }
    }
  }
};
} // namespace
