//===- ImportTensorData.cpp - ONNX tensors and constants ------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Initializers and `Constant` values: reading TensorProto data (raw, typed
// or external), checking it against the declared type and shape, and
// materializing constants as `llm.constant` (dense or dense_resource).
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <climits>

using namespace mlir;
using namespace mlir::llm;
using namespace mlir::llm::onnx_import;
using onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Tensor data and constants
//===----------------------------------------------------------------------===//

/// The number of values in the typed field of `t` that holds its data type
/// (the fields readTensor reads).
static int64_t typedDataCount(const TensorProto &t) {
  switch (t.data_type()) {
  case TensorProto::FLOAT:
    return t.float_data_size();
  case TensorProto::DOUBLE:
    return t.double_data_size();
  case TensorProto::INT64:
    return t.int64_data_size();
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    return t.uint64_data_size();
  default: // float16/bfloat16 bits, bool and the narrow integers
    return t.int32_data_size();
  }
}

LogicalResult Importer::checkTensorData(const TensorProto &t, Location loc,
                                        const onnx::NodeProto *node,
                                        StringRef attrName) {
  // "tensor 'w' has ...", or for a node's attribute "ONNX node 'c'
  // (Constant, opset 17): tensor 'value' has ..." (value tensors are often
  // unnamed).
  auto error = [&]() {
    InFlightDiagnostic diag = node ? nodeError(*node) : emitError(loc);
    diag << "tensor '" << (t.name().empty() && node ? attrName.str() : t.name())
         << "'";
    return diag;
  };
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t es = elementSize(t.data_type());
  if (es == 0)
    return error() << " has unsupported data type " << dtypeName(t.data_type());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return error() << " has a negative dimension";
  // The size must not overflow, and the data must be there before the
  // buffer is allocated: a corrupt file can declare any dims.
  int64_t n = 1, nbytes = 0;
  bool overflow = !shapeFits(shape, es);
  for (int64_t d : shape)
    overflow |= llvm::MulOverflow(n, d, n);
  overflow |= llvm::MulOverflow(n, es, nbytes);
  if (overflow)
    return error() << " is too large: its size in bytes overflows int64";
  if (t.data_location() == TensorProto::EXTERNAL)
    return success(); // Checked when read (readTensor).
  if (t.has_raw_data()) {
    if (static_cast<int64_t>(t.raw_data().size()) != nbytes)
      return error() << " has " << t.raw_data().size()
                     << " bytes of raw data, expected " << nbytes;
    return success();
  }
  if (typedDataCount(t) != n)
    return error() << " has " << typedDataCount(t) << " values, expected " << n;
  return success();
}

