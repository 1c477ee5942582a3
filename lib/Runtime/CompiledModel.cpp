//===- CompiledModel.cpp - JIT-compiled llm modules -----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the JIT-compiled CompiledModel: its creation from a
// lowered module, its objects, loading and calls. Entry signatures are in
// EntrySignature.cpp, the lowering and translation in Lowering.cpp.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CompiledModel.h"
#include "RuntimeDetail.h"
#include "llm/Codegen/Collectives.h"
#include "llm/Codegen/Passes.h"
#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Dialect/LLM/Transforms/ShardingInterfaceImpl.h"
#include "llm/Runtime/BackendWorkarounds.h"
#include "llm/Support/Report.h"

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Runtime/ConstantBytes.h"
#include "llm/Runtime/OutOfMemory.h"
#include "llm/Runtime/Progress.h"
#include "llm/Support/LibraryPaths.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <new>

using namespace mlir;
using namespace mlir::llm::runtime;
using mlir::llm::runtime::detail::getModuleDiagLoc;
using mlir::llm::runtime::detail::kCInterfacePrefix;
using mlir::llm::runtime::detail::translateAndOptimize;

#ifndef LLMC_C_RUNNER_UTILS
#define LLMC_C_RUNNER_UTILS ""
#endif
#ifndef LLMC_RUNNER_UTILS
#define LLMC_RUNNER_UTILS ""
#endif
#ifndef LLMC_OMP_LIB
#define LLMC_OMP_LIB ""
#endif

/// The symbols of a CompiledObject (see the header).
static constexpr llvm::StringLiteral kPackedEntryName("__llmc_entry");
static constexpr llvm::StringLiteral
    kPackedDeviceEntryName("__llmc_device_entry");
static constexpr llvm::StringLiteral kInitName("__llmc_init");
static constexpr llvm::StringLiteral kFiniName("__llmc_fini");

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

void mlir::llm::runtime::registerRuntimeDialects(DialectRegistry &registry) {
  registry.insert<llm::LLMDialect>();
  llm::registerShardingInterfaceExternalModels(registry);
  llm::registerMPIMemoryEffectModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mlir::llm::runtime::initializeNativeTarget() {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Inline assembly in compiled code (the AVX512-BF16 int4 matvec's
    // vpermw) is assembled by the target's asm parser.
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;
}

SmallVector<std::string> mlir::llm::runtime::getDefaultSharedLibPaths() {
  SmallVector<std::string> paths;
  for (StringRef path : {StringRef(LLMC_C_RUNNER_UTILS),
                         StringRef(LLMC_RUNNER_UTILS), StringRef(LLMC_OMP_LIB)})
    if (!path.empty() && llvm::sys::fs::exists(path))
      paths.push_back(path.str());
  return paths;
}

//===----------------------------------------------------------------------===//
// CompiledModel
//===----------------------------------------------------------------------===//

#ifdef LLMC_CUDA_RUNTIME_SHARED
/// llmc's CUDA runtime (libllmc_cuda_runtime.so), which the host code of a
/// "cuda" model calls: $LLMC_CUDA_RUNTIME_LIBRARY when set (the only path
/// tried); else the first that exists of getLibraryCandidates (beside the
/// installed binary, then this build's), else this build's (its load
/// error names it).
static std::string findCUDARuntimeLibrary() {
  if (const char *env = std::getenv("LLMC_CUDA_RUNTIME_LIBRARY"); env && *env) {
    // A path (dlopen would search the library path for a bare name).
    llvm::SmallString<256> path(env);
    llvm::sys::fs::make_absolute(path);
    return std::string(path);
  }
  return llm::findLibrary(
      "libllmc_cuda_runtime.so",
      reinterpret_cast<const void *>(&findCUDARuntimeLibrary),
      LLMC_CUDA_RUNTIME_SHARED);
}
#endif

/// The packed entry of entry `index` (0: the first): `__llmc_entry`, then
/// `__llmc_entry1`, ...
static std::string getPackedEntryName(size_t index, bool onDevice = false) {
  return ((onDevice ? kPackedDeviceEntryName : kPackedEntryName) +
          (index ? std::to_string(index) : ""))
      .str();
}

/// Defines `void <packedName>(void **args)` in `m`, calling `ciface` with
/// `*args[i]` as its argument i (the packed calling convention of
/// mlir::ExecutionEngine::invokePacked).
static void addPackedEntry(llvm::Module &m, llvm::Function &ciface,
                           StringRef packedName) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()},
                                       /*isVarArg=*/false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                    packedName, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  SmallVector<llvm::Value *> args;
  for (auto [i, arg] : llvm::enumerate(ciface.args())) {
    llvm::Value *slot = b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(0), i);
    llvm::Value *argPtr = b.CreateLoad(b.getPtrTy(), slot);
    args.push_back(b.CreateLoad(arg.getType(), argPtr));
  }
  b.CreateCall(&ciface, args);
  b.CreateRetVoid();
}

