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
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// acc + lhs' rhs' for an AMX tile product with `depth` elements of K per
/// accumulator lane: lhs (M x depth Q) and rhs (Q x depth N, AMX's layout)
/// extended to the accumulator's element type (integers: zero-extended
/// where `zextLhs` / `zextRhs`, else sign-extended), rhs rearranged to
/// [depth Q, N] (rhs'[depth q + t, n] = rhs[q, depth n + t]: shape_cast to
/// [Q, N, depth], transpose to [Q, depth, N], shape_cast), then a
/// vector.contract. Replaces `op`.
static LogicalResult emulateTileProduct(Operation *op, Value lhs, Value rhs,
                                        Value acc, int64_t depth, bool zextLhs,
                                        bool zextRhs,
                                        ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  auto lhsType = cast<VectorType>(lhs.getType());
  auto rhsType = cast<VectorType>(rhs.getType());
  auto accType = cast<VectorType>(acc.getType());
  Type et = accType.getElementType();
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t q = rhsType.getDimSize(0), n = accType.getDimSize(1);
  if (k != depth * q || rhsType.getDimSize(1) != depth * n)
    return rewriter.notifyMatchFailure(op, "tile shapes do not match");
  auto extend = [&](Value v, VectorType type, bool zext) -> Value {
    if (isa<FloatType>(et))
      return arith::ExtFOp::create(rewriter, loc, type, v);
    if (zext)
      return arith::ExtUIOp::create(rewriter, loc, type, v);
    return arith::ExtSIOp::create(rewriter, loc, type, v);
  };
  Value a = extend(lhs, VectorType::get({m, k}, et), zextLhs);
  Value b = extend(rhs, VectorType::get({q, depth * n}, et), zextRhs);
  b = vector::ShapeCastOp::create(rewriter, loc,
                                  VectorType::get({q, n, depth}, et), b);
  b = vector::TransposeOp::create(rewriter, loc, b, ArrayRef<int64_t>{0, 2, 1});
  b = vector::ShapeCastOp::create(rewriter, loc, VectorType::get({k, n}, et),
                                  b);
  AffineExpr dm, dn, dk;
  bindDims(ctx, dm, dn, dk);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {dm, dk}, ctx),
                                 AffineMap::get(3, 0, {dk, dn}, ctx),
                                 AffineMap::get(3, 0, {dm, dn}, ctx)};
  rewriter.replaceOpWithNewOp<vector::ContractionOp>(
      op, a, b, acc, rewriter.getAffineMapArrayAttr(maps),
      rewriter.getArrayAttr(
          {vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
           vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
           vector::IteratorTypeAttr::get(ctx,
                                         vector::IteratorType::reduction)}));
  return success();
}

/// amx.tile_mulf %a, %b, %c (a: M x 2Q bf16/f16, b: Q x 2N, c: M x N f32) ->
///   c[m, n] + sum_{q, t} f32(a[m, 2q + t]) f32(b[q, 2n + t])
/// in f32 like tdpbf16ps / tdpfp16ps, in another order (results agree to
/// f32 rounding).
struct TileMulFToVector : OpConversionPattern<amx::TileMulFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileMulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return emulateTileProduct(op, adaptor.getLhs(), adaptor.getRhs(),
                              adaptor.getAcc(), /*depth=*/2, false, false,
                              rewriter);
  }
};

/// amx.tile_muli %a, %b, %c (a: M x 4Q 8-bit, b: Q x 4N in AMX's quad
/// layout, c: M x N i32) ->
///   c[m, n] + sum_{q, t} ext(a[m, 4q + t]) ext(b[q, 4n + t])
/// in i32 (wrapping), each operand zero- or sign-extended as the op says
/// (tdpbusd: a unsigned, b signed; Intel SDM), as a vector.contract of a and
/// b rearranged to [4Q, N] as in TileMulFToVector.
struct TileMulIToVector : OpConversionPattern<amx::TileMulIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(amx::TileMulIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return emulateTileProduct(op, adaptor.getLhs(), adaptor.getRhs(),
                              adaptor.getAcc(), /*depth=*/4, op.getIsZextLhs(),
                              op.getIsZextRhs(), rewriter);
  }
};

struct LLMEmulateAMXPass : llm::impl::LLMEmulateAMXPassBase<LLMEmulateAMXPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    // What the emulation does not cover is an error, not a silent skip.
    WalkResult unsupported = root->walk([](Operation *op) {
      // Tiles across function boundaries (arguments, results, calls).
      auto isTile = [](Type t) { return isa<amx::TileType>(t); };
      auto fn = dyn_cast<FunctionOpInterface>(op);
      if ((fn && (llvm::any_of(fn.getArgumentTypes(), isTile) ||
                  llvm::any_of(fn.getResultTypes(), isTile))) ||
          (isa<CallOpInterface>(op) &&
           (llvm::any_of(op->getOperandTypes(), isTile) ||
            llvm::any_of(op->getResultTypes(), isTile)))) {
        op->emitOpError("llm-emulate-amx: tiles passed to or returned from a "
                        "function are not emulated");
        return WalkResult::interrupt();
      }
      // The memory side of a tile load or store.
      Value base, stride;
      Type tileType;
      if (auto load = dyn_cast<amx::TileLoadOp>(op)) {
        base = load.getBase();
        stride = load.getStride();
        tileType = load.getType();
      } else if (auto store = dyn_cast<amx::TileStoreOp>(op)) {
        base = store.getBase();
        stride = store.getStride();
        tileType = store.getVal().getType();
      } else {
        return WalkResult::advance();
      }
      if (stride) {
        op->emitOpError("llm-emulate-amx: explicit strides are not emulated");
        return WalkResult::interrupt();
      }
      // A tile larger than the memref's static innermost dims: the vector
      // code would read or write out of bounds (the hardware would read or
      // write past the rows).
      auto memref = cast<MemRefType>(base.getType());
      auto tile = cast<amx::TileType>(tileType);
      for (int64_t d = 0; memref.getRank() >= 2 && d < 2; ++d) {
        int64_t size = memref.getDimSize(memref.getRank() - 2 + d);
        if (!ShapedType::isDynamic(size) && size < tile.getDimSize(d)) {
          op->emitOpError("llm-emulate-amx: the tile does not fit in the "
                          "memref's two innermost dimensions");
          return WalkResult::interrupt();
        }
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
                 TileMulFToVector, TileMulIToVector>(converter, ctx);
    // Tiles carried by loops (the accumulators) become vectors too.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