FailureOr<ConstTensor> Importer::readTensor(const TensorProto &t,
                                            Location loc) {
  if (failed(checkTensorData(t, loc)))
    return failure();
  ConstTensor c;
  c.dtype = t.data_type();
  c.shape.assign(t.dims().begin(), t.dims().end());
  int64_t es = elementSize(c.dtype);
  int64_t n = product(c.shape), nbytes = n * es; // checked: no overflow
  std::shared_ptr<std::vector<char>> bytes;
  auto allocate = [&] {
    bytes = std::make_shared<std::vector<char>>(nbytes);
    c.bytes = bytes;
  };

  if (t.data_location() == TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset")
        offset = std::atoll(kv.value().c_str());
      else if (kv.key() == "length")
        length = std::atoll(kv.value().c_str());
    }
    // ONNX external data lives next to the model: a location must be a
    // relative path that stays inside the model's directory.
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                      llvm::sys::path::end(location)),
                     [](StringRef part) { return part == ".."; })) {
      emitError(loc) << "external data location '" << location
                     << "' of tensor '" << t.name()
                     << "' must be a relative path inside the model's "
                        "directory";
      return failure();
    }
    SmallString<256> path(externalDataDir);
    llvm::sys::path::append(path, location);
    auto it = externalFiles.find(path);
    if (it == externalFiles.end()) {
      FailureOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
          openExternalData(path, t.name(), loc);
      if (failed(buf))
        return failure();
      it = externalFiles.try_emplace(path, std::move(*buf)).first;
    }
    llvm::MemoryBuffer &file = *it->second;
    if (length < 0)
      length = nbytes;
    int64_t fileSize = static_cast<int64_t>(file.getBufferSize());
    if (length != nbytes || offset < 0 || offset > fileSize ||
        length > fileSize - offset) {
      emitError(loc) << "external data of tensor '" << t.name()
                     << "' is out of range or has the wrong size (offset "
                     << offset << ", length " << length << ", expected "
                     << nbytes << " bytes, file size " << file.getBufferSize()
                     << ")";
      return failure();
    }
    allocate();
    // An empty tensor has no storage: memcpy's pointers must not be null.
    if (nbytes)
      std::memcpy(bytes->data(), file.getBufferStart() + offset, nbytes);
    return c;
  }

  if (t.has_raw_data()) {
    allocate(); // The size was checked above.
    if (nbytes)
      std::memcpy(bytes->data(), t.raw_data().data(), nbytes);
    return c;
  }

  // Typed data: its count was checked against n (checkTensorData); the
  // checks below only guard the reads.
  auto checkCount = [&](int64_t count) -> LogicalResult {
    if (count != n)
      return failure();
    allocate();
    return success();
  };
  switch (c.dtype) {
  case TensorProto::FLOAT:
    if (failed(checkCount(t.float_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<float>(i, t.float_data(i));
    break;
  case TensorProto::DOUBLE:
    if (failed(checkCount(t.double_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<double>(i, t.double_data(i));
    break;
  case TensorProto::INT64:
    if (failed(checkCount(t.int64_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<int64_t>(i, t.int64_data(i));
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    if (failed(checkCount(t.uint64_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.setInt(i, static_cast<int64_t>(t.uint64_data(i)));
    break;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    // Stored as the raw 16-bit patterns in int32_data.
    if (failed(checkCount(t.int32_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.store<uint16_t>(i, static_cast<uint16_t>(t.int32_data(i)));
    break;
  default:
    if (failed(checkCount(t.int32_data_size())))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.setInt(i, t.int32_data(i));
    break;
  }
  return c;
}

FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
Importer::openExternalData(StringRef path, StringRef tensor, Location loc) {
  namespace fs = llvm::sys::fs;
  auto cannotRead = [&](const Twine &why) {
    emitError(loc) << "cannot read external data file '" << path
                   << "' of tensor '" << tensor << "': " << why;
    return failure();
  };
  // Before opening: a FIFO would block the open, a device never end.
  fs::file_status st;
  if (std::error_code ec = fs::status(path, st))
    return cannotRead(ec.message());
  if (st.type() != fs::file_type::regular_file)
    return cannotRead("not a regular file");
  // The real path of the opened file (the kernel's, /proc/self/fd), so that
  // a link swapped after a check cannot lead outside.
  SmallString<256> dir, real;
  if (std::error_code ec =
          fs::real_path(externalDataDir.empty() ? "." : externalDataDir, dir))
    return cannotRead("the model's directory: " + ec.message());
  int fd;
  if (std::error_code ec = fs::openFileForRead(path, fd, fs::OF_None, &real))
    return cannotRead(ec.message());
  llvm::scope_exit closeFd([&] { fs::closeFile(fd); });
  if (real.empty() || !llvm::sys::path::is_absolute(real)) {
    SmallString<256> resolved;
    if (std::error_code ec = fs::real_path(path, resolved))
      return cannotRead(ec.message());
    real = resolved;
  }
  SmallString<256> prefix(dir);
  if (!prefix.ends_with(llvm::sys::path::get_separator()))
    prefix += llvm::sys::path::get_separator();
  if (!real.starts_with(prefix)) {
    emitError(loc) << "external data file '" << path << "' of tensor '"
                   << tensor << "' resolves to '" << real
                   << "', outside the model's directory '" << dir << "'";
    return failure();
  }
  // The opened file itself must still be a regular file.
  if (std::error_code ec = fs::status(fd, st))
    return cannotRead(ec.message());
  if (st.type() != fs::file_type::regular_file)
    return cannotRead("not a regular file");
  auto buf = llvm::MemoryBuffer::getOpenFile(fd, path, st.getSize(),
                                             /*RequiresNullTerminator=*/false);
  if (!buf)
    return cannotRead(buf.getError().message());
  return std::move(*buf);
}

/// Blob names must be bare identifiers in the textual IR.
static std::string sanitizeBlobName(StringRef name) {
  std::string s;
  for (char ch : name)
    s += (llvm::isAlnum(ch) || ch == '_' || ch == '.') ? ch : '_';
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    s = "_" + s;
  return s;
}

/// `v` (ConstTensor::getInt: a `width`-bit element sign- or zero-extended as
/// its ONNX type says) as a `width`-bit APInt: signed when negative, else
/// unsigned. As a signed value, true (1) does not fit 1 bit nor 255 (uint8)
/// 8 bits: APInt asserts (found by onnx-import-fuzzer on the Trilu mask).
static APInt toAPInt(unsigned width, int64_t v) {
  return APInt(width, static_cast<uint64_t>(v), /*isSigned=*/v < 0);
}

ElementsAttr Importer::constantAttr(const ConstTensor &t, StringRef blobName,
                                    bool forceResource) {
  Type elemType = toMLIRType(t.dtype, ctx);
  auto type = tensorType(t.shape, elemType);
  int64_t n = t.numel();
  // Scalars and splats of folded values stay readable inline literals; the
  // bool type has no compact resource layout, so it stays inline too. A
  // one-element initializer is inlined as well: a rank-0 `dense_resource`
  // global crashes MLIR 22's memref-to-LLVM lowering (ElementsAttr
  // iteration), and one element gains nothing from a blob.
  bool inlineIt = t.dtype == TensorProto::BOOL || n <= 1 ||
                  (!forceResource && t.isSplat());
  if (!inlineIt) {
    // The blob shares the tensor's bytes: no copy of the weights.
    std::shared_ptr<std::vector<char>> keep = t.bytes;
    AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        ArrayRef<char>(keep->data(), n * t.elemSize()), t.elemSize(),
        [keep](void *, size_t, size_t) {});
    return DenseResourceElementsAttr::get(type, sanitizeBlobName(blobName),
                                          std::move(blob));
  }
  if (n > 0 && t.isSplat()) {
    if (isa<FloatType>(elemType)) {
      APFloat f(t.getDouble(0));
      bool lost;
      f.convert(cast<FloatType>(elemType).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      return DenseElementsAttr::get(type, f);
    }
    return DenseElementsAttr::get(
        type, toAPInt(elemType.getIntOrFloatBitWidth(), t.getInt(0)));
  }
  if (isa<FloatType>(elemType)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(t.getDouble(i));
      bool lost;
      f.convert(cast<FloatType>(elemType).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(toAPInt(elemType.getIntOrFloatBitWidth(), t.getInt(i)));
  return DenseElementsAttr::get(type, values);
}

FailureOr<Value> Importer::materialize(const onnx::NodeProto &node, Entry &e) {
  if (e.value)
    return e.value;
  const ConstTensor &t = *e.constant;
  if (!toMLIRType(t.dtype, ctx)) {
    nodeError(node) << "constant '" << e.blobName << "' of type "
                    << dtypeName(t.dtype)
                    << " is used at runtime, but the llm dialect has no such "
                       "element type";
    return failure();
  }
  // One llm.constant per distinct constant: entries copied by Identity (or
  // shared initializers) share their bytes, inline literals are uniqued.
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(t.bytes.get())) +
                    ":" + std::to_string(t.dtype) + ":" + shapeStr(t.shape);
  auto cachedIt = materializedBytes.find(key);
  if (cachedIt != materializedBytes.end())
    return e.value = cachedIt->second.first;
  ElementsAttr attr = constantAttr(t, e.blobName, e.isInitializer);
  if (!isa<DenseResourceElementsAttr>(attr))
    if (Value cached = materializedAttrs.lookup(attr))
      return e.value = cached;
  e.value = ConstantOp::create(builder, nodeLoc(node), attr);
  // Keeping the bytes alive keeps their address from being reused as a key.
  materializedBytes[key] = {e.value, t.bytes};
  if (!isa<DenseResourceElementsAttr>(attr))
    materializedAttrs[attr] = e.value;
  return e.value;
}

FailureOr<Value> Importer::materializeAs(const onnx::NodeProto &node, Entry &e,
                                         int dtype) {
  if (e.value || !e.constant || e.constant->dtype == dtype)
    return materialize(node, e);
  Entry converted;
  converted.constant = e.constant->castTo(dtype);
  converted.blobName = e.blobName;
  return materialize(node, converted);
}

