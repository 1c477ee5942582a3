//===- PromoteTileScratch.cpp - Parallel tile scratch on the stack -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-promote-tile-scratch`: the static scratch
// buffers that a tile of an `scf.forall` allocates (a matmul tile's
// accumulator panel, flash attention's K/V and score tiles) become stack
// allocations of the iteration, inside a `memref.alloca_scope` that frees
// them when the iteration ends, instead of a malloc and a free per
// iteration of every call.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Support/PassOptions.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMPROMOTETILESCRATCHPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// Bytes of a static memref of integer or float elements.
static int64_t getStaticBytes(MemRefType type) {
  return type.getNumElements() *
         static_cast<int64_t>(llvm::divideCeil(
             type.getElementType().getIntOrFloatBitWidth(), 8));
}

/// Whether every use of `value`, through view-like ops, stays inside
/// `body` and neither leaves it through a call, a return, a region
/// terminator or a dealloc nor is stored anywhere: the buffer lives and
/// dies within one iteration.
static bool staysInIteration(Value value, Region &body) {
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (!body.isAncestor(user->getParentRegion()))
        return false;
      if (isa<CallOpInterface, memref::DeallocOp>(user) ||
          user->hasTrait<OpTrait::IsTerminator>())
        return false;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == v)
          for (Value r : user->getResults())
            worklist.push_back(r);
        continue;
      }
      // A memref stored as a value (memref.store of a memref element) or
      // captured by an op with results of memref type other than views.
      if (llvm::any_of(user->getResults(), [](Value r) {
            return isa<BaseMemRefType>(r.getType());
          }))
        return false;
    }
  }
  return true;
}

namespace {

struct LLMPromoteTileScratchPass
    : public llm::impl::LLMPromoteTileScratchPassBase<
          LLMPromoteTileScratchPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "max-bytes", maxBytes)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SmallVector<scf::ForallOp> loops;
    module.walk([&](scf::ForallOp loop) { loops.push_back(loop); });
    for (scf::ForallOp loop : loops) {
      // Tensor semantics (results, shared outputs): not a bufferized loop.
      if (loop.getNumResults() || !loop.getOutputs().empty())
        continue;
      Region &body = loop.getRegion();
      // scratch = memref.alloc() : static, at most maxBytes, used only in
      // the iteration -> memref.alloca()
      SmallVector<memref::AllocOp> scratch;
      for (Operation &op : body.front())
        if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
          MemRefType type = alloc.getType();
          if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
              !type.getElementType().isIntOrFloat())
            continue;
          if (getStaticBytes(type) > maxBytes || !staysInIteration(alloc, body))
            continue;
          scratch.push_back(alloc);
        }
      if (scratch.empty())
        continue;
      for (memref::AllocOp alloc : scratch) {
        OpBuilder b(alloc);
        auto alloca = memref::AllocaOp::create(
            b, alloc.getLoc(), alloc.getType(), alloc.getAlignmentAttr());
        alloc.replaceAllUsesWith(alloca.getResult());
        alloc.erase();
        ++numPromoted;
      }
      // The body (all but its terminator) in one alloca_scope, so that
      // each iteration's stack space is released when it ends, also once
      // the loop is serial (scf.for after forall-to-for); the OpenMP
      // lowering adds a scope of its own around parallel bodies.
      Block &block = body.front();
      if (std::next(block.begin()) == block.end())
        continue;
      Operation *terminator = block.getTerminator();
      OpBuilder b(terminator);
      auto scope = memref::AllocaScopeOp::create(b, loop.getLoc(), TypeRange());
      Block *inner = b.createBlock(&scope.getBodyRegion());
      inner->getOperations().splice(inner->end(), block.getOperations(),
                                    block.begin(), scope->getIterator());
      b.setInsertionPointToEnd(inner);
      memref::AllocaScopeReturnOp::create(b, loop.getLoc());
    }
    // The stack scratch of one iteration (every static alloca in a forall
    // body, these and the small ones promoted before): the most that one
    // thread holds at a time, in the module's report.
    int64_t perThread = 0;
    for (scf::ForallOp loop : loops) {
      int64_t bytes = 0;
      loop.getRegion().walk([&](memref::AllocaOp alloca) {
        MemRefType type = alloca.getType();
        if (type.hasStaticShape() && type.getElementType().isIntOrFloat())
          bytes += getStaticBytes(type);
      });
      perThread = std::max(perThread, bytes);
    }
    if (perThread > 0)
      llm::recordReportValue(
          module, "tile_scratch_bytes",
          std::max(
              perThread,
              llm::getReportValue(module, "tile_scratch_bytes").value_or(0)));
  }
};

} // namespace
