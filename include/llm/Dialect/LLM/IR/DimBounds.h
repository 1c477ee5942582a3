//===- DimBounds.h - Declared bounds of dynamic dimensions ------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The `llm.dim_bounds` function argument attribute: the declared upper bound
// of each dimension of a tensor argument, for arguments with a dynamic
// (`?`) sequence dimension.
//
//   func.func @main(%x: tensor<1x?x64xf32> {llm.dim_bounds = array<i64: 1, 128,
//   64>})
//
// One entry per dimension; a static dimension's entry equals its size, a
// dynamic dimension's entry is its largest allowed value (>= 1). llmc
// supports ONE symbolic dimension, the sequence length: every dynamic
// dimension of every argument of a function stands for the same value at
// run time (checked at function entry, `llm-guard-dim-bounds`), so all of
// them must declare the same bound, and every `?` in the function's body
// equals that value (the lowering relies on it and rejects ops that would
// break it, e.g. a reshape that merges the sequence with another dimension).
// Only inside a lowering may a value carry other dynamic sizes: a matmul's
// rows [B, ?] collapsed to B * length rows, sized from the collapsed value,
// never by createEmptyTensor.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_DIMBOUNDS_H
#define LLM_DIALECT_LLM_IR_DIMBOUNDS_H

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::llm {

/// Name of the argument attribute (a DenseI64ArrayAttr).
inline constexpr llvm::StringLiteral kDimBoundsAttrName = "llm.dim_bounds";

/// The sequence dimension of a function: one argument dimension that is
/// dynamic (the first one, in argument order), and the declared bound.
struct SequenceDim {
  unsigned argIndex = 0;
  unsigned dim = 0;
  int64_t bound = 0;
};

/// Checks the `llm.dim_bounds` attributes of `func`'s arguments: every
/// dynamic dimension of a shaped argument has one (a DenseI64ArrayAttr of
/// the argument's rank, static entries equal to the sizes, dynamic entries
/// >= 1), and all dynamic dimensions declare the same bound. With
/// `emitErrors`, a violation is reported at the function's location naming
/// the argument and dimension. Returns the sequence dimension, std::nullopt
/// for a function without dynamic argument dimensions, or failure.
FailureOr<std::optional<SequenceDim>>
getSequenceDim(FunctionOpInterface func, bool emitErrors = true);

/// Every (argument index, dimension) pair of `func` that is dynamic, with
/// its declared bound (unchecked; call getSequenceDim first).
SmallVector<std::tuple<unsigned, unsigned, int64_t>>
getDynamicArgDims(FunctionOpInterface func);

/// Returns the sequence length of the function around `b`'s insertion point
/// as an index value (`tensor.dim` or `memref.dim` of the sequence argument,
/// created at the insertion point), or null when the function has no bounded
/// dynamic argument dimension.
Value getSequenceLength(OpBuilder &b, Location loc);

/// A `tensor.empty` of `shape` x `elemTy` whose dynamic dimensions are the
/// function's sequence length (getSequenceLength). Asserts that there is one
/// when `shape` is dynamic (callers check with hasSequenceDim first).
Value createEmptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elemTy);

/// Whether `type` is a ranked tensor type with a static shape or one dynamic
/// (sequence) dimension: what llm.reshape carries through, and what the
/// layout rewrites move like a static row dimension.
bool isStaticOrSequence(Type type);

/// The product of the static sizes of `shape`, dynamic (sequence) ones
/// skipped: the element count per position of a `?` shape.
int64_t getStaticProduct(ArrayRef<int64_t> shape);

/// Whether the function around `op` has a bounded sequence dimension.
bool hasSequenceDim(Operation *op);

/// The declared bound of the sequence dimension of the function around `op`
/// (the largest run-time length), or std::nullopt without one (or with
/// malformed bounds, which llm-guard-dim-bounds reports).
std::optional<int64_t> getSequenceBound(Operation *op);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_IR_DIMBOUNDS_H
