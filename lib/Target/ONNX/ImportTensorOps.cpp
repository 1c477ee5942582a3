//===- ImportTensorOps.cpp - ONNX data movement and shape ops -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Transpose, Reshape / Flatten / Squeeze / Unsqueeze, Concat, Split, Slice,
// Gather, Shape, ConstantOfShape, Range, Expand, Cast, Clip, Trilu: folded
// on constants, else `llm` ops.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Value Importer::slice(Location loc, Value v, ArrayRef<int64_t> starts,
                      ArrayRef<int64_t> limits, ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = shapeOf(v);
  SmallVector<int64_t> out;
  bool identity = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    // ceil((limit - start) / stride) for 0 <= start, limit <= dim.
    out.push_back(limits[d] <= starts[d]
                      ? 0
                      : (limits[d] - starts[d] - 1) / strides[d] + 1);
    identity &= starts[d] == 0 && limits[d] == shape[d] && strides[d] == 1;
  }
  if (identity)
    return v;
  return SliceOp::create(builder, loc, tensorType(out, elemTypeOf(v)), v,
                         starts, limits, strides);
}

// Transpose(perm) -> llm.transpose (folded on constants).
LogicalResult Importer::importTranspose(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  SmallVector<int64_t> perm;
  if (auto p = intsAttr(node, "perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return nodeError(node) << "perm has " << perm.size() << " entries for rank "
                           << rank;
  for (int64_t &p : perm) {
    if (p < 0)
      p += rank;
    if (p < 0 || p >= rank || seen[p])
      return nodeError(node) << "perm is not a permutation";
    seen[p] = true;
  }
  SmallVector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0,
              (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                int64_t flat = 0;
                for (int64_t i = 0; i < rank; ++i)
                  flat += idx[i] * strides[perm[i]];
                return flat;
              }));
    return success();
  }
  Value x = (*in)->value;
  setOutput(node, 0,
            TransposeOp::create(builder, nodeLoc(node),
                                tensorType(outShape, elemTypeOf(x)), x, perm));
  return success();
}

// Reshape / Squeeze / Unsqueeze / Flatten -> llm.reshape (a new shape over
// the same row-major data; constants just get the new shape).
LogicalResult Importer::importReshapeLike(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size(), numel = product(shape);
  SmallVector<int64_t> out;
  if (op == "Reshape") {
    FailureOr<const ConstTensor *> s = requiredConst(node, 1, "shape");
    if (failed(s))
      return failure();
    out = (*s)->toInts();
    bool allowZero = intAttr(node, "allowzero", 0);
    int64_t inferred = -1, known = 1;
    for (auto [i, d] : llvm::enumerate(out)) {
      if (d == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= rank)
          return nodeError(node)
                 << "shape entry " << i
                 << " is 0 (copy) but the input has rank " << rank;
        d = shape[i];
      }
      if (d == -1) {
        if (inferred >= 0)
          return nodeError(node) << "shape has more than one -1";
        inferred = i;
      } else if (d < 0) {
        return nodeError(node) << "invalid shape entry " << d;
      } else {
        // An overflow is no valid shape: it only fails the checks below.
        known = llm::detail::checkedMul(known, d).value_or(-1);
        if (known < 0)
          return nodeError(node)
                 << "cannot reshape " << shapeStr(shape) << " to "
                 << shapeStr(out) << " (its size overflows int64)";
      }
    }
    if (inferred >= 0) {
      if (known == 0 || numel % known != 0)
        return nodeError(node)
               << "cannot infer -1 in shape for " << numel << " elements";
      out[inferred] = numel / known;
    }
    if (checkedProduct(out) != numel)
      return nodeError(node)
             << "cannot reshape " << shapeStr(shape) << " to " << shapeStr(out);
  } else if (op == "Flatten") {
    // axis in [-rank, rank]; a negative one counts from rank (not rank + 1).
    int64_t a = intAttr(node, "axis", 1);
    if (a < -rank || a > rank)
      return nodeError(node) << "axis " << a << " is out of range for rank "
                             << rank << " (expected [" << -rank << ", "
                             << rank << "])";
    std::optional<int64_t> axis = a < 0 ? a + rank : a;
    int64_t outer = product(ArrayRef(shape).take_front(*axis));
    out = {outer, outer == 0 ? 0 : numel / outer};
  } else {
    SmallVector<int64_t> axes;
    if (auto a = intsAttr(node, "axes")) {
      axes = *a;
    } else if (Entry *ax = input(node, 1)) {
      if (!ax->constant)
        return nodeError(node) << "input 'axes' must be a constant known at "
                                  "import time";
      axes = ax->constant->toInts();
    } else if (op == "Unsqueeze") {
      return nodeError(node) << "Unsqueeze needs axes";
    }
    if (op == "Squeeze") {
      SmallVector<bool> drop(rank, false);
      if (axes.empty()) {
        for (int64_t i = 0; i < rank; ++i)
          drop[i] = shape[i] == 1;
      }
      for (int64_t a : axes) {
        FailureOr<int64_t> n = normAxis(node, a, rank);
        if (failed(n))
          return failure();
        if (shape[*n] != 1)
          return nodeError(node) << "cannot squeeze dimension " << *n
                                 << " of size " << shape[*n];
        drop[*n] = true;
      }
      for (int64_t i = 0; i < rank; ++i)
        if (!drop[i])
          out.push_back(shape[i]);
    } else {
      int64_t outRank = rank + axes.size();
      SmallVector<bool> isNew(outRank, false);
      for (int64_t a : axes) {
        FailureOr<int64_t> n = normAxis(node, a, outRank);
        if (failed(n))
          return failure();
        if (isNew[*n])
          return nodeError(node) << "repeated axis " << *n;
        isNew[*n] = true;
      }
      for (int64_t i = 0, j = 0; i < outRank; ++i)
        out.push_back(isNew[i] ? 1 : shape[j++]);
    }
  }
  if ((*in)->constant) {
    ConstTensor c = *(*in)->constant;
    c.shape = out;
    setOutput(node, 0, std::move(c));
    return success();
  }
  setOutput(node, 0, reshape(nodeLoc(node), (*in)->value, out));
  return success();
}

