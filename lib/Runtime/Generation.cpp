//===- Generation.cpp - autoregressive generation with a KV cache ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Generation.h"
#include "llm/Pipelines/Pipelines.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::runtime;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// Entry interface
//===----------------------------------------------------------------------===//

static bool isIntegerSpec(const TensorSpec &spec) {
  return spec.dtype == DType::I64 || spec.dtype == DType::I32;
}

/// `[1, ?]` integers: token ids or positions.
static bool isTokenSpec(const TensorSpec &spec) {
  return isIntegerSpec(spec) && spec.shape.size() == 2 && spec.shape[0] == 1 &&
         ShapedType::isDynamic(spec.shape[1]);
}

static bool isScalarSpec(const TensorSpec &spec) {
  return isIntegerSpec(spec) && spec.shape.empty();
}

llvm::Expected<GenerationInterface>
mlir::llm::runtime::getGenerationInterface(const EntrySignature &sig) {
  std::string where = "generation entry @" + sig.name + ": ";
  auto error = [&](const llvm::Twine &msg) { return makeError(where + msg); };
  auto isCache = [&](size_t i) {
    return i < sig.inputIsKVCache.size() && sig.inputIsKVCache[i];
  };
  // Without a cache there is nothing to decode with: say that first, not
  // what else the arguments lack.
  if (llvm::none_of(llvm::seq<size_t>(0, sig.inputs.size()), isCache))
    return error("has no " + kKVCacheAttrName +
                 " argument, so the model has no decode form: each step "
                 "would recompute the whole sequence (see "
                 "docs/Generation.md for the entry interface)");

  GenerationInterface gi;
  std::optional<unsigned> ids, positions, past, total;
  SmallVector<unsigned> unnamedTokens, unnamedScalars;
  for (auto [i, spec] : llvm::enumerate(sig.inputs)) {
    std::string what = "argument #" + std::to_string(i);
    if (isCache(i)) {
      if (spec.isDynamic() ||
          (spec.dtype != DType::F32 && spec.dtype != DType::F16 &&
           spec.dtype != DType::BF16))
        return error(what + " (" + kKVCacheAttrName + ") is " + spec.str() +
                     "; a key/value cache is a statically shaped f32, f16 "
                     "or bf16 tensor");
      gi.cacheInputs.push_back(i);
      continue;
    }
    StringRef name =
        i < sig.inputNames.size() ? StringRef(sig.inputNames[i]) : "";
    std::optional<unsigned> *slot = nullptr;
    bool ok = false;
    StringRef expected;
    if (name == "input_ids" || name == "position_ids") {
      slot = name == "input_ids" ? &ids : &positions;
      ok = isTokenSpec(spec);
      expected = "tensor<1x?xi64> (or i32) with a bounded sequence dimension";
    } else if (name == "past_length" || name == "total_length") {
      slot = name == "past_length" ? &past : &total;
      ok = isScalarSpec(spec);
      expected = "tensor<i64> (or i32)";
    } else if (name.empty() && isTokenSpec(spec)) {
      unnamedTokens.push_back(i);
      continue;
    } else if (name.empty() && isScalarSpec(spec)) {
      unnamedScalars.push_back(i);
      continue;
    } else {
      return error(what + (name.empty() ? "" : " '" + name.str() + "'") + " (" +
                   spec.str() +
                   ") is not one of input_ids, position_ids, past_length, "
                   "total_length or an " +
                   kKVCacheAttrName + " argument (see docs/Generation.md)");
    }
    if (!ok)
      return error(what + " '" + name + "' is " + spec.str() + "; expected " +
                   expected);
    if (*slot)
      return error(what + ": two arguments are named '" + name + "'");
    *slot = i;
  }
  // Unnamed arguments fill the free roles in order.
  for (unsigned i : unnamedTokens) {
    std::optional<unsigned> &slot = !ids ? ids : positions;
    if (slot)
      return error("argument #" + llvm::Twine(i) +
                   ": more than two [1, ?] integer arguments (token ids and "
                   "positions)");
    slot = i;
  }
  for (unsigned i : unnamedScalars) {
    std::optional<unsigned> &slot = !past ? past : total;
    if (slot)
      return error("argument #" + llvm::Twine(i) +
                   ": more than two 0-d integer arguments (past and total "
                   "length)");
    slot = i;
  }
  if (!ids)
    return error("no token ids argument (tensor<1x?xi64> with a bounded "
                 "sequence dimension, llm.dim_bounds)");
  gi.idsInput = *ids;
  gi.positionsInput = positions;
  gi.pastLengthInput = past;
  gi.totalLengthInput = total;
  gi.maxSequence = sig.seqBound;

  if (sig.results.size() != 1)
    return error("returns " + llvm::Twine(sig.results.size()) +
                 " results; expected one, the logits");
  const TensorSpec &logits = sig.results[0];
  bool perPosition = logits.shape.size() == 3 && logits.shape[0] == 1 &&
                     ShapedType::isDynamic(logits.shape[1]) &&
                     !ShapedType::isDynamic(logits.shape[2]);
  bool last = logits.shape.size() == 2 && logits.shape[0] == 1 &&
              !ShapedType::isDynamic(logits.shape[1]);
  bool floatType = logits.dtype == DType::F32 || logits.dtype == DType::F16 ||
                   logits.dtype == DType::BF16;
  if (!floatType || (!perPosition && !last))
    return error("result #0 is " + logits.str() +
                 "; expected the logits, tensor<1x?xVxT> (every new "
                 "position) or tensor<1xVxT> (the last one), T = f32, f16 "
                 "or bf16");
  gi.logitsPerPosition = perPosition;
  gi.vocabSize = logits.shape.back();
  if (gi.vocabSize < 1)
    return error("the logits have no vocabulary entries");
  return gi;
}

