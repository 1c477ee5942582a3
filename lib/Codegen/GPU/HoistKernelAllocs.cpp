//===- HoistKernelAllocs.cpp - Kernel scratch buffers to the host ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-hoist-kernel-allocs`: right after one-shot
// bufferization, the statically shaped `memref.alloc` ops inside a kernel
// loop (`llm.gpu_kernel`: one iteration, so hoisting changes nothing) move
// in front of it, where `llm-plan-memory` places them in the arena like any
// other intermediate.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMHOISTKERNELALLOCSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMHoistKernelAllocsPass
    : llm::impl::LLMHoistKernelAllocsPassBase<LLMHoistKernelAllocsPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ForallOp forall) {
      // A tiled loop nest's allocations are per block (workgroup memory).
      if (!forall->hasAttr(llm::kGPUKernelAttr) ||
          forall->hasAttr(llm::kGPUBlockLoopAttr))
        return;
      SmallVector<memref::AllocOp> allocs;
      for (Operation &op : forall.getBody()->without_terminator())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (alloc->getNumOperands() == 0)
            allocs.push_back(alloc);
      // alloc inside the one-iteration kernel loop -> alloc before it
      for (memref::AllocOp alloc : allocs)
        alloc->moveBefore(forall);
    });
  }
};

} // namespace
