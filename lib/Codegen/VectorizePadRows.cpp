//===- VectorizePadRows.cpp - Row-padding tensor.pad as masked reads ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `vectorizePadRows` (llm/Codegen/Transforms.h), used
// by llm-tile-and-vectorize on the `tensor.pad` ops marked
// `llm.vectorize_rows`: flash attention's tiles padded to whole vectors
// (padded_head_dims). Each row becomes one read of the padded
// width, whose lanes past the source row take the padding value (a masked
// load once lowered), and one write.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
