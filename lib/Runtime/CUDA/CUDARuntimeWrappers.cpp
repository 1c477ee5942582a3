//===- CUDARuntimeWrappers.cpp - The mgpu* functions over the driver API --===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `mgpu*` functions that host code lowered by MLIR
// 22 (`gpu-to-llvm`, then `mlir-translate --mlir-to-llvmir`) calls, over the
// CUDA driver API. The signatures are those MLIR 22.1.8 emits (LLVM IR on the
// left, see ../shared/gpu/nvvm-probe.md Q5), which match upstream's
// mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp except where noted:
//
//   ptr  mgpuModuleLoad(ptr, i64)           fatbin/cubin, from a global ctor
//   ptr  mgpuModuleLoadJIT(ptr, i32)        PTX (format=isa), JIT at load
//   void mgpuModuleUnload(ptr)
//   ptr  mgpuModuleGetFunction(ptr, ptr)
//   void mgpuLaunchKernel(ptr, i64 x6, i32, ptr, ptr, ptr, i64)
//   void mgpuLaunchClusterKernel(ptr, i64 x9, i32, ptr, ptr, ptr)
//   ptr  mgpuStreamCreate()   void mgpuStreamDestroy/Synchronize(ptr)
//   void mgpuStreamWaitEvent(ptr, ptr)
//   ptr  mgpuEventCreate()    void mgpuEventDestroy/Synchronize(ptr)
//   void mgpuEventRecord(ptr, ptr)
//   ptr  mgpuMemAlloc(i64, ptr, i8)         i8: host_shared (managed memory)
//   void mgpuMemFree(ptr, ptr)
//   void mgpuMemcpy(ptr, ptr, i64, ptr)
//   void mgpuMemset32(ptr, i32, i64, ptr)   void mgpuMemset16(ptr, i16, ...)
//   void mgpuMemHostRegisterMemRef(i64, ptr, i64)   (+ Unregister)
//   ptr  mgpuTensorMapEncodeTiledMemref(i64, ptr, i64 x5, ptr)
//
// plus mgpuSetDefaultDevice (CUDADriver.cpp), mgpuMemHostRegister and
// mgpuMemHostUnregister, which upstream also defines.
//
// Every function runs its driver calls inside a detail::ScopedContext (the
// selected device's primary context, pushed and popped) and reports a
// failure through the sticky error of CUDARuntime.h: it prints one line,
// records the error, and returns a null handle; while an error is recorded
// the functions that create or use device state do nothing.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

using namespace mlir::llm::cuda::detail;

