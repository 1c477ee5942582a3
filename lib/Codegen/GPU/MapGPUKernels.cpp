//===- MapGPUKernels.cpp - Kernels on memrefs to gpu.launch ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-map-gpu-kernels`: after bufferization, each
// kernel (a one-iteration `scf.forall` marked `llm.gpu_kernel` by
// llm-form-gpu-kernels, or a linalg op / memref.copy left on the host)
// becomes exactly one `gpu.launch`, and the host's buffers become device
// buffers.
//
// The work of a kernel is a sequence of stages (its linalg ops, in order).
// Two strategies distribute it (plus the tiles of MatmulTiles.cpp and
// the tiled loop nests of ForallKernels.cpp):
//  - flat: a kernel of one stage with enough independent outputs: every
//    thread computes one point of the parallel dims (linearized, the
//    innermost dim fastest, so consecutive threads touch consecutive
//    elements); reductions run serially in registers.
//  - rows: the leading parallel dims that every stage shares and accesses
//    row-locally (each stage reads the buffers written in the kernel only at
//    its own row) are the grid: one block per row. Inside a block each stage
//    puts its innermost parallel dim on thread x (strided loop, coalesced),
//    or, when nothing parallel is left (a row reduction: softmax, norms,
//    reduce_*), splits the innermost reduction dim over the threads and
//    combines the partial results with `gpu.all_reduce` (warp shuffles plus
//    shared memory). `gpu.barrier` separates the stages.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/GPU/GPUKernels.h"
#include "llm/Codegen/GPU/GPUTargetDescription.h"
#include "llm/Codegen/Passes.h"

#include "ForallKernels.h"
#include "MatmulTiles.h"
#include "StageEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMMAPGPUKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// Smallest number of independent output points of a one-stage kernel with
/// reductions that is mapped one point per thread (flat); fewer points (a
/// decode matvec: N outputs of a K-long dot product) give each point a block
/// whose threads split the reduction.
static constexpr int64_t kFlatMinPoints = 4096;

/// Most threads of a block that covers a warp's width of outputs
/// (chooseColumnGroups): 32 warps, the hardware's limit on sm_80+.
static constexpr int64_t kMaxColumnThreads = 1024;

//===----------------------------------------------------------------------===//
// Kernel analysis
//===----------------------------------------------------------------------===//

/// Ops cloned into a kernel as they are: views, constants and other ops
/// without memory effects.
static bool isFreeOp(Operation *op) {
  return isa<ViewLikeOpInterface, memref::GetGlobalOp>(op) ||
         isMemoryEffectFree(op);
}

/// One kernel: its stages (generic ops on memrefs) and the ops between them.
struct KernelPlan {
  /// The ops of the kernel, in order (stages and free ops).
  SmallVector<Operation *> ops;
  /// The stages among `ops`, generalized.
  SmallVector<linalg::GenericOp> stages;
  /// "flat" or "rows".
  bool flat = false;
  /// Leading dims of every stage that are the grid (rows strategy).
  int64_t rows = 0;
  SmallVector<int64_t> rowExtents;
  int64_t gridSize = 1;
  int64_t blockSize = 32;
  /// rows: when > 0, a block covers a warp's width of consecutive values of
  /// the last row dim (one per lane) and this many warps split the
  /// reduction (chooseColumnGroups); 0: a block per row.
  int64_t columnGroups = 0;
};

/// Number of leading parallel dims of `op`.
static int64_t countLeadingParallel(linalg::GenericOp op) {
  int64_t n = 0;
  for (utils::IteratorType it : op.getIteratorTypesArray()) {
    if (it != utils::IteratorType::parallel)
      break;
    ++n;
  }
  return n;
}

/// Whether `map`'s first `rows` results are d0, ..., d(rows-1).
static bool isRowLocal(AffineMap map, int64_t rows) {
  if (map.getNumResults() < rows)
    return false;
  for (int64_t i = 0; i < rows; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

/// The byte range [begin, end) of `v` in its root buffer when `v` is a
/// `memref.view` with a constant shift and a static shape (the memory
/// plan's slices of the arena).
static std::optional<std::pair<int64_t, int64_t>> getArenaRange(Value v) {
  // A view of a slice lies within the slice.
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::ViewOp>(def))
      break;
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      return std::nullopt;
    v = viewLike.getViewSource();
  }
  auto view = v.getDefiningOp<memref::ViewOp>();
  if (!view || !view.getType().hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  if (!shift)
    return std::nullopt;
  MemRefType type = view.getType();
  int64_t bytes = type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return std::make_pair(*shift, *shift + bytes);
}

/// Whether two buffers may share memory: the same root, unless both are
/// disjoint slices of the arena.
static bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  if (getViewedBuffer(a) != getViewedBuffer(b))
    return false;
  auto ra = getArenaRange(a), rb = getArenaRange(b);
  if (ra && rb)
    return ra->first < rb->second && rb->first < ra->second;
  return true;
}

