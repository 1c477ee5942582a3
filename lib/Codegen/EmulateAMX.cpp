//===- EmulateAMX.cpp - AMX tile ops as vector code -----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-emulate-amx`: the `amx` dialect's tile ops
// rewritten into `vector` ops with the same results, so that code written for
// AMX tiles runs (and is checked against numpy) on CPUs without AMX.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMEMULATEAMXPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

/// amx.tile_zero -> arith.constant dense<0>
struct TileZeroToVector : OpConversionPattern<amx::TileZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileZeroOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type,
        DenseElementsAttr::get(type,
                               rewriter.getZeroAttr(type.getElementType())));
    return success();
  }
};

/// amx.tile_load %m[%i...] -> vector.transfer_read %m[%i...] of the two
/// innermost dims (row r of the tile: the row `r` strides below the index)
struct TileLoadToVector : OpConversionPattern<amx::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    auto memref = cast<MemRefType>(op.getBase().getType());
    Value padding = arith::ConstantOp::create(
        rewriter, op.getLoc(), rewriter.getZeroAttr(type.getElementType()));
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        op, type, adaptor.getBase(), adaptor.getIndices(), padding,
        AffineMap::getMinorIdentityMap(memref.getRank(), 2, getContext()),
        ArrayRef<bool>{true, true});
    return success();
  }
};

/// amx.tile_store %m[%i...], %t -> vector.transfer_write %t, %m[%i...]
struct TileStoreToVector : OpConversionPattern<amx::TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto memref = cast<MemRefType>(op.getBase().getType());
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        op, adaptor.getVal(), adaptor.getBase(), adaptor.getIndices(),
        AffineMap::getMinorIdentityMap(memref.getRank(), 2, getContext()),
        ArrayRef<bool>{true, true});
    return success();
  }
};

/// amx.tile_mulf %a, %b, %c (a: M x 2Q, b: Q x 2N, c: M x N f32) ->
///   c[m, n] + sum_{q, t} f32(a[m, 2q + t]) f32(b[q, 2n + t])
/// as a vector.contract of a and b' = b rearranged to [2Q, N] (b'[2q + t,
/// n] = b[q, 2n + t]: shape_cast to [Q, N, 2], transpose to [Q, 2, N],
/// shape_cast). The sums run in f32 like tdpbf16ps / tdpfp16ps, in another
/// order (results agree to f32 rounding).
struct TileMulFToVector : OpConversionPattern<amx::TileMulFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileMulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto lhsType = cast<VectorType>(adaptor.getLhs().getType());
    auto rhsType = cast<VectorType>(adaptor.getRhs().getType());
    auto accType = cast<VectorType>(adaptor.getAcc().getType());
    Type f32 = accType.getElementType();
    int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
    int64_t q = rhsType.getDimSize(0), n = accType.getDimSize(1);
    if (k != 2 * q || rhsType.getDimSize(1) != 2 * n)
      return rewriter.notifyMatchFailure(op, "tile shapes do not match");
    Value lhs = arith::ExtFOp::create(
        rewriter, loc, VectorType::get({m, k}, f32), adaptor.getLhs());
    Value rhs = arith::ExtFOp::create(
        rewriter, loc, VectorType::get({q, 2 * n}, f32), adaptor.getRhs());
    rhs = vector::ShapeCastOp::create(rewriter, loc,
                                      VectorType::get({q, n, 2}, f32), rhs);
    rhs = vector::TransposeOp::create(rewriter, loc, rhs,
                                      ArrayRef<int64_t>{0, 2, 1});
    rhs = vector::ShapeCastOp::create(rewriter, loc,
                                      VectorType::get({k, n}, f32), rhs);
    AffineExpr dm, dn, dk;
    bindDims(getContext(), dm, dn, dk);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0, {dm, dk}, getContext()),
        AffineMap::get(3, 0, {dk, dn}, getContext()),
        AffineMap::get(3, 0, {dm, dn}, getContext())};
    rewriter.replaceOpWithNewOp<vector::ContractionOp>(
        op, lhs, rhs, adaptor.getAcc(), rewriter.getAffineMapArrayAttr(maps),
        rewriter.getArrayAttr(
            {vector::IteratorTypeAttr::get(getContext(),
                                           vector::IteratorType::parallel),
             vector::IteratorTypeAttr::get(getContext(),
                                           vector::IteratorType::parallel),
             vector::IteratorTypeAttr::get(getContext(),
                                           vector::IteratorType::reduction)}));
    return success();
  }
};

struct LLMEmulateAMXPass : llm::impl::LLMEmulateAMXPassBase<LLMEmulateAMXPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    // What the emulation does not cover is an error, not a silent skip.
    WalkResult unsupported = root->walk([](Operation *op) {
      if (isa<amx::TileMulIOp>(op) ||
          (isa<amx::TileLoadOp>(op) && cast<amx::TileLoadOp>(op).getStride()) ||
          (isa<amx::TileStoreOp>(op) &&
           cast<amx::TileStoreOp>(op).getStride())) {
        op->emitOpError("llm-emulate-amx: not emulated (integer tile "
                        "products and explicit strides are not)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([](amx::TileType type) -> Type {
      return VectorType::get(type.getShape(), type.getElementType());
    });
    ConversionTarget target(*ctx);
    target.addIllegalDialect<amx::AMXDialect>();
    target.addLegalDialect<arith::ArithDialect, vector::VectorDialect>();
    RewritePatternSet patterns(ctx);
    patterns.add<TileZeroToVector, TileLoadToVector, TileStoreToVector,
                 TileMulFToVector>(converter, ctx);
    // Tiles carried by loops (the accumulators) become vectors too.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