namespace {

//===----------------------------------------------------------------------===//
// Device memory cache
//===----------------------------------------------------------------------===//
//
// The lowered host code allocates its buffers (the memory plan's arena, the
// `_host` entry's copies of the inputs and results) at each call and frees
// them at its end; cuMemAlloc and cuMemFree cost tens of microseconds and
// cuMemFree waits for the whole device. Freed buffers are therefore kept,
// idle, and handed out again for a request of the same size (a compiled
// model asks for the same sizes at every call), as PyTorch's caching
// allocator does. A buffer becomes idle only after the work queued on its
// stream finished (mgpuMemFree synchronizes first), so reuse needs no event.
// Bounded: at most kMaxBlocks live and idle blocks each and kMaxIdleBytes
// idle; an allocation that fails for lack of memory releases the idle
// blocks and tries again; llmcCudaReleaseCachedMemory releases them on
// request; LLMC_CUDA_MEMORY_CACHE=0 turns the cache off. Plain C storage
// and a pthread mutex: the library needs no C++ runtime.

struct Block {
  CUdeviceptr pointer;
  uint64_t bytes;
};

constexpr int kMaxBlocks = 1024;
constexpr uint64_t kMaxIdleBytes = uint64_t(8) << 30;

struct MemoryCache {
  pthread_mutex_t mutex;
  Block live[kMaxBlocks];
  int numLive;
  Block idle[kMaxBlocks];
  int numIdle;
  uint64_t idleBytes;
  int enabled; // -1: not read from the environment yet
};

MemoryCache cache = {PTHREAD_MUTEX_INITIALIZER, {}, 0, {}, 0, 0, -1};

/// Locks the cache for the scope.
class CacheLock {
public:
  CacheLock() { pthread_mutex_lock(&cache.mutex); }
  ~CacheLock() { pthread_mutex_unlock(&cache.mutex); }
  CacheLock(const CacheLock &) = delete;
  CacheLock &operator=(const CacheLock &) = delete;
};

bool cacheEnabled() {
  if (cache.enabled < 0) {
    const char *value = getenv("LLMC_CUDA_MEMORY_CACHE");
    cache.enabled = !(value && strcmp(value, "0") == 0);
  }
  return cache.enabled;
}

/// Hands out an idle block of exactly `bytes` (it becomes live).
bool takeIdleBlock(uint64_t bytes, CUdeviceptr &pointer) {
  CacheLock lock;
  if (!cacheEnabled() || cache.numLive == kMaxBlocks)
    return false;
  for (int i = 0; i < cache.numIdle; ++i) {
    if (cache.idle[i].bytes != bytes)
      continue;
    pointer = cache.idle[i].pointer;
    cache.idleBytes -= bytes;
    cache.idle[i] = cache.idle[--cache.numIdle];
    cache.live[cache.numLive++] = {pointer, bytes};
    return true;
  }
  return false;
}

/// Whether `pointer` is an idle block (freed already).
bool isIdleBlock(CUdeviceptr pointer) {
  CacheLock lock;
  for (int i = 0; i < cache.numIdle; ++i)
    if (cache.idle[i].pointer == pointer)
      return true;
  return false;
}

/// Records a new block (untracked, and freed for good, when the table is
/// full).
void addLiveBlock(CUdeviceptr pointer, uint64_t bytes) {
  CacheLock lock;
  if (cacheEnabled() && cache.numLive < kMaxBlocks)
    cache.live[cache.numLive++] = {pointer, bytes};
}

/// Keeps the live block `pointer` as idle (its work is done: the caller
/// waited for it); false when it is no live block (managed memory, or
/// untracked) or there is no room: then the caller frees it.
bool keepIdleBlock(CUdeviceptr pointer) {
  CacheLock lock;
  for (int i = 0; i < cache.numLive; ++i) {
    if (cache.live[i].pointer != pointer)
      continue;
    Block block = cache.live[i];
    cache.live[i] = cache.live[--cache.numLive];
    if (cache.numIdle == kMaxBlocks ||
        cache.idleBytes + block.bytes > kMaxIdleBytes)
      return false;
    cache.idle[cache.numIdle++] = block;
    cache.idleBytes += block.bytes;
    return true;
  }
  return false;
}

/// Returns the idle blocks to the driver (errors reported for `caller`);
/// how many there were. Call inside a ScopedContext.
int releaseIdleBlocks(const char *caller) {
  Block blocks[kMaxBlocks];
  int released;
  {
    CacheLock lock;
    released = cache.numIdle;
    for (int i = 0; i < released; ++i)
      blocks[i] = cache.idle[i];
    cache.numIdle = 0;
    cache.idleBytes = 0;
  }
  // Outside the lock: cuMemFree waits for the device.
  for (int i = 0; i < released; ++i)
    check(driver().cuMemFree(blocks[i].pointer), caller, "cuMemFree");
  return released;
}

//===----------------------------------------------------------------------===//
// Stream and event pools
//===----------------------------------------------------------------------===//
//
// The lowered host code (gpu-async-region, then the GPU-to-LLVM lowering)
// creates a stream for each run of asynchronous GPU work in a function and
// destroys it once it waited for that work, and an event for each
// dependency between two such streams: several cuStreamCreate /
// cuStreamDestroy pairs per call of a model, each a driver call of several
// microseconds. A destroyed stream (or event) is therefore kept and handed
// out by the next create. Reuse is safe: work queued on a reused stream
// waits behind whatever the previous user queued (stream order only adds
// dependencies), and an event's next record replaces its state
// (cuStreamWaitEvent reads it when called). One pool of each for the
// process, as there is one context (the device's primary context). Bounded;
// a handle beyond the bound is destroyed.

constexpr int kMaxPooled = 64;

struct HandlePool {
  pthread_mutex_t mutex;
  void *idle[kMaxPooled];
  int numIdle;
};

HandlePool streamPool = {PTHREAD_MUTEX_INITIALIZER, {}, 0};
HandlePool eventPool = {PTHREAD_MUTEX_INITIALIZER, {}, 0};

/// An idle handle of `pool`, or null.
void *takeFromPool(HandlePool &pool) {
  pthread_mutex_lock(&pool.mutex);
  void *handle = pool.numIdle ? pool.idle[--pool.numIdle] : nullptr;
  pthread_mutex_unlock(&pool.mutex);
  return handle;
}

/// Keeps `handle` idle in `pool`; false when the pool is full (the caller
/// destroys it).
bool returnToPool(HandlePool &pool, void *handle) {
  pthread_mutex_lock(&pool.mutex);
  bool kept = pool.numIdle < kMaxPooled;
  if (kept)
    pool.idle[pool.numIdle++] = handle;
  pthread_mutex_unlock(&pool.mutex);
  return kept;
}

/// Checks launch dimensions (3 grid, then 3 block or cluster dimensions,
/// `inner` naming the latter); false (after recording an error) if one is
/// out of range. Sets `empty` when a grid dimension is 0 (nothing to launch).
bool launchDims(const char *caller, const intptr_t (&dims)[6], bool &empty,
                const char *inner = "block") {
  empty = false;
  for (int i = 0; i < 6; ++i) {
    if (dims[i] < 0 || static_cast<uint64_t>(dims[i]) > UINT_MAX ||
        (i >= 3 && dims[i] == 0)) {
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: invalid %s dimension %lld", caller,
                  i < 3 ? "grid" : inner, static_cast<long long>(dims[i]));
      return false;
    }
    empty |= dims[i] == 0;
  }
  return true;
}

