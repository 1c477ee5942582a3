//===- onnx-import-fuzzer.cpp - libFuzzer target: the ONNX importer -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Feeds each input, as the bytes of a .onnx file, to the ONNX importer
// (`llmc import`): protobuf parsing, ONNX shape inference, and the import into
// the llm dialect; an imported module must verify. External data resolves
// against a directory that does not exist, so a fuzzed location reads nothing
// (locations that leave the model's directory are rejected first). Errors are
// expected and ignored; a crash, an ASan/UBSan report, or an imported module
// that does not verify is a finding. Seeds: ONNX backend node tests
// (/usr/share/libonnx-testdata/data/node/*/model.onnx, see scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

/// Largest input accepted (bytes).
static constexpr size_t kMaxInputSize = 64 * 1024;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputSize)
    return -1;
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    r->insert<llm::LLMDialect>();
    return r;
  }();
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });

  llvm::MemoryBufferRef buffer(
      StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx");
  OwningOpRef<ModuleOp> module = llm::importONNXModel(
      buffer, "/nonexistent-llmc-fuzz-dir", &ctx, llm::ImportOptions());
  if (module && failed(verify(*module)))
    std::abort(); // The importer must produce valid IR or fail.
  return 0;
}
