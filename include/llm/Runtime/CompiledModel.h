//===- CompiledModel.h - JIT-compiled llm modules ---------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The reusable half of `llmc`: load an `llm`-dialect module, check its entry
// function, lower it with `llm-lower-to-cpu`, and either translate it to LLVM
// IR / an object file or JIT-compile it and invoke the entry on caller-owned
// buffers. The C API and the Python package wrap this.
//
// Error reporting: every step that looks at the IR reports through MLIR
// diagnostics (attached to the IR location, so a SourceMgrDiagnosticHandler
// prints file:line:col) and returns failure; steps that do not (invocation,
// files) return llvm::Error. Nothing here throws or aborts on bad input.
//
// Entry ABI: an entry `func.func @f(tensor<...>, ...) -> (tensor<...>, ...)`
// with statically shaped tensors of f32/f64/f16/bf16/i1/i8/i32/i64 lowers to
//
//   void _mlir_ciface_f(Desc *in0, ..., Desc *inN, Desc *out0, ..., Desc *outM)
//
// where `Desc` is the rank-R memref descriptor
// `{T *allocated; T *aligned; int64_t offset; int64_t sizes[R];
//   int64_t strides[R];}` with row-major strides. The callee writes the results
// into the caller's out buffers; it never keeps or frees any pointer.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_COMPILEDMODEL_H
#define LLM_RUNTIME_COMPILEDMODEL_H

#include "llm/Runtime/ConstantBytes.h"
#include "llm/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

namespace llvm {
class LLVMContext;
class MemoryBuffer;
class Module;
class TargetMachine;
class raw_pwrite_stream;
class SourceMgr;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir {
class DialectRegistry;
namespace llm {
struct LowerToCPUOptions;
} // namespace llm
} // namespace mlir

namespace mlir::llm::runtime {

class CompileProgress;

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

/// Registers every dialect, extension and LLVM IR translation the runtime
/// needs (all upstream dialects, the llm dialect, builtin/LLVM/OpenMP
/// translations).
void registerRuntimeDialects(DialectRegistry &registry);

/// Initializes the native target and its asm printer (idempotent).
void initializeNativeTarget();

/// The shared libraries the JIT loads by default: libmlir_c_runner_utils,
/// libmlir_runner_utils and libomp (those that exist on this machine).
SmallVector<std::string> getDefaultSharedLibPaths();

//===----------------------------------------------------------------------===//
// Entry signature
//===----------------------------------------------------------------------===//

/// A ranked tensor type of a supported element type. A dimension may be
/// dynamic (`ShapedType::kDynamic`): the sequence length, whose declared
/// upper bound (`llm.dim_bounds`, llm/Dialect/LLM/IR/DimBounds.h) is
/// `seqBound` of the signature.
struct TensorSpec {
  DType dtype;
  SmallVector<int64_t, 4> shape;

  /// Number of elements; only meaningful for a static shape.
  int64_t getNumElements() const { return runtime::getNumElements(shape); }
  bool isDynamic() const;
  /// `tensor<2x3xf32>`, `tensor<1x?x64xf32>`.
  std::string str() const;
};

/// The inputs and results of an entry function.
struct EntrySignature {
  std::string name;
  SmallVector<TensorSpec> inputs;
  SmallVector<TensorSpec> results;
  /// The declared bound of the sequence length when some input dimension is
  /// dynamic, else 0. Every dynamic dimension of the inputs and results is
  /// the same sequence length at run time.
  int64_t seqBound = 0;
  /// The `llm.name` attribute of each argument / result (the ONNX graph's
  /// input and output names), "" where there is none.
  SmallVector<std::string> inputNames;
  SmallVector<std::string> resultNames;
  /// Whether each argument is a key/value cache (`llm.kv_cache`,
  /// docs/Generation.md): state the entry updates in place.
  SmallVector<bool> inputIsKVCache;

