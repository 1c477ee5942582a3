//===- Progress.h - Compile progress reporting ------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Progress of a compilation: the stage running and the share of the whole
// compilation done. The runtime reports it (a pass instrumentation counts the
// `llm-lower-to-cpu` passes; translation, LLVM IR optimization, codegen and
// loading are stages of their own) to a CompileProgress; `llmc` shows it as
// one updating line on a terminal (TerminalProgress).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_PROGRESS_H
#define LLM_RUNTIME_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::llm::runtime {

/// The share of a whole compilation (parse or import from 0, lowering,
/// LLVM) at which each stage starts: between what `llmc run` measured on
/// examples/gpt2_block.mlir (lowering 32%, LLVM IR optimization 28%, codegen
/// 20%) and on a 4-layer d768 GPT-2 with 140 MB of weights (parse 17%,
/// translation 10%, codegen 43%). The lowering passes split their range
/// evenly.
namespace progress {
inline constexpr double kLowering = 0.10;
inline constexpr double kTranslation = 0.45;
inline constexpr double kOptimization = 0.52;
inline constexpr double kCodegen = 0.70;
inline constexpr double kLoading = 0.97;
} // namespace progress

/// Receives the progress of a compilation. Calls may come from several
/// threads (passes on nested operations run in parallel); implementations
/// synchronize.
class CompileProgress {
public:
  virtual ~CompileProgress();
  /// Stage `stage` (e.g. "lowering: convert-llm-to-linalg") is running and
  /// `fraction` (0 to 1) of the compilation is done.
  virtual void update(llvm::StringRef stage, double fraction) = 0;
  /// Hides whatever was shown (before a diagnostic is printed, or at the
  /// end); a later update shows it again.
  virtual void clear() = 0;
};

/// Shows the progress as one line, `llmc: [ 42%] STAGE`, rewritten in place
/// (`\r`, the line, then clear-to-end-of-line) on `os`, a terminal. Nothing
/// is written until `delay` has passed since construction (a short compile
/// shows nothing), nor more often than every `interval` unless the
/// percentage changes; `clear()` erases the line.
class TerminalProgress : public CompileProgress {
public:
  TerminalProgress(
      llvm::raw_ostream &os, std::chrono::milliseconds delay,
      std::chrono::milliseconds interval = std::chrono::milliseconds(50));
  ~TerminalProgress() override;

  void update(llvm::StringRef stage, double fraction) override;
  void clear() override;

  /// The line shown for `stage` at `fraction`: `llmc: [ 42%] STAGE` (the
  /// percentage rounded down, right-aligned in 3 columns), cut to `width`
  /// columns (0: no limit).
  static std::string format(llvm::StringRef stage, double fraction,
                            unsigned width = 0);

private:
  llvm::raw_ostream &os;
  std::chrono::steady_clock::time_point start, lastWrite;
  std::chrono::milliseconds delay, interval;
  std::mutex mutex;
  std::string shown;
  int shownPercent = -1;
  unsigned width;
};

/// Measures the wall time of each compile stage from the progress updates
/// it sees (forwarding them to `inner`, when given): a stage is the text of
/// an update up to its first ':' (`lowering: convert-llm-to-linalg` counts
/// as `lowering`), with `importing PATH` / `parsing PATH` as `importing` /
/// `parsing`; it lasts until the next stage starts or `finish`. `llmc
/// --mlir-timing` prints the table.
class StageTimer : public CompileProgress {
public:
  explicit StageTimer(CompileProgress *inner = nullptr) : inner(inner) {}

  void update(llvm::StringRef stage, double fraction) override;
  void clear() override;
  /// Starts stage `stage` without a progress update (e.g. writing outputs).
  void begin(llvm::StringRef stage);
  /// Ends the current stage.
  void finish();
  /// `===- llmc compile stages -===` then one line per stage in the order
  /// first seen, `  12.345 s ( 40.1%)  lowering`, and the total.
  void print(llvm::raw_ostream &os) const;

private:
  CompileProgress *inner;
  std::vector<std::pair<std::string, double>> stages;
  std::string current;
  std::chrono::steady_clock::time_point since;
};

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_PROGRESS_H
