//===- ReportGPUKernels.cpp - Per-kernel figures for the compile report ---===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-report-gpu-kernels`: for every `gpu.launch` of
// llm-map-gpu-kernels, its name, strategy, grid, block, shared memory and
// an estimate of the global-memory bytes it reads and writes, recorded in
// the module's `llm.report` dictionary for `llmc compile --report`.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/Passes.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMREPORTGPUKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// Bytes of one element of `type` (a scalar or a vector), rounded up to
/// whole bytes.
static int64_t getElementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * getElementBytes(vector.getElementType());
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return 8; // index
}

/// Bytes of a memref of static shape, or -1.
static int64_t getBufferBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return -1;
  return type.getNumElements() * getElementBytes(type.getElementType());
}

/// Whether `type` lives in workgroup or private memory (not global traffic).
static bool isOnChip(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() != gpu::AddressSpace::Global;
}

/// The buffer a kernel access goes to: `value` seen through the views the
/// kernel takes of it (a tile's subview counts as the whole buffer), up to a
/// value defined outside `launch`, a weight (`memref.get_global`) or a slot
/// of the memory plan's arena (`memref.view`, whose bytes are the slot).
static Value getAccessedBuffer(Value value, gpu::LaunchOp launch) {
  while (Operation *def = value.getDefiningOp()) {
    if (!launch->isAncestor(def) || isa<memref::ViewOp>(def))
      break;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    value = view.getViewSource();
  }
  return value;
}

namespace {

/// Global-memory bytes one launch reads and writes (-1: unknown).
struct Traffic {
  int64_t read = 0;
  int64_t written = 0;
};

} // namespace

/// Each buffer `launch` reads (writes) counted once at its full size.
static Traffic estimateTraffic(gpu::LaunchOp launch) {
  llvm::SetVector<Value> reads, writes;
  launch.getBody().walk([&](MemoryEffectOpInterface op) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    op.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value || !isa<MemRefType>(value.getType()))
        continue;
      Value buffer = getAccessedBuffer(value, launch);
      auto type = cast<MemRefType>(buffer.getType());
      if (isOnChip(type) || buffer.getDefiningOp<memref::AllocaOp>())
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        reads.insert(buffer);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        writes.insert(buffer);
    }
  });
  auto sum = [](const llvm::SetVector<Value> &buffers) -> int64_t {
    int64_t total = 0;
    for (Value buffer : buffers) {
      int64_t bytes = getBufferBytes(cast<MemRefType>(buffer.getType()));
      if (bytes < 0)
        return -1;
      total += bytes;
    }
    return total;
  };
  return {sum(reads), sum(writes)};
}

namespace {

struct LLMReportGPUKernelsPass
    : llm::impl::LLMReportGPUKernelsPassBase<LLMReportGPUKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    auto sizes = [&](gpu::KernelDim3 dims) {
      SmallVector<int64_t> values;
      for (Value v : {dims.x, dims.y, dims.z})
        values.push_back(getConstantIntValue(v).value_or(-1));
      return b.getDenseI64ArrayAttr(values);
    };
    SmallVector<Attribute> kernels;
    int64_t scalar = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      func.walk([&](gpu::LaunchOp launch) {
        NamedAttrList entry;
        if (FlatSymbolRefAttr name = launch.getFunctionAttr())
          entry.set("name", b.getStringAttr(name.getValue()));
        entry.set("function", func.getSymNameAttr());
        auto strategy =
            launch->getAttrOfType<DictionaryAttr>(llm::kGPUStrategyAttr);
        if (strategy) {
          entry.set("strategy", strategy);
          if (auto kind = strategy.getAs<StringAttr>("strategy");
              kind && kind.getValue() == "scalar")
            ++scalar;
        }
        entry.set("grid", sizes(launch.getGridSizeOperandValues()));
        entry.set("block", sizes(launch.getBlockSizeOperandValues()));
        int64_t shared = 0;
        for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
          int64_t bytes = getBufferBytes(cast<MemRefType>(buffer.getType()));
          shared = shared < 0 || bytes < 0 ? -1 : shared + bytes;
        }
        if (Value dynamic = launch.getDynamicSharedMemorySize()) {
          std::optional<int64_t> bytes = getConstantIntValue(dynamic);
          shared = shared < 0 || !bytes ? -1 : shared + *bytes;
        }
        entry.set("shared_bytes", b.getI64IntegerAttr(shared));
        Traffic traffic = estimateTraffic(launch);
        entry.set("bytes_read", b.getI64IntegerAttr(traffic.read));
        entry.set("bytes_written", b.getI64IntegerAttr(traffic.written));
        kernels.push_back(entry.getDictionary(&getContext()));
      });
    }
    llm::recordReportValue(module, "gpu_launches", kernels.size());
    llm::recordReportValue(module, "gpu_scalar_launches", scalar);
    llm::recordReportAttr(module, "gpu_kernels", b.getArrayAttr(kernels));
  }
};

} // namespace
