/* The host program of ../host-ops.mlir: calls each lowered function (C
   interface) and labels the driver calls it makes. */
#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1D;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;
typedef struct {
  int64_t rank;
  void *descriptor;
} UnrankedMemRef;

void _mlir_ciface_shared(MemRef1D *result);
void _mlir_ciface_register(UnrankedMemRef *memref);
void _mlir_ciface_fork_join(intptr_t n);
void _mlir_ciface_memset16(intptr_t n);
void _mlir_ciface_cluster(MemRef1D *x);
void *_mlir_ciface_tma(MemRef2D *tensor);

int main(void) {
  fprintf(stderr, "shared:\n");
  MemRef1D shared;
  _mlir_ciface_shared(&shared);
  shared.aligned[1023] = 1.0f; /* host-accessible (host memory in the fake) */
  fprintf(stderr, "shared: sizes %lld strides %lld writable %d\n",
          (long long)shared.sizes[0], (long long)shared.strides[0],
          shared.aligned[1023] == 1.0f);

  fprintf(stderr, "register:\n");
  float data[16];
  MemRef2D view = {data, data, 2, {3, 4}, {4, 1}};
  UnrankedMemRef unranked = {2, &view};
  _mlir_ciface_register(&unranked);

  fprintf(stderr, "fork_join:\n");
  _mlir_ciface_fork_join(10);

  fprintf(stderr, "memset16:\n");
  _mlir_ciface_memset16(7);

  fprintf(stderr, "cluster:\n");
  float x[16];
  MemRef1D mx = {x, x, 0, {16}, {1}};
  _mlir_ciface_cluster(&mx);

  fprintf(stderr, "tma:\n");
  static uint16_t tensor[256 * 128];
  MemRef2D mt = {tensor, tensor, 0, {256, 128}, {128, 1}};
  void *descriptor = _mlir_ciface_tma(&mt);
  fprintf(stderr, "tma: device descriptor %s\n", descriptor ? "set" : "null");

  fprintf(stderr, "done: error %d %s\n", llmcCudaSynchronize(),
          llmcCudaGetLastErrorMessage());
  return 0;
}