// Concat(axis) -> llm.concat (folded when every input is a constant).
LogicalResult Importer::importConcat(const onnx::NodeProto &node) {
  SmallVector<Entry *> ins;
  for (int i = 0; i < node.input_size(); ++i)
    if (Entry *e = input(node, i))
      ins.push_back(e);
  if (ins.empty())
    return nodeError(node) << "Concat needs inputs";
  SmallVector<int64_t> shape = shapeOf(*ins[0]);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int dtype = dtypeOf(*ins[0]);
  SmallVector<int64_t> outShape = shape;
  outShape[*axis] = 0;
  for (Entry *e : ins) {
    SmallVector<int64_t> s = shapeOf(*e);
    if (static_cast<int64_t>(s.size()) != rank || dtypeOf(*e) != dtype)
      return nodeError(node) << "inputs differ in rank or element type";
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && s[d] != shape[d])
        return nodeError(node) << "input shapes " << shapeStr(shape) << " and "
                               << shapeStr(s) << " differ off the axis";
    std::optional<int64_t> sum =
        llm::detail::checkedAdd(outShape[*axis], s[*axis]);
    if (!sum)
      return nodeError(node)
             << "the concatenated dimension " << *axis << " overflows int64";
    outShape[*axis] = *sum;
  }
  if (allConst(ins)) {
    // Source tensor and offset for each position along the axis.
    SmallVector<std::pair<const ConstTensor *, int64_t>> along;
    for (Entry *e : ins)
      for (int64_t i = 0; i < e->constant->shape[*axis]; ++i)
        along.push_back({&*e->constant, i});
    ConstTensor out = ConstTensor::zeros(dtype, outShape);
    int64_t es = out.elemSize();
    forEachIndex(outShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
      auto [src, off] = along[idx[*axis]];
      SmallVector<int64_t> st = stridesOf(src->shape);
      int64_t f = 0;
      for (int64_t d = 0; d < rank; ++d)
        f += (d == *axis ? off : idx[d]) * st[d];
      std::memcpy(out.bytes->data() + flat * es, src->ptr(f), es);
    });
    setOutput(node, 0, std::move(out));
    return success();
  }
  SmallVector<Value> vals;
  for (Entry *e : ins) {
    if (shapeOf(*e)[*axis] == 0)
      continue;
    FailureOr<Value> v = materialize(node, *e);
    if (failed(v))
      return failure();
    vals.push_back(*v);
  }
  if (vals.empty())
    return nodeError(node) << "all inputs are empty along the axis";
  Value r = vals.size() == 1
                ? vals[0]
                : ConcatOp::create(builder, nodeLoc(node),
                                   tensorType(outShape, elemTypeOf(vals[0])),
                                   vals, *axis)
                      .getResult();
  setOutput(node, 0, r);
  return success();
}

// Split(axis, split) -> one llm.slice per output.
LogicalResult Importer::importSplit(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes;
  if (auto s = intsAttr(node, "split")) {
    sizes = *s;
  } else if (Entry *s = input(node, 1)) {
    if (!s->constant)
      return nodeError(node) << "input 'split' must be a constant known at "
                                "import time";
    sizes = s->constant->toInts();
  } else {
    // num_outputs (opset 18) must name the outputs there are.
    int64_t n = intAttr(node, "num_outputs", node.output_size());
    if (n != node.output_size())
      return nodeError(node) << "num_outputs is " << n << " but the node has "
                             << node.output_size() << " outputs";
    int64_t dim = shape[*axis], chunk = dim / n + (dim % n != 0);
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  // The sum of the sizes, nullopt on a negative size or an overflow.
  std::optional<int64_t> total = 0;
  for (int64_t s : sizes)
    total = s < 0 || !total ? std::nullopt : llm::detail::checkedAdd(*total, s);
  if (static_cast<int>(sizes.size()) != node.output_size() ||
      total != shape[*axis])
    return nodeError(node) << "split sizes do not match dimension " << *axis
                           << " of size " << shape[*axis] << " and "
                           << node.output_size() << " outputs";
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> starts(rank, 0), limits(shape), strides(rank, 1);
    starts[*axis] = offset;
    limits[*axis] = offset + size;
    if ((*in)->constant) {
      SmallVector<int64_t> outShape(shape);
      outShape[*axis] = size;
      SmallVector<int64_t> st = stridesOf(shape);
      int64_t ax = *axis, off = offset;
      setOutput(node, i,
                (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                  int64_t f = 0;
                  for (int64_t d = 0; d < rank; ++d)
                    f += (idx[d] + (d == ax ? off : 0)) * st[d];
                  return f;
                }));
    } else {
      setOutput(node, i,
                slice(nodeLoc(node), (*in)->value, starts, limits, strides));
    }
    offset += size;
  }
  return success();
}

