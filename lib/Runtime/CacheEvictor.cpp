//===- CacheEvictor.cpp - Evicting the CPU caches between timed runs ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CacheEvictor.h"

#include <cstdlib>
#include <utility>

#include <unistd.h>

using namespace mlir::llm::runtime;

/// Where evict() sums what it reads, so the loads are not optimized away.
static volatile unsigned evictSink = 0;

llvm::Expected<CacheEvictor> CacheEvictor::create(uint64_t bytes,
                                                  const llvm::Twine &prefix) {
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError(prefix + "cannot allocate " +
                                   llvm::Twine(bytes >> 20) + " MiB (" +
                                   llvm::Twine(bytes) + " bytes)" + why);
  };
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (bytes && pages > 0 && page > 0 &&
      bytes / static_cast<uint64_t>(page) > static_cast<uint64_t>(pages))
    return error(": more than the " +
                 llvm::Twine((static_cast<uint64_t>(pages) *
                              static_cast<uint64_t>(page)) >>
                             20) +
                 " MiB of free memory");
  // aligned_alloc wants a multiple of the alignment.
  size_t size = (bytes + kLine - 1) / kLine * kLine;
  void *p = size ? std::aligned_alloc(kLine, size) : nullptr;
  if (size && !p)
    return error("");
  return CacheEvictor(static_cast<unsigned char *>(p), size);
}

CacheEvictor::CacheEvictor(CacheEvictor &&o)
    : data(std::exchange(o.data, nullptr)), bytes(o.bytes) {}

CacheEvictor::~CacheEvictor() { std::free(data); }

void CacheEvictor::touch() {
  for (size_t i = 0; i < bytes; i += kLine)
    data[i] = static_cast<unsigned char>(i / kLine);
}

void CacheEvictor::evict() {
  unsigned sum = 0;
  for (size_t i = 0; i < bytes; i += kLine)
    sum += data[i];
  evictSink = evictSink + sum;
}
