//===- ONNXShapeInference.cpp - exception-safe ONNX shape inference -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// onnx::shape_inference reports errors by throwing C++ exceptions, while LLVM
// and MLIR are built with -fno-exceptions. This is the only translation unit
// of the importer compiled with -fexceptions: it catches everything and turns
// it into an error string, so no exception ever crosses into LLVM code. The
// op schema queries (arity, attributes) and the version converter are
// wrapped here as well.
//
//===----------------------------------------------------------------------===//

#include "ONNXShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>

#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <exception>
#include <unordered_set>

bool mlir::llm::detail::inferONNXShapes(onnx::ModelProto &model,
                                        std::string &error) {
  try {
    // check_type = false, error_mode = 0 (node-level inference errors are
    // skipped), data propagation on so that Shape -> Reshape chains resolve.
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                        /*strict_mode_val=*/0,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  return false;
}

bool mlir::llm::detail::getONNXArity(const std::string &opType, int opset,
                                     const std::string &domain,
                                     ONNXArity &arity) {
  try {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, opset, domain);
    if (!schema)
      return false;
    arity.minInputs = schema->min_input();
    arity.maxInputs = schema->max_input();
    arity.minOutputs = schema->min_output();
    arity.maxOutputs = schema->max_output();
    // Opset 18 (newer than Debian's ONNX 1.12 schemas) gave the reductions
    // that had an `axes` attribute an optional `axes` input instead.
    static const char *const kAxesInputSince18[] = {
        "ReduceL1",        "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp",
        "ReduceMax",       "ReduceMean", "ReduceMin",   "ReduceProd",
        "ReduceSumSquare"};
    if (opset >= 18 && (domain.empty() || domain == "ai.onnx") &&
        llvm::is_contained(kAxesInputSince18, opType))
      arity.maxInputs = std::max(arity.maxInputs, 2);
    return true;
  } catch (...) {
    return false;
  }
}

bool mlir::llm::detail::getONNXAttributes(
    const std::string &opType, int opset, const std::string &domain,
    std::vector<ONNXAttributeSchema> &attributes) {
  try {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, opset, domain);
    if (!schema)
      return false;
    attributes.clear();
    for (const auto &[name, a] : schema->attributes())
      attributes.push_back({name, static_cast<int>(a.type), a.required});
    return true;
  } catch (...) {
    return false;
  }
}

bool mlir::llm::detail::convertONNXOpset(onnx::ModelProto &model, int target,
                                         std::string &error) {
  // The converter goes through ONNX's in-memory IR, which copies every
  // tensor and drops external data. The initializers are set aside and
  // stand in as graph inputs of the same type and shape (the adapters from
  // opset 7 to 11 change attributes and add inputs; none reads an
  // initializer's values), then come back unchanged.
  onnx::GraphProto *graph = model.mutable_graph();
  // A Constant whose value is external data becomes an initializer of its
  // output (the converter would drop the data).
  for (int i = graph->node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto &node = graph->node(i);
    if (node.op_type() != "Constant" || node.output_size() != 1 ||
        node.attribute_size() != 1 || !node.attribute(0).has_t() ||
        node.attribute(0).t().data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    onnx::TensorProto *t = graph->add_initializer();
    *t = node.attribute(0).t();
    t->set_name(node.output(0));
    graph->mutable_node()->DeleteSubrange(i, 1);
  }
  std::vector<onnx::TensorProto> initializers(
      std::make_move_iterator(graph->mutable_initializer()->begin()),
      std::make_move_iterator(graph->mutable_initializer()->end()));
  graph->clear_initializer();
  std::unordered_set<std::string> inputs;
  for (const onnx::ValueInfoProto &vi : graph->input())
    inputs.insert(vi.name());
  std::unordered_set<std::string> standIns;
  for (const onnx::TensorProto &t : initializers) {
    if (inputs.count(t.name()))
      continue; // Also a graph input (IR version < 4): it stays one.
    onnx::ValueInfoProto *vi = graph->add_input();
    vi->set_name(t.name());
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto *shape = tt->mutable_shape();
    for (int64_t d : t.dims())
      shape->add_dim()->set_dim_value(d);
    standIns.insert(t.name());
  }
  auto restore = [&](onnx::ModelProto &m) {
    onnx::GraphProto *g = m.mutable_graph();
    auto *in = g->mutable_input();
    for (int i = in->size() - 1; i >= 0; --i)
      if (standIns.count(in->Get(i).name()))
        in->DeleteSubrange(i, 1);
    for (onnx::TensorProto &t : initializers)
      *g->add_initializer() = std::move(t);
  };
  try {
    onnx::ModelProto converted =
        onnx::version_conversion::ConvertVersion(model, target);
    restore(converted);
    model = std::move(converted);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  restore(model);
  return false;
}
