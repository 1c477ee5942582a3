//===- Lowering.cpp - Lowering compiled models to LLVM --------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowering of a compiled model: the pipeline options of each target, the
// pass pipelines (CPU, CUDA, the CUDA emulator) with their progress, the
// target machines and the translation to optimized LLVM IR and objects.
//
//===----------------------------------------------------------------------===//

#include "RuntimeDetail.h"

#include "llm/Codegen/Passes.h"
#include "llm/Runtime/BackendWorkarounds.h"
#include "llm/Runtime/CompiledModel.h"

#include "llm/Codegen/TargetDescription.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Pipelines/Pipelines.h"
#include "llm/Runtime/CUDA/DriverProbe.h"
#include "llm/Runtime/CUDACompile.h"
#include "llm/Runtime/ConstantBytes.h"
#include "llm/Runtime/OutOfMemory.h"
#include "llm/Runtime/Progress.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/Timing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::runtime::detail::getModuleDiagLoc;
using mlir::llm::runtime::detail::kCInterfacePrefix;

//===----------------------------------------------------------------------===//
// Lowering and translation
//===----------------------------------------------------------------------===//

/// True when `name` is an external symbol that the lowered code may call
/// (libm, libc, the MLIR runner utils, libomp) or a name the lowering
/// generates (`_mlir_*`): a module function of that name would be called
/// instead of (or clash with) the library function. The double-precision
/// libm names (`exp`, `log`, ...) are only called for f64 math, so they clash
/// only when `usesF64` (a module with f32 math may name a function @exp).
static bool isRuntimeLibrarySymbol(StringRef name, bool usesF64) {
  static const auto sets = [] {
    std::pair<llvm::StringSet<>, llvm::StringSet<>> result;
    auto &[always, f64Only] = result;
    for (StringRef math :
         {"exp",   "exp2", "expm1",     "log",       "log2",     "log10",
          "log1p", "tanh", "sinh",      "cosh",      "erf",      "erfc",
          "pow",   "sqrt", "cbrt",      "sin",       "cos",      "tan",
          "asin",  "acos", "atan",      "atan2",     "asinh",    "acosh",
          "atanh", "fabs", "fmod",      "floor",     "ceil",     "round",
          "trunc", "rint", "nearbyint", "roundeven", "copysign", "fma",
          "fmax",  "fmin", "ldexp",     "frexp",     "modf"}) {
      f64Only.insert(math);
      always.insert((math + "f").str());
    }
    for (StringRef lib :
         {"malloc", "free", "calloc", "realloc", "aligned_alloc",
          "posix_memalign", "memrefCopy", "memcpy", "memmove", "memset",
          "printf", "dprintf", "puts", "putchar", "abort", "exit"})
      always.insert(lib);
    return result;
  }();
  if (sets.first.contains(name) || (usesF64 && sets.second.contains(name)))
    return true;
  for (StringRef prefix : {"omp_", "__kmpc_", "mgpu", "_mlir_", "__llmc_"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

/// True when a value in `module` has an f64 (element) type.
static bool usesF64(ModuleOp module) {
  auto isF64 = [](Type type) { return getElementTypeOrSelf(type).isF64(); };
  WalkResult result = module.walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isF64))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isF64))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Sets `pipelineOptions` to the `llm-lower-to-cpu` options of `options`;
