//===- AddGPUHostEntries.cpp - Entry points taking host buffers -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-add-gpu-host-entries`: after llm-map-gpu-kernels
// every public function takes device buffers; this pass adds, for each one,
// a public `<name>_host` with the same signature on host buffers that
// copies the inputs to the device, calls it, and copies the results back.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMADDGPUHOSTENTRIESPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMAddGPUHostEntriesPass
    : llm::impl::LLMAddGPUHostEntriesPassBase<LLMAddGPUHostEntriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          func.getFunctionType().getNumResults() == 0)
        entries.push_back(func);
    for (func::FuncOp func : entries) {
      std::string name = (func.getName() + "_host").str();
      if (symbols.lookup(name)) {
        func.emitError() << "llm-add-gpu-host-entries: the symbol '@" << name
                         << "' already exists";
        return signalPassFailure();
      }
      // Trailing out-params: the results the function had before
      // bufferization (llm-form-gpu-kernels records their number).
      auto numResultsAttr =
          func->getAttrOfType<IntegerAttr>(llm::kGPUNumResultsAttr);
      unsigned numArgs = func.getNumArguments();
      unsigned numResults = numResultsAttr ? numResultsAttr.getInt() : 0;
      if (numResults > numArgs) {
        func.emitError("llm-add-gpu-host-entries: more results than "
                       "arguments");
        return signalPassFailure();
      }
      for (Type type : func.getArgumentTypes()) {
        auto memref = dyn_cast<MemRefType>(type);
        if (!memref || !memref.hasStaticShape() ||
            !memref.getLayout().isIdentity()) {
          func.emitError("llm-add-gpu-host-entries: expected statically "
                         "shaped identity-layout memref arguments, got ")
              << type;
          return signalPassFailure();
        }
      }
      OpBuilder b(func);
      b.setInsertionPointAfter(func);
      Location loc = func.getLoc();
      auto host = func::FuncOp::create(b, loc, name, func.getFunctionType());
      Block *body = host.addEntryBlock();
      b.setInsertionPointToStart(body);
      // host args -> device buffers: inputs copied in, results allocated.
      SmallVector<Value> device;
      for (auto [k, arg] : llvm::enumerate(body->getArguments())) {
        auto type = cast<MemRefType>(arg.getType());
        Value buffer = gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                                            ValueRange(), ValueRange(),
                                            ValueRange())
                           .getMemref();
        if (k < numArgs - numResults)
          gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(),
                                buffer, arg);
        device.push_back(buffer);
      }
      func::CallOp::create(b, loc, func, device);
      for (unsigned k = numArgs - numResults; k < numArgs; ++k)
        gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(),
                              body->getArgument(k), device[k]);
      for (Value buffer : device)
        gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(),
                               buffer);
      func::ReturnOp::create(b, loc);
    }
  }
};

} // namespace
