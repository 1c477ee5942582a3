//===- LLMFolds.cpp - llm dialect folders ---------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `fold` methods of the llm dialect's operations.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"

using namespace mlir;
using namespace mlir::llm;

// constant(v) -> v
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }
