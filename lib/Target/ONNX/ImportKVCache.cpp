//===- ImportKVCache.cpp - ONNX decoders with past in the cached form -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A decoder exported for generation with a key/value cache (Hugging Face /
// optimum "decoder with past": inputs `input_ids [B, S]`, per layer
// `past_key_values.L.key|value [B, Hkv, P, D]`, maybe `attention_mask
// [B, P + S]`; outputs `logits` and `present.L.key|value [B, Hkv, P + S, D]`)
// is imported in llmc's generation form (docs/Generation.md):
//
//   1. the past length P is set to 0 and the batch to 1, and the attention
//      mask becomes ones (one sequence, no padding), so that the model is
//      the prefill of an empty cache with one symbolic dimension left, the
//      sequence length S; ImportDynamic.cpp keeps it dynamic up to the
//      model's bound;
//   2. `formKVCache` (llm-form-kv-cache) turns that function into the
//      cached form: caches in place of the past inputs, written by
//      llm.kv_cache_update at `past_length` and read by attention up to
//      `total_length`, position tables read from `past_length` on.
//
// Importing at P = 0 makes the concatenation of the past fold away, so the
// attention reads the new keys and values and the present outputs return
// them: which cache belongs to which attention is read off the results.
//
//===----------------------------------------------------------------------===//

#include "ImportKVCache.h"

#include "ImportDynamic.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

bool isPastInput(const std::string &name) {
  return StringRef(name).contains_insensitive("past");
}

/// Sets dimension `index` of input `vi` to `value` in `options`, unless the
/// user set it already (then it must be `value`).
LogicalResult pin(const onnx::ValueInfoProto &vi, int index, int64_t value,
                  StringRef what, ImportOptions &options, Location loc) {
  const onnx::TensorShapeProto_Dimension &d =
      vi.type().tensor_type().shape().dim(index);
  std::string key = vi.name() + ":" + std::to_string(index);
  for (const std::string &k : {key, d.has_dim_param() ? d.dim_param() : key}) {
    auto it = options.dimValues.find(k);
    if (it != options.dimValues.end() && it->second != value) {
      emitError(loc) << "graph input '" << vi.name() << "' dimension " << index
                     << " ('" << k << "') is " << what
                     << ": the cached form sets it to " << value
                     << ", not --dim " << k << "=" << it->second;
      return failure();
    }
    if (options.dimBounds.count(k)) {
      emitError(loc) << "graph input '" << vi.name() << "' dimension " << index
                     << " ('" << k << "') is " << what
                     << ": the cached form sets it to " << value
                     << "; it takes no --dim-bound";
      return failure();
    }
  }
  if (d.has_dim_value() && d.dim_value() >= 0) {
    if (d.dim_value() != value) {
      emitError(loc) << "graph input '" << vi.name() << "' dimension " << index
                     << " is " << what << " but has the fixed size "
                     << d.dim_value()
                     << ": the cached form needs an export with a symbolic "
                        "one (dynamic_axes)";
      return failure();
    }
    return success();
  }
  options.dimValues[key] = value;
  return success();
}

} // namespace

