/*===- llmc-capi-cuda-test.c - The C API on CUDA device buffers -----------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A C client of libLLMCAPI.so that compiles a model for target "cuda" and    *|
|* runs it on device buffers (llmcCompiledModelExecuteOnDevice) and on host   *|
|* buffers (llmcCompiledModelExecute). Without a GPU it runs over the fake    *|
|* driver of test/Runtime/CUDA, whose device memory is host memory and which  *|
|* runs no kernel: the trace shows which copies each call makes. Markers go   *|
|* to stderr, in order with the driver's trace.                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// clang-format off
// REQUIRES: cuda-toolkit
// RUN: env LLMC_CUDA_DRIVER_LIBRARY=%fake_cuda_driver_dir/libcuda.so.1 FAKE_CUDA_TRACE=1 llmc-capi-cuda-test 2>&1 | FileCheck %s
//
// CHECK: compile(cuda) errors: ''
// CHECK: takes device buffers: cuda 1, cpu 0
//
// On device buffers: no copy of the ids (24 bytes) or of the result (96
// bytes); the only copies are the index-check status's (32 bytes), in
// before the kernels and out after them.
// CHECK-LABEL: == device call
// CHECK-NOT:   cuMemcpyAsync({{24|96}})
// CHECK:       fake-cuda: cuMemcpyAsync(32)
// CHECK-NOT:   cuMemcpyAsync({{24|96}})
// CHECK:       fake-cuda: cuLaunchKernel
// CHECK-NOT:   cuMemcpyAsync({{24|96}})
// CHECK:       fake-cuda: cuMemcpyAsync(32)
// CHECK-NOT:   cuMemcpyAsync({{24|96}})
// CHECK-LABEL: == device call: ok
//
// On host buffers: the ids copied in, the result copied out.
// CHECK-LABEL: == host call
// CHECK:       fake-cuda: cuMemcpyAsync(24)
// CHECK:       fake-cuda: cuLaunchKernel
// CHECK:       fake-cuda: cuMemcpyAsync(96)
// CHECK-LABEL: == host call: ok
//
// The same checks as on host buffers, and no device buffers on the CPU.
// CHECK: device(bad shape) error: error: input #0: expected tensor<1x3xi64>, got shape 1x4 of i64
// CHECK: device(null) error: error: output #0: null data pointer
// CHECK: device(cpu model) error: error: device buffers need a model compiled for target cuda; this one runs on host buffers
// CHECK: failures: 0
// clang-format on

#define EXPECT_STREAM stderr
#include "Buffer.h"
#include "Expect.h"

#include "llm-c/Dialects.h"
#include "llm-c/Runtime.h"
#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An embedding lookup (with its run-time index check). */
static const char *kModel =
    "func.func @main(%ids: tensor<1x3xi64>) -> tensor<1x3x8xf32> {\n"
    "  %t = llm.constant dense<0.5> : tensor<16x8xf32>\n"
    "  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x3xi64>) -> "
    "tensor<1x3x8xf32>\n"
    "  return %0 : tensor<1x3x8xf32>\n"
    "}\n";

/* Prints the error of a call expected to fail (and resets `errors`). */
static void expectError(const char *what, MlirLogicalResult result,
                        Buffer *errors) {
  EXPECT(mlirLogicalResultIsFailure(result));
  fprintf(stderr, "%s error: %s\n", what, text(errors));
  resetBuffer(errors);
}

int main(void) {
  Buffer errors = {NULL, 0};
  MlirContext ctx = llmcContextCreate(/*threadingEnabled=*/false);
  LlmcCompiledModel cuda = llmcCompiledModelCreateFromSource(
      ctx, str(kModel), str("model.mlir"), str("cuda"), str(""), appendToBuffer,
      &errors);
  fprintf(stderr, "compile(cuda) errors: '%s'\n", text(&errors));
  resetBuffer(&errors);
  LlmcCompiledModel cpu = llmcCompiledModelCreateFromSource(
      ctx, str(kModel), str("model.mlir"), str("cpu"), str("cache=false"),
      appendToBuffer, &errors);
  if (llmcCompiledModelIsNull(cuda) || llmcCompiledModelIsNull(cpu)) {
    fprintf(stderr, "FAILED: compile: %s\n", text(&errors));
    return 1;
  }
  fprintf(stderr, "takes device buffers: cuda %d, cpu %d\n",
          (int)llmcCompiledModelTakesDeviceBuffers(cuda),
          (int)llmcCompiledModelTakesDeviceBuffers(cpu));

  /* Over the fake driver, device memory is host memory. */
  int64_t idsShape[] = {1, 3}, outShape[] = {1, 3, 8}, badShape[] = {1, 4};
  int64_t *ids = (int64_t *)calloc(4, sizeof(int64_t));
  float *out = (float *)calloc(24, sizeof(float));
  LlmcTensor input = {LLMC_ELEMENT_TYPE_I64, 2, idsShape, ids};
  LlmcTensor output = {LLMC_ELEMENT_TYPE_F32, 3, outShape, out};

  fprintf(stderr, "== device call\n");
  MlirLogicalResult result = llmcCompiledModelExecuteOnDevice(
      cuda, &input, 1, &output, 1, appendToBuffer, &errors);
  EXPECT(mlirLogicalResultIsSuccess(result));
  fprintf(stderr, "== device call: %s%s\n",
          mlirLogicalResultIsSuccess(result) ? "ok" : "failed ", text(&errors));
  resetBuffer(&errors);

  fprintf(stderr, "== host call\n");
  result = llmcCompiledModelExecute(cuda, &input, 1, &output, 1, appendToBuffer,
                                    &errors);
  EXPECT(mlirLogicalResultIsSuccess(result));
  fprintf(stderr, "== host call: %s%s\n",
          mlirLogicalResultIsSuccess(result) ? "ok" : "failed ", text(&errors));
  resetBuffer(&errors);

  LlmcTensor bad = {LLMC_ELEMENT_TYPE_I64, 2, badShape, ids};
  expectError("device(bad shape)",
              llmcCompiledModelExecuteOnDevice(cuda, &bad, 1, &output, 1,
                                               appendToBuffer, &errors),
              &errors);
  LlmcTensor null = {LLMC_ELEMENT_TYPE_F32, 3, outShape, NULL};
  expectError("device(null)",
              llmcCompiledModelExecuteOnDevice(cuda, &input, 1, &null, 1,
                                               appendToBuffer, &errors),
              &errors);
  expectError("device(cpu model)",
              llmcCompiledModelExecuteOnDevice(cpu, &input, 1, &output, 1,
                                               appendToBuffer, &errors),
              &errors);

  llmcCompiledModelDestroy(cuda);
  llmcCompiledModelDestroy(cpu);
  mlirContextDestroy(ctx);
  free(ids);
  free(out);
  resetBuffer(&errors);
  fprintf(stderr, "failures: %d\n", failures);
  return failures ? 1 : 0;
}
