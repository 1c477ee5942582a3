//===- ImportDynamic.h - ONNX symbolic sequence dimensions ------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Import of a model whose graph inputs keep a symbolic dimension (see
// ImportDynamic.cpp for the method).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_IMPORTDYNAMIC_H
#define LLM_LIB_TARGET_ONNX_IMPORTDYNAMIC_H

#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace onnx {
class GraphProto;
class ModelProto;
} // namespace onnx

namespace mlir::llm::onnx_import {

/// A graph input dimension without a value (neither in the model nor in
/// ImportOptions::dimValues).
struct FreeDim {
  std::string input;
  int index = 0;
  /// Its dim_param, else `INPUT:INDEX`.
  std::string name;

  /// `INPUT:INDEX`, the ImportOptions key of this dimension.
  std::string key() const { return input + ":" + std::to_string(index); }
};

/// The simplifications and recomposition a probe import gets before it is
/// compared (canonicalize, llm-recompose, canonicalize): causal masks and
/// RoPE tables are recognized while they are constants.
LogicalResult recomposeProbe(ModuleOp module);

/// The free dimensions of `model`'s graph inputs (initializers excluded).
SmallVector<FreeDim> findFreeDims(const onnx::ModelProto &model,
                                  const ImportOptions &options);

/// The largest sequence length the graph supports, from its tables: the
/// smallest size of a constant gathered by positions computed from a Range
/// (along the gathered axis), or of a constant sliced with ends computed at
/// import (along the sliced axes). std::nullopt when there is none.
std::optional<int64_t> inferSequenceBound(const onnx::GraphProto &graph);

/// While alive, reports every diagnostic of `ctx` at `loc` (the model's
/// file), prefixed with the ONNX node its op came from (the importer's
/// NameLoc: "ONNX node 'NAME' (OP): ...").
class NodeDiagnostics : public ScopedDiagnosticHandler {
public:
  NodeDiagnostics(MLIRContext *ctx, Location loc);

private:
  bool forwarding = false;
};

/// Imports `model` with its free dimensions `free` as one dynamic, bounded
/// sequence dimension: `import` is called with the free dimensions set to
/// four lengths, each result is recomposed, and they are merged by
/// `generalizeSequenceLength`. Errors (at `loc`) name the dimension: several
/// free symbols not bounded together, no bound, a bound below 3, a model
/// that does not vary as a length.
OwningOpRef<ModuleOp> importWithSequenceDim(
    const onnx::ModelProto &model, ArrayRef<FreeDim> free,
    const ImportOptions &options, MLIRContext *ctx, Location loc,
    llvm::function_ref<OwningOpRef<ModuleOp>(const ImportOptions &)> import);

} // namespace mlir::llm::onnx_import

#endif // LLM_LIB_TARGET_ONNX_IMPORTDYNAMIC_H
