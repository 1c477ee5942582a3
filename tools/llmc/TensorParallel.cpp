//===- TensorParallel.cpp - llmc's MPI job setup --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TensorParallel.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#if LLMC_HAVE_MPI
#include <mpi.h>
#endif

using namespace llmc;

std::string TensorParallelRank::pipelineOptions() const {
  return " tensor-parallel=" + std::to_string(size) +
         " rank=" + std::to_string(rank);
}

bool llmc::haveMPI() { return LLMC_HAVE_MPI; }

#if LLMC_HAVE_MPI
static bool startedMPI = false;
/// This process's place in the job initTensorParallel joined.
static TensorParallelRank job;
/// Whether initNCCLCommunicator created the CUDA runtime's communicator.
static bool startedNCCL = false;
#endif

llvm::Expected<TensorParallelRank> llmc::initTensorParallel(int64_t ranks) {
  if (ranks < 2)
    return llvm::createStringError(
        "--tensor-parallel must be at least 2, got " + llvm::Twine(ranks));
#if LLMC_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
      return llvm::createStringError("--tensor-parallel: MPI_Init failed");
    startedMPI = true;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != ranks)
    return llvm::createStringError(
        "--tensor-parallel " + llvm::Twine(ranks) + " needs a job of " +
        llvm::Twine(ranks) + " processes (mpirun -np " + llvm::Twine(ranks) +
        " llmc run ...); this job has " + llvm::Twine(size));
  // OpenMPI connects the ranks at their first collective: done here, so
  // that the model's first call (a prefill, timed) does not pay for it.
  float zero = 0, sum = 0;
  MPI_Allreduce(&zero, &sum, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  TensorParallelRank result;
  result.rank = rank;
  result.size = size;
  job = result;
  return result;
#else
  return llvm::createStringError(
      "--tensor-parallel: this llmc was built without MPI (install "
      "libopenmpi-dev and openmpi-bin, then rebuild)");
#endif
}

