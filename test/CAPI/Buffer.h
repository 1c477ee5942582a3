/*===- Buffer.h - A growable string for the C API tests ----------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The string that the tests' MlirStringCallbacks append to (errors, model   *|
|* text, reports), shared by the C API test programs.                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLMC_TEST_CAPI_BUFFER_H
#define LLMC_TEST_CAPI_BUFFER_H

#include "mlir-c/Support.h"

#include <stdlib.h>
#include <string.h>

/* A growable, NUL-terminated string (data is NULL while empty). */
typedef struct {
  char *data;
  size_t size;
} Buffer;

/* MlirStringCallback: appends `piece` to the Buffer `userData` (drops it if
   memory runs out). */
static inline void appendToBuffer(MlirStringRef piece, void *userData) {
  Buffer *b = (Buffer *)userData;
  char *grown = (char *)realloc(b->data, b->size + piece.length + 1);
  if (!grown)
    return;
  b->data = grown;
  memcpy(b->data + b->size, piece.data, piece.length);
  b->size += piece.length;
  b->data[b->size] = '\0';
}

/* Frees the text; the buffer is empty again. */
static inline void resetBuffer(Buffer *b) {
  free(b->data);
  b->data = NULL;
  b->size = 0;
}

/* `s` (NUL-terminated) as an MlirStringRef. */
static inline MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/* The text ("" while empty). */
static inline const char *text(const Buffer *b) {
  return b->data ? b->data : "";
}

#endif // LLMC_TEST_CAPI_BUFFER_H
