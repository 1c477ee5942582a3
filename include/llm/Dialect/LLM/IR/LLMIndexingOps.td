//===- LLMIndexingOps.td - llm indexing and top-k ops ------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops that read or write tensors through run-time indices beyond
// `llm.gather`/`llm.gather_elements` (`llm.gather_nd`, `llm.scatter_nd`,
// `llm.scatter_elements`), the top-k selection `llm.topk`, and the run-time
// (dynamic) quantization `llm.dynamic_quantize`. Included from LLMOps.td;
// verifiers in lib/Dialect/LLM/IR/LLMIndexingOps.cpp, lowering in
// lib/Conversion/LLMToLinalg/IndexingToLinalg.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMINDEXINGOPS_TD
#define LLM_DIALECT_LLM_IR_LLMINDEXINGOPS_TD

def LLM_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how llm.scatter_nd / llm.scatter_elements combine an update with the "
    "element it lands on", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Add", 1, "add">,
      I32EnumAttrCase<"Mul", 2, "mul">,
      I32EnumAttrCase<"Max", 3, "max">,
      I32EnumAttrCase<"Min", 4, "min">
    ]> {
  let cppNamespace = "::mlir::llm";
  let genSpecializedAttr = 0;
}
def LLM_ScatterReductionAttr
    : EnumAttr<LLM_Dialect, LLM_ScatterReduction, "scatter_reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Gather / scatter by index tuples
//===----------------------------------------------------------------------===//

