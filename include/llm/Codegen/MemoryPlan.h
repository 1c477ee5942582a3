//===- MemoryPlan.h - Static arena planning ---------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The placement algorithm of `llm-plan-memory`, independent of the IR: given
// buffers with sizes and live intervals, assign byte offsets in one arena so
// that buffers live at the same time never overlap.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_MEMORYPLAN_H
#define LLM_CODEGEN_MEMORYPLAN_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::llm {

/// One buffer to place: `size` bytes (> 0), live over the closed interval
/// [`first`, `last`] of program positions (first <= last).
struct PlannedBuffer {
  int64_t size = 0;
  int64_t first = 0;
  int64_t last = 0;
  /// Assigned byte offset (output of planArena).
  int64_t offset = -1;

  bool overlapsInTime(const PlannedBuffer &o) const {
    return first <= o.last && o.first <= last;
  }
  bool overlapsInSpace(const PlannedBuffer &o) const {
    return offset < o.offset + o.size && o.offset < offset + size;
  }
};

/// Rounds `size` up to a multiple of `alignment` (a power of two).
int64_t alignTo(int64_t size, int64_t alignment);

/// Offline placement (dynamic storage allocation; NP-hard in general):
/// greedy placements, each putting the buffers one at a time in the best-
/// or first-fitting gap between the already placed buffers that overlap it
/// in time (else above the highest of them), in four orders: decreasing
/// size (TFLite's ArenaPlanner / SimpleMemoryArena, IREE's slice packing),
/// decreasing breadth (the live bytes at the buffer's busiest position),
/// decreasing size x duration, and increasing start. The first plan at the
/// live bound (computeLiveBound, which no plan can beat) is taken; if none
/// reaches it, a deterministic local search moves one buffer earlier in the
/// best order at a time, keeping moves that do not grow the arena, within a
/// budget of about 3e7 interval comparisons. Sizes must already be
/// multiples of `alignment` (bytes, a power of two); offsets come out as
/// multiples of it. Sets every `offset` and returns the arena size in bytes
/// (0 for no buffers).
int64_t planArena(MutableArrayRef<PlannedBuffer> buffers, int64_t alignment);

/// The largest total size of the buffers live at one position: a lower bound
/// of every valid arena size.
int64_t computeLiveBound(ArrayRef<PlannedBuffer> buffers);

/// Checks a plan: buffers that overlap in time must be disjoint in space,
/// offsets aligned and non-negative, every buffer inside [0, arenaSize).
/// Returns an empty string when valid, else a description of the first
/// violation.
std::string verifyArenaPlan(ArrayRef<PlannedBuffer> buffers, int64_t arenaSize,
                            int64_t alignment);

} // namespace mlir::llm

#endif // LLM_CODEGEN_MEMORYPLAN_H
