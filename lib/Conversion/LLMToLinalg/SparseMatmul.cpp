//===- SparseMatmul.cpp - Matmul kernels of sparse constant weights -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llmc's static loops over the packed nonzeros of a constant weight (BSR,
// CSR with 16-bit indices, 2:4), on tensors: see buildSparseMatmul in
// SparseMatmul.h. The loop structure follows the hand-written ceilings of
// ../shared/sparsity/sparsity-probe.md (section 2.1): one vector per 4x4
// block with the activation broadcast as 4-element groups, one accumulator
// per 16 output channels for 16x16 blocks, `vpermt2ps` over 32 activation
// elements for 2:4, gathers with 16-bit indices for CSR.
//
//===----------------------------------------------------------------------===//

#include "SparseMatmul.h"
#include "QuantKernels.h"

#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;
using Kind = SparseFormat::Kind;

namespace {

/// Output columns of one block of the parallel loop.
constexpr int64_t kGroupColumns = 64;

/// `lo` and `hi` (16 f32 each) permuted by `idx` (16 i32, values 0..31: lane
/// i of the result is `idx[i] < 16 ? lo[idx[i]] : hi[idx[i] - 16]`), as
/// AVX-512's `vpermt2ps` in inline assembly without side effects (MLIR's
/// vector dialect has no permutation by a runtime index vector). AT&T order:
/// `$0 = perm($1 tied, $2 indices, $3)`.
Value permute2(OpBuilder &b, Location loc, Value lo, Value idx, Value hi) {
  return LLVM::InlineAsmOp::create(
             b, loc, lo.getType(), ValueRange{lo, idx, hi},
             b.getStringAttr("vpermt2ps $3, $2, $0"),
             b.getStringAttr("=v,0,v,v"),
             /*has_side_effects=*/nullptr,
             /*is_align_stack=*/nullptr,
             LLVM::TailCallKindAttr::get(b.getContext(),
                                         LLVM::TailCallKind::None),
             /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
      .getResult(0);
}

/// A 1-D constant of `type` elements from `values` (at least one element:
/// an empty array gets one zero, never read).
template <typename T>
Value constantArray(OpBuilder &b, Location loc, Type type, ArrayRef<T> values) {
  SmallVector<T> data(values.begin(), values.end());
  if (data.empty())
    data.push_back(T());
  auto t = RankedTensorType::get({int64_t(data.size())}, type);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          t, ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                            data.size() * sizeof(T))));
}

/// The stored values as a constant of `valueType` (f32, f16, bf16, or i8
/// for the integer levels of a quantized weight).
Value constantValues(OpBuilder &b, Location loc, Type valueType,
                     ArrayRef<float> values) {
  if (valueType.isF32())
    return constantArray(b, loc, valueType, values);
  if (valueType.isInteger(8)) {
    SmallVector<int8_t> levels;
    for (float v : values)
      levels.push_back(int8_t(v));
    return constantArray(b, loc, valueType, ArrayRef<int8_t>(levels));
  }
  // f16 / bf16 (at least one element, as constantArray).
  SmallVector<float> data(values.begin(), values.end());
  if (data.empty())
    data.push_back(0.0f);
  return arith::ConstantOp::create(
      b, loc,
      getFloatElementsAttr(
          RankedTensorType::get({int64_t(data.size())}, valueType), data));
}

/// Element `i` of an integer array (the packed row pointers and block
/// columns) as an index, zero-extended.
Value loadIndex(OpBuilder &b, Location loc, Value array, Value i) {
  Value v = tensor::ExtractOp::create(b, loc, array, ValueRange{i});
  if (!v.getType().isInteger(32))
    v = arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}

/// Emits the kernel of one packed weight.
class SparseKernelBuilder {
public:
  SparseKernelBuilder(OpBuilder &b, Location loc, const PackedSparseWeight &w,
                      Type valueType, int64_t lanes)
      : loc(loc), w(w), lanes(lanes), f32(b.getF32Type()) {
    values = constantValues(b, loc, valueType, w.values);
    if (w.format.kind == Kind::TwoFour) {
      laneIdx = constantArray(b, loc, b.getI8Type(), ArrayRef(w.laneIdx));
    } else {
      rowPtr = constantArray(b, loc, b.getI32Type(), ArrayRef(w.rowPtr));
      colIdx = constantArray(b, loc, b.getI16Type(), ArrayRef(w.colIdx));
    }
    if (w.groupSize)
      groupScales = constantArray(b, loc, f32, ArrayRef(w.groupScales));
  }

  /// Output columns computed by one unit of the loop (a block row or a
  /// row).
  int64_t unitColumns() const {
    return w.format.kind == Kind::Block ? w.format.rows : 1;
  }
  int64_t numUnits() const {
    return w.format.kind == Kind::Block ? w.paddedN / w.format.rows : w.N;
  }
  /// Activation rows per register tile.
  int64_t maxTileRows() const {
    const int64_t budget = lanes == 16 ? 16 : 8;
    int64_t vectorsPerRow = 1;
    if (w.format.kind == Kind::Block)
      vectorsPerRow = w.transposedBlocks
                          ? w.format.rows / lanes
                          : (w.format.rows * w.format.cols + lanes - 1) / lanes;
    return std::max<int64_t>(1, std::min<int64_t>(8, budget / vectorsPerRow));
  }

  /// Column-form blocks with many rows: the activation's full row tiles
  /// interleaved, `[tiles, paddedK, rows]` (element [t, k, r] = x[t rows +
  /// r, k]), its buffer (read only; for the prefetches) and its rows.
  Value packedX, packedXBuffer;
  int64_t packedRows = 0;