/// Allows `function` `smem` bytes of dynamic shared memory (needed above
/// 48 KiB); false after recording an error if the device has fewer.
bool setDynamicSharedMemory(const char *caller, CUfunction function,
                            int32_t smem) {
  if (smem <= 0)
    return true;
  if (smem > maxDynamicSharedMemory()) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: the kernel needs %d bytes of dynamic shared memory, "
                "device %d allows at most %d",
                caller, smem, deviceOrdinal(), maxDynamicSharedMemory());
    return false;
  }
  return LLMC_CU(cuFuncSetAttribute, function,
                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
}

} // namespace

const int64_t *mlir::llm::cuda::detail::sizesOf(const void *descriptor) {
  return reinterpret_cast<const int64_t *>(
      static_cast<const MemRefHeader *>(descriptor) + 1);
}

/// Returns the first byte of a dense (row-major, unit innermost stride)
/// memref and its size in bytes; false (after recording an error) if the
/// memref is not dense.
bool mlir::llm::cuda::detail::denseMemRef(const char *caller, int64_t rank,
                                          const void *descriptor,
                                          int64_t elementBytes, char *&data,
                                          uint64_t &bytes) {
  if (!descriptor || rank < 0) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: no memref descriptor (rank %lld)", caller,
                static_cast<long long>(rank));
    return false;
  }
  const int64_t *sizes = sizesOf(descriptor), *strides = sizes + rank;
  int64_t expected = 1;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    if (sizes[dim] < 0) {
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: the memref has a negative size (%lld in dimension "
                  "%lld)",
                  caller, static_cast<long long>(sizes[dim]),
                  static_cast<long long>(dim));
      return false;
    }
    if (sizes[dim] != 1 && strides[dim] != expected) {
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: the memref is not dense (dimension %lld has stride "
                  "%lld, expected %lld)",
                  caller, static_cast<long long>(dim),
                  static_cast<long long>(strides[dim]),
                  static_cast<long long>(expected));
      return false;
    }
    // (The byte count, below, must fit in 63 bits too.)
    if (__builtin_mul_overflow(expected, sizes[dim], &expected) ||
        expected > INT64_MAX / elementBytes) {
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: the memref's size in bytes overflows", caller);
      return false;
    }
  }
  auto *header = static_cast<const MemRefHeader *>(descriptor);
  data = header->aligned + header->offset * elementBytes;
  bytes = static_cast<uint64_t>(expected) * elementBytes;
  return true;
}

// Every mgpu* function is exported (the library is built with hidden
// visibility by default).
#pragma GCC visibility push(default)
extern "C" {

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

/// Loads a cubin or fatbin image (`size` bytes, unused: the image carries its
/// size). Returns null on error.
CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context(__func__);
  CUmodule module = nullptr;
  if (!context.ok())
    return module;
  CUresult result = driver().cuModuleLoadData(&module, data);
  // The module's globals (a model's weights) need device memory that idle
  // cached buffers may hold.
  if (result == CUDA_ERROR_OUT_OF_MEMORY && releaseIdleBlocks(__func__) > 0)
    result = driver().cuModuleLoadData(&module, data);
  check(result, __func__, "cuModuleLoadData");
  return module;
}

