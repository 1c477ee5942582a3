//===- TranslateRegistration.cpp - the --import-onnx translation ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Registers `--import-onnx` with mlir-translate's registry: the input file
// (binary ModelProto) is imported with importONNXModel; `--dim NAME=VALUE`
// (repeatable or comma-separated) sets symbolic input dimensions.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void mlir::llm::registerImportONNXTranslation() {
  static llvm::cl::list<std::string> dims(
      "dim",
      llvm::cl::desc("ONNX import: value of a symbolic input dimension, "
                     "NAME=VALUE or INPUT:INDEX=VALUE (repeatable, or "
                     "comma-separated)"),
      llvm::cl::value_desc("NAME=VALUE"));
  static llvm::cl::list<std::string> dimBounds(
      "dim-bound",
      llvm::cl::desc("ONNX import: keep a symbolic input dimension dynamic "
                     "(the sequence length) up to this bound, NAME=N "
                     "(default: the model's position table size)"),
      llvm::cl::value_desc("NAME=N"));
  static llvm::cl::opt<bool> kvCache(
      "kv-cache",
      llvm::cl::desc("ONNX import: a decoder exported with past_key_values / "
                     "present in llmc's generation form (key/value caches "
                     "updated in place; docs/Generation.md)"),
      llvm::cl::init(false));
  static llvm::cl::opt<bool> noShapeInference(
      "onnx-no-shape-inference",
      llvm::cl::desc("ONNX import: skip ONNX shape inference"),
      llvm::cl::init(false));

  TranslateToMLIRRegistration registration(
      "import-onnx", "import an ONNX model (ModelProto) into the llm dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buf =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        llm::ImportOptions options;
        options.runShapeInference = !noShapeInference;
        options.kvCache = kvCache;
        for (const std::string &spec : dims) {
          std::string error;
          if (!llm::parseDimSpec(spec, options, error)) {
            emitError(UnknownLoc::get(ctx)) << error;
            return nullptr;
          }
        }
        for (const std::string &spec : dimBounds) {
          std::string error;
          if (!llm::parseDimBoundSpec(spec, options, error)) {
            emitError(UnknownLoc::get(ctx)) << error;
            return nullptr;
          }
        }
        StringRef name = buf->getBufferIdentifier();
        // mlir-translate names stdin "<stdin>"; external data is then looked
        // up in the current directory.
        StringRef dir = name.starts_with("<")
                            ? StringRef()
                            : llvm::sys::path::parent_path(name);
        OwningOpRef<ModuleOp> module =
            llm::importONNXModel(buf->getMemBufferRef(), dir, ctx, options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        registry.insert<llm::LLMDialect, func::FuncDialect>();
      });
}