  /// Computes unit `unit` for activation rows [m0, m0 + rows) of `x`
  /// ([M, paddedK]) into `tile` ([M, group columns]) at column `col`.
  Value emitTile(OpBuilder &rb, Value x, Value unit, Value col, Value m0,
                 int64_t rows, Value tile) {
    switch (w.format.kind) {
    case Kind::Block:
      return w.transposedBlocks
                 ? emitBlockColumns(rb, x, unit, col, m0, rows, tile)
                 : emitBlockRows(rb, x, unit, col, m0, rows, tile);
    case Kind::CSR:
      return emitCSR(rb, x, unit, col, m0, rows, tile);
    case Kind::TwoFour:
      return emitTwoFour(rb, x, unit, col, m0, rows, tile);
    case Kind::Dense:
      break;
    }
    return tile;
  }

private:
  Value idx(OpBuilder &ob, int64_t v) {
    return arith::ConstantIndexOp::create(ob, loc, v);
  }
  Value add(OpBuilder &ob, Value x, Value y) {
    return arith::AddIOp::create(ob, loc, x, y);
  }
  Value add(OpBuilder &ob, Value x, int64_t y) {
    return y == 0 ? x : add(ob, x, idx(ob, y));
  }
  Value mul(OpBuilder &ob, Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(ob, loc, x, idx(ob, y));
  }
  /// `v` (scalar or vector of floats, or of i8 levels) as f32.
  Value toF32(OpBuilder &ob, Value v) {
    Type t = v.getType();
    Type et = getElementTypeOrSelf(t);
    if (et.isF32())
      return v;
    Type to = isa<VectorType>(t)
                  ? Type(VectorType::get(cast<VectorType>(t).getShape(), f32))
                  : Type(f32);
    if (isa<IntegerType>(et))
      return arith::SIToFPOp::create(ob, loc, to, v);
    return arith::ExtFOp::create(ob, loc, to, v);
  }
  /// `n` elements of `src` (rank 1 or 2) from `indices`, in bounds.
  Value read(OpBuilder &ob, Value src, ValueRange indices, int64_t n) {
    Type et = cast<RankedTensorType>(src.getType()).getElementType();
    Value pad = arith::ConstantOp::create(ob, loc, ob.getZeroAttr(et));
    return vector::TransferReadOp::create(ob, loc, VectorType::get({n}, et),
                                          src, indices, pad,
                                          ArrayRef<bool>{true});
  }
  Value zeros(OpBuilder &ob, int64_t n) {
    auto t = VectorType::get({n}, f32);
    return arith::ConstantOp::create(
        ob, loc, DenseElementsAttr::get(t, ob.getF32FloatAttr(0.0f)));
  }
  Value fma(OpBuilder &ob, Value x, Value y, Value acc) {
    return vector::FMAOp::create(ob, loc, x, y, acc);
  }
  Value mulf(OpBuilder &ob, Value x, Value y) {
    return arith::MulFOp::create(ob, loc, x, y);
  }
  /// With sub-channel scales: the index of the first scale of the group
  /// holding column `k` of W (groupScales is [groups, paddedN]).
  Value groupScaleBase(OpBuilder &ob, Value k) {
    Value g = arith::DivUIOp::create(ob, loc, k, idx(ob, w.groupSize));
    return mul(ob, g, w.paddedN);
  }
  /// acc[i] + acc[i + n] + ... for `sets` sets of `n` accumulators.
  SmallVector<Value> sumSets(OpBuilder &ob, ValueRange accs, int64_t sets) {
    int64_t n = accs.size() / sets;
    SmallVector<Value> out(accs.begin(), accs.begin() + n);
    for (int64_t s = 1; s < sets; ++s)
      for (int64_t i = 0; i < n; ++i)
        out[i] = arith::AddFOp::create(ob, loc, out[i], accs[s * n + i]);
    return out;
  }
  /// Writes the scalar sums of `accs[r]` into tile[m0 + r, col].
  Value writeReduced(OpBuilder &ob, ArrayRef<Value> accs, Value m0, Value col,
                     Value tile) {
    for (auto [r, acc] : llvm::enumerate(accs)) {
      Value s =
          vector::ReductionOp::create(ob, loc, vector::CombiningKind::ADD, acc);
      tile = tensor::InsertOp::create(ob, loc, s, tile,
                                      ValueRange{add(ob, m0, r), col});
    }
    return tile;
  }

  /// Prefetches (into all cache levels, for reading) the cache lines of
  /// tile `tileIndex` of the interleaved activation that block `j` reads:
  /// `cols` x `rows` consecutive elements from [tileIndex, colIdx[j] cols,
  /// 0].
  void prefetchActivation(OpBuilder &kb, Value tileIndex, Value j, int64_t cols,
                          int64_t rows) {
    auto bt = cast<MemRefType>(packedXBuffer.getType());
    const int64_t perLine = 512 / bt.getElementTypeBitWidth();
    Value k0 = mul(kb, loadIndex(kb, loc, colIdx, j), cols);
    for (int64_t e = 0; e < cols * rows; e += perLine)
      memref::PrefetchOp::create(
          kb, loc, packedXBuffer,
          ValueRange{tileIndex, add(kb, k0, e / rows), idx(kb, e % rows)},
          /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
  }

  /// The nonzero blocks of block row `unit`, column by column: each column
  /// of a block is rows/lanes vectors of output channels times a broadcast
  /// activation element.
  Value emitBlockColumns(OpBuilder &rb, Value x, Value unit, Value col,
                         Value m0, int64_t rows, Value tile) {
    const int64_t R = w.format.rows, C = w.format.cols, H = R / lanes;
    // Independent accumulator sets (alternate block columns): two FMAs per
    // cycle of 4 cycles' latency need at least 8 chains in flight; 16 (up
    // to 4 sets) leave slack for the loads (128 x 4096 x 4096 at 25% 16x16
    // blocks on Zen 5: 7.3 ms with 8 chains, 6.9-7.5 ms with 16).
    int64_t sets = 1;
    while (sets < 4 && sets * 2 * rows * H <= 16 && C % (sets * 2) == 0)
      sets *= 2;
    Value lo = loadIndex(rb, loc, rowPtr, unit);
    Value hi = loadIndex(rb, loc, rowPtr, add(rb, unit, 1));
    // Full tiles read the interleaved copy: a tile's elements of one k
    // share a cache line.
    const bool interleaved = packedX && rows == packedRows;
    Value tileIndex, last;
    if (interleaved) {
      tileIndex = arith::DivUIOp::create(rb, loc, m0, idx(rb, packedRows));
      last = arith::SubIOp::create(rb, loc, hi, idx(rb, 1));
    }
    SmallVector<Value> init(sets * rows * H, zeros(rb, lanes));
    auto loop = scf::ForOp::create(
        rb, loc, lo, hi, idx(rb, 1), init,
        [&](OpBuilder &kb, Location, Value j, ValueRange accs) {
          SmallVector<Value> next(accs.begin(), accs.end());
          // The next block's activation slice (C x rows elements at a
          // column the hardware prefetchers cannot guess) is prefetched
          // while this block runs: 128 x 4096 x 4096 at 25% 16x16 blocks on
          // Zen 5, one thread, 8.5-9.1 -> 7.2-7.5 ms (prefetching the next
          // block's values too, or 16-row tiles, measured no faster).
          if (interleaved)
            prefetchActivation(
                kb, tileIndex,
                arith::MinUIOp::create(kb, loc, add(kb, j, 1), last), C, rows);
          Value k0 = mul(kb, loadIndex(kb, loc, colIdx, j), C);
          Value base = mul(kb, j, R * C);
          // Sub-channel scales: the block lies in one group; its R
          // channels' scales multiply each column in registers.
          SmallVector<Value> scale;
          if (groupScales) {
            Value s0 = add(kb, groupScaleBase(kb, k0), mul(kb, unit, R));
            for (int64_t h = 0; h < H; ++h)
              scale.push_back(
                  read(kb, groupScales, add(kb, s0, h * lanes), lanes));
          }
          for (int64_t c = 0; c < C; ++c) {
            int64_t s = c % sets;
            SmallVector<Value> wv;
            for (int64_t h = 0; h < H; ++h) {
              wv.push_back(
                  toF32(kb, read(kb, values, add(kb, base, c * R + h * lanes),
                                 lanes)));
              if (groupScales)
                wv.back() = mulf(kb, wv.back(), scale[h]);
            }
            Value k = add(kb, k0, c);
            for (int64_t r = 0; r < rows; ++r) {
              Value e = toF32(
                  kb, interleaved
                          ? tensor::ExtractOp::create(
                                kb, loc, packedX,
                                ValueRange{tileIndex, k, idx(kb, r)})
                          : tensor::ExtractOp::create(
                                kb, loc, x, ValueRange{add(kb, m0, r), k}));
              Value xb = vector::BroadcastOp::create(
                  kb, loc, VectorType::get({lanes}, f32), e);
              for (int64_t h = 0; h < H; ++h) {
                Value &acc = next[(s * rows + r) * H + h];
                acc = fma(kb, wv[h], xb, acc);
              }
            }
          }
          scf::YieldOp::create(kb, loc, next);
        });
    SmallVector<Value> sums = sumSets(rb, loop.getResults(), sets);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t h = 0; h < H; ++h)
        tile = vector::TransferWriteOp::create(
                   rb, loc, sums[r * H + h], tile,
                   ValueRange{add(rb, m0, r), add(rb, col, h * lanes)},
                   ArrayRef<bool>{true})
                   .getResult();
    return tile;
  }

