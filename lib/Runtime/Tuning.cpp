//===- Tuning.cpp - Measure matmul tiles on this machine ------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the autotuner of llm/Runtime/Tuning.h: the matmul
// kernels of a model are found where llm-tile-and-vectorize will see them
// (an instrumentation of the lowering), each is rebuilt as a one-matmul
// module, and candidate tilings are compiled, run and timed.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Tuning.h"
#include "llm/Codegen/TargetDescription.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"
#include "llm/Pipelines/Pipelines.h"
#include "llm/Runtime/CacheEvictor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;

namespace {
/// A distinct kernel of a model: a matmul, or an attention.
struct Kernel {
  std::string text;
  int64_t uses = 0;
  /// Matmuls: the key and the element types of A, B and C.
  MatmulTuningKey key;
  Type lhsType, rhsType, accType;
  /// Attentions: a module whose @main is the attention alone (its operands
  /// the arguments), and the sequence lengths.
  OwningOpRef<ModuleOp> attention;
  int64_t sq = 0, skv = 0;
};

/// A module whose @main(q, k, v[, mask]) is `op`, an llm.attention, alone
/// (without its lowering configuration).
static OwningOpRef<ModuleOp> buildAttentionModule(AttentionOp op,
                                                  StringRef name) {
  OpBuilder b(op.getContext());
  Location loc = NameLoc::get(b.getStringAttr("tuned kernel " + name));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "main",
      b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [operand, arg] : llvm::zip(op->getOperands(), body->getArguments()))
    mapping.map(operand, arg);
  Operation *clone = b.clone(*op.getOperation(), mapping);
  clone->removeAttr(kLoweringConfigAttrName);
  func::ReturnOp::create(b, loc, clone->getResults());
  return module;
}

/// Records the matmuls that llm-tile-and-vectorize is about to tile: those
/// directly in a function body or in a fusion group (not the tiles a
/// lowering placed in its own loop nest).
class CollectKernels : public PassInstrumentation {
public:
  CollectKernels(int64_t threads, SmallVectorImpl<Kernel> &kernels)
      : threads(threads), kernels(kernels) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    // The attentions, before their lowering configuration is chosen.
    if (pass->getArgument() == "llm-select-lowering-config") {
      std::lock_guard<std::mutex> lock(mutex);
      op->walk([&](AttentionOp attention) {
        FailureOr<std::string> key =
            getAttentionTuningKey(attention.getOperation(), threads);
        if (failed(key))
          return;
        auto it = llvm::find_if(
            kernels, [&](const Kernel &k) { return k.text == *key; });
        if (it != kernels.end()) {
          ++it->uses;
          return;
        }
        Kernel kernel;
        kernel.text = *key;
        kernel.uses = 1;
        kernel.attention = buildAttentionModule(attention, *key);
        bool bshd = attention.getLayout() == AttentionLayout::BSHD;
        kernel.sq = cast<ShapedType>(attention.getQuery().getType())
                        .getDimSize(bshd ? 1 : 2);
        kernel.skv = cast<ShapedType>(attention.getKey().getType())
                         .getDimSize(bshd ? 1 : 2);
        kernel.lhsType = getElementTypeOrSelf(attention.getQuery());
        kernels.push_back(std::move(kernel));
      });
      return;
    }
    if (pass->getArgument() != "llm-tile-and-vectorize")
      return;
    std::lock_guard<std::mutex> lock(mutex);
    op->walk([&](Operation *nested) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(nested) ||
          nested->hasAttr(kVectorizeInPlaceAttr))
        return;
      Operation *parent = nested->getParentOp();
      if (parent != op && !isa<FusionGroupOp>(parent))
        return;
      FailureOr<MatmulTuningKey> key = getMatmulTuningKey(nested, threads);
      if (failed(key))
        return;
      std::string text = key->str();
      auto it = llvm::find_if(kernels,
                              [&](const Kernel &k) { return k.text == text; });
      if (it != kernels.end()) {
        ++it->uses;
        return;
      }
      auto linalgOp = cast<linalg::LinalgOp>(nested);
      Kernel kernel;
      kernel.key = *key;
      kernel.text = text;
      kernel.lhsType = getElementTypeOrSelf(linalgOp.getDpsInputs()[0]);
      kernel.rhsType = getElementTypeOrSelf(linalgOp.getDpsInputs()[1]);
      kernel.accType = getElementTypeOrSelf(linalgOp.getDpsInits()[0]);
      kernel.uses = 1;
      kernels.push_back(std::move(kernel));
    });
  }

