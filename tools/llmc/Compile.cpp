//===- Compile.cpp - llmc compile
//------------------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc compile`: a model compiled ahead of time to MLIR, LLVM IR, an object,
// PTX, a fatbin, an executable or a shared library (for a CPU or a CUDA
// target), with the compile report, and once per rank with
// --tensor-parallel.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "TensorParallel.h"

#include "llm/Codegen/TuningCache.h"
#include "llm/Runtime/CUDACompile.h"
#include "llm/Runtime/CUDAExecutable.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Support/Report.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using namespace llmc::driver;

//===----------------------------------------------------------------------===//
// llmc compile
//===----------------------------------------------------------------------===//

/// The table form of the compile report's `gpu_kernels` entries: one line
/// per launch, in launch order.
static void printGPUKernelTable(llvm::raw_ostream &os, ArrayAttr kernels) {
  auto dims = [](DictionaryAttr kernel, StringRef key) {
    std::string text;
    if (auto sizes = kernel.getAs<DenseI64ArrayAttr>(key))
      llvm::interleave(
          sizes.asArrayRef(), [&](int64_t v) { text += std::to_string(v); },
          [&] { text += "x"; });
    return text;
  };
  auto integer = [](DictionaryAttr kernel, StringRef key) -> int64_t {
    auto attr = kernel.getAs<IntegerAttr>(key);
    return attr ? attr.getInt() : -1;
  };
  os << "  gpu kernels (grid, block, shared memory, estimated bytes read / "
        "written per launch; -1: unknown):\n";
  for (auto kernel : kernels.getAsRange<DictionaryAttr>()) {
    StringRef name = "?", strategy = "?";
    if (auto attr = kernel.getAs<StringAttr>("name"))
      name = attr.getValue();
    if (auto dict = kernel.getAs<DictionaryAttr>("strategy"))
      if (auto attr = dict.getAs<StringAttr>("strategy"))
        strategy = attr.getValue();
    os << llvm::formatv("    {0,-24} {1,-7} grid {2,-10} block {3,-10} "
                        "shared {4,7} B  read {5,11} B  written {6,11} B\n",
                        name, strategy, dims(kernel, "grid"),
                        dims(kernel, "block"), integer(kernel, "shared_bytes"),
                        integer(kernel, "bytes_read"),
                        integer(kernel, "bytes_written"));
  }
}

llvm::Error llmc::driver::checkCompileOutputs(bool withReport) {
  if (outputPath.empty())
    return llvm::createStringError(
        "-o must not be empty (give a file, or '-' for stdout)");
  if (reportFile.getNumOccurrences() && reportFile.empty())
    return llvm::createStringError(
        "--report-file must not be empty (without it the report goes to "
        "stdout)");
  SmallVector<llm::NamedFile> outFiles;
  outFiles.push_back({outputPath, "output '" + outputPath + "'"});
  if (withReport && !reportFile.empty())
    outFiles.push_back({reportFile, "--report-file '" + reportFile + "'"});
  return checkOutputs(getTuningCacheInputs(), outFiles);
}

/// --emit=exe|shared: the host object of the CUDA module `objectModule`
/// (with the runner for exe) linked with llmc's CUDA runtime into -o, through
/// a temporary file next to it renamed into place (nothing is written on
/// failure).
static llvm::Error linkCUDAOutput(const EntrySignature &signature,
                                  llvm::Module &objectModule,
                                  llvm::TargetMachine &targetMachine,
                                  CompileProgress *tracker) {
  bool shared = emitKind == EmitKind::Shared;
  std::string runner;
  if (!shared) {
    llvm::Expected<std::string> source =
        generateCUDARunner(signature, compileRank.size, compileRank.rank);
    if (!source)
      return source.takeError();
    runner = std::move(*source);
  }
  llvm::SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("llmc-model", "o", object))
    return llvm::errorCodeToError(ec);
  llvm::scope_exit removeObject([&] { llvm::sys::fs::remove(object); });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec);
    if (ec)
      return llvm::errorCodeToError(ec);
    if (llvm::Error e =
            emitObjectFile(objectModule, targetMachine, os, tracker))
      return e;
  }
  if (tracker)
    tracker->clear();
  llvm::SmallString<256> temp(outputPath);
  temp += ".llmc-tmp";
  if (llvm::Error e = linkCUDAProgram(object, runner, shared, temp)) {
    llvm::sys::fs::remove(temp);
    return e;
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, outputPath)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError("cannot write '" + outputPath +
                                   "': " + ec.message());
  }
  return llvm::Error::success();
}

