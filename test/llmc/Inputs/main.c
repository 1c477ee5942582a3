// A C program that calls the object emitted by `llmc compile --emit=obj` for
// compile.mlir: void _mlir_ciface_main(Desc2 *a, Desc1 *b, Desc2 *out0,
// Desc0 *out1).
#include <stdint.h>
#include <stdio.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Desc2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} Desc1;
typedef struct {
  float *allocated, *aligned;
  int64_t offset;
} Desc0;

void _mlir_ciface_main(Desc2 *a, Desc1 *b, Desc2 *out0, Desc0 *out1);

int main(void) {
  float a[6] = {0, 1, 2, 3, 4, 5}, b[3] = {10, 20, 30}, r[6], s = -1;
  Desc2 da = {a, a, 0, {2, 3}, {3, 1}};
  Desc1 db = {b, b, 0, {3}, {1}};
  Desc2 dr = {r, r, 0, {2, 3}, {3, 1}};
  Desc0 ds = {&s, &s, 0};
  _mlir_ciface_main(&da, &db, &dr, &ds);
  for (int i = 0; i < 6; ++i)
    printf("%g ", r[i]);
  printf("\nsum %g\n", s);
  return 0;
}
