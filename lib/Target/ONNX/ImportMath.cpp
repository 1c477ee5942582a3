//===- ImportMath.cpp - ONNX matmul, normalization, reductions ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMul, Gemm, Softmax, LayerNormalization and the Reduce / ArgMax
// ops.
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
// Matmul, normalizations, reductions
//===----------------------------------------------------------------------===//

// MatMul(A, B) -> llm.matmul; 1-D operands are reshaped to [1, K] / [K, 1]
// and the added dimension is removed from the result (numpy.matmul).
// MatMul of two constants (numpy matmul semantics: rank-1 operands promoted,
// batch dimensions broadcast), evaluated in double and rounded to the
// operands' type, when the result has at most 2^20 elements and the product
// at most 2^24 multiply-adds (e.g. rotary frequencies inv_freq @ positions
// computed in the graph); else nullopt and the MatMul stays an op.
static std::optional<ConstTensor> foldConstMatMul(const ConstTensor &a,
                                                  const ConstTensor &b) {
  SmallVector<int64_t> sa(a.shape), sb(b.shape);
  if (sa.empty() || sb.empty())
    return std::nullopt;
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (k != sb[sb.size() - 2])
    return std::nullopt;
  auto batch =
      mlir::llm::broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (failed(batch))
    return std::nullopt;
  SmallVector<int64_t> dims(*batch);
  dims.append({m, n});
  std::optional<int64_t> outElems = checkedProduct(dims);
  dims.push_back(k);
  std::optional<int64_t> macs = checkedProduct(dims);
  if (!outElems || !macs || *outElems > (int64_t(1) << 20) ||
      *macs > (int64_t(1) << 24))
    return std::nullopt;
  int64_t nb = product(*batch);
  SmallVector<int64_t> outShape(*batch);
  outShape.push_back(m);
  outShape.push_back(n);
  ConstTensor out = ConstTensor::zeros(a.dtype, outShape);
  // Offset of batch element `bi` in an operand with batch dims `dims`
  // (right-aligned, size-1 dims broadcast).
  auto batchOffset = [&](ArrayRef<int64_t> dims, int64_t bi) {
    int64_t off = 0, stride = 1;
    int64_t rem = bi;
    for (int64_t d = batch->size() - 1, j = dims.size() - 1; d >= 0; --d, --j) {
      int64_t idx = rem % (*batch)[d];
      rem /= (*batch)[d];
      if (j >= 0) {
        if (dims[j] != 1)
          off += idx * stride;
        stride *= dims[j];
      }
    }
    return off;
  };
  ArrayRef<int64_t> ba = ArrayRef(sa).drop_back(2), bb = ArrayRef(sb).drop_back(2);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t oa = batchOffset(ba, bi) * m * k, ob = batchOffset(bb, bi) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a.getDouble(oa + i * k + p) * b.getDouble(ob + p * n + j);
        out.setDouble((bi * m + i) * n + j, acc);
      }
  }
  SmallVector<int64_t> finalShape(*batch);
  if (!vecA)
    finalShape.push_back(m);
  if (!vecB)
    finalShape.push_back(n);
  out.shape = finalShape;
  return out;
}

