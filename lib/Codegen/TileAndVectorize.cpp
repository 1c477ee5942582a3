//===- TileAndVectorize.cpp - CPU tiling and vectorization ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-tile-and-vectorize`: the CPU tiling strategy for
// linalg on tensors. Matmuls get a parallel outer loop (with the fill of the
// accumulator fused in), cache tiles, register tiles and a vectorized
// register tile whose accumulator stays in registers across the K loop.
// Other static linalg ops get a parallel outer loop. Every size comes from a
// CPUTargetDescription.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/Transforms.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/AsmState.h"

#include <cstring>
#include <functional>

#define DEBUG_TYPE "llm-tile-and-vectorize"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMTILEANDVECTORIZEPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// True if every operand of `op` is a statically shaped tensor (or scalar).
static bool hasStaticTensorShapes(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<ShapedType>(v.getType()); t && !t.hasStaticShape())
      return false;
  return true;
}

/// The ops of type OpT under `root` that carry the unit attribute `marker`
/// (a lowering's request to llm-tile-and-vectorize), in walk order, with the
/// marker removed.
template <typename OpT>
static SmallVector<OpT> takeMarked(Operation *root, StringRef marker) {
  SmallVector<OpT> ops;
  root->walk([&](OpT op) {
    if (op->hasAttr(marker))
      ops.push_back(op);
  });
  for (OpT op : ops)
    op->removeAttr(marker);
  return ops;
}

/// Marks the register tiles of matmuls between tiling and vectorization.
static constexpr llvm::StringLiteral kRegisterTileAttr =
    "__llm_register_tile__";

/// Rounds `v` up to a multiple of `m` (m > 0).
static int64_t roundUp(int64_t v, int64_t m) {
  return llvm::divideCeil(v, m) * m;
}

/// Tiles `op` with `sizes` using loops of `loopType`; replaces `op` and
/// returns the tiling result.
static FailureOr<scf::SCFTilingResult>
tileWith(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
         scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions opts;
  opts.setLoopType(loopType);
  opts.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> res = scf::tileUsingSCF(rewriter, op, opts);
  if (failed(res))
    return failure();
  rewriter.replaceOp(op, res->replacements);
  return res;
}

/// acc[i, :] = f(acc[i, :], ...) for each row i -> scf.for i { one vector
/// of the row } (kVectorizeRowsAttr): a static `op` whose first and last
/// loops are parallel (rows, and the contiguous dimension of a row; loops
/// between them may be reductions, e.g. partial row sums [i, k, c] ->
/// [i, c]) tiled into rows [1, ...], each vectorized
/// (a reduction between them then combines whole vectors). LLVM would
/// otherwise unroll a short row (N not a multiple of the vector width) and
/// vectorize across the rows, N elements apart, with gathers and scatters.
static LogicalResult vectorizeRows(RewriterBase &rewriter,
                                   linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.size() < 2 ||
      iterators.front() != utils::IteratorType::parallel ||
      iterators.back() != utils::IteratorType::parallel ||
      !hasStaticTensorShapes(op))
    return failure();
  // Vectors of i1 (a boolean mask) would be loaded as packed bits, while a
  // tensor of i1 is stored one byte per element: those stay scalar.
  if (llvm::any_of(op->getOperandTypes(), [](Type t) {
        Type e = getElementTypeOrSelf(t);
        return !e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8 != 0;
      }))
    return failure();
  SmallVector<int64_t> rowTile(iterators.size(), 0);
  rowTile.front() = 1;
  FailureOr<scf::SCFTilingResult> rows =
      tileWith(rewriter, cast<TilingInterface>(op.getOperation()), rowTile,
               scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(rows) || rows->tiledOps.size() != 1)
    return failure();
  auto row = cast<linalg::LinalgOp>(rows->tiledOps.front());
  if (!hasStaticTensorShapes(row) ||
      failed(linalg::vectorizeOpPrecondition(row)))
    return failure();
  rewriter.setInsertionPoint(row);
  FailureOr<linalg::VectorizationResult> vec = linalg::vectorize(rewriter, row);
  if (failed(vec))
    return failure();
  rewriter.replaceOp(row, vec->replacements);
  return success();
}

/// Splits the contraction `op` along its dynamic parallel dimension `dim`
/// into loops of tiles of static size along it, one loop per entry of
/// `steps` (decreasing, ending with 1), each starting where the previous one
/// stopped:
///   for i in [lo, lo + step * floor((size - lo) / step)) step `step`
/// With steps {8, 4, 2, 1}: full 8-row tiles, then at most one tile each of
/// 4, 2 and 1 rows. Correct for any size. The other dimensions keep their
/// sizes (static or dynamic). Each tile (a copy of `op` over its slice) goes
/// to `pieces` with its size along `dim`. Used for a dynamic M (the
/// sequence length, or a thread's chunk min(chunk, M - i)) and a dynamic N
/// (the last cache tile of columns, or a thread's chunk), whose peeled
/// remainders were dynamic tiles left to the scalar lowering: a 135-row
/// prefill of a sequence-bounded [?, 768] @ [768, 768] took 3.1x its static
/// time on a Zen 5 core, and the 37-token Llama layer of d 200 ran 2.4x
/// slower on two threads than on one.
static LogicalResult
splitDynamicDim(RewriterBase &rewriter, linalg::LinalgOp op, unsigned dim,
                ArrayRef<int64_t> steps,
                SmallVectorImpl<std::pair<linalg::LinalgOp, int64_t>> &pieces) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!linalg::isaContractionOpInterface(op) || op->getNumResults() != 1 ||
      dim >= ranges.size() || ShapedType::isStatic(ranges[dim]) ||
      op.getIteratorTypesArray()[dim] != utils::IteratorType::parallel ||
      steps.empty() || steps.back() != 1)
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(op);
  SmallVector<Range> loopRanges = op.createLoopRanges(rewriter, loc);
  Value size =
      getValueOrCreateConstantIndexOp(rewriter, loc, loopRanges[dim].size);
  Value acc = op.getDpsInits()[0];
  Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
  AffineExpr lo = getAffineSymbolExpr(0, ctx), hi = getAffineSymbolExpr(1, ctx);
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> tiles;
  for (int64_t step : steps) {
    Value upper =
        step == 1
            ? size
            : affine::AffineApplyOp::create(
                  rewriter, loc,
                  AffineMap::get(0, 2, lo + (hi - lo).floorDiv(step) * step),
                  ValueRange{lower, size})
                  .getResult();
    Value stepValue = arith::ConstantIndexOp::create(rewriter, loc, step);
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, stepValue,
                                   ValueRange{acc});
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    // `op` writing into the loop's accumulator, tiled to [iv, iv + step)
    // along `dim` and the whole of the other dimensions.
    SmallVector<OpFoldResult> offsets, sizes;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      offsets.push_back(d == dim ? OpFoldResult(loop.getInductionVar())
                                 : rewriter.getIndexAttr(0));
      sizes.push_back(d == dim ? rewriter.getIndexAttr(step)
                      : ShapedType::isStatic(range)
                          ? OpFoldResult(rewriter.getIndexAttr(range))
                          : loopRanges[d].size);
    }
    auto clone = cast<TilingInterface>(rewriter.clone(*op));
    cast<DestinationStyleOpInterface>(clone.getOperation())
        .getDpsInitsMutable()[0]
        .set(loop.getRegionIterArgs()[0]);
    FailureOr<TilingResult> tiled =
        clone.getTiledImplementation(rewriter, offsets, sizes);
    SmallVector<OpFoldResult> resultOffsets, resultSizes;
    bool ok = succeeded(tiled) && tiled->tiledOps.size() == 1 &&
              succeeded(clone.getResultTilePosition(
                  rewriter, 0, offsets, sizes, resultOffsets, resultSizes));
    rewriter.eraseOp(clone);
    if (!ok)
      return failure();
    SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                      rewriter.getIndexAttr(1));
    Value inserted = tensor::InsertSliceOp::create(
        rewriter, loc, tiled->tiledValues[0], loop.getRegionIterArgs()[0],
        resultOffsets, resultSizes, strides);
    scf::YieldOp::create(rewriter, loc, inserted);
    tiles.push_back({cast<linalg::LinalgOp>(tiled->tiledOps[0]), step});
    acc = loop.getResult(0);
    lower = upper;
  }
  rewriter.replaceOp(op, acc);
  llvm::append_range(pieces, tiles);
  return success();
}

