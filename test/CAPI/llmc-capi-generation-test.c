/*===- llmc-capi-generation-test.c - Tests of llm-c/Generation.h ----------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A C client of the generation session API: creates a session on a model    *|
|* with key/value caches, runs a greedy prefill + decode loop (the ids are    *|
|* compared with the numpy reference by the RUN lines), reruns it on the same *|
|* session (a new prefill restarts the sequence), counts the heap            *|
|* allocations of 32 decode steps and of a prefill (none), and exercises the *|
|* errors.                                                                    *|
|* Usage:                                                                     *|
|*   llmc-capi-generation-test DECODER.mlir NO_CACHE_MODEL.mlir IDS_FILE      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// clang-format off
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %llmc_src_root/examples/generate.py gpt2_decoder --d 32 --heads 2 --layers 2 --vocab 48 --max-seq 48 --out-dir %t
// RUN: %python %llmc_src_root/examples/generate.py gpt2_model --d 32 --heads 2 --seq 8 --layers 1 --vocab 16 --out-dir %t
// RUN: llmc-capi-generation-test %t/gpt2_decoder.mlir %t/gpt2_model.mlir %t/ids.txt | FileCheck %s
// RUN: %python -m llmc_check generate %t/gpt2_decoder.mlir --prompt-ids 5,17,2,40 --max-new-tokens 16 --actual %t/ids.txt | FileCheck %s --check-prefix=REF
//
// CHECK: session: vocab 48, max sequence 48, position 0
// CHECK-NEXT: generated 16 ids, position 19
// CHECK-NEXT: second run: same ids
// CHECK-NEXT: heap allocations in 32 decode steps: 0 (and {{some|none}} in libomp)
// CHECK-NEXT: heap allocations in a prefill of 8 tokens: 0 (and {{some|none}} in libomp)
// CHECK-NEXT: parallel=false: 0 heap allocations in 32 decode steps
// CHECK-NEXT: bad id: error: token id 48 (at position 8) is outside the vocabulary [0, 48)
// CHECK-NEXT: full: error: the sequence holds 48 tokens, the most the model was compiled for
// CHECK-NEXT: sampling: error: top-p must be in (0, 1], got 1.5
// CHECK-NEXT: no cache: null session, {{.*}}gpt2_model.mlir:{{[0-9]+}}:{{[0-9]+}}: error: generation entry @main: has no llm.kv_cache argument
// CHECK-NEXT: 0 failures
// REF: generate: 16 ids equal ({{.*}}) PASS
// clang-format on

#define _GNU_SOURCE /* dladdr */
#include "Buffer.h"
#include "Expect.h"

#include "llm-c/Dialects.h"
#include "llm-c/Generation.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Heap allocations of the whole process (this program, libLLMCAPI, libstdc++
 * and the JIT-compiled model, which resolves malloc in the process), counted
 * while `counting` is set: this program defines the allocation functions and
 * forwards them to glibc's. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static volatile int counting = 0;
/* Allocations by llmc, the C++ runtime and the compiled code; and those that
 * libomp makes itself: Debian's libomp formats a 512-byte debug string
 * (__kmp_str_format) in every __kmpc_for_static_init, whoever runs the
 * parallel loop. */
