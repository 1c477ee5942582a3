//===- Pipelines.h - llmc pass pipelines ------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The end-to-end pipelines, kept apart from the passes they are made of.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_PIPELINES_PIPELINES_H
#define LLM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::llm {

/// Options of the graph stage that every target shares
/// (buildLLMGraphStage).
struct GraphStageOptions {
  /// llm-recompose, llm-fold-constants, llm-fold-quant.
  bool optimizeGraph = true;
  /// llm-optimize-layout, with the weight layout the target's matmul
  /// kernel reads (`weight-layout`: "kn" or "nk", a target-independent
  /// request each target's pipeline derives from its description).
  bool optimizeLayout = true;
  std::string weightLayout = "kn";
  /// llm-fuse, and its `attention-groups` and `norm-prologue-max-rows`
  /// options.
  bool fuse = true;
  bool attentionGroups = false;
  int64_t normPrologueMaxRows = 0;
  /// llm-promote-contraction-inputs{element-types min-rows} after the graph
  /// simplifications, when `promoteContractionTypes` is not empty (the
  /// target's choice: the half types its matmuls are slow in).
  std::vector<std::string> promoteContractionTypes;
  int64_t promoteContractionMinRows = 2;
  /// llm-sparsify-weights{format=sparsify target=sparsifyTarget} last,
  /// when `sparsify` is not empty.
  std::string sparsify;
  std::string sparsifyTarget = "cpu";
  /// With tensorParallel > 1, after the graph simplifications: llm-shard,
  /// shard-partition, llm-lower-shard{rank}, llm-fold-constants.
  int64_t tensorParallel = 1;
  int64_t rank = 0;
};

/// The options that every llmc lowering pipeline shares (llm-lower-to-cpu,
/// llm-lower-to-nvvm, llm-lower-to-gpu-emulator): the graph stage's
/// switches, the lowering choices both targets make, and tensor
/// parallelism. Declared once here; each target's options derive from it
/// (`Derived` is the target's options struct, as PassPipelineOptions
/// requires).
template <typename Derived>
struct LowerToTargetOptions : public PassPipelineOptions<Derived> {
  template <typename T>
  using Option = mlir::detail::PassOptions::Option<T>;

