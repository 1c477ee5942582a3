//===- QuantMatvec.cpp - Weight-only decode matvec kernels ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The decode kernels of `llm.dequant_matmul` (a few rows of x, an 8- or 4-bit
// weight stored [N, K]): the f32 matvec over packed storage bytes and the
// AVX512-BF16 matvec over 4-bit weights, with the weight layouts they read.
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

/// Elements of K per step of the matvec kernel.
constexpr int64_t kMatvecChunk = 32;
/// The matvec kernels' block shapes for a streamed weight (read from DRAM on
/// every call: `streamed` in the op's `llm.lowering_config`, else at least
/// `LLMToLinalgOptions::streamedWeightMinBytes`): fewer weight rows per block
/// than the cache-tuned shapes. Measured on the Zen 5 machine of bench/quant
/// (1x4096 @ 4096x4096, caches evicted before each call): int8 one row per
/// block with 64-element chunks, int4 (AVX512-BF16 kernel) two rows, against
/// four and eight cache-tuned; see bench/quant/results.md.
constexpr int64_t kStreamedMatvecChunk = 64;
constexpr int64_t kStreamedMatvecRows8 = 1;
constexpr int64_t kStreamedMatvecRows4 = 2;
/// ... and the int4 kernel's loop over chunks unrolled by 4 (cold 0.41 ->
/// 0.39 ms on the same shape, warm unchanged).
constexpr int64_t kStreamedMatvecUnroll4 = 4;

} // namespace

FailureOr<SmallVector<uint8_t>>
mlir::llm::detail::readNibbles(Value w, int64_t n, int64_t k, bool isSigned) {
  auto cast = w.getDefiningOp<quant::StorageCastOp>();
  Attribute attr;
  if (!cast || !matchPattern(cast.getInput(), m_Constant(&attr)))
    return failure();
  SmallVector<uint8_t> values;
  values.reserve(n * k);
  uint8_t bias = isSigned ? 8 : 0;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(uint8_t(v.getZExtValue() & 0xF) ^ bias);
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || int64_t(blob->getData().size()) != n * k)
      return failure();
    for (char c : blob->getData())
      values.push_back((uint8_t(c) & 0xF) ^ bias);
  } else {
    return failure();
  }
  if (int64_t(values.size()) != n * k)
    return failure();
  return values;
}

