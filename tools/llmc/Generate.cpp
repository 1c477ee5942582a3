//===- Generate.cpp - llmc generate
//----------------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc generate MODEL --prompt-ids 1,2,3 --max-new-tokens N`: compiles a
// model with the generation entry interface (docs/Generation.md), runs one
// prefill over the prompt and one decode step per new token, prints the new
// ids as they come and then the speed and the memory held.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"
#include "TensorParallel.h"

#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/Generation.h"
#include "llm/Runtime/Tokenizer.h"
#include "llm/Support/OutputFile.h"
#if LLMC_HAVE_ONNX
#include "llm/Target/ONNX/ImportONNX.h"
#endif

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace mlir::llm::runtime;
namespace cl = llvm::cl;

cl::OptionCategory llmc::generateCategory("llmc generate options");

cl::SubCommand llmc::generateCommand(
    "generate",
    "Generate tokens with MODEL (an llm-dialect .mlir file with the "
    "generation entry\n"
    "  interface of docs/Generation.md: token ids, positions, lengths and "
    "key/value\n"
    "  caches marked llm.kv_cache; or an ONNX decoder exported with\n"
    "  past_key_values / present). One prefill call runs the prompt, then "
    "one decode\n"
    "  call per new token; the caches stay in memory and are updated in "
    "place.\n"
    "  The new ids are printed on stdout as they are produced (one line, "
    "comma-separated),\n"
    "  then the prefill and decode speed and the memory held (weights, "
    "KV cache, arena).");

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::sub(llmc::generateCommand));
static cl::opt<std::string>
    promptIds("prompt-ids",
              cl::desc("The prompt's token ids, comma-separated (or "
                       "--prompt with --tokenizer)"),
              cl::value_desc("ID,ID,..."), cl::sub(llmc::generateCommand),
              cl::cat(llmc::generateCategory));
static cl::opt<std::string>
    promptText("prompt",
               cl::desc("The prompt as text (needs --tokenizer); the "
                        "tokenizer's BOS id, if it has one, is put first"),
               cl::value_desc("TEXT"), cl::sub(llmc::generateCommand),
               cl::cat(llmc::generateCategory));
static cl::opt<std::string> tokenizerPath(
    "tokenizer",
    cl::desc("Tokenizer (HF tokenizer.json, GPT-2 vocab.json with "
             "merges.txt beside it, or a directory holding them): the new "
             "tokens are printed as text, and generation stops at its EOS id"),
    cl::value_desc("FILE"), cl::sub(llmc::generateCommand),
    cl::cat(llmc::generateCategory));
static cl::opt<bool> ignoreEos("ignore-eos",
                               cl::desc("With --tokenizer: do not stop at the "
                                        "tokenizer's EOS id"),
                               cl::sub(llmc::generateCommand),
                               cl::cat(llmc::generateCategory));
static cl::opt<long long>
    maxNewTokens("max-new-tokens",
                 cl::desc("How many tokens to generate (default 32)"),
                 cl::init(32), cl::sub(llmc::generateCommand),
                 cl::cat(llmc::generateCategory));
static cl::opt<long long> maxSeq(
    "max-seq",
    cl::desc("Stop when the sequence (prompt and new tokens) reaches N "
             "tokens; at most the model's declared sequence bound (default: "
             "that bound)"),
    cl::init(0), cl::sub(llmc::generateCommand),
    cl::cat(llmc::generateCategory));
static cl::opt<bool> greedy("greedy",
                            cl::desc("Take the most likely token (the "
                                     "default unless --temperature, --top-k "
                                     "or --top-p is given)"),
                            cl::sub(llmc::generateCommand),
                            cl::cat(llmc::generateCategory));
static cl::opt<double> temperature("temperature",
                                   cl::desc("Sample from softmax(logits / T)"),
                                   cl::init(1.0), cl::value_desc("T"),
                                   cl::sub(llmc::generateCommand),
                                   cl::cat(llmc::generateCategory));
