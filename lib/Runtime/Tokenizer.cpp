//===- Tokenizer.cpp - Text tokenizers for generation ---------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the tokenizers of llm/Runtime/Tokenizer.h: BPE with
// merges applied by rank (Sennrich et al. 2016) in its byte-level form
// (Radford et al. 2019; OpenAI's gpt-2 encoder.py) and its sentencepiece-
// style form (Unicode characters, `▁` for spaces, `<0xNN>` byte fallback),
// read from Hugging Face tokenizer.json or GPT-2's vocab.json + merges.txt;
// and sentencepiece models through libsentencepiece when available.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Tokenizer.h"
#include "llm/Support/JSON.h"
#include "llm/Support/LibraryPaths.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>

#if LLMC_HAVE_SENTENCEPIECE
#include "llm/Runtime/SentencePieceShim.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#endif

#include <algorithm>
#include <array>
#include <limits>

using namespace mlir::llm::runtime;
using llvm::StringRef;

Tokenizer::~Tokenizer() = default;

llvm::Error Tokenizer::error(const llvm::Twine &msg) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tokenizer '" + filePath + "': " + msg);
}

static llvm::Error fileError(StringRef path, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tokenizer '" + path + "': " + msg);
}

//===----------------------------------------------------------------------===//
// UTF-8
//===----------------------------------------------------------------------===//

/// Decodes the UTF-8 sequence at `s[i]`: its code point and length, or -1
/// and the length of the maximal invalid subpart (at least 1), or -2 when
/// `s` ends inside a sequence that could still be completed.
static std::pair<int32_t, size_t> decodeUTF8(StringRef s, size_t i) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(i);
  if (c < 0x80)
    return {c, 1};
  size_t len;
  int32_t cp;
  uint8_t lo = 0x80, hi = 0xBF; // the valid range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
    if (c == 0xE0)
      lo = 0xA0; // no overlong forms
    if (c == 0xED)
      hi = 0x9F; // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F; // <= U+10FFFF
  } else {
    return {-1, 1};
  }
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= s.size())
      return {-2, k};
    uint8_t d = b(i + k);
    if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF))
      return {-1, k};
    cp = (cp << 6) | (d & 0x3F);
  }
  return {cp, len};
}

static void appendUTF8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

static const char kReplacement[] = "\xEF\xBF\xBD"; // U+FFFD

