//===- LLMCacheOps.td - llm key/value cache ops ------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops of the sequence length: `llm.kv_cache_update` writes the keys or
// values of the new tokens into a preallocated cache at the current position
// (autoregressive generation); `llm.sequence_prefix` reads the first S
// entries of a table sized for the longest sequence; `llm.sequence_last`
// keeps the last position of a per-position value. Included from
// LLMOps.td; verifiers in lib/Dialect/LLM/IR/LLMCacheOps.cpp, lowering in
// lib/Conversion/LLMToLinalg/CacheToLinalg.cpp. The entry interface of a
// model with a cache (the `llm.kv_cache` argument attribute) is described in
// docs/Generation.md.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMCACHEOPS_TD
#define LLM_DIALECT_LLM_IR_LLMCACHEOPS_TD

def LLM_KVCacheUpdateOp : LLM_Op<"kv_cache_update", [
    AllTypesMatch<["cache", "result"]>,
    AllElementTypesMatch<["cache", "update"]>]> {
  let summary = "write new key/value rows into a preallocated cache";
  let description = [{
    Writes the keys (or values) of the `S` new tokens into the cache at
    sequence position `position`:

    `result[..., position + s, ...] = update[..., s, ...]` for `s in [0, S)`
    (indices along `axis`), and `result = cache` elsewhere.

    `cache` is the preallocated cache, e.g. `[B, Hkv, M, D]` with `axis = 2`
    (the `bhsd` layout of `llm.attention`) or `[B, M, Hkv, D]` with
    `axis = 1` (`bshd`); `M` is the largest sequence length the cache holds
    and must be static. `update` has the cache's rank and sizes except along
    `axis`, where it has `S <= M` rows; `S` may be the function's dynamic
    sequence length (`llm.dim_bounds`). `position` is a 0-d `i32`/`i64`
    tensor: the number of tokens already in the cache. Element types f32,
    f16 or bf16, equal for `cache`, `update` and the result.

    Memory: the op is a value-semantics `tensor.insert_slice`; when `cache`
    is a function argument marked `llm.kv_cache` (the session's cache
    buffer, which the function may update in place) bufferization writes the
    `S` rows into that buffer and copies nothing else, so a decode step
    costs `S * (row bytes)`, not the cache's size.

    Run time: a `position` outside `[0, M - S]` would write outside the
    cache; the lowering clamps it into that range, so nothing is written
    outside it. A write that would end past the cache (`position + S > M`)
    is also reported after the call as an index-check error
    ("llm.kv_cache_update at FILE:LINE:COL: index position+S-1 is out of
    range [-M, M)", as `llm.gather`'s); a negative position is clamped to 0
    without an error. The generation session (llm/Runtime/Generation.h)
    never makes such a call: it refuses a step past the bound first.

    Errors: ranks that differ; `axis` out of range; sizes other than along
    `axis` that differ; a dynamic cache dimension; `S > M`; a dynamic `S`
    whose declared bound (the function's `llm.dim_bounds`) exceeds `M`; a
    `position` that is not a 0-d integer tensor.

    ```mlir
    %k1 = llm.kv_cache_update %kcache, %knew, %pos {axis = 2 : i64}
        : (tensor<1x4x128x64xf32>, tensor<1x4x?x64xf32>, tensor<i64>)
        -> tensor<1x4x128x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$cache, LLM_FloatTensor:$update,
      0DTensorOf<[I32, I64]>:$position,
      DefaultValuedAttr<I64Attr, "2">:$axis);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $cache `,` $update `,` $position attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def LLM_SequencePrefixOp : LLM_Op<"sequence_prefix", [Pure,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "the first S entries of a table, S the sequence length";
  let description = [{
    In a function with a dynamic sequence dimension (argument attribute
    `llm.dim_bounds`: every `?` is one run-time length `S`), reads the first
    `S` entries along each axis in `axes` of a static tensor:

    `result[i...] = input[i...]` with `i_a in [0, S)` for `a` in `axes`.

    `input` has a static shape; the result has the input's shape and element
    type (any), with `?` on `axes` (distinct, in `[0, rank)`, at least one).
    Typical inputs are constants sized for the longest sequence: position
    embeddings, RoPE positions, a causal mask (`axes = [2, 3]` of a
    `[1, 1, M, M]` mask). The ONNX importer writes the op for such tables
    when it keeps a symbolic dimension dynamic (docs/ONNX.md).

    Lowered to a `tensor.extract_slice` (a view, no copy);
    `llm-specialize-sequence` turns it into an `llm.slice` of the fixed
    length.

    Errors: an empty, repeated or out-of-range axis; a dynamic input; a
    result that is not the input's shape with `?` exactly on `axes`; a
    function without a sequence dimension; a declared bound larger than the
    input along an axis (the prefix would read past the table).

    ```mlir
    func.func @f(%ids: tensor<1x?xi64> {llm.dim_bounds = array<i64: 1, 64>}) {
      %pos = llm.sequence_prefix %table {axes = array<i64: 0>}
          : (tensor<64x768xf32>) -> tensor<?x768xf32>
      ...
    }
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_SequenceLastOp : LLM_Op<"sequence_last", [Pure, InferTypeOpAdaptor]> {
  let summary = "the last entry along the sequence axis, kept as size 1";
  let description = [{
    Reads the last entry along `axis` of `input`:

    `result[i...] = input[i...]` with `i_axis = 0` reading `input`'s index
    `n - 1`, where `n` is the size of that dimension: static, or the
    run-time sequence length when it is dynamic (`?`, bounded by
    `llm.dim_bounds`).

    The result has the input's element type (any) and shape, with 1 on
    `axis`. A generation model's prefill needs the logits of the last
    prompt position only; `llm-keep-last-logits` writes this op on the
    logits and moves it towards the inputs through the ops that compute
    each position by itself (the LM head, the last norms and MLP), so those
    run on one row instead of `S`.

    Folds to its input when `n` is 1; canonicalized to an `llm.slice` of
    `[n - 1, n)` when `n` is static. Lowered to a `tensor.extract_slice` at
    offset `n - 1` (a view, no copy).

    Errors: `axis` outside `[0, rank)`; a static size 0 on `axis` (there is
    no last entry).

    ```mlir
    %l = llm.sequence_last %logits {axis = 1 : i64}
        : (tensor<1x?x50257xf32>) -> tensor<1x1x50257xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_AxisAttr:$axis);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

#endif // LLM_DIALECT_LLM_IR_LLMCACHEOPS_TD
