//===- LLMDialect.td - llm dialect definition --------------*- tablegen -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMDIALECT_TD
#define LLM_DIALECT_LLM_IR_LLMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Dialect/SCF/IR/DeviceMappingInterface.td"

def LLM_Dialect : Dialect {
  let name = "llm";
  let cppNamespace = "::mlir::llm";
  let summary = "Transformer graphs for LLM inference";
  let description = [{
    The `llm` dialect describes transformer inference graphs at the level that
    model exporters produce them: elementwise arithmetic with numpy
    broadcasting, matrix multiplication, normalizations, softmax, rotary
    position embeddings, scaled dot-product attention, embedding lookups and
    data movement.

    All ops work on ranked tensors with value semantics. Floating-point ops
    accept `f32`, `f16` and `bf16` element types; the arithmetic ops (`add`,
    `sub`, `mul`, `div`, `rem`, `max`, `min`, `neg`, `abs`), `cast`, `compare`,
    `select` and data movement also take `f64` and the integers `i8`, `i32`,
    `i64` (ONNX shape math and position ids on run-time tensors); index-like
    operands (token ids, positions) are `i32` or `i64`. Shapes are usually
    static; verifiers accept dynamic (`?`) dimensions where the semantics
    allow it, but the lowering to `linalg` currently requires static shapes
    and reports an error otherwise.

    Broadcasting follows numpy (and ONNX multidirectional broadcasting):
    shapes are aligned on their trailing dimensions, and each pair of
    dimensions must be equal or one of them must be 1.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::quant::QuantDialect"];
  let hasConstantMaterializer = 1;
  // Discardable `llm.*` attributes (`llm.lowering_config`, LoweringConfig.h).
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def LLM_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by llm.gelu", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::mlir::llm";
  let genSpecializedAttr = 0;
}
def LLM_GeluApproximationAttr
    : EnumAttr<LLM_Dialect, LLM_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

def LLM_RopeMode : I32EnumAttr<"RopeMode",
    "how llm.rope pairs the features it rotates", [
      I32EnumAttrCase<"RotateHalf", 0, "rotate_half">,
      I32EnumAttrCase<"Interleaved", 1, "interleaved">
    ]> {
  let cppNamespace = "::mlir::llm";
  let genSpecializedAttr = 0;
}
def LLM_RopeModeAttr : EnumAttr<LLM_Dialect, LLM_RopeMode, "rope_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def LLM_AttentionLayout : I32EnumAttr<"AttentionLayout",
    "the dimension order of llm.attention's query, key, value and result", [
      I32EnumAttrCase<"BHSD", 0, "bhsd">,
      I32EnumAttrCase<"BSHD", 1, "bshd">
    ]> {
  let cppNamespace = "::mlir::llm";
  let genSpecializedAttr = 0;
}
def LLM_AttentionLayoutAttr
    : EnumAttr<LLM_Dialect, LLM_AttentionLayout, "attention_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Loop mapping
//===----------------------------------------------------------------------===//

def LLM_BlockLoopMappingAttr
    : AttrDef<LLM_Dialect, "BlockLoopMapping",
              [DeclareAttrInterfaceMethods<DeviceMappingAttrInterface>]> {
  let mnemonic = "block_loop";
  let summary = "an `scf.forall` that is a CPU kernel's loop over its blocks";
  let description = [{
    The mapping (`mapping = [#llm.block_loop]`) of the one-dimensional
    `scf.forall` over column blocks that convert-llm-to-linalg's CPU
    kernels build themselves (the bf16, 8-bit and AMX dot products, the
    W8A8 panels, the sparse block loops). Its only effect is the one every
    mapping has: upstream's canonicalization keeps a mapped loop of one
    iteration as a loop, so that a kernel of one block (N up to 128
    columns) still gets its elementwise consumers fused into it by
    `llm-tile-and-vectorize` and counts as one kernel in the compile
    report. `llm-unmap-block-loops` drops it before the loops are lowered
    (a loop of one iteration is then inlined, not run as a parallel
    region). Not a device mapping: the GPU pipeline never sees it.
  }];
}

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

// An i64 axis that may be negative (counted from the end); its accessor
// returns int64_t (upstream I64Attr returns uint64_t).
def LLM_AxisAttr : TypedSignlessIntegerAttrBase<I64, "int64_t",
    "64-bit signless integer attribute (an axis, may be negative)"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def LLM_FloatElement : AnyTypeOf<[F32, F16, BF16]>;
def LLM_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def LLM_IndexTensor : RankedTensorOf<[I32, I64]>;
// Floats and the signed integers the reductions take.
def LLM_FloatOrIntTensor : RankedTensorOf<[F32, F16, BF16, I8, I32, I64]>;
def LLM_MaskTensor : RankedTensorOf<[F32, F16, BF16, I1]>;
def LLM_AnyTensor : RankedTensorOf<[F32, F16, BF16, F64, I1, I8, I32, I64]>;
// Element types of the arithmetic ops (llm.add, sub, mul, div, rem, min,
// neg, abs): the float types, f64 (ONNX double tensors) and the signless
// integers (two's complement, signed division).
def LLM_ArithTensor : RankedTensorOf<[F32, F16, BF16, F64, I8, I32, I64]>;

#endif // LLM_DIALECT_LLM_IR_LLMDIALECT_TD
