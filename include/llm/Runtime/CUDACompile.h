//===- CUDACompile.h - Compiling llm modules for NVIDIA GPUs ----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The driver side of `llmc compile --target cuda`: runs `llm-lower-to-nvvm`
// on a module and reads the kernel objects (PTX, cubin, fatbin) of the
// result.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CUDACOMPILE_H
#define LLM_RUNTIME_CUDACOMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::llm::runtime {

/// Options of a CUDA compile.
struct CUDACompileOptions {
  /// Further `llm-lower-to-nvvm` options in pass-option syntax (e.g.
  /// "block-size=128"); `chip`, `toolkit` and `opt-level` are set from the
  /// fields below, and `format` too unless given here (`format=bin` there
  /// makes a binary output carry cubins only, without the PTX a one-chip
  /// fatbin also holds; it is an error with `format` isa).
  std::string pipelineOptions;
  /// Chips (sm_80, sm_89, sm_90a); empty: sm_80.
  SmallVector<std::string> chips;
  /// `isa` (PTX), `bin` (one cubin per chip) or `fatbin` (one fatbin
  /// holding a cubin per chip, made with the toolkit's `fatbinary`).
  std::string format = "fatbin";
  /// CUDA toolkit root; empty: the build's (LLMC_CUDA_TOOLKIT_DIR) when
  /// it was found, else MLIR's lookup ($PATH, $CUDA_ROOT, $CUDA_HOME,
  /// $CUDA_PATH).
  std::string toolkit;
  /// NVPTX backend and ptxas optimization level, 0-3.
  unsigned optLevel = 3;
  /// Graph optimizations, fusion and the memory plan off.
  bool noOpt = false;
  /// Verify the IR after every pass.
  bool verifyEach = false;
};

/// The CUDA toolkit root llmc was built with ("" when none was found).
StringRef getDefaultCUDAToolkit();

/// Lowers `module` with `llm-lower-to-nvvm`: on success it holds the host
/// code in the LLVM dialect and one `gpu.binary @llm_kernels` with one
/// object per chip (`bin`/`isa`), or a single fatbin object holding every
/// chip (`fatbin`). Errors (bad options, unsupported ops, a missing
/// ptxas/fatbinary) are emitted on the module and give failure.
LogicalResult lowerToNVVM(ModuleOp module, const CUDACompileOptions &options);

/// One kernel object of a lowered module.
struct KernelObject {
  /// The chip ("sm_80"), or "fatbin" for a multi-chip fatbin.
  std::string chip;
  /// "isa", "bin" or "fatbin".
  std::string format;
  std::string bytes;
};

/// The kernel objects of a module lowered by `lowerToNVVM`, in chip order;
/// an error on the module when it holds no `gpu.binary`.
FailureOr<SmallVector<KernelObject>> getKernelObjects(ModuleOp module);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CUDACOMPILE_H
