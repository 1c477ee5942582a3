//===- TargetDescription.cpp - CPU code generation targets ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU target descriptions and host detection.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/TargetDescription.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::llm;

int64_t CPUTargetDescription::getVectorLanes(Type elementType) const {
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 32;
  return std::max<int64_t>(1, vectorBits / std::max(1u, bits));
}

int64_t CPUTargetDescription::getNumThreads() const {
  if (numThreads > 0)
    return numThreads;
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

CPUTargetDescription CPUTargetDescription::getGeneric() {
  CPUTargetDescription t;
  t.name = "generic";
  t.vectorBits = 128;
  // 4 x 2 accumulators of 4 lanes: 8 of 16 (SSE) or 32 (NEON) registers.
  t.matmulRegisterTile = {4, 8, 1};
  t.matmulCacheTile = {64, 128, 0};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX2() {
  CPUTargetDescription t;
  t.name = "avx2";
  t.vectorBits = 256;
  // 4 x 2 accumulators of 8 lanes + 2 B vectors + 1 broadcast: 11 of 16 ymm.
  t.matmulRegisterTile = {4, 16, 1};
  t.matmulCacheTile = {64, 256, 0};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512() {
  CPUTargetDescription t;
  t.name = "avx512";
  t.vectorBits = 512;
  // 8 x 2 accumulators of 16 lanes + 2 B vectors + 1 broadcast: 19 of 32 zmm.
  t.matmulRegisterTile = {8, 32, 1};
  t.matmulCacheTile = {64, 256, 0};
  return t;
}

CPUTargetDescription CPUTargetDescription::getHost() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return getAVX512();
  if (features.lookup("avx2") && features.lookup("fma"))
    return getAVX2();
  return getGeneric();
}

FailureOr<CPUTargetDescription> CPUTargetDescription::lookup(StringRef name) {
  if (name == "host")
    return getHost();
  if (name == "generic")
    return getGeneric();
  if (name == "avx2")
    return getAVX2();
  if (name == "avx512")
    return getAVX512();
  return failure();
}
