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
#include <limits>
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
  // The streaming matvec block shapes were measured on AVX-512 only (their
  // 64-element int8 chunks need 4 of its 32 registers per row of x).
  t.streamedWeightMinBytes = std::numeric_limits<int64_t>::max();
  t.vectorBits = 128;
  // 4 x 2 accumulators of 4 lanes: 8 of 16 (SSE) or 32 (NEON) registers.
  t.matmulRegisterTile = {4, 8, 1};
  t.matmulCacheTile = {64, 128, 256};
  // M = 1: 8 accumulators of 4 lanes under 16-row K tiles.
  t.matvecRegisterTile = {1, 32, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX2() {
  CPUTargetDescription t;
  t.name = "avx2";
  // The streaming matvec block shapes were measured on AVX-512 only (their
  // 64-element int8 chunks need 4 of its 32 registers per row of x).
  t.streamedWeightMinBytes = std::numeric_limits<int64_t>::max();
  t.vectorBits = 256;
  // 4 x 2 accumulators of 8 lanes + 2 B vectors + 1 broadcast: 11 of 16 ymm.
  t.matmulRegisterTile = {4, 16, 1};
  t.matmulCacheTile = {64, 256, 256};
  // M = 1: 8 accumulators of 8 lanes under 16-row K tiles.
  t.matvecRegisterTile = {1, 64, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512() {
  CPUTargetDescription t;
  t.name = "avx512";
  t.vectorBits = 512;
  // 8 x 2 accumulators of 16 lanes + 2 B vectors + 1 broadcast: 19 of 32 zmm.
  t.matmulRegisterTile = {8, 32, 1};
  // Cache tiles: 256 rows of A, N tiles of 128 (four register tiles), K
  // tiles of 384-768 (a divisor of K; all of K up to 768). A [ck, 128]
  // panel of B (<= 384 KiB) and a [256, ck] block of A fit a 1 MiB L2
  // together; packed B strips are read as long sequential runs (ck * 128
  // bytes, the whole panel contiguous when ck = K), and the C tiles are
  // reloaded K / ck times. Measured on one Zen 5 core (AVX-512, 1 MiB L2),
  // min ms per call against the former {64, 256, 256}, same session:
  // gpt2_layer768 block 11.3-11.6 -> 10.3-10.5, 128x768 @ 768x3072
  // 3.06-3.20 -> 2.95-2.99, 2048^3 (B packed at run time) 101-105 -> 93-97.
  t.matmulCacheTile = {256, 128, 768};
  // M = 1: 16 accumulators (256 lanes) under 16-row K tiles; measured
  // 1x4096 @ 4096x4096 (64 MiB of B): 12.3 ms -> 1.5-2.3 ms (min of 30).
  t.matvecRegisterTile = {1, 256, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512BF16() {
  CPUTargetDescription t = getAVX512();
  t.name = "avx512-bf16";
  // int4 decode matvec 1x4096 @ 4096x4096 (groups of 128), one Zen 5 core,
  // median ms: 0.53 (f32 conversion + FMA) -> 0.44-0.47 (vpermw +
  // vdpbf16ps), then bound by memory (bench/quant/results.md).
  t.bf16DotProduct = true;
  return t;
}

CPUTargetDescription CPUTargetDescription::getHost() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f") && features.lookup("avx512bf16") &&
      features.lookup("avx512bw"))
    return getAVX512BF16();
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
  if (name == "avx512-bf16")
    return getAVX512BF16();
  return failure();
}

StringRef CPUTargetDescription::getKnownNames() {
  return "host, generic, avx2, avx512 or avx512-bf16";
}
