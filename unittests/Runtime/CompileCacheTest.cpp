//===- CompileCacheTest.cpp - Tests of the compile cache and progress -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CompileCache.h"
#include "llm/Runtime/Progress.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <thread>

#include <unistd.h>

using namespace mlir;
using namespace mlir::llm::runtime;

namespace {

constexpr const char *kModel = R"mlir(
func.func @main(%a: tensor<2x3xf32> {llm.name = "a"}, %b: tensor<3xf32>)
    -> (tensor<2x3xf32> {llm.name = "y"}) {
  %0 = llm.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)mlir";

class CompileCacheTest : public ::testing::Test {
protected:
  CompileCacheTest() : ctx(makeRegistry()) {
    ctx.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      messages.push_back(diag.str());
      return success();
    });
    llvm::SmallString<128> path;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("llmc-cache-test", path));
    dir = path.str().str();
  }
  ~CompileCacheTest() override { llvm::sys::fs::remove_directories(dir); }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerRuntimeDialects(registry);
    return registry;
  }

  CompileCache makeCache(uint64_t maxBytes = 0) {
    CacheOptions options;
    options.directory = dir + "/cache";
    options.maxBytes = maxBytes;
    options.onWarning = [this](const std::string &w) { warnings.push_back(w); };
    return CompileCache(options);
  }

  /// Compiles `model` (kModel by default) through `cache`; returns the
  /// outcome.
  CacheEvent compile(CompileCache &cache, const CompileOptions &options,
                     std::unique_ptr<CompiledModel> *out = nullptr,
                     const char *text = kModel) {
    CacheEvent event;
    FailureOr<std::unique_ptr<CompiledModel>> model = cache.getOrCompile(
        ctx, "model.mlir", digestModelText(text), options,
        [&] {
          return parseSourceString<ModuleOp>(text, ParserConfig(&ctx),
                                             /*sourceName=*/"model.mlir");
        },
        &event);
    EXPECT_TRUE(succeeded(model)) << (messages.empty() ? "" : messages[0]);
    if (out && succeeded(model))
      *out = std::move(*model);
    return event;
  }

  size_t countEntries() {
    size_t n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir + "/cache", ec), end;
         !ec && it != end; it.increment(ec))
      n += llvm::StringRef(it->path()).ends_with(".llmcc");
    return n;
  }

  MLIRContext ctx;
  std::string dir;
  std::vector<std::string> messages, warnings;
};