private:
  int64_t threads;
  SmallVectorImpl<Kernel> &kernels;
  std::mutex mutex;
};

/// The CPU pipeline options of `lowering`, its target description and the
/// threads the matmuls are planned for.
struct Plan {
  std::unique_ptr<LowerToCPUOptions> options;
  CPUTargetDescription target;
  int64_t threads = 1;
};
} // namespace

static llvm::Expected<Plan> getPlan(const LoweringOptions &lowering) {
  if (lowering.target != "cpu")
    return llvm::createStringError("tuning needs the CPU target, got '" +
                                   lowering.target + "'");
  Plan plan;
  plan.options = std::make_unique<LowerToCPUOptions>();
  std::string error;
  if (failed(parseCPUPipelineOptions(lowering, *plan.options, error)))
    return llvm::createStringError(error);
  FailureOr<CPUTargetDescription> target =
      CPUTargetDescription::lookup(plan.options->target);
  if (failed(target))
    return llvm::createStringError("unknown CPU target '" +
                                   plan.options->target + "' (expected " +
                                   CPUTargetDescription::getKnownNames() + ")");
  plan.target = *target;
  if (plan.options->numThreads > 0)
    plan.target.numThreads = plan.options->numThreads;
  plan.threads = plan.options->parallel ? plan.target.getNumThreads() : 1;
  return plan;
}

/// The kernels of `model` (cloned) lowered with `plan`.
static llvm::Expected<SmallVector<Kernel>> collect(ModuleOp model,
                                                   const Plan &plan) {
  OwningOpRef<ModuleOp> clone = model.clone();
  PassManager pm(model.getContext());
  buildLLMLowerToCPUGraphStage(pm, *plan.options);
  buildLLMLowerToCPULinalgStage(pm, *plan.options);
  SmallVector<Kernel> kernels;
  pm.addInstrumentation(
      std::make_unique<CollectKernels>(plan.threads, kernels));
  if (failed(pm.run(*clone)))
    return llvm::createStringError("the model does not lower to linalg (see "
                                   "the errors above)");
  return kernels;
}

//===----------------------------------------------------------------------===//
// One kernel
//===----------------------------------------------------------------------===//

/// A module whose @main is the kernel's matmul alone: `llm.matmul` of A
/// [batch,] M x K and B ([batch,] K x N, or N x K with transpose_b), B a
/// constant of random values or an argument. Null with the reason in `why`
/// when the kernel has no such form.
static OwningOpRef<ModuleOp> buildKernelModule(MLIRContext *ctx,
                                               const Kernel &kernel,
                                               std::mt19937_64 &gen,
                                               std::string &why) {
  if (kernel.attention) {
    if (!kernel.lhsType.isF32()) {
      why = "only f32 attentions are tuned";
      return nullptr;
    }
    return cast<ModuleOp>(kernel.attention.get()->clone());
  }
  const MatmulTuningKey &key = kernel.key;
  if (!kernel.lhsType.isF32() || !kernel.rhsType.isF32() ||
      !kernel.accType.isF32()) {
    why = "only f32 matmuls are tuned";
    return nullptr;
  }
  if (key.rhsLayout == "other") {
    why = "B has an indexing map other than [K, N] or [N, K]";
    return nullptr;
  }
  bool batch = key.op == "batch_matmul";
  bool nk = key.rhsLayout == "nk";
  SmallVector<int64_t> aShape, bShape, cShape;
  if (batch) {
    aShape.push_back(key.batch);
    bShape.push_back(key.batch);
    cShape.push_back(key.batch);
  }
  aShape.append({key.m, key.k});
  if (nk)
    bShape.append({key.n, key.k});
  else
    bShape.append({key.k, key.n});
  cShape.append({key.m, key.n});
  Type f32 = Float32Type::get(ctx);
  auto aType = RankedTensorType::get(aShape, f32);
  auto bType = RankedTensorType::get(bShape, f32);
  auto cType = RankedTensorType::get(cShape, f32);

  OpBuilder b(ctx);
  Location loc = NameLoc::get(b.getStringAttr("tuned kernel " + kernel.text));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes{aType};
  if (!key.constRhs)
    argTypes.push_back(bType);
  auto func = func::FuncOp::create(b, loc, "main",
                                   b.getFunctionType(argTypes, {cType}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value rhs;
  if (key.constRhs) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(bType.getNumElements());
    for (float &v : values)
      v = dist(gen);
    rhs = arith::ConstantOp::create(
        b, loc,
        DenseResourceElementsAttr::get(
            bType, "tuned_kernel_rhs",
            HeapAsmResourceBlob::allocateAndCopyWithAlign(
                ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                               values.size() * sizeof(float)),
                alignof(float))));
  } else {
    rhs = body->getArgument(1);
  }
  Value product = MatmulOp::create(b, loc, cType, body->getArgument(0), rhs,
                                   /*transpose_a=*/false,
                                   /*transpose_b=*/nk);
  func::ReturnOp::create(b, loc, product);
  return module;
}

