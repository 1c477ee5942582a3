//===- llmc.cpp - The llmc compiler driver --------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc run` JIT-compiles an llm-dialect module (or an ONNX model, imported
// first) and runs its entry function on .npy inputs; `llmc compile` lowers it
// to LLVM-dialect MLIR, LLVM IR or a relocatable object; `llmc import` writes
// the llm-dialect module imported from an ONNX model. See docs/llmc.md and
// `llmc <command> --help`.
//
// Every error is one diagnostic on stderr (file:line:col for the model, the
// path for .npy files) and exit code 1; no output file is left half-written
// and no file is damaged: outputs are checked against the inputs and each
// other, and written with llm/Support/OutputFile.h (regular files through a
// temporary file renamed into place, devices and FIFOs in place, every write
// checked).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Generate.h"
#include "TensorParallel.h"

#include "llm/Codegen/TargetDescription.h"

#include "llm/Codegen/TuningCache.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"
#include "llm/Runtime/CacheEvictor.h"
#include "llm/Runtime/CompileCache.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/ConstantBytes.h"
#include "llm/Runtime/Npy.h"
#include "llm/Runtime/Progress.h"
#include "llm/Support/ONNXLocations.h"
#include "llm/Support/OutputFile.h"
#include "llm/Support/Report.h"
#if LLMC_HAVE_ONNX
#include "llm/Target/ONNX/ImportONNX.h"
#include "onnx/onnx_pb.h"
#endif

#include "llm/Runtime/CUDA/DriverProbe.h"
#include "llm/Runtime/CUDACompile.h"
#include "llm/Runtime/CUDAExecutable.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <utility>

#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::CPUTargetDescription;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

cl::OptionCategory llmc::llmcCategory("llmc options");
using llmc::llmcCategory;

namespace llmc::driver {

static cl::SubCommand runCommand(
    "run",
    "JIT-compile MODEL (.mlir, or .onnx: imported first) and run its entry "
    "function.\n"
    "  Inputs are positional: arg0, arg1, ... (give them with "
    "--input argK=FILE.npy;\n"
    "  for an ONNX model NAME is the graph input's name;\n"
    "  missing ones are filled from a seeded generator: floats uniform in "
    "[-1, 1),\n"
    "  integers uniform in [0, 16), i1 0/1). Results are named out0, out1, "
    "...\n"
    "  (for an ONNX model: the graph output's name);\n"
    "  for each one llmc prints its type, sum and mean(|x|) (computed in "
    "double),\n"
    "  and with --output-dir writes DIR/NAME.npy (nothing is written "
    "without it).\n"
    "  bf16 tensors are read from and written to float32 .npy files.\n"
    "  The time line is the median and minimum wall time of the --repeat "
    "timed runs\n"
    "  (after --warmup untimed runs). With --evict-cache=MiB, before every "
    "warm-up and\n"
    "  timed run (outside the timed region) llmc reads a buffer of that many "
    "MiB, one\n"
    "  load per 64-byte line, so the caches hold it instead of the model's "
    "weights and\n"
    "  inputs: each call then streams its weights from memory, as a decode "
    "step of a\n"
    "  model larger than the last-level cache does (use at least twice the "
    "L3 size).");

cl::SubCommand compileCommand(
    "compile",
    "Lower MODEL (.mlir, or .onnx: imported first) with llm-lower-to-cpu "
    "and write it\n  to -o.\n"
    "  --emit=mlir: the LLVM-dialect module; --emit=llvm: LLVM IR text;\n"
    "  --emit=obj: a relocatable PIC object for the host CPU.\n"
    "  For llvm and obj every function except the C interface is internal, "
    "so the\n"
    "  only exported symbol of an entry @f is\n"
    "    void _mlir_ciface_f(Desc *arg0, ..., Desc *out0, ...);\n"
    "  with Desc = struct { T *allocated; T *aligned; int64_t offset;\n"
    "                       int64_t sizes[R]; int64_t strides[R]; }\n"
    "  (row-major strides; the caller owns every buffer, results are written "
    "into\n"
    "  the out descriptors' buffers). The object needs libm; with OpenMP "
    "lowering\n"
    "  also libomp.");

static cl::SubCommand importCommand(
    "import",
    "Import the ONNX model MODEL.onnx and write the llm-dialect module to -o.\n"
    "  Graph inputs and outputs become the arguments and results of "
    "@main, with\n"
    "  their ONNX names as `llm.name` attributes. A symbolic dimension takes "
    "a value\n"
    "  with --dim NAME=VALUE (a dim_param name, or INPUT:INDEX); one without "
    "stays\n"
    "  dynamic (the sequence length, up to --dim-bound or the model's own "
    "limit).");

// Options of all commands.
cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.mlir|model.onnx>"),
                               cl::sub(runCommand), cl::sub(compileCommand),
                               cl::sub(importCommand));
static cl::list<std::string> dimSpecs(
    "dim",
    cl::desc("ONNX models: value of a symbolic dimension, NAME=VALUE (a "
             "dim_param name, or INPUT:INDEX); repeatable, or "
             "comma-separated"),
    cl::value_desc("NAME=VALUE"), cl::sub(runCommand), cl::sub(compileCommand),
    cl::sub(importCommand), cl::cat(llmcCategory));
static cl::list<std::string> dimBoundSpecs(
    "dim-bound",
    cl::desc("ONNX models: keep a symbolic dimension dynamic (the sequence "
             "length, `?`) up to this bound, NAME=N; default: the model's "
             "position table or mask buffer size; repeatable, or "
             "comma-separated"),
    cl::value_desc("NAME=N"), cl::sub(runCommand), cl::sub(compileCommand),
    cl::sub(importCommand), cl::cat(llmcCategory));

// Options of `run` and `compile`.
cl::opt<std::string> entryName("entry",
                               cl::desc("Entry function (default: main)"),
                               cl::init("main"), cl::sub(runCommand),
                               cl::sub(compileCommand), cl::cat(llmcCategory));
cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc(
        "llm-lower-to-cpu options, e.g. \"vectorize=false parallel=false\""),
    cl::init(""), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