  /// The nonzero blocks of block row `unit`, each one vector of R x C
  /// elements times the activation's C elements repeated R times; the R
  /// sums are reduced once per block row.
  Value emitBlockRows(OpBuilder &rb, Value x, Value unit, Value col, Value m0,
                      int64_t rows, Value tile) {
    const int64_t R = w.format.rows, C = w.format.cols, RC = R * C;
    auto blockType = VectorType::get({RC}, f32);
    Value lo = loadIndex(rb, loc, rowPtr, unit);
    Value hi = loadIndex(rb, loc, rowPtr, add(rb, unit, 1));
    // Block j into accs.
    auto step = [&](OpBuilder &kb, Value j, MutableArrayRef<Value> accs) {
      Value k0 = mul(kb, loadIndex(kb, loc, colIdx, j), C);
      Value blk = toF32(kb, read(kb, values, mul(kb, j, RC), RC));
      if (groupScales) {
        // Sub-channel scales: the block's R channel scales, each repeated
        // over its C columns (one permute: lane r C + c <- scale r).
        Value sv = read(kb, groupScales,
                        add(kb, groupScaleBase(kb, k0), mul(kb, unit, R)), R);
        SmallVector<int64_t> repeat;
        for (int64_t i = 0; i < RC; ++i)
          repeat.push_back(i / C);
        blk = mulf(kb, blk, vector::ShuffleOp::create(kb, loc, sv, sv, repeat));
      }
      for (int64_t r = 0; r < rows; ++r) {
        Value xv = toF32(kb, read(kb, x, ValueRange{add(kb, m0, r), k0}, C));
        if (R > 1)
          xv = vector::ShapeCastOp::create(
              kb, loc, blockType,
              vector::BroadcastOp::create(kb, loc, VectorType::get({R, C}, f32),
                                          xv));
        accs[r] = fma(kb, blk, xv, accs[r]);
      }
    };
    // (Two accumulator sets for one or two rows, blocks taken in pairs,
    // measured no faster on Zen 5: the chain of one FMA per 64-byte block
    // is not the limit.)
    auto loop = scf::ForOp::create(
        rb, loc, lo, hi, idx(rb, 1), SmallVector<Value>(rows, zeros(rb, RC)),
        [&](OpBuilder &kb, Location, Value j, ValueRange accs) {
          SmallVector<Value> next(accs.begin(), accs.end());
          step(kb, j, next);
          scf::YieldOp::create(kb, loc, next);
        });
    SmallVector<Value> sums(loop.getResults());
    // Each block row's R sums: a reduction of each of its C-element slices
    // (vector.reduction lowers to LLVM directly, also in a pipeline without
    // the vector lowering passes, `vectorize=false`).
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < R; ++i) {
        Value part = sums[r];
        if (R > 1)
          part = vector::ExtractStridedSliceOp::create(
              rb, loc, sums[r], ArrayRef<int64_t>{i * C}, ArrayRef<int64_t>{C},
              ArrayRef<int64_t>{1});
        Value sum = vector::ReductionOp::create(
            rb, loc, vector::CombiningKind::ADD, part);
        tile = tensor::InsertOp::create(
            rb, loc, sum, tile, ValueRange{add(rb, m0, r), add(rb, col, i)});
      }
    return tile;
  }

  /// Row `unit`'s chunks of `lanes` nonzeros, the activation gathered at
  /// their 16-bit columns.
  Value emitCSR(OpBuilder &rb, Value x, Value unit, Value col, Value m0,
                int64_t rows, Value tile) {
    auto it = VectorType::get({lanes}, rb.getI32Type());
    Type xt = cast<RankedTensorType>(x.getType()).getElementType();
    Value lo = loadIndex(rb, loc, rowPtr, unit);
    Value hi = loadIndex(rb, loc, rowPtr, add(rb, unit, 1));
    Value mask = arith::ConstantOp::create(
        rb, loc,
        DenseElementsAttr::get(VectorType::get({lanes}, rb.getI1Type()), true));
    Value pass = arith::ConstantOp::create(
        rb, loc,
        DenseElementsAttr::get(VectorType::get({lanes}, xt),
                               rb.getZeroAttr(xt)));
    SmallVector<Value> init(rows, zeros(rb, lanes));
    auto loop = scf::ForOp::create(
        rb, loc, lo, hi, idx(rb, 1), init,
        [&](OpBuilder &kb, Location, Value j, ValueRange accs) {
          SmallVector<Value> next(accs.begin(), accs.end());
          Value off = mul(kb, j, lanes);
          Value v = toF32(kb, read(kb, values, off, lanes));
          Value cols =
              arith::ExtUIOp::create(kb, loc, it, read(kb, colIdx, off, lanes));
          for (int64_t r = 0; r < rows; ++r) {
            Value g = vector::GatherOp::create(
                kb, loc, VectorType::get({lanes}, xt), x,
                ValueRange{add(kb, m0, r), idx(kb, 0)}, cols, mask, pass);
            next[r] = fma(kb, v, toF32(kb, g), next[r]);
          }
          scf::YieldOp::create(kb, loc, next);
        });
    return writeReduced(rb, SmallVector<Value>(loop.getResults()), m0, col,
                        tile);
  }

  /// Row `unit`'s 16 stored values per 32 columns, the activation's 32
  /// elements permuted to their lanes.
  Value emitTwoFour(OpBuilder &rb, Value x, Value unit, Value col, Value m0,
                    int64_t rows, Value tile) {
    const int64_t Q = w.paddedK / 32;
    const int64_t sets = rows == 1 && Q % 2 == 0 ? 2 : 1;
    auto it = VectorType::get({16}, rb.getI32Type());
    Value rowBase = mul(rb, unit, Q * 16);
    SmallVector<Value> init(sets * rows, zeros(rb, 16));
    auto loop = scf::ForOp::create(
        rb, loc, idx(rb, 0), idx(rb, Q), idx(rb, sets), init,
        [&](OpBuilder &kb, Location, Value q, ValueRange accs) {
          SmallVector<Value> next(accs.begin(), accs.end());
          for (int64_t s = 0; s < sets; ++s) {
            Value qs = add(kb, q, s);
            Value off = add(kb, rowBase, mul(kb, qs, 16));
            Value v = toF32(kb, read(kb, values, off, 16));
            Value li =
                arith::ExtUIOp::create(kb, loc, it, read(kb, laneIdx, off, 16));
            Value k0 = mul(kb, qs, 32);
            // Sub-channel scales: the chunk lies in one group.
            if (groupScales) {
              Value sc = tensor::ExtractOp::create(
                  kb, loc, groupScales,
                  ValueRange{add(kb, groupScaleBase(kb, k0), unit)});
              v = mulf(kb, v, vector::BroadcastOp::create(kb, loc, v.getType(),
                                                          sc));
            }
            for (int64_t r = 0; r < rows; ++r) {
              Value m = add(kb, m0, r);
              Value xlo = toF32(kb, read(kb, x, ValueRange{m, k0}, 16));
              Value xhi =
                  toF32(kb, read(kb, x, ValueRange{m, add(kb, k0, 16)}, 16));
              Value &acc = next[s * rows + r];
              acc = fma(kb, v, permute2(kb, loc, xlo, li, xhi), acc);
            }
          }
          scf::YieldOp::create(kb, loc, next);
        });
    return writeReduced(rb, sumSets(rb, loop.getResults(), sets), m0, col,
                        tile);
  }

  Location loc;
  const PackedSparseWeight &w;
  int64_t lanes;
  Type f32;
  Value values, rowPtr, colIdx, laneIdx, groupScales;
};

} // namespace