  /// llm-recompose, llm-fold-constants, llm-fold-quant first.
  Option<bool> optimizeGraph{
      *this, "optimize-graph",
      llvm::cl::desc("Run the llm-level graph optimizations first: "
                     "llm-recompose (rebuild fused ops from decomposed "
                     "forms), llm-fold-constants (default size policy) "
                     "and llm-fold-quant (Q/DQ merging, quantized "
                     "matmuls)"),
      llvm::cl::init(true)};
  /// `llm-fuse` (horizontal matmul fusion and fusion groups, each lowered
  /// to one kernel: a loop nest on the CPU, a launch on the GPU), after the
  /// graph optimizations.
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Run llm-fuse: fuse sibling matmuls and "
                                   "form fusion groups (one kernel each)"),
                    llvm::cl::init(true)};
  /// `llm-optimize-layout`: constant weights stored in the layout the
  /// target's matmul kernel reads, activation transposes cancelled.
  Option<bool> optimizeLayout{
      *this, "optimize-layout",
      llvm::cl::desc("Run llm-optimize-layout (weight layouts for the "
                     "target's matmul kernel, transpose cancellation)"),
      llvm::cl::init(true)};
  /// llm-fuse-elementwise after convert-llm-to-linalg.
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise linalg ops (producer into consumer)"),
      llvm::cl::init(true)};
  /// `llm-plan-memory` after bufferization: the static intermediate buffers
  /// of each function share one arena (host memory on the CPU, device
  /// memory on the GPU).
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Place static intermediate buffers in one arena "
                     "(llm-plan-memory)"),
      llvm::cl::init(true)};
  /// bf16 (CPU and GPU) or f16 (GPU): f32 matmuls by constant weights round
  /// their inputs to that type (the weight stored in it at compile time)
  /// and accumulate in f32, on the target's dot products: AVX512-BF16 on
  /// the CPU (a warning and no effect without it; a decode step's norm
  /// prologue is recomputed in each block of that kernel, as in the f32
  /// tiles), tensor cores on the GPU (llm-demote-contraction-inputs).
  /// Empty: f32 matmuls stay exact. Ignored by llmc --no-opt.
  Option<std::string> demoteContractionInputs{
      *this, "demote-contraction-inputs",
      llvm::cl::desc("Round the inputs of f32 matmuls by constant weights to "
                     "bf16 (CPU: AVX512-BF16 dot products) or bf16/f16 (GPU: "
                     "tensor cores), f32 accumulation (default: none)"),
      llvm::cl::init("")};
  /// Lowering of `llm.attention` (convert-llm-to-linalg{attention=...}):
  /// `flash` (one loop nest over query/key tiles with an online softmax:
  /// the CPU's tiles from its target description, the GPU's in shared
  /// memory, one kernel) or `materialized` (the full score matrix: the
  /// CPU's reference path, also used by `llmc --no-opt`; QK^T, softmax and
  /// PV kernels on the GPU).
  Option<std::string> attention{
      *this, "attention",
      llvm::cl::desc("llm.attention lowering: 'flash' or 'materialized'"),
      llvm::cl::init("flash")};
  /// `llm-sparsify-weights{format=...}` as the last graph pass: each
  /// constant matmul weight stored in the sparse format of the shortest
  /// estimated time ("auto") or in the one given, and run by llmc's sparse
  /// kernels (docs/Sparsity.md). GPU targets take "auto", "2:4" and
  /// "dense": 2:4 weights on the sparse tensor cores (mma.sp). Empty:
  /// weights stay dense.
  Option<std::string> sparsify{
      *this, "sparsify",
      llvm::cl::desc("Store constant matmul weights in a sparse format: "
                     "'auto' (chosen per weight by llm-sparsify-weights' "
                     "cost model) or a format (2:4, bsr4x4, bsr16x16, "
                     "bsr1x4, bsr1x16, csr, dense; GPU: 2:4, dense); empty: "
                     "off"),
      llvm::cl::init("")};
  /// N-way Megatron tensor parallelism (docs/TensorParallelism.md): the
  /// graph is split by llm-shard and shard-partition and specialized to
  /// rank `rank` (llm-lower-shard); its all-reduces call MPI on the CPU
  /// (llm-lower-collectives, the `mpi` ABI) and NCCL on the GPU (through
  /// llmc's CUDA runtime, whose communicator the host program creates with
  /// llmcCudaInitTensorParallel; llm-lower-to-gpu-emulator's, on host
  /// memory, call MPI). 1: off.
  Option<int64_t> tensorParallel{
      *this, "tensor-parallel",
      llvm::cl::desc("Number of tensor-parallel ranks (1: off)"),
      llvm::cl::init(1)};
  Option<int64_t> rank{
      *this, "rank",
      llvm::cl::desc("The tensor-parallel rank this program is for "
                     "(0-based; with tensor-parallel > 1)"),
      llvm::cl::init(0)};

  /// Why `tensor-parallel` and `rank` are refused (a `tensor-parallel`
  /// below 1, a `rank` outside [0, tensor-parallel): both were once
  /// ignored without a word), or "".
  std::string verifyTensorParallel() const {
    if (tensorParallel < 1)
      return "tensor-parallel must be at least 1 (1: off), got " +
             std::to_string(tensorParallel);
    if (rank < 0 || rank >= tensorParallel)
      return "rank must be in [0, tensor-parallel) = [0, " +
             std::to_string(tensorParallel) + "), got " + std::to_string(rank);
    return "";
  }

  /// The graph stage's options these give: optimize-graph, optimize-layout,
  /// fuse, sparsify, tensor-parallel and rank; the target's own fields
  /// (weight layout, fusion and promotion choices) keep their defaults.
  GraphStageOptions getGraphStageOptions() const {
    GraphStageOptions graph;
    graph.optimizeGraph = optimizeGraph;
    graph.optimizeLayout = optimizeLayout;
    graph.fuse = fuse;
    graph.sparsify = sparsify;
    graph.tensorParallel = tensorParallel;
    graph.rank = rank;
    return graph;
  }

  /// `--no-fusion`: no llm-fuse, no elementwise fusion.
  void disableFusion() {
    fuse = false;
    fuseElementwise = false;
  }

  /// The unoptimized reference of `--no-opt`, as far as these options go:
  /// no graph optimizations, fusion, layout changes or memory plan, and f32
  /// matmuls kept exact.
  void disableOptimizations() {
    disableFusion();
    optimizeGraph = false;
    optimizeLayout = false;
    planMemory = false;
    demoteContractionInputs = "";
  }
};

