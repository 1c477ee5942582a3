//===- Npy.cpp - Host tensors and .npy files ------------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements host tensors and reading/writing them as .npy files.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Npy.h"
#include "llm/Support/OutputFile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::llm::runtime;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// DType helpers
//===----------------------------------------------------------------------===//

int64_t mlir::llm::runtime::getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
  case DType::I8:
    return 1;
  }
  llvm_unreachable("unknown dtype");
}

StringRef mlir::llm::runtime::getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  llvm_unreachable("unknown dtype");
}

StringRef mlir::llm::runtime::getNpyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::BF16:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> mlir::llm::runtime::getDTypeFromType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  // Signless and signed integers share the storage; unsigned are refused so
  // that a ui8 model input is not silently read as signed.
  if (auto intTy = dyn_cast<IntegerType>(type)) {
    if (intTy.isUnsigned())
      return std::nullopt;
    switch (intTy.getWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return DType::I8;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Type mlir::llm::runtime::getTypeFromDType(MLIRContext *ctx, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F64:
    return Float64Type::get(ctx);
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  case DType::I1:
    return IntegerType::get(ctx, 1);
  case DType::I8:
    return IntegerType::get(ctx, 8);
  case DType::I32:
    return IntegerType::get(ctx, 32);
  case DType::I64:
    return IntegerType::get(ctx, 64);
  }
  llvm_unreachable("unknown dtype");
}

int64_t mlir::llm::runtime::getNumElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string mlir::llm::runtime::formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::FreeDeleter::operator()(void *p) const { std::free(p); }

void *HostTensor::allocateZeroed(int64_t bytes) {
  // aligned_alloc needs a size that is a multiple of the alignment; never
  // allocate 0 bytes so that the data pointer is always valid. aligned_alloc
  // returns null (it never aborts) when the memory is not available.
  size_t size = llvm::alignTo(static_cast<uint64_t>(std::max<int64_t>(bytes, 1)), 64);
  void *p = std::aligned_alloc(64, size);
  if (p)
    std::memset(p, 0, size);
  return p;
}

HostTensor::HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape.begin(), shape.end()) {
  void *p = allocateZeroed(getSizeInBytes());
  if (!p)
    llvm::report_bad_alloc_error("cannot allocate a host tensor");
  data.reset(p);
}

llvm::Expected<HostTensor> HostTensor::allocate(DType dtype,
                                                llvm::ArrayRef<int64_t> shape) {
  int64_t bytes = getDTypeSize(dtype);
  for (int64_t d : shape) {
    if (d < 0 || llvm::MulOverflow(bytes, d, bytes))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "shape " + formatShape(shape) +
              " is too large: its size in bytes overflows int64");
  }
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape.assign(shape.begin(), shape.end());
  void *p = allocateZeroed(bytes);
  if (!p)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot allocate " + llvm::Twine(bytes) +
                                       " bytes");
  tensor.data.reset(p);
  return tensor;
}