/// `x` ([M, K]) copied into zeros of [M, paddedK]; `x` itself when
/// paddedK == K.
static Value padColumns(OpBuilder &b, Location loc, Value x, OpFoldResult M,
                        int64_t K, int64_t paddedK) {
  if (paddedK == K)
    return x;
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Type xt = cast<RankedTensorType>(x.getType()).getElementType();
  Value empty = tensor::EmptyOp::create(
      b, loc, SmallVector<OpFoldResult>{M, ofr(paddedK)}, xt);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(xt));
  Value filled =
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
          .getResult(0);
  return tensor::InsertSliceOp::create(
      b, loc, x, filled, SmallVector<OpFoldResult>{ofr(0), ofr(0)},
      SmallVector<OpFoldResult>{M, ofr(K)},
      SmallVector<OpFoldResult>{ofr(1), ofr(1)});
}

/// The loops of a sparse kernel over `units` units of `unitCols` output
/// columns each (block rows or rows): an `scf.forall` over groups of units
/// (kGroupColumns columns; the threads), in which row tiles of `mr` rows
/// (then one each of 4, 2 and 1 for the rest) run every unit of the group
/// through `emitTile(b, unit, col, m0, rows, tile)` (`col`: the unit's first
/// column in the group's `[M, group columns]` tile). Returns the `[M, N]`
/// result of `elementType`, the padded columns sliced off; the forall is
/// marked for consumer fusion when none are.
static Value
buildUnitLoops(OpBuilder &b, Location loc, OpFoldResult M, int64_t units,
               int64_t unitCols, int64_t mr, int64_t N, Type elementType,
               function_ref<Value(OpBuilder &, Value unit, Value col, Value m0,
                                  int64_t rows, Value tile)>
                   emitTile) {
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto idx = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  std::optional<int64_t> staticM = getConstantIntValue(M);
  Value mValue = getValueOrCreateConstantIndexOp(b, loc, M);
  const int64_t perGroup =
      std::min(units, std::max<int64_t>(1, kGroupColumns / unitCols));
  const int64_t groups = (units + perGroup - 1) / perGroup;
  const int64_t groupCols = perGroup * unitCols;
  const int64_t outCols = groups * groupCols;
  Value out = tensor::EmptyOp::create(
      b, loc, SmallVector<OpFoldResult>{M, ofr(outCols)}, elementType);
  OpBuilder::InsertionGuard guard(b);
  auto forall = llm::detail::createBlockLoop(b, loc, groups, out);
  b.setInsertionPointToStart(forall.getBody());
  Value g = forall.getInductionVar(0);
  Value col0 = arith::MulIOp::create(b, loc, g, idx(b, groupCols));
  auto unitStrides = SmallVector<OpFoldResult>(2, ofr(1));
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), col0},
      SmallVector<OpFoldResult>{M, ofr(groupCols)}, unitStrides);
  // The group's units: min(perGroup, units - g perGroup).
  Value firstUnit = arith::MulIOp::create(b, loc, g, idx(b, perGroup));
  Value count = arith::MinSIOp::create(
      b, loc, idx(b, perGroup),
      arith::SubIOp::create(b, loc, idx(b, units), firstUnit));
  // Row tiles outside, the group's units inside: a tile's activation rows
  // (mr x K) and the group's packed blocks both stay in L2 while every unit
  // of the group reads them (prefill; decode has one tile).
  auto unitsOf = [&](OpBuilder &tb, Value m0, int64_t rows, Value t) {
    return scf::ForOp::create(
               tb, loc, idx(tb, 0), count, idx(tb, 1), ValueRange{t},
               [&](OpBuilder &ub, Location, Value u, ValueRange ut) {
                 Value unit = arith::AddIOp::create(ub, loc, firstUnit, u);
                 Value col =
                     arith::MulIOp::create(ub, loc, u, idx(ub, unitCols));
                 scf::YieldOp::create(ub, loc,
                                      emitTile(ub, unit, col, m0, rows, ut[0]));
               })
        .getResult(0);
  };
  // Full register tiles of mr rows, then the rest in at most one tile each
  // of 4, 2 and 1 rows (a tile shares each block load between its rows).
  Value fullEnd = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, mValue, idx(b, mr)), idx(b, mr));
  Value rowsDone =
      scf::ForOp::create(
          b, loc, idx(b, 0), fullEnd, idx(b, mr), ValueRange{tile},
          [&](OpBuilder &tb, Location, Value m0, ValueRange rt) {
            scf::YieldOp::create(tb, loc, unitsOf(tb, m0, mr, rt[0]));
          })
          .getResult(0);
  if (mr > 1 && (!staticM || *staticM % mr)) {
    // for m0 in [lo, lo + step floor((M - lo) / step)) step `step`
    Value lower = fullEnd;
    for (int64_t step : {4, 2, 1}) {
      if (step >= mr)
        continue;
      Value upper =
          step == 1 ? mValue
                    : arith::AddIOp::create(
                          b, loc, lower,
                          arith::MulIOp::create(
                              b, loc,
                              arith::DivUIOp::create(
                                  b, loc,
                                  arith::SubIOp::create(b, loc, mValue, lower),
                                  idx(b, step)),
                              idx(b, step)));
      rowsDone =
          scf::ForOp::create(
              b, loc, lower, upper, idx(b, step), ValueRange{rowsDone},
              [&](OpBuilder &tb, Location, Value m0, ValueRange rt) {
                scf::YieldOp::create(tb, loc, unitsOf(tb, m0, step, rt[0]));
              })
              .getResult(0);
      lower = upper;
    }
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, rowsDone, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), col0},
      SmallVector<OpFoldResult>{M, ofr(groupCols)}, unitStrides);
  b.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (outCols == N) {
    // Elementwise consumers (bias, activation) join the block loop
    // (llm-tile-and-vectorize).
    forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
    return result;
  }
  return tensor::ExtractSliceOp::create(
             b, loc, result, SmallVector<OpFoldResult>{ofr(0), ofr(0)},
             SmallVector<OpFoldResult>{M, ofr(N)}, unitStrides)
      .getResult();
}

