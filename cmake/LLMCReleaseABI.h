//===- LLMCReleaseABI.h - keep LLVM's NDEBUG ABI under assertions -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Force-included (-include) into every C++ source of llmc when it is built
// differently from the release libMLIR.so/libLLVM.so it links against: with
// assertions (LLMC_ENABLE_ASSERTIONS) or with AddressSanitizer
// (LLMC_ENABLE_SANITIZERS, LLMC_ENABLE_FUZZERS). Header-inline LLVM code is
// then compiled twice, once into the library and once into llmc, and both
// copies must agree on object layout and on shadow-memory state.
//
// 1. NDEBUG. llvm/ADT/Statistic.h picks the class behind llvm::Statistic from
//    NDEBUG: an empty NoopStatistic in the release library, a
//    TrackingStatistic with fields without NDEBUG. mlir::Pass::Statistic is
//    constructed inside libMLIR.so, so a pass statistic declared in llmc code
//    (Passes.td `Statistic<...>`) had the release layout but was updated as a
//    TrackingStatistic: reads of uninitialized memory, found by UBSan ("load
//    of value 190 ... bool") in llm-tile-and-vectorize. Including Statistic.h
//    here with NDEBUG defined keeps the library's layout; assert() is
//    re-enabled right after.
//
// 2. ASan annotations. llvm/Support/Compiler.h sets
//    LLVM_ADDRESS_SANITIZER_BUILD under -fsanitize=address, and then
//    BumpPtrAllocator, Recycler and ArrayRecycler (all header-inline)
//    poison every fresh slab and unpoison each object they hand out. The
//    uninstrumented libMLIR.so has its own copies of the same templates in
//    which those calls are no-ops. An allocator shared by both (MLIRContext's
//    attribute/type storage allocators, the operation name and
//    DistinctAttr allocators) gets a slab poisoned by llmc's inline
//    StartNewSlab, then hands out objects from it through libMLIR's
//    Allocate, which never unpoisons them: llmc's instrumented code reading
//    those objects reports a false use-after-poison. The annotations are only
//    meaningful when the whole program is instrumented, so they are turned
//    off here; ASan still checks every access of llmc's code against
//    malloc'd, stack and global memory.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_CMAKE_LLMCRELEASEABI_H
#define LLMC_CMAKE_LLMCRELEASEABI_H

#ifndef NDEBUG
#define NDEBUG
#include "llvm/ADT/Statistic.h"
#undef NDEBUG
#include <assert.h> // Redefines assert() for the sources that follow.
#endif

#include "llvm/Support/Compiler.h"
#if LLVM_ADDRESS_SANITIZER_BUILD
#undef LLVM_ADDRESS_SANITIZER_BUILD
#define LLVM_ADDRESS_SANITIZER_BUILD 0
// Compiler.h has declared the real functions; these macros shadow them in
// every later LLVM header (its include guard keeps it from being re-read).
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif

#endif // LLMC_CMAKE_LLMCRELEASEABI_H
