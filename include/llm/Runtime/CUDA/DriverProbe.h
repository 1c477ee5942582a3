//===- DriverProbe.h - Is a CUDA driver and device present? -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llm::cuda::probeDriver() answers, without linking libcuda and without any
// CUDA header, whether this machine can run CUDA code: it dlopen()s the
// driver library, calls cuInit, counts the devices and describes each (name,
// compute capability, SMs, memory). `llmc` and the C API call it before
// running a model with --target cuda, so that they start on machines with no
// driver and say why nothing can run. Library: MLIRLLMCUDAProbe (always
// built, depends only on libdl/libc and the C++ standard library).
//
// The probe leaves the driver loaded and initialized (cuInit is idempotent,
// so llmc's CUDA runtime, libllmc_cuda_runtime, later shares it).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CUDA_DRIVERPROBE_H
#define LLM_RUNTIME_CUDA_DRIVERPROBE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::llm {
namespace cuda {

/// One CUDA device as the driver reports it.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  uint64_t totalMemoryBytes = 0;

  /// The NVVM chip name of the device's compute capability, e.g. "sm_90".
  /// (Architecture-specific variants such as sm_90a also run on it.)
  std::string chip() const;
};

/// The result of probeDriver().
struct DriverInfo {
  /// Empty when a usable device was found; otherwise why not, one of
  ///   "no CUDA driver found (libcuda.so.1 could not be loaded: <dlerror>)"
  ///   "the CUDA driver libcuda.so.1 lacks <function> (too old?)"
  ///   "no CUDA device found" (cuInit returned CUDA_ERROR_NO_DEVICE, or the
  ///       driver counts no device; the CUDA error follows in parentheses)
  ///   "cuInit failed: <CUDA error name> (<CUDA error string>)"
  ///       (e.g. CUDA_ERROR_STUB_LIBRARY when the toolkit's stub was found
  ///       instead of a driver)
  ///   "<cuFunction> failed: ..." for a failing query
  ///   "LLMC_CUDA_DEVICE=<v> is not a device index" /
  ///   "LLMC_CUDA_DEVICE=<n> but the driver reports <count> device(s)".
  std::string error;
  /// The library name or path that was loaded (or tried).
  std::string library;
  /// The driver's CUDA version, 1000 * major + 10 * minor (13000 = 13.0);
  /// 0 if unknown.
  int driverVersion = 0;
  /// Every device, in ordinal order (empty on error, unless the error is
  /// about LLMC_CUDA_DEVICE).
  std::vector<DeviceInfo> devices;
  /// The device llmc's CUDA runtime will use: $LLMC_CUDA_DEVICE, default 0.
  int selectedDevice = 0;

  /// True when the driver loaded, initialized and the selected device
  /// exists.
  bool ok() const { return error.empty(); }

  /// A human-readable summary: the error, or
  ///   "CUDA driver 13.0 (libcuda.so.1), 1 device:
  ///      [0] NVIDIA H200: sm_90, 132 SMs, 139.8 GiB (selected)"
  /// (lines separated by '\n', no trailing newline).
  std::string describe() const;
};

/// Loads the CUDA driver `library` (dlopen; null means
/// $LLMC_CUDA_DRIVER_LIBRARY if set, else "libcuda.so.1", the name llmc's CUDA
/// runtime loads too), initializes it and describes its devices. Never aborts
/// and prints nothing: every failure comes back in DriverInfo::error.
/// Thread-safe; costs a cuInit on first use (tens to hundreds of milliseconds
/// with a GPU), about a millisecond without a driver.
DriverInfo probeDriver(const char *library = nullptr);

} // namespace cuda
} // namespace mlir::llm

#endif // LLM_RUNTIME_CUDA_DRIVERPROBE_H
