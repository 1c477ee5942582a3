//===- SpecializeSequence.cpp - An entry for one sequence length ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-specialize-sequence`: a copy of a function with a
// dynamic sequence dimension, with that dimension fixed (a generation
// model's decode step, one token).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMSPECIALIZESEQUENCEPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// `type` with every dynamic dimension of a ranked tensor set to `length`.
Type specialize(Type type, int64_t length) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.hasStaticShape())
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = length;
  return tensor.clone(shape);
}

struct LLMSpecializeSequencePass
    : llm::impl::LLMSpecializeSequencePassBase<LLMSpecializeSequencePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal()) {
      emitError(module.getLoc()) << "llm-specialize-sequence: no function @"
                                 << entry << " with a body";
      return signalPassFailure();
    }
    FailureOr<std::optional<SequenceDim>> seq =
        getSequenceDim(cast<FunctionOpInterface>(func.getOperation()));
    if (failed(seq))
      return signalPassFailure();
    if (!*seq) {
      func.emitError() << "llm-specialize-sequence: @" << entry
                       << " has no dynamic sequence dimension";
      return signalPassFailure();
    }
    int64_t bound = (*seq)->bound;
    int64_t length = this->length; // The option's value.
    if (length < 1 || length > bound) {
      func.emitError() << "llm-specialize-sequence: length " << length
                       << " is outside [1, " << bound
                       << "] (the declared bound of @" << entry << ")";
      return signalPassFailure();
    }
    std::string name = newEntry.empty()
                           ? (entry + "_s" + std::to_string(length))
                           : std::string(newEntry);
    if (module.lookupSymbol(name)) {
      func.emitError() << "llm-specialize-sequence: the module already has a "
                          "symbol @"
                       << name;
      return signalPassFailure();
    }

    func::FuncOp copy = func.clone();
    copy.setName(name);
    copy.setPublic();
    module.insert(std::next(Block::iterator(func)), copy);

    // A slice that keeps a dynamic dimension whole (start 0, stride 1, the
    // only form the lowering takes) gets the new size as its limit.
    copy.walk([&](SliceOp slice) {
      auto in = cast<RankedTensorType>(slice.getInput().getType());
      SmallVector<int64_t> limits(slice.getLimits());
      for (auto [d, size] : llvm::enumerate(in.getShape()))
        if (ShapedType::isDynamic(size))
          limits[d] = length;
      slice.setLimits(limits);
    });
    // The prefix of a table is a static slice of the new length.
    copy.walk([&](SequencePrefixOp prefix) {
      auto in = cast<RankedTensorType>(prefix.getInput().getType());
      SmallVector<int64_t> starts(in.getRank(), 0), strides(in.getRank(), 1);
      SmallVector<int64_t> limits(in.getShape());
      for (int64_t a : prefix.getAxes())
        limits[a] = length;
      OpBuilder b(prefix);
      Value slice = SliceOp::create(b, prefix.getLoc(), prefix.getInput(),
                                    starts, limits, strides);
      prefix.replaceAllUsesWith(slice);
      prefix.erase();
    });
    // Every `?` is the sequence length.
    copy.walk([&](Operation *op) {
      for (OpResult result : op->getResults())
        result.setType(specialize(result.getType(), length));
      for (Region &region : op->getRegions())
        for (BlockArgument arg : region.getArguments())
          arg.setType(specialize(arg.getType(), length));
    });
    SmallVector<Type> inputs, results;
    for (Type t : copy.getArgumentTypes())
      inputs.push_back(specialize(t, length));
    for (Type t : copy.getResultTypes())
      results.push_back(specialize(t, length));
    copy.setFunctionType(FunctionType::get(&getContext(), inputs, results));
    for (unsigned i = 0, e = copy.getNumArguments(); i < e; ++i)
      copy.removeArgAttr(i, kDimBoundsAttrName);

    if (failed(verify(copy))) {
      copy.emitError() << "llm-specialize-sequence: the copy of @" << entry
                       << " for length " << length << " does not verify";
      return signalPassFailure();
    }
  }
};

} // namespace
