//===- QuantKernels.h - Kernels of the quantized llm ops --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to the llm-to-linalg lowering: the dot-product kernels of the
// quantized ops and of bf16 matmuls that live in files of their own, and the
// helpers they share with QuantToLinalg.cpp (and SparseMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H
#define LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

namespace mlir::llm::detail {

/// The storage bytes of a constant 8-bit weight `w` (a `quant.scast` of an
/// inline dense or a resource blob of one element per byte), in storage
/// order; fails for non-constant weights and when there are not `count`.
inline FailureOr<SmallVector<uint8_t>> readBytes(Value w, int64_t count) {
  return readStorageBytes(w, count);
}

/// `v` ([..., K], rank >= 2) as `[rows, K]`, rows the product of its
/// leading dimensions: `v` itself for rank 2, else a tensor.collapse_shape.
Value collapseRows(OpBuilder &b, Location loc, Value v);

/// `r`, a `[rows, N]` kernel result, in `resultType`'s shape `[..., N]`
/// (rows = the product of its leading dimensions): `r` itself for rank 2,
/// else a tensor.expand_shape.
Value expandRows(OpBuilder &b, Location loc, Value r,
                 RankedTensorType resultType);

/// The columns of one block of a dot-product kernel's parallel loop: R
/// register tiles of `nr` columns, R the largest divisor of N / nr with
/// R nr <= `maxColumns` (wider blocks make a fused epilogue write rows of
/// more columns: with an output row stride that is a multiple of 4 KiB,
/// rows of 32 columns all fall in two L1 sets).
int64_t getDotBlockColumns(int64_t N, int64_t nr, int64_t maxColumns);

/// One register tile of a dot-product kernel: `vectors` accumulators per row
/// (vectors of the accumulator's lanes), each step of K reading the tile's
/// weight vectors from the packed `weight` ([N / nr, steps * nr * depth],
/// register tile column j's row) and, per row, `depth` elements of `lhs`
/// ([rows, K]) as one i32 broadcast to every lane, then `dot(acc, lhs
/// word, weight vector)` per accumulator (`vpdpbusd`, `vdpbf16ps`).
struct DotRegisterTile {
  Value weight;
  Value lhs;
  /// Steps of K (`depth` elements each) and weight vectors per row.
  int64_t steps = 0, vectors = 1, depth = 1;
  /// Whether every group of `lhs` read lies inside it (else masked, 0).
  bool lhsInBounds = true;
  llvm::function_ref<Value(OpBuilder &, Location, Value acc, Value lhs,
                           Value weight)>
      dot;
};

/// The accumulators (rows x vectors, row-major) of `tile` over rows r0 ..
/// r0 + rows of its lhs and register tile column `j`, from `zeroAcc`.
SmallVector<Value> buildDotRegisterTile(OpBuilder &b, Location loc,
                                        const DotRegisterTile &tile, Value j,
                                        Value r0, int64_t rows, Value zeroAcc);

/// `llm.matmul_integer` of an activation `a` ([..., K], 8-bit storage, per
/// tensor zero point `pa`) and a constant 8-bit weight `wq` ([K, N], per
/// tensor or per column zero points `pb`) on 4-way 8-bit dot products
/// (`vpdpbusd`, AVX512-VNNI: 16 lanes of `acc += sum_{t<4} u8 * s8`), exact
/// in i32 (wrapping, as the ONNX MatMulInteger reference in i32):
///
///   sum_k (a - za)(b - zb) = sum_k a' b' - za' sum_k b' - zb' sum_k a'
///                            + K za' zb'
///
/// with `a' = a + 128` for signed activations (u8), `b' = b - 128` for
/// unsigned weights (s8) and the zero points shifted alike; the weight's
/// column sums are compile-time constants, the activation's row sums are
/// computed once per call, only when some `zb'` is not 0. The weight is
/// packed at compile time into [N / nr, K / 4, nr, 4] bytes (nr = 1, 2 or
/// 4 vectors of columns per register tile). Register tiles of mr x nr
/// outputs (16 accumulators of 16 lanes with `vectorBits` 512, AVX512-VNNI;
/// 8 of 8 lanes with 256, AVX-VNNI's `{vex} vpdpbusd` on ymm, for targets
/// without AVX-512) run over K four elements at a time,
/// under an `scf.forall` over blocks of up to 128 columns (whole register
/// tile columns) marked for consumer fusion (the epilogue joins the block
/// loop). Fails, creating nothing,
/// when the shapes are dynamic, K is not a multiple of 4, N of the lanes (16
/// or 8), or the weight is not a constant.
FailureOr<Value> buildInt8DotMatmul(OpBuilder &b, Location loc, Value a,
                                    const QuantParams &pa, Value wq,
                                    const QuantParams &pb,
                                    RankedTensorType resultType,
                                    int64_t vectorBits = 512);

/// `llm.matmul` of an activation `a` ([..., K], f32 or bf16, statically
/// shaped) and a constant weight of values `weight` (row-major [K, N], or
/// [N, K] when `nk`; N >= 16) on 2-way bf16 dot products
/// (`vdpbf16ps`, AVX512-BF16: 16 f32 lanes of `acc += a0 * b0 + a1 * b1`,
/// each product of two bf16 values exact in f32): the weight is rounded to
/// bf16 (nearest even) and packed at compile time into [Np / nr, ceil(K / 2),
/// nr, 2] (Np: N rounded up to 16 with zero columns; nr = 16, 32 or 64
/// columns per register tile; an odd K ends with a zero pair), and register
/// tiles of up to 24 accumulators run over K two elements at a time under an
/// `scf.forall` over blocks of up to 128 columns marked for consumer fusion
/// (with padded columns, the result is the [M, N] slice of the [M, Np] one,
/// unmarked); an f32 activation is rounded to bf16 inside each block, one row
/// tile at a time (no kernel of its own). The result is f32 with `resultType`'s
/// shape (the caller rounds it to a bf16 result type). Like bf16 autocast, or
/// AMX-BF16: the inputs lose their low mantissa bits, the accumulation does not
/// (AVX512-BF16 also flushes denormal inputs and results to zero). Fails,
/// creating nothing, when the shapes are dynamic, K or M is 0, or N is
/// below 16.
FailureOr<Value> buildBF16DotMatmul(OpBuilder &b, Location loc, Value a,
                                    ArrayRef<float> weight, bool nk, int64_t N,
                                    RankedTensorType resultType);

/// buildBF16DotMatmul for `op` (its lhs converted to `lhs`) when its lowering
/// configuration asks for the bf16 dot products and isBF16DotMatmul holds;
/// fails, creating nothing, otherwise.
FailureOr<Value> lowerBF16DotMatmul(OpBuilder &b, MatmulOp op, Value lhs);

} // namespace mlir::llm::detail

#endif // LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H
