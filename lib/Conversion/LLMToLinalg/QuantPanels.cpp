//===- QuantPanels.cpp - Weight-only prefill on dequantized panels --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The prefill kernel of `llm.dequant_matmul` and the exact integer panels of
// `llm.matmul_integer`: x @ dequantize(w) over panels of w dequantized into
// the cache, never a dequantized copy of the whole weight.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"
#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::detail;

namespace {

/// Output channels (N) per block of buildPanelDequantMatmul (one block per
/// parallel iteration).
constexpr int64_t kPanelN = 128;
/// Elements of K per dequantized panel ([kPanelK, kPanelN] f32: 128 KiB).
constexpr int64_t kPanelK = 256;
/// The deepest single panel taken when K has no divisor near kPanelK
/// ([kMaxPanelK, kPanelN] f32: 2 MiB).
constexpr int64_t kMaxPanelK = 4096;

/// A static block size for `size` elements: `size` itself when it is at
/// most `limit`; else the largest multiple of `step` that divides `size`
/// and is at most `limit`; else the largest divisor of `size` in
/// [limit / 4, limit]; else 0 (none).
int64_t getPanelSize(int64_t size, int64_t limit, int64_t step) {
  if (size <= limit)
    return size;
  for (int64_t s = limit / step * step; s >= step; s -= step)
    if (size % s == 0)
      return s;
  for (int64_t s = limit; s >= std::max<int64_t>(limit / 4, 1); --s)
    if (size % s == 0)
      return s;
  return 0;
}

/// The storage of a weight as the panel kernel reads it: `[K, N]` bytes
/// (rows of N output channels), or for 4-bit weights `[K / 2, N]` bytes
/// with element `2i` of K in the low nibble of row `i` and element `2i + 1`
/// in the high nibble (signed nibbles biased to `q + 8`, see readNibbles).
/// An 8-bit weight stored `[K, N]` is read as it is; other constant weights
/// are rearranged at compile time (transposed when stored `[N, K]`). Fails
/// otherwise (runtime weights stored `[N, K]`, runtime 4-bit weights).
FailureOr<Value> getPanelStorage(OpBuilder &b, Location loc, Value wq,
                                 int64_t K, int64_t N, bool transposeB,
                                 const QuantParams &p) {
  auto at = [&](ArrayRef<uint8_t> v, int64_t k, int64_t n) {
    return transposeB ? v[n * K + k] : v[k * N + n];
  };
  SmallVector<char> out;
  int64_t rows = K;
  if (p.storageWidth == 4) {
    FailureOr<SmallVector<uint8_t>> v =
        readNibbles(wq, transposeB ? N : K, transposeB ? K : N, p.isSigned);
    if (failed(v) || K % 2)
      return failure();
    rows = K / 2;
    out.resize(rows * N);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t n = 0; n < N; ++n)
        out[i * N + n] = char(at(*v, 2 * i, n) | (at(*v, 2 * i + 1, n) << 4));
  } else if (p.storageWidth == 8) {
    // A [K, N] weight: its storage as it is.
    if (!transposeB)
      return storageCast(b, loc, wq,
                         RankedTensorType::get({K, N}, p.storageType));
    FailureOr<SmallVector<uint8_t>> v = readBytes(wq, K * N);
    if (failed(v))
      return failure();
    out.resize(K * N);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        out[k * N + n] = char(at(*v, k, n));
  } else {
    return failure();
  }
  auto t = RankedTensorType::get({rows, N}, b.getI8Type());
  return arith::ConstantOp::create(
             b, loc,
             DenseElementsAttr::getFromRawBuffer(t, ArrayRef<char>(out)))
      .getResult();
}

} // namespace

