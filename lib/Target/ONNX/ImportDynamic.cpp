//===- ImportDynamic.cpp - ONNX symbolic sequence dimensions --------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model whose graph inputs have a symbolic dimension that the options leave
// free (the sequence length of every export with dynamic axes) is imported as
// one function for every length up to a bound:
//
//   1. the bound: `--dim-bound NAME=N`, else the model's own limit on the
//      length (the rows of a table indexed by positions, or of a buffer
//      sliced by the length: position embeddings, rotary caches, causal mask
//      buffers);
//   2. the model is imported at four lengths (the bound, the bound - 1,
//      about half of it and 2), each with every shape static, so that all of
//      the importer's shape folding applies, and each is recomposed
//      (`llm-recompose`: causal masks and RoPE tables are recognized while
//      they are constants);
//   3. `generalizeSequenceLength` merges them into one function whose
//      sequence dimension is `?` with `llm.dim_bounds` = the bound; it
//      reports any part of the model that does not vary as the length alone.
//
// llmc has one symbolic dimension (DimBounds.h): several free symbols are the
// same length only when the user says so with `--dim-bound`; otherwise the
// others must be pinned with `--dim`.
//
//===----------------------------------------------------------------------===//

#include "ImportDynamic.h"

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::llm;

namespace {

/// Name of a free dimension: its dim_param, else `INPUT:INDEX`.
std::string dimName(const onnx::ValueInfoProto &vi, int index) {
  const onnx::TensorShapeProto_Dimension &d =
      vi.type().tensor_type().shape().dim(index);
  if (d.has_dim_param() && !d.dim_param().empty())
    return d.dim_param();
  return vi.name() + ":" + std::to_string(index);
}

/// The dims of a constant (initializer or Constant node output) by name.
llvm::StringMap<SmallVector<int64_t>>
constantShapes(const onnx::GraphProto &graph) {
  llvm::StringMap<SmallVector<int64_t>> shapes;
  for (const onnx::TensorProto &t : graph.initializer())
    shapes[t.name()] = SmallVector<int64_t>(t.dims().begin(), t.dims().end());
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1)
      continue;
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == "value" && a.has_t())
        shapes[node.output(0)] =
            SmallVector<int64_t>(a.t().dims().begin(), a.t().dims().end());
  }
  return shapes;
}

/// The values of a small int64 constant (initializer or Constant node).
std::optional<SmallVector<int64_t>> constantInts(const onnx::GraphProto &graph,
                                                 const std::string &name) {
  auto read =
      [](const onnx::TensorProto &t) -> std::optional<SmallVector<int64_t>> {
    if (t.data_type() != onnx::TensorProto::INT64)
      return std::nullopt;
    if (t.int64_data_size())
      return SmallVector<int64_t>(t.int64_data().begin(), t.int64_data().end());
    const std::string &raw = t.raw_data();
    if (raw.size() % 8 != 0 || raw.size() > 8 * 64)
      return std::nullopt;
    SmallVector<int64_t> v(raw.size() / 8);
    std::memcpy(v.data(), raw.data(), raw.size());
    return v;
  };
  for (const onnx::TensorProto &t : graph.initializer())
    if (t.name() == name)
      return read(t);
  for (const onnx::NodeProto &node : graph.node())
    if (node.op_type() == "Constant" && node.output_size() == 1 &&
        node.output(0) == name)
      for (const onnx::AttributeProto &a : node.attribute())
        if (a.name() == "value" && a.has_t())
          return read(a.t());
  return std::nullopt;
}

/// The `--dim-bound` entry of a free dimension: by its name, else by
/// `INPUT:INDEX`.
const llvm::StringMapEntry<int64_t> *findBound(const ImportOptions &options,
                                               const onnx_import::FreeDim &d) {
  auto it = options.dimBounds.find(d.name);
  if (it == options.dimBounds.end())
    it = options.dimBounds.find(d.key());
  return it == options.dimBounds.end() ? nullptr : &*it;
}

} // namespace

