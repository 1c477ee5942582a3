//===- SliceColumns.h - Columns an llm.slice takes --------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one question the rope rewrites (the canonicalizer's partial rotary,
// llm-fuse's rope merging, llm-recompose's rotate_half) ask of an llm.slice:
// which last-dimension columns of every row does it take.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_SLICECOLUMNS_H
#define LLM_DIALECT_LLM_IR_SLICECOLUMNS_H

#include <cstdint>
#include <optional>
#include <utility>

namespace mlir::llm {

class SliceOp;

/// The last-dimension columns [lo, hi) that `slice` takes of every row of
/// its input: unit strides, and every other dimension whole (a dynamic one,
/// the sequence, counts as whole when it starts at 0: llm.slice then takes
/// it to its run-time end). std::nullopt otherwise, and when the last
/// dimension is dynamic.
std::optional<std::pair<int64_t, int64_t>> getSlicedColumns(SliceOp slice);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_IR_SLICECOLUMNS_H
