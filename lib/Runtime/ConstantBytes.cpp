//===- ConstantBytes.cpp - Large constants as byte arrays -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/ConstantBytes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// Appends the bytes of `c` (a ConstantDataArray of numbers, or a nested
/// ConstantArray of them: a multi-dimensional memref.global) to `bytes`, in
/// memory order; false for anything else (pointers, structs, i1, zeros).
static bool appendRawBytes(Constant *c, std::string &bytes) {
  if (auto *data = dyn_cast<ConstantDataArray>(c)) {
    bytes.append(data->getRawDataValues());
    return true;
  }
  auto *array = dyn_cast<ConstantArray>(c);
  if (!array)
    return false;
  for (Use &element : array->operands())
    if (!appendRawBytes(cast<Constant>(element.get()), bytes))
      return false;
  return true;
}

/// The scalar element type of a (nested) array type.
static Type *getScalarElementType(Type *type) {
  while (auto *array = dyn_cast<ArrayType>(type))
    type = array->getElementType();
  return type;
}

unsigned mlir::llm::runtime::packConstantsAsBytes(Module &module,
                                                  uint64_t minBytes) {
  const DataLayout &layout = module.getDataLayout();
  SmallVector<GlobalVariable *> candidates;
  for (GlobalVariable &g : module.globals()) {
    if (!g.isConstant() || !g.hasInitializer())
      continue;
    Type *type = g.getValueType();
    if (!type->isArrayTy() || layout.getTypeAllocSize(type) < minBytes)
      continue;
    Type *scalar = getScalarElementType(type);
    // An i8 array is already written in one piece.
    if (scalar->isIntegerTy(8) || !ConstantDataSequential::isElementTypeCompatible(scalar))
      continue;
    candidates.push_back(&g);
  }
  unsigned rewritten = 0;
  std::string bytes;
  for (GlobalVariable *g : candidates) {
    bytes.clear();
    // ConstantDataArray's raw data is in the target's byte order (llmc
    // compiles for the host).
    if (!appendRawBytes(g->getInitializer(), bytes) ||
        bytes.size() != layout.getTypeAllocSize(g->getValueType()))
      continue;
    Constant *packedInit = ConstantDataArray::getRaw(
        bytes, bytes.size(), Type::getInt8Ty(module.getContext()));
    auto *packed = new GlobalVariable(
        module, packedInit->getType(), /*isConstant=*/true, g->getLinkage(),
        packedInit, "", g, g->getThreadLocalMode(), g->getAddressSpace());
    packed->copyAttributesFrom(g);
    // The original's alignment, or its element type's ABI alignment when it
    // had none (the byte array's would be 1).
    if (!g->getAlign())
      packed->setAlignment(layout.getABITypeAlign(getScalarElementType(
          g->getValueType())));
    packed->takeName(g);
    g->replaceAllUsesWith(packed);
    g->eraseFromParent();
    ++rewritten;
  }
  return rewritten;
}
