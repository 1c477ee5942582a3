//===- ConstantBytes.cpp - Large constants as byte arrays -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/ConstantBytes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

unsigned mlir::llm::runtime::packConstantsAsBytes(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type i8 = IntegerType::get(ctx, 8);
  unsigned count = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getConstant())
      continue;
    auto resource =
        dyn_cast_if_present<DenseResourceElementsAttr>(global.getValueAttr());
    if (!resource)
      continue;
    Type element = resource.getType().getElementType();
    // i8 arrays are already written in one piece; i1 is not byte-sized.
    if (element.isInteger(8) || element.isInteger(1) ||
        !(isa<FloatType>(element) || isa<IntegerType>(element)))
      continue;
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      continue;
    int64_t bytes = blob->getData().size();
    int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
    if (bytes != resource.getType().getNumElements() * elementBytes)
      continue;
    // The old element type's alignment unless one is set.
    if (!global.getAlignment())
      global.setAlignment(static_cast<uint64_t>(elementBytes));
    auto bytesType = RankedTensorType::get({bytes}, i8);
    global.setGlobalTypeAttr(
        TypeAttr::get(LLVM::LLVMArrayType::get(i8, bytes)));
    global.setValueAttr(
        DenseResourceElementsAttr::get(bytesType, resource.getRawHandle()));
    ++count;
  }
  return count;
}

uint64_t mlir::llm::runtime::releaseConstantBlobs(ModuleOp module) {
  uint64_t freed = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto resource =
        dyn_cast_if_present<DenseResourceElementsAttr>(global.getValueAttr());
    if (!resource)
      continue;
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      freed += blob->getData().size();
      *blob = AsmResourceBlob();
    }
  }
  return freed;
}

void mlir::llm::runtime::reserveObjectSpace(const llvm::Module &module,
                                            llvm::raw_ostream &os) {
  const llvm::DataLayout &layout = module.getDataLayout();
  uint64_t bytes = 1 << 20;
  for (const llvm::GlobalVariable &g : module.globals())
    if (g.hasInitializer())
      bytes += layout.getTypeAllocSize(g.getValueType());
  os.reserveExtraSpace(bytes);
}
