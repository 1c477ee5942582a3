//===- ForwardGPUIndexStatus.cpp - Index-check status from the device -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-forward-gpu-index-status`: the run-time index
// checks write the host global `@__llmc_status`; once they run in kernels,
// each function that uses it gives its kernels a device copy, filled from
// the host status on entry and copied back before each return.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFORWARDGPUINDEXSTATUSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// The `memref.get_global @__llmc_status` ops of `func` (on the host or in
/// its kernels).
static SmallVector<memref::GetGlobalOp> getStatusUses(func::FuncOp func) {
  SmallVector<memref::GetGlobalOp> uses;
  func.walk([&](memref::GetGlobalOp op) {
    if (op.getName() == kIndexCheckStatusName)
      uses.push_back(op);
  });
  return uses;
}

// func { ... get_global @status (in kernels) ... return }
//   -> func { %h = get_global @status; %d = gpu.alloc; memcpy %d <- %h;
//             ... %d ...; memcpy %h <- %d; gpu.dealloc %d; return }
static void forwardStatus(func::FuncOp func, MemRefType type) {
  SmallVector<memref::GetGlobalOp> uses = getStatusUses(func);
  if (uses.empty())
    return;
  Location loc = func.getLoc();
  Block &entry = func.getFunctionBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value host = memref::GetGlobalOp::create(b, loc, type, kIndexCheckStatusName);
  Value device = gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                                      ValueRange(), ValueRange(), ValueRange())
                     .getMemref();
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), device,
                        host);
  for (memref::GetGlobalOp use : uses) {
    use.getResult().replaceAllUsesWith(device);
    use.erase();
  }
  func.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    gpu::MemcpyOp::create(rb, ret.getLoc(), /*asyncToken=*/Type(), ValueRange(),
                          host, device);
    gpu::DeallocOp::create(rb, ret.getLoc(), /*asyncToken=*/Type(),
                           ValueRange(), device);
  });
  // A called function records into its own copy, through the host status:
  // ours goes to the host before the call and comes back after it, so that
  // neither copy overwrites a failure the other recorded.
  // call @f -> memcpy %h <- %d; call @f; memcpy %d <- %h
  func.walk([&](func::CallOp call) {
    OpBuilder cb(call);
    gpu::MemcpyOp::create(cb, call.getLoc(), /*asyncToken=*/Type(),
                          ValueRange(), host, device);
    cb.setInsertionPointAfter(call);
    gpu::MemcpyOp::create(cb, call.getLoc(), /*asyncToken=*/Type(),
                          ValueRange(), device, host);
  });
}

namespace {

struct LLMForwardGPUIndexStatusPass
    : llm::impl::LLMForwardGPUIndexStatusPassBase<
          LLMForwardGPUIndexStatusPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto global = dyn_cast_or_null<memref::GlobalOp>(
        SymbolTable::lookupSymbolIn(module, kIndexCheckStatusName));
    if (!global)
      return;
    auto expected = MemRefType::get({kIndexCheckStatusSize},
                                    IntegerType::get(&getContext(), 64));
    if (global.getType() != expected) {
      global.emitError() << "llm-forward-gpu-index-status: expected the "
                            "index-check status to be a "
                         << expected << ", got " << global.getType();
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        forwardStatus(func, expected);
  }
};

} // namespace