/// Failure with `reason` in `why` (the caller's warning).
static FailureOr<Value> failBecause(std::string &why, const Twine &reason) {
  why = reason.str();
  return failure();
}

FailureOr<Value> mlir::llm::detail::buildSparseMatmul(
    OpBuilder &b, Location loc, Value a, const PackedSparseWeight &w,
    Type valueType, int64_t vectorBits, std::string &why) {
  if (vectorBits != 256 && vectorBits != 512)
    return failBecause(why, "the target's vectors are not 256 or 512 bits");
  const int64_t lanes = vectorBits / 32;
  const Kind kind = w.format.kind;
  auto at = cast<RankedTensorType>(a.getType());
  if (kind == Kind::Dense)
    return failure();
  if (at.getRank() < 2 || at.getShape().back() != w.K ||
      !isa<FloatType>(at.getElementType()) ||
      at.getElementType().getIntOrFloatBitWidth() > 32)
    return failBecause(
        why, "the activation is not a float tensor [..., K] of at most 32 "
             "bits");
  if (!(valueType.isF32() || valueType.isF16() || valueType.isBF16() ||
        valueType.isInteger(8)))
    return failBecause(why, "the weight is not f32, f16, bf16 or 8-bit levels");
  if (w.groupSize &&
      (!supportsGroupScales(w.format, w.groupSize) ||
       int64_t(w.groupScales.size()) !=
           (w.paddedK + w.groupSize - 1) / w.groupSize * w.paddedN))
    return failBecause(why,
                       "no kernel of the format takes scales in groups of " +
                           std::to_string(w.groupSize));
  // What no activation shape avoids (a warning in the caller), before the
  // fallbacks by design below.
  if ((kind == Kind::CSR && w.chunk != lanes) ||
      (kind == Kind::Block && w.transposedBlocks && w.format.rows % lanes != 0))
    return failBecause(why, "the weight was packed for other vectors");
  if (kind == Kind::Block && !w.transposedBlocks &&
      w.format.rows * w.format.cols > 4 * lanes)
    return failBecause(
        why, "blocks of " + std::to_string(w.format.rows) + " x " +
                 std::to_string(w.format.cols) +
                 " are neither whole vectors of output channels (rows a "
                 "multiple of " +
                 std::to_string(lanes) + ") nor at most " +
                 std::to_string(4 * lanes) + " elements");
  // 2:4 without AVX-512 (vpermt2ps): dense by design, as in prefill
  // (llm-sparsify-weights chooses 2:4 for exact 2:4 weights on any CPU).
  if (kind == Kind::TwoFour && lanes != 16)
    return failure();
  int64_t staticRows = 1;
  for (int64_t d : at.getShape().drop_back())
    staticRows = ShapedType::isDynamic(d) || ShapedType::isDynamic(staticRows)
                     ? ShapedType::kDynamic
                     : staticRows * d;
  if (staticRows == 0)
    return failure();
  if ((kind == Kind::TwoFour || kind == Kind::CSR) &&
      (ShapedType::isDynamic(staticRows) || staticRows > kMaxSparseVectorRows))
    return failure();
  // Many rows (prefill) with row-form blocks: above a block fill of 40%
  // they lose to the dense kernel (a 4x4 fill of 50% at 128 x 4096 x 4096
  // ran as fast as dense on Zen 5).
  if (kind == Kind::Block && !w.transposedBlocks &&
      (ShapedType::isDynamic(staticRows) ||
       staticRows > kMaxSparseVectorRows)) {
    int64_t blocks = (w.paddedN / w.format.rows) * (w.paddedK / w.format.cols);
    if (10 * int64_t(w.colIdx.size()) > 4 * blocks)
      return failure();
  }

  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto idx = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };

  // The activation as [M, K], zero-padded to [M, paddedK].
  Value x = collapseRows(b, loc, a);
  Type xt = at.getElementType();
  OpFoldResult M =
      ShapedType::isDynamic(staticRows)
          ? OpFoldResult(tensor::DimOp::create(b, loc, x, 0).getResult())
          : ofr(staticRows);
  x = padColumns(b, loc, x, M, w.K, w.paddedK);

  SparseKernelBuilder kb(b, loc, w, valueType, lanes);
  const int64_t mr = std::min(
      kb.maxTileRows(),
      ShapedType::isDynamic(staticRows) ? kb.maxTileRows() : staticRows);

  // Column-form blocks over at least two full row tiles: the tiles
  // interleaved once ([tiles, K, mr]), so that the broadcasts of a tile read
  // one cache line per two k rather than mr lines 4K bytes apart (128 x
  // 4096 x 4096 at 25% 16x16 blocks: 7.9 -> 7.3 ms on Zen 5).
  Value mValue = getValueOrCreateConstantIndexOp(b, loc, M);
  if (kind == Kind::Block && w.transposedBlocks && mr > 1 &&
      (ShapedType::isDynamic(staticRows) || staticRows >= 2 * mr)) {
    Value tiles = arith::DivUIOp::create(b, loc, mValue, idx(b, mr));
    Value empty = tensor::EmptyOp::create(
        b, loc, SmallVector<OpFoldResult>{tiles, ofr(w.paddedK), ofr(mr)}, xt);
    AffineExpr t, k, r;
    bindDims(b.getContext(), t, k, r);
    kb.packedX =
        linalg::GenericOp::create(
            b, loc, TypeRange{empty.getType()}, ValueRange{x},
            ValueRange{empty},
            SmallVector<AffineMap>{
                AffineMap::get(3, 0, {t * mr + r, k}, b.getContext()),
                b.getMultiDimIdentityMap(3)},
            SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
            [&](OpBuilder &gb, Location l, ValueRange args) {
              linalg::YieldOp::create(gb, l, args[0]);
            })
            .getResult(0);
    kb.packedRows = mr;
    // The buffer the prefetches name (bufferization resolves it to the
    // tensor's; it is only read).
    auto pt = cast<RankedTensorType>(kb.packedX.getType());
    kb.packedXBuffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(pt.getShape(), pt.getElementType()), kb.packedX,
        /*read_only=*/true);
  }

  return buildUnitLoops(b, loc, M, kb.numUnits(), kb.unitColumns(), mr, w.N,
                        b.getF32Type(),
                        [&](OpBuilder &ub, Value unit, Value col, Value m0,
                            int64_t rows, Value tile) {
                          return kb.emitTile(ub, x, unit, col, m0, rows, tile);
                        });
}