  /// The signature for concrete input shapes: checks that each shape has the
  /// input's rank and static sizes, and that the dynamic sizes all equal one
  /// value n with 1 <= n <= seqBound; returns the signature with every
  /// dynamic size replaced by n (so the results' shapes are known). Errors
  /// name the input, the dimension, the value and the bound.
  llvm::Expected<EntrySignature>
  specialize(ArrayRef<ArrayRef<int64_t>> inputShapes) const;

  /// The checks of `specialize` alone: the one value n of the dynamic
  /// sizes of `inputShapes`, or -1 when the signature has no dynamic
  /// dimension. Allocates nothing unless it fails.
  llvm::Expected<int64_t>
  getSequenceLength(ArrayRef<ArrayRef<int64_t>> inputShapes) const;
};

/// Finds the public, defined `func.func @entry` of `module` and checks that
/// all its arguments and results are ranked tensors of supported element
/// types, statically shaped except for a dynamic sequence dimension with a
/// declared bound (`llm.dim_bounds` on the arguments). Emits an error (at the function, argument or module
/// location) and returns failure otherwise.
FailureOr<EntrySignature> getEntrySignature(ModuleOp module, StringRef entry);

/// Keeps of `module` only the functions `entries` and what they reach: every
/// other public `func.func` becomes private and symbol-dce erases what no
/// entry uses. So a module whose other functions the target refuses (the
/// GPU path's run-time index checks, say) still compiles for one entry.
/// Fails (with symbol-dce's diagnostic) only on a malformed symbol table.
LogicalResult keepOnlyEntries(ModuleOp module, ArrayRef<std::string> entries);

//===----------------------------------------------------------------------===//
// Lowering and translation
//===----------------------------------------------------------------------===//

/// Options of `lowerToLLVMDialect`.
struct LoweringOptions {
  /// What the model is compiled for: "cpu" (`llm-lower-to-cpu`),
  /// "cuda-emulator" (`llm-lower-to-gpu-emulator`: the GPU kernels of
  /// `llm-lower-to-nvvm`, run on the CPU by llm-emulate-gpu-kernels, for
  /// checking them without a GPU; `pipelineOptions` are then
  /// `llm-lower-to-nvvm` options) or "cuda" (`llm-lower-to-nvvm` for the
  /// chip of the CUDA device llmc's runtime uses, probed first: no driver
  /// or device is an error; the host code calls `<entry>_host` through
  /// llmc's CUDA runtime, libllmc_cuda_runtime.so; needs a build with the
  /// CUDA toolkit).
  std::string target = "cpu";
  /// `llm-lower-to-cpu` options in pass-option syntax, e.g.
  /// "vectorize=false parallel=false".
  std::string pipelineOptions;
  /// Turns off graph optimizations, fusion, vectorization and OpenMP, and
  /// lowers attention with the materialized score matrix (a reference
  /// lowering for differential checks). Applied after
  /// `pipelineOptions`.
  bool noOpt = false;
  /// The IR verifier runs after each stage of `llm-lower-to-cpu`
  /// (getLLMLowerToCPUStages: graph, linalg, bufferization, loops, llvm),
  /// so that a stage that breaks the IR is an error before the next stage
  /// or LLVM sees it. With `verifyEach` it also runs after every pass of the
  /// first four stages (as in `mlir-opt --verify-each`: the error names the
  /// pass), at a cost: a quarter of the compile time of a 20000-kernel
  /// model.
  bool verifyEach = false;
  /// Turns off every fusion (`fuse`, `fuse-elementwise`), e.g. to count the
  /// kernels of the unfused model. Applied after `pipelineOptions`.
  bool noFusion = false;
  /// Turns on the memory plan's debug check (`llm-lower-to-cpu`
  /// `verify-memory-plan`: no two simultaneously live buffers overlap).
  /// Applied after `pipelineOptions`.
  bool verifyMemoryPlan = false;
  /// Where the lowering reports its progress (the pass running and the
  /// share of the passes done), or null. Not part of what is compiled.
  CompileProgress *progress = nullptr;
  /// Prints MLIR's pass timing report of the lowering (as
  /// `mlir-opt --mlir-timing`) to stderr when it ends. Not part of what is
  /// compiled.
  bool timePasses = false;
};

/// The `llm-lower-to-cpu` options that `options` stand for
/// (`pipelineOptions` with `noOpt`, `noFusion` and `verifyMemoryPlan`
/// applied), printed in the pass-option syntax with every option's value:
/// two LoweringOptions that lower alike print alike. Fails with the parse
/// error (also an out-of-range `num-threads`).
llvm::Expected<std::string>
getEffectivePipelineOptions(const LoweringOptions &options);

/// Parses the `llm-lower-to-cpu` options that `options` stand for (as
/// getEffectivePipelineOptions) into `pipelineOptions`; fails with the
/// parse error in `error`.
LogicalResult parseCPUPipelineOptions(const LoweringOptions &options,
                                      llm::LowerToCPUOptions &pipelineOptions,
                                      std::string &error);

/// The tuning cache file that `options` name (`llm-lower-to-cpu`
/// `tuning-cache`), or "" (none, another target, or options that do not
/// parse). Its contents are part of what is compiled: the compile cache keys
/// on them.
std::string getTuningCachePath(const LoweringOptions &options);

/// Marks the public functions with `llvm.emit_c_interface`, drops the
/// `llm.name` argument and result attributes (the LLVM translation does not
/// know them) and runs `llm-lower-to-cpu` on `module`. Errors are emitted as
/// diagnostics (a pass that fails silently gets a generic error at the
/// module location).
LogicalResult lowerToLLVMDialect(ModuleOp module,
                                 const LoweringOptions &options);

/// Creates a TargetMachine for the host CPU (features detected at run time,
/// PIC, small code model) with codegen at `optLevel` (0-3).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel);

/// Makes `name`, a CPU target as CPUTargetDescription::lookup takes it,
/// the pipeline's `target` in `pipelineOptions` (prepended; an options
/// string that names a target already is an error). Returns an error
/// message ("" on success) that starts with "target 'NAME'" (callers add
/// their option's name).
std::string applyCPUTarget(llvm::StringRef name, std::string &pipelineOptions);

/// For code that is to run on this machine (the JIT): the CPU target that
/// `pipelineOptions` name (`target=NAME`; none or "host": nothing to check)
/// must have no ISA extension this CPU lacks, or its kernels would stop on
/// an illegal instruction. Returns an error message naming the target and
/// the first missing extension, or "" (also for names the pipeline itself
/// will reject).
std::string checkCPUTargetRunsHere(llvm::StringRef pipelineOptions);

/// Creates a TargetMachine for the CPU target `name` (as
/// CPUTargetDescription::lookup takes it: "host" is createHostTargetMachine;
/// an x86-64 CPU name is that CPU; a family is a representative CPU with its
/// features: generic x86-64, avx2 x86-64-v3, avx512 x86-64-v4, avx512-vnni
/// cascadelake, avx512-bf16 cooperlake), for the host's OS, PIC, small code
/// model, codegen at `optLevel` (0-3). Fails for other names.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createCPUTargetMachine(llvm::StringRef name, unsigned optLevel);

/// Translates a module in the LLVM dialect to LLVM IR for `tm`'s target and
/// runs the LLVM optimization pipeline at `optLevel`. With
/// `internalizeAllButCInterface`, every defined function except the
/// `_mlir_ciface_*` wrappers and the weak out-of-memory handler
/// (llm-check-allocations) gets internal linkage, so that the object exports
/// only the C interface (an MLIR `@main` would otherwise clash with C's
/// `main`). Emits an error at the module location on failure. Reports
/// the translation and optimization stages to `progress` (if not null).
FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                  llvm::TargetMachine &tm, unsigned optLevel,
                  bool internalizeAllButCInterface,
                  CompileProgress *progress = nullptr);

/// Emits `llvmModule` as a relocatable object for `tm` into `os`; reports
/// the codegen stage to `progress` (if not null).
llvm::Error emitObjectFile(llvm::Module &llvmModule, llvm::TargetMachine &tm,
                           llvm::raw_pwrite_stream &os,
                           CompileProgress *progress = nullptr);

//===----------------------------------------------------------------------===//
// CompiledModel
//===----------------------------------------------------------------------===//

/// Options of `CompiledModel::create`.
struct CompileOptions {
  /// The entry function.
  std::string entry = "main";
  /// More public functions of the module compiled into the same object and
  /// called with `invokeEntry(1 + i, ...)`: they share the weights (one
  /// copy) and the arena. A model with more than one entry is not stored in
  /// the compile cache.
  SmallVector<std::string> extraEntries;
  LoweringOptions lowering;
  /// LLVM optimization and codegen level (0-3).
  unsigned optLevel = 3;
  /// Shared libraries for the JIT; empty means `getDefaultSharedLibPaths()`.
  SmallVector<std::string> sharedLibPaths;
  /// Where the compilation reports its progress (lowering, LLVM IR
  /// optimization, codegen, loading), or null.
  CompileProgress *progress = nullptr;
};

/// The machine code of a compiled entry and what running it needs: what
/// `CompiledModel::create` produces and `CompiledModel::load` runs, and what
/// the compile cache (llm/Runtime/CompileCache.h) stores.
struct CompiledObject {
  /// The entry's signature, with its names.
  EntrySignature signature;
  /// The signatures of CompileOptions::extraEntries.
  SmallVector<EntrySignature, 1> extraSignatures;
  /// memory-arena=caller: the entry takes a trailing arena of this size.
  bool callerArena = false;
  int64_t arenaBytes = 0;
  /// The stack scratch one thread holds in one iteration of a parallel loop
  /// (bytes; the `tile_scratch_bytes` of llm-promote-tile-scratch, 0 when
  /// none).
  int64_t tileScratchBytes = 0;
  /// A relocatable object for the host (large code model) that defines
  /// `__llmc_entry(void **args)`, the entry with packed arguments (one
  /// pointer to each descriptor pointer, in the order of the C interface;
  /// the extra entries are `__llmc_entry1`, ...),
  /// and, when the module had global constructors or destructors,
  /// `__llmc_init()` / `__llmc_fini()` to run after loading / before
  /// unloading. Everything else it references comes from the process or the
  /// JIT's shared libraries.
  std::unique_ptr<llvm::MemoryBuffer> object;
  /// --target cuda: the object also defines `__llmc_device_entry`,
  /// `__llmc_device_entry1`, ...: the entries on device buffers (the
  /// lowered `@<entry>`, whose `@<entry>_host` the packed entries call).
  bool hasDeviceEntries = false;
  /// Whether the object defines `__llmc_init` / `__llmc_fini`.
  bool hasInit = false;
  bool hasFini = false;
  /// The run-time index checks of the code, in number order (the module's
  /// `llm.index_checks`, llm/Conversion/LLMToLinalg/LLMToLinalg.h); when
  /// any, the object defines the status global `__llmc_status`.
  SmallVector<std::string> indexChecks;
  /// The constant weights the object references but does not hold
  /// (externalizeConstants, llm/Runtime/ConstantBytes.h): external symbols
  /// that `load` defines at `weightBytes.data() + offset`, so that the
  /// weights are never copied into the JIT's memory.
  SmallVector<ExternalConstant> weights;
  /// The weights' bytes (aligned to the largest alignment of the weights, 64
  /// at least) and their owner, which the loaded
  /// model keeps alive: the heap buffer of `create`, or the mapped entry of
  /// a compile-cache lookup.
  llvm::StringRef weightBytes;
  std::shared_ptr<const void> weightOwner;
};

/// A non-owning view of a row-major host buffer.
struct TensorView {
  DType dtype;
  ArrayRef<int64_t> shape;
  void *data;

