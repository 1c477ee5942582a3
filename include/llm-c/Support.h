/*===-- llm-c/Support.h - llmc C API conventions ------------------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Conventions shared by every llmc C API header.                             *|
|*                                                                            *|
|* Errors. No llmc C API function aborts, throws or prints on bad input.      *|
|* Every function that can fail takes a trailing                              *|
|*   (MlirStringCallback onError, void *userData)                             *|
|* pair. On failure it calls `onError` one or more times with pieces of the   *|
|* error text (concatenate them; the pieces are not NUL-terminated and are    *|
|* valid only during the call) and reports the failure through its return     *|
|* value (a null handle or a failed MlirLogicalResult). The text holds one    *|
|* line per diagnostic, `LOCATION: error: MESSAGE` (notes follow as           *|
|* `LOCATION: note: MESSAGE`), each line ending in '\n'. `onError` may be     *|
|* NULL, which drops the text. On success `onError` is not called, except     *|
|* that warnings emitted while succeeding are passed the same way             *|
|* (`LOCATION: warning: MESSAGE`).                                            *|
|*                                                                            *|
|* Ownership. Handles returned by `...Create...`/`...Parse...`/`...Import...` *|
|* functions are owned by the caller and must be destroyed with the matching  *|
|* `...Destroy` function (`mlirModuleDestroy` for modules). Borrowed values   *|
|* (names, shapes) stay valid as long as the object they came from.           *|
|*                                                                            *|
|* Threads. Diagnostics are captured per context: calls that use the same     *|
|* context (parsing, importing, running pipelines, compiling) must not run    *|
|* concurrently. Distinct compiled models may execute concurrently; calls on  *|
|* one model must not overlap.                                                *|
|*                                                                            *|
|* The upstream MLIR C API (mlir-c/IR.h, mlir-c/Pass.h, ...) is exported by   *|
|* the same library (libLLMCAPI.so), so a C program links only LLMCAPI.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLM_C_SUPPORT_H
#define LLM_C_SUPPORT_H

#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Element types of the tensors a compiled model takes and returns. The data
/// of a tensor is a dense row-major array of elements of this type:
///   F32/F64: IEEE binary32/binary64; F16: IEEE binary16; BF16: bfloat16
///   (the upper 16 bits of a binary32); I1: one byte per element, 0 or 1;
///   I8/I32/I64: two's-complement signed integers; all little-endian.
typedef enum LlmcElementType {
  LLMC_ELEMENT_TYPE_F32 = 0,
  LLMC_ELEMENT_TYPE_F64 = 1,
  LLMC_ELEMENT_TYPE_F16 = 2,
  LLMC_ELEMENT_TYPE_BF16 = 3,
  LLMC_ELEMENT_TYPE_I1 = 4,
  LLMC_ELEMENT_TYPE_I8 = 5,
  LLMC_ELEMENT_TYPE_I32 = 6,
  LLMC_ELEMENT_TYPE_I64 = 7,
} LlmcElementType;

/// Size in bytes of one element of `type` (1 for I1); 0 for a value outside
/// the enumeration.
MLIR_CAPI_EXPORTED intptr_t llmcElementTypeGetSize(LlmcElementType type);

/// The MLIR spelling of `type` ("f32", "bf16", "i1", ...), a static string;
/// "<invalid>" for a value outside the enumeration.
MLIR_CAPI_EXPORTED MlirStringRef llmcElementTypeGetName(LlmcElementType type);

#ifdef __cplusplus
}
#endif

#endif // LLM_C_SUPPORT_H
