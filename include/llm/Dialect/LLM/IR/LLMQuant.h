//===- LLMQuant.h - quantization parameters of llm ops ----------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A normalized view of upstream `quant` uniform types (per tensor, per axis,
// sub-channel) used by the quantization ops' verifiers, lowering and rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMQUANT_H
#define LLM_DIALECT_LLM_IR_LLMQUANT_H

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::llm {

/// The parameters of a uniform quantized element type applied to a tensor of
/// a given shape, as one block-wise description: `paramShape` has the
/// tensor's rank; element `i...` of the tensor uses the scale and zero point
/// at `(i_d / (shape_d / paramShape_d))...` of the row-major `scales` and
/// `zeroPoints`. Per tensor: `paramShape` is all ones; per axis `a`:
/// `paramShape[a] = shape[a]`, ones elsewhere; sub-channel: the scales'
/// shape.
struct QuantParams {
  SmallVector<int64_t> paramShape;
  SmallVector<double> scales;
  SmallVector<int64_t> zeroPoints;
  /// Storage range (inclusive), signedness and width in bits.
  int64_t storageMin = 0, storageMax = 0;
  bool isSigned = true;
  unsigned storageWidth = 8;
  Type storageType, expressedType;

  bool isPerTensor() const { return scales.size() == 1; }
};

/// True for the uniform quantized types llm ops accept (per tensor, per axis,
/// sub-channel).
bool isUniformQuantType(Type elementType);

/// Returns the parameters of `elementType` (a uniform quantized type) applied
/// to a tensor of static or dynamic `shape`, or emits an error (through
/// `emitError`, when given) and fails when the type does not fit the shape:
/// a per-axis dimension outside the rank or whose size differs from the
/// number of scales, sub-channel scales of another rank or whose sizes do
/// not divide the shape, or a zero point outside the storage type's range
/// (e.g. 300 for i8, which `!quant.uniform` itself accepts).
FailureOr<QuantParams>
getQuantParams(Type elementType, ArrayRef<int64_t> shape,
               function_ref<InFlightDiagnostic()> emitError = nullptr);

/// The storage values of a constant quantized weight `w` (a `quant.scast`
/// of an inline dense integer constant or of a resource blob with one
/// element per byte), one byte per element in storage order; fails for
/// anything else and when there are not `count` elements.
FailureOr<SmallVector<uint8_t>> readStorageBytes(Value w, int64_t count);

/// The element type of a reduction's result over `input`'s element type
/// when the dimensions flagged in `reduced` are reduced (kept as size 1 with
/// `keepdims`): the input's element type, except that a per-axis quantized
/// type has its quantized dimension renumbered. Fails (with `emitError`'s
/// diagnostic) when a per-axis type's quantized dimension is reduced.
FailureOr<Type>
reducedElementType(Type elementType, ArrayRef<bool> reduced, bool keepdims,
                   function_ref<InFlightDiagnostic()> emitError = nullptr);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_IR_LLMQUANT_H
