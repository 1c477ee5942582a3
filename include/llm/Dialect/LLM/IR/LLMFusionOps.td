//===- LLMFusionOps.td - llm fusion group ops --------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The fusion group formed by `llm-fuse` (included from LLMOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMFUSIONOPS_TD
#define LLM_DIALECT_LLM_IR_LLMFUSIONOPS_TD


def LLM_FusionGroupOp : Op<LLM_Dialect, "fusion_group", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "ops that lower to one loop nest (one kernel)";
  let description = [{
    A fusion group formed by `llm-fuse`, in the style of IREE's dispatch
    regions: the ops of its single block compute the values yielded by its
    terminator `llm.yield`, which become the group's results (same number,
    same types, in order). The region is not isolated from above: the ops
    read values defined outside (activations, constants) directly.

    The group is a code generation contract: the lowering
    (`convert-llm-to-linalg`, then `llm-tile-and-vectorize`) tiles the op
    that produces the yielded value (the root) and fuses every other op of
    the group into the root's tile loop, so the group becomes one loop nest
    (one kernel), and inlines the region. Values are never defined inside a
    group and used outside it except through `llm.yield`.

    The group has the memory effects of the ops it holds (none, for llm
    ops). Errors: the yielded types differ from the result types.

    ```mlir
    %y = llm.fusion_group : tensor<16x64xf32> {
      %0 = llm.matmul %x, %w : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
      %1 = llm.add %0, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
      llm.yield %1 : tensor<16x64xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`:` type($results)^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
  }];
}

def LLM_YieldOp : Op<LLM_Dialect, "yield", [
    Pure, Terminator, HasParent<"FusionGroupOp">]> {
  let summary = "terminator of llm.fusion_group";
  let description = [{
    Returns the values computed by a fusion group, as its results.

    ```mlir
    llm.yield %1 : tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // LLM_DIALECT_LLM_IR_LLMFUSIONOPS_TD
