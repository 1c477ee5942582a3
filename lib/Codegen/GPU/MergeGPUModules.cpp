//===- MergeGPUModules.cpp - One kernel module per host module ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-merge-gpu-modules`: `gpu-kernel-outlining` puts
// every kernel in a `gpu.module` of its own, each with its own copy of the
// weights it reads. After this pass the host module holds one
// `gpu.module @llm_kernels`: one PTX/cubin per chip, loaded once, and each
// weight stored once.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMMERGEGPUMODULESPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// Byte alignment of every workgroup buffer: a 128-bit vector.
static constexpr int64_t kWorkgroupAlignment = 16;

namespace {

struct LLMMergeGPUModulesPass
    : llm::impl::LLMMergeGPUModulesPassBase<LLMMergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    // Workgroup buffers aligned for 128-bit vector loads (the matmul
    // tiles'); a gpu.launch cannot carry attribution attributes, so they
    // are set on the outlined kernels.
    for (gpu::GPUModuleOp kernels : kernelModules)
      kernels.walk([&](gpu::GPUFuncOp func) {
        for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i)
          if (!func.getWorkgroupAttributionAttr(
                  i, LLVM::LLVMDialect::getAlignAttrName()))
            func.setWorkgroupAttributionAttr(
                i, LLVM::LLVMDialect::getAlignAttrName(),
                IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                 kWorkgroupAlignment));
      });
    if (kernelModules.size() < 2)
      return;
    OpBuilder b(kernelModules.front());
    auto merged = gpu::GPUModuleOp::create(b, kernelModules.front().getLoc(),
                                           "llm_kernels");
    if (ArrayAttr targets = kernelModules.front().getTargetsAttr())
      merged.setTargetsAttr(targets);
    SymbolTable mergedSymbols(merged);
    // @M::@F -> @llm_kernels::@M (kernel names are the unique module names).
    DenseMap<std::pair<StringAttr, StringAttr>, SymbolRefAttr> renamed;
    for (gpu::GPUModuleOp kernels : kernelModules) {
      for (Operation &op :
           llvm::make_early_inc_range(kernels.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op.erase();
          continue;
        }
        if (auto func = dyn_cast<gpu::GPUFuncOp>(op); func && func.isKernel()) {
          StringAttr oldName = func.getNameAttr();
          func.setName(kernels.getName());
          renamed[{kernels.getNameAttr(), oldName}] =
              SymbolRefAttr::get(merged.getNameAttr(),
                                 {FlatSymbolRefAttr::get(func.getNameAttr())});
          op.moveBefore(merged.getBody(), merged.getBody()->end());
          continue;
        }
        // Globals (weights) and declarations shared by kernels: one copy.
        if (mergedSymbols.lookup(symbol.getNameAttr())) {
          op.erase();
          continue;
        }
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        mergedSymbols.insert(&op);
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it =
          renamed.find({kernel.getRootReference(), kernel.getLeafReference()});
      if (it != renamed.end())
        launch.setKernelAttr(it->second);
    });
    for (gpu::GPUModuleOp kernels : kernelModules)
      kernels.erase();
  }
};

} // namespace