namespace {
/// Compiles and times one kernel module with different tiles.
class KernelTimer {
public:
  KernelTimer(ModuleOp module, const TuneOptions &options, StringRef tileFile,
              bool cold, CacheEvictor *evictor)
      : module(module), options(options), tileFile(tileFile), cold(cold),
        evictor(evictor) {}

  /// The kernel's time in ms with `entry`'s tiles (null: the target's
  /// defaults).
  llvm::Expected<double> measure(const TuningEntry *entry) {
    CompileOptions compile;
    compile.lowering = options.lowering;
    compile.optLevel = options.optLevel;
    if (entry) {
      TuningCache single;
      single.insert(*entry);
      if (llvm::Error e = single.save(tileFile))
        return std::move(e);
      compile.lowering.pipelineOptions += " tuning-cache=" + tileFile.str();
    }
    OwningOpRef<ModuleOp> clone = module.clone();
    FailureOr<std::unique_ptr<CompiledModel>> model =
        CompiledModel::create(*clone, compile);
    if (failed(model))
      return llvm::createStringError("cannot compile the tuned kernel (see "
                                     "the errors above)");
    if (inputs.empty()) {
      std::mt19937_64 gen(0);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      const EntrySignature &sig = (*model)->getSignature();
      for (const TensorSpec &spec : sig.inputs) {
        HostTensor t(spec.dtype, spec.shape);
        for (int64_t i = 0, e = t.getNumElements(); i < e; ++i)
          t.setFromDouble(i, spec.dtype == DType::I1 ? double(dist(gen) > 0)
                                                     : double(dist(gen)));
        inputs.push_back(std::move(t));
      }
      for (const TensorSpec &spec : sig.results)
        outputs.emplace_back(spec.dtype, spec.shape);
    }
    SmallVector<TensorView> in(inputs.begin(), inputs.end());
    SmallVector<TensorView> out(outputs.begin(), outputs.end());
    auto call = [&]() -> llvm::Expected<double> {
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error e = (*model)->invoke(in, out))
        return std::move(e);
      return std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - start)
          .count();
    };
    // Warm-up (page faults, OpenMP threads, the packed constant).
    llvm::Expected<double> first = call();
    if (!first)
      return first.takeError();
    if (cold) {
      // Each call after an eviction: the median of 7.
      SmallVector<double> times;
      for (int i = 0; i < 7; ++i) {
        evictor->evict();
        llvm::Expected<double> t = call();
        if (!t)
          return t.takeError();
        times.push_back(*t);
      }
      llvm::sort(times);
      return times[times.size() / 2];
    }
    // Batches of about 2 ms: the fastest batch's mean per call.
    int64_t perBatch = std::clamp<int64_t>(
        static_cast<int64_t>(2.0 / std::max(*first, 1e-3)), 1, 1000);
    double best = *first;
    for (int batch = 0; batch < 5; ++batch) {
      double total = 0;
      for (int64_t i = 0; i < perBatch; ++i) {
        llvm::Expected<double> t = call();
        if (!t)
          return t.takeError();
        total += *t;
      }
      best = std::min(best, total / perBatch);
    }
    return best;
  }

private:
  ModuleOp module;
  const TuneOptions &options;
  StringRef tileFile;
  bool cold;
  CacheEvictor *evictor;
  SmallVector<HostTensor> inputs, outputs;
};
} // namespace

/// The tiles of `tiles` as a cache entry's register and cache tiles.
static TuningEntry makeEntry(StringRef target, StringRef kernel,
                             const MatmulTiles &tiles) {
  TuningEntry entry;
  entry.target = target.str();
  entry.kernel = kernel.str();
  entry.registerTile = {tiles.regM, tiles.regN, tiles.regK};
  entry.cacheTile = {tiles.cacheM, tiles.cacheN, tiles.cacheK};
  return entry;
}