/// Register-tiles the matmul tile `op` with `regSizes` (ForOp loops), marks
/// the tiles for vectorization (`beforePeel` sees the tile of each piece
/// below, before peeling) and peels the partial last iteration of each loop:
/// the main loops then hold full tiles of static size, the remainders are
/// tiles of their own (static once the bounds fold), also vectorized.
///
/// A remainder of N (dimension `nDim`) wider than one vector of `lanes` and
/// not a whole number of vectors is split off first (linalg::splitOp) into
/// its whole vectors (one-vector tiles) and the last partial one, each
/// register-tiled alone:
/// an [8, 24] f32 tile on AVX-512 lowers its 24-wide rows through element
/// inserts. N = 120 with 32-column tiles -> 3 x 32 + 16 + 8 (4096x64 @
/// 64x120 f32 on one Zen 5 core: 1.65 -> 0.26 ms; the same for attention's
/// P V with head dims 56, 88, 116, 120, 124).
///
/// `exactWidth` (B read from packed strips of width regSizes[nDim]): the
/// width is kept as given, and any remainder of N is split off, so that
/// every tile has a static width and lies inside one strip.
static LogicalResult
registerTileAndPeel(RewriterBase &rewriter, linalg::LinalgOp op,
                    ArrayRef<int64_t> regSizes, int64_t nDim, int64_t lanes,
                    function_ref<void(linalg::LinalgOp)> beforePeel = nullptr,
                    bool exactWidth = false) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A dynamic M (a parallel dimension that does not index the rhs): static
  // pieces of rm, 4, 2 and 1 rows; then a dynamic N: pieces of rn, one
  // vector, 4 and 1 columns. Each piece is register-tiled like a static
  // matmul (and split again along its other dynamic dimension).
  if (linalg::isaContractionOpInterface(op) && op.getNumDpsInputs() == 2) {
    AffineMap rhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    std::optional<unsigned> splitDim;
    SmallVector<int64_t> steps;
    for (auto [dim, range] : llvm::enumerate(ranges))
      if (ShapedType::isDynamic(range) &&
          iterators[dim] == utils::IteratorType::parallel &&
          !rhsMap.isFunctionOfDim(dim) && regSizes[dim] >= 1) {
        splitDim = dim;
        steps = {regSizes[dim]};
        for (int64_t step : {4, 2, 1})
          if (step < regSizes[dim])
            steps.push_back(step);
        break;
      }
    if (!splitDim && ShapedType::isDynamic(ranges[nDim]) &&
        iterators[nDim] == utils::IteratorType::parallel &&
        regSizes[nDim] >= 1) {
      splitDim = nDim;
      steps = {regSizes[nDim]};
      for (int64_t step : {lanes, int64_t(4), int64_t(1)})
        if (step >= 1 && step < steps.back())
          steps.push_back(step);
    }
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> pieces;
    if (splitDim &&
        succeeded(splitDynamicDim(rewriter, op, *splitDim, steps, pieces))) {
      for (auto [piece, size] : pieces) {
        SmallVector<int64_t> sizes(regSizes);
        sizes[*splitDim] = size;
        if (failed(registerTileAndPeel(rewriter, piece, sizes, nDim, lanes,
                                       beforePeel, exactWidth)))
          return failure();
      }
      return success();
    }
  }
  int64_t n = ranges[nDim], rn = regSizes[nDim];
  // Tile widths are a power of two times the vector: N itself when N is
  // below the register tile (24 -> 16), the small-M tiles' share of the
  // accumulators (3 rows: 80 -> 64; a [3, 80] tile also lowers through
  // element inserts); the rest is split below.
  if (!exactWidth && lanes > 0 && rn > lanes)
    rn = lanes * int64_t(llvm::bit_floor(uint64_t(rn / lanes)));
  int64_t rest = (ShapedType::isStatic(n) && rn > 0) ? n % rn : 0;
  bool splitVectors = lanes > 0 && rest > lanes && rest % lanes != 0;
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> pieces{{op, rn}};
  if (rest > 0 && n > rest && (splitVectors || exactWidth)) {
    rewriter.setInsertionPoint(op);
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        nDim, rewriter.getIndexAttr(n - rest));
    if (!head || !tail)
      return failure();
    pieces = {{cast<linalg::LinalgOp>(head.getOperation()), rn}};
    if (splitVectors) {
      rewriter.setInsertionPoint(tail);
      auto [whole, partial] = linalg::splitOp(
          rewriter, tail, nDim, rewriter.getIndexAttr(rest / lanes * lanes));
      if (!whole || !partial)
        return failure();
      pieces.push_back({cast<linalg::LinalgOp>(whole.getOperation()), lanes});
      pieces.push_back(
          {cast<linalg::LinalgOp>(partial.getOperation()), rest % lanes});
    } else {
      // Whole vectors (rest a multiple of lanes), or less than one.
      pieces.push_back({cast<linalg::LinalgOp>(tail.getOperation()),
                        lanes > 0 && rest > lanes ? lanes : rest});
    }
  }
  for (auto [piece, width] : pieces) {
    SmallVector<int64_t> sizes(regSizes);
    sizes[nDim] = width;
    FailureOr<scf::SCFTilingResult> reg =
        tileWith(rewriter, cast<TilingInterface>(piece.getOperation()), sizes,
                 scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(reg))
      return failure();
    auto tiled = cast<linalg::LinalgOp>(reg->tiledOps.back());
    tiled->setAttr(kRegisterTileAttr, rewriter.getUnitAttr());
    // Before peeling, so that the peeled copies see it too.
    if (beforePeel)
      beforePeel(tiled);
    // Innermost first: the remainder of an outer loop is a copy of the
    // peeled inner loops, so that a partial row tile has full column tiles
    // too (12 rows: the 4-row remainder's 32-column tiles stay static).
    SmallVector<scf::ForOp> loops;
    for (LoopLikeOpInterface loop : llvm::reverse(reg->loops))
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        loops.push_back(forOp);
    linalg::peelLoops(rewriter, loops);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Transposed weights
//===----------------------------------------------------------------------===//

/// matmul(A, B^T) with B stored [N, K] (`affine_map<(m, n, k) -> (n, k)>`)
///   -> matmul(A, transpose(B)) with a [K, N] copy of B,
/// when M has at least `minRows` rows. The register tile reads rows of B; on
/// the [N, K] layout each of them would be a strided gather, so for enough
/// rows one transposed copy of B (N*K elements, parallelized like any big
/// linalg op) is much cheaper than 2*M*N*K flops of gathers.
static FailureOr<linalg::LinalgOp>
materializeTransposedRhs(RewriterBase &rewriter, linalg::LinalgOp op,
                         int64_t minRows) {
  auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
  if (!matmul || !hasStaticTensorShapes(op) || op->getNumResults() != 1)
    return failure();
  MLIRContext *ctx = op->getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      maps[1] != AffineMap::get(3, 0, {n, k}, ctx) ||
      maps[2] != AffineMap::get(3, 0, {m, n}, ctx))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[0] < minRows)
    return failure();
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value acc = op.getDpsInitOperand(0)->get();
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value empty = tensor::EmptyOp::create(rewriter, loc,
                                        ArrayRef<int64_t>{ranges[2], ranges[1]},
                                        rhsType.getElementType());
  auto transposed = linalg::TransposeOp::create(rewriter, loc, rhs, empty,
                                                ArrayRef<int64_t>{1, 0});
  auto plain = linalg::MatmulOp::create(
      rewriter, loc, TypeRange{op->getResult(0).getType()},
      ValueRange{lhs, transposed->getResult(0)}, ValueRange{acc});
  // The tuned tiles stay with the matmul.
  if (Attribute config = op->getAttr(kLoweringConfigAttrName))
    plain->setAttr(kLoweringConfigAttrName, config);
  rewriter.replaceOp(op, plain->getResults());
  return cast<linalg::LinalgOp>(plain.getOperation());
}

//===----------------------------------------------------------------------===//
// Packed B strips
//===----------------------------------------------------------------------===//

/// Marks the run-time packing transposes created below (the strip width).
static constexpr llvm::StringLiteral kPackedRhsAttr = "__llm_packed_rhs__";

