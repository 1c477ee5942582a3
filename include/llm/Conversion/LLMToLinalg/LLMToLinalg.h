//===- LLMToLinalg.h - llm to linalg conversion -----------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
#define LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace llm {

/// Populates `patterns` with the rewrites that lower every llm op to
/// linalg/tensor/arith/math on tensors (see `convert-llm-to-linalg`).
void populateLLMToLinalgConversionPatterns(RewritePatternSet &patterns);

/// Populates `patterns` with the lowerings of the ops on runtime data
/// (`llm.compare`, logical ops, `llm.select`, `llm.gather`, `llm.reverse`,
/// `llm.log_softmax`, `llm.argmax`/`argmin`, `llm.reduce_min`/`reduce_prod`);
/// part of populateLLMToLinalgConversionPatterns.
void populateLLMToLinalgDataPatterns(RewritePatternSet &patterns);

} // namespace llm
} // namespace mlir

#endif // LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
