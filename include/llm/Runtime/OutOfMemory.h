//===- OutOfMemory.h - allocation failures in compiled code -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compiled llmc code allocates through functions that call
// `__llmc_out_of_memory(bytes)` when `malloc` returns null
// (llm-check-allocations). The runtime defines that symbol in each JIT and
// turns the failure into an error of the call that ran out of memory.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_OUTOFMEMORY_H
#define LLM_RUNTIME_OUTOFMEMORY_H

#include "llvm/Support/Error.h"

namespace mlir::llm::runtime {

/// The address of the runtime's `__llmc_out_of_memory`, to define as that
/// symbol in a JIT. On the thread inside `callCatchingOutOfMemory`, outside
/// an OpenMP parallel region, it returns to that call (longjmp); elsewhere (a
/// worker thread of a parallel loop, where the calling thread cannot be
/// reached) it prints the size to standard error and exits with status 1.
void *getOutOfMemoryHandler();

/// Calls `fn(args)` (compiled code: no C++ frames between this call and the
/// handler). Returns "out of memory: the compiled model could not allocate N
/// bytes" if an allocation failed; the buffers that call had allocated before
/// are not freed.
llvm::Error callCatchingOutOfMemory(void (*fn)(void **), void **args);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_OUTOFMEMORY_H
