//===- LLMOps.td - llm dialect operations ------------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMOPS_TD
#define LLM_DIALECT_LLM_IR_LLMOPS_TD

include "llm/Dialect/LLM/IR/LLMDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class LLM_Op<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic, !listconcat(traits, [Pure])>;

include "llm/Dialect/LLM/IR/LLMQuantOps.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def LLM_ConstantOp : LLM_Op<"constant", [ConstantLike, InferTypeOpAdaptor]> {
  let summary = "tensor constant (inline or `dense_resource` blob)";
  let description = [{
    Produces a tensor whose value is given by an elements attribute: either an
    inline `dense<...>` literal or a `dense_resource<name>` blob stored in the
    file's `{-# dialect_resources #-}` section, which keeps real weights out of
    the textual IR.

    Element types: f32, f16, bf16, i1, i8, i32, i64. The result type is the
    attribute's type.

    ```mlir
    %w = llm.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
    %e = llm.constant dense_resource<wte> : tensor<50x16xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class LLM_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : LLM_Op<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])> {
  let summary = "elementwise " # mnemonic # " with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise. `lhs` and `rhs` are ranked
    tensors of the same element type (f32, f16 or bf16) whose shapes are
    broadcast with numpy rules (trailing dimensions aligned; each pair equal
    or one of them 1). The result has the broadcast shape and the operands'
    element type.

    Errors: different element types; shapes that do not broadcast (the
    message names both shapes).

    ```mlir
    %r = llm.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$lhs, LLM_FloatTensor:$rhs);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

// Binary arithmetic on floats (f32, f16, bf16, f64) and signless integers
// (i8, i32, i64).
class LLM_ArithBinaryOp<string mnemonic, string formula,
                        list<Trait> traits = []>
    : LLM_BinaryOp<mnemonic, formula, traits> {
  let description = [{
    Computes `}] # formula # [{` elementwise. `lhs` and `rhs` are ranked
    tensors of the same element type whose shapes are broadcast with numpy
    rules (trailing dimensions aligned; each pair equal or one of them 1).
    The result has the broadcast shape and the operands' element type.

    Element types: f32, f16, bf16 (computed in f32 and rounded back), f64;
    i8, i32, i64 (two's complement, wrapping on overflow as ONNX and numpy
    do; `div` truncates toward zero as ONNX `Div` does; the integers are
    signed).

    Errors: different element types; shapes that do not broadcast (the
    message names both shapes).

    ```mlir
    %r = llm.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %i = llm.}] # mnemonic # [{ %p, %q : (tensor<1x8xi64>, tensor<1xi64>) -> tensor<1x8xi64>
    ```
  }];
  let arguments = (ins LLM_ArithTensor:$lhs, LLM_ArithTensor:$rhs);
  let results = (outs LLM_ArithTensor:$result);
}

def LLM_AddOp : LLM_ArithBinaryOp<"add", "lhs + rhs", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_SubOp : LLM_ArithBinaryOp<"sub", "lhs - rhs"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_MulOp : LLM_ArithBinaryOp<"mul", "lhs * rhs", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_DivOp : LLM_ArithBinaryOp<"div",
    "lhs / rhs (IEEE-754 division; integers: truncated toward zero, a "
    "division by zero gives 0 as in numpy, INT_MIN / -1 wraps to INT_MIN)"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_RemOp : LLM_ArithBinaryOp<"rem",
    "the remainder of lhs / rhs truncated toward zero, with the sign of lhs "
    "(C `fmod` for floats, ONNX `Mod` with fmod=1; integers: `arith.remsi`, "
    "a remainder by zero gives 0 as in numpy)">;
def LLM_PowOp : LLM_BinaryOp<"pow", "lhs ^ rhs (C `powf`)"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_MaxOp : LLM_BinaryOp<"max",
    "max(lhs, rhs) (NaN-propagating, like `arith.maximumf`)", [Commutative]> {
  let description = [{
    Computes `max(lhs, rhs)` elementwise with numpy broadcasting (see
    `llm.add`). Element types: f32, f16, bf16, f64 (NaN-propagating, like
    `arith.maximumf`); i8, i32, i64 (signed, `arith.maxsi`); a per-tensor or
    per-axis `!quant.uniform` type, compared by storage value (`arith.maxsi`
    or `arith.maxui` as the type is signed or not), which orders the values
    as their dequantization does since `quant` scales are positive. Both
    operands have the same element type; per-axis operands may not broadcast
    (the three types are equal).

    Errors: different element types; shapes that do not broadcast;
    broadcasting per-axis operands.

    ```mlir
    %r = llm.max %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %q = llm.max %c, %d : (tensor<8x!quant.uniform<u8:f32, 0.5:3>>,
        tensor<8x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<8x!quant.uniform<u8:f32, 0.5:3>>
    ```
  }];
  let arguments = (ins LLM_MaxTensor:$lhs, LLM_MaxTensor:$rhs);
  let results = (outs LLM_MaxTensor:$result);
  let hasVerifier = 1;
}
def LLM_MinOp : LLM_ArithBinaryOp<"min",
    "min(lhs, rhs) (NaN-propagating like `arith.minimumf`; integers signed)",
    [Commutative]>;

//===----------------------------------------------------------------------===//
// Elementwise unary ops and activations
//===----------------------------------------------------------------------===//

class LLM_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : LLM_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])> {
  let summary = "elementwise " # mnemonic;
  let description = [{
    Computes `}] # formula # [{` for each element of a ranked f32, f16 or bf16
    tensor. The result has the operand's type. f16 and bf16 are computed in
    f32 and rounded back.

    ```mlir
    %r = llm.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// Unary arithmetic on floats and signless integers (see LLM_ArithTensor).
class LLM_ArithUnaryOp<string mnemonic, string formula>
    : LLM_UnaryOp<mnemonic, formula> {
  let description = [{
    Computes `}] # formula # [{` for each element of a ranked tensor of f32,
    f16, bf16 (computed in f32 and rounded back), f64, or i8, i32, i64 (two's
    complement: the minimum integer maps to itself). The result has the
    operand's type.