/// Replaces the global constructor or destructor list `arrayName`
/// (`llvm.global_ctors` / `llvm.global_dtors`) of `m` by an external
/// function `fnName` that calls them in order (constructors by ascending,
/// destructors by descending priority): the JIT loads a plain object and
/// runs no init sections. Returns whether `m` had any.
static bool lowerStructors(llvm::Module &m, StringRef arrayName,
                           StringRef fnName, bool descending) {
  llvm::GlobalVariable *list = m.getNamedGlobal(arrayName);
  if (!list)
    return false;
  // (priority, position in the list, function).
  SmallVector<std::tuple<uint64_t, size_t, llvm::Function *>> fns;
  if (auto *init =
          dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer())) {
    for (llvm::Value *element : init->operands()) {
      auto *entry = dyn_cast<llvm::ConstantStruct>(element);
      if (!entry || entry->getNumOperands() < 2)
        continue;
      auto *priority = dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
      auto *fn =
          dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
      if (fn)
        fns.emplace_back(priority ? priority->getZExtValue() : 65535,
                         fns.size(), fn);
    }
  }
  llvm::sort(fns, [&](const auto &a, const auto &b) {
    if (std::get<0>(a) != std::get<0>(b))
      return descending ? std::get<0>(a) > std::get<0>(b)
                        : std::get<0>(a) < std::get<0>(b);
    return std::get<1>(a) < std::get<1>(b);
  });
  list->eraseFromParent();
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), /*isVarArg=*/false);
  auto *wrapper = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, fnName, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  for (auto &[priority, position, fn] : fns)
    b.CreateCall(fn->getFunctionType(), fn);
  b.CreateRetVoid();
  return true;
}

CompiledModel::~CompiledModel() {
  if (fini)
    fini();
  for (void (*destroy)() : libraryDestroyFns)
    destroy();
}

