//===- MemoryPlan.cpp - Arena placement of live intervals
//------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The IR-independent part of `llm-plan-memory`: byte offsets for buffers with
// sizes and live intervals (offline dynamic storage allocation), the live
// bound every arena must reach, and a checker of plans.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/MemoryPlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::llm;

int64_t mlir::llm::alignTo(int64_t size, int64_t alignment) {
  return llvm::alignTo(static_cast<uint64_t>(size),
                       static_cast<uint64_t>(alignment));
}

namespace {
/// How a buffer picks its place among the gaps left by the placed buffers
/// that live at the same time.
enum class Fit { Best, First };

/// Places the buffers in `order`, each in a gap between the already placed
/// buffers that overlap it in time (the smallest gap that holds it for
/// Fit::Best, the lowest for Fit::First), else above the highest of them.
/// Sets the offsets and returns the arena size; stops early, returning a
/// size above `limit`, once the arena exceeds `limit` (the offsets are then
/// partial).
int64_t placeInOrder(MutableArrayRef<PlannedBuffer> buffers,
                     ArrayRef<unsigned> order, int64_t alignment, Fit fit,
                     int64_t limit) {
  SmallVector<unsigned> placed, conflicts;
  int64_t arenaSize = 0;
  for (unsigned i : order) {
    PlannedBuffer &buf = buffers[i];
    conflicts.clear();
    for (unsigned j : placed)
      if (buffers[j].overlapsInTime(buf))
        conflicts.push_back(j);
    llvm::sort(conflicts, [&](unsigned a, unsigned b) {
      return buffers[a].offset < buffers[b].offset;
    });
    int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (unsigned j : conflicts) {
      int64_t gap = buffers[j].offset - cursor;
      if (gap >= buf.size && gap < bestGap) {
        best = cursor;
        bestGap = gap;
        if (fit == Fit::First)
          break;
      }
      cursor = std::max(cursor, buffers[j].offset + buffers[j].size);
    }
    if (best < 0)
      best = cursor;
    buf.offset = alignTo(best, alignment);
    arenaSize = std::max(arenaSize, buf.offset + buf.size);
    if (arenaSize > limit)
      return arenaSize;
    placed.push_back(i);
  }
  return arenaSize;
}
} // namespace

int64_t mlir::llm::planArena(MutableArrayRef<PlannedBuffer> buffers,
                             int64_t alignment) {
  if (buffers.empty())
    return 0;
  int64_t n = buffers.size();
  int64_t bound = computeLiveBound(buffers);
  // The live bytes at each buffer's busiest position (the heaviest set of
  // buffers live together that it belongs to).
  SmallVector<int64_t> breadth(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<PlannedBuffer> overlapping;
    for (const PlannedBuffer &o : buffers)
      if (o.overlapsInTime(buffers[i])) {
        PlannedBuffer clipped = o;
        clipped.first = std::max(o.first, buffers[i].first);
        clipped.last = std::min(o.last, buffers[i].last);
        overlapping.push_back(clipped);
      }
    breadth[i] = computeLiveBound(ArrayRef<PlannedBuffer>(overlapping));
  }
  auto duration = [&](unsigned i) {
    return buffers[i].last - buffers[i].first + 1;
  };
  // Orders tried in turn; each is a total order (the index breaks the
  // remaining ties), so the plan is deterministic.
  using Less = std::function<bool(unsigned, unsigned)>;
  auto bySize = [&](unsigned a, unsigned b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    if (buffers[a].first != buffers[b].first)
      return buffers[a].first < buffers[b].first;
    return a < b;
  };
  SmallVector<Less> orders = {bySize,
                              [&](unsigned a, unsigned b) {
                                if (breadth[a] != breadth[b])
                                  return breadth[a] > breadth[b];
                                return bySize(a, b);
                              },
                              [&](unsigned a, unsigned b) {
                                int64_t ea = buffers[a].size * duration(a);
                                int64_t eb = buffers[b].size * duration(b);
                                if (ea != eb)
                                  return ea > eb;
                                return bySize(a, b);
                              },
                              [&](unsigned a, unsigned b) {
                                if (buffers[a].first != buffers[b].first)
                                  return buffers[a].first < buffers[b].first;
                                return bySize(a, b);
                              }};
  SmallVector<unsigned> bestOrder;
  Fit bestFit = Fit::Best;
  int64_t bestSize = std::numeric_limits<int64_t>::max();
  for (const Less &less : orders) {
    SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, n));
    llvm::sort(order, less);
    for (Fit fit : {Fit::Best, Fit::First}) {
      int64_t size = placeInOrder(buffers, order, alignment, fit, bestSize - 1);
      if (size < bestSize) {
        bestSize = size;
        bestOrder = order;
        bestFit = fit;
      }
      if (bestSize <= bound)
        break;
    }
    if (bestSize <= bound)
      break;
  }
  // Above the bound: a local search over the order, moving one buffer
  // earlier at a time and keeping every move that does not grow the arena,
  // with a budget of about 3e7 interval comparisons. The generator is seeded
  // the same way every time: the same buffers give the same plan.
  std::mt19937_64 rng(0x11ecull);
  int64_t budget = 30000000 / std::max<int64_t>(n * n, 1);
  for (int64_t step = 0; step < budget && bestSize > bound && n > 1; ++step) {
    SmallVector<unsigned> order = bestOrder;
    int64_t from = 1 + int64_t(rng() % uint64_t(n - 1));
    int64_t to = int64_t(rng() % uint64_t(from));
    unsigned moved = order[from];
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, moved);
    int64_t size = placeInOrder(buffers, order, alignment, bestFit, bestSize);
    if (size <= bestSize) {
      bestSize = size;
      bestOrder = std::move(order);
    }
  }
  return placeInOrder(buffers, bestOrder, alignment, bestFit,
                      std::numeric_limits<int64_t>::max());
}

int64_t mlir::llm::computeLiveBound(ArrayRef<PlannedBuffer> buffers) {
  // Sweep over interval end points: +size at `first`, -size after `last`.
  SmallVector<std::pair<int64_t, int64_t>> events;
  for (const PlannedBuffer &b : buffers) {
    events.push_back({b.first, b.size});
    events.push_back({b.last + 1, -b.size});
  }
  // At equal positions, releases (negative) before acquisitions.
  llvm::sort(events);
  int64_t live = 0, bound = 0;
  for (auto [pos, delta] : events) {
    live += delta;
    bound = std::max(bound, live);
  }
  return bound;
}

std::string mlir::llm::verifyArenaPlan(ArrayRef<PlannedBuffer> buffers,
                                       int64_t arenaSize, int64_t alignment) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  for (auto [i, a] : llvm::enumerate(buffers)) {
    if (a.offset < 0 || a.offset % alignment != 0 ||
        a.offset + a.size > arenaSize) {
      os << "buffer #" << i << " at offset " << a.offset << " (" << a.size
         << " bytes) is misaligned or outside the arena of " << arenaSize
         << " bytes";
      return msg;
    }
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const PlannedBuffer &b = buffers[j];
      if (a.overlapsInTime(b) && a.overlapsInSpace(b)) {
        os << "buffers #" << i << " [" << a.offset << ", " << a.offset + a.size
           << ") live over [" << a.first << ", " << a.last << "] and #" << j
           << " [" << b.offset << ", " << b.offset + b.size << ") live over ["
           << b.first << ", " << b.last << "] overlap";
        return msg;
      }
    }
  }
  return msg;
}
