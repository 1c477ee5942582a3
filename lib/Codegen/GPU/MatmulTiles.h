//===- MatmulTiles.h - The tiles strategy of llm-map-gpu-kernels -*- C++
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to llm-map-gpu-kernels: kernels whose one reduction stage is a
// matmul (prefill projections, with their fused prologue and epilogue) as
// output tiles per block, staged through shared memory, with a register tile
// of outputs per thread.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CODEGEN_GPU_MATMULTILES_H
#define LLM_LIB_CODEGEN_GPU_MATMULTILES_H

#include "llm/Codegen/GPU/GPUTargetDescription.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::llm {

/// How a matmul kernel is tiled. The matmul stage is
///   C[b..., m, n] = C[b..., m, n] + f(A[.. m .. k ..], B[.. n .. k ..], ...)
/// (a linalg.generic whose loops are (b..., m, n, k), k its one reduction,
/// combined by an addition): a block computes a tileM x tileN tile of C for
/// one value of the batch dims, each of its threads a threadM x threadN
/// register tile of consecutive outputs; the K loop steps by tileK, staging
/// A's and B's tiles in shared memory ([tileK][tileM + pad] and [tileK]
/// [tileN + pad], k-major so each thread reads its rows and columns with
/// one vector load each).
struct MatmulTiles {
  /// The matmul among the kernel's stages.
  unsigned stage = 0;
  /// Its input operand numbers of A (indexed by m and k, not n) and B (by
  /// n and k, not m).
  unsigned lhs = 0, rhs = 0;
  /// Its static loop ranges (b..., M, N, K).
  SmallVector<int64_t> ranges;
  int64_t tileM = 64, tileN = 64, tileK = 16;
  int64_t threadM = 4, threadN = 4;
  /// Tensor cores (`mma.sync.m16n8k16`, f16 or bf16 inputs, f32
  /// accumulation): 64 x 64 tiles of 4 warps (each 32 x 32: 2 x 4 MMAs),
  /// K tiles of 32 (see matchMatmulTensorCores).
  bool tensorCores = false;
  /// With tensor cores: the MMA input type (f16 or bf16); an f32 input is
  /// rounded to it as its tiles are staged (llm-demote-contraction-inputs'
  /// payload `ext(trunc(a))`).
  Type mmaType;
  /// With tensor cores, a constant 2:4 B on `mma.sp` (m16n8k32; see
  /// matchMatmulSparseTensorCores): the module's globals of its stored
  /// values (`[N][K / 2]` of mmaType) and of its metadata (i32 words, in
  /// the order the MMAs' threads read them).
  FlatSymbolRefAttr sparseValues, sparseMetadata;

  int64_t getBlockSize() const {
    return tensorCores ? 128 : (tileM / threadM) * (tileN / threadN);
  }
  /// Blocks: the batch dims' extents times the tiles of M and N.
  int64_t getGridSize() const;
};

/// The tiling of a kernel made of `stages` when it qualifies: one stage is
/// a matmul as above with M and N at least 32; every other stage is
/// parallel over the same (b..., m, n) space; every access to a buffer
/// written in the kernel is at the point itself (identity indexing), and
/// the matmul's inputs are not written in it (`mayAlias` tells whether two
/// buffers may overlap). The tile is 64 x 64 (4 x 4 per thread) when that
/// gives at least one block per SM of `target`, else 32 x 32 (2 x 2).
std::optional<MatmulTiles>
matchMatmulTiles(ArrayRef<linalg::GenericOp> stages,
                 const GPUTargetDescription &target,
                 llvm::function_ref<bool(Value, Value)> mayAlias);

/// Switches `tiles` to tensor cores when its matmul qualifies: C f32, the
/// payload `c + x * y` (nothing else read) where x and y are each
/// `ext(a)` of an f16 / bf16 input or `ext(trunc(a))` of an f32 input
/// rounded to f16 / bf16, both of the same type, M and N multiples of 64
/// and K of 32 (no partial tile: the fragments are stored whole). Returns
/// whether it did.
bool matchMatmulTensorCores(ArrayRef<linalg::GenericOp> stages,
                            MatmulTiles &tiles);

/// Switches a tensor-core `tiles` to 2:4 sparse tensor cores when its B is
/// a whole `memref.get_global` of a constant global of f32, f16 or bf16
/// (not indexed by the batch dims) in which every group of 4 consecutive
/// elements along K of each output channel holds at most 2 nonzeros (an
/// exact 2:4 weight, as llm-sparsify-weights measures it): B is packed at
/// compile time into two new private constant globals of `module` (or ones
/// made before for the same weight, layout and MMA type, found by their
/// `llm.packed_from` string), its stored values rounded to
/// `tiles.mmaType` and its 2-bit metadata, and the kernel computes C^T =
/// B^T A^T with `nvvm.mma.sp.sync` m16n8k32, B^T the sparse operand (see
/// MatmulTensorCores.cpp). Returns whether it did.
bool matchMatmulSparseTensorCores(ArrayRef<linalg::GenericOp> stages,
                                  MatmulTiles &tiles, ModuleOp module);

/// Emits the kernel's ops (`ops`: its stages and the view / constant ops
/// between them, in order) into the body of `launch` (1-D, of
/// `tiles.getGridSize()` blocks of `tiles.getBlockSize()` threads) at `b`'s
/// insertion point: the stages before the matmul at each of the thread's
/// points, the tiled K loop, then the stages after it at each point.
/// `mapping` holds the kernel's clones of weights and constants.
LogicalResult emitMatmulTiles(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                              IRMapping &mapping, ArrayRef<Operation *> ops,
                              ArrayRef<linalg::GenericOp> stages,
                              const MatmulTiles &tiles);

/// The same for `tiles.tensorCores` (MatmulTensorCores.cpp): the stages
/// before and after the matmul run at 32 points per thread (consecutive
/// threads on consecutive columns), with a barrier on each side of the
/// MMA loop; with `tiles.sparseValues`, on mma.sp.
LogicalResult emitMatmulTensorCores(OpBuilder &b, Location loc,
                                    gpu::LaunchOp launch, IRMapping &mapping,
                                    ArrayRef<Operation *> ops,
                                    ArrayRef<linalg::GenericOp> stages,
                                    const MatmulTiles &tiles);

} // namespace mlir::llm

#endif // LLM_LIB_CODEGEN_GPU_MATMULTILES_H
