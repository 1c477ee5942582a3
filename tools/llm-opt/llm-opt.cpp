//===- llm-opt.cpp - llmc's opt-style driver ------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the llm dialect, its passes and pipelines registered next to
// every upstream dialect and pass.
//
// Every mlir-opt option works as in mlir-opt; the output (-o) is written as
// llm/Support/OutputFile.h describes: never the input file (refused before
// anything is read), a regular file only replaced once the run succeeded (a
// failed run leaves it as it was), a device or FIFO written in place, and a
// write error (e.g. a full disk, or stdout on /dev/full) is an error.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Pipelines/Pipelines.h"
#include "llm/Support/MLIRNesting.h"
#include "llm/Support/OutputFile.h"

#include "llm/Codegen/Collectives.h"
#include "llm/Dialect/LLM/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <cstdio>

static mlir::LogicalResult fail(llvm::Error error) {
  llvm::WithColor::error(llvm::errs(), "llm-opt")
      << llvm::toString(std::move(error)) << "\n";
  return mlir::failure();
}

/// True when MLIR text `text` defines an attribute or type alias (a line
/// that starts with `#name =` or `!name =`): depth built through aliases is
/// not seen in the text's brackets.
static bool definesAliases(llvm::StringRef text) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.ltrim();
    if (!line.consume_front("#") && !line.consume_front("!"))
      continue;
    line = line.drop_while([](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$' || c == '-';
    });
    if (line.ltrim().starts_with("="))
      return true;
  }
  return false;
}

/// Why the input is refused by the nesting of what it parses to (aliases,
/// bytecode: checkIRNesting), or none. Measured on a parse of its own (each
/// split chunk with --split-input-file), on runWithParserStack's stack and
/// with its diagnostics dropped, before MlirOptMain parses the input again
/// and may print it (--mlir-print-ir-before-all) or round-trip it. Text
/// without aliases shows its nesting in its brackets (checkMLIRNesting) and
/// is not parsed twice.
static std::optional<std::string>
checkParsedNesting(llvm::MemoryBufferRef input, mlir::DialectRegistry &registry,
                   const mlir::MlirOptMainConfig &config) {
  if (!mlir::isBytecode(input) && !definesAliases(input.getBuffer()))
    return std::nullopt;
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  std::optional<std::string> why;
  auto check = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                   const llvm::MemoryBufferRef &, llvm::raw_ostream &) {
    if (why)
      return mlir::success();
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
    mlir::OwningOpRef<mlir::Operation *> op;
    mlir::llm::runWithParserStack([&] {
      op = mlir::parseSourceFileForTool(
          sourceMgr, mlir::ParserConfig(&ctx, /*verifyAfterParse=*/false),
          /*insertImplicitModule=*/true);
    });
    // A chunk that does not parse is MlirOptMain's to report.
    if (op)
      why = mlir::llm::checkIRNesting(op.get());
    return mlir::success();
  };
  (void)mlir::splitAndProcessBuffer(
      llvm::MemoryBuffer::getMemBuffer(input, /*RequiresNullTerminator=*/false),
      check, llvm::nulls(), config.inputSplitMarker(),
      config.outputSplitMarker());
  return why;
}

/// What MlirOptMain(argc, argv, input, output, registry) does, with the
/// output written through llm::OutputFile.
static mlir::LogicalResult runOpt(int argc, char **argv,
                                  llvm::StringRef inputFilename,
                                  llvm::StringRef outputFilename,
                                  mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // These print a list and open no file.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::MlirOptMain(argc, argv, inputFilename, outputFilename,
                             registry);

  llvm::InitLLVM initLLVM(argc, argv);
  if (outputFilename.empty())
    return fail(llvm::createStringError(
        "-o must not be empty (give a file, or '-' for stdout)"));
  // The output must not be the input: refused before either is opened.
  if (llvm::Error e = mlir::llm::checkOutputFiles(
          {{inputFilename.str(), "the input file '" + inputFilename.str() + "'"}},
          {{outputFilename.str(), "output '" + outputFilename.str() + "'"}}))
    return fail(std::move(e));
  if (llvm::Expected<mlir::llm::OutputFile::Kind> kind =
          mlir::llm::OutputFile::classify(outputFilename);
      !kind)
    return fail(kind.takeError());

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  if (llvm::Error e = mlir::llm::checkInputFile(
          inputFilename, "input file '" + inputFilename.str() + "'"))
    return fail(std::move(e));
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  // MLIR's parser recurses per nesting level: refuse what would overflow
  // its stack.
  if (std::optional<std::string> why =
          mlir::llm::checkMLIRNesting(input->getMemBufferRef()))
    return fail(llvm::createStringError("cannot parse '" + inputFilename +
                                        "': " + *why));
  if (std::optional<std::string> why =
          checkParsedNesting(input->getMemBufferRef(), registry, config))
    return fail(llvm::createStringError("cannot parse '" + inputFilename +
                                        "': " + *why));
  llvm::Expected<std::unique_ptr<mlir::llm::OutputFile>> output =
      mlir::llm::OutputFile::open(outputFilename);
  if (!output)
    return fail(output.takeError());
  if (mlir::failed(mlir::MlirOptMain((*output)->os(), std::move(input),
                                     registry, config))) {
    // A regular file is left as it was; what went to stdout stays.
    (*output)->discard();
    return mlir::failure();
  }
  if (llvm::Error e = (*output)->commit())
    return fail(std::move(e));
  // Anything else printed to stdout (e.g. pass statistics).
  if (llvm::Error e = mlir::llm::checkStdout())
    return fail(std::move(e));
  return mlir::success();
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::llm::registerLLMPasses();
  mlir::registerLLMConversionPasses();
  mlir::llm::registerLLMCodegenPasses();
  mlir::llm::registerLLMPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::llm::LLMDialect>();
  mlir::llm::registerShardingInterfaceExternalModels(registry);
  mlir::llm::registerMPIMemoryEffectModels(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernel modules to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  // Every mlir-opt option, parsed before any file is opened.
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "llmc optimizer driver\n", registry);
  return mlir::asMainReturnCode(
      runOpt(argc, argv, inputFilename, outputFilename, registry));
}
