//===- Generate.h - llmc generate -------------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The `generate`, `tokenize`, `tune` and `--print-target` commands of llmc
// (Generate.cpp, Tokenize.cpp, Tune.cpp, PrintTarget.cpp), dispatched by
// llmc.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_GENERATE_H
#define LLMC_TOOLS_LLMC_GENERATE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace llmc {

/// Prints "llmc: error: MSG" (in color on a terminal) and returns the exit
/// code 1.
inline int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "llmc") << msg << "\n";
  return 1;
}
inline int fail(llvm::Error err) {
  return fail(llvm::toString(std::move(err)));
}

/// Parses the comma-separated token ids of option `option` ("1, 2,3":
/// spaces allowed around each id). Errors name the option and the entry
/// that is not an integer (an empty entry included), with `example` as the
/// expected form.
llvm::Expected<llvm::SmallVector<int64_t>>
parseTokenIds(llvm::StringRef text, llvm::StringRef option,
              llvm::StringRef example);

/// The category of llmc's own options (llmc.cpp).
extern llvm::cl::OptionCategory llmcCategory;

/// Imports the ONNX model at `path` with the `--dim NAME=VALUE` specs
/// `dimSpecs` and `--dim-bound NAME=N` specs `dimBoundSpecs`; diagnostics go
/// through the context's handler. Prints the error and returns null on
/// failure (also in a build without the ONNX importer).
mlir::OwningOpRef<mlir::ModuleOp>
importONNXFile(llvm::StringRef path, llvm::ArrayRef<std::string> dimSpecs,
               llvm::ArrayRef<std::string> dimBoundSpecs,
               mlir::MLIRContext &ctx);

/// Parses the MLIR model in `file` (text or bytecode) named `path`, with
/// diagnostics through `sourceMgr`, which takes the buffer. Binary data that
/// is not MLIR bytecode (an ONNX model on stdin or under another name) is
/// refused with one error line instead of the parser's, which would quote
/// its bytes. Prints the error and returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
parseModelBuffer(std::unique_ptr<llvm::MemoryBuffer> file, llvm::StringRef path,
                 mlir::MLIRContext &ctx, llvm::SourceMgr &sourceMgr);

/// Loads the model at `path`: an ONNX model (.onnx) imported with the
/// `--dim NAME=VALUE` specs `dimSpecs` and `--dim-bound NAME=N` specs
/// `dimBoundSpecs`, else an MLIR file parsed with diagnostics through
/// `sourceMgr`. Prints the error and returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
loadModelFile(llvm::StringRef path, llvm::ArrayRef<std::string> dimSpecs,
              mlir::MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
              llvm::ArrayRef<std::string> dimBoundSpecs = {});

extern llvm::cl::SubCommand calibrateCommand;
int calibrateMain();

/// The subcommand and the category of its options (defined in
/// Generate.cpp).
extern llvm::cl::SubCommand generateCommand;
extern llvm::cl::OptionCategory generateCategory;

/// Runs `llmc generate` with the parsed options; returns the exit code (1
/// after printing one error).
int generateMain();

/// `llmc tokenize` and the category of its options (Tokenize.cpp).
extern llvm::cl::SubCommand tokenizeCommand;
extern llvm::cl::OptionCategory tokenizeCategory;
int tokenizeMain();

/// `llmc tune` (Tune.cpp; its options are in llmcCategory).
extern llvm::cl::SubCommand tuneCommand;
int tuneMain();

/// `llmc --print-target[=NAME]` (PrintTarget.cpp): whether it was given, and
/// the command (prints the CPU target description; 1 for an unknown name).
bool printTargetRequested();
int printTargetMain();

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_GENERATE_H