void mlir::llm::detail::warnSparseFallback(Operation *op, StringRef why) {
  auto info = op->getAttrOfType<DictionaryAttr>(kSparseFormatAttrName);
  auto name = info ? info.getAs<StringAttr>("format") : StringAttr();
  // Without a CPU configuration (vector_bits) no sparse kernel is chosen
  // and nothing is said, as for every format; nor for an empty weight.
  auto wt = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (why.empty() || !name || name.getValue() == "dense" ||
      !getConfiguredVectorBits(op) || (wt && wt.getNumElements() == 0))
    return;
  op->emitWarning() << "llm.sparse_format '" << name.getValue()
                    << "' is not honoured: " << why
                    << "; the dense kernel runs";
}

/// The sparse format `op` was given (llm.sparse_format) and its kernels'
/// vector bits (lowering config), when both are there and the format is not
/// dense.
static FailureOr<std::pair<SparseFormat, int64_t>>
getSparseLowering(Operation *op) {
  auto info = op->getAttrOfType<DictionaryAttr>(kSparseFormatAttrName);
  std::optional<int64_t> bits = getConfiguredVectorBits(op);
  auto name = info ? info.getAs<StringAttr>("format") : StringAttr();
  if (!name || !bits)
    return failure();
  FailureOr<SparseFormat> format = SparseFormat::parse(name.getValue());
  if (failed(format) || format->isDense())
    return failure();
  return std::make_pair(*format, *bits);
}

FailureOr<Value> mlir::llm::detail::lowerSparseMatmul(OpBuilder &b, MatmulOp op,
                                                      Value lhs,
                                                      std::string &why) {
  FailureOr<std::pair<SparseFormat, int64_t>> lowering = getSparseLowering(op);
  if (failed(lowering))
    return failure();
  if (op.getTransposeA())
    return failBecause(why, "the lhs is transposed");
  auto [format, bits] = *lowering;
  auto cst = op.getRhs().getDefiningOp<ConstantOp>();
  RankedTensorType rt = op.getRhs().getType();
  if (!cst || rt.getRank() != 2 || !rt.hasStaticShape())
    return failBecause(why, "the weight is not an llm.constant of rank 2");
  if (rt.getNumElements() == 0)
    return failure();
  std::optional<std::vector<float>> values = readFloatValues(cst.getValue());
  if (!values)
    return failBecause(why, "the weight is not f32, f16 or bf16");
  bool nk = op.getTransposeB();
  int64_t N = rt.getDimSize(nk ? 0 : 1), K = rt.getDimSize(nk ? 1 : 0);
  FailureOr<PackedSparseWeight> packed =
      packSparseWeight(*values, nk, N, K, format, bits / 32, why);
  if (failed(packed))
    return failure();
  return buildSparseMatmul(b, op.getLoc(), lhs, *packed, rt.getElementType(),
                           bits, why);
}

