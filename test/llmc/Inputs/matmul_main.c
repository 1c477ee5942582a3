// A C program that calls the object `llmc compile --emit=obj` writes for
// the model of `cache_tool.py model` (x[4,64] @ w[64,32] + b[32], w and b
// constants): void _mlir_ciface_main(Desc2 *x, Desc2 *out). x[i] is
// (i % 13 - 6) / 4; the 4x32 result is written to argv[1] as raw f32.
#include <stdint.h>
#include <stdio.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Desc2;

void _mlir_ciface_main(Desc2 *x, Desc2 *out);

int main(int argc, char **argv) {
  static float x[4 * 64], r[4 * 32];
  for (int i = 0; i < 4 * 64; ++i)
    x[i] = (float)(i % 13 - 6) / 4.0f;
  Desc2 dx = {x, x, 0, {4, 64}, {64, 1}};
  Desc2 dr = {r, r, 0, {4, 32}, {32, 1}};
  _mlir_ciface_main(&dx, &dr);
  FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
  if (!f || fwrite(r, sizeof r, 1, f) != 1)
    return 1;
  return fclose(f) != 0;
}