namespace {

/// The 4-bit values of a constant weight (see readNibbles), packed two per
/// byte in the f32 matvec kernel's internal layout: within each block of 32
/// elements of a row (`kMatvecChunk`), byte `j` (0..15) holds element `j`
/// in its low nibble and element `j + 16` in its high nibble (the llama.cpp
/// Q4 arrangement, not the ONNX int4 / GPTQ order of the imported data), so
/// that one 16-byte load gives two contiguous runs of 16 elements with one
/// AND and one shift and no interleaving. Fails for non-constant weights
/// and when `k` is not a multiple of 32.
FailureOr<SmallVector<char>> packNibbles(Value w, int64_t n, int64_t k,
                                         bool isSigned) {
  FailureOr<SmallVector<uint8_t>> values = readNibbles(w, n, k, isSigned);
  constexpr int64_t half = kMatvecChunk / 2;
  if (failed(values) || k % kMatvecChunk != 0)
    return failure();
  SmallVector<char> packed(n * k / 2);
  for (int64_t b = 0, e = n * k; b < e; b += kMatvecChunk)
    for (int64_t j = 0; j < half; ++j)
      packed[b / 2 + j] =
          char((*values)[b + j] | ((*values)[b + half + j] << 4));
  return packed;
}

/// Weight rows per block of a matvec kernel: the largest power of two that
/// divides N and is at most max(1, budget / M) (R * M accumulators).
int64_t getMatvecBlockRows(int64_t N, int64_t M, int64_t budget) {
  for (int64_t r = std::max<int64_t>(1, budget / M); r > 1; r /= 2)
    if (N % r == 0)
      return r;
  return 1;
}

/// A row-major `[N, rowSize]` array interleaved by blocks of `R` rows, for a
/// matvec kernel that walks `R` rows at a time: the result is
/// `[N / R, R * rowSize]`, with
///   out[blk][c * R * chunk + r * chunk + j] = in[blk * R + r][c * chunk + j]
/// so that one block reads its rows' chunk c as one contiguous run, and the
/// whole block as one sequential stream (R rows read side by side are R
/// streams a page apart, which the hardware prefetchers follow worse: 15.7
/// against 24.6 GB/s for 4 rows of 4 KiB on the Zen 4 machine of
/// bench/quant). `chunk` divides `rowSize`.
template <typename T>
SmallVector<T> interleaveRows(ArrayRef<T> in, int64_t N, int64_t rowSize,
                              int64_t R, int64_t chunk) {
  SmallVector<T> out(in.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < rowSize; c += chunk)
      std::memcpy(&out[(n / R) * R * rowSize + c * R + (n % R) * chunk],
                  &in[n * rowSize + c], chunk * sizeof(T));
  return out;
}

/// The start of a matvec kernel: an `scf.forall` over the N / R blocks of
/// `R` weight rows with an [M, N] f32 output; `b`'s insertion point is left
/// at the start of its body (the caller holds an InsertionGuard).
struct MatvecBlock {
  scf::ForallOp forall;
  /// The block's first weight row, and its R rows.
  Value n0;
  SmallVector<Value> rows;
  /// A zero accumulator of `accType`, and an i8 zero (transfer padding).
  Value zeroAcc, pad8;
};
MatvecBlock beginMatvec(OpBuilder &b, Location loc, int64_t M, int64_t N,
                        int64_t R, VectorType accType) {
  MatvecBlock blk;
  Value out =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, N}, b.getF32Type());
  blk.forall = scf::ForallOp::create(
      b, loc, SmallVector<OpFoldResult>{b.getIndexAttr(N / R)}, ValueRange{out},
      std::nullopt);
  b.setInsertionPointToStart(blk.forall.getBody());
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  blk.n0 = arith::MulIOp::create(b, loc, blk.forall.getInductionVar(0), idx(R));
  for (int64_t r = 0; r < R; ++r)
    blk.rows.push_back(
        r == 0 ? blk.n0
               : arith::AddIOp::create(b, loc, blk.n0, idx(r)).getResult());
  blk.zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0)));
  blk.pad8 =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getI8Type(), 0));
  return blk;
}

/// Ends a matvec kernel's `scf.forall` over blocks of `R` weight rows
/// (`n0`: the block's first row): one horizontal sum of each vector
/// accumulator `acc[r * M + m]` (weight row r, x row m), the [M, R] tile
/// stored into the forall's [M, N] output, which is reshaped to
/// `resultType` (the leading dimensions of x, all 1 but the product M, and
/// N). The insertion point is after the kernel's loop in the forall body.
Value finishMatvec(OpBuilder &b, Location loc, scf::ForallOp forall, Value n0,
                   ValueRange acc, int64_t M, int64_t R,
                   RankedTensorType resultType) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tile =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, R}, b.getF32Type());
  for (int64_t m = 0; m < M; ++m) {
    SmallVector<Value> results;
    for (int64_t r = 0; r < R; ++r)
      results.push_back(vector::ReductionOp::create(
          b, loc, vector::CombiningKind::ADD, acc[r * M + m]));
    Value rv = vector::FromElementsOp::create(
        b, loc, VectorType::get({R}, b.getF32Type()), results);
    tile = vector::TransferWriteOp::create(b, loc, rv, tile,
                                           ValueRange{idx(m), idx(0)},
                                           ArrayRef<bool>{true})
               .getResult();
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{b.getIndexAttr(0), n0},
      SmallVector<OpFoldResult>{b.getIndexAttr(M), b.getIndexAttr(R)},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  b.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (resultType.getRank() == 2)
    return result;
  // [M, N] -> the result shape: the leading dimensions of x (all 1 but the
  // product M) and N.
  int64_t rank = resultType.getRank();
  if (rank == 1)
    return tensor::CollapseShapeOp::create(
               b, loc, resultType, result,
               SmallVector<ReassociationIndices>{{0, 1}})
        .getResult();
  SmallVector<ReassociationIndices> re{
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}};
  return tensor::ExpandShapeOp::create(b, loc, resultType, result, re)
      .getResult();
}

} // namespace