FailureOr<std::unique_ptr<CompiledModel>>
CompiledModel::create(ModuleOp module, const CompileOptions &options,
                      CompiledObject *objectOut) {
  FailureOr<EntrySignature> signature =
      getEntrySignature(module, options.entry);
  if (failed(signature))
    return failure();
  LoweringOptions lowering = options.lowering;
  if (!lowering.progress)
    lowering.progress = options.progress;
  // The other entries, checked before lowering as the first one.
  SmallVector<EntrySignature, 1> extraSignatures;
  for (const std::string &name : options.extraEntries) {
    FailureOr<EntrySignature> extra = getEntrySignature(module, name);
    if (failed(extra))
      return failure();
    extraSignatures.push_back(std::move(*extra));
  }
  // On the GPU emulator only the entries are compiled: the GPU path
  // refuses some ops that another function of the module may hold. (The CPU
  // compiles and checks the whole module.)
  if (lowering.target != "cpu") {
    SmallVector<std::string> entries = {options.entry};
    llvm::append_range(entries, options.extraEntries);
    if (failed(keepOnlyEntries(module, entries)))
      return failure();
  }
  if (failed(lowerToLLVMDialect(module, lowering)))
    return failure();
  CompileProgress *progress = lowering.progress;

  // Each lowered C interface must take one descriptor pointer per input and
  // result and return nothing (see the file comment of the header);
  // memory-arena=caller: one more trailing memref<?xi8>. The entries share
  // one arena of the largest size (calls are serialized).
  std::optional<int64_t> arenaBytes;
  SmallVector<std::string> entryNames = {options.entry};
  llvm::append_range(entryNames, options.extraEntries);
  // On a CUDA device the entry on host buffers (llm-add-gpu-host-entries:
  // copies in, launches, copies out) is called.
  StringRef hostSuffix = lowering.target == "cuda" ? "_host" : "";
  for (auto [i, name] : llvm::enumerate(entryNames)) {
    const EntrySignature &sig = i == 0 ? *signature : extraSignatures[i - 1];
    std::string cifaceName = (kCInterfacePrefix + name + hostSuffix).str();
    auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(cifaceName);
    size_t numOperands = sig.inputs.size() + sig.results.size();
    if (auto arenas = module->getAttrOfType<DictionaryAttr>("llm.arena_bytes"))
      if (auto size = arenas.getAs<IntegerAttr>(name)) {
        arenaBytes = std::max(arenaBytes.value_or(0), size.getInt());
        ++numOperands;
      }
    if (!ciface || ciface.getFunctionType().getNumParams() != numOperands ||
        !isa<LLVM::LLVMVoidType>(ciface.getFunctionType().getReturnType())) {
      return emitError(getModuleDiagLoc(module))
             << "the lowered module has no '" << cifaceName << "' taking "
             << numOperands << " descriptor pointers and returning nothing";
    }
  }

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      createHostTargetMachine(options.optLevel);
  if (!tm)
    return emitError(getModuleDiagLoc(module))
           << "cannot create a host target: " << llvm::toString(tm.takeError());
  // The JIT (RuntimeDyld + SectionMemoryManager) maps code, read-only and
  // read-write data in separate blocks, and places them near each other only
  // as an mmap hint. The small code model reaches data and stubs through
  // 32-bit PC-relative relocations, which RuntimeDyld truncates silently when
  // the blocks end up more than 2 GiB apart. That happened under ASan, whose
  // 4 TiB allocator reservation splits the mmap area: a model's .rodata was
  // mapped above it and its code 4 TiB below, and the code faulted on its
  // first data load (a constant, or the JIT platform's globals in the
  // deinit stub that ~ExecutionEngine runs): SEGV inside JIT code in
  // attention-bshd, attention-flash and test/python/compile.py. Any host
  // process with large reservations could see the same. The large code model uses 64-bit
  // absolute addresses, valid wherever the blocks land. (Objects written by
  // `llmc compile --emit=obj` keep the small model: a static linker places
  // their sections.)
  (*tm)->setCodeModel(llvm::CodeModel::Large);

  // LLVM IR with the packed entry (and the global constructors and
  // destructors as functions), optimized; then the object. No function is
  // internalized (as in mlir::ExecutionEngine): a function called once
  // would be inlined into its caller, and O3 on one huge function is slow.
  CompiledObject object;
  object.signature = std::move(*signature);
  object.extraSignatures = std::move(extraSignatures);
  object.callerArena = arenaBytes.has_value();
  object.arenaBytes = arenaBytes.value_or(0);
  object.tileScratchBytes =
      getReportValue(module, "tile_scratch_bytes").value_or(0);
  if (auto checks = module->getAttrOfType<ArrayAttr>(kIndexChecksAttrName))
    for (auto check : checks.getAsValueRange<StringAttr>())
      object.indexChecks.push_back(check.str());
  // The weights stay out of LLVM IR, the object and the JIT's memory: the
  // JIT defines their symbols at their bytes in this buffer.
  if (std::unique_ptr<llvm::WritableMemoryBuffer> weights =
          externalizeConstants(module, object.weights)) {
    object.weightBytes =
        llvm::StringRef(weights->getBufferStart(), weights->getBufferSize());
    object.weightOwner = std::shared_ptr<const llvm::MemoryBuffer>(
        std::move(weights));
  }
  llvm::SmallVector<char, 0> objectBytes;
  {
    llvm::LLVMContext llvmContext;
    FailureOr<std::unique_ptr<llvm::Module>> llvmModule = translateAndOptimize(
        module, llvmContext, **tm, options.optLevel,
        /*internalizeAllButCInterface=*/false, progress, [&](llvm::Module &m) {
          for (auto [i, name] : llvm::enumerate(entryNames)) {
            if (llvm::Function *fn = m.getFunction(
                    (kCInterfacePrefix + name + hostSuffix).str()))
              addPackedEntry(m, *fn, getPackedEntryName(i));
            // The entry on device buffers that `<name>_host` calls.
            if (llvm::Function *fn =
                    m.getFunction((kCInterfacePrefix + name).str());
                fn && !hostSuffix.empty()) {
              addPackedEntry(m, *fn, getPackedEntryName(i, /*onDevice=*/true));
              object.hasDeviceEntries = true;
            }
          }
          object.hasInit = lowerStructors(m, "llvm.global_ctors", kInitName,
                                          /*descending=*/false);
          object.hasFini = lowerStructors(m, "llvm.global_dtors", kFiniName,
                                          /*descending=*/true);
        });
    if (failed(llvmModule))
      return failure();
    llvm::raw_svector_ostream os(objectBytes);
    if (llvm::Error err = emitObjectFile(**llvmModule, **tm, os, progress)) {
      if (progress)
        progress->clear();
      return emitError(getModuleDiagLoc(module))
             << "JIT compilation failed: " << llvm::toString(std::move(err));
    }
  }
  object.object = std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(objectBytes), "llmc-jit-object",
      /*RequiresNullTerminator=*/false);

  if (progress)
    progress->update("loading", progress::kLoading);
  llvm::Expected<std::unique_ptr<CompiledModel>> model = load(object, options);
  if (progress)
    progress->clear();
  if (!model)
    return emitError(getModuleDiagLoc(module))
           << "JIT compilation failed: " << llvm::toString(model.takeError());
  if (objectOut)
    *objectOut = std::move(object);
  return std::move(*model);
}

