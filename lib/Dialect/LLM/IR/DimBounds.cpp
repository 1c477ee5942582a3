//===- DimBounds.cpp - Declared bounds of dynamic dimensions --------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the helpers around the `llm.dim_bounds` argument
// attribute (see DimBounds.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::llm;

FailureOr<std::optional<SequenceDim>>
mlir::llm::getSequenceDim(FunctionOpInterface func, bool emitErrors) {
  std::optional<SequenceDim> seq;
  // At the argument (its location in the source) when there is a body.
  auto fail = [&](unsigned arg) -> InFlightDiagnostic {
    Location loc = func.isExternal() ? func.getLoc()
                                     : func.getArgument(arg).getLoc();
    return emitError(loc) << "argument #" << arg << " of @" << func.getName()
                          << ": ";
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<ShapedType>(func.getArgumentTypes()[i]);
    auto bounds = func.getArgAttrOfType<DenseI64ArrayAttr>(i, kDimBoundsAttrName);
    if (!type || !type.hasRank()) {
      if (bounds) {
        if (emitErrors)
          fail(i) << "'" << kDimBoundsAttrName
                  << "' needs a ranked tensor argument";
        return failure();
      }
      continue;
    }
    if (func.getArgAttr(i, kDimBoundsAttrName) && !bounds) {
      if (emitErrors)
        fail(i) << "'" << kDimBoundsAttrName
                << "' must be an array<i64: ...> with one bound per dimension";
      return failure();
    }
    if (type.hasStaticShape() && !bounds)
      continue;
    if (!bounds) {
      if (emitErrors) {
        unsigned d = 0;
        while (!type.isDynamicDim(d))
          ++d;
        fail(i) << "dimension " << d << " of " << type
                << " is dynamic but has no declared upper bound; add the "
                   "argument attribute {"
                << kDimBoundsAttrName
                << " = array<i64: ...>} (one bound per dimension) or make "
                   "the shape static";
      }
      return failure();
    }
    if (static_cast<int64_t>(bounds.size()) != type.getRank()) {
      if (emitErrors)
        fail(i) << "'" << kDimBoundsAttrName << "' has " << bounds.size()
                << " entries for a rank-" << type.getRank() << " argument";
      return failure();
    }
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      int64_t bound = bounds[d];
      if (!ShapedType::isDynamic(size)) {
        if (bound != size) {
          if (emitErrors)
            fail(i) << "'" << kDimBoundsAttrName << "' entry " << d << " is "
                    << bound << " but the dimension is static with size "
                    << size;
          return failure();
        }
        continue;
      }
      if (bound < 1) {
        if (emitErrors)
          fail(i) << "the bound of dynamic dimension " << d
                  << " must be at least 1, got " << bound;
        return failure();
      }
      if (!seq) {
        seq = SequenceDim{i, static_cast<unsigned>(d), bound};
      } else if (seq->bound != bound) {
        if (emitErrors)
          fail(i) << "dynamic dimension " << d << " declares bound " << bound
                  << " but dimension " << seq->dim << " of argument #"
                  << seq->argIndex << " declares " << seq->bound
                  << " (llmc supports one symbolic dimension, the sequence "
                     "length: every dynamic dimension has the same value "
                     "and bound)";
        return failure();
      }
    }
  }
  return seq;
}

SmallVector<std::tuple<unsigned, unsigned, int64_t>>
mlir::llm::getDynamicArgDims(FunctionOpInterface func) {
  SmallVector<std::tuple<unsigned, unsigned, int64_t>> dims;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<ShapedType>(func.getArgumentTypes()[i]);
    if (!type || !type.hasRank())
      continue;
    auto bounds = func.getArgAttrOfType<DenseI64ArrayAttr>(i, kDimBoundsAttrName);
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        dims.push_back({i, static_cast<unsigned>(d),
                        bounds && static_cast<int64_t>(d) < bounds.size()
                            ? bounds[d]
                            : ShapedType::kDynamic});
  }
  return dims;
}

static FunctionOpInterface getEnclosingFunction(Operation *op) {
  if (auto f = dyn_cast<FunctionOpInterface>(op))
    return f;
  return op->getParentOfType<FunctionOpInterface>();
}

bool mlir::llm::isStaticOrSequence(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && llvm::count_if(t.getShape(), ShapedType::isDynamic) <= 1;
}

int64_t mlir::llm::getStaticProduct(ArrayRef<int64_t> shape) {
  int64_t product = 1;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d))
      product *= d;
  return product;
}

bool mlir::llm::hasSequenceDim(Operation *op) {
  FunctionOpInterface func = getEnclosingFunction(op);
  if (!func)
    return false;
  FailureOr<std::optional<SequenceDim>> seq =
      getSequenceDim(func, /*emitErrors=*/false);
  return succeeded(seq) && seq->has_value();
}

std::optional<int64_t> mlir::llm::getSequenceBound(Operation *op) {
  FunctionOpInterface func = getEnclosingFunction(op);
  if (!func)
    return std::nullopt;
  FailureOr<std::optional<SequenceDim>> seq =
      getSequenceDim(func, /*emitErrors=*/false);
  if (failed(seq) || !*seq)
    return std::nullopt;
  return (*seq)->bound;
}

Value mlir::llm::getSequenceLength(OpBuilder &b, Location loc) {
  Block *block = b.getInsertionBlock();
  if (!block || !block->getParentOp())
    return {};
  FunctionOpInterface func = getEnclosingFunction(block->getParentOp());
  if (!func || func.isExternal())
    return {};
  FailureOr<std::optional<SequenceDim>> seq =
      getSequenceDim(func, /*emitErrors=*/false);
  if (failed(seq) || !seq->has_value())
    return {};
  Value arg = func.getArguments()[(*seq)->argIndex];
  int64_t dim = (*seq)->dim;
  if (isa<TensorType>(arg.getType()))
    return tensor::DimOp::create(b, loc, arg, dim);
  if (isa<MemRefType>(arg.getType()))
    return memref::DimOp::create(b, loc, arg, dim);
  return {};
}

Value mlir::llm::createEmptyTensor(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape, Type elemTy) {
  SmallVector<Value> dynamicSizes;
  if (llvm::any_of(shape, ShapedType::isDynamic)) {
    Value seq = getSequenceLength(b, loc);
    assert(seq && "dynamic shape outside a function with a sequence dim");
    for (int64_t d : shape)
      if (ShapedType::isDynamic(d))
        dynamicSizes.push_back(seq);
  }
  return tensor::EmptyOp::create(b, loc, shape, elemTy, dynamicSizes);
}
