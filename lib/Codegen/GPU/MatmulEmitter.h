//===- MatmulEmitter.h - What the matmul kernel emitters share --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to llm-map-gpu-kernels: the base of the FMA tiles' emitter
// (MatmulTiles.cpp) and the tensor cores' (MatmulTensorCores.cpp): the
// kernel being built, index arithmetic, and where the block's tile of C is.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_CODEGEN_GPU_MATMULEMITTER_H
#define LLM_LIB_CODEGEN_GPU_MATMULEMITTER_H

#include "MatmulTiles.h"
#include "StageEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::llm {

class MatmulEmitterBase {
public:
  MatmulEmitterBase(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                    IRMapping &mapping, linalg::GenericOp mm,
                    const MatmulTiles &tiles)
      : b(b), loc(loc), launch(launch), mapping(mapping), mm(mm), tiles(tiles),
        stages(b, loc, mapping, Value(), Value()),
        tid(launch.getThreadIds().x) {}

protected:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, cst(y)) : x; }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return mul(x, cst(y)); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, cst(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, cst(y));
  }

  /// The block's tile: block id -> (batch..., tile of M, tile of N), the N
  /// tiles fastest (blocks running together share their rows of A); sets
  /// `batch`, `row0` and `col0` (the tile's first row and column).
  void locateBlock() {
    int64_t numLoops = tiles.ranges.size();
    SmallVector<int64_t> counts(tiles.ranges.begin(), tiles.ranges.end() - 3);
    counts.push_back(llvm::divideCeil(tiles.ranges[numLoops - 3], tiles.tileM));
    counts.push_back(llvm::divideCeil(tiles.ranges[numLoops - 2], tiles.tileN));
    Value rest = launch.getBlockIds().x;
    SmallVector<Value> reversed;
    for (int64_t count : llvm::reverse(counts)) {
      reversed.push_back(rem(rest, count));
      rest = div(rest, count);
    }
    SmallVector<Value> blockIvs(reversed.rbegin(), reversed.rend());
    batch.assign(blockIvs.begin(), blockIvs.end() - 2);
    row0 = mul(blockIvs[blockIvs.size() - 2], tiles.tileM);
    col0 = mul(blockIvs.back(), tiles.tileN);
  }

  OpBuilder &b;
  Location loc;
  gpu::LaunchOp launch;
  IRMapping &mapping;
  linalg::GenericOp mm;
  const MatmulTiles &tiles;
  StageEmitter stages;
  Value tid;
  SmallVector<Value> batch;
  Value row0, col0;
};

} // namespace mlir::llm

#endif // LLM_LIB_CODEGEN_GPU_MATMULEMITTER_H
