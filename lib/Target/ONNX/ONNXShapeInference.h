//===- ONNXShapeInference.h - exception-safe ONNX shape inference -*- C++
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private header of the ONNX importer: no-throw wrappers around
// onnx::shape_inference::InferShapes, the op schema registry and the
// version converter.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_ONNXSHAPEINFERENCE_H
#define LLM_LIB_TARGET_ONNX_ONNXSHAPEINFERENCE_H

#include "onnx/onnx_pb.h"

#include <string>
#include <vector>

namespace mlir::llm::detail {

/// Runs ONNX shape inference on `model` in place (adding `value_info`
/// entries). Returns false and sets `error` to the exception's message when
/// inference throws; `model` may then be partially annotated.
bool inferONNXShapes(onnx::ModelProto &model, std::string &error);

/// The input and output counts the ONNX schema of `opType` in `domain` at
/// `opset` allows (onnx::OpSchemaRegistry). Returns false when ONNX has no
/// such schema (an unknown op, which the importer reports itself).
struct ONNXArity {
  int minInputs = 0, maxInputs = 0, minOutputs = 0, maxOutputs = 0;
};
bool getONNXArity(const std::string &opType, int opset,
                  const std::string &domain, ONNXArity &arity);

/// An attribute of an ONNX op schema: its name, its type (an
/// onnx::AttributeProto::AttributeType) and whether the op requires it.
struct ONNXAttributeSchema {
  std::string name;
  int type = 0;
  bool required = false;
};
/// The attributes the ONNX schema of `opType` in `domain` at `opset` declares.
/// Returns false when ONNX has no such schema.
bool getONNXAttributes(const std::string &opType, int opset,
                       const std::string &domain,
                       std::vector<ONNXAttributeSchema> &attributes);

/// Converts `model` in place to opset `target` of the default domain with
/// libonnx's version converter (onnx::version_conversion::ConvertVersion:
/// an adapter per op and version step). Initializers (external data
/// included) are kept as they are. Returns false and sets `error` to the
/// converter's message when it throws (e.g. an op it has no adapter for);
/// `model` is then unchanged.
bool convertONNXOpset(onnx::ModelProto &model, int target, std::string &error);

} // namespace mlir::llm::detail

#endif // LLM_LIB_TARGET_ONNX_ONNXSHAPEINFERENCE_H