// Slice(data, starts, ends, axes, steps) with constant parameters, ONNX
// clamping rules: negative starts/ends count from the end, then clamp to
// [0, dim] (steps > 0) or [-1, dim - 1] (steps < 0). Runtime data needs
// positive steps (llm.slice); constants fold for any step.
LogicalResult Importer::importSlice(const onnx::NodeProto &node) {
  if (opset < 10)
    return nodeError(node) << "Slice before opset 10 is not supported";
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<const ConstTensor *> st = requiredConst(node, 1, "starts");
  if (failed(st))
    return failure();
  FailureOr<const ConstTensor *> en = requiredConst(node, 2, "ends");
  if (failed(en))
    return failure();
  SmallVector<int64_t> starts = (*st)->toInts(), ends = (*en)->toInts();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes, steps;
  if (Entry *a = input(node, 3)) {
    if (!a->constant)
      return nodeError(node) << "input 'axes' must be a constant known at "
                                "import time";
    axes = a->constant->toInts();
  } else {
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  }
  if (Entry *s = input(node, 4)) {
    if (!s->constant)
      return nodeError(node) << "input 'steps' must be a constant known at "
                                "import time";
    steps = s->constant->toInts();
  } else {
    steps.assign(starts.size(), 1);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return nodeError(node) << "starts/ends/axes/steps differ in length";
  SmallVector<int64_t> b(rank, 0), stride(rank, 1), outShape(shape);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> ax = normAxis(node, axes[i], rank);
    if (failed(ax))
      return failure();
    int64_t dim = shape[*ax], s = starts[i], e = ends[i], step = steps[i];
    if (step == 0)
      return nodeError(node) << "step 0 on axis " << *ax;
    if (s < 0)
      s += dim;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2)
      e += dim;
    // The count ceil(|e - s| / |step|) without overflow: |e - s| <= dim,
    // and |step| (INT64_MIN included) is taken as uint64.
    uint64_t mag = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      outShape[*ax] = e <= s ? 0 : int64_t(uint64_t(e - s - 1) / mag) + 1;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      outShape[*ax] = s <= e ? 0 : int64_t(uint64_t(s - e - 1) / mag) + 1;
    }
    b[*ax] = s;
    stride[*ax] = step;
  }
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0,
              (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> idx) {
                int64_t f = 0;
                for (int64_t d = 0; d < rank; ++d)
                  f += (b[d] + idx[d] * stride[d]) * strides[d];
                return f;
              }));
    return success();
  }
  // A negative step takes b, b + step, ..., (n elements): the same elements
  // as the positive-step slice from b + (n - 1) * step, reversed.
  SmallVector<int64_t> limits(rank), reversed;
  for (int64_t d = 0; d < rank; ++d) {
    if (stride[d] < 0) {
      // (n - 1) * -stride <= b: no overflow; with n <= 1 the stride is
      // unused (and may be INT64_MIN, which has no negation).
      int64_t n = outShape[d];
      int64_t lowest =
          n <= 1 ? (n == 0 ? 0 : b[d]) : b[d] + (n - 1) * stride[d];
      limits[d] = n == 0 ? 0 : b[d] + 1;
      b[d] = lowest;
      stride[d] = n <= 1 ? 1 : -stride[d];
      if (n > 1)
        reversed.push_back(d);
      continue;
    }
    if (outShape[d] <= 1)
      stride[d] = 1; // unused; a huge stride would only risk overflows
    limits[d] =
        outShape[d] == 0 ? b[d] : b[d] + (outShape[d] - 1) * stride[d] + 1;
  }
  Location loc = nodeLoc(node);
  Value r = slice(loc, (*in)->value, b, limits, stride);
  if (!reversed.empty())
    r = ReverseOp::create(builder, loc, r.getType(), r, reversed);
  setOutput(node, 0, r);
  return success();
}