/// The run-time packing `transpose` ([K, N / nr, nr] -> [N / nr, K, nr])
/// as copies of whole rows of nr elements: an outer loop over the strips
/// (an scf.forall over about one chunk per thread when `threads` > 1) and
/// [1, 1, nr] tiles marked for vectorization (one vector read and write of
/// the row each). The outermost loop takes over the kPackedRhsAttr marker;
/// returns the packed value (the transpose's result when it stays whole).
static Value tilePackingForCPU(RewriterBase &rewriter,
                               linalg::TransposeOp transpose,
                               int64_t threads) {
  Attribute marker = transpose->getAttr(kPackedRhsAttr);
  Value whole = transpose->getResult(0);
  auto type = cast<RankedTensorType>(transpose.getInit().getType());
  int64_t strips = type.getDimSize(0);
  Operation *op = transpose.getOperation();
  Operation *outerLoop = nullptr;
  Value result = whole;
  if (threads > 1 && strips > 1) {
    FailureOr<scf::SCFTilingResult> outer =
        tileWith(rewriter, cast<TilingInterface>(op),
                 {static_cast<int64_t>(llvm::divideCeil(strips, threads)), 0, 0},
                 scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(outer))
      return whole;
    op = outer->tiledOps.back();
    outerLoop = outer->loops.front().getOperation();
    result = outer->replacements.front();
  }
  FailureOr<scf::SCFTilingResult> rows =
      tileWith(rewriter, cast<TilingInterface>(op), {1, 1, 0},
               scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(rows))
    return result;
  if (!outerLoop) {
    outerLoop = rows->loops.front().getOperation();
    result = rows->replacements.front();
  }
  rows->tiledOps.back()->removeAttr(kPackedRhsAttr);
  rows->tiledOps.back()->setAttr(kRegisterTileAttr, rewriter.getUnitAttr());
  outerLoop->setAttr(kPackedRhsAttr, marker);
  return result;
}

/// The f32 values `data` as 16-bit floats of `to` (f16 or bf16), when
/// every value is exactly representable (so that widening gives back the
/// same f32 bits); std::nullopt otherwise (also for a NaN, whose payload
/// is not kept). Bit arithmetic on the IEEE encodings: a weight holds up
/// to a few hundred million values.
static std::optional<std::vector<uint16_t>> narrowExactly(ArrayRef<char> data,
                                                          FloatType to) {
  size_t count = data.size() / sizeof(uint32_t);
  std::vector<uint16_t> out(count);
  bool bf16 = to.isBF16();
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data.data() + i * sizeof(uint32_t), sizeof(bits));
    uint32_t sign = bits >> 31, exp = (bits >> 23) & 0xff,
             mant = bits & 0x7fffff;
    if (exp == 0xff && mant != 0)
      return std::nullopt;
    if (bf16) {
      // bf16 is the upper half of an f32 (same exponent range).
      if (bits & 0xffff)
        return std::nullopt;
      out[i] = static_cast<uint16_t>(bits >> 16);
      continue;
    }
    uint16_t half = static_cast<uint16_t>(sign << 15);
    if (exp == 0xff) {
      // +-inf.
      half |= 0x7c00;
    } else if (exp != 0 || mant != 0) {
      if (exp == 0)
        return std::nullopt; // An f32 subnormal is below f16's range.
      int32_t e = static_cast<int32_t>(exp) - 127;
      if (e > 15 || e < -24)
        return std::nullopt;
      if (e >= -14) {
        // Normal: 10 of the 23 mantissa bits kept.
        if (mant & 0x1fff)
          return std::nullopt;
        half |= static_cast<uint16_t>(((e + 15) << 10) | (mant >> 13));
      } else {
        // Subnormal: (2^23 + mant) 2^(e - 23) = q 2^-24, q < 1024.
        uint32_t significand = mant | 0x800000;
        uint32_t shift = static_cast<uint32_t>(-e - 1);
        if (significand & ((1u << shift) - 1))
          return std::nullopt;
        half |= static_cast<uint16_t>(significand >> shift);
      }
    }
    out[i] = half;
  }
  return out;
}

/// B [K, N] stored as ceil(N / nr) strips of [K, nr] ("packed"), so that
/// the register tile reads one contiguous row of nr elements per step of K
/// instead of a row of B every N elements (a new page per step of K):
///   Bp[j, k, c] = B[k, j * nr + c]   (0 for j * nr + c >= N).
/// A constant B (dense or dense_resource, byte-sized elements) is packed at
/// compile time into a new constant, its last strip padded with zeros when
/// nr does not divide N (GPT-2's 50257-wide LM head: 1571 strips, the last
/// holding 17 columns); any other B, whose N must be a multiple of nr, gets
///   transpose(expand_shape(B) : [K, N / nr, nr], [1, 0, 2])
/// right after its definition (reused by every matmul with the same B and
/// nr). Returns null when B is neither a constant nor defined in the
/// function body (a value of an enclosing region stays unpacked), and for a
/// non-constant B whose N is not a multiple of nr.
///
/// With `narrow`, an f32 constant whose values are all exactly f16 (else
/// bf16) values is packed as f16 (bf16): the register tile widens each row
/// it reads (readPackedRhs), with the same products and sums. This is the
/// weight of an f16/bf16 matmul that llm-promote-contraction-inputs runs
/// in f32: its strips are then those of the decode matvec that reads the
/// same weight unpromoted, and a generation model stores one 16-bit copy
/// (equal constants are stored once, externalizeConstants) instead of
/// adding an f32 one; any other such f32 weight is read in half the bytes.
static Value getOrCreatePackedRhs(RewriterBase &rewriter, Value rhs, int64_t nr,
                                  int64_t threads, bool narrow) {
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t kDim = type.getDimSize(0), nDim = type.getDimSize(1);
  Type elem = type.getElementType();
  int64_t strips = llvm::divideCeil(nDim, nr);
  auto packedType = RankedTensorType::get({strips, kDim, nr}, elem);
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = rhs.getLoc();

  // constant -> packed constant.
  if (auto cst = rhs.getDefiningOp<arith::ConstantOp>()) {
    auto attr = dyn_cast<ElementsAttr>(cst.getValue());
    if (!attr || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
      return nullptr;
    int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
    ArrayRef<char> data;
    DenseResourceElementsAttr resource;
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      if (dense.isSplat()) {
        rewriter.setInsertionPointAfter(cst);
        return arith::ConstantOp::create(rewriter, loc,
                                         dense.resizeSplat(packedType));
      }
      data = dense.getRawData();
    } else if ((resource = dyn_cast<DenseResourceElementsAttr>(attr))) {
      data = resource.getData();
    } else {
      return nullptr;
    }
    if (static_cast<int64_t>(data.size()) != kDim * nDim * bytes)
      return nullptr;
    // f32 -> f16 or bf16 when exact (see above).
    std::optional<std::vector<uint16_t>> narrowed;
    if (narrow && elem.isF32()) {
      for (FloatType to : {FloatType(rewriter.getF16Type()),
                           FloatType(rewriter.getBF16Type())})
        if ((narrowed = narrowExactly(data, to))) {
          elem = to;
          break;
        }
      if (narrowed) {
        bytes = 2;
        packedType = packedType.clone(elem);
        data = ArrayRef<char>(reinterpret_cast<const char *>(narrowed->data()),
                              narrowed->size() * sizeof(uint16_t));
      }
    }
    // Zero-initialized: the padding columns of the last strip stay 0.
    std::vector<char> out(strips * kDim * nr * bytes, 0);
    for (int64_t j = 0; j < strips; ++j) {
      int64_t width = std::min(nr, nDim - j * nr);
      for (int64_t kk = 0; kk < kDim; ++kk)
        std::memcpy(out.data() + ((j * kDim + kk) * nr) * bytes,
                    data.data() + (kk * nDim + j * nr) * bytes, width * bytes);
    }
    // In the form of the source (a resource, or uniqued by value), as the
    // equal strips of an unpromoted matvec of the same weight are.
    TypedAttr packed;
    if (resource) {
      std::string name = resource.getRawHandle().getKey().str();
      if (narrowed)
        name += elem.isF16() ? "_f16" : "_bf16";
      name += "_packed" + std::to_string(nr);
      packed = DenseResourceElementsAttr::get(
          packedType, name,
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              ArrayRef<char>(out.data(), out.size()), bytes));
    } else {
      packed = DenseElementsAttr::getFromRawBuffer(
          packedType, ArrayRef<char>(out.data(), out.size()));
    }
    rewriter.setInsertionPointAfter(cst);
    return arith::ConstantOp::create(rewriter, loc, packed);
  }

  // A run-time packing has whole strips only.
  if (nDim % nr != 0)
    return nullptr;
  // Only values of the function body: the packing must not land inside a
  // tile loop or a fusion group.
  Region *region = rhs.getParentRegion();
  if (!region || !isa<func::FuncOp>(region->getParentOp()))
    return nullptr;
  // An earlier packing of `rhs` (its loop nest, or the transpose itself,
  // carries kPackedRhsAttr).
  for (Operation *user : rhs.getUsers())
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user))
      for (Operation *u : expand->getUsers())
        for (Operation *p = u; p && p != region->getParentOp();
             p = p->getParentOp())
          if (auto a = p->getAttrOfType<IntegerAttr>(kPackedRhsAttr);
              a && a.getInt() == nr && p->getNumResults() == 1 &&
              p->getResult(0).getType() == packedType)
            return p->getResult(0);
  rewriter.setInsertionPointAfterValue(rhs);
  auto expandedType = RankedTensorType::get({kDim, nDim / nr, nr}, elem);
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, expandedType, rhs,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{nDim / nr, kDim, nr}, elem);
  auto transpose = linalg::TransposeOp::create(rewriter, loc, expanded, empty,
                                               ArrayRef<int64_t>{1, 0, 2});
  transpose->setAttr(kPackedRhsAttr, rewriter.getI64IntegerAttr(nr));
  return tilePackingForCPU(rewriter, transpose, threads);
}