static int compileMain() {
  if (llvm::Error e =
          llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  if (optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3");
  if (llvm::Error e = checkCompileOutputs(reportKind != ReportKind::None))
    return fail(std::move(e));

  CommandContext command(/*withProgress=*/true);
  std::optional<StageTimer> &timer = command.timer;
  CompileProgress *tracker = command.tracker;
  if (tracker)
    tracker->update((isONNXModel() ? "importing " : "parsing ") + modelPath, 0);
  OwningOpRef<ModuleOp> module = loadModel(command.ctx, command.sourceMgr);
  if (!module)
    return 1;
  if (!tensorParallel.getNumOccurrences())
    if (std::string error = llmc::checkNoShardOps(*module); !error.empty())
      return fail(error);
  FailureOr<EntrySignature> entrySignature =
      getEntrySignature(*module, entryName);
  if (failed(entrySignature))
    return 1;
  stripNameAttrs(*module);
  if (reportKind != ReportKind::None && reportFile.empty() && outputPath == "-")
    return fail("--report writes to stdout, like -o -; give --report-file");
  bool cuda = targetName == "cuda";
  // A CUDA program or library runs its entry alone, and a CUDA compile with
  // --entry is for that entry: the other functions are not compiled (the GPU
  // path refuses some ops that another function may hold).
  if ((cuda && entryName.getNumOccurrences()) || emitKind == EmitKind::Exe ||
      emitKind == EmitKind::Shared)
    if (failed(keepOnlyEntries(*module, {entryName.getValue()})))
      return 1;
  // A CPU target name: the pipeline's target and the object's CPU.
  std::string cpuPipelineOptions = pipelineOptions;
  std::string objectCPU = "host";
  if (!cuda && targetName != "cpu") {
    if (targetName == "cuda-emulator")
      return fail("llmc compile: --target cuda-emulator is for llmc run; "
                  "compile with --target cpu, cuda or a CPU target name");
    std::string error = applyCPUTargetOption(cpuPipelineOptions);
    if (!error.empty())
      return fail(error);
    objectCPU = targetName;
  }
  if (std::string error = applyLoweringOptions(cpuPipelineOptions, !cuda);
      !error.empty())
    return fail(error);
  if (!cuda && (emitKind == EmitKind::PTX || emitKind == EmitKind::Fatbin ||
                emitKind == EmitKind::Exe || emitKind == EmitKind::Shared))
    return fail("--emit=ptx, fatbin, exe and shared need --target cuda");
  // A program or library of one rank needs the job's start-up, which only
  // --tensor-parallel N puts in (the runner joins the job).
  if ((emitKind == EmitKind::Exe || emitKind == EmitKind::Shared) &&
      llmc::hasTensorParallelOption(pipelineOptions))
    return fail("tensor-parallel= in --pipeline-options makes the program of "
                "one rank, which cannot join a job: give --tensor-parallel N "
                "(one program per rank)");
  std::string rankOptions =
      compileRank.size > 1 ? compileRank.pipelineOptions() : "";
  cpuPipelineOptions += rankOptions;
  bool linked = emitKind == EmitKind::Exe || emitKind == EmitKind::Shared;
  if (linked && outputPath == "-")
    return fail("--emit=exe and --emit=shared write a file; give -o FILE");
  if (!cuda && (chips.getNumOccurrences() || toolkitPath.getNumOccurrences()))
    return fail("--chip and --toolkit need --target cuda");
  if (cuda && emitKind == EmitKind::PTX && chips.size() > 1)
    return fail("--emit=ptx writes the PTX of one chip; give one --chip (or "
                "--emit=fatbin for several)");
  LoweringOptions lowering;
  lowering.pipelineOptions = cpuPipelineOptions;
  lowering.noOpt = noOpt;
  lowering.verifyEach = verifyEach;
  // kernels_unfused: the same model compiled with every fusion off.
  std::optional<int64_t> kernelsUnfused;
  if (reportKind != ReportKind::None && !cuda) {
    OwningOpRef<ModuleOp> unfused = module->clone();
    LoweringOptions unfusedLowering = lowering;
    unfusedLowering.noFusion = true;
    if (tracker)
      tracker->update("lowering without fusion (for --report)",
                      progress::kLowering);
    if (failed(lowerToLLVMDialect(*unfused, unfusedLowering)))
      return 1;
    for (auto &[key, value] : llm::getReportValues(*unfused))
      if (key == "kernels")
        kernelsUnfused = value;
  }
  lowering.verifyMemoryPlan = verifyMemoryPlan;
  lowering.progress = tracker;
  lowering.timePasses = mlirTiming;
  std::optional<std::string> kernelBytes;
  if (cuda) {
    CUDACompileOptions cudaOptions;
    cudaOptions.pipelineOptions = pipelineOptions + rankOptions;
    if (std::string error =
            applySparsifyOption(cudaOptions.pipelineOptions, /*cpu=*/false);
        !error.empty())
      return fail(error);
    cudaOptions.chips.assign(chips.begin(), chips.end());
    cudaOptions.format = emitKind == EmitKind::PTX ? "isa" : "fatbin";
    cudaOptions.toolkit = toolkitPath;
    cudaOptions.optLevel = optLevel;
    cudaOptions.noOpt = noOpt;
    cudaOptions.verifyEach = verifyEach;
    if (tracker)
      tracker->update("lowering with llm-lower-to-nvvm", progress::kLowering);
    if (failed(lowerToNVVM(*module, cudaOptions)))
      return 1;
    if (tracker)
      tracker->clear();
    if (emitKind == EmitKind::PTX || emitKind == EmitKind::Fatbin) {
      FailureOr<SmallVector<KernelObject>> objects = getKernelObjects(*module);
      if (failed(objects))
        return 1;
      // The pipeline options may ask for cubins (format=bin); a .fatbin
      // file must be a fatbin.
      if (emitKind == EmitKind::Fatbin && objects->front().format != "fatbin")
        return fail("--emit=fatbin writes a fatbin; the pipeline option "
                    "format=" +
                    objects->front().format + " makes a " +
                    objects->front().format +
                    " object (use --emit=obj, exe "
                    "or shared for it)");
      kernelBytes = objects->front().bytes;
    }
  } else if (failed(lowerToLLVMDialect(*module, lowering))) {
    return 1;
  }
  // The report, written with the -o output (all or none).
  std::optional<std::string> reportText;
  if (reportKind != ReportKind::None) {
    std::map<std::string, int64_t> entries;
    for (auto &[key, value] : llm::getReportValues(*module))
      entries[key] = value;
    if (kernelsUnfused)
      entries["kernels_unfused"] = *kernelsUnfused;
    std::string &text = reportText.emplace();
    llvm::raw_string_ostream os(text);
    // --target cuda: one entry per kernel (llm-report-gpu-kernels).
    auto kernels =
        dyn_cast_or_null<ArrayAttr>(llm::getReportAttr(*module, "gpu_kernels"));
    if (reportKind == ReportKind::JSON) {
      llvm::json::Object object;
      for (auto &[key, value] : entries)
        object[key] = value;
      if (kernels)
        object["gpu_kernels"] = llm::reportAttrToJSON(kernels);
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object)))
         << "\n";
    } else {
      os << "compile report for " << modelPath << "\n";
      for (auto &[key, value] : entries)
        os << llvm::formatv("  {0,-24} {1}\n", key, value);
      if (kernels)
        printGPUKernelTable(os, kernels);
    }
  }

  // The text outputs, or the LLVM module whose object is emitted while -o
  // is written.
  std::string bytes;
  std::unique_ptr<llvm::TargetMachine> targetMachine;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> objectModule;
  SmallVector<DeferredConstant> deferred;
  if (kernelBytes) {
    bytes = std::move(*kernelBytes);
  } else if (emitKind == EmitKind::MLIR) {
    llvm::raw_string_ostream os(bytes);
    module->print(os);
  } else {
    llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
        createCPUTargetMachine(objectCPU, optLevel);
    if (!tm)
      return fail(tm.takeError());
    targetMachine = std::move(*tm);
    // The weights skip LLVM IR and codegen: zeros there, their bytes
    // written into the object afterwards.
    if (emitKind == EmitKind::Obj)
      deferConstants(*module, deferred);
    FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
        translateToLLVMIR(*module, llvmContext, *targetMachine, optLevel,
                          /*internalizeAllButCInterface=*/true, tracker);
    if (failed(llvmModule))
      return 1;
    // The LLVM module holds its own copy of the weights (but for the
    // deferred ones, still to be written).
    SmallVector<const char *> keep;
    for (const DeferredConstant &c : deferred)
      keep.push_back(c.bytes.data());
    releaseConstantBlobs(*module, keep);
    if (emitKind == EmitKind::LLVM) {
      llvm::raw_string_ostream os(bytes);
      (*llvmModule)->print(os, nullptr);
    } else {
      objectModule = std::move(*llvmModule);
    }
  }
  if (linked) {
    if (llvm::Error e = linkCUDAOutput(*entrySignature, *objectModule,
                                       *targetMachine, tracker))
      return fail(std::move(e));
    objectModule.reset();
    if (!reportText)
      return 0;
    if (llvm::Error e = llm::writeFiles(
            {reportFile.empty() ? std::string("-") : reportFile.getValue()},
            [&](size_t, llvm::raw_ostream &os, StringRef) -> llvm::Error {
              os << *reportText;
              return llvm::Error::success();
            }))
      return fail(std::move(e));
    return 0;
  }
  // Writes -o. The object goes straight into a regular file's temporary
  // file (the ELF writer seeks back to patch its headers), then the deferred
  // weights over their zeros: a large model's object is neither buffered
  // nor copied. Stdout and devices, which cannot seek, get it through a
  // buffer.
  auto writeOutput = [&](llvm::raw_ostream &os,
                         StringRef tempPath) -> llvm::Error {
    if (!objectModule) {
      os << bytes;
      return llvm::Error::success();
    }
    if (!tempPath.empty() &&
        os.get_kind() == llvm::raw_ostream::OStreamKind::OK_FDStream) {
      auto &file = static_cast<llvm::raw_fd_ostream &>(os);
      if (file.supportsSeeking()) {
        if (llvm::Error e =
                emitObjectFile(*objectModule, *targetMachine, file, tracker))
          return e;
        if (deferred.empty())
          return llvm::Error::success();
        if (tracker)
          tracker->clear();
        if (timer)
          timer->begin("writing the weights into the object");
        // The object so far, read back (its headers and symbols).
        file.flush();
        llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> written =
            llvm::MemoryBuffer::getFile(tempPath, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
        if (!written)
          return llvm::errorCodeToError(written.getError());
        return appendDeferredConstants((*written)->getMemBufferRef(), deferred,
                                       file);
      }
    }
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream bufferStream(buffer);
    if (llvm::Error e = emitObjectFile(*objectModule, *targetMachine,
                                       bufferStream, tracker))
      return e;
    if (!deferred.empty()) {
      if (tracker)
        tracker->clear();
      if (timer)
        timer->begin("writing the weights into the object");
      // A copy of the object part: appending may move the buffer.
      std::string head(buffer.data(), buffer.size());
      if (llvm::Error e = appendDeferredConstants(
              llvm::MemoryBufferRef(head, outputPath), deferred, bufferStream))
        return e;
    }
    os << StringRef(buffer.data(), buffer.size());
    return llvm::Error::success();
  };

  // -o and the report as a set (the report to stdout without
  // --report-file). Errors read "cannot write 'PATH': <reason>".
  SmallVector<std::string> paths = {outputPath};
  if (reportText)
    paths.push_back(reportFile.empty() ? std::string("-") : reportFile);
  if (timer && !objectModule)
    timer->begin("writing the outputs");
  if (llvm::Error e = llm::writeFiles(paths,
                                      [&](size_t k, llvm::raw_ostream &os,
                                          StringRef tempPath) -> llvm::Error {
                                        if (k == 0) {
                                          llvm::Error e =
                                              writeOutput(os, tempPath);
                                          if (tracker)
                                            tracker->clear();
                                          if (timer && objectModule)
                                            timer->begin("writing the outputs");
                                          return e;
                                        }
                                        os << *reportText;
                                        return llvm::Error::success();
                                      }))
    return fail(std::move(e));
  if (timer) {
    timer->finish();
    timer->print(llvm::errs());
  }
  return 0;
}