/// The largest number of leading dims that can be the grid of a rows
/// kernel: parallel and of equal extents in every stage, and every access to
/// a buffer written inside the kernel is row-local (the same value each
/// time, indexed by those dims first).
static int64_t chooseRows(ArrayRef<linalg::GenericOp> stages) {
  int64_t rows = std::numeric_limits<int64_t>::max();
  for (linalg::GenericOp stage : stages)
    rows = std::min(rows, countLeadingParallel(stage));
  SmallVector<int64_t> first = getStageRanges(stages.front());
  for (linalg::GenericOp stage : stages) {
    SmallVector<int64_t> ranges = getStageRanges(stage);
    int64_t same = 0;
    while (same < rows && ranges[same] == first[same])
      ++same;
    rows = same;
  }
  SmallVector<Value> written;
  for (linalg::GenericOp stage : stages)
    for (OpOperand &init : stage.getDpsInitsMutable())
      if (!llvm::is_contained(written, init.get()))
        written.push_back(init.get());
  for (linalg::GenericOp stage : stages)
    for (OpOperand &operand : stage->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()))
        continue;
      for (Value w : written) {
        if (!mayAlias(v, w))
          continue;
        // A buffer written in the kernel, accessed through another view:
        // the row of the view is not the row of the buffer.
        if (v != w)
          return 0;
        if (!isRowLocal(stage.getMatchingIndexingMap(&operand), rows))
          return 0;
      }
    }
  return rows;
}

/// The number of warps that split the reduction of a rows kernel whose
/// block would otherwise compute one output of a reduction that reads an
/// input along the last row dim (a decode matvec x[1, K] @ W[K, N]: a
/// block per output has consecutive threads read W N elements apart, a
/// 32-byte sector per 4-byte load); 0 when the kernel does not qualify.
/// With groups G, a block covers `warp` consecutive outputs, lane l the
/// l-th, and warp g the reduction steps g, g + G, ...: each warp load reads
/// `warp` consecutive elements. The kernel qualifies when every stage has
/// no parallel dim beyond the rows, one stage reduces with a recognized
/// combiner over reduction dims whose innermost is at least 2 * warp long,
/// and one of its inputs is indexed by the last row dim innermost and by
/// that reduction dim.
static int64_t chooseColumnGroups(const KernelPlan &plan, int64_t warp,
                                  int64_t maxThreads) {
  if (plan.rows == 0 || plan.rowExtents.back() < warp)
    return 0;
  linalg::GenericOp reduction;
  for (linalg::GenericOp stage : plan.stages) {
    if (static_cast<int64_t>(stage.getNumParallelLoops()) != plan.rows)
      return 0;
    if (stage.getNumReductionLoops() == 0)
      continue;
    if (reduction)
      return 0;
    reduction = stage;
  }
  Operation *combiner = nullptr;
  if (!reduction || !matchStageCombiner(reduction, combiner))
    return 0;
  SmallVector<utils::IteratorType> its = reduction.getIteratorTypesArray();
  int64_t red = its.size() - 1;
  while (red >= 0 && its[red] != utils::IteratorType::reduction)
    --red;
  int64_t extent = getStageRanges(reduction)[red];
  if (extent < 2 * warp)
    return 0;
  bool readsColumns =
      llvm::any_of(reduction.getDpsInputOperands(), [&](OpOperand *input) {
        AffineMap map = reduction.getMatchingIndexingMap(input);
        return map.getNumResults() > 0 &&
               map.getResults().back() ==
                   getAffineDimExpr(plan.rows - 1, map.getContext()) &&
               llvm::is_contained(map.getResults(),
                                  getAffineDimExpr(red, map.getContext()));
      });
  if (!readsColumns)
    return 0;
  // Each warp at least 16 steps of the reduction; a power of two.
  int64_t groups = std::min<int64_t>(maxThreads / warp, extent / 16);
  return llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(groups, 1)));
}

/// Plans the distribution of a kernel whose stages are known.
static void planKernel(KernelPlan &plan, const GPUTargetDescription &target) {
  int64_t warp = target.warpSize;
  auto clampBlock = [&](int64_t work) {
    return std::clamp<int64_t>(llvm::alignTo(std::max<int64_t>(work, 1), warp),
                               warp, target.defaultBlockSize);
  };
  if (plan.stages.size() == 1) {
    linalg::GenericOp stage = plan.stages.front();
    SmallVector<int64_t> ranges = getStageRanges(stage);
    int64_t points = 1;
    bool reductionsTrail = true, seenReduction = false;
    for (auto [it, size] : llvm::zip(stage.getIteratorTypesArray(), ranges)) {
      if (it == utils::IteratorType::parallel) {
        points *= size;
        reductionsTrail &= !seenReduction;
      } else {
        seenReduction = true;
      }
    }
    bool hasParallel = stage.getNumParallelLoops() > 0;
    if (hasParallel && (stage.getNumReductionLoops() == 0 || !reductionsTrail ||
                        points >= kFlatMinPoints)) {
      plan.flat = true;
      plan.blockSize = clampBlock(points);
      plan.gridSize = llvm::divideCeil(points, plan.blockSize);
      return;
    }
  }
  plan.rows = chooseRows(plan.stages);
  SmallVector<int64_t> first = getStageRanges(plan.stages.front());
  // Each stage keeps a parallel dim for the threads when the grid still
  // has a block per SM; otherwise the blocks split the reductions.
  int64_t keepThreads = plan.rows;
  for (linalg::GenericOp stage : plan.stages)
    if (stage.getNumReductionLoops() > 0)
      keepThreads =
          std::min<int64_t>(keepThreads, countLeadingParallel(stage) - 1);
  keepThreads = std::max<int64_t>(keepThreads, 0);
  int64_t keptGrid = 1;
  for (int64_t d = 0; d < keepThreads; ++d)
    keptGrid *= first[d];
  if (keepThreads < plan.rows && keptGrid >= target.smCount)
    plan.rows = keepThreads;
  plan.rowExtents.assign(first.begin(), first.begin() + plan.rows);
  plan.gridSize = 1;
  for (int64_t e : plan.rowExtents)
    plan.gridSize *= e;
  // The block covers the longest distributed loop of the stages.
  int64_t work = 1;
  for (linalg::GenericOp stage : plan.stages) {
    SmallVector<int64_t> ranges = getStageRanges(stage);
    SmallVector<utils::IteratorType> its = stage.getIteratorTypesArray();
    int64_t par = -1, red = -1;
    for (int64_t d = plan.rows, e = ranges.size(); d < e; ++d) {
      if (its[d] == utils::IteratorType::parallel)
        par = d;
      else
        red = d;
    }
    if (par >= 0)
      work = std::max(work, ranges[par]);
    else if (red >= 0)
      work = std::max(work, ranges[red]);
  }
  plan.blockSize = clampBlock(work);
  if (int64_t groups = chooseColumnGroups(plan, warp, kMaxColumnThreads)) {
    plan.columnGroups = groups;
    plan.blockSize = groups * warp;
    plan.gridSize = plan.gridSize / plan.rowExtents.back() *
                    llvm::divideCeil(plan.rowExtents.back(), warp);
  }
}

