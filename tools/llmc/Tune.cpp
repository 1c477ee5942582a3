//===- Tune.cpp - llmc tune -------------------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc tune MODEL --tuning-cache FILE`: measures candidate tiles of each
// distinct matmul kernel of MODEL on this machine (llm/Runtime/Tuning.h) and
// stores the winners in FILE, which `llmc run/compile --tuning-cache FILE`
// (the pipelines' `tuning-cache` option) read.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"
#include "llm/Codegen/TargetDescription.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/Tuning.h"
#include "llm/Support/OutputFile.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::CPUTargetDescription;
using mlir::llm::TuningCache;
namespace cl = llvm::cl;

cl::SubCommand llmc::tuneCommand(
    "tune",
    "Measure candidate tilings of each distinct matmul kernel of MODEL "
    "(.mlir, or .onnx)\n"
    "  on this machine and store the fastest in the tuning cache FILE "
    "(JSON; created,\n"
    "  or updated: entries of other CPUs and kernels are kept). `llmc run` "
    "and\n"
    "  `llmc compile` with --tuning-cache FILE then use them; a cache made "
    "on another\n"
    "  kind of CPU is ignored with a warning. Progress on stderr; the "
    "summary (each\n"
    "  kernel, its uses, its time with the default and the tuned tiles) on "
    "stdout.");

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir|model.onnx>"),
                                      cl::sub(llmc::tuneCommand));
static cl::opt<std::string>
    cachePath("tuning-cache",
              cl::desc("The tuning cache to create or update (required)"),
              cl::value_desc("FILE"), cl::sub(llmc::tuneCommand),
              cl::cat(llmc::llmcCategory));
static cl::opt<std::string> targetName(
    "target",
    cl::desc("CPU target (default: this machine; a family such as avx2 or an "
             "x86-64 CPU name, see --print-target=NAME; it must run here)"),
    cl::init(""), cl::sub(llmc::tuneCommand), cl::cat(llmc::llmcCategory));
static cl::opt<long long>
    numThreads("threads",
               cl::desc("Threads the model will run with, 1-1024 (sets "
                        "OMP_NUM_THREADS and the pipelines' num-threads; "
                        "default: the machine's)"),
               cl::init(0), cl::sub(llmc::tuneCommand),
               cl::cat(llmc::llmcCategory));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("llm-lower-to-cpu options the model will be compiled with"),
    cl::init(""), cl::sub(llmc::tuneCommand), cl::cat(llmc::llmcCategory));
static cl::list<std::string>
    dimSpecs("dim",
             cl::desc("ONNX models: value of a symbolic dimension, "
                      "NAME=VALUE; repeatable, or comma-separated"),
             cl::value_desc("NAME=VALUE"), cl::sub(llmc::tuneCommand),
             cl::cat(llmc::llmcCategory));
static cl::opt<bool> retune(
    "retune", cl::desc("Measure kernels that have an entry for this CPU again"),
    cl::init(false), cl::sub(llmc::tuneCommand), cl::cat(llmc::llmcCategory));
static cl::opt<bool> quiet("quiet", cl::desc("No progress on stderr"),
                           cl::init(false), cl::sub(llmc::tuneCommand),
                           cl::cat(llmc::llmcCategory));

/// A tiles triple as "[8, 32, 1]".
static std::string formatTile(const std::array<int64_t, 3> &t) {
  return llvm::formatv("[{0}, {1}, {2}]", t[0], t[1], t[2]).str();
}