static cl::opt<std::string> sparsifyFormat(
    "sparsify", cl::ValueOptional,
    cl::desc("Store the constant matmul weights sparse and run them with "
             "llmc's sparse kernels: alone or =auto, the format of each "
             "weight chosen by llm-sparsify-weights' cost model (dense "
             "unless it pays); =FORMAT forces one (2:4, bsr4x4, bsr16x16, "
             "bsr1x4, bsr1x16, csr, dense). Prune dense weights first "
             "(llm-opt --llm-prune-weights). GPU targets: auto, 2:4 or "
             "dense (2:4 weights on the sparse tensor cores)"),
    cl::value_desc("auto|FORMAT"), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
cl::opt<bool>
    noOpt("no-opt",
          cl::desc("Reference lowering: no graph optimizations, fusion, "
                   "vectorization or OpenMP (overrides --pipeline-options)"),
          cl::init(false), cl::sub(runCommand), cl::sub(compileCommand),
          cl::cat(llmcCategory));
cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass of the lowering down to "
             "loops, naming the pass that breaks it (default: after each "
             "stage of the lowering: graph, linalg, bufferization, loops, "
             "LLVM)"),
    cl::init(false), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
cl::opt<bool> verifyMemoryPlan(
    "verify-memory-plan",
    cl::desc("Check the static memory plan (no two simultaneously live "
             "buffers overlap); default on when the environment variable "
             "LLMC_VERIFY_MEMORY_PLAN is set (the integration tests)"),
    cl::init(getenv("LLMC_VERIFY_MEMORY_PLAN") != nullptr), cl::sub(runCommand),
    cl::sub(compileCommand), cl::cat(llmcCategory));
cl::opt<unsigned> optLevel("opt-level",
                           cl::desc("LLVM optimization level 0-3 (default 3)"),
                           cl::init(3), cl::sub(runCommand),
                           cl::sub(compileCommand), cl::cat(llmcCategory));
static cl::opt<bool> quiet(
    "quiet",
    cl::desc("No progress line while compiling (it is shown only when "
             "stderr is a terminal)"),
    cl::init(false), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
cl::opt<bool> mlirTiming(
    "mlir-timing",
    cl::desc("Print the wall time of each compile stage (import, lowering, "
             "LLVM translation, optimization, codegen, ...) and MLIR's "
             "per-pass timing report of the lowering to stderr"),
    cl::init(false), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
enum class ProgressMode { Auto, Always, Never };
static cl::opt<ProgressMode> progressMode(
    "progress",
    cl::desc("Show the compile progress line: auto (when stderr is a "
             "terminal, after 0.5 s), always (at once), never; never with "
             "--quiet"),
    cl::init(ProgressMode::Auto),
    cl::values(clEnumValN(ProgressMode::Auto, "auto", "on a terminal"),
               clEnumValN(ProgressMode::Always, "always",
                          "always, at once (for tests)"),
               clEnumValN(ProgressMode::Never, "never", "never")),
    cl::Hidden, cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));

static cl::opt<std::string> tuningCachePath(
    "tuning-cache",
    cl::desc("CPU targets: use the matmul tiles that `llmc tune` stored in "
             "this tuning cache for this kind of CPU (a cache made on "
             "another kind is ignored with a warning)"),
    cl::value_desc("FILE"), cl::init(""), cl::sub(runCommand),
    cl::sub(compileCommand), cl::cat(llmcCategory));

// The target of `run` and `compile`.
cl::opt<int64_t> tensorParallel(
    "tensor-parallel",
    cl::desc("N-way tensor parallelism (docs/TensorParallelism.md). run: "
             "this process is one rank of an `mpirun -np N` job; it "
             "compiles and runs its 1/N of the split layers, and rank 0 "
             "prints and writes the outputs. compile: one output per rank, "
             "OUT.rankR.EXT for -o OUT.EXT, each holding only its rank's "
             "weights (cpu: link with the MPI library, call MPI_Init "
             "first; cuda: NCCL all-reduces, --emit=exe programs join by "
             "$LLMC_NCCL_ID_FILE)"),
    cl::value_desc("N"), cl::init(1), cl::sub(runCommand),
    cl::sub(compileCommand), cl::cat(llmcCategory));
/// `llmc compile --tensor-parallel N`: the rank being compiled (size 1:
/// none).
TensorParallelRank compileRank;
cl::opt<std::string> targetName(
    "target",
    cl::desc("What to compile for: cpu (default: this machine's CPU), a CPU "
             "target (a family such as avx2 or avx512-bf16, or an x86-64 CPU "
             "such as znver4 or sapphirerapids: see --print-target=NAME; "
             "`run` needs a CPU with its features), cuda (NVIDIA GPUs: "
             "llm-lower-to-nvvm; `run` needs a CUDA driver and device and "
             "compiles for its chip), or "
             "cuda-emulator (`run` only: the CUDA kernels run on the CPU, to "
             "check them without a GPU)"),
    cl::init("cpu"), cl::sub(runCommand), cl::sub(compileCommand),
    cl::cat(llmcCategory));
cl::list<std::string> chips(
    "chip",
    cl::desc("--target cuda: NVIDIA chips sm_80, sm_89, sm_90a (repeatable "
             "or comma-separated; default sm_80)"),
    cl::CommaSeparated, cl::sub(compileCommand), cl::cat(llmcCategory));
cl::opt<std::string> toolkitPath(
    "toolkit",
    cl::desc("--target cuda: CUDA toolkit root (ptxas, fatbinary, "
             "libdevice; default: the one llmc was built with, else $PATH, "
             "$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH)"),
    cl::init(""), cl::sub(compileCommand), cl::cat(llmcCategory));

// Options of `run`.
static cl::list<std::string>
    inputs("input",
           cl::desc("Input NAME=FILE.npy (NAME is arg0, arg1, ...; for an "
                    "ONNX model the graph input's name)"),
           cl::value_desc("NAME=FILE.npy"), cl::sub(runCommand),
           cl::cat(llmcCategory));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write the results to DIR/out<K>.npy (ONNX models: "
                       "DIR/<output name>.npy; created if missing); without "
                       "it nothing is written"),
              cl::value_desc("DIR"), cl::init(""), cl::sub(runCommand),
              cl::cat(llmcCategory));
static cl::opt<long long>
    numThreads("threads",
               cl::desc("Threads, 1-1024: the parallel loops are planned for "
                        "them (the pipeline's num-threads, unless "
                        "--pipeline-options names it; a tuning cache's "
                        "entries are keyed by it) and `run` sets "
                        "OMP_NUM_THREADS (default: the machine's / the "
                        "OpenMP default)"),
               cl::init(0), cl::sub(runCommand), cl::sub(compileCommand),
               cl::cat(llmcCategory));
/// The largest --threads (libomp aborts on absurd counts).
static constexpr long long kMaxThreads = 1024;
static cl::opt<unsigned> repeat("repeat", cl::desc("Timed runs (default 1)"),
                                cl::init(1), cl::sub(runCommand),
                                cl::cat(llmcCategory));