  TensorView(DType dtype, ArrayRef<int64_t> shape, void *data)
      : dtype(dtype), shape(shape), data(data) {}
  /*implicit*/ TensorView(HostTensor &t)
      : dtype(t.getDType()), shape(t.getShape()), data(t.getData()) {}
};

/// A JIT-compiled entry function of an llm module.
///
/// Caller-provided arena: when the module is lowered with
/// `memory-arena=caller`, the entry takes one more trailing descriptor, a
/// rank-1 `memref<?xi8>` of at least `getArenaBytes()` bytes aligned to 64
/// (`llm-plan-memory`; the size is the module attribute `llm.arena_bytes`).
/// The CompiledModel allocates it once in `create` and passes it to every
/// `invoke`; calls of such a model are serialized (see `invoke`).
class CompiledModel {
public:
  ~CompiledModel();

  /// Checks the entry of `module`, lowers the module (in place),
  /// compiles it to an object (LLVM IR optimization and codegen at
  /// `options.optLevel`) and loads that into an ORC JIT. Errors are emitted
  /// as diagnostics in `module`'s context. With `object`, also returns the
  /// object and its metadata there (for the compile cache).
  static FailureOr<std::unique_ptr<CompiledModel>>
  create(ModuleOp module, const CompileOptions &options,
         CompiledObject *object = nullptr);

