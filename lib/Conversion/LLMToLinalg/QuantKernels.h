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

#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The parallel loop of a CPU kernel over its `blocks` column blocks, with
/// `out` as its shared output: an `scf.forall` mapped to
/// `#llm.block_loop`, so that a kernel of one block stays a loop (its
/// consumers fused into it) until llm-unmap-block-loops.
scf::ForallOp createBlockLoop(OpBuilder &b, Location loc, int64_t blocks,
                              Value out);

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

/// `lhs[m, k .. k + n)` (rank 2; n elements of 32 bits together: 4 i8 or
/// 2 bf16) as one i32 broadcast to every lane, as `operandType` (the
/// dot-product instruction's activation operand, e.g. vector<64xi8>):
/// the group read in bounds or, without `inBounds`, padded with zeros.
Value broadcastLhsWord(OpBuilder &b, Location loc, Value lhs, Value m, Value k,
                       VectorType operandType, bool inBounds);

/// The accumulators (rows x vectors, row-major) of `tile` over rows r0 ..
/// r0 + rows of its lhs and register tile column `j`, from `zeroAcc`.
SmallVector<Value> buildDotRegisterTile(OpBuilder &b, Location loc,
                                        const DotRegisterTile &tile, Value j,
                                        Value r0, int64_t rows, Value zeroAcc);

/// Loops of row tiles over rows 0 .. `rows` of a kernel's block, threading
/// `init` through `tile(b, m0, tileRows, acc)` (rows m0 .. m0 + tileRows):
/// tiles of `mr` rows, then the rest as one static tile (static `rows`), or,
/// for dynamic `rows` (a sequence), at most one tile each of 8, 4, 2 and 1
/// rows below `mr`, so that every tile has a static height. Returns the
/// final value.
Value buildRowTileLoops(
    OpBuilder &b, Location loc, OpFoldResult rows, int64_t mr, Value init,
    llvm::function_ref<Value(OpBuilder &, Value m0, int64_t tileRows, Value)>
        tile);

/// `acc += sum_{t < 4} u8(a[4i + t]) * s8(w[4i + t])` per i32 lane i of
/// `acc` (vector<16xi32> or vector<8xi32>; `a`, `w` the same bits as
/// vector<64xi8> or vector<32xi8>): `vpdpbusd` (AVX512-VNNI on zmm; with
/// `vex`, AVX-VNNI's VEX encoding on ymm), exact in i32 with wrapping.
Value dotU8S8(OpBuilder &b, Location loc, Value acc, Value a, Value w,
              bool vex);

/// `a` (an i8 tensor of signed storage) with each element's sign bit
/// flipped: the same bits read as u8 are a + 128.
Value flipSignBits(OpBuilder &b, Location loc, Value a);

/// The operands of an 8-bit dot-product kernel of `llm.matmul_integer`
/// (prepareInt8Dot): u8 activations by s8 weights, exact in i32, with the
/// zero points folded into per-column and per-row terms (see
/// buildInt8DotMatmul's formula).
struct Int8DotOperands {
  int64_t M = 0, K = 0, N = 0;
  /// b' = b (signed) or b - 128 (unsigned storage), row-major [K, N].
  SmallVector<int8_t> weight;
  /// a' as [M, K] i8 storage read as u8 (a ^ 0x80 for signed storage).
  Value a;
  /// [N] i32: -za' sum_k b' + K za' zb' (wrapping).
  Value comp;
  /// [M] i32 sum_k a' and [N] i32 zb'; null when every zb' is 0.
  Value rowSum, zb;
};

/// The Int8DotOperands of `llm.matmul_integer` of `a` ([..., K], 8-bit
/// storage, per-tensor zero point `pa`) and a constant 8-bit weight `wq`
/// ([K, N], per-tensor or per-column zero points `pb`): the weight's bytes
/// read at compile time, `a'` (an i8 xor for signed storage) and the row
/// sums (a reduction) as linalg ops. Fails, creating nothing, for dynamic
/// shapes, other storage widths or zero-point layouts, a zero size, or a
/// weight that is not a constant.
FailureOr<Int8DotOperands> prepareInt8Dot(OpBuilder &b, Location loc, Value a,
                                          const QuantParams &pa, Value wq,
                                          const QuantParams &pb);

