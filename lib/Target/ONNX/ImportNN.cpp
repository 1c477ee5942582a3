//===- ImportNN.cpp - ONNX convolution, pooling, normalization, layout ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX ops of the image/audio front ends of transformer models, built from
// existing llm ops: Conv (1-D, 2-D, ... as slices and one llm.matmul),
// GlobalAveragePool/GlobalMaxPool, BatchNormalization (inference),
// InstanceNormalization, MeanVarianceNormalization, Pad, DepthToSpace,
// SpaceToDepth, EyeLike, CumSum (a log-step scan) and the
// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss of exports that
// include their loss. Constant inputs are materialized;
// `llm-fold-constants` evaluates what is constant at compile time.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;

/// `v` with `pad` copies of `fill` (a splat of the element type) before and
/// `after` after it along `axis` (concatenated; no op for zero pads).
static Value padAxisWith(OpBuilder &b, Location loc, Value v, int64_t axis,
                         int64_t before, int64_t after, Value fillBefore,
                         Value fillAfter) {
  SmallVector<Value> parts;
  if (before > 0)
    parts.push_back(fillBefore);
  parts.push_back(v);
  if (after > 0)
    parts.push_back(fillAfter);
  if (parts.size() == 1)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] += before + after;
  return ConcatOp::create(b, loc, type.clone(shape), parts, axis);
}