  /// Loads an object made by `create` (e.g. read back from the compile
  /// cache) without compiling anything. `object.object` is only read during
  /// the call. The JIT resolves undefined symbols against the process and
  /// `options.sharedLibPaths` (default: getDefaultSharedLibPaths()); the
  /// other options are not used. Fails when the object does not load or does
  /// not define the entry.
  static llvm::Expected<std::unique_ptr<CompiledModel>>
  load(const CompiledObject &object, const CompileOptions &options);

  /// The first entry's signature; entry `i` (CompileOptions::extraEntries
  /// follow the first).
  const EntrySignature &getSignature() const { return signatures.front(); }
  const EntrySignature &getSignature(unsigned i) const {
    return signatures[i];
  }
  unsigned getNumEntries() const { return signatures.size(); }

  /// Size of the arena the model owns and passes to the entry (0: the entry
  /// takes no arena argument).
  int64_t getArenaBytes() const { return arenaBytes; }
  bool hasCallerArena() const { return callerArena; }
  /// The stack scratch of one thread's loop iteration (bytes; on the stack of
  /// each thread, not in the arena).
  int64_t getTileScratchBytes() const { return tileScratchBytes; }

  /// Bytes of the constant weights the code reads (held once, outside the
  /// JIT's memory; 0 when the model has none or they are inside the code).
  int64_t getWeightBytes() const { return weightBytes; }

