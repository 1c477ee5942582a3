//===- Int8DotMatmul.cpp - Integer matmul on 8-bit dot products -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the kernel of `llm.matmul_integer` with a constant
// 8-bit weight on 4-way 8-bit dot products (`dot_product = "i8"` in the op's
// `llm.lowering_config`; `vpdpbusd` on x86: AVX512-VNNI on zmm, AVX-VNNI on
// ymm). See buildInt8DotMatmul in QuantKernels.h.
//
//===----------------------------------------------------------------------===//

#include "QuantKernels.h"

#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

/// Elements of K per dot product (4 bytes per i32 lane).
static constexpr int64_t kDepth = 4;
/// Most output columns of one block of the parallel loop.
static constexpr int64_t kBlockColumns = 128;

Value mlir::llm::detail::dotU8S8(OpBuilder &b, Location loc, Value acc, Value a,
                                 Value w, bool vex) {
  // Inline assembly without side effects (no memory effects, unlike
  // llvm.call_intrinsic, which bufferization's deallocation refuses; MLIR
  // 22's x86vector has only the AVX-VNNI-INT8 signed x signed form). AT&T
  // order: `$0 += $2 (u8) . $3 (s8)`, $1 tied to $0.
  return LLVM::InlineAsmOp::create(
             b, loc, acc.getType(), ValueRange{acc, a, w},
             b.getStringAttr(vex ? "{vex} vpdpbusd $3, $2, $0"
                                 : "vpdpbusd $3, $2, $0"),
             // VEX encodes ymm0-15 only ("x"); EVEX any of the 32 ("v").
             b.getStringAttr(vex ? "=x,0,x,x" : "=v,0,v,v"),
             /*has_side_effects=*/nullptr,
             /*is_align_stack=*/nullptr,
             LLVM::TailCallKindAttr::get(b.getContext(),
                                         LLVM::TailCallKind::None),
             /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
      .getResult(0);
}

Value mlir::llm::detail::flipSignBits(OpBuilder &b, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  Type i8 = b.getI8Type();
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{a},
             ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), i8)},
             SmallVector<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &gb, Location l, ValueRange args) {
               Value flip = arith::ConstantOp::create(
                   gb, l, gb.getIntegerAttr(i8, -128));
               linalg::YieldOp::create(
                   gb, l,
                   ValueRange{arith::XOrIOp::create(gb, l, args[0], flip)});
             })
      .getResult(0);
}

FailureOr<llm::detail::Int8DotOperands>
mlir::llm::detail::prepareInt8Dot(OpBuilder &b, Location loc, Value a,
                                  const QuantParams &pa, Value wq,
                                  const QuantParams &pb) {
  auto at = cast<RankedTensorType>(a.getType());
  auto wt = cast<RankedTensorType>(wq.getType());
  if (!at.hasStaticShape() || at.getRank() < 2 || !wt.hasStaticShape() ||
      wt.getRank() != 2 || pa.storageWidth != 8 || pb.storageWidth != 8 ||
      !pa.isPerTensor() || (!pb.isPerTensor() && pb.paramShape[0] != 1))
    return failure();
  Int8DotOperands ops;
  ops.K = wt.getDimSize(0);
  ops.N = wt.getDimSize(1);
  if (ops.K == 0 || ops.N == 0 || at.getShape().back() != ops.K)
    return failure();
  ops.M = at.getNumElements() / ops.K;
  if (ops.M == 0)
    return failure();
  int64_t M = ops.M, K = ops.K, N = ops.N;
  FailureOr<SmallVector<uint8_t>> bytes = readBytes(wq, K * N);
  if (failed(bytes))
    return failure();

  // Weights as s8 (b' = b - 128 when unsigned), zero points alike.
  int64_t zaShift = pa.isSigned ? 128 : 0, zbShift = pb.isSigned ? 0 : -128;
  int64_t za = pa.zeroPoints[0] + zaShift;
  ops.weight.resize(K * N);
  SmallVector<int32_t> comp(N), zbs(N);
  bool rowSums = false;
  for (int64_t n = 0; n < N; ++n) {
    int64_t zb = pb.zeroPoints[pb.isPerTensor() ? 0 : n] + zbShift;
    int64_t colSum = 0;
    for (int64_t k = 0; k < K; ++k) {
      uint8_t v = (*bytes)[k * N + n];
      int64_t w = pb.isSigned ? int64_t(int8_t(v)) : int64_t(v) - 128;
      colSum += w;
      ops.weight[k * N + n] = int8_t(w);
    }
    // -za' sum_k b' + K za' zb' (i32 wrapping, as the accumulator).
    comp[n] = int32_t(uint32_t(-za * colSum + K * za * zb));
    zbs[n] = int32_t(zb);
    rowSums |= zb != 0;
  }

  Type i32 = b.getI32Type();
  auto vecN = RankedTensorType::get({N}, i32);
  ops.comp = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vecN, ArrayRef<int32_t>(comp)));

  // a as [M, K], unsigned (a' = a ^ 0x80 = a + 128 for signed storage).
  ops.a = collapseRows(b, loc, a);
  if (pa.isSigned)
    ops.a = flipSignBits(b, loc, ops.a);
  AffineMap id2 = b.getMultiDimIdentityMap(2);
  // sum_k a'[m, k] (i32), when some zb' is not 0.
  if (rowSums) {
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    Value init = linalg::FillOp::create(b, loc, ValueRange{zero},
                                        ValueRange{tensor::EmptyOp::create(
                                            b, loc, ArrayRef<int64_t>{M}, i32)})
                     .getResult(0);
    ops.rowSum =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{ops.a},
            ValueRange{init},
            SmallVector<AffineMap>{id2,
                                   AffineMap::get(2, 0, b.getAffineDimExpr(0))},
            SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                             utils::IteratorType::reduction},
            [&](OpBuilder &gb, Location l, ValueRange args) {
              Value v = arith::ExtUIOp::create(gb, l, i32, args[0]);
              linalg::YieldOp::create(
                  gb, l, ValueRange{arith::AddIOp::create(gb, l, args[1], v)});
            })
            .getResult(0);
    ops.zb = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecN, ArrayRef<int32_t>(zbs)));
  }
  return ops;
}