/// In the register tile `tile` (a matmul [rm, w, rk] tiled out of a matmul
/// whose B operand is `rhs`, its w columns inside one strip: a full strip,
/// or a piece of the last, partial one):
///   B slice = extract_slice(... extract_slice(rhs)) at [k0, n0] (unit
///   strides)
///   -> extract_slice Bp[n0 floordiv nr, k0, n0 mod nr] [1, rk, w]
///      (rank-reducing)
/// Fails, changing nothing, when the chain of slices does not lead to `rhs`,
/// the tile's K size is dynamic or its static width exceeds nr.
static LogicalResult readPackedRhs(RewriterBase &rewriter,
                                   linalg::LinalgOp tile, Value rhs,
                                   Value packed, int64_t nr) {
  OpOperand *operand = tile.getDpsInputOperand(1);
  SmallVector<tensor::ExtractSliceOp> chain;
  Value v = operand->get();
  while (v != rhs) {
    auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || slice.getSourceType().getRank() != 2 ||
        slice.getResultType().getRank() != 2 ||
        !llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
          return isConstantIntValue(s, 1);
        }))
      return failure();
    chain.push_back(slice);
    v = slice.getSource();
  }
  if (chain.empty())
    return failure();
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  OpFoldResult kOff = rewriter.getIndexAttr(0), nOff = kOff;
  for (tensor::ExtractSliceOp slice : chain) {
    SmallVector<OpFoldResult> offs = slice.getMixedOffsets();
    kOff = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1,
                                                 {kOff, offs[0]});
    nOff = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1,
                                                 {nOff, offs[1]});
  }
  // The tile's width: static (a full strip, or a piece of the last one),
  // or dynamic inside a partial outer tile of N, whose offset is a multiple
  // of nr (every outer tile of N is), so that the tile never crosses a strip.
  auto tileType = cast<RankedTensorType>(operand->get().getType());
  if (ShapedType::isDynamic(tileType.getDimSize(0)) ||
      (tileType.hasStaticShape() && tileType.getDimSize(1) > nr))
    return failure();
  int64_t rows = tileType.getDimSize(0);
  OpFoldResult width = chain.front().getMixedSizes()[1];
  OpFoldResult strip = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(nr), {nOff});
  // A tile of a whole strip's width inside one strip starts at its column
  // 0; a narrower one at n0 mod nr.
  OpFoldResult column = tileType.getDimSize(1) == nr
                            ? rewriter.getIndexAttr(0)
                            : affine::makeComposedFoldedAffineApply(
                                  rewriter, loc, d0 % nr, {nOff});
  auto packedType = cast<RankedTensorType>(packed.getType());
  auto sliceType = RankedTensorType::get({rows, tileType.getDimSize(1)},
                                         packedType.getElementType());
  Value newSlice = tensor::ExtractSliceOp::create(
      rewriter, loc, sliceType, packed,
      ArrayRef<OpFoldResult>{strip, kOff, column},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(rows), width},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
  auto operandType = cast<RankedTensorType>(operand->get().getType());
  if (newSlice.getType() != operandType.clone(packedType.getElementType()))
    newSlice = tensor::CastOp::create(
        rewriter, loc, operandType.clone(packedType.getElementType()),
        newSlice);
  if (packedType.getElementType() == operandType.getElementType()) {
    rewriter.modifyOpInPlace(tile, [&] { operand->set(newSlice); });
    return success();
  }
  // Narrowed strips (getOrCreatePackedRhs): the tile as a linalg.generic
  // that widens each element of the 16-bit slice before its own body.
  auto generic = dyn_cast<linalg::GenericOp>(tile.getOperation());
  if (!generic) {
    // (The register-tile marker moves to the generic.)
    DictionaryAttr marks = tile->getDiscardableAttrDictionary();
    FailureOr<linalg::GenericOp> general =
        linalg::generalizeNamedOp(rewriter, tile);
    if (failed(general))
      return failure();
    generic = *general;
    generic->setDiscardableAttrs(marks);
  }
  readInputWidened(rewriter, generic, generic.getDpsInputOperand(1), newSlice);
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul strategy
//===----------------------------------------------------------------------===//

MatmulTiles mlir::llm::normalizeMatmulTiles(ArrayRef<int64_t> registerTile,
                                            ArrayRef<int64_t> cacheTile,
                                            const MatmulProblem &problem) {
  int64_t m = problem.m, n = problem.n, k = problem.k;
  MatmulTiles t;
  t.regM = std::clamp<int64_t>(registerTile[0], 1, m);
  t.regN = std::clamp<int64_t>(registerTile[1], 1, n);
  t.regK = std::clamp<int64_t>(registerTile[2], 1, k);
  // Rows of the outer (parallel) chunks: all of M for 0.
  t.cacheM = (cacheTile[0] <= 0 || cacheTile[0] >= m) ? m : cacheTile[0];
  // Along N: a multiple of the register tile, or all of N.
  int64_t cn = cacheTile[1];
  t.cacheN = (cn <= 0 || cn >= n) ? n : std::max(t.regN, cn / t.regN * t.regN);
  // Along K: a divisor of K (no partial K tile, whose dynamic size would
  // keep its register tiles from vectorizing) in [ck / 2, ck] and a
  // multiple of the register tile; all of K when there is none.
  t.cacheK = k;
  int64_t ck = cacheTile[2];
  if (ck > 0 && ck < k) {
    for (int64_t c = ck / t.regK * t.regK; c >= t.regK && 2 * c >= ck;
         c -= t.regK) {
      if (k % c == 0) {
        t.cacheK = c;
        break;
      }
    }
  }
  return t;
}

MatmulTiles mlir::llm::selectMatmulTiles(const CPUTargetDescription &target,
                                         const MatmulProblem &problem) {
  int64_t m = problem.m, n = problem.n;
  // Few rows (a decode-shaped matvec, M = 1): the generic register tile
  // would read 32 floats of each row of B per step of K, one page apart, and
  // stream B at a fraction of the memory bandwidth. Instead a wide register
  // tile (more accumulators along N) under a short K cache tile: each block
  // of `kc` rows of B is read along whole rows, a few sequential streams.
  bool smallM =
      m < target.matmulRegisterTile[0] && target.matvecRegisterTile.size() == 3;
  ArrayRef<int64_t> regTile =
      smallM ? ArrayRef<int64_t>(target.matvecRegisterTile)
             : ArrayRef<int64_t>(target.matmulRegisterTile);
  ArrayRef<int64_t> cacheTile = smallM
                                    ? ArrayRef<int64_t>(target.matvecCacheTile)
                                    : ArrayRef<int64_t>(target.matmulCacheTile);
  // Register tile. Small M: every row in the one tile (m <
  // matmulRegisterTile[0]), so that B is read once, not once per row.
  int64_t rm = smallM ? m : std::min(regTile[0], m);
  int64_t rn = std::min(regTile[1], n);
  // The small-M tile holds about regTile[1] accumulator lanes per row of a
  // one-row tile: split them over the rows (at least one vector per row).
  // With several threads, narrow it so that N splits into a tile per thread.
  if (smallM) {
    int64_t lanes =
        problem.accType ? target.getVectorLanes(problem.accType) : int64_t(1);
    if (rm > 1)
      rn = std::min(n, std::max(lanes, regTile[1] / rm / lanes * lanes));
    if (problem.threads > 1 && problem.batch == 1)
      rn = std::min(rn, std::max(lanes, n / problem.threads / lanes * lanes));
  }
  // One thread and a static M that leaves a ragged last register tile
  // (neither none nor half a tile): the target's tail tile, r or r - 1
  // rows, whichever needs fewer tiles, then the one whose last tile is
  // fuller (CPUTargetDescription::matmulTailRegisterTile; at two threads
  // the same shapes measured either way). Only for N a multiple of its
  // columns: B's packed strips are the regular tile's width otherwise.
  ArrayRef<int64_t> tail = target.matmulTailRegisterTile;
  if (!smallM && !problem.dynamicM && problem.threads == 1 &&
      tail.size() == 3 && m > rm && m % rm != 0 && 2 * (m % rm) != rm &&
      tail[0] > 1 && n % tail[1] == 0) {
    auto tiles = [&](int64_t r) { return llvm::divideCeil(m, r); };
    auto last = [&](int64_t r) { return m - (tiles(r) - 1) * r; };
    int64_t r = tail[0], s = tail[0] - 1;
    rm = tiles(s) < tiles(r) || (tiles(s) == tiles(r) && last(s) > last(r)) ? s
                                                                            : r;
    rn = tail[1];
  }
  int64_t reg[3] = {rm, rn, regTile[2]};
  int64_t cache[3] = {target.matmulCacheTile[0], cacheTile[1], cacheTile[2]};
  return normalizeMatmulTiles(reg, cache, problem);
}