std::string mlir::llm::runtime::sanitizeUTF8(StringRef bytes, bool final,
                                             size_t *tail) {
  std::string out;
  out.reserve(bytes.size());
  if (tail)
    *tail = 0;
  for (size_t i = 0; i < bytes.size();) {
    auto [cp, len] = decodeUTF8(bytes, i);
    if (cp >= 0) {
      out.append(bytes.data() + i, len);
    } else if (cp == -2 && !final) {
      if (tail)
        *tail = bytes.size() - i;
      break;
    } else {
      out += kReplacement;
    }
    i += len;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Decoding (shared)
//===----------------------------------------------------------------------===//

llvm::Expected<std::string> Tokenizer::decode(llvm::ArrayRef<int64_t> ids) {
  StreamDecoder stream(*this);
  std::string out;
  for (int64_t id : ids) {
    llvm::Expected<std::string> text = stream.push(id);
    if (!text)
      return text.takeError();
    out += *text;
  }
  out += stream.flush();
  return out;
}

llvm::Expected<std::string> Tokenizer::StreamDecoder::push(int64_t id) {
  llvm::Expected<std::string> bytes = tokenizer.decodeToken(id);
  if (!bytes)
    return bytes.takeError();
  StringRef piece = *bytes;
  if (atStart && !piece.empty()) {
    atStart = false;
    if (tokenizer.stripsLeadingSpace() && piece.starts_with(" "))
      piece = piece.drop_front();
  }
  pending += piece;
  size_t tail;
  std::string out = sanitizeUTF8(pending, /*final=*/false, &tail);
  pending.erase(0, pending.size() - tail);
  return out;
}

std::string Tokenizer::StreamDecoder::flush() {
  std::string out = sanitizeUTF8(pending);
  pending.clear();
  atStart = true;
  return out;
}

//===----------------------------------------------------------------------===//
// Pre-tokenization
//===----------------------------------------------------------------------===//

namespace {

/// The splitting rules of a byte-level tokenizer's regular expression.
enum class SplitPattern {
  None,   // the whole segment is one word
  GPT2,   // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  Llama3, // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
          //  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  Qwen2,  // as Llama3 with \p{N} for \p{N}{1,3}
};

/// A code point of the text and where it starts. Invalid UTF-8 bytes are
/// code point -1 (neither letter, number nor space).
struct CodePoint {
  int32_t cp;
  size_t offset;
};

bool isLetter(int32_t c) { return c >= 0 && (U_GET_GC_MASK(c) & U_GC_L_MASK); }
bool isNumber(int32_t c) { return c >= 0 && (U_GET_GC_MASK(c) & U_GC_N_MASK); }
bool isSpace(int32_t c) { return c >= 0 && u_isUWhiteSpace(c); }
bool isOther(int32_t c) { return !isSpace(c) && !isLetter(c) && !isNumber(c); }

/// The length (in code points) of the contraction ('s 't 're 've 'm 'll 'd)
/// at `i`, or 0.
size_t matchContraction(llvm::ArrayRef<CodePoint> t, size_t i,
                        bool ignoreCase) {
  if (t[i].cp != '\'' || i + 1 >= t.size())
    return 0;
  auto lower = [&](size_t k) -> int32_t {
    if (k >= t.size())
      return -1;
    int32_t c = t[k].cp;
    return ignoreCase && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
  };
  int32_t a = lower(i + 1), b = lower(i + 2);
  if (a == 's' || a == 't' || a == 'm' || a == 'd')
    return 2;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') ||
      (a == 'l' && b == 'l'))
    return 3;
  return 0;
}

/// The end of the match of `pattern` at `i` (always > i).
size_t matchWord(llvm::ArrayRef<CodePoint> t, size_t i, SplitPattern pattern) {
  size_t n = t.size();
  auto run = [&](size_t k, bool (*pred)(int32_t)) {
    while (k < n && pred(t[k].cp))
      ++k;
    return k;
  };
  if (pattern == SplitPattern::GPT2) {
    if (size_t c = matchContraction(t, i, /*ignoreCase=*/false))
      return i + c;
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
    size_t j = t[i].cp == ' ' ? i + 1 : i;
    if (j < n) {
      for (auto *pred : {isLetter, isNumber, isOther})
        if (pred(t[j].cp))
          return run(j, pred);
    }
  } else {
    if (size_t c = matchContraction(t, i, /*ignoreCase=*/true))
      return i + c;
    // '[^\r\n\p{L}\p{N}]?\p{L}+'
    int32_t c = t[i].cp;
    if (isLetter(c))
      return run(i, isLetter);
    if (c != '\r' && c != '\n' && !isNumber(c) && i + 1 < n &&
        isLetter(t[i + 1].cp))
      return run(i + 1, isLetter);
    // '\p{N}{1,3}' or '\p{N}'
    if (isNumber(c)) {
      size_t most = pattern == SplitPattern::Llama3 ? 3 : 1;
      size_t k = i;
      while (k < n && k - i < most && isNumber(t[k].cp))
        ++k;
      return k;
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
    size_t j = c == ' ' ? i + 1 : i;
    if (j < n && isOther(t[j].cp)) {
      size_t k = run(j, isOther);
      while (k < n && (t[k].cp == '\r' || t[k].cp == '\n'))
        ++k;
      return k;
    }
    // '\s*[\r\n]+': up to the last line break of the whitespace run.
    size_t end = run(i, isSpace);
    for (size_t k = end; k > i; --k)
      if (t[k - 1].cp == '\r' || t[k - 1].cp == '\n')
        return k;
  }
  // '\s+(?!\S)|\s+'
  size_t end = run(i, isSpace);
  if (end == i)
    return i + 1; // unreachable: every code point is in one class
  if (end < n && end - i > 1)
    return end - 1;
  return end;
}

/// Splits `text` into the words of `pattern` (byte ranges of `text`).
std::vector<StringRef> splitWords(StringRef text, SplitPattern pattern) {
  std::vector<StringRef> words;
  if (text.empty())
    return words;
  if (pattern == SplitPattern::None) {
    words.push_back(text);
    return words;
  }
  std::vector<CodePoint> t;
  for (size_t i = 0; i < text.size();) {
    auto [cp, len] = decodeUTF8(text, i);
    t.push_back({cp < 0 ? -1 : cp, i});
    i += len;
  }
  for (size_t i = 0; i < t.size();) {
    size_t end = matchWord(t, i, pattern);
    size_t from = t[i].offset;
    size_t to = end < t.size() ? t[end].offset : text.size();
    words.push_back(text.slice(from, to));
    i = end;
  }
  return words;
}

//===----------------------------------------------------------------------===//
// BPE
//===----------------------------------------------------------------------===//

/// The BPE model and its two flavours (byte-level and sentencepiece-style).
class BPETokenizer : public Tokenizer {
public:
  struct Options {
    bool byteLevel = true;
    SplitPattern split = SplitPattern::GPT2;
    /// Byte-level: a space before each segment not starting with one.
    bool addPrefixSpace = false;
    /// Sentencepiece-style: `▁` before each segment (`always`) or before
    /// the text's first segment only (`first`).
    enum class Prepend { Never, First, Always } prepend = Prepend::Never;
    /// Sentencepiece-style: words start at each `▁` (Metaspace split).
    bool metaspaceSplit = false;
    bool byteFallback = false;
    bool ignoreMerges = false;
    bool stripLeadingSpace = false;
    /// Unicode normalization of each segment (tokenizer.json's NFC/NFKC
    /// normalizer, e.g. Qwen2's NFC).
    enum class Normalization { None, NFC, NFKC } normalization =
        Normalization::None;
    std::optional<int64_t> unk;
  };

  BPETokenizer(StringRef path, Options options) : options(options) {
    filePath = path.str();
  }

  /// Adds vocabulary entry `token` (as spelled in the file) with `id`.
  llvm::Error addToken(StringRef token, int64_t id);
  /// Adds the merge `a b` with the next rank.
  llvm::Error addMerge(StringRef a, StringRef b, const llvm::Twine &where);
  /// Adds an added token (matched in the text, decoded as its content).
  llvm::Error addSpecial(StringRef content, int64_t id);
  /// Checks the model is complete; computes the tokens' bytes.
  llvm::Error finish();

  std::vector<int64_t> encode(StringRef text) override;
  llvm::Expected<std::string> decodeToken(int64_t id) override;
  int64_t vocabSize() const override { return size; }
  std::optional<int64_t> tokenId(StringRef token) const override {
    auto it = special.find(token);
    if (it != special.end())
      return it->second;
    auto v = vocab.find(token);
    if (v != vocab.end())
      return v->second;
    return std::nullopt;
  }
  void setEos(std::optional<int64_t> id) { eos = id; }
  void setBos(std::optional<int64_t> id) { bos = id; }

protected:
  bool stripsLeadingSpace() const override {
    return options.stripLeadingSpace;
  }

private:
  void encodeSegment(StringRef segment, bool first,
                     std::vector<int64_t> &out);
  void encodeWord(StringRef word, std::vector<int64_t> &out);

  Options options;
  llvm::StringMap<int64_t> vocab;
  llvm::StringMap<int64_t> special;
  /// (left, right) -> (rank, merged id).
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::pair<unsigned, int64_t>>
      merges;
  /// Byte-level: byte -> its character's id; sentencepiece-style: byte ->
  /// the id of <0xNN> (byte fallback), -1 when absent.
  int64_t byteIds[256];
  /// Id -> the bytes it decodes to; nullopt for ids naming no token.
  std::vector<std::optional<std::string>> bytesOf;
  std::vector<bool> isSpecial;
  int64_t size = 0;
  llvm::StringMap<std::vector<int64_t>> cache;
};

/// GPT-2's reversible map from bytes to printable characters
/// (bytes_to_unicode in encoder.py): printable Latin-1 bytes map to
/// themselves, the others to U+0100 onwards in byte order.
std::array<uint32_t, 256> bytesToUnicode() {
  std::array<uint32_t, 256> map;
  uint32_t next = 256;
  for (uint32_t b = 0; b < 256; ++b) {
    bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
                     (b >= 0xAE && b <= 0xFF);
    map[b] = printable ? b : next++;
  }
  return map;
}

const char kMetaspace[] = "\xE2\x96\x81"; // U+2581 "▁"

llvm::Error BPETokenizer::addToken(StringRef token, int64_t id) {
  if (id < 0 || id > std::numeric_limits<int32_t>::max())
    return error(llvm::formatv("token '{0}' has id {1}, outside [0, 2^31)",
                               token, id));
  if (!vocab.try_emplace(token, id).second)
    return error("token '" + token + "' appears twice in the vocabulary");
  size = std::max(size, id + 1);
  return llvm::Error::success();
}

llvm::Error BPETokenizer::addSpecial(StringRef content, int64_t id) {
  if (id < 0 || id > std::numeric_limits<int32_t>::max())
    return error(llvm::formatv("added token '{0}' has id {1}, outside "
                               "[0, 2^31)",
                               content, id));
  if (content.empty())
    return error(llvm::formatv("added token {0} is empty", id));
  special[content] = id;
  size = std::max(size, id + 1);
  return llvm::Error::success();
}

llvm::Error BPETokenizer::addMerge(StringRef a, StringRef b,
                                   const llvm::Twine &where) {
  auto ia = vocab.find(a), ib = vocab.find(b);
  auto merged = vocab.find((a + b).str());
  if (ia == vocab.end() || ib == vocab.end() || merged == vocab.end()) {
    std::string missing = ia == vocab.end()   ? a.str()
                          : ib == vocab.end() ? b.str()
                                              : (a + b).str();
    return error(where + ": merge '" + a + " " + b +
                 "' names a token missing from the vocabulary ('" + missing +
                 "')");
  }
  unsigned rank = merges.size();
  merges.try_emplace({ia->second, ib->second}, rank, merged->second);
  return llvm::Error::success();
}

llvm::Error BPETokenizer::finish() {
  bytesOf.assign(size, std::nullopt);
  isSpecial.assign(size, false);
  std::fill(std::begin(byteIds), std::end(byteIds), -1);
  std::array<uint32_t, 256> byteChar = bytesToUnicode();
  llvm::DenseMap<uint32_t, uint8_t> charByte;
  for (unsigned b = 0; b < 256; ++b)
    charByte[byteChar[b]] = b;

  for (auto &entry : vocab) {
    StringRef token = entry.getKey();
    std::string bytes;
    if (options.byteLevel) {
      // Each character is one byte; tokens with other characters decode
      // as their UTF-8 text.
      bool mapped = true;
      for (size_t i = 0; i < token.size() && mapped;) {
        auto [cp, len] = decodeUTF8(token, i);
        auto it = cp < 0 ? charByte.end() : charByte.find(cp);
        if (it == charByte.end())
          mapped = false;
        else
          bytes += static_cast<char>(it->second);
        i += len;
      }
      if (!mapped)
        bytes = token.str();
    } else {
      unsigned byte;
      if (options.byteFallback && token.size() == 6 &&
          token.starts_with("<0x") && token.ends_with(">") &&
          !token.substr(3, 2).getAsInteger(16, byte)) {
        bytes = std::string(1, static_cast<char>(byte));
        byteIds[byte] = entry.getValue();
      } else {
        bytes = token.str();
        for (size_t pos; (pos = bytes.find(kMetaspace)) != std::string::npos;)
          bytes.replace(pos, 3, " ");
      }
    }
    bytesOf[entry.getValue()] = std::move(bytes);
  }
  for (auto &entry : special) {
    bytesOf[entry.getValue()] = entry.getKey().str();
    isSpecial[entry.getValue()] = true;
  }

  if (options.byteLevel) {
    for (unsigned b = 0; b < 256; ++b) {
      std::string ch;
      appendUTF8(ch, byteChar[b]);
      auto it = vocab.find(ch);
      if (it == vocab.end())
        return error(llvm::formatv(
            "byte-level vocabulary lacks the token of byte 0x{0:X-2} ('{1}')",
            b, ch));
      byteIds[b] = it->second;
    }
  } else if (options.byteFallback) {
    for (unsigned b = 0; b < 256; ++b)
      if (byteIds[b] < 0)
        return error(llvm::formatv(
            "byte_fallback is set but the vocabulary lacks <0x{0:X-2}>", b));
  } else if (!options.unk) {
    return error("the model has neither byte_fallback nor an unk_token: "
                 "text outside its vocabulary could not be encoded");
  }
  return llvm::Error::success();
}

std::vector<int64_t> BPETokenizer::encode(StringRef text) {
  std::vector<int64_t> out;
  // Added tokens first: at each position the longest one starting there.
  size_t start = 0, i = 0;
  bool first = true;
  while (i < text.size()) {
    size_t best = 0;
    int64_t bestId = -1;
    for (auto &entry : special) {
      StringRef s = entry.getKey();
      if (s.size() > best && text.substr(i).starts_with(s)) {
        best = s.size();
        bestId = entry.getValue();
      }
    }
    if (!best) {
      ++i;
      continue;
    }
    if (i > start) {
      encodeSegment(text.slice(start, i), first, out);
      first = false;
    }
    out.push_back(bestId);
    first = false;
    i += best;
    start = i;
  }
  if (start < text.size())
    encodeSegment(text.substr(start), first, out);
  return out;
}

/// `text` in Unicode normalization form NFC or NFKC (ICU's unorm2); `text`
/// itself when it is not valid UTF-8.
static std::string normalize(StringRef text, bool compat) {
  llvm::SmallVector<llvm::UTF16> utf16;
  if (!llvm::convertUTF8ToUTF16String(text, utf16))
    return text.str();
  UErrorCode err = U_ZERO_ERROR;
  const UNormalizer2 *norm =
      compat ? unorm2_getNFKCInstance(&err) : unorm2_getNFCInstance(&err);
  if (U_FAILURE(err))
    return text.str();
  const UChar *src = reinterpret_cast<const UChar *>(utf16.data());
  int32_t len = static_cast<int32_t>(utf16.size());
  if (unorm2_isNormalized(norm, src, len, &err) && U_SUCCESS(err))
    return text.str();
  err = U_ZERO_ERROR;
  int32_t need = unorm2_normalize(norm, src, len, nullptr, 0, &err);
  if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
    return text.str();
  std::vector<llvm::UTF16> result(need);
  err = U_ZERO_ERROR;
  unorm2_normalize(norm, src, len, reinterpret_cast<UChar *>(result.data()),
                   need, &err);
  std::string out;
  if (U_FAILURE(err) || !llvm::convertUTF16ToUTF8String(result, out))
    return text.str();
  return out;
}

void BPETokenizer::encodeSegment(StringRef rawSegment, bool first,
                                 std::vector<int64_t> &out) {
  std::string normalized;
  StringRef segment = rawSegment;
  if (options.normalization != Options::Normalization::None) {
    normalized = normalize(
        rawSegment, options.normalization == Options::Normalization::NFKC);
    segment = normalized;
  }
  std::string text;
  if (options.byteLevel) {
    if (options.addPrefixSpace && !segment.starts_with(" "))
      text = " ";
    text += segment;
  } else {
    if (options.prepend == Options::Prepend::Always ||
        (options.prepend == Options::Prepend::First && first))
      text = kMetaspace;
    for (char c : segment) {
      if (c == ' ')
        text += kMetaspace;
      else
        text += c;
    }
  }
  if (!options.byteLevel && options.metaspaceSplit) {
    // Each word starts at a `▁`.
    StringRef rest = text;
    while (!rest.empty()) {
      size_t next = rest.find(kMetaspace, 1);
      encodeWord(rest.substr(0, next), out);
      rest = next == StringRef::npos ? StringRef() : rest.substr(next);
    }
    return;
  }
  for (StringRef word : splitWords(text, options.byteLevel
                                             ? options.split
                                             : SplitPattern::None))
    encodeWord(word, out);
}

void BPETokenizer::encodeWord(StringRef word, std::vector<int64_t> &out) {
  auto cached = cache.find(word);
  if (cached != cache.end()) {
    llvm::append_range(out, cached->second);
    return;
  }
  std::vector<int64_t> symbols;
  if (options.byteLevel) {
    for (char c : word)
      symbols.push_back(byteIds[static_cast<uint8_t>(c)]);
  } else {
    for (size_t i = 0; i < word.size();) {
      auto [cp, len] = decodeUTF8(word, i);
      auto it = cp < 0 ? vocab.end() : vocab.find(word.substr(i, len));
      if (it != vocab.end()) {
        symbols.push_back(it->second);
      } else if (options.byteFallback) {
        for (size_t k = 0; k < len; ++k)
          symbols.push_back(byteIds[static_cast<uint8_t>(word[i + k])]);
      } else {
        symbols.push_back(*options.unk);
      }
      i += len;
    }
  }
  auto whole = options.ignoreMerges ? vocab.find(word) : vocab.end();
  if (whole != vocab.end()) {
    symbols.assign(1, whole->second);
  } else {
    // encoder.py's bpe(): merge the lowest-ranked adjacent pair, every
    // occurrence left to right, until no pair has a rank.
    while (symbols.size() > 1) {
      unsigned bestRank = std::numeric_limits<unsigned>::max();
      std::pair<int64_t, int64_t> bestPair;
      int64_t merged = -1;
      for (size_t k = 0; k + 1 < symbols.size(); ++k) {
        auto it = merges.find({symbols[k], symbols[k + 1]});
        if (it != merges.end() && it->second.first < bestRank) {
          bestRank = it->second.first;
          bestPair = it->first;
          merged = it->second.second;
        }
      }
      if (merged < 0)
        break;
      std::vector<int64_t> next;
      next.reserve(symbols.size());
      for (size_t k = 0; k < symbols.size(); ++k) {
        if (k + 1 < symbols.size() && symbols[k] == bestPair.first &&
            symbols[k + 1] == bestPair.second) {
          next.push_back(merged);
          ++k;
        } else {
          next.push_back(symbols[k]);
        }
      }
      symbols = std::move(next);
    }
  }
  llvm::append_range(out, symbols);
  if (word.size() <= 256 && cache.size() < (1u << 16))
    cache[word] = std::move(symbols);
}

llvm::Expected<std::string> BPETokenizer::decodeToken(int64_t id) {
  if (id < 0 || id >= size || !bytesOf[id])
    return error(llvm::formatv("token id {0} is not in the vocabulary "
                               "(ids 0..{1})",
                               id, size - 1));
  return *bytesOf[id];
}

//===----------------------------------------------------------------------===//
// Sentencepiece
//===----------------------------------------------------------------------===//

#if LLMC_HAVE_SENTENCEPIECE
/// The functions of libllmc_sentencepiece.so (SentencePieceShim.h), loaded
/// once per process with RTLD_LOCAL | RTLD_DEEPBIND: sentencepiece and its
/// bundled protobuf then bind to their own symbols, not to the ONNX
/// importer's libprotobuf.
struct SentencePieceApi {
  decltype(&llmc_spm_load) load;
  decltype(&llmc_spm_free) free;
  decltype(&llmc_spm_piece_size) pieceSize;
  decltype(&llmc_spm_bos_id) bosId;
  decltype(&llmc_spm_eos_id) eosId;
  decltype(&llmc_spm_encode) encode;
  decltype(&llmc_spm_decode) decode;
  decltype(&llmc_spm_id_to_piece) idToPiece;
  decltype(&llmc_spm_piece_to_id) pieceToId;
  decltype(&llmc_spm_is_control) isControl;
  decltype(&llmc_spm_is_unknown) isUnknown;
  decltype(&llmc_spm_is_byte) isByte;

  /// The loaded library's functions, or why it could not be loaded.
  static llvm::Expected<const SentencePieceApi *> get();
};

/// Where libllmc_sentencepiece.so may be when $LLMC_SENTENCEPIECE_SHIM is
/// not set: beside the binary or library holding this code (../lib and its
/// own directory: an installed tree), then where this build put it.
static llvm::SmallVector<std::string> getShimCandidates() {
#ifdef LLMC_SENTENCEPIECE_SHIM_PATH
  llvm::StringRef buildPath = LLMC_SENTENCEPIECE_SHIM_PATH;
#else
  llvm::StringRef buildPath;
#endif
  return mlir::llm::getLibraryCandidates(
      "libllmc_sentencepiece.so",
      reinterpret_cast<const void *>(&getShimCandidates), buildPath);
}

llvm::Expected<const SentencePieceApi *> SentencePieceApi::get() {
  static const SentencePieceApi *api = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    void *handle = nullptr;
    std::string tried, loadedPath;
    // $LLMC_SENTENCEPIECE_SHIM, when set, is the only path tried.
    const char *env = std::getenv("LLMC_SENTENCEPIECE_SHIM");
    bool fromEnv = env != nullptr;
    llvm::SmallVector<std::string> candidates =
        fromEnv ? llvm::SmallVector<std::string>{env} : getShimCandidates();
    for (const std::string &path : candidates) {
      // (Only regular files: a FIFO would block dlopen.)
      if (!llvm::sys::fs::is_regular_file(path)) {
        if (fromEnv)
          tried += "; " + path + ": not a regular file";
        continue;
      }
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      if (handle) {
        loadedPath = path;
        break;
      }
      const char *e = dlerror();
      tried += "; " + path + ": " + (e ? e : "cannot be loaded");
    }
    if (!handle) {
      failure = fromEnv ? "LLMC_SENTENCEPIECE_SHIM does not name a loadable "
                          "libllmc_sentencepiece.so" +
                              tried
                        : "sentencepiece models need "
                          "libllmc_sentencepiece.so, which was not found "
                          "(set LLMC_SENTENCEPIECE_SHIM to its path)" +
                              tried;
      return;
    }
    static SentencePieceApi loaded;
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      ok &= fn != nullptr;
    };
    sym(loaded.load, "llmc_spm_load");
    sym(loaded.free, "llmc_spm_free");
    sym(loaded.pieceSize, "llmc_spm_piece_size");
    sym(loaded.bosId, "llmc_spm_bos_id");
    sym(loaded.eosId, "llmc_spm_eos_id");
    sym(loaded.encode, "llmc_spm_encode");
    sym(loaded.decode, "llmc_spm_decode");
    sym(loaded.idToPiece, "llmc_spm_id_to_piece");
    sym(loaded.pieceToId, "llmc_spm_piece_to_id");
    sym(loaded.isControl, "llmc_spm_is_control");
    sym(loaded.isUnknown, "llmc_spm_is_unknown");
    sym(loaded.isByte, "llmc_spm_is_byte");
    if (!ok) {
      failure = loadedPath +
                " lacks a function of libllmc_sentencepiece.so (not that "
                "library, or one from another llmc version?)";
      dlclose(handle);
      return;
    }
    api = &loaded;
  });
  if (!api)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), failure);
  return api;
}

