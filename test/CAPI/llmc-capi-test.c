/*===- llmc-capi-test.c - Tests of the llmc C API -------------------------===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A C client of libLLMCAPI.so: registers the dialect, parses a module, runs  *|
|* a pipeline, compiles and executes it on its own buffers (checked against a *|
|* reference computed here in double), and exercises the error paths (each  *|
|* error comes back as text; nothing aborts). Usage:                          *|
|*   llmc-capi-test SCRATCH_DIR                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// clang-format off
// RUN: rm -rf %t && mkdir -p %t
// RUN: llmc-capi-test %t | FileCheck %s

// The dialect handle, then llm-fold-constants + canonicalize (a * b folded):
// CHECK: handle: loaded dialect 'llm'
// CHECK-LABEL: after pipeline:
// CHECK: func.func @main(%arg0: tensor<2x3xf32> {llm.name = "x"}, %arg1: tensor<3x4xf32>) -> (tensor<2x4xf32> {llm.name = "y"})
// CHECK-NEXT: %[[BIAS:.+]] = llm.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-NOT: llm.mul
// CHECK: %[[H:.+]] = llm.matmul %arg0, %arg1
// CHECK: llm.add %[[H]], %[[BIAS]]
//
// Compile and execute (names from llm.name, else argK/outK):
// CHECK: compile errors: ''
// CHECK-NEXT: entry @main
// CHECK-NEXT: input 0 'x': 2x3 f32
// CHECK-NEXT: input 1 'arg1': 3x4 f32
// CHECK-NEXT: output 0 'y': 2x4 f32
// CHECK-NEXT: opt: y[0][0]=0.937500 y[1][3]=1.687500 max|diff|=<=1e-5
//
// The compile cache: the same module and options hit the second time.
// CHECK-NEXT: cache: miss, then hit; cache=false: off; errors: ''
// CHECK-NEXT: cached: y[0][0]=0.937500 y[1][3]=1.687500 max|diff|=<=1e-5
//
// CHECK-NEXT: compile(gpu, '') error: error: unknown target 'gpu'; supported: cpu, cuda, cuda-emulator or a CPU target ({{.*}})
// CHECK-NEXT: compile(cpu, 'opt-level=7') error: error: invalid option 'opt-level=7': opt-level must be 0, 1, 2 or 3
// CHECK-NEXT: compile(cpu, 'vectorize=maybe') error: model.mlir:1:1: error: invalid pipeline options 'vectorize=maybe'
// CHECK-NEXT: compile(cpu, 'no-such-option=1') error: model.mlir:1:1: error: invalid pipeline options 'no-such-option=1': {{.*}}no such option no-such-option
// CHECK-NEXT: compile(cpu, 'entry=nope') error: model.mlir:1:1: error: entry function @nope not found (public functions: @main)
// CHECK-NEXT: compile(cpu, 'threads') error: error: invalid option 'threads': expected KEY=VALUE
// A pipeline option of llm-lower-to-cpu, checked by its pass:
// CHECK-NEXT: compile(cpu, 'sparsify=bsr3') error: model.mlir:0:0: error: llm-sparsify-weights: unknown format 'bsr3' (auto, dense, 2:4, bsr4x4, bsr16x16, bsr1x4, bsr1x16, csr)
//
// CHECK-NEXT: execute(bad shape) error: error: input #0: expected tensor<2x3xf32>, got shape 3x2 of f32
// CHECK-NEXT: execute(1 input) error: error: @main takes 2 inputs and 1 outputs, got 1 and 1
// CHECK-NEXT: execute(i32) error: error: input #0: expected tensor<2x3xf32>, got shape 2x4 of i32
//
// CHECK-NEXT: parse(syntax) error: bad.mlir:1:30: error: expected ')'
// CHECK-NEXT: parse(verify) error: verify.mlir:2:8: error: 'llm.add' operand shapes 2 and 3 do not broadcast
// CHECK: parse(slice): ok{{ *$}}
//
// CHECK: pipeline(unknown) error: error: invalid pass pipeline 'llm-no-such-pass': {{.*}}'llm-no-such-pass' does not refer to a registered pass or pass pipeline
// CHECK: pipeline(malformed) error: error: invalid pass pipeline 'builtin.module(canonicalize'
// CHECK-NEXT: pipeline(option) error: error: invalid pass pipeline 'canonicalize{max-iterations=x}': failed to add `canonicalize` with options `max-iterations=x`
//
// CHECK-NEXT: onnx(missing) error: error: cannot open ONNX model '/nonexistent/model.onnx': no such file
// CHECK-NEXT: onnx(corrupt) error: {{.*}}corrupt.onnx:0:0: error: cannot parse '{{.*}}corrupt.onnx' as an ONNX model
// CHECK-NEXT: onnx(dims) error: error: invalid dimension values 'batch'
//
// The models outlive their module and context; the reference lowering
// computes the same numbers:
// CHECK-NEXT: opt after context destroyed: y[0][0]=0.937500 y[1][3]=1.687500 max|diff|=<=1e-5
// CHECK-NEXT: no-opt: y[0][0]=0.937500 y[1][3]=1.687500 max|diff|=<=1e-5
// CHECK-NEXT: 0 failures
// clang-format on

#include "Buffer.h"
#include "Expect.h"

#include "llm-c/Dialects.h"
#include "llm-c/ImportONNX.h"
#include "llm-c/Passes.h"
#include "llm-c/Runtime.h"
#include "mlir-c/IR.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y = x @ w + a * b, with a * b folded by llm-fold-constants. */
static const char *kModel =
    "func.func @main(%x: tensor<2x3xf32> {llm.name = \"x\"},\n"
    "                %w: tensor<3x4xf32>) -> (tensor<2x4xf32> {llm.name = "
    "\"y\"}) {\n"
    "  %a = llm.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
    "  %b = llm.constant dense<0.5> : tensor<4xf32>\n"
    "  %bias = llm.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> "
    "tensor<4xf32>\n"
    "  %h = llm.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> "
    "tensor<2x4xf32>\n"
    "  %y = llm.add %h, %bias : (tensor<2x4xf32>, tensor<4xf32>) -> "
    "tensor<2x4xf32>\n"
    "  return %y : tensor<2x4xf32>\n"
    "}\n";