static volatile long allocations = 0, libompAllocations = 0;
static int isLibomp(const void *address) {
  Dl_info info;
  return dladdr(address, &info) && info.dli_fname &&
         strstr(info.dli_fname, "libomp");
}
__attribute__((noinline)) static void countCaller(const void *caller) {
  if (!counting)
    return;
  counting = 0; /* dladdr does not allocate, but be sure. */
  if (isLibomp(caller))
    ++libompAllocations;
  else
    ++allocations;
  counting = 1;
}
#define count() countCaller(__builtin_return_address(0))
void *malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
void *memalign(size_t alignment, size_t n) {
  count();
  return __libc_memalign(alignment, n);
}
void *aligned_alloc(size_t alignment, size_t n) {
  count();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void **out, size_t alignment, size_t n) {
  count();
  void *p = __libc_memalign(alignment, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

/// The first line of the text.
static const char *firstLine(Buffer *b) {
  if (!b->data)
    return "";
  char *newline = strchr(b->data, '\n');
  if (newline)
    *newline = '\0';
  return b->data;
}

enum { kNewTokens = 16, kPromptLength = 4 };

/// Greedy: prefill, then one decode per token but the last.
static int generate(LlmcGenerationSession s, int64_t *out, Buffer *errors) {
  const int64_t prompt[kPromptLength] = {5, 17, 2, 40};
  if (mlirLogicalResultIsFailure(llmcGenerationSessionPrefill(
          s, prompt, kPromptLength, appendToBuffer, errors)))
    return 0;
  for (int i = 0; i < kNewTokens; ++i) {
    out[i] = llmcGenerationSessionSampleNext(s);
    if (i + 1 < kNewTokens &&
        mlirLogicalResultIsFailure(
            llmcGenerationSessionDecode(s, out[i], appendToBuffer, errors)))
      return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s DECODER.mlir NO_CACHE.mlir IDS_FILE\n", argv[0]);
    return 2;
  }
  MlirContext ctx = llmcContextCreate(/*threadingEnabled=*/false);
  Buffer errors = {NULL, 0};
  LlmcGenerationSession s = llmcGenerationSessionCreateFromFile(
      ctx, mlirStringRefCreateFromCString(argv[1]),
      mlirStringRefCreateFromCString("cache=false"), appendToBuffer, &errors);
  if (llmcGenerationSessionIsNull(s)) {
    printf("cannot create the session: %s\n", errors.data ? errors.data : "");
    mlirContextDestroy(ctx);
    return 1;
  }
  printf("session: vocab %lld, max sequence %lld, position %lld\n",
         (long long)llmcGenerationSessionGetVocabSize(s),
         (long long)llmcGenerationSessionGetMaxSequence(s),
         (long long)llmcGenerationSessionGetPosition(s));

  int64_t ids[kNewTokens], again[kNewTokens];
  EXPECT(generate(s, ids, &errors));
  printf("generated %d ids, position %lld\n", kNewTokens,
         (long long)llmcGenerationSessionGetPosition(s));
  FILE *f = fopen(argv[3], "w");
  EXPECT(f != NULL);
  for (int i = 0; f && i < kNewTokens; ++i)
    fprintf(f, "%s%lld", i ? "," : "", (long long)ids[i]);
  if (f)
    fclose(f);
  EXPECT(generate(s, again, &errors));
  printf("second run: %s\n",
         memcmp(ids, again, sizeof(ids)) == 0 ? "same ids" : "DIFFERENT ids");

  // No heap allocation per token: 32 decode steps (after a new prefill and
  // two warm-up steps) allocate nothing, in llmc or in the compiled code.
  const int64_t prompt[2] = {9, 11};
  EXPECT(mlirLogicalResultIsSuccess(llmcGenerationSessionPrefill(
      s, prompt, 2, appendToBuffer, &errors)));
  int64_t next = llmcGenerationSessionSampleNext(s);
  for (int i = 0; i < 34; ++i) {
    counting = i >= 2;
    EXPECT(mlirLogicalResultIsSuccess(
        llmcGenerationSessionDecode(s, next, appendToBuffer, &errors)));
    next = llmcGenerationSessionSampleNext(s);
    counting = 0;
  }
  printf("heap allocations in 32 decode steps: %ld (and %s in libomp)\n",
         allocations, libompAllocations ? "some" : "none");

  // No heap allocation per call either: a prefill of 8 tokens (the tiles of
  // its parallel loops keep their scratch on the stack).
  const int64_t prompt8[8] = {3, 14, 15, 9, 26, 5, 35, 8};
  allocations = libompAllocations = 0;
  counting = 1;
  EXPECT(mlirLogicalResultIsSuccess(
      llmcGenerationSessionPrefill(s, prompt8, 8, appendToBuffer, &errors)));
  counting = 0;
  printf("heap allocations in a prefill of 8 tokens: %ld (and %s in "
         "libomp)\n",
         allocations, libompAllocations ? "some" : "none");

  // Without OpenMP, none at all.
  LlmcGenerationSession serial = llmcGenerationSessionCreateFromFile(
      ctx, mlirStringRefCreateFromCString(argv[1]),
      mlirStringRefCreateFromCString("cache=false parallel=false"),
      appendToBuffer, &errors);
  EXPECT(!llmcGenerationSessionIsNull(serial));
  allocations = libompAllocations = 0;
  if (!llmcGenerationSessionIsNull(serial)) {
    EXPECT(mlirLogicalResultIsSuccess(llmcGenerationSessionPrefill(
        serial, prompt, 2, appendToBuffer, &errors)));
    next = llmcGenerationSessionSampleNext(serial);
    for (int i = 0; i < 34; ++i) {
      counting = i >= 2;
      EXPECT(mlirLogicalResultIsSuccess(
          llmcGenerationSessionDecode(serial, next, appendToBuffer, &errors)));
      next = llmcGenerationSessionSampleNext(serial);
      counting = 0;
    }
    llmcGenerationSessionDestroy(serial);
  }
  printf("parallel=false: %ld heap allocations in 32 decode steps\n",
         allocations + libompAllocations);

  // Errors: nothing runs, the session stays usable.
  resetBuffer(&errors);
  EXPECT(mlirLogicalResultIsFailure(
      llmcGenerationSessionDecode(s, 48, appendToBuffer, &errors)));
  printf("bad id: %s\n", firstLine(&errors));
  resetBuffer(&errors);
  while (llmcGenerationSessionGetPosition(s) < 48)
    EXPECT(mlirLogicalResultIsSuccess(
        llmcGenerationSessionDecode(s, 1, appendToBuffer, &errors)));
  EXPECT(mlirLogicalResultIsFailure(
      llmcGenerationSessionDecode(s, 1, appendToBuffer, &errors)));
  printf("full: %s\n", firstLine(&errors));
  resetBuffer(&errors);
  EXPECT(mlirLogicalResultIsFailure(llmcGenerationSessionSetSampling(
      s, false, 1.0, 0, 1.5, 0, appendToBuffer, &errors)));
  printf("sampling: %s\n", firstLine(&errors));
  resetBuffer(&errors);
  llmcGenerationSessionDestroy(s);

  LlmcGenerationSession none = llmcGenerationSessionCreateFromFile(
      ctx, mlirStringRefCreateFromCString(argv[2]),
      mlirStringRefCreateFromCString("cache=false"), appendToBuffer, &errors);
  printf("no cache: %s, %s\n",
         llmcGenerationSessionIsNull(none) ? "null session" : "SESSION",
         firstLine(&errors));
  llmcGenerationSessionDestroy(none);
  resetBuffer(&errors);
  mlirContextDestroy(ctx);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
