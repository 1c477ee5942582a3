/*===-- llm-c/Generation.h - Token generation sessions ------------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A generation session: a model with the generation entry interface          *|
|* (docs/Generation.md: token ids, positions, lengths, key/value caches       *|
|* marked llm.kv_cache) compiled once, its caches kept across calls: one      *|
|* prefill over the prompt, then one decode call per token. Wraps             *|
|* mlir::llm::runtime::GenerationSession (llm/Runtime/Generation.h).          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_GENERATION_H
#define LLM_C_GENERATION_H

#include "llm-c/Support.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A generation session. Owned by the caller; destroy with
/// llmcGenerationSessionDestroy. Not thread-safe: one session per thread.
typedef struct LlmcGenerationSession {
  void *ptr;
} LlmcGenerationSession;

/// Compiles the llm-dialect model in the file at `path` (MLIR assembly; the
/// context needs the dialects of llmcRegisterAllDialects), or the ONNX
/// decoder exported with its past (`path` ending in `.onnx`:
/// `past_key_values.*` inputs and `present.*` outputs, imported in the
/// cached form, docs/Generation.md), for the host CPU and creates a session
/// with zeroed caches. `options` are those of
/// llmcCompiledModelCreate (entry=, threads=, no-opt=, cache=, pipeline
/// options); `memory-arena=caller` is added, so the session owns the arena
/// and no call allocates its intermediates. Returns a null session
/// (llmcGenerationSessionIsNull) after passing the errors to `onError`: the
/// model does not load or compile, or its entry does not follow the
/// interface (e.g. "generation entry @main: has no llm.kv_cache argument,
/// so the model has no decode form ...").
MLIR_CAPI_EXPORTED LlmcGenerationSession llmcGenerationSessionCreateFromFile(
    MlirContext ctx, MlirStringRef path, MlirStringRef options,
    MlirStringCallback onError, void *userData);

/// Destroys `session` (no-op for a null session).
MLIR_CAPI_EXPORTED void
llmcGenerationSessionDestroy(LlmcGenerationSession session);

static inline bool llmcGenerationSessionIsNull(LlmcGenerationSession s) {
  return s.ptr == NULL;
}

/// The vocabulary size V (token ids lie in [0, V)), the longest sequence the
/// model takes (the declared bound) and the tokens in the cache.
MLIR_CAPI_EXPORTED int64_t
llmcGenerationSessionGetVocabSize(LlmcGenerationSession session);
MLIR_CAPI_EXPORTED int64_t
llmcGenerationSessionGetMaxSequence(LlmcGenerationSession session);
MLIR_CAPI_EXPORTED int64_t
llmcGenerationSessionGetPosition(LlmcGenerationSession session);

/// Starts a new sequence with the prompt `ids` (`count` ids, 1 <= count <=
/// the bound, each in [0, V)). On an error (passed to `onError`) nothing
/// runs.
MLIR_CAPI_EXPORTED MlirLogicalResult llmcGenerationSessionPrefill(
    LlmcGenerationSession session, const int64_t *ids, intptr_t count,
    MlirStringCallback onError, void *userData);

/// Appends the token `id` and runs one decode step. An error when the
/// sequence is full or `id` is outside the vocabulary (nothing runs).
MLIR_CAPI_EXPORTED MlirLogicalResult
llmcGenerationSessionDecode(LlmcGenerationSession session, int64_t id,
                            MlirStringCallback onError, void *userData);

/// The V logits of the last position of the last call; borrowed, valid until
/// the next prefill or decode.
MLIR_CAPI_EXPORTED const float *
llmcGenerationSessionGetLogits(LlmcGenerationSession session);

/// Sets how llmcGenerationSessionSampleNext chooses tokens and reseeds its
/// generator: greedy (argmax), or a draw from softmax(logits / temperature)
/// among the `topK` most likely tokens (0: all) whose probability sums to
/// `topP` (in (0, 1]). An error for values out of range.
MLIR_CAPI_EXPORTED MlirLogicalResult llmcGenerationSessionSetSampling(
    LlmcGenerationSession session, bool greedy, double temperature,
    int64_t topK, double topP, uint64_t seed, MlirStringCallback onError,
    void *userData);

/// The next token chosen from the current logits (default: greedy); -1 when
/// the logits are not finite (a NaN or +inf, or every one -inf).
MLIR_CAPI_EXPORTED int64_t
llmcGenerationSessionSampleNext(LlmcGenerationSession session);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_GENERATION_H
