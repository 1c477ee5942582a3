//===- ShardingInterfaceImpl.cpp - llm ops' shard partitioning ------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The per-rank form of the llm ops a tensor-parallel plan splits (see
// llm-shard, Shard.cpp). Modeled on upstream
// mlir/lib/Dialect/Linalg/Transforms/MeshShardingInterfaceImpl.cpp: an op
// whose split dimensions are independent is cloned on the local shards; a
// contraction whose reduction dimension is split is followed by an
// all-reduce of its partial sums.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/Transforms/ShardingInterfaceImpl.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

/// An op whose split dimensions need no communication: every rank computes
/// its slice of the result from its slices of the operands (elementwise
/// ops, reshapes and transposes that keep the split on one dimension,
/// attention over a group of heads). `llm-shard` only splits such an op
/// along such a dimension.
template <typename OpTy>
struct LocalShardingModel
    : public shard::ShardingInterface::ExternalModel<LocalShardingModel<OpTy>,
                                                     OpTy> {
  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbolTable, builder);
    return success();
  }
};

/// Whether `sharding` splits dimension `dim` of its tensor.
static bool splitsDim(const shard::Sharding &sharding, int64_t dim) {
  if (!sharding)
    return false;
  ArrayRef<shard::GridAxesAttr> axes = sharding.getSplitAxes();
  return dim < static_cast<int64_t>(axes.size()) && !axes[dim].empty();
}

/// `llm.matmul`: loops (batch..., m, n, k). A split `n` (column-parallel,
/// the weight split by output columns) is local; a split `k`
/// (row-parallel: the activation split by its last dimension, the weight
/// by its rows) gives each rank a partial sum, which
/// `shard.all_reduce <sum>` over the split's grid axes adds up into the
/// replicated result.
struct MatmulShardingModel
    : public shard::ShardingInterface::ExternalModel<MatmulShardingModel,
                                                     MatmulOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<utils::IteratorType> types(type.getRank(),
                                           utils::IteratorType::parallel);
    types.push_back(utils::IteratorType::reduction);
    return types;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    auto matmul = cast<MatmulOp>(op);
    int64_t lhsRank = matmul.getLhs().getType().getRank();
    int64_t kDim = matmul.getTransposeA() ? lhsRank - 2 : lhsRank - 1;
    if (!splitsDim(operandShardings[0], kDim)) {
      shard::partitionTriviallyShardableOperation(
          *op, partitionedOperands, operandShardings, resultShardings,
          partitionMap, symbolTable, builder);
      return success();
    }
    // Row-parallel: the local product over this rank's rows of K is a
    // partial sum of the full result.
    if (splitsDim(resultShardings[0], 0) ||
        llvm::any_of(resultShardings[0].getSplitAxes(),
                     [](shard::GridAxesAttr axes) { return !axes.empty(); }))
      return op->emitOpError(
          "a matmul with a split contraction dimension must have a "
          "replicated result (it is all-reduced)");
    ArrayRef<shard::GridAxis> gridAxes =
        operandShardings[0].getSplitAxes()[kDim].asArrayRef();
    auto local = MatmulOp::create(
        builder, op->getLoc(), op->getResult(0).getType(),
        partitionedOperands[0], partitionedOperands[1],
        matmul.getTransposeAAttr(), matmul.getTransposeBAttr());
    auto sum = shard::AllReduceOp::create(
        builder, op->getLoc(), local.getResult(), operandShardings[0].getGrid(),
        gridAxes, shard::ReductionKind::Sum);
    partitionMap.map(op->getResult(0), sum.getResult());
    partitionMap.map(op, sum.getOperation());
    return success();
  }
};

template <typename... OpTys>
static void attachLocal(MLIRContext *ctx) {
  (OpTys::template attachInterface<LocalShardingModel<OpTys>>(*ctx), ...);
}

} // namespace

void mlir::llm::registerShardingInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LLMDialect *) {
    attachLocal<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaxOp, MinOp>(ctx);
    attachLocal<NegOp, ExpOp, LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp,
                ReciprocalOp, SigmoidOp, ReluOp, AbsOp, FloorOp, CeilOp,
                RoundOp, SinOp, CosOp, AcosOp, AsinOp, AtanOp, SiluOp, GeluOp,
                CastOp>(ctx);
    attachLocal<ReshapeOp, TransposeOp, SoftmaxOp, RopeOp, AttentionOp,
                KVCacheUpdateOp>(ctx);
    MatmulOp::attachInterface<MatmulShardingModel>(*ctx);
  });
}
