//===- LLMDialect.h - llm dialect -------------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMDIALECT_H
#define LLM_DIALECT_LLM_IR_LLMDIALECT_H

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "llm/Dialect/LLM/IR/LLMOpsDialect.h.inc"

#endif // LLM_DIALECT_LLM_IR_LLMDIALECT_H
