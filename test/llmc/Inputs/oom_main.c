// A C program that calls the object emitted by `llmc compile --emit=obj` for
// run-limits.mlir's huge-mid.mlir, whose 64 TiB intermediate cannot be
// allocated: void _mlir_ciface_main(Desc2 *a, Desc2 *b, Desc1 *out).
// Built with -DHANDLER it defines llmc's out-of-memory handler
// (__llmc_out_of_memory), which wins over the object's weak one; without,
// the object's own reports and exits.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4194304

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Desc2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} Desc1;

void _mlir_ciface_main(Desc2 *a, Desc2 *b, Desc1 *out);

#ifdef HANDLER
void __llmc_out_of_memory(int64_t bytes) {
  printf("handler: %lld bytes\n", (long long)bytes);
  exit(3);
}
#endif

int main(void) {
  float *a = calloc(N, sizeof(float)), *b = calloc(N, sizeof(float)),
        *r = calloc(N, sizeof(float));
  if (!a || !b || !r)
    return 2;
  Desc2 da = {a, a, 0, {N, 1}, {1, 1}};
  Desc2 db = {b, b, 0, {1, N}, {N, 1}};
  Desc1 dr = {r, r, 0, {N}, {1}};
  _mlir_ciface_main(&da, &db, &dr);
  printf("returned\n");
  return 0;
}