/// A winner must beat the default by this factor: the best of many noisy
/// measurements is biased low.
static constexpr double kMinGain = 0.97;

/// Measures the flash-attention tiles of `kernel` (its module `module`):
/// the target's default, then query tiles, then key/value tiles around the
/// best so far, then a grid of both. Fills `result`'s entry and status.
static llvm::Error tuneAttention(const Kernel &kernel, ModuleOp module,
                                 const Plan &plan, const TuneOptions &options,
                                 StringRef tileFile, StringRef targetId,
                                 TuneProgress &progress,
                                 llvm::function_ref<void()> report,
                                 TunedKernel &result) {
  KernelTimer timer(module, options, tileFile, /*cold=*/false, nullptr);
  ArrayRef<int64_t> configured = plan.options->attentionTile;
  ArrayRef<int64_t> tile = configured.size() == 2
                               ? configured
                               : ArrayRef<int64_t>(plan.target.attentionTile);
  std::array<int64_t, 2> defaults = {std::min(tile[0], kernel.sq),
                                     std::min(tile[1], kernel.skv)};
  llvm::Expected<double> defaultMs = timer.measure(nullptr);
  if (!defaultMs)
    return defaultMs.takeError();
  std::array<int64_t, 2> best = defaults;
  double bestMs = *defaultMs;
  progress.defaultMs = progress.bestMs = bestMs;
  progress.candidatesDone = 1;
  result.candidates = 1;
  // Rounds: query rows, key/value rows, then both at once.
  for (unsigned dim = 0; dim < 3; ++dim) {
    SmallVector<std::array<int64_t, 2>> candidates =
        getAttentionTileCandidates(best, kernel.sq, kernel.skv, dim);
    progress.candidatesTotal = progress.candidatesDone + candidates.size();
    report();
    std::array<int64_t, 2> roundBest = best;
    for (const std::array<int64_t, 2> &candidate : candidates) {
      TuningEntry entry;
      entry.target = targetId.str();
      entry.kernel = kernel.text;
      entry.attentionTile = candidate;
      llvm::Expected<double> ms = timer.measure(&entry);
      if (!ms)
        return ms.takeError();
      ++progress.candidatesDone;
      ++result.candidates;
      if (*ms < bestMs * (roundBest == defaults ? kMinGain : 1.0)) {
        bestMs = *ms;
        roundBest = candidate;
        progress.bestMs = bestMs;
      }
      report();
    }
    best = roundBest;
  }
  result.entry.target = targetId.str();
  result.entry.kernel = kernel.text;
  result.entry.attentionTile = best;
  result.entry.timeMs = bestMs;
  result.entry.defaultMs = *defaultMs;
  result.status = best == defaults ? TunedKernel::Status::Default
                                   : TunedKernel::Status::Tuned;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

llvm::Expected<SmallVector<TunedKernel>>
mlir::llm::runtime::tuneModel(ModuleOp model, TuningCache &cache,
                              StringRef cachePath, const TuneOptions &options) {
  if (!getTuningCachePath(options.lowering).empty())
    return llvm::createStringError(
        "the pipeline options name a tuning cache: the tuner writes the one "
        "it is given, and measures without one");
  llvm::Expected<Plan> plan = getPlan(options.lowering);
  if (!plan)
    return plan.takeError();
  MLIRContext *ctx = model.getContext();
  ctx->loadDialect<LLMDialect, func::FuncDialect, arith::ArithDialect>();
  llvm::Expected<SmallVector<Kernel>> kernels = collect(model, *plan);
  if (!kernels)
    return kernels.takeError();
  std::string targetId = getTuningTargetId(plan->target);

  // The file of the candidate's tiles, removed at the end.
  llvm::SmallString<128> tileFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("llmc-tune", "json", tileFile))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  llvm::FileRemover removeTileFile(tileFile);
  // Cold timing of decode-shaped kernels: twice the L3 (64 MiB if unknown).
  std::optional<CacheEvictor> evictor;

  SmallVector<TunedKernel> results;
  TuneProgress progress;
  progress.kernelsTotal = kernels->size();
  auto report = [&] {
    if (options.onProgress)
      options.onProgress(progress);
  };
  std::mt19937_64 gen(0);
  for (const Kernel &kernel : *kernels) {
    TunedKernel result;
    result.kernel = kernel.text;
    result.uses = kernel.uses;
    progress.kernel = kernel.text;
    progress.candidatesDone = progress.candidatesTotal = 0;
    progress.defaultMs = progress.bestMs = 0;
    report();
    auto finish = [&] {
      results.push_back(result);
      ++progress.kernelsDone;
      report();
    };
    if (const TuningEntry *entry = cache.lookup(targetId, kernel.text);
        entry && !options.retune) {
      result.status = TunedKernel::Status::Cached;
      result.entry = *entry;
      finish();
      continue;
    }
    std::string why;
    OwningOpRef<ModuleOp> kernelModule =
        buildKernelModule(ctx, kernel, gen, why);
    if (kernelModule) {
      // The rebuilt kernel must be the same kernel once lowered (the graph
      // passes may give a lone matmul another form than in the model).
      llvm::Expected<SmallVector<Kernel>> rebuilt =
          collect(*kernelModule, *plan);
      if (!rebuilt)
        return rebuilt.takeError();
      if (llvm::none_of(*rebuilt, [&](const Kernel &k) {
            return k.text == kernel.text;
          })) {
        why = "a lone op of this shape lowers to another kernel";
        kernelModule = nullptr;
      }
    }
    if (!kernelModule) {
      result.status = TunedKernel::Status::Skipped;
      result.reason = why;
      finish();
      continue;
    }

    if (kernel.attention) {
      if (llvm::Error e =
              tuneAttention(kernel, *kernelModule, *plan, options, tileFile,
                            targetId, progress, report, result))
        return std::move(e);
      cache.insert(result.entry);
      if (!cachePath.empty())
        if (llvm::Error e = cache.save(cachePath))
          return std::move(e);
      finish();
      continue;
    }
    MatmulProblem problem = kernel.key.getProblem(ctx);
    bool cold = problem.m < plan->target.matmulRegisterTile[0];
    if (cold && !evictor) {
      uint64_t bytes = plan->target.l3Bytes > 0
                           ? 2 * static_cast<uint64_t>(plan->target.l3Bytes)
                           : uint64_t(64) << 20;
      llvm::Expected<CacheEvictor> created = CacheEvictor::create(bytes);
      if (!created)
        return created.takeError();
      evictor.emplace(std::move(*created));
      evictor->touch();
    }
    KernelTimer timer(*kernelModule, options, tileFile, cold,
                      evictor ? &*evictor : nullptr);
    MatmulTiles defaults = selectMatmulTiles(plan->target, problem);
    llvm::Expected<double> defaultMs = timer.measure(nullptr);
    if (!defaultMs)
      return defaultMs.takeError();
    MatmulTiles best = defaults;
    double bestMs = *defaultMs;
    progress.defaultMs = progress.bestMs = bestMs;
    progress.candidatesDone = 1;
    result.candidates = 1;
    // Rounds: register tiles, then the cache tile along N, then along K,
    // each around the best so far.
    for (int round = 0; round < 3; ++round) {
      SmallVector<MatmulTiles> candidates =
          round == 0
              ? getRegisterTileCandidates(plan->target, problem, best)
              : getCacheTileCandidates(plan->target, problem, best, round);
      progress.candidatesTotal = progress.candidatesDone + candidates.size();
      report();
      MatmulTiles roundBest = best;
      for (const MatmulTiles &tiles : candidates) {
        TuningEntry entry = makeEntry(targetId, kernel.text, tiles);
        llvm::Expected<double> ms = timer.measure(&entry);
        if (!ms)
          return ms.takeError();
        ++progress.candidatesDone;
        ++result.candidates;
        // Away from the defaults only by a margin; between winners, the
        // faster.
        if (*ms < bestMs * (roundBest == defaults ? kMinGain : 1.0)) {
          bestMs = *ms;
          roundBest = tiles;
          progress.bestMs = bestMs;
        }
        report();
      }
      best = roundBest;
    }
    result.entry = makeEntry(targetId, kernel.text, best);
    result.entry.timeMs = bestMs;
    result.entry.defaultMs = *defaultMs;
    bool isDefault = best == defaults;
    result.status =
        isDefault ? TunedKernel::Status::Default : TunedKernel::Status::Tuned;
    // Stored either way: a later run need not measure it again, and the
    // compile records the tiles it uses.
    cache.insert(result.entry);
    if (!cachePath.empty())
      if (llvm::Error e = cache.save(cachePath))
        return std::move(e);
    finish();
  }
  return results;
}