/// `acc` (an i32 vector of the sums sum_k a' b' of row `m`, columns n, n +
/// 1, ...) plus the zero-point terms of `ops` at those columns:
/// acc + comp[n..] - zb[n..] * rowSum[m]. Columns past N read 0 unless
/// `inBounds`.
Value addInt8DotZeroPointTerms(OpBuilder &b, Location loc,
                               const Int8DotOperands &ops, Value acc, Value m,
                               Value n, bool inBounds);

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
/// tile at a time (no kernel of its own). Dynamic rows run in tiles of the
/// register height, then at most one tile each of 8, 4, 2 and 1 rows (all
/// static). With at most 16 static rows the block loop is also marked for
/// producer fusion (kFuseProducersAttr). The result is f32 with
/// `resultType`'s shape (the caller rounds it to a bf16 result type). Like bf16
/// autocast, or AMX-BF16: the inputs lose their low mantissa bits, the
/// accumulation does not (AVX512-BF16 also flushes denormal inputs and results
/// to zero). Fails, creating nothing, when K is dynamic, K or M is 0, or N is
/// below 16.
FailureOr<Value> buildBF16DotMatmul(OpBuilder &b, Location loc, Value a,
                                    ArrayRef<float> weight, bool nk, int64_t N,
                                    RankedTensorType resultType);

/// The bf16 kernel of `op` (its lhs converted to `lhs`) when isBF16DotMatmul
/// holds and its lowering configuration asks for one: buildAMXBF16Matmul for
/// dot_product = "amx_bf16" (shapes it does not take, such as fewer than 32
/// rows, get the next), buildBF16DotMatmul for "bf16"; fails, creating
/// nothing, otherwise.
FailureOr<Value> lowerBF16DotMatmul(OpBuilder &b, MatmulOp op, Value lhs);

/// `llm.matmul` of an activation `a` ([..., K], f32 or bf16, statically
/// shaped, at least kAMXBlockRows = 32 rows M) and a constant weight of
/// values `weight` (row-major [K, N], or [N, K] when `nk`; N >= 16) on Intel
/// AMX tiles (`tdpbf16ps`: a 16 x 16 f32 tile C += A B with A 16 x 32 bf16
/// and B 16 pairs of K x 16 columns, the sum of each pair's products as
/// AVX512-BF16's `vdpbf16ps`; Intel SDM vol. 1 ch. 18 and the AMX entry of
/// vol. 2). The weight is rounded to bf16 (nearest even) and packed at
/// compile time in AMX's pair layout, one 32-column panel after the other:
/// [Np / 32 * Kp / 2, 64] with row j Kp / 2 + q holding w[2q + t, 32 j + c]
/// at 2 c + t (Np: N rounded up to 32, Kp: K rounded up to 32, zeros
/// there). Under an `scf.forall` over blocks of up to 128 columns (whole
/// panels), each block rounds a row block of 32 rows of `a` to bf16 into a
/// [32, Kp] scratch (rows past M zero), then per panel runs a 2 x 2 block
/// of accumulator tiles over K (2 A tiles, 2 B tiles: the 8 tile
/// registers), stores them into a [32, 32] f32 scratch and copies the rows
/// below M into its output columns. The block loop is marked for consumer
/// fusion when N is a multiple of 32 (else the result is the [M, N] slice of
/// the [M, Np] one). The tile configuration (`ldtilecfg`) is LLVM's
/// (X86 tile config passes); the process's permission to use AMX state is
/// requested by llm-request-amx-state. The result is f32 with `resultType`'s
/// shape. Fails, creating nothing, for dynamic shapes, fewer than 32 rows,
/// K = 0 or N below 16.
FailureOr<Value> buildAMXBF16Matmul(OpBuilder &b, Location loc, Value a,
                                    ArrayRef<float> weight, bool nk, int64_t N,
                                    RankedTensorType resultType);

