//===- CUDADriver.cpp - Loading the CUDA driver, errors, context ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lazy initialization of llmc's CUDA runtime
// (dlopen of libcuda.so.1, cuInit, device selection, primary context), its
// sticky error state and the public llmcCuda* functions of
// include/llm/Runtime/CUDA/CUDARuntime.h.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>

using namespace mlir::llm::cuda::detail;

namespace {

//===----------------------------------------------------------------------===//
// Error state
//===----------------------------------------------------------------------===//

pthread_mutex_t errorMutex = PTHREAD_MUTEX_INITIALIZER;
/// The first error since the last clear (0: none) and its message.
std::atomic<int> errorCode{0};
char errorMessage[1024];
int errorCount = 0;
/// -1: not decided yet (read LLMC_CUDA_ABORT_ON_ERROR), 0 or 1.
std::atomic<int> abortOnError{-1};
/// Whether recordError prints the message (llmcCudaSetErrorPrinting).
std::atomic<bool> printErrors{true};

bool envFlag(const char *name) {
  const char *value = getenv(name);
  return value && *value && strcmp(value, "0") != 0;
}

bool shouldAbort() {
  int value = abortOnError.load();
  if (value < 0) {
    value = envFlag("LLMC_CUDA_ABORT_ON_ERROR") ? 1 : 0;
    abortOnError.store(value);
  }
  return value == 1;
}

bool hasError() { return errorCode.load(std::memory_order_acquire) != 0; }

//===----------------------------------------------------------------------===//
// Driver loading and initialization
//===----------------------------------------------------------------------===//

DriverTable table;
pthread_once_t initOnce = PTHREAD_ONCE_INIT;
/// Set once initialization has started: the device can no longer change.
std::atomic<bool> initStarted{false};
/// The outcome of initialization: 0 or the error code, with its message.
int initCode = 0;
char initMessage[768];
/// The device mgpuSetDefaultDevice chose before initialization, or -1.
std::atomic<int> requestedDevice{-1};
int selectedDevice = 0;
int maxSharedOptin = 0;
CUcontext primaryContext = nullptr;

void initFailed(int code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void initFailed(int code, const char *format, ...) {
  initCode = code;
  va_list args;
  va_start(args, format);
  vsnprintf(initMessage, sizeof(initMessage), format, args);
  va_end(args);
}

/// Formats `result` as "NAME (description)" into `buffer`. The toolkit's
/// stub library cannot name its own error (CUDA_ERROR_STUB_LIBRARY), so that
/// one is named here.
void describeResult(CUresult result, char *buffer, size_t size) {
  const char *name = nullptr, *text = nullptr;
  if (table.cuGetErrorName &&
      table.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (table.cuGetErrorString &&
      table.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  if (!name && result == CUDA_ERROR_STUB_LIBRARY) {
    name = "CUDA_ERROR_STUB_LIBRARY";
    text = "the CUDA toolkit's stub libcuda was loaded, not a driver";
  }
  if (name)
    snprintf(buffer, size, "%s (%s)", name, text ? text : "no description");
  else
    snprintf(buffer, size, "CUDA error %d", static_cast<int>(result));
}

/// Parses $LLMC_CUDA_DEVICE into `device`; false if it is not an index.
bool deviceFromEnvironment(int &device) {
  const char *value = getenv("LLMC_CUDA_DEVICE");
  device = 0;
  if (!value || !*value)
    return true;
  char *end = nullptr;
  errno = 0;
  long parsed = strtol(value, &end, 10);
  if (errno || *end || parsed < 0 || parsed > INT_MAX)
    return false;
  device = static_cast<int>(parsed);
  return true;
}

void initialize() {
  initStarted.store(true);
  const char *library = getenv("LLMC_CUDA_DRIVER_LIBRARY");
  if (!library || !*library)
    library = "libcuda.so.1";
  // A path that names something other than a file (a FIFO would block
  // dlopen forever, a directory cannot load).
  struct stat st;
  if (strchr(library, '/') && stat(library, &st) == 0 && !S_ISREG(st.st_mode))
    return initFailed(LLMC_CUDA_ERROR_NO_DRIVER,
                      "no CUDA driver found (%s is not a regular file)",
                      library);
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return initFailed(LLMC_CUDA_ERROR_NO_DRIVER,
                      "no CUDA driver found (%s could not be loaded: %s)",
                      library, dlerror());
#define LLMC_CUDA_STR2(x) #x
#define LLMC_CUDA_STR(x) LLMC_CUDA_STR2(x)
#define LLMC_CUDA_LOAD(fn)                                                     \
  table.fn =                                                                   \
      reinterpret_cast<decltype(table.fn)>(dlsym(handle, LLMC_CUDA_STR(fn)));
#define LLMC_CUDA_LOAD_REQUIRED(fn)                                            \
  LLMC_CUDA_LOAD(fn)                                                           \
  if (!table.fn)                                                               \
    return initFailed(LLMC_CUDA_ERROR_NO_DRIVER,                               \
                      "the CUDA driver %s lacks %s (too old?)", library,       \
                      LLMC_CUDA_STR(fn));
  LLMC_CUDA_REQUIRED_FUNCTIONS(LLMC_CUDA_LOAD_REQUIRED)
  LLMC_CUDA_OPTIONAL_FUNCTIONS(LLMC_CUDA_LOAD)
#undef LLMC_CUDA_LOAD_REQUIRED
#undef LLMC_CUDA_LOAD

  char text[256];
  CUresult result = table.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE) {
    describeResult(result, text, sizeof(text));
    return initFailed(result, "no CUDA device found (cuInit: %s)", text);
  }
  if (result != CUDA_SUCCESS) {
    describeResult(result, text, sizeof(text));
    return initFailed(result, "cuInit failed: %s", text);
  }
  int count = 0;
  if ((result = table.cuDeviceGetCount(&count)) != CUDA_SUCCESS) {
    describeResult(result, text, sizeof(text));
    return initFailed(result, "cuDeviceGetCount failed: %s", text);
  }
  if (count <= 0)
    return initFailed(CUDA_ERROR_NO_DEVICE, "no CUDA device found");
  int device = requestedDevice.load();
  if (device < 0 && !deviceFromEnvironment(device))
    return initFailed(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                      "LLMC_CUDA_DEVICE=%s is not a device index",
                      getenv("LLMC_CUDA_DEVICE"));
  if (device >= count)
    return initFailed(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                      "CUDA device %d selected (LLMC_CUDA_DEVICE) but the "
                      "driver reports %d device(s) (counting from 0)",
                      device, count);
  selectedDevice = device;
  CUdevice cuDevice;
  if ((result = table.cuDeviceGet(&cuDevice, device)) != CUDA_SUCCESS) {
    describeResult(result, text, sizeof(text));
    return initFailed(result, "cuDeviceGet(%d) failed: %s", device, text);
  }
  if ((result = table.cuDeviceGetAttribute(
           &maxSharedOptin,
           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, cuDevice)) !=
      CUDA_SUCCESS)
    maxSharedOptin = 48 * 1024;
  if ((result = table.cuDevicePrimaryCtxRetain(&primaryContext, cuDevice)) !=
      CUDA_SUCCESS) {
    describeResult(result, text, sizeof(text));
    return initFailed(result, "cuDevicePrimaryCtxRetain(device %d) failed: %s",
                      device, text);
  }
}

/// Initializes once; returns true if the driver and context are usable,
/// otherwise records the initialization error (unless one is recorded).
bool ensureInitialized() {
  pthread_once(&initOnce, initialize);
  if (initCode == 0)
    return true;
  if (!hasError())
    recordError(initCode, "%s", initMessage);
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// detail
//===----------------------------------------------------------------------===//

const DriverTable &mlir::llm::cuda::detail::driver() { return table; }

int mlir::llm::cuda::detail::deviceOrdinal() { return selectedDevice; }

int mlir::llm::cuda::detail::maxDynamicSharedMemory() { return maxSharedOptin; }

void mlir::llm::cuda::detail::recordError(int code, const char *format, ...) {
  pthread_mutex_lock(&errorMutex);
  ++errorCount;
  if (errorCode.load() != 0) {
    pthread_mutex_unlock(&errorMutex);
    return;
  }
  int prefix =
      snprintf(errorMessage, sizeof(errorMessage), "llmc CUDA runtime: ");
  va_list args;
  va_start(args, format);
  vsnprintf(errorMessage + prefix, sizeof(errorMessage) - prefix, format, args);
  va_end(args);
  errorCode.store(code ? code : LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  std::memory_order_release);
  bool abortNow = shouldAbort();
  if (printErrors.load() || abortNow) {
    fprintf(stderr, "%s\n", errorMessage);
    fflush(stderr);
  }
  pthread_mutex_unlock(&errorMutex);
  if (abortNow) {
    fprintf(stderr, "llmc CUDA runtime: aborting (LLMC_CUDA_ABORT_ON_ERROR)\n");
    abort();
  }
}

bool mlir::llm::cuda::detail::check(CUresult result, const char *caller,
                              const char *call, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  char text[256];
  describeResult(result, text, sizeof(text));
  if (what)
    recordError(result, "%s: %s(%s) failed: %s", caller, call, what, text);
  else
    recordError(result, "%s: %s failed: %s", caller, call, text);
  return false;
}

bool mlir::llm::cuda::detail::lacksOptional(const void *fn, const char *caller,
                                      const char *name) {
  if (fn)
    return false;
  recordError(LLMC_CUDA_ERROR_NO_DRIVER,
              "%s: the CUDA driver lacks %s (CUDA 12 or newer needed)", caller,
              name);
  return true;
}

ScopedContext::ScopedContext(const char *caller, bool release)
    : caller(caller) {
  if (!release && hasError())
    return;
  if (!ensureInitialized())
    return;
  CUresult result = table.cuCtxPushCurrent(primaryContext);
  // Releasing a handle from a global destructor after the driver shut down
  // (process exit) is not worth a message.
  if (release && result == CUDA_ERROR_DEINITIALIZED)
    return;
  pushed = check(result, caller, "cuCtxPushCurrent");
}

ScopedContext::~ScopedContext() {
  if (pushed)
    check(table.cuCtxPopCurrent(nullptr), caller, "cuCtxPopCurrent");
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

extern "C" {

int llmcCudaGetLastError(void) { return errorCode.load(); }

const char *llmcCudaGetLastErrorMessage(void) {
  return hasError() ? errorMessage : "";
}

int llmcCudaGetErrorCount(void) {
  pthread_mutex_lock(&errorMutex);
  int count = errorCount;
  pthread_mutex_unlock(&errorMutex);
  return count;
}

int llmcCudaClearError(void) {
  pthread_mutex_lock(&errorMutex);
  int code = errorCode.exchange(0);
  errorCount = 0;
  errorMessage[0] = '\0';
  pthread_mutex_unlock(&errorMutex);
  return code;
}

void llmcCudaSetAbortOnError(int enable) { abortOnError.store(enable ? 1 : 0); }

void llmcCudaSetErrorPrinting(int enable) { printErrors.store(enable != 0); }

int llmcCudaInit(void) {
  if (!ensureInitialized())
    return initCode;
  return 0;
}

int llmcCudaSynchronize(void) {
  ScopedContext context("llmcCudaSynchronize");
  if (context.ok())
    LLMC_CU(cuCtxSynchronize);
  return llmcCudaGetLastError();
}

int llmcCudaGetDevice(void) {
  if (initStarted.load()) {
    pthread_once(&initOnce, initialize);
    return selectedDevice;
  }
  int device = requestedDevice.load();
  if (device >= 0)
    return device;
  return deviceFromEnvironment(device) ? device : 0;
}

/// Selects the device used by the runtime (upstream MLIR's entry point).
/// Effective only before the first `mgpu*` call; asking for another device
/// afterwards records LLMC_CUDA_ERROR_INVALID_ARGUMENT.
LLMC_CUDA_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (!initStarted.load()) {
    requestedDevice.store(device);
    return;
  }
  pthread_once(&initOnce, initialize);
  if (device != selectedDevice)
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "mgpuSetDefaultDevice(%d): the runtime already uses device "
                "%d (select the device before the first GPU call)",
                device, selectedDevice);
}

} // extern "C"
