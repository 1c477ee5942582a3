//===- FoldConstants.cpp - evaluate llm ops on constants ------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `llm-fold-constants` pass and its patterns: an llm
// op whose operands are all constants is evaluated at compile time by a small
// reference evaluator (f64 arithmetic, one rounding to the result element
// type) and replaced by an `llm.constant`, subject to a size policy.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"
#include "llm/Support/PassOptions.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFOLDCONSTANTSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

#define DEBUG_TYPE "llm-fold-constants"

using namespace mlir;
using namespace mlir::llm;

namespace {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// The value of a statically shaped tensor: floats as f64 (exact for f32, f16
/// and bf16), integers as int64 (`i1` as 0/1). A splat stores one element.
struct Buffer {
  RankedTensorType type;
  bool splat = false;
  std::vector<double> f;
  std::vector<int64_t> i;

  explicit Buffer(RankedTensorType type) : type(type) {}
  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  ArrayRef<int64_t> shape() const { return type.getShape(); }
  int64_t numElements() const { return type.getNumElements(); }
  double fAt(int64_t k) const { return splat ? f[0] : f[k]; }
  int64_t iAt(int64_t k) const { return splat ? i[0] : i[k]; }
  /// Reads element `k` as a double whatever the element type.
  double at(int64_t k) const {
    return isFloat() ? fAt(k) : static_cast<double>(iAt(k));
  }
  /// Allocates storage for every element.
  Buffer &allocate() {
    if (isFloat())
      f.assign(numElements(), 0.0);
    else
      i.assign(numElements(), 0);
    return *this;
  }
};

/// Number of elements a constant stores (1 for a splat).
int64_t storedElements(ElementsAttr attr) {
  return attr.isSplat() ? 1 : attr.getNumElements();
}

double toDouble(APFloat v) {
  bool losesInfo;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return v.convertToDouble();
}

/// Reads a `dense` or `dense_resource` constant. Resource blobs are read as
/// packed little-endian elements (one byte per `i1`).
FailureOr<Buffer> readConstant(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape())
    return failure();
  Buffer buf(type);
  Type et = type.getElementType();
  bool isFloat = buf.isFloat();
  auto pushInt = [&](const APInt &v) {
    buf.i.push_back(et.isInteger(1) ? static_cast<int64_t>(!v.isZero())
                                    : v.getSExtValue());
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat()) {
      buf.splat = true;
      if (isFloat)
        buf.f.push_back(toDouble(dense.getSplatValue<APFloat>()));
      else
        pushInt(dense.getSplatValue<APInt>());
      return buf;
    }
    if (isFloat)
      for (APFloat v : dense.getValues<APFloat>())
        buf.f.push_back(toDouble(v));
    else
      for (APInt v : dense.getValues<APInt>())
        pushInt(v);
    return buf;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return failure();
  ArrayRef<char> data = resource.getData();
  unsigned width = et.getIntOrFloatBitWidth();
  unsigned bytes = et.isInteger(1) ? 1 : width / 8;
  int64_t n = type.getNumElements();
  if (static_cast<int64_t>(data.size()) != n * static_cast<int64_t>(bytes))
    return failure();
  for (int64_t k = 0; k < n; ++k) {
    uint64_t bits = 0;
    std::memcpy(&bits, data.data() + k * bytes, bytes);
    if (isFloat)
      buf.f.push_back(toDouble(APFloat(cast<FloatType>(et).getFloatSemantics(),
                                       APInt(width, bits))));
    else if (et.isInteger(1))
      buf.i.push_back(bits != 0);
    else
      buf.i.push_back(APInt(width, bits).getSExtValue());
  }
  return buf;
}

