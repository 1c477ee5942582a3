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
#include "llm/Codegen/GPU/GPUTargetDescription.h"
#include "llm/Codegen/Passes.h"
#include "llm/Codegen/TargetDescription.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::llm::buildLLMLowerToCPUPipeline(OpPassManager &pm,
                                           const LowerToCPUOptions &options) {
  for (const LowerToCPUStage &stage : getLLMLowerToCPUStages())
    stage.build(pm, options);
}

void mlir::llm::buildLLMLowerToCPULoopsPipeline(
    OpPassManager &pm, const LowerToCPUOptions &options) {
  for (const LowerToCPUStage &stage : getLLMLowerToCPUStages())
    if (stage.name != llvm::StringRef("llvm"))
      stage.build(pm, options);
}

llvm::ArrayRef<mlir::llm::LowerToCPUStage>
mlir::llm::getLLMLowerToCPUStages() {
  static const LowerToCPUStage stages[] = {
      {"graph", buildLLMLowerToCPUGraphStage},
      {"linalg", buildLLMLowerToCPULinalgStage},
      {"bufferization", buildLLMLowerToCPUBufferizationStage},
      {"loops", buildLLMLowerToCPULoopsStage},
      {"llvm", buildLLMLowerToCPULLVMPipeline},
  };
  return stages;
}

