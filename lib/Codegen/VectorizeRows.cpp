//===- VectorizeRows.cpp - Row pads and row reductions as vector rows -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `vectorizePadRows` and `vectorizeRowReductions`
// (llm/Codegen/Transforms.h), used by llm-tile-and-vectorize on the ops
// that flash attention marks `llm.vectorize_rows`:
// * its tiles padded to whole vectors (padded_head_dims): each row becomes
//   one read of the padded width, whose lanes past the source row take the
//   padding value (a masked load once lowered), and one write;
// * its row max and row sum of the [Tq, Tk] scores: each row one vector
//   read and one `vector.reduction` (a tree of vector ops and a few
//   shuffles), where LLVM's loop vectorizer would reduce 16 rows at a time
//   with gathers down the columns.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;

// tensor.pad %src low[0, 0] high[0, h] { yield %c } : [R, C] -> [R, C + h]
//   -> scf.for %i = 0 to R iter_args(%t = tensor.empty() : [R, C + h]) {
//        %row = vector.transfer_read %src[%i, 0], %c
//                 {in_bounds = [false]} : vector<C + h>
//        scf.yield vector.transfer_write %row, %t[%i, 0]
//                    {in_bounds = [true]}
//      }
LogicalResult mlir::llm::vectorizePadRows(RewriterBase &rewriter,
                                          tensor::PadOp op) {
  RankedTensorType srcType = op.getSourceType();
  RankedTensorType resultType = op.getResultType();
  Type elemType = srcType.getElementType();
  if (srcType.getRank() != 2 || !srcType.hasStaticShape() ||
      !resultType.hasStaticShape() || !elemType.isIntOrFloat() ||
      elemType.getIntOrFloatBitWidth() % 8 != 0)
    return failure();
  ArrayRef<int64_t> low = op.getStaticLow(), high = op.getStaticHigh();
  if (llvm::any_of(low, [](int64_t v) { return v != 0; }) || high[0] != 0 ||
      high[1] <= 0)
    return failure();
  Value padValue = op.getConstantPaddingValue();
  if (!padValue)
    return failure();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t rows = resultType.getDimSize(0), width = resultType.getDimSize(1);
  auto rowType = VectorType::get({width}, elemType);
  MLIRContext *ctx = rewriter.getContext();
  // (i, j) -> (j): a row of the 2-D tensor.
  AffineMap rowMap = AffineMap::get(2, 0, getAffineDimExpr(1, ctx), ctx);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), elemType);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  auto loop = scf::ForOp::create(
      rewriter, loc, zero, arith::ConstantIndexOp::create(rewriter, loc, rows),
      arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{init},
      [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
        Value row = vector::TransferReadOp::create(
            b, l, rowType, op.getSource(), ValueRange{i, zero}, padValue,
            rowMap, ArrayRef<bool>{false});
        Value written = vector::TransferWriteOp::create(
                            b, l, row, carried[0], ValueRange{i, zero}, rowMap,
                            ArrayRef<bool>{true})
                            .getResult();
        scf::YieldOp::create(b, l, written);
      });
  rewriter.replaceOp(op, loop.getResults());
  return success();
}

// linalg.generic ins(%x : [R, C]) outs(%acc : [R]) (i, j) -> (i, j), (i)
//     { yield max(%x, %acc) | %x + %acc }
//   -> scf.for %i = 0 to R iter_args(%t = %acc) {
//        %row = vector.transfer_read %x[%i, 0] : vector<C>
//        %r = vector.reduction <maxnumf | add>, %row, %t[%i]
//               fastmath<nnan, nsz | reassoc, contract>
//        scf.yield tensor.insert %r into %t[%i]
//      }
LogicalResult mlir::llm::vectorizeRowReductions(RewriterBase &rewriter,
                                                linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 2 || !op.hasPureTensorSemantics() ||
      op.getIteratorTypesArray()[0] != utils::IteratorType::parallel ||
      op.getIteratorTypesArray()[1] != utils::IteratorType::reduction)
    return failure();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::getMultiDimIdentityMap(2, ctx) ||
      maps[1] != AffineMap::get(2, 0, getAffineDimExpr(0, ctx), ctx))
    return failure();
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  if (!inType || !inType.hasStaticShape() || !inType.getElementType().isF32() ||
      !cast<RankedTensorType>(init.getType()).hasStaticShape())
    return failure();
  // The body: one combining op of the element and the accumulator.
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return failure();
  Operation *combine = &body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (combine->getNumOperands() != 2 || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != combine->getResult(0) ||
      !llvm::is_contained(combine->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(combine->getOperands(), body.getArgument(1)))
    return failure();
  // max: the row maximum only bounds the exponents of an online softmax, so
  // NaN and signed-zero results need not be kept (a NaN in the row makes
  // its exponentials NaN anyway); the sum is reassociated.
  vector::CombiningKind kind;
  arith::FastMathFlags flags;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine)) {
    kind = vector::CombiningKind::MAXNUMF;
    flags = arith::FastMathFlags::nnan | arith::FastMathFlags::nsz;
  } else if (isa<arith::AddFOp>(combine)) {
    kind = vector::CombiningKind::ADD;
    flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  } else {
    return failure();
  }

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t rows = inType.getDimSize(0), cols = inType.getDimSize(1);
  auto rowType = VectorType::get({cols}, inType.getElementType());
  AffineMap rowMap = AffineMap::get(2, 0, getAffineDimExpr(1, ctx), ctx);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value padding = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(inType.getElementType()));
  auto loop = scf::ForOp::create(
      rewriter, loc, zero, arith::ConstantIndexOp::create(rewriter, loc, rows),
      arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{init},
      [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
        Value row = vector::TransferReadOp::create(
            b, l, rowType, input, ValueRange{i, zero}, padding, rowMap,
            ArrayRef<bool>{true});
        Value acc = tensor::ExtractOp::create(b, l, carried[0], ValueRange{i});
        Value r = vector::ReductionOp::create(b, l, kind, row, acc, flags);
        scf::YieldOp::create(
            b, l,
            tensor::InsertOp::create(b, l, r, carried[0], ValueRange{i})
                .getResult());
      });
  rewriter.replaceOp(op, loop.getResults());
  return success();
}
