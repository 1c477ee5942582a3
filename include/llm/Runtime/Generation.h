//===- Generation.h - autoregressive generation with a KV cache -*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Token generation on a compiled model with a key/value cache: one prefill
// call over the prompt, then one decode call per new token, the cache kept by
// the session between calls and updated in place by the model. `llmc
// generate`, the C API and the Python package wrap this.
//
// The generation entry interface (docs/Generation.md): a public function
//
//   func.func @main(
//       %ids:  tensor<1x?xi64> {llm.name = "input_ids", llm.dim_bounds = ...},
//       %pos:  tensor<1x?xi64> {llm.name = "position_ids", ...},   // optional
//       %past: tensor<i64> {llm.name = "past_length"},              // optional
//       %len:  tensor<i64> {llm.name = "total_length"},             // optional
//       %k0: tensor<...xf32> {llm.kv_cache}, %v0: ... {llm.kv_cache}, ...)
//       -> tensor<1x?xVxf32>          // logits of every new position
//
// `?` is the number of new tokens S (the prompt length in prefill, 1 in
// decode), bounded by the declared bound M (`llm.dim_bounds`). The session
// passes `position_ids = [past, ..., past + S - 1]`, `past_length = past` (the
// tokens already in the cache) and `total_length = past + S`. Each
// `llm.kv_cache` argument is a statically shaped buffer that the session
// allocates zeroed, passes to every call and that the model updates in place
// (`llm.kv_cache_update`). The result is `[1, S, V]` (the logits of every new
// position; the session uses the last) or `[1, V]`, in f32, f16 or bf16.
// Arguments without a
// name take the roles in order: the first `[1, ?]` integer tensor is the ids,
// the second the positions, the first 0-d integer tensor the past length, the
// second the total length.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_GENERATION_H
#define LLM_RUNTIME_GENERATION_H

#include "llm/Runtime/CompiledModel.h"

#include "mlir/IR/BuiltinOps.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace mlir::llm::runtime {

//===----------------------------------------------------------------------===//
// Entry interface
//===----------------------------------------------------------------------===//

/// The roles of a generation entry's arguments (input indices of its
/// EntrySignature) and the sizes they imply.
struct GenerationInterface {
  unsigned idsInput = 0;
  std::optional<unsigned> positionsInput;
  std::optional<unsigned> pastLengthInput;
  std::optional<unsigned> totalLengthInput;
  /// The `llm.kv_cache` arguments, in argument order.
  SmallVector<unsigned> cacheInputs;
  /// The longest sequence (prompt plus generated tokens) the model takes:
  /// the declared bound of the sequence dimension.
  int64_t maxSequence = 0;
  /// The vocabulary size: the last dimension of the logits.
  int64_t vocabSize = 0;
  /// Whether the logits are `[1, S, V]` (else `[1, V]`).
  bool logitsPerPosition = false;
};

/// Checks that an entry with signature `sig` (getEntrySignature, which
/// records the `llm.kv_cache` arguments) follows the generation entry
/// interface of the file comment and returns its roles. The error starts
/// "generation entry @NAME: " (a model with no `llm.kv_cache` argument has
/// no decode form: "... has no llm.kv_cache argument ...").
llvm::Expected<GenerationInterface>
getGenerationInterface(const EntrySignature &sig);

/// The name of the decode entry that `compileForGeneration` adds.
std::string getDecodeEntryName(StringRef entry);

/// Compiles `module` for generation: checks that `options.entry` follows
/// the generation entry interface, adds a copy of it specialized to one
/// token (`llm-specialize-sequence`, `<entry>_decode`: static shapes, so
/// the decode step takes the static lowering instead of matmuls over rows
/// padded to the bound) compiled into the same object as a second entry
/// (one copy of the weights), and lowers with `memory-arena=caller` added
/// (the session owns the arena). `module` is modified (lowered). Errors
/// are emitted as diagnostics in `module`'s context (the interface errors
/// at the module).
FailureOr<std::unique_ptr<CompiledModel>>
compileForGeneration(ModuleOp module, CompileOptions options);

//===----------------------------------------------------------------------===//
// Sampling
//===----------------------------------------------------------------------===//

/// How the next token is chosen from the logits.
struct SamplingOptions {
  /// The most likely token (the first one on a tie); the other fields are
  /// then unused.
  bool greedy = true;
  /// Softmax temperature (> 0): logits are divided by it.
  double temperature = 1.0;
  /// Keep only the k most likely tokens (0: all).
  int64_t topK = 0;
  /// Nucleus sampling (Holtzman et al. 2019, arXiv:1904.09751): keep the
  /// smallest set of most likely tokens whose probability sums to at least
  /// `topP` (in (0, 1]; 1: all).
  double topP = 1.0;
  /// Seed of the generator; equal seeds give equal tokens.
  uint64_t seed = 0;
};

