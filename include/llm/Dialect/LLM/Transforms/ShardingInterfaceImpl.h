//===- ShardingInterfaceImpl.h - llm ops' shard partitioning ----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The upstream `shard::ShardingInterface` on the llm ops that a
// tensor-parallel plan (`llm-shard`) splits, so that upstream
// `shard-partition` rewrites them into their per-rank form.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_DIALECT_LLM_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define LLM_DIALECT_LLM_TRANSFORMS_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace llm {

/// Attaches `shard::ShardingInterface` to the llm ops `llm-shard` may split:
/// the elementwise ops (unary and numpy-broadcasting binary), `llm.gelu`,
/// `llm.cast`, `llm.reshape`, `llm.transpose`, `llm.softmax`, `llm.rope`,
/// `llm.attention`, `llm.kv_cache_update` and `llm.matmul`. Their `partition`
/// clones the op on its per-rank operands with per-rank result types
/// (`shard::shardType`); a matmul whose contraction dimension is split sums its
/// partial products with `shard.all_reduce` (sum over grid axis 0) and yields a
/// replicated result. The plan is `llm-shard`'s: it annotates every value, so
/// the models implement `partition` only (no propagation rules).
void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace llm
} // namespace mlir

#endif // LLM_DIALECT_LLM_TRANSFORMS_SHARDINGINTERFACEIMPL_H