int llmc::tuneMain() {
  if (cachePath.empty())
    return fail("--tuning-cache FILE is required: the tuning cache to "
                "create or update");
  if (llvm::Error e =
          llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  if (numThreads.getNumOccurrences() && (numThreads < 1 || numThreads > 1024))
    return fail("--threads must be in [1, 1024], got " +
                llvm::Twine(numThreads.getValue()));
  if (StringRef(cachePath).find_first_of(" \t\n\"'{}") != StringRef::npos)
    return fail("--tuning-cache '" + cachePath +
                "': the path must not contain spaces, quotes or braces (it "
                "travels in the pipeline options)");
  // The cache is an output: not the model, not a directory.
  if (llvm::Error e = llm::checkOutputFiles(
          {{modelPath, "the model file"}},
          {{cachePath, "--tuning-cache '" + cachePath + "'"}}))
    return fail(std::move(e));
  // An existing cache is read (and must be one); otherwise a new one.
  TuningCache cache;
  if (llvm::sys::fs::exists(cachePath)) {
    llvm::Expected<TuningCache> loaded = TuningCache::load(cachePath);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()) +
                  " (not overwritten: give another --tuning-cache)");
    cache = std::move(*loaded);
  }

  TuneOptions options;
  options.lowering.pipelineOptions = pipelineOptions;
  options.retune = retune;
  if (!targetName.empty()) {
    std::string error =
        applyCPUTarget(targetName, options.lowering.pipelineOptions);
    if (!error.empty())
      return fail("--" + error);
  }
  if (numThreads.getNumOccurrences()) {
    options.lowering.pipelineOptions +=
        " num-threads=" + std::to_string(numThreads.getValue());
    setenv("OMP_NUM_THREADS", std::to_string(numThreads.getValue()).c_str(), 1);
  }
  std::string cannotRun =
      checkCPUTargetRunsHere(options.lowering.pipelineOptions);
  if (!cannotRun.empty())
    return fail(cannotRun + " (tuning runs the kernels on this machine)");

  DialectRegistry registry;
  registerRuntimeDialects(registry);
  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module =
      loadModelFile(modelPath, dimSpecs, ctx, sourceMgr);
  if (!module)
    return 1;

  // Progress: a line rewritten in place on a terminal, else one line per
  // kernel.
  bool terminal = llvm::sys::Process::StandardErrIsDisplayed();
  auto start = std::chrono::steady_clock::now();
  size_t lastDone = 0;
  options.onProgress = [&](const TuneProgress &p) {
    if (quiet)
      return;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (terminal) {
      std::string line = llvm::formatv(
          "llmc tune: [{0}/{1} kernels] {2}: candidate {3}/{4}, best {5:f3} "
          "ms (default {6:f3} ms), {7:f0} s",
          p.kernelsDone, p.kernelsTotal, p.kernel, p.candidatesDone,
          p.candidatesTotal, p.bestMs, p.defaultMs, seconds);
      unsigned width = llvm::sys::Process::StandardErrColumns();
      if (width > 1 && line.size() >= width)
        line.resize(width - 1);
      llvm::errs() << "\r" << line << "\x1b[K";
      llvm::errs().flush();
    } else if (p.kernelsDone > lastDone) {
      llvm::errs() << llvm::formatv("llmc tune: [{0}/{1} kernels] {2:f1} s\n",
                                    p.kernelsDone, p.kernelsTotal, seconds);
    }
    lastDone = p.kernelsDone;
  };
  llvm::Expected<SmallVector<TunedKernel>> results =
      tuneModel(*module, cache, cachePath, options);
  if (terminal && !quiet)
    llvm::errs() << "\r\x1b[K";
  if (!results)
    return fail(results.takeError());
  // A model without a tunable kernel still leaves a cache file behind.
  if (!llvm::sys::fs::exists(cachePath))
    if (llvm::Error e = cache.save(cachePath))
      return fail(std::move(e));

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  FailureOr<CPUTargetDescription> target = CPUTargetDescription::lookup(
      targetName.empty() ? StringRef("host") : StringRef(targetName));
  llvm::raw_ostream &os = llvm::outs();
  size_t measured = 0;
  for (const TunedKernel &k : *results)
    measured += k.candidates;
  os << "llmc tune: " << results->size() << " kernel"
     << (results->size() == 1 ? "" : "s") << " on "
     << (succeeded(target) ? mlir::llm::getTuningTargetId(*target) : "?")
     << ", " << measured << " candidates measured in "
     << llvm::format("%.1f", seconds) << " s; cache: " << cachePath << "\n";
  if (results->empty())
    os << "  nothing to tune: the model has no matmul or attention with "
          "static shapes (a dynamic sequence's kernels are not tuned)\n";
  for (const TunedKernel &k : *results) {
    os << "  " << k.kernel << " (x" << k.uses << "): ";
    // The tiles of the entry.
    std::string tiles =
        mlir::llm::isAttentionKernel(k.kernel)
            ? llvm::formatv("attention tile [{0}, {1}]",
                            k.entry.attentionTile[0], k.entry.attentionTile[1])
                  .str()
            : "register " + formatTile(k.entry.registerTile) + ", cache " +
                  formatTile(k.entry.cacheTile);
    switch (k.status) {
    case TunedKernel::Status::Tuned:
      os << llvm::format("%.4f ms -> %.4f ms (%.2fx)", k.entry.defaultMs,
                         k.entry.timeMs,
                         k.entry.defaultMs / std::max(k.entry.timeMs, 1e-9))
         << ", " << tiles << "\n";
      break;
    case TunedKernel::Status::Default:
      os << llvm::format("%.4f ms", k.entry.defaultMs)
         << ", the default tiles are the fastest (" << tiles << ")\n";
      break;
    case TunedKernel::Status::Cached:
      os << "in the cache (" << tiles << "; --retune measures it again)\n";
      break;
    case TunedKernel::Status::Skipped:
      os << "skipped: " << k.reason << "\n";
      break;
    }
  }
  return 0;
}
