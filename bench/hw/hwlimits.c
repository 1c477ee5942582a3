//===- hwlimits.c - measured memory read bandwidth and f32 FMA peak -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The two roofs of the benchmark's roofline, measured in the same run as the
// workloads (bench/run compiles this with clang-22 -O3 -march=native -fopenmp
// and runs it under the same taskset and OMP_NUM_THREADS as the workloads).
//
//   hwlimits bw MIB REPS   read bandwidth: sums a MIB-MiB float array (first
//                          touched by the thread that reads it) REPS times;
//                          prints one line per rep, "bw WALL CPU" in GB/s
//                          (10^9 bytes/s).
//   hwlimits fma MS REPS   f32 FMA peak: each thread runs 12 independent
//                          chains of 16-lane fused multiply-adds for about MS
//                          milliseconds; prints "fma WALL CPU" in GFLOP/s per
//                          rep (2 FLOPs per lane per FMA).
//
// WALL is the work over the wall time of the rep: what the threads achieved
// while sharing the machine. CPU is the sum over threads of each thread's work
// over its own CPU time (CLOCK_THREAD_CPUTIME_ID): the rate while it actually
// ran, which estimates the limit of cores that are not shared (on a loaded
// machine WALL falls with the share of the cores the run gets; CPU does not).
// The threads are OpenMP threads (OMP_NUM_THREADS). Each line is printed after
// a rep, so the caller takes the median and best of the reps.
//
//===----------------------------------------------------------------------===//

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16f __attribute__((vector_size(64)));

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double threadCpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile float sink;

static int bandwidth(long mib, int reps) {
  size_t n = (size_t)mib << 20;            // bytes
  size_t nv = n / sizeof(v16f);            // vectors
  v16f *a = aligned_alloc(64, nv * sizeof(v16f));
  if (!a) {
    fprintf(stderr, "hwlimits: cannot allocate %ld MiB\n", mib);
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < nv; ++i)
    for (int l = 0; l < 16; ++l)
      a[i][l] = (float)((i + l) & 7);
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    float total = 0;
    double cpuRate = 0; // sum over threads of bytes / thread CPU seconds
#pragma omp parallel reduction(+ : total, cpuRate)
    {
      v16f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
      double c0 = threadCpu();
      size_t mine = 0;
#pragma omp for schedule(static) nowait
      for (size_t i = 0; i < nv; i += 4) {
        mine += 4;
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
      }
      double c = threadCpu() - c0;
      if (c > 0)
        cpuRate += mine * sizeof(v16f) / c;
      v16f s = s0 + s1 + s2 + s3;
      for (int l = 0; l < 16; ++l)
        total += s[l];
    }
    double t = now() - t0;
    sink = total;
    printf("bw %.3f %.3f\n", n / t / 1e9, cpuRate / 1e9);
    fflush(stdout);
  }
  free(a);
  return 0;
}

static int fmaPeak(double ms, int reps) {
  // Calibrate the iteration count on one thread so a rep takes about `ms`.
  long iters = 1 << 16;
  for (int r = -1; r < reps; ++r) {
    double t0 = now();
    float total = 0;
    double cpuRate = 0; // sum over threads of FLOPs / thread CPU seconds
#pragma omp parallel reduction(+ : total, cpuRate)
    {
      double c0 = threadCpu();
      v16f acc[12];
      v16f m = {0}, c = {0};
      for (int l = 0; l < 16; ++l) {
        m[l] = 0.999999f;
        c[l] = 1e-7f * l;
      }
      for (int j = 0; j < 12; ++j)
        for (int l = 0; l < 16; ++l)
          acc[j][l] = (float)(j + l + omp_get_thread_num());
      for (long i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
        for (int j = 0; j < 12; ++j)
          acc[j] = __builtin_elementwise_fma(acc[j], m, c);
        __asm__ volatile("" : "+v"(acc[0]), "+v"(acc[6]));
      }
      for (int j = 0; j < 12; ++j)
        for (int l = 0; l < 16; ++l)
          total += acc[j][l];
      double spent = threadCpu() - c0;
      if (spent > 0)
        cpuRate += 2.0 * 16 * 12 * (double)iters / spent;
    }
    double t = now() - t0;
    sink = total;
    if (r < 0) {
      // Calibration rep: scale to the requested duration.
      double scale = (ms * 1e-3) / t;
      iters = (long)(iters * (scale > 1 ? scale : 1));
      continue;
    }
    double flops = 2.0 * 16 * 12 * (double)iters * omp_get_max_threads();
    printf("fma %.3f %.3f\n", flops / t / 1e9, cpuRate / 1e9);
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[1], "bw") && strcmp(argv[1], "fma"))) {
    fprintf(stderr, "usage: hwlimits bw MIB REPS | hwlimits fma MS REPS\n");
    return 2;
  }
  long x = atol(argv[2]);
  int reps = atoi(argv[3]);
  if (x <= 0 || reps <= 0) {
    fprintf(stderr, "hwlimits: MIB/MS and REPS must be positive\n");
    return 2;
  }
  return argv[1][0] == 'b' ? bandwidth(x, reps) : fmaPeak((double)x, reps);
}