LogicalResult Importer::importMatMul(const onnx::NodeProto &node) {
  FailureOr<Entry *> a = required(node, 0), b = required(node, 1);
  if (failed(a) || failed(b))
    return failure();
  int dtype = dtypeOf(**a);
  if (!isFloatDType(dtype) || dtype == TensorProto::DOUBLE ||
      dtype != dtypeOf(**b))
    return nodeError(node) << "MatMul of " << dtypeName(dtypeOf(**a)) << " and "
                           << dtypeName(dtypeOf(**b))
                           << " is not supported (llm.matmul takes f32, f16 "
                              "or bf16 operands of one type)";
  if ((*a)->constant && (*b)->constant) {
    std::optional<ConstTensor> folded =
        foldConstMatMul(*(*a)->constant, *(*b)->constant);
    if (folded) {
      setOutput(node, 0, std::move(*folded));
      return success();
    }
  }
  FailureOr<Value> lhs = materialize(node, **a), rhs = materialize(node, **b);
  if (failed(lhs) || failed(rhs))
    return failure();
  Location loc = nodeLoc(node);
  SmallVector<int64_t> sa(shapeOf(*lhs)), sb(shapeOf(*rhs));
  if (sa.empty() || sb.empty())
    return nodeError(node) << "MatMul operands must have rank >= 1";
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2])
    return nodeError(node) << "contraction sizes differ: " << shapeStr(sa)
                           << " x " << shapeStr(sb);
  auto batch =
      broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (!batch)
    return nodeError(node) << "batch dimensions of " << shapeStr(sa) << " and "
                           << shapeStr(sb) << " do not broadcast";
  SmallVector<int64_t> outShape(*batch);
  outShape.push_back(sa[sa.size() - 2]);
  outShape.push_back(sb.back());
  Value l = reshape(loc, *lhs, sa), r = reshape(loc, *rhs, sb);
  Value mm =
      MatmulOp::create(builder, loc, tensorType(outShape, elemTypeOf(l)), l, r);
  SmallVector<int64_t> finalShape(*batch);
  if (!vecA)
    finalShape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    finalShape.push_back(sb.back());
  setOutput(node, 0, reshape(loc, mm, finalShape));
  return success();
}

// Gemm(A, B, C) = alpha * op(A) op(B) + beta * C
//   -> llm.matmul {transpose_a/b} [* alpha] [+ beta * C].
LogicalResult Importer::importGemm(const onnx::NodeProto &node) {
  FailureOr<Entry *> a = required(node, 0), b = required(node, 1);
  if (failed(a) || failed(b))
    return failure();
  Entry *c = input(node, 2);
  int dtype = dtypeOf(**a);
  if ((dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
       dtype != TensorProto::BFLOAT16) ||
      dtypeOf(**b) != dtype)
    return nodeError(node) << "Gemm of " << dtypeName(dtype)
                           << " is not supported";
  float alpha = floatAttr(node, "alpha", 1.0f);
  float beta = floatAttr(node, "beta", 1.0f);
  bool transA = intAttr(node, "transA", 0), transB = intAttr(node, "transB", 0);
  SmallVector<int64_t> sa = shapeOf(**a), sb = shapeOf(**b);
  if (sa.size() != 2 || sb.size() != 2)
    return nodeError(node) << "Gemm operands must be 2-D";
  int64_t m = transA ? sa[1] : sa[0], ka = transA ? sa[0] : sa[1];
  int64_t kb = transB ? sb[1] : sb[0], n = transB ? sb[0] : sb[1];
  if (ka != kb)
    return nodeError(node) << "contraction sizes differ (" << ka << " vs " << kb
                           << ")";
  FailureOr<Value> lhs = materialize(node, **a), rhs = materialize(node, **b);
  if (failed(lhs) || failed(rhs))
    return failure();
  Location loc = nodeLoc(node);
  Type elemType = elemTypeOf(*lhs);
  auto outType = tensorType({m, n}, elemType);
  Value result =
      MatmulOp::create(builder, loc, outType, *lhs, *rhs, transA, transB);
  auto scalar = [&](float v) -> Value {
    Entry e;
    e.constant = ConstTensor::zeros(dtype, {});
    e.constant->setDouble(0, v);
    e.blobName = "scalar";
    return *materialize(node, e);
  };
  if (alpha != 1.0f)
    result = MulOp::create(builder, loc, outType, result, scalar(alpha));
  if (c && beta != 0.0f) {
    auto bs = broadcastShapes({m, n}, shapeOf(*c));
    if (!bs || *bs != SmallVector<int64_t>{m, n})
      return nodeError(node)
             << "C of shape " << shapeStr(shapeOf(*c))
             << " does not broadcast to [" << m << "," << n << "]";
    Value cval;
    if (c->constant && beta != 1.0f) {
      // beta * C is folded for a constant C.
      Entry scaled;
      const ConstTensor &src = *c->constant;
      scaled.constant = ConstTensor::zeros(dtype, src.shape);
      for (int64_t i = 0, e = src.numel(); i < e; ++i)
        scaled.constant->setDouble(i, beta * src.getDouble(i));
      scaled.blobName = c->blobName;
      FailureOr<Value> cv = materialize(node, scaled);
      if (failed(cv))
        return failure();
      cval = *cv;
    } else {
      FailureOr<Value> cv = materializeAs(node, *c, dtype);
      if (failed(cv))
        return failure();
      cval = *cv;
      if (beta != 1.0f)
        cval = MulOp::create(builder, loc, cval.getType(), cval, scalar(beta));
    }
    result = AddOp::create(builder, loc, outType, result, cval);
  }
  setOutput(node, 0, result);
  return success();
}