/// on a parse error (or an out-of-range option) returns failure with the
/// message in `error`.
static LogicalResult getPipelineOptions(const LoweringOptions &options,
                                        llm::LowerToCPUOptions &pipelineOptions,
                                        std::string &error) {
  if (failed(parsePipelineOptions(options.pipelineOptions, pipelineOptions,
                                  error)))
    return failure();
  // libomp aborts on absurd thread counts.
  if (pipelineOptions.numThreads < 0 || pipelineOptions.numThreads > 1024) {
    error = "invalid pipeline options '" + options.pipelineOptions +
            "': num-threads must be in [0, 1024] (0: the OpenMP default), "
            "got " +
            std::to_string(pipelineOptions.numThreads.getValue());
    return failure();
  }
  if (std::string why = pipelineOptions.verify(); !why.empty()) {
    error =
        "invalid pipeline options '" + options.pipelineOptions + "': " + why;
    return failure();
  }
  if (options.noFusion)
    pipelineOptions.disableFusion();
  if (options.noOpt) {
    // (f32 matmuls stay exact: no demotion.)
    pipelineOptions.disableOptimizations();
    pipelineOptions.vectorize = false;
    pipelineOptions.parallel = false;
    pipelineOptions.attention = "materialized";
    // Half-precision matmuls stay in their own types.
    pipelineOptions.promoteContractionMinRows = 0;
  }
  if (options.verifyMemoryPlan)
    pipelineOptions.verifyMemoryPlan = true;
  return success();
}

/// The `llm-lower-to-nvvm` options of `options` for the GPU targets
/// (cuda-emulator, cuda).
static LogicalResult
getNVVMPipelineOptions(const LoweringOptions &options,
                       llm::LowerToNVVMOptions &pipelineOptions,
                       std::string &error) {
  if (failed(parsePipelineOptions(options.pipelineOptions, pipelineOptions,
                                  error)))
    return failure();
  if (std::string why = pipelineOptions.verify(); !why.empty()) {
    error =
        "invalid pipeline options '" + options.pipelineOptions + "': " + why;
    return failure();
  }
  if (options.noFusion)
    pipelineOptions.disableFusion();
  if (options.noOpt)
    pipelineOptions.disableOptimizations();
  return success();
}

llvm::Expected<std::string> mlir::llm::runtime::getEffectivePipelineOptions(
    const LoweringOptions &options) {
  std::string error;
  // The GPU targets take llm-lower-to-nvvm options (for "cuda" the chip is
  // the device's, probed when compiling).
  if (options.target == "cuda-emulator" || options.target == "cuda") {
    llm::LowerToNVVMOptions nvvmOptions;
    if (failed(getNVVMPipelineOptions(options, nvvmOptions, error)))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
    std::string text = "target=" + options.target + " ";
    llvm::raw_string_ostream os(text);
    nvvmOptions.print(os);
    return text;
  }
  if (options.target != "cpu")
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown target '" + options.target +
            "' (expected cpu, cuda or cuda-emulator)");
  llm::LowerToCPUOptions pipelineOptions;
  if (failed(getPipelineOptions(options, pipelineOptions, error)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  std::string text;
  llvm::raw_string_ostream os(text);
  pipelineOptions.print(os);
  return text;
}

LogicalResult mlir::llm::runtime::parseCPUPipelineOptions(
    const LoweringOptions &options, llm::LowerToCPUOptions &pipelineOptions,
    std::string &error) {
  return getPipelineOptions(options, pipelineOptions, error);
}

std::string
mlir::llm::runtime::getTuningCachePath(const LoweringOptions &options) {
  if (options.target != "cpu")
    return "";
  llm::LowerToCPUOptions pipelineOptions;
  std::string error;
  if (failed(getPipelineOptions(options, pipelineOptions, error)))
    return "";
  return pipelineOptions.tuningCache;
}

namespace {
/// Reports the progress of the lowering pipeline: one step per pass of the
/// top-level pass manager (a nested pass manager is one step), shown with
/// the name of the pass running, between progress::kLowering and
/// progress::kTranslation.
class ProgressInstrumentation : public PassInstrumentation {
public:
  /// The instrumented pass manager's passes are passes `first` .. of the
  /// `numPasses` of the whole lowering.
  ProgressInstrumentation(CompileProgress &progress, Operation *root,
                          size_t numPasses, size_t first = 0)
      : progress(progress), root(root),
        numPasses(std::max<size_t>(numPasses, 1)), done(first) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    // A pass adaptor (no argument) runs nested pass managers: their passes
    // (on functions, possibly in parallel) are shown as they run.
    StringRef name = pass->getArgument();
    if (name.empty())
      return;
    progress.update(("lowering: " + name).str(), fraction());
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (op == root)
      ++done;
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (op == root)
      ++done;
  }

private:
  double fraction() const {
    return progress::kLowering +
           (progress::kTranslation - progress::kLowering) *
               std::min<double>(done, numPasses) / numPasses;
  }

  CompileProgress &progress;
  Operation *root;
  size_t numPasses;
  size_t done = 0;
};
} // namespace