/// Builds the `dense` attribute of a value: floats rounded to nearest even
/// into the element type, integers truncated to its width.
DenseElementsAttr toAttr(const Buffer &buf) {
  Type et = buf.type.getElementType();
  int64_t n = buf.splat ? 1 : buf.numElements();
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> values;
    values.reserve(n);
    for (int64_t k = 0; k < n; ++k) {
      APFloat v(buf.f[k]);
      bool losesInfo;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      values.push_back(v);
    }
    return DenseElementsAttr::get(buf.type, values);
  }
  if (et.isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t k = 0; k < n; ++k)
      values.push_back(buf.i[k] != 0);
    return DenseElementsAttr::get(buf.type, values);
  }
  unsigned width = et.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t k = 0; k < n; ++k)
    values.push_back(APInt(64, static_cast<uint64_t>(buf.i[k])).trunc(width));
  return DenseElementsAttr::get(buf.type, values);
}

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Flat index into `src` of flat element `flat` of `dst`, where `src`
/// broadcasts to `dst` with numpy rules.
int64_t broadcastIndex(int64_t flat, ArrayRef<int64_t> dst,
                       ArrayRef<int64_t> src) {
  int64_t off = dst.size() - src.size();
  int64_t result = 0, stride = 1;
  for (int64_t d = static_cast<int64_t>(dst.size()) - 1; d >= 0; --d) {
    int64_t idx = flat % dst[d];
    flat /= dst[d];
    int64_t sd = d - off;
    if (sd < 0)
      continue;
    if (src[sd] != 1)
      result += idx * stride;
    stride *= src[sd];
  }
  return result;
}