SmallVector<onnx_import::FreeDim>
onnx_import::findFreeDims(const onnx::ModelProto &model,
                          const ImportOptions &options) {
  SmallVector<FreeDim> free;
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initNames;
  for (const onnx::TensorProto &t : graph.initializer())
    initNames.insert(t.name());
  for (const onnx::ValueInfoProto &vi : graph.input()) {
    if (initNames.contains(vi.name()) || !vi.type().has_tensor_type() ||
        !vi.type().tensor_type().has_shape())
      continue;
    const onnx::TensorShapeProto &shape = vi.type().tensor_type().shape();
    for (int i = 0; i < shape.dim_size(); ++i) {
      const onnx::TensorShapeProto_Dimension &d = shape.dim(i);
      std::string key = vi.name() + ":" + std::to_string(i);
      if (options.dimValues.count(key) ||
          (d.has_dim_param() && options.dimValues.count(d.dim_param())) ||
          (d.has_dim_value() && d.dim_value() >= 0))
        continue;
      free.push_back({vi.name(), i, dimName(vi, i)});
    }
  }
  return free;
}

std::optional<int64_t>
onnx_import::inferSequenceBound(const onnx::GraphProto &graph) {
  llvm::StringMap<SmallVector<int64_t>> consts = constantShapes(graph);
  llvm::StringMap<const onnx::NodeProto *> producer;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output())
      producer[out] = &node;
  // Whether `name` is computed from a Range node within a few steps.
  std::function<bool(const std::string &, int)> fromRange =
      [&](const std::string &name, int depth) {
        auto it = producer.find(name);
        if (it == producer.end() || depth > 6)
          return false;
        if (it->second->op_type() == "Range")
          return true;
        return llvm::any_of(it->second->input(), [&](const std::string &in) {
          return !in.empty() && fromRange(in, depth + 1);
        });
      };
  std::optional<int64_t> bound;
  auto candidate = [&](int64_t rows) {
    if (rows >= 1)
      bound = bound ? std::min(*bound, rows) : rows;
  };
  for (const onnx::NodeProto &node : graph.node()) {
    // A table indexed by positions (Gather(table, Range(...))).
    if (node.op_type() == "Gather" && node.input_size() == 2) {
      auto table = consts.find(node.input(0));
      if (table != consts.end() && !table->second.empty() &&
          fromRange(node.input(1), 0)) {
        int64_t axis = 0;
        for (const onnx::AttributeProto &a : node.attribute())
          if (a.name() == "axis")
            axis = a.i();
        int64_t rank = table->second.size();
        if (axis < 0)
          axis += rank;
        if (axis >= 0 && axis < rank)
          candidate(table->second[axis]);
      }
    }
    // A constant buffer sliced up to a computed end (mask[:, :, :S, :S],
    // cos_cached[:S], position_ids[:, :S]).
    if (node.op_type() == "Slice" && node.input_size() >= 3) {
      auto data = consts.find(node.input(0));
      if (data == consts.end() || consts.count(node.input(2)))
        continue;
      // The sliced axes: `axes` when it is a constant, else the leading
      // ones, one per entry of a constant `starts`; when neither tells, the
      // largest dimension (the length axis of a table).
      int64_t rank = data->second.size();
      SmallVector<int64_t> axes;
      if (node.input_size() >= 4 && !node.input(3).empty()) {
        if (std::optional<SmallVector<int64_t>> a =
                constantInts(graph, node.input(3)))
          axes = *a;
        else if (rank > 0)
          axes.push_back(
              std::max_element(data->second.begin(), data->second.end()) -
              data->second.begin());
      } else {
        auto starts = consts.find(node.input(1));
        if (starts == consts.end())
          continue;
        int64_t n = starts->second.empty() ? 1 : starts->second[0];
        for (int64_t d = 0; d < std::min(n, rank); ++d)
          axes.push_back(d);
      }
      for (int64_t a : axes) {
        if (a < 0)
          a += rank;
        if (a >= 0 && a < rank && data->second[a] > 1)
          candidate(data->second[a]);
      }
    }
  }
  return bound;
}