/// Options of `llm-lower-to-cpu`. The target-specific sizes (vector width,
/// tiles) come from the CPU target description named by `target`
/// (llm/Codegen/TargetDescription.h); the options here only switch stages on
/// and off or override the description.
struct LowerToCPUOptions : public LowerToTargetOptions<LowerToCPUOptions> {
  /// llm-fuse `norm-prologue-max-rows`: a norm of at most this many rows
  /// read only by a matmul is computed in the matmul's tiles (a decode
  /// step).
  PassOptions::Option<int64_t> normPrologueMaxRows{
      *this, "norm-prologue-max-rows",
      llvm::cl::desc("Fuse a layer_norm / rms_norm of at most this many rows "
                     "read only by a matmul into the matmul's kernel (0: "
                     "never)"),
      llvm::cl::init(8)};
  /// With tensor-parallel > 1: whether the graph stage splits the graph.
  PassOptions::Option<bool> shard{
      *this, "shard",
      llvm::cl::desc("With tensor-parallel > 1: split the graph in the "
                     "graph stage (false: the module is already the program "
                     "of rank `rank`, split by buildLLMTensorParallelStage "
                     "before, as compileForGeneration does to read the "
                     "rank's cache shapes)"),
      llvm::cl::init(true)};
  /// The MPI library the tensor-parallel all-reduces call.
  PassOptions::Option<std::string> mpi{
      *this, "mpi",
      llvm::cl::desc("ABI of the MPI library the all-reduces call: "
                     "openmpi or mpich"),
      llvm::cl::init("openmpi")};
  /// Rewrite f32 tanh/erf/exp to polynomial approximations
  /// (`llm-approximate-math`) so that the loops around them vectorize. Off:
  /// they become libm calls (correctly rounded libm results).
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Polynomial approximations of f32 tanh, erf and exp "
                     "(vectorizable) instead of libm calls"),
      llvm::cl::init(true)};
  /// Vectorize the register tiles of matmuls (`llm-tile-and-vectorize`) and
  /// lower them to vector FMAs (`llm-lower-vectors`). Off: the tiles stay
  /// scalar loops.
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize contractions for the host CPU"),
      llvm::cl::init(true)};
  /// Choose and run the AMX kernels on a CPU without AMX: the matmuls that
  /// would take AMX tiles on an AMX target do
  /// (llm-select-lowering-config{emulate-amx}) and their tile ops run as
  /// vector code (llm-emulate-amx). For tests: bf16 matmuls (bf16 models,
  /// or f32 ones with `demote-contraction-inputs=bf16`) on a target with
  /// AVX512-BF16, W8A8 ones on a target with 8-bit dot products.
  PassOptions::Option<bool> emulateAMX{
      *this, "emulate-amx",
      llvm::cl::desc("Choose AMX tiles for bf16 and int8 prefill matmuls as "
                     "on an AMX CPU and run their tile ops as vector code "
                     "(testing on CPUs without AMX)"),
      llvm::cl::init(false)};
  /// Outer tile loops are `scf.forall`, lowered to OpenMP (`omp.parallel` +
  /// `omp.wsloop`); the code then needs libomp at run time. Off: serial
  /// `scf.for` loops, no OpenMP.
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outer parallel loops on all cores with OpenMP"),
      llvm::cl::init(true)};
  /// CPU target description.
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("CPU target description: 'host' (detected when the "
                     "pipeline is built), a family ('avx512-bf16', "
                     "'avx512-vnni', 'avx512', 'avx2', 'generic') or an "
                     "x86-64 CPU name ('znver4', 'sapphirerapids', ...; "
                     "llmc --print-target=NAME shows what it gives)"),
      llvm::cl::init("host")};
  /// OpenMP thread count baked into `omp.parallel` and used to split the
  /// work; 0 leaves the count to the OpenMP runtime (OMP_NUM_THREADS, else
  /// all cores) and plans for every hardware thread.
  PassOptions::Option<int64_t> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads for the parallel loops (0: OpenMP default)"),
      llvm::cl::init(0)};
  /// Overrides the target's flash-attention tile [query rows, kv rows].
  PassOptions::ListOption<int64_t> attentionTile{
      *this, "attention-tile",
      llvm::cl::desc("Flash-attention tile [query rows, key/value rows] "
                     "(default: the target's)")};
  /// Pads attention head dims to whole vectors where that takes fewer
  /// vector operations (llm-select-lowering-config{pad-attention-head-dims}).
  PassOptions::Option<bool> padAttentionHeadDims{
      *this, "pad-attention-head-dims",
      llvm::cl::desc("Pad attention head dims to whole f32 vectors where "
                     "their remainder is not a power of two (default true)"),
      llvm::cl::init(true)};
  /// Overrides the target's streamedWeightMinBytes: the smallest weight
  /// (stored bytes) of a weight-only decode matvec assumed read from DRAM
  /// on every call (llm-select-lowering-config{streamed-weight-min-bytes=...}).
  PassOptions::Option<int64_t> streamedWeightMinBytes{
      *this, "streamed-weight-min-bytes",
      llvm::cl::desc("Smallest weight-only matvec weight (bytes) given the "
                     "streaming kernel shapes (-1: the target's; 0: every "
                     "weight)"),
      llvm::cl::init(-1)};
  /// `llm-promote-contraction-inputs{min-rows=...}`: f16 matmuls (and bf16
  /// ones on targets without AVX512-BF16) by constant weights with at least
  /// this many rows run in f32, the weight widened at compile time (exact).
  PassOptions::Option<int64_t> promoteContractionMinRows{
      *this, "promote-contraction-min-rows",
      llvm::cl::desc("Run f16 (and, without AVX512-BF16, bf16) matmuls by "
                     "constant weights with at least this many lhs rows in "
                     "f32, the weight widened at compile time (0: never)"),
      llvm::cl::init(2)};
  /// Where the arena comes from (llm-plan-memory `arena`): `per-call` or
  /// `caller` (an extra trailing `memref<?xi8>` argument of each public
  /// function; the module attribute `llm.arena_bytes` gives its size).
  PassOptions::Option<std::string> memoryArena{
      *this, "memory-arena",
      llvm::cl::desc("Arena of llm-plan-memory: per-call or caller"),
      llvm::cl::init("per-call")};
  /// Live-range splitting at full overwrites (llm-plan-memory
  /// `split-live-ranges`).
  PassOptions::Option<bool> splitLiveRanges{
      *this, "split-live-ranges",
      llvm::cl::desc("llm-plan-memory: split a buffer's live range where an "
                     "op overwrites all of it"),
      llvm::cl::init(true)};
  /// Debug check of the memory plan (llm-plan-memory `verify`).
  PassOptions::Option<bool> verifyMemoryPlan{
      *this, "verify-memory-plan",
      llvm::cl::desc("Check that no two simultaneously live buffers of the "
                     "memory plan overlap"),
      llvm::cl::init(false)};
  /// Overrides the target's matmul register tile [m, n, k].
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc("Matmul register tile [m, n, k] (default: the "
                     "target's)")};
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc("Matmul cache tile [m, n, k], 0 for a whole dimension "
                     "(default: the target's)")};
  /// A tuning cache (`llmc tune`): its tiles for this kind of CPU are
  /// recorded on the matching matmuls (llm-apply-tuning-cache) before
  /// llm-tile-and-vectorize.
  PassOptions::Option<std::string> tuningCache{
      *this, "tuning-cache",
      llvm::cl::desc("Tuning cache file from `llmc tune` (default: none, the "
                     "target's tiles)"),
      llvm::cl::init("")};

  /// Why these options cannot build a pipeline, or "" when they can:
  /// verifyTensorParallel's reasons. The other options are checked by the
  /// passes that read them.
  std::string verify() const { return this->verifyTensorParallel(); }
};

