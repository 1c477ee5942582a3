//===- GPUKernels.h - llmc GPU kernel formation and mapping -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shared names of the GPU code generation passes (llm-form-gpu-kernels,
// llm-map-gpu-kernels).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_GPU_GPUKERNELS_H
#define LLM_CODEGEN_GPU_GPUKERNELS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace mlir::llm {

/// Unit attribute on the one-iteration `scf.forall` (mapped to
/// `#gpu.block<x>`) that holds the ops of one GPU kernel, from
/// llm-form-gpu-kernels (on tensors) to llm-map-gpu-kernels (on memrefs),
/// which replaces the loop by a `gpu.launch`.
inline constexpr llvm::StringLiteral kGPUKernelAttr = "llm.gpu_kernel";

/// Unit attribute, beside kGPUKernelAttr, on a kernel `scf.forall` that is
/// a tiled loop nest (the flash-attention lowering of `llm.attention`)
/// rather than a one-iteration wrapper: each of its iterations is one block
/// of the kernel, the buffers it allocates are that block's workgroup
/// memory, and each linalg op in it (also inside its `scf.for` / `scf.if`)
/// runs over the block's threads ("forall" strategy of llm-map-gpu-kernels).
inline constexpr llvm::StringLiteral kGPUBlockLoopAttr = "llm.gpu_block_loop";

/// Attribute llm-map-gpu-kernels sets on each `gpu.launch`: a dictionary
/// {strategy = "flat" | "rows" | "tiles" | "forall" | "scalar", stages = N,
/// rows = R}
/// describing how the kernel's work was distributed, plus `column_groups`
/// (rows in column mode), `tile`, `thread_tile` or `mma` (tiles). Read by
/// llm-report-gpu-kernels (the compile report) and tests.
inline constexpr llvm::StringLiteral kGPUStrategyAttr = "llm.gpu_strategy";

/// Integer attribute llm-form-gpu-kernels sets on each function: the number
/// of results it has on tensors, which bufferization turns into its trailing
/// out-params (read by llm-add-gpu-host-entries).
inline constexpr llvm::StringLiteral kGPUNumResultsAttr =
    "llm.gpu_num_results";

/// Smallest M and N of a matmul (loops (b.., m, n, k)) that
/// llm-map-gpu-kernels computes as output tiles (its `tiles` strategy);
/// llm-form-gpu-kernels gives such a matmul a kernel of its own within a
/// fusion group.
inline constexpr int64_t kMinTiledMatmulExtent = 32;

/// Whether `op` (on tensors or buffers) is a matmul that llm-map-gpu-kernels
/// can compute as output tiles: loops (b.., m, n, k) with k its one
/// reduction, M and N static and at least kMinTiledMatmulExtent, the payload
/// `out + f(...)` (an addition), the output indexed by (b.., m, n), one input
/// indexed by m and k but not n (A: its operand number in `lhs`) and one by
/// n and k but not m (B: in `rhs`), of 8-, 16-, 32- or 64-bit elements.
bool isTiledMatmulCandidate(linalg::LinalgOp op, unsigned *lhs = nullptr,
                            unsigned *rhs = nullptr);

/// The buffer `v` (a memref) is a view of: through every view-like op
/// (subviews, reshapes, casts, arena slots), or, with `stopAtArenaSlots`, up
/// to a slot of the memory plan's arena (a `memref.view`: the planner's slots
/// of one call do not overlap while they are live, so two slots are two
/// buffers).
Value getViewedBuffer(Value v, bool stopAtArenaSlots = false);

} // namespace mlir::llm

#endif // LLM_CODEGEN_GPU_GPUKERNELS_H