// Gather(data, indices, axis):
//   * both constant: folded;
//   * constant indices on runtime data: llm.slice per index (+ concat and
//     reshape);
//   * runtime integer indices on a 2-D float table, axis 0: llm.embedding;
//   * other runtime indices: llm.gather.
LogicalResult Importer::importGather(const onnx::NodeProto &node) {
  FailureOr<Entry *> data = required(node, 0), idx = required(node, 1);
  if (failed(data) || failed(idx))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**data), ishape = shapeOf(**idx);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t dim = shape[*axis];
  SmallVector<int64_t> outShape(ArrayRef(shape).take_front(*axis));
  llvm::append_range(outShape, ishape);
  llvm::append_range(outShape, ArrayRef(shape).drop_front(*axis + 1));

  if ((*idx)->constant) {
    SmallVector<int64_t> indices = (*idx)->constant->toInts();
    for (int64_t &i : indices) {
      if (i < -dim || i >= dim)
        return nodeError(node) << "index " << i << " is out of range for "
                               << "dimension " << *axis << " of size " << dim;
      if (i < 0)
        i += dim;
    }
    // Folded when the result stores no more than the constants (the size
    // policy of llm-fold-constants, worthFolding); else gathered at run time
    // from the constant table.
    if ((*data)->constant &&
        worthFolding({&*(*data)->constant, &*(*idx)->constant}, outShape)) {
      if (failed(checkShape(node, outShape)))
        return failure();
      SmallVector<int64_t> strides = stridesOf(shape);
      int64_t ir = ishape.size(), ax = *axis;
      SmallVector<int64_t> istrides = stridesOf(ishape);
      setOutput(
          node, 0, (*data)->constant->remap(outShape, [&](ArrayRef<int64_t> o) {
            int64_t f = 0, k = 0;
            for (int64_t d = 0; d < ir; ++d)
              k += o[ax + d] * istrides[d];
            for (int64_t d = 0; d < rank; ++d) {
              int64_t v = d < ax ? o[d] : d == ax ? indices[k] : o[d + ir - 1];
              f += v * strides[d];
            }
            return f;
          }));
      return success();
    }
    // A few constant indices of a runtime tensor: one slice each (views the
    // fusion passes see through); more: the runtime gather below.
    if (!(*data)->constant && indices.size() <= kMaxSlicedGatherIndices) {
      Location loc = nodeLoc(node);
      Value x = (*data)->value;
      SmallVector<Value> parts;
      for (int64_t i : indices) {
        SmallVector<int64_t> starts(rank, 0), limits(shape), strides(rank, 1);
        starts[*axis] = i;
        limits[*axis] = i + 1;
        parts.push_back(slice(loc, x, starts, limits, strides));
      }
      Value r;
      if (parts.empty())
        return nodeError(node) << "empty indices are not supported";
      if (parts.size() == 1) {
        r = parts[0];
      } else {
        SmallVector<int64_t> catShape(shape);
        catShape[*axis] = parts.size();
        r = ConcatOp::create(builder, loc, tensorType(catShape, elemTypeOf(x)),
                             parts, *axis);
      }
      setOutput(node, 0, reshape(loc, r, outShape));
      return success();
    }
  }

  int idt = dtypeOf(**idx), ddt = dtypeOf(**data);
  if (idt != TensorProto::INT64 && idt != TensorProto::INT32)
    return nodeError(node) << "Gather indices must be int32 or int64, got "
                           << dtypeName(idt);
  if (dim == 0)
    return nodeError(node) << "Gather from an empty dimension " << *axis;
  if (failed(checkShape(node, outShape)))
    return failure();
  FailureOr<Value> table = materialize(node, **data);
  FailureOr<Value> ids = materialize(node, **idx);
  if (failed(table) || failed(ids))
    return failure();
  auto type = tensorType(outShape, elemTypeOf(*table));
  if (*axis == 0 && rank == 2 && isa<FloatType>(elemTypeOf(*table)) &&
      ddt != TensorProto::DOUBLE) {
    // The token-embedding lookup.
    setOutput(node, 0,
              EmbeddingOp::create(builder, nodeLoc(node), type, *table, *ids));
    return success();
  }
  setOutput(node, 0,
            GatherOp::create(builder, nodeLoc(node), type, *table, *ids,
                             *axis));
  return success();
}

// Shape(start, end): the static shape as an int64 constant.
LogicalResult Importer::importShape(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  int64_t start = intAttr(node, "start", 0), end = intAttr(node, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> dims(ArrayRef(shape).slice(start, end - start));
  setOutput(node, 0,
            ConstTensor::fromInts(dims, {static_cast<int64_t>(dims.size())}));
  return success();
}

// GatherElements(data, indices) {axis} = numpy.take_along_axis (negative
// indices count from the end): folded on constants, else
// llm.gather_elements (an index out of range is then a run-time error).
LogicalResult Importer::importGatherElements(const onnx::NodeProto &node) {
  FailureOr<Entry *> data = required(node, 0), idx = required(node, 1);
  if (failed(data) || failed(idx))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**data), ishape = shapeOf(**idx);
  int64_t rank = shape.size();
  if (rank == 0 || static_cast<int64_t>(ishape.size()) != rank)
    return nodeError(node) << "indices of shape " << shapeStr(ishape)
                           << " for data of shape " << shapeStr(shape)
                           << " (the ranks must be equal and at least 1)";
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t dim = shape[*axis];
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && ishape[d] > shape[d])
      return nodeError(node) << "indices dimension " << d << " (" << ishape[d]
                             << ") is larger than the data's (" << shape[d]
                             << ")";
  int idtype = dtypeOf(**idx);
  if (idtype != TensorProto::INT64 && idtype != TensorProto::INT32)
    return nodeError(node) << "indices must be int32 or int64, got "
                           << dtypeName(idtype);
  if (dim == 0 && product(ishape) > 0)
    return nodeError(node) << "gathered dimension " << *axis << " is empty";
  if ((*data)->constant && (*idx)->constant) {
    const ConstTensor &t = *(*data)->constant, &i = *(*idx)->constant;
    for (int64_t k = 0, e = i.numel(); k < e; ++k)
      if (i.getInt(k) < -dim || i.getInt(k) >= dim)
        return nodeError(node) << "index " << i.getInt(k)
                               << " is out of range for dimension " << *axis
                               << " of size " << dim;
    SmallVector<int64_t> strides = stridesOf(shape),
                         istrides = stridesOf(ishape);
    setOutput(node, 0, t.remap(ishape, [&](ArrayRef<int64_t> o) {
      int64_t flat = 0, src = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat += o[d] * istrides[d];
      for (int64_t d = 0; d < rank; ++d) {
        int64_t v = o[d];
        if (d == *axis) {
          v = i.getInt(flat);
          v += v < 0 ? dim : 0;
        }
        src += v * strides[d];
      }
      return src;
    }));
    return success();
  }
  FailureOr<Value> x = materialize(node, **data);
  FailureOr<Value> ids = materialize(node, **idx);
  if (failed(x) || failed(ids))
    return failure();
  setOutput(node, 0,
            GatherElementsOp::create(builder, nodeLoc(node),
                                     tensorType(ishape, elemTypeOf(*x)), *x,
                                     *ids, *axis));
  return success();
}

