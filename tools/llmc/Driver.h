//===- Driver.h - Options and helpers of llmc run and compile ---*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The command-line options and helpers that `llmc run` (llmc.cpp) and
// `llmc compile` (Compile.cpp) share. The options are defined in llmc.cpp,
// where `llmc --help` lists them in order.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_DRIVER_H
#define LLMC_TOOLS_LLMC_DRIVER_H

#include "TensorParallel.h"
#include "llm/Runtime/Progress.h"
#include "llm/Support/OutputFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <string>

namespace llmc::driver {

/// `compile --emit`: what to write.
enum class EmitKind { MLIR, LLVM, Obj, PTX, Fatbin, Exe, Shared };
/// `compile --report[=table|json]`.
enum class ReportKind { None, Table, JSON };

extern llvm::cl::SubCommand compileCommand;

// Options of every command (see their descriptions in llmc.cpp).
extern llvm::cl::opt<std::string> modelPath;
extern llvm::cl::opt<std::string> pipelineOptions;
extern llvm::cl::opt<bool> verifyEach;
extern llvm::cl::opt<bool> verifyMemoryPlan;
extern llvm::cl::opt<bool> mlirTiming;
extern llvm::cl::opt<int64_t> tensorParallel;
extern llvm::cl::opt<std::string> targetName;
extern llvm::cl::opt<std::string> entryName;
extern llvm::cl::opt<bool> noOpt;
extern llvm::cl::opt<unsigned> optLevel;
// Options of `compile` (and `-o` of `import`).
extern llvm::cl::list<std::string> chips;
extern llvm::cl::opt<std::string> toolkitPath;
extern llvm::cl::opt<std::string> outputPath;
extern llvm::cl::opt<EmitKind> emitKind;
extern llvm::cl::opt<ReportKind> reportKind;
extern llvm::cl::opt<std::string> reportFile;
/// The rank a `compile --tensor-parallel N` is compiling (size 1: none).
extern TensorParallelRank compileRank;

/// Prints `llmc: error: <msg>` (llmc::fail) after clearing the progress
/// line, and returns the exit code 1.
int fail(const llvm::Twine &msg);
int fail(llvm::Error err);

/// True when MODEL is an ONNX model (by its extension).
bool isONNXModel();

/// Checks the outputs of a command before it reads or writes anything: none
/// is empty or a directory, none is the model (or, for ONNX, one of its
/// external data files), `inputs` or another output
/// (llm::checkOutputFiles).
llvm::Error checkOutputs(llvm::ArrayRef<mlir::llm::NamedFile> inputs,
                         llvm::ArrayRef<mlir::llm::NamedFile> outputs);

/// For ONNX models: prints diagnostics as `FILE:LINE:COL: error: message`
/// (the first file location found, e.g. the importer's `MODEL.onnx:0:0`)
/// without the source line that SourceMgrDiagnosticHandler would quote from
/// the binary model. Registered after (so consulted before) the SourceMgr
/// handler.
void registerONNXDiagnosticHandler(mlir::MLIRContext &ctx);

/// Loads MODEL: imports an .onnx model, parses anything else as MLIR;
/// diagnostics go through `sourceMgr`'s handler.
mlir::OwningOpRef<mlir::ModuleOp> loadModel(mlir::MLIRContext &ctx,
                                            llvm::SourceMgr &sourceMgr);

/// Drops the `llm.name` argument and result attributes (the ONNX names): the
/// lowering would carry them onto the LLVM functions, whose translation warns
/// about unknown parameter attributes. Call after `getEntryNames`.
void stripNameAttrs(mlir::ModuleOp module);

/// The compile progress line of `llmc run` and `llmc compile` on stderr
/// (see --progress and --quiet), or null; registered as `activeProgress`
/// and cleared before every diagnostic of `ctx`.
std::unique_ptr<mlir::llm::runtime::TerminalProgress>
createProgress(mlir::MLIRContext &ctx);

/// The MLIR context of an llmc command that reads a model: llmc's dialects
/// (runtime::registerRuntimeDialects), diagnostics printed with their
/// source lines and the ONNX importer's notes (registerONNXDiagnosticHandler)
/// and, with `withProgress`, the progress line (createProgress) and the
/// --mlir-timing stage timer.
struct CommandContext {
  explicit CommandContext(bool withProgress);
  CommandContext(const CommandContext &) = delete;
  CommandContext &operator=(const CommandContext &) = delete;

  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler;
  std::unique_ptr<mlir::llm::runtime::TerminalProgress> progress;
  std::optional<mlir::llm::runtime::StageTimer> timer;
  /// What reports the stages of a compile: the timer with --mlir-timing,
  /// else the progress line, else null.
  mlir::llm::runtime::CompileProgress *tracker = nullptr;
};

/// For --target NAME, a CPU target: the pipeline's target in `options`
/// (runtime::applyCPUTarget); an error message, or "" on success.
std::string applyCPUTargetOption(std::string &options);
/// For --threads N: the loops are planned for N threads (the pipeline's
/// `num-threads` in `options`, unless they name it). An error message for
/// a count outside [1, kMaxThreads], or "" (also without the flag).
std::string applyThreadsOption(std::string &options);
/// For --sparsify[=FORMAT]: the pipeline's `sparsify` in `options`; an error
/// message, or "" on success (also without the flag).
std::string applySparsifyOption(std::string &options, bool cpu);
/// For --tuning-cache FILE: the pipeline's `tuning-cache` in `options`; an
/// error message, or "" on success (also without the flag).
std::string applyTuningCacheOption(std::string &options);
/// applySparsifyOption (`cpu`: a CPU target), applyThreadsOption and
/// applyTuningCacheOption on `options`, in that order: the first error
/// message, or "".
std::string applyLoweringOptions(std::string &options, bool cpu);
/// The tuning caches that the command reads (--tuning-cache, and a
/// tuning-cache in --pipeline-options), as inputs no output may overwrite.
llvm::SmallVector<mlir::llm::NamedFile> getTuningCacheInputs();

/// Checks -o (and --report-file when `withReport`) before anything is read
/// or written: not empty, not a directory, not the model, not each other
/// (Compile.cpp; `llmc import` checks its -o with it too).
llvm::Error checkCompileOutputs(bool withReport);

/// `llmc compile` (Compile.cpp), once per rank with --tensor-parallel N.
int compileTensorParallelMain();

} // namespace llmc::driver

#endif // LLMC_TOOLS_LLMC_DRIVER_H