FailureOr<Value> mlir::llm::detail::lowerSparseDequantMatmul(OpBuilder &b,
                                                             DequantMatmulOp op,
                                                             Value lhs,
                                                             std::string &why) {
  FailureOr<std::pair<SparseFormat, int64_t>> lowering = getSparseLowering(op);
  if (failed(lowering))
    return failure();
  auto lt = cast<RankedTensorType>(lhs.getType());
  if (!lt.getElementType().isF32() || !op.getType().getElementType().isF32())
    return failBecause(why, "the activation or the result is not f32");
  auto [format, bits] = *lowering;
  bool nk = op.getTransposeB();
  FailureOr<QuantizedWeightLevels> q =
      readQuantizedWeightLevels(op.getRhs(), nk, &why);
  if (failed(q)) {
    if (why.empty())
      why = "the weight is not a quantized constant";
    return failure();
  }
  RankedTensorType rt = op.getRhs().getType();
  int64_t N = rt.getDimSize(nk ? 0 : 1), K = rt.getDimSize(nk ? 1 : 0);
  FailureOr<PackedSparseWeight> packed =
      packSparseWeight(q->levels, nk, N, K, format, bits / 32, why);
  if (failed(packed) ||
      (q->groupSize &&
       failed(setGroupScales(*packed, q->scales, q->groupSize, why))))
    return failure();
  Location loc = op.getLoc();
  FailureOr<Value> acc =
      buildSparseMatmul(b, loc, lhs, *packed, b.getI8Type(), bits, why);
  if (failed(acc) || q->groupSize)
    return acc;
  // y[m, n] = acc[m, n] * scale[n] (or the tensor's scale): an elementwise
  // consumer, fused into the kernel's block loop.
  auto accType = cast<RankedTensorType>(acc->getType());
  SmallVector<float> scales(q->scales.begin(), q->scales.end());
  bool perTensor = scales.size() == 1;
  Value scaleValues = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(scales.size())}, b.getF32Type()),
          ArrayRef<float>(scales)));
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(2);
  AffineMap scaleMap =
      perTensor ? AffineMap::get(2, 0, {getAffineConstantExpr(0, ctx)}, ctx)
                : AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, *acc);
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  return linalg::GenericOp::create(
             b, loc, TypeRange{accType}, ValueRange{*acc, scaleValues},
             ValueRange{init}, SmallVector<AffineMap>{id, scaleMap, id},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &gb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   gb, l,
                   ValueRange{arith::MulFOp::create(gb, l, args[0], args[1])});
             })
      .getResult(0);
}