// OneHot(indices, depth, values = [off, on]) {axis = -1}: a new dimension of
// size depth at `axis`, `on` where it equals the index (negative indices
// count from the end; float indices are truncated), `off` elsewhere. Folded
// on constants; else, with K = [0, depth) along that axis,
//   select((idx == K) or (idx == K - depth), on, off)
// (llm.compare, llm.logical_or, llm.select: no integer arithmetic at run
// time). depth must be a constant; values may be a runtime tensor.
LogicalResult Importer::importOneHot(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0), vals = required(node, 2);
  FailureOr<const ConstTensor *> d = requiredConst(node, 1, "depth");
  if (failed(in) || failed(vals) || failed(d))
    return failure();
  if ((*d)->numel() != 1)
    return nodeError(node) << "depth must have one element, got "
                           << shapeStr((*d)->shape);
  int64_t depth = (*d)->getInt(0);
  if (depth < 1 || depth > kMaxFoldedElements)
    return nodeError(node) << "depth " << depth << " is out of range";
  SmallVector<int64_t> vshape = shapeOf(**vals);
  if (vshape.size() != 1 || vshape[0] != 2)
    return nodeError(node) << "values must have shape [2] ([off, on]), got "
                           << shapeStr(vshape);
  SmallVector<int64_t> ishape = shapeOf(**in);
  int64_t rank = ishape.size() + 1;
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> outShape(ishape);
  outShape.insert(outShape.begin() + *axis, depth);
  if (failed(checkShape(node, outShape)))
    return failure();
  int vtype = dtypeOf(**vals);

  if ((*in)->constant && (*vals)->constant) {
    const ConstTensor &idx = *(*in)->constant, &v = *(*vals)->constant;
    ConstTensor out = ConstTensor::zeros(vtype, outShape);
    int64_t es = out.elemSize();
    forEachIndex(outShape, [&](ArrayRef<int64_t> o, int64_t flat) {
      SmallVector<int64_t> io(o);
      int64_t k = io[*axis];
      io.erase(io.begin() + *axis);
      int64_t f = 0;
      SmallVector<int64_t> strides = stridesOf(ishape);
      for (size_t q = 0; q < io.size(); ++q)
        f += io[q] * strides[q];
      int64_t i = idx.getInt(f);
      bool hot = i == k || i == k - depth;
      std::memcpy(out.bytes->data() + flat * es, v.ptr(hot ? 1 : 0), es);
    });
    setOutput(node, 0, std::move(out));
    return success();
  }

  Location loc = nodeLoc(node);
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  Value idx = *x;
  Type it = elemTypeOf(idx);
  if (isa<FloatType>(it)) {
    it = builder.getI64Type();
    idx = CastOp::create(builder, loc, tensorType(ishape, it), idx);
  }
  SmallVector<int64_t> unsq(ishape);
  unsq.insert(unsq.begin() + *axis, 1);
  idx = reshape(loc, idx, unsq);
  // K and K - depth along `axis`, in the indices' integer type.
  int itype = toONNXType(it);
  FailureOr<Value> kv = positionsAlong(node, rank, *axis, depth, itype),
                   knv = positionsAlong(node, rank, *axis, depth, itype, -depth);
  if (failed(kv) || failed(knv))
    return failure();
  auto maskType = tensorType(outShape, builder.getI1Type());
  Value hot = LogicalOrOp::create(
      builder, loc, maskType,
      CompareOp::create(builder, loc, maskType, ComparePredicate::EQ, idx, *kv),
      CompareOp::create(builder, loc, maskType, ComparePredicate::EQ, idx,
                        *knv));
  // off and on, rank 0.
  FailureOr<Value> v = materialize(node, **vals);
  if (failed(v))
    return failure();
  Type vt = elemTypeOf(*v);
  Value off = reshape(loc, slice(loc, *v, {0}, {1}, {1}), {});
  Value on = reshape(loc, slice(loc, *v, {1}, {2}, {1}), {});
  setOutput(node, 0,
            SelectOp::create(builder, loc, tensorType(outShape, vt), hot, on,
                             off));
  return success();
}

// Tile(x, repeats) = x repeated repeats[d] times along each dimension d
// (numpy.tile): folded on constants, else one llm.concat of copies per
// repeated dimension. repeats must be a constant.
LogicalResult Importer::importTile(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  FailureOr<const ConstTensor *> r = requiredConst(node, 1, "repeats");
  if (failed(in) || failed(r))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in), repeats = (*r)->toInts();
  if (repeats.size() != shape.size())
    return nodeError(node) << repeats.size() << " repeats for a tensor of rank "
                           << shape.size();
  SmallVector<int64_t> outShape;
  for (auto [d, n] : llvm::zip(shape, repeats)) {
    if (n < 0)
      return nodeError(node) << "negative repeat " << n;
    outShape.push_back(d * n);
  }
  if (failed(checkShape(node, outShape)))
    return failure();
  if ((*in)->constant) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0,
              (*in)->constant->remap(outShape, [&](ArrayRef<int64_t> o) {
                int64_t f = 0;
                for (size_t d = 0; d < o.size(); ++d)
                  f += (o[d] % shape[d]) * strides[d];
                return f;
              }));
    return success();
  }
  if (llvm::is_contained(repeats, 0))
    return nodeError(node) << "Tile to an empty runtime tensor is not "
                              "supported";
  Location loc = nodeLoc(node);
  Value x = (*in)->value;
  SmallVector<int64_t> cur(shape);
  for (auto [d, n] : llvm::enumerate(repeats)) {
    if (n == 1)
      continue;
    cur[d] *= n;
    SmallVector<Value> copies(n, x);
    x = ConcatOp::create(builder, loc, tensorType(cur, elemTypeOf(x)), copies,
                         static_cast<int64_t>(d));
  }
  setOutput(node, 0, x);
  return success();
}