/// A splat constant `value` of `dtype` and `shape`.
FailureOr<Value> Importer::splatConstant(const onnx::NodeProto &node,
                                         double value, int dtype,
                                         ArrayRef<int64_t> shape) {
  Entry e;
  e.constant = ConstTensor::zeros(dtype, shape);
  for (int64_t i = 0, n = e.constant->numel(); i < n; ++i)
    e.constant->setDouble(i, value);
  e.blobName = "fill";
  return materialize(node, e);
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

// Conv(X [N, C, S...], W [M, C/G, K...], B [M]) per group g:
//   Xp = X zero-padded (concat with zero splats along each spatial axis);
//   for each kernel offset k: P_k = slice(Xp, k * dilation, ..., stride)
//     [N, C/G, O...]; patches = concat of the P_k as [N, C/G, K, O] ->
//     transpose [N, O, C/G, K] -> reshape [N, prod(O), C/G * prod(K)];
//   (stride == kernel, dilation 1: patches by reshape/transpose of Xp
//     cropped to O * K, without one slice per offset);
//   Y_g = matmul(patches, W_g [M/G, C/G * prod(K)], transpose_b)
//     [N, prod(O), M/G];
// Y = concat of the Y_g -> transpose [N, M, prod(O)] -> reshape
//   [N, M, O...] (+ B as [M, 1...]).
LogicalResult Importer::importConv(const onnx::NodeProto &node) {
  FailureOr<Entry *> xe = required(node, 0), we = required(node, 1);
  if (failed(xe) || failed(we))
    return failure();
  int dtype = dtypeOf(**xe);
  if (dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
      dtype != TensorProto::BFLOAT16)
    return nodeError(node) << "Conv of " << dtypeName(dtype)
                           << " tensors is not supported (f32, f16, bf16)";
  SmallVector<int64_t> xs = shapeOf(**xe), ws = shapeOf(**we);
  int64_t rank = xs.size(), sp = rank - 2;
  if (rank < 3 || static_cast<int64_t>(ws.size()) != rank)
    return nodeError(node) << "Conv needs X and W of one rank >= 3, got "
                           << shapeStr(xs) << " and " << shapeStr(ws);
  int64_t group = intAttr(node, "group", 1);
  int64_t n = xs[0], c = xs[1], m = ws[0];
  if (group < 1 || c % group != 0 || m % group != 0 || ws[1] != c / group)
    return nodeError(node) << "Conv group " << group << " does not fit X "
                           << shapeStr(xs) << " and W " << shapeStr(ws);
  SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (auto ks = intsAttr(node, "kernel_shape"))
    if (*ks != ArrayRef<int64_t>(kernel))
      return nodeError(node) << "kernel_shape " << shapeStr(*ks)
                             << " differs from W's " << shapeStr(kernel);
  auto spatialAttr = [&](StringRef name, int64_t dflt,
                         int64_t count) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> v(count, dflt);
    if (auto a = intsAttr(node, name)) {
      if (static_cast<int64_t>(a->size()) != count ||
          llvm::any_of(*a, [&](int64_t x) { return x < (dflt ? 1 : 0); })) {
        nodeError(node) << "Conv " << name << " " << shapeStr(*a)
                        << " does not fit " << sp << " spatial dimensions";
        return failure();
      }
      v = *a;
    }
    return v;
  };
  auto strides = spatialAttr("strides", 1, sp);
  auto dilations = spatialAttr("dilations", 1, sp);
  auto pads = spatialAttr("pads", 0, 2 * sp);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  std::string autoPad = "NOTSET";
  if (const onnx::AttributeProto *a = attr(node, "auto_pad"))
    autoPad = a->s();
  SmallVector<int64_t> out(sp), before(sp), after(sp);
  for (int64_t d = 0; d < sp; ++d) {
    int64_t in = xs[2 + d], s = (*strides)[d];
    int64_t span = (kernel[d] - 1) * (*dilations)[d] + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out[d] = (in + s - 1) / s;
      int64_t total = std::max<int64_t>((out[d] - 1) * s + span - in, 0);
      before[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      after[d] = total - before[d];
    } else if (autoPad == "VALID" || autoPad == "NOTSET") {
      before[d] = autoPad == "VALID" ? 0 : (*pads)[d];
      after[d] = autoPad == "VALID" ? 0 : (*pads)[sp + d];
      int64_t padded = in + before[d] + after[d];
      out[d] = padded < span ? 0 : (padded - span) / s + 1;
    } else {
      return nodeError(node) << "Conv auto_pad '" << autoPad
                             << "' is not supported";
    }
    if (out[d] < 1)
      return nodeError(node) << "Conv output dimension " << d
                             << " would be empty (input " << shapeStr(xs)
                             << ", kernel " << shapeStr(kernel) << ")";
  }
  Entry *be = input(node, 2);
  if (be && shapeOf(*be) != ArrayRef<int64_t>{m})
    return nodeError(node) << "Conv bias must have shape [" << m << "], got "
                           << shapeStr(shapeOf(*be));
  FailureOr<Value> xv = materialize(node, **xe);
  FailureOr<Value> wv = materializeAs(node, **we, dtype);
  if (failed(xv) || failed(wv))
    return failure();
  if (elemTypeOf(*wv) != elemTypeOf(*xv))
    return nodeError(node) << "Conv X and W have different element types";
  Location loc = nodeLoc(node);
  Type et = elemTypeOf(*xv);

  // Zero padding, axis by axis.
  Value x = *xv;
  for (int64_t d = 0; d < sp; ++d) {
    if (before[d] == 0 && after[d] == 0)
      continue;
    SmallVector<int64_t> bs(shapeOf(x)), as(shapeOf(x));
    bs[2 + d] = before[d];
    as[2 + d] = after[d];
    FailureOr<Value> zb = splatConstant(node, 0.0, dtype, bs);
    FailureOr<Value> za = splatConstant(node, 0.0, dtype, as);
    if (failed(zb) || failed(za))
      return failure();
    x = padAxisWith(builder, loc, x, 2 + d, before[d], after[d], *zb, *za);
  }
  int64_t kprod = product(kernel), oprod = product(out);
  int64_t cg = c / group, mg = m / group;
  if (failed(checkShape(node, {n, oprod, cg * kprod})))
    return failure();
  bool patchwise = true; // stride == kernel, dilation 1
  for (int64_t d = 0; d < sp; ++d)
    patchwise &= (*strides)[d] == kernel[d] && (*dilations)[d] == 1;

  SmallVector<Value> groups;
  for (int64_t g = 0; g < group; ++g) {
    // X channels of the group.
    SmallVector<int64_t> starts(rank, 0), limits(shapeOf(x)), ones(rank, 1);
    starts[1] = g * cg;
    limits[1] = (g + 1) * cg;
    Value xg = slice(loc, x, starts, limits, ones);
    Value patches;
    if (patchwise) {
      // Crop to O * K, view as [N, C/G, O0, K0, O1, K1, ...], move the
      // kernel dimensions after the channels.
      SmallVector<int64_t> lim(shapeOf(xg));
      SmallVector<int64_t> split = {n, cg};
      for (int64_t d = 0; d < sp; ++d) {
        lim[2 + d] = out[d] * kernel[d];
        split.push_back(out[d]);
        split.push_back(kernel[d]);
      }
      Value cropped = slice(loc, xg, SmallVector<int64_t>(rank, 0), lim, ones);
      Value view = reshape(loc, cropped, split);
      SmallVector<int64_t> perm = {0};
      for (int64_t d = 0; d < sp; ++d)
        perm.push_back(2 + 2 * d);
      perm.push_back(1);
      for (int64_t d = 0; d < sp; ++d)
        perm.push_back(3 + 2 * d);
      SmallVector<int64_t> tshape;
      for (int64_t p : perm)
        tshape.push_back(split[p]);
      Value t = TransposeOp::create(builder, loc, tensorType(tshape, et), view,
                                    perm);
      patches = reshape(loc, t, {n, oprod, cg * kprod});
    } else {
      SmallVector<Value> taps;
      SmallVector<int64_t> k(sp, 0);
      for (int64_t flat = 0; flat < kprod; ++flat) {
        SmallVector<int64_t> st(rank, 0), li(shapeOf(xg)), sd(rank, 1);
        for (int64_t d = 0; d < sp; ++d) {
          st[2 + d] = k[d] * (*dilations)[d];
          li[2 + d] = st[2 + d] + (out[d] - 1) * (*strides)[d] + 1;
          sd[2 + d] = (*strides)[d];
        }
        taps.push_back(reshape(loc, slice(loc, xg, st, li, sd),
                               {n, cg, 1, oprod}));
        for (int64_t d = sp - 1; d >= 0; --d) // next offset, row-major
          if (++k[d] < kernel[d])
            break;
          else
            k[d] = 0;
      }
      Value stacked =
          taps.size() == 1
              ? taps[0]
              : ConcatOp::create(builder, loc,
                                 tensorType({n, cg, kprod, oprod}, et), taps,
                                 2);
      Value t = TransposeOp::create(builder, loc,
                                    tensorType({n, oprod, cg, kprod}, et),
                                    stacked, ArrayRef<int64_t>{0, 3, 1, 2});
      patches = reshape(loc, t, {n, oprod, cg * kprod});
    }
    // W rows of the group, flattened to [M/G, C/G * prod(K)].
    SmallVector<int64_t> wst(rank, 0), wli(ws), wsd(rank, 1);
    wst[0] = g * mg;
    wli[0] = (g + 1) * mg;
    Value wg = reshape(loc, slice(loc, *wv, wst, wli, wsd), {mg, cg * kprod});
    groups.push_back(MatmulOp::create(builder, loc,
                                      tensorType({n, oprod, mg}, et), patches,
                                      wg, /*transpose_a=*/false,
                                      /*transpose_b=*/true));
  }
  Value y = groups.size() == 1
                ? groups[0]
                : ConcatOp::create(builder, loc, tensorType({n, oprod, m}, et),
                                   groups, 2);
  y = TransposeOp::create(builder, loc, tensorType({n, m, oprod}, et), y,
                          ArrayRef<int64_t>{0, 2, 1});
  SmallVector<int64_t> yshape = {n, m};
  llvm::append_range(yshape, out);
  y = reshape(loc, y, yshape);
  if (be) {
    FailureOr<Value> bv = materializeAs(node, *be, dtype);
    if (failed(bv))
      return failure();
    SmallVector<int64_t> bshape(rank - 1, 1);
    bshape[0] = m;
    y = AddOp::create(builder, loc, y.getType(), y, reshape(loc, *bv, bshape));
  }
  setOutput(node, 0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Global pooling and normalizations
//===----------------------------------------------------------------------===//

/// Checks that `e` is a float tensor of rank >= `minRank` for `node`.
LogicalResult Importer::checkFloatInput(const onnx::NodeProto &node, Entry &e,
                                        int64_t minRank) {
  int dtype = dtypeOf(e);
  if (dtype != TensorProto::FLOAT && dtype != TensorProto::FLOAT16 &&
      dtype != TensorProto::BFLOAT16)
    return nodeError(node) << node.op_type() << " of " << dtypeName(dtype)
                           << " tensors is not supported (f32, f16, bf16)";
  if (static_cast<int64_t>(shapeOf(e).size()) < minRank)
    return nodeError(node) << node.op_type() << " needs rank >= " << minRank
                           << ", got " << shapeStr(shapeOf(e));
  return success();
}

// GlobalAveragePool / GlobalMaxPool(X [N, C, S...]) ->
//   llm.reduce_mean / llm.reduce_max over S (keepdims).
LogicalResult Importer::importGlobalPool(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in) || failed(checkFloatInput(node, **in, 3)))
    return failure();
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  SmallVector<int64_t> shape(shapeOf(*x)), axes;
  for (size_t d = 2; d < shape.size(); ++d) {
    axes.push_back(d);
    shape[d] = 1;
  }
  Location loc = nodeLoc(node);
  auto type = tensorType(shape, elemTypeOf(*x));
  Value r = node.op_type() == "GlobalMaxPool"
                ? Value(ReduceMaxOp::create(builder, loc, type, *x, axes, true))
                : Value(ReduceMeanOp::create(builder, loc, type, *x, axes,
                                             true));
  setOutput(node, 0, r);
  return success();
}