/// Calls `fill(data, capacity)`, a shim function that writes at most
/// `capacity` elements into `data` and returns how many there are (-1 on
/// failure), with `buffer`; when `buffer` was too small, grows it and calls
/// again. On success `buffer` is cut to that count. Returns the count.
template <typename Buffer, typename Fill>
static long fillBuffer(Buffer &buffer, Fill fill) {
  long n = fill(buffer.data(), buffer.size());
  if (n > static_cast<long>(buffer.size())) {
    buffer.resize(n);
    n = fill(buffer.data(), buffer.size());
  }
  if (n >= 0)
    buffer.resize(n);
  return n;
}

class SentencePieceTokenizer : public Tokenizer {
public:
  SentencePieceTokenizer(StringRef path, const SentencePieceApi &api)
      : api(api) {
    filePath = path.str();
  }
  ~SentencePieceTokenizer() override {
    if (spm)
      api.free(spm);
  }

  llvm::Error load() {
    char message[512] = "";
    spm = api.load(filePath.c_str(), message, sizeof(message));
    if (!spm)
      return error("not a sentencepiece model: " + StringRef(message).trim());
    pieces = api.pieceSize(spm);
    if (api.eosId(spm) >= 0)
      eos = api.eosId(spm);
    if (api.bosId(spm) >= 0)
      bos = api.bosId(spm);
    return llvm::Error::success();
  }