/// IEEE binary16 bits to float (exact).
static float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal half: normalize.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400));
    bits = sign | ((112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Rounds `value` to the 16-bit format `semantics` (nearest-even) and returns
/// its bits.
static uint16_t roundTo16(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(value);
  bool losesInfo;
  f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

double HostTensor::getAsDouble(int64_t i) const {
  const char *p = static_cast<const char *>(data.get());
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case DType::F16: {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    return halfToFloat(v);
  }
  case DType::BF16: {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    uint32_t bits = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::I1:
    return p[i] != 0 ? 1.0 : 0.0;
  case DType::I8:
    return static_cast<int8_t>(p[i]);
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return static_cast<double>(v);
  }
  }
  llvm_unreachable("unknown dtype");
}

void HostTensor::setFromDouble(int64_t i, double value) {
  char *p = static_cast<char *>(data.get());
  switch (dtype) {
  case DType::F32: {
    float v = static_cast<float>(value);
    std::memcpy(p + 4 * i, &v, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p + 8 * i, &value, 8);
    return;
  case DType::F16: {
    uint16_t v = roundTo16(value, llvm::APFloat::IEEEhalf());
    std::memcpy(p + 2 * i, &v, 2);
    return;
  }
  case DType::BF16: {
    uint16_t v = roundTo16(value, llvm::APFloat::BFloat());
    std::memcpy(p + 2 * i, &v, 2);
    return;
  }
  case DType::I1:
    p[i] = value != 0.0 ? 1 : 0;
    return;
  case DType::I8:
    p[i] = static_cast<char>(static_cast<int8_t>(value));
    return;
  case DType::I32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(p + 4 * i, &v, 4);
    return;
  }
  case DType::I64: {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(p + 8 * i, &v, 8);
    return;
  }
  }
  llvm_unreachable("unknown dtype");
}

//===----------------------------------------------------------------------===//
// .npy header parsing
//===----------------------------------------------------------------------===//

namespace {
/// The fields of a .npy header dictionary.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  llvm::SmallVector<int64_t> shape;
};

/// A tiny parser for the Python dict literal of a .npy header, e.g.
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  /// Parses the dictionary; on failure returns a message.
  std::optional<std::string> parse(NpyHeader &header) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipSpace();
    if (!consume('{'))
      return std::string("header is not a Python dict");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return std::string("expected a quoted key in the header");
      skipSpace();
      if (!consume(':'))
        return "expected ':' after key '" + key + "'";
      skipSpace();
      if (key == "descr") {
        if (!parseString(header.descr))
          return std::string("'descr' must be a string (structured dtypes "
                             "are not supported)");
        seenDescr = true;
      } else if (key == "fortran_order") {
        if (text.consume_front("True"))
          header.fortranOrder = true;
        else if (text.consume_front("False"))
          header.fortranOrder = false;
        else
          return std::string("'fortran_order' must be True or False");
        seenOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return std::string("'shape' must be a tuple of non-negative "
                             "integers");
        seenShape = true;
      } else {
        return "unexpected key '" + key + "' in the header";
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return std::string("expected ',' or '}' in the header");
    }
    if (!seenDescr || !seenOrder || !seenShape)
      return std::string("header lacks 'descr', 'fortran_order' or 'shape'");
    return std::nullopt;
  }

private:
  void skipSpace() { text = text.ltrim(" \t\n\r"); }
  bool consume(char c) { return text.consume_front(StringRef(&c, 1)); }
  bool parseString(std::string &out) {
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return false;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    out = text.slice(1, end).str();
    text = text.drop_front(end + 1);
    return true;
  }
  bool parseShape(llvm::SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (true) {
      skipSpace();
      if (consume(')'))
        return true;
      size_t len = text.find_first_not_of("0123456789");
      if (len == 0 || len == StringRef::npos)
        return false;
      int64_t v;
      // Reject absurd sizes early (the data size check comes later).
      if (text.take_front(len).getAsInteger(10, v) || v > (int64_t(1) << 48))
        return false;
      shape.push_back(v);
      text = text.drop_front(len);
      skipSpace();
      // Python writes a trailing 'L' for longs in old numpy versions.
      consume('L');
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return true;
      return false;
    }
  }

  StringRef text;
};
} // namespace

/// Maps a numpy descr to a DType, or returns an error message.
static llvm::Expected<DType> parseDescr(StringRef descr, StringRef name) {
  auto err = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name + ": " + msg);
  };
  if (descr.size() < 2)
    return err("unsupported dtype '" + descr + "'");
  char order = descr.front();
  StringRef kind = descr.drop_front();
  if (order == '>' && kind != "b1" && kind != "i1" && kind != "u1")
    return err("big-endian data ('" + descr +
               "') is not supported; convert with "
               "arr.astype(arr.dtype.newbyteorder('<'))");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return err("unsupported dtype '" + descr + "'");
  if (kind == "f4")
    return DType::F32;
  if (kind == "f8")
    return DType::F64;
  if (kind == "f2")
    return DType::F16;
  if (kind == "b1")
    return DType::I1;
  if (kind == "i1")
    return DType::I8;
  if (kind == "i4")
    return DType::I32;
  if (kind == "i8")
    return DType::I64;
  // uint8 tensors (quantized activations) travel as their int8 bits.
  if (kind == "u1")
    return err("unsupported dtype '" + descr +
               "' (supported: <f4 <f8 <f2 |b1 |i1 <i4 <i8); uint8 data "
               "(a u8 quantized tensor) goes in as its int8 bits: "
               "arr.view(numpy.int8)");
  return err("unsupported dtype '" + descr +
             "' (supported: <f4 <f8 <f2 |b1 |i1 <i4 <i8)");
}