TEST_F(CompileCacheTest, MissThenHit) {
  CompileCache cache = makeCache();
  CompileOptions options;
  std::unique_ptr<CompiledModel> first, second;
  CacheEvent miss = compile(cache, options, &first);
  EXPECT_EQ(miss.outcome, CacheOutcome::Miss);
  EXPECT_EQ(miss.detail, "stored");
  EXPECT_TRUE(llvm::sys::fs::exists(miss.path));
  CacheEvent hit = compile(cache, options, &second);
  EXPECT_EQ(hit.outcome, CacheOutcome::Hit);
  EXPECT_EQ(hit.path, miss.path);
  EXPECT_EQ(countEntries(), 1u);

  // The loaded model has the signature, with its names, and computes the
  // same.
  const EntrySignature &sig = second->getSignature();
  ASSERT_EQ(sig.inputs.size(), 2u);
  EXPECT_EQ(sig.inputs[0].str(), "tensor<2x3xf32>");
  EXPECT_EQ(sig.inputNames[0], "a");
  EXPECT_EQ(sig.inputNames[1], "");
  EXPECT_EQ(sig.resultNames[0], "y");
  HostTensor a(DType::F32, {2, 3}), b(DType::F32, {3});
  HostTensor out1(DType::F32, {2, 3}), out2(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    a.setFromDouble(i, i);
  for (int i = 0; i < 3; ++i)
    b.setFromDouble(i, i + 0.5);
  ASSERT_FALSE(!!first->invoke({a, b}, {out1}));
  ASSERT_FALSE(!!second->invoke({a, b}, {out2}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out2.getAsDouble(i), i * (i % 3 + 0.5));
  EXPECT_EQ(0, std::memcmp(out1.getData(), out2.getData(), 6 * 4));

  // Other options: another key.
  options.optLevel = 1;
  EXPECT_EQ(compile(cache, options).outcome, CacheOutcome::Miss);
  options.optLevel = 3;
  options.lowering.noOpt = true;
  EXPECT_EQ(compile(cache, options).outcome, CacheOutcome::Miss);
  EXPECT_EQ(countEntries(), 3u);
  EXPECT_TRUE(warnings.empty());
}

// A model whose compilation warns: a recorded sparse format that no kernel
// takes (convert-llm-to-linalg warns, and the dense kernel runs).
constexpr const char *kWarningModel = R"mlir(
func.func @main(%x: tensor<1x32xf32>) -> tensor<1x5xf32> {
  %c = llm.constant dense<1.0> : tensor<5x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr5x32"}}
      : (tensor<1x32xf32>, tensor<5x32xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}
)mlir";

TEST_F(CompileCacheTest, HitEmitsTheCompilationsWarnings) {
  CompileCache cache = makeCache();
  CompileOptions options;
  std::vector<std::string> locations;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    auto loc = diag.getLocation()->findInstanceOf<FileLineColLoc>();
    locations.push_back(
        loc ? (loc.getFilename().str() + ":" + std::to_string(loc.getLine()))
            : "unknown");
    return failure(); // On to the fixture's handler.
  });
  CacheEvent miss = compile(cache, options, nullptr, kWarningModel);
  EXPECT_EQ(miss.outcome, CacheOutcome::Miss);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("llm.sparse_format 'bsr5x32' is not honoured"),
            std::string::npos)
      << messages[0];
  std::vector<std::string> first = messages, firstLocations = locations;
  messages.clear();
  locations.clear();
  // The hit compiles nothing and emits the same warning at the same place.
  CacheEvent hit = compile(cache, options, nullptr, kWarningModel);
  EXPECT_EQ(hit.outcome, CacheOutcome::Hit);
  ASSERT_EQ(hit.diagnostics.size(), 1u);
  EXPECT_EQ(hit.diagnostics[0].severity, DiagnosticSeverity::Warning);
  EXPECT_EQ(messages, first);
  EXPECT_EQ(locations, firstLocations);
  EXPECT_EQ(locations, std::vector<std::string>{"model.mlir:4"});
  // A model without warnings: none stored, none emitted.
  messages.clear();
  EXPECT_EQ(compile(cache, options).outcome, CacheOutcome::Miss);
  CacheEvent quiet = compile(cache, options);
  EXPECT_EQ(quiet.outcome, CacheOutcome::Hit);
  EXPECT_TRUE(quiet.diagnostics.empty());
  EXPECT_TRUE(messages.empty());
}

TEST_F(CompileCacheTest, KeyCoversTheOptions) {
  CompileCache cache = makeCache();
  std::string digest = digestModelText(kModel);
  CompileOptions options;
  std::optional<CompileCache::Key> key = cache.getKey(digest, options);
  ASSERT_TRUE(key);
  EXPECT_EQ(key->hash.size(), 32u);
  EXPECT_NE(key->text.find("target: "), std::string::npos);
  EXPECT_NE(key->text.find("compiler: llmc "), std::string::npos);
  // Spelled differently, the same pipeline options: the same key.
  CompileOptions spelled = options;
  spelled.lowering.pipelineOptions = "vectorize=true";
  EXPECT_EQ(cache.getKey(digest, spelled)->hash, key->hash);
  // --no-opt is the same as turning its options off by hand.
  CompileOptions noOpt = options;
  noOpt.lowering.noOpt = true;
  EXPECT_NE(cache.getKey(digest, noOpt)->hash, key->hash);
  // What does not change the code does not change the key.
  CompileOptions verify = options;
  verify.lowering.verifyEach = false;
  EXPECT_EQ(cache.getKey(digest, verify)->hash, key->hash);
  // Invalid options: no key (the compilation reports them).
  CompileOptions bad = options;
  bad.lowering.pipelineOptions = "no-such-option=1";
  EXPECT_FALSE(cache.getKey(digest, bad));
  // Another model.
  EXPECT_NE(
      cache.getKey(digestModelText(std::string(kModel) + " "), options)->hash,
      key->hash);
}

