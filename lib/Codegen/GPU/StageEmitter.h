//===- StageEmitter.h - Distributed code of a GPU kernel's stages -*- C++
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to llm-map-gpu-kernels: the emitter of a kernel's stages (linalg
// generic ops on memrefs) inside a `gpu.launch` body, shared by the flat and
// rows strategies (MapGPUKernels.cpp) and the matmul tiles
// (MatmulTiles.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CODEGEN_GPU_STAGEEMITTER_H
#define LLM_LIB_CODEGEN_GPU_STAGEEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::llm {

/// The static loop ranges of `op` (llm-map-gpu-kernels refuses dynamic ones
/// before any stage is emitted).
SmallVector<int64_t> getStageRanges(linalg::GenericOp op);

/// The block-wide reduction kind of a payload `yield combine(out, f(ins))`
/// whose output block argument has no other use, with the combining op in
/// `combiner`; std::nullopt for any other payload.
std::optional<gpu::AllReduceOperation>
matchStageCombiner(linalg::GenericOp stage, Operation *&combiner);

/// The identity of reduction `kind` on `type` (0, 1, -inf, +inf, the
/// extreme integers or all ones).
Value getReductionIdentity(OpBuilder &b, Location loc,
                           gpu::AllReduceOperation kind, Type type);

/// Emits the distributed code of the stages of one kernel inside its
/// `gpu.launch` body.
class StageEmitter {
public:
  StageEmitter(OpBuilder &b, Location loc, IRMapping &mapping, Value tid,
               Value blockSize)
      : b(b), loc(loc), mapping(mapping), tid(tid), blockSize(blockSize) {}

  /// Column mode (KernelPlan::columnGroups): `tid` and `blockSize` are the
  /// warp's index and the number of warps, `leader` is true on the lanes of
  /// warp 0 whose output exists (they store every output), and `partials`
  /// (workgroup memory [groups, warp]) combines the warps' partial results
  /// at lane `lane`.
  void setColumnMode(Value leader, Value lane, Value partials) {
    this->leader = leader;
    this->lane = lane;
    this->partials = partials;
  }

  /// Emits `stage` with its leading `rowIvs.size()` dims fixed to `rowIvs`
  /// (rows strategy).
  LogicalResult emitRows(linalg::GenericOp stage, ArrayRef<Value> rowIvs);
  /// Emits `stage` with one parallel point per global thread id `gid` (flat
  /// strategy).
  LogicalResult emitFlat(linalg::GenericOp stage, Value gid);

  /// Emits `stage` at the one point `ivs` (every loop dim fixed but the
  /// reduction dims, which run serially), storing its outputs.
  void emitPoint(linalg::GenericOp stage, ArrayRef<Value> ivs);

  /// The indices of `map` at the loop point `ivs`.
  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> ivs);
  /// Runs the payload of `stage` at `ivs` with the outputs' values `outs`
  /// and returns the yielded values. Inputs are loaded at `ivs`, except
  /// those for which `given` returns a value (e.g. staged in shared memory).
  SmallVector<Value>
  payload(linalg::GenericOp stage, ArrayRef<Value> ivs, ValueRange outs,
          llvm::function_ref<Value(OpOperand &)> given = nullptr);
  /// The kernel's value of `v` (a clone inside the launch, or `v`).
  Value operand(Value v) { return mapping.lookupOrDefault(v); }
  /// Loads the outputs at `ivs` (reduction dims ignored by their maps).
  SmallVector<Value> loadOutputs(linalg::GenericOp stage, ArrayRef<Value> ivs);
  void storeOutputs(linalg::GenericOp stage, ArrayRef<Value> ivs,
                    ValueRange values);

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// Serial loops over `dims[from:]` carrying the outputs' values; the first
  /// loop may be thread-strided (`lb` = tid, `step` = block size).
  SmallVector<Value> reductionNest(linalg::GenericOp stage,
                                   SmallVectorImpl<Value> &ivs,
                                   ArrayRef<int64_t> dims, size_t from,
                                   ValueRange accs, bool distributeFirst);
  /// A full serial nest over the `parDims` then the `redDims` (the first par
  /// dim thread-strided when `distribute`), storing the results.
  void pointNest(linalg::GenericOp stage, SmallVectorImpl<Value> &ivs,
                 ArrayRef<int64_t> parDims, size_t from,
                 ArrayRef<int64_t> redDims, bool distribute);

  OpBuilder &b;
  Location loc;
  IRMapping &mapping;
  Value tid, blockSize;
  Value leader, lane, partials;
};

} // namespace mlir::llm

#endif // LLM_LIB_CODEGEN_GPU_STAGEEMITTER_H
