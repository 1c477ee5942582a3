//===- SparseMatmul.h - Matmul kernels of sparse constant weights -*- C++ -*-//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to the llm-to-linalg lowering: llmc's own static loops over the
// packed nonzeros of a constant weight (llm/Dialect/LLM/IR/SparseWeights.h).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LLMTOLINALG_SPARSEMATMUL_H
#define LIB_CONVERSION_LLMTOLINALG_SPARSEMATMUL_H

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/IR/Builders.h"

namespace mlir::llm::detail {

/// Most rows of the activation for which the 2:4 and CSR kernels are used:
/// above it (prefill) their per-element permutes and gathers lose to the
/// dense kernel (sparsity-probe.md, section 2.2), and the dense kernel runs.
inline constexpr int64_t kMaxSparseVectorRows = 8;

/// `a @ W^T` for an activation `a` ([..., K], f32, f16 or bf16; leading
/// dimensions static or dynamic) and a constant weight packed in `w`
/// (W[N, K]) whose stored values have type `valueType` (f32, f16, bf16 or
/// i8 levels; converted to f32 in registers, and multiplied by their
/// sub-channel scales when `w.groupSize` is set): a `[rows, N]` f32 tensor,
/// rows the product of `a`'s leading dimensions. An `scf.forall` over blocks of
/// output columns (marked for consumer fusion when N needs no padding)
/// runs, per block row or row, register tiles of activation rows over the
/// row's stored nonzeros, accumulating in f32 with FMAs:
///
/// * Block, transposed blocks (rows a multiple of the vector lanes): each
///   column of a block is one vector of output channels, multiplied by a
///   broadcast activation element (up to 8 rows share the block's loads;
///   with two or more full row tiles the activation is interleaved once as
///   `[tiles, K, rows]` and each block prefetches the slice the next one
///   reads);
/// * Block, other shapes: a block is one vector of rows x cols elements
///   multiplied by the activation's cols elements repeated rows times; one
///   reduction per block row;
/// * CSR: chunks of `lanes` nonzeros with `vector.gather` of the activation;
/// * 2:4: per 32 columns, 16 stored values with their lanes, the
///   activation's 32 elements permuted by `vpermt2ps` (AVX-512 only).
///
/// The packed arrays are constants, read once per call and row tile. The
/// activation is copied with zero padding when K is not a multiple of the
/// block columns (of 32 for 2:4). Fails, creating nothing, when
/// `vectorBits` is not 256 or 512, for 2:4 without 512-bit vectors, and for
/// 2:4 and CSR with more than kMaxSparseVectorRows or dynamic rows, for
/// sub-channel scales the format does not take (supportsGroupScales), and for
/// row-form blocks with those rows when more than 40% of the blocks are
/// stored. Failures that no shape of the activation avoids (vectors, types,
/// group scales, block shapes) set `why`; the fallbacks by design (2:4, CSR
/// and dense row-form blocks in prefill, 2:4 without 512-bit vectors) leave
/// it empty.
FailureOr<Value> buildSparseMatmul(OpBuilder &b, Location loc, Value a,
                                   const PackedSparseWeight &w, Type valueType,
                                   int64_t vectorBits, std::string &why);

/// The sparse kernel of `op` (lhs `lhs`, already converted) when
/// `llm-sparsify-weights` recorded a sparse `llm.sparse_format` on it, its
/// lowering configuration gives `vector_bits` (the CPU target's; set by
/// llm-select-lowering-config) and its weight is a rank-2 f32, f16 or bf16
/// constant and the lhs is not transposed: the weight is packed
/// (packSparseWeight) and buildSparseMatmul emits the kernel, a `[rows, N]`
/// f32 tensor. Fails, creating nothing, otherwise (the dense lowering
/// runs): no format or "dense", a weight that does not pack in the format,
/// or a shape buildSparseMatmul does not take. With a sparse format
/// recorded, a failure other than a fallback by design sets `why` (the
/// caller warns that the format is not honoured).
FailureOr<Value> lowerSparseMatmul(OpBuilder &b, MatmulOp op, Value lhs,
                                   std::string &why);

/// The same for `llm.dequant_matmul` with an f32 activation and result and
/// a constant 8- or 4-bit weight with per-tensor, per-output-channel or
/// sub-channel parameters (readQuantizedWeightLevels): its levels q - zp are
/// packed as i8 values and accumulated in f32; per-tensor and per-channel
/// scales multiply the sums afterwards (an elementwise consumer fused into
/// the kernel's block loop), sub-channel scales multiply each stored value
/// in registers (setGroupScales: BSR whose block columns divide the group,
/// 2:4 with groups of a multiple of 32); a `[rows, N]` f32 tensor. Fails,
/// creating nothing, as lowerSparseMatmul, for levels outside [-128, 127],
/// and for sub-channel scales the format does not take (CSR).
FailureOr<Value> lowerSparseDequantMatmul(OpBuilder &b, DequantMatmulOp op,
                                          Value lhs, std::string &why);

/// The sparse kernel of `llm.matmul_integer` (W8A8) of `a` (the lhs as its
/// 8-bit storage, [..., K], static, per-tensor zero point `pa`) by a
/// constant 8- or 4-bit weight [K, N] (any zero points) that
/// `llm-sparsify-weights` recorded as BSR with rows a multiple of the
/// vector lanes and columns a multiple of 4 (bsr16x16), where the lowering
/// configuration enables the 8-bit dot products (dot_product "i8"; not
/// "amx_i8", whose tiles outpace the skipped blocks): the weight's levels
/// L = b - zb (zero where pruned, as i8) are packed per block in `vpdpbusd`
/// operand order (4 bytes of K per lane), and each nonzero block adds
/// `cols / 4` dot products of the activation's 4 bytes (a' = a + 128 as u8
/// for signed storage) to i32 accumulators, exact (wrapping):
///
///   sum_k (a - za) L = sum_k a' L - za' sum_k L
///
/// with the second term a per-column constant. Returns the i32 result in
/// `op`'s type, the kernel's block loop marked for consumer fusion (the
/// rescale / requantize epilogue joins it) when N needs no padding. Fails,
/// creating nothing, otherwise (the dense kernels run), setting `why` as
/// lowerSparseMatmul.
FailureOr<Value> lowerSparseMatmulInteger(OpBuilder &b, MatmulIntegerOp op,
                                          Value a, const QuantParams &pa,
                                          std::string &why);

/// Warns at `op` that its recorded llm.sparse_format is not honoured
/// (`why`, set by the functions above) and the dense kernel runs; nothing
/// when `why` is empty or `op` has no sparse format.
void warnSparseFallback(Operation *op, StringRef why);

} // namespace mlir::llm::detail

#endif // LIB_CONVERSION_LLMTOLINALG_SPARSEMATMUL_H
