// The tensor-parallel functions of llmc's CUDA runtime called directly (as a
// rank's host program and its lowered code call them) over the fake driver
// and the fake NCCL (Inputs/FakeNCCL.c): the NCCL calls each makes (element
// count and NCCL datatype of an all-reduce, the descriptor arithmetic), and
// their errors.
//
// REQUIRES: cuda-toolkit
// UNSUPPORTED: asan
// RUN: %cc -I%llmc_src_root/include %s %llmc_cuda_runtime_static -ldl -lpthread -o %t
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_NCCL_LIBRARY=%fake_nccl \
// RUN:   FAKE_NCCL_TRACE=1 %t 2>&1 | FileCheck %s
// No NCCL: the first call that needs it says so.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_NCCL_LIBRARY=%t.missing.so \
// RUN:   %t 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: id: error -3 count 1: llmc CUDA runtime: llmcCudaGetNcclUniqueId:
// NCCL could not be loaded ({{.*}}missing.so{{.*}}); install NCCL or set
// LLMC_NCCL_LIBRARY A failing NCCL call: its error string.
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 LLMC_NCCL_LIBRARY=%fake_nccl \
// RUN:   FAKE_NCCL_FAIL=ncclCommInitRank %t 2>&1 | FileCheck %s --check-prefix=INITFAIL
// INITFAIL: init: error -4 count 1: llmc CUDA runtime:
// llmcCudaInitTensorParallel: ncclCommInitRank failed: internal error (fake)
// (NCCL error 3)

#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *mgpuMemAlloc(uint64_t bytes, void *stream, _Bool hostShared);
void mgpuMemFree(void *pointer, void *stream);
int32_t llmcCudaGetTensorParallelRank(void);
void llmcCudaAllReduceSum_f32(int64_t inRank, void *in, int64_t outRank,
                              void *out, int32_t ranks);
void llmcCudaAllReduceSum_bf16(int64_t inRank, void *in, int64_t outRank,
                               void *out, int32_t ranks);
void llmcCudaAllReduceSum_i64(int64_t inRank, void *in, int64_t outRank,
                              void *out, int32_t ranks);

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

static void report(const char *what) {
  fprintf(stderr, "%s: error %d count %d: %s\n", what, llmcCudaGetLastError(),
          llmcCudaGetErrorCount(), llmcCudaGetLastErrorMessage());
  llmcCudaClearError();
}

