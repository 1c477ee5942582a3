//===- ImportONNX.cpp - ONNX model to llm dialect importer ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ONNX importer declared in ImportONNX.h: the model (opset, graph
// structure, inputs, initializers, outputs), the dispatch of nodes to the
// op-family files (ONNXImporter.h lists them) and the public entry points.
//
//===----------------------------------------------------------------------===//

#include "llm/Target/ONNX/ImportONNX.h"

#include "ImportDynamic.h"
#include "ImportKVCache.h"
#include "ONNXImporter.h"
#include "ONNXIntegerMath.h"
#include "ONNXShapeInference.h"
#include "ValidateONNX.h"

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::llm;

using namespace mlir::llm::onnx_import;
using onnx::TensorProto;


//===----------------------------------------------------------------------===//
// Constants and dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::importConstant(const onnx::NodeProto &node) {
  if (node.attribute_size() != 1)
    return nodeError(node) << "Constant needs exactly one value attribute";
  const onnx::AttributeProto &a = node.attribute(0);
  ConstTensor c;
  if (a.name() == "value") {
    FailureOr<ConstTensor> t = readTensor(a.t(), nodeFileLoc(node));
    if (failed(t))
      return failure();
    c = std::move(*t);
  } else if (a.name() == "value_float") {
    c = ConstTensor::zeros(TensorProto::FLOAT, {});
    c.setDouble(0, a.f());
  } else if (a.name() == "value_floats") {
    c = ConstTensor::zeros(TensorProto::FLOAT, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      c.setDouble(i, a.floats(i));
  } else if (a.name() == "value_int") {
    c = ConstTensor::fromInts({a.i()}, {});
  } else if (a.name() == "value_ints") {
    c = ConstTensor::fromInts(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()),
        {a.ints_size()});
  } else {
    return nodeError(node) << "Constant attribute '" << a.name()
                           << "' is not supported";
  }
  setOutput(node, 0, std::move(c));
  return success();
}

/// The op types of the default domain that importNode handles, checked for
/// every node before any is imported.
static bool isSupportedOp(StringRef op) {
  static const llvm::StringSet<> ops = {
      "Constant", "Identity", "Dropout", "Add", "Sub", "Mul", "Div", "Mod",
      "Round", "Sum", "Mean", "LeakyRelu", "HardSigmoid", "HardSwish", "OneHot",
      "ThresholdedRelu", "PRelu", "CastLike", "IsInf", "Shrink", "Tile",
      "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Acos", "Asin", "Atan",
      "Sign", "IsNaN", "Elu",
      "Celu", "Hardmax", "Selu", "Softsign", "Softplus", "Tan",
      "Pow", "Max", "Min", "Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Tanh",
      "Erf", "Sigmoid", "Relu", "Floor", "Ceil", "Abs", "Sin", "Cos", "Equal",
      "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
      "Not", "Where", "MatMul", "Gemm", "Softmax", "LogSoftmax", "ArgMax",
      "ArgMin", "LayerNormalization", "ReduceMean", "ReduceMax", "ReduceSum",
      "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2",
      "ReduceLogSum",
      "ReduceLogSumExp", "Transpose", "Reshape", "Squeeze", "Unsqueeze",
      "Flatten", "Concat", "Split", "Slice", "Gather", "GatherElements", "Shape",
      "Size",
      "ConstantOfShape", "Range", "NonZero", "Expand", "Cast", "Clip", "Trilu",
      // ImportNN.cpp
      "Conv", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
      "InstanceNormalization", "MeanVarianceNormalization", "DepthToSpace",
      "SpaceToDepth", "Pad", "EyeLike", "CumSum", "NegativeLogLikelihoodLoss",
      "SoftmaxCrossEntropyLoss",
      // ImportIndexing.cpp
      "GatherND", "ScatterND", "ScatterElements", "Scatter", "TopK",
      "DynamicQuantizeLinear", "Einsum",
      // ImportQuant.cpp
      "QuantizeLinear", "DequantizeLinear", "MatMulInteger", "QLinearMatMul",
      // Importer::importIf
      "If"};
  return ops.contains(op);
}

/// The error for a node whose op the importer does not handle, if it is one.
LogicalResult Importer::checkSupported(const onnx::NodeProto &node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nodeError(node) << "ops of domain '" << node.domain()
                           << "' are not supported";
  if (!isSupportedOp(node.op_type()))
    return nodeError(node) << "unsupported op " << node.op_type();
  return success();
}