static cl::opt<int> warmup(
    "warmup",
    cl::desc("Untimed warm-up runs (default: 1 if --repeat > 1, else 0)"),
    cl::init(-1), cl::sub(runCommand), cl::cat(llmcCategory));
static cl::opt<long long> evictCacheMiB(
    "evict-cache",
    cl::desc("Before each warm-up and timed run, read a buffer of MiB "
             "mebibytes to evict the caches (0-65536; default 0: off)"),
    cl::value_desc("MiB"), cl::init(0), cl::sub(runCommand),
    cl::cat(llmcCategory));
/// The largest --evict-cache, in MiB (64 GiB: far beyond any cache).
static constexpr long long kMaxEvictCacheMiB = 65536;
static cl::opt<bool> noCache(
    "no-cache",
    cl::desc("Neither look up nor store the compiled model in the compile "
             "cache ($LLMC_CACHE_DIR, else $XDG_CACHE_HOME/llmc, else "
             "~/.cache/llmc)"),
    cl::init(false), cl::sub(runCommand), cl::cat(llmcCategory));
static cl::opt<bool> verbose(
    "verbose",
    cl::desc("Print how the model was compiled (compile cache hit or miss, "
             "the entry's path, the compile time) on stderr"),
    cl::init(false), cl::sub(runCommand), cl::cat(llmcCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the generated inputs "
                                       "(default 0)"),
                              cl::init(0), cl::sub(runCommand),
                              cl::cat(llmcCategory));

// Options of `compile` and `import`.
cl::opt<std::string> outputPath("o",
                                cl::desc("Output file ('-' for "
                                         "stdout)"),
                                cl::value_desc("file"), cl::Required,
                                cl::sub(compileCommand), cl::sub(importCommand),
                                cl::cat(llmcCategory));
cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to write"), cl::Required,
    cl::values(clEnumValN(EmitKind::MLIR, "mlir", "LLVM-dialect MLIR"),
               clEnumValN(EmitKind::LLVM, "llvm", "LLVM IR text"),
               clEnumValN(EmitKind::Obj, "obj", "relocatable object file"),
               clEnumValN(EmitKind::PTX, "ptx",
                          "--target cuda: the kernels' PTX (one chip)"),
               clEnumValN(EmitKind::Fatbin, "fatbin",
                          "--target cuda: the kernels' fatbin (every "
                          "chip)"),
               clEnumValN(EmitKind::Exe, "exe",
                          "--target cuda: a program running the model on "
                          ".npy inputs (needs only libcuda at run time)"),
               clEnumValN(EmitKind::Shared, "shared",
                          "--target cuda: a shared library with the model's "
                          "C interface (needs only libcuda at run time)")),
    cl::sub(compileCommand), cl::cat(llmcCategory));

// Options of `compile`: the compile report.
cl::opt<ReportKind> reportKind(
    "report",
    cl::desc("Print the compile report (kernels, kernels_unfused, "
             "intermediate_bytes and every llm.report entry) to stdout or "
             "--report-file: --report or --report=table for a table, "
             "--report=json for a JSON object"),
    cl::ValueOptional, cl::init(ReportKind::None),
    cl::values(clEnumValN(ReportKind::Table, "", "a readable table"),
               clEnumValN(ReportKind::Table, "table", "a readable table"),
               clEnumValN(ReportKind::JSON, "json", "a JSON object")),
    cl::sub(compileCommand), cl::cat(llmcCategory));
cl::opt<std::string>
    reportFile("report-file",
               cl::desc("Write the --report to this file instead of stdout"),
               cl::value_desc("file"), cl::init(""), cl::sub(compileCommand),
               cl::cat(llmcCategory));

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The progress line being shown, if any (cleared before a diagnostic).
static CompileProgress *activeProgress = nullptr;

int fail(const llvm::Twine &msg) {
  if (activeProgress)
    activeProgress->clear();
  return llmc::fail(msg);
}

int fail(llvm::Error err) { return fail(llvm::toString(std::move(err))); }

/// The exit code of a command that returned `rc`, once stdout is flushed: a
/// write error on stdout (e.g. a full disk) turns success into exit code 1.
static int finishStdout(int rc) {
  llvm::Error e = llm::checkStdout();
  if (!e)
    return rc;
  if (rc != 0) {
    llvm::consumeError(std::move(e));
    return rc;
  }
  return fail(std::move(e));
}

bool isONNXModel() {
  return llvm::StringRef(modelPath).ends_with_insensitive(".onnx");
}

/// ONNX models: adds the external data files that MODEL's tensors name
/// (their `location`, relative to the model's directory) to `inputs`. The
/// model is parsed for them only when an output lies in or below the
/// model's directory, the only place external data can be.
static void addExternalDataFiles(llvm::ArrayRef<llm::NamedFile> outputs,
                                 SmallVectorImpl<llm::NamedFile> &inputs) {
#if LLMC_HAVE_ONNX
  if (!isONNXModel())
    return;
  auto realDir = [](llvm::StringRef path) {
    llvm::SmallString<256> dir = llvm::sys::path::parent_path(path), real;
    if (dir.empty())
      dir = ".";
    if (llvm::sys::fs::real_path(dir, real))
      return std::string();
    return (real + llvm::sys::path::get_separator()).str();
  };
  std::string modelDir = realDir(modelPath);
  if (modelDir.empty() ||
      llvm::none_of(outputs, [&](const llm::NamedFile &out) {
        std::string dir = realDir(out.path);
        return out.path != "-" && !dir.empty() &&
               llvm::StringRef(dir).starts_with(modelDir);
      }))
    return;
  for (const std::string &path : llm::getONNXExternalDataFiles(modelPath))
    inputs.push_back(
        {path, ("external data file '" + path + "' of the model")});
#else
  (void)outputs;
  (void)inputs;
#endif
}

llvm::Error checkOutputs(llvm::ArrayRef<llm::NamedFile> inputs,
                         llvm::ArrayRef<llm::NamedFile> outputs) {
  SmallVector<llm::NamedFile> allInputs;
  allInputs.push_back({modelPath, "the model file"});
  llvm::append_range(allInputs, inputs);
  addExternalDataFiles(outputs, allInputs);
  if (llvm::Error e = llm::checkOutputFiles(allInputs, outputs))
    return e;
  for (const llm::NamedFile &out : outputs)
    if (llvm::Expected<llm::OutputFile::Kind> kind =
            llm::OutputFile::classify(out.path);
        !kind)
      return kind.takeError();
  return llvm::Error::success();
}