/// Builds `llm-lower-to-cpu`: llm -> linalg -> bufferized loops -> LLVM
/// dialect. The public functions of the module keep their names; every
/// tensor result becomes a trailing memref out-parameter
/// (`buffer-results-to-out-params`) and each public function gets an
/// `llvm.emit_c_interface` wrapper, so the C ABI of
/// `func @main(tensor<...>) -> tensor<...>` is
///
///   void _mlir_ciface_main(MemRefDescriptor *arg0, ..., MemRefDescriptor
///   *out0, ...)
///
/// where `MemRefDescriptor` is `{T *allocated, T *aligned, int64_t offset,
/// int64_t sizes[R], int64_t strides[R]}` (row-major, identity layout).
///
/// Stages: inline, [llm-recompose, llm-fold-constants], [llm-fuse],
/// convert-llm-to-linalg, elementwise fusion,
/// llm-tile-and-vectorize (fusion groups: one loop nest each; matmuls:
/// parallel outer loop + cache/register tiles + vectors; other big linalg
/// ops: parallel outer loop), llm-count-kernels (compile report), one-shot
/// bufferization, results to out-params, buffer hoisting/stack promotion,
/// ownership-based deallocation, llm-lower-vectors (hoisting, contractions to
/// FMAs), remaining linalg to loops, scf.forall to OpenMP (or to scf.for),
/// llm-emit-c-interface, then everything to the LLVM dialect.
///
/// With `parallel` (the default) the result calls the OpenMP runtime: a JIT
/// must load `libomp.so` (/usr/lib/llvm-22/lib/libomp.so) and an executable
/// must link it.
void buildLLMLowerToCPUPipeline(OpPassManager &pm,
                                const LowerToCPUOptions &options);