LogicalResult mlir::llm::tileMatmulForCPU(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const CPUTargetDescription &target,
                                          const CPUTilingOptions &options,
                                          TilingInterface epilogue,
                                          const ProducerFilter &fuseProducer) {
  bool isBatch = isa<linalg::BatchMatmulOp>(op);
  if (!isa<linalg::MatmulOp>(op) && !isBatch)
    return failure();
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return failure();

  // Iteration space: [b,] m, n, k.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned b = isBatch ? 1 : 0;
  unsigned numLoops = ranges.size();
  if (numLoops != b + 3)
    return failure();
  // A dynamic M (the rows are the function's sequence, DimBounds.h): the
  // tiles are chosen for the declared bound, the loops run to the run-time
  // M, and the partial last register tile is peeled like a static
  // remainder.
  bool dynamicM = false;
  if (!hasStaticTensorShapes(op)) {
    std::optional<int64_t> bound = getSequenceBound(op);
    if (isBatch || !bound || !ShapedType::isDynamic(ranges[b]) ||
        ShapedType::isDynamic(ranges[b + 1]) ||
        ShapedType::isDynamic(ranges[b + 2]))
      return failure();
    ranges[b] = *bound;
    dynamicM = true;
  }
  int64_t batch = isBatch ? ranges[0] : 1;
  int64_t m = ranges[b], n = ranges[b + 1], k = ranges[b + 2];
  if (m <= 0 || n <= 0 || k <= 0)
    return failure();

  // Too little work for a fork/join: a serial outer loop. A decode matvec
  // does little arithmetic per byte of B: it stays parallel for a B of
  // 256 KiB or more (two cores stream it faster than one).
  int64_t bBytes =
      batch * n * k *
      llvm::divideCeil(getElementTypeOrSelf(op.getDpsInputs()[1].getType())
                           .getIntOrFloatBitWidth(),
                       8);
  bool parallel =
      options.parallel && (batch * m * n * k >= target.minParallelMatmulWork ||
                           bBytes >= (int64_t(1) << 18));
  // The tiles are the parallel ones all the same (a loop of at least two
  // tiles keeps a fusion group one loop nest); only the loop is serial.
  int64_t threads = options.parallel ? target.getNumThreads() : 1;
  MatmulProblem problem;
  problem.batch = batch;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.accType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  problem.threads = threads;
  problem.dynamicM = dynamicM;
  // A decode-shaped matvec (fewer rows than the register tile): no packing.
  bool smallM =
      m < target.matmulRegisterTile[0] && target.matvecRegisterTile.size() == 3;
  // The tuned tiles recorded on the op (llm-apply-tuning-cache), else the
  // target's.
  MatmulTiles tiles = selectMatmulTiles(target, problem);
  std::optional<ConfiguredMatmulTiles> configured =
      getConfiguredMatmulTiles(op);
  if (configured)
    tiles = normalizeMatmulTiles(configured->registerTile,
                                 configured->cacheTile, problem);
  int64_t rm = tiles.regM, rn = tiles.regN, rk = tiles.regK;
  int64_t cn = tiles.cacheN, ck = tiles.cacheK;

  // Pack B into [K, rn] strips (see getOrCreatePackedRhs) for plain
  // matmuls with enough rows to amortize a run-time packing (a constant is
  // packed at compile time, its last strip zero-padded when rn does not
  // divide N; a run-time packing needs whole strips).
  Value rhs = op.getDpsInputOperand(1)->get();
  // A run-time packing reads and writes B once: only for a B larger than
  // L2 (smaller ones stay cached across the register tiles anyway) and at
  // least four register tiles of rows.
  Value packedRhs;
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  bool constRhs = rhs.getDefiningOp<arith::ConstantOp>() != nullptr;
  Type rhsElem = rhsType.getElementType();
  int64_t rhsBytes =
      rhsElem.isIntOrFloat()
          ? rhsType.getNumElements() *
                llvm::divideCeil(rhsElem.getIntOrFloatBitWidth(), 8)
          : 0;
  bool packable =
      rhsElem.isIntOrFloat() && !isBatch && target.packMatmulRhs &&
      op.getIndexingMapsArray() ==
          linalg::MatmulOp::getDefaultIndexingMaps(op->getContext());
  // A decode-shaped matvec by a constant B reads the strips that a matmul
  // with more rows packs it into (the width of the target's matmul register
  // tile): the prefill and decode entries of a generation model then hold
  // one copy of each weight (equal constants are stored once,
  // externalizeConstants). Each strip is one contiguous stream of K rows of
  // `packWidth` elements: no K cache tile; two vectors of accumulators per
  // register tile already stream B faster than memory delivers it.
  int64_t packWidth = target.matmulRegisterTile[1];
  // A constant's last strip may be partial (zero padded at compile time).
  bool packDecode = packable && smallM && constRhs && !dynamicM &&
                    !configured && n > packWidth;
  if (packDecode) {
    rn = packWidth;
    rk = 1;
    ck = k;
    cn = cn >= n ? n : std::max(rn, cn / rn * rn);
  }
  // A constant is packed at compile time, so one register tile of rows is
  // enough (8-15 rows read the [K, N] weight with a row stride of N: 4096 x
  // 4096 took 3.4x the time of 16 rows on a Zen 5 core).
  bool packRows =
      packable && !smallM && (constRhs || n % rn == 0) && n > rn && rk == 1 &&
      (constRhs ? m >= rm : m >= 4 * rm && rhsBytes >= target.packRhsMinBytes);
  if (packDecode || packRows)
    packedRhs = getOrCreatePackedRhs(rewriter, rhs, rn, threads,
                                     /*narrow=*/target.name != "generic");

  // Outer (parallel) level: one chunk of M rows (a multiple of the register
  // tile, at most the cache tile) per thread; batches are split one by one.
  // When M has too few register tiles for the threads, split N instead.
  int64_t cm = tiles.cacheM;
  SmallVector<int64_t> outer(numLoops, 0);
  if (isBatch)
    outer[0] = 1;
  int64_t pm =
      std::min(roundUp(llvm::divideCeil(m, threads), rm), roundUp(cm, rm));
  // Also when the rows would leave a thread a partial register tile (12
  // rows, 2 threads: 8 + 4): each thread then takes every row of its
  // columns, so that the row tiles stay static and are vectorized (the
  // partial chunk's dynamic remainder was left scalar: 12 x 1024 @ 1024 x
  // 1000 took 2.8x ONNX Runtime's time on one Zen 5 core).
  bool partialRowChunk = !dynamicM && m % pm != 0;
  // And when whole register tiles split the rows unevenly, the largest chunk
  // more than 5/4 of an even share (15 rows, 2 threads, 6-row tiles: 12 +
  // 3), if chunks of columns give the busiest thread less: each thread then
  // takes every row of its columns and reads only its part of B.
  // 13-15 x 768 @ 768 x 3072 at two Zen 3 threads: 0.57 -> 0.39 ms
  // (1.2-1.45x ONNX Runtime's time -> 0.78-0.97x). 37 x 360 keeps its rows
  // (24 + 13): three 128-column chunks would give one thread 256 columns.
  // A thread's chunk of columns when the threads split N.
  int64_t pn = std::min(roundUp(llvm::divideCeil(n, threads), rn), cn);
  int64_t busiestColumns = std::min<int64_t>(
      n, llvm::divideCeil(llvm::divideCeil(n, pn), threads) * pn);
  bool unevenRows = threads > 1 && batch == 1 && partialRowChunk &&
                    4 * pm * threads > 5 * m && busiestColumns * m < pm * n;
  bool splitN =
      n >= 2 * rn &&
      (((batch * static_cast<int64_t>(llvm::divideCeil(m, pm)) < threads ||
         (batch == 1 && partialRowChunk)) &&
        m < threads * rm) ||
       unevenRows);
  if (splitN) {
    outer[b + 1] = pn;
    cn = pn;
  } else {
    outer[b] = pm;
  }
  // With an epilogue, keep at least two outer tiles when there is no cache
  // tile loop: a single-iteration loop is folded away by canonicalization,
  // which would leave the matmul and its epilogue as two loop nests.
  if (epilogue && batch == 1 && n <= cn && !dynamicM) {
    if (!splitN && llvm::divideCeil(m, pm) == 1 && m >= 2 * rm) {
      outer[b] = roundUp(llvm::divideCeil(m, 2), rm);
    } else if (!splitN && llvm::divideCeil(m, pm) == 1 && n >= 2 * rn) {
      outer[b] = 0;
      outer[b + 1] = cn = roundUp(llvm::divideCeil(n, 2), rn);
    }
  }
  LLVM_DEBUG(llvm::dbgs() << "matmul " << batch << "x" << m << "x" << n << "x"
                          << k << " outer m=" << outer[b]
                          << " n=" << outer[b + 1] << " cn=" << cn
                          << " ck=" << ck << " reg=" << rm << "," << rn << ","
                          << rk << "\n");

  // The epilogue iterates over the matmul's parallel dims [b,] m, n.
  if (epilogue) {
    auto epi = dyn_cast<linalg::LinalgOp>(epilogue.getOperation());
    if (!epi || epi.getNumLoops() != numLoops - 1 ||
        epi.getNumParallelLoops() != numLoops - 1)
      return failure();
  }

  // Level 1: scf.forall (or scf.for) over the root (the epilogue, else the
  // matmul) with the producers of the tile fused in: the linalg.fill of the
  // accumulator, and with an epilogue the matmul and whatever
  // `fuseProducer` accepts.
  TilingInterface root =
      epilogue ? epilogue : cast<TilingInterface>(op.getOperation());
  SmallVector<int64_t> rootOuter(outer);
  if (epilogue)
    rootOuter.pop_back();
  SmallVector<OpFoldResult> rootSizes =
      getAsIndexOpFoldResult(rewriter.getContext(), rootOuter);
  // A dynamic M split between threads: the chunk chosen for the bound
  // (ceil(bound / threads) rows) would leave threads idle at shorter
  // lengths (a 128-token prefill with bound 256 ran on one of two
  // threads), so the chunk follows the run-time rows:
  //   min(pm, roundUp(ceil(M / threads), rm)),
  // at most the static chunk (the scratch is sized for it).
  if (dynamicM && parallel && threads > 1 && outer[b] > rm) {
    rewriter.setInsertionPoint(root);
    Location loc = op.getLoc();
    Value rows = tensor::DimOp::create(rewriter, loc,
                                       op.getDpsInputOperand(0)->get(), b);
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr s0 = getAffineSymbolExpr(0, ctx);
    AffineMap chunk = AffineMap::get(0, 1,
                                     {getAffineConstantExpr(outer[b], ctx),
                                      (s0.ceilDiv(threads)).ceilDiv(rm) * rm},
                                     ctx);
    rootSizes[b] = affine::makeComposedFoldedAffineMin(
        rewriter, loc, chunk, ArrayRef<OpFoldResult>{rows});
  }
  scf::SCFTilingOptions outerOpts;
  outerOpts.setLoopType(parallel ? scf::SCFTilingOptions::LoopType::ForallOp
                                 : scf::SCFTilingOptions::LoopType::ForOp);
  outerOpts.setTileSizes(rootSizes);
  scf::SCFTileAndFuseOptions fuseOpts;
  fuseOpts.setTilingOptions(outerOpts);
  Operation *contraction = op.getOperation();
  fuseOpts.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (isa<linalg::FillOp>(owner) || owner == contraction ||
            (fuseProducer && fuseProducer(owner)))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, fuseOpts);
  if (failed(fused))
    return failure();
  for (auto [orig, repl] : fused->replacements)
    rewriter.replaceAllUsesWith(orig, repl);
  if (root->use_empty())
    rewriter.eraseOp(root);
  if (epilogue && op->use_empty())
    rewriter.eraseOp(op);
  auto findContraction =
      [](const llvm::SetVector<Operation *> &ops) -> linalg::LinalgOp {
    for (Operation *t : ops)
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(t))
        return cast<linalg::LinalgOp>(t);
    return nullptr;
  };
  linalg::LinalgOp tiled = findContraction(fused->tiledAndFusedOps);
  if (!tiled)
    return failure();

  // Level 2: cache tile along N. With an epilogue, the tiled epilogue is
  // tiled again and the tiled matmul fused into it, so that the epilogue
  // runs on each cache tile right after it is computed.
  SmallVector<int64_t> tiledRanges = tiled.getStaticLoopRanges();
  if (ShapedType::isStatic(tiledRanges[b + 1]) && tiledRanges[b + 1] > cn) {
    if (epilogue) {
      Operation *outerLoop = fused->loops.front().getOperation();
      auto tiledRoot = cast<TilingInterface>(fused->tiledAndFusedOps.front());
      SmallVector<int64_t> sizes(numLoops - 1, 0);
      sizes[b + 1] = cn;
      scf::SCFTilingOptions cacheOpts;
      cacheOpts.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
      cacheOpts.setTileSizes(
          getAsIndexOpFoldResult(rewriter.getContext(), sizes));
      scf::SCFTileAndFuseOptions cacheFuse;
      cacheFuse.setTilingOptions(cacheOpts);
      cacheFuse.setFusionControlFn(
          [&](tensor::ExtractSliceOp, OpResult producer, bool)
              -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
            if (outerLoop->isAncestor(producer.getOwner()))
              return scf::SCFTileAndFuseOptions::ControlFnResult{};
            return std::nullopt;
          });
      rewriter.setInsertionPoint(tiledRoot);
      FailureOr<scf::SCFTileAndFuseResult> cache =
          scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tiledRoot,
                                                    cacheFuse);
      if (failed(cache))
        return failure();
      for (auto [orig, repl] : cache->replacements)
        rewriter.replaceAllUsesWith(orig, repl);
      linalg::LinalgOp inner = findContraction(cache->tiledAndFusedOps);
      if (!inner)
        return failure();
      if (tiledRoot->use_empty())
        rewriter.eraseOp(tiledRoot);
      tiled = inner;
    } else {
      SmallVector<int64_t> sizes(numLoops, 0);
      sizes[b + 1] = cn;
      FailureOr<scf::SCFTilingResult> res =
          tileWith(rewriter, cast<TilingInterface>(tiled.getOperation()),
                   sizes, scf::SCFTilingOptions::LoopType::ForOp);
      if (failed(res))
        return failure();
      tiled = cast<linalg::LinalgOp>(res->tiledOps.back());
    }
  }

  // Level 2b: cache tile along K (sequential: the accumulator is the loop's
  // iter_arg), so that a [ck, cn] panel of B stays in cache across the
  // register tiles of M. `ck` divides K: every tile is full.
  if (ck < k) {
    SmallVector<int64_t> sizes(numLoops, 0);
    sizes[b + 2] = ck;
    FailureOr<scf::SCFTilingResult> res =
        tileWith(rewriter, cast<TilingInterface>(tiled.getOperation()), sizes,
                 scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(res))
      return failure();
    tiled = cast<linalg::LinalgOp>(res->tiledOps.back());
  }

  // Level 3: register tiles, K innermost.
  SmallVector<int64_t> regSizes(numLoops, 0);
  if (isBatch)
    regSizes[0] = 1;
  regSizes[b] = rm;
  regSizes[b + 1] = rn;
  regSizes[b + 2] = rk;
  // (`op` itself may be gone: tiling replaced it.)
  int64_t lanes = target.getVectorLanes(
      getElementTypeOrSelf(tiled.getDpsInits()[0].getType()));
  // A packed B: every tile inside one strip, the remainder of N (the last,
  // partial strip of a constant) split into tiles of whole vectors.
  return registerTileAndPeel(
      rewriter, tiled, regSizes, b + 1, lanes,
      [&](linalg::LinalgOp tile) {
        if (packedRhs)
          (void)readPackedRhs(rewriter, tile, rhs, packedRhs, rn);
      },
      /*exactWidth=*/packedRhs != nullptr);
}

