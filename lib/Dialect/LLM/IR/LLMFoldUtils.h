//===- LLMFoldUtils.h - helpers shared by folders and patterns --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private helpers of the llm dialect's folders (LLMFolds.cpp) and
// canonicalization patterns (LLMCanonicalization.cpp). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_LLM_IR_LLMFOLDUTILS_H
#define LIB_DIALECT_LLM_IR_LLMFOLDUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include <optional>

namespace mlir::llm::detail {

/// Returns the value of a floating-point splat elements attribute (a constant
/// of any shape whose elements are all equal), or nullopt.
inline std::optional<llvm::APFloat> getSplatFloat(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<llvm::APFloat>();
}

/// Returns the splat value of the constant defining `value`, or nullopt.
inline std::optional<llvm::APFloat> getSplatFloat(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return getSplatFloat(attr);
}

/// True when `attr` is a floating-point splat equal to `v` (either sign of
/// zero counts as 0).
inline bool isSplatFloatValue(Attribute attr, double v) {
  std::optional<llvm::APFloat> f = getSplatFloat(attr);
  if (!f)
    return false;
  if (v == 0.0)
    return f->isZero();
  return f->isExactlyValue(v);
}

/// Same as above for the constant defining `value`.
inline bool isSplatFloatValue(Value value, double v) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return false;
  return isSplatFloatValue(attr, v);
}

} // namespace mlir::llm::detail

#endif // LIB_DIALECT_LLM_IR_LLMFOLDUTILS_H
