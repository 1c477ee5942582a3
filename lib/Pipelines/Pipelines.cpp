//===- Pipelines.cpp - llmc pass pipelines --------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llmc's registered pass pipelines.
//
//===----------------------------------------------------------------------===//

#include "llm/Pipelines/Pipelines.h"
#include "llm/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::llm::buildLLMLowerToCPUPipeline(OpPassManager &pm,
                                           const LowerToCPUOptions &options) {
  pm.addPass(createInlinerPass());
  pm.addPass(createConvertLLMToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (options.fuseElementwise)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());

  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  bufferization::BufferResultsToOutParamsPassOptions outOpts;
  outOpts.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::PromoteBuffersToStackPassOptions stackOpts;
  stackOpts.maxAllocSizeInBytes = 1024;
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(stackOpts));
  bufferization::BufferDeallocationPipelineOptions deallocOpts;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOpts);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::llm::registerLLMPipelines() {
  PassPipelineRegistration<LowerToCPUOptions>(
      "llm-lower-to-cpu",
      "Lower the llm dialect to the LLVM dialect for the host CPU (linalg, "
      "fusion, one-shot bufferization, tiling/vectorization, OpenMP)",
      buildLLMLowerToCPUPipeline);
}
