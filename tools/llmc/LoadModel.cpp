//===- LoadModel.cpp - Model files for llmc's subcommands -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Generate.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#if LLMC_HAVE_ONNX
#include "llm/Support/MLIRNesting.h"
#include "llm/Target/ONNX/ImportONNX.h"
#endif

using namespace mlir;

OwningOpRef<ModuleOp>
llmc::importONNXFile(llvm::StringRef path, llvm::ArrayRef<std::string> dimSpecs,
                     llvm::ArrayRef<std::string> dimBoundSpecs,
                     MLIRContext &ctx) {
#if LLMC_HAVE_ONNX
  llm::ImportOptions options;
  for (const std::string &spec : dimSpecs) {
    std::string error;
    if (!llm::parseDimSpec(spec, options, error)) {
      fail("--dim '" + spec + "': " + error);
      return nullptr;
    }
  }
  for (const std::string &spec : dimBoundSpecs) {
    std::string error;
    if (!llm::parseDimBoundSpec(spec, options, error)) {
      fail("--dim-bound '" + spec + "': " + error);
      return nullptr;
    }
  }
  if (!llvm::sys::fs::exists(path)) {
    fail("cannot open model '" + path + "': No such file or directory");
    return nullptr;
  }
  return llm::importONNXModel(path, &ctx, options);
#else
  (void)dimSpecs;
  (void)dimBoundSpecs;
  (void)ctx;
  fail("cannot load '" + path +
       "': this llmc was built without the ONNX importer (it needs "
       "libonnx-dev); import the model elsewhere and pass the .mlir file");
  return nullptr;
#endif
}

OwningOpRef<ModuleOp>
llmc::loadModelFile(llvm::StringRef path, llvm::ArrayRef<std::string> dimSpecs,
                    MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
                    llvm::ArrayRef<std::string> dimBoundSpecs) {
  if (path.ends_with_insensitive(".onnx"))
    return importONNXFile(path, dimSpecs, dimBoundSpecs, ctx);
  if (!dimSpecs.empty() || !dimBoundSpecs.empty()) {
    fail(llvm::Twine(dimSpecs.empty() ? "--dim-bound" : "--dim") +
         " applies only to ONNX models (.onnx)");
    return nullptr;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    fail("cannot open model '" + path + "': " + error);
    return nullptr;
  }
  return parseModelBuffer(std::move(file), path, ctx, sourceMgr);
}

OwningOpRef<ModuleOp>
llmc::parseModelBuffer(std::unique_ptr<llvm::MemoryBuffer> file,
                       llvm::StringRef path, MLIRContext &ctx,
                       llvm::SourceMgr &sourceMgr) {
  // MLIR text holds no NUL byte; MLIR bytecode starts with its magic.
  if (!isBytecode(file->getMemBufferRef()) &&
      file->getBuffer().take_front(4096).contains('\0')) {
    fail("cannot parse '" + path +
         "': binary data that is not MLIR (text or bytecode); an ONNX model "
         "must be given as a file whose name ends in .onnx");
    return nullptr;
  }
  if (std::optional<std::string> why =
          mlir::llm::checkMLIRNesting(file->getMemBufferRef())) {
    fail("cannot parse '" + path + "': " + *why);
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Verified after the depth check: verifiers recurse too.
  // On a large stack: bytecode stores some attributes as text, which it
  // parses unchecked.
  OwningOpRef<ModuleOp> module;
  mlir::llm::runWithParserStack([&] {
    module = parseSourceFile<ModuleOp>(
        sourceMgr, ParserConfig(&ctx, /*verifyAfterParse=*/false));
  });
  if (!module)
    return nullptr;
  // Depth built by aliases or bytecode, which the text check cannot see.
  if (std::optional<std::string> why = mlir::llm::checkIRNesting(*module)) {
    fail("cannot parse '" + path + "': " + *why);
    return nullptr;
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}
