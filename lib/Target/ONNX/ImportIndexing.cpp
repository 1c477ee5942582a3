//===- ImportIndexing.cpp - ONNX GatherND, scatters, TopK, Einsum, ... ---===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// GatherND, ScatterND, ScatterElements (and the deprecated Scatter), TopK,
// DynamicQuantizeLinear and Einsum: the ops that index tensors by run-time
// values or contract them by an equation. Each becomes the llm op of the
// same name (llm.gather_nd, llm.scatter_nd, llm.scatter_elements, llm.topk,
// llm.dynamic_quantize), whose lowering checks run-time indices; Einsum is
// decomposed into llm.transpose / reshape / slice (diagonals) /
// reduce_sum / matmul (f32, f16, bf16) or mul + reduce_sum (f64).
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cctype>

#include <map>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Gather / scatter
//===----------------------------------------------------------------------===//

/// The indices of an indexing op: int32 or int64 (ONNX requires int64 for
/// GatherND/ScatterND; int32 is accepted as llm.gather does).
static bool isIndexDType(int dtype) {
  return dtype == TensorProto::INT64 || dtype == TensorProto::INT32;
}

// GatherND(data, indices) {batch_dims} -> llm.gather_nd (run-time checked
// indices).
LogicalResult Importer::importGatherND(const onnx::NodeProto &node) {
  FailureOr<Entry *> data = required(node, 0), idx = required(node, 1);
  if (failed(data) || failed(idx))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**data), ishape = shapeOf(**idx);
  int64_t r = shape.size(), q = ishape.size();
  int64_t b = intAttr(node, "batch_dims", 0);
  if (r == 0 || q == 0)
    return nodeError(node) << "data and indices must have rank >= 1, got "
                           << shapeStr(shape) << " and " << shapeStr(ishape);
  if (b < 0 || b >= std::min(r, q))
    return nodeError(node) << "batch_dims " << b
                           << " must be less than both ranks (" << r << ", "
                           << q << ")";
  for (int64_t d = 0; d < b; ++d)
    if (shape[d] != ishape[d])
      return nodeError(node)
             << "batch dimension " << d << " differs: data " << shapeStr(shape)
             << ", indices " << shapeStr(ishape);
  int64_t m = ishape.back();
  if (m < 1 || m > r - b)
    return nodeError(node) << "indices.shape[-1] = " << m << " must lie in [1, "
                           << r - b << "] (data rank minus batch_dims)";
  if (!isIndexDType(dtypeOf(**idx)))
    return nodeError(node) << "indices must be int64 or int32, got "
                           << dtypeName(dtypeOf(**idx));
  for (int64_t d = b; d < b + m; ++d)
    if (shape[d] == 0)
      return nodeError(node) << "indexed dimension " << d << " is empty";
  SmallVector<int64_t> out(ArrayRef(ishape).drop_back());
  llvm::append_range(out, ArrayRef(shape).drop_front(b + m));
  FailureOr<Value> x = materialize(node, **data);
  FailureOr<Value> ids = materialize(node, **idx);
  if (failed(x) || failed(ids))
    return failure();
  setOutput(node, 0,
            GatherNDOp::create(builder, nodeLoc(node),
                               tensorType(out, elemTypeOf(*x)), *x, *ids,
                               builder.getI64IntegerAttr(b)));
  return success();
}

/// The `reduction` attribute of ScatterND / ScatterElements (opset 16:
/// none, add, mul; opset 18: max, min).
static std::optional<ScatterReduction>
scatterReduction(const onnx::NodeProto &node) {
  std::string name = "none";
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "reduction")
      name = a.s();
  return llvm::StringSwitch<std::optional<ScatterReduction>>(name)
      .Case("none", ScatterReduction::None)
      .Case("add", ScatterReduction::Add)
      .Case("mul", ScatterReduction::Mul)
      .Case("max", ScatterReduction::Max)
      .Case("min", ScatterReduction::Min)
      .Default(std::nullopt);
}

