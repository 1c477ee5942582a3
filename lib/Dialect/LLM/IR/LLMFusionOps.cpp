//===- LLMFusionOps.cpp - llm fusion group ops ----------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the verifier and accessors of `llm.fusion_group`.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"

using namespace mlir;
using namespace mlir::llm;

YieldOp FusionGroupOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult FusionGroupOp::verify() {
  TypeRange yielded = getYield().getValues().getTypes();
  if (yielded.size() != getNumResults())
    return emitOpError() << "yields " << yielded.size() << " values but has "
                         << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yielded, getResultTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "yielded value #" << i << " has type "
                           << std::get<0>(pair) << " but result #" << i
                           << " has type " << std::get<1>(pair);
  return success();
}