Value mlir::llm::detail::addInt8DotZeroPointTerms(OpBuilder &b, Location loc,
                                                  const Int8DotOperands &ops,
                                                  Value acc, Value m, Value n,
                                                  bool inBounds) {
  auto accType = cast<VectorType>(acc.getType());
  Value pad32 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value cv =
      vector::TransferReadOp::create(b, loc, accType, ops.comp, ValueRange{n},
                                     pad32, ArrayRef<bool>{inBounds});
  Value v = arith::AddIOp::create(b, loc, acc, cv);
  if (!ops.rowSum)
    return v;
  Value zv = vector::TransferReadOp::create(
      b, loc, accType, ops.zb, ValueRange{n}, pad32, ArrayRef<bool>{inBounds});
  Value s = vector::BroadcastOp::create(
      b, loc, accType, tensor::ExtractOp::create(b, loc, ops.rowSum, m));
  return arith::SubIOp::create(b, loc, v, arith::MulIOp::create(b, loc, zv, s));
}

FailureOr<Value> mlir::llm::detail::buildInt8DotMatmul(
    OpBuilder &b, Location loc, Value a, const QuantParams &pa, Value wq,
    const QuantParams &pb, RankedTensorType resultType, int64_t vectorBits) {
  if (vectorBits != 256 && vectorBits != 512)
    return failure();
  // i32 lanes of one dot-product accumulator; accumulators of a register
  // tile: 16 of the 32 zmm registers (8 of the 16 ymm), with the tile's B
  // vectors and one broadcast of A beside them.
  const int64_t kLanes = vectorBits / 32;
  const int64_t kAccumulators = vectorBits == 512 ? 16 : 8;
  const bool vex = vectorBits == 256;
  auto wt = cast<RankedTensorType>(wq.getType());
  if (!resultType.hasStaticShape() || !wt.hasStaticShape() ||
      wt.getRank() != 2 || wt.getDimSize(0) % kDepth ||
      wt.getDimSize(1) % kLanes)
    return failure();
  FailureOr<Int8DotOperands> ops = prepareInt8Dot(b, loc, a, pa, wq, pb);
  if (failed(ops))
    return failure();
  int64_t M = ops->M, K = ops->K, N = ops->N;

  // Register tile: H vectors of kLanes columns (nr = kLanes H) by mr rows,
  // kAccumulators accumulators; few rows (decode) take wider tiles.
  int64_t H = N % (2 * kLanes) ? 1 : 2;
  if (M < 4 && N % (4 * kLanes) == 0)
    H = 4;
  int64_t nr = H * kLanes;
  int64_t mr = std::min(M, kAccumulators / H);
  int64_t Kq = K / kDepth;
  // Blocks of the parallel loop: up to kBlockColumns output columns of
  // whole register tiles (128x768 @ 768x3072 W8A8 on Zen 5 with 32-column
  // blocks: 1.24 ms against 0.57 ms without the epilogue).
  int64_t nb = detail::getDotBlockColumns(N, nr, kBlockColumns);

  // The weights packed [N / nr, Kq * nr * 4]: block j, step q, column c of
  // the block, byte t -> b'[4q + t, j nr + c].
  SmallVector<char> packed(K * N);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t j = n / nr, c = n % nr, q = k / kDepth, t = k % kDepth;
      packed[j * Kq * nr * kDepth + (q * nr + c) * kDepth + t] =
          char(ops->weight[k * N + n]);
    }

  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  auto ofr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value w = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get({N / nr, Kq * nr * kDepth}, i8),
          ArrayRef<char>(packed)));
  Value a2 = ops->a;

  auto accType = VectorType::get({kLanes}, i32);
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getI32IntegerAttr(0)));

  OpBuilder::InsertionGuard guard(b);
  Value out = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{M, N}, i32);
  auto forall = detail::createBlockLoop(b, loc, N / nb, out);
  b.setInsertionPointToStart(forall.getBody());
  Value nb0 =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(b, nb));

  // acc += sum_{t < 4} u8(a[4q + t]) s8(w[4q + t]) per lane.
  auto dot = [&](OpBuilder &kb, Location l, Value acc, Value av, Value wv) {
    return detail::dotU8S8(kb, l, acc, av, wv, vex);
  };
  detail::DotRegisterTile dotTile{w,  a2, Kq, H, kDepth, /*lhsInBounds=*/true,
                                  dot};

  // One register tile of `rows` rows from row m0, columns nOff.. of the
  // block (register tile column j of the packed weight, output column n0):
  // the accumulators over K, the zero-point terms, written into `tile`.
  auto rowTile = [&](OpBuilder &rb, Value j, Value n0, Value nOff, Value m0,
                     int64_t rows, Value tile) {
    SmallVector<Value> steps =
        detail::buildDotRegisterTile(rb, loc, dotTile, j, m0, rows, zeroAcc);
    // acc - za' sum_k b' + K za' zb' - zb' sum_k a'.
    for (int64_t h = 0; h < H; ++h) {
      Value n = arith::AddIOp::create(rb, loc, n0, idx(rb, h * kLanes));
      Value col = arith::AddIOp::create(rb, loc, nOff, idx(rb, h * kLanes));
      for (int64_t r = 0; r < rows; ++r) {
        Value m = arith::AddIOp::create(rb, loc, m0, idx(rb, r));
        Value v = detail::addInt8DotZeroPointTerms(rb, loc, *ops,
                                                   steps[r * H + h], m, n,
                                                   /*inBounds=*/true);
        tile = vector::TransferWriteOp::create(
                   rb, loc, v, tile, ValueRange{m, col}, ArrayRef<bool>{true})
                   .getResult();
      }
    }
    return tile;
  };

  // The block's columns of the output, written in place.
  auto unit = SmallVector<OpFoldResult>(2, ofr(1));
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(M), ofr(nb)}, unit);
  // The block's register tile columns, each over every row of A.
  auto columns = scf::ForOp::create(
      b, loc, idx(b, 0), idx(b, nb), idx(b, nr), ValueRange{tile},
      [&](OpBuilder &cb, Location, Value nOff, ValueRange t) {
        Value n0 = arith::AddIOp::create(cb, loc, nb0, nOff);
        Value j = arith::DivUIOp::create(cb, loc, n0, idx(cb, nr));
        Value ct = detail::buildRowTileLoops(
            cb, loc, ofr(M), mr, t[0],
            [&](OpBuilder &tb, Value m0, int64_t rows, Value acc) {
              return rowTile(tb, j, n0, nOff, m0, rows, acc);
            });
        scf::YieldOp::create(cb, loc, ct);
      });
  tile = columns.getResult(0);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0],
      SmallVector<OpFoldResult>{ofr(0), nb0},
      SmallVector<OpFoldResult>{ofr(M), ofr(nb)}, unit);
  // Elementwise consumers (the rescale, the bias, the requantize) are fused
  // into the block loop by llm-tile-and-vectorize.
  forall->setAttr(kFuseConsumersAttr, b.getUnitAttr());
  b.setInsertionPointAfter(forall);
  return expandRows(b, loc, forall.getResult(0), resultType);
}