/// The stages of `llm-lower-to-cpu`, which `buildLLMLowerToCPUPipeline`
/// adds one after the other; a driver may run them in separate pass
/// managers, e.g. to verify the IR after each stage (llmc's default) or
/// after every pass of the first four (`llmc --verify-each`):
///   graph          llm -> llm: llm-verify-call-graph, inline,
///                  llm-guard-dim-bounds, [llm-recompose, llm-fold-constants,
///                  llm-fold-quant], [llm-optimize-layout], [llm-fuse];
///   linalg         llm -> linalg on tensors: convert-llm-to-linalg,
///                  [llm-fuse-elementwise], [llm-apply-tuning-cache],
///                  llm-tile-and-vectorize,
///                  llm-count-kernels;
///   bufferization  tensors -> memrefs: one-shot bufferization, results to
///                  out-params, hoisting, stack promotion, [llm-plan-memory],
///                  deallocation;
///   loops          kernels outlined (llm-outline-kernels), vectors to FMAs,
///                  loops, OpenMP, llm-emit-c-interface, ending with
///                  `expand-strided-metadata`, `lower-affine`;
///   llvm           the upstream conversions to the LLVM dialect alone
///                  (`finalize-memref-to-llvm` ... `reconcile-unrealized-
///                  casts`, `canonicalize`), whose IR is the largest.
struct LowerToCPUStage {
  const char *name;
  void (*build)(OpPassManager &pm, const LowerToCPUOptions &options);
};
llvm::ArrayRef<LowerToCPUStage> getLLMLowerToCPUStages();
void buildLLMLowerToCPUGraphStage(OpPassManager &pm,
                                  const LowerToCPUOptions &options);
void buildLLMLowerToCPULinalgStage(OpPassManager &pm,
                                   const LowerToCPUOptions &options);
void buildLLMLowerToCPUBufferizationStage(OpPassManager &pm,
                                          const LowerToCPUOptions &options);
