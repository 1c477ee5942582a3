//===- LowerShard.cpp - specialize a partitioned module to one rank -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llm-lower-shard: after shard-partition, the program of one rank. The
// process queries become constants and each rank's slice of a replicated
// value a static slice, so that the weights fold to this rank's part.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMLOWERSHARDPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// A static unit-stride slice chain `slice(slice(constant))` ending at `v`:
/// the constant and the offsets of `v`'s first element in it.
static std::optional<std::pair<ConstantOp, SmallVector<int64_t>>>
getSliceOfConstant(Value v) {
  if (auto constant = v.getDefiningOp<ConstantOp>()) {
    auto type = cast<RankedTensorType>(v.getType());
    return std::make_pair(constant, SmallVector<int64_t>(type.getRank(), 0));
  }
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice ||
      llvm::any_of(slice.getStrides(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  auto inner = getSliceOfConstant(slice.getInput());
  if (!inner)
    return std::nullopt;
  for (auto [offset, start] : llvm::zip(inner->second, slice.getStarts()))
    offset += start;
  return inner;
}

/// The elements of `attr` (of a static shape) from `offsets`, of
/// `resultType`'s shape, in a new attribute: a `dense_resource` blob
/// (`<name>_<suffix>`) for a resource, so that the rank's weight slice stays
/// an external weight; an inline one for inline data; a splat for a splat.
/// Null when the elements are not byte-addressable.
static ElementsAttr sliceConstant(ElementsAttr attr, ArrayRef<int64_t> offsets,
                                  RankedTensorType resultType,
                                  StringRef suffix) {
  auto type = cast<RankedTensorType>(attr.getType());
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
    return nullptr;
  size_t width = elem.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> data;
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.resizeSplat(resultType);
    data = dense.getRawData();
  } else if (resource) {
    data = resource.getData();
  } else {
    return nullptr;
  }
  if (data.size() != type.getNumElements() * width)
    return nullptr;
  // Row by row (the last dimension is contiguous in both).
  ArrayRef<int64_t> shape = type.getShape(), out = resultType.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  std::vector<char> bytes;
  bytes.reserve(resultType.getNumElements() * width);
  int64_t rowLength = rank ? out.back() : 1;
  int64_t rows = rowLength ? resultType.getNumElements() / rowLength : 0;
  SmallVector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += (offsets[d] + index[d]) * strides[d];
    const char *begin = data.data() + src * width;
    bytes.insert(bytes.end(), begin, begin + rowLength * width);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
  if (resource)
    return DenseResourceElementsAttr::get(
        resultType, (resource.getRawHandle().getKey() + "_" + suffix).str(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(bytes.data(), bytes.size()), alignof(uint64_t)));
  return DenseElementsAttr::getFromRawBuffer(
      resultType, ArrayRef<char>(bytes.data(), bytes.size()));
}

struct LLMLowerShardPass
    : public llm::impl::LLMLowerShardPassBase<LLMLowerShardPass> {
  using LLMLowerShardPassBase::LLMLowerShardPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    bool failedAny = false;
    // Every grid is 1-D and holds `rank`.
    for (auto grid : module.getOps<shard::GridOp>()) {
      ArrayRef<int64_t> shape = grid.getShape();
      if (shape.size() != 1 || ShapedType::isDynamic(shape[0])) {
        grid.emitError("llm-lower-shard: only a 1-D grid of static size is "
                       "supported");
        return signalPassFailure();
      }
      if (rank < 0 || rank >= shape[0]) {
        grid.emitError("llm-lower-shard: rank ")
            << rank.getValue() << " is outside the grid's [0, " << shape[0]
            << ")";
        return signalPassFailure();
      }
    }

    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<shard::ShardDialect>(op->getDialect()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto gridSize = [&](FlatSymbolRefAttr gridName) {
        return shard::getGrid(op, gridName, symbols).getShape()[0];
      };
      if (auto index = dyn_cast<shard::ProcessLinearIndexOp>(op)) {
        index.replaceAllUsesWith(
            arith::ConstantIndexOp::create(b, loc, rank).getResult());
        op->erase();
      } else if (auto multi = dyn_cast<shard::ProcessMultiIndexOp>(op)) {
        for (Value r : multi.getResults())
          r.replaceAllUsesWith(arith::ConstantIndexOp::create(b, loc, rank));
        op->erase();
      } else if (auto shape = dyn_cast<shard::GridShapeOp>(op)) {
        int64_t n = gridSize(shape.getGridAttr());
        for (Value r : shape.getResults())
          r.replaceAllUsesWith(arith::ConstantIndexOp::create(b, loc, n));
        op->erase();
      } else if (auto slice = dyn_cast<shard::AllSliceOp>(op)) {
        // This rank's contiguous part of `slice_axis` (the grid's order).
        int64_t n = gridSize(slice.getGridAttr());
        int64_t axis = slice.getSliceAxis().getSExtValue();
        auto inType = cast<RankedTensorType>(slice.getInput().getType());
        auto outType = cast<RankedTensorType>(slice.getResult().getType());
        int64_t full = inType.getDimSize(axis);
        if (ShapedType::isDynamic(full) || full % n != 0) {
          op->emitError("llm-lower-shard: dimension ")
              << axis << " of " << inType
              << " must be static and a multiple of " << n;
          failedAny = true;
          continue;
        }
        int64_t part = full / n;
        Value result;
        // A slice of a weight: this rank's part as a constant of its own
        // (a resource stays a resource, the object holds only this part).
        if (auto chain = getSliceOfConstant(slice.getInput());
            chain && inType.hasStaticShape()) {
          SmallVector<int64_t> offsets = chain->second;
          offsets[axis] += rank * part;
          if (ElementsAttr value =
                  sliceConstant(chain->first.getValue(), offsets, outType,
                                ("rank" + llvm::Twine(rank.getValue())).str()))
            result = ConstantOp::create(b, loc, outType, value);
        }
        if (!result && inType.hasStaticShape()) {
          SmallVector<int64_t> starts(inType.getRank(), 0),
              limits(inType.getShape()), strides(inType.getRank(), 1);
          starts[axis] = rank * part;
          limits[axis] = starts[axis] + part;
          result = SliceOp::create(
              b, loc, outType, slice.getInput(), b.getDenseI64ArrayAttr(starts),
              b.getDenseI64ArrayAttr(limits), b.getDenseI64ArrayAttr(strides));
        } else if (!result) {
          SmallVector<OpFoldResult> offsets(inType.getRank(),
                                            b.getIndexAttr(0)),
              sizes, strides(inType.getRank(), b.getIndexAttr(1));
          for (int64_t d = 0; d < inType.getRank(); ++d)
            sizes.push_back(
                d == axis ? OpFoldResult(b.getIndexAttr(part))
                          : tensor::getMixedSize(b, loc, slice.getInput(), d));
          offsets[axis] = b.getIndexAttr(rank * part);
          result = tensor::ExtractSliceOp::create(
              b, loc, outType, slice.getInput(), offsets, sizes, strides);
        }
        slice.replaceAllUsesWith(result);
        op->erase();
      } else if (!isa<shard::AllReduceOp, shard::AllGatherOp, shard::GridOp,
                      shard::ShardingOp>(op)) {
        op->emitError("llm-lower-shard: '")
            << op->getName()
            << "' is not supported (llm-shard plans only slices of "
               "replicated values, all-reduces and gathers of results)";
        failedAny = true;
      }
    }
    // Shardings no partitioned op reads any more.
    module.walk([](shard::ShardingOp op) {
      if (op->use_empty())
        op->erase();
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