// NonZero(x) = the indices of x's nonzero elements, int64 [rank, count], in
// row-major order (numpy.nonzero stacked). Its shape depends on the values,
// so x must be a constant: torch writes `arange` that way below opset 11
// (NonZero(ConstantOfShape(n)) -> Transpose -> Squeeze).
LogicalResult Importer::importNonZero(const onnx::NodeProto &node) {
  FailureOr<Entry *> x = required(node, 0);
  if (failed(x))
    return failure();
  if (!(*x)->constant)
    return nodeError(node)
           << "NonZero of a runtime tensor is not supported (its result's "
              "shape depends on the values; a constant input is folded)";
  const ConstTensor &t = *(*x)->constant;
  int64_t rank = t.shape.size(), count = 0;
  for (int64_t i = 0, e = t.numel(); i < e; ++i)
    count += t.getDouble(i) != 0;
  if (count > kMaxFoldedElements / std::max<int64_t>(rank, 1))
    return nodeError(node) << count << " nonzero elements of rank " << rank
                           << " are too many to fold at import time";
  ConstTensor out = ConstTensor::zeros(TensorProto::INT64, {rank, count});
  int64_t j = 0;
  forEachIndex(t.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    if (t.getDouble(flat) == 0)
      return;
    for (int64_t d = 0; d < rank; ++d)
      out.setInt(d * count + j, idx[d]);
    ++j;
  });
  setOutput(node, 0, std::move(out));
  return success();
}

// ConstantOfShape(shape) {value}: a constant filled with `value`.
LogicalResult Importer::importConstantOfShape(const onnx::NodeProto &node) {
  FailureOr<const ConstTensor *> s = requiredConst(node, 0, "shape");
  if (failed(s))
    return failure();
  SmallVector<int64_t> shape = (*s)->toInts();
  if (failed(checkShape(node, shape)))
    return failure();
  ConstTensor value = ConstTensor::zeros(TensorProto::FLOAT, {1});
  if (const onnx::AttributeProto *a = attr(node, "value")) {
    FailureOr<ConstTensor> v = readTensor(a->t(), nodeFileLoc(node));
    if (failed(v))
      return failure();
    if (v->numel() != 1)
      return nodeError(node) << "value must have one element";
    value = *v;
  }
  ConstTensor out = ConstTensor::zeros(value.dtype, shape);
  int64_t es = out.elemSize();
  for (int64_t i = 0, e = out.numel(); i < e; ++i)
    std::memcpy(out.bytes->data() + i * es, value.ptr(0), es);
  setOutput(node, 0, std::move(out));
  return success();
}

// Range(start, limit, delta): a 1-D constant. A limit computed from a
// symbolic input dimension (arange(seq_len)) is a constant at each length
// the importer probes, so it stays a table read up to the length
// (ImportDynamic.cpp). Bounds that are input *values* give a result whose
// length depends on the data: refused by name (llmc sizes every tensor from
// the input dimensions).
LogicalResult Importer::importRange(const onnx::NodeProto &node) {
  static const char *names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i)
    if (Entry *e = input(node, i); e && !e->constant)
      return nodeError(node)
             << "input '" << names[i]
             << "' is computed from input values at run time: the length of "
                "Range's result would depend on the data, and llmc sizes "
                "every tensor from the input dimensions; it must be a "
                "constant, or computed from input dimensions (Shape), which "
                "a symbolic dimension keeps dynamic";
  FailureOr<const ConstTensor *> s = requiredConst(node, 0, "start");
  if (failed(s))
    return failure();
  FailureOr<const ConstTensor *> l = requiredConst(node, 1, "limit");
  if (failed(l))
    return failure();
  FailureOr<const ConstTensor *> d = requiredConst(node, 2, "delta");
  if (failed(d))
    return failure();
  for (const ConstTensor *t : {*s, *l, *d})
    if (t->numel() != 1)
      return nodeError(node) << "start, limit and delta must be scalars";
  int dtype = (*s)->dtype;
  if ((*l)->dtype != dtype || (*d)->dtype != dtype)
    return nodeError(node) << "start, limit and delta differ in type";
  int64_t n;
  if (isFloatDType(dtype)) {
    double start = (*s)->getDouble(0), limit = (*l)->getDouble(0),
           delta = (*d)->getDouble(0);
    if (delta == 0)
      return nodeError(node) << "delta is 0";
    double count = std::ceil((limit - start) / delta);
    if (!(count <= static_cast<double>(kMaxFoldedElements)))
      return nodeError(node)
             << "Range of " << count << " elements is too large to fold";
    n = count > 0 ? static_cast<int64_t>(count) : 0;
    ConstTensor out = ConstTensor::zeros(dtype, {n});
    for (int64_t i = 0; i < n; ++i)
      out.setDouble(i, start + i * delta);
    setOutput(node, 0, std::move(out));
    return success();
  }
  // Integers: the count max(ceil((limit - start) / delta), 0) exactly, in
  // uint64 (limit - start overflows int64 for far-apart bounds); every
  // element start + i * delta then lies between start and limit.
  int64_t start = (*s)->getInt(0), limit = (*l)->getInt(0),
          delta = (*d)->getInt(0);
  if (delta == 0)
    return nodeError(node) << "delta is 0";
  uint64_t count = 0;
  if (delta > 0 ? limit > start : limit < start) {
    uint64_t span = delta > 0 ? uint64_t(limit) - uint64_t(start)
                              : uint64_t(start) - uint64_t(limit);
    uint64_t mag = delta > 0 ? uint64_t(delta) : uint64_t(0) - uint64_t(delta);
    count = (span - 1) / mag + 1;
  }
  if (count > static_cast<uint64_t>(kMaxFoldedElements))
    return nodeError(node) << "Range of " << count
                           << " elements is too large to fold";
  n = static_cast<int64_t>(count);
  ConstTensor out = ConstTensor::zeros(dtype, {n});
  for (int64_t i = 0; i < n; ++i)
    out.setInt(i, llm::detail::wrapAdd(start, llm::detail::wrapMul(i, delta)));
  setOutput(node, 0, std::move(out));
  return success();
}

