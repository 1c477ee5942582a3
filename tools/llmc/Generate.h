//===- Generate.h - llmc generate -------------------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The `generate` and `tokenize` subcommands of llmc (Generate.cpp,
// Tokenize.cpp), dispatched by llmc.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_GENERATE_H
#define LLMC_TOOLS_LLMC_GENERATE_H

#include "llvm/Support/CommandLine.h"

namespace llmc {

/// The subcommand and the category of its options (defined in
/// Generate.cpp).
extern llvm::cl::SubCommand generateCommand;
extern llvm::cl::OptionCategory generateCategory;

/// Runs `llmc generate` with the parsed options; returns the exit code (1
/// after printing one error).
int generateMain();

/// `llmc tokenize` (Tokenize.cpp; its options are in generateCategory).
extern llvm::cl::SubCommand tokenizeCommand;
int tokenizeMain();

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_GENERATE_H