std::string mlir::llm::runtime::getDecodeEntryName(StringRef entry) {
  return (entry + "_decode").str();
}

FailureOr<std::unique_ptr<CompiledModel>>
mlir::llm::runtime::compileForGeneration(ModuleOp module,
                                         CompileOptions options) {
  FailureOr<EntrySignature> sig = getEntrySignature(module, options.entry);
  if (failed(sig))
    return failure();
  llvm::Expected<GenerationInterface> interface = getGenerationInterface(*sig);
  if (!interface)
    return emitError(module.getLoc()) << llvm::toString(interface.takeError());
  std::string decode = getDecodeEntryName(options.entry);
  PassManager pm(module.getContext());
  // Tensor parallelism: the rank's program first, so that the signature
  // the session sizes its caches from is the rank's (its heads only).
  std::unique_ptr<LowerToCPUOptions> cpuOptions =
      LowerToCPUOptions::createFromString(options.lowering.pipelineOptions);
  bool split =
      cpuOptions && cpuOptions->tensorParallel > 1 && cpuOptions->shard;
  if (split)
    buildLLMTensorParallelStage(pm, cpuOptions->tensorParallel,
                                cpuOptions->rank);
  // The session samples from the last position: the prefill computes the
  // logits of that one (the LM head on one row, not S), and the decode
  // entry is specialized from it.
  LLMKeepLastLogitsPassOptions keepLast;
  keepLast.entry = options.entry;
  pm.addPass(createLLMKeepLastLogitsPass(keepLast));
  LLMSpecializeSequencePassOptions specialize;
  specialize.entry = options.entry;
  specialize.length = 1;
  specialize.newEntry = decode;
  pm.addPass(createLLMSpecializeSequencePass(specialize));
  if (failed(pm.run(module)))
    return failure();
  options.extraEntries.push_back(decode);
  options.lowering.pipelineOptions =
      (options.lowering.pipelineOptions.empty()
           ? std::string()
           : options.lowering.pipelineOptions + " ") +
      "memory-arena=caller" + (split ? " shard=false" : "");
  return CompiledModel::create(module, options);
}

//===----------------------------------------------------------------------===//
// Sampling
//===----------------------------------------------------------------------===//

/// `%g`: "0", "1.5".
static std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

llvm::Error
mlir::llm::runtime::checkSamplingOptions(const SamplingOptions &options) {
  if (options.greedy)
    return llvm::Error::success();
  if (!(options.temperature > 0) || !std::isfinite(options.temperature))
    return makeError("the temperature must be a finite number > 0, got " +
                     formatDouble(options.temperature));
  if (options.topK < 0)
    return makeError("top-k must be >= 0 (0: no limit), got " +
                     llvm::Twine(options.topK));
  if (!(options.topP > 0 && options.topP <= 1))
    return makeError("top-p must be in (0, 1], got " +
                     formatDouble(options.topP));
  return llvm::Error::success();
}

