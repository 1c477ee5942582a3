//===- Passes.h - llm conversion passes -------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_PASSES_H
#define LLM_CONVERSION_PASSES_H

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "mlir/Pass/Pass.h"

namespace mlir {

#define GEN_PASS_DECL
#include "llm/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "llm/Conversion/Passes.h.inc"

} // namespace mlir

#endif // LLM_CONVERSION_PASSES_H