/// `llm.matmul_integer` of `a` ([..., K], 8-bit storage, per-tensor zero
/// point `pa`, at least kAMXBlockRows = 32 static rows) and a constant 8-bit
/// weight `wq` ([K, N], per-tensor or per-column zero points `pb`) on Intel
/// AMX tiles (`tdpbusd`: a 16 x 16 i32 tile C += A B with A 16 x 64 u8 and B
/// 16 quads of K x 16 columns of s8, each lane the sum of 4 products; Intel
/// SDM), exact in i32 like buildInt8DotMatmul, whose operands and zero-point
/// terms it shares (prepareInt8Dot): b' packed at compile time in AMX's quad
/// layout, [Np / 32 * Kp / 4, 128] bytes (N rounded up to 32, K to 64, with
/// zeros), a' copied into a [32, Kp] scratch per row block, the same loop
/// nest as buildAMXBF16Matmul, and the zero-point terms added as the
/// accumulator rows are copied out. Fails, creating nothing, for fewer than
/// 32 rows and where prepareInt8Dot fails.
FailureOr<Value> buildAMXInt8Matmul(OpBuilder &b, Location loc, Value a,
                                    const QuantParams &pa, Value wq,
                                    const QuantParams &pb,
                                    RankedTensorType resultType);

//===----------------------------------------------------------------------===//
// Helpers of the quantized kernels (QuantToLinalg.cpp)
//===----------------------------------------------------------------------===//

/// An f32 / i32 `arith.constant` of `v` (f32Const is defined in
/// LinalgBuilders.cpp).
Value f32Const(OpBuilder &b, Location loc, double v);
Value i32Const(OpBuilder &b, Location loc, int64_t v);

/// Reinterprets a quantized tensor as its storage type (or back): a
/// `quant.scast` to `to`, or `v` itself when it already has that type.
Value storageCast(OpBuilder &b, Location loc, Value v, Type to);

/// Scalar f32 from an f16/bf16/f32 value (`arith.extf`, exact).
Value toF32(OpBuilder &b, Location loc, Value v);

//===----------------------------------------------------------------------===//
// Weight-only matmul kernels (QuantMatvec.cpp, QuantPanels.cpp)
//===----------------------------------------------------------------------===//

/// Most rows of x the matvec kernel takes (one unpacked weight chunk feeds
/// all of them; more would spill the R * M accumulators).
constexpr int64_t kMatvecMaxRows = 4;

/// The 4-bit storage values of a constant weight `[n, k]` (inline dense, or
/// a resource blob holding one element per byte), one per byte in [0, 15]:
/// unsigned nibbles as they are, signed ones biased to `q + 8` (the kernels
/// raise the zero point by 8). Fails for non-constant weights.
FailureOr<SmallVector<uint8_t>> readNibbles(Value w, int64_t n, int64_t k,
                                            bool isSigned);

/// `x[M, K] @ dequantize(w)^T` for a weight stored `[N, K]` (transpose_b)
/// and 1 <= M <= kMatvecMaxRows rows of x (decode, or a short prefill):
/// a parallel loop over blocks of `R` weight rows; per block, a loop over the
/// quantization groups along K and, inside, over chunks of 32 elements of K:
/// the weight chunk is one vector load of the storage bytes (16 bytes of
/// packed nibbles for 4-bit weights, in packNibbles' layout: zero-extended
/// to i32 lanes, the low nibbles (`& 15`) are elements 0..15 of the chunk
/// and the high nibbles (`>> 4`) elements 16..31, each matched with a plain
/// load of x), converted to f32 in registers and multiplied with x into an
/// f32 vector accumulator per weight row and row of x (each unpacked weight
/// chunk is reused by the M rows of x, never stored). The zero point and
/// scale apply once per
/// group: `sum_k x (q - z) s = s (sum_k x q - z sum_k x)`, with `sum_k x`
/// (per lane) accumulated once for all rows (neither when every stored
/// zero point is 0: symmetric 8-bit weights); signed nibbles are stored as
/// `q + 8` and their zero point raised by 8, so the inner loop is
/// zero-extension, and/shift, conversion and FMA only. One horizontal sum
/// per row ends the block. Returns failure when the shape or
/// layout does not fit (the caller then emits the generic contraction).
FailureOr<Value> buildDequantMatvec(OpBuilder &b, Location loc, Value x,
                                    Value wq, const QuantParams &p,
                                    RankedTensorType resultType, bool streamed);

