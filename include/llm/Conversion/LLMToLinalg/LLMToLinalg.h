//===- LLMToLinalg.h - llm to linalg conversion -----------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
#define LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H

namespace mlir {
class Operation;
class RewritePatternSet;
class TypeConverter;
namespace llm {

/// Populates `patterns` with the rewrites that lower every llm op to
/// linalg/tensor/arith/math on tensors (see `convert-llm-to-linalg`).
void populateLLMToLinalgConversionPatterns(RewritePatternSet &patterns);

/// Populates `patterns` with the lowering of the quantization ops
/// (`llm.quantize`, `dequantize`, `requantize`, `matmul_integer`) to linalg
/// generics on the storage types, with `quant.scast` (or `arith.bitcast` for
/// FP8) at the boundary with quantized tensors (lib/.../QuantToLinalg.cpp).
void populateQuantToLinalgConversionPatterns(RewritePatternSet &patterns);

/// Replaces every quantized element type (`!quant.uniform...`) under `root`
/// by its storage type (i8, i4, i32...) and FP8 types by i8, in function
/// signatures, block arguments and results, then removes the storage casts
/// this makes trivial. Run after the llm ops are lowered: the bits are
/// unchanged, only their type.
void eraseQuantizedTypes(Operation *root);

} // namespace llm
} // namespace mlir

#endif // LLM_CONVERSION_LLMTOLINALG_LLMTOLINALG_H