/// Step 1: sets the past inputs' length to 0 and the batch to 1 in
/// `options` (the past lengths' keys, INPUT:INDEX, go to `pastKeys`), and
/// replaces an `attention_mask` input by ones.
static LogicalResult
prepareKVCacheImport(onnx::ModelProto &model, ImportOptions &options,
                     Location loc, SmallVectorImpl<std::string> &pastKeys) {
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> initNames;
  for (const onnx::TensorProto &t : graph.initializer())
    initNames.insert(t.name());
  const onnx::ValueInfoProto *ids = nullptr;
  int maskIndex = -1;
  unsigned pastCount = 0;
  // The first past input and its length axis (the mask's P).
  std::string firstPast;
  int firstPastAxis = -1;
  for (auto [i, vi] : llvm::enumerate(graph.input())) {
    if (initNames.contains(vi.name()) || !vi.type().has_tensor_type() ||
        !vi.type().tensor_type().has_shape())
      continue;
    const onnx::TensorShapeProto &shape = vi.type().tensor_type().shape();
    if (vi.name() == "input_ids")
      ids = &vi;
    if (vi.name() == "attention_mask") {
      maskIndex = i;
      continue;
    }
    // The batch: one sequence.
    if (shape.dim_size() >= 2 &&
        failed(pin(vi, 0, 1, "the batch", options, loc)))
      return failure();
    if (!isPastInput(vi.name()))
      continue;
    ++pastCount;
    // The past length: the one symbolic dimension after the batch.
    int length = -1;
    for (int d = 1; d < shape.dim_size(); ++d) {
      const onnx::TensorShapeProto_Dimension &dim = shape.dim(d);
      if (dim.has_dim_value() && dim.dim_value() >= 0)
        continue;
      if (length >= 0) {
        emitError(loc) << "past input '" << vi.name()
                       << "' has two symbolic dimensions after the batch ("
                       << length << " and " << d
                       << "): the past keys/values have one, the past length";
        return failure();
      }
      length = d;
    }
    if (length < 0) {
      emitError(loc) << "past input '" << vi.name()
                     << "' has no symbolic dimension for the past length: "
                        "export it with dynamic_axes on the past length";
      return failure();
    }
    if (failed(pin(vi, length, 0, "the past length", options, loc)))
      return failure();
    // The keys that set it (a fixed size 0 is none): INPUT:INDEX, and the
    // dim_param when the user gave it too.
    for (const std::string &key : {vi.name() + ":" + std::to_string(length),
                                   shape.dim(length).dim_param()})
      if (!key.empty() && options.dimValues.count(key))
        pastKeys.push_back(key);
    if (firstPast.empty()) {
      firstPast = vi.name();
      firstPastAxis = length;
    }
  }
  if (pastCount == 0) {
    emitError(loc) << "the model has no past key/value inputs (graph inputs "
                      "named past*, e.g. past_key_values.0.key): llmc forms "
                      "a key/value cache from a decoder exported with its "
                      "past (docs/Generation.md)";
    return failure();
  }
  // One sequence has no padding: the attention mask [B, P + S] is ones,
  // shaped Shape(input_ids) + [0, P] with P read from the first past input
  // (so that it also fits the check at P = 1, checkPastUse).
  if (maskIndex >= 0) {
    const onnx::ValueInfoProto &mask = graph.input(maskIndex);
    if (!ids) {
      emitError(loc) << "the model has an attention_mask input but no "
                        "input_ids to size it";
      return failure();
    }
    int elemType = mask.type().tensor_type().elem_type();
    std::string name = mask.name();
    std::string shapeName = name + "__llmc_shape";
    SmallVector<onnx::NodeProto> shapeNodes;
    auto node = [&](StringRef op, ArrayRef<std::string> inputs,
                    const std::string &out) -> onnx::NodeProto & {
      onnx::NodeProto &n = shapeNodes.emplace_back();
      n.set_op_type(op.str());
      n.set_name(out);
      for (const std::string &in : inputs)
        n.add_input(in);
      n.add_output(out);
      return n;
    };
    auto int64Constant = [&](const std::string &out, int64_t v) {
      onnx::AttributeProto *a = node("Constant", {}, out).add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
      a->mutable_t()->add_dims(1);
      a->mutable_t()->add_int64_data(v);
    };
    node("Shape", {ids->name()}, name + "__llmc_ids_shape");
    node("Shape", {firstPast}, name + "__llmc_past_shape");
    int64Constant(name + "__llmc_axis", firstPastAxis);
    int64Constant(name + "__llmc_zero", 0);
    node("Gather", {name + "__llmc_past_shape", name + "__llmc_axis"},
         name + "__llmc_past");
    onnx::AttributeProto *axis =
        node("Concat", {name + "__llmc_zero", name + "__llmc_past"},
             name + "__llmc_pad")
            .add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    node("Add", {name + "__llmc_ids_shape", name + "__llmc_pad"}, shapeName);
    onnx::NodeProto ones;
    ones.set_op_type("ConstantOfShape");
    ones.set_name(name + "__llmc_ones");
    ones.add_input(shapeName);
    ones.add_output(name);
    onnx::AttributeProto *value = ones.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto *one = value->mutable_t();
    one->set_data_type(elemType);
    one->add_dims(1);
    switch (elemType) {
    case onnx::TensorProto::FLOAT:
      one->add_float_data(1.0f);
      break;
    case onnx::TensorProto::INT64:
      one->add_int64_data(1);
      break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::BOOL:
      one->add_int32_data(1);
      break;
    default:
      emitError(loc) << "attention_mask has an element type (ONNX " << elemType
                     << ") that is not bool, int32, int64 or float";
      return failure();
    }
    graph.mutable_input()->DeleteSubrange(maskIndex, 1);
    // Before every other node (the graph is topologically sorted).
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    nodes.Swap(graph.mutable_node());
    for (onnx::NodeProto &n : shapeNodes)
      *graph.add_node() = std::move(n);
    *graph.add_node() = std::move(ones);
    for (onnx::NodeProto &node : nodes)
      *graph.add_node() = std::move(node);
  }
  return success();
}

