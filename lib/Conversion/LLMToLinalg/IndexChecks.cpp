//===- IndexChecks.cpp - run-time range checks of gathered indices --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The check that `llm.embedding` and `llm.gather` emit before reading a
// table through run-time indices, and the module-level status it reports
// through (see IndexChecks in LLMToLinalg.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::llm;

/// The attribute that marks a check's id constant until
/// `finalizeIndexChecks` numbers it (its value: the check's description).
static constexpr llvm::StringLiteral kPendingCheckAttr = "llm.index_check";

static MemRefType getStatusType(MLIRContext *ctx) {
  return MemRefType::get({kIndexCheckStatusSize}, IntegerType::get(ctx, 64));
}

/// `file:line:col`, or `'name'` for a NameLoc (`'name' (Op)` when it wraps
/// another name, as the ONNX importer's `'node' (op type)`), for a
/// diagnostic printed at run time.
static void printLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << "'" << name.getName().getValue() << "'";
    if (auto inner = dyn_cast<NameLoc>(name.getChildLoc()))
      os << " (" << inner.getName().getValue() << ")";
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      printLocation(fused.getLocations().front(), os);
    return;
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return printLocation(callSite.getCallee(), os);
  os << "(unknown location)";
}

// In `b`'s block, before the op that reads `indices` into a dimension of
// `size`:
//   %min, %max = linalg.generic (reduction of %indices to two 0-d tensors)
//   %hi = %max >= size; %lo = %min < -size
//   scf.if (%hi or %lo) {
//     if (status[0] == 0) { status = [id + 1, %hi ? %max : %min, size] }
//   }
void mlir::llm::emitIndexRangeCheck(OpBuilder &b, Operation *op,
                                    Value indices, int64_t size) {
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(indices.getType());
  auto it = cast<IntegerType>(type.getElementType());
  int64_t rank = type.getRank();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v));
  };
  auto scalarType = RankedTensorType::get({}, it);
  auto filled = [&](int64_t v) -> Value {
    Value empty = tensor::EmptyOp::create(b, loc, scalarType.getShape(), it);
    return linalg::FillOp::create(b, loc, c(v), empty).getResult(0);
  };
  APInt maxValue = APInt::getSignedMaxValue(it.getWidth());
  APInt minValue = APInt::getSignedMinValue(it.getWidth());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, {}, ctx),
                                 AffineMap::get(rank, 0, {}, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto minMax = linalg::GenericOp::create(
      b, loc, TypeRange{scalarType, scalarType}, ValueRange{indices},
      ValueRange{filled(maxValue.getSExtValue()),
                 filled(minValue.getSExtValue())},
      maps, iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value lo = arith::MinSIOp::create(nb, l, args[0], args[1]);
        Value hi = arith::MaxSIOp::create(nb, l, args[0], args[2]);
        linalg::YieldOp::create(nb, l, ValueRange{lo, hi});
      });
  Value minIndex =
      tensor::ExtractOp::create(b, loc, minMax.getResult(0), ValueRange{});
  Value maxIndex =
      tensor::ExtractOp::create(b, loc, minMax.getResult(1), ValueRange{});
  Value tooHigh = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        maxIndex, c(size));
  Value tooLow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       minIndex, c(-size));
  Value bad = arith::OrIOp::create(b, loc, tooHigh, tooLow);
  Value badIndex = arith::SelectOp::create(b, loc, tooHigh, maxIndex, minIndex);

  std::string description;
  llvm::raw_string_ostream os(description);
  os << op->getName() << " at ";
  printLocation(loc, os);
  auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Value status = memref::GetGlobalOp::create(tb, loc, getStatusType(ctx),
                                             kIndexCheckStatusName);
  auto index = [&](OpBuilder &ib, int64_t i) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, i);
  };
  Value i64Zero = arith::ConstantIntOp::create(tb, loc, 0, 64);
  Value first = memref::LoadOp::create(tb, loc, status, index(tb, 0));
  Value isFirst = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::eq,
                                        first, i64Zero);
  auto storeIf = scf::IfOp::create(tb, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder sb = storeIf.getThenBodyBuilder();
  // Numbered by finalizeIndexChecks.
  auto id = arith::ConstantIntOp::create(sb, loc, 0, 64);
  id->setAttr(kPendingCheckAttr, sb.getStringAttr(description));
  Value wide = badIndex;
  if (it.getWidth() < 64)
    wide = arith::ExtSIOp::create(sb, loc, sb.getI64Type(), badIndex);
  memref::StoreOp::create(sb, loc, id, status, index(sb, 0));
  memref::StoreOp::create(sb, loc, wide, status, index(sb, 1));
  memref::StoreOp::create(sb, loc, arith::ConstantIntOp::create(sb, loc, size, 64),
                          status, index(sb, 2));
}

LogicalResult mlir::llm::finalizeIndexChecks(Operation *root) {
  SmallVector<arith::ConstantOp> pending;
  root->walk([&](arith::ConstantOp op) {
    if (op->hasAttr(kPendingCheckAttr))
      pending.push_back(op);
  });
  if (pending.empty())
    return success();
  if (!root->hasTrait<OpTrait::SymbolTable>())
    return root->emitError()
           << "convert-llm-to-linalg: the run-time index checks of "
              "llm.embedding/llm.gather need a module (a symbol table) to "
              "hold their status; run the pass on the module";
  MLIRContext *ctx = root->getContext();
  SmallVector<Attribute> descriptions;
  if (auto existing = root->getAttrOfType<ArrayAttr>(kIndexChecksAttrName))
    llvm::append_range(descriptions, existing.getValue());
  for (arith::ConstantOp op : pending) {
    descriptions.push_back(op->getAttr(kPendingCheckAttr));
    op->removeAttr(kPendingCheckAttr);
    op.setValueAttr(IntegerAttr::get(IntegerType::get(ctx, 64),
                                     static_cast<int64_t>(descriptions.size())));
  }
  root->setAttr(kIndexChecksAttrName, ArrayAttr::get(ctx, descriptions));
  SymbolTable symbols(root);
  if (Operation *existing = symbols.lookup(kIndexCheckStatusName)) {
    auto global = dyn_cast<memref::GlobalOp>(existing);
    if (!global || global.getType() != getStatusType(ctx))
      return existing->emitError()
             << "the symbol '@" << kIndexCheckStatusName
             << "' is reserved for llmc's run-time index checks";
    return success();
  }
  OpBuilder b = OpBuilder::atBlockBegin(&root->getRegion(0).front());
  auto statusType = getStatusType(ctx);
  auto global = memref::GlobalOp::create(
      b, root->getLoc(), kIndexCheckStatusName, b.getStringAttr("public"),
      statusType,
      DenseElementsAttr::get(
          RankedTensorType::get(statusType.getShape(), b.getI64Type()),
          b.getI64IntegerAttr(0).getValue()),
      /*constant=*/false, /*alignment=*/b.getI64IntegerAttr(8));
  symbols.insert(global);
  return success();
}
