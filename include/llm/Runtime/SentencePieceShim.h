/*===- SentencePieceShim.h - libsentencepiece behind a C interface -*- C
-*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The C interface of libllmc_sentencepiece.so (lib/Runtime/SentencePiece),
 * which wraps sentencepiece::SentencePieceProcessor (Debian's
 * libsentencepiece). llmc's tokenizer loads it with dlopen(RTLD_LOCAL |
 * RTLD_DEEPBIND) instead of linking libsentencepiece, whose bundled
 * protobuf clashes with the ONNX importer's libprotobuf in one process.
 *
 * Ids are sentencepiece's (int, 0 <= id < piece size). The functions that
 * fill a buffer write at most `cap` elements (bytes for text, no
 * terminator) and return the full count, so a caller whose buffer was too
 * small calls again with a larger one; -1 means failure.
 */

#ifndef LLM_RUNTIME_SENTENCEPIECESHIM_H
#define LLM_RUNTIME_SENTENCEPIECESHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct llmc_spm llmc_spm;

/* Loads the model file at `path`; null on failure, with sentencepiece's
 * message in `error` (NUL-terminated, at most `errorSize` bytes). */
llmc_spm *llmc_spm_load(const char *path, char *error, size_t errorSize);
void llmc_spm_free(llmc_spm *spm);

/* The vocabulary size; the BOS and EOS ids (-1 when the model has none). */
int llmc_spm_piece_size(const llmc_spm *spm);
int llmc_spm_bos_id(const llmc_spm *spm);
int llmc_spm_eos_id(const llmc_spm *spm);

/* The ids of `size` bytes of UTF-8 `text`. */
long llmc_spm_encode(const llmc_spm *spm, const char *text, size_t size,
                     int *ids, size_t cap);
/* The UTF-8 text of `n` ids; on failure -1 and the message in `out`. */
long llmc_spm_decode(const llmc_spm *spm, const int *ids, size_t n, char *out,
                     size_t cap);
/* The piece of `id` (its text, with U+2581 for spaces). */
long llmc_spm_id_to_piece(const llmc_spm *spm, int id, char *out, size_t cap);
/* The id of a piece (the unknown id when it is not in the vocabulary). */
int llmc_spm_piece_to_id(const llmc_spm *spm, const char *piece, size_t size);

/* Kinds of piece: control (BOS, EOS, ...), unknown, byte fallback
 * (<0xAB>). Nonzero when true. */
int llmc_spm_is_control(const llmc_spm *spm, int id);
int llmc_spm_is_unknown(const llmc_spm *spm, int id);
int llmc_spm_is_byte(const llmc_spm *spm, int id);

#ifdef __cplusplus
}
#endif

#endif /* LLM_RUNTIME_SENTENCEPIECESHIM_H */