static void printShape(const int64_t *shape, intptr_t rank) {
  for (intptr_t i = 0; i < rank; ++i)
    printf("%s%lld", i ? "x" : "", (long long)shape[i]);
}

static void printSignature(LlmcCompiledModel model) {
  MlirStringRef entry = llmcCompiledModelGetEntryName(model);
  printf("entry @%.*s\n", (int)entry.length, entry.data);
  for (intptr_t i = 0; i < llmcCompiledModelGetNumInputs(model); ++i) {
    MlirStringRef name = llmcCompiledModelGetInputName(model, i);
    MlirStringRef type =
        llmcElementTypeGetName(llmcCompiledModelGetInputElementType(model, i));
    printf("input %ld '%.*s': ", (long)i, (int)name.length, name.data);
    printShape(llmcCompiledModelGetInputShape(model, i),
               llmcCompiledModelGetInputRank(model, i));
    printf(" %.*s\n", (int)type.length, type.data);
  }
  for (intptr_t i = 0; i < llmcCompiledModelGetNumOutputs(model); ++i) {
    MlirStringRef name = llmcCompiledModelGetOutputName(model, i);
    MlirStringRef type =
        llmcElementTypeGetName(llmcCompiledModelGetOutputElementType(model, i));
    printf("output %ld '%.*s': ", (long)i, (int)name.length, name.data);
    printShape(llmcCompiledModelGetOutputShape(model, i),
               llmcCompiledModelGetOutputRank(model, i));
    printf(" %.*s\n", (int)type.length, type.data);
  }
}

