//===- MatmulTilesTest.cpp - Tests of the CPU matmul tile choice ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/TargetDescription.h"
#include "llm/Codegen/Transforms.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::llm;

namespace {

MatmulTiles tilesFor(const CPUTargetDescription &target, int64_t m,
                     int64_t threads, bool dynamicM = false, int64_t n = 3072) {
  static MLIRContext ctx;
  MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = 768;
  p.accType = Float32Type::get(&ctx);
  p.threads = threads;
  p.dynamicM = dynamicM;
  return selectMatmulTiles(target, p);
}

// One thread, AVX-512: a row count that leaves the [8, 32] tile a ragged
// last tile takes the tail tile, 6 or 5 rows by 64 columns (fewer row
// tiles first, then the fuller last tile).
TEST(MatmulTilesTest, RaggedRowsTakeTheTailTile) {
  CPUTargetDescription t = CPUTargetDescription::getAVX512();
  struct Case {
    int64_t m, rows;
  } cases[] = {{9, 5},   // 6 + 3 or 5 + 4: 5
               {11, 6},  // 6 + 5 against 5 + 5 + 1
               {13, 5},  // 6 + 6 + 1 or 5 + 5 + 3: 5
               {15, 5},  // 5 + 5 + 5
               {23, 6},  // 6 x 3 + 5 against five tiles of 5
               {37, 6}}; // 6 x 6 + 1 against eight tiles of 5
  for (Case c : cases) {
    MatmulTiles tiles = tilesFor(t, c.m, /*threads=*/1);
    EXPECT_EQ(tiles.regM, c.rows) << "m = " << c.m;
    EXPECT_EQ(tiles.regN, 64) << "m = " << c.m;
  }
}

// Whole and half tiles keep [8, 32]; so do two threads, a dynamic M (its
// remainder is peeled in steps of the regular tile) and targets without a
// tail tile.
TEST(MatmulTilesTest, RegularTileOtherwise) {
  CPUTargetDescription avx512 = CPUTargetDescription::getAVX512();
  for (int64_t m : {8, 12, 16, 20, 24, 128}) {
    MatmulTiles tiles = tilesFor(avx512, m, /*threads=*/1);
    EXPECT_EQ(tiles.regM, 8) << "m = " << m;
    EXPECT_EQ(tiles.regN, 32) << "m = " << m;
  }
  EXPECT_EQ(tilesFor(avx512, 15, /*threads=*/2).regM, 8);
  // N not a multiple of the tail tile's 64 columns (B's strips are 32
  // wide): the regular tile.
  EXPECT_EQ(tilesFor(avx512, 15, /*threads=*/1, /*dynamicM=*/false, 1000).regM,
            8);
  EXPECT_EQ(tilesFor(avx512, 15, /*threads=*/1, /*dynamicM=*/true).regM, 8);
  CPUTargetDescription avx2 = CPUTargetDescription::getAVX2();
  EXPECT_EQ(tilesFor(avx2, 15, /*threads=*/1).regM, avx2.matmulRegisterTile[0]);
}

} // namespace