/// `x[M, K] @ dequantize(w)^T` for a constant 4-bit weight stored `[N, K]`
/// and 1 <= M <= kMatvecMaxRows rows of x, on targets with AVX512-BF16 dot
/// products and AVX512-BW word permutes (`dot_product = "bf16"` in the op's
/// `llm.lowering_config`):
///  * the weight is packed in this kernel's layout: within each chunk of
///    128 elements of a row, 16-bit word `i` (0..31, bytes 2i and 2i + 1)
///    holds element `32p + i` in bits [4p, 4p + 4) (p = 0..3), storage
///    values as readNibbles gives them (signed ones as `q + 8`);
///  * plane p of a chunk is `vpermw(table_z, word >> 4p)` (AVX512-BW
///    `vpermw` as `llvm.inline_asm`; it reads the
///    low 5 bits of each index): a vector<32xbf16> of `q - z` for the
///    elements 32p..32p+31, from the 32-entry table of the group's zero
///    point `z` (`table_z[j] = bf16((j & 15) - z)`: small integers, exact),
///    so the zero point costs nothing in the loop;
///  * x is split once per call into two bf16 terms, `hi = bf16(x)` and
///    `lo = bf16(x - hi)` (round to nearest even: 16 significant bits,
///    |x - hi - lo| <= 2^-16 |x|), and each plane is multiplied with both by
///    `vdpbf16ps` (`x86vector.avx512.dot`: products of bf16 pairs, exact in
///    f32, accumulated in f32);
///  * each group's sum is scaled once: `total += s * sum_k x (q - z)`.
/// The error against the f32 kernel is at most 2^-16 sum_k |x| |q - z| s
/// (plus the f32 rounding both have). Groups of 32 or 64 elements, or
/// multiples of 128 (per channel included); K a multiple of 128; zero
/// points in [0, 15] after the signed bias. Returns failure when the shape
/// or the parameters do not fit (the caller then uses the f32 kernel).
FailureOr<Value> buildDequantMatvecBF16(OpBuilder &b, Location loc, Value x,
                                        Value wq, const QuantParams &p,
                                        RankedTensorType resultType,
                                        bool streamed);

/// `x[..., K] @ dequantize(w)` for an integer weight `w` (8-bit, or 4-bit
/// constant) and any static number of rows of x (the prefill form; decode
/// rows take the matvec kernels), without a dequantized copy of the weight:
///
///   scf.forall over blocks of nc output channels (nc = kPanelN or a
///                                                  divisor of N; when N
///                                                  has none, the last
///                                                  N % kPanelN channels are
///                                                  one block after it):
///     C[rows, nc] = 0
///     scf.for over panels of kc elements of K (kc = kPanelK or a divisor):
///       panel[kc, nc] = dequantize(w[k0 : k0 + kc, n0 : n0 + nc])
///       C += x[:, k0 : k0 + kc] @ panel   (llm.vectorize_in_place)
///     out[:, n0 : n0 + nc] = C
///
/// The panel is dequantized with vector ops, one row of nc channels at a
/// time (ONNX DequantizeLinear: `(q - z) * s`, an exact i32 subtraction and
/// one f32 rounding, as llm.dequantize), from the storage that
/// getPanelStorage lays out `[K, N]`; it stays in the L2 cache and feeds
/// every row of x, so the dequantization costs O(K N) against the matmul's
/// O(rows K N). llm-tile-and-vectorize turns the panel matmul into the f32
/// register tiles of any matmul (the panel's rows are the contiguous
/// `[K, nr]` strips they read). Returns failure (changing nothing) for
/// dynamic shapes and weights that getPanelStorage does not take.
///
/// With `integerAccumulate` (llm.matmul_integer): x holds small integers
/// (`a - za`, as f32), the panels hold `q - z` (no scale) and the result is
/// i32: each panel's matmul starts from zero and is added to an i32
/// accumulator. Exact: every term is below 255 * 255 < 2^16 in magnitude
/// and a panel sums at most 256 of them (kc <= kPanelK), so every partial
/// sum is an integer below 2^24, which f32 holds exactly whatever the
/// summation order.
FailureOr<Value> buildPanelDequantMatmul(OpBuilder &b, Location loc, Value x,
                                         Value wq, bool transposeB,
                                         const QuantParams &p,
                                         RankedTensorType resultType,
                                         bool integerAccumulate);

} // namespace mlir::llm::detail

#endif // LIB_CONVERSION_LLMTOLINALG_QUANTKERNELS_H
