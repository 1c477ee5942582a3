//===- LLMQuantOps.td - llm quantization operations --------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Quantization ops of the llm dialect. Quantized tensors use upstream MLIR's
// `quant` dialect element types: `!quant.uniform<i8:f32, s:z>` (per tensor),
// `!quant.uniform<i8:f32:a, {s0:z0, s1:z1, ...}>` (per axis `a`) and
// `!quant.uniform<i4:f32:{1:32}, {{...}}>` (sub-channel / blockwise). Included
// from LLMOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMQUANTOPS_TD
#define LLM_DIALECT_LLM_IR_LLMQUANTOPS_TD

def LLM_UniformQuantElement : Type<
    CPred<"::llvm::isa<::mlir::quant::UniformQuantizedType, "
          "::mlir::quant::UniformQuantizedPerAxisType, "
          "::mlir::quant::UniformQuantizedSubChannelType>($_self)">,
    "uniform quantized type (per tensor, per axis or sub-channel)">;
def LLM_QuantTensor : RankedTensorOf<[LLM_UniformQuantElement]>;
def LLM_OrderedQuantElement : Type<
    CPred<"::llvm::isa<::mlir::quant::UniformQuantizedType, "
          "::mlir::quant::UniformQuantizedPerAxisType>($_self)">,
    "per-tensor or per-axis uniform quantized type">;
// Element types `llm.max` and `llm.reduce_max` order: floats, signless
// integers (signed order) and quantized values (ordered by their storage
// value, signed or unsigned as the type says: with a positive scale the same
// order as the dequantized values).
def LLM_OrderedTensor
    : RankedTensorOf<[F32, F16, BF16, I8, I32, I64, LLM_OrderedQuantElement]>;
// llm.max: the ordered types and f64.
def LLM_MaxTensor
    : RankedTensorOf<[F32, F16, BF16, F64, I8, I32, I64,
                      LLM_OrderedQuantElement]>;
def LLM_Float8Element : AnyTypeOf<[F8E4M3FN, F8E5M2]>;
def LLM_QuantizedOrFloat8Tensor
    : RankedTensorOf<[LLM_UniformQuantElement, F8E4M3FN, F8E5M2]>;