// BatchNormalization (inference) -> (x - mean) / sqrt(var + eps) * scale + B
//   with the [C] parameters as [C, 1...].
// InstanceNormalization -> m = reduce_mean(x) over S, v = reduce_mean((x -
//   m)^2) over S; (x - m) / sqrt(v + eps) * scale + B.
// MeanVarianceNormalization(axes) -> (x - m) / (sqrt(reduce_mean((x -
//   m)^2)) + 1e-9) over the axes (ONNX's function body).
LogicalResult Importer::importNormalization(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in) || failed(checkFloatInput(node, **in, op == "MeanVarianceNormalization" ? 1 : 2)))
    return failure();
  int dtype = dtypeOf(**in);
  if (op == "BatchNormalization") {
    if (intAttr(node, "training_mode", 0) != 0)
      return nodeError(node)
             << "training-mode BatchNormalization is not supported";
    for (int i = 1; i < node.output_size(); ++i)
      if (!node.output(i).empty() && used.contains(node.output(i)))
        return nodeError(node) << "the BatchNormalization running mean/var "
                                  "outputs (training) are not supported";
  }
  FailureOr<Value> xv = materialize(node, **in);
  if (failed(xv))
    return failure();
  Value x = *xv;
  Location loc = nodeLoc(node);
  Type t = x.getType();
  SmallVector<int64_t> shape(shapeOf(x));
  int64_t rank = shape.size();
  double eps = floatAttr(node, "epsilon", 1e-5f);
  // A [C] parameter as [C, 1...] (broadcasting against [N, C, S...]).
  auto param = [&](int i) -> FailureOr<Value> {
    FailureOr<Entry *> e = required(node, i);
    if (failed(e))
      return failure();
    if (shapeOf(**e) != ArrayRef<int64_t>{shape[1]}) {
      nodeError(node) << "input " << i << " must have shape [" << shape[1]
                      << "], got " << shapeStr(shapeOf(**e));
      return failure();
    }
    FailureOr<Value> v = materializeAs(node, **e, dtype);
    if (failed(v))
      return failure();
    SmallVector<int64_t> ps(rank - 1, 1);
    ps[0] = shape[1];
    return reshape(loc, *v, ps);
  };
  auto sub = [&](Value a, Value b) -> Value {
    return SubOp::create(builder, loc, t, a, b);
  };
  auto bin = [&](StringRef kind, Value a, Value b) -> Value {
    auto outShape = *broadcastShapes(shapeOf(a), shapeOf(b));
    return createBinary(kind, loc, tensorType(outShape, elemTypeOf(a)), a, b);
  };
  FailureOr<Value> epsC = scalarConstant(node, eps, dtype);
  if (failed(epsC))
    return failure();
  Value y;
  if (op == "BatchNormalization") {
    FailureOr<Value> scale = param(1), bias = param(2), mean = param(3),
                     var = param(4);
    if (failed(scale) || failed(bias) || failed(mean) || failed(var))
      return failure();
    Value sd = SqrtOp::create(builder, loc, var->getType(),
                              bin("Add", *var, *epsC));
    y = bin("Add", bin("Mul", bin("Div", sub(x, *mean), sd), *scale), *bias);
  } else {
    SmallVector<int64_t> axes;
    if (op == "InstanceNormalization") {
      for (int64_t d = 2; d < rank; ++d)
        axes.push_back(d);
    } else {
      SmallVector<int64_t> raw =
          intsAttr(node, "axes").value_or(SmallVector<int64_t>{0, 2, 3});
      for (int64_t a : raw) {
        FailureOr<int64_t> d = normAxis(node, a, rank);
        if (failed(d))
          return failure();
        axes.push_back(*d);
      }
    }
    SmallVector<int64_t> kept(shape);
    for (int64_t d : axes)
      kept[d] = 1;
    auto statType = tensorType(kept, elemTypeOf(x));
    Value mean = ReduceMeanOp::create(builder, loc, statType, x, axes, true);
    Value centered = sub(x, mean);
    Value var = ReduceMeanOp::create(
        builder, loc, statType,
        MulOp::create(builder, loc, t, centered, centered), axes, true);
    if (op == "InstanceNormalization") {
      FailureOr<Value> scale = param(1), bias = param(2);
      if (failed(scale) || failed(bias))
        return failure();
      Value sd = SqrtOp::create(builder, loc, statType, bin("Add", var, *epsC));
      y = bin("Add", bin("Mul", bin("Div", centered, sd), *scale), *bias);
    } else {
      FailureOr<Value> tiny = scalarConstant(node, 1e-9, dtype);
      if (failed(tiny))
        return failure();
      Value sd = SqrtOp::create(builder, loc, statType, var);
      y = bin("Div", centered, bin("Add", sd, *tiny));
    }
  }
  setOutput(node, 0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Layout: DepthToSpace, SpaceToDepth, Pad, EyeLike
//===----------------------------------------------------------------------===//

// DepthToSpace(blocksize b), [N, C, H, W]:
//   DCR: reshape [N, b, b, C/b^2, H, W], transpose [0, 3, 4, 1, 5, 2];
//   CRD: reshape [N, C/b^2, b, b, H, W], transpose [0, 1, 4, 2, 5, 3];
//   reshape [N, C/b^2, H*b, W*b].
// SpaceToDepth(b): reshape [N, C, H/b, b, W/b, b], transpose
//   [0, 3, 5, 1, 2, 4], reshape [N, C*b^2, H/b, W/b].
LogicalResult Importer::importDepthSpace(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> s = shapeOf(**in);
  int64_t b = intAttr(node, "blocksize", 0);
  bool toSpace = node.op_type() == "DepthToSpace";
  if (s.size() != 4 || b < 1)
    return nodeError(node) << node.op_type()
                           << " needs a 4-D input and blocksize >= 1, got "
                           << shapeStr(s) << " and " << b;
  int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  if (toSpace ? c % (b * b) != 0 : (h % b != 0 || w % b != 0))
    return nodeError(node) << node.op_type() << " blocksize " << b
                           << " does not divide " << shapeStr(s);
  std::string mode = "DCR";
  if (const onnx::AttributeProto *a = attr(node, "mode"))
    mode = a->s();
  if (toSpace && mode != "DCR" && mode != "CRD")
    return nodeError(node) << "DepthToSpace mode '" << mode
                           << "' is not supported";
  FailureOr<Value> x = materialize(node, **in);
  if (failed(x))
    return failure();
  Location loc = nodeLoc(node);
  SmallVector<int64_t> view, perm, result;
  if (toSpace && mode == "DCR") {
    view = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (toSpace) {
    view = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    view = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
  }
  result = toSpace ? SmallVector<int64_t>{n, c / (b * b), h * b, w * b}
                   : SmallVector<int64_t>{n, c * b * b, h / b, w / b};
  SmallVector<int64_t> tshape;
  for (int64_t p : perm)
    tshape.push_back(view[p]);
  Value t = TransposeOp::create(builder, loc,
                                tensorType(tshape, elemTypeOf(*x)),
                                reshape(loc, *x, view), perm);
  setOutput(node, 0, reshape(loc, t, result));
  return success();
}

// Pad(data, pads, constant_value, axes), mode constant / edge / reflect, per
// padded axis: negative pads crop (llm.slice); then
//   constant: concat(splat(value), x, splat(value));
//   edge:     concat(broadcast_to(first slice), x, broadcast_to(last slice));
//   reflect:  concat(reverse(x[1 : b+1]), x, reverse(x[n-1-a : n-1])).
LogicalResult Importer::importPad(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  int dtype = dtypeOf(**in);
  std::string mode = "constant";
  if (const onnx::AttributeProto *a = attr(node, "mode"))
    mode = a->s();
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return nodeError(node) << "Pad mode '" << mode << "' is not supported";
  SmallVector<int64_t> pads;
  double value = 0;
  if (node.input_size() > 1) {
    FailureOr<const ConstTensor *> p = requiredConst(node, 1, "pads");
    if (failed(p))
      return failure();
    pads = (*p)->toInts();
    if (Entry *v = input(node, 2)) {
      if (!v->constant || v->constant->numel() != 1)
        return nodeError(node)
               << "Pad constant_value must be a constant scalar";
      value = v->constant->getDouble(0);
    }
  } else {
    pads = intsAttr(node, "pads").value_or(SmallVector<int64_t>{});
    value = floatAttr(node, "value", 0.0f);
  }
  SmallVector<int64_t> axes;
  if (Entry *ax = input(node, 3)) {
    if (!ax->constant)
      return nodeError(node) << "Pad axes must be a constant";
    for (int64_t a : ax->constant->toInts()) {
      FailureOr<int64_t> d = normAxis(node, a, rank);
      if (failed(d))
        return failure();
      axes.push_back(*d);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t na = axes.size();
  if (static_cast<int64_t>(pads.size()) != 2 * na)
    return nodeError(node) << "Pad pads has " << pads.size()
                           << " values, expected " << 2 * na;
  if (!toMLIRType(dtype, ctx))
    return nodeError(node) << "Pad of " << dtypeName(dtype)
                           << " tensors is not supported";
  FailureOr<Value> xv = materialize(node, **in);
  if (failed(xv))
    return failure();
  Value x = *xv;
  Location loc = nodeLoc(node);
  for (int64_t i = 0; i < na; ++i) {
    int64_t d = axes[i], before = pads[i], after = pads[na + i];
    SmallVector<int64_t> cur(shapeOf(x));
    // Crop first (negative pads).
    if (before < 0 || after < 0) {
      SmallVector<int64_t> st(rank, 0), li(cur), sd(rank, 1);
      st[d] = std::max<int64_t>(-before, 0);
      li[d] = cur[d] + std::min<int64_t>(after, 0);
      if (li[d] < st[d])
        return nodeError(node) << "Pad crops more than axis " << d << " holds";
      x = slice(loc, x, st, li, sd);
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
      cur.assign(shapeOf(x).begin(), shapeOf(x).end());
    }
    if (before == 0 && after == 0)
      continue;
    int64_t len = cur[d];
    SmallVector<int64_t> bs(cur), as(cur);
    bs[d] = before;
    as[d] = after;
    Value fb, fa;
    if (mode == "constant") {
      FailureOr<Value> cb = splatConstant(node, value, dtype, bs);
      FailureOr<Value> ca = splatConstant(node, value, dtype, as);
      if (failed(cb) || failed(ca))
        return failure();
      fb = *cb;
      fa = *ca;
    } else {
      if (len == 0 || (mode == "reflect" && (before >= len || after >= len)))
        return nodeError(node) << "Pad " << mode << " pads (" << before << ", "
                               << after << ") do not fit axis " << d
                               << " of size " << len;
      auto part = [&](int64_t start, int64_t limit,
                      ArrayRef<int64_t> to) -> Value {
        SmallVector<int64_t> st(rank, 0), li(cur), sd(rank, 1);
        st[d] = start;
        li[d] = limit;
        Value s = slice(loc, x, st, li, sd);
        if (mode == "edge")
          return BroadcastToOp::create(builder, loc,
                                       tensorType(to, elemTypeOf(x)), s);
        return ReverseOp::create(builder, loc, s.getType(), s,
                                 ArrayRef<int64_t>{d});
      };
      if (before > 0)
        fb = mode == "edge" ? part(0, 1, bs) : part(1, before + 1, bs);
      if (after > 0)
        fa = mode == "edge" ? part(len - 1, len, as)
                            : part(len - 1 - after, len - 1, as);
    }
    x = padAxisWith(builder, loc, x, d, before, after, fb, fa);
  }
  setOutput(node, 0, x);
  return success();
}

// EyeLike(x [R, C], dtype, k) -> the constant with ones on diagonal k (only
// x's shape matters).
LogicalResult Importer::importEyeLike(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(**in);
  if (shape.size() != 2)
    return nodeError(node) << "EyeLike needs a 2-D input, got "
                           << shapeStr(shape);
  int64_t to = intAttr(node, "dtype", dtypeOf(**in));
  if (to < 0 || to > INT_MAX || elementSize(static_cast<int>(to)) == 0)
    return nodeError(node) << "EyeLike dtype " << to << " is not supported";
  if (failed(checkShape(node, shape)))
    return failure();
  int64_t k = intAttr(node, "k", 0);
  ConstTensor eye = ConstTensor::zeros(static_cast<int>(to), shape);
  for (int64_t r = 0; r < shape[0]; ++r) {
    int64_t col = r + k;
    if (col >= 0 && col < shape[1])
      eye.setInt(r * shape[1] + col, 1);
  }
  setOutput(node, 0, std::move(eye));
  return success();
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

// CumSum(x, axis) {exclusive, reverse}, L = the axis' size, as a log-step
// (Hillis-Steele) scan of llm ops:
//   [reverse] v = llm.reverse(x);
//   [exclusive] v = concat(0, v[0 : L-1]);
//   for s = 1, 2, 4, ... < L: v = v + concat(0 [s], v[0 : L-s]);
//   [reverse] llm.reverse(v).
// ceil(log2 L) additions; integers (i8, i32, i64) and floats (f64 too).
LogicalResult Importer::importCumSum(const onnx::NodeProto &node) {
  FailureOr<Entry *> in = required(node, 0);
  FailureOr<const ConstTensor *> axisT = requiredConst(node, 1, "axis");
  if (failed(in) || failed(axisT))
    return failure();
  if ((*axisT)->numel() != 1)
    return nodeError(node) << "CumSum axis must be a scalar";
  SmallVector<int64_t> shape = shapeOf(**in);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = normAxis(node, (*axisT)->getInt(0), rank);
  if (failed(axis))
    return failure();
  int dtype = dtypeOf(**in);
  if (!llvm::is_contained({TensorProto::FLOAT, TensorProto::FLOAT16,
                           TensorProto::BFLOAT16, TensorProto::DOUBLE,
                           TensorProto::INT8, TensorProto::INT32,
                           TensorProto::INT64},
                          dtype))
    return nodeError(node) << "CumSum of " << dtypeName(dtype)
                           << " tensors is not supported";
  FailureOr<Value> xv = materialize(node, **in);
  if (failed(xv))
    return failure();
  Location loc = nodeLoc(node);
  int64_t len = shape[*axis];
  bool reverse = intAttr(node, "reverse", 0) != 0;
  bool exclusive = intAttr(node, "exclusive", 0) != 0;
  Value v = *xv;
  Type t = v.getType();
  if (reverse)
    v = ReverseOp::create(builder, loc, t, v, ArrayRef<int64_t>{*axis});
  // v shifted by s along the axis, zeros shifted in.
  auto shifted = [&](int64_t s) -> FailureOr<Value> {
    SmallVector<int64_t> zs(shape);
    zs[*axis] = s;
    FailureOr<Value> zeros = splatConstant(node, 0.0, dtype, zs);
    if (failed(zeros))
      return failure();
    SmallVector<int64_t> st(rank, 0), li(shape), sd(rank, 1);
    li[*axis] = len - s;
    return padAxisWith(builder, loc, slice(loc, v, st, li, sd), *axis, s, 0,
                       *zeros, Value());
  };
  if (exclusive && len > 0) {
    FailureOr<Value> s = shifted(1);
    if (failed(s))
      return failure();
    v = *s;
  }
  for (int64_t s = 1; s < len; s *= 2) {
    FailureOr<Value> sh = shifted(s);
    if (failed(sh))
      return failure();
    v = AddOp::create(builder, loc, t, v, *sh);
  }
  if (reverse)
    v = ReverseOp::create(builder, loc, t, v, ArrayRef<int64_t>{*axis});
  setOutput(node, 0, v);
  return success();
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

// NegativeLogLikelihoodLoss(x [N, C, D...], t [N, D...], w [C]?)
//   {reduction, ignore_index}, as ONNX's function body:
//   keep = t != ignore_index; t' = select(keep, t, 0);
//   p = gather_elements(x, t' as [N, 1, D...], axis 1) as [N, D...];
//   wt = gather(w, t') (or 1), 0 where not keep; loss = -p * wt;
//   none: loss; sum: reduce_sum(loss); mean: reduce_sum(loss) /
//   reduce_sum(wt).
// SoftmaxCrossEntropyLoss(scores, labels, w?): log_prob =
//   llm.log_softmax(scores, axis 1) (its optional second output), then the
//   loss above on log_prob.
LogicalResult Importer::importLoss(const onnx::NodeProto &node) {
  bool sce = node.op_type() == "SoftmaxCrossEntropyLoss";
  FailureOr<Entry *> xe = required(node, 0), te = required(node, 1);
  if (failed(xe) || failed(te) || failed(checkFloatInput(node, **xe, 2)))
    return failure();
  int dtype = dtypeOf(**xe);
  int tdtype = dtypeOf(**te);
  if (tdtype != TensorProto::INT32 && tdtype != TensorProto::INT64)
    return nodeError(node) << node.op_type()
                           << " target must be int32 or int64, got "
                           << dtypeName(tdtype);
  SmallVector<int64_t> xs = shapeOf(**xe), ts = shapeOf(**te);
  SmallVector<int64_t> expectT(xs);
  expectT.erase(expectT.begin() + 1);
  if (ts != expectT)
    return nodeError(node) << node.op_type() << " target shape "
                           << shapeStr(ts) << " does not fit input "
                           << shapeStr(xs) << " (expected "
                           << shapeStr(expectT) << ")";
  std::string reduction = "mean";
  if (const onnx::AttributeProto *a = attr(node, "reduction"))
    reduction = a->s();
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return nodeError(node) << node.op_type() << " reduction '" << reduction
                           << "' is not supported";
  Entry *we = input(node, 2);
  if (we && shapeOf(*we) != ArrayRef<int64_t>{xs[1]})
    return nodeError(node) << node.op_type() << " weight must have shape ["
                           << xs[1] << "], got " << shapeStr(shapeOf(*we));
  FailureOr<Value> xv = materialize(node, **xe);
  FailureOr<Value> tv = materialize(node, **te);
  if (failed(xv) || failed(tv))
    return failure();
  Location loc = nodeLoc(node);
  Type et = elemTypeOf(*xv);
  Value x = *xv, t = *tv;
  if (sce) {
    x = LogSoftmaxOp::create(builder, loc, x.getType(), x, 1);
    setOutput(node, 1, x);
  }
  auto tType = tensorType(ts, et);
  auto maskType = tensorType(ts, builder.getI1Type());
  const onnx::AttributeProto *ignore = attr(node, "ignore_index");
  Value keep;
  if (ignore) {
    Entry ie;
    ie.constant = ConstTensor::zeros(tdtype, {});
    ie.constant->setInt(0, ignore->i());
    ie.blobName = "ignore_index";
    FailureOr<Value> iv = materialize(node, ie);
    FailureOr<Value> zero = splatConstant(node, 0, tdtype, {});
    if (failed(iv) || failed(zero))
      return failure();
    keep = CompareOp::create(builder, loc, maskType, ComparePredicate::NE, t,
                             *iv);
    t = SelectOp::create(builder, loc, t.getType(), keep, t, *zero);
  }
  SmallVector<int64_t> idxShape(ts);
  idxShape.insert(idxShape.begin() + 1, 1);
  Value p = GatherElementsOp::create(builder, loc, tensorType(idxShape, et), x,
                                     reshape(loc, t, idxShape), 1);
  p = reshape(loc, p, ts);
  Value wt;
  if (we) {
    FailureOr<Value> wv = materializeAs(node, *we, dtype);
    if (failed(wv))
      return failure();
    wt = GatherOp::create(builder, loc, tType, *wv, t, 0);
  }
  if (keep) {
    FailureOr<Value> one = splatConstant(node, 1, dtype, ts);
    FailureOr<Value> zero = splatConstant(node, 0, dtype, ts);
    if (failed(one) || failed(zero))
      return failure();
    wt = SelectOp::create(builder, loc, tType, keep, wt ? wt : *one, *zero);
  }
  Value loss = NegOp::create(builder, loc, tType, p);
  if (wt)
    loss = MulOp::create(builder, loc, tType, loss, wt);
  if (reduction != "none") {
    SmallVector<int64_t> axes;
    for (size_t d = 0; d < ts.size(); ++d)
      axes.push_back(d);
    auto scalarType = tensorType({}, et);
    Value sum = ReduceSumOp::create(builder, loc, scalarType, loss, axes,
                                    false);
    if (reduction == "mean") {
      Value denom;
      if (wt) {
        denom = ReduceSumOp::create(builder, loc, scalarType, wt, axes, false);
      } else {
        FailureOr<Value> n = scalarConstant(node, product(ts), dtype);
        if (failed(n))
          return failure();
        denom = *n;
      }
      sum = DivOp::create(builder, loc, scalarType, sum, denom);
    }
    loss = sum;
  }
  setOutput(node, 0, loss);
  return success();
}