// ScatterND(data, indices, updates) {reduction} -> llm.scatter_nd;
// ScatterElements / Scatter(data, indices, updates) {axis, reduction} ->
// llm.scatter_elements (run-time checked indices, negative ones wrap).
LogicalResult Importer::importScatter(const onnx::NodeProto &node) {
  bool nd = node.op_type() == "ScatterND";
  FailureOr<Entry *> data = required(node, 0), idx = required(node, 1),
                     upd = required(node, 2);
  if (failed(data) || failed(idx) || failed(upd))
    return failure();
  std::optional<ScatterReduction> reduction = scatterReduction(node);
  if (!reduction)
    return nodeError(node) << "unknown reduction (expected none, add, mul, "
                              "max or min)";
  SmallVector<int64_t> shape = shapeOf(**data), ishape = shapeOf(**idx),
                       ushape = shapeOf(**upd);
  int64_t r = shape.size();
  if (r == 0 || ishape.empty())
    return nodeError(node) << "data and indices must have rank >= 1, got "
                           << shapeStr(shape) << " and " << shapeStr(ishape);
  if (!isIndexDType(dtypeOf(**idx)))
    return nodeError(node) << "indices must be int64 or int32, got "
                           << dtypeName(dtypeOf(**idx));
  if (dtypeOf(**upd) != dtypeOf(**data))
    return nodeError(node) << "updates of type " << dtypeName(dtypeOf(**upd))
                           << " for data of type "
                           << dtypeName(dtypeOf(**data));
  if (*reduction != ScatterReduction::None &&
      dtypeOf(**data) == TensorProto::BOOL)
    return nodeError(node) << "a reduction on a BOOL tensor is not supported";
  int64_t axis = 0;
  if (nd) {
    int64_t m = ishape.back();
    if (m < 1 || m > r)
      return nodeError(node)
             << "indices.shape[-1] = " << m << " must lie in [1, " << r << "]";
    SmallVector<int64_t> expected(ArrayRef(ishape).drop_back());
    llvm::append_range(expected, ArrayRef(shape).drop_front(m));
    if (ushape != expected)
      return nodeError(node)
             << "updates of shape " << shapeStr(ushape) << "; expected "
             << shapeStr(expected) << " (indices.shape[:-1] + data.shape[m:])";
    for (int64_t d = 0; d < m; ++d)
      if (shape[d] == 0)
        return nodeError(node) << "indexed dimension " << d << " is empty";
  } else {
    if (static_cast<int64_t>(ishape.size()) != r || ishape != ushape)
      return nodeError(node) << "indices " << shapeStr(ishape)
                             << " and updates " << shapeStr(ushape)
                             << " must have the same shape, of the data's "
                                "rank ("
                             << r << ")";
    FailureOr<int64_t> a = normAxis(node, intAttr(node, "axis", 0), r);
    if (failed(a))
      return failure();
    axis = *a;
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && ushape[d] > shape[d])
        return nodeError(node)
               << "updates dimension " << d << " (" << ushape[d]
               << ") is larger than the data's (" << shape[d] << ")";
    if (shape[axis] == 0 && product(ushape) > 0)
      return nodeError(node) << "scattered dimension " << axis << " is empty";
  }
  FailureOr<Value> x = materialize(node, **data);
  FailureOr<Value> ids = materialize(node, **idx);
  FailureOr<Value> u = materialize(node, **upd);
  if (failed(x) || failed(ids) || failed(u))
    return failure();
  Location loc = nodeLoc(node);
  auto reductionAttr = ScatterReductionAttr::get(ctx, *reduction);
  Value result;
  if (nd)
    result = ScatterNDOp::create(builder, loc, x->getType(), *x, *ids, *u,
                                 reductionAttr);
  else
    result = ScatterElementsOp::create(builder, loc, x->getType(), *x, *ids, *u,
                                       builder.getI64IntegerAttr(axis),
                                       reductionAttr);
  setOutput(node, 0, result);
  return success();
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

