//===- LLMOps.h - llm dialect operations ------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LLMOPS_H
#define LLM_DIALECT_LLM_IR_LLMOPS_H

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/DeviceMappingInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llm/Dialect/LLM/IR/LLMOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "llm/Dialect/LLM/IR/LLMOpsAttributes.h.inc"

#define GET_OP_CLASSES
#include "llm/Dialect/LLM/IR/LLMOps.h.inc"

namespace mlir::llm {

/// The unit argument attribute that marks an entry's key/value cache
/// (docs/Generation.md): a preallocated state buffer that the function
/// updates in place (`llm.kv_cache_update`) and that the caller keeps
/// between calls. `llm-mark-argument-writability` makes it the only
/// argument bufferization may write.
inline constexpr llvm::StringLiteral kKVCacheAttrName = "llm.kv_cache";

/// Numpy broadcast of two shapes (trailing dimensions aligned; each pair equal
/// or one of them 1; a dynamic size broadcast with 1 stays dynamic). Returns
/// failure when the shapes are incompatible.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// Populates `patterns` with `op(op(x, c1), c2) -> op(x, c1 op c2)` for
/// `llm.add` and `llm.mul` with splat constants. Reassociation is not
/// IEEE-exact (overflow, cancellation), so these are not canonicalizations;
/// `llm-fold-constants{fast-math}` applies them.
void populateConstantReassociationPatterns(RewritePatternSet &patterns);

/// Returns `axis` normalized into [0, rank), or failure when it lies outside
/// [-rank, rank).
FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_IR_LLMOPS_H