/* Runs `model` on fixed inputs and compares with a double reference. */
static void executeAndCheck(LlmcCompiledModel model, const char *label) {
  float x[6], w[12], y[8];
  for (int i = 0; i < 6; ++i)
    x[i] = 0.25f * (float)i - 0.5f;
  for (int i = 0; i < 12; ++i)
    w[i] = 0.125f * (float)((i * 7) % 12) - 0.75f;
  for (int i = 0; i < 8; ++i)
    y[i] = -1000.0f; /* must be overwritten */
  int64_t xShape[2] = {2, 3}, wShape[2] = {3, 4}, yShape[2] = {2, 4};
  LlmcTensor inputs[2] = {{LLMC_ELEMENT_TYPE_F32, 2, xShape, x},
                          {LLMC_ELEMENT_TYPE_F32, 2, wShape, w}};
  LlmcTensor outputs[1] = {{LLMC_ELEMENT_TYPE_F32, 2, yShape, y}};
  Buffer errors = {NULL, 0};
  MlirLogicalResult r = llmcCompiledModelExecute(model, inputs, 2, outputs, 1,
                                                 appendToBuffer, &errors);
  EXPECT(mlirLogicalResultIsSuccess(r));
  EXPECT(errors.size == 0);
  double maxDiff = 0.0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      double ref = 0.5 * (j + 1);
      for (int k = 0; k < 3; ++k)
        ref += (double)x[i * 3 + k] * (double)w[k * 4 + j];
      double diff = fabs(ref - (double)y[i * 4 + j]);
      if (diff > maxDiff)
        maxDiff = diff;
    }
  }
  printf("%s: y[0][0]=%.6f y[1][3]=%.6f max|diff|=%s\n", label, y[0], y[7],
         maxDiff <= 1e-5 ? "<=1e-5" : "TOO LARGE");
  resetBuffer(&errors);
}

