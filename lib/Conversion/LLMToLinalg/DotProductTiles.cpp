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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

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
  Type at = cast<ShapedType>(t.lhs.getType()).getElementType();
  auto wordsType = VectorType::get({lanes}, b.getI32Type());
  auto operandType = VectorType::get({lanes * t.depth}, wt);
  auto groupType = VectorType::get({t.depth}, at);
  auto oneWord = VectorType::get({1}, b.getI32Type());
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  Value wPad = arith::ConstantOp::create(b, loc, b.getZeroAttr(wt));
  Value aPad = arith::ConstantOp::create(b, loc, b.getZeroAttr(at));
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
          Value group = vector::TransferReadOp::create(
              kb, l, groupType, t.lhs, ValueRange{m, k0}, aPad,
              ArrayRef<bool>{t.lhsInBounds});
          Value word = vector::ExtractOp::create(
              kb, l, vector::BitCastOp::create(kb, l, oneWord, group),
              ArrayRef<int64_t>{0});
          Value av = vector::BitCastOp::create(
              kb, l, operandType,
              vector::BroadcastOp::create(kb, l, wordsType, word));
          for (int64_t h = 0; h < t.vectors; ++h)
            next[r * t.vectors + h] =
                t.dot(kb, l, next[r * t.vectors + h], av, wv[h]);
        }
        scf::YieldOp::create(kb, l, next);
      });
  return SmallVector<Value>(steps.getResults());
}