// Expand(input, shape): bidirectional broadcast -> llm.broadcast_to.
LogicalResult Importer::importExpand(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  FailureOr<const ConstTensor *> s = requiredConst(node, 1, "shape");
  if (failed(in) || failed(s))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  if (failed(checkShape(node, (*s)->toInts())))
    return failure();
  auto out = broadcastShapes(shape, (*s)->toInts());
  if (!out)
    return nodeError(node) << "cannot expand " << shapeStr(shape) << " to "
                           << shapeStr((*s)->toInts());
  if ((*in)->constant && worthFolding({&*(*in)->constant}, *out)) {
    SmallVector<int64_t> strides = stridesOf(shape);
    setOutput(node, 0, (*in)->constant->remap(*out, [&](ArrayRef<int64_t> idx) {
      return broadcastIndex(idx, shape, strides);
    }));
    return success();
  }
  // A runtime value, or a constant whose broadcast would store much more
  // than it: llm.broadcast_to.
  FailureOr<Value> materialized = materialize(node, **in);
  if (failed(materialized))
    return failure();
  Value x = *materialized;
  if (*out == shape) {
    setOutput(node, 0, x);
    return success();
  }
  setOutput(node, 0,
            BroadcastToOp::create(builder, nodeLoc(node),
                                  tensorType(*out, elemTypeOf(x)), x));
  return success();
}

// Cast(to) -> llm.cast (folded on constants).
LogicalResult Importer::importCast(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  // CastLike(x, like): to `like`'s element type.
  Entry *like = node.op_type() == "CastLike" ? input(node, 1) : nullptr;
  if (node.op_type() == "CastLike" && !like)
    return nodeError(node) << "missing input 1 (target_type)";
  int64_t toAttr =
      like ? dtypeOf(*like) : intAttr(node, "to", TensorProto::UNDEFINED);
  // (An int64 attribute: a value like 2^32 + 1 must not truncate to FLOAT.)
  if (toAttr < 0 || toAttr > INT_MAX ||
      !TensorProto::DataType_IsValid(static_cast<int>(toAttr)))
    return nodeError(node) << "Cast to data type " << toAttr
                           << " is not supported";
  int to = static_cast<int>(toAttr);
  if (elementSize(to) == 0)
    return nodeError(node) << "Cast to " << dtypeName(to)
                           << " is not supported";
  if ((*in)->constant) {
    setOutput(node, 0, (*in)->constant->castTo(to));
    return success();
  }
  Value x = (*in)->value;
  Type toType = toMLIRType(to, ctx);
  if (!toType && to == TensorProto::UINT8 && !elemTypeOf(x).isInteger(1)) {
    // uint8 bits in i8 storage (as QuantizeLinear's results, e.g. the
    // zero point of DynamicQuantizeLinear's expanded form): through i32,
    // whose truncation to i8 keeps the bits of 0..255 (out of range is
    // undefined in ONNX; the value wraps modulo 256 here).
    Location loc = nodeLoc(node);
    Value wide = x;
    if (!elemTypeOf(x).isInteger(32))
      wide = CastOp::create(builder, loc,
                            tensorType(shapeOf(x), builder.getI32Type()), x);
    setOutput(node, 0,
              CastOp::create(builder, loc,
                             tensorType(shapeOf(x), builder.getI8Type()),
                             wide));
    if (node.output_size() > 0 && !node.output(0).empty())
      env[node.output(0)].unsignedBits = true;
    return success();
  }
  if (!toType)
    return nodeError(node) << "Cast of a runtime value to " << dtypeName(to)
                           << " is not supported by the llm dialect";
  if (toType == elemTypeOf(x)) {
    setOutput(node, 0, x);
    return success();
  }
  setOutput(node, 0,
            CastOp::create(builder, nodeLoc(node),
                           tensorType(shapeOf(x), toType), x));
  return success();
}

