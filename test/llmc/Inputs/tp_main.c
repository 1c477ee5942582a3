// One rank of a tensor-parallel job over the objects `llmc compile
// --tensor-parallel N --emit=obj` writes (each linked into its own program,
// launched together by mpirun): void _mlir_ciface_main(Desc3 *x, Desc3 *out)
// for x and out of shape [1, S, D] f32. Usage: PROG S D IN.bin OUT.bin; the
// input is raw f32, and rank 0 writes the output as raw f32.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} Desc3;

void _mlir_ciface_main(Desc3 *x, Desc3 *out);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 5)
    MPI_Abort(MPI_COMM_WORLD, 2);
  int64_t s = atoll(argv[1]), d = atoll(argv[2]);
  float *x = malloc(s * d * sizeof(float)), *y = malloc(s * d * sizeof(float));
  FILE *in = fopen(argv[3], "rb");
  if (!in || fread(x, sizeof(float), s * d, in) != (size_t)(s * d))
    MPI_Abort(MPI_COMM_WORLD, 3);
  fclose(in);
  Desc3 dx = {x, x, 0, {1, s, d}, {s * d, d, 1}};
  Desc3 dy = {y, y, 0, {1, s, d}, {s * d, d, 1}};
  _mlir_ciface_main(&dx, &dy);
  if (rank == 0) {
    FILE *out = fopen(argv[4], "wb");
    if (!out || fwrite(y, sizeof(float), s * d, out) != (size_t)(s * d) ||
        fclose(out) != 0)
      MPI_Abort(MPI_COMM_WORLD, 4);
  }
  free(x);
  free(y);
  MPI_Finalize();
  return 0;
}
