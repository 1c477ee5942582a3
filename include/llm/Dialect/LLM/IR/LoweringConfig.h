//===- LoweringConfig.h - Per-op lowering configuration ---------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Target-independent contracts between the llm dialect, its lowering
// (`convert-llm-to-linalg`) and each target's codegen, so that the dialect
// and conversion layers read no target description:
//
// * `llm.lowering_config`: a dictionary on an op recording the target's
//   choices for its lowering, in the manner of IREE's per-dispatch lowering
//   configuration. A target's codegen writes it (`llm-select-lowering-config`
//   from the CPU target description), a tuner or a test may write it by hand,
//   and `convert-llm-to-linalg` reads it, with neutral defaults where it is
//   absent. Keys:
//
//     on `llm.attention`:
//       attention_tile = array<i64: Q, KV>   flash-attention tile [query rows,
//                                            key/value rows], both > 0
//                                            (default [32, 64] or
//                                            convert-llm-to-linalg's
//                                            `attention-tile`)
//       stage_values = true | false          the flash lowering copies each
//                                            value tile into a tile buffer
//                                            before the PV product (GPU:
//                                            workgroup memory; default
//                                            false: read in place)
//       kv_splits = N (>= 1)                 a query tile covering the whole
//                                            query sequence visits the
//                                            key/value tiles in N parts,
//                                            in parallel, and the parts'
//                                            partial softmax results are
//                                            combined (flash-decoding;
//                                            default 1)
//       padded_head_dims = array<i64: D', Dv'>
//                                            the flash lowering computes on
//                                            head dims D' >= D (queries,
//                                            keys) and Dv' >= Dv (values):
//                                            each tile is copied into a
//                                            zero-padded one (the scores
//                                            and the Dv result columns are
//                                            unchanged), so that its rows
//                                            are whole vectors (default:
//                                            D, Dv, no padding)
//     on `llm.dequant_matmul`:
//       dot_product = "bf16" | "f32"         the 4-bit decode matvec uses
//                                            AVX512-BF16 dot products (bf16)
//                                            or the exact f32 kernel
//                                            (default "f32")
//     on `llm.matmul_integer`:
//       dot_product = "i8" | "f32"           a constant 8-bit weight takes
//                                            the 4-way 8-bit dot-product
//                                            kernel (AVX512-VNNI vpdpbusd)
//                                            or the exact f32 panels
//                                            (default "f32")
//       dot_product = "amx_i8"               as "i8", on AMX tiles (tdpbusd:
//                                            16 x 16 i32 tiles of 16 x 64 u8
//                                            by 64 x 16 s8 products; the
//                                            kernel of buildAMXInt8Matmul)
//       vector_bits = 512 | 256              with dot_product = "i8": the
//                                            kernel's vector width, 512-bit
//                                            AVX512-VNNI (zmm) or 256-bit
//                                            AVX-VNNI (`{vex} vpdpbusd` on
//                                            ymm: Alder Lake and later
//                                            client cores; default 512)
//     on `llm.matmul` with a constant weight (isBF16DotMatmul):
//       dot_product = "bf16" | "f32"         bf16: the inputs are rounded to
//                                            bf16 (round to nearest even;
//                                            the weight at compile time) and
//                                            the products summed in f32 by
//                                            the bf16 dot-product kernel
//                                            (AVX512-BF16 vdpbf16ps); f32:
//                                            the exact f32 kernels (default)
//       dot_product = "amx_bf16"             as "bf16", on AMX tiles
//                                            (tdpbf16ps: 16 x 16 f32 tiles
//                                            of 16 x 32 by 32 x 16 bf16
//                                            products; Sapphire Rapids and
//                                            later; the kernel of
//                                            buildAMXBF16Matmul)
//     on `llm.matmul` with an `llm.sparse_format` (SparseWeights.h):
//       vector_bits = 512 | 256              the vector width of the sparse
//                                            kernels (absent: the weight
//                                            takes the dense lowering)
//     on `llm.dequant_matmul` (continued):
//       streamed = true | false              the decode matvec kernels take
//                                            their streaming block shapes:
//                                            the weight is read from DRAM on
//                                            every call (default: the weight
//                                            has at least
//                                            `streamed-weight-min-bytes`
//                                            stored bytes, 1 MiB)
//     on `linalg.matmul` / `linalg.batch_matmul` (CPU codegen; written by
//     `llm-apply-tuning-cache` from a tuning cache, read by
//     `llm-tile-and-vectorize` instead of the target's tile heuristics):
//       register_tile = array<i64: m, n, k>  the register tile, each > 0
//                                            (clamped to the problem)
//       cache_tile = array<i64: m, n, k>     the cache tile, each >= 0 (0:
//                                            the whole dimension; n rounded
//                                            down to a multiple of the
//                                            register tile, k to a divisor
//                                            of K)
//
//   e.g. `llm.attention ... {llm.lowering_config = {attention_tile =
//   array<i64: 32, 64>}}`. The dialect verifies it (LLMDialect::
//   verifyOperationAttribute): a dictionary, on one of those ops, with only
//   that op's keys and valid values.
//
// * WeightLayout: the storage of a matmul's constant weight that a target's
//   matmul kernel reads contiguously, requested from `llm-optimize-layout`
//   (`weight-layout=kn|nk`) by each target's pipeline.
//
// * Markers that the lowering puts on the linalg ops it has already placed in
//   their own loop nests, for the codegen passes (`llm.vectorize_in_place`,
//   `llm.fuse_consumers`).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_IR_LOWERINGCONFIG_H
#define LLM_DIALECT_LLM_IR_LOWERINGCONFIG_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
namespace llm {

//===----------------------------------------------------------------------===//
// llm.lowering_config
//===----------------------------------------------------------------------===//

/// Name of the per-op lowering configuration (a DictionaryAttr).
inline constexpr llvm::StringLiteral kLoweringConfigAttrName =
    "llm.lowering_config";
/// `llm.attention`: the flash-attention tile (DenseI64ArrayAttr, 2 sizes > 0).
inline constexpr llvm::StringLiteral kAttentionTileKey = "attention_tile";
/// `llm.attention`: the flash lowering copies each value tile into a tile
/// buffer of its own before the PV product (BoolAttr; the GPU kernels'
/// workgroup memory), instead of reading it in place.
inline constexpr llvm::StringLiteral kStageValuesKey = "stage_values";
/// `llm.attention`: the key/value sequence split into this many parts whose
/// partial softmax results are combined afterwards (IntegerAttr >= 1;
/// flash-decoding: a decode step's attention on more blocks of a GPU).
inline constexpr llvm::StringLiteral kKvSplitsKey = "kv_splits";
/// `llm.attention`: the head dims [D', Dv'] the flash lowering computes on
/// (DenseI64ArrayAttr, D' >= D and Dv' >= Dv): zero-padded query, key and
/// value tiles and accumulator, so that each row is whole vectors.
inline constexpr llvm::StringLiteral kPaddedHeadDimsKey = "padded_head_dims";
/// `llm.dequant_matmul`: the dot-product form (StringAttr, kDotProduct*).
inline constexpr llvm::StringLiteral kDotProductKey = "dot_product";
inline constexpr llvm::StringLiteral kDotProductBF16 = "bf16";
inline constexpr llvm::StringLiteral kDotProductF32 = "f32";
/// `llm.matmul`: bf16 products on Intel AMX tiles.
inline constexpr llvm::StringLiteral kDotProductAMXBF16 = "amx_bf16";
/// `llm.matmul_integer`: 4-way 8-bit dot products into i32 lanes.
inline constexpr llvm::StringLiteral kDotProductI8 = "i8";
/// `llm.matmul_integer`: 8-bit products on Intel AMX tiles.
inline constexpr llvm::StringLiteral kDotProductAMXI8 = "amx_i8";
/// `llm.matmul_integer`: the 8-bit dot products' vector width in bits
/// (IntegerAttr, 256 or 512).
inline constexpr llvm::StringLiteral kVectorBitsKey = "vector_bits";
/// `llm.dequant_matmul`: the weight is streamed from DRAM (BoolAttr).
inline constexpr llvm::StringLiteral kStreamedKey = "streamed";

/// Checks `attr`, the value of kLoweringConfigAttrName on `op` (see the file
/// comment); emits an error at `op` and fails otherwise.
LogicalResult verifyLoweringConfig(Operation *op, Attribute attr);

/// The flash-attention tile [query rows, key/value rows] recorded on `op`,
/// if any.
std::optional<std::array<int64_t, 2>> getConfiguredAttentionTile(Operation *op);
/// The key/value splits of `op`'s configuration, if it says.
std::optional<int64_t> getConfiguredKvSplits(Operation *op);
/// The padded head dims [D', Dv'] of `op`'s configuration, if it says.
std::optional<std::array<int64_t, 2>>
getConfiguredPaddedHeadDims(Operation *op);
/// Whether `op`'s configuration asks for staged value tiles, if it says.
std::optional<bool> getConfiguredStageValues(Operation *op);
/// Whether `op`'s configuration asks for the bf16 dot products, if it says.
std::optional<bool> getConfiguredBF16DotProduct(Operation *op);
/// Whether `op`'s configuration asks for the bf16 products on AMX tiles, if
/// it says.
std::optional<bool> getConfiguredAMXBF16DotProduct(Operation *op);
/// Whether `op`'s configuration asks for the 8-bit products on AMX tiles, if
/// it says.
std::optional<bool> getConfiguredAMXInt8DotProduct(Operation *op);
/// Whether `op`'s configuration asks for the 8-bit dot products, if it says.
std::optional<bool> getConfiguredInt8DotProduct(Operation *op);
/// The vector width in bits of `op`'s 8-bit dot products, if it says.
std::optional<int64_t> getConfiguredVectorBits(Operation *op);
/// Whether `op`'s configuration says its weight is streamed, if it says.
std::optional<bool> getConfiguredStreamed(Operation *op);

/// Whether the bf16 dot-product kernel of convert-llm-to-linalg takes the
/// `llm.matmul` `op`: `lhs` [..., M, K] with a static K, no dimension of
/// size 0 (the rows may be dynamic: a sequence), not transposed; `rhs` an
/// `llm.constant` of rank 2 ([K, N], or [N, K] with `transpose_b`) with N >= 16
/// (the f32 lanes of one vector; a remainder of N is computed on zero-padded
/// columns); element type bf16, or f32 when `demoteF32` (the inputs are then
/// rounded to bf16). False for other ops and for a weight stored sparse
/// (`llm.sparse_format`).
bool isBF16DotMatmul(Operation *op, bool demoteF32);

/// Rows of one row block of the AMX bf16 kernel (two 16-row tiles).
inline constexpr int64_t kAMXBlockRows = 32;

/// Whether a matmul lhs of type `lhs` ([..., K]) has rows for the AMX
/// kernels: static, at least kAMXBlockRows rows (the product of its
/// dimensions but K), K not 0.
bool hasAMXRows(ShapedType lhs);

/// Whether the AMX bf16 kernel of convert-llm-to-linalg takes `op`:
/// isBF16DotMatmul(op, demoteF32) with static rows (the product of the lhs
/// dimensions but K), at least kAMXBlockRows of them (a prefill; fewer rows
/// would multiply mostly zero-padded tiles).
bool isAMXBF16Matmul(Operation *op, bool demoteF32);

/// `linalg.matmul` / `linalg.batch_matmul`: the register tile [m, n, k].
inline constexpr llvm::StringLiteral kRegisterTileKey = "register_tile";
/// `linalg.matmul` / `linalg.batch_matmul`: the cache tile [m, n, k].
inline constexpr llvm::StringLiteral kCacheTileKey = "cache_tile";

/// The matmul tiles recorded on a linalg contraction (register_tile and
/// cache_tile, both present), if any.
struct ConfiguredMatmulTiles {
  std::array<int64_t, 3> registerTile;
  std::array<int64_t, 3> cacheTile;
};
std::optional<ConfiguredMatmulTiles> getConfiguredMatmulTiles(Operation *op);

//===----------------------------------------------------------------------===//
// Weight layout requests
//===----------------------------------------------------------------------===//

/// Storage of a matmul's B operand that the matmul kernel reads
/// contiguously: `KN` (B row-major [K, N]) or `NK` (B stored [N, K], as a
/// dot-product kernel wants).
enum class WeightLayout { KN, NK };

/// Parses "kn" / "nk".
std::optional<WeightLayout> parseWeightLayout(StringRef name);
/// "kn" / "nk".
StringRef stringifyWeightLayout(WeightLayout layout);

//===----------------------------------------------------------------------===//
// Markers from the lowering to the codegen
//===----------------------------------------------------------------------===//

/// Unit attribute on a linalg op that a lowering already placed inside its own
/// loop nest (the tiles of the flash-attention lowering):
/// llm-tile-and-vectorize register-tiles and vectorizes it where it is, instead
/// of giving it an outer parallel loop. Matmuls (register tiles) and 2-D
/// transposes (square tiles of one vector length); removed by the pass.
inline constexpr llvm::StringLiteral kVectorizeInPlaceAttr =
    "llm.vectorize_in_place";

/// Unit attribute on a static linalg op inside a lowering's own loop nest
/// whose first and last loops are parallel (flash attention's [Tq, Tk] and
/// [Tq, Dv] elementwise ops): llm-tile-and-vectorize tiles it into rows and
/// vectorizes each row, instead of leaving it to LLVM, which fully unrolls a
/// short row whose length is not a multiple of the vector width (a head dim
/// of 40) and vectorizes across the rows with gathers and scatters. Also on
/// a static 2-D `tensor.pad` that pads only the end of its rows (flash
/// attention's tiles, padded_head_dims): one masked vector read and
/// one write per row. Removed by the pass.
inline constexpr llvm::StringLiteral kVectorizeRowsAttr = "llm.vectorize_rows";

/// Marks an `scf.forall` (over blocks of a lowering's result) into which
/// llm-tile-and-vectorize fuses the elementwise consumers of its result
/// (upstream `scf::tileAndFuseConsumer`), one block at a time; removed by
/// the pass.
inline constexpr llvm::StringLiteral kFuseConsumersAttr = "llm.fuse_consumers";

/// Marks an `scf.forall` (over column blocks of a lowering's result) each of
/// whose iterations reads the whole of its input (the bf16 dot-product
/// kernel), a BoolAttr: in an `llm.fusion_group`, llm-tile-and-vectorize
/// recomputes the group's producers of that input (a norm prologue) inside
/// the loop when true (at most 16 static rows: a decode step) and the loop
/// stays a loop (more than one iteration, or mapped to #llm.block_loop), so
/// that they are no kernel of their own; otherwise it tiles them as one
/// loop nest before the loop. Removed by the pass.
inline constexpr llvm::StringLiteral kFuseProducersAttr = "llm.fuse_producers";

} // namespace llm
} // namespace mlir

#endif // LLM_DIALECT_LLM_IR_LOWERINGCONFIG_H
