//===- ONNXLocations.cpp - The ONNX nodes an op's location names ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/ONNXLocations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

SmallVector<std::pair<StringRef, StringRef>>
mlir::llm::getONNXNodes(Location loc) {
  SmallVector<std::pair<StringRef, StringRef>> nodes;
  loc->walk([&](Location l) {
    if (auto node = dyn_cast<NameLoc>(l))
      if (auto opType = dyn_cast<NameLoc>(node.getChildLoc());
          opType && !node.getName().getValue().empty()) {
        std::pair<StringRef, StringRef> entry(node.getName().getValue(),
                                              opType.getName().getValue());
        if (!llvm::is_contained(nodes, entry))
          nodes.push_back(entry);
        return WalkResult::skip();
      }
    return WalkResult::advance();
  });
  return nodes;
}

std::string mlir::llm::describeONNXNodes(Location loc, StringRef message) {
  SmallVector<std::pair<StringRef, StringRef>> nodes = getONNXNodes(loc);
  if (nodes.empty() ||
      message.contains(("'" + nodes.front().first + "'").str()))
    return "";
  std::string prefix;
  llvm::raw_string_ostream os(prefix);
  os << (nodes.size() == 1 ? "ONNX node " : "ONNX nodes ");
  for (auto [i, node] : llvm::enumerate(ArrayRef(nodes).take_front(3)))
    os << (i ? ", '" : "'") << node.first << "' (" << node.second << ")";
  if (nodes.size() > 3)
    os << " and " << nodes.size() - 3 << " more";
  os << ": ";
  return prefix;
}
