/*===-- llm-c/Passes.h - llmc passes and pipelines C API ----------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Pass registration, parsing modules, and running textual pass pipelines     *|
|* with the diagnostics returned to the caller (see llm-c/Support.h).         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_PASSES_H
#define LLM_C_PASSES_H

#include "llm-c/Support.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers with MLIR's global pass registry every upstream pass and every
/// llmc pass (llm-*, convert-llm-to-linalg, codegen passes) and pipeline
/// (llm-lower-to-cpu, ...), so that textual pipelines can name them. Safe to
/// call any number of times, from any thread; the functions below call it
/// themselves.
MLIR_CAPI_EXPORTED void llmcRegisterAllPasses(void);

/// Parses `source` (MLIR assembly; a top-level op that is not a
/// `builtin.module` is wrapped in one) in `ctx`. `sourceName` names the
/// buffer in locations (e.g. "model.mlir"; empty: "<source>"). Returns a
/// module owned by the caller (`mlirModuleDestroy`), or a null module
/// (`mlirModuleIsNull`) after passing the parse/verify errors to `onError`.
/// The dialects used must be registered in `ctx` (see llmcContextCreate).
/// Exactly `source.length` bytes are read: `source` need not be
/// NUL-terminated.
MLIR_CAPI_EXPORTED MlirModule llmcParseModule(MlirContext ctx,
                                              MlirStringRef source,
                                              MlirStringRef sourceName,
                                              MlirStringCallback onError,
                                              void *userData);

/// Runs the textual pass pipeline `pipeline` on `module`, in place.
/// `pipeline` is either anchored, `builtin.module(canonicalize,cse)`, or a
/// plain comma-separated list of passes (`llm-fold-constants,canonicalize`,
/// wrapped in `builtin.module(...)`); an empty string runs nothing. The IR is
/// verified after each pass. On an unknown pass, a malformed pipeline
/// (nothing runs) or a pass failure (the module may be partially
/// transformed) it returns failure and passes the error text to `onError`.
MLIR_CAPI_EXPORTED MlirLogicalResult
llmcRunPassPipeline(MlirModule module, MlirStringRef pipeline,
                    MlirStringCallback onError, void *userData);

/// Prints `module` in MLIR assembly (generic form when `generic`), passing
/// the text in pieces to `callback`. Large constants are printed in full.
MLIR_CAPI_EXPORTED void llmcModulePrint(MlirModule module, bool generic,
                                        MlirStringCallback callback,
                                        void *userData);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_PASSES_H