/// Checks the ranges of `options` (temperature > 0, topK >= 0,
/// 0 < topP <= 1); the error names the option.
llvm::Error checkSamplingOptions(const SamplingOptions &options);

/// Chooses a token from `logits` (one per vocabulary entry): greedy argmax,
/// or a draw from softmax(logits / temperature) restricted by top-k, then
/// top-p, using `rng` (one uniform draw per token). -inf logits are never
/// chosen (masked tokens); returns -1, drawing nothing, when a logit is NaN
/// or +inf or every logit is -inf (no distribution: an overflow in the
/// model, e.g. in f16).
int64_t sampleToken(ArrayRef<float> logits, const SamplingOptions &options,
                    std::mt19937_64 &rng);

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

/// The memory a session holds, in bytes.
struct GenerationMemory {
  /// The model's constant weights (one copy, shared by every call).
  int64_t weights = 0;
  /// The key/value cache buffers (sized for `maxSequence` positions).
  int64_t kvCache = 0;
  /// The planned arena of intermediates (memory-arena=caller; 0 when the
  /// model allocates its own).
  int64_t arena = 0;
  /// The stack scratch of one loop iteration, per thread (tile buffers of
  /// parallel loops; on each thread's stack, not in the arena).
  int64_t tileScratch = 0;
  /// The session's input and logits buffers.
  int64_t io = 0;
};

/// A generation session: the compiled model, its cache buffers and the
/// current position. Not thread-safe (one session per thread).
class GenerationSession {
public:
  /// Creates a session on `model` (compiled from a module whose entry
  /// `interface` describes; with compileForGeneration, its second entry is
  /// the one-token decode step, used for every one-token call) and
  /// allocates its cache (zeroed) and buffers; an error when the memory
  /// cannot be allocated or the second entry is not that step.
  static llvm::Expected<std::unique_ptr<GenerationSession>>
  create(std::shared_ptr<CompiledModel> model,
         const GenerationInterface &interface);

  const GenerationInterface &getInterface() const { return interface; }

  /// Starts a new sequence: runs the model on `ids` (1 <= size <=
  /// maxSequence, each in [0, vocabSize)) at position 0. The cache's old
  /// contents are not read. Errors name the bad id or length; nothing runs
  /// then.
  llvm::Error prefill(ArrayRef<int64_t> ids);

  /// Runs the model on the one token `id` at the current position and
  /// advances it. An error (nothing runs) when the sequence already holds
  /// maxSequence tokens or `id` is outside the vocabulary.
  llvm::Error decode(int64_t id);

  /// The logits of the last position of the last call (vocabSize floats;
  /// f16/bf16 logits of the model converted to f32, exactly).
  ArrayRef<float> getLogits() const;

  /// Sets how `sampleNext` chooses tokens and reseeds its generator with
  /// `options.seed` (checkSamplingOptions first; default: greedy, seed 0).
  llvm::Error setSampling(const SamplingOptions &options);

  /// The next token chosen from getLogits() by the sampling options, with
  /// the session's generator (sampleToken); -1 when the logits are not
  /// finite (see sampleToken).
  int64_t sampleNext();

  /// Tokens in the cache (the next position).
  int64_t getPosition() const { return position; }

  GenerationMemory getMemory() const;

private:
  GenerationSession() = default;
  /// Runs the model on `ids` at `position` (checked by the callers).
  llvm::Error run(ArrayRef<int64_t> ids);

  std::shared_ptr<CompiledModel> model;
  GenerationInterface interface;
  SmallVector<HostTensor> caches;
  /// Per-call buffers sized for the longest call (maxSequence tokens):
  /// ids, positions and the logits.
  std::vector<int64_t> idsBuffer, positionsBuffer;
  std::vector<int32_t> ids32Buffer, positions32Buffer;
  HostTensor logitsBuffer;
  /// The last position's logits as f32 when the model's are f16 or bf16
  /// (vocabSize floats, converted after each call).
  std::vector<float> logitsF32;
  /// The input views of a call (reused: no allocation per call).
  SmallVector<TensorView, 0> callInputs;
  int64_t pastLength = 0, totalLength = 0;
  int32_t pastLength32 = 0, totalLength32 = 0;
  int64_t position = 0;
  int64_t lastCallTokens = 0;
  /// The entry of one-token calls: 1 when the model has the decode entry of
  /// compileForGeneration, else 0.
  unsigned decodeEntry = 0;
  SamplingOptions sampling;
  std::mt19937_64 rng{0};
};

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_GENERATION_H