LogicalResult
mlir::llm::tileMatmulInPlaceForCPU(RewriterBase &rewriter, linalg::LinalgOp op,
                                   const CPUTargetDescription &target) {
  if (!isa<linalg::MatmulOp>(op) || op->getNumResults() != 1)
    return failure();
  // The rows may be dynamic (a prefill's dequantized panels, whose row count
  // is the sequence length): full register tiles of rows, the remainder
  // peeled. N and K are static.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() != 3 || ranges[1] <= 0 || ranges[2] <= 0)
    return failure();
  bool dynamicRows = ShapedType::isDynamic(ranges[0]);
  if (!dynamicRows && (ranges[0] <= 0 || !hasStaticTensorShapes(op)))
    return failure();
  SmallVector<int64_t> regSizes{
      dynamicRows ? target.matmulRegisterTile[0]
                  : std::min(target.matmulRegisterTile[0], ranges[0]),
      std::min(target.matmulRegisterTile[1], ranges[1]),
      std::min(target.matmulRegisterTile[2], ranges[2])};
  return registerTileAndPeel(rewriter, op, regSizes, /*nDim=*/1,
                             target.getVectorLanes(getElementTypeOrSelf(
                                 op.getDpsInits()[0].getType())));
}

LogicalResult mlir::llm::vectorizeRegisterTiles(RewriterBase &rewriter,
                                                Operation *root,
                                                int64_t &numVectorized) {
  numVectorized = 0;
  SmallVector<linalg::LinalgOp> tiles;
  root->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kRegisterTileAttr))
      tiles.push_back(op);
  });
  // The blocks of the mixed-precision tiles that went through the generic
  // vectorization (their vector ops replace them in place).
  llvm::SmallPtrSet<Block *, 8> mixedBlocks;
  for (linalg::LinalgOp op : tiles) {
    op->removeAttr(kRegisterTileAttr);
    // A tile that still has dynamic shapes (one registerTileAndPeel could
    // not split into static pieces: not a contraction, or a dynamic K) is
    // left to the scalar lowering.
    if (!hasStaticTensorShapes(op) ||
        failed(linalg::vectorizeOpPrecondition(op)))
      continue;
    // A named `vector.contract` needs one element type on both inputs and
    // the accumulator; mixed-precision tiles (f16 x f16 -> f32, or f32 x f16
    // in attention) go through the generic path, which keeps the extf casts.
    Type accType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    bool sameTypes = llvm::all_of(op.getDpsInputs(), [&](Value v) {
      return getElementTypeOrSelf(v.getType()) == accType;
    });
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> vec = linalg::vectorize(
        rewriter, op, /*inputVectorSizes=*/{},
        /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
        /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/sameTypes);
    if (failed(vec))
      continue;
    if (!sameTypes)
      mixedBlocks.insert(op->getBlock());
    rewriter.replaceOp(op, vec->replacements);
    ++numVectorized;
  }
  if (mixedBlocks.empty())
    return success();
  // multi_reduction<add>(mulf(extf(a), extf(b))) -> vector.contract of the
  // extended tiles (upstream's reduction-to-contract patterns, as IREE's
  // generic vectorization runs them): the f32 contraction then lowers to
  // broadcast + FMA like a same-type tile, where the multi_reduction
  // lowering left one scalar multiply per product (an f16 [128 x 768] @
  // [768 x 3072] took 100 ms against 3 ms in f32 on Zen 5).
  // The broadcasts that the generic vectorization wrote as permutation maps
  // of the transfer reads become vector.broadcast ops, which the extf
  // casts move past and the contraction then absorbs: A [m, k] and B [k, n]
  // read once per step of K, as in a same-type tile.
  RewritePatternSet patterns(root->getContext());
  vector::populateVectorReductionToContractPatterns(patterns);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateSinkVectorOpsPatterns(patterns);
  // Every op of those blocks (the tiles' K-loop bodies), not the rest of
  // the function.
  SmallVector<Operation *> seeds;
  for (Block *block : mixedBlocks)
    for (Operation &op : *block)
      seeds.push_back(&op);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(seeds, std::move(patterns), config);
  return success();
}