/// The chip llm-lower-to-nvvm compiles for to run on `device`: sm_89 and
/// sm_90a for their own capabilities, sm_80 for the other 8.x devices
/// (binary compatible) and for newer ones (the fatbin's PTX is compiled by
/// the driver); "" below 8.0.
static std::string getCompileChip(const llm::cuda::DeviceInfo &device) {
  if (device.computeMajor < 8)
    return "";
  if (device.computeMajor == 8)
    return device.computeMinor == 9 ? "sm_89" : "sm_80";
  if (device.computeMajor == 9)
    return "sm_90a";
  return "sm_80";
}

/// The "cuda" target of lowerToLLVMDialect: llm-lower-to-nvvm for the
/// device llmc's CUDA runtime will use (one fatbin).
static LogicalResult lowerForCUDADevice(ModuleOp module,
                                        const LoweringOptions &options) {
#ifndef LLMC_CUDA_RUNTIME_SHARED
  (void)options;
  return emitError(getModuleDiagLoc(module))
         << "--target cuda needs llmc's CUDA runtime, which is built only "
            "when CMake finds the CUDA toolkit";
#else
  llm::cuda::DriverInfo driver = llm::cuda::probeDriver();
  if (!driver.ok())
    return emitError(getModuleDiagLoc(module))
           << "--target cuda: " << driver.error;
  const llm::cuda::DeviceInfo &device = driver.devices[driver.selectedDevice];
  std::string chip = getCompileChip(device);
  if (chip.empty())
    return emitError(getModuleDiagLoc(module))
           << "--target cuda: device " << device.ordinal << " (" << device.name
           << ") has compute capability " << device.computeMajor << "."
           << device.computeMinor
           << "; llmc's kernels need 8.0 (sm_80) or newer";
  CUDACompileOptions cuda;
  cuda.pipelineOptions = options.pipelineOptions;
  cuda.chips = {chip};
  cuda.format = "fatbin";
  cuda.noOpt = options.noOpt;
  cuda.verifyEach = options.verifyEach;
  if (options.noFusion)
    cuda.pipelineOptions += " fuse=false fuse-elementwise=false";
  if (options.progress)
    options.progress->update("lowering with llm-lower-to-nvvm (" + chip + ")",
                             progress::kLowering);
  LogicalResult result = lowerToNVVM(module, cuda);
  if (options.progress)
    options.progress->clear();
  return result;
#endif
}