namespace {
/// What a .npy header declares: the element types and where the data is.
struct NpyLayout {
  std::string descr;
  llvm::SmallVector<int64_t> shape;
  /// The element type of the file and of the tensor (BF16 from '<f4').
  DType fileDType, dtype;
  int64_t numElements;
  /// Offset and size of the data in the file.
  uint64_t dataStart, dataBytes;
};
} // namespace

static llvm::Error npyError(StringRef name, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + msg);
}

/// The length of the fixed part of a .npy header (magic string, version,
/// header length) of format version `major`, or 0 for an unknown version.
static size_t getPreambleSize(unsigned major) {
  return major == 1 ? 10 : (major == 2 || major == 3) ? 12 : 0;
}

/// Parses the header of a .npy file of `fileSize` bytes; `prefix` holds the
/// file's first bytes, at least the whole header when the file has it (the
/// data start found by `getNpyDataStart`).
static llvm::Expected<NpyLayout> parseNpyHeader(StringRef prefix,
                                                uint64_t fileSize,
                                                StringRef name,
                                                std::optional<DType> expected);

/// Where the data of a .npy file of `fileSize` bytes starts, from its first
/// bytes `prefix` (at least 12 when the file has them): checks the magic
/// string, the version and that the header fits in the file.
static llvm::Expected<uint64_t> getNpyDataStart(StringRef prefix,
                                                uint64_t fileSize,
                                                StringRef name) {
  static constexpr StringRef kMagic("\x93NUMPY", 6);
  if (!prefix.starts_with(kMagic))
    return npyError(name, "not a .npy file (bad magic string)");
  if (prefix.size() < 10)
    return npyError(name, "truncated .npy header");
  unsigned major = static_cast<unsigned char>(prefix[6]);
  size_t preamble = getPreambleSize(major);
  if (!preamble)
    return npyError(name,
                    "unsupported .npy format version " + llvm::Twine(major));
  if (prefix.size() < preamble)
    return npyError(name, "truncated .npy header");
  uint64_t headerLen = preamble == 10
                           ? llvm::support::endian::read16le(prefix.data() + 8)
                           : llvm::support::endian::read32le(prefix.data() + 8);
  uint64_t dataStart = preamble + headerLen;
  if (dataStart > fileSize)
    return npyError(name, "truncated .npy header (header length " +
                              llvm::Twine(headerLen) + ", file size " +
                              llvm::Twine(fileSize) + ")");
  return dataStart;
}

static llvm::Expected<NpyLayout> parseNpyHeader(StringRef prefix,
                                                uint64_t fileSize,
                                                StringRef name,
                                                std::optional<DType> expected) {
  auto err = [&](const llvm::Twine &msg) { return npyError(name, msg); };
  llvm::Expected<uint64_t> dataStart = getNpyDataStart(prefix, fileSize, name);
  if (!dataStart)
    return dataStart.takeError();
  size_t preamble = getPreambleSize(static_cast<unsigned char>(prefix[6]));
  StringRef headerText = prefix.slice(preamble, *dataStart);

  NpyHeader header;
  if (std::optional<std::string> msg = HeaderParser(headerText).parse(header))
    return err("malformed .npy header: " + *msg);
  if (header.fortranOrder)
    return err("fortran_order arrays are not supported; save a C-order "
               "array (np.ascontiguousarray)");
  llvm::Expected<DType> fileDType = parseDescr(header.descr, name);
  if (!fileDType)
    return fileDType.takeError();

  // The tensor's element type: a BF16 tensor is read from '<f4' values.
  DType dtype = *fileDType;
  if (expected) {
    bool bf16FromF32 = *expected == DType::BF16 && dtype == DType::F32;
    if (dtype != *expected && !bf16FromF32)
      return err("expected dtype " + getDTypeName(*expected) + " ('" +
                 getNpyDescr(*expected) + "'), got '" + header.descr + "' (" +
                 getDTypeName(dtype) + ")");
    dtype = *expected;
  }

  // Checked element count and data size, against the file's size.
  int64_t numElements = 1;
  for (int64_t d : header.shape) {
    if (llvm::MulOverflow(numElements, d, numElements) ||
        numElements > (int64_t(1) << 40))
      return err("shape (" + formatShape(header.shape) + ") is too large");
  }
  uint64_t dataBytes =
      static_cast<uint64_t>(numElements * getDTypeSize(*fileDType));
  uint64_t available = fileSize - *dataStart;
  if (available < dataBytes)
    return err("truncated .npy data: shape " + formatShape(header.shape) +
               " of '" + header.descr + "' needs " + llvm::Twine(dataBytes) +
               " bytes, the file has " + llvm::Twine(available));
  if (available > dataBytes)
    return err("corrupt .npy file: " + llvm::Twine(available - dataBytes) +
               " unexpected bytes after the data");
  return NpyLayout{header.descr, header.shape, *fileDType, dtype,
                   numElements,  *dataStart,   dataBytes};
}