/// The ops whose llm form takes run-time f64 (DOUBLE) tensors: data
/// movement, shapes, comparisons and selection, casts and the arithmetic ops
/// widened to f64 (llm.add/sub/mul/div/rem/max/min/neg/abs).
static bool acceptsRuntimeF64(StringRef op) {
  static const llvm::StringSet<> ops = {
      "Identity", "Dropout", "Add", "Sub", "Mul", "Div", "Mod", "Max", "Min",
      "Sum", "Mean", "Neg", "Abs", "Cast", "CastLike", "Equal", "Less",
      "Greater", "LessOrEqual", "GreaterOrEqual", "Where", "Transpose",
      "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Concat", "Split", "Slice",
      "Gather", "GatherElements", "Shape", "Size", "Expand", "Tile", "Pad",
      "DepthToSpace", "SpaceToDepth", "EyeLike", "CumSum", "GatherND",
      "ScatterND", "ScatterElements", "Scatter", "TopK", "Einsum"};
  return ops.contains(op);
}

// A run-time f64 operand of an op whose llm form has no f64 is refused by
// name here, before the op is built (the llm verifier would reject it with
// a less direct message).
LogicalResult Importer::checkRuntimeF64(const onnx::NodeProto &node) {
  if (acceptsRuntimeF64(node.op_type()))
    return success();
  for (int i = 0; i < node.input_size(); ++i)
    if (Entry *e = input(node, i))
      if (!e->constant && dtypeOf(*e) == TensorProto::DOUBLE)
        return nodeError(node)
               << node.op_type() << " of a run-time DOUBLE tensor (input '"
               << node.input(i)
               << "') is not supported (llm ops with f64: data movement, "
                  "Cast, comparisons, Where, Add/Sub/Mul/Div/Mod/Max/Min/"
                  "Neg/Abs, CumSum, GatherND, ScatterND, ScatterElements, "
                  "TopK, Einsum)";
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  if (failed(checkSupported(node)))
    return failure();
  for (int i = 0; i < node.input_size(); ++i)
    if (!node.input(i).empty() && !env.count(node.input(i)))
      return nodeError(node)
             << "input '" << node.input(i) << "' is not defined before its use";
  if (std::optional<LogicalResult> quantized = importQuantNode(node))
    return *quantized;
  if (failed(checkRuntimeF64(node)))
    return failure();
  if (op == "Constant")
    return importConstant(node);
  if (op == "Identity" || op == "Dropout") {
    // Dropout is the identity at inference, and in training mode with ratio
    // 0; its mask is then all true. Training with a ratio > 0 is random.
    if (Entry *training = op == "Dropout" ? input(node, 2) : nullptr) {
      if (!training->constant || training->constant->numel() != 1)
        return nodeError(node) << "Dropout training_mode must be a constant "
                                  "scalar";
      Entry *ratio = input(node, 1);
      bool zeroRatio = ratio && ratio->constant &&
                       ratio->constant->numel() == 1 &&
                       ratio->constant->getDouble(0) == 0.0;
      if (training->constant->getInt(0) && !zeroRatio)
        return nodeError(node) << "training-mode Dropout with a ratio other "
                                  "than a constant 0 is not supported (random)";
    }
    FailureOr<Entry *> in = required(node, 0);
    if (failed(in))
      return failure();
    env[node.output(0)] = **in;
    if (op == "Dropout" && node.output_size() > 1 && !node.output(1).empty()) {
      ConstTensor mask = ConstTensor::zeros(TensorProto::BOOL, shapeOf(**in));
      for (int64_t i = 0, e = mask.numel(); i < e; ++i)
        mask.setInt(i, 1);
      setOutput(node, 1, std::move(mask));
    }
    return success();
  }
  if (llvm::is_contained(
          {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max", "Min", "Sum"}, op))
    return importBinary(node);
  if (op == "Mean")
    return importMean(node);
  if (op == "OneHot")
    return importOneHot(node);
  if (llvm::is_contained({"LeakyRelu", "HardSigmoid", "HardSwish",
                          "ThresholdedRelu"},
                         op))
    return importActivation(node);
  if (op == "PRelu")
    return importPRelu(node);
  if (op == "IsInf")
    return importIsInf(node);
  if (op == "Hardmax")
    return importHardmax(node);
  if (llvm::is_contained({"Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sign",
                          "IsNaN", "Elu", "Celu", "Selu", "Softsign",
                          "Softplus", "Tan"},
                         op))
    return importMathExpr(node);
  if (op == "Shrink")
    return importShrink(node);
  if (op == "Tile")
    return importTile(node);
  if (llvm::is_contained({"Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Tanh",
                          "Erf", "Sigmoid", "Relu", "Floor", "Ceil", "Abs",
                          "Sin", "Cos", "Round", "Acos", "Asin", "Atan"},
                         op))
    return importUnary(node);
  if (llvm::is_contained({"Equal", "Less", "Greater", "LessOrEqual",
                          "GreaterOrEqual", "And", "Or", "Xor", "Not"},
                         op))
    return importCompare(node);
  if (op == "Where")
    return importWhere(node);
  if (op == "MatMul")
    return importMatMul(node);
  if (op == "Gemm")
    return importGemm(node);
  if (op == "Softmax" || op == "LogSoftmax")
    return importSoftmax(node);
  if (op == "ArgMax" || op == "ArgMin")
    return importArgReduce(node);
  if (op == "LayerNormalization")
    return importLayerNorm(node);
  if (llvm::is_contained({"ReduceMean", "ReduceMax", "ReduceSum", "ReduceMin",
                          "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2",
                          "ReduceLogSum", "ReduceLogSumExp"},
                         op))
    return importReduce(node);
  if (op == "Transpose")
    return importTranspose(node);
  if (llvm::is_contained({"Reshape", "Squeeze", "Unsqueeze", "Flatten"}, op))
    return importReshapeLike(node);
  if (op == "Concat")
    return importConcat(node);
  if (op == "Split")
    return importSplit(node);
  if (op == "Slice")
    return importSlice(node);
  if (op == "Gather")
    return importGather(node);
  if (op == "Shape")
    return importShape(node);
  if (op == "Size") {
    FailureOr<Entry *> in = required(node, 0);
    if (failed(in))
      return failure();
    setOutput(node, 0, ConstTensor::fromInts({product(shapeOf(**in))}, {}));
    return success();
  }
  if (op == "ConstantOfShape")
    return importConstantOfShape(node);
  if (op == "Range")
    return importRange(node);
  if (op == "Expand")
    return importExpand(node);
  if (op == "Cast" || op == "CastLike")
    return importCast(node);
  if (op == "Clip")
    return importClip(node);
  if (op == "GatherElements")
    return importGatherElements(node);
  if (op == "GatherND")
    return importGatherND(node);
  if (op == "ScatterND" || op == "ScatterElements" || op == "Scatter")
    return importScatter(node);
  if (op == "TopK")
    return importTopK(node);
  if (op == "DynamicQuantizeLinear")
    return importDynamicQuantizeLinear(node);
  if (op == "Einsum")
    return importEinsum(node);
  if (op == "NonZero")
    return importNonZero(node);
  if (op == "Trilu")
    return importTrilu(node);
  if (op == "If")
    return importIf(node);
  if (op == "Conv")
    return importConv(node);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return importGlobalPool(node);
  if (llvm::is_contained({"BatchNormalization", "InstanceNormalization",
                          "MeanVarianceNormalization"},
                         op))
    return importNormalization(node);
  if (op == "DepthToSpace" || op == "SpaceToDepth")
    return importDepthSpace(node);
  if (op == "Pad")
    return importPad(node);
  if (op == "EyeLike")
    return importEyeLike(node);
  if (op == "CumSum")
    return importCumSum(node);
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss")
    return importLoss(node);
  return nodeError(node) << "unsupported op " << op;
}

/// If whose condition is known at import time (a constant, e.g. a shape
/// comparison once `--dim` fixes the symbolic dimensions, as torch.onnx
/// exports `squeeze` of a dynamic axis): the nodes of the branch taken are
/// imported in place (they may read the outer graph's values) and the If's
/// outputs are the branch's outputs. A condition computed at run time is an
/// error, as is a branch with initializers of its own or whose output count
/// differs from the node's.
LogicalResult Importer::importIf(const onnx::NodeProto &node) {
  FailureOr<Entry *> cond = required(node, 0);
  if (failed(cond))
    return failure();
  if (!(*cond)->constant || (*cond)->constant->numel() != 1)
    return nodeError(node)
           << "the condition of If is computed at run time (only an If "
              "whose condition is known at import time is supported; fix "
              "symbolic dimensions with --dim)";
  bool taken = (*cond)->constant->getInt(0) != 0;
  StringRef name = taken ? "then_branch" : "else_branch";
  const onnx::GraphProto *branch = nullptr;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name && a.has_g())
      branch = &a.g();
  if (!branch)
    return nodeError(node) << "has no " << name << " graph";
  if (branch->initializer_size() || branch->sparse_initializer_size())
    return nodeError(node) << "the If " << name
                           << " has initializers of its own (not supported)";
  if (branch->output_size() != node.output_size())
    return nodeError(node) << "the If " << name << " has "
                           << branch->output_size() << " outputs for the "
                           << node.output_size() << " of the node";
  for (const onnx::NodeProto &inner : branch->node())
    if (failed(importNode(inner)))
      return failure();
  for (int i = 0; i < node.output_size(); ++i) {
    auto it = env.find(branch->output(i).name());
    if (it == env.end())
      return nodeError(node) << "the If " << name << " output '"
                             << branch->output(i).name()
                             << "' is not defined in the branch";
    if (!node.output(i).empty())
      env[node.output(i)] = it->second;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

/// Checks that `g` is in SSA form and topological order, as ONNX shape
/// inference and the importer assume (libonnx's inference dereferences null
/// on a node input that nothing defines: found by onnx-import-fuzzer): every
/// non-empty node input is a graph input, an initializer, a value of an
/// enclosing graph (`outer`, for the bodies of If/Loop/Scan) or an output of
/// an earlier node, and no node output redefines a value; and every node has
/// as many inputs and outputs as its ONNX schema allows (the op handlers
/// index them: onnx-import-fuzzer found a Pow without outputs). Reports the
/// first violation at its node.
LogicalResult Importer::checkGraphStructure(const onnx::GraphProto &g,
                                            const llvm::StringSet<> &outer,
                                            bool top) {
  llvm::StringSet<> defined = outer;
  for (const onnx::ValueInfoProto &vi : g.input())
    defined.insert(vi.name());
  for (const TensorProto &t : g.initializer())
    defined.insert(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &node = g.node(i);
    if (top)
      nodeIndex = i;
    // The schema's input/output counts (optional trailing inputs may be
    // absent or empty); the op handlers index inputs and outputs freely.
    mlir::llm::detail::ONNXArity arity;
    if (mlir::llm::detail::getONNXArity(node.op_type(), opset, node.domain(),
                                        arity)) {
      auto inRange = [](int n, int lo, int hi) { return n >= lo && n <= hi; };
      if (!inRange(node.input_size(), arity.minInputs, arity.maxInputs))
        return nodeError(node)
               << "has " << node.input_size() << " inputs; ONNX "
               << node.op_type() << " takes " << arity.minInputs << " to "
               << arity.maxInputs;
      if (!inRange(node.output_size(), arity.minOutputs, arity.maxOutputs))
        return nodeError(node)
               << "has " << node.output_size() << " outputs; ONNX "
               << node.op_type() << " gives " << arity.minOutputs << " to "
               << arity.maxOutputs;
    }
    for (const std::string &in : node.input())
      if (!in.empty() && !defined.contains(in))
        return nodeError(node)
               << "input '" << in << "' is not defined before its use";
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g() && failed(checkGraphStructure(a.g(), defined, false)))
        return failure();
      for (const onnx::GraphProto &sub : a.graphs())
        if (failed(checkGraphStructure(sub, defined, false)))
          return failure();
    }
    for (const std::string &out : node.output())
      if (!out.empty() && !defined.insert(out).second)
        return nodeError(node) << "output '" << out
                               << "' redefines a value (an ONNX value has "
                                  "one definition)";
  }
  if (top)
    nodeIndex = 0;
  return success();
}

/// The checks made before any node is imported (and before the version
/// converter sees an old-opset model): distinct names of graph inputs,
/// initializers and outputs; the graph's structure; every attribute against
/// its op's schema at `opset` (unknown attributes dropped); every op one the
/// importer handles; every tensor attribute (Constant values) holding the
/// data its type and shape declare. (The last two crashed libonnx's shape
/// inference when it ran before the import, onnx-import-fuzzer: a
/// ConvTranspose of mismatched ranks, a Range reading an int64 value held in
/// int32_data.)
LogicalResult Importer::checkModelUpFront(onnx::ModelProto &model,
                                          Location loc) {
  const onnx::GraphProto &g = model.graph();
  if (failed(llm::detail::checkUniqueNames(g, loc)) ||
      failed(checkGraphStructure(g, llvm::StringSet<>(), /*top=*/true)))
    return failure();
  // Attribute types against the op schemas, once for all handlers (which
  // read an attribute of another type as 0); unknown attributes are dropped.
  LogicalResult attrs = llm::detail::checkAttributes(
      *model.mutable_graph(), opset,
      [&](const onnx::NodeProto &node, int index, DiagnosticSeverity sev) {
        nodeIndex = index;
        return nodeDiag(node, sev);
      });
  nodeIndex = 0;
  if (failed(attrs))
    return failure();
  // The nodes of subgraphs (If branches) too, located at their top-level
  // node.
  std::function<LogicalResult(const onnx::GraphProto &)> checkNodes =
      [&](const onnx::GraphProto &graph) -> LogicalResult {
    for (const onnx::NodeProto &node : graph.node()) {
      if (failed(checkSupported(node)))
        return failure();
      for (const onnx::AttributeProto &a : node.attribute()) {
        if (a.has_t() && failed(checkTensorData(a.t(), nodeFileLoc(node),
                                                &node, a.name())))
          return failure();
        for (const TensorProto &t : a.tensors())
          if (failed(checkTensorData(t, nodeFileLoc(node), &node, a.name())))
            return failure();
        if (a.has_g() && failed(checkNodes(a.g())))
          return failure();
        for (const onnx::GraphProto &sub : a.graphs())
          if (failed(checkNodes(sub)))
            return failure();
      }
      if (&graph == &g)
        ++nodeIndex;
    }
    return success();
  };
  if (failed(checkNodes(g)))
    return failure();
  nodeIndex = 0;
  return success();
}

OwningOpRef<ModuleOp> Importer::import(onnx::ModelProto &model) {
  ctx->loadDialect<LLMDialect, func::FuncDialect>();
  Location loc = fileLoc();

  // Opset of the default domain, imported once.
  for (const onnx::OperatorSetIdProto &o : model.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx")
      continue;
    if (opset) {
      emitError(loc) << "the model imports the default ONNX domain twice "
                        "(opsets "
                     << opset << " and " << o.version() << ")";
      return nullptr;
    }
    opset = o.version();
  }
  if (opset < 7 || opset > 18) {
    emitError(loc) << "unsupported ONNX opset " << opset
                   << " (supported: 7 to 18)";
    return nullptr;
  }
  // Opsets 7 to 10 are converted to 11 by libonnx's version converter, once
  // the graph passes every check the import makes up front, and those the
  // converter's IR import needs besides: it does not check the graph
  // (onnx-import-fuzzer: a SEGV on a graph output that nothing defines).
  if (opset < 11) {
    if (failed(checkModelUpFront(model, loc)))
      return nullptr;
    onnx::GraphProto *graph = model.mutable_graph();
    llvm::StringSet<> defined;
    for (const onnx::ValueInfoProto &vi : graph->input())
      defined.insert(vi.name());
    for (const TensorProto &t : graph->initializer())
      defined.insert(t.name());
    for (const onnx::NodeProto &node : graph->node())
      for (const std::string &out : node.output())
        defined.insert(out);
    // libonnx's IR keeps dimensions of graph inputs and outputs in 32 bits.
    for (const auto *list : {&graph->input(), &graph->output()})
      for (const onnx::ValueInfoProto &vi : *list)
        for (const auto &d : vi.type().tensor_type().shape().dim())
          if (d.dim_value() > INT32_MAX) {
            emitError(loc) << "dimension " << d.dim_value() << " of '"
                           << vi.name()
                           << "' is too large for libonnx's version "
                              "converter (at most 2^31 - 1 below opset 11)";
            return nullptr;
          }
    for (const TensorProto &t : graph->initializer())
      for (int64_t d : t.dims())
        if (d > INT32_MAX) {
          emitError(loc) << "dimension " << d << " of initializer '"
                         << t.name()
                         << "' is too large for libonnx's version converter "
                            "(at most 2^31 - 1 below opset 11)";
          return nullptr;
        }
    for (const onnx::ValueInfoProto &vi : graph->output())
      if (!defined.contains(vi.name())) {
        emitError(loc) << "graph output '" << vi.name()
                       << "' is not defined by any node, input or "
                          "initializer";
        return nullptr;
      }
    // (No subgraph reaches the converter: the ops with graph attributes,
    // If, Loop and Scan, are not imported, and checkAttributes dropped
    // unknown attributes.)
    // Shapes of intermediate values: not needed, and names the converter
    // would look up.
    graph->clear_value_info();
    std::string error;
    if (!llm::detail::convertONNXOpset(model, 11, error)) {
      emitError(loc) << "cannot convert the model from ONNX opset " << opset
                     << " to 11 (libonnx's version converter): " << error;
      return nullptr;
    }
    declaredOpset = opset;
    opset = 11;
  }
  const onnx::GraphProto &g = model.graph();
  if (failed(checkModelUpFront(model, loc)))
    return nullptr;

  // Initializers are import-time constants. An initializer named like a
  // graph input is that input's default value (IR version < 4): the input
  // is then a constant, not an argument.
  llvm::StringSet<> initNames;
  for (const TensorProto &t : g.initializer()) {
    FailureOr<ConstTensor> c = readTensor(t, loc);
    if (failed(c))
      return nullptr;
    Entry e;
    e.constant = std::move(*c);
    e.blobName = t.name();
    e.isInitializer = true;
    env[t.name()] = std::move(e);
    initNames.insert(t.name());
  }

  // Graph inputs: resolve every dimension, write it back so that shape
  // inference sees static shapes.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  onnx::GraphProto *mg = model.mutable_graph();
  for (onnx::ValueInfoProto &vi : *mg->mutable_input()) {
    if (initNames.contains(vi.name()))
      continue;
    if (!vi.type().has_tensor_type()) {
      emitError(loc) << "graph input '" << vi.name() << "' is not a tensor";
      return nullptr;
    }
    const onnx::TypeProto_Tensor &tt = vi.type().tensor_type();
    Type elemType = toMLIRType(tt.elem_type(), ctx);
    if (!elemType && tt.elem_type() == TensorProto::UINT8) {
      // uint8 bits in i8, for the quantization ops only.
      elemType = IntegerType::get(ctx, 8);
      uint8Inputs.insert(vi.name());
    }
    if (!elemType) {
      emitError(loc) << "graph input '" << vi.name()
                     << "' has unsupported element type "
                     << dtypeName(tt.elem_type());
      return nullptr;
    }
    if (!tt.has_shape()) {
      emitError(loc) << "graph input '" << vi.name() << "' has no shape";
      return nullptr;
    }
    SmallVector<int64_t> shape;
    auto *dims = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < dims->dim_size(); ++i) {
      onnx::TensorShapeProto_Dimension *d = dims->mutable_dim(i);
      std::string key = vi.name() + ":" + std::to_string(i);
      int64_t value = -1;
      if (options.dimValues.count(key))
        value = options.dimValues.lookup(key);
      else if (d->has_dim_param() && options.dimValues.count(d->dim_param()))
        value = options.dimValues.lookup(d->dim_param());
      else if (d->has_dim_value())
        value = d->dim_value();
      if (value < 0) {
        InFlightDiagnostic diag = emitError(loc);
        diag << "graph input '" << vi.name() << "' has dynamic dimension " << i;
        if (d->has_dim_param())
          diag << " ('" << d->dim_param() << "'); set it with --dim "
               << d->dim_param() << "=VALUE";
        else
          diag << "; set it with --dim " << key << "=VALUE";
        return nullptr;
      }
      d->clear_dim_param();
      d->set_dim_value(value);
      shape.push_back(value);
    }
    if (!shapeFits(shape, elementSize(tt.elem_type()))) {
      emitError(loc) << "graph input '" << vi.name() << "' of shape "
                     << shapeStr(shape)
                     << " is too large: its size in bytes overflows int64";
      return nullptr;
    }
    argTypes.push_back(RankedTensorType::get(shape, elemType));
    argNames.push_back(vi.name());
  }

  // Declared static output shapes are checked as well.
  for (const onnx::ValueInfoProto &vi : g.output()) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
      continue;
    SmallVector<int64_t> shape;
    bool isStatic = true;
    for (const auto &d : vi.type().tensor_type().shape().dim()) {
      isStatic &= d.has_dim_value();
      shape.push_back(d.dim_value());
    }
    if (isStatic)
      declaredShapes[vi.name()] = shape;
  }

  for (const onnx::NodeProto &node : g.node())
    for (const std::string &in : node.input())
      used.insert(in);
  for (const onnx::ValueInfoProto &vi : g.output())
    used.insert(vi.name());

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc, options.funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "llm.name", builder.getStringAttr(name));
    body->getArgument(i).setLoc(NameLoc::get(builder.getStringAttr(name), loc));
    env[name] = Entry{body->getArgument(i), std::nullopt, {}, false};
    env[name].unsignedBits = uint8Inputs.contains(name);
  }
  builder.setInsertionPointToEnd(body);

  for (const onnx::NodeProto &node : g.node()) {
    if (failed(importNode(node)))
      return nullptr;
    for (const std::string &out : node.output()) {
      auto it = env.find(out);
      if (out.empty() || it == env.end())
        continue;
      SmallVector<int64_t> ours = shapeOf(it->second);
      if (!shapeFits(ours, elementSize(dtypeOf(it->second)))) {
        nodeError(node) << "output '" << out << "' of shape " << shapeStr(ours)
                        << " is too large: its size in bytes overflows int64";
        return nullptr;
      }
    }
    ++nodeIndex;
  }

  // ONNX shape inference cross-checks the importer's static shapes. It runs
  // on the graph the importer has accepted, never before: libonnx's
  // inference functions trust their inputs (onnx-import-fuzzer: an axis of
  // INT32_MIN SEGVs LayerNormalization's inference; the op handlers check
  // their axes).
  if (options.runShapeInference) {
    std::string error;
    if (!mlir::llm::detail::inferONNXShapes(model, error))
      emitWarning(loc) << "ONNX shape inference failed: " << error;
    auto record = [&](const onnx::ValueInfoProto &vi) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
        return;
      SmallVector<int64_t> shape;
      for (const auto &d : vi.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value())
          return;
        shape.push_back(d.dim_value());
      }
      inferredShapes[vi.name()] = shape;
    };
    for (const onnx::ValueInfoProto &vi : g.value_info())
      record(vi);
  }
  // Our static shapes against the declared and the inferred ones, in node
  // order.
  nodeIndex = 0;
  for (const onnx::NodeProto &node : g.node()) {
    for (const std::string &out : node.output()) {
      auto it = env.find(out);
      if (out.empty() || it == env.end())
        continue;
      auto inf = inferredShapes.find(out);
      SmallVector<int64_t> ours = shapeOf(it->second);
      auto decl = declaredShapes.find(out);
      if (decl != declaredShapes.end() && ours != decl->second) {
        nodeError(node) << "output '" << out << "' has shape " << shapeStr(ours)
                        << " but the model declares " << shapeStr(decl->second);
        return nullptr;
      }
      if (inf != inferredShapes.end() && ours != inf->second) {
        nodeError(node) << "output '" << out << "' has shape " << shapeStr(ours)
                        << " but ONNX shape inference says "
                        << shapeStr(inf->second);
        return nullptr;
      }
    }
    ++nodeIndex;
  }

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  onnx::NodeProto outputNode;
  outputNode.set_name("graph outputs");
  outputNode.set_op_type("Output");
  for (const onnx::ValueInfoProto &vi : g.output()) {
    auto it = env.find(vi.name());
    if (it == env.end()) {
      emitError(loc) << "graph output '" << vi.name() << "' is never defined";
      return nullptr;
    }
    FailureOr<Value> v = materialize(outputNode, it->second);
    if (failed(v))
      return nullptr;
    results.push_back(*v);
    resultTypes.push_back(v->getType());
  }
  func::ReturnOp::create(builder, loc, results);
  func.setType(builder.getFunctionType(argTypes, resultTypes));
  for (auto [i, vi] : llvm::enumerate(g.output()))
    func.setResultAttr(i, "llm.name", builder.getStringAttr(vi.name()));

  // Drop ops whose results nobody uses (e.g. constants only needed to fold).
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(body->getOperations())))
    if (isOpTriviallyDead(&op))
      op.erase();

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