std::string llmc::checkNoShardOps(mlir::ModuleOp module) {
  std::string name;
  module.walk([&](mlir::Operation *op) {
    if (op->getName().getDialectNamespace() == "shard") {
      name = op->getName().getStringRef().str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (name.empty())
    return "";
  return "the model holds shard ops ('" + name +
         "'): it was sharded before; llmc shards the unsharded model itself "
         "with --tensor-parallel N (under mpirun -np N)";
}

void llmc::waitForAllRanks() {
#if LLMC_HAVE_MPI
  if (startedMPI)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

llvm::Error llmc::checkSameOnAllRanks(llvm::StringRef what) {
#if LLMC_HAVE_MPI
  if (!startedMPI)
    return llvm::Error::success();
  unsigned long long hash = llvm::xxh3_64bits(what), least = 0, most = 0;
  MPI_Allreduce(&hash, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                MPI_COMM_WORLD);
  MPI_Allreduce(&hash, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                MPI_COMM_WORLD);
  if (least != most)
    return llvm::createStringError(
        "--tensor-parallel: the ranks were started differently (model, "
        "inputs, --target, --pipeline-options, --repeat or --warmup): "
        "every rank of the job must run the same; this rank: " +
        what.str());
#else
  (void)what;
#endif
  return llvm::Error::success();
}

void llmc::silenceStdout() {
  llvm::outs().flush();
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
}

bool llmc::hasTensorParallelOption(llvm::StringRef pipelineOptions) {
  // Walks the top-level entries: braces nest, quotes group.
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  auto isKey = [&](size_t end) {
    llvm::StringRef entry = pipelineOptions.slice(start, end).trim();
    return entry.split('=').first.trim() == "tensor-parallel" &&
           entry.contains('=');
  };
  for (size_t i = 0; i < pipelineOptions.size(); ++i) {
    char c = pipelineOptions[i];
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (c == ' ' && depth == 0) {
      if (isKey(i))
        return true;
      start = i + 1;
    }
  }
  return isKey(pipelineOptions.size());
}

llvm::Error llmc::checkNoTensorParallelOption(llvm::StringRef pipelineOptions) {
  if (!hasTensorParallelOption(pipelineOptions))
    return llvm::Error::success();
  return llvm::createStringError(
      "tensor-parallel= in --pipeline-options needs the MPI job that "
      "--tensor-parallel N joins: give --tensor-parallel N (under mpirun -np "
      "N) instead");
}

llvm::Expected<bool> llmc::joinTensorParallelJob(int64_t ranks,
                                                 std::string &pipelineOptions) {
  if (hasTensorParallelOption(pipelineOptions))
    return llvm::createStringError("give --tensor-parallel or "
                                   "tensor-parallel= in --pipeline-options, "
                                   "not both");
  llvm::Expected<TensorParallelRank> tp = initTensorParallel(ranks);
  if (!tp)
    return tp.takeError();
  pipelineOptions += tp->pipelineOptions();
  if (tp->rank != 0)
    silenceStdout();
  return tp->rank == 0;
}

void llmc::selectLocalCUDADevice(int numDevices) {
#if LLMC_HAVE_MPI
  const char *chosen = std::getenv("LLMC_CUDA_DEVICE");
  if (!startedMPI || numDevices < 1 || (chosen && *chosen))
    return;
  // The node-local rank: the rank among the processes sharing memory.
  MPI_Comm node;
  int localRank = 0;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job.rank,
                          MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &localRank);
    MPI_Comm_free(&node);
  }
  ::setenv("LLMC_CUDA_DEVICE", std::to_string(localRank % numDevices).c_str(),
           /*overwrite=*/1);
#else
  (void)numDevices;
#endif
}

llvm::Error llmc::initNCCLCommunicator() {
#if LLMC_HAVE_MPI
  using GetIdFn = int (*)(void *);
  using InitFn = int (*)(const void *, int, int);
  using MessageFn = const char *(*)();
  auto getId = reinterpret_cast<GetIdFn>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "llmcCudaGetNcclUniqueId"));
  auto init = reinterpret_cast<InitFn>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "llmcCudaInitTensorParallel"));
  auto message = reinterpret_cast<MessageFn>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "llmcCudaGetLastErrorMessage"));
  // Every rank takes part in the broadcast, whatever fails, so that none
  // waits for the others. Byte 0 says whether rank 0 has an id; the id
  // follows, or rank 0's error message, which every rank then reports
  // (a rank that fails first ends the job, maybe before rank 0 prints).
  char buffer[1 + 1024] = {0};
  std::string error;
  if (!getId || !init || !message)
    error = "--tensor-parallel: llmc's CUDA runtime (its NCCL functions) is "
            "not loaded";
  else if (job.rank == 0 && getId(buffer + 1) != 0)
    error = message();
  else if (job.rank == 0)
    buffer[0] = 1;
  if (job.rank == 0 && !buffer[0])
    std::strncpy(buffer + 1, error.c_str(), sizeof(buffer) - 2);
  MPI_Bcast(buffer, sizeof(buffer), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (error.empty() && !buffer[0])
    error = std::string(buffer + 1);
  if (!error.empty())
    return llvm::createStringError(error);
  // Waits until every rank joined.
  if (init(buffer + 1, job.size, job.rank) != 0)
    return llvm::createStringError(message());
  startedNCCL = true;
  return llvm::Error::success();
#else
  return llvm::createStringError(
      "--tensor-parallel: this llmc was built without MPI");
#endif
}

int llmc::finishTensorParallel(int rc) {
#if LLMC_HAVE_MPI
  if (startedNCCL) {
    startedNCCL = false;
    auto finish = reinterpret_cast<int (*)()>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "llmcCudaFinishTensorParallel"));
    auto message = reinterpret_cast<const char *(*)()>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "llmcCudaGetLastErrorMessage"));
    // (llmc prints the runtime's errors itself.)
    if (finish && finish() != 0 && rc == 0) {
      llvm::errs() << "llmc: error: " << (message ? message() : "") << "\n";
      rc = 1;
    }
  }
  if (startedMPI) {
    startedMPI = false;
    // A failing rank ends the job: the others may be waiting in a
    // collective for it.
    if (rc != 0)
      MPI_Abort(MPI_COMM_WORLD, rc);
    MPI_Finalize();
  }
#endif
  return rc;
}