    ```mlir
    %r = llm.}] # mnemonic # [{ %x : tensor<2x3xf32>
    %i = llm.}] # mnemonic # [{ %n : tensor<4xi64>
    ```
  }];
  let arguments = (ins LLM_ArithTensor:$input);
  let results = (outs LLM_ArithTensor:$result);
}

def LLM_NegOp : LLM_ArithUnaryOp<"neg", "-x"> {
  let hasFolder = 1;
}
def LLM_ExpOp : LLM_UnaryOp<"exp", "e^x">;
def LLM_LogOp : LLM_UnaryOp<"log", "ln(x) (NaN for x < 0, -inf for 0)">;
def LLM_TanhOp : LLM_UnaryOp<"tanh", "tanh(x)">;
def LLM_ErfOp : LLM_UnaryOp<"erf", "erf(x), the Gauss error function">;
def LLM_SqrtOp : LLM_UnaryOp<"sqrt", "sqrt(x) (NaN for x < 0)">;
def LLM_RsqrtOp : LLM_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def LLM_ReciprocalOp : LLM_UnaryOp<"reciprocal", "1 / x"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def LLM_SigmoidOp : LLM_UnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def LLM_ReluOp : LLM_UnaryOp<"relu", "max(x, 0)">;
def LLM_AbsOp : LLM_ArithUnaryOp<"abs", "|x|">;
def LLM_FloorOp : LLM_UnaryOp<"floor", "floor(x), the largest integer <= x">;
def LLM_CeilOp : LLM_UnaryOp<"ceil", "ceil(x), the smallest integer >= x">;
def LLM_RoundOp : LLM_UnaryOp<"round",
    "x rounded to the nearest integer, halves to even (ONNX Round, numpy.round)">;
def LLM_SinOp : LLM_UnaryOp<"sin", "sin(x), x in radians">;
def LLM_CosOp : LLM_UnaryOp<"cos", "cos(x), x in radians">;
// The inverse trigonometric functions (ONNX Acos/Asin/Atan) lower to
// `math.acos`/`asin`/`atan`, which become calls of the C library's
// acosf/asinf/atanf (correctly rounded to within 1 ulp over the whole
// domain, exact at +-1 and 0).
def LLM_AcosOp : LLM_UnaryOp<"acos",
    "acos(x) in [0, pi] (NaN for |x| > 1 and for NaN; acos(1) = 0, "
    "acos(-1) = pi)">;
def LLM_AsinOp : LLM_UnaryOp<"asin",
    "asin(x) in [-pi/2, pi/2] (NaN for |x| > 1 and for NaN; asin(+-1) = "
    "+-pi/2)">;
def LLM_AtanOp : LLM_UnaryOp<"atan",
    "atan(x) in (-pi/2, pi/2) (atan(+-inf) = +-pi/2; NaN for NaN)">;
def LLM_SiluOp : LLM_UnaryOp<"silu",
    "x * sigmoid(x) (SiLU/Swish, Elfwing et al. 2017, arXiv:1702.03118)">;