/// Parses one "NAME<sep>VALUE" entry with VALUE >= `min` into `into`.
static bool parseNamedValue(StringRef part, StringRef sep, int64_t min,
                            llvm::StringMap<int64_t> &into,
                            std::string &error) {
  size_t at = part.find(sep);
  StringRef name = part.take_front(at).trim();
  // NAME=<=N, as Python's dims={"NAME": "<=N"} reads, is NAME<=N.
  if (sep == "<=" && name.ends_with("="))
    name = name.drop_back().rtrim();
  int64_t v;
  if (at == StringRef::npos || name.empty() || name.contains_insensitive("=") ||
      name.contains("<") ||
      part.drop_front(at + sep.size()).trim().getAsInteger(10, v) || v < min) {
    error = ("invalid dimension setting '" + part + "' (expected NAME" + sep +
             "VALUE with VALUE >= " + Twine(min) + ")")
                .str();
    return false;
  }
  // A repeated name would make the order matter (and the compile cache
  // keys on the set of settings).
  if (!into.try_emplace(name, v).second) {
    error = ("dimension '" + name + "' is set twice").str();
    return false;
  }
  return true;
}

/// Fails naming the first dimension given both a value and a bound
/// (`how` says where the two came from, e.g. " (--dim) and a bound").
static bool checkValueOrBound(const ImportOptions &options, StringRef how,
                              std::string &error) {
  for (const auto &entry : options.dimBounds)
    if (options.dimValues.count(entry.getKey())) {
      error = ("dimension '" + entry.getKey() + "' is given both a value" + how)
                  .str();
      return false;
    }
  return true;
}

