//===- SparseWeights.h - Sparse storage of constant matmul weights -*- C++ -*-//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The storage formats of a pruned constant matmul weight and their packing,
// shared by `llm-sparsify-weights` (which chooses a format per weight and
// records it as `llm.sparse_format` on the matmul) and the CPU lowering of
// `llm.matmul` (which packs the weight in that format and emits llmc's own
// static loops over the packed nonzeros). docs/Sparsity.md describes the
// formats and the kernels.
//
// A weight is always viewed as W[N, K]: output channels by the contraction,
// whatever its stored layout ([K, N], or [N, K] with `transpose_b`).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_SPARSEWEIGHTS_H
#define LLM_DIALECT_LLM_IR_SPARSEWEIGHTS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::llm {

/// The dictionary recorded on an `llm.matmul` by `llm-sparsify-weights`:
/// `{format = "bsr16x16", density, estimated_speedup, bytes, dense_bytes}`.
inline constexpr llvm::StringLiteral kSparseFormatAttrName =
    "llm.sparse_format";

/// The formats `llm-sparsify-weights` chooses among (or is forced to with
/// `format=`), as SparseFormat::parse reads them; the kernels take any
/// `bsrRxC`.
inline constexpr llvm::StringLiteral kSparsifyFormatNames[] = {
    "dense", "2:4", "bsr4x4", "bsr16x16", "bsr1x4", "bsr1x16", "csr"};

/// A storage format of W[N, K].
struct SparseFormat {
  enum class Kind {
    /// Every element, row-major.
    Dense,
    /// Exact 2:4 along K: every group of 4 consecutive elements of a row
    /// holds at most 2 nonzeros.
    TwoFour,
    /// Block-sparse rows (BSR): the nonzero `rows` x `cols` blocks of W.
    Block,
    /// Compressed sparse rows with 16-bit column indices.
    CSR,
  };
  Kind kind = Kind::Dense;
  /// Block shape (Block only): rows of N by columns of K.
  int64_t rows = 0, cols = 0;

  /// "dense", "2:4", "bsrRxC" (for example "bsr16x16") or "csr"; fails on
  /// anything else.
  static FailureOr<SparseFormat> parse(llvm::StringRef name);
  /// The name `parse` reads.
  std::string str() const;
  bool isDense() const { return kind == Kind::Dense; }
};

/// W[N, K] packed for llmc's sparse matmul kernels. Shapes are padded so
/// that the kernels never read out of bounds: `paddedN` to a multiple of the
/// block rows (Block), `paddedK` to a multiple of the block columns (Block)
/// or of 32 (2:4); the padding holds zeros.
struct PackedSparseWeight {
  SparseFormat format;
  int64_t N = 0, K = 0, paddedN = 0, paddedK = 0;
  /// Block: nonzero blocks before block row i (size paddedN / rows + 1).
  /// CSR: chunks of `chunk` stored elements before row n (size N + 1).
  std::vector<int32_t> rowPtr;
  /// Block: the block column of each nonzero block. CSR: the column of each
  /// stored element (a row's last chunk is padded with zeros at the row's
  /// last column).
  std::vector<uint16_t> colIdx;
  /// 2:4: for row n and chunk q of 32 columns, 16 stored elements (two per
  /// group of 4, padded with zeros), each with its lane in the chunk
  /// (0..31): `laneIdx[(n * paddedK / 32 + q) * 16 + e]`.
  std::vector<uint8_t> laneIdx;
  /// The stored values: Block, `rows * cols` per nonzero block, row-major
  /// within the block ([r][c]) or, with `transposedBlocks`, column-major
  /// ([c][r]); CSR, `chunk` per chunk; 2:4, 16 per chunk.
  std::vector<float> values;
  /// Block: blocks stored [c][r] (a column of the block is one vector of
  /// output channels).
  bool transposedBlocks = false;
  /// CSR: stored elements per chunk (the vector lanes).
  int64_t chunk = 0;
  /// Sub-channel scales (setGroupScales): elements of K per scale group, 0
  /// when the weight has none.
  int64_t groupSize = 0;
  /// With `groupSize`: the scale of output channel n in group g at
  /// `groupScales[g * paddedN + n]` ([paddedK / groupSize rounded up,
  /// paddedN], padding 0), so that a block's channels are contiguous. The
  /// kernels multiply each stored value by its scale in registers.
  std::vector<float> groupScales;
};