/// Serializes the CUDA work of all models (see CompiledModel::invokeEntry).
static std::mutex &getCUDAMutex() {
  static std::mutex mutex;
  return mutex;
}

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::load(const CompiledObject &object,
                    const CompileOptions &options) {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (!object.object)
    return error("no object code");
  initializeNativeTarget();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> jtmb =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  jtmb->setCodeModel(llvm::CodeModel::Large);

  // LLMC_PERF_JIT=1: register the JIT code with perf (jitdump files for
  // `perf record -k 1` + `perf inject --jit`), to profile compiled models.
  llvm::JITEventListener *perfListener =
      std::getenv("LLMC_PERF_JIT")
          ? llvm::JITEventListener::createPerfJITEventListener()
          : nullptr;
  // RuntimeDyld with SectionMemoryManager, as mlir::ExecutionEngine (see
  // the large code model above); no platform: the object's constructors are
  // `__llmc_init`, called below.
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*jtmb))
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .setObjectLinkingLayerCreator(
              [perfListener](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                        session, [](const llvm::MemoryBuffer &) {
                          return std::make_unique<llvm::SectionMemoryManager>();
                        });
                if (perfListener)
                  layer->registerJITEventListener(*perfListener);
                return layer;
              })
          .create();
  if (!jit)
    return jit.takeError();
  // Link errors come back from the lookups below; ORC would also print
  // them ("JIT session error: ...") on stderr.
  (*jit)->getExecutionSession().setErrorReporter(
      [](llvm::Error err) { llvm::consumeError(std::move(err)); });

  // Undefined symbols: the shared libraries, then the process (libm, libc).
  // A library with the ExecutionEngine's init/destroy protocol provides its
  // symbols through the init function.
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  llvm::orc::JITDylib &mainJD = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  SmallVector<std::string> libs = options.sharedLibPaths.empty()
                                      ? getDefaultSharedLibPaths()
                                      : options.sharedLibPaths;
  // --target cuda: the lowered host code's mgpu* functions, and the checks
  // after each call.
  bool cuda = options.lowering.target == "cuda";
  if (cuda) {
#ifdef LLMC_CUDA_RUNTIME_SHARED
    std::string runtimePath = findCUDARuntimeLibrary();
    // (A FIFO would block dlopen forever.)
    if (llvm::sys::fs::exists(runtimePath) &&
        !llvm::sys::fs::is_regular_file(runtimePath))
      return error("cannot load llmc's CUDA runtime '" + runtimePath +
                   "': not a regular file");
    std::string message;
    llvm::sys::DynamicLibrary runtime =
        llvm::sys::DynamicLibrary::getPermanentLibrary(runtimePath.c_str(),
                                                       &message);
    if (!runtime.isValid())
      return error("cannot load llmc's CUDA runtime '" + runtimePath +
                   "': " + message);
    model->cudaSynchronize = reinterpret_cast<int (*)()>(
        runtime.getAddressOfSymbol("llmcCudaSynchronize"));
    model->cudaErrorMessage = reinterpret_cast<const char *(*)()>(
        runtime.getAddressOfSymbol("llmcCudaGetLastErrorMessage"));
    model->cudaClearError = reinterpret_cast<int (*)()>(
        runtime.getAddressOfSymbol("llmcCudaClearError"));
    if (!model->cudaSynchronize || !model->cudaErrorMessage ||
        !model->cudaClearError)
      return error("llmc's CUDA runtime lacks llmcCudaSynchronize");
    // llmc reports a CUDA error's message itself (once).
    if (auto setPrinting = reinterpret_cast<void (*)(int)>(
            runtime.getAddressOfSymbol("llmcCudaSetErrorPrinting")))
      setPrinting(0);
    libs.push_back(runtimePath);
#else
    return error("--target cuda needs llmc's CUDA runtime, which is built "
                 "only when CMake finds the CUDA toolkit");
#endif
  }
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  for (const std::string &path : libs) {
    std::string message;
    llvm::sys::DynamicLibrary lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &message);
    if (!lib.isValid())
      return error("cannot load '" + path + "': " + message);
    void *init = lib.getAddressOfSymbol(ExecutionEngine::kLibraryInitFnName);
    void *destroy =
        lib.getAddressOfSymbol(ExecutionEngine::kLibraryDestroyFnName);
    if (!init || !destroy) {
      mainJD.addGenerator(
          std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(lib,
                                                                     prefix));
      continue;
    }
    llvm::StringMap<void *> exported;
    reinterpret_cast<ExecutionEngine::LibraryInitFn>(init)(exported);
    model->libraryDestroyFns.push_back(
        reinterpret_cast<ExecutionEngine::LibraryDestroyFn>(destroy));
    llvm::orc::SymbolMap symbols;
    for (auto &entry : exported)
      symbols[mangle(entry.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(entry.getValue()),
          llvm::JITSymbolFlags::Exported};
    if (llvm::Error err =
            mainJD.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return std::move(err);
  }
  // The handler of llm-check-allocations' allocation functions.
  {
    llvm::orc::SymbolMap symbols;
    symbols[mangle(llm::kOutOfMemoryHandlerName)] = {
        llvm::orc::ExecutorAddr::fromPtr(getOutOfMemoryHandler()),
        llvm::JITSymbolFlags::Exported};
    if (llvm::Error err =
            mainJD.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return std::move(err);
  }
  using llvm::orc::DynamicLibrarySearchGenerator;
  llvm::Expected<std::unique_ptr<DynamicLibrarySearchGenerator>> process =
      DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  mainJD.addGenerator(std::move(*process));

  // The weights: absolute symbols at their bytes, which the model keeps.
  if (!object.weights.empty()) {
    llvm::orc::SymbolMap symbols;
    for (const ExternalConstant &weight : object.weights) {
      if (weight.offset > object.weightBytes.size() ||
          weight.size > object.weightBytes.size() - weight.offset)
        return error("weight '" + weight.symbol + "' (" +
                     llvm::Twine(weight.size) + " bytes at " +
                     llvm::Twine(weight.offset) +
                     ") lies outside the weights' " +
                     llvm::Twine(object.weightBytes.size()) + " bytes");
      symbols[mangle(weight.symbol)] = {
          llvm::orc::ExecutorAddr::fromPtr(object.weightBytes.data() +
                                           weight.offset),
          llvm::JITSymbolFlags::Exported};
    }
    if (llvm::Error err =
            mainJD.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return std::move(err);
    model->weightOwner = object.weightOwner;
    model->weightBytes = static_cast<int64_t>(object.weightBytes.size());
  }

  // The object is linked (copied into the JIT's memory) by the first lookup.
  if (llvm::Error err = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBuffer(
          object.object->getMemBufferRef(), /*RequiresNullTerminator=*/false)))
    return std::move(err);
  for (size_t i = 0, e = 1 + object.extraSignatures.size(); i < e; ++i) {
    llvm::Expected<llvm::orc::ExecutorAddr> entry =
        (*jit)->lookup(getPackedEntryName(i));
    if (!entry)
      return entry.takeError();
    model->packedEntries.push_back(entry->toPtr<void (*)(void **)>());
    if (!object.hasDeviceEntries)
      continue;
    llvm::Expected<llvm::orc::ExecutorAddr> deviceEntry =
        (*jit)->lookup(getPackedEntryName(i, /*onDevice=*/true));
    if (!deviceEntry)
      return deviceEntry.takeError();
    model->devicePackedEntries.push_back(
        deviceEntry->toPtr<void (*)(void **)>());
  }
  if (object.hasFini) {
    llvm::Expected<llvm::orc::ExecutorAddr> fini = (*jit)->lookup(kFiniName);
    if (!fini)
      return fini.takeError();
    model->fini = fini->toPtr<void (*)()>();
  }
  // --target cuda: the constructors load the kernels; an error another
  // model left recorded would make them skip it.
  std::unique_lock<std::mutex> cudaLock(getCUDAMutex(), std::defer_lock);
  if (cuda) {
    cudaLock.lock();
    model->cudaClearError();
  }
  if (object.hasInit) {
    llvm::Expected<llvm::orc::ExecutorAddr> init = (*jit)->lookup(kInitName);
    if (!init)
      return init.takeError();
    void *initArgs[] = {init->toPtr<void *>()};
    if (llvm::Error err = callCatchingOutOfMemory(
            [](void **args) { reinterpret_cast<void (*)()>(args[0])(); },
            initArgs))
      return std::move(err);
  }
  // The constructors loaded the kernels (mgpuModuleLoad) and the weights
  // they hold onto the device, once.
  if (llvm::Error err = model->checkCUDAErrors("loading the model"))
    return std::move(err);
  if (cudaLock.owns_lock())
    cudaLock.unlock();

  // On a CUDA device the kernels' checks record into a device copy that
  // each call copies back into this host status
  // (llm-forward-gpu-index-status).
  if (!object.indexChecks.empty()) {
    llvm::Expected<llvm::orc::ExecutorAddr> status =
        (*jit)->lookup(kIndexCheckStatusName);
    if (!status)
      return status.takeError();
    model->indexStatus = status->toPtr<int64_t *>();
    model->indexChecks = object.indexChecks;
  }
  model->signatures.push_back(object.signature);
  llvm::append_range(model->signatures, object.extraSignatures);
  model->jit = std::move(*jit);
  model->tileScratchBytes = object.tileScratchBytes;
  if (object.callerArena) {
    // 64 bytes of slack to align the start (llm-plan-memory's alignment).
    model->callerArena = true;
    model->arenaBytes = object.arenaBytes;
    model->arenaStorage.reset(
        static_cast<uint8_t *>(std::calloc(object.arenaBytes + 64, 1)));
    if (!model->arenaStorage)
      return error("cannot allocate the model's arena of " +
                   llvm::Twine(object.arenaBytes) + " bytes");
    uintptr_t base = reinterpret_cast<uintptr_t>(model->arenaStorage.get());
    model->arena = reinterpret_cast<uint8_t *>(llvm::alignTo(base, 64));
  }
  return model;
}

/// Checks that `view` matches `spec`, whose dynamic dimensions are `seq`;
/// `what` names the operand. Allocates nothing unless it fails.
static llvm::Error checkView(const TensorView &view, const TensorSpec &spec,
                             int64_t seq, const llvm::Twine &what) {
  bool same = view.dtype == spec.dtype && view.shape.size() == spec.shape.size();
  int64_t elements = 1;
  for (size_t d = 0; same && d < spec.shape.size(); ++d) {
    int64_t want =
        ShapedType::isDynamic(spec.shape[d]) ? seq : spec.shape[d];
    same = view.shape[d] == want;
    elements *= want;
  }
  if (!same) {
    TensorSpec concrete = spec;
    for (int64_t &d : concrete.shape)
      if (ShapedType::isDynamic(d))
        d = seq;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        what + ": expected " + concrete.str() + ", got shape " +
            formatShape(view.shape) + " of " + getDTypeName(view.dtype));
  }
  if (!view.data && elements != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + ": null data pointer");
  return llvm::Error::success();
}