LogicalResult
mlir::llm::runtime::lowerToLLVMDialect(ModuleOp module,
                                       const LoweringOptions &options) {
  MLIRContext *ctx = module.getContext();
  // A module function named like a library function the lowered code calls
  // (e.g. @expf for llm.exp) would be called in its place.
  bool hasF64 = usesF64(module);
  for (Operation &op : module.getBody()->getOperations()) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol || !isRuntimeLibrarySymbol(symbol.getName(), hasF64))
      continue;
    return op.emitError()
           << (isa<FunctionOpInterface>(op) ? "function" : "symbol")
           << " name '@" << symbol.getName()
           << "' clashes with a runtime library symbol the compiled code "
              "calls; rename it";
  }

  if (options.target == "cuda")
    return lowerForCUDADevice(module, options);

  std::string optionError;
  LowerToCPUOptions pipelineOptions;
  LowerToNVVMOptions emulatorOptions;
  bool emulate = options.target == "cuda-emulator";
  if (!emulate && options.target != "cpu")
    return emitError(getModuleDiagLoc(module))
           << "unknown target '" << options.target
           << "' (expected cpu, cuda or cuda-emulator)";
  if (emulate
          ? failed(
                getNVVMPipelineOptions(options, emulatorOptions, optionError))
          : failed(getPipelineOptions(options, pipelineOptions, optionError)))
    return emitError(getModuleDiagLoc(module)) << optionError;

  // Public functions get a C interface (the pipeline may add it too). The
  // `llm.name` attributes (ONNX names) would reach the LLVM functions as
  // unknown parameter attributes.
  StringAttr nameKey = StringAttr::get(ctx, "llm.name");
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isPublic() && !fn.isExternal())
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(ctx));
    for (unsigned k = 0, e = fn.getNumArguments(); k < e; ++k)
      fn.removeArgAttr(k, nameKey);
    for (unsigned k = 0, e = fn.getNumResults(); k < e; ++k)
      fn.removeResultAttr(k, nameKey);
  }

  // Remember whether a pass reported an error; some fail silently. A
  // progress line is cleared before a diagnostic is printed.
  bool sawError = false;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      sawError = true;
    if (options.progress)
      options.progress->clear();
    return failure(); // Let the outer handler print it.
  });

  if (emulate) {
    // The GPU kernels, run on the CPU: one pass manager.
    PassManager pm(ctx, ModuleOp::getOperationName());
    pm.enableVerifier(options.verifyEach);
    buildLLMLowerToGPUEmulatorPipeline(pm, emulatorOptions);
    if (failed(pm.run(module)) || sawError) {
      if (!sawError)
        emitError(getModuleDiagLoc(module))
            << "lowering with llm-lower-to-gpu-emulator failed";
      return failure();
    }
    return success();
  }

  // One pass manager per stage of llm-lower-to-cpu; the IR is verified
  // after each stage, and with `verifyEach` after every pass of the stages
  // down to loops (not of the conversions to the LLVM dialect, whose IR is
  // the largest). Verifying after every pass took a quarter of the compile
  // time of a 20000-kernel model; a stage that breaks the IR is still
  // reported before the next one runs.
  ArrayRef<LowerToCPUStage> stages = getLLMLowerToCPUStages();
  SmallVector<std::unique_ptr<PassManager>> managers;
  std::optional<DefaultTimingManager> timing;
  std::optional<TimingScope> timingRoot;
  if (options.timePasses) {
    timing.emplace();
    timing->setEnabled(true);
    timingRoot.emplace(timing->getRootScope());
  }
  size_t numPasses = 0;
  for (const LowerToCPUStage &stage : stages) {
    auto pm = std::make_unique<PassManager>(ctx, ModuleOp::getOperationName());
    pm->enableVerifier(options.verifyEach &&
                       stage.name != llvm::StringRef("llvm"));
    if (timingRoot)
      pm->enableTiming(*timingRoot);
    stage.build(*pm, pipelineOptions);
    numPasses += pm->size();
    managers.push_back(std::move(pm));
  }
  if (options.progress) {
    size_t done = 0;
    for (std::unique_ptr<PassManager> &pm : managers) {
      size_t size = pm->size();
      pm->addInstrumentation(std::make_unique<ProgressInstrumentation>(
          *options.progress, module.getOperation(), numPasses, done));
      done += size;
    }
  }
  for (auto [stage, pm] : llvm::zip(stages, managers)) {
    if (failed(pm->run(module))) {
      if (!sawError)
        emitError(getModuleDiagLoc(module))
            << "lowering with llm-lower-to-cpu failed";
      return failure();
    }
    if (failed(verify(module))) {
      emitError(getModuleDiagLoc(module))
          << "the IR is invalid after llm-lower-to-cpu's " << stage.name
          << " stage (verifying after every pass, llmc --verify-each, names "
             "the pass)";
      return failure();
    }
  }
  return success();
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::llm::runtime::createHostTargetMachine(unsigned optLevel) {
  initializeNativeTarget();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  static constexpr llvm::CodeGenOptLevel levels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  builder->setCodeGenOptLevel(levels[std::min(optLevel, 3u)]);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  return builder->createTargetMachine();
}

