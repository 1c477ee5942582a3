/*===-- llm-c/ImportONNX.h - ONNX importer C API ------------------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Imports an ONNX model (ONNX 1.12, opsets 13-17) into an llm-dialect module *|
|* with one `func.func @main` (see llm/Target/ONNX/ImportONNX.h for what is   *|
|* imported and how). Errors never abort: see llm-c/Support.h.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_IMPORTONNX_H
#define LLM_C_IMPORTONNX_H

#include "llm-c/Support.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// True when this library was built with the ONNX importer (Debian's
/// libonnx-dev was found); otherwise the import functions always fail with
/// an error saying so.
MLIR_CAPI_EXPORTED bool llmcHasONNXImporter(void);

/// Imports the ONNX model in the file at `path` into `ctx` (which must have
/// the dialects of `llmcRegisterAllDialects`; llmcContextCreate's have).
/// `dims` gives values for symbolic dimensions, "NAME=VALUE[,NAME=VALUE...]"
/// where NAME is a dim_param name or INPUT:INDEX (empty: none); an entry
/// "NAME<=N" keeps that dimension dynamic with bound N instead. A symbolic
/// dimension without a value stays dynamic (the sequence length, bounded by
/// "<=N" or by the model's position table; docs/llmc.md). External
/// tensor data is read relative to the model's directory. Graph inputs and
/// outputs keep their ONNX names as `llm.name` attributes. Returns a module
/// owned by the caller, or a null module after passing the error (missing or
/// unreadable file, corrupt protobuf, unsupported op/opset/type, a symbolic
/// dimension that cannot stay dynamic, malformed `dims`) to `onError`.
MLIR_CAPI_EXPORTED MlirModule llmcImportONNXFile(MlirContext ctx,
                                                 MlirStringRef path,
                                                 MlirStringRef dims,
                                                 MlirStringCallback onError,
                                                 void *userData);

/// Like llmcImportONNXFile for a serialized ModelProto held in memory
/// (`bytes`, not NUL-terminated; read during the call only). `name` names
/// the model in diagnostics; external data is looked up in the current
/// directory.
MLIR_CAPI_EXPORTED MlirModule llmcImportONNXBuffer(
    MlirContext ctx, MlirStringRef bytes, MlirStringRef name,
    MlirStringRef dims, MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_IMPORTONNX_H