  std::vector<int64_t> encode(StringRef text) override {
    std::vector<int> ids(text.size() + 16);
    // Encoding fails only for an unloaded model.
    if (fillBuffer(ids, [&](int *data, size_t cap) {
          return api.encode(spm, text.data(), text.size(), data, cap);
        }) < 0)
      ids.clear();
    return std::vector<int64_t>(ids.begin(), ids.end());
  }

  llvm::Expected<std::string> decode(llvm::ArrayRef<int64_t> ids) override {
    std::vector<int> ints;
    for (int64_t id : ids) {
      if (llvm::Error e = checkId(id))
        return std::move(e);
      ints.push_back(static_cast<int>(id));
    }
    // (On failure the buffer holds sentencepiece's message.)
    std::string text(64 + 16 * ints.size(), '\0');
    if (fillBuffer(text, [&](char *data, size_t cap) {
          return api.decode(spm, ints.data(), ints.size(), data, cap);
        }) < 0)
      return error("cannot decode: " + StringRef(text.c_str()).trim());
    return sanitizeUTF8(text);
  }

  llvm::Expected<std::string> decodeToken(int64_t id) override {
    if (llvm::Error e = checkId(id))
      return std::move(e);
    int i = static_cast<int>(id);
    if (api.isControl(spm, i))
      return std::string();
    if (api.isUnknown(spm, i))
      return std::string(" \xE2\x81\x87 "); // sentencepiece's " ⁇ "
    std::string piece = getPiece(i);
    unsigned byte;
    if (api.isByte(spm, i) && piece.size() == 6 &&
        !StringRef(piece).substr(3, 2).getAsInteger(16, byte))
      return std::string(1, static_cast<char>(byte));
    for (size_t pos; (pos = piece.find(kMetaspace)) != std::string::npos;)
      piece.replace(pos, 3, " ");
    return piece;
  }