TEST_F(CompileCacheTest, CorruptEntryIsRecompiled) {
  CompileCache cache = makeCache();
  CompileOptions options;
  CacheEvent miss = compile(cache, options);
  ASSERT_EQ(miss.outcome, CacheOutcome::Miss);
  // Flip the last byte (the object's).
  {
    auto buffer = llvm::MemoryBuffer::getFile(miss.path);
    ASSERT_TRUE(!!buffer);
    std::string bytes = (*buffer)->getBuffer().str();
    bytes.back() ^= 1;
    std::error_code ec;
    llvm::raw_fd_ostream os(miss.path, ec);
    os << bytes;
  }
  CacheEvent again = compile(cache, options);
  EXPECT_EQ(again.outcome, CacheOutcome::Miss);
  EXPECT_EQ(again.detail, "corrupt entry (object checksum mismatch): "
                          "removed, recompiling; stored");
  EXPECT_EQ(compile(cache, options).outcome, CacheOutcome::Hit);
  // Truncated.
  {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForReadWrite(
        miss.path, fd, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_None));
    ASSERT_FALSE(llvm::sys::fs::resize_file(fd, 50));
    ::close(fd);
  }
  CacheEvent truncated = compile(cache, options);
  EXPECT_EQ(truncated.outcome, CacheOutcome::Miss);
  EXPECT_EQ(truncated.detail,
            "corrupt entry (truncated header): removed, recompiling; stored");
  EXPECT_TRUE(warnings.empty());
}

// A warning at a location nested 3000 levels deep (names within names,
// deeper than llmc's tools parse, but not than this API): its entry's
// metadata nests deeper than the loader takes (llvm::json recurses per
// level), so the hit finds it corrupt and compiles again, without
// overflowing the stack. 1000 levels, the most llmc parses, hit.
TEST_F(CompileCacheTest, DeeplyNestedMetadataIsRefused) {
  auto nested = [](int levels) {
    std::string loc = "\"model.mlir\":4:8";
    for (int i = 0; i < levels; ++i)
      loc = "\"n\"(" + loc + ")";
    std::string model = kWarningModel;
    size_t at = model.find("tensor<1x5xf32>\n  return");
    model.insert(at + std::strlen("tensor<1x5xf32>"), " loc(" + loc + ")");
    return model;
  };
  CompileCache cache = makeCache();
  CompileOptions options;
  std::string deep = nested(3000);
  CacheEvent miss = compile(cache, options, nullptr, deep.c_str());
  EXPECT_EQ(miss.outcome, CacheOutcome::Miss);
  ASSERT_EQ(messages.size(), 1u);
  CacheEvent again = compile(cache, options, nullptr, deep.c_str());
  EXPECT_EQ(again.outcome, CacheOutcome::Miss);
  EXPECT_EQ(again.detail, "corrupt entry (bad metadata: nested more than "
                          "2064 levels deep): removed, recompiling; stored");
  EXPECT_EQ(messages.size(), 2u);
  std::string parsable = nested(1000);
  EXPECT_EQ(compile(cache, options, nullptr, parsable.c_str()).outcome,
            CacheOutcome::Miss);
  EXPECT_EQ(compile(cache, options, nullptr, parsable.c_str()).outcome,
            CacheOutcome::Hit);
}

TEST_F(CompileCacheTest, UnwritableDirectoryWarnsOnce) {
  // The cache directory's path is a regular file.
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir + "/cache", ec);
  }
  CompileCache cache = makeCache();
  CompileOptions options;
  CacheEvent first = compile(cache, options);
  EXPECT_EQ(first.outcome, CacheOutcome::Miss);
  EXPECT_EQ(first.detail.rfind("not stored: ", 0), 0u) << first.detail;
  CacheEvent second = compile(cache, options);
  EXPECT_EQ(second.detail, "not stored: the cache directory is not writable");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("compile cache: cannot store compiled models in"),
            std::string::npos);
}

TEST_F(CompileCacheTest, SizeLimitEvictsLeastRecentlyUsed) {
  CompileOptions a, b, c;
  b.optLevel = 2;
  c.optLevel = 1;
  uint64_t size;
  {
    CompileCache unlimited = makeCache();
    CacheEvent event = compile(unlimited, a);
    ASSERT_FALSE(llvm::sys::fs::file_size(event.path, size));
    llvm::sys::fs::remove(event.path);
  }
  // Room for about two entries. (The pauses: file times advance with the
  // kernel's clock tick, a few ms.)
  auto pause = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  };
  CompileCache cache = makeCache(size * 5 / 2);
  std::string pathA = compile(cache, a).path;
  pause();
  std::string pathB = compile(cache, b).path;
  pause();
  EXPECT_EQ(compile(cache, a).outcome, CacheOutcome::Hit); // A is newest now.
  pause();
  std::string pathC = compile(cache, c).path;
  EXPECT_TRUE(llvm::sys::fs::exists(pathA));
  EXPECT_FALSE(llvm::sys::fs::exists(pathB));
  EXPECT_TRUE(llvm::sys::fs::exists(pathC));
  // Larger than the whole limit: not stored.
  CompileCache tiny = makeCache(size / 2);
  CompileOptions d;
  d.optLevel = 0;
  CacheEvent big = compile(tiny, d);
  EXPECT_EQ(big.detail.rfind("not stored: the entry (", 0), 0u) << big.detail;
  EXPECT_FALSE(llvm::sys::fs::exists(big.path));
}

