//===- Dialects.cpp - llm dialect registration C API ----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements llm-c/Dialects.h and llm-c/Support.h.
//
//===----------------------------------------------------------------------===//

#include "llm-c/Dialects.h"
#include "llm-c/Support.h"

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/Npy.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(LLM, llm, mlir::llm::LLMDialect)

void llmcRegisterAllDialects(MlirDialectRegistry registry) {
  llm::runtime::registerRuntimeDialects(*unwrap(registry));
}

MlirContext llmcContextCreate(bool threadingEnabled) {
  DialectRegistry registry;
  llm::runtime::registerRuntimeDialects(registry);
  auto *ctx = new MLIRContext(registry, threadingEnabled
                                            ? MLIRContext::Threading::ENABLED
                                            : MLIRContext::Threading::DISABLED);
  ctx->printOpOnDiagnostic(false);
  return wrap(ctx);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

static bool isValidElementType(LlmcElementType type) {
  return type >= LLMC_ELEMENT_TYPE_F32 && type <= LLMC_ELEMENT_TYPE_I64;
}

intptr_t llmcElementTypeGetSize(LlmcElementType type) {
  if (!isValidElementType(type))
    return 0;
  return llm::runtime::getDTypeSize(static_cast<llm::runtime::DType>(type));
}

MlirStringRef llmcElementTypeGetName(LlmcElementType type) {
  if (!isValidElementType(type))
    return mlirStringRefCreateFromCString("<invalid>");
  return wrap(
      llm::runtime::getDTypeName(static_cast<llm::runtime::DType>(type)));
}

// The C enumeration mirrors llm::runtime::DType value for value.
static_assert(
    LLMC_ELEMENT_TYPE_F32 == static_cast<int>(llm::runtime::DType::F32) &&
        LLMC_ELEMENT_TYPE_F64 == static_cast<int>(llm::runtime::DType::F64) &&
        LLMC_ELEMENT_TYPE_F16 == static_cast<int>(llm::runtime::DType::F16) &&
        LLMC_ELEMENT_TYPE_BF16 == static_cast<int>(llm::runtime::DType::BF16) &&
        LLMC_ELEMENT_TYPE_I1 == static_cast<int>(llm::runtime::DType::I1) &&
        LLMC_ELEMENT_TYPE_I8 == static_cast<int>(llm::runtime::DType::I8) &&
        LLMC_ELEMENT_TYPE_I32 == static_cast<int>(llm::runtime::DType::I32) &&
        LLMC_ELEMENT_TYPE_I64 == static_cast<int>(llm::runtime::DType::I64),
    "LlmcElementType must match llm::runtime::DType");