  int64_t vocabSize() const override { return pieces; }

  std::optional<int64_t> tokenId(StringRef token) const override {
    int id = api.pieceToId(spm, token.data(), token.size());
    if (id < 0 || (api.isUnknown(spm, id) && token != getPiece(id)))
      return std::nullopt;
    return id;
  }

protected:
  bool stripsLeadingSpace() const override { return true; }

private:
  std::string getPiece(int id) const {
    std::string piece(32, '\0');
    if (fillBuffer(piece, [&](char *data, size_t cap) {
          return api.idToPiece(spm, id, data, cap);
        }) < 0)
      piece.clear();
    return piece;
  }

  llvm::Error checkId(int64_t id) const {
    if (id < 0 || id >= vocabSize())
      return error(llvm::formatv("token id {0} is not in the vocabulary "
                                 "(ids 0..{1})",
                                 id, vocabSize() - 1));
    return llvm::Error::success();
  }

  const SentencePieceApi &api;
  llmc_spm *spm = nullptr;
  int64_t pieces = 0;
};
#endif

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return fileError(path, "is a directory");
  // Only regular files: a device such as /dev/zero would be read until
  // memory runs out.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return fileError(path, "not a regular file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<llvm::json::Value> readJSON(StringRef path) {
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  // A UTF-8 byte-order mark (which Windows editors write) is skipped, as
  // Python's utf-8-sig codec does; JSON itself does not allow one.
  StringRef text = (*buffer)->getBuffer();
  text.consume_front("\xEF\xBB\xBF");
  // llvm::json recurses per level: bound the nesting first (Hugging Face
  // tokenizer files have fewer than 10 levels).
  if (mlir::llm::exceedsJSONDepth(text, 64))
    return fileError(path, "malformed JSON: nested more than 64 levels deep");
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return fileError(path, "malformed JSON: " +
                               llvm::toString(value.takeError()));
  return value;
}