  /// Runs the entry on `inputs`, writing `outputs`. The counts, element types
  /// and shapes must match the signature exactly (else an error naming the
  /// mismatching operand, and nothing runs); with a dynamic sequence
  /// dimension, against `getSignature().specialize(input shapes)` (a length
  /// beyond the declared bound is an error naming it). Inputs are not
  /// modified, except the key/value caches (arguments marked
  /// `llm.kv_cache`, docs/Generation.md), which the model updates in
  /// place. An index of `llm.embedding` / `llm.gather` outside its
  /// table is an error after the call, naming the op, its location, the
  /// index and the size (`llm.embedding at m.mlir:3:8: index 50257 is out
  /// of range [-50257, 50257) ...`); the outputs are then not valid.
  /// Thread-safe: calls of a model whose code keeps state between calls
  /// (index checks, memory-arena=caller) are serialized.
  llvm::Error invoke(ArrayRef<TensorView> inputs,
                     ArrayRef<TensorView> outputs) {
    return invokeEntry(0, inputs, outputs);
  }
  /// `invoke` of entry `index` (< getNumEntries()).
  llvm::Error invokeEntry(unsigned index, ArrayRef<TensorView> inputs,
                          ArrayRef<TensorView> outputs) {
    return invokePacked(index, inputs, outputs, /*onDevice=*/false);
  }

