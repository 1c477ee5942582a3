//===- ValidateONNX.h - model checks before the ONNX import -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private header of the ONNX importer: checks of a model that the node
// handlers rely on, run once before any of them reads the graph.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_VALIDATEONNX_H
#define LLM_LIB_TARGET_ONNX_VALIDATEONNX_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include "onnx/onnx_pb.h"

namespace mlir::llm::detail {

/// Starts a diagnostic of `severity` about `node`, whose message begins with
/// the node's name, op type and opset; `index` is the node's position in the
/// main graph (for nodes of a subgraph: that of the node holding it).
using NodeDiagnostic = llvm::function_ref<InFlightDiagnostic(
    const onnx::NodeProto &node, int index, DiagnosticSeverity severity)>;

/// Checks that the graph inputs, the initializers and the graph outputs of
/// `graph` each have distinct names (`--input NAME=...` binds one input,
/// the nodes read one value). An initializer named like a graph input is
/// allowed: the input's default value (IR version < 4). Errors at `loc`.
LogicalResult checkUniqueNames(const onnx::GraphProto &graph, Location loc);

/// Checks every attribute of every node of `graph` (subgraphs included)
/// against the ONNX schema of its op at `opset`: each attribute has the
/// schema's type (the declared `type`, or the value's for an untyped
/// attribute, holding a value of that type and no other), appears once, and
/// required ones are present. Attributes the schema does not know are
/// reported as warnings and removed, so that no handler reads them. Nodes of
/// ops ONNX has no schema for are left to the importer.
LogicalResult checkAttributes(onnx::GraphProto &graph, int64_t opset,
                              NodeDiagnostic diag);

} // namespace mlir::llm::detail

#endif // LLM_LIB_TARGET_ONNX_VALIDATEONNX_H