/// The eos_token of tokenizer_config.json beside `path`, if any.
std::optional<std::string> configEosToken(StringRef path) {
  llvm::SmallString<256> config = llvm::sys::path::parent_path(path);
  llvm::sys::path::append(config, "tokenizer_config.json");
  if (!llvm::sys::fs::exists(config))
    return std::nullopt;
  llvm::Expected<llvm::json::Value> value = readJSON(config);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *obj = value->getAsObject();
  if (!obj)
    return std::nullopt;
  const llvm::json::Value *eos = obj->get("eos_token");
  if (!eos)
    return std::nullopt;
  if (auto s = eos->getAsString())
    return s->str();
  if (const llvm::json::Object *o = eos->getAsObject())
    if (auto s = o->getString("content"))
      return s->str();
  return std::nullopt;
}

void pickEos(BPETokenizer &tok, StringRef path) {
  if (std::optional<std::string> name = configEosToken(path))
    if (std::optional<int64_t> id = tok.tokenId(*name)) {
      tok.setEos(id);
      return;
    }
  for (StringRef name : {"<|endoftext|>", "</s>", "<|end_of_text|>",
                         "<|im_end|>", "<|eot_id|>"})
    if (std::optional<int64_t> id = tok.tokenId(name)) {
      tok.setEos(id);
      return;
    }
}

/// GPT-2's vocab.json + merges.txt.
llvm::Expected<std::unique_ptr<Tokenizer>> loadVocabJSON(StringRef vocabPath,
                                                         StringRef mergesPath) {
  llvm::Expected<llvm::json::Value> value = readJSON(vocabPath);
  if (!value)
    return value.takeError();
  const llvm::json::Object *obj = value->getAsObject();
  if (!obj)
    return fileError(vocabPath, "expected a JSON object of token -> id");
  auto tok = std::make_unique<BPETokenizer>(vocabPath, BPETokenizer::Options());
  for (auto &entry : *obj) {
    std::optional<int64_t> id = entry.second.getAsInteger();
    if (!id)
      return fileError(vocabPath, "the id of token '" + entry.first.str() +
                                      "' is not an integer");
    if (llvm::Error e = tok->addToken(entry.first, *id))
      return std::move(e);
    StringRef name = entry.first;
    if (name.size() > 4 && name.starts_with("<|") && name.ends_with("|>"))
      if (llvm::Error e = tok->addSpecial(name, *id))
        return std::move(e);
  }
  auto merges = readFile(mergesPath);
  if (!merges)
    return merges.takeError();
  llvm::SmallVector<StringRef> lines;
  (*merges)->getBuffer().split(lines, '\n');
  for (auto [n, line] : llvm::enumerate(lines)) {
    line = line.rtrim("\r");
    if (line.empty() || (n == 0 && line.starts_with("#version")))
      continue;
    auto [a, b] = line.split(' ');
    std::string where = (mergesPath + ":" + llvm::Twine(n + 1)).str();
    if (a.empty() || b.empty() || b.contains(' '))
      return fileError(vocabPath, where + ": expected a merge 'A B', got '" +
                                      line + "'");
    if (llvm::Error e = tok->addMerge(a, b, where))
      return std::move(e);
  }
  if (llvm::Error e = tok->finish())
    return std::move(e);
  pickEos(*tok, vocabPath);
  return std::unique_ptr<Tokenizer>(std::move(tok));
}

/// The `type` of a tokenizer.json component, "" for null / absent.
StringRef typeOf(const llvm::json::Value *v) {
  if (!v || !v->getAsObject())
    return "";
  return v->getAsObject()->getString("type").value_or("");
}

