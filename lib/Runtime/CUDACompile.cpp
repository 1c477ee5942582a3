//===- CUDACompile.cpp - Compiling llm modules for NVIDIA GPUs ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CUDACompile.h"
#include "llm/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;

StringRef mlir::llm::runtime::getDefaultCUDAToolkit() {
#ifdef LLMC_CUDA_TOOLKIT_DIR
  return LLMC_CUDA_TOOLKIT_DIR;
#else
  return "";
#endif
}

static Location getLoc(ModuleOp module) { return module.getLoc(); }

/// Replaces the per-chip cubins of `binary` by one fatbin made with the
/// toolkit's `fatbinary` (`--image3=kind=elf,sm=NN,file=...` per chip).
static LogicalResult combineIntoFatbin(gpu::BinaryOp binary,
                                       StringRef toolkit) {
  ArrayAttr objects = binary.getObjects();
  SmallVector<std::string> searchPaths;
  if (!toolkit.empty())
    searchPaths.push_back((toolkit + "/bin").str());
  SmallVector<StringRef> paths(searchPaths.begin(), searchPaths.end());
  llvm::ErrorOr<std::string> fatbinary =
      llvm::sys::findProgramByName("fatbinary", paths);
  if (!fatbinary)
    fatbinary = llvm::sys::findProgramByName("fatbinary");
  if (!fatbinary)
    return binary.emitError()
           << "cannot find the CUDA toolkit's 'fatbinary' (give --toolkit or "
              "put it on $PATH) to combine the chips into one fatbin";
  SmallVector<std::string> args = {*fatbinary, "-64", "--create"};
  SmallVector<llvm::SmallString<128>> temps;
  llvm::scope_exit removeTemps([&] {
    for (auto &t : temps)
      llvm::sys::fs::remove(t);
  });
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("llmc-kernels", "fatbin", out))
    return binary.emitError() << "cannot create a temporary file";
  temps.push_back(out);
  args.push_back(out.str().str());
  for (Attribute attr : objects) {
    auto object = cast<gpu::ObjectAttr>(attr);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!target || object.getFormat() != gpu::CompilationTarget::Binary)
      return binary.emitError() << "expected one cubin per NVVM target";
    llvm::SmallString<128> cubin;
    if (llvm::sys::fs::createTemporaryFile("llmc-kernels", "cubin", cubin))
      return binary.emitError() << "cannot create a temporary file";
    temps.push_back(cubin);
    std::error_code ec;
    llvm::raw_fd_ostream os(cubin, ec);
    if (ec)
      return binary.emitError() << "cannot write '" << cubin << "'";
    os << object.getObject().getValue();
    os.close();
    StringRef sm = StringRef(target.getChip()).drop_front(3); // "sm_"
    args.push_back(("--image3=kind=elf,sm=" + sm + ",file=" + cubin).str());
  }
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(argRefs[0], argRefs, std::nullopt, {}, 0,
                                     0, &message);
  if (rc != 0)
    return binary.emitError() << "fatbinary failed (exit " << rc << ")"
                              << (message.empty() ? "" : ": ") << message;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
      llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!bytes)
    return binary.emitError() << "cannot read the fatbin fatbinary wrote";
  auto first = cast<gpu::ObjectAttr>(objects[0]);
  auto fatbin = gpu::ObjectAttr::get(
      binary.getContext(), first.getTarget(), gpu::CompilationTarget::Fatbin,
      StringAttr::get(binary.getContext(), (*bytes)->getBuffer()),
      first.getProperties(), first.getKernels());
  binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), {fatbin}));
  return success();
}

LogicalResult
mlir::llm::runtime::lowerToNVVM(ModuleOp module,
                                const CUDACompileOptions &options) {
  LowerToNVVMOptions pipeline;
  std::string error;
  if (failed(parsePipelineOptions(options.pipelineOptions, pipeline, error)))
    return emitError(getLoc(module)) << error;
  // (The chips and the format are checked below, after --chip and the
  // output kind are applied.)
  if (std::string why = pipeline.verifyTensorParallel(); !why.empty())
    return emitError(getLoc(module)) << "invalid pipeline options '"
                                     << options.pipelineOptions << "': " << why;
  // The pipeline options' `format` (given explicitly) chooses the object
  // kind of a binary (bin: cubins only, fatbin: cubin + PTX); PTX output
  // needs isa.
  std::string format = options.format;
  if (pipeline.format.hasValue() && pipeline.format.getValue() != format) {
    if (format == "isa")
      return emitError(getLoc(module))
             << "the pipeline option format=" << pipeline.format.getValue()
             << " contradicts PTX output (format=isa)";
    format = pipeline.format.getValue();
  }
  if (format != "isa" && format != "bin" && format != "fatbin")
    return emitError(getLoc(module)) << "unknown kernel format '" << format
                                     << "' (expected isa, bin or fatbin)";
  // llmc's --chip and --opt-level set these; the pipeline's own would be
  // overridden without a word.
  if (pipeline.chip.hasValue() || pipeline.optLevel.hasValue())
    return emitError(getLoc(module))
           << "give the chips and the optimization level with --chip and "
              "--opt-level, not chip= or opt-level= in the pipeline options";
  if (options.optLevel > 3)
    return emitError(getLoc(module)) << "the optimization level must be 0-3";
  SmallVector<std::string> chips = options.chips;
  if (chips.empty())
    chips.push_back("sm_80");
  for (const std::string &chip : chips)
    if (chip != "sm_80" && chip != "sm_89" && chip != "sm_90a")
      return emitError(getLoc(module)) << "unknown chip '" << chip
                                       << "' (expected sm_80, sm_89 or sm_90a)";
  pipeline.chip = ArrayRef<std::string>(chips);
  // A fatbin of several chips is combined from their cubins here; one chip
  // is MLIR's own fatbin.
  bool combine = format == "fatbin" && chips.size() > 1;
  pipeline.format = combine ? "bin" : format;
  pipeline.toolkit =
      options.toolkit.empty() ? getDefaultCUDAToolkit().str() : options.toolkit;
  pipeline.optLevel = options.optLevel;
  if (options.noOpt)
    pipeline.disableOptimizations();
  // Some passes (gpu-module-to-binary with a bad toolkit path) report an
  // error and still succeed: any error fails the compile.
  bool sawError = false;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      sawError = true;
    return failure();
  });
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.enableVerifier(options.verifyEach);
  buildLLMLowerToNVVMPipeline(pm, pipeline);
  if (failed(pm.run(module)) || sawError) {
    if (!sawError)
      emitError(getLoc(module)) << "lowering with llm-lower-to-nvvm failed";
    return failure();
  }
  if (combine)
    for (auto binary : module.getOps<gpu::BinaryOp>())
      if (failed(combineIntoFatbin(binary, pipeline.toolkit)))
        return failure();
  return success();
}

FailureOr<SmallVector<KernelObject>>
mlir::llm::runtime::getKernelObjects(ModuleOp module) {
  SmallVector<KernelObject> result;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      KernelObject k;
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      k.chip = target ? target.getChip().str() : "";
      switch (object.getFormat()) {
      case gpu::CompilationTarget::Assembly:
        k.format = "isa";
        break;
      case gpu::CompilationTarget::Binary:
        k.format = "bin";
        break;
      case gpu::CompilationTarget::Fatbin:
        k.format = "fatbin";
        break;
      default:
        k.format = "offload";
        break;
      }
      k.bytes = object.getObject().getValue().str();
      result.push_back(std::move(k));
    }
  if (result.empty())
    return emitError(getLoc(module)) << "the module holds no GPU kernels";
  return result;
}
