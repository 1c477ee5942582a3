//===- Passes.h - llm dialect passes ----------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_TRANSFORMS_PASSES_H
#define LLM_DIALECT_LLM_TRANSFORMS_PASSES_H

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::llm {

#define GEN_PASS_DECL
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_TRANSFORMS_PASSES_H
