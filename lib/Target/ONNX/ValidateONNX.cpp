//===- ValidateONNX.cpp - model checks before the ONNX import -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Checks of an ONNX model that the importer's node handlers rely on: graph
// names that identify one value each, and node attributes of the types the
// ONNX op schemas declare (a handler reads `AttributeProto::f()` for a float
// attribute; given a string or an int it would read 0 and silently compute
// something else).
//
//===----------------------------------------------------------------------===//

#include "ValidateONNX.h"

#include "ONNXShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

using namespace mlir;
using onnx::AttributeProto;

LogicalResult mlir::llm::detail::checkUniqueNames(const onnx::GraphProto &g,
                                                  Location loc) {
  auto check = [&](StringRef what, auto names) -> LogicalResult {
    llvm::StringSet<> seen;
    for (const std::string &name : names)
      if (!seen.insert(name).second)
        return emitError(loc) << what << " '" << name
                              << "' is declared more than once (ONNX names "
                                 "are unique)";
    return success();
  };
  auto inputNames = llvm::map_range(
      g.input(), [](const onnx::ValueInfoProto &vi) -> const std::string & {
        return vi.name();
      });
  auto initNames = llvm::map_range(
      g.initializer(), [](const onnx::TensorProto &t) -> const std::string & {
        return t.name();
      });
  auto outputNames = llvm::map_range(
      g.output(), [](const onnx::ValueInfoProto &vi) -> const std::string & {
        return vi.name();
      });
  if (failed(check("graph input", inputNames)) ||
      failed(check("initializer", initNames)) ||
      failed(check("graph output", outputNames)))
    return failure();
  return success();
}

/// The types whose value fields `a` sets (a scalar field present, a list
/// non-empty), in AttributeType order.
static SmallVector<int> valueTypes(const AttributeProto &a) {
  SmallVector<int> types;
  auto add = [&](bool present, AttributeProto::AttributeType t) {
    if (present)
      types.push_back(t);
  };
  add(a.has_f(), AttributeProto::FLOAT);
  add(a.has_i(), AttributeProto::INT);
  add(a.has_s(), AttributeProto::STRING);
  add(a.has_t(), AttributeProto::TENSOR);
  add(a.has_g(), AttributeProto::GRAPH);
  add(a.floats_size() > 0, AttributeProto::FLOATS);
  add(a.ints_size() > 0, AttributeProto::INTS);
  add(a.strings_size() > 0, AttributeProto::STRINGS);
  add(a.tensors_size() > 0, AttributeProto::TENSORS);
  add(a.graphs_size() > 0, AttributeProto::GRAPHS);
  add(a.has_sparse_tensor(), AttributeProto::SPARSE_TENSOR);
  add(a.sparse_tensors_size() > 0, AttributeProto::SPARSE_TENSORS);
  add(a.has_tp(), AttributeProto::TYPE_PROTO);
  add(a.type_protos_size() > 0, AttributeProto::TYPE_PROTOS);
  return types;
}

static bool isListType(int t) {
  return t == AttributeProto::FLOATS || t == AttributeProto::INTS ||
         t == AttributeProto::STRINGS || t == AttributeProto::TENSORS ||
         t == AttributeProto::GRAPHS || t == AttributeProto::SPARSE_TENSORS ||
         t == AttributeProto::TYPE_PROTOS;
}

static std::string typeName(int t) {
  if (AttributeProto::AttributeType_IsValid(t))
    return AttributeProto::AttributeType_Name(
        static_cast<AttributeProto::AttributeType>(t));
  return "<" + std::to_string(t) + ">";
}

static LogicalResult checkGraph(onnx::GraphProto &g, int64_t opset,
                                mlir::llm::detail::NodeDiagnostic diag,
                                int outerIndex);