// Softmax(axis) -> llm.softmax. Before opset 13 Softmax flattens to 2-D at
// `axis` (default 1); that is the same computation only for the last axis.
LogicalResult Importer::importSoftmax(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  StringRef op = node.op_type();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << op << " input must be f32, f16 or bf16";
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> axis =
      normAxis(node, intAttr(node, "axis", opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  // Before opset 13 on the 2-D coercion of the input, reshaped back.
  Location loc = nodeLoc(node);
  auto [input, along] = coerceTo2D(loc, *x, *axis);
  Value result =
      op == "LogSoftmax"
          ? LogSoftmaxOp::create(builder, loc, input.getType(), input, along)
                .getResult()
          : SoftmaxOp::create(builder, loc, input.getType(), input, along)
                .getResult();
  setOutput(node, 0, reshape(loc, result, shapeOf(*x)));
  return success();
}

FailureOr<Value> Importer::scalarConstant(const onnx::NodeProto &node,
                                          double value, int dtype) {
  return splatConstant(node, value, dtype, {});
}

// LayerNormalization's optional outputs, when used:
//   Mean = reduce_mean(x) over [axis, rank) (keepdims),
//   InvStdDev = rsqrt(reduce_mean((x - Mean)^2) + epsilon),
// both in the input's element type (ONNX's stash_type f32 for f32 inputs).
LogicalResult Importer::importLayerNormStats(const onnx::NodeProto &node,
                                             Value x, int64_t axis,
                                             float eps) {
  Location loc = nodeLoc(node);
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes, statShape(shape.take_front(axis));
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    statShape.push_back(1);
  }
  auto type = tensorType(statShape, elemTypeOf(x));
  Value mean = ReduceMeanOp::create(builder, loc, type, x, axes, true);
  Value diff = SubOp::create(builder, loc, x.getType(), x, mean);
  Value var = ReduceMeanOp::create(
      builder, loc, type, MulOp::create(builder, loc, x.getType(), diff, diff),
      axes, true);
  FailureOr<Value> epsV = scalarConstant(node, eps, toONNXType(elemTypeOf(x)));
  if (failed(epsV))
    return failure();
  Value inv = RsqrtOp::create(builder, loc, type,
                              AddOp::create(builder, loc, type, var, *epsV));
  setOutput(node, 1, mean);
  setOutput(node, 2, inv);
  return success();
}

// LayerNormalization(X, Scale, B) {axis, epsilon} -> llm.layer_norm (+ the
// Mean/InvStdDev outputs from importLayerNormStats when they are used).
LogicalResult Importer::importLayerNorm(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << "input must be f32, f16 or bf16";
  int dtype = dtypeOf(**in);
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  Value scale, bias;
  if (Entry *s = input(node, 1)) {
    FailureOr<Value> v = materializeAs(node, *s, dtype);
    if (failed(v))
      return failure();
    scale = *v;
  }
  if (Entry *b = input(node, 2)) {
    FailureOr<Value> v = materializeAs(node, *b, dtype);
    if (failed(v))
      return failure();
    bias = *v;
  }
  float eps = floatAttr(node, "epsilon", 1e-5f);
  setOutput(node, 0,
            LayerNormOp::create(builder, nodeLoc(node), x->getType(), *x, scale,
                                bias, builder.getI64IntegerAttr(*axis),
                                builder.getF32FloatAttr(eps)));
  bool statsUsed = false;
  for (int i = 1; i < node.output_size(); ++i)
    statsUsed |= !node.output(i).empty() && used.contains(node.output(i));
  if (statsUsed)
    return importLayerNormStats(node, *x, *axis, eps);
  return success();
}

/// True for the reductions with an integer form (their result in the
/// integer type): sums (also of squares and of absolute values), products,
/// minima and maxima.
static bool hasIntegerForm(StringRef op) {
  return llvm::is_contained({"ReduceSum", "ReduceMax", "ReduceMin",
                             "ReduceProd", "ReduceSumSquare", "ReduceL1"},
                            op);
}

/// True for the integer reductions (hasIntegerForm) that fold on
/// import-time constants of ONNX type `dtype`: every signed and unsigned
/// integer type.
static bool isFoldableIntReduce(StringRef op, int dtype) {
  return llvm::is_contained({TensorProto::INT8, TensorProto::INT16,
                             TensorProto::INT32, TensorProto::INT64,
                             TensorProto::UINT8, TensorProto::UINT16,
                             TensorProto::UINT32, TensorProto::UINT64},
                            dtype) &&
         hasIntegerForm(op);
}

/// `op` over the dimensions flagged in `reduced` of the integer constant
/// `x` (isFoldableIntReduce), as ONNX defines it on integers: the terms are
/// x, x * x (ReduceSumSquare) or |x| (ReduceL1); sums and products wrap
/// modulo 2^bits of x's type when stored (ONNXIntegerMath.h), as the
/// runtime reduction does; minima and maxima compare the values (uint64,
/// held as int64 bits, as unsigned; its |x| is x). An empty
/// `reduced` applies the elementwise part alone (noop_with_empty_axes).
/// The result keeps x's type and has `outShape` (keepdims or not: the kept
/// dimensions in order). nullopt for the minimum or maximum of nothing.
static std::optional<ConstTensor> foldIntReduce(StringRef op,
                                                const ConstTensor &x,
                                                ArrayRef<bool> reduced,
                                                ArrayRef<int64_t> outShape) {
  using namespace llm::detail;
  int64_t rank = x.shape.size();
  SmallVector<int64_t> keptShape, reducedShape;
  for (int64_t d = 0; d < rank; ++d)
    (reduced[d] ? reducedShape : keptShape).push_back(x.shape[d]);
  bool ordered = op == "ReduceMax" || op == "ReduceMin";
  bool u64 = x.dtype == TensorProto::UINT64;
  // a < b in the values' order (uint64 compares the bits as unsigned).
  auto less = [&](int64_t a, int64_t b) {
    return u64 ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
  };
  if (ordered && product(reducedShape) == 0)
    return std::nullopt;
  SmallVector<int64_t> strides = stridesOf(x.shape);
  ConstTensor out = ConstTensor::zeros(x.dtype, outShape);
  forEachIndex(keptShape, [&](ArrayRef<int64_t> kept, int64_t flat) {
    std::optional<int64_t> acc;
    forEachIndex(reducedShape, [&](ArrayRef<int64_t> red, int64_t) {
      int64_t at = 0;
      for (int64_t d = 0, k = 0, r = 0; d < rank; ++d)
        at += strides[d] * (reduced[d] ? red[r++] : kept[k++]);
      int64_t v = x.getInt(at);
      if (op == "ReduceSumSquare")
        v = wrapMul(v, v);
      else if (op == "ReduceL1" && !u64)
        v = wrapAbs(v);
      if (!acc)
        acc = v;
      else if (op == "ReduceProd")
        acc = wrapMul(*acc, v);
      else if (op == "ReduceMax")
        acc = less(*acc, v) ? v : *acc;
      else if (op == "ReduceMin")
        acc = less(v, *acc) ? v : *acc;
      else
        acc = wrapAdd(*acc, v);
    });
    out.setInt(flat, acc.value_or(op == "ReduceProd" ? 1 : 0));
  });
  return out;
}

// ReduceMean/ReduceMax/ReduceSum -> llm.reduce_*. Axes come from the `axes`
// attribute (ReduceSum before 13, the others before 18) or the second input;
// no axes reduce everything unless noop_with_empty_axes is set. Integer
// import-time constants fold (foldIntReduce): shape arithmetic such as
// Shape -> ReduceProd -> Reshape stays known at import time.
LogicalResult Importer::importReduce(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  std::optional<ConstTensor> folded = (*in)->constant;
  if (folded && !isFoldableIntReduce(op, folded->dtype))
    folded.reset();
  // The input as a runtime value of a type the llm reductions take.
  auto materializeInput = [&]() -> FailureOr<Value> {
    FailureOr<Value> v = materialize(node, **in);
    if (failed(v) || isa<FloatType>(elemTypeOf(*v)))
      return v;
    if (!isSignedIntDType(**in))
      return nodeError(node)
             << op << " on runtime " << runtimeDTypeName(**in)
             << " tensors is not supported (llm reductions take floats and "
                "int8, int32 or int64)";
    // Integer results in the integer type (sums and products wrap).
    if (!hasIntegerForm(op))
      return nodeError(node) << op << " on " << runtimeDTypeName(**in)
                             << " tensors is not supported (cast the input "
                                "to float first)";
    return v;
  };
  FailureOr<Value> x = Value();
  if (!folded)
    x = materializeInput();
  if (failed(x))
    return failure();
  SmallVector<int64_t> shape(folded ? ArrayRef<int64_t>(folded->shape)
                                    : shapeOf(*x));
  int64_t rank = shape.size();
  SmallVector<int64_t> axes;
  if (auto a = intsAttr(node, "axes")) {
    axes = *a;
  } else if (Entry *ax = input(node, 1)) {
    if (!ax->constant)
      return nodeError(node) << "input 'axes' must be a constant known at "
                                "import time";
    axes = ax->constant->toInts();
  }
  bool keepdims = intAttr(node, "keepdims", 1);
  if (axes.empty()) {
    if (intAttr(node, "noop_with_empty_axes", 0) && folded) {
      SmallVector<bool> none(rank, false);
      setOutput(node, 0, *foldIntReduce(op, *folded, none, shape));
      return success();
    }
    if (intAttr(node, "noop_with_empty_axes", 0)) {
      // No axis reduced: each element alone through the op's elementwise
      // part (x * x, |x|, sqrt(x * x), log x), as the ONNX reference and
      // ONNX Runtime compute it (onnx/onnx#7394); x for the others.
      Location loc = nodeLoc(node);
      Type t = x->getType();
      Value r = *x;
      if (op == "ReduceSumSquare" || op == "ReduceL2")
        r = MulOp::create(builder, loc, t, *x, *x);
      if (op == "ReduceL2")
        r = SqrtOp::create(builder, loc, t, r);
      if (op == "ReduceL1")
        r = MaxOp::create(builder, loc, t, *x,
                          NegOp::create(builder, loc, t, *x));
      if (op == "ReduceLogSum")
        r = LogOp::create(builder, loc, t, *x);
      setOutput(node, 0, r);
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  llvm::SmallDenseSet<int64_t> reduced;
  for (int64_t &a : axes) {
    FailureOr<int64_t> n = normAxis(node, a, rank);
    if (failed(n))
      return failure();
    a = *n;
    if (!reduced.insert(a).second)
      return nodeError(node) << "repeated axis " << a;
  }
  llvm::sort(axes);
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.contains(i))
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  if (folded) {
    SmallVector<bool> flags(rank, false);
    for (int64_t a : axes)
      flags[a] = true;
    if (std::optional<ConstTensor> r =
            foldIntReduce(op, *folded, flags, outShape)) {
      setOutput(node, 0, *r);
      return success();
    }
    // The minimum or maximum of nothing: left to the runtime reduction.
    x = materializeInput();
    if (failed(x))
      return failure();
  }
  Location loc = nodeLoc(node);
  auto type = tensorType(outShape, elemTypeOf(*x));
  Value r;
  if (op == "ReduceMean") {
    r = ReduceMeanOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceMax") {
    r = ReduceMaxOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceMin") {
    r = ReduceMinOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceProd") {
    r = ReduceProdOp::create(builder, loc, type, *x, axes, keepdims);
  } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
    // sum(x * x) [-> sqrt]
    Value sq = MulOp::create(builder, loc, x->getType(), *x, *x);
    r = ReduceSumOp::create(builder, loc, type, sq, axes, keepdims);
    if (op == "ReduceL2")
      r = SqrtOp::create(builder, loc, type, r);
  } else if (op == "ReduceL1") {
    // sum(|x|), |x| = max(x, -x)
    Value abs = MaxOp::create(builder, loc, x->getType(), *x,
                              NegOp::create(builder, loc, x->getType(), *x));
    r = ReduceSumOp::create(builder, loc, type, abs, axes, keepdims);
  } else if (op == "ReduceLogSum") {
    // log(sum(x))
    r = ReduceSumOp::create(builder, loc, type, *x, axes, keepdims);
    r = LogOp::create(builder, loc, type, r);
  } else if (op == "ReduceLogSumExp") {
    // m + log(sum(exp(x - m))), m = max(x) over the axes (keepdims), so that
    // exp cannot overflow; m clamped to the finite range of the element type
    // (as scipy.special.logsumexp sets an infinite max to 0): a row of -inf
    // gives -inf and a row holding +inf gives +inf, where x - m was
    // -inf - -inf = NaN.
    SmallVector<int64_t> keptShape;
    for (int64_t i = 0; i < rank; ++i)
      keptShape.push_back(reduced.contains(i) ? 1 : shape[i]);
    auto keptType = tensorType(keptShape, elemTypeOf(*x));
    Value m = ReduceMaxOp::create(builder, loc, keptType, *x, axes, true);
    if (auto ft = dyn_cast<FloatType>(elemTypeOf(*x))) {
      int dtype = dtypeOf(**in);
      double highest =
          llvm::APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
      FailureOr<Value> lo = scalarConstant(node, -highest, dtype);
      FailureOr<Value> hi = scalarConstant(node, highest, dtype);
      if (failed(lo) || failed(hi))
        return failure();
      m = MinOp::create(builder, loc, keptType,
                        MaxOp::create(builder, loc, keptType, m, *lo), *hi);
    }
    Value e = ExpOp::create(
        builder, loc, x->getType(),
        SubOp::create(builder, loc, x->getType(), *x, m));
    r = LogOp::create(builder, loc, type,
                      ReduceSumOp::create(builder, loc, type, e, axes,
                                          keepdims));
    r = AddOp::create(builder, loc, type, r, reshape(loc, m, outShape));
  } else {
    r = ReduceSumOp::create(builder, loc, type, *x, axes, keepdims);
  }
  setOutput(node, 0, r);
  return success();
}

// ArgMax/ArgMin(x) {axis, keepdims, select_last_index} -> llm.argmax/argmin
// (int64 result).
LogicalResult Importer::importArgReduce(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)) && !isSignedIntDType(**in))
    return nodeError(node) << node.op_type() << " on " << runtimeDTypeName(**in)
                           << " tensors is not supported (llm.argmax/argmin "
                              "take f32, f16, bf16, int8, int32 or int64)";
  SmallVector<int64_t> shape(shapeOf(*x));
  int64_t rank = shape.size();
  if (rank == 0)
    return nodeError(node) << "input must have rank >= 1";
  FailureOr<int64_t> axis = normAxis(node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  if (shape[*axis] == 0)
    return nodeError(node) << "reduced dimension " << *axis << " is empty";
  bool keepdims = intAttr(node, "keepdims", 1);
  bool last = intAttr(node, "select_last_index", 0);
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != *axis)
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  auto type = tensorType(outShape, builder.getI64Type());
  Location loc = nodeLoc(node);
  Value r;
  if (node.op_type() == "ArgMax")
    r = ArgMaxOp::create(builder, loc, type, *x, *axis, keepdims, last);
  else
    r = ArgMinOp::create(builder, loc, type, *x, *axis, keepdims, last);
  setOutput(node, 0, r);
  return success();
}


