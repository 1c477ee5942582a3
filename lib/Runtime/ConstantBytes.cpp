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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

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

uint64_t mlir::llm::runtime::releaseConstantBlobs(
    ModuleOp module, llvm::ArrayRef<const char *> keep) {
  llvm::SmallPtrSet<const char *, 16> kept(keep.begin(), keep.end());
  uint64_t freed = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto resource =
        dyn_cast_if_present<DenseResourceElementsAttr>(global.getValueAttr());
    if (!resource)
      continue;
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      if (kept.contains(blob->getData().data()))
        continue;
      freed += blob->getData().size();
      *blob = AsmResourceBlob();
    }
  }
  return freed;
}

namespace {
/// A constant `llvm.mlir.global` whose value is a `dense_resource` with a
/// blob.
struct ResourceGlobal {
  LLVM::GlobalOp global;
  DenseResourceElementsAttr resource;
  AsmResourceBlob *blob;
};
} // namespace

/// The constant globals of `module` whose value is a `dense_resource` blob
/// of at least `minBytes` bytes, in module order.
static SmallVector<ResourceGlobal> getResourceGlobals(ModuleOp module,
                                                      uint64_t minBytes) {
  SmallVector<ResourceGlobal> globals;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getConstant())
      continue;
    auto resource =
        dyn_cast_if_present<DenseResourceElementsAttr>(global.getValueAttr());
    AsmResourceBlob *blob =
        resource ? resource.getRawHandle().getBlob() : nullptr;
    if (blob && blob->getData().size() >= minBytes)
      globals.push_back({global, resource, blob});
  }
  return globals;
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
  uint64_t total = 0, maxAlign = 64;
  // Equal values are stored once: the moved globals of each (hash, size),
  // by index in `moved`. (The prefill and decode entries of a generation
  // model pack each weight alike, each into a blob of its own.)
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, SmallVector<unsigned, 1>>
      byContent;
  for (auto [global, resource, blob] : getResourceGlobals(module, minBytes)) {
    uint64_t align = std::max<uint64_t>(64, global.getAlignment().value_or(1));
    if (align > 4096 || !llvm::isPowerOf2_64(align))
      continue;
    ArrayRef<char> bytes = blob->getData();
    std::pair<uint64_t, uint64_t> key = {
        llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size())),
        bytes.size()};
    SmallVector<unsigned, 1> &same = byContent[key];
    auto equal = llvm::find_if(same, [&](unsigned i) {
      return moved[i].offset % align == 0 &&
             (moved[i].bytes.data() == bytes.data() ||
              std::memcmp(moved[i].bytes.data(), bytes.data(), bytes.size()) ==
                  0);
    });
    if (equal != same.end()) {
      moved.push_back({global, bytes, moved[*equal].offset});
      continue;
    }
    total = llvm::alignTo(total, align);
    maxAlign = std::max(maxAlign, align);
    same.push_back(moved.size());
    moved.push_back({global, bytes, total});
    total += bytes.size();
  }
  if (moved.empty())
    return nullptr;
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          total, "llmc-constants", llvm::Align(maxAlign));
  if (!buffer)
    return nullptr;
  char *data = buffer->getBufferStart();
  uint64_t end = 0;
  for (Moved &m : moved) {
    // (A value stored once already, at an earlier offset, is not copied
    // again.)
    if (m.offset >= end) {
      std::memset(data + end, 0, m.offset - end);
      std::memcpy(data + m.offset, m.bytes.data(), m.bytes.size());
      end = m.offset + m.bytes.size();
    }
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

void mlir::llm::runtime::deferConstants(
    ModuleOp module, llvm::SmallVectorImpl<DeferredConstant> &constants,
    uint64_t minBytes) {
  for (auto [global, resource, blob] : getResourceGlobals(module, minBytes)) {
    // The alignment of the old element type unless one is set (as in
    // packConstantsAsBytes).
    if (!global.getAlignment()) {
      Type element = resource.getType().getElementType();
      global.setAlignment(static_cast<uint64_t>(
          element.isIntOrFloat()
              ? std::max(1u, (element.getIntOrFloatBitWidth() + 7) / 8)
              : 1));
    }
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::Internal);
    global.setExternallyInitialized(true);
    global.setSection(kDeferredSection);
    OpBuilder b(global.getContext());
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value zero =
        LLVM::ZeroOp::create(b, global.getLoc(), global.getGlobalType());
    LLVM::ReturnOp::create(b, global.getLoc(), zero);
    constants.push_back({global.getSymName().str(), blob->getData()});
  }
}