/// Allocates the tensor of `layout` and fills it with the data, which
/// `read(dst, n)` delivers in order, `n` bytes at a time.
static llvm::Expected<HostTensor>
readNpyData(const NpyLayout &layout, StringRef name,
            llvm::function_ref<llvm::Error(char *, uint64_t)> read) {
  llvm::Expected<HostTensor> allocated =
      HostTensor::allocate(layout.dtype, layout.shape);
  if (!allocated)
    return npyError(name, llvm::toString(allocated.takeError()));
  HostTensor tensor = std::move(*allocated);
  if (layout.dtype == layout.fileDType) {
    if (layout.dataBytes)
      if (llvm::Error e =
              read(static_cast<char *>(tensor.getData()), layout.dataBytes))
        return std::move(e);
  } else {
    // BF16 from f32 values, converted a chunk at a time.
    constexpr int64_t kChunk = 4096;
    std::vector<float> chunk(kChunk);
    for (int64_t i = 0; i < layout.numElements; i += kChunk) {
      int64_t n = std::min(kChunk, layout.numElements - i);
      if (llvm::Error e = read(reinterpret_cast<char *>(chunk.data()), 4 * n))
        return std::move(e);
      for (int64_t j = 0; j < n; ++j)
        tensor.setFromDouble(i + j, chunk[j]);
    }
  }
  if (layout.dtype == DType::I1) {
    // numpy bools are 0/1 bytes; normalize anything else.
    char *p = static_cast<char *>(tensor.getData());
    for (int64_t i = 0; i < layout.numElements; ++i)
      p[i] = p[i] != 0;
  }
  return tensor;
}

llvm::Expected<HostTensor>
mlir::llm::runtime::parseNpy(StringRef bytes, StringRef name,
                             std::optional<DType> expected) {
  llvm::Expected<NpyLayout> layout =
      parseNpyHeader(bytes, bytes.size(), name, expected);
  if (!layout)
    return layout.takeError();
  const char *src = bytes.data() + layout->dataStart;
  return readNpyData(*layout, name, [&](char *dst, uint64_t n) {
    std::memcpy(dst, src, n);
    src += n;
    return llvm::Error::success();
  });
}

