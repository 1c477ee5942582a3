//===- DriverProbe.cpp - Is a CUDA driver and device present? -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm::cuda::probeDriver() with dlopen/dlsym and its own
// declarations of the few driver functions it calls (stable C ABI since
// CUDA 3.2), so that it builds without the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CUDA/DriverProbe.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>

using namespace mlir::llm::cuda;

namespace {

// The driver's ABI, as cuda.h declares it.
using CUresult = int;
using CUdevice = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorStubLibrary = 34;
constexpr CUresult kErrorNoDevice = 100;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeMajor = 75;
constexpr int kAttrComputeMinor = 76;

struct ProbeFunctions {
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  // cuda.h maps cuDeviceTotalMem to the _v2 entry point (size_t result).
  CUresult (*cuDeviceTotalMem_v2)(size_t *, CUdevice);
};

/// "NAME (description)" for a CUDA error. The toolkit's stub library cannot
/// name its own error (CUDA_ERROR_STUB_LIBRARY), so that one is named here.
std::string describeResult(const ProbeFunctions &fns, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (fns.cuGetErrorName(result, &name) != kSuccess || !name) {
    if (result == kErrorStubLibrary)
      return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda was "
             "loaded, not a driver)";
    return "CUDA error " + std::to_string(result);
  }
  if (fns.cuGetErrorString(result, &text) != kSuccess || !text)
    return name;
  return std::string(name) + " (" + text + ")";
}

std::string failed(const ProbeFunctions &fns, const char *call,
                   CUresult result) {
  return std::string(call) + " failed: " + describeResult(fns, result);
}

} // namespace

std::string DeviceInfo::chip() const {
  return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor);
}

std::string DriverInfo::describe() const {
  if (!ok())
    return error;
  std::string text = "CUDA driver " + std::to_string(driverVersion / 1000) +
                     "." + std::to_string(driverVersion % 1000 / 10) + " (" +
                     library + "), " + std::to_string(devices.size()) +
                     (devices.size() == 1 ? " device:" : " devices:");
  for (const DeviceInfo &device : devices) {
    char memory[32];
    snprintf(memory, sizeof(memory), "%.1f GiB",
             static_cast<double>(device.totalMemoryBytes) / (1 << 30));
    text += "\n  [" + std::to_string(device.ordinal) + "] " + device.name +
            ": " + device.chip() + ", " +
            std::to_string(device.multiprocessors) + " SMs, " + memory;
    if (device.ordinal == selectedDevice)
      text += " (selected)";
  }
  return text;
}

DriverInfo mlir::llm::cuda::probeDriver(const char *library) {
  DriverInfo info;
  if (!library || !*library)
    library = getenv("LLMC_CUDA_DRIVER_LIBRARY");
  if (!library || !*library)
    library = "libcuda.so.1";
  info.library = library;

  // A path that names something other than a file: a FIFO would block
  // dlopen forever.
  struct stat st;
  if (std::strchr(library, '/') && stat(library, &st) == 0 &&
      !S_ISREG(st.st_mode)) {
    info.error =
        "no CUDA driver found (" + info.library + " is not a regular file)";
    return info;
  }
  // Never unloaded: a driver does not survive dlclose, and the runtime
  // loads the same library later.
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    info.error = "no CUDA driver found (" + info.library +
                 " could not be loaded: " + (reason ? reason : "?") + ")";
    return info;
  }
  ProbeFunctions fns;
#define LLMC_PROBE_LOAD(fn)                                                    \
  fns.fn = reinterpret_cast<decltype(fns.fn)>(dlsym(handle, #fn));             \
  if (!fns.fn) {                                                               \
    info.error =                                                               \
        "the CUDA driver " + info.library + " lacks " #fn " (too old?)";       \
    return info;                                                               \
  }
  LLMC_PROBE_LOAD(cuGetErrorName)
  LLMC_PROBE_LOAD(cuGetErrorString)
  LLMC_PROBE_LOAD(cuInit)
  LLMC_PROBE_LOAD(cuDriverGetVersion)
  LLMC_PROBE_LOAD(cuDeviceGetCount)
  LLMC_PROBE_LOAD(cuDeviceGet)
  LLMC_PROBE_LOAD(cuDeviceGetName)
  LLMC_PROBE_LOAD(cuDeviceGetAttribute)
  LLMC_PROBE_LOAD(cuDeviceTotalMem_v2)
#undef LLMC_PROBE_LOAD

  CUresult result = fns.cuInit(0);
  if (result == kErrorNoDevice) {
    info.error =
        "no CUDA device found (cuInit: " + describeResult(fns, result) + ")";
    return info;
  }
  if (result != kSuccess) {
    info.error = failed(fns, "cuInit", result);
    return info;
  }
  if ((result = fns.cuDriverGetVersion(&info.driverVersion)) != kSuccess)
    info.driverVersion = 0;
  int count = 0;
  if ((result = fns.cuDeviceGetCount(&count)) != kSuccess) {
    info.error = failed(fns, "cuDeviceGetCount", result);
    return info;
  }
  if (count <= 0) {
    info.error = "no CUDA device found";
    return info;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceInfo device;
    device.ordinal = ordinal;
    CUdevice handle = 0;
    char name[256] = {0};
    size_t memory = 0;
    if ((result = fns.cuDeviceGet(&handle, ordinal)) != kSuccess ||
        (result = fns.cuDeviceGetName(name, sizeof(name) - 1, handle)) !=
            kSuccess ||
        (result = fns.cuDeviceGetAttribute(
             &device.computeMajor, kAttrComputeMajor, handle)) != kSuccess ||
        (result = fns.cuDeviceGetAttribute(
             &device.computeMinor, kAttrComputeMinor, handle)) != kSuccess ||
        (result = fns.cuDeviceGetAttribute(&device.multiprocessors,
                                           kAttrMultiprocessorCount, handle)) !=
            kSuccess ||
        (result = fns.cuDeviceTotalMem_v2(&memory, handle)) != kSuccess) {
      info.error = failed(fns, "querying CUDA device", result);
      info.devices.clear();
      return info;
    }
    device.name = name;
    device.totalMemoryBytes = memory;
    info.devices.push_back(device);
  }

  // The device llmc's CUDA runtime will select (CUDARuntime.h).
  if (const char *value = getenv("LLMC_CUDA_DEVICE"); value && *value) {
    char *end = nullptr;
    errno = 0;
    long parsed = strtol(value, &end, 10);
    if (errno || *end || parsed < 0 || parsed > INT_MAX) {
      info.error =
          std::string("LLMC_CUDA_DEVICE=") + value + " is not a device index";
      return info;
    }
    info.selectedDevice = static_cast<int>(parsed);
    if (info.selectedDevice >= count) {
      info.error = std::string("LLMC_CUDA_DEVICE=") + value +
                   " but the driver reports " + std::to_string(count) +
                   " device(s) (counting from 0)";
      return info;
    }
  }
  return info;
}