/// Attributes of opsets newer than the schemas of Debian's libonnx (ONNX
/// 1.12: opset 17; the importer accepts 18) that the importer reads: the op,
/// the opset that added the attribute, its name and type.
static const struct {
  const char *op;
  int since;
  const char *name;
  AttributeProto::AttributeType type;
} kNewerAttributes[] = {
    {"Split", 18, "num_outputs", AttributeProto::INT},
    {"ReduceL1", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceL2", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceLogSum", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceLogSumExp", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceMax", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceMean", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceMin", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceProd", 18, "noop_with_empty_axes", AttributeProto::INT},
    {"ReduceSumSquare", 18, "noop_with_empty_axes", AttributeProto::INT},
};

/// Checks the attributes of one node; removes the unknown ones.
static LogicalResult checkNode(onnx::NodeProto &node, int index, int64_t opset,
                               mlir::llm::detail::NodeDiagnostic diag) {
  using mlir::llm::detail::ONNXAttributeSchema;
  std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
  std::vector<ONNXAttributeSchema> schema;
  if (!mlir::llm::detail::getONNXAttributes(
          node.op_type(), static_cast<int>(opset), domain, schema))
    return success(); // No such op: the importer reports it.
  if (domain.empty())
    for (const auto &n : kNewerAttributes)
      if (node.op_type() == n.op && opset >= n.since &&
          llvm::none_of(schema, [&](const ONNXAttributeSchema &s) {
            return s.name == n.name;
          }))
        schema.push_back({n.name, n.type, /*required=*/false});
  llvm::StringMap<const ONNXAttributeSchema *> byName;
  for (const ONNXAttributeSchema &s : schema)
    byName[s.name] = &s;
  auto error = [&]() { return diag(node, index, DiagnosticSeverity::Error); };

  llvm::StringSet<> seen;
  SmallVector<int> unknown;
  for (int i = 0; i < node.attribute_size(); ++i) {
    const AttributeProto &a = node.attribute(i);
    if (!seen.insert(a.name()).second)
      return error() << "attribute '" << a.name() << "' is given twice";
    if (a.has_ref_attr_name())
      return error() << "attribute '" << a.name()
                     << "' refers to the attribute '" << a.ref_attr_name()
                     << "' of an enclosing function; a graph has none";
    auto it = byName.find(a.name());
    if (it == byName.end()) {
      diag(node, index, DiagnosticSeverity::Warning)
          << "unknown attribute '" << a.name() << "' ignored (ONNX "
          << node.op_type() << " has no such attribute at opset " << opset
          << ")";
      unknown.push_back(i);
      continue;
    }
    // The attribute's type: the declared one, which its value must match
    // (a FLOAT attribute holding only a string reads as 0.0), or, for an
    // untyped attribute (IR version 1), the type of its one value.
    SmallVector<int> held = valueTypes(a);
    int actual = a.type();
    if (!AttributeProto::AttributeType_IsValid(actual))
      return error() << "attribute '" << a.name() << "' has the invalid type "
                     << actual;
    if (actual == AttributeProto::UNDEFINED) {
      if (held.size() != 1)
        return error() << "attribute '" << a.name() << "' has no type and "
                       << (held.empty() ? "no value"
                                        : "values of several types");
      actual = held[0];
    } else {
      for (int t : held)
        if (t != actual)
          return error() << "attribute '" << a.name() << "' is declared "
                         << typeName(actual) << " but holds a value of type "
                         << typeName(t);
      if (held.empty() && !isListType(actual))
        return error() << "attribute '" << a.name() << "' of type "
                       << typeName(actual) << " holds no value";
    }
    int expected = it->second->type;
    if (actual != expected)
      return error() << "attribute '" << a.name() << "' has type "
                     << typeName(actual) << ", expected " << typeName(expected);
  }
  for (const ONNXAttributeSchema &s : schema)
    if (s.required && !seen.contains(s.name))
      return error() << "required attribute '" << s.name << "' ("
                     << typeName(s.type) << ") is missing";
  // Unknown attributes are ignored, as the warning says: no handler may read
  // them (e.g. Clip's min/max attributes after opset 11).
  for (int i : llvm::reverse(unknown))
    node.mutable_attribute()->DeleteSubrange(i, 1);

  // Subgraphs (If/Loop/Scan bodies) are checked as well.
  for (AttributeProto &a : *node.mutable_attribute()) {
    if (a.has_g() && failed(checkGraph(*a.mutable_g(), opset, diag, index)))
      return failure();
    for (onnx::GraphProto &sub : *a.mutable_graphs())
      if (failed(checkGraph(sub, opset, diag, index)))
        return failure();
  }
  return success();
}

/// `outerIndex`: the main-graph index of the node holding `g`, or -1 for the
/// main graph.
static LogicalResult checkGraph(onnx::GraphProto &g, int64_t opset,
                                mlir::llm::detail::NodeDiagnostic diag,
                                int outerIndex) {
  for (int i = 0; i < g.node_size(); ++i)
    if (failed(checkNode(*g.mutable_node(i), outerIndex < 0 ? i : outerIndex,
                         opset, diag)))
      return failure();
  return success();
}

LogicalResult mlir::llm::detail::checkAttributes(onnx::GraphProto &g,
                                                 int64_t opset,
                                                 NodeDiagnostic diag) {
  return checkGraph(g, opset, diag, /*outerIndex=*/-1);
}
