//===- CUDACollectives.cpp - NCCL all-reduces for tensor parallelism ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The collectives of a tensor-parallel GPU program (llm-lower-to-nvvm
// {tensor-parallel=N}, docs/TensorParallelism.md): one NCCL communicator per
// process, created by llmcCudaInitTensorParallel from a unique id that the
// host program broadcasts (over MPI in llmc), and the all-reduces that
// llm-lower-collectives{library=nccl} emits calls to:
//
//   void llmcCudaAllReduceSum_<t>(i64 rank, ptr in, i64 rank, ptr out,
//                                 i32 ranks)     t: f16 bf16 f32 f64 i8 i32 i64
//   i32  llmcCudaGetTensorParallelRank()
//
// (an unranked memref is passed as its rank and a pointer to its ranked
// descriptor). NCCL is not linked: libnccl.so.2 (or $LLMC_NCCL_LIBRARY) is
// dlopen()ed by llmcCudaInitTensorParallel, so programs without tensor
// parallelism never need it. The types come from the toolkit's nccl.h; a
// runtime built without it reports that at llmcCudaInitTensorParallel.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>

#if __has_include(<nccl.h>)
#include <nccl.h>
#define LLMC_HAVE_NCCL 1
#else
#define LLMC_HAVE_NCCL 0
#endif

using namespace mlir::llm::cuda::detail;

namespace {

#if LLMC_HAVE_NCCL
static_assert(sizeof(ncclUniqueId) == LLMC_CUDA_NCCL_UNIQUE_ID_BYTES,
              "nccl.h's unique id size changed");

/// The NCCL functions the runtime calls, resolved from the library.
#define LLMC_NCCL_FUNCTIONS(X)                                                 \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclAllReduce)                                                             \
  X(ncclGetErrorString)

struct NCCLTable {
#define LLMC_NCCL_MEMBER(fn) decltype(&::fn) fn;
  LLMC_NCCL_FUNCTIONS(LLMC_NCCL_MEMBER)
#undef LLMC_NCCL_MEMBER
};

/// The process's tensor-parallel state: the loaded library, the
/// communicator and the stream its collectives run on.
struct TensorParallelState {
  pthread_mutex_t mutex;
  void *library;
  NCCLTable nccl;
  ncclComm_t comm;
  CUstream stream;
  int ranks;
  int rank;
};

TensorParallelState state = {
    PTHREAD_MUTEX_INITIALIZER, nullptr, {}, nullptr, nullptr, 0, 0};

/// Loads NCCL once; false (after recording an error) when it is missing.
bool loadNCCL(const char *caller) {
  if (state.library)
    return true;
  const char *path = getenv("LLMC_NCCL_LIBRARY");
  if (!path || !*path)
    path = "libnccl.so.2";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    recordError(LLMC_CUDA_ERROR_NO_NCCL,
                "%s: NCCL could not be loaded (%s); install NCCL or set "
                "LLMC_NCCL_LIBRARY",
                caller, dlerror());
    return false;
  }
  NCCLTable table;
#define LLMC_NCCL_RESOLVE(fn)                                                  \
  table.fn = reinterpret_cast<decltype(&::fn)>(dlsym(library, #fn));           \
  if (!table.fn) {                                                             \
    recordError(LLMC_CUDA_ERROR_NO_NCCL, "%s: %s lacks %s", caller, path,      \
                #fn);                                                          \
    dlclose(library);                                                          \
    return false;                                                              \
  }
  LLMC_NCCL_FUNCTIONS(LLMC_NCCL_RESOLVE)
#undef LLMC_NCCL_RESOLVE
  state.nccl = table;
  state.library = library;
  return true;
}

/// True if `result` is ncclSuccess; otherwise records "<caller>: <call>
/// failed: <NCCL's error string>".
bool checkNCCL(ncclResult_t result, const char *caller, const char *call) {
  if (result == ncclSuccess)
    return true;
  recordError(LLMC_CUDA_ERROR_NCCL, "%s: %s failed: %s (NCCL error %d)", caller,
              call, state.nccl.ncclGetErrorString(result),
              static_cast<int>(result));
  return false;
}

/// Sums the dense memref `in` over the communicator into `out` (same
/// shape), `elementBytes` per element of NCCL type `type`, and waits for
/// it. The grid the program was compiled for has `ranks` ranks.
void allReduceSum(const char *caller, int64_t inRank, void *in, int64_t outRank,
                  void *out, int32_t ranks, ncclDataType_t type,
                  int64_t elementBytes) {
  ScopedContext context(caller);
  if (!context.ok())
    return;
  if (!state.comm) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: no NCCL communicator: the program is a rank of a "
                "%d-way tensor-parallel job; call "
                "llmcCudaInitTensorParallel first (llmc run "
                "--tensor-parallel does)",
                caller, ranks);
    return;
  }
  if (ranks != state.ranks) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: the program was compiled for %d ranks, the NCCL "
                "communicator has %d",
                caller, ranks, state.ranks);
    return;
  }
  char *send = nullptr, *receive = nullptr;
  uint64_t sendBytes = 0, receiveBytes = 0;
  if (!denseMemRef(caller, inRank, in, elementBytes, send, sendBytes) ||
      !denseMemRef(caller, outRank, out, elementBytes, receive, receiveBytes))
    return;
  if (sendBytes != receiveBytes) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: %llu bytes sent but %llu received", caller,
                static_cast<unsigned long long>(sendBytes),
                static_cast<unsigned long long>(receiveBytes));
    return;
  }
  if (!checkNCCL(state.nccl.ncclAllReduce(send, receive,
                                          sendBytes / elementBytes, type,
                                          ncclSum, state.comm, state.stream),
                 caller, "ncclAllReduce"))
    return;
  // The kernels after it run on other streams: the sum is complete on
  // return.
  LLMC_CU(cuStreamSynchronize, state.stream);
}
#endif // LLMC_HAVE_NCCL

} // namespace