/// The components of a Sequence (or the component itself).
std::vector<const llvm::json::Object *> flatten(const llvm::json::Value *v,
                                                StringRef listKey) {
  std::vector<const llvm::json::Object *> out;
  if (!v || !v->getAsObject())
    return out;
  const llvm::json::Object *o = v->getAsObject();
  if (o->getString("type") == "Sequence") {
    if (const llvm::json::Array *list = o->getArray(listKey))
      for (const llvm::json::Value &item : *list)
        if (const llvm::json::Object *io = item.getAsObject())
          out.push_back(io);
    return out;
  }
  out.push_back(o);
  return out;
}

// The pre-tokenizer patterns llmc implements (tokenizer.json spelling).
const char kGPT2Pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
    "\\s+(?!\\S)|\\s+";
const char kLlama3Pattern[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|"
    "\\s+";
const char kQwen2Pattern[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/// Hugging Face tokenizer.json.
llvm::Expected<std::unique_ptr<Tokenizer>>
loadTokenizerJSON(StringRef path, const llvm::json::Object &root) {
  auto fail = [&](const llvm::Twine &msg) { return fileError(path, msg); };
  const llvm::json::Object *model = root.getObject("model");
  if (!model)
    return fail("no `model` object: not a Hugging Face tokenizer.json");
  StringRef type = model->getString("type").value_or("BPE");
  if (type != "BPE")
    return fail("unsupported model type '" + type +
                "' (llmc supports BPE tokenizer.json files)");
  for (StringRef key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (auto s = model->getString(key); s && !s->empty())
      return fail("unsupported BPE option `" + key + "`");

  BPETokenizer::Options opts;
  // Pre-tokenizer: byte-level (ByteLevel, optionally after a Split) or
  // sentencepiece-style (Metaspace, or none with a Prepend/Replace
  // normalizer).
  bool sawByteLevel = false, sawSplit = false, sawMetaspace = false;
  for (const llvm::json::Object *p :
       flatten(root.get("pre_tokenizer"), "pretokenizers")) {
    StringRef t = p->getString("type").value_or("");
    if (t == "ByteLevel") {
      sawByteLevel = true;
      opts.addPrefixSpace = p->getBoolean("add_prefix_space").value_or(false);
      if (!p->getBoolean("use_regex").value_or(true)) {
        if (!sawSplit)
          opts.split = SplitPattern::None;
      } else if (sawSplit) {
        return fail("pre_tokenizer: a Split followed by a ByteLevel with "
                    "use_regex is not supported");
      }
    } else if (t == "Split") {
      const llvm::json::Object *pat = p->getObject("pattern");
      std::optional<StringRef> regex = pat ? pat->getString("Regex")
                                           : std::nullopt;
      if (!regex)
        return fail("pre_tokenizer: unsupported Split pattern (llmc "
                    "implements the GPT-2, LLaMA-3 and Qwen2 regexes)");
      if (*regex == kGPT2Pattern)
        opts.split = SplitPattern::GPT2;
      else if (*regex == kLlama3Pattern)
        opts.split = SplitPattern::Llama3;
      else if (*regex == kQwen2Pattern)
        opts.split = SplitPattern::Qwen2;
      else
        return fail("pre_tokenizer: unsupported Split regex '" + *regex +
                    "' (llmc implements the GPT-2, LLaMA-3 and Qwen2 "
                    "regexes)");
      if (p->getString("behavior").value_or("Isolated") != "Isolated" ||
          p->getBoolean("invert").value_or(false))
        return fail("pre_tokenizer: only Split with behavior Isolated is "
                    "supported");
      sawSplit = true;
    } else if (t == "Metaspace") {
      sawMetaspace = true;
      opts.metaspaceSplit = p->getBoolean("split").value_or(true);
      StringRef scheme = p->getString("prepend_scheme").value_or("");
      if (scheme.empty())
        scheme = p->getBoolean("add_prefix_space").value_or(true) ? "always"
                                                                  : "never";
      opts.prepend = scheme == "first"    ? BPETokenizer::Options::Prepend::First
                     : scheme == "always" ? BPETokenizer::Options::Prepend::Always
                                          : BPETokenizer::Options::Prepend::Never;
      if (auto r = p->getString("replacement"); r && *r != kMetaspace)
        return fail("pre_tokenizer: Metaspace replacement must be '▁'");
    } else {
      return fail("unsupported pre_tokenizer '" + t + "'");
    }
  }
  if (sawByteLevel && sawMetaspace)
    return fail("pre_tokenizer: ByteLevel and Metaspace together");
  if (sawSplit && !sawByteLevel)
    return fail("pre_tokenizer: Split without ByteLevel is not supported");
  opts.byteLevel = sawByteLevel || typeOf(root.get("decoder")) == "ByteLevel";
  for (const llvm::json::Object *n :
       flatten(root.get("normalizer"), "normalizers")) {
    StringRef t = n->getString("type").value_or("");
    if (t == "NFC" || t == "NFKC") {
      // (Commutes with the Prepend/Replace of `▁` and spaces.)
      opts.normalization = t == "NFC"
                               ? BPETokenizer::Options::Normalization::NFC
                               : BPETokenizer::Options::Normalization::NFKC;
      continue;
    }
    if (opts.byteLevel)
      return fail("unsupported normalizer '" + t + "' for a byte-level "
                  "model (llmc supports NFC and NFKC)");
    // Sentencepiece-style: the normalizer may do Metaspace's work.
    if (t == "Prepend" && n->getString("prepend") == kMetaspace) {
      opts.prepend = BPETokenizer::Options::Prepend::Always;
    } else if (t == "Replace") {
      const llvm::json::Object *pat = n->getObject("pattern");
      if (!pat || pat->getString("String") != " " ||
          n->getString("content") != kMetaspace)
        return fail("normalizer: only Replace(' ', '▁') is supported");
    } else {
      return fail("unsupported normalizer '" + t + "'");
    }
  }
  if (!opts.byteLevel) {
    opts.byteFallback = model->getBoolean("byte_fallback").value_or(false);
    // The decoder drops the dummy prefix's space (Strip, or Metaspace).
    for (const llvm::json::Object *d :
         flatten(root.get("decoder"), "decoders")) {
      StringRef t = d->getString("type").value_or("");
      if ((t == "Strip" && d->getInteger("start").value_or(0) > 0) ||
          (t == "Metaspace" && opts.prepend !=
                                   BPETokenizer::Options::Prepend::Never))
        opts.stripLeadingSpace = true;
    }
  }
  opts.ignoreMerges = model->getBoolean("ignore_merges").value_or(false);

  const llvm::json::Object *vocab = model->getObject("vocab");
  if (!vocab)
    return fail("model.vocab is not an object of token -> id");
  if (auto unk = model->getString("unk_token")) {
    auto it = vocab->find(*unk);
    if (it == vocab->end() || !it->second.getAsInteger())
      return fail("model.unk_token '" + *unk + "' is not in model.vocab");
    opts.unk = *it->second.getAsInteger();
  }
  auto tok = std::make_unique<BPETokenizer>(path, opts);
  for (auto &entry : *vocab) {
    std::optional<int64_t> id = entry.second.getAsInteger();
    if (!id)
      return fail("model.vocab: the id of token '" + entry.first.str() +
                  "' is not an integer");
    if (llvm::Error e = tok->addToken(entry.first, *id))
      return std::move(e);
  }
  const llvm::json::Array *merges = model->getArray("merges");
  if (!merges)
    return fail("model.merges is not an array");
  for (auto [n, m] : llvm::enumerate(*merges)) {
    std::string where = llvm::formatv("model.merges[{0}]", n).str();
    StringRef a, b;
    if (auto s = m.getAsString()) {
      std::tie(a, b) = s->split(' ');
      if (a.empty() || b.empty() || b.contains(' '))
        return fail(where + ": expected \"A B\", got '" + *s + "'");
    } else if (const llvm::json::Array *pair = m.getAsArray();
               pair && pair->size() == 2 && (*pair)[0].getAsString() &&
               (*pair)[1].getAsString()) {
      a = *(*pair)[0].getAsString();
      b = *(*pair)[1].getAsString();
    } else {
      return fail(where + ": expected \"A B\" or [\"A\", \"B\"]");
    }
    if (llvm::Error e = tok->addMerge(a, b, where))
      return std::move(e);
  }

  if (const llvm::json::Value *added = root.get("added_tokens");
      added && !added->getAsNull()) {
    const llvm::json::Array *list = added->getAsArray();
    if (!list)
      return fail("added_tokens is not an array");
    for (auto [n, v] : llvm::enumerate(*list)) {
      const llvm::json::Object *o = v.getAsObject();
      std::optional<int64_t> id = o ? o->getInteger("id") : std::nullopt;
      std::optional<StringRef> content =
          o ? o->getString("content") : std::nullopt;
      if (!id || !content)
        return fail(llvm::formatv("added_tokens[{0}]: expected an object "
                                  "with an integer `id` and a `content`",
                                  n));
      if (llvm::Error e = tok->addSpecial(*content, *id))
        return std::move(e);
    }
  }
  if (llvm::Error e = tok->finish())
    return std::move(e);
  pickEos(*tok, path);

  // The post-processor's leading special token (BOS).
  for (const llvm::json::Object *p :
       flatten(root.get("post_processor"), "processors")) {
    if (p->getString("type") != "TemplateProcessing")
      continue;
    const llvm::json::Array *single = p->getArray("single");
    if (!single || single->empty())
      continue;
    const llvm::json::Object *firstItem = (*single)[0].getAsObject();
    const llvm::json::Object *st =
        firstItem ? firstItem->getObject("SpecialToken") : nullptr;
    if (auto name = st ? st->getString("id") : std::nullopt)
      tok->setBos(tok->tokenId(*name));
  }
  return std::unique_ptr<Tokenizer>(std::move(tok));
}

llvm::Expected<std::unique_ptr<Tokenizer>> loadSentencePiece(StringRef path) {
#if LLMC_HAVE_SENTENCEPIECE
  if (auto buffer = readFile(path); !buffer)
    return buffer.takeError();
  llvm::Expected<const SentencePieceApi *> api = SentencePieceApi::get();
  if (!api)
    return fileError(path, llvm::toString(api.takeError()));
  auto tok = std::make_unique<SentencePieceTokenizer>(path, **api);
  if (llvm::Error e = tok->load())
    return std::move(e);
  return std::unique_ptr<Tokenizer>(std::move(tok));
#else
  return fileError(path, "sentencepiece models are not supported: llmc was "
                         "built without sentencepiece (install "
                         "libsentencepiece-dev and rebuild)");
#endif
}

} // namespace

llvm::Expected<std::unique_ptr<Tokenizer>> Tokenizer::load(StringRef path) {
  namespace fs = llvm::sys::fs;
  namespace sp = llvm::sys::path;
  if (!fs::exists(path))
    return fileError(path, "no such file or directory");
  if (fs::is_directory(path)) {
    llvm::SmallString<256> f;
    auto in = [&](StringRef name) {
      f = path;
      sp::append(f, name);
      return fs::exists(f);
    };
    if (in("tokenizer.json"))
      return load(f);
    if (in("vocab.json"))
      return load(f);
    if (in("tokenizer.model"))
      return load(f);
    return fileError(path, "directory holds no tokenizer.json, vocab.json "
                           "(+ merges.txt) or tokenizer.model");
  }
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  StringRef text = (*buffer)->getBuffer();
  StringRef start = text.ltrim(" \t\r\n");
  bool json = start.starts_with("{") || path.ends_with_insensitive(".json");
  if (!json)
    return loadSentencePiece(path);
  llvm::Expected<llvm::json::Value> value = readJSON(path);
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  if (!root)
    return fileError(path, "expected a JSON object");
  if (root->get("model"))
    return loadTokenizerJSON(path, *root);
  // GPT-2's vocab.json: merges.txt beside it.
  llvm::SmallString<256> merges = sp::parent_path(path);
  sp::append(merges, "merges.txt");
  if (!fs::exists(merges))
    return fileError(path, "neither a tokenizer.json (no `model`) nor a "
                           "vocab.json with a merges.txt beside it ('" +
                               merges + "' does not exist)");
  return loadVocabJSON(path, merges);
}