// Hardmax(x) {axis}: 1 at the first maximum along `axis`, 0 elsewhere (from
// opset 13; before, x is coerced to 2-D at `axis` as for Softmax):
//   select(argmax(x, axis, keepdims) == K, 1, 0), K = [0, n) along `axis`.
// (llm.argmax picks the first maximum, as Hardmax does.)
LogicalResult Importer::importHardmax(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemTypeOf(*x)))
    return nodeError(node) << "Hardmax input must be f32, f16 or bf16";
  SmallVector<int64_t> shape(shapeOf(*x));
  int64_t rank = shape.size();
  FailureOr<int64_t> axis =
      normAxis(node, intAttr(node, "axis", opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  Location loc = nodeLoc(node);
  auto [v, along] = coerceTo2D(loc, *x, *axis);
  SmallVector<int64_t> vshape(shapeOf(v));
  int64_t n = vshape[along];
  if (n == 0) {
    setOutput(node, 0, *x);
    return success();
  }
  SmallVector<int64_t> kept(vshape);
  kept[along] = 1;
  Value idx = ArgMaxOp::create(builder, loc,
                               tensorType(kept, builder.getI64Type()), v,
                               along, /*keepdims=*/true, /*last=*/false);
  int dtype = dtypeOf(**in);
  FailureOr<Value> kv =
      positionsAlong(node, vshape.size(), along, n, TensorProto::INT64);
  FailureOr<Value> one = scalarConstant(node, 1, dtype),
                   zero = scalarConstant(node, 0, dtype);
  if (failed(kv) || failed(one) || failed(zero))
    return failure();
  Value hot = CompareOp::create(builder, loc,
                                tensorType(vshape, builder.getI1Type()),
                                ComparePredicate::EQ, idx, *kv);
  Value r = SelectOp::create(builder, loc, v.getType(), hot, *one, *zero);
  setOutput(node, 0, reshape(loc, r, shape));
  return success();
}

std::pair<Value, int64_t> Importer::coerceTo2D(Location loc, Value x,
                                               int64_t axis) {
  ArrayRef<int64_t> shape = shapeOf(x);
  if (opset >= 13 || axis == static_cast<int64_t>(shape.size()) - 1)
    return {x, axis};
  return {reshape(loc, x,
                  {product(shape.take_front(axis)),
                   product(shape.drop_front(axis))}),
          1};
}

FailureOr<Value> Importer::positionsAlong(const onnx::NodeProto &node,
                                          int64_t rank, int64_t axis,
                                          int64_t n, int dtype,
                                          int64_t offset) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  Entry k;
  k.constant = ConstTensor::zeros(dtype, shape);
  for (int64_t j = 0; j < n; ++j)
    k.constant->setInt(j, offset + j);
  return materialize(node, k);
}