llvm::Expected<HostTensor>
mlir::llm::runtime::readNpy(StringRef path, std::optional<DType> expected) {
  namespace fs = llvm::sys::fs;
  auto cannotRead = [&](const llvm::Twine &reason) {
    return npyError(path, "cannot read file: " + reason);
  };
  // Only regular files (through links): a device or FIFO could be endless,
  // and opening a FIFO would wait for a writer.
  auto checkRegular = [&](const fs::file_status &status) -> llvm::Error {
    if (status.type() == fs::file_type::regular_file)
      return llvm::Error::success();
    if (status.type() == fs::file_type::directory_file)
      return cannotRead("Is a directory");
    return cannotRead(llm::describeFileType(status.type()) +
                      "; .npy inputs must be regular files");
  };
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status))
    return cannotRead(ec.message());
  if (llvm::Error e = checkRegular(status))
    return std::move(e);
  llvm::Expected<fs::file_t> file = fs::openNativeFileForRead(path);
  if (!file)
    return cannotRead(llvm::toString(file.takeError()));
  llvm::scope_exit closeFile([&] { fs::closeFile(*file); });
  // The file opened (it may have been replaced since the check above).
  if (std::error_code ec = fs::status(*file, status))
    return cannotRead(ec.message());
  if (llvm::Error e = checkRegular(status))
    return std::move(e);
  uint64_t fileSize = status.getSize();

  // Reads exactly `n` bytes (fewer only when the file ends first).
  auto readBytes = [&](char *dst, uint64_t n) -> llvm::Expected<uint64_t> {
    uint64_t done = 0;
    while (done < n) {
      size_t want = std::min<uint64_t>(n - done, size_t(1) << 30);
      llvm::Expected<size_t> got = fs::readNativeFile(
          *file, llvm::MutableArrayRef<char>(dst + done, want));
      if (!got)
        return cannotRead(llvm::toString(got.takeError()));
      if (*got == 0)
        break;
      done += *got;
    }
    return done;
  };

  // The header first: its fixed part, then the rest it declares.
  std::string prefix(std::min<uint64_t>(fileSize, 10), '\0');
  llvm::Expected<uint64_t> got = readBytes(prefix.data(), prefix.size());
  if (!got)
    return got.takeError();
  prefix.resize(*got);
  if (prefix.size() == 10 &&
      getPreambleSize(static_cast<unsigned char>(prefix[6])) == 12) {
    prefix.resize(12);
    got = readBytes(prefix.data() + 10, 2);
    if (!got)
      return got.takeError();
    prefix.resize(10 + *got);
  }
  llvm::Expected<uint64_t> dataStart =
      getNpyDataStart(prefix, fileSize, path);
  if (!dataStart)
    return dataStart.takeError();
  size_t have = prefix.size();
  prefix.resize(*dataStart);
  if (*dataStart > have) {
    got = readBytes(prefix.data() + have, *dataStart - have);
    if (!got)
      return got.takeError();
    prefix.resize(have + *got);
  }
  // Header and data size are checked against the file size before the data
  // is allocated and read.
  llvm::Expected<NpyLayout> layout =
      parseNpyHeader(prefix, fileSize, path, expected);
  if (!layout)
    return layout.takeError();
  uint64_t offset = layout->dataStart;
  return readNpyData(
      *layout, path, [&](char *dst, uint64_t n) -> llvm::Error {
        llvm::Expected<uint64_t> read = readBytes(dst, n);
        if (!read)
          return read.takeError();
        if (*read < n)
          return npyError(path, "truncated .npy data: the file ended at " +
                                    llvm::Twine(offset + *read) +
                                    " bytes while it was read (it was " +
                                    llvm::Twine(fileSize) + ")");
        offset += n;
        return llvm::Error::success();
      });
}

//===----------------------------------------------------------------------===//
// .npy writing
//===----------------------------------------------------------------------===//

std::string mlir::llm::runtime::serializeNpy(const HostTensor &tensor) {
  std::string dict;
  {
    llvm::raw_string_ostream os(dict);
    os << "{'descr': '" << getNpyDescr(tensor.getDType())
       << "', 'fortran_order': False, 'shape': (";
    for (int64_t d : tensor.getShape())
      os << d << ", ";
    if (!tensor.getShape().empty())
      dict.resize(dict.size() - (tensor.getRank() == 1 ? 1 : 2));
    os << "), }";
  }
  // Pad with spaces so that the data starts at a multiple of 64, and end the
  // header with '\n' (as numpy does).
  size_t total = llvm::alignTo(10 + dict.size() + 1, 64);
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>((dict.size() >> 8) & 0xff));
  out += dict;
  if (tensor.getDType() == DType::BF16) {
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      float v = static_cast<float>(tensor.getAsDouble(i));
      out.append(reinterpret_cast<const char *>(&v), 4);
    }
  } else {
    out.append(static_cast<const char *>(tensor.getData()),
               tensor.getSizeInBytes());
  }
  return out;
}

llvm::Error mlir::llm::runtime::writeNpy(StringRef path,
                                         const HostTensor &tensor) {
  return writeFile(path, [&](llvm::raw_ostream &os) {
    os << serializeNpy(tensor);
    return llvm::Error::success();
  });
}
