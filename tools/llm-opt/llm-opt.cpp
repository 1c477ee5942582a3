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
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <cstdio>

static mlir::LogicalResult fail(llvm::Error error) {
  llvm::WithColor::error(llvm::errs(), "llm-opt")
      << llvm::toString(std::move(error)) << "\n";
  return mlir::failure();
}

/// What MlirOptMain(argc, argv, input, output, registry) does, with the
/// output written through llm::OutputFile.
static mlir::LogicalResult runOpt(int argc, char **argv,
                                  llvm::StringRef inputFilename,
                                  llvm::StringRef outputFilename,
                                  mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Depth built by aliases or bytecode parses but overflows the stack of the
  // printer and of the passes' walkers: llm-verify-nesting runs first.
  config.setPassPipelineSetupFn(
      [given = mlir::MlirOptMainConfig(config)](mlir::PassManager &pm) {
        pm.addPass(mlir::llm::createLLMVerifyNestingPass());
        return given.setupPassPipeline(pm);
      });
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