int main(void) {
  float *a = mgpuMemAlloc(64 * sizeof(float), NULL, 0);
  float *b = mgpuMemAlloc(64 * sizeof(float), NULL, 0);
  MemRef2D in = {a, a, 4, {3, 4}, {4, 1}}, out = {b, b, 0, {3, 4}, {4, 1}};

  // Before the job is joined.
  // CHECK: before: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: no NCCL communicator: the program is a rank of a 2-way tensor-parallel job; call llmcCudaInitTensorParallel first (llmc run --tensor-parallel does)
  llmcCudaAllReduceSum_f32(2, &in, 2, &out, 2);
  report("before");
  // CHECK: rank before: 0, error -2
  int32_t rank = llmcCudaGetTensorParallelRank();
  fprintf(stderr, "rank before: %d, error %d\n", rank, llmcCudaClearError());

  // CHECK: fake-nccl: ncclGetUniqueId
  // CHECK: id: error 0 count 0
  char id[LLMC_CUDA_NCCL_UNIQUE_ID_BYTES];
  llmcCudaGetNcclUniqueId(id);
  report("id");
  // CHECK: rank -1 of 2: error -2 count 1: llmc CUDA runtime: llmcCudaInitTensorParallel: rank -1 is not in [0, 2)
  llmcCudaInitTensorParallel(id, 2, -1);
  report("rank -1 of 2");
  // CHECK: 0 ranks: error -2 count 1: llmc CUDA runtime: llmcCudaInitTensorParallel: the number of ranks must be at least 1, got 0
  llmcCudaInitTensorParallel(id, 0, 0);
  report("0 ranks");
  // CHECK: null id: error -2 count 1: llmc CUDA runtime: llmcCudaInitTensorParallel: a null id
  llmcCudaInitTensorParallel(NULL, 2, 0);
  report("null id");
  // CHECK: null buffer: error -2 count 1: llmc CUDA runtime: llmcCudaGetNcclUniqueId: a null id buffer
  llmcCudaGetNcclUniqueId(NULL);
  report("null buffer");
  // CHECK: fake-nccl: ncclCommInitRank(ranks 2, rank 1, id fake-nccl-id)
  // CHECK: init: error 0 count 0
  llmcCudaInitTensorParallel(id, 2, 1);
  report("init");
  // CHECK: again: error -2 count 1: llmc CUDA runtime: llmcCudaInitTensorParallel: the process already joined a 2-way job (call llmcCudaFinishTensorParallel first)
  llmcCudaInitTensorParallel(id, 2, 1);
  report("again");
  // CHECK: rank: 1
  fprintf(stderr, "rank: %d\n", llmcCudaGetTensorParallelRank());

  // 3x4 f32 from element 4 of `a`: 12 elements of ncclFloat32 (7), copied
  // by the fake from a + 4 to b.
  for (int i = 0; i < 64; ++i)
    a[i] = (float)i;
  // CHECK: fake-nccl: ncclAllReduce(count 12, type 7, op 0, rank 1)
  // CHECK: f32: error 0 count 0, out[0] 4 out[11] 15
  llmcCudaAllReduceSum_f32(2, &in, 2, &out, 2);
  fprintf(stderr, "f32: error %d count %d, out[0] %g out[11] %g\n",
          llmcCudaGetLastError(), llmcCudaGetErrorCount(), b[0], b[11]);
  // The datatypes of bf16 (9) and i64 (4), by element count.
  // CHECK: fake-nccl: ncclAllReduce(count 12, type 9, op 0, rank 1)
  // CHECK: fake-nccl: ncclAllReduce(count 12, type 4, op 0, rank 1)
  llmcCudaAllReduceSum_bf16(2, &in, 2, &out, 2);
  llmcCudaAllReduceSum_i64(2, &in, 2, &out, 2);
  report("types");

  // A program compiled for another number of ranks.
  // CHECK: ranks: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: the program was compiled for 4 ranks, the NCCL communicator has 2
  llmcCudaAllReduceSum_f32(2, &in, 2, &out, 4);
  report("ranks");
  // A non-dense buffer.
  // CHECK: strided: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: the memref is not dense (dimension 0 has stride 8, expected 4)
  MemRef2D strided = {a, a, 0, {3, 4}, {8, 1}};
  llmcCudaAllReduceSum_f32(2, &strided, 2, &out, 2);
  report("strided");
  // Different sizes.
  // CHECK: sizes: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: 48 bytes sent but 32 received
  MemRef2D small = {b, b, 0, {2, 4}, {4, 1}};
  llmcCudaAllReduceSum_f32(2, &in, 2, &small, 2);
  report("sizes");

  // A negative size, a size whose bytes overflow, no descriptor.
  // CHECK: negative: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: the memref has a negative size (-8 in dimension 1)
  MemRef2D negative = {a, a, 0, {1, -8}, {8, 1}};
  llmcCudaAllReduceSum_f32(2, &negative, 2, &out, 2);
  report("negative");
  // CHECK: huge: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: the memref's size in bytes overflows
  MemRef2D huge = {a, a, 0, {2, INT64_MAX / 2}, {INT64_MAX / 2, 1}};
  llmcCudaAllReduceSum_f32(2, &huge, 2, &out, 2);
  report("huge");
  // CHECK: null: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: no memref descriptor (rank 2)
  llmcCudaAllReduceSum_f32(2, NULL, 2, &out, 2);
  report("null");

  // CHECK: fake-nccl: ncclCommDestroy(rank 1)
  // CHECK: finish: error 0 count 0
  llmcCudaFinishTensorParallel();
  report("finish");
  // CHECK: after: error -2 count 1: llmc CUDA runtime: llmcCudaAllReduceSum_f32: no NCCL communicator
  llmcCudaAllReduceSum_f32(2, &in, 2, &out, 2);
  report("after");
  mgpuMemFree(a, NULL);
  mgpuMemFree(b, NULL);
  return 0;
}