//===----------------------------------------------------------------------===//
// Code emission
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// The bytes `v` covers in the buffer it is a view of: the root buffer (a
/// function argument, an allocation, a global) and, for a `memref.view` of
/// the root at a constant byte offset (a memory-plan slot), its byte
/// range; no range (the whole root) for other views.
struct BufferExtent {
  Value root;
  std::optional<std::pair<int64_t, int64_t>> bytes; // [begin, end)
};

static BufferExtent getBufferExtent(Value v) {
  BufferExtent extent{v, std::nullopt};
  while (auto view = extent.root.getDefiningOp<ViewLikeOpInterface>())
    extent.root = view.getViewSource();
  auto view = v.getDefiningOp<memref::ViewOp>();
  if (view && view.getSource() == extent.root) {
    auto type = cast<MemRefType>(view.getType());
    std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
    if (offset && type.hasStaticShape() && type.getElementType().isIntOrFloat())
      extent.bytes = {*offset,
                      *offset + type.getNumElements() *
                                    llvm::divideCeil(
                                        type.getElementTypeBitWidth(), 8)};
  }
  return extent;
}

/// Whether `root` is a buffer of its own: an argument of the entry (the
/// entry's buffers do not overlap: the C interface's contract) or an
/// allocation.
static bool isDistinctRoot(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<gpu::AllocOp>();
}

/// Whether `a` and `b` may share bytes: not when their roots are distinct
/// buffers (or globals of different names), nor for slots of one arena
/// whose byte ranges do not meet; anything else may.
static bool mayOverlap(Value a, Value b) {
  BufferExtent ea = getBufferExtent(a), eb = getBufferExtent(b);
  if (ea.root != eb.root) {
    auto ga = ea.root.getDefiningOp<memref::GetGlobalOp>();
    auto gb = eb.root.getDefiningOp<memref::GetGlobalOp>();
    if (ga && gb)
      return ga.getName() == gb.getName();
    bool distinctA = isDistinctRoot(ea.root) || ga;
    bool distinctB = isDistinctRoot(eb.root) || gb;
    return !(distinctA && distinctB);
  }
  if (!ea.bytes || !eb.bytes)
    return true;
  return ea.bytes->first < eb.bytes->second &&
         eb.bytes->first < ea.bytes->second;
}

/// Whether `root` or an op nested in it may write bytes of `buffer` (ops of
/// unknown effects may).
static bool mayWrite(Operation *root, Value buffer) {
  WalkResult result = root->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      // Containers (kernels, loops) are judged by the ops they hold; a
      // barrier orders memory accesses without making any.
      if (op->getNumRegions() > 0 || isMemoryEffectFree(op) ||
          op->hasTrait<OpTrait::IsTerminator>() || isa<gpu::BarrierOp>(op))
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      // A free counts as a write: the bytes are not the loaded ones after.
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written || !isa<MemRefType>(written.getType()) ||
          mayOverlap(written, buffer))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Where a kernel's operands are materialized: its launch and the ops that
/// will run in it (still on the host, or already moved into the launch).
struct KernelSite {
  Operation *launch;
  ArrayRef<Operation *> ops;
};

/// Whether the host load `load` reads the same value when it is repeated at
/// the start of the kernel at `site`: nothing from the load up to the
/// launch, and nothing in the kernel, may write what it reads.
static bool isStableUntil(memref::LoadOp load, const KernelSite &site) {
  Block *block = load->getBlock();
  if (site.launch->getBlock() != block || !load->isBeforeInBlock(site.launch))
    return false;
  for (Operation *op = load->getNextNode(); op != site.launch;
       op = op->getNextNode())
    if (mayWrite(op, load.getMemRef()))
      return false;
  return llvm::none_of(
      site.ops, [&](Operation *op) { return mayWrite(op, load.getMemRef()); });
}