int64_t mlir::llm::runtime::sampleToken(ArrayRef<float> logits,
                                        const SamplingOptions &options,
                                        std::mt19937_64 &rng) {
  int64_t n = logits.size();
  int64_t best = -1;
  for (int64_t i = 0; i < n; ++i) {
    // NaN or +inf: no distribution to choose from.
    if (std::isnan(logits[i]) || logits[i] == INFINITY)
      return -1;
    if (logits[i] != -INFINITY && (best < 0 || logits[i] > logits[best]))
      best = i;
  }
  if (best < 0)
    return -1;
  if (options.greedy)
    return best;

  // Candidates by descending logit (index order on ties), cut to top-k.
  std::vector<int64_t> order;
  order.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    if (logits[i] != -INFINITY)
      order.push_back(i);
  auto byLogit = [&](int64_t a, int64_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  size_t keep = order.size();
  if (options.topK > 0 && static_cast<size_t>(options.topK) < keep)
    keep = options.topK;
  std::partial_sort(order.begin(), order.begin() + keep, order.end(), byLogit);
  order.resize(keep);
  // Softmax of logit / T in double, relative to the largest.
  std::vector<double> probs(keep);
  double maxLogit = logits[order[0]] / options.temperature, sum = 0;
  for (size_t i = 0; i < keep; ++i) {
    probs[i] = std::exp(logits[order[i]] / options.temperature - maxLogit);
    sum += probs[i];
  }
  // Top-p: the shortest prefix whose mass reaches topP.
  if (options.topP < 1) {
    double mass = 0;
    size_t cut = keep;
    for (size_t i = 0; i < keep; ++i) {
      mass += probs[i] / sum;
      if (mass >= options.topP) {
        cut = i + 1;
        break;
      }
    }
    probs.resize(cut);
    order.resize(cut);
    sum = std::accumulate(probs.begin(), probs.end(), 0.0);
  }
  // One uniform draw in [0, sum): 53 random bits (same on every platform,
  // unlike std::uniform_real_distribution).
  double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * sum;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (u < probs[i])
      return order[i];
    u -= probs[i];
  }
  return order.back();
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<GenerationSession>>
GenerationSession::create(std::shared_ptr<CompiledModel> model,
                          const GenerationInterface &interface) {
  if (!model)
    return makeError("no compiled model");
  const EntrySignature &sig = model->getSignature();
  std::unique_ptr<GenerationSession> session(new GenerationSession());
  // A second entry with the first one's arguments at one token is the
  // decode step.
  if (model->getNumEntries() > 1) {
    const EntrySignature &decode = model->getSignature(1);
    bool matches = decode.inputs.size() == sig.inputs.size() &&
                   decode.results.size() == sig.results.size() &&
                   decode.seqBound == 0;
    if (!matches)
      return makeError("the model's second entry @" + decode.name +
                       " is not the one-token form of @" + sig.name);
    session->decodeEntry = 1;
  }
  session->model = std::move(model);
  session->interface = interface;
  for (unsigned i : interface.cacheInputs) {
    llvm::Expected<HostTensor> cache =
        HostTensor::allocate(sig.inputs[i].dtype, sig.inputs[i].shape);
    if (!cache)
      return makeError("cannot allocate the key/value cache (input #" +
                       llvm::Twine(i) + ", " + sig.inputs[i].str() +
                       "): " + llvm::toString(cache.takeError()));
    session->caches.push_back(std::move(*cache));
  }
  int64_t m = interface.maxSequence;
  int64_t rows = interface.logitsPerPosition ? m : 1;
  session->idsBuffer.resize(m);
  session->positionsBuffer.resize(m);
  session->ids32Buffer.resize(m);
  session->positions32Buffer.resize(m);
  DType logitsType = sig.results[0].dtype;
  llvm::Expected<HostTensor> logits =
      HostTensor::allocate(logitsType, {rows, interface.vocabSize});
  if (!logits)
    return makeError("cannot allocate the logits buffer (" + llvm::Twine(rows) +
                     " x " + llvm::Twine(interface.vocabSize) + " " +
                     getDTypeName(logitsType) +
                     "): " + llvm::toString(logits.takeError()));
  session->logitsBuffer = std::move(*logits);
  if (logitsType != DType::F32)
    session->logitsF32.resize(interface.vocabSize);
  return session;
}

llvm::Error GenerationSession::prefill(ArrayRef<int64_t> ids) {
  if (ids.empty())
    return makeError("the prompt is empty: give at least one token id");
  if (static_cast<int64_t>(ids.size()) > interface.maxSequence)
    return makeError("the prompt has " + llvm::Twine(ids.size()) +
                     " tokens, more than the " +
                     llvm::Twine(interface.maxSequence) +
                     " positions the model was compiled for (its declared "
                     "sequence bound, llm.dim_bounds)");
  position = 0;
  return run(ids);
}

llvm::Error GenerationSession::decode(int64_t id) {
  if (position >= interface.maxSequence)
    return makeError("the sequence holds " + llvm::Twine(position) +
                     " tokens, the most the model was compiled for "
                     "(its declared sequence bound, llm.dim_bounds): no "
                     "position is left for another token");
  return run(ArrayRef<int64_t>(id));
}

llvm::Error GenerationSession::run(ArrayRef<int64_t> ids) {
  int64_t s = ids.size();
  for (auto [i, id] : llvm::enumerate(ids))
    if (id < 0 || id >= interface.vocabSize)
      return makeError("token id " + llvm::Twine(id) + " (at position " +
                       llvm::Twine(position + i) +
                       ") is outside the vocabulary [0, " +
                       llvm::Twine(interface.vocabSize) + ")");
  const EntrySignature &sig = model->getSignature();
  int64_t shape[2] = {1, s};
  // The views of this call, in argument order (the vector keeps its
  // capacity: no allocation after the first call).
  SmallVector<TensorView, 0> &inputs = callInputs;
  inputs.clear();
  pastLength = position;
  totalLength = position + s;
  pastLength32 = static_cast<int32_t>(pastLength);
  totalLength32 = static_cast<int32_t>(totalLength);
  for (int64_t i = 0; i < s; ++i) {
    idsBuffer[i] = ids[i];
    positionsBuffer[i] = position + i;
    ids32Buffer[i] = static_cast<int32_t>(ids[i]);
    positions32Buffer[i] = static_cast<int32_t>(position + i);
  }
  unsigned cache = 0;
  for (auto [i, spec] : llvm::enumerate(sig.inputs)) {
    bool i32 = spec.dtype == DType::I32;
    if (i == interface.idsInput)
      inputs.emplace_back(spec.dtype, ArrayRef<int64_t>(shape),
                          i32 ? static_cast<void *>(ids32Buffer.data())
                              : static_cast<void *>(idsBuffer.data()));
    else if (interface.positionsInput && i == *interface.positionsInput)
      inputs.emplace_back(spec.dtype, ArrayRef<int64_t>(shape),
                          i32 ? static_cast<void *>(positions32Buffer.data())
                              : static_cast<void *>(positionsBuffer.data()));
    else if (interface.pastLengthInput && i == *interface.pastLengthInput)
      inputs.emplace_back(spec.dtype, ArrayRef<int64_t>(),
                          i32 ? static_cast<void *>(&pastLength32)
                              : static_cast<void *>(&pastLength));
    else if (interface.totalLengthInput && i == *interface.totalLengthInput)
      inputs.emplace_back(spec.dtype, ArrayRef<int64_t>(),
                          i32 ? static_cast<void *>(&totalLength32)
                              : static_cast<void *>(&totalLength));
    else
      inputs.emplace_back(caches[cache++]);
  }
  int64_t logitsShape3[3] = {1, s, interface.vocabSize};
  int64_t logitsShape2[2] = {1, interface.vocabSize};
  TensorView logits(logitsBuffer.getDType(),
                    interface.logitsPerPosition
                        ? ArrayRef<int64_t>(logitsShape3)
                        : ArrayRef<int64_t>(logitsShape2),
                    logitsBuffer.getData());
  if (llvm::Error err =
          model->invokeEntry(s == 1 ? decodeEntry : 0, inputs, {logits}))
    return err;
  position += s;
  lastCallTokens = s;
  // 16-bit logits: the last position's row as f32 (exact).
  if (!logitsF32.empty()) {
    int64_t first =
        (interface.logitsPerPosition ? s - 1 : 0) * interface.vocabSize;
    for (int64_t i = 0; i < interface.vocabSize; ++i)
      logitsF32[i] = static_cast<float>(logitsBuffer.getAsDouble(first + i));
  }
  return llvm::Error::success();
}

ArrayRef<float> GenerationSession::getLogits() const {
  if (!logitsF32.empty())
    return logitsF32;
  int64_t row = interface.logitsPerPosition ? lastCallTokens - 1 : 0;
  if (row < 0)
    row = 0;
  const float *data = static_cast<const float *>(logitsBuffer.getData());
  return ArrayRef<float>(data + row * interface.vocabSize, interface.vocabSize);
}

GenerationMemory GenerationSession::getMemory() const {
  GenerationMemory m;
  m.weights = model->getWeightBytes();
  for (const HostTensor &cache : caches)
    m.kvCache += cache.getSizeInBytes();
  m.arena = model->getArenaBytes();
  m.tileScratch = model->getTileScratchBytes();
  m.io = (idsBuffer.size() + positionsBuffer.size()) * sizeof(int64_t) +
         (ids32Buffer.size() + positions32Buffer.size()) * sizeof(int32_t) +
         logitsBuffer.getSizeInBytes() + logitsF32.size() * sizeof(float);
  return m;
}

llvm::Error GenerationSession::setSampling(const SamplingOptions &options) {
  if (llvm::Error e = checkSamplingOptions(options))
    return e;
  sampling = options;
  rng.seed(options.seed);
  return llvm::Error::success();
}

int64_t GenerationSession::sampleNext() {
  return sampleToken(getLogits(), sampling, rng);
}
