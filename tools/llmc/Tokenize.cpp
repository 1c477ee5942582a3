//===- Tokenize.cpp - llmc tokenize ---------------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc tokenize --tokenizer FILE (--text T | --ids 1,2,3)`: the tokenizers
// of `llmc generate` (llm/Runtime/Tokenizer.h) on their own.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"

#include "llm/Runtime/Tokenizer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

using namespace mlir::llm::runtime;
namespace cl = llvm::cl;

using llmc::fail;

cl::OptionCategory llmc::tokenizeCategory("llmc tokenize options");

cl::SubCommand llmc::tokenizeCommand(
    "tokenize",
    "Encode --text with the tokenizer --tokenizer (tokenizer.json, GPT-2 "
    "vocab.json\n"
    "  + merges.txt, a sentencepiece .model, or a directory holding one) and "
    "print\n"
    "  the ids, comma-separated; or decode --ids and print the text "
    "(followed by a\n"
    "  newline). --stream decodes the ids one at a time as `llmc generate` "
    "prints\n"
    "  them: one line per id, `ID: \"text\"` (a JSON string: what became "
    "printable),\n"
    "  then `end: \"text\"` (the rest). --info prints the vocabulary size and "
    "the\n"
    "  BOS/EOS ids.");
static cl::opt<std::string>
    tokenizeFile("tokenizer", cl::desc("The tokenizer file or directory"),
                 cl::value_desc("file"), cl::Required,
                 cl::sub(llmc::tokenizeCommand),
                 cl::cat(llmc::tokenizeCategory));
static cl::opt<std::string> tokenizeText("text", cl::desc("Text to encode"),
                                         cl::value_desc("text"),
                                         cl::sub(llmc::tokenizeCommand),
                                         cl::cat(llmc::tokenizeCategory));
static cl::opt<std::string>
    tokenizeIds("ids", cl::desc("Token ids to decode, comma-separated"),
                cl::value_desc("1,2,3"), cl::sub(llmc::tokenizeCommand),
                cl::cat(llmc::tokenizeCategory));
static cl::opt<bool> tokenizeStream(
    "stream", cl::desc("With --ids: decode one id at a time (see above)"),
    cl::sub(llmc::tokenizeCommand), cl::cat(llmc::tokenizeCategory));
static cl::opt<bool> tokenizeInfo(
    "info", cl::desc("Print the vocabulary size and the BOS/EOS ids"),
    cl::sub(llmc::tokenizeCommand), cl::cat(llmc::tokenizeCategory));

int llmc::tokenizeMain() {
  bool haveText = tokenizeText.getNumOccurrences() > 0;
  bool haveIds = tokenizeIds.getNumOccurrences() > 0;
  if (haveText == haveIds && !(tokenizeInfo && !haveText))
    return fail("llmc tokenize expects exactly one of --text TEXT and "
                "--ids 1,2,3");
  if (tokenizeStream && !haveIds)
    return fail("--stream needs --ids");
  auto tokenizer = Tokenizer::load(tokenizeFile);
  if (!tokenizer)
    return fail(tokenizer.takeError());
  Tokenizer &tok = **tokenizer;
  if (tokenizeInfo) {
    auto opt = [](std::optional<int64_t> id) {
      return id ? std::to_string(*id) : std::string("none");
    };
    llvm::outs() << "vocab_size: " << tok.vocabSize()
                 << "\nbos: " << opt(tok.bosId())
                 << "\neos: " << opt(tok.eosId()) << "\n";
  }
  if (haveText) {
    llvm::outs() << llvm::join(llvm::map_range(tok.encode(tokenizeText),
                                               [](int64_t id) {
                                                 return std::to_string(id);
                                               }),
                               ",")
                 << "\n";
    return 0;
  }
  if (!haveIds)
    return 0;
  std::vector<int64_t> ids;
  if (!llvm::StringRef(tokenizeIds).trim().empty()) {
    llvm::Expected<llvm::SmallVector<int64_t>> parsed =
        llmc::parseTokenIds(tokenizeIds, "--ids", "15496,995");
    if (!parsed)
      return fail(parsed.takeError());
    ids.assign(parsed->begin(), parsed->end());
  }
  if (!tokenizeStream) {
    llvm::Expected<std::string> text = tok.decode(ids);
    if (!text)
      return fail(text.takeError());
    llvm::outs() << *text << "\n";
    return 0;
  }
  Tokenizer::StreamDecoder stream(tok);
  for (int64_t id : ids) {
    llvm::Expected<std::string> text = stream.push(id);
    if (!text)
      return fail(text.takeError());
    llvm::outs() << id << ": " << llvm::json::Value(*text) << "\n";
  }
  llvm::outs() << "end: " << llvm::json::Value(stream.flush()) << "\n";
  return 0;
}
