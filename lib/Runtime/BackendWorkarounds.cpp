//===- BackendWorkarounds.cpp - LLVM IR rewrites for backend bugs ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/BackendWorkarounds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

/// `<N x bfloat>` with N not a power of two, or null.
static FixedVectorType *getOddBF16VectorType(Type *type) {
  auto *vectorType = dyn_cast<FixedVectorType>(type);
  if (!vectorType || !vectorType->getElementType()->isBFloatTy() ||
      isPowerOf2_32(vectorType->getNumElements()))
    return nullptr;
  return vectorType;
}

/// `value` (an `<N x bfloat>`) as `<N x i16>`.
static Value *castToI16Lanes(IRBuilder<> &b, Value *value) {
  auto *type = cast<FixedVectorType>(value->getType());
  return b.CreateBitCast(
      value, FixedVectorType::get(b.getInt16Ty(), type->getNumElements()));
}

unsigned mlir::llm::runtime::legalizeOddBF16VectorAccesses(Module &module) {
  SmallVector<Instruction *> worklist;
  for (Function &function : module)
    for (Instruction &inst : instructions(function)) {
      if (auto *shuffle = dyn_cast<ShuffleVectorInst>(&inst)) {
        if (getOddBF16VectorType(shuffle->getOperand(0)->getType()))
          worklist.push_back(shuffle);
      } else if (auto *extract = dyn_cast<ExtractElementInst>(&inst)) {
        if (getOddBF16VectorType(extract->getVectorOperandType()))
          worklist.push_back(extract);
      }
    }
  for (Instruction *inst : worklist) {
    IRBuilder<> b(inst);
    Value *replacement;
    if (auto *shuffle = dyn_cast<ShuffleVectorInst>(inst)) {
      // shufflevector(a, b, mask) : <M x bfloat>
      //   -> bitcast(shufflevector(bitcast_i16(a), bitcast_i16(b), mask))
      Value *lanes = b.CreateShuffleVector(
          castToI16Lanes(b, shuffle->getOperand(0)),
          castToI16Lanes(b, shuffle->getOperand(1)), shuffle->getShuffleMask());
      replacement = b.CreateBitCast(lanes, shuffle->getType());
    } else {
      // extractelement(v, i) : bfloat
      //   -> bitcast(extractelement(bitcast_i16(v), i))
      auto *extract = cast<ExtractElementInst>(inst);
      Value *lane =
          b.CreateExtractElement(castToI16Lanes(b, extract->getVectorOperand()),
                                 extract->getIndexOperand());
      replacement = b.CreateBitCast(lane, extract->getType());
    }
    replacement->takeName(inst);
    inst->replaceAllUsesWith(replacement);
    inst->eraseFromParent();
  }
  return worklist.size();
}