OwningOpRef<ModuleOp> onnx_import::importWithSequenceDim(
    const onnx::ModelProto &model, ArrayRef<FreeDim> free,
    const ImportOptions &options, MLIRContext *ctx, Location loc,
    llvm::function_ref<OwningOpRef<ModuleOp>(const ImportOptions &)> import) {
  // A bound must name a free symbolic dimension (a typo would otherwise
  // leave the dimension at the model's bound without a word).
  for (const auto &entry : options.dimBounds) {
    bool known = llvm::any_of(free, [&](const FreeDim &d) {
      return d.name == entry.getKey() || d.key() == entry.getKey();
    });
    if (!known) {
      InFlightDiagnostic diag = emitError(loc);
      diag << "--dim-bound '" << entry.getKey()
           << "': no graph input has a symbolic dimension of that name left "
              "free (the free ones: ";
      for (auto [i, d] : llvm::enumerate(free))
        diag << (i ? ", " : "") << "'" << d.name << "'";
      diag << ")";
      return nullptr;
    }
  }
  // The free symbols that are the sequence: those with a bound, or the only
  // one.
  llvm::StringSet<> names;
  for (const FreeDim &d : free)
    names.insert(d.name);
  std::optional<int64_t> bound;
  std::string boundFrom;
  // The bounded dimension's name (the first free one when none is).
  std::string boundName = free.front().name;
  for (const FreeDim &d : free) {
    const llvm::StringMapEntry<int64_t> *it = findBound(options, d);
    if (!it)
      continue;
    if (bound && *bound != it->second) {
      emitError(loc) << "symbolic dimensions bounded with --dim-bound must "
                        "share one bound (llmc keeps one dynamic dimension, "
                        "the sequence length): got "
                     << *bound << " and " << it->second;
      return nullptr;
    }
    bound = it->second;
    // As the user wrote it: the dim_param's name or INPUT:INDEX.
    boundFrom = "--dim-bound " + it->getKey().str();
    boundName = d.name;
  }
  if (names.size() > 1) {
    for (const FreeDim &d : free) {
      if (findBound(options, d))
        continue;
      InFlightDiagnostic diag = emitError(loc);
      diag << "graph input '" << d.input << "' has symbolic dimension "
           << d.index << " ('" << d.name
           << "') besides other symbolic dimensions (";
      bool first = true;
      for (const auto &n : names.keys())
        if (n != d.name) {
          diag << (first ? "" : ", ") << "'" << n << "'";
          first = false;
        }
      diag << "): llmc keeps one dynamic dimension, the sequence length; "
              "pin the others with --dim NAME=VALUE (e.g. --dim "
           << d.name
           << "=1), or give every sequence-length symbol the same "
              "bound with --dim-bound NAME=N";
      return nullptr;
    }
  }
  if (!bound) {
    bound = inferSequenceBound(model.graph());
    boundFrom = "the model's position table or mask buffer";
  }
  const FreeDim &first = free.front();
  if (!bound) {
    emitError(loc) << "graph input '" << first.input
                   << "' has symbolic dimension " << first.index << " ('"
                   << first.name
                   << "') and the model declares no largest length (no "
                      "position table or sliced buffer): set its bound with "
                      "--dim-bound "
                   << first.name << "=N, or pin it with --dim " << first.name
                   << "=VALUE";
    return nullptr;
  }
  if (*bound < 3) {
    emitError(loc) << "the bound of symbolic dimension '" << boundName
                   << "' is " << *bound << " (from " << boundFrom
                   << "): a dynamic dimension needs a bound of at least 3; "
                      "pin it with --dim "
                   << boundName << "=VALUE instead";
    return nullptr;
  }

  // The lengths: the bound (whose tables the prefixes read), its
  // neighbour, about half of it and 2. A size that only equals the length
  // near the bound is caught by the middle one; behaviour that changes with
  // the length (a comparison, Min/Max, If or Where on it, folded at each
  // probe) differs between 2 and the bound whenever its threshold lies in
  // (2, bound]. Length 1 is not probed: size-1 dimensions broadcast, and the
  // importer folds them differently (see docs/Design.md for what that
  // leaves).
  int64_t b = *bound;
  SmallVector<int64_t> lengths = {b, b - 1};
  if (b >= 8)
    lengths.push_back(b / 2 + 1);
  if (lengths.back() > 2)
    lengths.push_back(2);
  SmallVector<OwningOpRef<ModuleOp>> modules;
  // A node's warning (an ignored attribute, ...) once, not once per length.
  llvm::StringSet<> warned;
  for (auto [i, length] : llvm::enumerate(lengths)) {
    ImportOptions at = options;
    for (const FreeDim &d : free)
      at.dimValues[d.key()] = length;
    // Shape inference's cross-check warnings once, not per length.
    at.runShapeInference = options.runShapeInference && i == 0;
    // The import's diagnostics are held so that the cause of a failure,
    // when it is known, comes first.
    std::vector<Diagnostic> held;
    OwningOpRef<ModuleOp> module;
    {
      ScopedDiagnosticHandler hold(ctx, [&](Diagnostic &diag) {
        held.push_back(std::move(diag));
        return success();
      });
      module = import(at);
    }
    if (!module) {
      // A bound past the model's own tables fails at the first table read.
      std::optional<int64_t> own = inferSequenceBound(model.graph());
      if (own && *own < b)
        emitError(loc) << "the bound " << b << " of symbolic dimension '"
                       << boundName << "' (from " << boundFrom
                       << ") exceeds the model's own limit, " << *own
                       << " positions (its position table or mask buffer): "
                          "use a bound of at most "
                       << *own;
    }
    for (Diagnostic &diag : held) {
      if (diag.getSeverity() != DiagnosticSeverity::Error &&
          !warned.insert(diag.str()).second)
        continue;
      ctx->getDiagEngine().emit(std::move(diag));
    }
    if (!module) {
      emitRemark(loc) << "while importing with symbolic dimension '"
                      << boundName << "' = " << length
                      << " (llmc imports a dynamic dimension at several "
                         "lengths up to its bound "
                      << b << ", from " << boundFrom << ")";
      return nullptr;
    }
    if (failed(recomposeProbe(*module)))
      return nullptr;
    modules.push_back(std::move(module));
  }
  SmallVector<ModuleOp> ops;
  for (OwningOpRef<ModuleOp> &m : modules)
    ops.push_back(*m);
  // The merge reports at the op that differs; for an ONNX model that is
  // the node (its name and op type, the importer's locations), reported at
  // the model's file as the importer's other errors are.
  bool merged;
  {
    onnx_import::NodeDiagnostics toModel(ctx, loc);
    merged = succeeded(generalizeSequenceLength(ops, lengths));
  }
  if (!merged) {
    emitRemark(loc) << "symbolic dimension '" << boundName
                    << "' stays dynamic only when the model varies with it "
                       "as a sequence length does; pin it with --dim "
                    << boundName << "=VALUE to import one length";
    return nullptr;
  }
  return std::move(modules.front());
}

LogicalResult onnx_import::recomposeProbe(ModuleOp module) {
  // Causal masks and RoPE tables are recognized while they are constants
  // (after the simplifications the pipeline's inliner also runs first: an
  // all-ones padding mask added as zeros, x + 0 -> x).
  PassManager pm(module.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLLMRecomposePass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

onnx_import::NodeDiagnostics::NodeDiagnostics(MLIRContext *ctx, Location loc)
    : ScopedDiagnosticHandler(ctx) {
  setHandler([this, loc](Diagnostic &diag) -> LogicalResult {
    if (forwarding)
      return failure();
    std::string prefix;
    if (auto name = dyn_cast<NameLoc>(diag.getLocation())) {
      prefix = "ONNX node '" + name.getName().str() + "'";
      if (auto kind = dyn_cast<NameLoc>(name.getChildLoc()))
        prefix += " (" + kind.getName().str() + ")";
      prefix += ": ";
    }
    forwarding = true;
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      emitError(loc) << prefix << diag.str();
      break;
    case DiagnosticSeverity::Warning:
      emitWarning(loc) << prefix << diag.str();
      break;
    default:
      emitRemark(loc) << prefix << diag.str();
      break;
    }
    forwarding = false;
    return success();
  });
}
