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
// op schema queries (arity, attributes) are wrapped here as well.
//
//===----------------------------------------------------------------------===//

#include "ONNXShapeInference.h"

#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

#include <exception>

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