bool mlir::llm::parseDimSpec(StringRef spec, ImportOptions &options,
                             std::string &error) {
  // NAME<=N entries are bounds (the C API's and Python's one string).
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    bool bound = part.contains("<=");
    if (!parseNamedValue(part, bound ? "<=" : "=", bound ? 1 : 0,
                         bound ? options.dimBounds : options.dimValues, error))
      return false;
  }
  return checkValueOrBound(options, " and a bound", error);
}

bool mlir::llm::parseDimBoundSpec(StringRef spec, ImportOptions &options,
                                  std::string &error) {
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    if (!parseNamedValue(part, "=", 1, options.dimBounds, error))
      return false;
  return checkValueOrBound(options, " (--dim) and a bound (--dim-bound)",
                           error);
}

/// Imports a parsed model (see the public overloads).
static OwningOpRef<ModuleOp>
importParsedModel(onnx::ModelProto &model, StringRef bufferName,
                  StringRef externalDataDir, MLIRContext *ctx,
                  const ImportOptions &options, Location loc) {
  // A symbolic dimension left free stays dynamic (ImportDynamic.cpp): the
  // model is imported at several lengths and merged.
  SmallVector<FreeDim> free = findFreeDims(model, options);
  if (free.empty() && !options.dimBounds.empty()) {
    emitError(loc) << "--dim-bound '" << options.dimBounds.begin()->getKey()
                   << "': the model's graph inputs have no symbolic "
                      "dimension left free";
    return nullptr;
  }
  if (!free.empty())
    return importWithSequenceDim(
        model, free, options, ctx, loc,
        [&](const ImportOptions &at) -> OwningOpRef<ModuleOp> {
          onnx::ModelProto copy = model;
          Importer importer(ctx, at, bufferName, externalDataDir);
          return importer.import(copy);
        });
  Importer importer(ctx, options, bufferName, externalDataDir);
  return importer.import(model);
}

