// One rank of a tensor-parallel GPU job over the objects `llmc compile
// --target cuda --tensor-parallel N --emit=obj` writes (each linked with
// llmc's CUDA runtime into its own program, launched together by mpirun):
// void _mlir_ciface_main_host(Desc3 *x, Desc3 *out) for x and out of shape
// [1, S, D] f32 in host memory. Each rank's GPU is chosen by LLMC_CUDA_DEVICE
// in its environment (the object loads its kernels in a global constructor,
// before main: mpirun -np 1 -x LLMC_CUDA_DEVICE=0 ./rank0 : -np 1 -x
// LLMC_CUDA_DEVICE=1 ./rank1); rank 0 creates the NCCL id and MPI broadcasts
// it, every rank joins the NCCL communicator
// (include/llm/Runtime/CUDA/CUDARuntime.h). Usage:
// PROG S D IN.bin OUT.bin; the input is raw f32, and rank 0 writes the
// output as raw f32. A CUDA or NCCL error is printed by the runtime and
// ends the job with exit 1.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llm/Runtime/CUDA/CUDARuntime.h"

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} Desc3;

void _mlir_ciface_main_host(Desc3 *x, Desc3 *out);

static void check(int rc) {
  if (rc != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 5)
    MPI_Abort(MPI_COMM_WORLD, 2);
  // Byte 0: whether rank 0 has an id (so no rank waits when it failed).
  char id[1 + LLMC_CUDA_NCCL_UNIQUE_ID_BYTES] = {0};
  if (rank == 0)
    id[0] = llmcCudaGetNcclUniqueId(id + 1) == 0;
  MPI_Bcast(id, sizeof(id), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!id[0])
    MPI_Abort(MPI_COMM_WORLD, 1);
  check(llmcCudaInitTensorParallel(id + 1, ranks, rank));

  int64_t s = atoll(argv[1]), d = atoll(argv[2]);
  float *x = malloc(s * d * sizeof(float)), *y = malloc(s * d * sizeof(float));
  FILE *in = fopen(argv[3], "rb");
  if (!in || fread(x, sizeof(float), s * d, in) != (size_t)(s * d))
    MPI_Abort(MPI_COMM_WORLD, 3);
  fclose(in);
  Desc3 dx = {x, x, 0, {1, s, d}, {s * d, d, 1}};
  Desc3 dy = {y, y, 0, {1, s, d}, {s * d, d, 1}};
  _mlir_ciface_main_host(&dx, &dy);
  check(llmcCudaSynchronize());
  if (rank == 0) {
    FILE *out = fopen(argv[4], "wb");
    if (!out || fwrite(y, sizeof(float), s * d, out) != (size_t)(s * d) ||
        fclose(out) != 0)
      MPI_Abort(MPI_COMM_WORLD, 4);
  }
  free(x);
  free(y);
  check(llmcCudaFinishTensorParallel());
  MPI_Finalize();
  return 0;
}