llvm::Error mlir::llm::runtime::appendDeferredConstants(
    llvm::MemoryBufferRef object, llvm::ArrayRef<DeferredConstant> constants,
    llvm::raw_pwrite_stream &os) {
  using ELF = llvm::object::ELF64LE;
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "writing the weights into the object: " +
                                       message);
  };
  if (constants.empty())
    return llvm::Error::success();
  llvm::Expected<llvm::object::ELFObjectFile<ELF>> file =
      llvm::object::ELFObjectFile<ELF>::create(object);
  if (!file)
    return error(llvm::toString(file.takeError()));
  const llvm::object::ELFFile<ELF> &elf = file->getELFFile();

  // The section and the offsets of the constants' symbols in it.
  std::optional<llvm::object::SectionRef> section;
  for (const llvm::object::SectionRef &sec : file->sections()) {
    llvm::Expected<llvm::StringRef> name = sec.getName();
    if (!name)
      return error(llvm::toString(name.takeError()));
    if (*name == kDeferredSection)
      section = sec;
  }
  if (!section)
    return error("the object has no section '" + kDeferredSection + "'");
  const typename ELF::Shdr *header = file->getSection(section->getRawDataRefImpl());
  if (header->sh_type != llvm::ELF::SHT_NOBITS)
    return error("section '" + kDeferredSection + "' is not SHT_NOBITS");
  llvm::StringMap<const DeferredConstant *> wanted;
  for (const DeferredConstant &c : constants)
    wanted[c.symbol] = &c;
  std::vector<std::pair<uint64_t, const DeferredConstant *>> placed;
  for (const llvm::object::ELFSymbolRef &sym : file->symbols()) {
    llvm::Expected<llvm::StringRef> name = sym.getName();
    if (!name)
      return error(llvm::toString(name.takeError()));
    auto it = wanted.find(*name);
    if (it == wanted.end())
      continue;
    const DeferredConstant &c = *it->second;
    llvm::Expected<llvm::object::section_iterator> in = sym.getSection();
    if (!in)
      return error(llvm::toString(in.takeError()));
    llvm::Expected<uint64_t> value = sym.getValue();
    if (!value)
      return error(llvm::toString(value.takeError()));
    if (*in != *section || *value > header->sh_size ||
        c.bytes.size() > header->sh_size - *value)
      return error("symbol '" + c.symbol + "' is not in section '" +
                   kDeferredSection + "'");
    placed.emplace_back(*value, &c);
    wanted.erase(it);
  }
  if (!wanted.empty())
    return error("symbol '" + wanted.begin()->getKey() +
                 "' is not in the object");
  llvm::sort(placed, [](const auto &a, const auto &b) { return a.first < b.first; });
  for (size_t i = 1; i < placed.size(); ++i)
    if (placed[i - 1].first + placed[i - 1].second->bytes.size() >
        placed[i].first)
      return error("symbols '" + placed[i - 1].second->symbol + "' and '" +
                   placed[i].second->symbol + "' overlap");

  // Where the section header lies; everything is read before `os` grows
  // (`object` may be `os`'s own buffer).
  uint64_t headerOffset =
      elf.getHeader().e_shoff +
      static_cast<uint64_t>(section->getIndex()) * elf.getHeader().e_shentsize;
  uint64_t align = std::max<uint64_t>(header->sh_addralign, 64);
  uint64_t size = header->sh_size;
  uint32_t name = header->sh_name + 4; // ".bss.rodata..." -> ".rodata..."
  uint64_t flags = llvm::ELF::SHF_ALLOC |
                   (header->sh_flags & llvm::ELF::SHF_X86_64_LARGE);
  uint64_t start = llvm::alignTo(object.getBufferSize(), align);
  if (os.tell() != object.getBufferSize())
    return error("the stream is not at the end of the object");

  os.write_zeros(start - object.getBufferSize());
  uint64_t at = 0;
  for (auto &[offset, c] : placed) {
    os.write_zeros(offset - at);
    os.write(c->bytes.data(), c->bytes.size());
    at = offset + c->bytes.size();
  }
  os.write_zeros(size - at);

  char field[8];
  auto patch = [&](uint64_t offset, uint64_t value, unsigned bytes) {
    if (bytes == 4)
      llvm::support::endian::write32le(field, static_cast<uint32_t>(value));
    else
      llvm::support::endian::write64le(field, value);
    os.pwrite(field, bytes, headerOffset + offset);
  };
  patch(offsetof(ELF::Shdr, sh_name), name, 4);
  patch(offsetof(ELF::Shdr, sh_type), llvm::ELF::SHT_PROGBITS, 4);
  patch(offsetof(ELF::Shdr, sh_flags), flags, 8);
  patch(offsetof(ELF::Shdr, sh_offset), start, 8);
  return llvm::Error::success();
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