OwningOpRef<ModuleOp> mlir::llm::importONNXModel(llvm::MemoryBufferRef buffer,
                                                 StringRef externalDataDir,
                                                 MLIRContext *ctx,
                                                 const ImportOptions &options) {
  Location loc = FileLineColLoc::get(ctx, buffer.getBufferIdentifier(), 0, 0);
  onnx::ModelProto model;
  if (buffer.getBufferSize() > static_cast<size_t>(INT_MAX)) {
    emitError(loc) << "ONNX model is larger than 2 GiB; store the weights as "
                      "external data";
    return nullptr;
  }
  if (!model.ParseFromArray(buffer.getBufferStart(),
                            static_cast<int>(buffer.getBufferSize()))) {
    emitError(loc) << "cannot parse '" << buffer.getBufferIdentifier()
                   << "' as an ONNX model (truncated or not an ONNX file)";
    return nullptr;
  }
  if (!model.has_graph() || model.opset_import_size() == 0) {
    emitError(loc) << "'" << buffer.getBufferIdentifier()
                   << "' is not an ONNX model (no graph or no opset_import)";
    return nullptr;
  }
  // A decoder with past in the cached form (ImportKVCache.cpp).
  if (options.kvCache)
    return importWithKVCache(
        model, options, ctx, loc,
        [&](const ImportOptions &at) -> OwningOpRef<ModuleOp> {
          return importParsedModel(model, buffer.getBufferIdentifier(),
                                   externalDataDir, ctx, at, loc);
        });
  return importParsedModel(model, buffer.getBufferIdentifier(), externalDataDir,
                           ctx, options, loc);
}