FailureOr<Value> mlir::llm::detail::buildDequantMatvec(
    OpBuilder &b, Location loc, Value x, Value wq, const QuantParams &p,
    RankedTensorType resultType, bool streamed) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  int64_t N = wt.getDimSize(0), K = wt.getDimSize(1);
  if (xt.getRank() < 1 || xt.getShape().back() != K ||
      !xt.getElementType().isF32())
    return failure();
  // Rows of x (a decode step, or a few rows of a prefill): each weight chunk
  // is unpacked once for all of them.
  int64_t M = xt.getNumElements() / K;
  if (M < 1 || M > kMatvecMaxRows)
    return failure();
  int64_t kb = p.paramShape[1], nParams = p.paramShape[0];
  int64_t G = K / kb, C = kMatvecChunk;
  // A streamed 8-bit weight: one row per block, with chunks of 64 elements
  // (4 accumulator registers per row of x) for one or two rows of x when
  // the groups allow.
  bool streamed8 = streamed && p.storageWidth == 8;
  if (streamed8 && M <= 2 && K % kStreamedMatvecChunk == 0 &&
      G % kStreamedMatvecChunk == 0)
    C = kStreamedMatvecChunk;
  if (K % C != 0 || G % C != 0 || (p.storageWidth != 8 && p.storageWidth != 4))
    return failure();
  bool packed4 = p.storageWidth == 4;
  // Weight rows per block: 8 for 4-bit weights (one vector<16xf32>
  // accumulator each; the x chunk's loads are shared by more rows), 4 for
  // 8-bit ones (vector<32xf32> accumulators: 2 registers each), divided by
  // the rows of x (R * M accumulators).
  int64_t R = getMatvecBlockRows(
      N, M, packed4 ? 8 : (streamed8 ? kStreamedMatvecRows8 : 4));
  // A constant weight is interleaved by blocks of R rows (interleaveRows:
  // [N / R, R * row bytes], chunk by chunk); a runtime 8-bit one is read
  // [N, K] as it is.
  Value w;
  bool blocked = true;
  int64_t chunkBytes = packed4 ? C / 2 : C, rowBytes = packed4 ? K / 2 : K;
  SmallVector<char> bytes;
  if (packed4) {
    FailureOr<SmallVector<char>> packed = packNibbles(wq, N, K, p.isSigned);
    if (failed(packed))
      return failure();
    bytes = std::move(*packed);
  } else if (FailureOr<SmallVector<uint8_t>> v = readBytes(wq, N * K);
             succeeded(v)) {
    bytes.assign(v->begin(), v->end());
  } else {
    blocked = false;
    w = storageCast(b, loc, wq, RankedTensorType::get({N, K}, p.storageType));
  }
  if (blocked)
    w = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::getFromRawBuffer(
            RankedTensorType::get({N / R, R * rowBytes}, b.getI8Type()),
            ArrayRef<char>(
                interleaveRows<char>(bytes, N, rowBytes, R, chunkBytes))));
  // x as a [M * K] vector source.
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()))};
  Value x1 = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({M * K}, b.getF32Type()), x, all);
  // Scales and zero points (as f32: small integers, exact) per [n, group].
  // Signed nibbles are stored as `q + 8` (packNibbles): their zero points
  // are raised by 8.
  double zShift = packed4 && p.isSigned ? 8.0 : 0.0;
  // Symmetric weights (every stored zero point 0, as int8 weights usually
  // are): no zero-point term, so no per-lane sums of x either.
  bool hasZeros = zShift != 0.0 ||
                  llvm::any_of(p.zeroPoints, [](int64_t z) { return z != 0; });
  Value scales, zeros;
  // Per-row parameters are interleaved like the weight: [N / R, kb * R].
  bool blockedParams = nParams != 1;
  if (!p.isPerTensor()) {
    auto st = blockedParams
                  ? RankedTensorType::get({N / R, kb * R}, b.getF32Type())
                  : RankedTensorType::get(p.paramShape, b.getF32Type());
    SmallVector<float> s(p.scales.begin(), p.scales.end());
    SmallVector<float> z;
    for (int64_t v : p.zeroPoints)
      z.push_back(float(v + zShift));
    if (blockedParams) {
      s = interleaveRows<float>(s, N, kb, R, 1);
      z = interleaveRows<float>(z, N, kb, R, 1);
    }
    scales = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(st, ArrayRef<float>(s)));
    if (hasZeros)
      zeros = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(st, ArrayRef<float>(z)));
  }

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  int64_t lanes = packed4 ? C / 2 : C;
  auto accType = VectorType::get({lanes}, b.getF32Type());
  OpBuilder::InsertionGuard guard(b);
  MatvecBlock blk = beginMatvec(b, loc, M, N, R, accType);
  scf::ForallOp forall = blk.forall;
  Value n0 = blk.n0, zeroAcc = blk.zeroAcc, pad8 = blk.pad8;
  SmallVector<Value> rows = blk.rows;
  Value padF = f32Const(b, loc, 0.0);
  Value block = forall.getInductionVar(0);
  // The weight bytes of row r of the block at byte offset `kb` of the row:
  // [n0 + r, kb], or in the interleaved layout [block, kb * R + r * chunk].
  auto weightAt = [&](OpBuilder &wb, Location l, int64_t r,
                      Value kByte) -> SmallVector<Value> {
    if (!blocked)
      return {rows[r], kByte};
    Value off = arith::MulIOp::create(wb, l, kByte, idx(wb, R));
    if (r)
      off = arith::AddIOp::create(wb, l, off, idx(wb, r * chunkBytes));
    return {block, off};
  };

  // Accumulator of weight row r and x row m: r * M + m; per-lane sums of x
  // row m (for the zero points): R * M + m.
  auto groups = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, kb), idx(b, 1),
      SmallVector<Value>(R * M, zeroAcc),
      [&](OpBuilder &gb, Location l, Value g, ValueRange totals) {
        // The group's scale and zero point per row.
        SmallVector<Value> s(R), z(R);
        for (int64_t r = 0; r < R; ++r) {
          if (p.isPerTensor()) {
            s[r] = f32Const(gb, l, p.scales[0]);
            if (hasZeros)
              z[r] = f32Const(gb, l, double(p.zeroPoints[0]) + zShift);
            continue;
          }
          Value pg = kb == 1 ? idx(gb, 0) : g;
          SmallVector<Value> at{idx(gb, 0), pg};
          if (blockedParams) {
            // [block, g * R + r]
            Value off = arith::MulIOp::create(gb, l, pg, idx(gb, R));
            at = {block, arith::AddIOp::create(gb, l, off, idx(gb, r))};
          }
          s[r] = tensor::ExtractOp::create(gb, l, scales, at);
          if (hasZeros)
            z[r] = tensor::ExtractOp::create(gb, l, zeros, at);
        }
        Value gk0 = arith::MulIOp::create(gb, l, g, idx(gb, G));
        auto chunks = scf::ForOp::create(
            gb, l, idx(gb, 0), idx(gb, G), idx(gb, C),
            SmallVector<Value>(R * M + (hasZeros ? M : 0), zeroAcc),
            [&](OpBuilder &cb, Location cl, Value kc, ValueRange sums) {
              Value k = arith::AddIOp::create(cb, cl, gk0, kc);
              // x[k, k + lanes) (and, for packed nibbles, the high half
              // x[k + 16, k + 32)).
              auto xvt = VectorType::get({lanes}, cb.getF32Type());
              SmallVector<Value> xe(M), xo(M), xsum(M);
              for (int64_t m = 0; m < M; ++m) {
                Value km =
                    m == 0 ? k
                           : arith::AddIOp::create(cb, cl, k, idx(cb, m * K))
                                 .getResult();
                xe[m] = vector::TransferReadOp::create(cb, cl, xvt, x1,
                                                       ValueRange{km}, padF,
                                                       ArrayRef<bool>{true});
                if (packed4)
                  xo[m] = vector::TransferReadOp::create(
                      cb, cl, xvt, x1,
                      ValueRange{
                          arith::AddIOp::create(cb, cl, km, idx(cb, lanes))},
                      padF, ArrayRef<bool>{true});
                // sum_k x per lane, for the zero points.
                if (!hasZeros)
                  continue;
                xsum[m] = arith::AddFOp::create(cb, cl, sums[R * M + m], xe[m]);
                if (packed4)
                  xsum[m] = arith::AddFOp::create(cb, cl, xsum[m], xo[m]);
              }
              auto toF32 = [&](Value v) -> Value {
                auto vt = VectorType::get({lanes}, cb.getF32Type());
                // Nibbles are in [0, 15] as i32: a signed conversion.
                if (p.isSigned || packed4)
                  return arith::SIToFPOp::create(cb, cl, vt, v);
                return arith::UIToFPOp::create(cb, cl, vt, v);
              };
              SmallVector<Value> next(R * M);
              for (int64_t r = 0; r < R; ++r) {
                if (!packed4) {
                  Value wv = vector::TransferReadOp::create(
                      cb, cl, VectorType::get({C}, cb.getI8Type()), w,
                      weightAt(cb, cl, r, k), pad8, ArrayRef<bool>{true});
                  Value wf = toF32(wv);
                  for (int64_t m = 0; m < M; ++m)
                    next[r * M + m] = vector::FMAOp::create(cb, cl, xe[m], wf,
                                                            sums[r * M + m]);
                } else {
                  auto bt = VectorType::get({C / 2}, cb.getI8Type());
                  Value kp = arith::DivUIOp::create(cb, cl, k, idx(cb, 2));
                  Value bv = vector::TransferReadOp::create(
                      cb, cl, bt, w, weightAt(cb, cl, r, kp), pad8,
                      ArrayRef<bool>{true});
                  auto it = VectorType::get({C / 2}, cb.getI32Type());
                  Value wv = arith::ExtUIOp::create(cb, cl, it, bv);
                  auto splat = [&](int64_t v) -> Value {
                    return arith::ConstantOp::create(
                        cb, cl,
                        DenseElementsAttr::get(
                            it, cb.getIntegerAttr(cb.getI32Type(), v)));
                  };
                  Value lo = arith::AndIOp::create(cb, cl, wv, splat(0xF));
                  Value hi = arith::ShRUIOp::create(cb, cl, wv, splat(4));
                  Value lf = toF32(lo), hf = toF32(hi);
                  for (int64_t m = 0; m < M; ++m) {
                    Value acc = vector::FMAOp::create(cb, cl, xe[m], lf,
                                                      sums[r * M + m]);
                    next[r * M + m] =
                        vector::FMAOp::create(cb, cl, xo[m], hf, acc);
                  }
                }
              }
              if (hasZeros)
                next.append(xsum);
              scf::YieldOp::create(cb, cl, next);
            });
        SmallVector<Value> next;
        for (int64_t r = 0; r < R; ++r) {
          // total += s * sum(x q) - s * z * sum(x)
          Value sr = vector::BroadcastOp::create(gb, l, accType, s[r]);
          Value szr;
          if (hasZeros)
            szr = vector::BroadcastOp::create(
                gb, l, accType,
                arith::NegFOp::create(
                    gb, l, arith::MulFOp::create(gb, l, s[r], z[r])));
          for (int64_t m = 0; m < M; ++m) {
            Value t = vector::FMAOp::create(
                gb, l, sr, chunks.getResult(r * M + m), totals[r * M + m]);
            next.push_back(hasZeros
                               ? vector::FMAOp::create(
                                     gb, l, szr, chunks.getResult(R * M + m), t)
                                     .getResult()
                               : t);
          }
        }
        scf::YieldOp::create(gb, l, next);
      });
  return finishMatvec(b, loc, forall, n0, groups.getResults(), M, R,
                      resultType);
}