//===----------------------------------------------------------------------===//
// Parallel outer loop of other linalg ops
//===----------------------------------------------------------------------===//

LogicalResult
mlir::llm::parallelizeOuterDimension(RewriterBase &rewriter,
                                     linalg::LinalgOp op,
                                     const CPUTargetDescription &target) {
  if (!hasStaticTensorShapes(op) || op.getNumLoops() == 0 ||
      op->getNumResults() == 0)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t points = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return failure();
    points *= r;
  }
  // The outermost dimension of size > 1 (leading unit dimensions, such as a
  // batch of 1, are skipped); it must be parallel.
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  const auto *outer =
      llvm::find_if(ranges, [](int64_t r) { return r > 1; });
  if (outer == ranges.end())
    return failure();
  size_t dim = outer - ranges.begin();
  if (iters[dim] != utils::IteratorType::parallel)
    return failure();
  int64_t threads = target.getNumThreads();
  if (threads < 2 || points < target.minParallelElements)
    return failure();
  SmallVector<int64_t> sizes(ranges.size(), 0);
  sizes[dim] = llvm::divideCeil(ranges[dim], threads);
  if (failed(tileWith(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
                      scf::SCFTilingOptions::LoopType::ForallOp)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// 2-D transposes
//===----------------------------------------------------------------------===//

LogicalResult
mlir::llm::tileTransposeForCPU(RewriterBase &rewriter, linalg::TransposeOp op,
                               const CPUTargetDescription &target) {
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  if (!hasStaticTensorShapes(linalgOp) || op.getPermutation().size() != 2)
    return failure();
  auto type = cast<RankedTensorType>(op.getInit().getType());
  int64_t lanes = target.getVectorLanes(type.getElementType());
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (lanes < 2 || ranges[0] < lanes || ranges[1] < lanes)
    return failure();
  FailureOr<scf::SCFTilingResult> res =
      tileWith(rewriter, cast<TilingInterface>(op.getOperation()),
               {lanes, lanes}, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(res))
    return failure();
  res->tiledOps.back()->setAttr(kRegisterTileAttr, rewriter.getUnitAttr());
  SmallVector<scf::ForOp> loops;
  for (LoopLikeOpInterface loop : res->loops)
    if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
      loops.push_back(forOp);
  linalg::peelLoops(rewriter, loops);
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

/// Whether every use of `value` is, through reshapes outside loops and
/// slices inside them, the init of a linalg op inside a loop.
static bool isOnlyInitInLoops(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    bool inLoop = user->getParentOfType<LoopLikeOpInterface>() != nullptr;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user))
      return !inLoop && isOnlyInitInLoops(user->getResult(0));
    if (isa<tensor::ExtractSliceOp>(user))
      return inLoop && use.getOperandNumber() == 0 &&
             isOnlyInitInLoops(user->getResult(0));
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    return linalgOp && linalgOp.isDpsInit(&use) &&
           user->getParentOfType<LoopLikeOpInterface>();
  });
}

/// Replaces each use of `value` past its reshapes (by a slice inside a loop,
/// or an op) by a clone of `chain` (the ops from the root to `value`, in
/// order) made right before the user.
static void rematerializeAtUses(RewriterBase &rewriter, Value value,
                                SmallVectorImpl<Operation *> &chain) {
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
    Operation *user = use.getOwner();
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      chain.push_back(user);
      rematerializeAtUses(rewriter, user->getResult(0), chain);
      chain.pop_back();
      continue;
    }
    rewriter.setInsertionPoint(user);
    IRMapping mapping;
    Operation *last = nullptr;
    for (Operation *op : chain)
      last = rewriter.clone(*op, mapping);
    use.set(last->getResult(0));
  }
}

/// Erases `root` and the reshapes of it that have become unused.
static void eraseDeadChain(RewriterBase &rewriter, Operation *root) {
  for (Operation *user : llvm::make_early_inc_range(root->getUsers()))
    eraseDeadChain(rewriter, user);
  if (root->use_empty())
    rewriter.eraseOp(root);
}

