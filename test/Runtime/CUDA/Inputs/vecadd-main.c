/* The host program of ../vecadd.mlir: c = a + b on 16 floats through the
   lowered @vecadd (its C interface), then the runtime's error check. */
#include "llm/Runtime/CUDA/CUDARuntime.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1D;

void _mlir_ciface_vecadd(MemRef1D *a, MemRef1D *b, MemRef1D *c);

int main(void) {
  float a[16], b[16], c[16];
  for (int i = 0; i < 16; ++i) {
    a[i] = (float)i;
    b[i] = (float)(100 * i);
    c[i] = -1.0f;
  }
  MemRef1D ma = {a, a, 0, {16}, {1}}, mb = {b, b, 0, {16}, {1}},
           mc = {c, c, 0, {16}, {1}};
  _mlir_ciface_vecadd(&ma, &mb, &mc);
  if (llmcCudaSynchronize() != 0) {
    fprintf(stderr, "vecadd: %s\n", llmcCudaGetLastErrorMessage());
    return 1;
  }
  printf("c =");
  int ok = 1;
  for (int i = 0; i < 16; ++i) {
    printf(" %g", c[i]);
    ok &= c[i] == a[i] + b[i];
  }
  printf("\n%s\n", ok ? "ok" : "wrong");
  fflush(stdout);
  return 0;
}
