//===- DotProductTiles.cpp - Register tiles of the dot-product kernels ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements what the dot-product matmul kernels (8-bit:
// Int8DotMatmul.cpp; bf16: BF16DotMatmul.cpp) share: the block width of
// their parallel loop and the K loop of one register tile.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

scf::ForallOp mlir::llm::detail::createBlockLoop(OpBuilder &b, Location loc,
                                                 int64_t blocks, Value out) {
  return scf::ForallOp::create(
      b, loc, SmallVector<OpFoldResult>{b.getIndexAttr(blocks)},
      ValueRange{out},
      b.getArrayAttr({BlockLoopMappingAttr::get(b.getContext())}));
}

int64_t mlir::llm::detail::getDotBlockColumns(int64_t N, int64_t nr,
                                              int64_t maxColumns) {
  for (int64_t r = maxColumns / nr; r >= 1; --r)
    if ((N / nr) % r == 0)
      return r * nr;
  return nr;
}

SmallVector<Value>
mlir::llm::detail::buildDotRegisterTile(OpBuilder &b, Location loc,
                                        const DotRegisterTile &t, Value j,
                                        Value r0, int64_t rows, Value zeroAcc) {
  auto accType = cast<VectorType>(zeroAcc.getType());
  int64_t lanes = accType.getNumElements();
  Type wt = cast<ShapedType>(t.weight.getType()).getElementType();
  auto operandType = VectorType::get({lanes * t.depth}, wt);
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  Value wPad = arith::ConstantOp::create(b, loc, b.getZeroAttr(wt));
  auto steps = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, t.steps), idx(b, 1),
      SmallVector<Value>(rows * t.vectors, zeroAcc),
      [&](OpBuilder &kb, Location l, Value q, ValueRange accs) {
        // The tile's weight vectors of step q: [j, (q nr + h lanes) depth].
        Value woff = arith::MulIOp::create(
            kb, l, q, idx(kb, t.vectors * lanes * t.depth));
        SmallVector<Value> wv;
        for (int64_t h = 0; h < t.vectors; ++h)
          wv.push_back(vector::TransferReadOp::create(
              kb, l, operandType, t.weight,
              ValueRange{j, arith::AddIOp::create(
                                kb, l, woff, idx(kb, h * lanes * t.depth))},
              wPad, ArrayRef<bool>{true}));
        Value k0 = arith::MulIOp::create(kb, l, q, idx(kb, t.depth));
        SmallVector<Value> next(accs.begin(), accs.end());
        for (int64_t r = 0; r < rows; ++r) {
          // lhs[r0 + r, depth q : depth (q + 1)] as one i32, broadcast to
          // every lane.
          Value m = arith::AddIOp::create(kb, l, r0, idx(kb, r));
          Value av =
              broadcastLhsWord(kb, l, t.lhs, m, k0, operandType, t.lhsInBounds);
          for (int64_t h = 0; h < t.vectors; ++h)
            next[r * t.vectors + h] =
                t.dot(kb, l, next[r * t.vectors + h], av, wv[h]);
        }
        scf::YieldOp::create(kb, l, next);
      });
  return SmallVector<Value>(steps.getResults());
}

Value mlir::llm::detail::broadcastLhsWord(OpBuilder &b, Location loc, Value lhs,
                                          Value m, Value k,
                                          VectorType operandType,
                                          bool inBounds) {
  Type et = cast<ShapedType>(lhs.getType()).getElementType();
  int64_t perWord = 32 / et.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  Value group = vector::TransferReadOp::create(
      b, loc, VectorType::get({perWord}, et), lhs, ValueRange{m, k},
      arith::ConstantOp::create(b, loc, b.getZeroAttr(et)),
      ArrayRef<bool>{inBounds});
  Value word = vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), group),
      ArrayRef<int64_t>{0});
  auto wordsType =
      VectorType::get({operandType.getNumElements() / perWord}, i32);
  return vector::BitCastOp::create(
      b, loc, operandType,
      vector::BroadcastOp::create(b, loc, wordsType, word));
}

Value mlir::llm::detail::buildRowTileLoops(
    OpBuilder &b, Location loc, OpFoldResult rows, int64_t mr, Value init,
    llvm::function_ref<Value(OpBuilder &, Value, int64_t, Value)> tile) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Tiles of `size` rows from lo while a whole one fits.
  auto loop = [&](Value lo, Value hi, int64_t size, Value acc) {
    return scf::ForOp::create(
               b, loc, lo, hi, idx(size), ValueRange{acc},
               [&](OpBuilder &tb, Location, Value m0, ValueRange t) {
                 scf::YieldOp::create(tb, loc, tile(tb, m0, size, t[0]));
               })
        .getResult(0);
  };
  Value acc = init;
  if (std::optional<int64_t> m = getConstantIntValue(rows)) {
    int64_t fullTiles = *m / mr, rest = *m % mr;
    if (fullTiles > 0)
      acc = loop(idx(0), idx(fullTiles * mr), mr, acc);
    if (rest > 0)
      acc = tile(b, idx(fullTiles * mr), rest, acc);
    return acc;
  }
  // lo + size * floor((M - lo) / size): where the loop of `size` ends and
  // the next size starts.
  Value m = getValueOrCreateConstantIndexOp(b, loc, rows);
  Value lo = idx(0);
  SmallVector<int64_t> sizes{mr};
  for (int64_t p = 8; p >= 1; p /= 2)
    if (p < mr)
      sizes.push_back(p);
  for (int64_t size : sizes) {
    Value step = idx(size);
    Value count = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, m, lo), step);
    Value hi = arith::AddIOp::create(
        b, loc, lo, arith::MulIOp::create(b, loc, count, step));
    acc = loop(lo, hi, size, acc);
    lo = hi;
  }
  return acc;
}
