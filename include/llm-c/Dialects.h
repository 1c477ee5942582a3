/*===-- llm-c/Dialects.h - llm dialect registration C API ---------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Registration of the `llm` dialect (alone, through the standard dialect     *|
|* handle) and of everything an llmc module may contain.                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_DIALECTS_H
#define LLM_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The `llm` dialect handle: `mlirGetDialectHandle__llm__()`. Use it with
/// `mlirDialectHandleRegisterDialect(handle, ctx)` (register the llm dialect
/// in a context), `mlirDialectHandleLoadDialect` or
/// `mlirDialectHandleInsertDialect(handle, registry)`. This registers only the
/// `llm` dialect: the IR that llmc imports also uses func, arith and tensor,
/// which `llmcRegisterAllDialects` adds.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(LLM, llm);

/// Inserts into `registry` the `llm` dialect, every upstream MLIR dialect
/// and extension, and the translations to LLVM IR (builtin, LLVM, OpenMP,
/// ...): everything `llmcParseModule`, the llmc pipelines and
/// `llmcCompiledModelCreate` need. `registry` stays owned by the caller.
MLIR_CAPI_EXPORTED void llmcRegisterAllDialects(MlirDialectRegistry registry);

/// Creates a context with `llmcRegisterAllDialects`'s registry appended (the
/// dialects load lazily). The caller owns it (`mlirContextDestroy`).
/// `threadingEnabled` is passed to the MLIR context (multithreaded pass
/// execution). As in `llmc`, a diagnostic on an operation does not print
/// the operation (MLIRContext::printOpOnDiagnostic(false)): the location
/// says where it is, and the note could hold a whole function or module.
MLIR_CAPI_EXPORTED MlirContext llmcContextCreate(bool threadingEnabled);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_DIALECTS_H
