//===- CUDADriver.h - The dlopen()ed CUDA driver and its errors -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to llmc's CUDA runtime (libllmc_cuda_runtime): the table of CUDA
// driver functions resolved from libcuda.so.1 at first use, the sticky error
// state, and the scoped context every `mgpu*` function runs its driver calls
// in. The public side is include/llm/Runtime/CUDA/CUDARuntime.h.
//
// The runtime uses only the C library (no libstdc++ at run time), so that
// its static archive links into a C program with a plain C link line.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_RUNTIME_CUDA_CUDADRIVER_H
#define LLM_LIB_RUNTIME_CUDA_CUDADRIVER_H

#include <cuda.h>

#include <cstdint>

// The driver functions the runtime needs. cuda.h maps some names to
// versioned entry points (cuMemAlloc -> cuMemAlloc_v2, ...); the table
// members and the dlsym() names both take the mapped name, which is the
// symbol a program linked against libcuda would bind to.
#define LLMC_CUDA_REQUIRED_FUNCTIONS(X)                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)

// Functions newer drivers have (CUDA 12): resolved when present, an error
// only when a call needs them.
#define LLMC_CUDA_OPTIONAL_FUNCTIONS(X)                                        \
  X(cuLaunchKernelEx)                                                          \
  X(cuTensorMapEncodeTiled)

namespace mlir::llm {
namespace cuda {
namespace detail {

/// Pointers to the driver's functions; null until the driver is loaded (and
/// for optional functions the driver lacks).
struct DriverTable {
#define LLMC_CUDA_MEMBER(fn) decltype(&::fn) fn;
  LLMC_CUDA_REQUIRED_FUNCTIONS(LLMC_CUDA_MEMBER)
  LLMC_CUDA_OPTIONAL_FUNCTIONS(LLMC_CUDA_MEMBER)
#undef LLMC_CUDA_MEMBER
};

/// The loaded driver's table. Only valid inside a ScopedContext whose ok()
/// is true.
const DriverTable &driver();

/// Records the error `code` with the message `llmc CUDA runtime: <text>`
/// (printf-style) unless one is recorded already: prints it to stderr,
/// keeps it for llmcCudaGetLastError*, and aborts when abort-on-error is
/// set. A later error only increments the count.
void recordError(int code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// Returns true if `result` is CUDA_SUCCESS; otherwise records
/// "<caller>: <call> failed: <CUDA error name> (<CUDA error string>)" (the
/// call as "<call>(<what>)" when `what` is given, e.g. a kernel's name) and
/// returns false.
bool check(CUresult result, const char *caller, const char *call,
           const char *what = nullptr);

/// Returns true if the driver lacks the optional function `fn` (recording
/// "<caller>: the CUDA driver lacks <fn> (CUDA 12 or newer needed)").
bool lacksOptional(const void *fn, const char *caller, const char *name);

/// The ordinal of the selected device (valid after initialization) and its
/// largest opt-in dynamic shared memory per block, in bytes.
int deviceOrdinal();
int maxDynamicSharedMemory();

/// The head of a ranked memref descriptor, {allocated, aligned, offset,
/// sizes[rank], strides[rank]}, as the LLVM lowering lays it out.
struct MemRefHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
};

/// The sizes of a ranked memref descriptor (rank of them; the strides
/// follow).
const int64_t *sizesOf(const void *descriptor);

/// Returns the first byte of a dense (row-major, unit innermost stride)
/// memref and its size in bytes; false (after recording an error) if the
/// memref is not dense.
bool denseMemRef(const char *caller, int64_t rank, const void *descriptor,
                 int64_t elementBytes, char *&data, uint64_t &bytes);

/// Runs a `mgpu*` function's driver calls inside the runtime's context:
/// initializes the driver on first use and pushes the primary context (popped
/// on destruction). ok() is false, and nothing must be called, when the
/// driver could not be initialized, when pushing failed, or, unless
/// `release` is set (a call that frees a handle), when an error is already
/// recorded.
class ScopedContext {
public:
  explicit ScopedContext(const char *caller, bool release = false);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
  bool ok() const { return pushed; }

private:
  const char *caller;
  bool pushed = false;
};

} // namespace detail
} // namespace cuda
} // namespace mlir::llm

/// Calls driver function `fn` with the given arguments and checks its
/// result (see detail::check); evaluates to true on success. Use inside a
/// `mgpu*` function, within a ScopedContext that is ok().
#define LLMC_CU(fn, ...)                                                       \
  ::mlir::llm::cuda::detail::check(::mlir::llm::cuda::detail::driver().fn(__VA_ARGS__),    \
                             __func__, #fn)

#endif // LLM_LIB_RUNTIME_CUDA_CUDADRIVER_H