/// Loads a NUL-terminated PTX image, JIT-compiling it at `optLevel` (0-4).
/// MLIR 22.1.8 passes two arguments (upstream's later third one, the
/// assembly size, is not used). On a JIT failure the message includes the
/// JIT's error log. Returns null on error.
CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext context(__func__);
  CUmodule module = nullptr;
  if (!context.ok())
    return nullptr;
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result =
      driver().cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS && log[0])
    recordError(result, "%s: cuModuleLoadDataEx failed: JIT log: %s", __func__,
                log);
  else
    check(result, __func__, "cuModuleLoadDataEx");
  return result == CUDA_SUCCESS ? module : nullptr;
}

/// Unloads a module (from the lowered code's global destructor); does
/// nothing for a null module.
void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (context.ok())
    LLMC_CU(cuModuleUnload, module);
}

/// Returns the kernel `name` of `module`, or null on error.
CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  ScopedContext context(__func__);
  CUfunction function = nullptr;
  if (context.ok())
    check(driver().cuModuleGetFunction(&function, module, name), __func__,
          "cuModuleGetFunction", name);
  return function;
}

/// Launches `function` on `stream` with `params` (an array of pointers to the
/// arguments; `paramsCount`, passed by MLIR 22, is their number and unused).
/// `smem` bytes of dynamic shared memory are allowed first when non-zero. A
/// grid with a zero dimension launches nothing.
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ScopedContext context(__func__);
  bool empty;
  if (!context.ok() ||
      !launchDims(__func__, {gridX, gridY, gridZ, blockX, blockY, blockZ},
                  empty) ||
      empty || !setDynamicSharedMemory(__func__, function, smem))
    return;
  LLMC_CU(cuLaunchKernel, function, gridX, gridY, gridZ, blockX, blockY, blockZ,
          smem, stream, params, extra);
}

/// Launches `function` with thread-block clusters of clusterX*Y*Z blocks
/// (sm_90+, cuLaunchKernelEx). MLIR 22.1.8 passes no parameter count.
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra) {
  ScopedContext context(__func__);
  bool empty, emptyCluster;
  if (!context.ok() ||
      lacksOptional(reinterpret_cast<const void *>(driver().cuLaunchKernelEx),
                    __func__, "cuLaunchKernelEx") ||
      !launchDims(__func__, {gridX, gridY, gridZ, blockX, blockY, blockZ},
                  empty) ||
      !launchDims(__func__, {1, 1, 1, clusterX, clusterY, clusterZ},
                  emptyCluster, "cluster") ||
      empty || !setDynamicSharedMemory(__func__, function, smem))
    return;
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(clusterX);
  attribute.value.clusterDim.y = static_cast<unsigned>(clusterY);
  attribute.value.clusterDim.z = static_cast<unsigned>(clusterZ);
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(gridX);
  config.gridDimY = static_cast<unsigned>(gridY);
  config.gridDimZ = static_cast<unsigned>(gridZ);
  config.blockDimX = static_cast<unsigned>(blockX);
  config.blockDimY = static_cast<unsigned>(blockY);
  config.blockDimZ = static_cast<unsigned>(blockZ);
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  LLMC_CU(cuLaunchKernelEx, &config, function, params, extra);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Creates a non-blocking stream (no implicit synchronization with the null
/// stream). Returns null on error.
CUstream mgpuStreamCreate() {
  ScopedContext context(__func__);
  if (!context.ok())
    return nullptr;
  // A stream destroyed before (see "Stream and event pools").
  if (void *idle = takeFromPool(streamPool))
    return static_cast<CUstream>(idle);
  CUstream stream = nullptr;
  LLMC_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  return stream;
}

/// Destroys a stream (keeps it for the next mgpuStreamCreate); does nothing
/// for a null stream.
void mgpuStreamDestroy(CUstream stream) {
  if (!stream || returnToPool(streamPool, stream))
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (context.ok())
    LLMC_CU(cuStreamDestroy, stream);
}

/// Waits for `stream`'s work; errors of earlier asynchronous work (a kernel
/// fault) are reported here.
void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext context(__func__);
  if (context.ok())
    LLMC_CU(cuStreamSynchronize, stream);
}

/// Makes `stream` wait for `event`.
void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ScopedContext context(__func__);
  if (context.ok())
    LLMC_CU(cuStreamWaitEvent, stream, event, 0);
}