def LLM_GatherNDOp : LLM_Op<"gather_nd", [
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "gather slices by index tuples (ONNX GatherND)";
  let description = [{
    ONNX `GatherND` (opset 12/13 definition, with `batch_dims`): `input` has
    rank `r >= 1`, `indices` rank `q >= 1` and its last dimension
    `m = indices.shape[-1]` satisfies `1 <= m <= r - batch_dims`. With
    `b = batch_dims`, the result has shape
    `indices.shape[:-1] + input.shape[b + m:]` and

    `result[B..., I..., R...] = input[B..., wrap(indices[B..., I..., 0]), ...,
                                     wrap(indices[B..., I..., m-1]), R...]`

    where `B` ranges over the `b` leading (batch) dimensions shared by
    `input` and `indices`, and `wrap(k) = k + input.shape[b + j]` for a
    negative component `k` at position `j` (ONNX counts negative indices
    from the end). A component outside `[-input.shape[b + j],
    input.shape[b + j])` is a run-time error, checked for each component as
    for `llm.gather` (the error names the op, its location, the index and
    the dimension's size; the gather itself clamps, so no out-of-bounds
    read happens). `input` may have any llm element type; `indices` are i32
    or i64.

    Errors: rank-0 `input` or `indices`; `batch_dims` < 0 or not less than
    both ranks; batch dimensions that differ between `input` and `indices`;
    `m` outside `[1, r - batch_dims]`; a result type other than the shape
    above; an indexed dimension of size 0.

    ```mlir
    %g = llm.gather_nd %x, %idx : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
    %h = llm.gather_nd %x, %idx {batch_dims = 1 : i64}
        : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_IndexTensor:$indices,
      DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_ScatterNDOp : LLM_Op<"scatter_nd", [
    AllTypesMatch<["input", "result"]>,
    AllElementTypesMatch<["input", "updates"]>]> {
  let summary = "write slices at index tuples (ONNX ScatterND)";
  let description = [{
    ONNX `ScatterND` (opset 11/13/16/18 definitions), the key/value-cache
    update of decoder exports: the result is a copy of `input` in which,
    for every tuple `u` of the leading `q - 1` dimensions of `indices`
    (`q` its rank, `m = indices.shape[-1]` with `1 <= m <= rank(input)`),

    `result[wrap(indices[u, 0]), ..., wrap(indices[u, m-1]), R...] =
        combine(result[...same...], updates[u, R...])`

    `updates` has shape `indices.shape[:-1] + input.shape[m:]`. Updates are
    applied in row-major order of `u`. `reduction` gives `combine`:
    `none` (default: the update replaces the element; ONNX leaves repeated
    index tuples undefined, here the last one wins), `add`, `mul`, `max`,
    `min` (opset 16/18; repeated tuples accumulate). Floats combine in f32
    for f16/bf16 (`arith.maximumf`/`minimumf`: NaN propagates), integers as
    signed two's complement (wrapping). `wrap(k) = k + input.shape[j]` for a
    negative component at position `j`; a component outside
    `[-input.shape[j], input.shape[j])` is a run-time error, checked as for
    `llm.gather` (the update is then clamped into range, so no
    out-of-bounds write happens before the caller sees the error).

    Element types: any llm element type with `none`; f32, f16, bf16, f64,
    i8, i32, i64 with a reduction. `indices` are i32 or i64.

    Errors: rank-0 `input` or `indices`; `m` outside `[1, rank(input)]`;
    `updates` of another shape than the one above; a reduction on `i1`; an
    indexed dimension of size 0.

    ```mlir
    %c = llm.scatter_nd %cache, %pos, %kv
        : (tensor<1x16x64xf32>, tensor<1x1x2xi64>, tensor<1x1x64xf32>) -> tensor<1x16x64xf32>
    %a = llm.scatter_nd %x, %idx, %u {reduction = #llm.scatter_reduction<add>}
        : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_IndexTensor:$indices,
      LLM_AnyTensor:$updates,
      DefaultValuedAttr<LLM_ScatterReductionAttr,
                        "::mlir::llm::ScatterReduction::None">:$reduction);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `,` $updates attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def LLM_ScatterElementsOp : LLM_Op<"scatter_elements", [
    AllTypesMatch<["input", "result"]>,
    AllElementTypesMatch<["input", "updates"]>]> {
  let summary = "write single elements along an axis (ONNX ScatterElements)";
  let description = [{
    ONNX `ScatterElements` (opset 11/13/16/18 definitions; the deprecated
    `Scatter` is the same op), the inverse of `llm.gather_elements`:
    `indices` and `updates` have the same shape and the rank of `input`; the
    result is a copy of `input` in which, for every index tuple `i` of
    `updates` in row-major order,

    `result[i_0, .., i_(axis-1), wrap(indices[i]), i_(axis+1), ..] =
        combine(that element, updates[i])`

    with `combine`, the element types and the run-time check of the indices
    (against `input.shape[axis]`, negative ones counting from the end) as
    in `llm.scatter_nd`. `axis` may be negative.

    Errors: ranks that differ; a rank-0 input; `axis` outside `[-r, r)`;
    `indices` and `updates` of different shapes; a dimension `d != axis` of
    `updates` larger than that of `input`; a reduction on `i1`; an empty
    scattered dimension.

    ```mlir
    %s = llm.scatter_elements %x, %idx, %u {axis = 1 : i64}
        : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_IndexTensor:$indices,
      LLM_AnyTensor:$updates, DefaultValuedAttr<LLM_AxisAttr, "0">:$axis,
      DefaultValuedAttr<LLM_ScatterReductionAttr,
                        "::mlir::llm::ScatterReduction::None">:$reduction);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `,` $updates attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Top-k
//===----------------------------------------------------------------------===//

def LLM_TopKOp : LLM_Op<"topk"> {
  let summary = "the k largest (or smallest) elements along an axis";
  let description = [{
    ONNX `TopK` (opset 11 definition; `torch.topk`): along `axis` of
    `input` (rank `r >= 1`, `n = input.shape[axis]`), `values` holds the
    `k` largest elements (the `k` smallest with `largest = false`) and
    `indices` (i64) their positions in `input`; both have `input`'s shape
    with `k` at `axis`. The order is descending (ascending for the smallest),
    and equal values keep the lower index first (the ONNX tie rule). Results
    are always sorted: ONNX leaves the order unspecified when `sorted = 0`,
    and this order is one of the allowed ones. NaN counts as larger than
    every number (the order of `numpy.sort` and `torch.topk`): the largest
    elements list NaNs first, the smallest list them last.

    Element types f32, f16, bf16, f64 (compared exactly), i8, i32, i64
    (signed). The selection takes `k` passes over each row
    (`O(k * n)` comparisons per row): meant for the small `k` of sampling
    (top-k logits), not for a full sort of long rows.

    Errors: rank-0 input; `axis` outside `[-r, r)`; `k` < 0 or `k > n`;
    result shapes other than `input`'s with `k` at `axis`; `values` of
    another element type than `input`.

    ```mlir
    %v, %i = llm.topk %logits {k = 4 : i64, axis = -1 : i64}
        : (tensor<1x50xf32>) -> (tensor<1x4xf32>, tensor<1x4xi64>)
    ```
  }];
  let arguments = (ins LLM_ArithTensor:$input, I64Attr:$k,
      DefaultValuedAttr<LLM_AxisAttr, "-1">:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs LLM_ArithTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dynamic quantization
//===----------------------------------------------------------------------===//

def LLM_DynamicQuantizeOp : LLM_Op<"dynamic_quantize", [
    AllShapesMatch<["input", "result"]>]> {
  let summary = "uint8 quantization with run-time scale and zero point";
  let description = [{
    ONNX `DynamicQuantizeLinear` (opset 11), the activation quantization of
    ONNX Runtime's dynamic quantization. With `x` the f32 `input`:

    ```
    x_min = min(0, min(x)),  x_max = max(0, max(x))
    scale = (x_max - x_min) / 255
    zero_point = saturate(round(0 - x_min / scale))
    result = saturate(round(x / scale) + zero_point)
    ```

    where `round` rounds half to even, `saturate` clamps to `[0, 255]`, and
    the divisions are f32 divisions (as the ONNX reference computes them).
    When every element is 0 the scale is 0 and `result` and `zero_point`
    are 0 (the formula divides by zero). NaN elements are ignored by the
    min/max and quantize to 0.

    `result` and `zero_point` are uint8 values held in i8 storage (the bits
    of 0..255, as llmc keeps ONNX uint8 tensors of the quantization ops);
    `scale` (rank 0, f32) and `zero_point` (rank 0) are run-time results,
    so no `!quant.uniform` type can carry them.

    Errors: result shapes other than the input's (for `result`) and rank 0
    (for `scale` and `zero_point`), checked by the types.

    ```mlir
    %q, %s, %z = llm.dynamic_quantize %x
        : (tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<f32>, tensor<i8>)
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input);
  let results = (outs RankedTensorOf<[I8]>:$result,
                      0DTensorOf<[F32]>:$scale,
                      0DTensorOf<[I8]>:$zero_point);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

#endif // LLM_DIALECT_LLM_IR_LLMINDEXINGOPS_TD
