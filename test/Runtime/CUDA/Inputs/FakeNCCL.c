/*===- FakeNCCL.c - A fake libnccl.so.2 for tests without a GPU ----------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Test-only: a library with the C ABI of the NCCL functions llmc's CUDA
 * runtime resolves (lib/Runtime/CUDA/CUDACollectives.cpp), for the fake
 * CUDA driver's host-memory "device" buffers. It communicates with no other
 * process: ncclCommInitRank records the rank, ncclAllReduce copies its
 * input to its output (the sum over one contribution). It lets lit check,
 * without GPUs, the NCCL calls a tensor-parallel program makes (element
 * counts and types, in order) and the error paths. Loaded through
 * LLMC_NCCL_LIBRARY.
 *
 * Environment:
 *   FAKE_NCCL_TRACE=1   print "fake-nccl: <call>" to stderr per call
 *   FAKE_NCCL_FAIL=NAME the function NAME fails with ncclInternalError (3)
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct {
  char internal[128];
} ncclUniqueId;

typedef struct {
  int ranks, rank;
} FakeComm;

static const char *env(const char *name) {
  const char *value = getenv(name);
  return value ? value : "";
}

/* Traces the call `name` and returns its error (3 when FAKE_NCCL_FAIL names
   it, else 0). */
static int call(const char *name, const char *format, ...) {
  if (strcmp(env("FAKE_NCCL_TRACE"), "1") == 0) {
    /* One write: the lines of a job's processes do not interleave. */
    char line[512];
    int n = snprintf(line, sizeof(line), "fake-nccl: %s", name);
    va_list args;
    va_start(args, format);
    n += vsnprintf(line + n, sizeof(line) - n - 1, format, args);
    va_end(args);
    if (n > (int)sizeof(line) - 2)
      n = sizeof(line) - 2;
    line[n++] = '\n';
    (void)!write(2, line, n);
  }
  return strcmp(env("FAKE_NCCL_FAIL"), name) == 0 ? 3 : 0;
}

/* The bytes of each ncclDataType_t (nccl.h: int8 0, uint8 1, int32 2,
   uint32 3, int64 4, uint64 5, float16 6, float32 7, float64 8,
   bfloat16 9). */
static size_t elementBytes(int type) {
  static const size_t bytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return type >= 0 && type < 10 ? bytes[type] : 0;
}

EXPORT const char *ncclGetErrorString(int result) {
  return result == 3 ? "internal error (fake)" : "fake NCCL error";
}

EXPORT int ncclGetUniqueId(ncclUniqueId *id) {
  int rc = call("ncclGetUniqueId", "");
  if (!rc) {
    memset(id, 0, sizeof(*id));
    strcpy(id->internal, "fake-nccl-id");
  }
  return rc;
}

EXPORT int ncclCommInitRank(FakeComm **comm, int ranks, ncclUniqueId id,
                            int rank) {
  int rc = call("ncclCommInitRank", "(ranks %d, rank %d, id %s)", ranks, rank,
                id.internal);
  if (rc)
    return rc;
  *comm = malloc(sizeof(FakeComm));
  (*comm)->ranks = ranks;
  (*comm)->rank = rank;
  return 0;
}

EXPORT int ncclCommDestroy(FakeComm *comm) {
  int rc = call("ncclCommDestroy", "(rank %d)", comm->rank);
  free(comm);
  return rc;
}

EXPORT int ncclAllReduce(const void *send, void *receive, size_t count,
                         int type, int op, FakeComm *comm, void *stream) {
  int rc = call("ncclAllReduce", "(count %zu, type %d, op %d, rank %d%s)",
                count, type, op, comm->rank, stream ? "" : ", null stream");
  if (!rc && send != receive)
    memmove(receive, send, count * elementBytes(type));
  return rc;
}
