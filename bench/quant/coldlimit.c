//===- coldlimit.c - hand-written int4 decode kernels, warm and cold ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An experiment, not part of llmc: how fast can a 1x4096 @ 4096x4096 int4
// decode matvec with llmc's AVX512-BF16 arithmetic (per 64 bytes of packed
// weight and row: 3 shifts, 4 `vpermw` table lookups, 8 `vdpbf16ps`; x as two
// bf16 terms) run when its weight comes from DRAM, and what do the per-group
// scales and zero points (groups of 128, as bench.py's int4 model) cost?
// It answers whether llmc's kernel or this machine limits the cold ratio of
// bench.py (docs/Quantization.md, "Decode speed").
//
//   clang-22 -O3 -march=native bench/quant/coldlimit.c -o coldlimit
//   taskset -c 0 ./coldlimit KERNEL ROWS
//
// KERNEL:
//   f32     the f32 matvec (4 rows at a time) over a 64 MiB weight;
//   noparam the int4 kernel with one constant table and scale: the weight
//           stream alone;
//   param   the int4 kernel reading a scale (f32) and a zero point (i8,
//           selecting the table) per row and group of 128 from their own
//           arrays, interleaved by blocks of ROWS rows, as llmc lays them
//           out.
// ROWS: weight rows per block (1, 2, 4 or 8). Prints the median ms of 30
// calls warm (back to back) and 30 cold (1 GiB read before each call,
// outside the timed region). Needs AVX512-BF16 and AVX512-BW.
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kN = 4096, kK = 4096, kCalls = 30 };
static const size_t kEvictBytes = (size_t)1 << 30;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *allocate(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes)) {
    fprintf(stderr, "coldlimit: cannot allocate %zu bytes\n", bytes);
    exit(1);
  }
  memset(p, 1, bytes);
  return p;
}

static volatile float sink;
static char *evictBuffer;

static void evict(void) {
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < kEvictBytes; i += 64)
    s = _mm512_add_ps(s, _mm512_load_ps((const float *)(evictBuffer + i)));
  sink = _mm512_reduce_add_ps(s);
}

__attribute__((noinline)) static void matvecF32(const float *w, const float *x,
                                                float *y) {
  for (int n = 0; n < kN; n += 4) {
    __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 0; k < kK; k += 16) {
      __m512 xv = _mm512_loadu_ps(x + k);
      for (int r = 0; r < 4; ++r)
        a[r] = _mm512_fmadd_ps(_mm512_loadu_ps(w + (size_t)(n + r) * kK + k),
                               xv, a[r]);
    }
    for (int r = 0; r < 4; ++r)
      y[n + r] = _mm512_reduce_add_ps(a[r]);
  }
}

/// The int4 kernel over `rows`-row blocks (weight interleaved by 64-byte
/// chunks); with `scales`/`zeros` (interleaved [N / rows, 32 * rows]) null,
/// one constant table and scale.
__attribute__((noinline)) static void
matvecInt4(int rows, const char *w, const float *scales,
           const signed char *zeros, const __m512i *tables,
           const __m512bh *xh, const __m512bh *xl, float *y) {
  const char *p = w;
  const float *s = scales;
  const signed char *z = zeros;
  __m512i fixedTable = _mm512_load_si512(tables);
  for (int n = 0; n < kN; n += rows) {
    __m512 acc[8];
    for (int r = 0; r < rows; ++r)
      acc[r] = _mm512_setzero_ps();
    for (int c = 0; c < kK / 128; ++c) {
      for (int r = 0; r < rows; ++r) {
        __m512i words = _mm512_loadu_si512(p);
        p += 64;
        __m512i table = z ? _mm512_load_si512(tables + z[r]) : fixedTable;
        __m512 a = _mm512_setzero_ps();
        for (int q = 0; q < 4; ++q) {
          __m512i index = q ? _mm512_srli_epi16(words, 4 * q) : words;
          __m512bh v = (__m512bh)_mm512_permutexvar_epi16(index, table);
          a = _mm512_dpbf16_ps(a, v, xh[c * 4 + q]);
          a = _mm512_dpbf16_ps(a, v, xl[c * 4 + q]);
        }
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(s ? s[r] : 0.5f), a, acc[r]);
      }
      if (s) {
        s += rows;
        z += rows;
      }
    }
    for (int r = 0; r < rows; ++r)
      y[n + r] = _mm512_reduce_add_ps(acc[r]);
  }
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: coldlimit f32|noparam|param ROWS\n");
    return 1;
  }
  const char *kernel = argv[1];
  int rows = atoi(argv[2]);
  int f32 = !strcmp(kernel, "f32"), param = !strcmp(kernel, "param");
  if ((!f32 && !param && strcmp(kernel, "noparam")) ||
      (rows != 1 && rows != 2 && rows != 4 && rows != 8)) {
    fprintf(stderr, "coldlimit: bad kernel or rows (1, 2, 4 or 8)\n");
    return 1;
  }
  evictBuffer = allocate(kEvictBytes);
  float *x = allocate(kK * sizeof(float)), *y = allocate(kN * sizeof(float));
  __m512bh *xh = allocate(kK * 2), *xl = allocate(kK * 2);
  __m512i *tables = allocate(16 * 64);
  void *w = allocate(f32 ? (size_t)kN * kK * 4 : (size_t)kN * kK / 2);
  float *scales = param ? allocate((size_t)kN * kK / 128 * 4) : NULL;
  signed char *zeros = param ? allocate((size_t)kN * kK / 128) : NULL;
  if (zeros)
    memset(zeros, 3, (size_t)kN * kK / 128);
  double warm[kCalls], cold[kCalls];
  for (int mode = 0; mode < 2; ++mode)
    for (int i = 0; i < kCalls; ++i) {
      if (mode)
        evict();
      double t0 = now();
      if (f32)
        matvecF32(w, x, y);
      else
        matvecInt4(rows, w, scales, zeros, tables, xh, xl, y);
      (mode ? cold : warm)[i] = (now() - t0) * 1e3;
    }
  qsort(warm, kCalls, sizeof(double), compare);
  qsort(cold, kCalls, sizeof(double), compare);
  printf("%s rows=%d warm %.3f ms cold %.3f ms\n", kernel, rows,
         warm[kCalls / 2], cold[kCalls / 2]);
  return 0;
}