FailureOr<Value> mlir::llm::detail::buildPanelDequantMatmul(
    OpBuilder &b, Location loc, Value x, Value wq, bool transposeB,
    const QuantParams &p, RankedTensorType resultType, bool integerAccumulate) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  // The rows of x may be the dynamic sequence (a prefill), not K.
  if (!xt.getElementType().isF32() || xt.getRank() < 2 ||
      xt.isDynamicDim(xt.getRank() - 1) || wt.getRank() != 2 ||
      !wt.hasStaticShape())
    return failure();
  bool dynamicRows = !xt.hasStaticShape();
  if (dynamicRows && integerAccumulate)
    return failure();
  int64_t kDim = transposeB ? 1 : 0, nDim = 1 - kDim;
  int64_t K = wt.getDimSize(kDim), N = wt.getDimSize(nDim);
  // Static rows, or 1 as a placeholder for the checks below when dynamic.
  int64_t rows =
      dynamicRows ? 1 : xt.getNumElements() / std::max<int64_t>(K, 1);
  bool packed4 = p.storageWidth == 4;
  // Blocks of N: a divisor of N, else kPanelN and a narrower last block.
  int64_t nc = getPanelSize(N, kPanelN, 16);
  if (nc == 0)
    nc = kPanelN;
  int64_t kc = getPanelSize(K, kPanelK, packed4 ? 2 : 1);
  // K without a divisor near kPanelK (a prime K would make one-row panels,
  // each a matmul of depth 1): one panel of all of K up to kMaxPanelK (the
  // integer panels must stay at most kPanelK deep to be exact).
  if (kc > 0 && 4 * kc < kPanelK && !integerAccumulate && K <= kMaxPanelK &&
      !(packed4 && K % 2))
    kc = K;
  if (integerAccumulate && (packed4 || p.storageWidth != 8))
    return failure();
  if (xt.getShape().back() != K || K == 0 || N == 0 || rows == 0 || nc == 0 ||
      kc == 0 || (packed4 && (kc % 2 || (K / p.paramShape[kDim]) % 2)))
    return failure();
  FailureOr<Value> storage = getPanelStorage(b, loc, wq, K, N, transposeB, p);
  if (failed(storage))
    return failure();
  Value w = *storage;
  // Groups along K (1: per channel or per tensor), parameters along N (1 or
  // N): scales and zero points laid out [kb, N or 1]. Nibbles biased to
  // `q + 8` get their zero points raised by 8.
  int64_t kb = p.paramShape[kDim], nParams = p.paramShape[nDim];
  int64_t G = K / kb;
  int64_t zShift = packed4 && p.isSigned ? 8 : 0;
  SmallVector<float> s(kb * nParams);
  SmallVector<int32_t> z(kb * nParams);
  for (int64_t g = 0; g < kb; ++g)
    for (int64_t n = 0; n < nParams; ++n) {
      int64_t i = transposeB ? n * kb + g : g * nParams + n;
      s[g * nParams + n] =
          integerAccumulate ? 1.0f : float(p.scales[p.isPerTensor() ? 0 : i]);
      z[g * nParams + n] =
          int32_t(p.zeroPoints[p.isPerTensor() ? 0 : i] + zShift);
    }
  auto pt = RankedTensorType::get({kb, nParams}, b.getF32Type());
  Value scales = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(pt, ArrayRef<float>(s)));
  Value zeros = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(pt.clone(b.getI32Type()), ArrayRef<int32_t>(z)));

  // x as [rows, K].
  Value x2 = llm::detail::collapseRows(b, loc, x);
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  // The number of rows: static, or read from x at run time.
  OpFoldResult rowCount = ofr(rows);
  if (dynamicRows)
    rowCount = tensor::DimOp::create(b, loc, x2, 0).getResult();
  auto rowsEmpty = [&](OpBuilder &eb, Location l, int64_t cols, Type elem) {
    if (!dynamicRows)
      return tensor::EmptyOp::create(eb, l, ArrayRef<int64_t>{rows, cols},
                                     elem);
    return tensor::EmptyOp::create(
        eb, l, ArrayRef<int64_t>{ShapedType::kDynamic, cols}, elem,
        ValueRange{getValueOrCreateConstantIndexOp(eb, l, rowCount)});
  };
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  OpBuilder::InsertionGuard guard(b);
  Type accElem = integerAccumulate ? i32 : f32;
  // C[rows, width] of the block of `width` output channels at n0, built at
  // b's insertion point: the loop over the panels of K.
  auto buildBlock = [&](Value n0, int64_t width) -> Value {
    auto rowType = VectorType::get({width}, f32);
    auto rowI32 = VectorType::get({width}, i32);
    auto rowI8 = VectorType::get({width}, b.getI8Type());
    auto zeroFill = [&](OpBuilder &fb, Location l, Type elem) {
      Value e = rowsEmpty(fb, l, width, elem);
      Value zero = elem.isF32() ? f32Const(fb, l, 0) : i32Const(fb, l, 0);
      return linalg::FillOp::create(fb, l, ValueRange{zero}, ValueRange{e})
          .getResult(0);
    };
    Value acc = zeroFill(b, loc, accElem);
    Value pad8 =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getI8Type(), 0));
    Value padF = f32Const(b, loc, 0);
    Value padI = i32Const(b, loc, 0);
    auto panels = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, K), idx(b, kc), ValueRange{acc},
        [&](OpBuilder &pb, Location l, Value k0, ValueRange accs) {
          // The row of scales and zero points of element k of K, over the
          // block's channels (broadcast when they do not vary along N).
          auto params = [&](OpBuilder &rb, Value k) -> std::pair<Value, Value> {
            Value g =
                kb == 1
                    ? idx(rb, 0)
                    : arith::DivUIOp::create(rb, l, k, idx(rb, G)).getResult();
            if (nParams == 1) {
              Value sv = tensor::ExtractOp::create(rb, l, scales,
                                                   ValueRange{g, idx(rb, 0)});
              Value zv = tensor::ExtractOp::create(rb, l, zeros,
                                                   ValueRange{g, idx(rb, 0)});
              return {vector::BroadcastOp::create(rb, l, rowType, sv),
                      vector::BroadcastOp::create(rb, l, rowI32, zv)};
            }
            return {vector::TransferReadOp::create(rb, l, rowType, scales,
                                                   ValueRange{g, n0}, padF,
                                                   ArrayRef<bool>{true}),
                    vector::TransferReadOp::create(rb, l, rowI32, zeros,
                                                   ValueRange{g, n0}, padI,
                                                   ArrayRef<bool>{true})};
          };
          // A panel inside one group (or per channel / per tensor): its
          // parameters once, outside the row loop.
          std::optional<std::pair<Value, Value>> panelParams;
          if (kb == 1 || G % kc == 0)
            panelParams = params(pb, k0);
          // (q - z) * s on a row of the block's channels (q as i32).
          auto dequant = [&](OpBuilder &rb, Value q, Value k) {
            auto [sv, zv] = panelParams ? *panelParams : params(rb, k);
            Value d = arith::SubIOp::create(rb, l, q, zv);
            return arith::MulFOp::create(
                rb, l, arith::SIToFPOp::create(rb, l, rowType, d), sv);
          };
          Value panel0 =
              tensor::EmptyOp::create(pb, l, ArrayRef<int64_t>{kc, width}, f32);
          int64_t step = packed4 ? 2 : 1;
          auto fill = scf::ForOp::create(
              pb, l, idx(pb, 0), idx(pb, kc / step), idx(pb, 1),
              ValueRange{panel0},
              [&](OpBuilder &rb, Location, Value r, ValueRange panel) {
                Value k = arith::AddIOp::create(
                    rb, l, k0,
                    packed4 ? arith::MulIOp::create(rb, l, r, idx(rb, 2))
                                  .getResult()
                            : r);
                Value wrow = packed4
                                 ? arith::DivUIOp::create(rb, l, k, idx(rb, 2))
                                       .getResult()
                                 : k;
                Value bytes = vector::TransferReadOp::create(
                    rb, l, rowI8, w, ValueRange{wrow, n0}, pad8,
                    ArrayRef<bool>{true});
                Value prow = packed4
                                 ? arith::MulIOp::create(rb, l, r, idx(rb, 2))
                                       .getResult()
                                 : r;
                Value next = panel[0];
                if (!packed4) {
                  Value q = p.isSigned
                                ? arith::ExtSIOp::create(rb, l, rowI32, bytes)
                                      .getResult()
                                : arith::ExtUIOp::create(rb, l, rowI32, bytes)
                                      .getResult();
                  next = vector::TransferWriteOp::create(
                             rb, l, dequant(rb, q, k), next,
                             ValueRange{prow, idx(rb, 0)}, ArrayRef<bool>{true})
                             .getResult();
                } else {
                  // Elements 2i and 2i + 1 (one group: G is even).
                  Value wv = arith::ExtUIOp::create(rb, l, rowI32, bytes);
                  auto splat = [&](int64_t v) -> Value {
                    return arith::ConstantOp::create(
                        rb, l,
                        DenseElementsAttr::get(rowI32,
                                               rb.getIntegerAttr(i32, v)));
                  };
                  Value lo = arith::AndIOp::create(rb, l, wv, splat(0xF));
                  Value hi = arith::ShRUIOp::create(rb, l, wv, splat(4));
                  next = vector::TransferWriteOp::create(
                             rb, l, dequant(rb, lo, k), next,
                             ValueRange{prow, idx(rb, 0)}, ArrayRef<bool>{true})
                             .getResult();
                  Value prow1 = arith::AddIOp::create(rb, l, prow, idx(rb, 1));
                  next =
                      vector::TransferWriteOp::create(
                          rb, l, dequant(rb, hi, k), next,
                          ValueRange{prow1, idx(rb, 0)}, ArrayRef<bool>{true})
                          .getResult();
                }
                scf::YieldOp::create(rb, l, next);
              });
          Value xs = tensor::ExtractSliceOp::create(
              pb, l, x2, SmallVector<OpFoldResult>{pb.getIndexAttr(0), k0},
              SmallVector<OpFoldResult>{rowCount, pb.getIndexAttr(kc)}, unit);
          Value init = integerAccumulate ? zeroFill(pb, l, f32) : accs[0];
          auto mm = linalg::MatmulOp::create(pb, l, TypeRange{init.getType()},
                                             ValueRange{xs, fill.getResult(0)},
                                             ValueRange{init});
          mm->setAttr(kVectorizeInPlaceAttr, pb.getUnitAttr());
          if (!integerAccumulate) {
            scf::YieldOp::create(pb, l, mm->getResult(0));
            return;
          }
          // acc (i32) += the panel's exact f32 sums, one row at a time.
          auto add = scf::ForOp::create(
              pb, l, idx(pb, 0), idx(pb, rows), idx(pb, 1), ValueRange{accs[0]},
              [&](OpBuilder &ab, Location, Value m, ValueRange a) {
                Value c = vector::TransferReadOp::create(
                    ab, l, rowType, mm->getResult(0), ValueRange{m, idx(ab, 0)},
                    padF, ArrayRef<bool>{true});
                Value t = vector::TransferReadOp::create(
                    ab, l, rowI32, a[0], ValueRange{m, idx(ab, 0)}, padI,
                    ArrayRef<bool>{true});
                t = arith::AddIOp::create(
                    ab, l, t, arith::FPToSIOp::create(ab, l, rowI32, c));
                scf::YieldOp::create(
                    ab, l,
                    vector::TransferWriteOp::create(ab, l, t, a[0],
                                                    ValueRange{m, idx(ab, 0)},
                                                    ArrayRef<bool>{true})
                        .getResult());
              });
          scf::YieldOp::create(pb, l, add.getResult(0));
        });
    return panels.getResult(0);
  };

  // N without a panel divisor (a 50257-token LM head): blocks of kPanelN
  // channels in the parallel loop, and the last N % kPanelN channels as one
  // narrower block after it.
  int64_t blocks = N / nc, tail = N - blocks * nc;
  Value out = rowsEmpty(b, loc, N, accElem);
  auto forall = detail::createBlockLoop(b, loc, blocks, out);
  b.setInsertionPointToStart(forall.getBody());
  Value n0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nc));
  Value block = buildBlock(n0, nc);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, block, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), n0},
      SmallVector<OpFoldResult>{rowCount, ofr(nc)}, unit);
  b.setInsertionPointAfter(forall);
  if (tail) {
    Value last = buildBlock(idx(b, blocks * nc), tail);
    Value result = tensor::InsertSliceOp::create(
        b, loc, last, forall.getResult(0),
        SmallVector<OpFoldResult>{ofr(0), ofr(blocks * nc)},
        SmallVector<OpFoldResult>{rowCount, ofr(tail)}, unit);
    return llm::detail::expandRows(b, loc, result, resultType);
  }
  // Elementwise consumers (bias, activation, the W8A8 rescale and
  // requantize) are fused into the block loop by llm-tile-and-vectorize.
  forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  b.setInsertionPointAfter(forall);
  return llm::detail::expandRows(b, loc, forall.getResult(0), resultType);
}
