//===- TensorParallel.h - llmc's MPI job setup ------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc run --tensor-parallel N` under `mpirun -np N`: each process
// initializes MPI, learns its rank, and compiles the program of that rank
// (docs/TensorParallelism.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_TENSORPARALLEL_H
#define LLMC_TOOLS_LLMC_TENSORPARALLEL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llmc {

/// This process's place in a tensor-parallel job.
struct TensorParallelRank {
  int64_t rank = 0;
  int64_t size = 1;
  /// The pipeline options that compile this rank's program
  /// (" tensor-parallel=N rank=R").
  std::string pipelineOptions() const;
};

/// Whether llmc was built with MPI (Debian's libopenmpi-dev when CMake
/// found it).
bool haveMPI();

/// Initializes MPI for an `ranks`-way job and returns this process's rank.
/// Errors: llmc built without MPI; `ranks` < 2; a job whose size
/// (`mpirun -np`) differs from `ranks`. The other ranks of a job that fails
/// here fail the same way, so none waits in a collective.
llvm::Expected<TensorParallelRank> initTensorParallel(int64_t ranks);

/// An error message when `module` already holds shard dialect ops (it was
/// partitioned before) and llmc is not asked for --tensor-parallel, which
/// shards the unsharded model itself; "" otherwise.
std::string checkNoShardOps(mlir::ModuleOp module);

/// Waits until every rank of the job gets here (MPI_Barrier; nothing
/// without a job): called once the rank's program is compiled, so that no
/// rank's first timed call includes waiting for another rank's compile.
void waitForAllRanks();

/// Fails on every rank of the job, with the same message, when `what` (a
/// description of the work this rank is about to do: its model's entry
/// and inputs, target and run options) differs between the ranks: they
/// would issue different collectives and hang or corrupt each other's
/// buffers. Nothing without a job.
llvm::Error checkSameOnAllRanks(llvm::StringRef what);

/// Sends this process's stdout to /dev/null (the ranks other than 0 of a
/// job: rank 0 prints the results and timings for the job).
void silenceStdout();

/// Whether `pipelineOptions` (an MLIR pass-option string: `key=value`
/// entries separated by spaces, values possibly in `{...}` or quotes) sets
/// `tensor-parallel` at its top level. A nested option list or a quoted
/// value that contains the text does not count.
bool hasTensorParallelOption(llvm::StringRef pipelineOptions);

/// `llmc run/generate` without --tensor-parallel: `tensor-parallel=` in
/// `pipelineOptions` is an error (the rank's program would call MPI in a
/// process that joined no MPI job: OpenMPI aborted with its own message).
llvm::Error checkNoTensorParallelOption(llvm::StringRef pipelineOptions);

/// `llmc run/generate --tensor-parallel N`: joins the MPI job
/// (initTensorParallel), appends this rank's options to `pipelineOptions`
/// and sends stdout to /dev/null on the ranks other than 0. Returns whether
/// this process is rank 0 (it prints and writes for the job). Errors: those
/// of initTensorParallel; `tensor-parallel=` already in `pipelineOptions`.
llvm::Expected<bool> joinTensorParallelJob(int64_t ranks,
                                           std::string &pipelineOptions);

/// `--target cuda`: gives this rank its own GPU of the node: sets
/// LLMC_CUDA_DEVICE to its node-local rank modulo `numDevices`, unless
/// LLMC_CUDA_DEVICE is set already. Call after initTensorParallel and
/// before llmc's CUDA runtime initializes (before compiling).
void selectLocalCUDADevice(int numDevices);

/// `--target cuda`: creates the job's NCCL communicator in llmc's CUDA
/// runtime (loaded with the compiled model): rank 0 creates the id
/// (llmcCudaGetNcclUniqueId), MPI broadcasts it, every rank joins
/// (llmcCudaInitTensorParallel). Errors: the runtime not loaded, NCCL
/// missing, a failed NCCL call; when rank 0 fails, every rank fails.
llvm::Error initNCCLCommunicator();

/// Ends MPI (MPI_Finalize) if initTensorParallel started it, after
/// leaving the NCCL communicator of initNCCLCommunicator; returns `rc`.
int finishTensorParallel(int rc);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_TENSORPARALLEL_H