static cl::opt<long long> topK("top-k",
                               cl::desc("Sample among the K most likely "
                                        "tokens (0: all)"),
                               cl::init(0), cl::value_desc("K"),
                               cl::sub(llmc::generateCommand),
                               cl::cat(llmc::generateCategory));
static cl::opt<double> topP("top-p",
                            cl::desc("Sample among the most likely tokens "
                                     "whose probability sums to P"),
                            cl::init(1.0), cl::value_desc("P"),
                            cl::sub(llmc::generateCommand),
                            cl::cat(llmc::generateCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the sampler (default 0)"),
                              cl::init(0), cl::sub(llmc::generateCommand),
                              cl::cat(llmc::generateCategory));
static cl::opt<long long>
    stopId("stop-id", cl::desc("Stop after generating this token id"),
           cl::init(-1), cl::sub(llmc::generateCommand),
           cl::cat(llmc::generateCategory));
static cl::opt<long long>
    numThreads("threads", cl::desc("OpenMP threads of the compiled model"),
               cl::init(0), cl::sub(llmc::generateCommand),
               cl::cat(llmc::generateCategory));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("Entry function (default "
                                               "main)"),
                                      cl::init("main"),
                                      cl::sub(llmc::generateCommand),
                                      cl::cat(llmc::generateCategory));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("llm-lower-to-cpu options, e.g. \"vectorize=false\" "
             "(memory-arena=caller is always added: the session owns the "
             "arena)"),
    cl::sub(llmc::generateCommand), cl::cat(llmc::generateCategory));
static cl::opt<int64_t> tensorParallel(
    "tensor-parallel",
    cl::desc("Run as one rank of an N-way tensor-parallel job (under "
             "`mpirun -np N`): each rank holds its heads of every layer and "
             "of the key/value cache; rank 0 prints the tokens and figures "
             "(docs/TensorParallelism.md)"),
    cl::value_desc("N"), cl::init(1), cl::sub(llmc::generateCommand),
    cl::cat(llmc::generateCategory));
static cl::opt<bool> reportJson(
    "report-json",
    cl::desc("Print the speed and memory figures as one JSON object on "
             "stderr (times in ms, sizes in bytes) instead of text"),
    cl::sub(llmc::generateCommand), cl::cat(llmc::generateCategory));
static cl::opt<bool> noOpt("no-opt",
                           cl::desc("Reference lowering: no graph "
                                    "optimization, fusion or vectorization"),
                           cl::sub(llmc::generateCommand),
                           cl::cat(llmc::generateCategory));

using llmc::fail;

llvm::Expected<SmallVector<int64_t>>
llmc::parseTokenIds(StringRef text, StringRef option, StringRef example) {
  SmallVector<int64_t> ids;
  SmallVector<StringRef> parts;
  text.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (StringRef part : parts) {
    part = part.trim();
    long long id;
    if (part.empty() || part.getAsInteger(10, id))
      return llvm::createStringError(
          option + ": '" + part +
          "' is not an integer token id (give comma-separated ids, e.g. " +
          example + ")");
    ids.push_back(id);
  }
  return ids;
}

static std::string formatBytes(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bytes >= (1 << 20))
    os << llvm::format("%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    os << llvm::format("%.1f KiB", bytes / 1024.0);
  else
    os << bytes << " B";
  return s;
}