namespace {
struct LLMTileAndVectorizePass
    : public llm::impl::LLMTileAndVectorizePassBase<LLMTileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<CPUTargetDescription> desc = CPUTargetDescription::lookup(target);
    if (failed(desc)) {
      emitError(func.getLoc())
          << "llm-tile-and-vectorize: unknown target '" << target
          << "' (expected " << CPUTargetDescription::getKnownNames() << ")";
      return signalPassFailure();
    }
    if (!registerTile.empty()) {
      if (registerTile.size() != 3 ||
          llvm::any_of(registerTile, [](int64_t s) { return s <= 0; })) {
        emitError(func.getLoc())
            << "llm-tile-and-vectorize: register-tile must be "
               "three positive sizes [m, n, k]";
        return signalPassFailure();
      }
      desc->matmulRegisterTile.assign(registerTile.begin(), registerTile.end());
    }
    if (!cacheTile.empty()) {
      if (cacheTile.size() != 3 ||
          llvm::any_of(cacheTile, [](int64_t s) { return s < 0; })) {
        emitError(func.getLoc())
            << "llm-tile-and-vectorize: cache-tile must be "
               "three non-negative sizes [m, n, k]";
        return signalPassFailure();
      }
      desc->matmulCacheTile.assign(cacheTile.begin(), cacheTile.end());
    }
    if (numThreads < 0 || numThreads > 1024) {
      emitError(func.getLoc())
          << "llm-tile-and-vectorize: num-threads must be in "
             "[0, 1024] (0: the target's), got "
          << static_cast<int64_t>(numThreads);
      return signalPassFailure();
    }
    if (numThreads > 0)
      desc->numThreads = numThreads;
    if (minParallelWork < -1) {
      emitError(func.getLoc())
          << "llm-tile-and-vectorize: min-parallel-work must be "
             "-1 (the target's) or a number of multiply-adds";
      return signalPassFailure();
    }
    if (minParallelWork >= 0)
      desc->minParallelMatmulWork = minParallelWork;
    CPUTilingOptions opts;
    opts.parallel = parallel;

    IRRewriter rewriter(&getContext());
    // Weights stored [N, K] get a [K, N] copy when M is large enough (also
    // in fusion groups: the copy is never fused into a tile loop).
    SmallVector<linalg::LinalgOp> transposedRhs;
    func.walk([&](linalg::MatmulOp op) {
      Operation *parent = op->getParentOp();
      if (parent == func.getOperation() || isa<FusionGroupOp>(parent))
        transposedRhs.push_back(op);
    });
    for (linalg::LinalgOp op : transposedRhs)
      (void)materializeTransposedRhs(rewriter, op,
                                     2 * desc->matmulRegisterTile[0]);

    // Block loops of the quantized and bf16 lowerings: their elementwise
    // consumers fused into them.
    numConsumersFused += fuseConsumersIntoBlockLoops(rewriter, func);

    // Fusion groups (llm-fuse): one loop nest each, then inlined. Their
    // matmuls get register tiles like the others.
    SmallVector<FusionGroupOp> groups;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto group = dyn_cast<FusionGroupOp>(&op))
          groups.push_back(group);
    bool anyRegisterTiles = false;
    for (FusionGroupOp group : groups) {
      bool hasMatmul = false;
      group.walk([&](linalg::LinalgOp op) {
        hasMatmul |= isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
      });
      if (succeeded(lowerFusionGroupForCPU(rewriter, group, *desc, opts))) {
        ++numGroupsTiled;
        anyRegisterTiles |= hasMatmul;
      }
    }

    // Block loops outside fusion groups have no producers to recompute.
    func.walk([](scf::ForallOp loop) { loop->removeAttr(kFuseProducersAttr); });

    // A fill read whole (through reshapes) as the init of linalg ops inside
    // tile loops (the reductions of a norm prologue fused into a decode
    // matmul's tiles: one row per tile, so no slice to fuse the fill
    // through) is rematerialized at each such use, so that it is not a loop
    // nest of its own.
    SmallVector<linalg::FillOp> fills;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto fill = dyn_cast<linalg::FillOp>(&op))
          fills.push_back(fill);
    for (linalg::FillOp fill : fills) {
      if (fill->getResult(0).use_empty() ||
          !isOnlyInitInLoops(fill->getResult(0)))
        continue;
      SmallVector<Operation *> chain{fill.getOperation()};
      rematerializeAtUses(rewriter, fill->getResult(0), chain);
      eraseDeadChain(rewriter, fill.getOperation());
    }

    // Only the ops directly in the function body: ops inside loops were
    // placed there by an earlier tiling.
    SmallVector<linalg::LinalgOp> matmuls, others;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
          if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(&op))
            matmuls.push_back(linalgOp);
          else
            others.push_back(linalgOp);
        }

    llvm::SmallPtrSet<Operation *, 8> erased;
    for (linalg::LinalgOp op : matmuls) {
      // Fills fused into the tiles die with the matmul: erase them here and
      // skip them below.
      SmallVector<Operation *> producers;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp<linalg::FillOp>())
          producers.push_back(def);
      if (failed(tileMatmulForCPU(rewriter, op, *desc, opts)))
        continue;
      anyRegisterTiles = true;
      for (Operation *p : producers)
        if (p->use_empty() && erased.insert(p).second)
          rewriter.eraseOp(p);
    }
    if (parallel) {
      for (linalg::LinalgOp op : others) {
        if (erased.contains(op.getOperation()))
          continue;
        if (succeeded(parallelizeOuterDimension(rewriter, op, *desc)))
          ++numOpsParallelized;
      }
    }
    // Tiles that a lowering placed in its own loop nest (flash attention):
    // register tiles in place.
    for (linalg::LinalgOp op :
         takeMarked<linalg::LinalgOp>(func, kVectorizeInPlaceAttr)) {
      if (!vectorize)
        continue;
      if (auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation())) {
        if (succeeded(tileTransposeForCPU(rewriter, transpose, *desc)))
          anyRegisterTiles = true;
      } else if (succeeded(tileMatmulInPlaceForCPU(rewriter, op, *desc))) {
        anyRegisterTiles = true;
      }
    }
    // Their row-wise elementwise ops: one vector per row.
    for (linalg::LinalgOp op :
         takeMarked<linalg::LinalgOp>(func, kVectorizeRowsAttr)) {
      if (!vectorize)
        continue;
      // Row reductions (flash attention's row max and sum): one
      // vector.reduction per row.
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (generic && op.getNumLoops() == 2 &&
          op.getIteratorTypesArray().back() == utils::IteratorType::reduction)
        (void)vectorizeRowReductions(rewriter, generic);
      else
        (void)vectorizeRows(rewriter, op);
    }
    // Row-padding copies (flash attention's padded tiles): one masked read
    // per row.
    for (tensor::PadOp op : takeMarked<tensor::PadOp>(func, kVectorizeRowsAttr))
      if (vectorize)
        (void)vectorizePadRows(rewriter, op);
    // Transposes (big ones are inside their parallel loop by now): square
    // register tiles, vectorized below into vector.transpose.
    if (vectorize) {
      SmallVector<linalg::TransposeOp> transposes;
      func.walk([&](linalg::TransposeOp op) {
        if (!op->getParentOfType<scf::ForOp>())
          transposes.push_back(op);
      });
      for (linalg::TransposeOp op : transposes)
        if (succeeded(tileTransposeForCPU(rewriter, op, *desc)))
          anyRegisterTiles = true;
    }
    if (!anyRegisterTiles)
      return;

    // Fold the tile sizes of the peeled loops to constants, vectorize the
    // full register tiles, then keep the accumulators in registers across
    // the K loop: the transfer_read/transfer_write pair of the C tile is a
    // loop-invariant subset of the K loop's iter_arg.
    OpPassManager fold(func::FuncOp::getOperationName());
    fold.addPass(createCanonicalizerPass());
    if (failed(runPipeline(fold, func)))
      return signalPassFailure();
    int64_t vectorized = 0;
    if (vectorize && failed(vectorizeRegisterTiles(rewriter, func, vectorized)))
      return signalPassFailure();
    func.walk([](linalg::LinalgOp op) { op->removeAttr(kRegisterTileAttr); });
    numTilesVectorized += vectorized;
    OpPassManager cleanup(func::FuncOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
    cleanup.addPass(createLoopInvariantSubsetHoistingPass());
    if (failed(runPipeline(cleanup, func)))
      return signalPassFailure();
  }
};
} // namespace
