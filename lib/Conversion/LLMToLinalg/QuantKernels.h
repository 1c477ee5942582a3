//===- QuantKernels.h - Kernels of the quantized llm ops --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to the llm-to-linalg lowering: the kernels of the quantized ops
// that live in files of their own, and the helpers they share with
// QuantToLinalg.cpp (and SparseMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H
#define LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H

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

} // namespace mlir::llm::detail

#endif // LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H