// TopK(X, K) {axis = -1, largest = 1, sorted = 1} -> llm.topk (K must be a
// constant; the results are always sorted, which sorted = 0 allows).
LogicalResult Importer::importTopK(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int64_t k;
  if (opset < 10) {
    k = intAttr(node, "k", -1);
  } else {
    FailureOr<const ConstTensor *> kt = requiredConst(node, 1, "K");
    if (failed(kt))
      return failure();
    if ((*kt)->numel() != 1)
      return nodeError(node)
             << "K must have one element, got shape " << shapeStr((*kt)->shape);
    k = (*kt)->getInt(0);
  }
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  if (rank == 0)
    return nodeError(node) << "input must have rank >= 1";
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  if (k < 0 || k > shape[*axis])
    return nodeError(node) << "K = " << k << " is out of range for axis "
                           << *axis << " of size " << shape[*axis];
  int dtype = dtypeOf(**in);
  if (!isFloatDType(dtype) && dtype != TensorProto::INT8 &&
      dtype != TensorProto::INT32 && dtype != TensorProto::INT64)
    return nodeError(node) << "TopK of a " << dtypeName(dtype)
                           << " tensor is not supported (llm.topk takes "
                              "f32, f16, bf16, f64, int8, int32, int64)";
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  SmallVector<int64_t> out(shape);
  out[*axis] = k;
  auto topk = TopKOp::create(
      builder, nodeLoc(node), tensorType(out, elemTypeOf(*x)),
      tensorType(out, builder.getI64Type()), *x, builder.getI64IntegerAttr(k),
      builder.getI64IntegerAttr(*axis),
      builder.getBoolAttr(intAttr(node, "largest", 1) != 0));
  setOutput(node, 0, topk.getValues());
  setOutput(node, 1, topk.getIndices());
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

// DynamicQuantizeLinear(x) -> llm.dynamic_quantize; y and y_zero_point are
// uint8 bits in i8 (Entry::unsignedBits), as QuantizeLinear's uint8 results.
LogicalResult
Importer::importDynamicQuantizeLinear(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  if (dtypeOf(**in) != TensorProto::FLOAT)
    return nodeError(node) << "input must be FLOAT, got "
                           << dtypeName(dtypeOf(**in));
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  Type i8 = builder.getI8Type();
  auto q = DynamicQuantizeOp::create(
      builder, nodeLoc(node), tensorType(shapeOf(*x), i8),
      tensorType({}, builder.getF32Type()), tensorType({}, i8), *x);
  setOutput(node, 0, q.getResult());
  setOutput(node, 1, q.getScale());
  setOutput(node, 2, q.getZeroPoint());
  for (int i : {0, 2})
    if (i < node.output_size() && !node.output(i).empty())
      env[node.output(i)].unsignedBits = true;
  return success();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

namespace {
/// A value during the Einsum decomposition, with one label per dimension
/// (a letter, or 256 + i for the i-th dimension of the broadcast ellipsis).
struct Labeled {
  Value value;
  SmallVector<int> labels;
};
} // namespace

static std::string labelName(int label) {
  if (label < 256)
    return std::string(1, static_cast<char>(label));
  return "..." + std::to_string(label - 256);
}

// Einsum(inputs...) {equation}: per operand, repeated labels become
// diagonals (reshape [.., n, n] -> [.., n*n], slice with stride n + 1) and
// labels no other operand or the output needs are summed (llm.reduce_sum);
// operands are then combined left to right: f32/f16/bf16 operands sharing
// contracted labels go through llm.matmul ([B.., M, K] x [B.., K, N],
// labels transposed into place), others (f64, or no contraction) through a
// broadcasting llm.mul and llm.reduce_sum of the contracted labels; the
// result is transposed to the output order.
LogicalResult Importer::importEinsum(const onnx::NodeProto &node) {
  std::string eq;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "equation")
      eq = a.s();
  eq.erase(llvm::remove_if(eq, [](char c) { return c == ' '; }), eq.end());
  if (eq.empty())
    return nodeError(node) << "missing equation";
  std::string lhs = eq, rhs;
  bool explicitOutput = false;
  if (size_t arrow = eq.find("->"); arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
    explicitOutput = true;
  }
  SmallVector<std::string> terms;
  for (StringRef t : llvm::split(StringRef(lhs), ','))
    terms.push_back(t.str());
  if (static_cast<int>(terms.size()) != node.input_size())
    return nodeError(node) << "equation '" << eq << "' has " << terms.size()
                           << " operands for " << node.input_size()
                           << " inputs";
  auto bad = [&](const Twine &why) {
    return nodeError(node) << "equation '" << eq << "': " << why;
  };
  // Parse the terms; the ellipsis takes the dimensions the letters leave.
  SmallVector<Labeled> ops;
  int64_t ellipsisRank = 0;
  SmallVector<std::pair<SmallVector<int>, int64_t>> parsed; // letters, ell. pos
  int dtype = -1;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<Entry *> e = required(node, i);
    if (failed(e))
      return failure();
    int dt = dtypeOf(**e);
    if (dtype >= 0 && dt != dtype)
      return nodeError(node)
             << "inputs of different types (" << dtypeName(dtype) << ", "
             << dtypeName(dt) << ")";
    dtype = dt;
    SmallVector<int> letters;
    int64_t ellipsisAt = -1;
    for (size_t c = 0; c < term.size(); ++c) {
      if (term.compare(c, 3, "...") == 0) {
        if (ellipsisAt >= 0)
          return bad("two ellipses in one operand");
        ellipsisAt = letters.size();
        c += 2;
      } else if (std::isalpha(static_cast<unsigned char>(term[c]))) {
        letters.push_back(term[c]);
      } else {
        return bad("unexpected character '" + Twine(term[c]) + "'");
      }
    }
    int64_t rank = shapeOf(**e).size();
    int64_t ell = rank - static_cast<int64_t>(letters.size());
    if (ell < 0 || (ell > 0 && ellipsisAt < 0))
      return bad("operand " + Twine(i) + " has rank " + Twine(rank) + " for " +
                 Twine(letters.size()) + " labels");
    ellipsisRank = std::max(ellipsisRank, ell);
    parsed.push_back({letters, ellipsisAt});
  }
  if (!isFloatDType(dtype))
    return nodeError(node) << "Einsum of " << dtypeName(dtype)
                           << " tensors is not supported (llm.matmul and "
                              "llm.reduce_sum take floats)";
  for (auto [i, p] : llvm::enumerate(parsed)) {
    Entry *e = *required(node, i);
    int64_t rank = shapeOf(*e).size();
    int64_t ell = rank - static_cast<int64_t>(p.first.size());
    Labeled l;
    for (int64_t d = 0; d < static_cast<int64_t>(p.first.size()); ++d) {
      if (d == p.second)
        for (int64_t k = 0; k < ell; ++k)
          l.labels.push_back(256 + ellipsisRank - ell + k);
      l.labels.push_back(p.first[d]);
    }
    if (p.second == static_cast<int64_t>(p.first.size()))
      for (int64_t k = 0; k < ell; ++k)
        l.labels.push_back(256 + ellipsisRank - ell + k);
    FailureOr<Value> v = materialize(node, *e);
    if (failed(v))
      return failure();
    l.value = *v;
    ops.push_back(std::move(l));
  }
  // Output labels.
  SmallVector<int> outLabels;
  if (explicitOutput) {
    for (size_t c = 0; c < rhs.size(); ++c) {
      if (rhs.compare(c, 3, "...") == 0) {
        for (int64_t k = 0; k < ellipsisRank; ++k)
          outLabels.push_back(256 + k);
        c += 2;
      } else if (std::isalpha(static_cast<unsigned char>(rhs[c]))) {
        if (llvm::is_contained(outLabels, rhs[c]))
          return bad("output label '" + Twine(rhs[c]) + "' repeated");
        outLabels.push_back(rhs[c]);
      } else {
        return bad("unexpected character '" + Twine(rhs[c]) + "'");
      }
    }
  } else {
    std::map<int, int> counts;
    for (const Labeled &l : ops)
      for (int label : l.labels)
        counts[label]++;
    for (int64_t k = 0; k < ellipsisRank; ++k)
      outLabels.push_back(256 + k);
    for (auto [label, n] : counts)
      if (label < 256 && n == 1)
        outLabels.push_back(label);
  }
  // Sizes of the labels (1 broadcasts against n).
  std::map<int, int64_t> sizes;
  for (const Labeled &l : ops)
    for (auto [d, label] : llvm::enumerate(l.labels)) {
      int64_t n = shapeOf(l.value)[d];
      auto [it, inserted] = sizes.insert({label, n});
      if (!inserted && it->second != n) {
        if (it->second == 1)
          it->second = n;
        else if (n != 1)
          return bad("label '" + labelName(label) + "' has sizes " +
                     Twine(it->second) + " and " + Twine(n));
      }
    }
  for (int label : outLabels)
    if (!sizes.count(label))
      return bad("output label '" + labelName(label) +
                 "' is not in any operand");

  Location loc = nodeLoc(node);
  Type et = elemTypeOf(ops[0].value);
  bool matmulType = !et.isF64();
  auto transposeTo = [&](Labeled &l, ArrayRef<int> order) {
    if (ArrayRef<int>(l.labels) == order)
      return;
    SmallVector<int64_t> perm, shape;
    for (int label : order) {
      int64_t d = llvm::find(l.labels, label) - l.labels.begin();
      perm.push_back(d);
      shape.push_back(shapeOf(l.value)[d]);
    }
    l.value =
        TransposeOp::create(builder, loc, tensorType(shape, et), l.value, perm);
    l.labels.assign(order.begin(), order.end());
  };
  auto sumOut = [&](Labeled &l, ArrayRef<int> keep) {
    SmallVector<int64_t> axes, shape;
    SmallVector<int> labels;
    for (auto [d, label] : llvm::enumerate(l.labels)) {
      if (llvm::is_contained(keep, label)) {
        labels.push_back(label);
        shape.push_back(shapeOf(l.value)[d]);
      } else {
        axes.push_back(d);
      }
    }
    if (axes.empty())
      return;
    l.value = ReduceSumOp::create(builder, loc, tensorType(shape, et), l.value,
                                  axes, false);
    l.labels = labels;
  };
  // Diagonals of repeated labels.
  for (Labeled &l : ops) {
    for (;;) {
      int64_t p = -1, q = -1;
      for (size_t i = 0; i < l.labels.size() && p < 0; ++i)
        for (size_t j = i + 1; j < l.labels.size(); ++j)
          if (l.labels[i] == l.labels[j]) {
            p = i;
            q = j;
            break;
          }
      if (p < 0)
        break;
      int64_t n = shapeOf(l.value)[p];
      if (shapeOf(l.value)[q] != n)
        return bad("repeated label '" + labelName(l.labels[p]) +
                   "' with sizes " + Twine(n) + " and " +
                   Twine(shapeOf(l.value)[q]));
      SmallVector<int64_t> perm, shape;
      SmallVector<int> labels;
      for (int64_t d = 0; d < static_cast<int64_t>(l.labels.size()); ++d)
        if (d != p && d != q) {
          perm.push_back(d);
          shape.push_back(shapeOf(l.value)[d]);
          labels.push_back(l.labels[d]);
        }
      int label = l.labels[p];
      perm.push_back(p);
      perm.push_back(q);
      SmallVector<int64_t> tshape(shape);
      tshape.append({n, n});
      Value t = l.value;
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
        t = TransposeOp::create(builder, loc, tensorType(tshape, et), t, perm);
      SmallVector<int64_t> flat(shape);
      flat.push_back(n * n);
      t = reshape(loc, t, flat);
      SmallVector<int64_t> starts(flat.size(), 0), limits(flat),
          strides(flat.size(), 1);
      strides.back() = n + 1;
      t = slice(loc, t, starts, limits, strides);
      labels.push_back(label);
      l.value = t;
      l.labels = labels;
    }
  }
  // The labels needed after operand `i` is consumed: the output's and the
  // later operands'.
  auto neededAfter = [&](size_t i) {
    SmallVector<int> needed(outLabels);
    for (size_t j = i + 1; j < ops.size(); ++j)
      llvm::append_range(needed, ops[j].labels);
    return needed;
  };
  // Sum what only the first operand has and nothing needs.
  Labeled acc = ops[0];
  {
    SmallVector<int> keep = neededAfter(0);
    sumOut(acc, keep);
  }
  for (size_t i = 1; i < ops.size(); ++i) {
    Labeled rhsOp = ops[i];
    SmallVector<int> later = neededAfter(i);
    // Each side sums the labels neither the other side nor later uses need.
    SmallVector<int> keepL(later), keepR(later);
    llvm::append_range(keepL, rhsOp.labels);
    llvm::append_range(keepR, acc.labels);
    sumOut(acc, keepL);
    sumOut(rhsOp, keepR);
    // Broadcast shared labels of size 1 on one side.
    for (Labeled *l : {&acc, &rhsOp}) {
      SmallVector<int64_t> shape(shapeOf(l->value));
      bool changed = false;
      for (auto [d, label] : llvm::enumerate(l->labels))
        if (shape[d] != sizes[label]) {
          shape[d] = sizes[label];
          changed = true;
        }
      if (changed)
        l->value = BroadcastToOp::create(builder, loc, tensorType(shape, et),
                                         l->value);
    }
    SmallVector<int> batch, mLabels, kLabels, nLabels;
    for (int label : acc.labels) {
      bool inR = llvm::is_contained(rhsOp.labels, label);
      bool keep = llvm::is_contained(later, label);
      if (inR && keep)
        batch.push_back(label);
      else if (inR)
        kLabels.push_back(label);
      else
        mLabels.push_back(label);
    }
    for (int label : rhsOp.labels)
      if (!llvm::is_contained(acc.labels, label))
        nLabels.push_back(label);
    auto sizeOf = [&](ArrayRef<int> labels) {
      int64_t n = 1;
      for (int label : labels)
        n *= sizes[label];
      return n;
    };
    SmallVector<int> resultLabels(batch);
    llvm::append_range(resultLabels, mLabels);
    llvm::append_range(resultLabels, nLabels);
    SmallVector<int64_t> batchShape, resultShape;
    for (int label : batch)
      batchShape.push_back(sizes[label]);
    for (int label : resultLabels)
      resultShape.push_back(sizes[label]);
    if (matmulType && !kLabels.empty()) {
      SmallVector<int> lOrder(batch), rOrder(batch);
      llvm::append_range(lOrder, mLabels);
      llvm::append_range(lOrder, kLabels);
      llvm::append_range(rOrder, kLabels);
      llvm::append_range(rOrder, nLabels);
      transposeTo(acc, lOrder);
      transposeTo(rhsOp, rOrder);
      int64_t m = sizeOf(mLabels), k = sizeOf(kLabels), n = sizeOf(nLabels);
      SmallVector<int64_t> lShape(batchShape), rShape(batchShape),
          mmShape(batchShape);
      lShape.append({m, k});
      rShape.append({k, n});
      mmShape.append({m, n});
      Value l3 = reshape(loc, acc.value, lShape);
      Value r3 = reshape(loc, rhsOp.value, rShape);
      Value mm =
          MatmulOp::create(builder, loc, tensorType(mmShape, et), l3, r3);
      acc.value = reshape(loc, mm, resultShape);
      acc.labels = resultLabels;
    } else {
      // Broadcasting product over batch + m + k + n, then the sum over k.
      SmallVector<int> all(batch);
      llvm::append_range(all, mLabels);
      llvm::append_range(all, kLabels);
      llvm::append_range(all, nLabels);
      auto expandTo = [&](Labeled &l) {
        SmallVector<int> order;
        for (int label : all)
          if (llvm::is_contained(l.labels, label))
            order.push_back(label);
        transposeTo(l, order);
        SmallVector<int64_t> shape;
        for (int label : all)
          shape.push_back(llvm::is_contained(l.labels, label) ? sizes[label]
                                                              : 1);
        return reshape(loc, l.value, shape);
      };
      Value a = expandTo(acc), b = expandTo(rhsOp);
      SmallVector<int64_t> allShape;
      for (int label : all)
        allShape.push_back(sizes[label]);
      Labeled prod{MulOp::create(builder, loc, tensorType(allShape, et), a, b),
                   all};
      sumOut(prod, resultLabels);
      acc = prod;
    }
  }
  sumOut(acc, outLabels);
  transposeTo(acc, outLabels);
  setOutput(node, 0, acc.value);
  return success();
}
