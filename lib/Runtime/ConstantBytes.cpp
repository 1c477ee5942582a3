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
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

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

std::unique_ptr<llvm::WritableMemoryBuffer>
mlir::llm::runtime::externalizeConstants(
    ModuleOp module, llvm::SmallVectorImpl<ExternalConstant> &constants,
    uint64_t minBytes) {
  // The globals to move and their offsets, then one buffer for all.
  struct Moved {
    LLVM::GlobalOp global;
    ArrayRef<char> bytes;
    uint64_t offset;
  };
  SmallVector<Moved> moved;
  uint64_t total = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getConstant())
      continue;
    auto resource =
        dyn_cast_if_present<DenseResourceElementsAttr>(global.getValueAttr());
    if (!resource)
      continue;
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() < minBytes)
      continue;
    uint64_t align = std::max<uint64_t>(64, global.getAlignment().value_or(1));
    if (align > 4096 || !llvm::isPowerOf2_64(align))
      continue;
    total = llvm::alignTo(total, align);
    moved.push_back({global, blob->getData(), total});
    total += blob->getData().size();
  }
  if (moved.empty())
    return nullptr;
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          total, "llmc-constants", llvm::Align(64));
  if (!buffer)
    return nullptr;
  char *data = buffer->getBufferStart();
  uint64_t end = 0;
  for (Moved &m : moved) {
    std::memset(data + end, 0, m.offset - end);
    std::memcpy(data + m.offset, m.bytes.data(), m.bytes.size());
    end = m.offset + m.bytes.size();
    // The declaration keeps the symbol, the type and `constant`; its
    // alignment is what the buffer guarantees.
    LLVM::GlobalOp global = m.global;
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setUnnamedAddr(std::nullopt);
    global.setDsoLocal(false);
    global.setAlignment(
        std::max<uint64_t>(64, global.getAlignment().value_or(1)));
    constants.push_back(
        {global.getSymName().str(), m.offset, m.bytes.size()});
  }
  return buffer;
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
