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
      The scale may sit on `q` instead (`q / c`, `q * c`). Scores
      soft-capped as Gemma 2 writes them, `tanh(s / c') * c'` (the division
      also as a product by `1 / c'`, within a relative 1e-6; the same splat
      `c' > 0` both times; `tanh(s)` alone is the cap 1), become the
      attention's `softcap = c'`. Key/value heads
      repeated as torch exports grouped-query attention
      (`reshape(broadcast_to(reshape(x) : [B, Hkv, 1, S, D]) : [B, Hkv, G,
      S, D]) : [B, Hkv*G, S, D]`, on both `k` and `v`) are replaced by `x`
      (`Hq = G * Hkv`). Rank-3 `[B*H, S, D]` operands
      (`torch.nn.MultiheadAttention`) are reshaped to `[1, B*H, S, D]`
      around the `llm.attention` (`llm-optimize-layout` splits them back
      into `[B, H, S, D]`). Scales on both `q` and `k^T` multiply (torch
      >= 2 exports `F.scaled_dot_product_attention` as `(q * sqrt(c)) @
      (k^T * sqrt(c))`). Masks written with `where`: `select(m, s, e)` ->
      mask `m`, `select(m, e, s)` -> mask `logical_not(m)` on the scores
      `s` (Hugging Face GPT-2's `torch.where(causal_mask, w,
      finfo.min)`, `masked_fill(pad, -inf)`), and an added `select(m, 0, e)`
      / `select(m, e, 0)` (`F.scaled_dot_product_attention`'s bool mask,
      `nn.MultiheadAttention`'s `key_padding_mask`) -> the `i1` mask `m` /
      `logical_not(m)`, where `e` is a splat excluded value (`-inf` or
      `<= -1e4`, as for causal masks below). A finite `e` becomes the
      attention's `excluded_score`, so that a row with every key excluded
      weighs its keys equally as the graph does: always on the scores,
      and when added only if `e <= -1e30` (then `s + e` rounds to `e`);
      an added finite `e` above that stays a float mask, `select(m, 0, e)`
      itself. A `where` then an added mask `p` (Hugging Face GPT-2 and
      GPT-NeoX with an `attention_mask`), `select(m, s, e) + p` with
      `e <= -1e30`, becomes the float mask `select(m, p, e + p)`: the
      graph's score at every position, fully padded rows included;
    * `llm.attention` with a constant mask (or `logical_not` of one) that
      is causal over its last two dims (the same pattern at every index of
      the other dims, e.g. Hugging Face LLaMA's mask expanded to the
      batch): kept (`i1` true, float 0) exactly where
      `j <= i + (Skv - Sq)`, excluded (`i1` false, float `-inf` or any value
      `<= -1e4`) elsewhere -> `{causal}` without the mask; a mask that keeps
      everything is dropped. Float `-1e4` (GPT-2's buffer) counts as
      excluded because `exp(-1e4 + gap)` is 0 in f32 unless a masked logit
      exceeds the row's largest kept logit by more than ~9896;
    * `x * cos + rotate_half(x) * sin` with `rotate_half(x) = concat(-x[...,
      D/2:], x[..., :D/2], axis = -1)` (as torch exports Hugging Face LLaMA:
      Slice/Neg/Concat/Mul/Add) and constant `cos`/`sin` tables of shape
      `[1, ..., 1, S, D]` -> `llm.rope(x, positions = [0, ..., S-1])
      {theta}`. `theta` is recovered from the slowest frequency of the
      tables (10000 when they cannot tell: `D = 2` or `S = 1`; snapped to an
      integer within 1e-5) and every entry must equal the `llm.rope`
      definition within `1e-4 + 1e-6 * |angle|`; tables that are not
      constants, of other positions or another formula stay untouched.
      Partial rotary (GPT-NeoX, Phi: the rope of a leading slice
      `x[..., :R]` concatenated with `x[..., R:]`) becomes one
      `llm.rope {rotary_dims = R}` in the canonicalization that follows
      (a pattern of `llm.concat`);
    * rows flattened around ops that compute each row by itself:
      `reshape(f(reshape(x) : [A, D]) : [A, N]) : [d0, ..., dk, N]` with
      `d0 * ... * dk = A` and at least two `di > 1` -> `f(reshape(x) :
      [d0, ..., dk, D])`, where `f` is made of matmuls of the rows by a
      2-D rhs (no `transpose_a`), elementwise ops whose other operands
      broadcast along the rows (or are flattened rows themselves), casts,
      comparisons, selects and norms of the last dimension (a positive
      `layer_norm` axis is rewritten from the end), each of whose
      intermediate results has no other user, and whose flattened inputs
      are reshapes or constants. Hugging Face's Conv1D (`addmm` of
      `x.view(-1, D)`) and `nn.MultiheadAttention`'s output projection
      export linear layers this way; the rows keep their order, so the
      values are unchanged, and a batch is never merged with a dynamic
      sequence (the import of a dynamic sequence with a batch above 1
      needs it, DimBounds.h). Rows of one dimension (`[1, S]`) stay
      flattened. The same for a flattened leading dimension of higher-rank
      values through batched matmuls, transposes that keep it first and
      softmaxes of later dimensions: GPT-NeoX's attention scores, a
      `baddbmm` over `[B * H, S, D]` views of `q` and `k` viewed back to
      `[B, H, S, S]`, take `[B, H]` as they are.

    Commutative operands match in either order. A chain is rewritten only
    when each intermediate value is used inside the chain alone, when the
    result keeps the input's type (constants must not broadcast the shape)
    and when the formula constants are splats within a relative tolerance of
    1e-4 of their exact values, or equal to the exact value rounded to
    their element type (an f16 export's 0.044715 is 0.0447083, 1.5e-4 off)
    (exponents 2 and 3 exactly; the epsilon is
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
// Fusion
//===----------------------------------------------------------------------===//

def LLMFusePass : Pass<"llm-fuse"> {
  let summary = "form fusion groups (one kernel each) and fuse sibling matmuls";
  let description = [{
    Graph-level fusion, in two steps. The second forms `llm.fusion_group`
    regions; the CPU lowering turns each group into one loop nest (see
    `llm-tile-and-vectorize`), so the ops of a group share one pass over
    memory.

    1. Horizontal fusion (`horizontal`): matmuls `x @ W_i` (or
       `x @ W_i^T` with `transpose_b`) of the same `lhs` `x` (rank >= 2,
       not `transpose_a`) whose `rhs` are 2-D `llm.constant`s of one element
       type and equal `K` become one matmul against the constant
       `concat(W_1, ..., W_n)` along `N` (built at compile time, as a
       `dense_resource` blob), followed by one `llm.slice` per original
       result, columns `[off_i, off_i + N_i)`. When every matmul has exactly
       one user, `llm.add` of a constant bias of shape `[N_i]`, the biases
       are concatenated too (`add(matmul(x, Wq|Wk|Wv), bq|bk|bv)` then the
       slices). The new ops sit where the first matmul was. Each output
       element is the same dot product as before (same `K` order), so the
       results are bitwise equal. Then the query and key ropes of such a
       projection merge: `rope(reshape(slice(x, [.., a:b])) : [.., Hq, D])`
       and `rope(reshape(slice(x, [.., b:c])) : [.., Hk, D])` with the same
       positions (not varying over the heads), mode and theta become one
       `rope(reshape(slice(x, [.., a:c])) : [.., Hq + Hk, D])` and two head
       slices of it: one kernel instead of two (a LLaMA layer: 9 -> 8).
    2. Fusion groups (`groups`). Anchors are `llm.matmul`,
       `llm.matmul_integer`, `llm.layer_norm`, `llm.rms_norm` and
       `llm.softmax`. Each anchor takes, in order:
       * its epilogue: while the group's last value has exactly one user and
         that user is an elementwise op (unary, binary, `gelu`, `silu`,
         `cast`, `quantize`, `dequantize`, `requantize`, `quant.scast`)
         whose result has the same shape, the user joins (matmul + bias +
         activation + residual add; for W8A8, the integer matmul's rescale,
         bias, activation and requantize);
       * its prologue: an elementwise, `broadcast_to` or `cast` producer of
         an operand of a group member (not the `rhs` of a matmul: weights
         are never recomputed per tile) joins when all its users are in
         this group; when its users lie in several groups the cost rule
         decides between duplicating it into each of them (recomputation)
         and leaving it as its own kernel (materialization):
         `broadcast_to` and `cast` are always duplicated; an elementwise op
         is duplicated when its cost (ops per element: 1 for add, sub, mul,
         div, max, min, neg, relu, reciprocal, sqrt, rsqrt; 4 for exp, log,
         tanh, erf, sigmoid, pow; 5 for silu; 8 for gelu) is at most
         `max-recompute-ops` and it has at most `max-fan-out` users;
         reductions, norms, softmax, matmuls and attention never are.
       * with `norm-prologue-max-rows` R > 0, a norm's group
         (`llm.layer_norm` / `llm.rms_norm` over the last dimension alone,
         static shapes, at most R rows, with its epilogue) whose result is
         read only as the `lhs` of a matmul (not `transpose_a`) joins that
         matmul's group: the matmul's outer (parallel) tiles normalize the
         rows they multiply, one kernel instead of two (a decode step of a
         GPT-2 or LLaMA layer: two fewer). The tiles of a decode step split
         N, so each normalizes the same rows again: K elements per row
         against the K x N / threads multiply-adds of its tile. Many rows
         (prefill) keep the norm's own row kernel, measured faster.
         `llm-lower-to-cpu` uses R = 8.
       A matmul alone is not a group (it is one loop nest anyway); a norm or
       softmax alone is (it lowers to several linalg ops: reductions, then
       the normalization);
       `llm.attention` and data movement (transpose, reshape, slice, concat)
       are never grouped, except that with `attention-groups` each
       `llm.attention` is a group of its own (used by `llm-lower-to-nvvm`:
       its materialized lowering, several linalg ops, becomes one kernel).

    Run it last among the llm-level passes (after `llm-recompose` and
    `llm-fold-constants`): the groups hide their ops from pattern-based
    passes that match across group boundaries.

    Statistics: groups formed, ops fused (group members other than the
    anchor, duplicates included), producers duplicated, matmuls fused
    horizontally, norms made matmul prologues. Release builds of LLVM compile pass statistics out, so
    when the pass runs on a `builtin.module` the same figures are also set
    in its `llm.report` dictionary (`fusion_groups`, `fused_ops`,
    `duplicated_producers`, `horizontally_fused_matmuls`, and
    `norm_prologues` with `norm-prologue-max-rows`), which
    `llmc compile --report` prints.

    Errors: a negative `max-recompute-ops`, `max-fan-out` or
    `norm-prologue-max-rows`.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"horizontal", "horizontal", "bool", /*default=*/"true",
           "Fuse matmuls that share their lhs and have constant weights">,
    Option<"groups", "groups", "bool", /*default=*/"true",
           "Form llm.fusion_group regions (epilogues, prologues, norms)">,
    Option<"maxRecomputeOps", "max-recompute-ops", "int64_t",
           /*default=*/"4",
           "Largest cost (ops per element) of an elementwise producer that "
           "is duplicated into several consumer groups">,
    Option<"maxFanOut", "max-fan-out", "int64_t", /*default=*/"4",
           "Most users an elementwise producer may have to be duplicated">,
    Option<"normPrologueMaxRows", "norm-prologue-max-rows", "int64_t",
           /*default=*/"0",
           "Put a norm of at most this many rows read only by a matmul's lhs "
           "into the matmul's group (0: never; the CPU pipeline uses 8)">,
    Option<"attentionGroups", "attention-groups", "bool", /*default=*/"false",
           "Put each llm.attention in a fusion group of its own (the GPU "
           "target lowers its materialized form as one kernel)">,
  ];
  let statistics = [
    Statistic<"numGroups", "groups-formed", "Fusion groups formed">,
    Statistic<"numOpsFused", "ops-fused",
              "Ops placed in a group besides its anchor">,
    Statistic<"numDuplicated", "producers-duplicated",
              "Producers duplicated into several groups">,
    Statistic<"numHorizontal", "matmuls-fused-horizontally",
              "Matmuls replaced by a slice of a horizontally fused matmul">,
  ];
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def LLMFoldQuantPass : Pass<"llm-fold-quant"> {
  let summary = "move quantize/dequantize pairs until they meet, then merge them";
  let description = [{
    ONNX QDQ exporters scatter `QuantizeLinear`/`DequantizeLinear` around
    data movement (a `DequantizeLinear -> Reshape -> QuantizeLinear` chain
    between two quantized ops). This pass applies
    (`populateQuantFoldingPatterns`):

    * `dequantize(scast(M(s...)))` -> `M(dequantize(scast(s))...)` and
      `quantize(M(x...))` -> `scast(M(scast(quantize(x))...))` (the latter
      only when some `x` is a dequantize) for the data-movement ops `M` =
      `reshape`, `transpose`, `slice`, `broadcast_to`, `concat`, `gather`
      (its input only; the indices stay) and per-tensor parameters with
      i8/u8 storage: quantization is elementwise with one scale, so it
      commutes with moving elements. A dequantize moves up through a
      `gather` only when the gather's input comes from a quantize (through
      data movement), so that they meet: an embedding-table lookup keeps
      its dequantize after the gather;
    * `quantize(dequantize(q))` -> `q` when the parameters are identical
      (exact: `(q - z) * s` rounded to f32, divided by `s` and rounded,
      gives back `q - z` for 8-bit storage), else -> `requantize(q)`
      (8-bit storage);
    * max-pooling-like selects: `max(dequantize(a), dequantize(b))` ->
      `dequantize(max(a, b))` when `a` and `b` have the same per-tensor (or
      non-broadcast per-axis) type, `reduce_max(dequantize(q))` ->
      `dequantize(reduce_max(q))` (per tensor, or per axis not reduced; no
      empty reduction), and `quantize(max(x, y))` ->
      `max(quantize(x), quantize(y))`, `quantize(reduce_max(x))` ->
      `reduce_max(quantize(x))` (per tensor, when an operand is a
      dequantize): exact, since quant scales are positive so that
      dequantization and quantization are non-decreasing and commute with
      max (a NaN, which quantize sends to the storage minimum, is dropped by
      the moved quantize form); the selects then compare the storage;
    * `quant.scast(quant.scast(x))` -> `x` (the upstream folder);
    * weight-only: `matmul(x, dequantize(w))` -> `dequant_matmul(x, w)` (the
      weight is dequantized in the matmul's operand load);
    * W8A8: `matmul(dequantize(a), dequantize(w))` (a per tensor, w per
      tensor or per output column, 8-bit storage) ->
      `dequantize(scast(matmul_integer(a, w)))` with the accumulator viewed
      as `!quant.uniform<i32:f32, sa * sb>` (per column: `sa * sb_n`): an
      i8 x i8 -> i32 matmul whose rescale is an elementwise epilogue that
      fuses with the following bias/activation/quantize.

    `dequantize(quantize(x))` with identical parameters is the rounding of
    `x` to the quantization grid (fake quantization, as QAT exports it) and
    is kept, unless `remove-fake-quant` is set: then it becomes `x` (faster,
    not the model's numerics).
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect",
                           "::mlir::quant::QuantDialect"];
  let options = [
    Option<"removeFakeQuant", "remove-fake-quant", "bool", /*default=*/"false",
           "also rewrite dequantize(quantize(x)) -> x (changes numerics)">,
  ];
}

def LLMQuantizeWeightsPass : Pass<"llm-quantize-weights"> {
  let summary = "quantize the constant f32 weights of matmuls to int8/int4";
  let description = [{
    For every `llm.matmul` whose `rhs` is a rank-2 f32 `llm.constant`
    (inline or `dense_resource`), quantizes the weight per output channel
    (`group-size=0`) or per group of `group-size` elements along K and
    channel (GPTQ/AWQ-style groups of 32, 64, 128), to `bits` = 8 or 4,
    `symmetric` (zero point 0, `s = max|w| / qmax`) or not
    (`s = (max - min) / (qmax - qmin)`, `z = round(qmin - min / s)`), with
    ONNX QuantizeLinear rounding (half to even) and saturation. The weight
    becomes `llm.dequantize(quant.scast(arith.constant <int>))` of an
    `!quant.uniform` per-axis or sub-channel type; `llm-fold-quant` then
    fuses the dequantization into the matmul (`llm.dequant_matmul`). The
    quantized weight is always stored `[N, K]` (one row per output channel,
    the layout of the weight-only decode kernels): a weight stored `[K, N]`
    (Hugging Face GPT-2's Conv1D) is transposed at compile time and the
    matmul takes `transpose_b`.

    The error introduced on the weights, `|dequantize(quantize(w)) - w|` over
    all quantized elements, is reported: a remark with the max abs and RMS
    error, the pass statistics, and the `llm.report` keys
    `quantized_weights`, `quantized_weight_elements`,
    `quantized_weight_max_abs_error_e9` and `quantized_weight_rms_error_e9`
    (errors in units of 1e-9).

    A weight whose K is not a multiple of `group-size` is left in f32 with
    a warning. Errors: `bits` other than 8 or 4; a negative `group-size`.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect",
                           "::mlir::quant::QuantDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"bits", "bits", "int", /*default=*/"8", "8 or 4">,
    Option<"groupSize", "group-size", "int64_t", /*default=*/"0",
           "elements per group along K (0: one group, per channel)">,
    Option<"symmetric", "symmetric", "bool", /*default=*/"true",
           "zero point 0 (else min/max asymmetric)">,
  ];
  let statistics = [
    Statistic<"numWeights", "quantized-weights", "Number of weights quantized">,
    Statistic<"numElements", "quantized-elements",
              "Number of weight elements quantized">,
  ];
}

//===----------------------------------------------------------------------===//
// Calibration (static activation quantization)
//===----------------------------------------------------------------------===//

def LLMInstrumentActivationsPass
    : Pass<"llm-instrument-activations", "::mlir::ModuleOp"> {
  let summary = "return the activations to calibrate as extra results";
  let description = [{
    The first step of static (post-training) activation quantization
    (docs/Calibration.md). The calibration points of the entry function
    (`getCalibrationPoints` in llm/Dialect/LLM/Transforms/Calibration.h: the
    f32 activations read by `llm.matmul`, `llm.attention`, `llm.layer_norm`
    and `llm.rms_norm`, each once, keys `t0`, `t1`, ... in walk order) are
    appended to every `func.return` of the entry, in that order, after the
    original results. The function gets `llm.calibration_points`, an array
    of `{key, name, op, type}` dictionaries (name: the first reader's
    location name, e.g. the ONNX node, and the operand), and each new result
    the `llm.name` `calibration:<key>`. Running the instrumented model on
    sample inputs gives the values whose statistics
    `llm-quantize-activations` reads (`llmc calibrate` does this).

    Run it on the module that will be quantized, after the graph
    preparation that `llmc calibrate` also runs (`inline`, `llm-recompose`,
    `llm-fold-constants`): the keys are positions in that module.

    Errors: no function `entry`; an entry with more than one block; an entry
    already instrumented.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "the function to instrument">,
  ];
}

def LLMSmoothActivationsPass
    : Pass<"llm-smooth-activations", "::mlir::ModuleOp"> {
  let summary = "migrate activation outliers into the weights (SmoothQuant)";
  let description = [{
    SmoothQuant (G. Xiao et al., "SmoothQuant: Accurate and Efficient
    Post-Training Quantization for Large Language Models", ICML 2023,
    arXiv:2211.10438): for each norm output (`llm.layer_norm` with constant
    scale and bias, `llm.rms_norm` with a constant weight) that only matmuls
    with constant weights read, divides channel j of the norm's scale (and
    bias) by `s_j = max|X_j|^alpha / max|W_j|^(1 - alpha)` and multiplies
    row j of each weight by it (`smoothActivations`,
    llm/Dialect/LLM/Transforms/Calibration.h). `max|X_j|` is the
    `channel_absmax` of the calibration table `ranges`; the model computes
    the same function (up to f32 rounding) with flatter activations, which
    a new calibration run (on the smoothed model) then quantizes with less
    error: quantize the smoothed model with a table recorded on it, not
    with `ranges` (its types still match, its ranges are the unsmoothed
    ones). `llmc calibrate --smooth-alpha A` does both.

    Errors: no `ranges`, or a table that does not load or does not match
    the module (as `llm-quantize-activations`); `alpha` outside (0, 1].
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"ranges", "ranges", "std::string", /*default=*/"",
           "the calibration table (JSON)">,
    Option<"alpha", "alpha", "double", /*default=*/"0.5",
           "migration strength in (0, 1]">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "the function to smooth">,
  ];
}

def LLMQuantizeActivationsPass
    : Pass<"llm-quantize-activations", "::mlir::ModuleOp"> {
  let summary = "quantize matmul activations and weights to 8 bits from "
                "recorded ranges (W8A8)";
  let description = [{
    Static quantization from a calibration table (`ranges`, written by
    `llmc calibrate --ranges-out` or by a run of the model instrumented by
    `llm-instrument-activations`; format in docs/Calibration.md). For every
    calibration point of the entry that an `llm.matmul` reads as `lhs`
    (without `transpose_a`) with a rank-2 constant f32 weight as `rhs`:

    * the activation `x` gets `llm.dequantize(llm.quantize(x))`, once for all
      its matmuls, with parameters chosen by `method`:
      - `minmax`: the recorded `[min(min, 0), max(max, 0)]`, asymmetric
        `!quant.uniform<u8:f32, s:z>`, `s = (hi - lo) / 255`,
        `z = round(-lo / s)` (ONNX Runtime's MinMax calibration);
      - `percentile`: symmetric, `T` = the `percentile` % point of the |x|
        histogram, `!quant.uniform<i8:f32, T/127>`;
      - `entropy`: symmetric, `T` minimizing the KL divergence between the
        |x| histogram clipped at `T` and its 128-level quantization
        (TensorRT's entropy calibration, S. Migacz, "8-bit Inference with
        TensorRT", GTC 2017; the algorithm of NVIDIA's pytorch-quantization
        `_compute_amax_entropy`);
      - with `percentile` and `entropy`, an activation that was never
        negative (a relu's output) takes `[0, T]` onto u8 instead:
        `!quant.uniform<u8:f32, T/255>`;
    * the weight is quantized to i8, symmetric (`s = max|w| / 127`, zero
      point 0), per tensor or, with `per-channel-weights`, per output
      column, stored `[K, N]` (a `transpose_b` weight is transposed at
      compile time);
    * with `fp8`, both become f8E4M3FN with a per-tensor `scale` (`T / 448`,
      max|w| / 448); CPUs run these as f32 with the FP8 rounding.

    `llm-fold-quant` then turns each `matmul(dequantize(a),
    dequantize(w))` into `llm.matmul_integer` with a dequantize epilogue
    (FP8: the weight-only `llm.dequant_matmul`). Activations read by
    attention, norms or activation x activation matmuls are recorded but
    not quantized (llmc has no integer kernel for them). A matmul whose
    location name, or whose activation's key (`t3`) or name, matches a
    glob of `exclude` stays f32 (mixed precision).

    Errors: no `ranges`, or a table that does not load (not JSON, nested
    too deep, fields missing or contradicting each other); an unknown
    `method`; `percentile` outside (0, 100]; a table recorded for another
    entry, or whose entry for a key has another type or op than this
    module's calibration point (a table recorded for another model, or
    another preparation of it); a point without an entry; an invalid glob
    (or one with braces); an activation to quantize with a dynamic
    dimension (not supported yet); a weight with NaN or infinite values. A
    glob that matches nothing is not an error (`llmc calibrate` warns).
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect",
                           "::mlir::quant::QuantDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"ranges", "ranges", "std::string", /*default=*/"",
           "the calibration table (JSON)">,
    Option<"method", "method", "std::string", /*default=*/"\"entropy\"",
           "minmax, percentile or entropy">,
    Option<"percentile", "percentile", "double", /*default=*/"99.99",
           "percentile of |x| for method=percentile, in (0, 100]">,
    Option<"perChannelWeights", "per-channel-weights", "bool",
           /*default=*/"false", "one weight scale per output column">,
    Option<"fp8", "fp8", "bool", /*default=*/"false",
           "f8E4M3FN instead of 8-bit integers">,
    ListOption<"exclude", "exclude", "std::string",
               "globs of matmul location names or activation keys/names "
               "kept in f32">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "the function to quantize">,
  ];
  let statistics = [
    Statistic<"numActivations", "quantized-activations",
              "Number of activations quantized">,
    Statistic<"numMatmuls", "quantized-matmuls",
              "Number of matmuls given quantized operands">,
  ];
}

//===----------------------------------------------------------------------===//
// Sparsity
//===----------------------------------------------------------------------===//

def LLMPruneWeightsPass : Pass<"llm-prune-weights", "::mlir::ModuleOp"> {
  let summary = "magnitude-prune the constant matmul weights (n:m, blocks, "
                "unstructured)";
  let description = [{
    For every `llm.matmul` whose `rhs` is a rank-2 f32, f16 or bf16
    constant, viewed as W[N, K] (output channels by the contraction; a
    `[K, N]` weight is read transposed), sets to zero the elements of smallest magnitude:

    * `pattern=n:m` (e.g. `2:4`): in each group of m consecutive elements
      along K of each output channel, all but the n largest |w| (the last
      group of a K that m does not divide is a group of its own);
    * `pattern=unstructured`: all but the `density` fraction of largest |w|
      over the whole weight (ties: the lower flat index is kept);
    * `pattern=RxC` (`4x4`, `16x16`, `1x4`, `1x16`): all but the `density`
      fraction of R x C blocks of W[N, K] with the largest L1 norm (edge
      blocks are partial).

    Magnitude pruning as in Han et al., "Learning both Weights and
    Connections for Efficient Neural Networks", NeurIPS 2015 (no
    retraining; SparseGPT/Wanda-style pruning with calibration data is not
    done). The weight is replaced by a new constant (the old one stays for
    other users). The error introduced, `|w' - w|` over all elements of the
    pruned weights, is reported as a remark (max abs and RMS) and as the
    `llm.report` keys `pruned_weights`, `pruned_zeros`,
    `pruned_max_abs_error_e9`, `pruned_rms_error_e9` (units of 1e-9).

    Errors: an unknown pattern, n > m or m < 1, `density` outside (0, 1].
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"pattern", "pattern", "std::string", /*default=*/"\"2:4\"",
           "n:m, unstructured, or a block shape RxC (4x4, 16x16, 1x4, 1x16)">,
    Option<"density", "density", "double", /*default=*/"0.5",
           "fraction of elements (unstructured) or blocks (RxC) kept">,
  ];
}

