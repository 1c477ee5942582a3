// ===- allreduce.c - MPI_Allreduce time per call, for tp_bench.py --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===---------------------------------------------------------------------===//
//
// The call llmc's tensor-parallel programs make after each row-parallel
// matmul: MPI_Allreduce(sum) of COUNT floats from one buffer into another
// on MPI_COMM_WORLD. Rank 0 prints the median microseconds per call over
// ITERS calls (after 100 warm-up calls), each call timed between barriers.
//
// Usage: mpirun -np N ./allreduce COUNT [ITERS]
//
// ===---------------------------------------------------------------------===//

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long count = argc > 1 ? atol(argv[1]) : 768;
  int iters = argc > 2 ? atoi(argv[2]) : 1000;
  if (count < 1 || iters < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: allreduce COUNT [ITERS]\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  float *in = malloc(count * sizeof(float)),
        *out = malloc(count * sizeof(float));
  double *times = malloc(iters * sizeof(double));
  for (long i = 0; i < count; ++i)
    in[i] = (float)(i % 7) + rank;
  for (int i = 0; i < 100; ++i)
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    times[i] = (MPI_Wtime() - start) * 1e6;
  }
  qsort(times, iters, sizeof(double), compare);
  if (rank == 0)
    printf("allreduce %ld floats: median %.3f us\n", count, times[iters / 2]);
  free(in);
  free(out);
  free(times);
  MPI_Finalize();
  return 0;
}
