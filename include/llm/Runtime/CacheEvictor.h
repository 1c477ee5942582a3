//===- CacheEvictor.h - Evicting the CPU caches between timed runs -*- C++
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A buffer whose reading, one load per 64-byte line, leaves the caches (up to
// its size) holding its lines rather than whatever a timed call touched
// before: the next call then streams its weights from memory, as a decode
// step of a model larger than the last-level cache does. Used by `llmc run
// --evict-cache` and by the tuner's cold timing (llm/Runtime/Tuning.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CACHEEVICTOR_H
#define LLM_RUNTIME_CACHEEVICTOR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace mlir::llm::runtime {

class CacheEvictor {
public:
  /// The x86 (and most AArch64) cache line, in bytes.
  static constexpr size_t kLine = 64;

  /// Allocates `bytes` (not touched yet). Errors, prefixed with `prefix`:
  /// "cannot allocate N MiB (B bytes)" when the allocation fails or asks
  /// for more than the free physical memory (touching it would then push
  /// other memory out, or wake the OOM killer, instead of failing here).
  static llvm::Expected<CacheEvictor> create(uint64_t bytes,
                                             const llvm::Twine &prefix = "");
  CacheEvictor(CacheEvictor &&o);
  CacheEvictor(const CacheEvictor &) = delete;
  CacheEvictor &operator=(const CacheEvictor &) = delete;
  ~CacheEvictor();

  /// Writes every line once, so its pages exist before the first evict().
  void touch();
  /// Reads one byte of every line into a volatile sink.
  void evict();

private:
  CacheEvictor(unsigned char *data, size_t bytes) : data(data), bytes(bytes) {}
  unsigned char *data;
  size_t bytes;
};

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CACHEEVICTOR_H
