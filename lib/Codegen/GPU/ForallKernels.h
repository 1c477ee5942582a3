//===- ForallKernels.h - The forall strategy of llm-map-gpu-kernels -*- C++
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to llm-map-gpu-kernels: a kernel that is a tiled loop nest (an
// `scf.forall` marked kGPUBlockLoopAttr, the flash-attention lowering of
// `llm.attention`) runs each iteration as a block, its allocations as the
// block's workgroup memory and each linalg op as a loop over the block's
// threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CODEGEN_GPU_FORALLKERNELS_H
#define LLM_LIB_CODEGEN_GPU_FORALLKERNELS_H

#include "llm/Codegen/GPU/GPUTargetDescription.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::llm {

/// Clones into the launch body (at `b`) what a kernel must compute itself
/// of the host value `v` (globals, constants, their views, stable host
/// scalar code; llm-map-gpu-kernels' materializeInKernel), recording it in
/// `mapping`.
using MaterializeFn = llvm::function_ref<void(
    OpBuilder &b, gpu::LaunchOp launch, Value v, IRMapping &mapping)>;

/// Replaces the tiled loop nest `loop` (static bounds from 0, step 1) by one
/// `gpu.launch`: block b runs iteration b (the loop's ivs delinearized, the
/// last fastest); each `memref.alloc` in it is a workgroup buffer of the
/// block; each linalg op (named ops and `memref.copy` generalized) runs
/// over the block's threads, a parallel point per thread in turn (the
/// points linearized innermost first, so that consecutive threads touch
/// consecutive elements; reductions serial at each point); `scf.for` and
/// `scf.if` in it run on every thread alike (their bounds and conditions
/// depend only on the block); `gpu.barrier` separates two ops of which one
/// writes what the other reads or writes. Errors (with `loop`'s location):
/// dynamic bounds, loops that carry values, workgroup buffers of more than
/// the chip's static shared memory, dynamic reduction ranges, ops that
/// cannot run in a kernel.
LogicalResult mapForallKernel(scf::ForallOp loop,
                              const GPUTargetDescription &target,
                              MaterializeFn materialize);

} // namespace mlir::llm

#endif // LLM_LIB_CODEGEN_GPU_FORALLKERNELS_H