/// Result whose element `k` is `in`'s element `srcIndex(k)`.
Buffer gather(const Buffer &in, RankedTensorType type,
              function_ref<int64_t(int64_t)> srcIndex) {
  Buffer out(type);
  if (in.splat) {
    out.splat = true;
    out.f = in.f;
    out.i = in.i;
    return out;
  }
  out.allocate();
  for (int64_t k = 0, n = out.numElements(); k < n; ++k) {
    if (out.isFloat())
      out.f[k] = in.fAt(srcIndex(k));
    else
      out.i[k] = in.iAt(srcIndex(k));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// NaN-propagating maximum with -0 < +0 (`arith.maximumf`).
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// NaN-propagating minimum with -0 < +0 (`arith.minimumf`).
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

std::optional<std::function<double(double)>> unaryFn(Operation *op) {
  using Fn = std::function<double(double)>;
  return llvm::TypeSwitch<Operation *, std::optional<Fn>>(op)
      .Case([](NegOp) { return Fn([](double x) { return -x; }); })
      .Case([](ExpOp) { return Fn([](double x) { return std::exp(x); }); })
      .Case([](LogOp) { return Fn([](double x) { return std::log(x); }); })
      .Case([](TanhOp) { return Fn([](double x) { return std::tanh(x); }); })
      .Case([](ErfOp) { return Fn([](double x) { return std::erf(x); }); })
      .Case([](AbsOp) { return Fn([](double x) { return std::fabs(x); }); })
      .Case([](FloorOp) { return Fn([](double x) { return std::floor(x); }); })
      .Case([](CeilOp) { return Fn([](double x) { return std::ceil(x); }); })
      // Halves to even: nearbyint in the default rounding mode.
      .Case([](RoundOp) { return Fn([](double x) { return std::nearbyint(x); }); })
      .Case([](SinOp) { return Fn([](double x) { return std::sin(x); }); })
      .Case([](CosOp) { return Fn([](double x) { return std::cos(x); }); })
      .Case([](AcosOp) { return Fn([](double x) { return std::acos(x); }); })
      .Case([](AsinOp) { return Fn([](double x) { return std::asin(x); }); })
      .Case([](AtanOp) { return Fn([](double x) { return std::atan(x); }); })
      .Case([](SqrtOp) { return Fn([](double x) { return std::sqrt(x); }); })
      .Case([](RsqrtOp) {
        return Fn([](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([](ReciprocalOp) { return Fn([](double x) { return 1.0 / x; }); })
      .Case([](SigmoidOp) { return Fn(sigmoid); })
      .Case([](ReluOp) {
        return Fn([](double x) { return std::isnan(x) ? x : maximum(x, 0.0); });
      })
      .Case([](SiluOp) { return Fn([](double x) { return x * sigmoid(x); }); })
      .Case([](GeluOp op) {
        if (op.getApproximate() == GeluApproximation::Tanh)
          return Fn([](double x) {
            double c = std::sqrt(2.0 / M_PI);
            return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
          });
        return Fn([](double x) {
          return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        });
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<std::function<double(double, double)>> binaryFn(Operation *op) {
  using Fn = std::function<double(double, double)>;
  return llvm::TypeSwitch<Operation *, std::optional<Fn>>(op)
      .Case([](AddOp) { return Fn([](double a, double b) { return a + b; }); })
      .Case([](SubOp) { return Fn([](double a, double b) { return a - b; }); })
      .Case([](MulOp) { return Fn([](double a, double b) { return a * b; }); })
      .Case([](DivOp) { return Fn([](double a, double b) { return a / b; }); })
      .Case([](RemOp) {
        return Fn([](double a, double b) { return std::fmod(a, b); });
      })
      .Case([](PowOp) {
        return Fn([](double a, double b) { return std::pow(a, b); });
      })
      .Case([](MaxOp) { return Fn(maximum); })
      .Case([](MinOp) { return Fn(minimum); })
      .Default([](Operation *) { return std::nullopt; });
}

Buffer evalUnary(const Buffer &in, RankedTensorType type,
                 const std::function<double(double)> &fn) {
  Buffer out(type);
  out.splat = in.splat;
  for (int64_t k = 0, n = in.splat ? 1 : in.numElements(); k < n; ++k)
    out.f.push_back(fn(in.f[k]));
  return out;
}

Buffer evalBinary(const Buffer &lhs, const Buffer &rhs, RankedTensorType type,
                  const std::function<double(double, double)> &fn) {
  Buffer out(type);
  if (lhs.splat && rhs.splat) {
    out.splat = true;
    out.f.push_back(fn(lhs.f[0], rhs.f[0]));
    return out;
  }
  out.allocate();
  for (int64_t k = 0, n = out.numElements(); k < n; ++k)
    out.f[k] = fn(lhs.fAt(broadcastIndex(k, out.shape(), lhs.shape())),
                  rhs.fAt(broadcastIndex(k, out.shape(), rhs.shape())));
  return out;
}

/// `llm.cast` of one element: float to integer truncates toward zero and
/// saturates (NaN gives 0); anything to `i1` compares with zero; integer to
/// integer wraps (two's complement); to float rounds to nearest (in toAttr).
void castElement(const Buffer &in, int64_t k, Buffer &out, int64_t j) {
  Type to = out.type.getElementType();
  if (out.isFloat()) {
    if (in.isFloat()) {
      out.f[j] = in.fAt(k);
      return;
    }
    // Round the integer once, straight into the element type (going through
    // f64 would round i64 values above 2^53 twice).
    APFloat v(cast<FloatType>(to).getFloatSemantics());
    v.convertFromAPInt(APInt(64, static_cast<uint64_t>(in.iAt(k))),
                       /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
    out.f[j] = toDouble(v);
    return;
  }
  if (to.isInteger(1)) {
    out.i[j] = in.at(k) != 0.0;
    return;
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (!in.isFloat()) {
    out.i[j] =
        APInt(64, static_cast<uint64_t>(in.iAt(k))).trunc(width).getSExtValue();
    return;
  }
  double v = in.fAt(k);
  if (std::isnan(v)) {
    out.i[j] = 0;
    return;
  }
  APSInt result(width, /*isUnsigned=*/false);
  bool isExact;
  APFloat(std::trunc(v))
      .convertToInteger(result, APFloat::rmTowardZero, &isExact);
  out.i[j] = result.getSExtValue();
}

//===----------------------------------------------------------------------===//
// Structured ops
//===----------------------------------------------------------------------===//

Buffer evalMatmul(MatmulOp op, const Buffer &a, const Buffer &b,
                  RankedTensorType type) {
  Buffer out(type);
  out.allocate();
  ArrayRef<int64_t> as = a.shape(), bs = b.shape(), os = type.getShape();
  int64_t ar = as.size(), orank = os.size();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t m = os[orank - 2], n = os[orank - 1];
  int64_t kk = ta ? as[ar - 2] : as[ar - 1];
  ArrayRef<int64_t> outBatch = os.drop_back(2);
  int64_t batches = 1;
  for (int64_t d : outBatch)
    batches *= d;
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t aBase = broadcastIndex(bi, outBatch, as.drop_back(2)) * m * kk;
    int64_t bBase = broadcastIndex(bi, outBatch, bs.drop_back(2)) * kk * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < kk; ++p)
          acc += a.fAt(aBase + (ta ? p * m + i : i * kk + p)) *
                 b.fAt(bBase + (tb ? j * kk + p : p * n + j));
        out.f[(bi * m + i) * n + j] = acc;
      }
  }
  return out;
}

Buffer evalConcat(ConcatOp op, ArrayRef<Buffer> inputs, RankedTensorType type) {
  Buffer out(type);
  out.allocate();
  int64_t rank = type.getRank();
  int64_t axis = *normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
  SmallVector<int64_t> outStrides = stridesOf(type.getShape());
  int64_t offset = 0;
  for (const Buffer &in : inputs) {
    ArrayRef<int64_t> shape = in.shape();
    for (int64_t k = 0, n = in.numElements(); k < n; ++k) {
      int64_t rest = k, dst = 0;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t idx = rest % shape[d];
        rest /= shape[d];
        dst += (d == axis ? idx + offset : idx) * outStrides[d];
      }
      if (out.isFloat())
        out.f[dst] = in.fAt(k);
      else
        out.i[dst] = in.iAt(k);
    }
    offset += shape[axis];
  }
  return out;
}

enum class ReduceKind { Sum, Mean, Max };

Buffer evalReduce(const Buffer &in, ArrayRef<int64_t> axes, ReduceKind kind,
                  RankedTensorType type) {
  ArrayRef<int64_t> shape = in.shape();
  int64_t rank = shape.size();
  SmallVector<bool> reduced(rank, false);
  int64_t count = 1;
  for (int64_t a : axes) {
    int64_t d = *normalizeAxis(a, rank);
    reduced[d] = true;
    count *= shape[d];
  }
  // Output strides over the kept dimensions (keepdims does not change them).
  SmallVector<int64_t> keptStrides(rank, 0);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d)
    if (!reduced[d]) {
      keptStrides[d] = s;
      s *= shape[d];
    }
  auto keptIndex = [&](int64_t k) {
    int64_t rest = k, dst = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      dst += (rest % shape[d]) * keptStrides[d];
      rest /= shape[d];
    }
    return dst;
  };
  Buffer out(type);
  if (!out.isFloat()) {
    // i8/i32/i64 (sum and max; no integer mean): sums wrap modulo 2^width
    // as the lowering's arith.addi does, maxima start at the type's lowest.
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    out.i.assign(type.getNumElements(),
                 kind == ReduceKind::Max
                     ? APInt::getSignedMinValue(width).getSExtValue()
                     : 0);
    for (int64_t k = 0, n = in.numElements(); k < n; ++k) {
      int64_t &o = out.i[keptIndex(k)];
      o = kind == ReduceKind::Max
              ? std::max(o, in.iAt(k))
              : APInt(64, static_cast<uint64_t>(o) +
                              static_cast<uint64_t>(in.iAt(k)))
                    .trunc(width)
                    .getSExtValue();
    }
    return out;
  }
  double init =
      kind == ReduceKind::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  out.f.assign(type.getNumElements(), init);
  for (int64_t k = 0, n = in.numElements(); k < n; ++k) {
    double v = in.fAt(k);
    double &o = out.f[keptIndex(k)];
    o = kind == ReduceKind::Max ? maximum(o, v) : o + v;
  }
  if (kind == ReduceKind::Mean)
    for (double &v : out.f)
      v /= static_cast<double>(count);
  return out;
}

/// Splits `shape` at `axis` into (outer, length, inner) element counts.
std::tuple<int64_t, int64_t, int64_t> splitAt(ArrayRef<int64_t> shape,
                                              int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  return {outer, shape[axis], inner};
}

Buffer evalSoftmax(SoftmaxOp op, const Buffer &in) {
  Buffer out(in.type);
  out.allocate();
  int64_t axis =
      *normalizeAxis(static_cast<int64_t>(op.getAxis()), in.type.getRank());
  int64_t outer, len, inner;
  std::tie(outer, len, inner) = splitAt(in.shape(), axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto idx = [&](int64_t a) { return (o * len + a) * inner + i; };
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t a = 0; a < len; ++a)
        mx = maximum(mx, in.fAt(idx(a)));
      double sum = 0.0;
      for (int64_t a = 0; a < len; ++a)
        sum += std::exp(in.fAt(idx(a)) - mx);
      for (int64_t a = 0; a < len; ++a)
        out.f[idx(a)] = std::exp(in.fAt(idx(a)) - mx) / sum;
    }
  return out;
}

Buffer evalLayerNorm(LayerNormOp op, const Buffer &in, const Buffer *scale,
                     const Buffer *bias) {
  Buffer out(in.type);
  out.allocate();
  int64_t rank = in.type.getRank();
  int64_t axis = *normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
  int64_t inner = 1;
  for (int64_t d = axis; d < rank; ++d)
    inner *= in.shape()[d];
  int64_t outer = in.numElements() / std::max<int64_t>(inner, 1);
  double eps = op.getEpsilon().convertToFloat();
  for (int64_t o = 0; o < outer; ++o) {
    int64_t base = o * inner;
    double mean = 0.0, var = 0.0;
    for (int64_t k = 0; k < inner; ++k)
      mean += in.fAt(base + k);
    mean /= inner;
    for (int64_t k = 0; k < inner; ++k) {
      double c = in.fAt(base + k) - mean;
      var += c * c;
    }
    var /= inner;
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t k = 0; k < inner; ++k) {
      int64_t flat = base + k;
      double y = (in.fAt(flat) - mean) * inv;
      if (scale)
        y *= scale->fAt(broadcastIndex(flat, in.shape(), scale->shape()));
      if (bias)
        y += bias->fAt(broadcastIndex(flat, in.shape(), bias->shape()));
      out.f[flat] = y;
    }
  }
  return out;
}

Buffer evalRmsNorm(RmsNormOp op, const Buffer &in, const Buffer *weight) {
  Buffer out(in.type);
  out.allocate();
  int64_t d = in.shape().back();
  int64_t rows = in.numElements() / std::max<int64_t>(d, 1);
  double eps = op.getEpsilon().convertToFloat();
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0.0;
    for (int64_t k = 0; k < d; ++k)
      ms += in.fAt(r * d + k) * in.fAt(r * d + k);
    double inv = 1.0 / std::sqrt(ms / d + eps);
    for (int64_t k = 0; k < d; ++k)
      out.f[r * d + k] =
          in.fAt(r * d + k) * inv * (weight ? weight->fAt(k) : 1);
  }
  return out;
}

/// Angles follow the op's definition in f32, as the lowering computes them:
/// `inv_freq[i] = theta^(-2i/R)` (R = rotary_dims, else D) evaluated in f64
/// and rounded to f32, and `a = p * inv_freq[i]` in f32, before cos/sin (in
/// f64); columns from R on are copied. (powf's last-ulp error in inv_freq,
/// times a position of 1e5, moved results by 2e-4.)
Buffer evalRope(RopeOp op, const Buffer &in, const Buffer &pos) {
  Buffer out(in.type);
  out.allocate();
  ArrayRef<int64_t> shape = in.shape();
  int64_t d = shape.back(), rotated = op.getRotatedDims(), half = rotated / 2;
  ArrayRef<int64_t> rowShape = shape.drop_back();
  int64_t rows = in.numElements() / std::max<int64_t>(d, 1);
  float theta = op.getTheta().convertToFloat();
  bool interleaved = op.getMode() == RopeMode::Interleaved;
  for (int64_t r = 0; r < rows; ++r) {
    float p =
        static_cast<float>(pos.iAt(broadcastIndex(r, rowShape, pos.shape())));
    for (int64_t i = 0; i < half; ++i) {
      float invFreq = static_cast<float>(std::pow(
          static_cast<double>(theta),
          -2.0 * static_cast<double>(i) / static_cast<double>(rotated)));
      float angle = p * invFreq;
      double c = std::cos(static_cast<double>(angle));
      double s = std::sin(static_cast<double>(angle));
      int64_t iu = r * d + (interleaved ? 2 * i : i);
      int64_t iv = r * d + (interleaved ? 2 * i + 1 : i + half);
      double u = in.fAt(iu), v = in.fAt(iv);
      out.f[iu] = u * c - v * s;
      out.f[iv] = v * c + u * s;
    }
    for (int64_t k = rotated; k < d; ++k)
      out.f[r * d + k] = in.fAt(r * d + k);
  }
  return out;
}

/// Fails (the op stays, and its run-time index check reports the id) when
/// an id lies outside [-V, V).
FailureOr<Buffer> evalEmbedding(const Buffer &table, const Buffer &ids,
                                RankedTensorType type) {
  int64_t v = table.shape()[0], d = table.shape()[1];
  for (int64_t k = 0, n = ids.numElements(); k < n; ++k)
    if (ids.iAt(k) < -v || ids.iAt(k) >= v)
      return failure();
  Buffer out(type);
  out.allocate();
  for (int64_t k = 0, n = ids.numElements(); k < n; ++k) {
    int64_t id = ids.iAt(k);
    if (id < 0)
      id += v;
    for (int64_t j = 0; j < d; ++j)
      out.f[k * d + j] = table.fAt(id * d + j);
  }
  return out;
}

/// Evaluates `op` on constant operands, or fails for ops it does not handle.
FailureOr<Buffer> evaluate(Operation *op, ArrayRef<Buffer> in,
                           RankedTensorType type) {
  // Quantized reduce_max is left to the lowering (llm-fold-quant moves it
  // past its dequantize first).
  if (isa<ReduceMaxOp>(op) && !type.getElementType().isIntOrFloat())
    return failure();
  // Integer arithmetic (add, div, ...) is left to the lowering: the
  // elementwise evaluators below compute in double.
  bool isFloat = isa<FloatType>(type.getElementType());
  if (!isFloat && (unaryFn(op) || binaryFn(op)))
    return failure();
  if (auto fn = unaryFn(op))
    return evalUnary(in[0], type, *fn);
  if (auto fn = binaryFn(op))
    return evalBinary(in[0], in[1], type, *fn);
  return llvm::TypeSwitch<Operation *, FailureOr<Buffer>>(op)
      .Case([&](MatmulOp m) { return evalMatmul(m, in[0], in[1], type); })
      .Case([&](TransposeOp t) {
        ArrayRef<int64_t> perm = t.getPermutation();
        SmallVector<int64_t> inStrides = stridesOf(in[0].shape());
        ArrayRef<int64_t> outShape = type.getShape();
        return gather(in[0], type, [&](int64_t k) {
          int64_t src = 0;
          for (int64_t d = outShape.size() - 1; d >= 0; --d) {
            src += (k % outShape[d]) * inStrides[perm[d]];
            k /= outShape[d];
          }
          return src;
        });
      })
      .Case([&](ReshapeOp) {
        return gather(in[0], type, [](int64_t k) { return k; });
      })
      .Case([&](BroadcastToOp) {
        return gather(in[0], type, [&](int64_t k) {
          return broadcastIndex(k, type.getShape(), in[0].shape());
        });
      })
      .Case([&](SliceOp s) {
        ArrayRef<int64_t> starts = s.getStarts(), strides = s.getStrides();
        SmallVector<int64_t> inStrides = stridesOf(in[0].shape());
        ArrayRef<int64_t> outShape = type.getShape();
        return gather(in[0], type, [&](int64_t k) {
          int64_t src = 0;
          for (int64_t d = outShape.size() - 1; d >= 0; --d) {
            src += (starts[d] + (k % outShape[d]) * strides[d]) * inStrides[d];
            k /= outShape[d];
          }
          return src;
        });
      })
      .Case([&](CastOp) {
        Buffer out(type);
        out.splat = in[0].splat;
        int64_t n = out.splat ? 1 : out.numElements();
        if (out.isFloat())
          out.f.assign(n, 0.0);
        else
          out.i.assign(n, 0);
        for (int64_t k = 0; k < n; ++k)
          castElement(in[0], k, out, k);
        return out;
      })
      .Case([&](ConcatOp c) { return evalConcat(c, in, type); })
      .Case([&](ReduceSumOp r) {
        return evalReduce(in[0], r.getAxes(), ReduceKind::Sum, type);
      })
      .Case([&](ReduceMeanOp r) {
        return evalReduce(in[0], r.getAxes(), ReduceKind::Mean, type);
      })
      .Case([&](ReduceMaxOp r) {
        return evalReduce(in[0], r.getAxes(), ReduceKind::Max, type);
      })
      .Case([&](SoftmaxOp s) { return evalSoftmax(s, in[0]); })
      .Case([&](LayerNormOp l) {
        const Buffer *scale = nullptr, *bias = nullptr;
        size_t next = 1;
        if (l.getScale())
          scale = &in[next++];
        if (l.getBias())
          bias = &in[next++];
        return evalLayerNorm(l, in[0], scale, bias);
      })
      .Case([&](RmsNormOp r) {
        return evalRmsNorm(r, in[0], r.getWeight() ? &in[1] : nullptr);
      })
      .Case([&](RopeOp r) { return evalRope(r, in[0], in[1]); })
      .Case([&](EmbeddingOp) { return evalEmbedding(in[0], in[1], type); })
      .Default([](Operation *) { return failure(); });
}

/// Ops whose result is a splat when every operand is one.
bool preservesSplat(Operation *op) {
  return unaryFn(op) || binaryFn(op) ||
         isa<TransposeOp, ReshapeOp, BroadcastToOp, SliceOp, CastOp>(op);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// op(constant...) -> constant(value of op), for llm ops with one statically
/// shaped result whose operands are all constants, when the size policy
/// allows it.
struct FoldConstantOperands final : RewritePattern {
  FoldConstantOperands(MLIRContext *ctx, const ConstantFoldingOptions &options)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        options(options) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<LLMDialect>(op->getDialect()) || isa<ConstantOp>(op) ||
        op->getNumResults() != 1 || op->getNumOperands() == 0)
      return rewriter.notifyMatchFailure(op, "not a foldable llm op");
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic result");
    SmallVector<ElementsAttr> attrs;
    int64_t operandSize = 0;
    bool allSplat = true;
    for (Value v : op->getOperands()) {
      ElementsAttr attr;
      if (!matchPattern(v, m_Constant(&attr)))
        return rewriter.notifyMatchFailure(op, "non-constant operand");
      attrs.push_back(attr);
      operandSize += storedElements(attr);
      allSplat &= attr.isSplat();
    }

    // reshape(constant) -> constant: a resource blob is reused under the new
    // type and a dense attribute is re-typed, both without evaluation.
    if (isa<ReshapeOp>(op)) {
      if (auto res = dyn_cast<DenseResourceElementsAttr>(attrs[0])) {
        replace(op, rewriter,
                DenseResourceElementsAttr::get(type, res.getRawHandle()));
        return success();
      }
      if (auto dense = dyn_cast<DenseElementsAttr>(attrs[0])) {
        replace(op, rewriter, dense.reshape(type));
        return success();
      }
    }

    int64_t resultSize =
        allSplat && preservesSplat(op) ? 1 : type.getNumElements();
    if (resultSize > options.maxResultElements ||
        static_cast<double>(resultSize) >
            options.maxGrowthFactor *
                static_cast<double>(std::max<int64_t>(operandSize, 1)))
      return rewriter.notifyMatchFailure(op, "result too large");

    SmallVector<Buffer> buffers;
    for (ElementsAttr attr : attrs) {
      FailureOr<Buffer> buf = readConstant(attr);
      if (failed(buf))
        return rewriter.notifyMatchFailure(op, "unreadable constant");
      buffers.push_back(std::move(*buf));
    }
    FailureOr<Buffer> result = evaluate(op, buffers, type);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "op not evaluated");
    replace(op, rewriter, toAttr(*result));
    return success();
  }

  static void replace(Operation *op, PatternRewriter &rewriter,
                      ElementsAttr value) {
    rewriter.replaceOpWithNewOp<ConstantOp>(op, value.getType(), value);
  }

  ConstantFoldingOptions options;
};

} // namespace

void mlir::llm::populateConstantFoldingPatterns(
    RewritePatternSet &patterns, const ConstantFoldingOptions &options) {
  patterns.add<FoldConstantOperands>(patterns.getContext(), options);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LLMFoldConstantsPass final
    : mlir::llm::impl::LLMFoldConstantsPassBase<LLMFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "max-result-elements",
                                           maxResultElements)))
      return signalPassFailure();
    // Also refuses NaN (no comparison holds).
    if (!(maxGrowthFactor >= 0)) {
      emitError(getOperation()->getLoc())
          << getArgument() << ": max-growth-factor must be at least 0, got "
          << static_cast<double>(maxGrowthFactor);
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    ConstantFoldingOptions options;
    options.maxResultElements = maxResultElements;
    options.maxGrowthFactor = maxGrowthFactor;
    populateConstantFoldingPatterns(patterns, options);
    if (fastMath)
      populateFastMathSimplificationPatterns(patterns);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      if (name.getDialectNamespace() == LLMDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, ctx);
    // Like -canonicalize, a rewrite that does not converge is not an error.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
