//===- PassOptions.h - Checks of pass option values -------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Checks of the numeric options of llmc's passes, so that a value outside an
// option's range is an error at the op the pass runs on rather than silently
// taken as another setting (a negative limit meant "no limit").
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_PASSOPTIONS_H
#define LLM_SUPPORT_PASSOPTIONS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir::llm {

/// Fails, with the error `<pass>: <option> must be at least 0, got <value>`
/// at `op`'s location (not on `op`, which a tool may print whole with the
/// error), when `value` is negative; succeeds otherwise.
inline LogicalResult checkNonNegativeOption(Operation *op, StringRef pass,
                                            StringRef option, int64_t value) {
  if (value >= 0)
    return success();
  return emitError(op->getLoc())
         << pass << ": " << option << " must be at least 0, got " << value;
}

} // namespace mlir::llm

#endif // LLM_SUPPORT_PASSOPTIONS_H
