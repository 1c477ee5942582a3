//===- GPUTargetDescription.cpp - NVIDIA GPU code generation targets -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUTargetDescription.h"

using namespace mlir;
using namespace mlir::llm;

/// The mma.sync shapes of sm_80 and later (PTX ISA, "Warp-level Matrix
/// Multiply-Accumulate Instructions"): f16/bf16 m16n8k16, tf32 m16n8k8, int8
/// m16n8k32.
static SmallVector<TensorCoreShape, 4> getAmpereMMAShapes() {
  return {{16, 8, 16, "f16", "f32"},
          {16, 8, 16, "bf16", "f32"},
          {16, 8, 8, "tf32", "f32"},
          {16, 8, 32, "i8", "i32"}};
}

GPUTargetDescription GPUTargetDescription::getSM80() {
  GPUTargetDescription desc;
  desc.chip = "sm_80";
  desc.computeCapability = 80;
  desc.ptxFeatures = "+ptx71";
  desc.smCount = 108;
  desc.maxSharedMemoryPerBlock = 163 * 1024;
  desc.dramBandwidthGBs = 2039;
  desc.mmaShapes = getAmpereMMAShapes();
  return desc;
}

GPUTargetDescription GPUTargetDescription::getSM89() {
  GPUTargetDescription desc;
  desc.chip = "sm_89";
  desc.computeCapability = 89;
  desc.ptxFeatures = "+ptx78";
  desc.smCount = 142;
  desc.maxSharedMemoryPerBlock = 99 * 1024;
  desc.dramBandwidthGBs = 864;
  desc.mmaShapes = getAmpereMMAShapes();
  // FP8 mma.sync m16n8k32 (PTX ISA 8.4 and later for sm_89).
  desc.mmaShapes.push_back({16, 8, 32, "f8E4M3FN", "f32"});
  desc.hasFP8 = true;
  return desc;
}

GPUTargetDescription GPUTargetDescription::getSM90a() {
  GPUTargetDescription desc;
  desc.chip = "sm_90a";
  desc.computeCapability = 90;
  desc.ptxFeatures = "+ptx80";
  desc.smCount = 132;
  desc.maxSharedMemoryPerBlock = 227 * 1024;
  desc.dramBandwidthGBs = 4800;
  desc.mmaShapes = getAmpereMMAShapes();
  desc.hasWarpgroupMMA = true;
  desc.hasFP8 = true;
  return desc;
}

FailureOr<GPUTargetDescription> GPUTargetDescription::lookup(StringRef chip) {
  if (chip == "sm_80")
    return getSM80();
  if (chip == "sm_89")
    return getSM89();
  if (chip == "sm_90a")
    return getSM90a();
  return failure();
}

StringRef GPUTargetDescription::getKnownChips() {
  return "sm_80, sm_89 or sm_90a";
}
