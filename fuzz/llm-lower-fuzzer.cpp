//===- llm-lower-fuzzer.cpp - libFuzzer target: parse + llm-lower-to-cpu --===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to what `llmc compile MODEL.mlir --emit=mlir` does: parse
// (which verifies), check the entry signature of @main, then lower with
// `llm-lower-to-cpu` (the pass manager verifies after every pass). Both the
// default (optimizing) and the --no-opt lowering run on a clone. Errors are
// expected and ignored; a crash, an assertion, an ASan/UBSan report, or a
// module that fails verification after a pass that "succeeded" is a finding.
//
// Inputs whose ops come from dialects other than builtin, func, arith and llm
// are skipped: the target fuzzes llmc, not every upstream dialect's parser and
// verifier. Seeds: the .mlir files of test/ (scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CompiledModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace mlir;

/// Largest input accepted (bytes): bigger ones only slow the search down.
static constexpr size_t kMaxInputSize = 16 * 1024;

/// True when every op of `module` belongs to a dialect llmc's inputs use.
static bool usesOnlyInputDialects(ModuleOp module) {
  WalkResult result = module->walk([](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns == "builtin" || ns == "func" || ns == "arith" || ns == "llm")
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

//===----------------------------------------------------------------------===//
// Structure-aware mutations
//===----------------------------------------------------------------------===//

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

/// Replaces [begin, end) of `text` with `with`.
static void splice(std::string &text, size_t begin, size_t end,
                   llvm::StringRef with) {
  text.replace(begin, end - begin, with.str());
}

/// Mutates the module text at the token level (byte mutations mostly make
/// parse errors): an integer literal becomes an interesting size, an llm op
/// name another op, an element type another type, or a line is deleted or
/// duplicated. Half of the mutations are libFuzzer's own byte mutations.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  if (rng() % 2)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<char *>(data), size);
  static const char *numbers[] = {
      "0", "1", "2", "3", "-1", "-2", "5", "7", "64", "1024",
      "2147483648", "4294967296", "4611686018427387904",
      "9223372036854775807", "-9223372036854775808", "1099511627776"};
  static const char *ops[] = {
      "llm.add", "llm.sub", "llm.mul", "llm.div", "llm.max", "llm.relu",
      "llm.exp", "llm.gelu", "llm.matmul", "llm.softmax", "llm.layer_norm",
      "llm.rms_norm", "llm.rope", "llm.attention", "llm.embedding",
      "llm.transpose", "llm.reshape", "llm.concat", "llm.slice",
      "llm.broadcast_to", "llm.reduce_sum", "llm.reduce_max", "llm.cast"};
  static const char *types[] = {"f32", "f16", "bf16", "i64", "i32", "i1",
                                "i8", "f64"};
  auto pickPosition = [&](auto isStart) -> std::optional<size_t> {
    std::vector<size_t> positions;
    for (size_t i = 0; i < text.size(); ++i)
      if (isStart(i))
        positions.push_back(i);
    if (positions.empty())
      return std::nullopt;
    return positions[rng() % positions.size()];
  };
  switch (rng() % 5) {
  case 0: { // An integer literal.
    auto pos = pickPosition([&](size_t i) {
      return llvm::isDigit(text[i]) && (i == 0 || !llvm::isAlnum(text[i - 1]));
    });
    if (!pos)
      break;
    size_t end = *pos;
    while (end < text.size() && llvm::isDigit(text[end]))
      ++end;
    splice(text, *pos, end, numbers[rng() % std::size(numbers)]);
    break;
  }
  case 1: { // An op name.
    auto pos = pickPosition(
        [&](size_t i) { return llvm::StringRef(text).substr(i).starts_with("llm."); });
    if (!pos)
      break;
    size_t end = *pos + 4;
    while (end < text.size() && (llvm::isAlnum(text[end]) || text[end] == '_'))
      ++end;
    splice(text, *pos, end, ops[rng() % std::size(ops)]);
    break;
  }
  case 2: { // An element type.
    auto pos = pickPosition([&](size_t i) {
      llvm::StringRef rest = llvm::StringRef(text).substr(i);
      return i > 0 && text[i - 1] == 'x' &&
             (rest.starts_with("f32") || rest.starts_with("f16") ||
              rest.starts_with("i64"));
    });
    if (!pos)
      break;
    splice(text, *pos, *pos + 3, types[rng() % std::size(types)]);
    break;
  }
  default: { // Delete or duplicate a line.
    std::vector<size_t> starts{0};
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n' && i + 1 < text.size())
        starts.push_back(i + 1);
    size_t k = rng() % starts.size();
    size_t begin = starts[k];
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string line = text.substr(begin, end - begin);
    if (rng() % 2)
      splice(text, begin, end, "");
    else
      text.insert(starts[rng() % starts.size()], line);
    break;
  }
  }
  if (text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputSize)
    return -1; // Not added to the corpus.
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    llm::runtime::registerRuntimeDialects(*r);
    return r;
  }();
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  // Diagnostics are expected; drop them.
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });

  // A NUL-terminated copy: MLIR's lexer stops at the trailing NUL that a
  // MemoryBuffer (llmc's file inputs) or std::string provides.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || !usesOnlyInputDialects(*module))
    return 0;
  if (failed(llm::runtime::getEntrySignature(*module, "main")))
    return 0;
  OwningOpRef<ModuleOp> reference = cast<ModuleOp>((*module)->clone());

  llm::runtime::LoweringOptions options;
  if (succeeded(llm::runtime::lowerToLLVMDialect(*module, options)) &&
      failed(verify(*module)))
    std::abort(); // A lowering that succeeds must leave valid IR.
  options.noOpt = true;
  if (succeeded(llm::runtime::lowerToLLVMDialect(*reference, options)) &&
      failed(verify(*reference)))
    std::abort();
  return 0;
}
