//===- llm-translate.cpp - llmc's translation driver ----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-translate with llmc's translations: `--import-onnx` (ONNX ModelProto
// to the llm dialect) next to the upstream ones.
//
//   llm-translate --import-onnx model.onnx [--dim seq=8] -o model.mlir
//
// Every mlir-translate option works as in mlir-translate; the output (-o) is
// written as llm/Support/OutputFile.h describes: never a file named elsewhere
// on the command line, such as the input (refused before anything is read),
// a regular file only replaced once the translation succeeded (a failed one
// leaves it as it was), a device or FIFO written in place, never replaced,
// and a write error (e.g. stdout on /dev/full) is an error.
//
// mlirTranslateMain parses the command line and opens -o itself, so -o is
// found in the arguments first and replaced by a temporary file that this
// driver then renames into place (or copies to a device or FIFO).
//
//===----------------------------------------------------------------------===//

#include "llm/Support/OutputFile.h"
#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>
#include <string>
#include <vector>

static constexpr const char *kToolName = "llmc translation driver";

static int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "llm-translate") << msg << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

/// The exit code once stdout is flushed: a write error turns success into 1.
static int finish(mlir::LogicalResult result) {
  llvm::Error e = mlir::llm::checkStdout();
  if (mlir::failed(result)) {
    llvm::consumeError(std::move(e));
    return 1;
  }
  if (e)
    return fail(std::move(e));
  return 0;
}

/// The temporary output file while mlirTranslateMain runs: removed at exit
/// when the command line is rejected (cl exits the process then).
static std::string pendingTemp;
static void removePendingTemp() {
  if (!pendingTemp.empty())
    llvm::sys::fs::remove(pendingTemp);
}

namespace {
/// An -o found on the command line.
struct OutputArg {
  /// The argument holding the path (the one after "-o", or "-o=PATH").
  size_t index;
  /// "-o=PATH" / "--o=PATH" rather than "-o PATH".
  bool joined;
  std::string path;
};
} // namespace

/// Finds the -o arguments and every other argument that could name a file
/// (positional arguments, option values).
static void scanArguments(llvm::ArrayRef<const char *> args,
                          std::vector<OutputArg> &outputs,
                          std::vector<std::string> &others,
                          std::vector<std::string> &positionals) {
  bool positionalOnly = false;
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (positionalOnly) {
      others.push_back(arg.str());
      positionals.push_back(arg.str());
      continue;
    }
    if (arg == "--") {
      positionalOnly = true;
      continue;
    }
    if (arg == "-o" || arg == "--o") {
      if (i + 1 < args.size()) {
        outputs.push_back({i + 1, false, args[i + 1]});
        ++i;
      }
      continue;
    }
    if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      outputs.push_back({i, true, arg.split('=').second.str()});
      continue;
    }
    if (arg.starts_with("-") && arg != "-") {
      llvm::StringRef value = arg.split('=').second;
      if (!value.empty())
        others.push_back(value.str());
      continue;
    }
    others.push_back(arg.str());
    positionals.push_back(arg.str());
  }
}

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::llm::registerImportONNXTranslation();

  // The arguments as cl will see them (response files expanded).
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char *> args(argv, argv + argc);
  llvm::cl::ExpansionContext expansion(allocator,
                                       llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error e = expansion.expandResponseFiles(args)) {
    // cl reports the error.
    llvm::consumeError(std::move(e));
    args.assign(argv, argv + argc);
  }
  auto translate = [&] {
    return mlir::mlirTranslateMain(static_cast<int>(args.size()),
                                   const_cast<char **>(args.data()),
                                   kToolName);
  };

  std::vector<OutputArg> outputs;
  std::vector<std::string> others, positionals;
  scanArguments(args, outputs, others, positionals);
  // The input (a positional argument) must be readable as a stream: a
  // device would be read until memory runs out.
  for (const std::string &input : positionals)
    if (llvm::Error e = mlir::llm::checkInputFile(
            input, "input file '" + input + "'"))
      return fail(std::move(e));
  // Stdout, or -o given more than once (cl rejects it before opening files).
  if (outputs.size() != 1 || outputs[0].path == "-")
    return finish(translate());

  const std::string &outPath = outputs[0].path;
  if (outPath.empty())
    return fail("-o must not be empty (give a file, or '-' for stdout)");
  std::vector<mlir::llm::NamedFile> inputs;
  for (const std::string &other : others)
    inputs.push_back({other, "input file '" + other + "'"});
  // An ONNX model's external data files are inputs too.
  for (const std::string &input : positionals)
    if (llvm::StringRef(input).ends_with_insensitive(".onnx"))
      for (const std::string &data : mlir::llm::getONNXExternalDataFiles(input))
        inputs.push_back({data, "external data file '" + data + "' of the model"});
  if (llvm::Error e = mlir::llm::checkOutputFiles(
          inputs, {{outPath, "output '" + outPath + "'"}}))
    return fail(std::move(e));
  llvm::Expected<mlir::llm::OutputFile::Kind> kind =
      mlir::llm::OutputFile::classify(outPath);
  if (!kind)
    return fail(kind.takeError());

  // A regular (or new) file: mlir-translate writes the temporary file that
  // OutputFile renames into place. A device or FIFO: a temporary file in
  // the system's temporary directory, copied to it once complete.
  std::unique_ptr<mlir::llm::OutputFile> replaced;
  std::string tempPath;
  if (*kind == mlir::llm::OutputFile::Kind::Replace) {
    llvm::Expected<std::unique_ptr<mlir::llm::OutputFile>> file =
        mlir::llm::OutputFile::open(outPath);
    if (!file)
      return fail(file.takeError());
    replaced = std::move(*file);
    tempPath = replaced->getTempPath().str();
  } else {
    llvm::SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "llm-translate", "out", path))
      return fail("cannot write '" + outPath +
                  "': cannot create a temporary file: " + ec.message());
    llvm::sys::RemoveFileOnSignal(path);
    tempPath = path.str().str();
  }
  pendingTemp = tempPath;
  std::atexit(removePendingTemp);
  const OutputArg &out = outputs[0];
  args[out.index] = saver.save(out.joined ? "-o=" + tempPath : tempPath).data();

  mlir::LogicalResult result = translate();
  pendingTemp.clear();
  if (mlir::failed(result)) {
    if (replaced)
      replaced->discard();
    else
      llvm::sys::fs::remove(tempPath);
    return finish(result);
  }
  if (replaced) {
    if (llvm::Error e = replaced->commit())
      return fail(std::move(e));
    return finish(mlir::success());
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
      llvm::MemoryBuffer::getFile(tempPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(tempPath);
  if (std::error_code ec = bytes.getError())
    return fail("cannot write '" + outPath + "': " + ec.message());
  if (llvm::Error e = mlir::llm::writeFile(outPath, [&](llvm::raw_ostream &os) {
        os << (*bytes)->getBuffer();
        return llvm::Error::success();
      }))
    return fail(std::move(e));
  return finish(mlir::success());
}
