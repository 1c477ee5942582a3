//===- downstream-opt.cpp - An opt tool embedding llmc --------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a downstream MLIR compiler does to embed llmc: register the `llm`
// dialect next to the upstream dialects it uses, and the llmc passes next to
// upstream ones, then drive them with MlirOptMain. Built against the
// installed package by test/Examples/downstream-opt.test.
//
//===----------------------------------------------------------------------===//

#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // Upstream: canonicalize, cse, ...; llmc: llm-*, convert-llm-to-linalg.
  mlir::registerTransformsPasses();
  mlir::llm::registerLLMPasses();
  mlir::registerLLMConversionPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::llm::LLMDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream opt tool with llmc\n", registry));
}