int llmc::generateMain() {
  bool haveIds = promptIds.getNumOccurrences(),
       haveText = promptText.getNumOccurrences();
  if (haveIds == haveText)
    return fail("give the prompt as token ids (--prompt-ids 464,3290,318) or "
                "as text (--prompt TEXT with --tokenizer FILE), not both");
  if (haveText && tokenizerPath.empty())
    return fail("--prompt needs --tokenizer FILE (tokenizer.json, or GPT-2 "
                "vocab.json with merges.txt)");
  std::unique_ptr<Tokenizer> tokenizer;
  if (!tokenizerPath.empty()) {
    llvm::Expected<std::unique_ptr<Tokenizer>> loaded =
        Tokenizer::load(tokenizerPath);
    if (!loaded)
      return fail(loaded.takeError());
    tokenizer = std::move(*loaded);
  }
  llvm::Expected<SmallVector<int64_t>> prompt = SmallVector<int64_t>();
  if (haveIds)
    prompt = llmc::parseTokenIds(promptIds, "--prompt-ids", "464,3290,318");
  if (!prompt)
    return fail(prompt.takeError());
  if (haveText) {
    if (std::optional<int64_t> bos = tokenizer->bosId())
      prompt->push_back(*bos);
    for (int64_t id : tokenizer->encode(promptText))
      prompt->push_back(id);
  }
  if (maxNewTokens < 0)
    return fail("--max-new-tokens must be >= 0, got " +
                llvm::Twine(maxNewTokens.getValue()));
  if (numThreads.getNumOccurrences() && (numThreads < 1 || numThreads > 1024))
    return fail("--threads must be in [1, 1024], got " +
                llvm::Twine(numThreads.getValue()));
  SamplingOptions sampling;
  sampling.greedy =
      greedy || (!temperature.getNumOccurrences() &&
                 !topK.getNumOccurrences() && !topP.getNumOccurrences());
  sampling.temperature = temperature;
  sampling.topK = topK;
  sampling.topP = topP;
  sampling.seed = seed;
  if (greedy && (temperature.getNumOccurrences() || topK.getNumOccurrences() ||
                 topP.getNumOccurrences()))
    return fail("--greedy cannot be combined with --temperature, --top-k or "
                "--top-p");
  if (llvm::Error e = checkSamplingOptions(sampling))
    return fail(std::move(e));
  bool onnx = StringRef(modelPath).ends_with_insensitive(".onnx");
#if !LLMC_HAVE_ONNX
  if (onnx)
    return fail("cannot load '" + modelPath +
                "': this llmc was built without the ONNX importer (it needs "
                "libonnx-dev)");
#endif
  if (llvm::Error e =
          llm::checkInputFile(modelPath, "model '" + modelPath + "'"))
    return fail(std::move(e));
  if (numThreads.getNumOccurrences())
    setenv("OMP_NUM_THREADS", std::to_string(numThreads.getValue()).c_str(), 1);

  DialectRegistry registry;
  registerRuntimeDialects(registry);
  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module;
  if (onnx) {
#if LLMC_HAVE_ONNX
    // A decoder exported with past_key_values, in the cached form; the
    // cache holds --max-seq positions when given, else the model's bound.
    llm::ImportOptions importOptions;
    importOptions.kvCache = true;
    if (maxSeq.getNumOccurrences() && maxSeq >= 1)
      importOptions.dimBounds["input_ids:1"] = maxSeq;
    if (maxSeq.getNumOccurrences() && maxSeq < 3)
      return fail("--max-seq must be at least 3 for an ONNX model (its "
                  "sequence stays dynamic up to that bound), got " +
                  llvm::Twine(maxSeq.getValue()));
    module = llm::importONNXModel(modelPath, &ctx, importOptions);
    if (!module && !maxSeq.getNumOccurrences())
      return fail("cannot import '" + modelPath +
                  "' for generation (where an error above suggests "
                  "--dim-bound, `llmc generate` takes --max-seq N)");
    if (!module && maxSeq.getNumOccurrences())
      return fail("cannot import '" + modelPath + "' with --max-seq " +
                  llvm::Twine(maxSeq.getValue()) +
                  " (the cache's positions, which the model's tables must "
                  "hold; the bound named above is --max-seq)");
#endif
  } else {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(modelPath, &error);
    if (!file)
      return fail("cannot open model '" + modelPath + "': " + error);
    module = parseModelBuffer(std::move(file), modelPath, ctx, sourceMgr);
  }
  if (!module)
    return 1;
  FailureOr<EntrySignature> signature = getEntrySignature(*module, entryName);
  if (failed(signature))
    return 1;
  llvm::Expected<GenerationInterface> interface =
      getGenerationInterface(*signature);
  if (!interface)
    return fail(interface.takeError());
  // A tokenizer that cannot print every id the model may produce: said
  // before anything runs (models often pad their vocabulary; an id past
  // the tokenizer's is an error only if it comes out).
  if (tokenizer && tokenizer->vocabSize() < interface->vocabSize)
    llvm::WithColor::warning(llvm::errs(), "llmc")
        << "the tokenizer has " << tokenizer->vocabSize()
        << " ids but the model " << interface->vocabSize
        << " logits: generation stops with an error if the model produces "
           "an id of "
        << tokenizer->vocabSize() << " or more\n";
  int64_t limit = interface->maxSequence;
  if (maxSeq.getNumOccurrences()) {
    if (maxSeq < 1 || maxSeq > limit)
      return fail("--max-seq must be in [1, " + llvm::Twine(limit) +
                  "] (the model's declared sequence bound), got " +
                  llvm::Twine(maxSeq.getValue()));
    limit = maxSeq;
  }
  // The sequence (prompt and new tokens) holds at most `limit` tokens: a
  // prompt that fills it leaves no room for a new one.
  int64_t promptTokens = static_cast<int64_t>(prompt->size());
  if (promptTokens > limit || (promptTokens == limit && maxNewTokens > 0))
    return fail("the prompt has " + llvm::Twine(promptTokens) + " tokens, " +
                (promptTokens > limit ? "more than" : "as many as") + " the " +
                llvm::Twine(limit) + " positions available (" +
                (maxSeq.getNumOccurrences() ? "--max-seq"
                                            : "the model's declared sequence "
                                              "bound, llm.dim_bounds") +
                ")" +
                (promptTokens == limit ? ": no room for a new token" : ""));
  for (auto [i, id] : llvm::enumerate(*prompt))
    if (id < 0 || id >= interface->vocabSize)
      return fail(llvm::Twine(haveIds ? "--prompt-ids" : "--prompt") +
                  ": token id " + llvm::Twine(id) + " (#" +
                  llvm::Twine(i) + ") is outside the vocabulary [0, " +
                  llvm::Twine(interface->vocabSize) + ")");

  if (stopId.getNumOccurrences() &&
      (stopId < 0 || stopId >= interface->vocabSize))
    return fail("--stop-id " + llvm::Twine(stopId.getValue()) +
                " is outside the vocabulary [0, " +
                llvm::Twine(interface->vocabSize) + ")");

  // --tensor-parallel N: this rank's program (compileForGeneration splits
  // the graph and the caches); rank 0 alone prints.
  std::string loweringOptions = pipelineOptions;
  bool printsFigures = true;
  if (tensorParallel.getNumOccurrences()) {
    llvm::Expected<bool> rankZero =
        llmc::joinTensorParallelJob(tensorParallel, loweringOptions);
    if (!rankZero)
      return fail(rankZero.takeError());
    printsFigures = *rankZero;
  } else if (llvm::Error e =
                 llmc::checkNoTensorParallelOption(loweringOptions)) {
    return fail(std::move(e));
  }
  CompileOptions options;
  options.entry = entryName;
  options.lowering.pipelineOptions = loweringOptions;
  options.lowering.noOpt = noOpt;
  auto compileStart = std::chrono::steady_clock::now();
  FailureOr<std::unique_ptr<CompiledModel>> compiled =
      compileForGeneration(*module, options);
  if (failed(compiled))
    return 1;
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  // The compiled entries return the last position's logits
  // (llm-keep-last-logits): the session is sized from their signature.
  interface = getGenerationInterface((*compiled)->getSignature());
  if (!interface)
    return fail(interface.takeError());
  llvm::Expected<std::unique_ptr<GenerationSession>> session =
      GenerationSession::create(std::move(*compiled), *interface);
  if (!session)
    return fail(session.takeError());
  llmc::waitForAllRanks();

  using Clock = std::chrono::steady_clock;
  if (llvm::Error e = (*session)->setSampling(sampling))
    return fail(std::move(e));
  llvm::raw_ostream &os = llvm::outs();
  auto start = Clock::now();
  if (llvm::Error e = (*session)->prefill(*prompt))
    return fail(std::move(e));
  double prefillSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  SmallVector<double> decodeSeconds;
  int64_t produced = 0;
  // With a tokenizer: text as it becomes complete UTF-8, and the EOS id
  // ends the generation.
  std::optional<Tokenizer::StreamDecoder> text;
  std::optional<int64_t> eos;
  if (tokenizer) {
    text.emplace(*tokenizer);
    if (!ignoreEos)
      eos = tokenizer->eosId();
  }
  // The sequence (prompt and new tokens) holds at most `limit` tokens.
  int64_t promptLength = prompt->size();
  while (produced < maxNewTokens && promptLength + produced < limit) {
    int64_t id = (*session)->sampleNext();
    if (id < 0) {
      os << "\n";
      return fail("the model's logits after " +
                  llvm::Twine(promptLength + produced) +
                  " tokens are not finite (NaN or +inf, or all -inf): "
                  "nothing to sample (an overflow in the model, e.g. in "
                  "f16?)");
    }
    if (text) {
      llvm::Expected<std::string> piece = text->push(id);
      if (!piece) {
        os << "\n";
        return fail(piece.takeError());
      }
      os << *piece;
    } else {
      os << (produced ? "," : "") << id;
    }
    os.flush();
    ++produced;
    if (id == stopId || id == eos || produced == maxNewTokens ||
        promptLength + produced >= limit)
      break;
    auto t0 = Clock::now();
    if (llvm::Error e = (*session)->decode(id)) {
      os << "\n";
      return fail(std::move(e));
    }
    decodeSeconds.push_back(
        std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (text)
    os << text->flush();
  os << "\n";

  double decodeTotal = 0, decodeMedian = 0;
  for (double seconds : decodeSeconds)
    decodeTotal += seconds;
  if (!decodeSeconds.empty()) {
    SmallVector<double> sorted(decodeSeconds);
    llvm::sort(sorted);
    decodeMedian = sorted[sorted.size() / 2];
  }
  GenerationMemory memory = (*session)->getMemory();
  llvm::raw_ostream &es = llvm::errs();
  if (!printsFigures)
    return 0;
  if (reportJson) {
    // One object on stderr (stdout holds the tokens); times in ms, sizes
    // in bytes.
    llvm::json::Object report{
        {"compile_ms", compileSeconds * 1e3},
        {"prompt_tokens", static_cast<int64_t>(prompt->size())},
        {"new_tokens", produced},
        {"prefill_ms", prefillSeconds * 1e3},
        {"decode_steps", static_cast<int64_t>(decodeSeconds.size())},
        {"decode_ms", decodeTotal * 1e3},
        {"decode_median_ms", decodeMedian * 1e3},
        {"memory",
         llvm::json::Object{{"weights_bytes", memory.weights},
                            {"kv_cache_bytes", memory.kvCache},
                            {"kv_cache_positions", interface->maxSequence},
                            {"arena_bytes", memory.arena},
                            {"tile_scratch_bytes", memory.tileScratch},
                            {"buffers_bytes", memory.io}}}};
    es << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
       << "\n";
    return 0;
  }
  es << llvm::format("compile: %.2f s\n", compileSeconds);
  es << llvm::format("prefill: %zu tokens in %.3f ms (%.1f tokens/s)\n",
                     prompt->size(), prefillSeconds * 1e3,
                     prompt->size() / prefillSeconds);
  if (!decodeSeconds.empty())
    es << llvm::format("decode: %zu tokens in %.3f ms (%.1f tokens/s, median "
                       "%.3f ms/token)\n",
                       decodeSeconds.size(), decodeTotal * 1e3,
                       decodeSeconds.size() / decodeTotal,
                       decodeMedian * 1e3);
  else
    es << "decode: no decode step ran\n";
  es << "memory: weights " << formatBytes(memory.weights) << ", KV cache "
     << formatBytes(memory.kvCache) << " (" << interface->maxSequence
     << " positions), arena " << formatBytes(memory.arena) << ", tile scratch "
     << formatBytes(memory.tileScratch) << " per thread (stack), buffers "
     << formatBytes(memory.io) << "\n";
  return 0;
}