// Clip(x, min, max) = min(max(x, lo), hi) -> llm.max / llm.min (folded on
// constants). Before opset 11 the bounds are attributes.
LogicalResult Importer::importClip(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int dtype = dtypeOf(**in);
  auto bound = [&](int i, StringRef name) -> std::optional<Entry> {
    if (Entry *e = input(node, i))
      return *e;
    if (const onnx::AttributeProto *a = attr(node, name)) {
      Entry e;
      e.constant = ConstTensor::zeros(dtype, {});
      e.constant->setDouble(0, a->f());
      e.blobName = name.str();
      return e;
    }
    return std::nullopt;
  };
  std::optional<Entry> lo = bound(1, "min"), hi = bound(2, "max");
  bool intClip = false;
  if (!isFloatDType(dtype) || dtype == TensorProto::DOUBLE) {
    if (!(*in)->constant || (lo && !lo->constant) || (hi && !hi->constant)) {
      if (dtype == TensorProto::DOUBLE || !toMLIRType(dtype, ctx))
        return nodeError(node) << "Clip of a runtime " << dtypeName(dtype)
                               << " tensor is not supported";
      intClip = true;
    }
  }
  for (std::optional<Entry> *b : {&lo, &hi})
    if (*b && shapeOf(**b).size() != 0)
      return nodeError(node) << "Clip bounds must be scalars";
  if ((*in)->constant && (!lo || lo->constant) && (!hi || hi->constant)) {
    const ConstTensor &x = *(*in)->constant;
    ConstTensor out = ConstTensor::zeros(x.dtype, x.shape);
    for (int64_t i = 0, e = x.numel(); i < e; ++i) {
      if (isFloatDType(x.dtype)) {
        double v = x.getDouble(i);
        if (lo && v < lo->constant->getDouble(0))
          v = lo->constant->getDouble(0);
        if (hi && v > hi->constant->getDouble(0))
          v = hi->constant->getDouble(0);
        out.setDouble(i, v);
      } else {
        int64_t v = x.getInt(i);
        if (lo)
          v = std::max(v, lo->constant->getInt(0));
        if (hi)
          v = std::min(v, hi->constant->getInt(0));
        out.setInt(i, v);
      }
    }
    setOutput(node, 0, std::move(out));
    return success();
  }
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  Location loc = nodeLoc(node);
  Value r = *x;
  if (lo) {
    FailureOr<Value> v = materializeAs(node, *lo, dtype);
    if (failed(v))
      return failure();
    if (intClip) {
      // select(x < lo, lo, x)
      auto cmpType = tensorType(shapeOf(r), builder.getI1Type());
      Value below =
          CompareOp::create(builder, loc, cmpType, ComparePredicate::LT, r, *v);
      r = SelectOp::create(builder, loc, r.getType(), below, *v, r);
    } else {
      r = MaxOp::create(builder, loc, r.getType(), r, *v);
    }
  }
  if (hi) {
    FailureOr<Value> v = materializeAs(node, *hi, dtype);
    if (failed(v))
      return failure();
    if (intClip) {
      // select(x > hi, hi, x)
      auto cmpType = tensorType(shapeOf(r), builder.getI1Type());
      Value above =
          CompareOp::create(builder, loc, cmpType, ComparePredicate::GT, r, *v);
      r = SelectOp::create(builder, loc, r.getType(), above, *v, r);
    } else {
      r = MinOp::create(builder, loc, r.getType(), r, *v);
    }
  }
  setOutput(node, 0, r);
  return success();
}

// Trilu(x, k) {upper}: folded on constants (causal masks built with
// torch.triu/tril); on runtime data llm.select with a constant mask.
LogicalResult Importer::importTrilu(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  int64_t k = 0;
  if (Entry *ke = input(node, 1)) {
    if (!ke->constant)
      return nodeError(node) << "input 'k' must be a constant known at "
                                "import time";
    if (ke->constant->numel() != 1)
      return nodeError(node) << "input 'k' must be a scalar";
    k = ke->constant->getInt(0);
  }
  bool upper = intAttr(node, "upper", 1);
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  if (rank < 2)
    return nodeError(node) << "Trilu needs rank >= 2";
  if (!(*in)->constant) {
    // Runtime data: select(mask, x, 0) with the [N, M] mask folded here.
    int64_t n = shape[rank - 2], m = shape[rank - 1];
    if (failed(checkShape(node, {n, m})))
      return failure();
    Entry mask;
    mask.constant = ConstTensor::zeros(TensorProto::BOOL, {n, m});
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        mask.constant->setInt(i * m + j, upper ? j - i >= k : j - i <= k);
    mask.blobName = "trilu_mask";
    int dtype = dtypeOf(**in);
    FailureOr<Value> maskV = materialize(node, mask);
    FailureOr<Value> zero = scalarConstant(node, 0.0, dtype);
    if (failed(maskV) || failed(zero))
      return failure();
    Value x = (*in)->value;
    setOutput(node, 0,
              SelectOp::create(builder, nodeLoc(node), x.getType(), *maskV, x,
                               *zero));
    return success();
  }
  const ConstTensor &x = *(*in)->constant;
  ConstTensor out = ConstTensor::zeros(x.dtype, x.shape);
  int64_t es = x.elemSize();
  forEachIndex(x.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t i = idx[rank - 2], j = idx[rank - 1];
    if (upper ? j - i >= k : j - i <= k)
      std::memcpy(out.bytes->data() + flat * es, x.ptr(flat), es);
  });
  setOutput(node, 0, std::move(out));
  return success();
}