/* Compiles with `options`, expecting failure; prints the error text. */
static void expectCompileError(MlirModule module, const char *target,
                               const char *options) {
  Buffer errors = {NULL, 0};
  LlmcCompiledModel m = llmcCompiledModelCreate(
      module, str(target), str(options), appendToBuffer, &errors);
  EXPECT(llmcCompiledModelIsNull(m));
  printf("compile(%s, '%s') error: %s", target, options, text(&errors));
  llmcCompiledModelDestroy(m);
  resetBuffer(&errors);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: llmc-capi-test SCRATCH_DIR\n");
    return 2;
  }
  const char *scratch = argv[1];
  Buffer out = {NULL, 0}, errors = {NULL, 0};

  /* The dialect handle registers llm in a plain upstream context. */
  {
    MlirContext ctx = mlirContextCreate();
    mlirDialectHandleRegisterDialect(mlirGetDialectHandle__llm__(), ctx);
    MlirDialect llm = mlirContextGetOrLoadDialect(ctx, str("llm"));
    MlirStringRef ns = mlirDialectGetNamespace(llm);
    printf("handle: loaded dialect '%.*s'\n", (int)ns.length, ns.data);
    EXPECT(!mlirDialectIsNull(llm));
    mlirContextDestroy(ctx);
  }

  llmcRegisterAllPasses();
  llmcRegisterAllPasses(); /* idempotent */
  MlirContext ctx = llmcContextCreate(/*threadingEnabled=*/false);

  /* Parse, run a pipeline, print. */
  MlirModule module = llmcParseModule(ctx, str(kModel), str("model.mlir"),
                                      appendToBuffer, &errors);
  EXPECT(!mlirModuleIsNull(module));
  EXPECT(errors.size == 0);
  MlirLogicalResult r = llmcRunPassPipeline(
      module, str("llm-fold-constants,canonicalize"), appendToBuffer, &errors);
  EXPECT(mlirLogicalResultIsSuccess(r));
  llmcModulePrint(module, /*generic=*/false, appendToBuffer, &out);
  printf("after pipeline:\n%s", text(&out));
  resetBuffer(&out);

  /* Compile for the CPU; the module itself is not changed. */
  LlmcCompiledModel model =
      llmcCompiledModelCreate(module, str("cpu"), str("threads=1 opt-level=2"),
                              appendToBuffer, &errors);
  EXPECT(!llmcCompiledModelIsNull(model));
  printf("compile errors: '%s'\n", text(&errors));
  llmcModulePrint(module, /*generic=*/false, appendToBuffer, &out);
  EXPECT(strstr(text(&out), "llm.matmul") != NULL);
  resetBuffer(&out);
  printSignature(model);
  executeAndCheck(model, "opt");

  LlmcCompiledModel reference = llmcCompiledModelCreate(
      module, str("cpu"), str("no-opt=true"), appendToBuffer, &errors);
  EXPECT(!llmcCompiledModelIsNull(reference));

  /* The compile cache (lit turns it off with LLMC_CACHE=off; on here, in the
     scratch directory): keyed by the module's bytecode and the options. */
  {
    char cacheOptions[4200], noCacheOptions[4200];
    snprintf(cacheOptions, sizeof(cacheOptions),
             "threads=1 opt-level=2 cache-dir=%s/cache", scratch);
    snprintf(noCacheOptions, sizeof(noCacheOptions), "%s cache=false",
             cacheOptions);
    setenv("LLMC_CACHE", "on", 1);
    LlmcCompiledModel first = llmcCompiledModelCreate(
        module, str("cpu"), str(cacheOptions), appendToBuffer, &errors);
    LlmcCompiledModel second = llmcCompiledModelCreate(
        module, str("cpu"), str(cacheOptions), appendToBuffer, &errors);
    LlmcCompiledModel third = llmcCompiledModelCreate(
        module, str("cpu"), str(noCacheOptions), appendToBuffer, &errors);
    setenv("LLMC_CACHE", "off", 1);
    EXPECT(!llmcCompiledModelIsNull(first) &&
           !llmcCompiledModelIsNull(second) &&
           !llmcCompiledModelIsNull(third));
    if (!llmcCompiledModelIsNull(first) && !llmcCompiledModelIsNull(second) &&
        !llmcCompiledModelIsNull(third)) {
      MlirStringRef s1 = llmcCompiledModelGetCacheStatus(first);
      MlirStringRef s2 = llmcCompiledModelGetCacheStatus(second);
      MlirStringRef s3 = llmcCompiledModelGetCacheStatus(third);
      printf("cache: %.*s, then %.*s; cache=false: %.*s; errors: '%s'\n",
             (int)s1.length, s1.data, (int)s2.length, s2.data,
             (int)s3.length, s3.data, text(&errors));
      executeAndCheck(second, "cached");
    }
    llmcCompiledModelDestroy(first);
    llmcCompiledModelDestroy(second);
    llmcCompiledModelDestroy(third);
    resetBuffer(&errors);
  }

  /* Error paths of compilation. */
  expectCompileError(module, "gpu", "");
  expectCompileError(module, "cpu", "opt-level=7");
  expectCompileError(module, "cpu", "vectorize=maybe");
  expectCompileError(module, "cpu", "no-such-option=1");
  expectCompileError(module, "cpu", "entry=nope");
  expectCompileError(module, "cpu", "threads");
  expectCompileError(module, "cpu", "sparsify=bsr3");

  /* Error paths of execution: nothing runs, the error names the operand. */
  {
    float x[6] = {0}, y[8] = {0};
    int64_t badShape[2] = {3, 2}, yShape[2] = {2, 4};
    LlmcTensor inputs[2] = {{LLMC_ELEMENT_TYPE_F32, 2, badShape, x},
                            {LLMC_ELEMENT_TYPE_F32, 2, badShape, x}};
    LlmcTensor outputs[1] = {{LLMC_ELEMENT_TYPE_F32, 2, yShape, y}};
    r = llmcCompiledModelExecute(model, inputs, 2, outputs, 1, appendToBuffer,
                                 &errors);
    EXPECT(mlirLogicalResultIsFailure(r));
    printf("execute(bad shape) error: %s", text(&errors));
    resetBuffer(&errors);
    r = llmcCompiledModelExecute(model, inputs, 1, outputs, 1, appendToBuffer,
                                 &errors);
    EXPECT(mlirLogicalResultIsFailure(r));
    printf("execute(1 input) error: %s", text(&errors));
    resetBuffer(&errors);
    inputs[0].elementType = LLMC_ELEMENT_TYPE_I32;
    inputs[0].shape = yShape;
    r = llmcCompiledModelExecute(model, inputs, 2, outputs, 1, appendToBuffer,
                                 &errors);
    EXPECT(mlirLogicalResultIsFailure(r));
    printf("execute(i32) error: %s", text(&errors));
    resetBuffer(&errors);
  }

  /* Bad IR: a syntax error and a verifier error, located in the source. */
  MlirModule bad = llmcParseModule(ctx, str("func.func @f(%x: tensor<2xf32>"),
                                   str("bad.mlir"), appendToBuffer, &errors);
  EXPECT(mlirModuleIsNull(bad));
  printf("parse(syntax) error: %s", text(&errors));
  resetBuffer(&errors);
  bad = llmcParseModule(
      ctx,
      str("func.func @f(%x: tensor<2xf32>, %y: tensor<3xf32>) -> "
          "tensor<2xf32> {\n"
          "  %z = llm.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> "
          "tensor<2xf32>\n"
          "  return %z : tensor<2xf32>\n}\n"),
      str("verify.mlir"), appendToBuffer, &errors);
  EXPECT(mlirModuleIsNull(bad));
  printf("parse(verify) error: %s", text(&errors));
  resetBuffer(&errors);

  /* Exactly `length` bytes are parsed (the source needs no trailing NUL):
     a valid module followed by bytes outside the string ref parses. */
  {
    static const char kSlice[] = "module {\n}\n@@@ not part of the source";
    MlirModule sliced = llmcParseModule(
        ctx, mlirStringRefCreate(kSlice, sizeof("module {\n}\n") - 1),
        str("slice.mlir"), appendToBuffer, &errors);
    printf("parse(slice): %s%s\n", mlirModuleIsNull(sliced) ? "null " : "ok ",
           text(&errors));
    EXPECT(!mlirModuleIsNull(sliced));
    if (!mlirModuleIsNull(sliced))
      mlirModuleDestroy(sliced);
    resetBuffer(&errors);
  }

  /* Bad pipelines: unknown pass, malformed text; the module is unchanged. */
  r = llmcRunPassPipeline(module, str("llm-no-such-pass"), appendToBuffer,
                          &errors);
  EXPECT(mlirLogicalResultIsFailure(r));
  printf("pipeline(unknown) error: %s", text(&errors));
  resetBuffer(&errors);
  r = llmcRunPassPipeline(module, str("builtin.module(canonicalize"),
                          appendToBuffer, &errors);
  EXPECT(mlirLogicalResultIsFailure(r));
  printf("pipeline(malformed) error: %s", text(&errors));
  resetBuffer(&errors);
  r = llmcRunPassPipeline(module, str("canonicalize{max-iterations=x}"),
                          appendToBuffer, &errors);
  EXPECT(mlirLogicalResultIsFailure(r));
  printf("pipeline(option) error: %s", text(&errors));
  resetBuffer(&errors);

  /* Bad ONNX inputs: a missing file, a corrupt file, a bad dims spec. */
  MlirModule onnx = llmcImportONNXFile(ctx, str("/nonexistent/model.onnx"),
                                       str(""), appendToBuffer, &errors);
  EXPECT(mlirModuleIsNull(onnx));
  printf("onnx(missing) error: %s", text(&errors));
  resetBuffer(&errors);
  char corruptPath[4096];
  snprintf(corruptPath, sizeof(corruptPath), "%s/corrupt.onnx", scratch);
  FILE *f = fopen(corruptPath, "wb");
  EXPECT(f != NULL);
  if (f) {
    fputs("\x0a\xff\xff\xff\xff this is not a protobuf", f);
    fclose(f);
  }
  onnx = llmcImportONNXFile(ctx, str(corruptPath), str(""), appendToBuffer,
                            &errors);
  EXPECT(mlirModuleIsNull(onnx));
  printf("onnx(corrupt) error: %s", text(&errors));
  resetBuffer(&errors);
  onnx = llmcImportONNXBuffer(ctx, str("garbage"), str("buffer.onnx"),
                              str("batch"), appendToBuffer, &errors);
  EXPECT(mlirModuleIsNull(onnx));
  printf("onnx(dims) error: %s", text(&errors));
  resetBuffer(&errors);

  /* The compiled models outlive their module and context. */
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  executeAndCheck(model, "opt after context destroyed");
  executeAndCheck(reference, "no-opt");
  llmcCompiledModelDestroy(model);
  llmcCompiledModelDestroy(reference);

  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