/// Packs `w` (row-major; [N, K] when `nk`, else [K, N]) in `format` for
/// kernels with vectors of `lanes` f32 elements. Blocks are stored
/// transposed when `rows` is a multiple of `lanes`. Fails, with the reason
/// in `why`, for a dense format, a 2:4 format when a group of 4 holds more
/// than 2 nonzeros, CSR with K above 65536 and Block with more than 65536
/// block columns (16-bit indices), and `lanes` < 1.
FailureOr<PackedSparseWeight> packSparseWeight(ArrayRef<float> w, bool nk,
                                               int64_t N, int64_t K,
                                               SparseFormat format,
                                               int64_t lanes, std::string &why);

/// The weight of an `llm.dequant_matmul` as integer levels: W[n, k] =
/// scales[n] (or scales[0]) * levels[n, k] per tensor or per output channel,
/// and scales[n * (K / groupSize) + k / groupSize] * levels[n, k] with
/// sub-channel groups.
struct QuantizedWeightLevels {
  /// q - zp of each element, in the weight's storage order (exact in f32).
  std::vector<float> levels;
  /// One scale per output channel, or one per tensor; with `groupSize`,
  /// [N, K / groupSize] row-major (a scale shared by all channels repeated
  /// per channel).
  SmallVector<double> scales;
  /// Elements of K per scale (sub-channel groups, `{.., kDim:G}` of the
  /// quantized type); 0 per tensor or per output channel.
  int64_t groupSize = 0;
  /// Stored bits per element (8 or 4).
  unsigned storageWidth = 8;
};

/// The levels of `w`, the constant weight of an `llm.dequant_matmul`
/// (`[N, K]` when `nk`, else `[K, N]`; a `quant.scast` of an integer
/// constant, see readStorageBytes) with per-tensor, per-output-channel or
/// sub-channel parameters (groups along K, one or N along N). Fails for
/// FP8, for sub-channel blocks that span several output channels without
/// spanning them all, for levels outside [-128, 127] (they are stored as
/// i8), and for a weight that is not a constant; for the first three, with
/// the reason in `why` when given (a weight the sparse formats cannot hold,
/// as opposed to one that is not a quantized constant).
FailureOr<QuantizedWeightLevels>
readQuantizedWeightLevels(Value w, bool nk, std::string *why = nullptr);

/// Whether llmc's kernels take `format` with sub-channel scales of
/// `groupSize` elements along K: blocks whose columns divide the group
/// (a block lies in one group) and 2:4 with groups of a multiple of 32 (a
/// chunk of 32 columns lies in one group); not CSR, whose chunks cross
/// groups.
bool supportsGroupScales(SparseFormat format, int64_t groupSize);

/// Gives `p` sub-channel scales (`scales` [N, ceil(K / groupSize)]
/// row-major, as QuantizedWeightLevels holds them). Fails, with the reason
/// in `why`, when !supportsGroupScales(p.format, groupSize), `groupSize` < 1
/// or `scales` has the wrong size.
LogicalResult setGroupScales(PackedSparseWeight &p, ArrayRef<double> scales,
                             int64_t groupSize, std::string &why);

/// `values` (row-major) as the elements of `type` (f32, f16 or bf16; rounded
/// to nearest-even): the inverse of readFloatValues.
DenseElementsAttr getFloatElementsAttr(RankedTensorType type,
                                       ArrayRef<float> values);

/// The values of a constant of f32, f16 or bf16 elements (an inline dense
/// attribute or a little-endian dense_resource blob) as f32, row-major;
/// std::nullopt for other element types or a blob of the wrong size.
std::optional<std::vector<float>> readFloatValues(ElementsAttr attr);

/// `attr` (f32, f16 or bf16 elements) with its elements converted to `to`
/// (f32, f16 or bf16; rounded to nearest-even, NaNs kept quiet): a splat
/// stays a splat, an inline dense attribute stays inline, and a
/// dense_resource gets a new blob named `<name>_<to>` (`w_f32`, `w_bf16`),
/// so a large weight is not uniqued in the context. Null when the elements
/// are not available (another element type, a missing or short blob, a
/// sparse<> literal). Used by llm-promote-contraction-inputs (f16/bf16 ->
/// f32) and llm-demote-contraction-inputs (f32 -> bf16/f16).
ElementsAttr convertFloatElements(ElementsAttr attr, FloatType to);

} // namespace mlir::llm

#endif // LLM_DIALECT_LLM_IR_SPARSEWEIGHTS_H
