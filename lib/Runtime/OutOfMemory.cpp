//===- OutOfMemory.cpp - allocation failures in compiled code -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/OutOfMemory.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mlir::llm::runtime;

namespace {
/// Where the handler returns to on this thread (null outside a call).
struct OutOfMemoryJump {
  std::jmp_buf buffer;
  int64_t bytes = 0;
};
thread_local OutOfMemoryJump *activeJump = nullptr;

/// Whether this thread runs inside an active OpenMP parallel region (the
/// compiled code's parallel loops), where a longjmp would leave the other
/// threads of the team waiting at its barrier.
bool inParallelRegion() {
  using InParallelFn = int (*)();
  static InParallelFn inParallel = reinterpret_cast<InParallelFn>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("omp_in_parallel"));
  return inParallel && inParallel() != 0;
}

extern "C" void llmcOutOfMemory(int64_t bytes) {
  if (activeJump && !inParallelRegion()) {
    activeJump->bytes = bytes;
    std::longjmp(activeJump->buffer, 1);
  }
  std::fprintf(stderr,
               "llmc: out of memory: the compiled model could not allocate "
               "%lld bytes inside a parallel loop\n",
               static_cast<long long>(bytes));
  std::exit(1);
}
} // namespace

void *mlir::llm::runtime::getOutOfMemoryHandler() {
  return reinterpret_cast<void *>(&llmcOutOfMemory);
}

llvm::Error mlir::llm::runtime::callCatchingOutOfMemory(void (*fn)(void **),
                                                        void **args) {
  OutOfMemoryJump jump;
  OutOfMemoryJump *outer = activeJump;
  activeJump = &jump;
  if (setjmp(jump.buffer) != 0) {
    activeJump = outer;
    return llvm::createStringError(
        llvm::formatv("out of memory: the compiled model could not allocate "
                      "{0} bytes (the outputs of this call are not valid)",
                      jump.bytes)
            .str());
  }
  fn(args);
  activeJump = outer;
  return llvm::Error::success();
}
