//===- LLMCReleaseABI.h - keep LLVM's NDEBUG ABI under assertions -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Force-included (-include) into every C++ source when LLMC_ENABLE_ASSERTIONS
// compiles llmc with -UNDEBUG against a release (NDEBUG) libMLIR.so.
// llvm/ADT/Statistic.h picks the class behind llvm::Statistic from NDEBUG: an
// empty NoopStatistic in the release library, a TrackingStatistic with fields
// without NDEBUG. mlir::Pass::Statistic is constructed inside libMLIR.so, so a
// pass statistic declared in llmc code (Passes.td `Statistic<...>`) had the
// release layout but was updated as a TrackingStatistic: reads of
// uninitialized memory, found by UBSan ("load of value 190 ... bool") in
// llm-tile-and-vectorize. Including Statistic.h here with NDEBUG defined
// keeps the library's layout; assert() is re-enabled right after.
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

#endif // LLMC_CMAKE_LLMCRELEASEABI_H