/// A protobuf length-delimited field.
static std::string field(unsigned number, const std::string &value) {
  std::string out;
  out += static_cast<char>(number << 3 | 2);
  size_t n = value.size();
  do {
    out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n);
  return out + value;
}

TEST_F(CompileCacheTest, ONNXDigestCoversExternalData) {
  // ModelProto{graph: GraphProto{initializer: TensorProto{external_data:
  // [{key: "location", value: "w.bin"}]}}}.
  std::string tensor = field(13, field(1, "location") + field(2, "w.bin"));
  std::string model = field(7, field(5, tensor));
  auto write = [&](llvm::StringRef name, llvm::StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir + "/" + name.str(), ec);
    os << bytes;
  };
  write("m.onnx", model);
  write("w.bin", "weights 1");
  llvm::Expected<std::string> d1 = digestModelFile(dir + "/m.onnx");
  ASSERT_TRUE(!!d1) << llvm::toString(d1.takeError());
  EXPECT_NE(d1->find("external w.bin "), std::string::npos) << *d1;
  write("w.bin", "weights 2");
  llvm::Expected<std::string> d2 = digestModelFile(dir + "/m.onnx");
  ASSERT_TRUE(!!d2);
  EXPECT_NE(*d1, *d2);
  // --dim values, in any order, are part of it.
  llvm::Expected<std::string> d3 =
      digestModelFile(dir + "/m.onnx", {"b=2,a=1"});
  llvm::Expected<std::string> d4 =
      digestModelFile(dir + "/m.onnx", {"a=1", "b=2"});
  ASSERT_TRUE(d3 && d4);
  EXPECT_EQ(*d3, *d4);
  EXPECT_NE(*d2, *d3);
  // Not a ModelProto: no digest (the import reports it).
  write("bad.onnx", "\xff\xff\xff");
  llvm::Expected<std::string> bad = digestModelFile(dir + "/bad.onnx");
  EXPECT_FALSE(!!bad);
  llvm::consumeError(bad.takeError());
  // An MLIR file has the digest of its text.
  write("m.mlir", kModel);
  llvm::Expected<std::string> text = digestModelFile(dir + "/m.mlir");
  ASSERT_TRUE(!!text);
  EXPECT_EQ(*text, digestModelText(kModel));
}

TEST(ProgressTest, Format) {
  EXPECT_EQ(TerminalProgress::format("LLVM codegen", 0.70),
            "llmc: [ 70%] LLVM codegen");
  EXPECT_EQ(TerminalProgress::format("a", 0), "llmc: [  0%] a");
  EXPECT_EQ(TerminalProgress::format("a", 0.999), "llmc: [ 99%] a");
  EXPECT_EQ(TerminalProgress::format("a", 1), "llmc: [100%] a");
  EXPECT_EQ(TerminalProgress::format("a", 7), "llmc: [100%] a");
  EXPECT_EQ(TerminalProgress::format("a", -1), "llmc: [  0%] a");
  EXPECT_EQ(TerminalProgress::format("a", std::nan("")), "llmc: [  0%] a");
  // Cut to one column less than the width.
  EXPECT_EQ(TerminalProgress::format("lowering: canonicalize", 0.5, 20),
            "llmc: [ 50%] loweri");
}

TEST(ProgressTest, UpdatesAndClears) {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    TerminalProgress progress(os, std::chrono::milliseconds(0),
                              std::chrono::milliseconds(0));
    progress.update("parsing m.mlir", 0);
    progress.update("parsing m.mlir", 0); // Unchanged: not written again.
    progress.update("LLVM codegen", 0.7);
    progress.clear();
    progress.clear(); // Nothing shown: nothing written.
    progress.update("loading", 0.97);
  } // The destructor clears.
  EXPECT_EQ(text, "\rllmc: [  0%] parsing m.mlir\x1b[K"
                  "\rllmc: [ 70%] LLVM codegen\x1b[K"
                  "\r\x1b[K"
                  "\rllmc: [ 97%] loading\x1b[K"
                  "\r\x1b[K");
  // Before the delay nothing is shown.
  std::string quiet;
  llvm::raw_string_ostream qs(quiet);
  {
    TerminalProgress progress(qs, std::chrono::hours(1));
    progress.update("lowering: cse", 0.3);
  }
  EXPECT_EQ(quiet, "");
}

} // namespace