/// `llmc compile --tensor-parallel N -o OUT.EXT`: compileMain once per rank,
/// into OUT.rankR.EXT. One output per rank rather than one taking the rank
/// at run time: each then holds only its rank's slice of the split weights,
/// and every slice and kernel shape is static. For --target cuda the
/// all-reduces call llmc's CUDA runtime (NCCL).
int llmc::driver::compileTensorParallelMain() {
  if (!tensorParallel.getNumOccurrences())
    return compileMain();
  int64_t ranks = tensorParallel;
  if (ranks < 2)
    return fail("--tensor-parallel must be at least 2, got " +
                llvm::Twine(ranks));
  if (targetName == "cuda-emulator")
    return fail("llmc compile: --target cuda-emulator is for llmc run; "
                "compile with --target cpu, cuda or a CPU target name");
  // (A CPU program or library of a rank needs the MPI job's start-up: the
  // caller's main, as test/llmc/Inputs/tp_main.c; a CUDA one has it in
  // its generated runner, or in the caller's, as tp_cuda_main.c.)
  bool cuda = targetName == "cuda";
  if (emitKind != EmitKind::Obj && emitKind != EmitKind::LLVM &&
      emitKind != EmitKind::MLIR &&
      !(cuda && (emitKind == EmitKind::PTX || emitKind == EmitKind::Fatbin ||
                 emitKind == EmitKind::Exe)))
    return fail(cuda ? "--tensor-parallel writes --emit=obj, llvm, mlir, "
                       "ptx, fatbin or exe"
                     : "--tensor-parallel writes --emit=obj, llvm or mlir");
  if (outputPath == "-")
    return fail("--tensor-parallel writes one file per rank: give -o a file "
                "name, not -");
  if (reportKind != ReportKind::None)
    return fail("--report is not supported with --tensor-parallel");
  if (llmc::hasTensorParallelOption(pipelineOptions))
    return fail("give --tensor-parallel or tensor-parallel= in "
                "--pipeline-options, not both");
  std::string base = outputPath;
  if (llvm::sys::path::filename(base).empty() ||
      llvm::sys::fs::is_directory(base))
    return fail("--tensor-parallel writes one file per rank, OUT.rankR.EXT "
                "for -o OUT.EXT: give -o a file name, not the directory '" +
                base + "'");
  llvm::StringRef ext = llvm::sys::path::extension(base);
  llvm::StringRef stem = llvm::StringRef(base).drop_back(ext.size());
  for (int64_t rank = 0; rank < ranks; ++rank) {
    compileRank.size = ranks;
    compileRank.rank = rank;
    outputPath.setValue((stem + ".rank" + llvm::Twine(rank) + ext).str());
    if (int rc = compileMain())
      return rc;
    llvm::outs() << "wrote " << outputPath << " (rank " << rank << " of "
                 << ranks << ")\n";
  }
  return 0;
}
