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

//===----------------------------------------------------------------------===//
// Recomposition
//===----------------------------------------------------------------------===//

def LLMRecomposePass : Pass<"llm-recompose"> {
  let summary = "rebuild fused llm ops from the decomposed forms exporters emit";
  let description = [{
    Exporters (e.g. `torch.onnx.export` below opset 17) break fused ops into
    elementwise ops and reductions. This pass recognizes those chains and
    rebuilds the fused op:

    * `d = x - reduce_mean(x, axes, keepdims)`,
      `d / sqrt(reduce_mean(d * d | pow(d, 2), axes, keepdims) + eps)` (or
      `d * rsqrt(...)`, `d * reciprocal(sqrt(...))`, `d * (1 / sqrt(...))`)
      -> `llm.layer_norm` with `axis = -(number of reduced axes)`; `axes`
      must be exactly the trailing dimensions (one or more); then `* gamma`
      and `+ beta` of the normalized shape become `scale` and `bias`;
    * `x / sqrt(reduce_mean(x * x | pow(x, 2), [-1], keepdims) + eps)` (or
      `x * rsqrt(...)` and the other forms above) -> `llm.rms_norm`, then
      `* w` (shape `[D]`) becomes `weight`;
    * `0.5 * x * (1 + erf(x / sqrt(2)))` (or `x * 0.70710678`) ->
      `llm.gelu`, and `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 *
      x^3)))` (`x^3` as `pow(x, 3)` or `x * x * x`) ->
      `llm.gelu approximate <tanh>`; the three factors in any order and
      association;
    * `x * sigmoid(x)` -> `llm.silu`;
    * `matmul(softmax(matmul(q, transpose(k, [0, 1, 3, 2])) * c [+ mask],
      axis = -1), v)` (also `/ c`, no scale, or `matmul(q, k)
      {transpose_b}`) with rank-4 static `q`, `k`, `v` of equal `B` and `H`
      -> `llm.attention` with `scale = c` (or `1 / c`) and the float mask.
      Any rank-4 transpose `transpose(k', p)` is accepted as `k^T`: the key
      becomes `transpose(k', p with its last two entries swapped)` (GPT-2
      exports `transpose(k', [0, 2, 3, 1])` of a `[B, S, H, D]` tensor).

    Commutative operands match in either order. A chain is rewritten only
    when each intermediate value is used inside the chain alone, when the
    result keeps the input's type (constants must not broadcast the shape)
    and when the formula constants are splats within a relative tolerance of
    1e-4 of their exact values (exponents 2 and 3 exactly; the epsilon is
    taken as is, and must be >= 0). The pass applies nothing else (no
    folding, no constant CSE), so chains that do not match stay as written.

    Numerics: the fused ops compute the same formulas; the rounding may
    differ in the last bits (e.g. `rsqrt` vs `1 / sqrt`). An additive
    attention mask that is `-inf` on a whole row gives NaN in the decomposed
    chain, while `llm.attention` may give 0 there (its rule for fully
    excluded rows), so the two can differ on such rows.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def LLMOptimizeLayoutPass : Pass<"llm-optimize-layout", "::mlir::ModuleOp"> {
  let summary = "Store constant weights in the layout the matmul kernel "
                "reads and cancel activation transposes";
  let description = [{
    Layout choices at the llm level, for the CPU target named by `target`
    (llm/Codegen/TargetDescription.h, `matmulWeightLayout`):

    * Weight layout: the CPU matmul kernel (`llm-tile-and-vectorize`: a
      register tile of outer products, broadcast A, load a row of B) reads
      B contiguously when it is stored [K, N] (`kn`, every CPU target's
      default); a B stored [N, K] (`transpose_b`) is either gathered with
      stride K or transposed at run time. So
      `llm.matmul %a, %w {transpose_b}` with a constant `%w` becomes
      `llm.matmul %a, %w'` where `%w'` is the [..., K, N] transpose of
      `%w`, computed at compile time (a `dense_resource` weight gets a new
      resource blob `<name>_kn`; a splat stays a splat). No size limit
      applies: this is the weight's storage, not a new value. A weight
      shared with other users (e.g. GPT-2's tied `wte`, also an embedding
      table) is duplicated. With the `nk` preference the opposite rewrite
      is made.
    * `llm.transpose` of a constant is evaluated at compile time (any
      permutation, any size).
    * Transposes absorbed by matmul flags: `matmul(a, transpose(b, p))`,
      `p` swapping the last two dimensions only ->
      `matmul(a, b) {transpose_b}` (flag toggled), which the weight rule
      then turns into a [K, N] constant when `b` is one.
    * Activation transposes are sunk through elementwise unary ops
      (`unary(transpose(x)) -> transpose(unary(x))`, the transpose having no
      other user) and through elementwise binary ops whose two operands are
      transposes with the same permutation and the result's shape, so that
      two transposes meet and cancel (`llm.transpose`'s folder composes
      them).

    Remaining runtime transposes (non-constant `llm.transpose` ops, and
    `transpose_b` matmuls whose `rhs` is computed, which
    `llm-tile-and-vectorize` transposes at run time for enough rows) are
    counted into the report (`runtime_transposes`, llm/Support/Report.h)
    with `weight_layouts_changed` (constants rewritten); with
    `emit-remarks` each one gets a remark giving the reason it stays, e.g.
    the head split `[B, S, H, D] -> [B, H, S, D]` in front of
    `llm.attention`, whose operands are [B, H, S, D].

    Errors: an unknown `target` name is reported at the module and the pass
    fails.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "CPU target description: host, avx512, avx2 or generic">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit a remark at every remaining runtime transpose">,
  ];
  let statistics = [
    Statistic<"numWeightsChanged", "weight-layouts-changed",
              "Constant weights rewritten to the kernel's layout">,
    Statistic<"numRuntimeTransposes", "runtime-transposes",
              "Transposes left to run time">,
  ];
}

#endif // LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD
