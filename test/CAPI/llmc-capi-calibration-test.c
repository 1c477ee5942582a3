/*===- llmc-capi-calibration-test.c - Tests of llm-c/Calibration.h --------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A C client of llmcCalibrate: quantizes an MLP from a .npz of samples,      *|
|* checks that the module it got back parses and that its matmuls become      *|
|* integer matmuls after llm-fold-quant, prints the report's figures, and     *|
|* exercises the errors (a bad option, missing samples).                      *|
|* Usage: llmc-capi-calibration-test MODEL.mlir DATA.npz                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// clang-format off
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Integration/quant/Inputs/calibrate_check.py mlp %t
// RUN: llmc-capi-calibration-test %t/mlp.mlir %t/data.npz | FileCheck %s
//
// CHECK: calibrated: 2 llm.quantize, report with "quantized_matmuls": 2
// CHECK-NEXT: after llm-fold-quant: 2 llm.matmul_integer
// CHECK-NEXT: bad option: error: invalid option 'method=kl': expected minmax, percentile or entropy
// CHECK-NEXT: missing data: error: calibration data '{{.*}}missing.npz': No such file or directory
// CHECK-NEXT: done
// clang-format on

#include "Buffer.h"

#include "llm-c/Calibration.h"
#include "llm-c/Dialects.h"
#include "llm-c/Passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The three outputs of llmcCalibrate, told apart by their callbacks.
typedef struct {
  Buffer model, report, errors;
} Outputs;

static void onModel(MlirStringRef s, void *u) {
  appendToBuffer(s, &((Outputs *)u)->model);
}
static void onReport(MlirStringRef s, void *u) {
  appendToBuffer(s, &((Outputs *)u)->report);
}
static void onError(MlirStringRef s, void *u) {
  appendToBuffer(s, &((Outputs *)u)->errors);
}

static int count(const char *text, const char *word) {
  int n = 0;
  for (const char *p = text; p && (p = strstr(p, word)); p += strlen(word))
    ++n;
  return n;
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc(n + 1);
  size_t got = fread(text, 1, n, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

static MlirStringRef ref(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// The first line of an error text.
static void printFirstLine(const char *what, const Buffer *b) {
  const char *text = b->data ? b->data : "(none)";
  const char *nl = strchr(text, '\n');
  printf("%s: %.*s\n", what, nl ? (int)(nl - text) : (int)strlen(text), text);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL.mlir DATA.npz\n", argv[0]);
    return 2;
  }
  llmcRegisterAllPasses();
  MlirContext ctx = llmcContextCreate(/*threadingEnabled=*/false);
  char *text = readFile(argv[1]);
  Buffer parseErrors = {0};
  MlirModule module = llmcParseModule(ctx, ref(text), ref(argv[1]),
                                      appendToBuffer, &parseErrors);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed: %s\n", parseErrors.data);
    return 1;
  }

  Outputs out = {{0}, {0}, {0}};
  MlirLogicalResult r =
      llmcCalibrate(module, ref(argv[2]), ref("method=minmax holdout=2"),
                    onModel, onReport, onError, &out);
  if (mlirLogicalResultIsFailure(r)) {
    fprintf(stderr, "calibration failed: %s\n", out.errors.data);
    return 1;
  }
  printf("calibrated: %d llm.quantize, report with %s\n",
         count(out.model.data, "llm.quantize "),
         strstr(out.report.data, "\"quantized_matmuls\": 2")
             ? "\"quantized_matmuls\": 2"
             : "(no quantized_matmuls)");

  // The quantized model is llm IR: llm-fold-quant makes integer matmuls.
  Buffer foldErrors = {0};
  MlirModule quantized = llmcParseModule(
      ctx, ref(out.model.data), ref("quantized"), appendToBuffer, &foldErrors);
  if (mlirModuleIsNull(quantized) ||
      mlirLogicalResultIsFailure(llmcRunPassPipeline(
          quantized, ref("llm-fold-quant"), appendToBuffer, &foldErrors))) {
    fprintf(stderr, "fold failed: %s\n", foldErrors.data);
    return 1;
  }
  Buffer folded = {0};
  llmcModulePrint(quantized, /*generic=*/false, appendToBuffer, &folded);
  printf("after llm-fold-quant: %d llm.matmul_integer\n",
         count(folded.data, "llm.matmul_integer "));

  Outputs bad = {{0}, {0}, {0}};
  if (mlirLogicalResultIsSuccess(llmcCalibrate(module, ref(argv[2]),
                                               ref("method=kl"), onModel,
                                               onReport, onError, &bad)) ||
      bad.model.data)
    return 1;
  printFirstLine("bad option", &bad.errors);

  Outputs missing = {{0}, {0}, {0}};
  if (mlirLogicalResultIsSuccess(llmcCalibrate(module, ref("missing.npz"),
                                               ref(""), onModel, onReport,
                                               onError, &missing)))
    return 1;
  printFirstLine("missing data", &missing.errors);

  mlirModuleDestroy(quantized);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  free(text);
  printf("done\n");
  return 0;
}