#pragma GCC visibility push(default)
extern "C" {

int llmcCudaGetNcclUniqueId(void *uniqueId) {
  if (!uniqueId) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT, "%s: a null id buffer",
                __func__);
    return llmcCudaGetLastError();
  }
#if LLMC_HAVE_NCCL
  pthread_mutex_lock(&state.mutex);
  bool ok = loadNCCL(__func__);
  pthread_mutex_unlock(&state.mutex);
  if (ok) {
    ncclUniqueId id;
    if (checkNCCL(state.nccl.ncclGetUniqueId(&id), __func__, "ncclGetUniqueId"))
      memcpy(uniqueId, &id, sizeof(id));
  }
#else
  (void)uniqueId;
  recordError(LLMC_CUDA_ERROR_NO_NCCL,
              "%s: llmc's CUDA runtime was built without nccl.h", __func__);
#endif
  return llmcCudaGetLastError();
}

int llmcCudaInitTensorParallel(const void *uniqueId, int ranks, int rank) {
#if LLMC_HAVE_NCCL
  if (!uniqueId || ranks < 1 || rank < 0 || rank >= ranks) {
    if (!uniqueId)
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT, "%s: a null id", __func__);
    else if (ranks < 1)
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: the number of ranks must be at least 1, got %d",
                  __func__, ranks);
    else
      recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                  "%s: rank %d is not in [0, %d)", __func__, rank, ranks);
    return llmcCudaGetLastError();
  }
  ScopedContext context(__func__);
  if (!context.ok())
    return llmcCudaGetLastError();
  pthread_mutex_lock(&state.mutex);
  if (state.comm) {
    recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
                "%s: the process already joined a %d-way job (call "
                "llmcCudaFinishTensorParallel first)",
                __func__, state.ranks);
  } else if (loadNCCL(__func__) &&
             LLMC_CU(cuStreamCreate, &state.stream, CU_STREAM_NON_BLOCKING)) {
    ncclUniqueId id;
    memcpy(&id, uniqueId, sizeof(id));
    ncclComm_t comm = nullptr;
    // Blocks until every rank called it with the same id.
    if (checkNCCL(state.nccl.ncclCommInitRank(&comm, ranks, id, rank), __func__,
                  "ncclCommInitRank")) {
      state.comm = comm;
      state.ranks = ranks;
      state.rank = rank;
    }
  }
  pthread_mutex_unlock(&state.mutex);
#else
  (void)uniqueId;
  (void)ranks;
  (void)rank;
  recordError(LLMC_CUDA_ERROR_NO_NCCL,
              "%s: llmc's CUDA runtime was built without nccl.h", __func__);
#endif
  return llmcCudaGetLastError();
}

int llmcCudaFinishTensorParallel(void) {
#if LLMC_HAVE_NCCL
  ScopedContext context(__func__, /*release=*/true);
  pthread_mutex_lock(&state.mutex);
  if (state.comm)
    checkNCCL(state.nccl.ncclCommDestroy(state.comm), __func__,
              "ncclCommDestroy");
  if (state.stream && context.ok())
    LLMC_CU(cuStreamDestroy, state.stream);
  state.comm = nullptr;
  state.stream = nullptr;
  state.ranks = 0;
  state.rank = 0;
  pthread_mutex_unlock(&state.mutex);
#endif
  return llmcCudaGetLastError();
}

int32_t llmcCudaGetTensorParallelRank(void) {
#if LLMC_HAVE_NCCL
  if (state.comm)
    return state.rank;
#endif
  recordError(LLMC_CUDA_ERROR_INVALID_ARGUMENT,
              "%s: no NCCL communicator (call llmcCudaInitTensorParallel "
              "first)",
              __func__);
  return 0;
}

#if LLMC_HAVE_NCCL
#define LLMC_ALL_REDUCE(suffix, type, bytes)                                   \
  void llmcCudaAllReduceSum_##suffix(                                          \
      int64_t inRank, void *in, int64_t outRank, void *out, int32_t ranks) {   \
    allReduceSum(__func__, inRank, in, outRank, out, ranks, type, bytes);      \
  }
#else
#define LLMC_ALL_REDUCE(suffix, type, bytes)                                   \
  void llmcCudaAllReduceSum_##suffix(int64_t, void *, int64_t, void *,         \
                                     int32_t) {                                \
    recordError(LLMC_CUDA_ERROR_NO_NCCL,                                       \
                "%s: llmc's CUDA runtime was built without nccl.h", __func__); \
  }
#endif
LLMC_ALL_REDUCE(f16, ncclFloat16, 2)
LLMC_ALL_REDUCE(bf16, ncclBfloat16, 2)
LLMC_ALL_REDUCE(f32, ncclFloat32, 4)
LLMC_ALL_REDUCE(f64, ncclFloat64, 8)
LLMC_ALL_REDUCE(i8, ncclInt8, 1)
LLMC_ALL_REDUCE(i32, ncclInt32, 4)
LLMC_ALL_REDUCE(i64, ncclInt64, 8)
#undef LLMC_ALL_REDUCE

} // extern "C"
#pragma GCC visibility pop