namespace {

/// Elements of K per step of the bf16 matvec kernel: four planes of 32.
constexpr int64_t kBF16Chunk = 128;

/// The bf16 bits of a small integer (exact for |v| < 256).
static uint16_t bf16Bits(int v) {
  float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return uint16_t(u >> 16);
}

} // namespace

FailureOr<Value> mlir::llm::detail::buildDequantMatvecBF16(
    OpBuilder &b, Location loc, Value x, Value wq, const QuantParams &p,
    RankedTensorType resultType, bool streamed) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  int64_t N = wt.getDimSize(0), K = wt.getDimSize(1);
  if (p.storageWidth != 4 || xt.getRank() < 1 || xt.getShape().back() != K ||
      !xt.getElementType().isF32() || K % kBF16Chunk != 0)
    return failure();
  int64_t M = xt.getNumElements() / K;
  if (M < 1 || M > kMatvecMaxRows)
    return failure();
  int64_t kb = p.paramShape[1], nParams = p.paramShape[0];
  int64_t G = K / kb;
  if (G % 32 != 0 || (kBF16Chunk % G != 0 && G % kBF16Chunk != 0))
    return failure();
  // Zero points as table rows (signed nibbles are stored as q + 8).
  int64_t zShift = p.isSigned ? 8 : 0;
  SmallVector<int8_t> zRows;
  for (int64_t z : p.zeroPoints) {
    if (z + zShift < 0 || z + zShift > 15)
      return failure();
    zRows.push_back(int8_t(z + zShift));
  }
  FailureOr<SmallVector<uint8_t>> values = readNibbles(wq, N, K, p.isSigned);
  if (failed(values))
    return failure();
  SmallVector<char> bytes(N * K / 2);
  for (int64_t row = 0; row < N; ++row)
    for (int64_t c = 0; c < K; c += kBF16Chunk)
      for (int64_t i = 0; i < 32; ++i) {
        const uint8_t *v = values->data() + row * K + c;
        uint16_t word = uint16_t(v[i] | (v[32 + i] << 4) | (v[64 + i] << 8) |
                                 (v[96 + i] << 12));
        char *out = bytes.data() + (row * K + c) / 2 + 2 * i;
        out[0] = char(word & 0xFF);
        out[1] = char(word >> 8);
      }
  Type i16 = b.getI16Type(), f32 = b.getF32Type();
  Type bf16 = b.getBF16Type();
  // Rows per block: R * M accumulators of one register each (8 at most).
  // The weight and its per-row parameters are interleaved by blocks of R
  // rows (interleaveRows), chunk by chunk: one sequential stream per block.
  int64_t R = getMatvecBlockRows(N, M, streamed ? kStreamedMatvecRows4 : 8);
  constexpr int64_t chunkBytes = kBF16Chunk / 2;
  Value w = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get({N / R, R * K / 2}, b.getI8Type()),
          ArrayRef<char>(
              interleaveRows<char>(bytes, N, K / 2, R, chunkBytes))));
  SmallVector<uint16_t> tableBits;
  for (int z = 0; z < 16; ++z)
    for (int j = 0; j < 32; ++j)
      tableBits.push_back(bf16Bits((j & 15) - z));
  Value tables = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({16, 32}, i16),
                             ArrayRef<uint16_t>(tableBits)));
  Value scales, zeros;
  bool blockedParams = nParams != 1;
  if (!p.isPerTensor()) {
    SmallVector<float> sv(p.scales.begin(), p.scales.end());
    SmallVector<int8_t> zv(zRows);
    SmallVector<int64_t> shape(p.paramShape);
    if (blockedParams) {
      sv = interleaveRows<float>(sv, N, kb, R, 1);
      zv = interleaveRows<int8_t>(zv, N, kb, R, 1);
      shape = {N / R, kb * R};
    }
    scales = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, f32),
                               ArrayRef<float>(sv)));
    zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, b.getI8Type()),
                               ArrayRef<int8_t>(zv)));
  }

  // x as [M * K] and its two bf16 terms.
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()))};
  auto flat = RankedTensorType::get({M * K}, f32);
  Value x1 = tensor::CollapseShapeOp::create(b, loc, flat, x, all);
  auto planeType = RankedTensorType::get({M * K}, bf16);
  Value planeInit = tensor::EmptyOp::create(b, loc, planeType.getShape(), bf16);
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto split = linalg::GenericOp::create(
      b, loc, TypeRange{planeType, planeType}, ValueRange{x1},
      ValueRange{planeInit, planeInit}, SmallVector<AffineMap>(3, id),
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &gb, Location l, ValueRange args) {
        // hi = bf16(x), lo = bf16(x - hi)
        Value hi = arith::TruncFOp::create(gb, l, bf16, args[0]);
        Value rest = arith::SubFOp::create(
            gb, l, args[0], arith::ExtFOp::create(gb, l, f32, hi));
        Value lo = arith::TruncFOp::create(gb, l, bf16, rest);
        linalg::YieldOp::create(gb, l, ValueRange{hi, lo});
      });
  Value xh = split.getResult(0), xl = split.getResult(1);

  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto accType = VectorType::get({16}, f32);
  auto wordsType = VectorType::get({32}, i16);
  auto bfType = VectorType::get({32}, bf16);
  OpBuilder::InsertionGuard guard(b);
  MatvecBlock blk = beginMatvec(b, loc, M, N, R, accType);
  scf::ForallOp forall = blk.forall;
  Value n0 = blk.n0, zeroAcc = blk.zeroAcc, pad8 = blk.pad8;
  SmallVector<Value> rows = blk.rows;
  Value pad16 = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i16, 0));
  Value padBF = arith::ConstantOp::create(b, loc, b.getFloatAttr(bf16, 0.0));
  // AT&T operand order: $0 = table[$1 & 31] with $2 the table.
  StringAttr permw = b.getStringAttr("vpermw $2, $1, $0");
  // Elements per segment of a chunk that one scale covers, and segments.
  int64_t segLen = std::min(G, kBF16Chunk), segs = kBF16Chunk / segLen;

  auto chunks = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, K / kBF16Chunk), idx(b, 1),
      SmallVector<Value>(R * M, zeroAcc),
      [&](OpBuilder &cb, Location l, Value c, ValueRange totals) {
        Value k0 = arith::MulIOp::create(cb, l, c, idx(cb, kBF16Chunk));
        Value kp = arith::MulIOp::create(cb, l, c, idx(cb, kBF16Chunk / 2));
        // The x terms of the chunk, per row of x and plane.
        SmallVector<Value> xhv(M * 4), xlv(M * 4);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t q = 0; q < 4; ++q) {
            Value off =
                arith::AddIOp::create(cb, l, k0, idx(cb, m * K + 32 * q));
            xhv[m * 4 + q] = vector::TransferReadOp::create(
                cb, l, bfType, xh, ValueRange{off}, padBF,
                ArrayRef<bool>{true});
            xlv[m * 4 + q] = vector::TransferReadOp::create(
                cb, l, bfType, xl, ValueRange{off}, padBF,
                ArrayRef<bool>{true});
          }
        SmallVector<Value> next(totals.begin(), totals.end());
        for (int64_t r = 0; r < R; ++r) {
          // [block, kp * R + r * chunkBytes]
          Value off = arith::MulIOp::create(cb, l, kp, idx(cb, R));
          if (r)
            off = arith::AddIOp::create(cb, l, off, idx(cb, r * chunkBytes));
          Value bytesV = vector::TransferReadOp::create(
              cb, l, VectorType::get({chunkBytes}, cb.getI8Type()), w,
              ValueRange{forall.getInductionVar(0), off}, pad8,
              ArrayRef<bool>{true});
          Value words = vector::BitCastOp::create(cb, l, wordsType, bytesV);
          for (int64_t sg = 0; sg < segs; ++sg) {
            // The segment's group: c / (G / 128) for groups of 128 or more,
            // c * (128 / G) + sg for smaller ones.
            Value g =
                G >= kBF16Chunk
                    ? arith::DivUIOp::create(cb, l, c, idx(cb, G / kBF16Chunk))
                          .getResult()
                    : arith::AddIOp::create(
                          cb, l, arith::MulIOp::create(cb, l, c, idx(cb, segs)),
                          idx(cb, sg))
                          .getResult();
            Value s, table;
            if (p.isPerTensor()) {
              s = f32Const(cb, l, p.scales[0]);
              table = vector::TransferReadOp::create(
                  cb, l, wordsType, tables,
                  ValueRange{idx(cb, zRows[0]), idx(cb, 0)}, pad16,
                  ArrayRef<bool>{true});
            } else {
              Value pg = kb == 1 ? idx(cb, 0) : g;
              SmallVector<Value> at{idx(cb, 0), pg};
              if (blockedParams) {
                // [block, g * R + r]
                Value po = arith::MulIOp::create(cb, l, pg, idx(cb, R));
                at = {forall.getInductionVar(0),
                      arith::AddIOp::create(cb, l, po, idx(cb, r))};
              }
              s = tensor::ExtractOp::create(cb, l, scales, at);
              Value z = tensor::ExtractOp::create(cb, l, zeros, at);
              z = arith::IndexCastOp::create(cb, l, cb.getIndexType(), z);
              table = vector::TransferReadOp::create(
                  cb, l, wordsType, tables, ValueRange{z, idx(cb, 0)}, pad16,
                  ArrayRef<bool>{true});
            }
            SmallVector<Value> acc(M, zeroAcc);
            for (int64_t q = sg * segLen / 32; q < (sg + 1) * segLen / 32;
                 ++q) {
              Value index = words;
              if (q > 0)
                index = arith::ShRUIOp::create(
                    cb, l, words,
                    arith::ConstantOp::create(
                        cb, l,
                        DenseElementsAttr::get(wordsType,
                                               cb.getIntegerAttr(i16, 4 * q))));
              // vpermw: table[index & 31] per word. Inline assembly without
              // side effects (no memory effects, unlike llvm.call_intrinsic,
              // which bufferization's deallocation refuses).
              Value qz =
                  LLVM::InlineAsmOp::create(
                      cb, l, wordsType, ValueRange{index, table}, permw,
                      cb.getStringAttr("=v,v,v"), /*has_side_effects=*/nullptr,
                      /*is_align_stack=*/nullptr,
                      LLVM::TailCallKindAttr::get(cb.getContext(),
                                                  LLVM::TailCallKind::None),
                      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
                      .getResult(0);
              Value qb = arith::BitcastOp::create(cb, l, bfType, qz);
              for (int64_t m = 0; m < M; ++m) {
                acc[m] = x86vector::DotBF16Op::create(cb, l, acc[m], qb,
                                                      xhv[m * 4 + q]);
                acc[m] = x86vector::DotBF16Op::create(cb, l, acc[m], qb,
                                                      xlv[m * 4 + q]);
              }
            }
            Value sv = vector::BroadcastOp::create(cb, l, accType, s);
            for (int64_t m = 0; m < M; ++m)
              next[r * M + m] =
                  vector::FMAOp::create(cb, l, sv, acc[m], next[r * M + m]);
          }
        }
        scf::YieldOp::create(cb, l, next);
      });
  Value result =
      finishMatvec(b, loc, forall, n0, chunks.getResults(), M, R, resultType);
  // A streamed weight: the chunk loop unrolled by 4 when its trip count is a
  // multiple of 4 (more loads of the weight stream issued ahead of their dot
  // products; measured faster cold). Done once the loop's results have
  // their uses; unrolling only copies the body, so a failure leaves the loop
  // as it is.
  if (streamed && (K / kBF16Chunk) % kStreamedMatvecUnroll4 == 0)
    (void)loopUnrollByFactor(chunks, kStreamedMatvecUnroll4);
  return result;
}