llvm::Error CompiledModel::invokePacked(unsigned index,
                                        ArrayRef<TensorView> inputs,
                                        ArrayRef<TensorView> outputs,
                                        bool onDevice) {
  if (index >= signatures.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no entry #" + llvm::Twine(index) +
                                       " (the model has " +
                                       llvm::Twine(signatures.size()) + ")");
  if (onDevice && !hasDeviceEntries())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "device buffers need a model compiled for target cuda; this one "
        "runs on host buffers");
  const EntrySignature &signature = signatures[index];
  if (inputs.size() != signature.inputs.size() ||
      outputs.size() != signature.results.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "@" + signature.name + " takes " +
            llvm::Twine(signature.inputs.size()) + " inputs and " +
            llvm::Twine(signature.results.size()) + " outputs, got " +
            llvm::Twine(inputs.size()) + " and " + llvm::Twine(outputs.size()));
  // A call allocates no heap memory (a decode loop calls the model once per
  // token): the checks allocate only to report an error, and the buffers
  // below are on the stack for up to kInlineOperands operands of rank <= 6.
  constexpr size_t kInlineOperands = 160;
  // The dynamic sequence length of this call (-1: none).
  int64_t seq = -1;
  if (signature.seqBound > 0) {
    SmallVector<ArrayRef<int64_t>, kInlineOperands> shapes;
    for (const TensorView &view : inputs)
      shapes.push_back(view.shape);
    llvm::Expected<int64_t> length = signature.getSequenceLength(shapes);
    if (!length)
      return length.takeError();
    seq = *length;
  }
  for (auto [i, view] : llvm::enumerate(inputs))
    if (llvm::Error e = checkView(view, signature.inputs[i], seq,
                                  "input #" + llvm::Twine(i)))
      return e;
  for (auto [i, view] : llvm::enumerate(outputs))
    if (llvm::Error e = checkView(view, signature.results[i], seq,
                                  "output #" + llvm::Twine(i)))
      return e;

  // One memref descriptor per operand: {allocated, aligned, offset,
  // sizes[R], strides[R]}, all 8-byte fields, one after the other.
  SmallVector<int64_t, kInlineOperands * 15> descriptors;
  SmallVector<size_t, kInlineOperands> starts;
  auto addDescriptor = [&](const TensorView &view) {
    starts.push_back(descriptors.size());
    int64_t ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(view.data));
    descriptors.append({ptr, ptr, 0});
    descriptors.append(view.shape.begin(), view.shape.end());
    size_t first = descriptors.size();
    descriptors.append(view.shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(view.shape.size()) - 2; i >= 0; --i)
      descriptors[first + i] = descriptors[first + i + 1] * view.shape[i + 1];
  };
  for (const TensorView &view : inputs)
    addDescriptor(view);
  for (const TensorView &view : outputs)
    addDescriptor(view);
  if (callerArena) {
    int64_t ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(arena));
    starts.push_back(descriptors.size());
    descriptors.append({ptr, ptr, 0, arenaBytes, 1});
  }

  SmallVector<void *, kInlineOperands> descriptorPtrs, args;
  for (size_t start : starts)
    descriptorPtrs.push_back(descriptors.data() + start);
  for (void *&p : descriptorPtrs)
    args.push_back(&p);
  std::unique_lock<std::mutex> lock(invokeMutex, std::defer_lock);
  if (indexStatus || callerArena)
    lock.lock();
  // llmc's CUDA runtime records one error for the whole process and skips
  // work while one is recorded: CUDA calls are serialized from the start of
  // the call to its check, and an error left by another model (e.g. its
  // unload) is forgotten first.
  std::unique_lock<std::mutex> cudaLock(getCUDAMutex(), std::defer_lock);
  if (cudaSynchronize) {
    cudaLock.lock();
    cudaClearError();
  }
  if (indexStatus)
    std::fill_n(indexStatus, kIndexCheckStatusSize, 0);
  if (llvm::Error err = callCatchingOutOfMemory(
          onDevice ? devicePackedEntries[index] : packedEntries[index],
          args.data())) {
    if (cudaClearError)
      cudaClearError();
    return err;
  }
  if (llvm::Error err = checkCUDAErrors("running the model"))
    return err;
  if (indexStatus && indexStatus[0] != 0)
    return getIndexCheckError();
  return llvm::Error::success();
}

llvm::Error CompiledModel::checkCUDAErrors(llvm::StringRef what) const {
  if (!cudaSynchronize || cudaSynchronize() == 0)
    return llvm::Error::success();
  std::string message = cudaErrorMessage();
  // The next call runs again (unless CUDA keeps the error sticky).
  cudaClearError();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the CUDA device failed " + what + ": " +
                                     message);
}

llvm::Error CompiledModel::getIndexCheckError() const {
  int64_t check = indexStatus[0], index = indexStatus[1],
          size = indexStatus[2];
  std::string what = check >= 1 && check <= static_cast<int64_t>(
                                                indexChecks.size())
                         ? indexChecks[check - 1]
                         : "index check #" + std::to_string(check);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      what + ": index " + llvm::Twine(index) + " is out of range [" +
          llvm::Twine(-size) + ", " + llvm::Twine(size) +
          ") of a dimension of size " + llvm::Twine(size) +
          " (the outputs of this call are not valid)");
}