void buildLLMLowerToCPULoopsStage(OpPassManager &pm,
                                  const LowerToCPUOptions &options);
void buildLLMLowerToCPULLVMPipeline(OpPassManager &pm,
                                    const LowerToCPUOptions &options);
/// The first four stages (everything down to loops and vectors on memrefs
/// with the C interface marked).
void buildLLMLowerToCPULoopsPipeline(OpPassManager &pm,
                                     const LowerToCPUOptions &options);

/// The program of rank `rank` of `ranks`-way tensor parallelism
/// (docs/TensorParallelism.md): llm-shard{ranks}, shard-partition,
/// llm-lower-shard{rank}, llm-fold-constants, canonicalize. Its
/// `shard.all_reduce`s are left for llm-lower-collectives.
void buildLLMTensorParallelStage(OpPassManager &pm, int64_t ranks,
                                 int64_t rank);

/// The target-independent graph stage of every llmc pipeline (CPU and GPU):
/// llm-verify-call-graph, inline, llm-guard-dim-bounds, [llm-recompose,
/// llm-fold-constants, llm-fold-quant], [llm-shard, shard-partition,
/// llm-lower-shard, llm-fold-constants], [llm-optimize-layout], [llm-fuse],
/// [llm-sparsify-weights].
void buildLLMGraphStage(OpPassManager &pm, const GraphStageOptions &options);

/// Options of the bufferization stage that every target shares.
struct BufferizationStageOptions {
  /// Small host buffers (<= 1 KiB) on the stack (CPU only).
  bool promoteToStack = true;
  /// llm-hoist-kernel-allocs after one-shot bufferization (GPU): the
  /// kernels' scratch buffers join the memory plan.
  bool hoistKernelAllocs = false;
  /// llm-clone-empty-tensors{fills} (GPU): the tiled loop nests that the
  /// GPU kernels run as they are (flash attention) keep one fill per
  /// destination, so that their loops bufferize in place.
  bool cloneFills = false;
  /// llm-plan-memory and its options.
  bool planMemory = true;
  std::string memoryArena = "per-call";
  bool verifyMemoryPlan = false;
  bool splitLiveRanges = true;
};

/// The bufferization stage of every llmc pipeline: one-shot bufferization
/// (function boundaries, identity layouts), results to out-params, buffer
/// hoisting, [stack promotion], [llm-plan-memory], ownership-based
/// deallocation.
void buildLLMBufferizationStage(OpPassManager &pm,
                                const BufferizationStageOptions &options);

/// Options of `llm-lower-to-nvvm`. The GPU-specific sizes come from the GPU
/// target description of the first `chip` (llm/Codegen/GPU/
/// GPUTargetDescription.h).
struct LowerToNVVMOptions : public LowerToTargetOptions<LowerToNVVMOptions> {
  /// Chips to compile for; several give one gpu.binary with one object
  /// each (a fatbin holding them all with format=fatbin).
  PassOptions::ListOption<std::string> chip{
      *this, "chip",
      llvm::cl::desc("NVIDIA chips: sm_80, sm_89, sm_90a, or a "
                     "comma-separated list (default sm_80)")};
  /// gpu-module-to-binary `format`: `isa` (PTX, JIT-compiled by the driver
  /// when loaded; needs no CUDA toolkit unless math functions need
  /// libdevice), `bin` (cubin, runs ptxas) or `fatbin` (runs ptxas and
  /// fatbinary).
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel object format: isa (PTX), bin (cubin) or "
                     "fatbin"),
      llvm::cl::init("fatbin")};
  /// CUDA toolkit root (ptxas, fatbinary, nvvm/libdevice/libdevice.10.bc);
  /// empty: $PATH, then $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH (MLIR's lookup).
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (default: $PATH, $CUDA_ROOT, "
                     "$CUDA_HOME, $CUDA_PATH)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the NVPTX backend and ptxas "
                     "(0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the generic kernels (0: the "
                     "chip's)"),
      llvm::cl::init(0)};

  /// `chip`, or {"sm_80"} when empty.
  SmallVector<std::string> getChips() const;

  /// Why these options cannot build a pipeline, or "" when they can: an
  /// unknown or empty chip, a `format` other than isa, bin or fatbin, an
  /// `opt-level` above 3, a negative `block-size`, `tensor-parallel` < 1
  /// or a `rank` outside [0, tensor-parallel) (the registered
  /// pipelines refuse them before any pass runs; upstream
  /// gpu-module-to-binary reports a bad format and still succeeds).
  std::string verify() const;
};