def LLMSparsifyWeightsPass : Pass<"llm-sparsify-weights", "::mlir::ModuleOp"> {
  let summary = "measure each constant matmul weight's sparsity and choose "
                "its storage format";
  let description = [{
    For every `llm.matmul` whose `rhs` is a rank-2 f32, f16 or bf16
    constant (viewed as W[N, K], output channels by the contraction; run it
    after fusion, as `llm-lower-to-cpu{sparsify=...}` does, so that the
    weights measured are the ones the kernels read), measures the density
    (nonzeros / elements), whether every group of 4 along K holds at most 2
    nonzeros (exact 2:4), and the share of nonzero R x C blocks of W for
    4x4, 16x16, 1x4 and 1x16, and chooses a format by a cost model of the
    decode matrix-vector product, which streams the weight from memory once
    per token: the time of a format relative to dense is its bytes over the
    dense bytes divided by its measured streaming efficiency (llmc's sparse
    kernels against its dense one, cold 4096 x 4096 matvec, one thread,
    `bench/sparse/sparse_matmul.py`; docs/Sparsity.md). With V the bytes of
    a stored value (f32 4, f16/bf16 2, the i8 levels of a quantized weight
    1) and D those of a dense element (4, 2, 1, or 0.5 for 4-bit):

    | format | bytes | efficiency (float values) | efficiency (levels) |
    |---|---|---|---|
    | dense | D per element | 1.00 | 1.00 |
    | 2:4 (values + 1-byte lane; exact 2:4 only) | (V + 1) / 2 per element | 0.95 | 0.73 |
    | BSR RxC (values of every nonzero block, 2-byte block column) | V R C + 2 per nonzero block | 16x16: 1.00; 4x4: 0.89; 1x16: 0.70; 1x4: 0.40 | 16x16: 0.76; 4x4: 0.50; 1x16: 0.44; 1x4: 0.20 |
    | CSR (values + 2-byte column) | V + 2 per nonzero | 0.70 | 0.35 |

    The levels of a quantized weight are a quarter of the bytes of an f32
    value for the same instructions, so the formats that spend more
    instructions per value stream their bytes slower against the dense 8-
    and 4-bit kernels (measured with `--quant int8`, `int4`, `int8g128`,
    `int4g128`; the lowest taken).

    The fastest format wins if it is estimated at least 1.1x dense;
    otherwise dense. This reproduces the measured crossovers: 50%
    unstructured stays dense, 75% unstructured takes CSR (1.9x measured),
    exact 2:4 takes the 2:4 kernel (1.6x), 50% of 16x16 blocks BSR16
    (1.9x). `format` forces one format (`dense`, `2:4`, `bsr4x4`,
    `bsr16x16`, `bsr1x4`, `bsr1x16`, `csr`; 2:4 needs an exact 2:4 weight).

    The 8- and 4-bit weights of `llm.dequant_matmul` are measured on their
    levels q - zp. Per-tensor and per-channel scales multiply the sums;
    sub-channel scales (groups of G elements along K, as
    `llm-quantize-weights{group-size=G}` writes) multiply each stored value
    in registers, so the formats whose stored unit lies in one group take
    them: BSR whose block columns divide G and 2:4 with G a multiple of 32
    (not CSR). The scales (4 bytes each) count in every format's bytes.
    The weight of an `llm.matmul_integer` (W8A8) is measured on its levels
    b - zb too; its sparse kernel (8-bit dot products over the nonzero
    blocks) takes bsr16x16 only.

    The choice is recorded on the matmul as `llm.sparse_format =
    {format, density, estimated_speedup, bytes, dense_bytes}` and reported
    (a remark per weight, and the `llm.report` keys `sparse_weights`,
    `sparse_bytes_saved`). `convert-llm-to-linalg` reads it (with the
    `vector_bits` that `llm-select-lowering-config` records beside it) and
    emits llmc's sparse kernels for the weight (docs/Sparsity.md); 2:4 and
    CSR weights with more than 8 rows of activations (prefill) keep the
    dense kernel, where they do not pay.

    With `target=gpu` (set by `llm-lower-to-nvvm{sparsify=...}`) the
    formats are those of the GPU kernels: dense, or 2:4, which
    `llm-map-gpu-kernels{sparse-weights}` runs on the sparse tensor cores
    (`mma.sp`) wherever the matmul runs on tensor cores (f16/bf16 inputs,
    or f32 ones demoted by `demote-contraction-inputs`; M and N multiples
    of 64, K of 32; elsewhere, a decode matvec for example, the weight is
    read dense). There the rule is by bytes only (not measured on a GPU
    yet): an exact 2:4 weight stores half its values (the MMA type's 2 bytes
    each) and 2 bits of metadata per stored value, and is chosen when that
    is at least 1.1x fewer bytes than the weight's own (always, for
    f16/bf16/f32). `llm-map-gpu-kernels{sparse-weights}` applies the same
    rule by itself on the buffers (every exact 2:4 constant weight of a
    tensor-core matmul), so the recorded choice is the report. Quantized
    weights (`llm.dequant_matmul`) are not considered there.

    Errors: an unknown `format` or `target`; `format=2:4` for a weight that
    is not exactly 2:4; a forced format that does not take a weight's
    sub-channel scales, or other than bsr16x16 for an integer matmul's
    weight (above); with `target=gpu`, a format other than auto, dense
    and 2:4. A warning, at the function of the first matmul (an imported
    model: the model file), when the module has matmuls but none with a
    weight to store sparse (weights that are function inputs, of rank 3,
    or a transposed lhs): they all run dense.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"auto\"",
           "auto, dense, 2:4, bsr4x4, bsr16x16, bsr1x4, bsr1x16 or csr">,
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Whose kernels the formats are for: cpu (llmc's sparse CPU "
           "kernels) or gpu (2:4 on mma.sp only)">,
  ];
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

def LLMPromoteContractionInputsPass
    : Pass<"llm-promote-contraction-inputs", "::mlir::ModuleOp"> {
  let summary = "run f16/bf16 matmuls by constant weights in f32, the "
                "weight widened at compile time";
  let description = [{
    For a target without fast half-precision matmuls (every CPU target for
    f16; those without AVX512-BF16 for bf16), rewrites

    ```mlir
    %y = llm.matmul %a, %w : (tensor<MxKxf16>, tensor<KxNxf16>) -> tensor<MxNxf16>
    ```

    with `%w` an `llm.constant`, into

    ```mlir
    %a32 = llm.cast %a : (tensor<MxKxf16>) -> tensor<MxKxf32>
    %y32 = llm.matmul %a32, %w32 : (tensor<MxKxf32>, tensor<KxNxf32>) -> tensor<MxNxf32>
    %y = llm.cast %y32 : (tensor<MxNxf32>) -> tensor<MxNxf16>
    ```

    where `%w32` is the weight widened to f32 at compile time (a
    `dense_resource` weight gets a new blob `<name>_f32`; a splat stays a
    splat). The result is the same to the bit: f16 and bf16 values are
    exact in f32, and llmc's half-precision matmul already sums in f32 and
    rounds once at the end. What changes is the kernel: the f32 tiles read
    f32 panels instead of converting both operands at every step of K
    (f16 128x768 @ 768x3072 on one Zen 5 core: 7.4 ms -> 3.4 ms; the f32
    matmul took 3.1 ms in the same run). The activation's widening joins its producer's
    kernel (`llm-fuse`: an elementwise epilogue), the rounding of the result
    the matmul's. This is the cast insertion ONNX Runtime's CPU provider
    makes around f16 nodes it has no f16 kernel for
    (`InsertCastTransformer`), and XLA's `FloatNormalization`.

    The widened weight is stored in 16 bits again where it is packed for
    the CPU kernel (`llm-tile-and-vectorize` packs an f32 constant whose
    values are all f16 or bf16 values into 16-bit strips, widened as the
    kernel reads them), so a generation model whose decode matvecs read
    the same weight unpromoted holds one 16-bit copy of it, not an added
    f32 one. An f32 weight takes twice the bytes, which is what a decode
    matvec (one row, the weights streamed from memory) pays for: its f16 kernel is
    faster (1 x 4096 @ 4096 x 4096, weights evicted from the caches: f16
    1.1 ms, promoted 1.7 ms), while from 2 rows on the promoted matmul wins
    or ties (2 rows: 1.9 -> 1.5 ms; 8: 5.7 -> 5.7; 32: 13.7 -> 6.8).
    So only matmuls whose lhs has a number of rows (the product of its
    dimensions other than K) of at least `min-rows` (default 2) are
    rewritten; decode matvecs keep the half-precision weight. A dynamic
    (sequence) dimension counts at its declared bound (`llm.dim_bounds`:
    the prefill of the longest sequence, the size the CPU tiles are chosen
    for); a dynamic dimension without a bound is not promoted. One widened
    constant and one widened activation are shared by every rewritten
    matmul that reads them (sibling Q/K/V projections stay siblings for
    `llm-fuse`).

    Which element types to promote is the target's choice, passed in
    `element-types` (`llm-lower-to-cpu`: `f16`, and `bf16` too on targets
    without AVX512-BF16, where bf16 matmuls have no dot-product kernel).
    The count of rewritten matmuls is reported (`promoted_matmuls`).

    Errors: an `element-types` entry other than `f16` and `bf16`, or a
    `min-rows` below 1, is reported at the module and the pass fails.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    ListOption<"elementTypes", "element-types", "std::string",
               "Element types of the matmuls to run in f32 (f16, bf16; "
               "default: both)">,
    Option<"minRows", "min-rows", "int64_t", /*default=*/"2",
           "Smallest number of lhs rows (a dynamic dimension at its "
           "llm.dim_bounds bound) for which a matmul is promoted">,
  ];
  let statistics = [
    Statistic<"numPromoted", "promoted-matmuls",
              "Matmuls rewritten to run in f32">,
  ];
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def LLMOptimizeLayoutPass : Pass<"llm-optimize-layout", "::mlir::ModuleOp"> {
  let summary = "Store constant weights in the layout the matmul kernel "
                "reads and cancel activation transposes";
  let description = [{
    Layout choices at the llm level. The pass reads no target description:
    the weight layout is a target-independent request, `weight-layout`
    (llm/Dialect/LLM/IR/LoweringConfig.h, `WeightLayout`), that each target's
    pipeline derives from its own description (`llm-lower-to-cpu`: the CPU
    target description's `matmulWeightLayout`; `llm-lower-to-nvvm`: `kn`).

    * Weight layout: the CPU matmul kernel (`llm-tile-and-vectorize`: a
      register tile of outer products, broadcast A, load a row of B) reads
      B contiguously when it is stored [K, N] (`kn`, every CPU target's
      choice); a B stored [N, K] (`transpose_b`) is either gathered with
      stride K or transposed at run time. So
      `llm.matmul %a, %w {transpose_b}` with a constant `%w` becomes
      `llm.matmul %a, %w'` where `%w'` is the [..., K, N] transpose of
      `%w`, computed at compile time (a `dense_resource` weight gets a new
      resource blob `<name>_kn`; a splat stays a splat). No size limit
      applies: this is the weight's storage, not a new value. A weight
      shared with other users (e.g. GPT-2's tied `wte`, also an embedding
      table) is duplicated. With the `nk` preference the opposite rewrite
      is made (`weight-layout=nk`).
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
    * Transposes that keep the last dimension are sunk through `llm.rope`
      (`rope(transpose(x, p), pos) -> transpose(rope(x, pos'), p)`, pos'
      the positions broadcast to the rows' rank and permuted by p^-1: a
      reshape such as [S] -> [S, 1] when that keeps the order of its
      non-unit dimensions, else a small transpose), and `llm.attention`'s
      canonicalization then absorbs head-split transposes of q, k and v
      into layout `bshd`. A LLaMA block's [B, S, H, D] -> [B, H, S, D]
      head splits, RoPE'd q and k included, and the head merge after the
      attention all go.
    * Layout propagation (llm/Dialect/LLM/Transforms/Transforms.h,
      `populateLayoutPropagationPatterns`), for the chains exporters write
      around row-wise ops: a transpose keeping the last dimension sinks
      through a matmul by a 2-D `rhs` (`matmul(transpose(x, p), w) ->
      transpose(matmul(x, w), p)`), through a binary op with a constant
      whose non-unit dimensions keep their order under `p^-1` (a bias, a
      splat: re-typed, not moved) and through slices, and transposes by
      one permutation meet past a concat of them (`concat(transpose(a, p),
      transpose(b, p)) -> transpose(concat(a, b), p)`: GPT-NeoX's partial
      rotary); a reshape that keeps
      the last dimension sinks through such a matmul and through binary ops
      with constants along the dimensions it keeps (Hugging Face Conv1D's
      `[B*S, K]` flattening around `addmm` disappears); a chain of
      transposes and reshapes is rewritten as at most reshape -> transpose
      -> reshape when that takes fewer ops (its dims factored into common
      "atoms"); and an `llm.attention` over `[1, B*H, S, D]` reshapes of
      `[B, H, S, D]` tensors is split back into `[B, H, S, D]` (the mask
      reshaped alike), where it absorbs the head split.
      `torch.nn.MultiheadAttention` / `nn.TransformerEncoderLayer`
      (`batch_first`), whose [S, B*H, D] head layout needed six runtime
      transposes per layer, keeps none. Static shapes only.

    Remaining runtime transposes (non-constant `llm.transpose` ops, and
    `transpose_b` matmuls whose `rhs` is computed, which
    `llm-tile-and-vectorize` transposes at run time for enough rows) are
    counted into the report (`runtime_transposes`, llm/Support/Report.h)
    with `weight_layouts_changed` (constants rewritten); with
    `emit-remarks` each one gets a remark giving the reason it stays, e.g.
    the head split `[B, S, H, D] -> [B, H, S, D]` in front of
    `llm.attention`, whose operands are [B, H, S, D].

    Errors: a `weight-layout` other than `kn` or `nk` is reported at the
    module and the pass fails.
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
  let options = [
    Option<"weightLayout", "weight-layout", "std::string", /*default=*/"\"kn\"",
           "Layout of constant matmul weights that the target's matmul kernel "
           "reads contiguously: 'kn' ([K, N], row-major B) or 'nk' ([N, K])">,
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

//===----------------------------------------------------------------------===//
// Dynamic sequence length
//===----------------------------------------------------------------------===//

def LLMVerifyCallGraphPass
    : Pass<"llm-verify-call-graph", "::mlir::ModuleOp"> {
  let summary = "Refuse modules whose functions call each other in a cycle";
  let description = [{
    llmc compiles a model to straight-line kernels: the inliner flattens
    every call, and the memory planner sizes each function's arena
    statically. A call cycle (`func.call @main` from `@main`, or `@a` ->
    `@b` -> `@a`) has no such form; compiled as is it recurses without
    bound at run time and overflows the stack. This pass finds every cycle
    among the module's functions (through any `CallOpInterface` op whose
    callee is a symbol of the module) and reports each at the call that
    closes it, naming the cycle:
    `error: call cycle @main -> @main: recursive calls cannot be compiled`.
    Any other reference to a function's symbol counts as a call too (a
    `func.constant` feeding `func.call_indirect`). Calls to external
    declarations are fine.

    It also refuses a public function that inlining would make larger than
    `max-inlined-ops` operations (its own plus, for each call, its callee's
    inlined size): a 6 KB module of 30 functions each calling the next
    twice inlines to 2^30 copies and exhausted the machine's memory.

    `llm-lower-to-cpu` runs it first.
  }];
  let options = [
    Option<"maxInlinedOps", "max-inlined-ops", "int64_t",
           /*default=*/"4194304",
           "Largest public function after inlining every call, in "
           "operations (0: no limit)">,
  ];
}

def LLMVerifyNestingPass : Pass<"llm-verify-nesting"> {
  let summary = "Refuse IR nested too deeply for MLIR's recursive walkers";
  let description = [{
    MLIR's printers, walkers and verifiers recurse once or more per level of
    region and attribute nesting, and overflow the stack (a segmentation
    fault: 20000 levels crashed llm-opt's printer). IR that deep parses from text through aliases
    (`#a1 = [#a0]`, `#a2 = [#a1]`, ..., each line shallow) or from bytecode.
    This pass fails, with one error at the op (`it nests more than 1000
    levels deep (op 'func.func' at line 20001, column 1)`), when an op nests
    more than `max-depth` levels: the regions between it and the pass's
    anchor plus the depth of its attributes, types and location (one level
    per sub-element, an affine map's expressions included; `checkIRNesting`
    in `llm/Support/MLIRNesting.h`, which also documents the count). The walk is iterative and measures each
    distinct attribute or type once, so it costs time linear in the IR.

    It also refuses an attribute, type or location that expands to more
    than 2^24 elements once its shared parts are written out (500 aliases
    `!tN = tuple<!tN-1, !tN-1>` are 2^500), which a printer would write for
    hours. `llmc`, `llm-opt` (before MlirOptMain parses, prints or
    round-trips the input), the C API and Python check each module they
    parse the same way; this pass is for IR that reaches a pipeline by
    other means.
  }];
  let options = [
    Option<"maxDepth", "max-depth", "int64_t", /*default=*/"1000",
           "Most levels an op may nest (regions plus attribute depth)">,
  ];
}

def LLMGuardDimBoundsPass : Pass<"llm-guard-dim-bounds", "::mlir::ModuleOp"> {
  let summary = "Check the declared sequence bounds and guard them at entry";
  let description = [{
    For every defined function with an `llm.dim_bounds` argument attribute
    (functions without one are left alone: a dynamic llm op there is
    reported by `convert-llm-to-linalg`): checks the attributes
    (llm/Dialect/LLM/IR/DimBounds.h: one i64 per dimension, static entries
    equal to the size, the dynamic ones >= 1 and all equal, since llmc
    supports one symbolic dimension, the sequence length), then inserts at
    entry, for each dynamic dimension `d` of argument `i` with bound `N`:

    ```mlir
    %n = tensor.dim %arg_i, d
    cf.assert (1 <= %n <= N), "llmc: @f: dimension d of argument #i is
        outside [1, N] (the declared bound)"
    ```

    and, for the second and later dynamic dimensions, an assert that they
    equal the first ("... differs from the sequence length ..."). The
    runtime (`CompiledModel::invoke`, so `llmc run`, the C API and Python)
    checks the same conditions before calling and returns an error naming
    the value and the bound; the assert is what a direct caller of the
    compiled C interface gets (`cf.assert` lowers to a message on stderr
    and `abort`).

    Errors: a dynamic dimension without a bound, a malformed attribute, or
    different bounds are reported at the function (with the argument and
    dimension) and the pass fails.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numGuards", "guards", "Dynamic dimensions guarded at entry">,
  ];
}

def LLMSpecializeSequencePass
    : Pass<"llm-specialize-sequence", "::mlir::ModuleOp"> {
  let summary = "Add a copy of an entry for one fixed sequence length";
  let description = [{
    Adds to the module a public function `new-entry` (default:
    `<entry>_s<length>`) that is a copy of the function `entry` with its
    sequence dimension fixed to `length`: every dynamic dimension of the
    argument, result and value types becomes `length` (by the
    `llm.dim_bounds` invariant, llm/Dialect/LLM/IR/DimBounds.h, every `?` in
    the function is that one value), the `llm.dim_bounds` attributes are
    dropped, and `llm.slice` ops that kept a dynamic dimension whole get the
    new size as their limit. The original function is unchanged; both share
    the module's constants (one copy of the weights once lowered).

    A generation model uses it for its decode step (`length = 1`): the copy
    has static shapes, so it takes the static lowering (matrix-vector
    kernels) instead of the dynamic one, whose matmuls run on rows padded to
    the bound (docs/Generation.md).

    Errors (at the function or the module): no function `entry`; a function
    without a dynamic dimension; `length` outside [1, bound]; `new-entry`
    already taken; a copy that does not verify (an op whose attributes
    depend on the sequence length in a way this pass does not rewrite).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "The function to copy">,
    Option<"length", "length", "int64_t", /*default=*/"1",
           "The fixed sequence length (1 <= length <= the declared bound)">,
    Option<"newEntry", "new-entry", "std::string", /*default=*/"\"\"",
           "Name of the copy (default: <entry>_s<length>)">,
  ];
}

def LLMKeepLastLogitsPass : Pass<"llm-keep-last-logits", "::mlir::ModuleOp"> {
  let summary = "Return the logits of the last position only, computing one row";
  let description = [{
    Rewrites the function `entry`, whose result #0 is the logits of every
    position, `tensor<BxSxVxT>` (S the sequence length, usually the dynamic
    one; B and V static), to return those of the last position only,
    `tensor<BxVxT>`, and computes no more than that: an
    `llm.sequence_last {axis = 1}` selects the last position and is moved
    towards the inputs (`populateSequenceLastSinkingPatterns`) through each
    op with no other user that computes every position by itself:

    * elementwise ops (numpy broadcasting: an operand of size 1 or absent
      on the axis is used whole), `llm.cast`, `llm.compare`, `llm.select`;
    * `llm.layer_norm` and `llm.rms_norm` over axes after it;
    * `llm.matmul` (without `transpose_a`) and `llm.dequant_matmul` by a
      rank-2 `rhs` (a weight): the rows of the lhs;
    * `llm.reshape` that keeps the axis whole (`[1, S, D]` <-> `[S, D]`).

    It stops at anything else (attention mixes positions) and at values
    with other users (the residual stream feeding the last layer), where
    the `llm.sequence_last` is lowered to a view of the last row. On a
    GPT-2 or LLaMA decoder this leaves the LM head (30% of GPT-2-small's
    prefill work at 128 tokens), the final norm and the last layer's MLP on
    one row. The result is the same within float rounding: each row is
    computed by the same ops as before, only fewer of them.

    A generation prefill needs no more (the session samples from the last
    position; docs/Generation.md), so `compileForGeneration` runs this pass
    before `llm-specialize-sequence`. A function already returning
    `tensor<BxV>` is left unchanged.

    Errors (at the function or module): no function `entry`; no result; a
    result #0 that is neither `tensor<BxSxV>` nor `tensor<BxV>` with static
    B and V.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "The function whose result #0 are the logits">,
  ];
}

def LLMFormKVCachePass : Pass<"llm-form-kv-cache", "::mlir::ModuleOp"> {
  let summary = "Turn a decoder with past inputs into the cached generation form";
  let description = [{
    Rewrites the function `entry`, a decoder built for an empty past, into
    the generation entry interface of docs/Generation.md: one compiled
    function for the prefill and the decode steps, whose key/value cache is
    state written in place (`llm.kv_cache_update`) rather than inputs and
    outputs copied by the caller at every step.

    The input is what the ONNX importer makes of a "decoder with past"
    export (`past_key_values.*` inputs `[B, Hkv, P, D]`, `present.*`
    outputs `[B, Hkv, P + S, D]`, as Hugging Face / optimum write them) when
    the past length `P` is set to 0 and the sequence length `S` kept dynamic
    (`llmc generate MODEL.onnx` and `llm-translate --import-onnx
    --kv-cache` do both):

    - past inputs: the float arguments with a dimension of size 0, unused
      (the concatenation `concat(past, new)` folded away);
    - present outputs: the results that return the keys or the values of an
      `llm.attention` (or their head transpose `[0, 2, 1, 3]`); they pair
      with the past inputs in order.

    The rewrite:

    - each past input becomes a cache argument in its place, with its
      `llm.name`, the `llm.kv_cache` attribute, the layout and element type
      of the attention operand it holds, and the sequence bound
      (`llm.dim_bounds`) as its number of rows;
    - two 0-d `i64` arguments are appended, `past_length` (tokens already in
      the cache) and `total_length` (`past_length + S`);
    - each attention's keys and values go through
      `llm.kv_cache_update %cache, %new, %past_length` (along the sequence
      axis of its layout), and the attention reads the updated caches with
      `kv_length %total_length` (causal attention is aligned at the end of
      the valid prefix, so a prompt and a decode step are both correct);
    - a table read by the new positions (`llm.sequence_prefix` on one axis:
      positions, position embeddings, rotary tables) is read at rows
      `[past_length, past_length + S)`: `llm.add` of `past_length` to an
      iota table, and `llm.gather` of other tables by those positions;
    - the present outputs are dropped; the other results (the logits) stay.

    Errors (at the op or the function; the function is then left partly
    rewritten): no dynamic sequence dimension; no past input; a past input
    still read; an attention with an explicit mask (the cached form takes
    causal or unmasked attention) or already reading a cache; keys or values
    that no result returns; past inputs and present outputs that do not
    pair up; keys or values dynamic along another axis than the sequence; a
    table read along two sequence axes (a mask not recognized as causal).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "The function to rewrite">,
  ];
}

//===----------------------------------------------------------------------===//
// Tensor parallelism
//===----------------------------------------------------------------------===//

def LLMShardPass : Pass<"llm-shard", "::mlir::ModuleOp"> {
  let summary = "annotate the llm graph for N-way Megatron tensor parallelism "
                "with the shard dialect";
  let description = [{
    Plans Megatron-style tensor parallelism (Shoeybi et al. 2019,
    arXiv:1909.08053, section 3) over a 1-D `shard.grid @tp(shape = N)` and
    annotates every ranked tensor value of every function with it
    (`shard.shard` of the value, and `shard.shard ... annotate_for_users`
    for each sharding its users need), so that upstream `shard-partition`
    turns the module into the program one rank runs (the llm ops implement
    the sharding interface: ShardingInterfaceImpl.h).

    The plan:
    * a matmul of a replicated activation by a constant weight `[K, N]` is
      **column-parallel**: the weight is split by columns (N), the result by
      its last dimension;
    * a split value flows through elementwise ops (a replicated operand of
      the full size is sliced locally, one of size 1 broadcast), `gelu`,
      `cast`, a `reshape` that keeps the split on a whole dimension
      (`[B, S, H*D] -> [B, S, H, D]` splits the heads H), `transpose`,
      `softmax` and `rope` along another axis, and `attention` split by
      query heads (key/value heads split too, or replicated when there is
      one: multi-query attention; the mask is split when it has a head
      dimension), and `kv_cache_update` by heads: a cache that is a
      function argument updated in place (`llm.kv_cache`, the generation
      interface) is split with them, so the rank's program takes its heads
      of the cache;
    * when it reaches a matmul by a constant weight as the activation's
      last (contraction) dimension, that matmul is **row-parallel**: the
      weight is split by rows, and the partial products are all-reduced
      (`shard.all_reduce`, sum): one all-reduce after attention and one
      after the MLP, two per transformer layer;
    * a fused projection whose result is only sliced along its last
      dimension (GPT-2's `c_attn` into q, k, v; also through Hugging Face
      Conv1D's reshape of the rows) is first split into one matmul per
      slice, so that each is column-parallel by heads.
    * a split function result is gathered (every rank returns the whole
      tensor): a column-parallel LM head is split by vocabulary, unless the
      vocabulary does not divide by `ranks` (GPT-2's 50257), when it stays
      replicated;
    * everything else (norms, embeddings, a region whose split would reach
      an op outside these rules) stays replicated: every rank computes it.

    Dynamic dimensions are allowed except on a split dimension. Errors: a
    split dimension (query or key/value heads, the columns of a
    column-parallel weight, the MLP width) that does not divide by `ranks`,
    named with its size; `ranks` < 1; a function with more than one block;
    a module that already holds shard ops (sharded before).
    Run it before `llm-fuse` (fusion groups are not split).

    ```mlir
    // llm-opt --llm-shard="ranks=2" (abridged)
    shard.grid @tp(shape = 2)
    %s = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
    %w = shard.shard %w0 to %s annotate_for_users : tensor<64x256xf32>
    %h = llm.matmul %x, %w : (tensor<1x8x64xf32>, tensor<64x256xf32>) -> tensor<1x8x256xf32>
    ```
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", "2",
           "Number of ranks (processes) the tensor-parallel grid has">,
    Option<"gridName", "grid", "std::string", "\"tp\"",
           "Name of the shard.grid symbol to create">,
  ];
  let dependentDialects = ["::mlir::llm::LLMDialect",
                           "::mlir::shard::ShardDialect"];
}

def LLMLowerShardPass : Pass<"llm-lower-shard", "::mlir::ModuleOp"> {
  let summary = "specialize a partitioned module to one rank";
  let description = [{
    After `llm-shard` and `shard-partition`, makes the module the program of
    rank `rank` of its 1-D grid: `shard.process_linear_index` and
    `shard.process_multi_index` become that constant and
    `shard.grid_shape` the grid's size, and `shard.all_slice` (a rank's
    slice of a replicated value: the weights of column- and row-parallel
    matmuls) becomes an `llm.slice` with static bounds, which
    `llm-fold-constants` folds into a constant holding only this rank's
    slice of the weight. `shard.all_reduce` and `shard.all_gather` (of a
    split function result) are kept: llm-lower-collectives lowers them. With static slices every kernel after it is the
    single-process kernel of the local shapes, and the object holds 1/N of
    the split weights: llmc compiles one program per rank.

    Errors: `rank` outside `[0, N)`; a grid that is not 1-D; a shard op
    other than the ones above (all_gather, all_to_all, ... are not
    produced by llm-shard).
  }];
  let options = [
    Option<"rank", "rank", "int64_t", "0",
           "The rank to specialize the module for (0-based)">,
  ];
  let dependentDialects = ["::mlir::llm::LLMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // LLM_DIALECT_LLM_TRANSFORMS_PASSES_TD
