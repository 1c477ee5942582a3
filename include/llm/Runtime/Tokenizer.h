//===- Tokenizer.h - Text tokenizers for generation -------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Text <-> token ids for `llmc generate` and `llmc tokenize`.
//
// Supported files (Tokenizer::load picks by the file's name and content):
//
//  * Hugging Face `tokenizer.json` with a BPE model (`model.type == "BPE"`):
//    - byte-level BPE (GPT-2, LLaMA-3, Qwen2): a ByteLevel pre-tokenizer,
//      alone or after a Split with the GPT-2, LLaMA-3 or Qwen2 pattern
//      (recognised by its text; other Split patterns are an error), an
//      optional NFC/NFKC normalizer (ICU), and a ByteLevel decoder. Algorithm: byte-level BPE (Radford et al. 2019,
//      "Language Models are Unsupervised Multitask Learners", and OpenAI's
//      gpt-2 `encoder.py`) on top of BPE merges applied by rank (Sennrich,
//      Haddow and Birch 2016, "Neural Machine Translation of Rare Words
//      with Subword Units").
//    - sentencepiece-style BPE (LLaMA-2, Mistral): a Prepend("▁") +
//      Replace(" ", "▁") normalizer or a Metaspace pre-tokenizer, BPE over
//      Unicode characters, and `byte_fallback` to `<0xNN>` tokens for
//      characters outside the vocabulary.
//    `merges` may be "a b" strings or ["a", "b"] pairs. `added_tokens` are
//    matched in the text first (leftmost, then longest), and never split;
//    their `lstrip`/`rstrip`/`single_word`/`normalized` flags are ignored.
//  * GPT-2's `vocab.json` + `merges.txt` (OpenAI's release format): the path
//    of vocab.json with merges.txt beside it, or a directory holding both.
//    Vocabulary entries spelled `<|...|>` (`<|endoftext|>`) are special
//    tokens, as in Hugging Face's GPT2Tokenizer.
//  * a sentencepiece model (`.model`; Kudo and Richardson 2018,
//    "SentencePiece: A simple and language independent subword tokenizer and
//    detokenizer for Neural Text Processing"), through Debian's
//    libsentencepiece, when llmc was configured with
//    -DLLMC_ENABLE_SENTENCEPIECE=ON (off by default: the library's bundled
//    protobuf clashes with the ONNX importer's, see cmake/LLMCTokenizer.cmake);
//    without it loading one is an error saying so.
//  * a directory: its tokenizer.json, else vocab.json + merges.txt, else
//    tokenizer.model.
//
// Pre-tokenization follows the GPT-2 regular expression
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (and LLaMA-3's / Qwen2's variants), implemented by hand over Unicode code
// points with ICU's character properties (\p{L}: general category L*, \p{N}:
// N*, \s: White_Space), so non-ASCII letters, digits and symbols are split
// exactly as the `regex` module splits them.
//
// Every error (missing file, malformed JSON with its line and column, an
// unsupported model or pre-tokenizer, a merge naming an unknown token, an
// id outside the vocabulary) is an llvm::Error that names the file.
//
// Not thread-safe: encode() keeps a per-word cache; use one Tokenizer per
// thread.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_TOKENIZER_H
#define LLM_RUNTIME_TOKENIZER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::llm::runtime {

/// A loaded tokenizer: text to token ids and back.
class Tokenizer {
public:
  virtual ~Tokenizer();

  /// Loads the tokenizer at `path`: a tokenizer.json, a GPT-2 vocab.json
  /// (with merges.txt beside it), a sentencepiece .model, or a directory
  /// holding one of them (see the file comment). Errors name `path` (or the
  /// file inside it that failed).
  static llvm::Expected<std::unique_ptr<Tokenizer>> load(llvm::StringRef path);

  /// The ids of `text` (any bytes; invalid UTF-8 is encoded byte by byte by
  /// byte-level models). Added/special tokens written in the text are
  /// recognised; no BOS/EOS is added (see bosId()).
  virtual std::vector<int64_t> encode(llvm::StringRef text) = 0;

  /// The text of `ids`: the tokens' bytes concatenated, with the model's
  /// decoding rules (sentencepiece models drop the space their first piece
  /// starts with, and control tokens decode to nothing) and every invalid
  /// UTF-8 sequence replaced by U+FFFD. Errors for an id outside
  /// [0, vocabSize()) or naming no token.
  virtual llvm::Expected<std::string> decode(llvm::ArrayRef<int64_t> ids);

  /// The raw bytes of one token, as decode() would write them in the middle
  /// of a text (so a sentencepiece piece "▁the" is " the"). May end inside a
  /// UTF-8 sequence: use StreamDecoder to print tokens as they come.
  /// Errors as decode().
  virtual llvm::Expected<std::string> decodeToken(int64_t id) = 0;

  /// One past the largest id (ids may leave gaps below it).
  virtual int64_t vocabSize() const = 0;

  /// The end-of-text token: tokenizer_config.json's `eos_token` beside a
  /// tokenizer.json when present, else the first of <|endoftext|>, </s>,
  /// <|end_of_text|>, <|im_end|>, <|eot_id|> that the tokenizer has (the
  /// sentencepiece model's eos_id for .model files).
  std::optional<int64_t> eosId() const { return eos; }

  /// The token the model expects before a prompt, when the tokenizer file
  /// says so (tokenizer.json's TemplateProcessing post-processor, a
  /// sentencepiece model's bos_id); callers prepend it themselves.
  std::optional<int64_t> bosId() const { return bos; }

  /// The id of the token whose text is exactly `token` (an added token, or
  /// a vocabulary entry as spelled in the file), if any.
  virtual std::optional<int64_t> tokenId(llvm::StringRef token) const = 0;

  /// The file the tokenizer was loaded from.
  llvm::StringRef path() const { return filePath; }

  /// Turns a stream of ids into text that only ever holds complete UTF-8
  /// characters: push() returns what became printable (possibly nothing,
  /// when a token ends inside a character), flush() the rest at the end of
  /// the stream (an unfinished character as U+FFFD). The concatenation of
  /// the pushes and the flush equals Tokenizer::decode of all the ids.
  class StreamDecoder {
  public:
    explicit StreamDecoder(Tokenizer &tokenizer) : tokenizer(tokenizer) {}
    /// Errors as Tokenizer::decodeToken.
    llvm::Expected<std::string> push(int64_t id);
    std::string flush();

  private:
    Tokenizer &tokenizer;
    std::string pending;
    bool atStart = true;
  };

protected:
  Tokenizer() = default;
  /// Whether decode() drops the one space its text starts with (the
  /// sentencepiece convention for the dummy prefix).
  virtual bool stripsLeadingSpace() const { return false; }
  /// An error "tokenizer 'path': msg".
  llvm::Error error(const llvm::Twine &msg) const;

  std::string filePath;
  std::optional<int64_t> eos, bos;
};

/// Replaces every invalid UTF-8 sequence of `bytes` with U+FFFD (one per
/// maximal invalid subpart, as Python's `errors="replace"`). With `final`
/// false, an incomplete sequence at the end is left out and its length is
/// returned in `*tail` instead.
std::string sanitizeUTF8(llvm::StringRef bytes, bool final = true,
                         size_t *tail = nullptr);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_TOKENIZER_H
