//===- GPUTargetDescription.h - NVIDIA GPU code generation targets -*- C++ -*-//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The description of an NVIDIA GPU code generation target, beside the CPU one
// (llm/Codegen/TargetDescription.h): every choice of the GPU strategy (block
// size, shared memory budget, tensor-core shapes) is read from here, selected
// by the `chip` option of `llm-lower-to-nvvm`.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_GPU_GPUTARGETDESCRIPTION_H
#define LLM_CODEGEN_GPU_GPUTARGETDESCRIPTION_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::llm {

/// One warp-level matrix multiply-accumulate shape [m, n, k] of the tensor
/// cores, with the element types it multiplies and accumulates in (MLIR type
/// spellings: "f16", "bf16", "tf32", "f8E4M3FN", "i8"; "f32" / "i32").
struct TensorCoreShape {
  int64_t m, n, k;
  std::string operandType;
  std::string accumulatorType;
};

/// An NVIDIA GPU. Sizes are in bytes unless named otherwise; figures are
/// those of NVIDIA's CUDA C++ Programming Guide (table "Technical
/// Specifications per Compute Capability") and the product data sheets of
/// the reference part named for each chip.
struct GPUTargetDescription {
  /// Chip name as `nvvm-attach-target{chip=}` and ptxas take it: "sm_80",
  /// "sm_89" or "sm_90a".
  std::string chip = "sm_80";
  /// Compute capability times ten (80, 89, 90).
  int64_t computeCapability = 80;
  /// PTX ISA version of the kernels (nvvm-attach-target's `features`): the
  /// lowest that supports the chip and every instruction llmc emits for it
  /// ("+ptx71" for sm_80, whose minimum 7.0 lacks the sparse mma.sp
  /// m16n8k32; "+ptx78" for sm_89, "+ptx80" for sm_90a); the NVPTX backend
  /// rejects an older one for these chips.
  std::string ptxFeatures = "+ptx71";
  /// Threads of one warp (the lanes of `gpu.shuffle` / `shfl.sync`).
  int64_t warpSize = 32;
  /// Streaming multiprocessors of the reference part (A100 SXM: 108, L40S:
  /// 142, H100/H200 SXM: 132); used to size grids, not to limit them.
  int64_t smCount = 108;
  /// Most threads one block may have.
  int64_t maxThreadsPerBlock = 1024;
  /// Threads per block of the generic (elementwise and row) kernels: 256 =
  /// 8 warps, enough warps per block to hide memory latency at up to 8
  /// resident blocks per SM.
  int64_t defaultBlockSize = 256;
  /// Static shared memory one block may use without an opt-in (48 KiB on
  /// every chip here).
  int64_t staticSharedMemoryPerBlock = 48 * 1024;
  /// Shared memory one block may use with the opt-in
  /// (cudaFuncAttributeMaxDynamicSharedMemorySize): 163 KiB on sm_80, 99 KiB
  /// on sm_89, 227 KiB on sm_90.
  int64_t maxSharedMemoryPerBlock = 163 * 1024;
  /// 32-bit registers per SM (64 K on every chip here).
  int64_t registersPerSM = 64 * 1024;
  /// Peak DRAM bandwidth of the reference part in GB/s (A100 80GB SXM 2039,
  /// L40S 864, H200 SXM 4800): the roofline of the decode kernels.
  double dramBandwidthGBs = 2039;
  /// Warp-level MMA shapes (`mma.sync`) the chip has.
  SmallVector<TensorCoreShape, 4> mmaShapes;
  /// Whether the chip has warpgroup MMA and TMA (`wgmma.mma_async`,
  /// `cp.async.bulk.tensor`): sm_90a only.
  bool hasWarpgroupMMA = false;
  /// Whether FP8 (E4M3/E5M2) tensor-core MMA exists: sm_89 and sm_90a.
  bool hasFP8 = false;

  /// A100 (Ampere, compute capability 8.0).
  static GPUTargetDescription getSM80();
  /// L40S / RTX 4090 (Ada, compute capability 8.9).
  static GPUTargetDescription getSM89();
  /// H100 / H200 (Hopper, compute capability 9.0, architecture-specific
  /// features: wgmma, TMA).
  static GPUTargetDescription getSM90a();
  /// Looks a chip up by name ("sm_80", "sm_89", "sm_90a"); failure for any
  /// other name.
  static FailureOr<GPUTargetDescription> lookup(StringRef chip);
  /// The names `lookup` accepts, for diagnostics: "sm_80, sm_89 or sm_90a".
  static StringRef getKnownChips();
};

} // namespace mlir::llm

#endif // LLM_CODEGEN_GPU_GPUTARGETDESCRIPTION_H