/// Creates an event without timing. Returns null on error.
CUevent mgpuEventCreate() {
  ScopedContext context(__func__);
  if (!context.ok())
    return nullptr;
  if (void *idle = takeFromPool(eventPool))
    return static_cast<CUevent>(idle);
  CUevent event = nullptr;
  LLMC_CU(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
  return event;
}

/// Destroys an event (keeps it for the next mgpuEventCreate); does nothing
/// for a null event.
void mgpuEventDestroy(CUevent event) {
  if (!event || returnToPool(eventPool, event))
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (context.ok())
    LLMC_CU(cuEventDestroy, event);
}

/// Waits for `event`.
void mgpuEventSynchronize(CUevent event) {
  ScopedContext context(__func__);
  if (context.ok())
    LLMC_CU(cuEventSynchronize, event);
}

/// Records `event` on `stream`.
void mgpuEventRecord(CUevent event, CUstream stream) {
  ScopedContext context(__func__);
  if (context.ok())
    LLMC_CU(cuEventRecord, event, stream);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Allocates `sizeBytes` of device memory, or of managed memory reachable
/// from the host when `isHostShared` (gpu.alloc host_shared). The allocation
/// is synchronous; `stream` is unused. Returns null for 0 bytes and on
/// error (host code must not touch a null host_shared buffer: check the
/// error first).
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  ScopedContext context(__func__);
  CUdeviceptr pointer = 0;
  if (!context.ok() || sizeBytes == 0)
    return nullptr;
  if (isHostShared) {
    LLMC_CU(cuMemAllocManaged, &pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL);
    return reinterpret_cast<void *>(pointer);
  }
  if (takeIdleBlock(sizeBytes, pointer))
    return reinterpret_cast<void *>(pointer);
  CUresult result = driver().cuMemAlloc(&pointer, sizeBytes);
  // Out of memory: the idle blocks go back to the driver, then once more.
  if (result == CUDA_ERROR_OUT_OF_MEMORY && releaseIdleBlocks(__func__) > 0)
    result = driver().cuMemAlloc(&pointer, sizeBytes);
  if (!check(result, __func__, "cuMemAlloc"))
    return nullptr;
  addLiveBlock(pointer, sizeBytes);
  return reinterpret_cast<void *>(pointer);
}

/// Frees memory from mgpuMemAlloc; does nothing for null. The lowered code
/// frees before it synchronizes its stream, so the work queued on `stream`
/// (which may still use the buffer) is waited for first (the whole context
/// without a stream). The buffer is then kept for reuse (see the memory
/// cache above) or returned to the driver.
void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (!context.ok())
    return;
  CUdeviceptr device = reinterpret_cast<CUdeviceptr>(pointer);
  if (isIdleBlock(device)) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: the buffer %p was freed already", __func__, pointer);
    return;
  }
  // Only a buffer whose work is known to be done is kept for reuse.
  bool done =
      stream ? LLMC_CU(cuStreamSynchronize, stream) : LLMC_CU(cuCtxSynchronize);
  if (done && keepIdleBlock(device))
    return;
  LLMC_CU(cuMemFree, device);
}

int llmcCudaReleaseCachedMemory(void) {
  ScopedContext context(__func__, /*release=*/true);
  return context.ok() ? releaseIdleBlocks(__func__) : 0;
}

/// Copies `sizeBytes` from `src` to `dst` (host or device, unified
/// addressing) on `stream`, asynchronously.
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  ScopedContext context(__func__);
  if (context.ok() && sizeBytes)
    LLMC_CU(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
            reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream);
}

/// Sets `count` 32-bit words at `dst` to `value` on `stream`.
void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  ScopedContext context(__func__);
  if (context.ok() && count)
    LLMC_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
            stream);
}

/// Sets `count` 16-bit words at `dst` to `value` on `stream`.
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream) {
  ScopedContext context(__func__);
  if (context.ok() && count)
    LLMC_CU(cuMemsetD16Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
            stream);
}

