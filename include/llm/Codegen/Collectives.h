//===- Collectives.h - MPI ops in llmc's bufferized pipeline ----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_COLLECTIVES_H
#define LLM_CODEGEN_COLLECTIVES_H

namespace mlir {
class DialectRegistry;
namespace llm {

/// Attaches `MemoryEffectOpInterface` to `mpi.allreduce`, which upstream
/// declares without effects (so ownership-based buffer deallocation refuses
/// it): it reads `sendbuf`, writes `recvbuf`, and reads and writes the
/// `<MPI>` resource, which keeps the collectives of a program in their
/// order (every rank must issue them in the same order).
void registerMPIMemoryEffectModels(DialectRegistry &registry);

} // namespace llm
} // namespace mlir

#endif // LLM_CODEGEN_COLLECTIVES_H