FailureOr<Value>
mlir::llm::detail::lowerSparseMatmulInteger(OpBuilder &b, MatmulIntegerOp op,
                                            Value a, const QuantParams &pa,
                                            std::string &why) {
  FailureOr<std::pair<SparseFormat, int64_t>> lowering = getSparseLowering(op);
  if (failed(lowering))
    return failure();
  // vpdpbusd where the configuration chose it. AMX tiles (a prefill on an
  // AMX-INT8 CPU) do about 8x its work per cycle, more than the blocks
  // skip: the dense AMX kernel by design. No configuration: no target to
  // say anything about.
  std::optional<bool> dot = getConfiguredInt8DotProduct(op);
  if (!dot || getConfiguredAMXInt8DotProduct(op).value_or(false))
    return failure();
  if (!*dot)
    return failBecause(why,
                       "the target has no 8-bit dot products (AVX512-VNNI or "
                       "AVX-VNNI)");
  auto [format, bits] = *lowering;
  const int64_t lanes = bits / 32;
  if ((bits != 256 && bits != 512) || format.kind != Kind::Block ||
      format.rows % lanes || format.cols % 4)
    return failBecause(
        why, "the W8A8 kernel takes blocks whose rows are a multiple of " +
                 std::to_string(lanes) +
                 " and whose columns are a multiple of 4 (bsr16x16)");
  auto at = cast<RankedTensorType>(a.getType());
  RankedTensorType rt = op.getRhs().getType(), type = op.getType();
  if (!at.hasStaticShape() || at.getRank() < 2 || !type.hasStaticShape() ||
      rt.getRank() != 2)
    return failBecause(why, "the shapes are not static");
  if (pa.storageWidth != 8 || !pa.isPerTensor())
    return failBecause(why, "the activation is not 8-bit with one zero point");
  const int64_t K = rt.getDimSize(0), N = rt.getDimSize(1);
  if (K == 0 || at.getShape().back() != K || at.getNumElements() == 0)
    return failure();
  const int64_t M = at.getNumElements() / K;
  // The weight's levels L = b - zb (0 where pruned; scales play no part).
  FailureOr<QuantizedWeightLevels> q =
      readQuantizedWeightLevels(op.getRhs(), /*nk=*/false, &why);
  if (failed(q)) {
    if (why.empty())
      why = "the weight is not a quantized constant";
    return failure();
  }
  FailureOr<PackedSparseWeight> w =
      packSparseWeight(q->levels, /*nk=*/false, N, K, format, lanes, why);
  if (failed(w))
    return failure();
  Location loc = op.getLoc();

  // Each block as `cols / 4` steps of R channels by 4 bytes of K (the
  // vpdpbusd operand: lane r holds L[k0 + 4s .. k0 + 4s + 3, n0 + r]).
  const int64_t R = format.rows, C = format.cols, RC = R * C, H = R / lanes;
  SmallVector<int8_t> bytes(w->values.size());
  for (size_t j = 0; j < w->colIdx.size(); ++j)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        bytes[j * RC + (c / 4) * R * 4 + r * 4 + c % 4] =
            int8_t(w->values[j * RC + c * R + r]);
  // sum_k (a - za) L = sum_k a' L - za' sum_k L, with a' = a + 128 and za'
  // = za + 128 for signed activations (u8 for vpdpbusd); the second term a
  // constant per column (i32, wrapping as the accumulator).
  const int64_t za = pa.zeroPoints[0] + (pa.isSigned ? 128 : 0);
  SmallVector<int32_t> comp(w->paddedN, 0);
  for (int64_t n = 0; n < N; ++n) {
    int64_t colSum = 0;
    for (int64_t k = 0; k < K; ++k)
      colSum += int64_t(q->levels[k * N + n]);
    comp[n] = int32_t(uint32_t(-za * colSum));
  }
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  Value values = constantArray(b, loc, i8, ArrayRef<int8_t>(bytes));
  Value rowPtr = constantArray(b, loc, i32, ArrayRef(w->rowPtr));
  Value colIdx = constantArray(b, loc, b.getI16Type(), ArrayRef(w->colIdx));
  Value compV = constantArray(b, loc, i32, ArrayRef<int32_t>(comp));

  // a' as [M, paddedK] (zeros past K meet zero levels).
  Value x = collapseRows(b, loc, a);
  if (pa.isSigned)
    x = flipSignBits(b, loc, x);
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  x = padColumns(b, loc, x, ofr(M), K, w->paddedK);

  auto idx = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  auto accType = VectorType::get({lanes}, i32);
  auto operandType = VectorType::get({lanes * 4}, i8);
  // Register tiles of up to 8 rows by H vectors: 16 accumulators (zmm; 8
  // ymm) beside the block's vectors and one broadcast.
  const int64_t mr = std::min<int64_t>(
      {8, std::max<int64_t>(1, (bits == 512 ? 16 : 8) / H), M});
  const bool vex = bits == 256;
  // 4-byte steps of K per loop iteration: as many as keep the accumulators,
  // the steps' weight vectors and their broadcasts in registers (32 zmm; 16
  // ymm under VEX) less two. LLVM's machine scheduler issues all of an
  // iteration's broadcasts first: with a whole 16x16 block per iteration (4
  // steps x 8 rows: 32 broadcasts beside 8 accumulators) it spilled 8 of
  // them per block, a store and a reload each. 128 x 4096 x 4096 at 25%
  // bsr16x16, Zen 5, one thread, the kernel alone, warm: 2.6-2.7 -> 2.0 ms
  // with two steps per iteration (1.9 ms with the scheduler off, the
  // ceiling of this loop).
  const int64_t steps = C / 4, registers = vex ? 16 : 32;
  int64_t per = 1;
  while (steps % (per * 2) == 0 && mr * H + per * 2 * (mr + H) <= registers - 2)
    per *= 2;
  auto emitTile = [&](OpBuilder &rb, Value unit, Value col, Value m0,
                      int64_t rows, Value tile) -> Value {
    Value lo = loadIndex(rb, loc, rowPtr, unit);
    Value hi = loadIndex(rb, loc, rowPtr,
                         arith::AddIOp::create(rb, loc, unit, idx(rb, 1)));
    Value zero = arith::ConstantOp::create(
        rb, loc, DenseElementsAttr::get(accType, rb.getI32IntegerAttr(0)));
    Value pad8 = arith::ConstantOp::create(rb, loc, rb.getZeroAttr(i8));
    // Iteration i: block i / (steps / per), its steps from (i mod (steps /
    // per)) per; step s of block j is the R x 4 bytes at (j steps + s) R 4
    // of `values`.
    const int64_t iters = steps / per;
    auto loop = scf::ForOp::create(
        rb, loc, arith::MulIOp::create(rb, loc, lo, idx(rb, iters)),
        arith::MulIOp::create(rb, loc, hi, idx(rb, iters)), idx(rb, 1),
        SmallVector<Value>(rows * H, zero),
        [&](OpBuilder &kb, Location, Value i, ValueRange accs) {
          SmallVector<Value> next(accs.begin(), accs.end());
          Value j = arith::DivUIOp::create(kb, loc, i, idx(kb, iters));
          Value first = arith::MulIOp::create(
              kb, loc, arith::RemUIOp::create(kb, loc, i, idx(kb, iters)),
              idx(kb, per));
          Value k0 = arith::AddIOp::create(
              kb, loc,
              arith::MulIOp::create(kb, loc, loadIndex(kb, loc, colIdx, j),
                                    idx(kb, C)),
              arith::MulIOp::create(kb, loc, first, idx(kb, 4)));
          Value base0 = arith::MulIOp::create(kb, loc, i, idx(kb, per * R * 4));
          for (int64_t s = 0; s < per; ++s) {
            SmallVector<Value> wv;
            for (int64_t h = 0; h < H; ++h)
              wv.push_back(vector::TransferReadOp::create(
                  kb, loc, operandType, values,
                  ValueRange{arith::AddIOp::create(
                      kb, loc, base0, idx(kb, s * R * 4 + h * lanes * 4))},
                  pad8, ArrayRef<bool>{true}));
            Value k = arith::AddIOp::create(kb, loc, k0, idx(kb, 4 * s));
            for (int64_t r = 0; r < rows; ++r) {
              // a'[m0 + r, k .. k + 3] as one i32, broadcast to the lanes.
              Value m = arith::AddIOp::create(kb, loc, m0, idx(kb, r));
              Value av = broadcastLhsWord(kb, loc, x, m, k, operandType,
                                          /*inBounds=*/true);
              for (int64_t h = 0; h < H; ++h)
                next[r * H + h] =
                    dotU8S8(kb, loc, next[r * H + h], av, wv[h], vex);
            }
          }
          scf::YieldOp::create(kb, loc, next);
        });
    Value pad32 = arith::ConstantOp::create(rb, loc, rb.getI32IntegerAttr(0));
    for (int64_t h = 0; h < H; ++h) {
      Value n = arith::AddIOp::create(
          rb, loc, arith::MulIOp::create(rb, loc, unit, idx(rb, R)),
          idx(rb, h * lanes));
      Value cv = vector::TransferReadOp::create(
          rb, loc, accType, compV, ValueRange{n}, pad32, ArrayRef<bool>{true});
      for (int64_t r = 0; r < rows; ++r)
        tile =
            vector::TransferWriteOp::create(
                rb, loc,
                arith::AddIOp::create(rb, loc, loop.getResult(r * H + h), cv),
                tile,
                ValueRange{
                    arith::AddIOp::create(rb, loc, m0, idx(rb, r)),
                    arith::AddIOp::create(rb, loc, col, idx(rb, h * lanes))},
                ArrayRef<bool>{true})
                .getResult();
    }
    return tile;
  };
  Value r =
      buildUnitLoops(b, loc, ofr(M), w->paddedN / R, R, mr, N, i32, emitTile);
  return expandRows(b, loc, r, type);
}
