//===- SentencePieceShim.cpp - libsentencepiece behind a C interface ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libllmc_sentencepiece.so: the few sentencepiece::SentencePieceProcessor
// calls llmc's tokenizer needs, as C functions (SentencePieceShim.h).
// Debian's libsentencepiece.so.0 carries its own copy of protobuf-lite and
// exports its symbols; linked into a process that also loads libprotobuf
// (the ONNX importer) the two interpose and the process crashes in
// protobuf's static initialisers. llmc therefore never links it: the
// tokenizer dlopen()s this library with RTLD_LOCAL | RTLD_DEEPBIND at the
// first sentencepiece model, so that sentencepiece and its protobuf bind
// to their own symbols first.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/SentencePieceShim.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct llmc_spm {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {
/// Copies `s` into `out` (at most `cap` bytes, no terminator); returns its
/// length.
long copyOut(const std::string &s, char *out, size_t cap) {
  if (out && cap)
    std::memcpy(out, s.data(), std::min(cap, s.size()));
  return static_cast<long>(s.size());
}
} // namespace

extern "C" {

llmc_spm *llmc_spm_load(const char *path, char *error, size_t errorSize) {
  auto *spm = new (std::nothrow) llmc_spm;
  if (!spm) {
    if (error && errorSize)
      std::snprintf(error, errorSize, "out of memory");
    return nullptr;
  }
  auto status = spm->processor.Load(path);
  if (!status.ok()) {
    if (error && errorSize)
      std::snprintf(error, errorSize, "%s", status.ToString().c_str());
    delete spm;
    return nullptr;
  }
  return spm;
}

void llmc_spm_free(llmc_spm *spm) { delete spm; }

int llmc_spm_piece_size(const llmc_spm *spm) {
  return spm->processor.GetPieceSize();
}

int llmc_spm_bos_id(const llmc_spm *spm) { return spm->processor.bos_id(); }

int llmc_spm_eos_id(const llmc_spm *spm) { return spm->processor.eos_id(); }

long llmc_spm_encode(const llmc_spm *spm, const char *text, size_t size,
                     int *ids, size_t cap) {
  std::vector<int> v;
  if (!spm->processor.Encode(absl::string_view(text, size), &v).ok())
    return -1;
  if (ids)
    std::copy_n(v.begin(), std::min(cap, v.size()), ids);
  return static_cast<long>(v.size());
}

long llmc_spm_decode(const llmc_spm *spm, const int *ids, size_t n, char *out,
                     size_t cap) {
  std::string text;
  auto status = spm->processor.Decode(std::vector<int>(ids, ids + n), &text);
  if (!status.ok()) {
    copyOut(status.ToString(), out, cap);
    return -1;
  }
  return copyOut(text, out, cap);
}

long llmc_spm_id_to_piece(const llmc_spm *spm, int id, char *out, size_t cap) {
  return copyOut(spm->processor.IdToPiece(id), out, cap);
}

int llmc_spm_piece_to_id(const llmc_spm *spm, const char *piece, size_t size) {
  return spm->processor.PieceToId(absl::string_view(piece, size));
}

int llmc_spm_is_control(const llmc_spm *spm, int id) {
  return spm->processor.IsControl(id);
}

int llmc_spm_is_unknown(const llmc_spm *spm, int id) {
  return spm->processor.IsUnknown(id);
}

int llmc_spm_is_byte(const llmc_spm *spm, int id) {
  return spm->processor.IsByte(id);
}

} // extern "C"