void mlir::llm::buildLLMTensorParallelStage(OpPassManager &pm, int64_t ranks,
                                            int64_t rank) {
  LLMShardPassOptions shardOpts;
  shardOpts.ranks = ranks;
  pm.addPass(llm::createLLMShardPass(shardOpts));
  pm.addNestedPass<func::FuncOp>(shard::createPartition());
  LLMLowerShardPassOptions lowerOpts;
  lowerOpts.rank = rank;
  pm.addPass(llm::createLLMLowerShardPass(lowerOpts));
  pm.addPass(llm::createLLMFoldConstantsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::llm::buildLLMGraphStage(OpPassManager &pm,
                                   const GraphStageOptions &options) {
  // One function per entry point. A call cycle
  // would survive inlining and recurse at run time.
  pm.addPass(llm::createLLMVerifyCallGraphPass());
  pm.addPass(createInlinerPass());
  // A dynamic sequence dimension: bounds checked, then asserted at entry.
  pm.addPass(llm::createLLMGuardDimBoundsPass());
  if (options.optimizeGraph) {
    pm.addPass(llm::createLLMRecomposePass());
    pm.addPass(llm::createLLMFoldConstantsPass());
    pm.addPass(llm::createLLMFoldQuantPass());
  }
  // Tensor parallelism: this rank's part of the graph, before the layout
  // and fusion passes see it (they then work on the local shapes).
  if (options.tensorParallel > 1)
    buildLLMTensorParallelStage(pm, options.tensorParallel, options.rank);
  // Half-precision matmuls the target has no fast kernel for run in f32,
  // before the layout pass transposes their (widened) weights.
  // (A negative min-rows reaches the pass, which reports it.)
  if (!options.promoteContractionTypes.empty() &&
      options.promoteContractionMinRows != 0) {
    LLMPromoteContractionInputsPassOptions promoteOpts;
    promoteOpts.elementTypes.assign(options.promoteContractionTypes.begin(),
                                    options.promoteContractionTypes.end());
    promoteOpts.minRows = options.promoteContractionMinRows;
    pm.addPass(llm::createLLMPromoteContractionInputsPass(promoteOpts));
  }
  if (options.optimizeLayout) {
    LLMOptimizeLayoutPassOptions layoutOpts;
    layoutOpts.weightLayout = options.weightLayout;
    pm.addPass(llm::createLLMOptimizeLayoutPass(layoutOpts));
  }
  // Last llm-level pass: the groups hide their ops from llm patterns.
  if (options.fuse) {
    LLMFusePassOptions fuseOpts;
    fuseOpts.attentionGroups = options.attentionGroups;
    fuseOpts.normPrologueMaxRows = options.normPrologueMaxRows;
    pm.addPass(llm::createLLMFusePass(fuseOpts));
  }
  // After fusion, so that the weights measured are the ones the kernels
  // read (horizontally fused projections concatenated, layouts final).
  if (!options.sparsify.empty()) {
    LLMSparsifyWeightsPassOptions sparseOpts;
    sparseOpts.format = options.sparsify;
    sparseOpts.target = options.sparsifyTarget;
    pm.addPass(llm::createLLMSparsifyWeightsPass(sparseOpts));
  }
}

void mlir::llm::buildLLMLowerToCPUGraphStage(OpPassManager &pm,
                                             const LowerToCPUOptions &options) {
  GraphStageOptions graph = options.getGraphStageOptions();
  if (!options.shard)
    graph.tensorParallel = 1;
  // The CPU matmul kernels of a decode step fuse the norm of their rows
  // (the f32 tiles and the bf16 dot-product kernel's blocks alike).
  graph.normPrologueMaxRows = options.normPrologueMaxRows;
  // The CPU target's weight layout, as a target-independent request. An
  // unknown target keeps "kn" here; llm-select-lowering-config reports it.
  // Its half-precision matmuls: f16 ones always run on the f32 tiles (no
  // CPU target has an f16 kernel summing in f32), bf16 ones where there
  // are no AVX512-BF16 dot products; both are promoted to f32.
  graph.promoteContractionMinRows = options.promoteContractionMinRows;
  if (FailureOr<CPUTargetDescription> desc =
          CPUTargetDescription::lookup(options.target);
      succeeded(desc)) {
    graph.weightLayout = stringifyWeightLayout(desc->matmulWeightLayout).str();
    graph.promoteContractionTypes.push_back("f16");
    if (!desc->bf16DotProduct)
      graph.promoteContractionTypes.push_back("bf16");
  }
  buildLLMGraphStage(pm, graph);
}

/// llm-apply-tuning-cache for `options`' tuning cache.
static llm::LLMApplyTuningCachePassOptions
getTuningCacheOptions(const llm::LowerToCPUOptions &options,
                      bool warnOtherCPU) {
  llm::LLMApplyTuningCachePassOptions tuneOpts;
  tuneOpts.cache = options.tuningCache;
  tuneOpts.target = options.target;
  tuneOpts.numThreads = options.numThreads;
  tuneOpts.parallel = options.parallel;
  tuneOpts.warnOtherCPU = warnOtherCPU;
  return tuneOpts;
}

void mlir::llm::buildLLMLowerToCPULinalgStage(
    OpPassManager &pm, const LowerToCPUOptions &options) {
  // The tuned flash-attention tiles of this kind of CPU, on the attentions
  // they were measured for.
  if (!options.tuningCache.empty())
    pm.addPass(createLLMApplyTuningCachePass(
        getTuningCacheOptions(options, /*warnOtherCPU=*/true)));
  // The CPU target's choices for the lowering of llm ops, recorded on them
  // (llm.lowering_config), then llm -> linalg on tensors, which reads them.
  LLMSelectLoweringConfigPassOptions configOpts;
  configOpts.target = options.target;
  configOpts.attentionTile.assign(options.attentionTile.begin(),
                                  options.attentionTile.end());
  configOpts.streamedWeightMinBytes = options.streamedWeightMinBytes;
  configOpts.padAttentionHeadDims = options.padAttentionHeadDims;
  configOpts.demoteContractionInputs = options.demoteContractionInputs;
  configOpts.emulateAMX = options.emulateAMX;
  pm.addPass(createLLMSelectLoweringConfigPass(configOpts));
  ConvertLLMToLinalgPassOptions toLinalgOpts;
  toLinalgOpts.attention = options.attention;
  pm.addPass(createConvertLLMToLinalgPass(toLinalgOpts));
  pm.addPass(createCanonicalizerPass());
  if (options.fuseElementwise)
    pm.addPass(llm::createLLMFuseElementwisePass());

  // The tuned tiles of this kind of CPU, on the matmuls they were measured
  // for (the attentions got theirs before llm-select-lowering-config).
  if (!options.tuningCache.empty())
    pm.addPass(createLLMApplyTuningCachePass(
        getTuningCacheOptions(options, /*warnOtherCPU=*/false)));
  // Target-specific tiling and vectorization, on tensors.
  LLMTileAndVectorizePassOptions tileOpts;
  tileOpts.target = options.target;
  tileOpts.parallel = options.parallel;
  tileOpts.vectorize = options.vectorize;
  tileOpts.numThreads = options.numThreads;
  tileOpts.registerTile.assign(options.registerTile.begin(),
                               options.registerTile.end());
  tileOpts.cacheTile.assign(options.cacheTile.begin(), options.cacheTile.end());
  pm.addNestedPass<func::FuncOp>(createLLMTileAndVectorizePass(tileOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Every fusion has happened: record the kernels for the compile report.
  pm.addPass(createLLMCountKernelsPass());
}

void mlir::llm::buildLLMBufferizationStage(
    OpPassManager &pm, const BufferizationStageOptions &options) {
  // Bufferization: tensor results become trailing out-params. CSE merged
  // equal tensor.empty ops; one per destination keeps the analysis linear.
  LLMCloneEmptyTensorsPassOptions cloneOpts;
  cloneOpts.fills = options.cloneFills;
  pm.addPass(createLLMCloneEmptyTensorsPass(cloneOpts));
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  // The entry's inputs stay unmodified; its key/value caches are updated in
  // place.
  pm.addPass(createLLMMarkArgumentWritabilityPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  if (options.hoistKernelAllocs)
    pm.addNestedPass<func::FuncOp>(createLLMHoistKernelAllocsPass());
  bufferization::BufferResultsToOutParamsPassOptions outOpts;
  outOpts.modifyPublicFunctions = true;
  // hoist-static-allocs stays off: upstream promoteBufferResultsToOutParams
  // crashes with it on results that are views of a strided alloc (bshd
  // attention); llm-plan-memory removes the final copy into an out-param
  // itself.

  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Row tiles of a dynamic sequence: their scratch gets its static bound.
  pm.addNestedPass<func::FuncOp>(createLLMBoundDynamicAllocsPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  // Must run before deallocation: afterwards nothing is promoted.
  if (options.promoteToStack) {
    bufferization::PromoteBuffersToStackPassOptions stackOpts;
    stackOpts.maxAllocSizeInBytes = 1024;
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass(stackOpts));
  }
  // One arena per function for the static intermediates; the deallocation
  // pipeline then frees the arena alone.
  if (options.planMemory) {
    LLMPlanMemoryPassOptions planOpts;
    planOpts.arena = options.memoryArena;
    planOpts.verify = options.verifyMemoryPlan;
    planOpts.splitLiveRangesOpt = options.splitLiveRanges;
    pm.addPass(createLLMPlanMemoryPass(planOpts));
  }
  // The larger scratch of parallel tiles: no malloc per iteration. After
  // the planner, whose live-range splitting reads the tiles of a loop
  // directly in its body (not inside the alloca_scope added here).
  if (options.promoteToStack)
    pm.addPass(createLLMPromoteTileScratchPass());
  bufferization::BufferDeallocationPipelineOptions deallocOpts;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOpts);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void mlir::llm::buildLLMLowerToCPUBufferizationStage(
    OpPassManager &pm, const LowerToCPUOptions &options) {
  // The all-reduces of a tensor-parallel rank, as MPI calls on buffers.
  if (options.tensorParallel > 1) {
    LLMLowerCollectivesPassOptions mpiOpts;
    mpiOpts.mpi = options.mpi;
    pm.addPass(createLLMLowerCollectivesPass(mpiOpts));
  }
  BufferizationStageOptions buf;
  buf.promoteToStack = true;
  buf.planMemory = options.planMemory;
  buf.memoryArena = options.memoryArena;
  buf.verifyMemoryPlan = options.verifyMemoryPlan;
  buf.splitLiveRanges = options.splitLiveRanges;
  buildLLMBufferizationStage(pm, buf);
}

void mlir::llm::buildLLMLowerToCPULoopsStage(OpPassManager &pm,
                                             const LowerToCPUOptions &options) {
  // The kernels' block loops need their mapping no more: a loop of one
  // block is inlined by the canonicalizer below.
  pm.addNestedPass<func::FuncOp>(createLLMUnmapBlockLoopsPass());
  // Strided copies (e.g. into a KV-cache slot) as vectorizable loops rather
  // than the runtime's element-by-element memrefCopy.
  pm.addNestedPass<func::FuncOp>(createLLMExpandStridedCopiesPass());
  // A function of many kernels: one function each (equal kernels share
  // one), so that the rest of the lowering stays linear in the model's size.
  pm.addPass(createLLMOutlineKernelsPass());

  // AMX tile ops as vector code (a CPU without AMX): before the vector
  // lowering, which lowers their contractions.
  if (options.emulateAMX)
    pm.addPass(createLLMEmulateAMXPass());
  // Vectors to FMA form; the rest of linalg to loops.
  if (options.vectorize)
    pm.addNestedPass<func::FuncOp>(createLLMLowerVectorsPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  if (options.approximateMath)
    pm.addNestedPass<func::FuncOp>(llm::createLLMApproximateMathPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Parallel loops: scf.forall -> scf.parallel -> OpenMP, or serial loops.
  if (options.parallel) {
    pm.addPass(createForallToParallelLoopPass());
    ConvertSCFToOpenMPPassOptions ompOpts;
    ompOpts.numThreads = options.numThreads;
    pm.addPass(createConvertSCFToOpenMPPass(ompOpts));
  } else {
    pm.addPass(createForallToForLoopPass());
  }

  // ABI and LLVM. finalize-memref-to-llvm must precede convert-scf-to-cf
  // (memref.alloca_scope inside omp regions).
  pm.addPass(createLLMEmitCInterfacePass());
  VectorTransferToSCFOptions vtsOpts;
  vtsOpts.enableFullUnroll();
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(vtsOpts));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
}

void mlir::llm::buildLLMLowerToCPULLVMPipeline(
    OpPassManager &pm, const LowerToCPUOptions &options) {
  // Allocations through _mlir_memref_to_llvm_alloc, which
  // llm-check-allocations defines with a null check (out of memory is an
  // error, not a write through a null pointer).
  FinalizeMemRefToLLVMConversionPassOptions memrefOpts;
  memrefOpts.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOpts));
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vecOpts;
  vecOpts.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  // x86vector ops (the bf16 dot products of the int4 matvec kernel on
  // AVX512-BF16 targets) to LLVM intrinsics.
  vecOpts.x86Vector = true;
  // AMX tile ops (the bf16 kernel on AMX targets) to LLVM intrinsics.
  bool amx = false;
  if (FailureOr<CPUTargetDescription> desc =
          CPUTargetDescription::lookup(options.target);
      succeeded(desc))
    amx = desc->amxBF16 && !options.emulateAMX;
  vecOpts.amx = amx;
  pm.addPass(createConvertVectorToLLVMPass(vecOpts));
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (math.erf, ...) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (amx) {
    // Branches carrying AMX tiles (a loop's accumulators): the cf
    // conversion with the AMX dialect's type conversion, before the OpenMP
    // one (whose regions must hold LLVM types only).
    ConvertToLLVMPassOptions cfToLLVM;
    cfToLLVM.filterDialects = {"cf", "amx"};
    pm.addPass(createConvertToLLVMPass(cfToLLVM));
  }
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  if (amx)
    // Linux's permission to use the tile state, once per process.
    pm.addPass(createLLMRequestAMXStatePass());
  else
    pm.addPass(createConvertControlFlowToLLVMPass());
  // MPI calls (tensor parallelism), through the mpi dialect's
  // convert-to-llvm interface.
  if (options.tensorParallel > 1) {
    ConvertToLLVMPassOptions mpiToLLVM;
    mpiToLLVM.filterDialects = {"mpi"};
    pm.addPass(createConvertToLLVMPass(mpiToLLVM));
    pm.addPass(createLLMFixMPISymbolsPass());
  }
  pm.addPass(createLLMCheckAllocationsPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

//===----------------------------------------------------------------------===//
// llm-lower-to-nvvm
//===----------------------------------------------------------------------===//

llvm::ArrayRef<mlir::llm::LowerToNVVMStage>
mlir::llm::getLLMLowerToNVVMStages() {
  static const LowerToNVVMStage stages[] = {
      {"graph", buildLLMLowerToNVVMGraphStage},
      {"linalg", buildLLMLowerToNVVMLinalgStage},
      {"bufferization", buildLLMLowerToNVVMBufferizationStage},
      {"gpu", buildLLMLowerToNVVMKernelsStage},
      {"nvvm", buildLLMLowerToNVVMBinaryStage},
  };
  return stages;
}

void mlir::llm::buildLLMLowerToNVVMPipeline(OpPassManager &pm,
                                            const LowerToNVVMOptions &options) {
  for (const LowerToNVVMStage &stage : getLLMLowerToNVVMStages())
    stage.build(pm, options);
}

void mlir::llm::buildLLMLowerToNVVMGraphStage(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  GraphStageOptions graph = options.getGraphStageOptions();
  // Weights stay [K, N]: the GPU kernels put N on the threads, so a row of
  // B is read coalesced.
  graph.weightLayout = stringifyWeightLayout(WeightLayout::KN).str();
  graph.attentionGroups = true;
  graph.sparsifyTarget = "gpu";
  buildLLMGraphStage(pm, graph);
}

void mlir::llm::buildLLMLowerToNVVMLinalgStage(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  ConvertLLMToLinalgPassOptions toLinalgOpts;
  // Flash attention is lowered last (below). No CPU lowering configuration
  // (llm-select-lowering-config): the ops keep the neutral defaults.
  // (Another value reaches convert-llm-to-linalg, which names it in its
  // error; "keep" would leave the attentions unlowered: refused there.)
  bool flash = options.attention == "flash";
  std::string attention = options.attention;
  toLinalgOpts.attention =
      flash ? "keep"
      : attention == "keep"
          ? "keep (llm-lower-to-nvvm takes flash or materialized)"
          : attention;
  // Nor the CPU's vector-loop kernels: the GPU kernels distribute linalg
  // ops.
  toLinalgOpts.vectorKernels = false;
  pm.addPass(createConvertLLMToLinalgPass(toLinalgOpts));
  // A CPU kernel's block loop (a lowering the GPU shares, such as the
  // weight-only panels) is a plain loop here.
  pm.addNestedPass<func::FuncOp>(createLLMUnmapBlockLoopsPass());
  pm.addPass(createCanonicalizerPass());
  if (!options.demoteContractionInputs.empty()) {
    llm::LLMDemoteContractionInputsPassOptions demote;
    demote.type = options.demoteContractionInputs;
    pm.addNestedPass<func::FuncOp>(
        llm::createLLMDemoteContractionInputsPass(demote));
    // The f32 weights the matmuls no longer read.
    pm.addPass(createCanonicalizerPass());
  }
  if (options.fuseElementwise)
    pm.addPass(llm::createLLMFuseElementwisePass());
  // Unit dims dropped: a group's ops then index its buffers through the
  // same views (the rows of llm-map-gpu-kernels).
  pm.addPass(createLinalgFoldUnitExtentDimsPass());
  pm.addPass(createCanonicalizerPass());
  // Attention as the flash lowering's tiled loop nest, after the passes
  // above, which would rewrite its in-place tile updates: one kernel, a
  // block per query tile (llm-map-gpu-kernels' forall strategy).
  // Its tile is the GPU target's (llm-select-gpu-lowering-config).
  if (flash) {
    llm::LLMSelectGPULoweringConfigPassOptions configOpts;
    configOpts.chip = options.getChips().front();
    pm.addPass(llm::createLLMSelectGPULoweringConfigPass(configOpts));
    ConvertLLMToLinalgPassOptions attentionOpts;
    attentionOpts.attention = "flash";
    pm.addPass(createConvertLLMToLinalgPass(attentionOpts));
  }
  // One kernel loop per fusion group and per lone linalg op.
  pm.addNestedPass<func::FuncOp>(createLLMFormGPUKernelsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLLMCountKernelsPass());
}

/// llm-lower-collectives for a tensor-parallel GPU program: NCCL on device
/// buffers (llm-lower-to-nvvm), or MPI on the host buffers of the
/// emulator.
static void addGPUCollectives(OpPassManager &pm,
                              const llm::LowerToNVVMOptions &options,
                              StringRef library) {
  if (options.tensorParallel <= 1)
    return;
  llm::LLMLowerCollectivesPassOptions collectiveOpts;
  collectiveOpts.library = library.str();
  pm.addPass(llm::createLLMLowerCollectivesPass(collectiveOpts));
}

/// The bufferization stage of the GPU pipelines, after the collectives.
static void buildGPUBufferizationStage(OpPassManager &pm,
                                       const llm::LowerToNVVMOptions &options,
                                       StringRef collectives) {
  addGPUCollectives(pm, options, collectives);
  llm::BufferizationStageOptions buf;
  // Device memory has no stack for host-side buffers.
  buf.promoteToStack = false;
  buf.hoistKernelAllocs = true;
  buf.cloneFills = true;
  buf.planMemory = options.planMemory;
  buf.memoryArena = "per-call";
  llm::buildLLMBufferizationStage(pm, buf);
}

void mlir::llm::buildLLMLowerToNVVMBufferizationStage(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  buildGPUBufferizationStage(pm, options, "nccl");
}

/// llm-map-gpu-kernels for the first chip of `options` (the kernels of
/// llm-lower-to-nvvm and of its CPU emulation are the same, tensor cores
/// included: llm-emulate-gpu-kernels runs their MMAs).
static std::unique_ptr<Pass>
createMapGPUKernelsPass(const llm::LowerToNVVMOptions &options) {
  llm::LLMMapGPUKernelsPassOptions mapOpts;
  mapOpts.chip = options.getChips().front();
  mapOpts.blockSize = options.blockSize;
  mapOpts.tensorCores = true;
  mapOpts.sparseWeights =
      !options.sparsify.empty() && options.sparsify != "dense";
  return llm::createLLMMapGPUKernelsPass(mapOpts);
}

void mlir::llm::buildLLMLowerToNVVMKernelsStage(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  pm.addPass(createMapGPUKernelsPass(options));
  pm.addPass(createLLMForwardGPUIndexStatusPass());
  pm.addPass(createLLMAddGPUHostEntriesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLLMReportGPUKernelsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLLMMergeGPUModulesPass());
  // Weights referenced by kernels were copied into the kernel module.
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createLLMEmitCInterfacePass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
}

void mlir::llm::buildLLMLowerToNVVMBinaryStage(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  // The explicit form of upstream's gpu-lower-to-nvvm-pipeline, one
  // nvvm-attach-target per chip (one gpu.binary holding an object each).
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  for (const std::string &chip : options.getChips()) {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = chip;
    attach.optLevel = options.optLevel;
    if (FailureOr<llm::GPUTargetDescription> desc =
            llm::GPUTargetDescription::lookup(chip);
        succeeded(desc))
      attach.features = desc->ptxFeatures;
    pm.addPass(createGpuNVVMAttachTarget(attach));
  }
  pm.addPass(createLowerAffinePass());
  // Host functions only: convert-gpu-to-nvvm lowers the kernels' arith ops
  // itself (arith.remf to libdevice's fmod, which a plain llvm.frem would
  // not reach).
  pm.addNestedPass<LLVM::LLVMFuncOp>(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions indexOpts;
  indexOpts.indexBitwidth = 64;
  pm.addNestedPass<LLVM::LLVMFuncOp>(createConvertIndexToLLVMPass(indexOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binaryOpts;
  binaryOpts.compilationTarget = options.format;
  binaryOpts.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOpts));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::llm::buildLLMLowerToGPUEmulatorPipeline(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  buildLLMLowerToNVVMGraphStage(pm, options);
  buildLLMLowerToNVVMLinalgStage(pm, options);
  buildGPUBufferizationStage(pm, options, "mpi");
  pm.addPass(createMapGPUKernelsPass(options));
  pm.addPass(createLLMForwardGPUIndexStatusPass());
  pm.addPass(createLLMReportGPUKernelsPass());
  pm.addPass(createLLMEmulateGPUKernelsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The CPU's loops and LLVM stages, serial and scalar: the host loops of
  // the emulation are the kernels' schedule.
  LowerToCPUOptions cpu;
  cpu.parallel = false;
  cpu.vectorize = false;
  cpu.approximateMath = false;
  cpu.tensorParallel = options.tensorParallel;
  buildLLMLowerToCPULoopsStage(pm, cpu);
  buildLLMLowerToCPULLVMPipeline(pm, cpu);
}

SmallVector<std::string> mlir::llm::LowerToNVVMOptions::getChips() const {
  SmallVector<std::string> chips(chip.begin(), chip.end());
  if (chips.empty())
    chips.push_back("sm_80");
  return chips;
}

std::string mlir::llm::LowerToNVVMOptions::verify() const {
  for (const std::string &c : getChips())
    if (failed(llm::GPUTargetDescription::lookup(c)))
      return "unknown chip '" + c + "' in chip= (expected " +
             llm::GPUTargetDescription::getKnownChips().str() + ")";
  if (format != "isa" && format != "bin" && format != "fatbin")
    return "unknown kernel format '" + format +
           "' in format= (expected isa, bin or fatbin)";
  if (optLevel > 3)
    return "opt-level must be 0-3, got " + std::to_string(optLevel);
  if (blockSize < 0)
    return "block-size must be 0 (the chip's) or a multiple of 32 up to "
           "1024, got " +
           std::to_string(blockSize);
  return verifyTensorParallel();
}

/// Registers a pipeline whose options (OptionsT) are refused, before any
/// pass runs, when OptionsT::verify gives a reason.
template <typename OptionsT>
static void registerVerifiedPipeline(StringRef arg, StringRef description,
                                     void (*builder)(OpPassManager &,
                                                     const OptionsT &)) {
  registerPassPipeline(
      arg, description,
      [arg, builder](OpPassManager &pm, StringRef text,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
        OptionsT options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string error = options.verify(); !error.empty())
          return errorHandler(arg + ": " + error);
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(OptionsT());
      });
}

void mlir::llm::registerLLMPipelines() {
  registerVerifiedPipeline<LowerToCPUOptions>(
      "llm-lower-to-cpu",
      "Lower the llm dialect to the LLVM dialect for the host CPU (linalg, "
      "fusion, one-shot bufferization, tiling/vectorization, OpenMP)",
      buildLLMLowerToCPUPipeline);
  registerVerifiedPipeline<LowerToNVVMOptions>(
      "llm-lower-to-nvvm",
      "Lower the llm dialect to NVIDIA GPU kernels (NVVM, then PTX, cubin or "
      "fatbin in a gpu.binary) and host code in the LLVM dialect",
      buildLLMLowerToNVVMPipeline);
  registerVerifiedPipeline<LowerToNVVMOptions>(
      "llm-lower-to-gpu-emulator",
      "Lower the llm dialect like llm-lower-to-nvvm down to its gpu.launch "
      "kernels, then run them on the CPU (llm-emulate-gpu-kernels) and lower "
      "to the LLVM dialect for the host",
      buildLLMLowerToGPUEmulatorPipeline);
}