/// Page-locks `sizeBytes` of host memory at `pointer` for device access.
void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  ScopedContext context(__func__);
  if (context.ok() && pointer && sizeBytes)
    LLMC_CU(cuMemHostRegister, pointer, sizeBytes, 0);
}

/// Undoes mgpuMemHostRegister; does nothing for null.
void mgpuMemHostUnregister(void *pointer) {
  if (!pointer)
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (context.ok())
    LLMC_CU(cuMemHostUnregister, pointer);
}

/// Registers the data of a dense memref of rank `rank` (descriptor
/// `descriptor`, elements of `elementBytes`), from its aligned pointer plus
/// offset (gpu.host_register). A non-dense memref is an error.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementBytes) {
  ScopedContext context(__func__);
  char *data;
  uint64_t bytes;
  if (context.ok() &&
      denseMemRef(__func__, rank, descriptor, elementBytes, data, bytes) &&
      bytes)
    LLMC_CU(cuMemHostRegister, data, bytes, 0);
}

/// Undoes mgpuMemHostRegisterMemRef for the same memref.
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementBytes) {
  char *data;
  uint64_t bytes;
  if (!denseMemRef(__func__, rank, descriptor, elementBytes, data, bytes) ||
      !bytes)
    return;
  ScopedContext context(__func__, /*release=*/true);
  if (context.ok())
    LLMC_CU(cuMemHostUnregister, data);
}

//===----------------------------------------------------------------------===//
// TMA descriptors
//===----------------------------------------------------------------------===//

/// Builds a tiled TMA descriptor (cuTensorMapEncodeTiled) for the memref of
/// rank `rank` (1-5; `descriptor` is its ranked descriptor, data taken from
/// the aligned pointer plus offset) with box `boxDims` (rank sizes,
/// outermost first) and the given CUtensorMap* enum values, copies it to a
/// new device allocation (never freed, as upstream) and returns that device
/// pointer, or null on error. Element types 0-12 of CUtensorMapDataType
/// (UINT8 ... TFLOAT32_FTZ) are supported.
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  static const int elementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  ScopedContext context(__func__);
  if (!context.ok() || lacksOptional(reinterpret_cast<const void *>(
                                         driver().cuTensorMapEncodeTiled),
                                     __func__, "cuTensorMapEncodeTiled"))
    return nullptr;
  if (rank < 1 || rank > 5 || dataType < 0 || dataType > 12) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: unsupported rank %lld or element type %lld", __func__,
                static_cast<long long>(rank), static_cast<long long>(dataType));
    return nullptr;
  }
  // The driver wants the innermost dimension first.
  const int64_t *sizes = sizesOf(descriptor), *strides = sizes + rank;
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  cuuint32_t boxDim[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t r = 0; r < rank; ++r) {
    globalDim[r] = static_cast<cuuint64_t>(sizes[rank - r - 1]);
    boxDim[r] = static_cast<cuuint32_t>(boxDims[rank - r - 1]);
  }
  for (int64_t r = 0; r + 1 < rank; ++r)
    globalStrides[r] =
        static_cast<cuuint64_t>(strides[rank - r - 2] * elementBytes[dataType]);
  auto *header = static_cast<const MemRefHeader *>(descriptor);
  void *address = header->aligned + header->offset * elementBytes[dataType];
  CUtensorMap map;
  if (!LLMC_CU(cuTensorMapEncodeTiled, &map,
               static_cast<CUtensorMapDataType>(dataType),
               static_cast<cuuint32_t>(rank), address, globalDim, globalStrides,
               boxDim, elementStrides,
               static_cast<CUtensorMapInterleave>(interleave),
               static_cast<CUtensorMapSwizzle>(swizzle),
               static_cast<CUtensorMapL2promotion>(l2Promotion),
               static_cast<CUtensorMapFloatOOBfill>(oobFill)))
    return nullptr;
  CUdeviceptr deviceMap = 0;
  if (!LLMC_CU(cuMemAlloc, &deviceMap, sizeof(map)))
    return nullptr;
  if (!LLMC_CU(cuMemcpyHtoD, deviceMap, &map, sizeof(map)))
    return nullptr;
  return reinterpret_cast<void *>(deviceMap);
}

} // extern "C"
#pragma GCC visibility pop
