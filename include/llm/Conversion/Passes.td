//===- Passes.td - llm conversion passes -------------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_PASSES_TD
#define LLM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// LLMToLinalg
//===----------------------------------------------------------------------===//

def ConvertLLMToLinalgPass : Pass<"convert-llm-to-linalg"> {
  let summary = "Lower llm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every `llm` op into `linalg` on tensors: named ops where one
    exists (`linalg.matmul`, `linalg.batch_matmul`, `linalg.transpose`,
    `linalg.fill`), `linalg.generic` otherwise (elementwise ops with
    broadcasting indexing maps, reductions, norms, softmax, rope, attention),
    plus `tensor` (reshape, concat, slice, empty), `arith` and `math` for the
    scalar bodies. `llm.constant` becomes `arith.constant`.

    f16/bf16 inputs are computed in f32 inside the generic bodies and rounded
    back. Reductions accumulate in f32.

    Errors: ops with dynamic shapes are reported with their location and the
    pass fails (the lowering requires static shapes).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // LLM_CONVERSION_PASSES_TD