/// The `target=` value of a pipeline options string, if any.
static std::optional<StringRef> getPipelineTarget(StringRef pipelineOptions) {
  SmallVector<StringRef> items;
  pipelineOptions.split(items, ' ', -1, /*KeepEmpty=*/false);
  std::optional<StringRef> target;
  for (StringRef item : items)
    if (item.consume_front("target="))
      target = item;
  return target;
}

std::string mlir::llm::runtime::applyCPUTarget(StringRef name,
                                               std::string &pipelineOptions) {
  if (failed(CPUTargetDescription::lookup(name)))
    return ("target '" + name + "' is not a CPU target (expected " +
            CPUTargetDescription::getKnownNames() + ")")
        .str();
  if (getPipelineTarget(pipelineOptions))
    return ("target '" + name +
            "' and the pipeline option target=... both name the CPU target; "
            "give one")
        .str();
  pipelineOptions = ("target=" + name).str() +
                    (pipelineOptions.empty() ? "" : " " + pipelineOptions);
  return "";
}

std::string
mlir::llm::runtime::checkCPUTargetRunsHere(StringRef pipelineOptions) {
  std::optional<StringRef> name = getPipelineTarget(pipelineOptions);
  if (!name || *name == "host")
    return "";
  FailureOr<CPUTargetDescription> named = CPUTargetDescription::lookup(*name);
  if (failed(named))
    return "";
  CPUTargetDescription host = CPUTargetDescription::getHost();
  for (const std::string &f : named->features)
    if (!host.hasFeature(f))
      return ("target '" + *name + "': this CPU (" + host.cpu + ") lacks " + f +
              ", which code compiled for it may use")
          .str();
  return "";
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::llm::runtime::createCPUTargetMachine(StringRef name, unsigned optLevel) {
  if (name == "host")
    return createHostTargetMachine(optLevel);
  static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
      kFamilyCPUs[] = {{"generic", "x86-64"},
                       {"avx2", "x86-64-v3"},
                       {"avx512", "x86-64-v4"},
                       {"avx512-vnni", "cascadelake"},
                       {"avx512-bf16", "cooperlake"}};
  StringRef cpu = name;
  for (auto [family, representative] : kFamilyCPUs)
    if (name == family)
      cpu = representative;
  if (llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) == llvm::X86::CK_None)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown CPU target '" + name + "' (expected " +
            CPUTargetDescription::getKnownNames() + ")");
  initializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  if (triple.getArch() != llvm::Triple::x86_64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "CPU target '" + name +
                                       "' is x86-64; this llmc runs on " +
                                       triple.str());
  llvm::orc::JITTargetMachineBuilder builder(triple);
  builder.setCPU(cpu.str());
  SmallVector<StringRef> features;
  llvm::X86::getFeaturesForCPU(cpu, features, /*NeedPlus=*/true);
  builder.addFeatures(
      std::vector<std::string>(features.begin(), features.end()));
  static constexpr llvm::CodeGenOptLevel levels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  builder.setCodeGenOptLevel(levels[std::min(optLevel, 3u)]);
  builder.setRelocationModel(llvm::Reloc::PIC_);
  builder.setCodeModel(llvm::CodeModel::Small);
  return builder.createTargetMachine();
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::llm::runtime::detail::translateAndOptimize(
    ModuleOp module, llvm::LLVMContext &llvmContext, llvm::TargetMachine &tm,
    unsigned optLevel, bool internalizeAllButCInterface,
    CompileProgress *progress,
    llvm::function_ref<void(llvm::Module &)> beforeOptimize) {
  if (progress)
    progress->update("translating to LLVM IR", progress::kTranslation);
  packConstantsAsBytes(module);
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    if (progress)
      progress->clear();
    return emitError(getModuleDiagLoc(module))
           << "translation to LLVM IR failed";
  }
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());
  // Target-specific intrinsics that a `target=` description put in (the
  // AVX512-BF16 int4 matvec, the AMX bf16 matmul) need the machine's features:
  // instruction selection would abort on a CPU without them. (The kernel's
  // vpermw is inline assembly: every CPU with AVX512-BF16 has AVX512-BW.)
  static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
      kIntrinsicFeatures[] = {{"llvm.x86.avx512bf16.", "+avx512bf16"},
                              {"llvm.x86.tdpbf16ps.", "+amx-bf16"},
                              {"llvm.x86.tile", "+amx-tile"}};
  StringRef features = tm.getTargetFeatureString();
  for (llvm::Function &f : *llvmModule)
    for (auto [prefix, feature] : kIntrinsicFeatures)
      if (f.isDeclaration() && f.getName().starts_with(prefix) &&
          !llvm::is_contained(llvm::split(features, ','), feature)) {
        if (progress)
          progress->clear();
        return emitError(getModuleDiagLoc(module))
               << "the compiled code uses " << f.getName() << ", which needs "
               << feature.drop_front()
               << " that this CPU lacks (compile with target=host, or a "
                  "target without it: avx512, avx2, generic)";
      }
  // The target's CPU and features on every function, so that the LLVM IR
  // (--emit=llvm) says what it was compiled for and another backend run
  // (llc) makes the same choices.
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration())
      continue;
    if (!tm.getTargetCPU().empty())
      f.addFnAttr("target-cpu", tm.getTargetCPU());
    if (!tm.getTargetFeatureString().empty())
      f.addFnAttr("target-features", tm.getTargetFeatureString());
  }
  if (internalizeAllButCInterface) {
    for (llvm::Function &f : *llvmModule)
      if (!f.isDeclaration() && !f.getName().starts_with(kCInterfacePrefix) &&
          f.getName() != llm::kOutOfMemoryHandlerName)
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  if (beforeOptimize)
    beforeOptimize(*llvmModule);
  if (progress)
    progress->update("LLVM IR optimization (-O" +
                         std::to_string(std::min(optLevel, 3u)) + ")",
                     progress::kOptimization);
  auto transformer =
      makeOptimizingTransformer(std::min(optLevel, 3u), /*sizeLevel=*/0, &tm);
  if (llvm::Error err = transformer(llvmModule.get())) {
    if (progress)
      progress->clear();
    return emitError(getModuleDiagLoc(module))
           << "LLVM optimization failed: " << llvm::toString(std::move(err));
  }
  legalizeOddBF16VectorAccesses(*llvmModule);
  return llvmModule;
}

FailureOr<std::unique_ptr<llvm::Module>> mlir::llm::runtime::translateToLLVMIR(
    ModuleOp module, llvm::LLVMContext &llvmContext, llvm::TargetMachine &tm,
    unsigned optLevel, bool internalizeAllButCInterface,
    CompileProgress *progress) {
  return detail::translateAndOptimize(module, llvmContext, tm, optLevel,
                                      internalizeAllButCInterface, progress,
                                      /*beforeOptimize=*/{});
}

llvm::Error mlir::llm::runtime::emitObjectFile(llvm::Module &llvmModule,
                                               llvm::TargetMachine &tm,
                                               llvm::raw_pwrite_stream &os,
                                               CompileProgress *progress) {
  if (progress)
    progress->update("LLVM codegen", progress::kCodegen);
  reserveObjectSpace(llvmModule, os);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr,
                             llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the host target cannot emit object files");
  pm.run(llvmModule);
  return llvm::Error::success();
}