/// The function `options.funcName` of `module`.
static FunctionOpInterface entryOf(ModuleOp module,
                                   const ImportOptions &options) {
  auto func = module.lookupSymbol<FunctionOpInterface>(options.funcName);
  if (!func)
    emitError(module.getLoc()) << "no function @" << options.funcName;
  return func;
}

/// A fingerprint of every constant's value in `module` (a sorted list of
/// hashes: inline elements by their uniqued attribute, resources by their
/// bytes).
static SmallVector<llvm::hash_code> constantValues(ModuleOp module) {
  SmallVector<llvm::hash_code> hashes;
  module.walk([&](Operation *op) {
    if (!op->hasTrait<OpTrait::ConstantLike>())
      return;
    for (NamedAttribute a : op->getAttrs()) {
      if (auto r = dyn_cast<DenseResourceElementsAttr>(a.getValue())) {
        AsmResourceBlob *blob = r.getRawHandle().getBlob();
        ArrayRef<char> data = blob ? blob->getData() : ArrayRef<char>();
        hashes.push_back(llvm::hash_combine(
            r.getType(), llvm::hash_combine_range(data.begin(), data.end())));
      } else if (isa<ElementsAttr>(a.getValue())) {
        hashes.push_back(mlir::hash_value(a.getValue()));
      }
    }
  });
  llvm::sort(hashes, [](llvm::hash_code x, llvm::hash_code y) {
    return size_t(x) < size_t(y);
  });
  return hashes;
}

/// Checks that a model whose cached form `cached` reads tables by the new
/// tokens' positions computes with other constants with a past of two
/// tokens than with one: otherwise its positions ignore the past.
static LogicalResult checkPositionsMove(ModuleOp cached, ModuleOp onePast,
                                        ModuleOp twoPast, Location loc) {
  bool readsTables = false;
  cached.walk([&](SequencePrefixOp) { readsTables = true; });
  if (!readsTables || constantValues(onePast) != constantValues(twoPast))
    return success();
  emitError(loc) << "llm-form-kv-cache: the model reads position tables by "
                    "the new tokens' positions, but with a past of one and of "
                    "two tokens it computes with the same constants: its "
                    "positions do not move with the past (e.g. arange(S) "
                    "instead of arange(P, P + S)), which the cached form "
                    "would not reproduce";
  return failure();
}

OwningOpRef<ModuleOp> onnx_import::importWithKVCache(
    onnx::ModelProto &model, const ImportOptions &options, MLIRContext *ctx,
    Location loc,
    llvm::function_ref<OwningOpRef<ModuleOp>(const ImportOptions &)> import) {
  // 1-2: the prefill of an empty past, rewritten.
  ImportOptions prefill = options;
  prefill.kvCache = false;
  SmallVector<std::string> pastKeys;
  if (failed(prepareKVCacheImport(model, prefill, loc, pastKeys)))
    return nullptr;
  OwningOpRef<ModuleOp> module = import(prefill);
  if (!module)
    return nullptr;
  {
    NodeDiagnostics toModel(ctx, loc);
    FunctionOpInterface func = entryOf(*module, prefill);
    if (!func || failed(formKVCache(func)))
      return nullptr;
  }
  // 3: the model with a past of one and of two tokens (two new ones).
  ImportOptions withPast = prefill;
  withPast.runShapeInference = false;
  withPast.dimBounds.clear();
  for (const FreeDim &d : findFreeDims(model, prefill))
    withPast.dimValues[d.key()] = 2;
  SmallVector<OwningOpRef<ModuleOp>, 2> checks;
  for (int64_t past : {1, 2}) {
    for (const std::string &key : pastKeys)
      withPast.dimValues[key] = past;
    OwningOpRef<ModuleOp> check = import(withPast);
    bool checked;
    {
      NodeDiagnostics toModel(ctx, loc);
      FunctionOpInterface func;
      checked = check && succeeded(recomposeProbe(*check)) &&
                (func = entryOf(*check, withPast)) &&
                succeeded(checkDecoderWithPast(func));
    }
    if (!checked) {
      emitRemark(loc) << "while checking the model with a past of "
                      << (past == 1 ? "one token" : "two tokens")
                      << " (llmc reads the past's use from it)";
      return nullptr;
    }
    checks.push_back(std::move(check));
  }
  if (failed(checkPositionsMove(*module, *checks[0], *checks[1], loc)))
    return nullptr;
  return module;
}