/// Builds `llm-lower-to-nvvm`: the graph stage shared with
/// `llm-lower-to-cpu`, then llm -> linalg (attention as one flash loop nest
/// per attention, or materialized), one
/// kernel loop per fusion group (llm-form-gpu-kernels), the shared
/// bufferization stage (device arena), one `gpu.launch` per kernel
/// (llm-map-gpu-kernels), outlining, and the NVVM lowering of the kernels
/// to a `gpu.binary` (PTX/cubin/fatbin per chip) with host code in the LLVM
/// dialect calling the `mgpu*` runtime functions. Every public function
/// takes device pointers for its memref arguments and out-params (C
/// interface as for the CPU).
void buildLLMLowerToNVVMPipeline(OpPassManager &pm,
                                 const LowerToNVVMOptions &options);

/// The stages of `llm-lower-to-nvvm`: graph (shared), linalg, bufferization
/// (shared), gpu (kernels mapped and outlined), nvvm (kernels to binary,
/// host to LLVM).
struct LowerToNVVMStage {
  const char *name;
  void (*build)(OpPassManager &pm, const LowerToNVVMOptions &options);
};
llvm::ArrayRef<LowerToNVVMStage> getLLMLowerToNVVMStages();
void buildLLMLowerToNVVMGraphStage(OpPassManager &pm,
                                   const LowerToNVVMOptions &options);
void buildLLMLowerToNVVMLinalgStage(OpPassManager &pm,
                                    const LowerToNVVMOptions &options);
void buildLLMLowerToNVVMBufferizationStage(OpPassManager &pm,
                                           const LowerToNVVMOptions &options);
void buildLLMLowerToNVVMKernelsStage(OpPassManager &pm,
                                     const LowerToNVVMOptions &options);
void buildLLMLowerToNVVMBinaryStage(OpPassManager &pm,
                                    const LowerToNVVMOptions &options);

/// Builds `llm-lower-to-gpu-emulator`: the stages of `llm-lower-to-nvvm`
/// down to the `gpu.launch` kernels of llm-map-gpu-kernels, which
/// llm-emulate-gpu-kernels turns into host loops (one schedule a GPU may
/// run), then the CPU's serial loops and LLVM stages. The result has the
/// C interface of `llm-lower-to-cpu` and runs on the CPU: the numerical
/// check of the GPU kernels' distribution without a GPU.
void buildLLMLowerToGPUEmulatorPipeline(OpPassManager &pm,
                                        const LowerToNVVMOptions &options);

/// Registers every llmc pipeline with the global pass registry.
void registerLLMPipelines();

/// Parses `text` (pass-option syntax, e.g. "parallel=false num-threads=2")
/// into `options`, the options of one of the pipelines above. On failure
/// returns failure with `error` = "invalid pipeline options 'TEXT': REASON";
/// LLVM's option parsers print some reasons (a bad boolean value) to stderr
/// themselves, and the message then points to it.
template <typename OptionsT>
LogicalResult parsePipelineOptions(StringRef text, OptionsT &options,
                                   std::string &error) {
  std::string reasons;
  llvm::raw_string_ostream reasonStream(reasons);
  if (succeeded(options.parseFromString(text, reasonStream)))
    return success();
  StringRef reason = StringRef(reasons).trim();
  error = ("invalid pipeline options '" + text + "'").str();
  error += reason.empty() ? std::string(" (see the message above)")
                          : (": " + reason).str();
  return failure();
}

} // namespace mlir::llm

#endif // LLM_PIPELINES_PIPELINES_H