  /// Whether the model runs on a CUDA device (target "cuda") and so takes
  /// device buffers in `invokeEntryOnDevice`.
  bool hasDeviceEntries() const { return !devicePackedEntries.empty(); }
  /// `invokeEntry` on CUDA device buffers (target "cuda" only): every
  /// `data` is a device pointer (a `CUdeviceptr`, e.g. from cudaMalloc /
  /// cuMemAlloc, or a torch CUDA tensor's data_ptr()) of the CUDA context
  /// llmc's runtime uses (the primary context of $LLMC_CUDA_DEVICE, 0 by
  /// default: the one the CUDA runtime API uses), holding the tensor in
  /// the same dense row-major layout. No host copy is made: the entry's
  /// kernels read the inputs and write the outputs where they are. The
  /// inputs must be ready (the caller's work writing them done, e.g. its
  /// stream synchronized); the call returns once the kernels are done. The
  /// same checks as `invokeEntry` (counts, types, shapes, null pointers;
  /// a failed index check, a CUDA error); an error on another target.
  llvm::Error invokeEntryOnDevice(unsigned index, ArrayRef<TensorView> inputs,
                                  ArrayRef<TensorView> outputs) {
    return invokePacked(index, inputs, outputs, /*onDevice=*/true);
  }

private:
  CompiledModel() = default;

  /// One per entry, the first entry first.
  SmallVector<EntrySignature, 1> signatures;
  /// The bytes of the weights the code reads (CompiledObject::weights),
  /// released after the JIT.
  std::shared_ptr<const void> weightOwner;
  int64_t weightBytes = 0;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  SmallVector<void (*)(void **), 1> packedEntries;
  /// --target cuda: the entries on device buffers (CompiledObject::
  /// hasDeviceEntries), one per entry.
  SmallVector<void (*)(void **), 1> devicePackedEntries;
  /// invokeEntry (onDevice: invokeEntryOnDevice).
  llvm::Error invokePacked(unsigned index, ArrayRef<TensorView> inputs,
                           ArrayRef<TensorView> outputs, bool onDevice);
  /// The object's `__llmc_fini` (global destructors), run by the
  /// destructor; the shared libraries' `__mlir_execution_engine_destroy`.
  void (*fini)() = nullptr;
  SmallVector<void (*)()> libraryDestroyFns;
  /// The caller-provided arena (memory-arena=caller), 64-byte aligned
  /// inside `arenaStorage`.
  bool callerArena = false;
  int64_t arenaBytes = 0;
  int64_t tileScratchBytes = 0;
  struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
  };
  /// From calloc: LLVM's new-handler aborts where malloc returns null, and
  /// calloc leaves untouched pages unallocated.
  std::unique_ptr<uint8_t, FreeDeleter> arenaStorage;
  uint8_t *arena = nullptr;
  /// --target cuda: waits for the device and returns its first error since
  /// the last check (`what` says what was being done), then forgets it;
  /// success on other targets.
  llvm::Error checkCUDAErrors(llvm::StringRef what) const;

  /// --target cuda: llmc's CUDA runtime functions that wait for the
  /// device and report (then forget) the first CUDA error of a call.
  int (*cudaSynchronize)() = nullptr;
  const char *(*cudaErrorMessage)() = nullptr;
  int (*cudaClearError)() = nullptr;
  /// The run-time index checks: the status global in the loaded code (null
  /// when the code has no check) and the checks' descriptions.
  int64_t *indexStatus = nullptr;
  SmallVector<std::string> indexChecks;
  /// Serializes the calls of a model with state shared between calls (the
  /// index-check status, a caller arena): concurrent `invoke`s of it (two
  /// Python threads) take turns instead of mixing their results.
  std::mutex invokeMutex;
  /// The error for the failed check that `indexStatus` records.
  llvm::Error getIndexCheckError() const;
};

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_COMPILEDMODEL_H