OwningOpRef<ModuleOp> mlir::llm::importONNXModel(StringRef path,
                                                 MLIRContext *ctx,
                                                 const ImportOptions &options) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot open '" << path << "': " << buf.getError().message();
    return nullptr;
  }
  return importONNXModel((*buf)->getMemBufferRef(),
                         llvm::sys::path::parent_path(path), ctx, options);
}
std::vector<std::string> mlir::llm::getONNXExternalDataFiles(StringRef path) {
  std::vector<std::string> files;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!file || (*file)->getBufferSize() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromArray((*file)->getBufferStart(),
                            static_cast<int>((*file)->getBufferSize())))
    return files;
  StringRef dir = llvm::sys::path::parent_path(path);
  auto visitTensor = [&](const TensorProto &t) {
    if (t.data_location() != TensorProto::EXTERNAL)
      return;
    for (const onnx::StringStringEntryProto &kv : t.external_data()) {
      if (kv.key() != "location")
        continue;
      llvm::SmallString<256> p(dir);
      llvm::sys::path::append(p, kv.value());
      files.push_back(p.str().str());
    }
  };
  std::function<void(const onnx::GraphProto &)> visitGraph =
      [&](const onnx::GraphProto &graph) {
        for (const TensorProto &t : graph.initializer())
          visitTensor(t);
        for (const onnx::SparseTensorProto &t : graph.sparse_initializer()) {
          visitTensor(t.values());
          visitTensor(t.indices());
        }
        for (const onnx::NodeProto &node : graph.node())
          for (const onnx::AttributeProto &attr : node.attribute()) {
            if (attr.has_t())
              visitTensor(attr.t());
            for (const TensorProto &t : attr.tensors())
              visitTensor(t);
            if (attr.has_g())
              visitGraph(attr.g());
            for (const onnx::GraphProto &g : attr.graphs())
              visitGraph(g);
          }
      };
  visitGraph(model.graph());
  return files;
}