/// Clones `v` into the launch body of `site` when the device must compute it
/// itself: a global (device code must not read host pointers of weights: the
/// kernel module then holds the weights, loaded once with the module), a
/// constant, a view of one, and scalar code of host loads (a position read
/// from an input, a scale reduced by an earlier kernel: the host cannot read
/// device memory, so the kernel loads it again where that reads the same
/// value). Other values (host buffers, their views) are the kernel's
/// arguments.
static Value materializeInKernel(OpBuilder &b, Value v, IRMapping &mapping,
                                 const KernelSite &site) {
  if (mapping.contains(v))
    return mapping.lookup(v);
  Operation *def = v.getDefiningOp();
  // Only host-level values: the kernel's own ops are cloned in order.
  if (!def || !isa<func::FuncOp>(def->getParentOp()))
    return v;
  auto load = dyn_cast<memref::LoadOp>(def);
  bool root = isa<memref::GetGlobalOp, arith::ConstantOp>(def) ||
              (load && isStableUntil(load, site));
  bool cloneable =
      root || (isa<ViewLikeOpInterface>(def) && isMemoryEffectFree(def)) ||
      (def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
       llvm::none_of(def->getResultTypes(), llvm::IsaPred<MemRefType>));
  if (!cloneable)
    return v;
  // Operands first: a view of a global is cloned with its source.
  bool mustClone = root;
  for (Value operand : def->getOperands()) {
    Value m = materializeInKernel(b, operand, mapping, site);
    mustClone |= m != operand;
  }
  if (!mustClone)
    return v;
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

/// What the pass options ask of the matmul tiles.
struct KernelOptions {
  /// f16/bf16 matmul tiles on mma.sync (matchMatmulTensorCores).
  bool tensorCores = false;
  /// Exact 2:4 constant weights of those on mma.sp
  /// (matchMatmulSparseTensorCores).
  bool sparseWeights = false;
};

/// Replaces the kernel made of `ops` (in order, in one block; `anchor` is
/// the op the launch replaces) by one gpu.launch.
static LogicalResult mapKernel(Operation *anchor, ArrayRef<Operation *> ops,
                               const GPUTargetDescription &target,
                               const KernelOptions &options) {
  IRRewriter rewriter(anchor->getContext());
  KernelPlan plan;
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    bool isAnchor = op == anchor;
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      // memref.copy -> linalg.copy -> generic
      auto linalgCopy = linalg::CopyOp::create(
          rewriter, op->getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(op);
      op = linalgCopy;
      if (isAnchor)
        anchor = op;
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return op->emitError("llm-map-gpu-kernels: expected a linalg op on "
                             "buffers");
      linalg::GenericOp generic;
      if (auto g = dyn_cast<linalg::GenericOp>(op)) {
        generic = g;
      } else {
        FailureOr<linalg::GenericOp> res =
            linalg::generalizeNamedOp(rewriter, linalgOp);
        if (failed(res))
          return op->emitError("llm-map-gpu-kernels: cannot generalize ")
                 << op->getName();
        generic = *res;
        if (isAnchor)
          anchor = generic;
      }
      for (int64_t r : generic.getStaticLoopRanges())
        if (ShapedType::isDynamic(r))
          return generic->emitError(
              "llm-map-gpu-kernels: dynamic loop ranges are not supported on "
              "the GPU yet");
      plan.stages.push_back(generic);
      plan.ops.push_back(generic);
      continue;
    }
    if (!isFreeOp(op))
      return op->emitError("llm-map-gpu-kernels: cannot run '")
             << op->getName() << "' inside a GPU kernel";
    plan.ops.push_back(op);
  }
  if (plan.stages.empty()) {
    // Views only: no kernel; the ops stay on the host.
    for (Operation *op : plan.ops)
      op->moveBefore(anchor);
    return success();
  }
  std::optional<MatmulTiles> tiles =
      matchMatmulTiles(plan.stages, target, mayAlias);
  if (tiles && options.tensorCores && target.computeCapability >= 80 &&
      matchMatmulTensorCores(plan.stages, *tiles) && options.sparseWeights)
    matchMatmulSparseTensorCores(plan.stages, *tiles,
                                 anchor->getParentOfType<ModuleOp>());
  if (tiles) {
    plan.gridSize = tiles->getGridSize();
    plan.blockSize = tiles->getBlockSize();
  } else {
    planKernel(plan, target);
  }

  Location loc = anchor->getLoc();
  rewriter.setInsertionPoint(anchor);
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  if (plan.gridSize > std::numeric_limits<int32_t>::max())
    return anchor->emitError("llm-map-gpu-kernels: a grid of ")
           << plan.gridSize << " blocks is more than a launch allows";
  Value one = idx(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, idx(plan.gridSize), one,
                                      one, idx(plan.blockSize), one, one);
  Builder attrs(anchor->getContext());
  launch->setAttr(
      kGPUStrategyAttr,
      attrs.getDictionaryAttr(
          {attrs.getNamedAttr("strategy",
                              attrs.getStringAttr(tiles       ? "tiles"
                                                  : plan.flat ? "flat"
                                                              : "rows")),
           attrs.getNamedAttr("stages",
                              attrs.getI64IntegerAttr(plan.stages.size())),
           attrs.getNamedAttr("rows", attrs.getI64IntegerAttr(plan.rows))}));
  if (plan.columnGroups > 0) {
    SmallVector<NamedAttribute> entries(
        launch->getAttrOfType<DictionaryAttr>(kGPUStrategyAttr).getValue());
    entries.push_back(attrs.getNamedAttr(
        "column_groups", attrs.getI64IntegerAttr(plan.columnGroups)));
    launch->setAttr(kGPUStrategyAttr, attrs.getDictionaryAttr(entries));
  }
  Region &body = launch.getBody();
  OpBuilder b = OpBuilder::atBlockBegin(&body.front());
  Value bid = launch.getBlockIds().x;
  Value tid = launch.getThreadIds().x;
  Value bdim = launch.getBlockSize().x;
  IRMapping mapping;
  // Globals, constants, their views and host scalar code used by the
  // kernel live in it.
  KernelSite site{launch, plan.ops};
  for (Operation *op : plan.ops)
    for (Value operand : op->getOperands())
      materializeInKernel(b, operand, mapping, site);
  for (linalg::GenericOp stage : plan.stages)
    stage->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        materializeInKernel(b, operand, mapping, site);
    });

  if (tiles) {
    SmallVector<NamedAttribute> entries(
        launch->getAttrOfType<DictionaryAttr>(kGPUStrategyAttr).getValue());
    entries.push_back(attrs.getNamedAttr(
        "tile", attrs.getDenseI64ArrayAttr(
                    {tiles->tileM, tiles->tileN, tiles->tileK})));
    if (tiles->tensorCores)
      entries.push_back(attrs.getNamedAttr(
          "mma", attrs.getStringAttr(tiles->sparseValues ? "m16n8k32.sp"
                                                         : "m16n8k16")));
    else
      entries.push_back(attrs.getNamedAttr(
          "thread_tile",
          attrs.getDenseI64ArrayAttr({tiles->threadM, tiles->threadN})));
    launch->setAttr(kGPUStrategyAttr, attrs.getDictionaryAttr(entries));
    if (failed(tiles->tensorCores
                   ? emitMatmulTensorCores(b, loc, launch, mapping, plan.ops,
                                           plan.stages, *tiles)
                   : emitMatmulTiles(b, loc, launch, mapping, plan.ops,
                                     plan.stages, *tiles)))
      return failure();
    gpu::TerminatorOp::create(b, loc);
    for (Operation *op : llvm::reverse(plan.ops))
      if (op->use_empty())
        op->erase();
    return success();
  }

  SmallVector<Value> rowIvs;
  Value gid;
  if (plan.flat) {
    gid = arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, bid, bdim), tid);
  } else {
    Value rest = bid;
    SmallVector<Value> reversed;
    for (auto [i, e] : llvm::enumerate(llvm::reverse(plan.rowExtents))) {
      // Column mode: the last row dim in tiles of a warp's width.
      int64_t count = i == 0 && plan.columnGroups > 0
                          ? llvm::divideCeil(e, target.warpSize)
                          : e;
      Value extent = arith::ConstantIndexOp::create(b, loc, count);
      reversed.push_back(arith::RemUIOp::create(b, loc, rest, extent));
      rest = arith::DivUIOp::create(b, loc, rest, extent);
    }
    rowIvs.assign(reversed.rbegin(), reversed.rend());
  }

  Value emitterTid = tid, emitterBlock = bdim;
  Value leader, lane, partials;
  if (plan.columnGroups > 0) {
    // Lane l of warp g: output tile * warp + l (clamped in the last tile,
    // whose extra lanes compute a copy and store nothing), reduction steps
    // g, g + G, ...
    int64_t warp = target.warpSize;
    Value warpSize = arith::ConstantIndexOp::create(b, loc, warp);
    lane = arith::RemUIOp::create(b, loc, tid, warpSize);
    emitterTid = arith::DivUIOp::create(b, loc, tid, warpSize);
    emitterBlock = arith::ConstantIndexOp::create(b, loc, plan.columnGroups);
    int64_t extent = plan.rowExtents.back();
    Value column = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rowIvs.back(), warpSize), lane);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                              arith::ConstantIndexOp::create(b, loc, extent));
    rowIvs.back() = arith::MinUIOp::create(
        b, loc, column, arith::ConstantIndexOp::create(b, loc, extent - 1));
    Value isWarp0 =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, emitterTid,
                              arith::ConstantIndexOp::create(b, loc, 0));
    leader = arith::AndIOp::create(b, loc, isWarp0, inRange);
    // The combining op's type: the one reduction stage's output.
    Type elemType;
    for (linalg::GenericOp stage : plan.stages)
      if (stage.getNumReductionLoops() > 0)
        elemType = getElementTypeOrSelf(stage.getDpsInitOperand(0)->get());
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    partials = launch.addWorkgroupAttribution(
        MemRefType::get({plan.columnGroups, warp}, elemType,
                        MemRefLayoutAttrInterface(), workgroup),
        loc);
  }

  StageEmitter emitter(b, loc, mapping, emitterTid, emitterBlock);
  if (plan.columnGroups > 0)
    emitter.setColumnMode(leader, lane, partials);
  size_t stagesLeft = plan.stages.size();
  for (Operation *op : plan.ops) {
    auto stage = dyn_cast<linalg::GenericOp>(op);
    if (!stage || !llvm::is_contained(plan.stages, stage)) {
      b.clone(*op, mapping);
      continue;
    }
    if (failed(plan.flat ? emitter.emitFlat(stage, gid)
                         : emitter.emitRows(stage, rowIvs)))
      return failure();
    // Later stages read what this one wrote, in other threads.
    if (--stagesLeft > 0)
      gpu::BarrierOp::create(b, loc);
  }
  gpu::TerminatorOp::create(b, loc);

  for (Operation *op : llvm::reverse(plan.ops))
    if (op->use_empty())
      op->erase();
  return success();
}

namespace {

struct LLMMapGPUKernelsPass
    : llm::impl::LLMMapGPUKernelsPassBase<LLMMapGPUKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<GPUTargetDescription> target = GPUTargetDescription::lookup(chip);
    if (failed(target)) {
      emitError(module.getLoc())
          << "llm-map-gpu-kernels: unknown chip '" << chip << "' (expected "
          << GPUTargetDescription::getKnownChips() << ")";
      return signalPassFailure();
    }
    if (blockSize > 0) {
      if (blockSize % target->warpSize != 0 ||
          blockSize > target->maxThreadsPerBlock) {
        emitError(module.getLoc())
            << "llm-map-gpu-kernels: block-size must be a "
               "multiple of "
            << target->warpSize << " up to " << target->maxThreadsPerBlock;
        return signalPassFailure();
      }
      target->defaultBlockSize = blockSize;
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(mapFunction(func, *target)))
        return signalPassFailure();
    }
    // Each launch is named (the outlined kernel's module and function)
    // after its function, its strategy and its place among the module's
    // launches, so that a profiler's kernel list and the compile report
    // (llm-report-gpu-kernels) say which is which. A name that a symbol of
    // the module already has gets a `_k` suffix (outlining would otherwise
    // rename the kernel's module, and the report would name another).
    llvm::StringSet<> taken;
    for (Operation &op : module.getBody()->getOperations())
      if (auto symbol = dyn_cast<SymbolOpInterface>(op))
        taken.insert(symbol.getName());
    int64_t launches = 0;
    for (auto func : module.getOps<func::FuncOp>())
      func.walk([&](gpu::LaunchOp launch) {
        auto strategy = launch->getAttrOfType<DictionaryAttr>(kGPUStrategyAttr);
        StringRef kind = "kernel";
        if (strategy && strategy.getAs<StringAttr>("strategy"))
          kind = strategy.getAs<StringAttr>("strategy").getValue();
        if (auto mma = strategy ? strategy.getAs<StringAttr>("mma") : nullptr)
          kind = mma.getValue().ends_with(".sp") ? "mma_sp" : "mma";
        std::string text =
            (func.getSymName() + "_" + kind + "_" + std::to_string(launches++))
                .str();
        while (!taken.insert(text).second)
          text += "_k";
        auto name = FlatSymbolRefAttr::get(&getContext(), text);
        launch.setModuleAttr(name);
        launch.setFunctionAttr(name);
      });
  }

  /// Erases the host ops of `func` whose results are unused and that have
  /// no effect but reads (scalar code whose users now compute it in their
  /// kernels).
  static void eraseDeadHostCode(func::FuncOp func) {
    for (Block &block : func.getFunctionBody())
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(block.getOperations())))
        if (isOpTriviallyDead(&op))
          op.erase();
  }

  /// Runs of host ops that read or write memory or hold regions (the
  /// scalar code of the run-time index checks: a load of a reduced index
  /// and an `scf.if` recording the status; a quantization scale stored to a
  /// result) become single-thread kernels.
  static LogicalResult wrapScalarCode(func::FuncOp func) {
    // The last run first: the host values it reads are computed again in its
    // kernel where that gives the same value (materializeInKernel), which
    // may leave the earlier scalar code that computed them dead.
    while (true) {
      eraseDeadHostCode(func);
      SmallVector<SmallVector<Operation *>> runs = collectScalarRuns(func);
      if (runs.empty())
        return success();
      if (failed(wrapScalarRun(func, runs.back())))
        return failure();
    }
  }

  /// Runs of host ops that read or write memory or hold regions, with the
  /// free ops that use them, in order.
  static SmallVector<SmallVector<Operation *>>
  collectScalarRuns(func::FuncOp func) {
    // (The collectives of a tensor-parallel rank are host calls: of the
    // CUDA runtime's NCCL all-reduce, or of MPI in the emulator.)
    auto staysOnHost = [](Operation &op) {
      return isa<gpu::LaunchOp, memref::AllocOp, memref::DeallocOp,
                 func::ReturnOp, func::CallOp>(op) ||
             isa<mpi::MPIDialect>(op.getDialect()) ||
             (op.getNumRegions() == 0 && isFreeOp(&op));
    };
    SmallVector<SmallVector<Operation *>> runs;
    for (Block &block : func.getFunctionBody()) {
      SmallVector<Operation *> run;
      for (Operation &op : block) {
        bool usesRun = llvm::any_of(op.getOperands(), [&](Value v) {
          return llvm::is_contained(run, v.getDefiningOp());
        });
        if (!staysOnHost(op) || (usesRun && !isa<gpu::LaunchOp>(op))) {
          run.push_back(&op);
          continue;
        }
        // Free ops independent of the run stay where they are; anything
        // else on the host ends it.
        if (!run.empty() && !(op.getNumRegions() == 0 && isFreeOp(&op)))
          runs.push_back(std::exchange(run, {}));
      }
      if (!run.empty())
        runs.push_back(run);
    }
    return runs;
  }

  /// Whether every use of `value` outside the scalar run (`inRun`) is in a
  /// kernel, directly or through host views of it (a subview at an offset
  /// the run computed) used only in kernels; collects those uses.
  static bool isUsedOnlyInKernels(Value value,
                                  llvm::function_ref<bool(Operation *)> inRun,
                                  llvm::SetVector<OpOperand *> &uses) {
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (inRun(user))
        continue;
      if (user->getParentOfType<gpu::LaunchOp>()) {
        uses.insert(&use);
        continue;
      }
      if (!isa<ViewLikeOpInterface>(user) || !isMemoryEffectFree(user) ||
          user->getNumRegions() != 0)
        return false;
      for (Value result : user->getResults())
        if (!isUsedOnlyInKernels(result, inRun, uses))
          return false;
    }
    return true;
  }

  /// Gives the later kernels that use values of the scalar run `run` (in
  /// order; `inRun` says whether an op is in it or nested in one of its
  /// ops) those values: `uses` are uses in gpu.launch bodies of run values
  /// or of views of them. A scalar goes through device memory: the run
  /// stores it into a buffer of its own right after computing it (the
  /// store joins `run`), and each such kernel loads it at its start. A view
  /// (a subview at an offset the run computed) is taken again in the kernel
  /// of what it takes there. For values that a later kernel cannot load
  /// again from where the host read them (an arena slot reused before).
  // run { %v = f(...) } ... launch { use(%v) }
  //   -> %s = alloc; run { %v = f(...); store %v, %s } ...
  //      launch { %w = load %s; use(%w) }; dealloc %s
  static void passRunValues(func::FuncOp func,
                            SmallVectorImpl<Operation *> &run,
                            llvm::function_ref<bool(Operation *)> inRun,
                            ArrayRef<OpOperand *> uses) {
    // One buffer per scalar.
    llvm::SmallDenseMap<Value, Value> buffers;
    auto bufferOf = [&](Value scalar) -> Value {
      Value &buffer = buffers[scalar];
      if (buffer)
        return buffer;
      Location loc = scalar.getLoc();
      OpBuilder b = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
      buffer = memref::AllocOp::create(b, loc,
                                       MemRefType::get({}, scalar.getType()));
      func.walk([&](func::ReturnOp ret) {
        OpBuilder rb(ret);
        memref::DeallocOp::create(rb, loc, buffer);
      });
      Operation *def = scalar.getDefiningOp();
      b.setInsertionPointAfter(def);
      auto store = memref::StoreOp::create(b, loc, scalar, buffer);
      run.insert(llvm::find(run, def) + 1, store);
      return buffer;
    };
    // Per kernel: the values loaded and the views taken at the start of its
    // body, in order (each after the values it takes).
    llvm::SmallDenseMap<Operation *, IRMapping> inKernel;
    llvm::SmallDenseMap<Operation *, Operation *> lastCloned;
    std::function<Value(gpu::LaunchOp, Value)> materialize =
        [&](gpu::LaunchOp launch, Value v) -> Value {
      IRMapping &mapping = inKernel[launch];
      if (mapping.contains(v))
        return mapping.lookup(v);
      Operation *def = v.getDefiningOp();
      bool scalar = !isa<MemRefType>(v.getType());
      if (!scalar)
        for (Value operand : def->getOperands())
          if (Operation *d = operand.getDefiningOp();
              d && (inRun(d) || (isa<func::FuncOp>(d->getParentOp()) &&
                                 isa<ViewLikeOpInterface>(d))))
            materialize(launch, operand);
      OpBuilder lb = OpBuilder::atBlockBegin(&launch.getBody().front());
      if (Operation *last = lastCloned.lookup(launch))
        lb.setInsertionPointAfter(last);
      Operation *clone =
          scalar ? memref::LoadOp::create(lb, v.getLoc(), bufferOf(v))
                       .getOperation()
                 : lb.clone(*def, mapping);
      lastCloned[launch] = clone;
      Value result =
          clone->getResult(scalar ? 0 : cast<OpResult>(v).getResultNumber());
      mapping.map(v, result);
      return result;
    };
    for (OpOperand *use : uses)
      use->set(materialize(use->getOwner()->getParentOfType<gpu::LaunchOp>(),
                           use->get()));
  }

  /// Moves `scalarRun` into a single-thread kernel (passRunValues gives
  /// later kernels the values of it they use).
  static LogicalResult wrapScalarRun(func::FuncOp func,
                                     ArrayRef<Operation *> scalarRun) {
    {
      SmallVector<Operation *> run(scalarRun);
      auto inRun = [&](Operation *user) {
        return llvm::is_contained(scalarRun, user) ||
               llvm::any_of(scalarRun, [&](Operation *o) {
                 return o->isProperAncestor(user);
               });
      };
      // Values of the run that later kernels use (they could not load them
      // again): a scalar, or a view of a buffer at a place the run
      // computed. A use on the host cannot be served.
      // (A view taking several run values is reached once per value.)
      llvm::SetVector<OpOperand *> uses;
      for (Operation *op : scalarRun)
        for (Value result : op->getResults()) {
          if (llvm::all_of(result.getUsers(), inRun))
            continue;
          bool passable =
              isa<MemRefType>(result.getType())
                  ? isa<ViewLikeOpInterface>(op) && isMemoryEffectFree(op)
                  : result.getType().isIntOrIndexOrFloat();
          if (!passable || !isUsedOnlyInKernels(result, inRun, uses))
            return op->emitError(
                "llm-map-gpu-kernels: a value computed by device scalar code "
                "is used on the host");
        }
      passRunValues(func, run, inRun, uses.getArrayRef());
      // At the last op: every operand of the run is defined by then.
      OpBuilder b(run.back());
      Location loc = run.front()->getLoc();
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
      Builder attrs(func.getContext());
      launch->setAttr(
          kGPUStrategyAttr,
          attrs.getDictionaryAttr(
              {attrs.getNamedAttr("strategy", attrs.getStringAttr("scalar")),
               attrs.getNamedAttr("stages", attrs.getI64IntegerAttr(0)),
               attrs.getNamedAttr("rows", attrs.getI64IntegerAttr(0))}));
      Block &body = launch.getBody().front();
      OpBuilder tb = OpBuilder::atBlockEnd(&body);
      auto terminator = gpu::TerminatorOp::create(tb, loc);
      for (Operation *op : run)
        op->moveBefore(terminator);
      // Globals read by the moved ops: the kernel's own copies.
      IRMapping mapping;
      OpBuilder gb = OpBuilder::atBlockBegin(&body);
      Operation *launchOp = launch;
      KernelSite site{launchOp, launchOp};
      launch.getBody().walk([&](Operation *inner) {
        for (OpOperand &operand : inner->getOpOperands()) {
          Value m = materializeInKernel(gb, operand.get(), mapping, site);
          if (m != operand.get())
            operand.set(m);
        }
      });
    }
    return success();
  }

  LogicalResult mapFunction(func::FuncOp func,
                            const GPUTargetDescription &target) {
    KernelOptions options{tensorCores, sparseWeights};
    // Kernels: the marked loops, and the linalg ops and copies left on the
    // host (copies of bufferization, a pad's fill).
    SmallVector<Operation *> anchors;
    for (Block &block : func.getFunctionBody())
      for (Operation &op : block)
        if (op.hasAttr(kGPUKernelAttr) ||
            isa<linalg::LinalgOp, memref::CopyOp>(op))
          anchors.push_back(&op);
    for (Operation *anchor : anchors) {
      auto forall = dyn_cast<scf::ForallOp>(anchor);
      if (!forall) {
        if (failed(mapKernel(anchor, {anchor}, target, options)))
          return failure();
        continue;
      }
      if (forall->hasAttr(kGPUBlockLoopAttr)) {
        Operation *loopOp = forall;
        auto materialize = [&](OpBuilder &b, gpu::LaunchOp launch, Value v,
                               IRMapping &mapping) {
          KernelSite site{launch, ArrayRef<Operation *>(loopOp)};
          materializeInKernel(b, v, mapping, site);
        };
        if (failed(mapForallKernel(forall, target, materialize)))
          return failure();
        continue;
      }
      if (forall.getNumResults() != 0)
        return forall.emitError("llm-map-gpu-kernels: a kernel loop must be "
                                "bufferized");
      // Allocations inside the kernel are the kernel's scratch buffers:
      // allocated on the host around the launch.
      SmallVector<Operation *> ops;
      for (Operation &op : forall.getBody()->without_terminator())
        ops.push_back(&op);
      SmallVector<Operation *> body;
      for (Operation *op : ops) {
        if (isa<memref::AllocOp>(op)) {
          op->moveBefore(forall);
          continue;
        }
        if (isa<memref::DeallocOp>(op)) {
          op->moveAfter(forall);
          continue;
        }
        body.push_back(op);
      }
      if (failed(mapKernel(forall, body, target, options)))
        return failure();
      forall.erase();
    }
    if (failed(wrapScalarCode(func)))
      return failure();
    // Host buffers are device buffers: arena and scratch allocations come
    // from the device allocator; the entry's arguments are device pointers.
    IRRewriter rewriter(func.getContext());
    SmallVector<Operation *> allocs;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>())
        allocs.push_back(op);
    });
    for (Operation *op : allocs) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto gpuAlloc = gpu::AllocOp::create(
            rewriter, op->getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            ValueRange(), alloc.getDynamicSizes(), alloc.getSymbolOperands());
        rewriter.replaceOp(op, gpuAlloc.getMemref());
        continue;
      }
      auto dealloc = cast<memref::DeallocOp>(op);
      gpu::DeallocOp::create(rewriter, op->getLoc(), /*asyncToken=*/Type(),
                             ValueRange(), dealloc.getMemref());
      rewriter.eraseOp(op);
    }
    // Anything else on the host that touches memory cannot run there.
    WalkResult result = func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>() || isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isa<memref::LoadOp, memref::StoreOp>(op)) {
        op->emitError("llm-map-gpu-kernels: host code reads device memory");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
