/*===- FakeCUDADriver.c - A fake libcuda.so.1 for tests without a GPU -----===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Test-only: a library with the CUDA driver's C ABI (the functions llmc's
 * CUDA runtime and probeDriver() resolve), backed by host memory. It runs no
 * kernel: cuLaunchKernel only records its arguments. It lets lit check,
 * without a GPU, the driver calls the lowered host code makes through the
 * runtime (kernel names, grid and block sizes, copy sizes) and the error
 * paths. Loaded through LLMC_CUDA_DRIVER_LIBRARY or LD_LIBRARY_PATH.
 *
 * Environment:
 *   FAKE_CUDA_DEVICES=N     number of devices (default 1; 0: cuInit fails
 *                           with CUDA_ERROR_NO_DEVICE)
 *   FAKE_CUDA_FAIL=NAME     the driver function NAME (e.g. cuModuleLoadData,
 *                           versioned names without _v2) fails with
 *                           FAKE_CUDA_FAIL_CODE (default 1,
 *                           CUDA_ERROR_INVALID_VALUE)
 *   FAKE_CUDA_TRACE=1       print "fake-cuda: <call>" to stderr per call
 *   FAKE_CUDA_COMPUTE_MAJOR=M  the devices' compute capability M.0 (default
 *                           8.0)
 *
 * Built twice: as a CUDA 12 driver (with cuLaunchKernelEx and
 * cuTensorMapEncodeTiled) and, with -DFAKE_CUDA_11, without them.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *Handle;

#define EXPORT __attribute__((visibility("default")))

static const char *env(const char *name) {
  const char *value = getenv(name);
  return value ? value : "";
}

/* Prints "fake-cuda: <message>" as one write, so that the lines of the
   processes of a job sharing stderr do not interleave. */
static void trace(const char *format, ...) {
  if (strcmp(env("FAKE_CUDA_TRACE"), "1") != 0)
    return;
  char line[512];
  int n = snprintf(line, sizeof(line), "fake-cuda: ");
  va_list args;
  va_start(args, format);
  n += vsnprintf(line + n, sizeof(line) - n - 1, format, args);
  va_end(args);
  if (n > (int)sizeof(line) - 2)
    n = sizeof(line) - 2;
  line[n++] = '\n';
  (void)!write(2, line, n);
}

/* The error the call `name` returns: FAKE_CUDA_FAIL_CODE if FAKE_CUDA_FAIL
   names it, else 0. */
static CUresult fail(const char *name) {
  if (strcmp(env("FAKE_CUDA_FAIL"), name) != 0)
    return 0;
  const char *code = env("FAKE_CUDA_FAIL_CODE");
  return *code ? atoi(code) : 1;
}

static int deviceCount(void) {
  const char *count = env("FAKE_CUDA_DEVICES");
  return *count ? atoi(count) : 1;
}

static int dummy[64];
static Handle newHandle(void) {
  static int next = 0;
  return &dummy[next++ % 64];
}

#define FAKE_CALL(name, ...)                                                   \
  do {                                                                         \
    trace(name __VA_ARGS__);                                                   \
    CUresult failure = fail(name);                                             \
    if (failure)                                                               \
      return failure;                                                          \
  } while (0)

EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case 0:
    *name = "CUDA_SUCCESS";
    return 0;
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  case 2:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return 0;
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case 209:
    *name = "CUDA_ERROR_NO_BINARY_FOR_GPU";
    return 0;
  case 500:
    *name = "CUDA_ERROR_NOT_FOUND";
    return 0;
  case 700:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 0;
  }
  *name = NULL;
  return 1;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  const char *name;
  if (cuGetErrorName(error, &name))
    return 1;
  *text = "fake CUDA driver error";
  return 0;
}

EXPORT CUresult cuInit(unsigned flags) {
  FAKE_CALL("cuInit", "(%u)", flags);
  return deviceCount() > 0 ? 0 : 100;
}

EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return 0;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  FAKE_CALL("cuDeviceGetCount", "");
  *count = deviceCount();
  return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_CALL("cuDeviceGet", "(%d)", ordinal);
  *device = ordinal;
  return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  snprintf(name, length, "llmc fake GPU %d", device);
  return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                     CUdevice device) {
  (void)device;
  switch (attribute) {
  case 16:
    *value = 108;
    return 0; /* multiprocessors */
  case 75:    /* compute capability major: FAKE_CUDA_COMPUTE_MAJOR, else 8 */
    *value = *env("FAKE_CUDA_COMPUTE_MAJOR")
                 ? atoi(env("FAKE_CUDA_COMPUTE_MAJOR"))
                 : 8;
    return 0;
  case 76:
    *value = 0;
    return 0; /* minor */
  case 97:
    *value = 163 * 1024;
    return 0; /* max opt-in shared memory */
  }
  *value = 0;
  return 0;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  (void)device;
  *bytes = (size_t)40 << 30;
  return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(Handle *context, CUdevice device) {
  FAKE_CALL("cuDevicePrimaryCtxRetain", "(%d)", device);
  *context = newHandle();
  return 0;
}

EXPORT CUresult cuCtxPushCurrent_v2(Handle context) {
  (void)context;
  return fail("cuCtxPushCurrent");
}

EXPORT CUresult cuCtxPopCurrent_v2(Handle *context) {
  if (context)
    *context = NULL;
  return 0;
}

EXPORT CUresult cuCtxSynchronize(void) {
  FAKE_CALL("cuCtxSynchronize", "");
  return 0;
}

EXPORT CUresult cuModuleLoadData(Handle *module, const void *image) {
  uint32_t magic;
  memcpy(&magic, image, sizeof(magic));
  FAKE_CALL("cuModuleLoadData", "(%s)",
            magic == 0xba55ed50u ? "fatbin" : "other image");
  *module = newHandle();
  return 0;
}

EXPORT CUresult cuModuleLoadDataEx(Handle *module, const void *image,
                                   unsigned count, int *options,
                                   void **values) {
  (void)options;
  (void)values;
  FAKE_CALL("cuModuleLoadDataEx", "(%s, %u options)",
            strncmp((const char *)image, "//", 2) == 0 ? "PTX" : "other",
            count);
  *module = newHandle();
  return 0;
}

EXPORT CUresult cuModuleUnload(Handle module) {
  (void)module;
  FAKE_CALL("cuModuleUnload", "");
  return 0;
}

EXPORT CUresult cuModuleGetFunction(Handle *function, Handle module,
                                    const char *name) {
  (void)module;
  FAKE_CALL("cuModuleGetFunction", "(%s)", name);
  *function = newHandle();
  return 0;
}

EXPORT CUresult cuFuncSetAttribute(Handle function, int attribute, int value) {
  (void)function;
  FAKE_CALL("cuFuncSetAttribute", "(%d, %d)", attribute, value);
  return 0;
}

EXPORT CUresult cuLaunchKernel(Handle function, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned smem, Handle stream,
                               void **params, void **extra) {
  (void)function;
  (void)stream;
  (void)extra;
  FAKE_CALL("cuLaunchKernel", "(grid %u,%u,%u block %u,%u,%u smem %u%s)", gx,
            gy, gz, bx, by, bz, smem, params ? " params" : "");
  return 0;
}

EXPORT CUresult cuStreamCreate(Handle *stream, unsigned flags) {
  FAKE_CALL("cuStreamCreate", "(%u)", flags);
  *stream = newHandle();
  return 0;
}

EXPORT CUresult cuStreamDestroy_v2(Handle stream) {
  (void)stream;
  FAKE_CALL("cuStreamDestroy", "");
  return 0;
}

EXPORT CUresult cuStreamSynchronize(Handle stream) {
  (void)stream;
  FAKE_CALL("cuStreamSynchronize", "");
  return 0;
}

EXPORT CUresult cuStreamWaitEvent(Handle stream, Handle event, unsigned f) {
  (void)stream, (void)event, (void)f;
  FAKE_CALL("cuStreamWaitEvent", "");
  return 0;
}

EXPORT CUresult cuEventCreate(Handle *event, unsigned flags) {
  FAKE_CALL("cuEventCreate", "(%u)", flags);
  *event = newHandle();
  return 0;
}

EXPORT CUresult cuEventDestroy_v2(Handle event) {
  (void)event;
  FAKE_CALL("cuEventDestroy", "");
  return 0;
}

EXPORT CUresult cuEventRecord(Handle event, Handle stream) {
  (void)event, (void)stream;
  FAKE_CALL("cuEventRecord", "");
  return 0;
}

EXPORT CUresult cuEventSynchronize(Handle event) {
  (void)event;
  FAKE_CALL("cuEventSynchronize", "");
  return 0;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FAKE_CALL("cuMemAlloc", "(%zu)", bytes);
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return 0;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                                  unsigned flags) {
  FAKE_CALL("cuMemAllocManaged", "(%zu, %u)", bytes, flags);
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return 0;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  FAKE_CALL("cuMemFree", "");
  free((void *)(uintptr_t)pointer);
  return 0;
}

EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                              Handle stream) {
  (void)stream;
  FAKE_CALL("cuMemcpyAsync", "(%zu)", bytes);
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                size_t bytes) {
  FAKE_CALL("cuMemcpyHtoD", "(%zu)", bytes);
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return 0;
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                                 Handle stream) {
  (void)stream;
  FAKE_CALL("cuMemsetD32Async", "(0x%x, %zu)", value, count);
  for (size_t i = 0; i < count; ++i)
    ((uint32_t *)(uintptr_t)dst)[i] = value;
  return 0;
}

EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                 size_t count, Handle stream) {
  (void)stream;
  FAKE_CALL("cuMemsetD16Async", "(0x%x, %zu)", value, count);
  for (size_t i = 0; i < count; ++i)
    ((uint16_t *)(uintptr_t)dst)[i] = value;
  return 0;
}

EXPORT CUresult cuMemHostRegister_v2(void *pointer, size_t bytes,
                                     unsigned flags) {
  (void)pointer;
  FAKE_CALL("cuMemHostRegister", "(%zu, %u)", bytes, flags);
  return 0;
}

EXPORT CUresult cuMemHostUnregister(void *pointer) {
  (void)pointer;
  FAKE_CALL("cuMemHostUnregister", "");
  return 0;
}

#ifndef FAKE_CUDA_11
/* The CUDA 12 functions, with the structures of cuda.h they read. */
typedef struct {
  int id;
  char pad[4];
  union {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
} CUlaunchAttribute;

typedef struct {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Handle hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
} CUlaunchConfig;

EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, Handle function,
                                 void **params, void **extra) {
  (void)function;
  (void)extra;
  unsigned cluster[3] = {1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == 4) { /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
      cluster[0] = config->attrs[i].value.clusterDim.x;
      cluster[1] = config->attrs[i].value.clusterDim.y;
      cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  }
  FAKE_CALL("cuLaunchKernelEx",
            "(grid %u,%u,%u block %u,%u,%u cluster %u,%u,%u smem %u%s)",
            config->gridDimX, config->gridDimY, config->gridDimZ,
            config->blockDimX, config->blockDimY, config->blockDimZ, cluster[0],
            cluster[1], cluster[2], config->sharedMemBytes,
            params ? " params" : "");
  return 0;
}

EXPORT CUresult cuTensorMapEncodeTiled(
    void *map, int dataType, unsigned rank, void *address,
    const unsigned long long *globalDim, const unsigned long long *strides,
    const unsigned *boxDim, const unsigned *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill) {
  char text[256];
  int n = snprintf(text, sizeof(text), "type %d rank %u dims", dataType, rank);
  for (unsigned r = 0; r < rank; ++r)
    n += snprintf(text + n, sizeof(text) - n, " %llu", globalDim[r]);
  n += snprintf(text + n, sizeof(text) - n, " strides");
  for (unsigned r = 0; r + 1 < rank; ++r)
    n += snprintf(text + n, sizeof(text) - n, " %llu", strides[r]);
  n += snprintf(text + n, sizeof(text) - n, " box");
  for (unsigned r = 0; r < rank; ++r)
    n += snprintf(text + n, sizeof(text) - n, " %u", boxDim[r]);
  n += snprintf(text + n, sizeof(text) - n, " element strides");
  for (unsigned r = 0; r < rank; ++r)
    n += snprintf(text + n, sizeof(text) - n, " %u", elementStrides[r]);
  FAKE_CALL("cuTensorMapEncodeTiled",
            "(%s, interleave %d swizzle %d l2 %d oob %d, address %s)", text,
            interleave, swizzle, l2Promotion, oobFill,
            address ? "set" : "null");
  memset(map, 0, 128);
  return 0;
}
#endif
