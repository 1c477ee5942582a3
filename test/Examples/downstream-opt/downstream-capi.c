/*===- downstream-capi.c - A C client of the installed llmc C API ---------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Links only LLMC::LLMCAPI from the installed package: compiles the model    *|
|* file given as argv[1] and runs @main on x = [1, 2, 3], printing y.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "llm-c/Dialects.h"
#include "llm-c/Passes.h"
#include "llm-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>

static void printError(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f)
    return 2;
  static char source[1 << 16];
  size_t n = fread(source, 1, sizeof(source) - 1, f);
  fclose(f);
  source[n] = '\0';

  MlirContext ctx = llmcContextCreate(false);
  MlirModule module =
      llmcParseModule(ctx, mlirStringRefCreate(source, n),
                      mlirStringRefCreateFromCString(argv[1]), printError, 0);
  if (mlirModuleIsNull(module))
    return 1;
  LlmcCompiledModel model = llmcCompiledModelCreate(
      module, mlirStringRefCreateFromCString("cpu"),
      mlirStringRefCreateFromCString("entry=g"), printError, 0);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (llmcCompiledModelIsNull(model))
    return 1;
  float x[3] = {1, 2, 3}, y[3] = {0, 0, 0};
  int64_t shape[1] = {3};
  LlmcTensor in = {LLMC_ELEMENT_TYPE_F32, 1, shape, x};
  LlmcTensor out = {LLMC_ELEMENT_TYPE_F32, 1, shape, y};
  if (mlirLogicalResultIsFailure(
          llmcCompiledModelExecute(model, &in, 1, &out, 1, printError, 0)))
    return 1;
  printf("downstream-capi: y = [%g, %g, %g]\n", y[0], y[1], y[2]);
  llmcCompiledModelDestroy(model);
  return 0;
}