def LLM_QuantizeOp : LLM_Op<"quantize", [SameOperandsAndResultShape]> {
  let summary = "quantize a float tensor (ONNX QuantizeLinear)";
  let description = [{
    Quantizes each element with the parameters of the result's element type,
    following ONNX `QuantizeLinear` (opset 13/19/21 definitions):

    `q = saturate(round_half_to_even(x / scale) + zero_point)`

    where `saturate` clamps to the storage range of the quantized type
    (`[-128, 127]` for i8, `[0, 255]` for u8, `[-8, 7]` for i4, `[0, 15]` for
    u4, or the narrower range written in the type, e.g. `i8<-127:127>`). The
    division and rounding are in f32 (`x / scale` is a correctly rounded f32
    division, as numpy's `np.rint(x / scale)` on f32 arrays). NaN inputs give
    the storage minimum (ONNX leaves this undefined).

    Quantization parameters come from the result type:
    * `!quant.uniform<i8:f32, s:z>`: one scale and zero point;
    * `!quant.uniform<i8:f32:a, {s0:z0, ...}>`: per axis `a` (ONNX `axis`
      attribute); the number of scales must equal the size of dimension `a`;
    * `!quant.uniform<i4:f32:{1:32}, {{...}}>`: sub-channel (blockwise,
      ONNX 21 `block_size`, GPTQ/AWQ groups): the scales tensor has the
      input's rank and each dimension of the input must be its scales'
      dimension times the block size.

    FP8: with an `f8E4M3FN` or `f8E5M2` result element type, `scale`
    (f32, per tensor, required) gives `q = saturate(x / scale)` rounded to the
    nearest even FP8 value, saturating to +-448 (E4M3FN) or +-57344 (E5M2) as
    ONNX `QuantizeLinear` with `saturate = 1` (opset 19); NaN stays NaN.

    The input element type must be the quantized type's expressed type (f32,
    f16 or bf16; f16/bf16 are computed in f32).

    Errors: an expressed type that differs from the input's element type; a
    per-axis dimension outside the rank or whose size differs from the number
    of scales; sub-channel scales whose rank differs or whose sizes do not
    divide the input's; storage wider than 8 bits (quantize produces i8, u8,
    i4, u4; i32 storage only comes from integer matmuls); an FP8 result
    without `scale`, a non-positive scale, or `scale` given with a quantized
    result type.

    ```mlir
    %q = llm.quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0625:-3>>
    %w = llm.quantize %x : (tensor<2x4xf32>)
        -> tensor<2x4x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
    %f = llm.quantize %x {scale = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$input, OptionalAttr<F32Attr>:$scale);
  let results = (outs LLM_QuantizedOrFloat8Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_DequantizeOp : LLM_Op<"dequantize", [SameOperandsAndResultShape]> {
  let summary = "dequantize to a float tensor (ONNX DequantizeLinear)";
  let description = [{
    `x = (q - zero_point) * scale` per element, with the parameters of the
    input's quantized element type (per tensor, per axis or sub-channel; see
    `llm.quantize`), following ONNX `DequantizeLinear`: the subtraction is
    exact (in i32) and the product is rounded once to f32, then to the result
    element type (the quantized type's expressed type: f32, f16 or bf16).
    Storage types i8, u8, i4, u4 and i32 (an integer matmul's accumulator).

    FP8: an `f8E4M3FN`/`f8E5M2` input with `scale` (f32, required) gives
    `x = float(q) * scale`.

    Errors: a result element type that differs from the expressed type;
    per-axis or sub-channel parameters that do not fit the shape (as for
    `llm.quantize`); an FP8 input without `scale`.

    ```mlir
    %x = llm.dequantize %q : (tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins LLM_QuantizedOrFloat8Tensor:$input,
      OptionalAttr<F32Attr>:$scale);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_RequantizeOp : LLM_Op<"requantize", [SameOperandsAndResultShape]> {
  let summary = "change quantization parameters";
  let description = [{
    `llm.quantize(llm.dequantize(q))` in one op: with the input parameters
    `(s_in, z_in)` and the result's `(s_out, z_out)`,

    `r = saturate(round_half_to_even(((q - z_in) * s_in) / s_out) + z_out)`

    computed in f32 as the two ops would (the dequantized value is rounded to
    f32 once). The input may be any uniform quantized type; with i32 storage
    (the accumulator of `llm.matmul_integer` viewed with scale `s_a * s_b`,
    which is how ONNX `QLinearMatMul` rescales) and per-tensor parameters on
    both sides, the rescale is `round_half_to_even((q - z_in) * m) + z_out`
    with the f32 multiplier `m = f32(s_in) / f32(s_out)` applied in f64, as
    the ONNX reference implementation of `QLinearMatMul` computes it. The
    result follows `llm.quantize`'s rules. Expressed types must be equal.

    ```mlir
    %r = llm.requantize %q : (tensor<4x!quant.uniform<i32:f32, 0.01>>)
        -> tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
    ```
  }];
  let arguments = (ins LLM_QuantTensor:$input);
  let results = (outs LLM_QuantTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_MatmulIntegerOp : LLM_Op<"matmul_integer", [InferTypeOpAdaptor]> {
  let summary = "integer matrix multiplication with zero points (ONNX MatMulInteger)";
  let description = [{
    `result[..., m, n] = sum_k (A[..., m, k] - za) * (B[..., k, n] - zb)`
    accumulated exactly in i32, as ONNX `MatMulInteger` (opset 10). `lhs`
    and `rhs` are tensors of uniform quantized types with 8-bit or 4-bit
    storage (signed or unsigned); their zero points are `za` and `zb`
    (per tensor; `rhs` may also be quantized per axis along its last
    dimension, one zero point per column `n`). Scales are not used: the
    result is the i32 accumulator, to be viewed as
    `!quant.uniform<i32:f32, s_a * s_b>` (with `quant.scast`) and requantized
    or dequantized, as ONNX `QLinearMatMul` does.

    Shapes follow `numpy.matmul` for rank >= 2 (batch dimensions broadcast).

    Errors: rank < 2; contraction sizes that differ; batch dimensions that
    do not broadcast; `lhs` not per tensor; `rhs` per axis on another
    dimension than the last; sub-channel operands; storage wider than 8 bits.

    ```mlir
    %acc = llm.matmul_integer %a, %b
        : (tensor<4x3x!quant.uniform<u8:f32, 1.0:12>>,
           tensor<3x2x!quant.uniform<u8:f32, 1.0:0>>) -> tensor<4x2xi32>
    ```
  }];
  let arguments = (ins LLM_QuantTensor:$lhs, LLM_QuantTensor:$rhs);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def LLM_DequantMatmulOp : LLM_Op<"dequant_matmul", [InferTypeOpAdaptor]> {
  let summary = "matmul with a quantized weight dequantized in the operand load";
  let description = [{
    `result[..., m, n] = sum_k lhs[..., m, k] * dequantize(rhs)[k, n]`
    (with `transpose_b`, `rhs` is `[N, K]`), i.e. `llm.matmul(lhs,
    llm.dequantize(rhs))`, for weight-only quantization (W8A16, W4A16 as
    GPTQ/AWQ store them). The dequantization `(q - z) * s` (see
    `llm.dequantize`) happens inside the matmul's operand load, so no
    dequantized copy of the whole weight is ever materialized; accumulation
    is in f32. On the CPU, up to 4 rows of x with a weight stored `[N, K]`
    (decode) take a vectorized matvec kernel that converts each weight chunk
    in registers; more rows (prefill) and `[K, N]` weights take dequantized
    panels: one `[256, 128]` f32 tile of the weight at a time, dequantized
    into the L2 cache and shared by every row of x (docs/Quantization.md).

    `lhs` is f32 of rank >= 2 (leading dimensions are batch rows); `rhs` is
    rank 2 with a uniform quantized element type whose expressed type is
    f32: per tensor, per axis along `N` (per output channel), or sub-channel
    with blocks along `K` (groups of 32, 64, 128... per output channel).
    Zero points are optional (0 for symmetric checkpoints).

    FP8: `rhs` may instead be an `f8E4M3FN` or `f8E5M2` tensor with a
    per-tensor f32 `scale` (required then): `dequantize(rhs)[k, n] =
    float(rhs[k, n]) * scale` (as `llm.dequantize`), the FP8 -> f32
    conversion happening in the operand load. An FP8 activation
    (`dequantize(a) {scale}` as `lhs`) is an elementwise producer that the
    linalg elementwise fusion puts into the same contraction, so neither
    operand is materialized in f32.

    Errors: `lhs` not f32 or of rank < 2; `rhs` not rank 2; contraction sizes
    that differ; per-axis along `K`; sub-channel blocks along `N` larger than
    1; an expressed type other than f32; an FP8 `rhs` without `scale`, a
    non-positive `scale`, or `scale` with a quantized `rhs`.

    ```mlir
    %y = llm.dequant_matmul %x, %w {transpose_b}
        : (tensor<1x4096xf32>, tensor<4096x4096x!quant.uniform<i4:f32:{1:128}, {...}>>)
        -> tensor<1x4096xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$lhs, LLM_QuantizedOrFloat8Tensor:$rhs,
      UnitAttr:$transpose_b, OptionalAttr<F32Attr>:$scale);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // LLM_DIALECT_LLM_IR_LLMQUANTOPS_TD
