//===- Tuning.h - Measure matmul tiles on this machine ----------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The autotuner behind `llmc tune` (in the manner of TVM's AutoTVM: measure
// candidate schedules of each distinct workload on the machine, keep the
// winners in a log that later compiles read). For each distinct matmul
// kernel of a model, as `llm-tile-and-vectorize` will see it, it compiles a
// one-matmul module with the same shape, element types and kind of B (a
// constant of random values, or an argument) for each candidate tiling
// (llm/Codegen/TuningCache.h: register tiles, then cache tiles along N,
// then along K, each round starting from the best so far), runs it on
// random inputs and keeps the fastest, which goes into the tuning cache
// only when it beats the target's default tiles.
//
// Timing: each candidate is run once to warm up, then in batches of calls
// lasting about 2 ms; its time is the fastest batch's mean per call. A
// kernel with fewer rows than the target's register tile (a decode matvec)
// is timed cold instead: before each call a buffer of twice the L3 size is
// read, so that its weight streams from memory as in a decode step; its
// time is the median of the calls.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_TUNING_H
#define LLM_RUNTIME_TUNING_H

#include "llm/Codegen/TuningCache.h"
#include "llm/Runtime/CompiledModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace mlir::llm::runtime {

/// Where a tuning run stands, for a progress display.
struct TuneProgress {
  /// Kernels finished (tuned, taken from the cache or skipped) and in all.
  size_t kernelsDone = 0, kernelsTotal = 0;
  /// The kernel being measured (its key), and its candidates measured and
  /// planned (the plan grows by round).
  std::string kernel;
  size_t candidatesDone = 0, candidatesTotal = 0;
  /// Its default tiles' time and the best time so far, in milliseconds (0:
  /// not measured yet).
  double defaultMs = 0, bestMs = 0;
};

/// Options of `tuneModel`.
struct TuneOptions {
  /// How the model will be compiled (target "cpu"; `pipelineOptions` give
  /// the CPU target, `num-threads`, `parallel`, ...). They must not name a
  /// tuning cache.
  LoweringOptions lowering;
  unsigned optLevel = 3;
  /// Measure the kernels that already have an entry for this kind of CPU
  /// too (default: keep those).
  bool retune = false;
  /// Called as the run progresses (from the calling thread).
  std::function<void(const TuneProgress &)> onProgress;
};

/// What happened to one distinct kernel of the model.
struct TunedKernel {
  enum class Status {
    /// Measured now; `entry` holds the winner.
    Tuned,
    /// The default tiles were the fastest: no entry is stored.
    Default,
    /// The cache had an entry for it already (`entry`).
    Cached,
    /// Not tunable (`reason`).
    Skipped
  };
  std::string kernel;
  /// How many matmuls of the model are this kernel.
  int64_t uses = 0;
  Status status = Status::Skipped;
  std::string reason;
  TuningEntry entry;
  /// Candidates measured (with the default).
  size_t candidates = 0;
};

/// Tunes every distinct matmul kernel of `model` (not modified) and adds
/// the winners to `cache`, which is written to `cachePath` after each kernel
/// (so an interrupted run keeps what it measured). Entries of other kinds of
/// CPU in `cache` are kept. Errors: the options do not parse, name another
/// target than "cpu" or an unknown CPU target, the model does not lower, a
/// tuning cache named in the pipeline options, a failing compile of a measured
/// kernel, or a cache that cannot be written.
llvm::Expected<SmallVector<TunedKernel>> tuneModel(ModuleOp model,
                                                   TuningCache &cache,
                                                   llvm::StringRef cachePath,
                                                   const TuneOptions &options);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_TUNING_H
