//===- Passes.td - llm dialect transformation passes -------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Graph-level passes on the llm dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD
#define LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD
