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
//===----------------------------------------------------------------------===//

#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::llm::registerImportONNXTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "llmc translation driver"));
}