/// Imports the ONNX model MODEL; diagnostics go through the context's
/// handler. Returns null after printing an error.
static OwningOpRef<ModuleOp> importModel(MLIRContext &ctx) {
  return llmc::importONNXFile(modelPath, dimSpecs, dimBoundSpecs, ctx);
}

void registerONNXDiagnosticHandler(MLIRContext &ctx) {
  if (!isONNXModel())
    return;
  ctx.getDiagEngine().registerHandler([](Diagnostic &diag) {
    auto print = [](Diagnostic &d) {
      llvm::raw_ostream &os = llvm::errs();
      if (auto fileLoc = d.getLocation()->findInstanceOf<FileLineColLoc>())
        os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
           << ":" << fileLoc.getColumn() << ": ";
      else
        os << modelPath << ": ";
      switch (d.getSeverity()) {
      case DiagnosticSeverity::Error:
        os << "error: ";
        break;
      case DiagnosticSeverity::Warning:
        os << "warning: ";
        break;
      case DiagnosticSeverity::Note:
        os << "note: ";
        break;
      case DiagnosticSeverity::Remark:
        os << "remark: ";
        break;
      }
      // The ONNX nodes of the op, which a user can find in the model.
      std::string text = d.str();
      if (d.getSeverity() != DiagnosticSeverity::Note)
        os << llm::describeONNXNodes(d.getLocation(), text);
      os << text << "\n";
    };
    print(diag);
    for (Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
}

OwningOpRef<ModuleOp> loadModel(MLIRContext &ctx, llvm::SourceMgr &sourceMgr) {
  if (isONNXModel())
    return importModel(ctx);
  if (!dimSpecs.empty() || !dimBoundSpecs.empty()) {
    fail(std::string(dimSpecs.empty() ? "--dim-bound" : "--dim") +
         " applies only to ONNX models (.onnx)");
    return nullptr;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(modelPath, /*IsText=*/true);
  if (std::error_code ec = file.getError()) {
    fail("cannot open model '" + modelPath + "': " + ec.message());
    return nullptr;
  }
  return llmc::parseModelBuffer(std::move(*file), modelPath, ctx, sourceMgr);
}

/// The names of the entry's inputs and results as llmc shows them.
struct EntryNames {
  /// ONNX models: the graph input names (the `llm.name` argument
  /// attributes); otherwise argK.
  SmallVector<std::string> inputs;
  /// `llm.name` of argument K when present (accepted by --input for .mlir
  /// models too, besides argK); empty otherwise.
  SmallVector<std::string> inputAliases;
  /// ONNX models: the graph output names, usable as file names (outK when a
  /// name is empty, contains '/', or repeats); otherwise outK.
  SmallVector<std::string> results;
};

/// The names from the signature's `llm.name`s (so that a model loaded from
/// the compile cache, without its module, has them too).
static EntryNames getEntryNames(const EntrySignature &sig) {
  EntryNames names;
  bool onnx = isONNXModel();
  for (size_t k = 0; k < sig.inputs.size(); ++k) {
    std::string name = k < sig.inputNames.size() ? sig.inputNames[k] : "";
    names.inputAliases.push_back(name);
    names.inputs.push_back(onnx && !name.empty() ? name
                                                 : "arg" + std::to_string(k));
  }
  llvm::StringSet<> used;
  for (size_t k = 0; k < sig.results.size(); ++k) {
    std::string name =
        onnx && k < sig.resultNames.size() ? sig.resultNames[k] : "";
    if (name.empty() || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos || name == "." || name == ".." ||
        used.contains(name))
      name = "out" + std::to_string(k);
    used.insert(name);
    names.results.push_back(name);
  }
  return names;
}

void stripNameAttrs(ModuleOp module) {
  StringAttr key = StringAttr::get(module.getContext(), "llm.name");
  module.walk([&](func::FuncOp func) {
    for (unsigned k = 0, e = func.getNumArguments(); k < e; ++k)
      func.removeArgAttr(k, key);
    for (unsigned k = 0, e = func.getNumResults(); k < e; ++k)
      func.removeResultAttr(k, key);
  });
}

/// Fills `tensor` from `gen` (see the `run` help text).
static void fillRandom(HostTensor &tensor, std::mt19937_64 &gen) {
  bool isFloat =
      tensor.getDType() == DType::F32 || tensor.getDType() == DType::F64 ||
      tensor.getDType() == DType::F16 || tensor.getDType() == DType::BF16;
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
    uint64_t bits = gen();
    double value;
    if (isFloat)
      value = static_cast<double>(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    else if (tensor.getDType() == DType::I1)
      value = static_cast<double>(bits >> 63);
    else
      value = static_cast<double>(bits >> 60);
    tensor.setFromDouble(i, value);
  }
}

//===----------------------------------------------------------------------===//
// llmc run
//===----------------------------------------------------------------------===//

/// A registry of every dialect a model may hold.
static DialectRegistry getRuntimeDialectRegistry() {
  DialectRegistry registry;
  registerRuntimeDialects(registry);
  return registry;
}

CommandContext::CommandContext(bool withProgress)
    : ctx(getRuntimeDialectRegistry()), diagHandler(sourceMgr, &ctx) {
  ctx.printOpOnDiagnostic(false);
  registerONNXDiagnosticHandler(ctx);
  if (!withProgress)
    return;
  progress = createProgress(ctx);
  if (mlirTiming)
    timer.emplace(progress.get());
  tracker = timer ? static_cast<CompileProgress *>(&*timer) : progress.get();
}

std::unique_ptr<TerminalProgress> createProgress(MLIRContext &ctx) {
  bool show = !quiet && (progressMode == ProgressMode::Always ||
                         (progressMode == ProgressMode::Auto &&
                          llvm::sys::Process::StandardErrIsDisplayed()));
  if (!show)
    return nullptr;
  // --progress=always (tests): every update at once.
  bool always = progressMode == ProgressMode::Always;
  auto progress = std::make_unique<TerminalProgress>(
      llvm::errs(), std::chrono::milliseconds(always ? 0 : 500),
      std::chrono::milliseconds(always ? 0 : 50));
  activeProgress = progress.get();
  // Consulted before the handlers that print (registered earlier).
  ctx.getDiagEngine().registerHandler([](Diagnostic &) {
    if (activeProgress)
      activeProgress->clear();
    return failure();
  });
  return progress;
}

/// The compile cache key of MODEL with `options`, or nullopt with the
/// reason in `why` (caching off, a model on stdin, ...; a model that
/// cannot be read is reported when it is loaded).
static std::optional<CompileCache::Key>
getCacheKey(const CompileCache &cache, const CompileOptions &options,
            std::string &why) {
  if (!cache.isEnabled()) {
    why = noCache ? "--no-cache"
          : !CacheOptions::fromEnvironment().enabled
              ? "LLMC_CACHE=" + std::string(std::getenv("LLMC_CACHE"))
              : "no cache directory: set LLMC_CACHE_DIR";
    return std::nullopt;
  }
  if (modelPath == "-") {
    why = "model read from stdin";
    return std::nullopt;
  }
  if (options.lowering.target == "cuda") {
    why = "--target cuda";
    return std::nullopt;
  }
#if !LLMC_HAVE_ONNX
  if (isONNXModel()) {
    why = "no ONNX importer";
    return std::nullopt;
  }
#endif
  if (!isONNXModel() && (!dimSpecs.empty() || !dimBoundSpecs.empty())) {
    why = "--dim with an MLIR model";
    return std::nullopt;
  }
  std::vector<std::string> dimKey(dimSpecs.begin(), dimSpecs.end());
  for (const std::string &spec : dimBoundSpecs)
    dimKey.push_back("bound:" + spec);
  llvm::Expected<std::string> digest = digestModelFile(modelPath, dimKey);
  if (!digest) {
    why = llvm::toString(digest.takeError());
    return std::nullopt;
  }
  std::optional<CompileCache::Key> key = cache.getKey(*digest, options);
  if (!key)
    why = "invalid options";
  return key;
}

std::string applyCPUTargetOption(std::string &options) {
  if (failed(CPUTargetDescription::lookup(targetName)))
    return "--target must be cpu, cuda, cuda-emulator or a CPU target (" +
           CPUTargetDescription::getKnownNames().str() + "), got '" +
           targetName + "'";
  std::string error = applyCPUTarget(targetName, options);
  return error.empty() ? "" : "--" + error;
}

std::string applyThreadsOption(std::string &options) {
  if (!numThreads.getNumOccurrences())
    return "";
  if (numThreads < 1 || numThreads > kMaxThreads)
    return "--threads must be in [1, " + std::to_string(kMaxThreads) +
           "], got " + std::to_string(numThreads.getValue());
  // (The GPU pipelines have no num-threads: it would be an unknown option.)
  if (targetName == "cuda" || targetName == "cuda-emulator")
    return "--threads applies to CPU targets (OpenMP threads), not --target " +
           targetName.getValue();
  if (!llvm::StringRef(options).contains("num-threads"))
    options += " num-threads=" + std::to_string(numThreads.getValue());
  return "";
}

std::string applySparsifyOption(std::string &options, bool cpu) {
  if (!sparsifyFormat.getNumOccurrences())
    return "";
  std::string format =
      sparsifyFormat.empty() ? std::string("auto") : sparsifyFormat.getValue();
  if (format != "auto" &&
      !llvm::is_contained(llm::kSparsifyFormatNames, llvm::StringRef(format)))
    return "--sparsify must be auto or a format (" +
           llvm::join(std::begin(llm::kSparsifyFormatNames),
                      std::end(llm::kSparsifyFormatNames), ", ") +
           "), got '" + format + "'";
  if (!cpu && format != "auto" && format != "2:4" && format != "dense")
    return "--sparsify=" + format +
           " has no GPU kernel: GPU targets take auto, 2:4 or dense (2:4 "
           "weights on the sparse tensor cores)";
  if (llvm::StringRef(options).contains("sparsify="))
    return "give --sparsify or sparsify= in --pipeline-options, not both";
  options += " sparsify=" + format;
  return "";
}

std::string applyLoweringOptions(std::string &options, bool cpu) {
  if (std::string error = applySparsifyOption(options, cpu); !error.empty())
    return error;
  if (std::string error = applyThreadsOption(options); !error.empty())
    return error;
  return applyTuningCacheOption(options);
}

std::string applyTuningCacheOption(std::string &options) {
  if (tuningCachePath.getNumOccurrences() && tuningCachePath.empty())
    return "--tuning-cache must not be empty (give the file `llmc tune` "
           "wrote)";
  if (tuningCachePath.empty())
    return "";
  if (llvm::StringRef(options).contains("tuning-cache"))
    return "--tuning-cache and a tuning-cache in --pipeline-options: give "
           "one";
  if (targetName == "cuda" || targetName == "cuda-emulator")
    return "--tuning-cache applies to CPU targets, not --target " +
           targetName.getValue();
  if (llvm::StringRef(tuningCachePath).find_first_of(" \t\n\"'{}") !=
      llvm::StringRef::npos)
    return "--tuning-cache '" + tuningCachePath +
           "': the path must not contain spaces, quotes or braces (it "
           "travels in the pipeline options)";
  // Read once here, so that a missing or malformed cache is an error
  // before anything is compiled.
  if (llvm::Expected<llm::TuningCache> cache =
          llm::TuningCache::load(tuningCachePath);
      !cache)
    return "--tuning-cache: " + llvm::toString(cache.takeError());
  options += " tuning-cache=" + tuningCachePath;
  return "";
}

SmallVector<llm::NamedFile> getTuningCacheInputs() {
  SmallVector<llm::NamedFile> files;
  if (!tuningCachePath.empty())
    files.push_back(
        {tuningCachePath, "the tuning cache '" + tuningCachePath + "'"});
  LoweringOptions lowering;
  lowering.pipelineOptions = pipelineOptions;
  std::string inOptions = getTuningCachePath(lowering);
  if (!inOptions.empty())
    files.push_back({inOptions, "the tuning cache '" + inOptions + "'"});
  return files;
}

} // namespace llmc::driver

using namespace llmc::driver;

static int runMain() {
  if (llvm::Error e = llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  if (repeat == 0)
    return fail("--repeat must be at least 1");
  if (warmup.getNumOccurrences() && warmup < 0)
    return fail("--warmup must be at least 0, got " + llvm::Twine(warmup));
  if (outputDir.getNumOccurrences() && outputDir.empty())
    return fail("--output-dir must not be empty (give a directory, e.g. "
                "'.')");
  if (optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3");
  if (evictCacheMiB < 0 || evictCacheMiB > kMaxEvictCacheMiB)
    return fail("--evict-cache must be in [0, " +
                llvm::Twine(kMaxEvictCacheMiB) + "] MiB, got " +
                llvm::Twine(evictCacheMiB.getValue()));
  // Allocated before compiling, so a size that does not fit fails at once.
  llvm::Expected<CacheEvictor> evictor = CacheEvictor::create(
      static_cast<uint64_t>(evictCacheMiB) << 20, "--evict-cache: ");
  if (!evictor)
    return fail(evictor.takeError());

  CommandContext command(/*withProgress=*/true);
  std::optional<StageTimer> &timer = command.timer;
  CompileProgress *tracker = command.tracker;

  int numCUDADevices = 0;
  if (targetName == "cuda") {
    // Nothing is compiled or written without a device to run on.
    llm::cuda::DriverInfo info = llm::cuda::probeDriver();
    if (!info.ok())
      return fail("--target cuda: " + info.error);
    numCUDADevices = info.devices.size();
  }
  // A CPU target name: compiled for it, run only if this CPU has its
  // features.
  std::string cpuPipelineOptions = pipelineOptions;
  bool gpuTarget = targetName == "cuda" || targetName == "cuda-emulator";
  bool namedCPU = targetName != "cpu" && !gpuTarget;
  if (namedCPU) {
    std::string error = applyCPUTargetOption(cpuPipelineOptions);
    if (!error.empty())
      return fail(error);
  }
  if (std::string error = applyLoweringOptions(cpuPipelineOptions, !gpuTarget);
      !error.empty())
    return fail(error);
  // --tensor-parallel N: this process's rank of the MPI job compiles that
  // rank's program; only rank 0 prints and writes.
  bool writesOutputs = true;
  if (tensorParallel.getNumOccurrences()) {
    llvm::Expected<bool> rankZero =
        llmc::joinTensorParallelJob(tensorParallel, cpuPipelineOptions);
    if (!rankZero)
      return fail(rankZero.takeError());
    writesOutputs = *rankZero;
    // --target cuda: a GPU of this node per rank.
    if (targetName == "cuda")
      llmc::selectLocalCUDADevice(numCUDADevices);
  } else if (llvm::Error e =
                 llmc::checkNoTensorParallelOption(cpuPipelineOptions)) {
    return fail(std::move(e));
  }
  // The code runs here: a CPU target (--target or the pipeline's target=)
  // whose ISA extensions this CPU lacks is refused before compiling.
  if (std::string error = checkCPUTargetRunsHere(cpuPipelineOptions);
      !error.empty())
    return fail("llmc run: " + error +
                "; run with --target cpu, or compile it with llmc compile");

  CompileOptions options;
  options.entry = entryName;
  options.lowering.target = namedCPU ? "cpu" : targetName.getValue();
  options.lowering.pipelineOptions = cpuPipelineOptions;
  options.lowering.noOpt = noOpt;
  options.lowering.verifyEach = verifyEach;
  options.lowering.verifyMemoryPlan = verifyMemoryPlan;
  options.optLevel = optLevel;
  options.lowering.timePasses = mlirTiming;
  options.progress = tracker;

  // The compile cache, keyed by the model's bytes: on a hit nothing is
  // parsed, imported or lowered.
  using Clock = std::chrono::steady_clock;
  Clock::duration compileTime{};
  auto compileStart = Clock::now();
  CacheOptions cacheOptions = CacheOptions::fromEnvironment();
  if (noCache)
    cacheOptions.enabled = false;
  CompileCache cache(cacheOptions);
  CacheEvent cacheEvent;
  std::string cacheOff;
  if (timer && cache.isEnabled())
    timer->begin("hashing the model (compile cache key)");
  std::optional<CompileCache::Key> cacheKey =
      getCacheKey(cache, options, cacheOff);
  std::unique_ptr<CompiledModel> model;
  if (cacheKey) {
    if (timer)
      timer->begin("compile cache lookup (checking and loading the entry)");
    model = cache.lookup(*cacheKey, options, &cacheEvent);
  }
  if (timer)
    timer->finish();
  // A miss records the warnings and remarks, from the import on, to store
  // them with the entry; a hit shows them where the compilation would have.
  std::optional<DiagnosticRecorder> recorder;
  if (!model && cacheKey)
    recorder.emplace(command.ctx, modelPath);

  OwningOpRef<ModuleOp> module;
  std::optional<EntrySignature> sig;
  if (model) {
    sig = model->getSignature();
  } else {
    if (tracker)
      tracker->update((isONNXModel() ? "importing " : "parsing ") +
                          modelPath,
                      0);
    module = loadModel(command.ctx, command.sourceMgr);
    if (tracker)
      tracker->clear();
    if (!module)
      return 1;
    if (!tensorParallel.getNumOccurrences())
      if (std::string error = llmc::checkNoShardOps(*module); !error.empty())
        return fail(error);
    FailureOr<EntrySignature> entrySig = getEntrySignature(*module, entryName);
    if (failed(entrySig))
      return 1;
    sig = std::move(*entrySig);
  }
  compileTime += Clock::now() - compileStart;
  EntryNames names = getEntryNames(*sig);
  bool namedInputs = isONNXModel() && llvm::any_of(names.inputAliases,
                                                   [](const std::string &n) {
                                                     return !n.empty();
                                                   });

  // Inputs: "NAME=FILE.npy", each at most once. NAME is argK, or for ONNX
  // models the graph input's name (for .mlir models an `llm.name` works
  // too).
  size_t numInputs = sig->inputs.size();
  auto findInput = [&](llvm::StringRef name) -> std::optional<size_t> {
    for (size_t k = 0; k < numInputs; ++k)
      if (names.inputs[k] == name)
        return k;
    for (size_t k = 0; k < numInputs; ++k)
      if (!names.inputAliases[k].empty() && names.inputAliases[k] == name)
        return k;
    unsigned index;
    if (!isONNXModel() && name.consume_front("arg") &&
        !name.getAsInteger(10, index) && index < numInputs)
      return index;
    return std::nullopt;
  };
  SmallVector<std::optional<HostTensor>> inputTensors(numInputs);
  SmallVector<std::string> inputFiles(numInputs);
  for (const std::string &spec : inputs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (path.empty() || name.empty())
      return fail("--input '" + spec + "' is not of the form NAME=FILE.npy");
    std::optional<size_t> found = findInput(name);
    if (!found) {
      std::string valid;
      if (numInputs == 0) {
        valid = "takes no inputs";
      } else if (namedInputs) {
        valid = numInputs == 1 ? "takes one input, " : "takes inputs ";
        for (size_t k = 0; k < numInputs; ++k)
          valid += (k ? ", '" : "'") + names.inputs[k] + "'";
      } else {
        valid = numInputs == 1
                    ? std::string("takes one input, arg0")
                    : "takes inputs arg0 .. arg" + std::to_string(numInputs - 1);
      }
      return fail("unknown input '" + name + "': the entry @" + entryName +
                  " " + valid);
    }
    size_t index = *found;
    const std::string &inName = names.inputs[index];
    if (inputTensors[index])
      return fail("input '" + inName + "' given twice");
    const TensorSpec &expected = sig->inputs[index];
    llvm::Expected<HostTensor> tensor = readNpy(path, expected.dtype);
    if (!tensor)
      return fail("input '" + inName +
                  "': " + llvm::toString(tensor.takeError()));
    // A dynamic (sequence) dimension takes any size here; the sizes are
    // checked against the declared bound once all inputs are read.
    auto matches = [&](ArrayRef<int64_t> shape) {
      if (shape.size() != expected.shape.size())
        return false;
      for (auto [have, want] : llvm::zip(shape, expected.shape))
        if (!ShapedType::isDynamic(want) && have != want)
          return false;
      return true;
    };
    if (!matches(tensor->getShape()))
      return fail(path + ": input '" + inName + "' expects " +
                  expected.str() + ", the file holds shape " +
                  formatShape(tensor->getShape()));
    inputTensors[index] = std::move(*tensor);
    inputFiles[index] = path.str();
  }

  // Output files must not clobber the model, an input or each other, nor
  // be directories.
  SmallVector<std::string> outputFiles;
  if (!outputDir.empty() && writesOutputs) {
    if (llvm::sys::fs::exists(outputDir) &&
        !llvm::sys::fs::is_directory(outputDir))
      return fail("--output-dir '" + outputDir + "' is not a directory");
    SmallVector<llm::NamedFile> inFiles = getTuningCacheInputs(), outFiles;
    for (const std::string &in : inputFiles)
      if (!in.empty())
        inFiles.push_back({in, "input file '" + in + "'"});
    for (size_t k = 0; k < sig->results.size(); ++k) {
      llvm::SmallString<256> path(outputDir);
      llvm::sys::path::append(path, names.results[k] + ".npy");
      outputFiles.push_back(path.str().str());
      outFiles.push_back(
          {outputFiles.back(), ("output '" + path + "'").str()});
    }
    if (llvm::Error e = checkOutputs(inFiles, outFiles))
      return fail(std::move(e));
    // Create the directory now rather than after compiling and running.
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create output directory '" + outputDir +
                  "': " + ec.message());
  }

  std::mt19937_64 gen(seed);
  for (size_t k = 0; k < numInputs; ++k) {
    if (inputTensors[k])
      continue;
    // A dynamic (sequence) dimension gets its declared bound.
    TensorSpec spec = sig->inputs[k];
    for (int64_t &d : spec.shape)
      if (ShapedType::isDynamic(d))
        d = sig->seqBound;
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocate(spec.dtype, spec.shape);
    if (!tensor)
      return fail(names.inputs[k] + ": " +
                  llvm::toString(tensor.takeError()));
    inputTensors[k] = std::move(*tensor);
    fillRandom(*inputTensors[k], gen);
    llvm::outs() << "input " << names.inputs[k] << ": " << spec.str()
                 << " not given, generated (seed " << seed << ")\n";
  }

  if (numThreads.getNumOccurrences())
    setenv("OMP_NUM_THREADS", std::to_string(numThreads.getValue()).c_str(),
           /*overwrite=*/1);

  // The result shapes of these inputs (a dynamic sequence dimension takes
  // the inputs' length, which must be within the declared bound), checked
  // before compiling.
  SmallVector<ArrayRef<int64_t>> inputShapes;
  for (auto &t : inputTensors)
    inputShapes.push_back(t->getShape());
  llvm::Expected<EntrySignature> callSig = sig->specialize(inputShapes);
  if (!callSig)
    return fail(callSig.takeError());

  if (!model) {
    compileStart = Clock::now();
    // (The lowering drops the `llm.name`s after the signature, stored with
    // the entry, has taken them.)
    CompiledObject object;
    FailureOr<std::unique_ptr<CompiledModel>> compiled =
        CompiledModel::create(*module, options, cacheKey ? &object : nullptr);
    if (failed(compiled))
      return 1;
    model = std::move(*compiled);
    if (cacheKey) {
      cacheEvent.outcome = CacheOutcome::Miss;
      cache.store(*cacheKey, object, recorder->getDiagnostics(), &cacheEvent);
    }
    recorder.reset();
    compileTime += Clock::now() - compileStart;
  } else {
    replayDiagnostics(command.ctx, cacheEvent.diagnostics, modelPath);
  }
  if (timer) {
    timer->finish();
    timer->print(llvm::errs());
  }
  if (verbose) {
    llvm::raw_ostream &os = llvm::errs();
    os << "llmc: compile: ";
    switch (cacheEvent.outcome) {
    case CacheOutcome::Hit:
      os << "cache hit (" << cacheEvent.path << ")";
      break;
    case CacheOutcome::Miss:
      os << "cache miss, " << cacheEvent.detail << " (" << cacheEvent.path
         << ")";
      break;
    case CacheOutcome::Disabled:
      os << "cache off (" << cacheOff << ")";
      break;
    }
    os << llvm::format(
        ", %.3f s\n",
        std::chrono::duration<double>(compileTime).count());
  }

  SmallVector<HostTensor> results;
  for (auto [k, spec] : llvm::enumerate(callSig->results)) {
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocate(spec.dtype, spec.shape);
    if (!tensor)
      return fail(names.results[k] + ": " +
                  llvm::toString(tensor.takeError()));
    results.push_back(std::move(*tensor));
  }
  SmallVector<TensorView> inViews, outViews;
  for (auto &t : inputTensors)
    inViews.push_back(*t);
  for (HostTensor &t : results)
    outViews.push_back(t);

  unsigned numWarmup = warmup >= 0 ? warmup : (repeat > 1 ? 1 : 0);
  evictor->touch();
  // Every rank compiled (no rank's first call waits for another's compile),
  // and every rank runs the same calls.
  if (tensorParallel.getNumOccurrences()) {
    std::string what;
    llvm::raw_string_ostream os(what);
    os << "target " << targetName << ", pipeline options '" << pipelineOptions
       << "', " << repeat << " runs after " << numWarmup << " warm-up, inputs";
    for (const TensorView &view : inViews) {
      os << " " << getDTypeName(view.dtype) << "[";
      llvm::interleave(view.shape, os, ",");
      os << "]";
    }
    if (llvm::Error e = llmc::checkSameOnAllRanks(what))
      return fail(std::move(e));
  }
  llmc::waitForAllRanks();
  // --target cuda: the all-reduces run on the job's NCCL communicator.
  if (targetName == "cuda" && tensorParallel.getNumOccurrences())
    if (llvm::Error e = llmc::initNCCLCommunicator())
      return fail(std::move(e));
  for (unsigned i = 0; i < numWarmup; ++i) {
    evictor->evict();
    if (llvm::Error e = model->invoke(inViews, outViews))
      return fail(std::move(e));
  }
  std::vector<double> times;
  for (unsigned i = 0; i < repeat; ++i) {
    evictor->evict();
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error e = model->invoke(inViews, outViews))
      return fail(std::move(e));
    auto end = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }

  for (auto [k, t] : llvm::enumerate(results)) {
    double sum = 0, absSum = 0;
    int64_t n = t.getNumElements();
    for (int64_t i = 0; i < n; ++i) {
      double v = t.getAsDouble(i);
      sum += v;
      absSum += std::fabs(v);
    }
    llvm::outs() << names.results[k] << ": " << callSig->results[k].str()
                 << llvm::format(" sum=%.9g mean_abs=%.9g", sum,
                                 n ? absSum / n : 0.0)
                 << "\n";
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double median =
      sorted.size() % 2
          ? sorted[sorted.size() / 2]
          : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  llvm::outs() << llvm::format("time: median %.4f ms, min %.4f ms", median,
                               sorted.front())
               << " (" << repeat << (repeat == 1 ? " run" : " runs")
               << " after " << numWarmup << " warm-up";
  if (evictCacheMiB > 0)
    llvm::outs() << ", caches evicted: " << evictCacheMiB << " MiB";
  llvm::outs() << ")\n";

  if (!outputFiles.empty()) {
    // All outputs or none: each goes to a temporary file first, and they
    // are renamed into place once every one is written.
    if (llvm::Error e = llm::writeFiles(
            outputFiles, [&](size_t k, llvm::raw_ostream &os) {
              os << serializeNpy(results[k]);
              return llvm::Error::success();
            }))
      return fail(std::move(e));
    for (const std::string &path : outputFiles)
      llvm::outs() << "wrote " << path << "\n";
  }
  llvm::outs().flush();
  return 0;
}

//===----------------------------------------------------------------------===//
// llmc import
//===----------------------------------------------------------------------===//

static int importMain() {
  if (llvm::Error e = llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  if (!isONNXModel())
    return fail("llmc import expects an ONNX model (MODEL.onnx), got '" +
                modelPath + "'");
  if (llvm::Error e = checkCompileOutputs(/*withReport=*/false))
    return fail(std::move(e));

  CommandContext command(/*withProgress=*/false);
  OwningOpRef<ModuleOp> module = loadModel(command.ctx, command.sourceMgr);
  if (!module)
    return 1;

  std::string bytes;
  {
    llvm::raw_string_ostream os(bytes);
    module->print(os);
  }
  if (llvm::Error e = llm::writeFile(outputPath, [&](llvm::raw_ostream &os) {
        os << bytes;
        return llvm::Error::success();
      }))
    return fail(std::move(e));
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
#if defined(__GLIBC__)
  // Compiled models allocate their intermediates per call. glibc returns
  // large freed blocks to the OS, so every call would page-fault its
  // intermediates in again (measured: 4-5 ms -> 29-38 ms for a matmul with a
  // 1 MB temporary). Keep freed memory in the process instead.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  cl::HideUnrelatedOptions(
      {&llmcCategory, &llmc::generateCategory, &llmc::tokenizeCategory});
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "llmc: compile and run llm-dialect and ONNX models on the CPU\n\n"
          "  llmc run MODEL [--input NAME=FILE.npy]... [--output-dir DIR] "
          "[--threads N] [--repeat N] [--evict-cache MiB] [--entry NAME]\n"
          "  llmc compile MODEL -o OUT --emit=mlir|llvm|obj [--entry NAME]\n"
          "  llmc compile MODEL --target cuda -o OUT "
          "--emit=ptx|fatbin|mlir|llvm|obj [--chip sm_80,sm_90a]\n"
          "  llmc import MODEL.onnx -o OUT.mlir [--dim NAME=VALUE]...\n"
          "  llmc generate MODEL --prompt-ids 1,2,3 [--max-new-tokens N] "
          "[--greedy | --temperature T --top-k K --top-p P --seed S]\n"
          "  llmc tokenize --tokenizer FILE (--text TEXT | --ids 1,2,3) "
          "[--stream] [--info]\n"
          "  llmc tune MODEL --tuning-cache FILE [--threads N] [--retune]\n"
          "  llmc calibrate MODEL --data DIR_OR_NPZ -o MODEL_Q.mlir "
          "[--method minmax|percentile=P|entropy] [--fp8]\n"
          "  llmc --print-target[=NAME]\n"
          "MODEL is an llm-dialect .mlir file or an ONNX .onnx model.\n\n"
          "Errors print one diagnostic and exit with code 1.\n",
          &llvm::errs()))
    return 1;
  if (llmc::printTargetRequested()) {
    if (runCommand || compileCommand || importCommand ||
        llmc::generateCommand || llmc::tokenizeCommand || llmc::tuneCommand ||
        llmc::calibrateCommand)
      return fail("--print-target is a command of its own: give it without "
                  "run, compile, import, generate, tokenize, tune or calibrate "
                  "(their "
                  "--target takes the same names)");
    return finishStdout(llmc::printTargetMain());
  }
  if (runCommand)
    return finishStdout(llmc::finishTensorParallel(runMain()));
  if (compileCommand)
    return finishStdout(compileTensorParallelMain());
  if (importCommand)
    return finishStdout(importMain());
  if (llmc::generateCommand)
    return finishStdout(llmc::finishTensorParallel(llmc::generateMain()));
  if (llmc::tokenizeCommand)
    return finishStdout(llmc::tokenizeMain());
  if (llmc::tuneCommand)
    return finishStdout(llmc::tuneMain());
  if (llmc::calibrateCommand)
    return finishStdout(llmc::calibrateMain());
  return fail("expected a command: 'llmc run MODEL ...', 'llmc compile "
              "MODEL ...', 'llmc import MODEL.onnx ...', 'llmc generate "
              "MODEL ...', 'llmc tokenize ...', 'llmc tune MODEL ...' or 'llmc "
              "calibrate MODEL ...' (see "
              "llmc --help)");
}
