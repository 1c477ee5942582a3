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

//===----------------------------------------------------------------------===//
// Simplification
//===----------------------------------------------------------------------===//

def LLMFoldConstantsPass : Pass<"llm-fold-constants"> {
  let summary = "evaluate llm ops whose operands are all constants";
  let description = [{
    Replaces every `llm` op whose operands are all constants by an
    `llm.constant` holding its value, computed at compile time in C++ (f64
    arithmetic, rounded once to the result's element type; f16/bf16 through
    APFloat). Folded ops: the elementwise unary and binary ops (with numpy
    broadcasting), `gelu`, `matmul`, `transpose`, `reshape`, `broadcast_to`,
    `cast`, `concat`, `slice`, `reduce_sum/mean/max`, `softmax`,
    `layer_norm`, `rms_norm`, `rope` (constant positions) and `embedding`.
    `attention` is not evaluated.

    Size policy: the size of a constant is the number of elements it stores
    (1 for a splat). An op is folded only when its result's size is at most
    `max-result-elements` and at most `max-growth-factor` times the total
    size of its constant operands, so a small constant is never replaced by a
    much bigger one (e.g. `broadcast_to` of a non-splat constant to a large
    shape stays, while a splat broadcasts for free).

    `reshape` of a `dense_resource` constant reuses the blob under the new
    type (no copy, no size limit); other ops read resource blobs (little
    endian) and produce inline `dense` constants subject to the size policy.

    With `fast-math`, the rewrites that are wrong for NaN or infinite inputs
    are applied too: `x * 0 -> 0` (splat zero of either sign) and
    `x - x -> 0`.

    The pass also applies the llm canonicalization patterns, so that folded
    constants feed the algebraic simplifications.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"maxResultElements", "max-result-elements", "int64_t",
           /*default=*/"1048576",
           "largest result (in stored elements) that may be folded">,
    Option<"maxGrowthFactor", "max-growth-factor", "double",
           /*default=*/"1.0",
           "largest allowed ratio of the result's stored elements to the "
           "total stored elements of the constant operands">,
    Option<"fastMath", "fast-math", "bool", /*default=*/"false",
           "also apply x * 0 -> 0 and x - x -> 0 (wrong for NaN/inf)">,
  ];
}

#endif // LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD
