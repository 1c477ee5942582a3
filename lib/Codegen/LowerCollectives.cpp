//===- LowerCollectives.cpp - shard all-reduces to MPI --------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llm-lower-collectives: the all-reduces of a tensor-parallel rank's program
// as MPI calls on MPI_COMM_WORLD (host buffers), or as calls of llmc's CUDA
// runtime, which runs them with NCCL on device buffers.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Collectives.h"
#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cstdint>
#include <string>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMLOWERCOLLECTIVESPASS
#define GEN_PASS_DEF_LLMFIXMPISYMBOLSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

/// `x` converted elementwise to `element` (arith.extf / arith.truncf in a
/// linalg.generic): the f32 copy of an f16/bf16 all-reduce and back.
static Value convertElements(OpBuilder &b, Location loc, Value x,
                             Type element) {
  auto type = cast<RankedTensorType>(x.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), element,
                              tensor::createDynamicDimValues(b, loc, x));
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  bool widen = element.getIntOrFloatBitWidth() >
               type.getElementType().getIntOrFloatBitWidth();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x}, ValueRange{init},
             ArrayRef<AffineMap>{identity, identity}, parallel,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v =
                   widen ? arith::ExtFOp::create(nb, nloc, element, args[0])
                               .getResult()
                         : arith::TruncFOp::create(nb, nloc, element, args[0])
                               .getResult();
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// Where the all-reduces of a rank's program run.
struct CollectiveLibrary {
  /// False: MPI on host buffers (mpi.allreduce). True: NCCL on device
  /// buffers, through llmc's CUDA runtime (llmcCudaAllReduceSum_<type>).
  bool nccl = false;
  /// The grid's size: the NCCL calls pass it, and the runtime checks it
  /// against its communicator.
  int64_t ranks = 1;
};

/// The NCCL all-reduce's name for `element` in llmc's CUDA runtime
/// (include/llm/Runtime/CUDA/CUDARuntime.h), or "" when NCCL has no such
/// datatype.
static std::string getNCCLAllReduceName(Type element) {
  std::string suffix;
  if (element.isF16())
    suffix = "f16";
  else if (element.isBF16())
    suffix = "bf16";
  else if (element.isF32())
    suffix = "f32";
  else if (element.isF64())
    suffix = "f64";
  else if (element.isInteger(8) || element.isInteger(32) ||
           element.isInteger(64))
    suffix = "i" + std::to_string(element.getIntOrFloatBitWidth());
  return suffix.empty() ? "" : "llmcCudaAllReduceSum_" + suffix;
}

/// The private declaration of runtime function `name` of `type` in the
/// module of `op`, created the first time.
static func::FuncOp getOrDeclareRuntimeFunction(Operation *op, StringRef name,
                                                FunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto func = module.lookupSymbol<func::FuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  return func;
}

/// The sum of `in` over the ranks into `out` (both contiguous buffers of
/// one type): `mpi.allreduce` on MPI_COMM_WORLD, or for NCCL
///   func.call @llmcCudaAllReduceSum_<type>(cast(%in), cast(%out), %ranks)
/// on unranked memrefs (the runtime reads the element count from the
/// descriptor).
static void emitAllReduce(OpBuilder &b, Location loc, Value in, Value out,
                          const CollectiveLibrary &library) {
  auto type = cast<MemRefType>(in.getType());
  if (library.nccl) {
    auto unranked = UnrankedMemRefType::get(type.getElementType(), 0);
    auto fnType = b.getFunctionType({unranked, unranked, b.getI32Type()}, {});
    func::FuncOp callee = getOrDeclareRuntimeFunction(
        in.getParentRegion()->getParentOp(),
        getNCCLAllReduceName(type.getElementType()), fnType);
    Value ranks =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), library.ranks);
    func::CallOp::create(
        b, loc, callee,
        ValueRange{memref::CastOp::create(b, loc, unranked, in),
                   memref::CastOp::create(b, loc, unranked, out), ranks});
    return;
  }
  auto flatten = [&](Value buffer) -> Value {
    if (type.getRank() == 1)
      return buffer;
    // A 0-d buffer as one element.
    if (type.getRank() == 0)
      return memref::ExpandShapeOp::create(
          b, loc, MemRefType::get({1}, type.getElementType()), buffer,
          ArrayRef<ReassociationIndices>{});
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    return memref::CollapseShapeOp::create(b, loc, buffer,
                                           ArrayRef<ReassociationIndices>{all});
  };
  Value world =
      mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  mpi::AllReduceOp::create(b, loc, /*retval=*/Type(), flatten(in), flatten(out),
                           mpi::MPI_ReductionOpEnum::MPI_SUM, world);
}

/// `shard.all_reduce %x <sum>` over the whole grid ->
///   %in = bufferization.to_buffer %x read_only
///   %out = memref.alloc()
///   mpi.allreduce(flat(%in), flat(%out), MPI_SUM, MPI_COMM_WORLD)
///     (or the NCCL call of emitAllReduce)
///   %r = bufferization.to_tensor %out restrict writable
/// For MPI an f16/bf16 tensor is summed in f32 (MPI has no 16-bit float
/// type): extended before, rounded once after. NCCL sums f16 and bf16.
static LogicalResult lowerAllReduce(shard::AllReduceOp op,
                                    const CollectiveLibrary &library) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!type || !resultType || type != resultType)
    return op.emitError("llm-lower-collectives: expected an all-reduce of a "
                        "ranked tensor into the same type");
  Type element = type.getElementType();
  if (library.nccl && getNCCLAllReduceName(element).empty())
    return op.emitError("llm-lower-collectives: an NCCL all-reduce of ")
           << element
           << " is not supported (f16, bf16, f32, f64, i8, i32 and i64 are)";
  bool narrow = !library.nccl && (element.isF16() || element.isBF16());
  if (!library.nccl && !narrow && !element.isF32() && !element.isF64() &&
      !element.isInteger())
    return op.emitError("llm-lower-collectives: an all-reduce of ")
           << element
           << " is not supported (MPI has no such datatype here; f16, bf16, "
              "f32, f64 and integers are)";
  if (op.getReduction() != shard::ReductionKind::Sum)
    return op.emitError("llm-lower-collectives: only sum all-reduces are "
                        "supported");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value input = op.getInput();
  if (narrow) {
    input = convertElements(b, loc, input, b.getF32Type());
    type = cast<RankedTensorType>(input.getType());
  }
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value in = bufferization::ToBufferOp::create(b, loc, memrefType, input,
                                               /*read_only=*/true);
  Value out = memref::AllocOp::create(
      b, loc, memrefType, tensor::createDynamicDimValues(b, loc, input));
  emitAllReduce(b, loc, in, out, library);
  Value result = bufferization::ToTensorOp::create(
      b, loc, type, out, /*restrict=*/true, /*writable=*/true);
  if (narrow)
    result = convertElements(b, loc, result, element);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// This process's rank as an i32: `mpi.comm_rank` of MPI_COMM_WORLD, or
/// llmc's CUDA runtime's `llmcCudaGetTensorParallelRank()` (the rank its
/// NCCL communicator was created with).
static Value emitRank(OpBuilder &b, Location loc, Operation *op,
                      const CollectiveLibrary &library) {
  if (library.nccl) {
    func::FuncOp callee =
        getOrDeclareRuntimeFunction(op, "llmcCudaGetTensorParallelRank",
                                    b.getFunctionType({}, {b.getI32Type()}));
    return func::CallOp::create(b, loc, callee, ValueRange{}).getResult(0);
  }
  Value world =
      mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  return mpi::CommRankOp::create(b, loc, /*retval=*/Type(), b.getI32Type(),
                                 world)
      .getRank();
}

/// `shard.all_gather %x` along axis a ->
///   all_reduce(insert_slice %x into zeros at [.., rank * part, ..])
/// with this process's rank (emitRank): the ranks' parts, summed, are the
/// whole tensor (the MPI lowering has no gather; the gathered tensors are
/// results, e.g. logits, not the per-layer traffic).
static LogicalResult lowerAllGather(shard::AllGatherOp op,
                                    const CollectiveLibrary &library) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getResult().getType());
  int64_t axis = op.getGatherAxis().getSExtValue();
  if (inType.isDynamicDim(axis))
    return op.emitError("llm-lower-collectives: an all_gather along a "
                        "dynamic dimension is not supported");
  OpBuilder b(op);
  Location loc = op.getLoc();
  // (The dynamic dimensions are the input's: the gather axis is static.)
  Value empty = tensor::EmptyOp::create(
      b, loc, outType.getShape(), outType.getElementType(),
      tensor::createDynamicDimValues(b, loc, op.getInput()));
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(outType.getElementType()));
  Value zeros = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  Value rank = emitRank(b, loc, op, library);
  Value offset = arith::MulIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), rank),
      arith::ConstantIndexOp::create(b, loc, inType.getDimSize(axis)));
  SmallVector<OpFoldResult> offsets(inType.getRank(), b.getIndexAttr(0)),
      sizes = tensor::getMixedSizes(b, loc, op.getInput()),
      strides(inType.getRank(), b.getIndexAttr(1));
  offsets[axis] = offset;
  Value placed = tensor::InsertSliceOp::create(b, loc, op.getInput(), zeros,
                                               offsets, sizes, strides);
  auto sum =
      shard::AllReduceOp::create(b, loc, placed, op.getGridAttr().getValue(),
                                 op.getGridAxes(), shard::ReductionKind::Sum);
  op.replaceAllUsesWith(sum.getResult());
  op.erase();
  return lowerAllReduce(sum, library);
}

/// all_reduce(x) / all_gather(x) over no grid axes -> x
template <typename OpT>
static LogicalResult foldNoGridAxes(OpT op) {
  if (!op.getGridAxes().empty() ||
      op.getInput().getType() != op.getResult().getType())
    return failure();
  op.getResult().replaceAllUsesWith(op.getInput());
  op.erase();
  return success();
}

struct LLMLowerCollectivesPass
    : public llm::impl::LLMLowerCollectivesPassBase<LLMLowerCollectivesPass> {
  using LLMLowerCollectivesPassBase::LLMLowerCollectivesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef impl;
    if (mpi == "openmpi")
      impl = "OpenMPI";
    else if (mpi == "mpich")
      impl = "MPICH";
    else {
      emitError(module.getLoc(), "llm-lower-collectives: unknown MPI ABI '")
          << mpi.getValue() << "' (expected openmpi or mpich)";
      return signalPassFailure();
    }
    CollectiveLibrary library;
    if (this->library == "nccl")
      library.nccl = true;
    else if (this->library != "mpi") {
      emitError(module.getLoc(),
                "llm-lower-collectives: unknown collective library '")
          << this->library.getValue() << "' (expected mpi or nccl)";
      return signalPassFailure();
    }
    for (auto grid : module.getOps<shard::GridOp>()) {
      if (grid.getShape().size() != 1) {
        grid.emitError("llm-lower-collectives: only a 1-D grid is supported");
        return signalPassFailure();
      }
      // (The calls pass it as an i32; the runtime compares it with its
      // communicator's size.)
      int64_t size = grid.getShape().front();
      if (ShapedType::isDynamic(size) || size < 1 || size > INT32_MAX) {
        grid.emitError("llm-lower-collectives: the grid's size must be a "
                       "static number of ranks in [1, 2^31), got ")
            << (ShapedType::isDynamic(size) ? std::string("?")
                                            : std::to_string(size));
        return signalPassFailure();
      }
      library.ranks = size;
    }

    SmallVector<Operation *> shardOps;
    module.walk([&](Operation *op) {
      if (isa<shard::ShardDialect>(op->getDialect()))
        shardOps.push_back(op);
    });
    bool any = false;
    for (Operation *op : shardOps) {
      if (auto reduce = dyn_cast<shard::AllReduceOp>(op)) {
        if (succeeded(foldNoGridAxes(reduce)))
          continue;
        if (failed(lowerAllReduce(reduce, library)))
          return signalPassFailure();
        any = true;
      } else if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
        if (succeeded(foldNoGridAxes(gather)))
          continue;
        if (failed(lowerAllGather(gather, library)))
          return signalPassFailure();
        any = true;
      } else if (!isa<shard::GridOp>(op)) {
        op->emitError("llm-lower-collectives: '")
            << op->getName() << "' is left (run llm-lower-shard first)";
        return signalPassFailure();
      }
    }
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      grid.erase();
    if (!any || library.nccl)
      return;
    MLIRContext *ctx = module.getContext();
    module->setAttr(
        "dlti.map",
        MapAttr::get(ctx, {DataLayoutEntryAttr::get(
                              StringAttr::get(ctx, "MPI:Implementation"),
                              StringAttr::get(ctx, impl))}));
  }
};

/// The MPI library's state: collectives are ordered by it.
struct MPIResource : public SideEffects::Resource::Base<MPIResource> {
  StringRef getName() final { return "<MPI>"; }
};

struct AllReduceMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceMemoryEffects,
                                                    mpi::AllReduceOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    auto reduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &reduce.getSendbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &reduce.getRecvbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Read::get(), MPIResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), MPIResource::get());
  }
};

// ompi_mpi_<op> -> ompi_mpi_op_<op> (OpenMPI's mpi.h: MPI_SUM is
// &ompi_mpi_op_sum).
struct LLMFixMPISymbolsPass
    : public llm::impl::LLMFixMPISymbolsPassBase<LLMFixMPISymbolsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<Attribute> impl =
        dlti::query(module, {"MPI:Implementation"}, /*emitError=*/false);
    auto name = succeeded(impl) ? dyn_cast<StringAttr>(*impl) : StringAttr();
    if (!name || name.getValue() != "OpenMPI")
      return;
    static const char *const ops[] = {
        "sum", "max",  "min",  "prod",   "land",   "band",    "lor",
        "bor", "lxor", "bxor", "maxloc", "minloc", "replace", "no_op"};
    for (const char *op : ops) {
      std::string from = std::string("ompi_mpi_") + op;
      auto global = module.lookupSymbol<LLVM::GlobalOp>(from);
      if (!global)
        continue;
      StringAttr to = StringAttr::get(module.getContext(),
                                      std::string("ompi_mpi_op_") + op);
      if (failed(SymbolTable::replaceAllSymbolUses(global, to, module)))
        return signalPassFailure();
      global.setSymName(to.getValue());
    }
  }
};

} // namespace

void mlir::llm::registerMPIMemoryEffectModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceMemoryEffects>(*ctx);
  });
}
