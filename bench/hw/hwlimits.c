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
//                          touched by the threads that read it) REPS times, in
//                          16 MiB pieces each read by all threads and timed;
//                          prints "bw WHOLE BEST" per rep in GB/s (10^9 B/s):
//                          the whole array over the summed piece times, and
//                          the fastest piece.
//   hwlimits fma MS REPS   f32 FMA peak: MS bursts of about 1 ms, each thread
//                          running 12 independent chains of fused 16-lane
//                          (AVX-512) or 8-lane (AVX2)
//                          multiply-adds; prints "fma WHOLE BEST CPU" per rep
//                          in GFLOP/s (2 FLOPs per lane per FMA); CPU is the
//                          rate per CPU second of the threads (FLOPs over
//                          their mean CPU time): the compute limit of cores
//                          not shared, however the run was scheduled.
//
// WHOLE is what the threads achieved over the rep, BEST the fastest piece or
// burst: on a machine shared with other work a piece either runs undisturbed
// or loses a time slice, so BEST estimates the limit of unshared cores. The
// threads are OpenMP threads (OMP_NUM_THREADS).
//
//===----------------------------------------------------------------------===//

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16f __attribute__((vector_size(64)));
// The FMA chains use the machine's widest vector register (an AVX2 CPU has
// no 16-lane one: the asm below keeps each chain in a register).
#ifdef __AVX512F__
enum { kFmaLanes = 16 };
#else
enum { kFmaLanes = 8 };
#endif
typedef float vfma __attribute__((vector_size(kFmaLanes * sizeof(float))));

/// The read is timed in pieces of this many MiB (each larger than the last
/// level cache, read once per rep).
static const size_t kPieceMiB = 16;

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

// Reads a[begin, end) (vectors) with all threads; returns the sum.
static float readRange(const v16f *a, size_t begin, size_t end) {
  float total = 0;
#pragma omp parallel reduction(+ : total)
  {
    v16f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
#pragma omp for schedule(static)
    for (size_t i = begin; i < end; i += 4) {
      s0 += a[i];
      s1 += a[i + 1];
      s2 += a[i + 2];
      s3 += a[i + 3];
    }
    v16f s = s0 + s1 + s2 + s3;
    for (int l = 0; l < 16; ++l)
      total += s[l];
  }
  return total;
}

static int bandwidth(long mib, int reps) {
  size_t n = (size_t)mib << 20;             // bytes
  size_t nv = n / sizeof(v16f);             // vectors
  size_t piece = (kPieceMiB << 20) / sizeof(v16f);
  v16f *a = aligned_alloc(64, nv * sizeof(v16f));
  if (!a) {
    fprintf(stderr, "hwlimits: cannot allocate %ld MiB\n", mib);
    return 1;
  }
  // First touch by the threads that read (static schedule, same split).
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < nv; ++i)
    for (int l = 0; l < 16; ++l)
      a[i][l] = (float)((i + l) & 7);
  for (int r = 0; r < reps; ++r) {
    double total = 0, best = 0;
    float sum = 0;
    for (size_t b = 0; b < nv; b += piece) {
      size_t e = b + piece < nv ? b + piece : nv;
      double t0 = now();
      sum += readRange(a, b, e);
      double t = now() - t0;
      total += t;
      double rate = (e - b) * sizeof(v16f) / t;
      best = rate > best ? rate : best;
    }
    sink = sum;
    printf("bw %.3f %.3f\n", n / total / 1e9, best / 1e9);
    fflush(stdout);
  }
  free(a);
  return 0;
}

// `iters` rounds of 12 independent kFmaLanes-lane FMAs on every thread; adds the
// threads' CPU seconds to *cpu.
static float fmaBurst(long iters, double *cpu) {
  float total = 0;
  double cpuSum = 0;
#pragma omp parallel reduction(+ : total, cpuSum)
  {
    double c0 = threadCpu();
    vfma acc[12];
    vfma m = {0}, c = {0};
    for (int l = 0; l < kFmaLanes; ++l) {
      m[l] = 0.999999f;
      c[l] = 1e-7f * l;
    }
    for (int j = 0; j < 12; ++j)
      for (int l = 0; l < kFmaLanes; ++l)
        acc[j][l] = (float)(j + l + omp_get_thread_num());
    for (long i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
      for (int j = 0; j < 12; ++j)
        acc[j] = __builtin_elementwise_fma(acc[j], m, c);
      __asm__ volatile("" : "+v"(acc[0]), "+v"(acc[6]));
    }
    for (int j = 0; j < 12; ++j)
      for (int l = 0; l < kFmaLanes; ++l)
        total += acc[j][l];
    cpuSum += threadCpu() - c0;
  }
  *cpu += cpuSum;
  return total;
}

static int fmaPeak(double ms, int reps) {
  // Calibrate a burst to about 1 ms (the fastest of a few tries).
  long iters = 1 << 12;
  double best = 1e9, cpu = 0;
  for (int i = 0; i < 20; ++i) {
    double t0 = now();
    sink = fmaBurst(iters, &cpu);
    double t = now() - t0;
    best = t < best ? t : best;
  }
  iters = (long)(iters * (1e-3 / best)) + 1;
  int bursts = (int)(ms > 1 ? ms : 1);
  double flopsPerBurst =
      2.0 * kFmaLanes * 12 * (double)iters * omp_get_max_threads();
  for (int r = 0; r < reps; ++r) {
    double total = 0, fastest = 1e9;
    cpu = 0;
    for (int b = 0; b < bursts; ++b) {
      double t0 = now();
      sink = fmaBurst(iters, &cpu);
      double t = now() - t0;
      total += t;
      fastest = t < fastest ? t : fastest;
    }
    // Per CPU second: all threads' FLOPs over their mean CPU time.
    double perCpu = flopsPerBurst * bursts / (cpu / omp_get_max_threads());
    printf("fma %.3f %.3f %.3f\n", flopsPerBurst * bursts / total / 1e9,
           flopsPerBurst / fastest / 1e9, perCpu / 1e9);
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
