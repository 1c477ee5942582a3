//===- PrintTarget.cpp - llmc --print-target ------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc --print-target[=NAME]`: the CPU target description that compiles use
// (the host's, or a named family or CPU), with the kernel choices that
// follow from it.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"

#include "llm/Codegen/TargetDescription.h"

using namespace llvm;

static cl::opt<std::string> printTargetName(
    "print-target",
    cl::desc("Print the CPU target that compiles use and exit: the host's "
             "(detected: CPU, vendor, ISA extensions, caches), or "
             "--print-target=NAME for a family (generic, avx2, avx512, "
             "avx512-vnni, avx512-bf16) or an x86-64 CPU (znver4, "
             "sapphirerapids, ...), as --pipeline-options=target=NAME takes"),
    cl::ValueOptional, cl::value_desc("NAME"), cl::cat(llmc::llmcCategory));

bool llmc::printTargetRequested() {
  return printTargetName.getNumOccurrences() > 0;
}

int llmc::printTargetMain() {
  std::string name = printTargetName.empty() ? std::string("host")
                                             : printTargetName.getValue();
  FailureOr<mlir::llm::CPUTargetDescription> desc =
      mlir::llm::CPUTargetDescription::lookup(name);
  if (failed(desc))
    return fail("--print-target: unknown CPU target '" + name + "' (expected " +
                mlir::llm::CPUTargetDescription::getKnownNames() + ")");
  desc->print(outs());
  return 0;
}
