//===- Pipelines.h - llmc pass pipelines ------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The end-to-end pipelines, kept apart from the passes they are made of.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_PIPELINES_PIPELINES_H
#define LLM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::llm {

/// Options of `llm-lower-to-cpu`.
struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise linalg ops (producer into consumer)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize contractions for the host CPU"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outer parallel loops on all cores with OpenMP"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("CPU target description: 'host' (detected at run time), "
                     "'avx2', 'avx512' or 'generic'"),
      llvm::cl::init("host")};
};

/// Builds `llm-lower-to-cpu`: llm -> linalg -> bufferized loops -> LLVM
/// dialect. The public functions of the module keep their names; every
/// tensor result becomes a trailing memref out-parameter
/// (`buffer-results-to-out-params`) and each public function gets an
/// `llvm.emit_c_interface` wrapper, so the C ABI of
/// `func @main(tensor<...>) -> tensor<...>` is
///
///   void _mlir_ciface_main(MemRefDescriptor *arg0, ..., MemRefDescriptor *out0, ...)
///
/// where `MemRefDescriptor` is `{T *allocated, T *aligned, int64_t offset,
/// int64_t sizes[R], int64_t strides[R]}` (row-major, identity layout).
void buildLLMLowerToCPUPipeline(OpPassManager &pm,
                                const LowerToCPUOptions &options);

/// Registers every llmc pipeline with the global pass registry.
void registerLLMPipelines();

} // namespace mlir::llm

#endif // LLM_PIPELINES_PIPELINES_H
