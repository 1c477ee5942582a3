//===- ONNXLocations.h - The ONNX nodes an op's location names --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ONNX importer (lib/Target/ONNX) gives each op it makes the location
// `"node name"("OpType")` (a NameLoc whose child is a NameLoc); ops that a
// pass merges or fuses carry a fused location of theirs. A diagnostic about
// such an op is more useful naming the nodes, which a user can find in the
// model, than printing the raw location: llmc's, the C API's and Python's
// diagnostics all write them with describeONNXNodes.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_ONNXLOCATIONS_H
#define LLM_SUPPORT_ONNXLOCATIONS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <utility>

namespace mlir::llm {

/// The (node name, op type) pairs of the ONNX nodes `loc` names, in the
/// order they appear in it, each once; empty for a location the importer
/// did not make.
llvm::SmallVector<std::pair<llvm::StringRef, llvm::StringRef>>
getONNXNodes(Location loc);

/// The prefix that names the ONNX nodes of a diagnostic at `loc`:
/// `ONNX node 'n' (MatMul): `, or `ONNX nodes 'a' (MatMul), 'b' (MatMul),
/// 'c' (MatMul) and 2 more: ` for a fused op (the first three); empty when
/// `loc` names no node or `message` already names the first one in quotes
/// (as the importer's own errors do).
std::string describeONNXNodes(Location loc, llvm::StringRef message);

} // namespace mlir::llm

#endif // LLM_SUPPORT_ONNXLOCATIONS_H