def LLM_GeluOp : LLM_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    GELU (Hendrycks & Gimpel 2016, arXiv:1606.08415), elementwise on a ranked
    f32, f16 or bf16 tensor:

    * `approximate = none` (default): `0.5 * x * (1 + erf(x / sqrt(2)))`;
    * `approximate = tanh`:
      `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`,
      as GPT-2 and ONNX `Gelu(approximate="tanh")` compute it.

    ```mlir
    %r = llm.gelu %x : tensor<4xf32>
    %t = llm.gelu %x approximate <tanh> : tensor<4xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input,
      DefaultValuedAttr<LLM_GeluApproximationAttr,
                        "::mlir::llm::GeluApproximation::None">:$approximate);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$input (`approximate` $approximate^)? attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def LLM_MatmulOp : LLM_Op<"matmul", [InferTypeOpAdaptor]> {
  let summary = "batched matrix multiplication with numpy semantics";
  let description = [{
    `result[..., m, n] = sum_k A[..., m, k] * B[..., k, n]` where `A` is `lhs`
    (or its last two dimensions swapped when `transpose_a` is set) and `B` is
    `rhs` (likewise with `transpose_b`). This is `numpy.matmul` / ONNX
    `MatMul` for operands of rank >= 2: the leading (batch) dimensions are
    broadcast with numpy rules; the result has shape
    `broadcast(batch_lhs, batch_rhs) x M x N` and the operands' element type
    (f32, f16 or bf16; accumulation is in f32 for f16/bf16).

    Errors: rank < 2; different element types; contraction sizes that differ
    (`K` of `lhs` vs `K` of `rhs`); batch dimensions that do not broadcast.

    ```mlir
    %c = llm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %d = llm.matmul %a, %w {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$lhs, LLM_FloatTensor:$rhs,
      UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Normalizations and softmax
//===----------------------------------------------------------------------===//

def LLM_SoftmaxOp : LLM_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one axis";
  let description = [{
    `result = exp(x - max(x)) / sum(exp(x - max(x)))`, the max and sum taken
    along `axis` (ONNX `Softmax`, opset 13 semantics). `axis` may be negative
    (counted from the end); it must lie in `[-rank, rank)`. Element types
    f32, f16, bf16; f16/bf16 are accumulated in f32.

    ```mlir
    %p = llm.softmax %x {axis = -1 : i64} : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input,
      DefaultValuedAttr<LLM_AxisAttr, "-1">:$axis);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def LLM_LayerNormOp : LLM_Op<"layer_norm", [AttrSizedOperandSegments,
    AllElementTypesMatch<["input", "result"]>,
    AllShapesMatch<["input", "result"]>]> {
  let summary = "layer normalization (Ba et al. 2016)";
  let description = [{
    Layer normalization (Ba, Kiros & Hinton 2016, arXiv:1607.06450; ONNX
    `LayerNormalization`, opset 17): over the dimensions `[axis, rank)`,

    `y = (x - mean(x)) / sqrt(var(x) + epsilon) * scale + bias`

    with the biased variance `mean((x - mean(x))^2)`. `scale` and `bias` are
    optional; when present they have the normalized shape `x.shape[axis:]`
    (or a shape that broadcasts to it). `axis` may be negative. `epsilon` is
    in the input's units squared (added to the variance).

    Errors: `axis` outside `[-rank, rank)`; `scale`/`bias` of the wrong
    shape or element type; `epsilon` < 0.

    ```mlir
    %y = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input,
      Optional<LLM_FloatTensor>:$scale, Optional<LLM_FloatTensor>:$bias,
      DefaultValuedAttr<LLM_AxisAttr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def LLM_RmsNormOp : LLM_Op<"rms_norm", [
    AllElementTypesMatch<["input", "result"]>,
    AllShapesMatch<["input", "result"]>]> {
  let summary = "root-mean-square normalization (Zhang & Sennrich 2019)";
  let description = [{
    RMSNorm (Zhang & Sennrich 2019, arXiv:1910.07467), as LLaMA uses it, over
    the last dimension:

    `y = x / sqrt(mean(x^2) + epsilon) * weight`

    `weight` is optional and has shape `[x.shape[-1]]`. Accumulation is in f32.

    Errors: rank 0 input; `weight` not of shape `[D]` or of another element
    type; `epsilon` < 0.

    ```mlir
    %y = llm.rms_norm %x weight %w {epsilon = 1.0e-06 : f32}
        : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input,
      Optional<LLM_FloatTensor>:$weight,
      DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Positional encoding and attention
//===----------------------------------------------------------------------===//

def LLM_RopeOp : LLM_Op<"rope", [AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding (Su et al. 2021)";
  let description = [{
    Rotary position embedding (RoFormer, Su et al. 2021, arXiv:2104.09864).
    `input` has shape `[..., D]` with `D` even (the head dimension);
    `positions` is an i32/i64 tensor whose shape broadcasts (numpy rules) to
    `input.shape[:-1]`, giving the position `p` of each row. With
    `inv_freq[i] = theta^(-2i/D)` for `i in [0, D/2)` and angle
    `a = p * inv_freq[i]`:

    * `mode = rotate_half` (default; GPT-NeoX / Hugging Face LLaMA): the pair
      is `(x[i], x[i + D/2])`;
    * `mode = interleaved` (original RoFormer / Meta LLaMA): the pair is
      `(x[2i], x[2i + 1])`;

    and each pair `(u, v)` becomes `(u cos a - v sin a, v cos a + u sin a)`.
    `theta` is the base (10000 in the paper and LLaMA 1/2). Angles are computed
    in f32.

    Partial rotary (`rotary_dims = R`, optional; GPT-NeoX/Pythia, GPT-J, Phi,
    StableLM, ChatGLM; ONNX `RotaryEmbedding`'s `rotary_embedding_dim`): only
    the first `R` of the `D` columns rotate, as if the definition above were
    applied to `x[..., :R]` with `D = R` (so `inv_freq[i] = theta^(-2i/R)`,
    rotate_half pairs `(x[i], x[i + R/2])`, interleaved pairs
    `(x[2i], x[2i + 1])`, `i in [0, R/2)`); columns `R..D-1` pass through
    unchanged. Absent, or equal to `D`, the whole head rotates. It is what
    `concat(rope(x[..., :R]), x[..., R:], axis = -1)` computes, the way
    Hugging Face writes partial rotary; the canonicalizer rewrites that
    chain into this op.

    Errors: odd `D`; `positions` that does not broadcast to
    `input.shape[:-1]`; `theta` <= 0; `rotary_dims` odd, < 2, or larger
    than `D`.

    ```mlir
    %r = llm.rope %q, %pos {theta = 10000.0 : f32}
        : (tensor<1x4x8x16xf32>, tensor<8xi64>) -> tensor<1x4x8x16xf32>
    // GPT-NeoX (Pythia): the first quarter of each 64-wide head rotates.
    %p = llm.rope %k, %pos {rotary_dims = 16}
        : (tensor<1x4x8x64xf32>, tensor<8xi64>) -> tensor<1x4x8x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input, LLM_IndexTensor:$positions,
      DefaultValuedAttr<LLM_RopeModeAttr, "::mlir::llm::RopeMode::RotateHalf">:$mode,
      DefaultValuedAttr<F32Attr, "10000.0">:$theta,
      OptionalAttr<I64Attr>:$rotary_dims);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $positions (`mode` $mode^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The number of leading columns of each row that rotate: `rotary_dims`
    /// when set, else the last dimension's size (ShapedType::kDynamic when
    /// it is dynamic).
    int64_t getRotatedDims();
    /// True when only some leading columns rotate (`rotary_dims` < D).
    bool isPartial();
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def LLM_AttentionOp : LLM_Op<"attention", [AttrSizedOperandSegments,
                                             InferTypeOpAdaptor]> {
  let summary = "scaled dot-product attention (Vaswani et al. 2017)";
  let description = [{
    Scaled dot-product attention (Vaswani et al. 2017, arXiv:1706.03762):

    `result = softmax(scale * Q K^T + mask) V`

    (with `softcap`, `scale * Q K^T` is first capped, see below)

    with shapes `query: [B, Hq, Sq, D]`, `key: [B, Hkv, Skv, D]`,
    `value: [B, Hkv, Skv, Dv]` and `result: [B, Hq, Sq, Dv]`. When
    `Hkv < Hq` this is grouped-query attention (Ainslie et al. 2023,
    arXiv:2305.13245): `Hq` must be a multiple of `Hkv`, and query head `h`
    reads key/value head `h / (Hq / Hkv)`.

    * `scale` defaults to `1 / sqrt(D)`.
    * `mask` (optional) broadcasts to `[B, Hq, Sq, Skv]`. A floating-point
      mask (same element type as `query`) is added to the scores; an `i1`
      mask keeps positions where it is true and excludes the others.
    * `excluded_score` (optional, finite f32, only with an `i1` mask): the
      positions the mask excludes are not dropped but take this score
      instead of `scale * q.k` (i.e. `softmax(where(mask, scale * Q K^T, e))`,
      as an exported graph writes `torch.where(mask, scores,
      torch.finfo(dtype).min)`). A row with a kept position is the same as
      without it as long as `e` is far below that row's largest kept score
      (their weights `exp(e - max)` underflow to 0 in f32 when
      `e < max - 104`). A row whose positions the mask all excludes gets
      equal weights over its positions that `causal` and `kv_length` leave,
      so its result is the mean of those value rows, which is what the
      graph computes; without `excluded_score` that row yields 0.
    * `softcap` (optional, finite f32 `c > 0`): the scaled scores are
      capped before the mask and `excluded_score` apply:
      `s' = c * tanh(scale * q.k / c)` (logit soft-capping, as Gemma 2
      writes it: Gemma Team 2024, arXiv:2408.00118, section 2; Hugging
      Face's `attn_logit_softcapping`), so every score lies in `(-c, c)`.
    * `causal`: query row `i` attends to key column `j` only when
      `j <= i + (Skv - Sq)` (aligned at the end, so a decode step with a
      key/value cache attends to the whole cache). Excluded positions get
      weight 0; a row with every position excluded yields 0.
    * `kv_length` (optional): a 0-d `tensor<i64>` (or `tensor<i32>`) `L`,
      the length of the valid key/value prefix, for a key/value cache of
      static capacity `Skv` of which only the first `L` rows are filled.
      Only key/value positions `j < L` take part; rows `j >= L` get weight
      0. The flash lowering visits only the `ceil(L / Tk)` key/value tiles
      that hold valid rows (bounds computed from `L` at run time); the rows
      of its last tile beyond `L` are read and weighted 0, so they must hold
      finite values (a zero-initialized cache does); the materialized
      (reference) lowering reads all `Skv` rows. With `causal` the alignment
      is at the end of the valid prefix instead of at `Skv`: query row `i`
      sits at absolute position `L - Sq + i` and attends to
      `j <= i + (L - Sq)`. `L` is a run-time value, clamped to `[0, Skv]`
      (a negative `L` counts as 0, one beyond the capacity as `Skv`); a row
      with every position excluded (e.g. `L = 0`) yields 0. Without
      `kv_length`, `L = Skv`.

    Element types f32, f16 or bf16 (all equal); softmax accumulates in f32.

    `layout` gives the dimension order of `query`, `key`, `value` and
    `result` (never of `mask`, which stays `[B, Hq, Sq, Skv]`):
    `#llm.attention_layout<bhsd>` (default) is the order above;
    `#llm.attention_layout<bshd>` swaps dimensions 1 and 2, i.e.
    `query: [B, Sq, Hq, D]`, `key: [B, Skv, Hkv, D]`, `value: [B, Skv, Hkv, Dv]`,
    `result: [B, Sq, Hq, Dv]` -- the order a `[B, S, H * D]` projection has
    once reshaped, so no head split/merge transpose is needed (the
    canonicalization `attention(transpose(q, P), transpose(k, P),
    transpose(v, P)) -> transpose(attention{bshd}(q, k, v), P)` with
    `P = [0, 2, 1, 3]` produces it). The value is the same in both layouts.

    Errors: ranks other than 4; batch or head-dimension mismatches; `Hq` not a
    multiple of `Hkv`; `Skv` differing between key and value; a mask that does
    not broadcast (all checked in the op's `layout`); a `kv_length` that is
    not a 0-d `i32` or `i64` tensor; an `excluded_score` that is not finite
    or comes without an `i1` mask; a `softcap` that is not finite and
    positive.

    ```mlir
    %o = llm.attention %q, %k, %v {causal}
        : (tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>)
        -> tensor<1x8x16x64xf32>
    // One decode step over a cache of capacity 512 holding %len rows.
    %d = llm.attention %q1, %kc, %vc kv_length %len {causal}
        : (tensor<1x8x1x64xf32>, tensor<1x2x512x64xf32>, tensor<1x2x512x64xf32>,
           tensor<i64>) -> tensor<1x8x1x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$query, LLM_FloatTensor:$key,
      LLM_FloatTensor:$value, Optional<LLM_MaskTensor>:$mask,
      Optional<LLM_IndexTensor>:$kv_length, UnitAttr:$causal, OptionalAttr<F32Attr>:$scale,
      DefaultValuedAttr<LLM_AttentionLayoutAttr,
                        "::mlir::llm::AttentionLayout::BHSD">:$layout,
      OptionalAttr<F32Attr>:$excluded_score, OptionalAttr<F32Attr>:$softcap);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? (`kv_length` $kv_length^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Embedding and data movement
//===----------------------------------------------------------------------===//

def LLM_EmbeddingOp : LLM_Op<"embedding", [InferTypeOpAdaptor]> {
  let summary = "gather rows of a table by token id";
  let description = [{
    `result[i..., :] = table[ids[i...], :]` for a table of shape `[V, D]`
    (f32, f16, bf16) and ids of any shape (i32 or i64). The result has shape
    `ids.shape + [D]`. As in ONNX `Gather`, a negative id counts from the end
    (`id + V`). An id outside `[-V, V)` is a run-time error: the compiled
    code checks the ids before the gather (convert-llm-to-linalg,
    `emitIndexRangeCheck`) and the runtime reports the op, its location and
    the id after the call (`llm.embedding at m.mlir:3:8: index 50257 is out
    of range [-50257, 50257) ...`); the gather itself clamps, so no
    out-of-bounds read happens meanwhile. `llm-fold-constants` does not
    fold an op with such a constant id.

    Errors: a table that is not rank 2, or that has no rows (`V = 0`).

    ```mlir
    %e = llm.embedding %wte, %ids : (tensor<50x16xf32>, tensor<1x8xi64>) -> tensor<1x8x16xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$table, LLM_IndexTensor:$ids);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$table `,` $ids attr-dict `:` functional-type(operands, results)";
}

def LLM_TransposeOp : LLM_Op<"transpose", [InferTypeOpAdaptor]> {
  let summary = "permute dimensions";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]` and
    `result[j0, ..., jn] = input[...]` with index `j_i` at position
    `permutation[i]` (numpy `transpose` / ONNX `Transpose`).

    Errors: `permutation` not a permutation of `[0, rank)`.

    ```mlir
    %t = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>}
        : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def LLM_ReshapeOp : LLM_Op<"reshape", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "reinterpret the shape (row-major order kept)";
  let description = [{
    Same elements in row-major order, new static shape (given by the result
    type). Errors: element counts that differ, or a dynamic shape.

    ```mlir
    %r = llm.reshape %x : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def LLM_ConcatOp : LLM_Op<"concat", [InferTypeOpAdaptor]> {
  let summary = "concatenate tensors along an axis";
  let description = [{
    Joins one or more tensors of equal rank and element type along `axis`
    (negative counts from the end); all other dimensions must be equal.

    ```mlir
    %c = llm.concat %a, %b {axis = 0 : i64}
        : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<LLM_AnyTensor>:$inputs, LLM_AxisAttr:$axis);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def LLM_SliceOp : LLM_Op<"slice", [InferTypeOpAdaptor]> {
  let summary = "static strided slice";
  let description = [{
    `result[i...] = input[starts + i * strides]` for
    `i_d in [0, ceil((limits_d - starts_d) / strides_d))`, one entry of
    `starts`, `limits` and `strides` per dimension (like `stablehlo.slice`).
    Requires `0 <= starts_d <= limits_d <= shape_d` and `strides_d >= 1`.
    A dynamic (sequence) dimension (`?`, bounded by `llm.dim_bounds`) is
    kept whole: its start must be 0 and its stride 1 (convert-llm-to-linalg
    reports others), and its limit is not read (producers write the bound
    or the length they were traced with; a slice that must cut the sequence
    at run time is not expressible with one dynamic dimension).

    ```mlir
    %s = llm.slice %x {starts = array<i64: 0, 2>, limits = array<i64: 4, 8>,
                       strides = array<i64: 1, 2>}
        : (tensor<4x8xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, DenseI64ArrayAttr:$starts,
      DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$strides);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def LLM_BroadcastToOp : LLM_Op<"broadcast_to", [
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "numpy broadcast to a larger shape";
  let description = [{
    `numpy.broadcast_to`: the input shape, aligned on trailing dimensions,
    must equal the result shape or have 1 where they differ; the result rank
    is at least the input rank.

    ```mlir
    %b = llm.broadcast_to %x : (tensor<1x4xf32>) -> tensor<3x2x4xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class LLM_ReduceOp<string mnemonic, string formula>
    : LLM_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = "reduction (" # formula # ") over axes";
  let description = [{
    Reduces `input` with }] # formula # [{ over each dimension in `axes`
    (distinct, in `[-rank, rank)`, negative counted from the end; an empty
    list reduces nothing). With `keepdims` the reduced dimensions stay with
    size 1, otherwise they are removed. f16/bf16 accumulate in f32.

    ```mlir
    %r = llm.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = true}
        : (tensor<2x8xf32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input, DenseI64ArrayAttr:$axes,
      DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def LLM_ReduceSumOp : LLM_ReduceOp<"reduce_sum", "sum"> {
  let description = [{
    Reduces `input` with the sum over each dimension in `axes` (distinct, in
    `[-rank, rank)`, negative counted from the end; an empty list reduces
    nothing). With `keepdims` the reduced dimensions stay with size 1,
    otherwise they are removed. Element types f32, f16, bf16 (accumulated
    in f64, rounded once to the element type), f64 (accumulated in f64:
    ONNX double tensors, the f64 contractions of `Einsum`) and i8, i32, i64
    (summed in the element type; an overflow wraps modulo 2^bits, as ONNX
    Runtime and numpy do: `attention_mask.sum(-1)` of an int64 mask).

    ```mlir
    %r = llm.reduce_sum %x {axes = array<i64: 1>, keepdims = true}
        : (tensor<2x8xf32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins
      RankedTensorOf<[F32, F16, BF16, F64, I8, I32, I64]>:$input,
      DenseI64ArrayAttr:$axes, DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs
      RankedTensorOf<[F32, F16, BF16, F64, I8, I32, I64]>:$result);
}
def LLM_ReduceMeanOp : LLM_ReduceOp<"reduce_mean", "arithmetic mean">;
def LLM_ReduceMaxOp : LLM_ReduceOp<"reduce_max", "maximum"> {
  let description = [{
    Reduces `input` with the maximum over each dimension in `axes` (distinct,
    in `[-rank, rank)`, negative counted from the end; an empty list reduces
    nothing). With `keepdims` the reduced dimensions stay with size 1,
    otherwise they are removed. Element types as `llm.max`: floats
    (NaN-propagating; f16/bf16 compared in f32), i8/i32/i64 (signed) and
    per-tensor or per-axis `!quant.uniform` types (by storage value, signed
    or unsigned). A per-axis input must not reduce its quantized dimension;
    the result's quantized dimension is renumbered when dimensions before it
    are removed.

    ```mlir
    %r = llm.reduce_max %x {axes = array<i64: 1>, keepdims = true}
        : (tensor<2x8xf32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins LLM_OrderedTensor:$input, DenseI64ArrayAttr:$axes,
      DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs LLM_OrderedTensor:$result);
  let hasVerifier = 1;
}

def LLM_CastOp : LLM_Op<"cast", [SameOperandsAndResultShape]> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the result's element type, as ONNX `Cast`:
    float to float rounds to nearest even; float to integer truncates toward
    zero (out-of-range values are undefined in ONNX; llmc saturates); integer
    to float rounds to nearest; to `i1` compares with zero.

    ```mlir
    %h = llm.cast %x : (tensor<4xf32>) -> tensor<4xf16>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Runtime data: comparisons, logical ops, select, gather, reverse,
// log-softmax, arg-reductions
//===----------------------------------------------------------------------===//

def LLM_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "comparison computed by llm.compare", [
      I32EnumAttrCase<"EQ", 0, "eq">,
      I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">,
      I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">,
      I32EnumAttrCase<"GE", 5, "ge">
    ]> {
  let cppNamespace = "::mlir::llm";
}

def LLM_BoolTensor : RankedTensorOf<[I1]>;

def LLM_CompareOp : LLM_Op<"compare", [InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with numpy broadcasting";
  let description = [{
    `result = lhs <predicate> rhs` elementwise, an `i1` tensor (ONNX `Equal`,
    `Less`, `LessOrEqual`, `Greater`, `GreaterOrEqual`; numpy `==`, `<`, ...).
    `lhs` and `rhs` have the same element type, any of f32, f16, bf16, i1, i8,
    i32, i64; integers compare as signed. Float comparisons are IEEE-754
    ordered (any comparison with NaN is false) except `ne`, which is true
    when either operand is NaN (as in numpy). Shapes broadcast with numpy
    rules; the result has the broadcast shape.

    Predicates: `eq`, `ne`, `lt`, `le`, `gt`, `ge`.

    Errors: different element types; shapes that do not broadcast.

    ```mlir
    %m = llm.compare lt, %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins LLM_ComparePredicate:$predicate,
      LLM_AnyTensor:$lhs, LLM_AnyTensor:$rhs);
  let results = (outs LLM_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:`
    functional-type(operands, results)
  }];
}

class LLM_LogicalBinaryOp<string mnemonic, string formula>
    : LLM_Op<mnemonic, [InferTypeOpAdaptor, Commutative]> {
  let summary = "elementwise logical " # formula # " of i1 tensors";
  let description = [{
    `result = lhs }] # formula # [{ rhs` elementwise on `i1` tensors whose
    shapes broadcast with numpy rules (ONNX `And`/`Or`/`Xor`). The result is an
    `i1` tensor of the broadcast shape.

    Errors: shapes that do not broadcast.

    ```mlir
    %r = llm.}] # mnemonic # [{ %a, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins LLM_BoolTensor:$lhs, LLM_BoolTensor:$rhs);
  let results = (outs LLM_BoolTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def LLM_LogicalAndOp : LLM_LogicalBinaryOp<"logical_and", "and">;
def LLM_LogicalOrOp : LLM_LogicalBinaryOp<"logical_or", "or">;
def LLM_LogicalXorOp : LLM_LogicalBinaryOp<"logical_xor", "xor">;

def LLM_LogicalNotOp : LLM_Op<"logical_not", [SameOperandsAndResultType]> {
  let summary = "elementwise logical not of an i1 tensor";
  let description = [{
    `result = !input` elementwise on an `i1` tensor (ONNX `Not`). The result
    has the input's type. `logical_not(logical_not(x))` folds to `x`.

    ```mlir
    %r = llm.logical_not %m : tensor<2x3xi1>
    ```
  }];
  let arguments = (ins LLM_BoolTensor:$input);
  let results = (outs LLM_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def LLM_SelectOp : LLM_Op<"select", [InferTypeOpAdaptor]> {
  let summary = "elementwise choice between two tensors (where)";
  let description = [{
    `result = condition ? true_value : false_value` elementwise (ONNX
    `Where`, `numpy.where`). `condition` is an `i1` tensor; `true_value` and
    `false_value` have the same element type (any llm element type). The
    three shapes broadcast together with numpy rules; the result has the
    broadcast shape and the values' element type.

    Folds: a splat constant condition selects one operand when that operand
    already has the result type; `select(c, x, x)` folds to `x` likewise.

    Errors: value element types that differ; shapes that do not broadcast.

    ```mlir
    %r = llm.select %c, %x, %y
        : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins LLM_BoolTensor:$condition, LLM_AnyTensor:$true_value,
      LLM_AnyTensor:$false_value);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def LLM_GatherOp : LLM_Op<"gather", [InferTypeOpAdaptor]> {
  let summary = "gather slices along an axis by runtime indices";
  let description = [{
    ONNX `Gather` / `numpy.take(input, indices, axis)`: for `input` of rank
    `r` and `indices` of shape `I`, the result has shape
    `input.shape[:axis] + I + input.shape[axis+1:]` and

    `result[a..., i..., b...] = input[a..., wrap(indices[i...]), b...]`

    where `wrap(k) = k + input.shape[axis]` for a negative `k` (ONNX counts
    negative indices from the end). An index outside
    `[-input.shape[axis], input.shape[axis])` is a run-time error, as in
    ONNX Runtime: checked as for `llm.embedding` (the error names the op,
    its location and the index; the gather itself clamps, so no
    out-of-bounds read happens). `input` may have
    any llm element type; `indices` are i32 or i64. `axis` may be negative.

    Errors: `axis` outside `[-r, r)`; a rank-0 input; an empty gathered
    dimension (`input.shape[axis] = 0`).

    ```mlir
    %g = llm.gather %x, %idx {axis = 1 : i64}
        : (tensor<3x5x2xf32>, tensor<4xi64>) -> tensor<3x4x2xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_IndexTensor:$indices,
      DefaultValuedAttr<LLM_AxisAttr, "0">:$axis);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def LLM_GatherElementsOp : LLM_Op<"gather_elements", [InferTypeOpAdaptor]> {
  let summary = "gather single elements along an axis by runtime indices";
  let description = [{
    ONNX `GatherElements` / `numpy.take_along_axis(input, indices, axis)` /
    `torch.gather`: `input` and `indices` have the same rank `r`; the result
    has the shape of `indices` and

    `result[i...] = input[i_0, .., i_(axis-1), wrap(indices[i...]), i_(axis+1), ..]`

    for every index tuple `i` of the result, `wrap(k) = k + input.shape[axis]` for
    a negative `k`. An index outside `[-input.shape[axis],
    input.shape[axis])` is a run-time error, checked as for `llm.gather`.
    `input` may have any llm element type; `indices` are i32 or i64; `axis`
    may be negative.

    Errors: ranks that differ; a rank-0 input; `axis` outside `[-r, r)`; an
    empty gathered dimension; a dimension `d != axis` of `indices` larger
    than that of `input`.

    ```mlir
    %g = llm.gather_elements %x, %idx {axis = 1 : i64}
        : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, LLM_IndexTensor:$indices,
      DefaultValuedAttr<LLM_AxisAttr, "0">:$axis);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def LLM_ReverseOp : LLM_Op<"reverse", [SameOperandsAndResultType]> {
  let summary = "reverse the order of elements along dimensions";
  let description = [{
    `result[..., i_d, ...] = input[..., n_d - 1 - i_d, ...]` for each `d` in
    `dimensions` (like `stablehlo.reverse`, `numpy.flip`); other dimensions
    are unchanged. The importer uses it for ONNX `Slice` with negative steps.
    An empty `dimensions` list, or only dimensions of size 1, folds to the
    input.

    Errors: a dimension outside `[0, rank)` or repeated.

    ```mlir
    %r = llm.reverse %x {dimensions = array<i64: 1>} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins LLM_AnyTensor:$input, DenseI64ArrayAttr:$dimensions);
  let results = (outs LLM_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def LLM_LogSoftmaxOp : LLM_Op<"log_softmax", [SameOperandsAndResultType]> {
  let summary = "log of softmax along one axis (numerically stable)";
  let description = [{
    `result = x - max(x) - log(sum(exp(x - max(x))))`, the max and sum taken
    along `axis` (ONNX `LogSoftmax`, opset 13 semantics; equal to
    `log(softmax(x))` without its underflow to `-inf`). `axis` may be
    negative; it must lie in `[-rank, rank)`. Element types f32, f16, bf16;
    computed in f32.

    ```mlir
    %l = llm.log_softmax %x {axis = -1 : i64} : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input,
      DefaultValuedAttr<LLM_AxisAttr, "-1">:$axis);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class LLM_ArgReduceOp<string mnemonic, string what>
    : LLM_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = "index of the " # what # " along an axis";
  let description = [{
    The index (i64) of the }] # what # [{ element along `axis` (ONNX
    `ArgMax`/`ArgMin`, opset 13). Among equal values the first index is
    returned, or the last with `select_last_index`. NaN elements are ignored
    unless every element of a row is NaN (then the result is 0). With
    `keepdims` (default) the reduced dimension stays with size 1, otherwise
    it is removed. Input element types f32, f16, bf16 and i8, i32, i64
    (signed order; e.g. the first padding position of a sequence,
    `(input_ids == pad).int().argmax(-1)`).

    Errors: `axis` outside `[-rank, rank)`; a rank-0 input; an empty reduced
    dimension.

    ```mlir
    %i = llm.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = false}
        : (tensor<2x8xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins LLM_FloatOrIntTensor:$input,
      DefaultValuedAttr<LLM_AxisAttr, "0">:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$keepdims,
      UnitAttr:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def LLM_ArgMaxOp : LLM_ArgReduceOp<"argmax", "largest">;
def LLM_ArgMinOp : LLM_ArgReduceOp<"argmin", "smallest">;

// reduce_min / reduce_prod: the float reductions, and integers in their
// own type.
class LLM_IntReduceOp<string mnemonic, string formula, string intRule>
    : LLM_ReduceOp<mnemonic, formula> {
  let description = [{
    Reduces `input` with the }] # formula # [{ over each dimension in `axes`
    (distinct, in `[-rank, rank)`, negative counted from the end; an empty
    list reduces nothing). With `keepdims` the reduced dimensions stay with
    size 1, otherwise they are removed. Element types f32, f16, bf16
    (computed in f32, rounded once to the element type) and i8, i32, i64
    (}] # intRule # [{).

    ```mlir
    %r = llm.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = true}
        : (tensor<2x8xi64>) -> tensor<2x1xi64>
    ```
  }];
  let arguments = (ins LLM_FloatOrIntTensor:$input, DenseI64ArrayAttr:$axes,
      DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs LLM_FloatOrIntTensor:$result);
}
def LLM_ReduceMinOp
    : LLM_IntReduceOp<"reduce_min", "minimum", "signed order">;
def LLM_ReduceProdOp
    : LLM_IntReduceOp<"reduce_prod", "product",
                      "in the element type, wrapping modulo 2^bits">;

include "llm/Dialect/LLM/IR/LLMIndexingOps.td"
include "llm/Dialect/LLM/IR/LLMCacheOps.td"
include "llm/Dialect/LLM/IR/LLMFusionOps.td"

#endif // LLM_DIALECT_LLM_IR_LLMOPS_TD
