//===- LibraryPaths.h - Where llmc's own shared libraries are --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llmc loads some of its own libraries at run time (the CUDA runtime that
// JIT-compiled GPU models call, the sentencepiece shim). A build finds them
// in its build tree; an installed llmc (bin/llmc, lib/libLLMCAPI.so and
// lib/lib*.so from `cmake --install`) finds them beside the binary that
// holds the running code.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_LIBRARYPATHS_H
#define LLM_SUPPORT_LIBRARYPATHS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::llm {

/// The paths where llmc's library `fileName` (e.g.
/// "libllmc_cuda_runtime.so") may be, in the order to try: for the shared
/// library or executable that holds `anchor` (an address of llmc's code,
/// found by dladdr) and for the main executable (/proc/self/exe), the
/// directory `../lib` beside its own directory, then that directory itself
/// (an installed tree: bin/llmc with lib/, or lib/libLLMCAPI.so); then
/// `buildPath` (where this build put it) when not empty. Paths may not
/// exist; duplicates are dropped.
llvm::SmallVector<std::string> getLibraryCandidates(llvm::StringRef fileName,
                                                    const void *anchor,
                                                    llvm::StringRef buildPath);

/// The first of getLibraryCandidates(fileName, anchor, buildPath) that is a
/// regular file, else `buildPath` (whose load error then names it).
std::string findLibrary(llvm::StringRef fileName, const void *anchor,
                        llvm::StringRef buildPath);

} // namespace mlir::llm

#endif // LLM_SUPPORT_LIBRARYPATHS_H
