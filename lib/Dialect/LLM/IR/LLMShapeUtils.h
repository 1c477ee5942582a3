//===- LLMShapeUtils.h - shape helpers of llm's verifiers -------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private helpers of the llm ops' verifiers and result-type inference
// (LLMOps.cpp, LLMDataOps.cpp), defined in LLMOps.cpp. Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_LLM_IR_LLMSHAPEUTILS_H
#define LIB_DIALECT_LLM_IR_LLMSHAPEUTILS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LLVM.h"
#include <optional>
#include <string>

namespace mlir::llm::detail {

/// Prints a shape for diagnostics: `2x3x?` (`?` for a dynamic size), `scalar`
/// for rank 0.
std::string formatShape(ArrayRef<int64_t> shape);

/// Result type of the elementwise op `'llm.<name>'` over `operands` (ranked
/// tensors): their numpy broadcast shape (broadcastShapes, left to right) with
/// element type `elemTy`, appended to `inferred`. Fails with "'llm.NAME'
/// operand shapes A and B do not broadcast" (A: the operands broadcast so far)
/// at `loc` when they do not.
LogicalResult inferBroadcastType(std::optional<Location> loc, StringRef name,
                                 ValueRange operands, Type elemTy,
                                 SmallVectorImpl<Type> &inferred);

} // namespace mlir::llm::detail

#endif // LIB_DIALECT_LLM_IR_LLMSHAPEUTILS_H
